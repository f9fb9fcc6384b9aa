"""The Targets table as the GM sees it, read back for the tests."""

from __future__ import annotations

from PySide6.QtCore import Qt


def table(window) -> dict[str, list[str]]:
    """The targets table as shown: target id -> the row's cell texts."""
    m = window.targets.model
    return {m.data(m.index(r, 0), Qt.ItemDataRole.UserRole + 1): [m.data(m.index(r, c)) for c in range(m.columnCount())]
            for r in range(m.rowCount())}
