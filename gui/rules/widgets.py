"""Small widget helpers every rule system's docks and Action-panel pages use the same way: a
bold label (:func:`bold`), a table the GM reads but does not edit (:func:`read_only_table`,
filled with :func:`set_cell`) and a section that folds (:class:`Section`).

No rule here, only how things look.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLayout,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

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


class Section(QWidget):
    """A titled part of a narrow panel that folds away: a header button (arrow and title)
    over ``body`` (a widget or a layout). ``expanded`` says whether it starts open."""

    def __init__(self, title: str, body: QWidget | QLayout, *, expanded: bool = True):
        super().__init__()
        self.toggle = QToolButton()
        self.toggle.setText(title)
        self.toggle.setCheckable(True)
        self.toggle.setChecked(expanded)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setStyleSheet("QToolButton { border: none; font-weight: bold; }")
        self.toggle.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        if isinstance(body, QLayout):
            w = QWidget()
            w.setLayout(body)
            body = w
        self.body = body
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 2, 0, 2)
        lay.setSpacing(2)
        lay.addWidget(self.toggle)
        lay.addWidget(body)
        self.toggle.toggled.connect(self.set_expanded)
        self.set_expanded(expanded)

    def set_expanded(self, on: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        if self.toggle.isChecked() != on:
            self.toggle.setChecked(on)
        self.body.setVisible(on)

    def set_title(self, title: str) -> None:
        self.toggle.setText(title)


__all__ = ["Section", "bold", "read_only_table", "set_cell"]
