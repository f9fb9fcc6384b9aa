"""The sr5 initiative tracker dock: the Combat Turn and pass, whose Action Phase it is, the
actions left to it, the order of everyone with their scores and monitors, the actions a
token may take now (and why not, for the others), interrupts, and who is under suppressive
fire.

Every answer is the engine's: whether an action may be taken now is the door's
(``RuleSystem.why_not``), and so is what it costs (``preview`` of it ``Forced``: its cost
although refused); the reads are ``engine.sr5``'s (``initiative_order``,
``action_order``, ``phase_budget``, ``movement``), ``condition.monitor`` and
``suppressive.suppression_status``. Buttons call the controller, which applies through the
door and lands each outcome as one undo step.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.errors import CoverfireError, IllegalActionError
from engine.sr5 import condition
from engine.sr5 import actions as sr5_actions, economy as sr5_economy
from engine.sr5 import initiative as sr5_initiative, movement as sr5_movement
from engine.sr5.changes import RULESET, settings_of, sheet_of
from engine.sr5.system import Forced
from engine.sr5.tables import CHOKES, current_choke, current_mode, has_choke, weapon_modes
from gui.rules.sr5.widgets import bad, good, muted, parse_faces
from gui.rules.base import Kept
from gui.rules.widgets import ROWS_PER_TURN, Cell, TableRows, bold, read_only_table
from gui import theme

COST_TEXT = {"free": "Free", "simple": "Simple", "complex": "Complex", "interrupt": "Interrupt"}
WEAPON_ACTIONS = ("take_aim", "ready_weapon", "change_gun_mode", "change_choke", "remove_clip", "eject_clip",
                  "insert_clip", "reload", "quick_draw")
#: Rows of the initiative order written in one event-loop turn (its 12 on screen first); the
#: rest follow in the next turns. Half of gui.rules.widgets.ROWS_PER_TURN: the order is filled
#: in the same turn as every other panel when a file opens (a 500-token map: 60 rows, 420
#: cells, ~5 ms of that turn, where the 12 on screen are all that shows).
ORDER_ROWS_PER_TURN = ROWS_PER_TURN // 2
#: Rows (besides those on screen) the order's columns are measured over.
ORDER_MEASURED_ROWS = 200


class InitiativeDialog(QDialog):
    """Roll or enter initiative for everyone in the fight: leave a row blank to roll it (the
    encounter's seeded dice), type the faces of its initiative dice (``"4 6"``), or type a
    whole score with ``=`` (``"=17"``)."""

    def __init__(self, parent, controller):
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle("Initiative")
        enc = controller.encounter
        st = settings_of(enc)
        self.ids = list(sr5_initiative.participants(enc))
        self.table = QTableWidget(len(self.ids), 4)
        self.table.setHorizontalHeaderLabels(["Character", "Initiative", "Dice", "Your dice (blank: roll)"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.edits: dict[str, QLineEdit] = {}
        for r, tid in enumerate(self.ids):
            sh = sheet_of(enc.token(tid))
            base = sr5_initiative.initiative_base(sh, st)
            self.table.setItem(r, 0, QTableWidgetItem(controller.name(tid)))
            item = QTableWidgetItem(f"{base}")
            item.setToolTip(f"Reaction {sh.reaction} + Intuition {sh.intuition}"
                            + (f" + bonus {sh.initiative_bonus}" if sh.initiative_bonus else "")
                            + " + wound modifier")
            self.table.setItem(r, 1, item)
            self.table.setItem(r, 2, QTableWidgetItem(f"+{sh.initiative_dice}D6"))
            edit = QLineEdit()
            edit.setPlaceholderText(f"{sh.initiative_dice} dice, or =score")
            self.table.setCellWidget(r, 3, edit)
            self.edits[tid] = edit
        for c in range(4):
            for r in range(len(self.ids)):
                it = self.table.item(r, c)
                if it is not None:
                    it.setFlags(it.flags() & ~Qt.ItemFlag.ItemIsEditable)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.error = QLabel()
        self.error.setStyleSheet(f"color: {theme.ink('error')}")
        self.error.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.start = buttons.addButton("Start Combat Turn", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.start_turn)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Blank rows are rolled with the encounter's dice. Type the dice you rolled "
                             "(\u201c4 6\u201d) or a whole score (\u201c=17\u201d)."))
        lay.addWidget(self.table)
        lay.addWidget(self.error)
        lay.addWidget(buttons)
        self.resize(620, min(720, 140 + 30 * len(self.ids)))

    def entered(self) -> dict:
        """What the GM typed: ``{id: [faces]}`` or ``{id: score}``; raises
        :class:`IllegalActionError` naming the row."""
        out = {}
        for tid, edit in self.edits.items():
            text = edit.text().strip()
            if not text:
                continue
            if text.startswith("="):
                try:
                    out[tid] = int(text[1:].strip())
                except ValueError:
                    raise IllegalActionError(f"{self.controller.name(tid)}: {text!r} is not a score (=17)") from None
            else:
                try:
                    out[tid] = parse_faces(text)
                except IllegalActionError as exc:
                    raise IllegalActionError(f"{self.controller.name(tid)}: {exc}") from None
        return out

    def start_turn(self) -> bool:
        try:
            self.controller.start_turn(self.entered())
        except CoverfireError as exc:
            self.error.setText(str(exc))
            return False
        self.accept()
        return True


class InitiativeTracker(QWidget):
    """The dock's contents (see the module docstring). ``attackRequested`` and
    ``suppressiveRequested`` ask the package to open those dialogs; ``testRequested(token,
    zone, index)`` a suppressive-fire test."""

    attackRequested = Signal()
    suppressiveRequested = Signal()
    testRequested = Signal(str, str, int)
    testsRequested = Signal()

    def __init__(self, controller, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.turn = bold(QLabel(), scale=1.2)
        self.acting = QLabel()
        self.acting.setWordWrap(True)
        self.budget = QLabel()
        self.budget.setWordWrap(True)
        self.roll_button = QPushButton("Roll initiative\u2026")
        self.roll_button.setToolTip("Start the next Combat Turn: roll or enter everyone's initiative")
        self.roll_button.clicked.connect(self.open_initiative)
        self.end_button = QPushButton("End phase \u25b6")
        self.end_button.setToolTip("End this Action Phase: the next one acts (or the pass ends, -10 to everyone)")
        self.end_button.clicked.connect(self.end_phase)
        self.attack_button = QPushButton("Attack\u2026")
        self.attack_button.setToolTip("Attack with the selected token; shift-click targets on the map (A)")
        self.attack_button.clicked.connect(self.attackRequested.emit)
        self.supp_button = QPushButton("Suppressive fire\u2026")
        self.supp_button.setToolTip("Fill a suppressive zone on the map with fire")
        self.supp_button.clicked.connect(self.suppressiveRequested.emit)
        row = QGridLayout()  # two by two: the dock stays narrow on a laptop
        for i, b in enumerate((self.roll_button, self.end_button, self.attack_button, self.supp_button)):
            row.addWidget(b, i // 2, i % 2)

        # short headers (the full names in their tooltips): the dock is ~330 px wide on a
        # laptop, and the Character column takes what the others leave
        self.order = read_only_table(["Character", "Init", "IP", "Phys", "Stun", "Wnd", "Now"],
                                     pick_rows=True)
        for col, tip in enumerate(("Character", "Initiative score", "Initiative Passes this Combat Turn",
                                   "Physical damage boxes filled / boxes (+ overflow)", "Stun damage boxes filled / boxes",
                                   "Wound modifier", "What the character is doing now")):
            self.order.horizontalHeaderItem(col).setToolTip(tip)
        self.order.itemSelectionChanged.connect(self._order_picked)

        self.who = bold(QLabel())
        self.weapon = QComboBox()
        self.weapon.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.weapon.setMinimumContentsLength(12)
        self.weapon.currentIndexChanged.connect(lambda _i: self._fill_actions())
        self.movement = QLabel()
        self.movement.setWordWrap(True)
        # one line per action: allowed ones first (green), then the refused ones with the
        # engine's reason, wrapped to the dock's width
        self.actions = QListWidget()
        self.actions.setWordWrap(True)
        self.actions.setUniformItemSizes(False)
        self.actions.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.actions.setToolTip("Double-click an allowed action to take it")
        self.reasons: dict[str, str | None] = {}  # action id -> why not (None: allowed)
        self.actions.itemDoubleClicked.connect(lambda it: self.take_action(it.data(Qt.ItemDataRole.UserRole)))
        self.actions.currentItemChanged.connect(lambda *_: self._show_reason())
        self.do_button = QPushButton("Take action")
        self.do_button.clicked.connect(lambda: self.take_action(self._current_action()))
        self.interrupt_buttons: dict[str, QPushButton] = {}
        # "Interrupts:" above its two buttons (beside them they were cut at 125 %)
        irow = QVBoxLayout()
        irow.setSpacing(2)
        irow.addWidget(QLabel("Interrupts:"))
        ibuttons = QHBoxLayout()
        for aid, text in (("full_defense", "Full Defense (-10)"), ("hit_the_dirt", "Hit the Dirt (-5)")):
            b = QPushButton(text)
            b.clicked.connect(lambda _=False, a=aid: self.take_action(a))
            self.interrupt_buttons[aid] = b
            ibuttons.addWidget(b)
        ibuttons.addStretch(1)
        irow.addLayout(ibuttons)
        # who and what is left on its own line, the weapon below (side by side at 1366 the
        # budget and the weapon's name were cut: issue 30 item 8)
        self.who.setWordWrap(True)
        wrow = QHBoxLayout()
        wrow.addWidget(QLabel("Weapon"))
        wrow.addWidget(self.weapon, 1)
        drow = QHBoxLayout()
        drow.addWidget(self.do_button)
        drow.addStretch(1)

        # who is under suppressive fire, to read; the tests are rolled on the Action panel's
        # page (issue 30 item 3: every rule action is a page there), which the button and a
        # double-click on a row open
        self.supp = QTreeWidget()
        self.supp.setColumnCount(2)
        self.supp.setHeaderLabels(["Under suppressive fire", "Dice"])
        self.supp.setRootIsDecorated(False)
        self.supp.setWordWrap(True)
        self.supp.setTextElideMode(Qt.TextElideMode.ElideNone)
        sh = self.supp.header()
        sh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        sh.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        sh.setStretchLastSection(False)
        self.supp.setToolTip("Double-click a row to roll its test in the Action panel")
        self.supp.itemDoubleClicked.connect(self._test_picked)
        self.tests_button = QPushButton("Roll the tests in the Action panel\u2026")
        self.tests_button.setToolTip("Open the Action panel's page of the suppressive-fire tests to roll now (SR5 > Suppressive fire tests)")
        self.tests_button.clicked.connect(self.testsRequested.emit)

        self.supp_title = bold(QLabel("Suppressive fire"))
        self.supp_title.setWordWrap(True)

        self.message = QLabel()
        self.message.setWordWrap(True)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.turn)
        lay.addWidget(self.acting)
        lay.addWidget(self.budget)
        lay.addLayout(row)
        lay.addWidget(self.order)
        lay.addWidget(self.who)
        lay.addLayout(wrow)
        lay.addWidget(self.movement)
        lay.addWidget(self.actions, 4)
        lay.addLayout(drow)
        lay.addLayout(irow)
        lay.addWidget(self.supp_title)
        lay.addWidget(self.supp)
        lay.addWidget(self.tests_button)
        lay.addWidget(self.message)
        self._shown: str | None = None
        self._weapon_for: str | None = None
        # the order's rows: written only when their values changed, at most
        # ORDER_ROWS_PER_TURN an event-loop turn (those on screen first)
        self.order_rows = TableRows(self.order, per_turn=ORDER_ROWS_PER_TURN)
        # the columns as wide as the widest of at most this many rows (besides those on
        # screen): Qt's default looks at 1,000 rows on every measure
        self.order.horizontalHeader().setResizeContentsPrecision(ORDER_MEASURED_ROWS)
        self._monitors = Kept()  # each token's condition monitor, while its sheet and the options are the same
        self._filled: tuple | None = None  # what the order and the action list were last filled from
        self._filled_shown: str | None = None  # and the token shown then
        self._order_ids: list[str] = []  # the token of each row
        controller.stateChanged.connect(self._clear_message)
        controller.stateChanged.connect(self.refresh)
        controller.listen(controller.selection.changed, self.refresh)
        controller.applied.connect(self._applied)
        self.refresh()

    # -- showing --------------------------------------------------------------------------------
    def refresh(self) -> None:
        c = self.controller
        if not c.active:
            return
        enc = c.encounter
        st = settings_of(enc)
        fighting = sr5_economy.in_combat(st)
        if fighting:
            self.turn.setText(f"Combat Turn {st.turn}  \u00b7  Initiative Pass {st.initiative_pass}")
        elif st.turn:
            self.turn.setText(f"Combat Turn {st.turn} is over")
        else:
            self.turn.setText("No Combat Turn yet")
        if fighting and st.acting:
            sh = sheet_of(enc.token(st.acting))
            self.acting.setText(f"\u25b6 {c.name(st.acting)} acts (Initiative {sh.initiative})")
            self.budget.setText("Left this phase: " + sr5_economy.phase_budget(enc, st.acting).describe())
        else:
            self.acting.setText("Roll initiative to start a Combat Turn." if not fighting else "Nobody is acting.")
            self.budget.setText("")
        self.end_button.setEnabled(fighting)
        # the order and the actions read only the tokens, zones and sr5 settings: an edit of
        # the obstacles (a wall drawn, its undo, a door) keeps those very objects and need not
        # fill them again (500 tokens: ~7 ms a refresh, two refreshes for a wall drawn)
        # (the rows do not depend on the token shown: a click on another token only moves
        # the highlight and fills the actions, ~10 ms less a click with 500 tokens)
        # a rule outcome says what it changed (c.changes): the order is filled again only when
        # it names the tokens, the zones or the sr5 settings
        key = (enc.tokens, enc.zones, enc.rules)
        shown = c.shown_token()
        ch = c.changes
        if ch is not None:
            stale = self._filled is None or bool(ch.tokens or ch.zones or ch.settings)
        else:
            stale = self._filled is None or len(key) != len(self._filled) or any(
                a is not b for a, b in zip(key, self._filled))
        if stale:
            self._fill_order()
            self._fill_who()
            self._filled, self._filled_shown = key, shown
        elif shown != self._filled_shown:
            self._select_shown()
            self._fill_who()
            self._filled_shown = shown
        self._fill_suppression()

    def _fill_order(self) -> None:
        """The initiative order, one row a participant (:class:`gui.rules.widgets.TableRows`):
        a row is worked out again only when what it reads changed (its token, a new value
        whenever its sheet, name or place changes; the sr5 settings; whether it is still to
        act this pass; the colour theme), and of those at most :data:`ORDER_ROWS_PER_TURN`
        in one event-loop turn, the rows on screen first: the rest are worked out and
        written in the turns after (a 500-token fight worked every row's monitor, movement
        and seven cells out again for one token dragged, undone: ~15 ms of the undo's turn;
        a 10,000-obstacle map with 500 tokens opened: 3,500 cells, ~30 ms, in one turn)."""
        c = self.controller
        enc = c.encounter
        st = settings_of(enc)
        fighting = sr5_economy.in_combat(st)
        ordered = list(sr5_initiative.initiative_order(enc))
        ids = ordered + [t for t in sr5_initiative.participants(enc) if t not in ordered]
        to_act = set(sr5_initiative.action_order(enc))
        by_id = {t.id: t for t in enc.tokens}
        raw = enc.rules.get(RULESET)
        scheme = theme.current()
        inputs = [(by_id[tid], raw, tid in to_act, scheme) for tid in ids]

        def make(r: int) -> tuple[Cell, ...]:
            return self._order_row(enc, by_id[ids[r]], st, fighting, to_act)

        self.order.blockSignals(True)
        self.order_rows.show_lazy(inputs, make)
        self._order_ids = ids
        self.order.blockSignals(False)
        self._select_shown()
        o = self.order  # as tall as its rows (up to 12), so the action list gets the rest
        height = (o.horizontalHeader().sizeHint().height() + min(12, max(1, len(ids)))
                  * o.verticalHeader().defaultSectionSize() + 2 * o.frameWidth() + 2)
        if o.height() != height or o.minimumHeight() != height:  # (a layout pass over 500 rows: ~14 ms)
            o.setFixedHeight(height)

    def _order_row(self, enc, tok, st, fighting: bool, to_act: set[str]) -> tuple[Cell, ...]:
        """The cells of token ``tok``'s row in the order: name, initiative, passes, the two
        monitors, the wound modifier and what it is doing now."""
        tid = tok.id
        sh = sheet_of(tok)
        m = self._monitor(tok, sh, st.options)
        passes = sr5_movement.movement(enc, tid).passes if fighting and (sh.initiative or 0) > 0 else None
        if m.status != "ok":
            now = m.status
        elif not fighting:
            now = ""
        elif tid == st.acting:
            now = "\u25b6 acting"
        elif tid in st.acted:
            now = "acted"
        elif tid in to_act:
            now = "waiting"
        else:
            now = "done this turn" if (sh.initiative or 0) <= 0 else ""
        status = []
        if sh.full_defense:
            status.append("FD")
        if sh.running:
            status.append("sprinting" if sh.sprinting else "running")
        if sh.aim:
            status.append(f"aim {sh.aim}")
        texts = (
            tok.name or tid,
            "" if sh.initiative is None else str(sh.initiative),
            "" if passes is None else str(passes),
            f"{m.physical}/{m.physical_boxes}" + (f" +{m.overflow}" if m.overflow else ""),
            f"{m.stun}/{m.stun_boxes}",
            f"{m.wound_modifier:+d}" if m.wound_modifier else "",
            ", ".join([now] + status if now else status),
        )
        colour = None
        if tid == st.acting:
            colour = theme.colour("warn")
        elif m.status != "ok" or (fighting and tid in st.acted) or (fighting and now == ""):
            colour = muted()
        acting = tid == st.acting
        return tuple(Cell(text, bad() if col == 3 and m.physical else colour, bold=acting, data=tid)
                     for col, text in enumerate(texts))

    def _select_shown(self) -> None:
        """Highlight the row of the token shown (none when it takes no part)."""
        shown = self.controller.shown_token()
        try:
            row = self._order_ids.index(shown)
        except ValueError:
            row = -1
        self.order.blockSignals(True)
        if row >= 0:
            self.order.selectRow(row)
        else:
            self.order.clearSelection()
        self.order.blockSignals(False)

    @property
    def order_pending(self) -> int:
        """How many rows of the order are still to be written (in the next turns)."""
        return self.order_rows.pending

    def _monitor(self, token, sheet, options):
        """``condition.monitor`` of a token's sheet, kept while its sheet and the options
        are the same values (a moved token keeps its sheet; tokens without one share the
        default sheet's)."""
        raw = token.rules.get(RULESET)
        return self._monitors.get(id(raw), (raw, options), lambda: condition.monitor(sheet, options))

    def _order_picked(self) -> None:
        rows = self.order.selectionModel().selectedRows()
        if not rows:
            return
        item = self.order.item(rows[0].row(), 0)
        tid = item.data(Qt.ItemDataRole.UserRole) if item else None
        c = self.controller
        if tid and tid != c.shown_token():
            c.selection.select([tid], c.encounter)

    def _fill_who(self) -> None:
        c = self.controller
        tid = c.shown_token()
        self._shown = tid
        if tid is None:
            self.who.setText("Select a token to see its actions")
            self.weapon.blockSignals(True)
            self.weapon.clear()
            self.weapon.blockSignals(False)
            self.actions.clear()
            self.movement.setText("")
            for b in self.interrupt_buttons.values():
                b.setEnabled(False)
            self.do_button.setEnabled(False)
            return
        enc = c.encounter
        tok = enc.token(tid)
        budget = sr5_economy.phase_budget(enc, tid)
        self.who.setText(f"{c.name(tid)}: {budget.describe()}")
        if self._weapon_for != tid or self.weapon.count() != len(tok.weapons):
            self.weapon.blockSignals(True)
            self.weapon.clear()
            for w in tok.weapons:
                self.weapon.addItem(w.name, w.name)
            held = enc.system.ready_weapon(enc, tok)  # the engine's one answer, as the attack page
            if held is not None:
                self.weapon.setCurrentIndex(max(0, self.weapon.findData(held.name)))
            self.weapon.blockSignals(False)
            self._weapon_for = tid
        mv = sr5_movement.movement(enc, tid)
        self.movement.setText(
            f"Moved {mv.moved:.1f} m this turn; by this pass it may walk {mv.walk_now:.1f} m, run {mv.run_now:.1f} m"
            f" (turn: walk {mv.walk:.0f} m, run {mv.run:.0f} m)" + (" \u2014 running" if mv.running else ""))
        self._fill_actions()

    def action_for(self, action_id: str, tid: str | None = None, weapon: str | None = None, *,
                   map_facts: bool = True) -> sr5_actions.Action:
        """The :class:`engine.sr5.actions.Action` this dock would take for ``action_id``,
        with its natural parameter: the next firing mode or choke, the other stance ... and
        for Stand Up the suppressive zones the token is in, from the map's facts (unless
        ``map_facts`` is False: listing the actions, whose checks and costs do not read
        them, need not measure the whole map -- 20 ms on a 500-token map -- on every click)."""
        c = self.controller
        tid = tid or self._shown
        enc = c.encounter
        tok = enc.token(tid)
        sh = sheet_of(tok)
        weapon = weapon if weapon is not None else (self.weapon.currentData() if action_id in WEAPON_ACTIONS else None)
        kw: dict = {}
        w = tok.weapon(weapon) if weapon else None
        if action_id == "change_gun_mode" and w is not None:
            modes = list(weapon_modes(w))
            cur = current_mode(w, sh)
            kw["mode"] = next((m for m in modes if m != cur), cur or "SA")
        elif action_id == "change_choke" and w is not None and has_choke(w):
            cur = current_choke(w, sh)
            kw["choke"] = next(ch for ch in CHOKES if ch != cur)
        elif action_id == "drop_prone":
            kw["stance"] = "crouched" if tok.stance == "prone" else "prone"
        elif action_id == "ready_weapon":
            kw["hand"] = "main"
        elif action_id == "stand_up" and map_facts:
            try:
                kw["zones"] = tuple(c.facts(tid, []).token(tid).in_zones)
            except CoverfireError:
                pass
        return sr5_actions.Action(tid, action_id, weapon=weapon if action_id in WEAPON_ACTIONS else None, **kw)

    def _fill_actions(self) -> None:
        c = self.controller
        tid = self._shown
        if tid is None:
            return
        enc = c.encounter
        current = self._current_action()
        self.actions.clear()
        rows = []
        system = c.system
        for spec in sr5_economy.ACTIONS.values():
            if spec.id in sr5_economy.ATTACK_ONLY:
                continue  # (declared with an attack: the Attack page)
            action = self.action_for(spec.id, tid, map_facts=False)
            reason = system.why_not(enc, action)  # the door: the action with this dock's parameter
            try:
                cost, ini = system.preview(enc, Forced(action))  # (its cost although refused)
            except IllegalActionError:
                cost, ini = spec.cost, spec.initiative
            label = spec.label
            if spec.id == "change_gun_mode" and action.mode:
                label += f" \u2192 {action.mode}"
            elif spec.id == "change_choke" and action.choke:
                label += f" \u2192 {action.choke}"
            elif spec.id == "drop_prone":
                label += f" ({action.stance})"
            rows.append((spec, reason, label, cost, ini))
        rows.sort(key=lambda r: r[1] is not None)  # what it may do now first
        self.reasons = {}
        for spec, reason, label, cost, ini in rows:
            costs = COST_TEXT.get(cost, cost) + (f" -{ini} Initiative" if ini else "")
            text = f"{label}  ({costs})" + (f" \u2014 {reason}" if reason else "")
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, spec.id)
            item.setToolTip(spec.text or spec.label)
            item.setForeground(QBrush(muted() if reason else good()))
            self.reasons[spec.id] = reason
            self.actions.addItem(item)
            if spec.id == current:
                self.actions.setCurrentItem(item)
            if spec.id in self.interrupt_buttons:
                b = self.interrupt_buttons[spec.id]
                b.setEnabled(reason is None)
                b.setToolTip(reason or spec.text)
        self._show_reason()

    def _current_action(self) -> str | None:
        it = self.actions.currentItem()
        return it.data(Qt.ItemDataRole.UserRole) if it is not None else None

    def _show_reason(self) -> None:
        aid = self._current_action()
        allowed = aid is not None and self.reasons.get(aid) is None
        self.do_button.setEnabled(allowed)
        if aid is not None:
            name = sr5_economy.ACTIONS[aid].label
            self.do_button.setText(f"Take action: {name}" if allowed else f"{name}: not now")
        else:
            self.do_button.setText("Take action")

    def _fill_suppression(self) -> None:
        c = self.controller
        enc = c.encounter
        st = settings_of(enc)
        self.supp.clear()
        active = st.suppressions
        self.supp_title.setVisible(bool(active))
        self.supp.setVisible(bool(active))
        self.tests_button.setVisible(False)
        if not active:
            return
        self.supp_title.setText("Suppressive fire: " + "; ".join(
            f"{c.name(s.zone)} by {c.name(s.shooter)} ({s.hits} hits, {s.dv}{s.damage_type})" for s in active))
        try:
            status = c.suppression_status()
        except CoverfireError as exc:
            self.message.setText(str(exc))
            return
        # one zone active: the title names it, the rows need not (at 125 % they were cut)
        one = len(active) == 1

        def zone(z):
            return "it" if one else c.name(z)

        for tid, zs in status.items():
            bits = []
            if zs.must_test:
                bits.append("must roll" if one else "must roll vs " + ", ".join(c.name(z) for z in zs.must_test))
            bits += [f"spared in {zone(z)}: {why}" for z, why in zs.spared]
            if not bits:
                bits.append(f"next to {zone(zs.penalty_zone)}")
            item = QTreeWidgetItem([f"{c.name(tid)}: " + "; ".join(bits), f"{zs.penalty:+d}" if zs.penalty else ""])
            self.supp.addTopLevelItem(item)
            if zs.must_test:
                item.setData(0, Qt.ItemDataRole.UserRole, (tid, zs.must_test[0]))
                item.setToolTip(0, f"Double-click: roll {c.name(tid)}'s Reaction + Edge against {c.name(zs.must_test[0])} "
                                   "in the Action panel")
                self.tests_button.setVisible(True)
        self._fit_supp()

    def _fit_supp(self) -> None:
        """The list as tall as its first six rows, each as tall as its wrapped text."""
        t = self.supp
        n = min(6, t.topLevelItemCount())
        if n == 0:
            return
        t.doItemsLayout()
        rows = sum(max(26, t.visualItemRect(t.topLevelItem(i)).height()) for i in range(n))
        t.setFixedHeight(t.header().sizeHint().height() + rows + 2 * t.frameWidth() + 2)

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(ev)
        if ev.size().width() != ev.oldSize().width() and self.supp.isVisible():
            self._fit_supp()  # (the wrapped rows' heights follow the width)

    def _test_picked(self, item, _column: int) -> None:
        picked = item.data(0, Qt.ItemDataRole.UserRole)
        if picked:
            self.testRequested.emit(picked[0], picked[1], 0)

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        from gui.wheel_pass import pass_wheel_to_panel

        pass_wheel_to_panel(self)  # (the first scroll moves the panel, not the list under the mouse)

    # -- acting ---------------------------------------------------------------------------------
    def open_initiative(self) -> InitiativeDialog:
        dlg = InitiativeDialog(self.window(), self.controller)
        dlg.open()
        return dlg

    def end_phase(self) -> None:
        self._do(self.controller.end_phase)

    def take_action(self, action_id: str | None) -> None:
        if not action_id or self._shown is None:
            return
        action = self.action_for(action_id)
        self._do(lambda: self.controller.act(action))

    def _do(self, fn) -> None:
        try:
            fn()
        except CoverfireError as exc:
            self.message.setStyleSheet(f"color: {theme.ink('error')}")
            self.message.setText(str(exc))

    def _clear_message(self) -> None:
        self.message.setText("")

    def _applied(self, change) -> None:
        self.message.setStyleSheet("")
        text = change.label
        if change.prompts:
            text += "\n" + "\n".join(f"\u2192 {p}" for p in change.prompts)
        self.message.setText(text)


__all__ = ["InitiativeDialog", "InitiativeTracker"]
