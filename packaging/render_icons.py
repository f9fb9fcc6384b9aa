"""Render ``assets/icons/coverfire.svg`` to the PNG sizes a Linux desktop asks for.

    python packaging/render_icons.py

Writes ``assets/icons/coverfire-<N>.png`` for each size in ``gui.desktop_entry.ICON_SIZES``
(and ``coverfire.ico`` for the Windows bundle). Run it after editing the SVG and commit the
PNGs: they ship in the wheel, so installing the desktop entry needs neither QtSvg nor a
display.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QRectF, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

from gui.desktop_entry import ICON_SIZES  # noqa: E402

ICONS = ROOT / "assets" / "icons"


def render(svg: Path, size: int) -> QImage:
    """``svg`` drawn antialiased on a transparent ``size`` x ``size`` image."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    img = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(p, QRectF(0, 0, size, size))
    p.end()
    return img


def main() -> int:
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    svg = ICONS / "coverfire.svg"
    for n in ICON_SIZES:
        out = ICONS / f"coverfire-{n}.png"
        if not render(svg, n).save(str(out), "PNG"):
            raise SystemExit(f"could not write {out}")
        print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
