"""Small widgets the sr5 Action-panel pages share: a pool table whose every modifier the GM can edit
(:class:`PoolView`), and the dice row that rolls with the seeded roller or takes the faces
read off physical dice (:class:`DiceRow`, :func:`parse_faces`).

They show what the engine's :class:`engine.sr5.pools.Pool` says and hand the GM's edits back
as ``(key, value)``; the dialog turns those into ``plan.override(...)``.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.errors import CoverfireError, IllegalActionError
from gui.rules.widgets import bold, read_only_table
from gui import theme

SOURCE_TEXT = {
    "map": "map",
    "sheet": "sheet",
    "weapon": "weapon",
    "environment": "environment",
    "declaration": "declared",
    "rules": "rules",
    "gm": "GM",
}
#: The accent (gui.theme.accent) a modifier's source is written in.
SOURCE_ACCENT = {"map": "cyan", "environment": "purple", "weapon": "orange", "declaration": "green", "gm": "salmon"}


def source_colour(source: str) -> QColor:
    """The ink of a modifier's source in the theme now (grey for one not listed)."""
    return theme.accent(SOURCE_ACCENT.get(source, "grey"))


def good() -> QColor:
    return theme.colour("good")


def bad() -> QColor:
    return theme.colour("error")


def muted() -> QColor:
    return theme.colour("dim")


def mono_font() -> QFont:
    """The system's monospace font (dice faces and roll breakdowns line up)."""
    f = QFont("monospace")
    f.setStyleHint(QFont.StyleHint.Monospace)
    return f


def parse_faces(text: str) -> list[int]:
    """Die faces typed by the GM: numbers separated by spaces or commas (``"6 5 1"``), or a
    run of digits, one die each (``"651"``). Raises :class:`IllegalActionError` naming the
    bad entry (a 0, a 7, a letter)."""
    text = text.strip()
    if not text:
        return []
    tokens = re.split(r"[\s,;]+", text)
    if len(tokens) == 1 and tokens[0].isdigit() and len(tokens[0]) > 1:
        tokens = list(tokens[0])
    out = []
    for i, tok in enumerate(tokens):
        if not tok.isdigit() or not 1 <= int(tok) <= 6:
            raise IllegalActionError(f"die {i + 1}: {tok!r} is not a face from 1 to 6")
        out.append(int(tok))
    return out


class PoolView(QWidget):
    """One pool as a table: each part with its dice (a spin box the GM may change), where it
    came from, and what the rules said when the GM changed it; then the limit's parts; then
    the total. ``edited(key, value)`` fires when the GM changes a value (limit keys are
    ``"limit:<key>"``); ``added(label, value)`` when the GM adds a modifier of their own."""

    edited = Signal(str, int)
    added = Signal(str, int)

    def __init__(self, title: str = "", parent: QWidget | None = None, *, can_add: bool = True):
        super().__init__(parent)
        self.title = bold(QLabel(title))
        self.title.setWordWrap(True)
        self.table = read_only_table(["Part", "Dice", "From"], row_height=24)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        # a long part ("blind fire: target not seen (-6), range 15 m -> medium (-1)") wraps
        # onto a second line instead of being cut at 1366 (issue 30 item 8)
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.total = bold(QLabel())
        self.total.setWordWrap(True)
        self.add_button = QPushButton("+ GM modifier")
        self.add_button.setToolTip("Add a modifier of your own to this pool")
        self.add_button.clicked.connect(self._ask_add)
        self.add_button.setVisible(can_add)
        bottom = QHBoxLayout()
        bottom.addWidget(self.total, 1)
        bottom.addWidget(self.add_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        lay.addWidget(self.title)
        lay.addWidget(self.table)
        lay.addLayout(bottom)
        self._keys: list[tuple[str, bool]] = []  # (key, editable) per row, "" for headers
        self._spins: dict[str, QSpinBox] = {}
        self.pool = None

    # -- showing -----------------------------------------------------------------------------
    def set_pool(self, pool, *, editable: bool = True, fixed: frozenset[str] = frozenset(), title: str | None = None,
                 extra_total: str = "") -> None:
        """Show ``pool`` (an ``engine.sr5.pools.Pool``); parts whose key is in ``fixed`` (such
        as a share of a divided pool) cannot be edited here."""
        self.pool = pool
        if title is not None:
            self.title.setText(title)
        rows: list[tuple[str, object]] = [(p.key, p) for p in pool.parts]
        if pool.limit_parts and not pool.edge:
            rows.append(("", "Limit"))
            rows += [("limit:" + p.key, p) for p in pool.limit_parts]
        keys = [(k, editable and bool(k) and k not in fixed) for k, _ in rows]
        if keys != self._keys:
            self._rebuild(rows, keys)
        for r, (key, part) in enumerate(rows):
            if not key:
                continue
            self._fill(r, key, part)
        self._fit()
        text = f"= {pool.total} dice"
        if pool.edge:
            text += "  (Edge: no limit, sixes explode)"
        elif pool.limit is not None:
            text += f"   [limit {pool.limit}]"
        if pool.threshold is not None:
            text += f"   threshold {pool.threshold}"
        if extra_total:
            text += f"   {extra_total}"
        self.total.setText(text)
        self.add_button.setEnabled(editable)

    def _fit(self) -> None:
        """Make the table exactly as tall as its rows (no inner scrolling)."""
        t = self.table
        t.ensurePolished()
        t.horizontalHeader().ensurePolished()
        t.resizeRowsToContents()
        for r in range(t.rowCount()):
            if t.rowHeight(r) < t.verticalHeader().defaultSectionSize():
                t.setRowHeight(r, t.verticalHeader().defaultSectionSize())
        head = max(t.horizontalHeader().height(), t.horizontalHeader().sizeHint().height())
        rows = sum(max(t.rowHeight(r), t.verticalHeader().defaultSectionSize()) for r in range(t.rowCount()))
        t.setFixedHeight(head + rows + 2 * t.frameWidth() + 2)

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        self._fit()

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        if ev.size().width() != ev.oldSize().width():
            self._fit()  # (the wrapped parts' heights follow the width)

    def _rebuild(self, rows, keys) -> None:
        self.table.clearContents()
        self.table.setRowCount(len(rows))
        self._spins = {}
        for r, (key, part) in enumerate(rows):
            if not key:
                item = QTableWidgetItem(str(part))
                f = item.font()
                f.setItalic(True)
                item.setFont(f)
                item.setForeground(muted())
                self.table.setItem(r, 0, item)
                self.table.setItem(r, 1, QTableWidgetItem(""))
                self.table.setItem(r, 2, QTableWidgetItem(""))
                continue
            self.table.setItem(r, 0, QTableWidgetItem())
            self.table.setItem(r, 2, QTableWidgetItem())
            if keys[r][1]:
                spin = QSpinBox()
                spin.setRange(-99, 99)
                spin.setKeyboardTracking(False)
                spin.setFrame(False)
                spin.setAlignment(Qt.AlignmentFlag.AlignRight)
                spin.setToolTip("Change this modifier (the GM's word); the rules' value is kept beside it")
                spin.valueChanged.connect(lambda v, k=key: self.edited.emit(k, int(v)))
                self.table.setCellWidget(r, 1, spin)
                self._spins[key] = spin
            else:
                item = QTableWidgetItem()
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, 1, item)
        self._keys = keys

    def _fill(self, r: int, key: str, part) -> None:
        name = self.table.item(r, 0)
        name.setText(part.label)
        name.setToolTip(part.text())
        f = name.font()
        f.setBold(part.kind == "base")
        name.setFont(f)
        spin = self._spins.get(key)
        value_text = f"{part.value}" if part.kind == "base" else f"{part.value:+d}"
        if spin is not None:
            spin.blockSignals(True)
            spin.setPrefix("+" if part.kind != "base" and part.value > 0 else "")
            spin.setValue(part.value)
            spin.blockSignals(False)
        else:
            self.table.item(r, 1).setText(value_text)
        src = SOURCE_TEXT.get(part.source, part.source)
        if part.overridden:
            src = f"GM (rules {part.original:+d})" if part.kind != "base" else f"GM (rules {part.original})"
        item = self.table.item(r, 2)
        item.setText(src)
        item.setForeground(source_colour("gm" if part.overridden else part.source))

    def value_of(self, key: str) -> int | None:
        """The value shown for part ``key`` (None when absent)."""
        if self.pool is None:
            return None
        if key.startswith("limit:"):
            k = key[6:]
            for p in self.pool.limit_parts:
                if p.key == k:
                    return p.value
            return None
        p = self.pool.part(key)
        return None if p is None else p.value

    def spin(self, key: str) -> QSpinBox | None:
        return self._spins.get(key)

    def _ask_add(self) -> None:
        label, ok = QInputDialog.getText(self, "GM modifier", "What is it for?")
        if not ok or not label.strip():
            return
        value, ok = QInputDialog.getInt(self, "GM modifier", f"Dice for \u201c{label.strip()}\u201d:", 0, -50, 50)
        if ok:
            self.added.emit(label.strip(), int(value))


class FacesEdit(QLineEdit):
    """The typed faces: Enter takes them and goes no further (it does not also apply the
    action in the Action panel)."""

    def keyPressEvent(self, ev) -> None:  # noqa: N802 - Qt API
        super().keyPressEvent(ev)
        if ev.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            ev.accept()


class DiceRow(QWidget):
    """What to roll next and how: "Roll" (the encounter's seeded roller), or type the faces
    read off physical dice and press Enter / "Use these dice". ``rollRequested(faces or
    None)`` fires; ``None`` means roll."""

    rollRequested = Signal(object)
    rollAllRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.what = bold(QLabel("Nothing to roll"))
        self.what.setWordWrap(True)
        self.faces = FacesEdit()
        self.faces.setPlaceholderText("faces, e.g. 6 5 3 1")
        self.faces.setMinimumWidth(80)
        self.faces.setFont(mono_font())
        self.faces.returnPressed.connect(self._use_entered)
        self.roll_button = QPushButton("Roll")
        self.roll_button.setToolTip("Roll this test with the encounter's dice (seeded: the same fight replays)")
        self.roll_button.clicked.connect(lambda: self.rollRequested.emit(None))
        self.enter_button = QPushButton("Use these dice")
        self.enter_button.setToolTip("Take the faces typed on the left (physical dice)")
        self.enter_button.clicked.connect(self._use_entered)
        self.all_button = QPushButton("Roll all")
        self.all_button.setToolTip("Roll every roll still needed with the encounter's dice")
        self.all_button.clicked.connect(self.rollAllRequested.emit)
        self.error = QLabel()
        self.error.setStyleSheet(f"color: {theme.ink('error')}")
        self.error.setWordWrap(True)
        row = QHBoxLayout()
        row.setSpacing(4)
        row.addWidget(self.faces, 1)
        row.addWidget(self.enter_button)
        rolls = QHBoxLayout()
        rolls.setSpacing(4)
        rolls.addWidget(self.roll_button)
        rolls.addWidget(self.all_button)
        rolls.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        lay.addWidget(self.what)
        lay.addLayout(row)
        lay.addLayout(rolls)
        lay.addWidget(self.error)

    def set_request(self, text: str | None, *, enabled: bool = True, many: bool = True) -> None:
        """Show the next roll (None: nothing left to roll)."""
        self.what.setText(text or "Nothing left to roll")
        on = bool(text) and enabled
        for w in (self.faces, self.roll_button, self.enter_button):
            w.setEnabled(on)
            w.setVisible(bool(text))  # (all rolled: the row gives its room to the page)
        self.all_button.setEnabled(on and many)
        self.all_button.setVisible(many and bool(text))

    def show_error(self, text: str) -> None:
        self.error.setText(text)

    def roll_step(self, roll, roller, faces: list[int] | None):
        """``roll(dice)`` (the door's next test: ``Sr5Controller.resolve``) with ``roller``
        (``faces`` None) or the typed ``faces``: the resolution after the roll, with the typed
        faces cleared; None, with the engine's reason shown, when it refuses them."""
        try:
            r = roll(roller if faces is None else list(faces))
        except (CoverfireError, ValueError) as exc:
            self.show_error(str(exc))
            return None
        self.show_error("")
        self.faces.clear()
        return r

    def _use_entered(self) -> None:
        try:
            faces = parse_faces(self.faces.text())
        except IllegalActionError as exc:
            self.error.setText(str(exc))
            return
        if not faces:
            self.error.setText("Type the faces of the dice you rolled, or press Roll")
            return
        self.rollRequested.emit(faces)


# -- pieces the attack and blast dialogs build the same way -------------------------------------
def wire_pool(view: PoolView, dialog, target: str, pool: str) -> None:
    """Send the GM's edits of ``view`` (one target's ``pool``) to ``dialog.override`` and
    ``dialog.add_modifier``."""
    view.edited.connect(lambda k, v: dialog.override(k, v, target=target, pool=pool))
    view.added.connect(lambda label, v: dialog.add_modifier(label, v, target=target, pool=pool))


def show_result(label: QLabel, bits: list[str], colour: str) -> None:
    """One target's result so far: ``bits`` joined by arrows in ``colour`` (hidden when empty)."""
    label.setText("  \u2192  ".join(bits))
    label.setStyleSheet(f"color: {colour}")
    label.setVisible(bool(bits))


def soak_bit(o) -> str:
    """``"resists 3 -> 6 boxes Physical"`` for an engine outcome with a rolled soak."""
    kind = "Stun" if o.damage_type == "S" else "Physical"
    return f"resists {o.soak.hits} \u2192 {o.boxes} box{'es' if o.boxes != 1 else ''} {kind}"


def headline_labels() -> tuple[QLabel, QLabel]:
    """The dialog's bold headline and its red line of problems (both wrapping)."""
    headline = bold(QLabel(), scale=1.15)
    headline.setWordWrap(True)
    problems = QLabel()
    problems.setWordWrap(True)
    from gui import theme

    problems.setStyleSheet(f"color: {theme.ink('error')}")
    return headline, problems


def story_box() -> QPlainTextEdit:
    """The read-only, monospace box the rolls are told in, step by step."""
    box = QPlainTextEdit()
    box.setReadOnly(True)
    box.setFont(mono_font())
    return box


def replace_boxes(layout, boxes: dict, targets: list[str], make) -> dict:
    """The per-target boxes for ``targets`` in ``layout``: ``boxes`` itself when it already
    holds them in that order, else new ones from ``make(target)`` (the old ones deleted)."""
    if list(boxes) == targets:
        return boxes
    for box in boxes.values():
        layout.removeWidget(box)
        box.hide()
        box.setParent(None)
        box.deleteLater()
    out = {}
    for t in targets:
        box = make(t)
        out[t] = box
        layout.addWidget(box)
    return out


def limit_text(pool) -> str:
    """What caps a pool's hits for the dice row: Edge (sixes explode) or its limit, or ``""``."""
    if pool.edge:
        return ", Edge: sixes explode (type the extra dice too)"
    if pool.limit is not None:
        return f", limit {pool.limit}"
    return ""


def show_story(box: QPlainTextEdit, lines: list[str]) -> None:
    """Tell ``lines`` in ``box``, scrolled to the last."""
    box.setPlainText("\n".join(lines))
    box.verticalScrollBar().setValue(box.verticalScrollBar().maximum())


__all__ = [
    "DiceRow",
    "PoolView",
    "headline_labels",
    "limit_text",
    "mono_font",
    "parse_faces",
    "replace_boxes",
    "show_result",
    "show_story",
    "soak_bit",
    "story_box",
    "wire_pool",
]
