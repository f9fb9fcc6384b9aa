"""The d100 round tracker: the round's order by speed (:meth:`engine.d100.RULESET.round_order`),
whose action it is, actions left of each character's actions per round, and the buttons to
start the next round and end the current character's turn (bleeding is rolled then).
Clicking a row selects that token on the map."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from engine.d100 import RULESET, EndTurn, StartRound
from engine.errors import CoverfireError
from gui.rules.widgets import bold, read_only_table, set_cell
from gui.style import side_colour


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
        self.message.setStyleSheet("color:#ef9a9a")
        self.table = read_only_table(self.COLUMNS, stretch=1, pick_rows=True)
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
        if RULESET.settings(enc).round == 0:
            return None
        for tid, left, _ in self.order():
            if left and RULESET.status(enc, tid).can_act:
                return tid
        return None

    def refresh(self) -> None:
        c = self.controller
        if not c.active:
            return
        enc = c.document.encounter
        st = RULESET.settings(enc)
        rows = self.order()
        cur = self.current()
        if st.round == 0:
            self.round_label.setText("Free play (no round started)")
            self.now_label.setText("Actions are not counted. <b>Start round 1</b> to track actions by speed; "
                                   "the order below is by actions per round, then speed.")
        else:
            self.round_label.setText(f"Round {st.round}")
            if cur is None:
                self.now_label.setText("Everyone has acted or ended the turn: <b>start the next round</b>.")
            else:
                left = RULESET.sheet(enc, cur).actions_left
                self.now_label.setText(f"Now: <b>{c.name(cur)}</b> \u2014 {left} action{'s' if left != 1 else ''} left")
        self.start_button.setText(f"Start round {st.round + 1}")
        self.end_button.setEnabled(cur is not None)
        self.end_button.setText(f"End {c.name(cur)}'s turn" if cur else "End turn")
        self.act_button.setEnabled(cur is not None)
        self._ids = [r[0] for r in rows]
        self.table.setRowCount(len(rows))
        for row, (tid, left, per) in enumerate(rows):
            s = RULESET.sheet(enc, tid)
            status = RULESET.status(enc, tid)
            tok = enc.token(tid)
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
                state = "acting" if tid == cur else ("ready" if st.round else "")
            if status.bleeding and not s.dead:
                state += f", bleeding {status.bleeding}"
            acts = f"{per}/round" if left is None else (f"{left} of {per}" if left <= per else f"{left} left ({per}/round)")
            cells = ("\u25b6" if tid == cur else "", tok.name or tok.id, acts, state)
            for col, text in enumerate(cells):
                item = set_cell(self.table, row, col, text)
                f = item.font()
                f.setBold(tid == cur)
                item.setFont(f)
                if col == 1:
                    item.setForeground(QBrush(side_colour(tok.side)))
                elif col == 3:
                    colour = {"dead": "#ff5252", "unconscious": "#b39ddb", "stunned": "#ffca28"}.get(
                        state.split(",")[0], "#81c784" if state.startswith("acting") else "#c9d1d9")
                    item.setForeground(QBrush(QColor(colour)))
                else:
                    item.setForeground(QBrush(QColor("#ffd54f" if tid == cur else "#c9d1d9")))

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
