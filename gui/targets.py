"""The targets dock: one row per other token for the selected attacker, with the engine's
numbers (distance, range band and modifier, cover fraction and class, zones, charge
movement). Sortable by any column; clicking a row selects that token (the attacker stays)."""

from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStyleFactory,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from engine import clock
from engine.names import token_name, zone_name
from engine.ranges import BAND_NAMES
from geometry.cover import cover_percent
from gui import style
from gui.answers import LiveAnswers
from gui.selection import Selection
from gui import theme

COLUMNS = ("Target", "Dist", "Band", "Mod", "Cover %", "Cover", "Charge", "Zones")
TIPS = ("Target token", "Distance, centre to centre (metres)", "Range band of the chosen weapon",
        "Range modifier to the attack pool", "Share of the silhouette hidden from the attacker's eye",
        "Cover class: none < 25% <= partial <= 50% < good < 100% = full",
        "Movement a charge needs, with a straight run-up (metres; 'no' when impossible)",
        "Zones that touch the target")
#: The columns folded away first when the panel is too narrow for all (never Target, Dist,
#: Cover %, Cover).
FOLD_ORDER = tuple(COLUMNS.index(c) for c in ("Zones", "Charge", "Band"))
SORT_ROLE = Qt.ItemDataRole.UserRole
ID_ROLE = Qt.ItemDataRole.UserRole + 1
COVER_ORDER = {"none": 0, "partial": 1, "good": 2, "full": 3}


def charge_cell(charge, pending: bool) -> tuple[str, float]:
    """Text and sort key of the charge column for the engine's ``ChargePlan`` (or None)."""
    if charge is None:
        return ("…" if pending else "", math.inf)
    if charge.possible and charge.movement is not None:
        return f"{charge.movement:.1f}", float(charge.movement)
    return charge_refusal(charge.reason), math.inf


def uses_range_bands(encounter) -> bool:
    """Whether the encounter's rule system reads range bands and modifiers
    (``RuleSystem.uses_range_bands``: Shadowrun does; the d100 and Static Veil texts have
    none, so their GMs see distances instead)."""
    return encounter.system.uses_range_bands


def charge_refusal(reason: str | None) -> str:
    """A few words for the charge column from the engine's sentence (the full sentence is
    the cell's tooltip)."""
    why = (reason or "").lower()
    if "too far" in why:
        return "too far"
    if "run-up" in why:
        return "no run-up"
    return "no"


def row_values(report, name: str, zone_names: dict[str, str], charge=None,
               pending: bool = False) -> tuple[list[str], list[object]]:
    """Display texts and sort keys of one target row, from the engine's ``TargetReport``
    (and ``ChargePlan``, when known)."""
    rng = report.range
    band = rng.band if rng is not None else None
    mod = rng.modifier if rng is not None else None
    cover = report.cover
    zones = [zone_names.get(z, z) for z in report.zones]
    ctext, ckey = charge_cell(charge if charge is not None else report.charge, pending)
    texts = [
        name,
        f"{report.distance:.1f}",
        band or "out of range",
        "" if mod is None else (f"{mod:+d}" if mod else "0"),
        str(cover_percent(cover.fraction, cover.cls)),
        cover.cls,
        ctext,
        ", ".join(zones),
    ]
    keys = [
        name.lower(),
        float(report.distance),
        BAND_NAMES.index(band) if band in BAND_NAMES else len(BAND_NAMES),
        -99 if mod is None else int(mod),
        float(cover.fraction),
        COVER_ORDER.get(cover.cls, 9),
        ckey,
        ", ".join(zones),
    ]
    return texts, keys


_DISPLAY = Qt.ItemDataRole.DisplayRole
_ALIGN = Qt.ItemDataRole.TextAlignmentRole
_BACKGROUND = Qt.ItemDataRole.BackgroundRole
_FOREGROUND = Qt.ItemDataRole.ForegroundRole
_TOOLTIP = Qt.ItemDataRole.ToolTipRole
_CHARGE_COL = COLUMNS.index("Charge")
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_COVER_BRUSHES = {k: QBrush(v) for k, v in style.COVER_COLOURS.items()}
_DARK_TEXT = QBrush(style.COVER_TEXT)


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Sorted row numbers as (first, last) runs of consecutive ones."""
    out: list[tuple[int, int]] = []
    for r in rows:
        if out and out[-1][1] == r - 1:
            out[-1] = (out[-1][0], r)
        else:
            out.append((r, r))
    return out


class TargetsModel(QAbstractTableModel):
    """Rows of the targets table, rebuilt from :class:`LiveAnswers` after every change."""

    #: While a drag is in progress the table refreshes at most this often (milliseconds);
    #: the map itself follows every mouse move.
    PREVIEW_REFRESH_MS = 120

    def __init__(self, answers: LiveAnswers, parent=None):
        super().__init__(parent)
        self.folded: tuple[int, ...] = ()  # columns the panel folded away (their values go in the tooltips)
        self.answers = answers
        self._rows: list[tuple[str, list[str], list[object], str | None]] = []
        self._sort = (1, Qt.SortOrder.AscendingOrder)
        self._since_reload = clock.Stopwatch(start=False)
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.timeout.connect(self.reload)
        self._charges_later = QTimer(self)
        self._charges_later.setSingleShot(True)
        self._charges_later.setInterval(250)
        self._charges_later.timeout.connect(self.update_charges)
        self.reload_count = 0
        self._memo: dict[str, tuple] = {}  # target id -> (report, name, charge, pending, texts, keys)
        self._memo_zones: dict[str, str] | None = None
        answers.updated.connect(self._on_updated)
        answers.chargesUpdated.connect(self._on_charges)
        self.reload()

    def _on_updated(self) -> None:
        if self.answers.document.in_preview:
            wait = self.PREVIEW_REFRESH_MS - self._since_reload.elapsed() * 1e3
            if wait > 0:
                if not self._later.isActive():
                    self._later.start(int(wait) + 1)
                return
        self.reload()

    def _on_charges(self) -> None:
        if not self._charges_later.isActive():
            self._charges_later.start()

    def reload(self) -> None:
        """Rebuild the rows from the answers (in place when the same targets are listed)."""
        self._later.stop()
        self._since_reload.restart()
        self.reload_count += 1
        ans = self.answers
        enc = ans.document.encounter
        names = {t.id: token_name(t) for t in enc.tokens}
        zone_names = {z.id: zone_name(z, enc) for z in enc.zones}
        pending = ans.attacker is not None
        # a row whose report, name and charge are as they were keeps its cells (a corner
        # drag changes a few targets' cover, not 499 rows)
        if zone_names != self._memo_zones:
            self._memo, self._memo_zones = {}, zone_names
        memo, fresh = self._memo, {}
        rows = []
        for tid in ans.target_order:
            rep = ans.targets[tid]
            name, charge = names.get(tid, tid), ans.charges.get(tid)
            hit = memo.get(tid)
            if hit is not None and hit[1] == name and hit[2] is charge and hit[3] == pending \
                    and (hit[0] is rep or hit[0] == rep):
                texts, keys = hit[4], hit[5]
            else:
                texts, keys = row_values(rep, name, zone_names, charge, pending)
            fresh[tid] = (rep, name, charge, pending, texts, keys)
            rows.append((tid, list(texts), list(keys), rep.cover.cls))
        self._memo = fresh
        self._sort_rows(rows)
        if rows and [r[0] for r in rows] == [r[0] for r in self._rows]:
            old, self._rows = self._rows, rows
            # only the rows that show something else are repainted (a target dragged, a
            # corner moved: a few; the attacker dragged: all)
            changed = [i for i, (a, b) in enumerate(zip(old, rows)) if a[1] != b[1] or a[3] != b[3]]
            for first, last in _runs(changed):
                self.dataChanged.emit(self.index(first, 0), self.index(last, len(COLUMNS) - 1))
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def _sort_rows(self, rows: list) -> None:
        col, order = self._sort
        rows.sort(key=lambda r: (r[2][col], r[2][0]), reverse=order == Qt.SortOrder.DescendingOrder)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:  # Qt API
        """Sort the rows by a column (numbers by value, bands and cover classes by rank)."""
        self._sort = (column, order)
        rows = list(self._rows)
        self._sort_rows(rows)
        if [r[0] for r in rows] != [r[0] for r in self._rows]:
            self.beginResetModel()
            self._rows = rows
            self.endResetModel()

    def update_charges(self) -> None:
        """Fill in the charge plans the engine has worked out since the last reload."""
        charges, pending = self.answers.charges, self.answers.charges_pending
        col = COLUMNS.index("Charge")
        for row in self._rows:
            text, key = charge_cell(charges.get(row[0]), pending or row[0] not in charges)
            row[1][col], row[2][col] = text, key
        if self._rows:
            if self._sort[0] == col:
                self.sort(*self._sort)
            self.dataChanged.emit(self.index(0, col), self.index(len(self._rows) - 1, col))

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return TIPS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        # called thousands of times per repaint: answer the common roles first, cheaply
        if role == _DISPLAY:
            return self._rows[index.row()][1][index.column()]
        if role == SORT_ROLE:
            return self._rows[index.row()][2][index.column()]
        if role == ID_ROLE:
            return self._rows[index.row()][0]
        c = index.column()
        if role == _TOOLTIP:
            if c == _CHARGE_COL:
                plan = self.answers.charges.get(self._rows[index.row()][0])
                if plan is not None and not plan.possible:
                    return plan.reason
            # the columns a narrow panel leaves out, told on the row's other cells
            texts = self._rows[index.row()][1]
            return "\n".join(f"{COLUMNS[h]}: {texts[h]}" for h in self.folded if texts[h] != "") or None
        if role == _ALIGN:
            return _RIGHT if c in (1, 3, 4, 6) else None
        if c == 5:
            if role == _BACKGROUND:
                return _COVER_BRUSHES.get(self._rows[index.row()][3])
            if role == _FOREGROUND:
                return _DARK_TEXT
        return None

    def row_of(self, token_id: str) -> int:
        for i, row in enumerate(self._rows):
            if row[0] == token_id:
                return i
        return -1

    def row_texts(self, token_id: str) -> list[str] | None:
        i = self.row_of(token_id)
        return list(self._rows[i][1]) if i >= 0 else None


class TargetsPanel(QWidget):
    """The dock's contents: attacker and weapon choice, lock toggle, the sortable table."""

    def __init__(self, answers: LiveAnswers, selection: Selection, parent: QWidget | None = None):
        super().__init__(parent)
        self.answers = answers
        self.selection = selection
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        # the attacker on a line of its own, weapon and lock below: fits a 300 px dock
        self.attacker_label = QLabel()
        self.attacker_label.setStyleSheet("font-weight: 600;")
        self.attacker_label.setWordWrap(True)
        lay.addWidget(self.attacker_label)
        top = QHBoxLayout()
        self.weapon = QComboBox()
        self.weapon.setMinimumContentsLength(14)
        self.weapon.activated.connect(self._weapon_chosen)
        top.addWidget(self.weapon, 1)
        self.lock = QCheckBox("Lock attacker")
        self.lock.setToolTip("Keep this attacker while you select and move other tokens (L)")
        self.lock.toggled.connect(self._lock)
        top.addWidget(self.lock)
        lay.addLayout(top)
        self.model = TargetsModel(answers, self)
        self.table = QTableView()
        self.table.setModel(self.model)  # the model sorts itself (no proxy: fewer Python calls)
        # Qt's own Fusion for the table: the window's style (gui.theme) is a Python proxy that
        # every painted cell went through (~440 calls a refresh of a 500-row table); the table
        # has no check boxes, the one thing that proxy draws differently
        self._table_style = QStyleFactory.create("Fusion")
        if self._table_style is not None:
            self.table.setStyle(self._table_style)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(1, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setAlternatingRowColors(True)
        hh = self.table.horizontalHeader()
        # fixed widths: sizing to contents would read every row on every refresh
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setStretchLastSection(True)
        hh.setMinimumSectionSize(36)
        fm = self.table.fontMetrics()
        for c, sample in enumerate(("Token name", "Dist ", "extreme", "Mod", "Cover %", "partial",
                                    "Charge ")):
            self.table.setColumnWidth(c, fm.horizontalAdvance(sample) + 20)
        # never a sideways scroll: the columns that do not fit fold away (FOLD_ORDER), their
        # values in every cell's tooltip (issue 30 item 8: at 1366 Cover, Charge and Zones
        # lay past the panel's edge)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._widths = {c: self.table.columnWidth(c) for c in range(len(COLUMNS))}
        self._widths[COLUMNS.index("Zones")] = fm.horizontalAdvance("Zones") + 20
        self._ruled_hidden: set[int] = set()  # columns the rule system has none of
        self.table.clicked.connect(self._clicked)
        lay.addWidget(self.table, 1)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {theme.ink('dim')};")
        lay.addWidget(self.note)
        answers.updated.connect(self._refresh_header)
        self.model.modelReset.connect(self._reselect)
        self._header: tuple | None = None  # (attacker name, its weapons, the chosen one) shown
        self._refresh_header()

    def _refresh_header(self) -> None:
        enc = self.answers.document.encounter
        a = self.answers.attacker
        # range bands and their pool modifiers are Shadowrun's; d100 and Static Veil have none
        sr5 = uses_range_bands(enc)
        ruled = set() if sr5 else {COLUMNS.index("Band"), COLUMNS.index("Mod")}
        if ruled != self._ruled_hidden:
            self._ruled_hidden = ruled
            self.fit_columns()
        if self.lock.isChecked() != self.selection.attacker_locked:
            self.lock.blockSignals(True)
            self.lock.setChecked(self.selection.attacker_locked)
            self.lock.blockSignals(False)
        t = enc.token(a) if a is not None else None
        # (every drag step lands here: the weapon list is built again only when it changes)
        names = tuple(w.name for w in t.weapons) if t is not None else None
        chosen = None
        if t is not None:  # the GM's pick, else the weapon it has ready (the engine's answer, as the attack page)
            ready = enc.system.ready_weapon(enc, t) if self.selection.weapon is None else None
            chosen = self.selection.weapon or (ready.name if ready is not None else None)
        look = (token_name(t) if t is not None else None, names, chosen)
        if look != self._header:
            self._header = look
            self.weapon.blockSignals(True)
            self.weapon.clear()
            if t is None:
                self.attacker_label.setText("Select a token to see its targets")
                self.weapon.setEnabled(False)
            else:
                self.attacker_label.setText(f"Attacker: {token_name(t)}")
                self.weapon.setEnabled(bool(names))
                for name in names:
                    self.weapon.addItem(name, name)
                i = self.weapon.findData(chosen)
                if i >= 0:
                    self.weapon.setCurrentIndex(i)
            self.weapon.blockSignals(False)
        if not self.answers.available:
            self.note.setText("The engine's analysis is not available in this build.")
        elif self.answers.error:
            self.note.setText(f"The engine cannot analyse this state: {self.answers.error}")
        else:
            self.note.setText("")
        self.note.setVisible(bool(self.note.text()))

    def fit_columns(self) -> None:
        """Show the columns that fit the table's width (folding them in :data:`FOLD_ORDER`),
        the rule system's own ones only (no range band outside Shadowrun)."""
        room = self.table.viewport().width() or self.table.width()
        shown = [c for c in range(len(COLUMNS)) if c not in self._ruled_hidden]
        folded: list[int] = []
        for c in FOLD_ORDER:
            if sum(self._widths[k] for k in shown) <= room:
                break
            if c in shown:
                shown.remove(c)
                folded.append(c)
        for c in range(len(COLUMNS)):
            hide = c not in shown
            if self.table.isColumnHidden(c) != hide:
                self.table.setColumnHidden(c, hide)
        self.model.folded = tuple(sorted(folded))

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(ev)
        self.fit_columns()

    def _weapon_chosen(self, i: int) -> None:
        self.selection.set_weapon(self.weapon.itemData(i))

    def _lock(self, on: bool) -> None:
        self.selection.attacker_locked = on

    def _clicked(self, index) -> None:
        tid = self.model.data(index, ID_ROLE)
        if tid:
            self.selection.select([tid], self.answers.document.encounter, keep_attacker=True)

    def _reselect(self) -> None:
        focus = self.selection.focus or (self.selection.first() if self.selection.first() != self.answers.attacker else None)
        if not focus:
            return
        r = self.model.row_of(focus)
        if r >= 0:
            idx = self.model.index(r, 0)
            self.table.selectionModel().select(
                idx, self.table.selectionModel().SelectionFlag.ClearAndSelect | self.table.selectionModel().SelectionFlag.Rows
            )

    def row_index(self, token_id: str):
        """The table (proxy) index of a token's row, column 0 (for tests and keyboard use)."""
        r = self.model.row_of(token_id)
        return self.model.index(r, 0) if r >= 0 else QModelIndex()

