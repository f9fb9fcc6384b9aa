"""The d100 round tracker: the round's order by speed (:meth:`engine.d100.system.D100.round_order`),
whose action it is, actions left of each character's actions per round, and the buttons to
start the next round and end the current character's turn (bleeding is rolled then).
Clicking a row selects that token on the map."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from engine.d100.actions import EndTurn, StartRound
from engine.d100.sheet import Settings
from engine.d100.values import sheet_of
from engine.errors import CoverfireError
from engine.names import token_name
from gui.rules.base import Kept, same_inputs
from gui.rules.widgets import ROWS_PER_TURN, Cell, TableRows, bold, read_only_table
from gui.style import side_colour
from gui import theme
from gui.rules.d100.controller import RULESET


class RoundTracker(QWidget):
    """The dock's contents. ``actRequested(str)`` asks for the action dialog for a token."""

    actRequested = Signal(str)
    COLUMNS = ("", "Character", "Actions", "State")

    def __init__(self, controller, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self._ids: list[str] = []
        self.round_label = bold(QLabel(), pixel_size=15)
        self.now_label = QLabel()
        self.now_label.setWordWrap(True)
        self.now_label.setTextFormat(Qt.TextFormat.RichText)
        self.start_button = QPushButton("Start round 1")
        self.start_button.setToolTip("End every unfinished turn (bleeding), then give each character its "
                                     "actions for the round: speed minus wound penalties, at least 1")
        self.start_button.clicked.connect(self.start_round)
        self.end_button = QPushButton("End turn")
        self.end_button.setToolTip("End the current character's turn: each bleeding wound adds d3 to the injury total")
        self.end_button.clicked.connect(self.end_turn)
        self.act_button = QPushButton("Act\u2026")
        self.act_button.setToolTip("Open the action dialog for the current character (A)")
        self.act_button.clicked.connect(lambda: self.current() and self.actRequested.emit(self.current()))
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color:{theme.ink('error')}")
        self.table = read_only_table(self.COLUMNS, stretch=1, pick_rows=True)
        self.rows = TableRows(self.table, per_turn=ROWS_PER_TURN)
        self._kept = Kept()  # each token's status, while its sheet and the settings are the same
        self._defaults = Settings()
        self._read: tuple | None = None  # (tokens, rules) the rows were last shown from
        self.table.cellClicked.connect(self._clicked)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.end_button)
        buttons.addWidget(self.act_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.round_label)
        lay.addWidget(self.now_label)
        lay.addLayout(buttons)
        lay.addWidget(self.message)
        lay.addWidget(self.table, 1)
        controller.stateChanged.connect(self.refresh)
        self.refresh()

    # -- reading --------------------------------------------------------------------------------
    def order(self) -> list[tuple[str, int | None, int]]:
        return RULESET.round_order(self.controller.document.encounter)

    def current(self) -> str | None:
        """Whose action it is: the first in the round's order who can still act (None
        outside rounds or when everyone is done)."""
        enc = self.controller.document.encounter
        return self._current(enc, self._settings(enc), self.order())

    def refresh(self) -> None:
        c = self.controller
        if not c.active:
            return
        enc = c.document.encounter
        # the order and the rows read only the tokens and the rules' settings: an edit of the
        # obstacles (a wall, a door, a corner, their undo) keeps those very objects and shows
        # the same rows (500 tokens: ~60 ms a refill)
        inputs = (enc.tokens, enc.rules)
        if same_inputs(inputs, self._read):
            return
        self._read = inputs
        st = self._settings(enc)
        rows = self.order()
        cur = self._current(enc, st, rows)
        if st.round == 0:
            self.round_label.setText("Free play (no round started)")
            self.now_label.setText("Actions are not counted. <b>Start round 1</b> to track actions by speed; "
                                   "the order below is by actions per round, then speed.")
        else:
            self.round_label.setText(f"Round {st.round}")
            if cur is None:
                self.now_label.setText("Everyone has acted or ended the turn: <b>start the next round</b>.")
            else:
                left = RULESET.sheet(enc.token(cur)).actions_left
                self.now_label.setText(f"Now: <b>{c.name(cur)}</b> \u2014 {left} action{'s' if left != 1 else ''} left")
        self.start_button.setText(f"Start round {st.round + 1}")
        self.end_button.setEnabled(cur is not None)
        self.end_button.setText(f"End {c.name(cur)}'s turn" if cur else "End turn")
        self.act_button.setEnabled(cur is not None)
        self._ids = [r[0] for r in rows]
        by_id = {t.id: t for t in enc.tokens}
        raw = enc.rules.get("d100")
        # a row is worked out (and written) again only when its token (a new value whenever
        # its sheet, name or place changes), the settings or its place in the round changed;
        # the rows not on screen of a first fill are worked out in the turns after
        self.rows.show_lazy([(by_id[tid], raw, tid == cur, left, per) for tid, left, per in rows],
                            lambda r: self._row(by_id[rows[r][0]], rows[r][1], rows[r][2], st, rows[r][0] == cur))

    def _settings(self, enc):
        """:meth:`RULESET.settings` of ``enc``; an encounter without d100 settings gets the
        same defaults object every time (so what is kept by the settings stays kept)."""
        raw = enc.rules.get("d100")
        return raw if raw is not None else self._defaults

    def _status(self, token, st, sheet=None):
        """:meth:`RULESET.status_of` the token (whose sheet is ``sheet`` when given) under the
        settings ``st``, kept while its sheet and the settings are the same values."""
        return self._kept.get(token.id, (token.rules.get("d100"), st),
                              lambda: RULESET.status_of(token.id, sheet if sheet is not None else sheet_of(token), st))

    def _current(self, enc, st, rows) -> str | None:
        if st.round == 0:
            return None
        by_id = {t.id: t for t in enc.tokens}
        for tid, left, _ in rows:
            if left and self._status(by_id[tid], st).can_act:
                return tid
        return None

    def _row(self, tok, left, per, st, current: bool) -> tuple[Cell, ...]:
        """The cells of one token's row."""
        s = sheet_of(tok)
        status = self._status(tok, st, s)
        if s.dead:
            state = "dead"
        elif s.unconscious:
            state = "unconscious"
        elif st.round and s.turn_done:
            state = "turn ended"
        elif status.stunned and not s.stunned:
            state = "stunned"
        elif st.round and left == 0:
            state = "done"
        elif status.stunned:
            state = "stunned next turn"
        else:
            state = "acting" if current else ("ready" if st.round else "")
        if status.bleeding and not s.dead:
            state += f", bleeding {status.bleeding}"
        acts = f"{per}/round" if left is None else (f"{left} of {per}" if left <= per else f"{left} left ({per}/round)")
        plain = theme.colour("warn" if current else "text")
        state_colour = {"dead": "#ff5252", "unconscious": "#b39ddb", "stunned": "#ffca28"}.get(
            state.split(",")[0], "#81c784" if state.startswith("acting") else "#c9d1d9")
        return (Cell("\u25b6" if current else "", plain, bold=current),
                Cell(token_name(tok), QColor(side_colour(tok.side)), bold=current),
                Cell(acts, plain, bold=current),
                Cell(state, QColor(state_colour), bold=current))

    # -- acting ---------------------------------------------------------------------------------
    def _run(self, action) -> None:
        self.message.clear()
        try:
            self.controller.apply(action)
        except CoverfireError as exc:
            self.message.setText(str(exc))

    def start_round(self) -> None:
        self._run(StartRound())

    def end_turn(self) -> None:
        cur = self.current()
        if cur is not None:
            self._run(EndTurn(cur))

    def _clicked(self, row: int, _col: int) -> None:
        if 0 <= row < len(self._ids):
            c = self.controller
            c.selection.select([self._ids[row]], c.document.encounter)
