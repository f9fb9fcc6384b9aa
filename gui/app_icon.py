"""Coverfire's window and taskbar icon, from the PNG sizes shipped in ``assets/icons``
(no SVG plugin needed, so the bundle can leave QtSvg's image plugins out)."""

from __future__ import annotations

from PySide6.QtGui import QIcon

from assets import ICONS


def app_icon() -> QIcon:
    """Every shipped ``coverfire-<N>.png`` in one icon (Qt picks the size it draws)."""
    icon = QIcon()
    for png in sorted(ICONS.glob("coverfire-*.png")):
        icon.addFile(str(png))
    return icon
