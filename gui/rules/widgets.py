"""Small widget helpers every rule system's docks and dialogs use the same way: a bold
label (:func:`bold`) and a table the GM reads but does not edit (:func:`read_only_table`,
filled with :func:`set_cell`).

No rule here, only how things look.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

W = TypeVar("W", bound=QWidget)


def bold(widget: W, *, scale: float | None = None, pixel_size: int | None = None) -> W:
    """``widget`` with its font made bold and, when given, ``scale`` times its point size or
    ``pixel_size`` pixels high; returns ``widget``."""
    f = widget.font()
    f.setBold(True)
    if scale is not None:
        f.setPointSizeF(f.pointSizeF() * scale)
    if pixel_size is not None:
        f.setPixelSize(pixel_size)
    widget.setFont(f)
    return widget


def read_only_table(columns: Sequence[str], *, rows: int = 0, stretch: int = 0, pick_rows: bool = False,
                    row_height: int = 22) -> QTableWidget:
    """A table of ``rows`` rows under the headers ``columns``, without row numbers, that
    cannot be edited: rows ``row_height`` px high; every column as wide as its contents but
    column ``stretch``, which takes the rest. ``pick_rows``: a click selects one whole row;
    otherwise nothing can be selected and the table takes no keyboard focus."""
    t = QTableWidget(rows, len(columns))
    t.setHorizontalHeaderLabels(columns)
    t.verticalHeader().setVisible(False)
    t.verticalHeader().setDefaultSectionSize(row_height)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    if pick_rows:
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    else:
        t.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        t.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    hh = t.horizontalHeader()
    hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    hh.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    return t


def set_cell(table: QTableWidget, row: int, column: int, text: str) -> QTableWidgetItem:
    """The item at ``row``, ``column`` of ``table`` (made when there is none yet), now
    showing ``text``."""
    item = table.item(row, column)
    if item is None:
        item = QTableWidgetItem()
        table.setItem(row, column, item)
    item.setText(text)
    return item


__all__ = ["bold", "read_only_table", "set_cell"]
