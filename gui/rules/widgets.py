"""Small widget helpers every rule system's docks and Action-panel pages use the same way: a
bold label (:func:`bold`), a table the GM reads but does not edit (:func:`read_only_table`,
filled with :func:`set_cell`, or row by row with :class:`TableRows`, which writes only the
rows whose values changed) and a section that folds (:class:`Section`).

No rule here, only how things look.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
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

from gui.idle import IdleJob
from gui.rules.base import same_inputs

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


@contextmanager
def columns_held(table: QTableWidget) -> Iterator[None]:
    """Inside the block ``table``'s columns keep their widths: a cell written under
    ``ResizeToContents`` measures its whole column again (500 rows: ~5 ms a cell), so the
    columns are fixed while cells are written and measured once when the modes come back."""
    header = table.horizontalHeader()
    held = [header.sectionResizeMode(i) for i in range(table.columnCount())]
    for i in range(len(held)):
        header.setSectionResizeMode(i, QHeaderView.ResizeMode.Fixed)
    try:
        yield
    finally:
        for i, mode in enumerate(held):
            header.setSectionResizeMode(i, mode)


@dataclass(frozen=True)
class Cell:
    """What one table cell shows: ``text`` in ``colour`` (None: the table's) on
    ``background`` (None: none), bold or not, with a ``tip`` and ``data`` (its
    ``Qt.UserRole`` value) when given."""

    text: str
    colour: QColor | None = None
    background: QColor | None = None
    bold: bool = False
    tip: str | None = None
    data: object = None


#: Rows a big table writes in one event-loop turn (the ~24 on screen and more; ~0.06 ms a row
#: with its fonts and colours): the trackers of a 500-token fight fill over a few turns.
ROWS_PER_TURN = 60


class TableRows:
    """Writes ``table``'s rows from values, only those whose :class:`Cell` values changed
    since they were last written (a 500-row tracker rewrote 2,000 cells with fonts and
    colours on every edit of the map). With ``per_turn`` at most that many rows are written
    in one event-loop turn (several shows in one turn share it), those on screen first, the
    rest in the turns after (:class:`gui.idle.IdleJob`): a new Combat Turn or a file opened
    changes every row (500 rows, ~20-30 ms of writing).

    :meth:`show` takes every row's cells; :meth:`show_lazy` takes what each row is worked
    out from (its inputs, :func:`gui.rules.base.same_inputs`) and a function that works a
    row's cells out, called only for the rows whose inputs changed, when they are written (a
    500-row first fill works out the rows on screen in its own turn, the rest later). Both
    return the rows written now; :attr:`pending` counts those still to come."""

    def __init__(self, table: QTableWidget, *, per_turn: int | None = None):
        self.table = table
        self.per_turn = per_turn
        self._cells: list[tuple[Cell, ...] | None] = []  # what each row shows
        self._read: list = []  # what each row was worked out from
        self._want: list = []  # what each row is to be worked out from
        self._make: Callable[[int], tuple[Cell, ...]] = lambda r: ()
        self._same: Callable[[object, object], bool] = operator.eq
        self._turn_rows = 0  # rows written in this event-loop turn
        self._later = IdleJob(self._next_turn)

    @property
    def pending(self) -> int:
        """Rows that do not show their values yet (written in the coming turns)."""
        return len(self._changed())

    def show(self, rows: Sequence[tuple[Cell, ...]]) -> list[int]:
        rows = [tuple(r) for r in rows]
        return self._show(rows, rows.__getitem__, operator.eq)

    def show_lazy(self, inputs: Sequence[tuple], make: Callable[[int], tuple[Cell, ...]]) -> list[int]:
        """Rows whose ``inputs[r]`` (a tuple of what row ``r`` is read from) changed get the
        cells ``make(r)``, worked out when the row is written."""
        return self._show(list(inputs), make, same_inputs)

    def _show(self, want: list, make, same) -> list[int]:
        if not self._later.isActive():  # (else this turn already wrote some)
            self._turn_rows = 0
        t = self.table
        n = len(want)
        if t.rowCount() != n:
            t.setRowCount(n)
        del self._cells[n:], self._read[n:]
        self._cells += [None] * (n - len(self._cells))
        self._read += [None] * (n - len(self._read))
        if same is not self._same:  # (the other form: what the rows were read from means nothing now)
            self._read = [None] * n
        self._want, self._make, self._same = want, make, same
        written = self._write()
        if self.per_turn is not None:
            self._later.start()  # (its turn starts the next budget, and writes what is left)
        return written

    def _next_turn(self) -> None:
        self._turn_rows = 0
        self._write()
        if self._changed():
            self._later.start()

    def _changed(self) -> list[int]:
        want, read, same = self._want, self._read, self._same
        return [r for r in range(len(want)) if read[r] is None or not same(read[r], want[r])]

    def _write(self) -> list[int]:
        changed = self._changed()
        if self.per_turn is not None:
            budget = max(0, self.per_turn - self._turn_rows)
            if len(changed) > budget:
                first, last = self._on_screen()
                seen = [r for r in changed if first <= r <= last]
                rest = [r for r in changed if not first <= r <= last]
                changed = sorted((seen + rest)[:max(budget, len(seen))])  # (what is on screen, always)
            self._turn_rows += len(changed)
        written = []
        t = self.table
        blocked = t.signalsBlocked()
        t.blockSignals(True)
        try:
            with columns_held(t):
                for r in changed:
                    cells = tuple(self._make(r))
                    if cells != self._cells[r]:
                        for col, cell in enumerate(cells):
                            write_cell(t, r, col, cell)
                        self._cells[r] = cells
                        written.append(r)
                    self._read[r] = self._want[r]
        finally:
            t.blockSignals(blocked)
        return written

    def _on_screen(self) -> tuple[int, int]:
        """The first and last rows on screen (the first rows of a table not shown yet)."""
        t = self.table
        first = max(0, t.rowAt(0))
        last = t.rowAt(max(0, t.viewport().height() - 1))
        if last < 0:
            last = first + max(1, t.viewport().height() // max(1, t.verticalHeader().defaultSectionSize()))
        return first, last


def write_cell(table: QTableWidget, row: int, column: int, cell: Cell) -> QTableWidgetItem:
    """The item at ``row``, ``column`` showing ``cell``: its text, font weight, colours
    (the table's own where None), tooltip and data."""
    item = set_cell(table, row, column, cell.text)
    f = item.font()
    f.setBold(cell.bold)
    item.setFont(f)
    item.setForeground(QBrush(cell.colour) if cell.colour is not None else QBrush())
    item.setData(Qt.ItemDataRole.BackgroundRole, QBrush(cell.background) if cell.background is not None else None)
    item.setData(Qt.ItemDataRole.ToolTipRole, cell.tip)
    item.setData(Qt.ItemDataRole.UserRole, cell.data)
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


__all__ = ["Cell", "Section", "TableRows", "bold", "columns_held", "read_only_table", "set_cell", "write_cell"]
