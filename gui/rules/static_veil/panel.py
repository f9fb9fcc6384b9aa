"""The maneuver picker dock: the selected token's AP, Movement, states and turn; every
Static Veil maneuver with its AP cost, allowed or greyed out with the engine's reason; the
chosen maneuver's target, choices, preview (tests with Success Targets, costs, where bodies
go) and outcome entry.

A view only: it shows what :class:`~gui.rules.static_veil.controller.StaticVeilController`
gives it (the engine's ``Option`` and ``Preview`` values) and reports clicks by signals.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gui.rules.static_veil.outcome import OutcomeForm, describe_test
from gui import theme
from gui.rules.widgets import bold



def button_style() -> str:
    """The maneuver buttons' style: left-aligned, the chosen one in the theme's highlight."""
    return ("QPushButton { text-align: left; padding: 4px 8px; }"
            f"QPushButton:checked {{ background: {theme.ink('highlight')}; color: {theme.ink('mark')}; font-weight: bold; }}")


def _small(text: str = "", colour: str | None = None) -> QLabel:
    lab = QLabel(text)
    lab.setWordWrap(True)
    lab.setStyleSheet(f"color: {colour or theme.ink('dim')};")
    lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return lab


def _clear(layout) -> None:
    while layout.count():
        item = layout.takeAt(0)
        w = item.widget()
        if w is not None:
            w.setParent(None)
            w.deleteLater()
        elif item.layout() is not None:
            _clear(item.layout())


class _WrapScroll(QScrollArea):
    """A vertical scroll area whose content is as wide as the view and as tall as its
    wrapped text needs (QScrollArea's own resizing squashes word-wrapped labels)."""

    def __init__(self, body: QWidget):
        super().__init__()
        self.setWidgetResizable(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidget(body)
        body.installEventFilter(self)
        self._pending = False

    def eventFilter(self, obj, ev) -> bool:
        if obj is self.widget() and ev.type() == QEvent.Type.LayoutRequest and not self._pending:
            self._pending = True
            QTimer.singleShot(0, self, self.fit)  # (dropped if the scroll area is deleted first)
        return super().eventFilter(obj, ev)

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        self.fit()

    def fit(self) -> None:
        self._pending = False
        body = self.widget()
        lay = body.layout()
        w = max(120, self.viewport().width())
        lay.activate()
        h = lay.heightForWidth(w) if lay.hasHeightForWidth() else -1
        h = max(h, lay.minimumSize().height(), self.viewport().height())
        if body.width() != w or body.height() != h:
            body.resize(w, h)


def merge_options(options) -> list[list]:
    """Picker rows: each option alone, except that neighbours refused for the same reason
    share one row ("Release grapple, Break free, ...: Rook is not in a grapple")."""
    rows: list[list] = []
    for o in options:
        if rows and not o.allowed and not rows[-1][0].allowed and rows[-1][0].reason == o.reason:
            rows[-1].append(o)
        else:
            rows.append([o])
    return rows


class ManeuverPanel(QWidget):
    """Signals: ``chosen(str)`` a maneuver key, ``pickRequested()``, ``choicesChanged()``,
    ``outcomeChanged()``, ``confirmRequested(bool roll)``, ``cancelRequested()``,
    ``startTurn()``, ``endTurn()``, ``newRound()``."""

    chosen = Signal(str)
    pickRequested = Signal()
    choicesChanged = Signal()
    outcomeChanged = Signal()
    confirmRequested = Signal(bool)
    cancelRequested = Signal()
    startTurn = Signal()
    endTurn = Signal()
    newRound = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.options: dict[str, object] = {}
        self.buttons: dict[str, QPushButton] = {}
        self.reasons: dict[str, QLabel] = {}
        self._shown_options: tuple | None = None  # (options, current) the rows show
        self._building = False

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        body = QWidget()
        lay = QVBoxLayout(body)
        lay.setContentsMargins(8, 6, 8, 6)
        scroll = _WrapScroll(body)
        outer.addWidget(scroll)
        self.scroll = scroll
        lay.setSpacing(6)
        self.body = body

        # -- who ---------------------------------------------------------------------------------
        self.actor_label = bold(QLabel("Select a token on the map"), scale=1.3)
        lay.addWidget(self.actor_label)
        self.economy_label = QLabel("")
        self.economy_label.setWordWrap(True)
        self.economy_label.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.economy_label)
        self.states_label = _small("")
        lay.addWidget(self.states_label)
        turn = QHBoxLayout()
        self.turn_label = _small("")
        turn.addWidget(self.turn_label, 1)
        lay.addLayout(turn)
        btns = QGridLayout()  # the turn's start across, End and New round below: a name fits at 125 %
        self.start_btn = QPushButton("Start turn")
        self.start_btn.setToolTip("Begin this token's turn: AP and Movement full again, it may charge again "
                                  "(the previous token's turn ends first)")
        self.end_btn = QPushButton("End turn")
        self.end_btn.setToolTip("End this token's turn (Distracted counts down)")
        self.round_btn = QPushButton("New round")
        self.round_btn.setToolTip("Count the round up and begin this token's turn")
        btns.addWidget(self.start_btn, 0, 0, 1, 2)
        btns.addWidget(self.end_btn, 1, 0)
        btns.addWidget(self.round_btn, 1, 1)
        lay.addLayout(btns)
        self.start_btn.clicked.connect(self.startTurn)
        self.end_btn.clicked.connect(self.endTurn)
        self.round_btn.clicked.connect(self.newRound)

        # -- maneuvers ----------------------------------------------------------------------------
        self.list_box = QGroupBox("Maneuvers")
        box = QVBoxLayout(self.list_box)
        box.setSpacing(3)
        self.move_btn = QPushButton("Move  (Movement only)")
        self.move_btn.setCheckable(True)
        self.move_btn.setStyleSheet(button_style())
        self.move_btn.setToolTip("Walk to a place you click, the shortest way around obstacles and bodies; "
                                 "counts Movement, costs no AP")
        self.move_btn.clicked.connect(lambda: self.chosen.emit("move"))
        box.addWidget(self.move_btn)
        self.rows_lay = QVBoxLayout()
        self.rows_lay.setSpacing(3)
        box.addLayout(self.rows_lay)
        lay.addWidget(self.list_box)

        # -- the chosen maneuver --------------------------------------------------------------------
        self.detail = QGroupBox("")
        dl = QVBoxLayout(self.detail)
        dl.setSpacing(5)
        trow = QHBoxLayout()
        self.target_label = QLabel("")
        self.target_label.setWordWrap(True)
        trow.addWidget(self.target_label, 1)
        self.pick_btn = QPushButton("Pick on map")
        self.pick_btn.setToolTip("Click a token on the map (Esc cancels)")
        self.pick_btn.clicked.connect(self.pickRequested)
        trow.addWidget(self.pick_btn)
        dl.addLayout(trow)

        grid = QGridLayout()
        grid.setHorizontalSpacing(8)
        self.location_label = QLabel("Called shot")
        self.location_combo = QComboBox()
        self.item_label = QLabel("Item penalty")
        self.item_spin = QSpinBox()
        self.item_spin.setRange(-30, -10)
        self.item_spin.setValue(-20)
        self.item_spin.setToolTip("A held item is -10 to -30 by the GM's call")
        self.approach_label = QLabel("Approach")
        self.approach_combo = QComboBox()
        self.runup_check = QCheckBox("Run up first (4 m straight at the target, +10)")
        self.release_check = QCheckBox("Let go after the throw (else follow it down, both Prone)")
        self.willing_check = QCheckBox("The partner is willing (no test)")
        self.modifier_label = QLabel("GM modifier")
        self.modifier_spin = QSpinBox()
        self.modifier_spin.setRange(-100, 100)
        self.modifier_spin.setSingleStep(5)
        self.modifier_spin.setToolTip("A situational modifier to the acting character's Success Target")
        r = 0
        for a, b in ((self.location_label, self.location_combo), (self.item_label, self.item_spin),
                     (self.approach_label, self.approach_combo), (self.modifier_label, self.modifier_spin)):
            grid.addWidget(a, r, 0)
            grid.addWidget(b, r, 1)
            r += 1
        for w in (self.runup_check, self.release_check, self.willing_check):
            grid.addWidget(w, r, 0, 1, 2)
            r += 1
        dl.addLayout(grid)
        for w in (self.location_combo, self.approach_combo):
            w.currentIndexChanged.connect(self._choices)
        for w in (self.item_spin, self.modifier_spin):
            w.valueChanged.connect(self._choices)
        for w in (self.runup_check, self.release_check, self.willing_check):
            w.toggled.connect(self._choices)

        self.preview_label = QLabel("")
        self.preview_label.setWordWrap(True)
        self.preview_label.setTextFormat(Qt.TextFormat.RichText)
        self.preview_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        dl.addWidget(self.preview_label)

        self.outcome_box = QGroupBox("Outcome")
        ol = QVBoxLayout(self.outcome_box)
        self.outcome = OutcomeForm()
        self.outcome.changed.connect(self._outcome)
        ol.addWidget(self.outcome)
        dl.addWidget(self.outcome_box)

        brow = QHBoxLayout()
        self.confirm_btn = QPushButton("Confirm")
        self.confirm_btn.setDefault(True)
        self.roll_btn = QPushButton("Roll")
        self.cancel_btn = QPushButton("Cancel")
        self.confirm_btn.clicked.connect(lambda: self.confirmRequested.emit(False))
        self.roll_btn.clicked.connect(lambda: self.confirmRequested.emit(True))
        self.cancel_btn.clicked.connect(self.cancelRequested)
        for b in (self.confirm_btn, self.roll_btn, self.cancel_btn):
            brow.addWidget(b)
        dl.addLayout(brow)
        self.detail.hide()
        lay.addWidget(self.detail)

        self.message = _small("")
        lay.addWidget(self.message)
        lay.addStretch(1)
        self.key_label = _small(
            "On the map: the green number by a token is its AP left; a magenta link is a grapple "
            "(the knot at the holder); the dashed yellow ring is whose turn it is.")
        lay.addWidget(self.key_label)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)

    # -- signals from the choice widgets ---------------------------------------------------------
    def _choices(self, *_):
        if not self._building:
            self.choicesChanged.emit()

    def _outcome(self):
        if not self._building:
            self.outcomeChanged.emit()

    # -- filling ---------------------------------------------------------------------------------
    def show_actor(self, name: str | None, sheet=None, states=(), round_no: int = 1, active: str | None = None,
                   is_active: bool = False) -> None:
        """The header: name, AP and Movement left, states, the round and whose turn it is."""
        on = name is not None
        for w in (self.start_btn, self.end_btn, self.round_btn):
            w.setEnabled(on)
        self.list_box.setVisible(on)
        whose = f"{active}'s turn" if active else "no one's turn yet"
        self.turn_label.setText(f"Round {round_no} \u00b7 {whose}")
        if not on:
            self.actor_label.setText("Select a token on the map")
            self.economy_label.setText("")
            self.states_label.setText("to see what it can do")
            self.detail.hide()
            return
        self.actor_label.setText(name)
        ap_colour = theme.ink('good') if sheet.ap > 0 else theme.ink('error')
        self.economy_label.setText(
            f"<b style='color:{ap_colour}'>{sheet.ap} of {sheet.ap_per_turn} AP</b> left \u00b7 "
            f"<b>{sheet.movement_left:.1f}</b> of {sheet.movement:.1f} m Movement left")
        self.states_label.setText(", ".join(states) if states else "no states")
        self.start_btn.setText(f"Start {name}'s turn")
        self.end_btn.setEnabled(is_active)

    def set_options(self, options, current: str | None) -> None:
        """One row per maneuver (neighbours refused for the same reason share a row): a
        button with the AP cost, greyed out when refused; the reason under it and as its
        tooltip."""
        self.move_btn.setChecked(current == "move")
        shown = (tuple(options), current)
        if shown == self._shown_options:
            # the same rows (an edit of the map that changed no answer): only put the
            # checked button back (a click on a refused one checks it)
            for key, b in self.buttons.items():
                b.setChecked(key == current)
            return
        self._shown_options = shown
        self._building = True
        _clear(self.rows_lay)
        self.options = {o.key: o for o in options}
        self.buttons, self.reasons = {}, {}
        for row in merge_options(options):
            if len(row) == 1:
                o = row[0]
                b = QPushButton(f"{o.label}  ({o.ap_cost} AP)")
                b.setCheckable(True)
                b.setChecked(o.key == current)
                b.setEnabled(o.allowed or o.key == current)
                b.setStyleSheet(button_style())
                if o.reason:
                    b.setToolTip(o.reason)
                b.clicked.connect(lambda _=False, k=o.key: self.chosen.emit(k))
                self.buttons[o.key] = b
                self.rows_lay.addWidget(b)
                if o.reason:
                    lab = _small(o.reason, theme.ink('dim') if o.allowed else theme.ink('error'))
                    lab.setContentsMargins(10, 0, 0, 2)
                    self.rows_lay.addWidget(lab)
                    self.reasons[o.key] = lab
            else:
                names = ", ".join(f"{o.label} ({o.ap_cost} AP)" for o in row)
                lab = _small(f"<span style='color:{theme.ink('dim')}'>{html.escape(names)}</span>")
                lab.setTextFormat(Qt.TextFormat.RichText)
                lab.setToolTip(row[0].reason or "")
                self.rows_lay.addWidget(lab)
                why = _small(row[0].reason or "", theme.ink('error'))
                why.setContentsMargins(10, 0, 0, 2)
                self.rows_lay.addWidget(why)
                for o in row:
                    self.reasons[o.key] = why
        self._building = False

    def option_state(self, key: str) -> tuple[bool, str | None]:
        """(enabled in the picker, the reason shown) for a maneuver key."""
        o = self.options[key]
        b = self.buttons.get(key)
        lab = self.reasons.get(key)
        enabled = b is not None and b.isEnabled() and o.allowed
        return enabled, (lab.text() if lab is not None else None) and o.reason

    def show_maneuver(self, key: str | None, label: str = "", *, target_text: str = "", needs_pick: bool = False,
                      variants=(), choices: dict | None = None) -> None:
        """Show the detail box for maneuver ``key`` (hidden when None) with the choice
        widgets it uses set to ``choices``; ``variants`` are the engine's choices for it
        (called-shot locations, distraction approaches) with their modifiers."""
        self._building = True
        self._key = key
        try:
            if key is None:
                self.detail.hide()
                return
            self.detail.show()
            self.detail.setTitle(label)
            self.target_label.setText(target_text)
            self.target_label.setVisible(bool(target_text))
            self.pick_btn.setVisible(needs_pick)
            self.pick_btn.setText("Pick a place on the map" if key in ("move_grapple", "move") else "Pick target on map")
            c = choices or {}
            located = key in ("called_shot", "charge")
            for w in (self.location_label, self.location_combo):
                w.setVisible(located)
            if located:
                self.location_combo.clear()
                if key == "charge":
                    self.location_combo.addItem("plain attack (no called shot)", None)
                for v in variants:
                    text = f"{v.label}  {v.modifier:+d}" if v.key != "item" else v.label
                    self.location_combo.addItem(text, v.key)
                    if not v.allowed and v.reason:
                        i = self.location_combo.count() - 1
                        self.location_combo.setItemData(i, v.reason, Qt.ItemDataRole.ToolTipRole)
                idx = self.location_combo.findData(c.get("location"))
                self.location_combo.setCurrentIndex(max(0, idx))
            item = located and c.get("location") == "item"
            for w in (self.item_label, self.item_spin):
                w.setVisible(item)
            self.item_spin.setValue(c.get("item_penalty", -20))
            dist = key == "distraction"
            for w in (self.approach_label, self.approach_combo):
                w.setVisible(dist)
            if dist:
                self.approach_combo.clear()
                for v in variants:
                    self.approach_combo.addItem(v.label + ("" if v.allowed else "  (not possible)"), v.key)
                    if not v.allowed and v.reason:
                        self.approach_combo.setItemData(self.approach_combo.count() - 1, v.reason,
                                                        Qt.ItemDataRole.ToolTipRole)
                idx = self.approach_combo.findData(c.get("approach", "feint"))
                self.approach_combo.setCurrentIndex(max(0, idx))
            self.runup_check.setVisible(key == "shove")
            self.runup_check.setChecked(bool(c.get("run_up")))
            self.release_check.setVisible(key == "takedown")
            self.release_check.setChecked(bool(c.get("release")))
            self.willing_check.setVisible(key == "move_grapple")
            self.willing_check.setChecked(bool(c.get("willing")))
            tested = key not in ("release", "stand_up", "move")
            for w in (self.modifier_label, self.modifier_spin):
                w.setVisible(tested)
            self.modifier_spin.setValue(int(c.get("modifier", 0)))
        finally:
            self._building = False

    def choices(self) -> dict:
        """The choice widgets' values, as the controller keeps them."""
        located = getattr(self, "_key", None) in ("called_shot", "charge")
        out = {
            "location": self.location_combo.currentData() if located else None,
            "item_penalty": self.item_spin.value(),
            "approach": self.approach_combo.currentData() or "feint",
            "run_up": self.runup_check.isChecked(),
            "release": self.release_check.isChecked(),
            "willing": self.willing_check.isChecked(),
            "modifier": self.modifier_spin.value(),
        }
        return out

    def show_preview(self, preview, actor: str, opponent: str | None, *, awaiting: str = "",
                     dice: str = "gm") -> None:
        """The preview text (cost, tests with Success Targets, where bodies go, the reason if
        refused) and the outcome rows for its tests."""
        self._building = True
        try:
            if preview is None:
                self.preview_label.setText(f"<i>{html.escape(awaiting)}</i>" if awaiting else "")
                self.outcome_box.hide()
                self.confirm_btn.setEnabled(False)
                self.roll_btn.setEnabled(False)
                return
            lines = []
            if not preview.allowed:
                lines.append(f"<b style='color:{theme.ink('error')}'>Not possible:</b> "
                             f"<span style='color:{theme.ink('error')}'>{html.escape(preview.reason or '')}</span>")
            cost = f"{preview.ap_cost} AP"
            if preview.movement_cost:
                cost += f", {preview.movement_cost:.1f} m of Movement"
            lines.append(f"Costs {cost}.")
            if preview.runup_start is not None and preview.end is not None and preview.path:
                import math

                straight = math.dist(preview.runup_start, preview.end)
                lines.append(f"Runs {preview.movement_cost:.1f} m; the last {straight:.1f} m straight at the target "
                             "(white leg on the map).")
            if preview.shove_ends:
                lines.append("Where the target ends for each result is drawn on the map (yellow).")
            for n in preview.notes:
                lines.append(html.escape(n[0].upper() + n[1:]) + ".")
            if preview.tests and preview.allowed:
                lines.append("Tests: " + "; ".join(describe_test(t, html.escape(actor), html.escape(opponent or ""))
                                                   for t in preview.tests))
            self.preview_label.setText("<br>".join(lines))
            if preview.allowed and preview.tests:
                if tuple(preview.tests) != self.outcome.specs:
                    self.outcome.set_tests(preview.tests, actor, opponent)
                self.outcome_box.show()
            else:
                self.outcome.set_tests((), actor, opponent)
                self.outcome_box.hide()
            self.update_buttons(preview, dice)
        finally:
            self._building = False

    def update_buttons(self, preview, dice: str) -> None:
        allowed = preview is not None and preview.allowed
        missing = self.outcome.missing() if allowed and self.outcome.has_tests else None
        self.confirm_btn.setEnabled(allowed and missing is None)
        self.confirm_btn.setToolTip(f"Enter {missing} first" if missing else "Apply this maneuver (one undo step)")
        rollable = allowed and self.outcome.has_tests and dice == "d100"
        self.roll_btn.setVisible(allowed and self.outcome.has_tests)
        self.roll_btn.setEnabled(rollable)
        self.roll_btn.setText("Roll (d100)" if dice == "d100" else "Roll")
        self.roll_btn.setToolTip(
            "Roll the tests with the encounter's d100 model (anything entered above still counts)"
            if dice == "d100" else
            "This encounter's dice model is \u201cGM enters outcomes\u201d: enter the results above, "
            "or switch to the d100 model in the Static Veil menu")

    def show_message(self, text: str, *, error: bool = False) -> None:
        self.message.setStyleSheet(f"color: {theme.ink('error') if error else theme.ink('good')};")
        self.message.setText(text)


