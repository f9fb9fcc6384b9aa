"""The door page: a rule system with no GUI of its own acts in the Action panel through its
``engine.rules.RuleSystem`` alone (issue 27 item 6).

The page lists the system's ``actions`` for the attacker (against the first target picked on
the map), and runs the typed phases every system answers: ``preview`` (what the action would
do: :meth:`RuleSystem.describe` of the plan) -> ``resolve`` with the dice typed in the field
(``dice_from_data``; empty: the system's own roller) -> ``apply`` of the result, whose
``Outcome`` lands as one undo step (:func:`gui.rules.base.land`) and whose log lines go to
the combat log (struck through while undone). The map shows the preview: the target picked
(its ring, the attacker's line of sight to it) carries the plan's last line under its name
("needs 3+ on a d6"), then the roll's. No rule here, and no system named.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout

from engine.errors import CoverfireError
from gui.action_panel import ActionPage
from gui.combat_log import combat_log_for
from gui.layers import TokenDecoration
from gui.rules.base import RuleGui, land

#: The colours of the preview's tag under the target: the plan, then what the roll gave.
TAG_COLOURS = {"plan": "#ffca28", "result": "#81c784"}


class DoorPage(ActionPage):
    """The actions of the open encounter's rule system (see the module docstring)."""

    title = "Action"

    def __init__(self, gui: "DoorGui"):
        super().__init__(getattr(gui.window, "action_panel", None))
        self.gui = gui
        self.options: list = []
        self.plan = None
        self.result = None
        lay = QVBoxLayout(self)
        self.who = QLabel()
        self.who.setWordWrap(True)
        self.action = QComboBox()
        self.action.activated.connect(lambda _i: self.choose())
        self.plan_text = QLabel()
        self.plan_text.setWordWrap(True)
        self.dice = QLineEdit()
        self.dice.setPlaceholderText("dice (empty: rolled)")
        self.roll_button = QPushButton("Roll")
        self.roll_button.clicked.connect(self.roll)
        row = QHBoxLayout()
        row.addWidget(self.dice, 1)
        row.addWidget(self.roll_button)
        self.outcome_label = QLabel()
        self.outcome_label.setWordWrap(True)
        self.apply_button = QPushButton("Apply")
        self.apply_button.clicked.connect(self.apply_default)
        for w in (self.who, self.action, self.plan_text):
            lay.addWidget(w)
        lay.addLayout(row)
        lay.addWidget(self.outcome_label)
        lay.addWidget(self.apply_button)
        lay.addStretch(1)

    # -- the phases -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """The attacker's actions now (the first target picked on the map as their target)."""
        g = self.gui
        enc = g.window.document.committed
        actor, target = g.actor(), g.target()
        self.options, self.plan, self.result = [], None, None
        self.action.clear()
        self.plan_text.clear()
        self.outcome_label.clear()
        if actor is None:
            self.who.setText("Select a token: its actions show here.")
        else:
            self.who.setText(g.name(actor) + (f" \u2192 {g.name(target)}" if target else ""))
            try:
                self.options = [o for o in g.system.actions(enc, actor, target) if o.action is not None]
            except (CoverfireError, ValueError) as exc:
                self.plan_text.setText(str(exc))
            for o in self.options:
                self.action.addItem(o.label if o.allowed else f"{o.label} \u2014 {o.reason}")
        self.choose()

    def choose(self) -> None:
        """Preview the chosen action (what it would do; nothing changes)."""
        self.plan, self.result = None, None
        self.outcome_label.clear()
        i = self.action.currentIndex()
        option = self.options[i] if 0 <= i < len(self.options) else None
        if option is not None:
            g = self.gui
            try:
                self.plan = g.system.preview(g.window.document.committed, option.action)
            except (CoverfireError, ValueError) as exc:
                self.plan_text.setText(f"Not possible now: {exc}")
            else:
                self.plan_text.setText("\n".join(g.system.describe(self.plan)))
        self._buttons()
        self._mark(self.plan, "plan")

    def roll(self) -> bool:
        """Resolve the plan with the typed dice (or the system's roller)."""
        if self.plan is None:
            return False
        s, text = self.gui.system, self.dice.text().strip()
        try:
            self.result = s.resolve(self.plan, s.dice_from_data(text) if text else None)
        except (CoverfireError, ValueError) as exc:
            self.result = None
            self.outcome_label.setText(str(exc))
        else:
            self.outcome_label.setText("\n".join(s.describe(self.result)))
        self._buttons()
        self._mark(self.result or self.plan, "result" if self.result is not None else "plan")
        return self.result is not None

    def apply_default(self):
        """Enter: roll if not yet rolled, then land the result."""
        if self.result is None and not self.roll():
            return None
        g = self.gui
        try:
            outcome = g.system.apply(g.window.document.committed, self.result)
        except (CoverfireError, ValueError) as exc:
            self.outcome_label.setText(str(exc))
            return None
        g.landed(outcome)
        self.applied.emit(outcome)
        self.refresh()
        return outcome

    def _mark(self, value, kind: str) -> None:
        """The preview on the map: ``value``'s last line under the target (none: no tag)."""
        target = self.gui.target()
        lines = self.gui.system.describe(value) if value is not None and target is not None else ()
        self.gui.set_decorations({target: TokenDecoration(tags=((lines[-1], TAG_COLOURS[kind]),))} if lines else {})

    def _buttons(self) -> None:
        self.roll_button.setEnabled(self.plan is not None)
        self.apply_button.setEnabled(self.plan is not None)


class DoorGui(RuleGui):
    """What every rule system without a GUI package gets (:func:`door_gui_for`): the door page
    in the Action panel and its log lines in the combat log."""

    def __init__(self, window):
        super().__init__(window)
        self.log = combat_log_for(window)
        self.batches: list[tuple[int, int]] = []  # (log batch, undo index it landed at)
        self.page = self.add_page(DoorPage(self))
        self.listen(window.selection.changed, self.page.refresh)
        self.listen(window.selection.targetsChanged, self.page.refresh)
        self.listen(window.document.undo_stack.indexChanged, self._undo_moved)
        self.page.refresh()

    def actor(self) -> str | None:
        a = self.window.selection.attacker
        return a if a is not None and self.window.document.committed.find(a) is not None else None

    def target(self) -> str | None:
        return next((t for t in self.window.selection.targets if t != self.actor()), None)

    def name(self, ident: str) -> str:
        from engine.names import name_of

        return name_of(self.window.document.committed, ident)

    def run_option(self, token_id: str, option):
        """A right-click option: the token becomes the attacker and the page shows the option."""
        self.window.selection.set_attacker(token_id)
        self.page.refresh()
        keys = [o.key for o in self.page.options]
        if option.key in keys:
            self.page.action.setCurrentIndex(keys.index(option.key))
            self.page.choose()
        self.page.show_in_panel()
        return None

    def landed(self, outcome) -> None:
        """The one commit path, then the outcome's log lines as one batch."""
        if land(self.window, outcome) and outcome.changes.log:
            batch = self.log.add(list(outcome.changes.log), self.ruleset)
            self.log.want(self.ruleset, True)
            self.batches.append((batch, self.window.document.undo_stack.index()))

    def _undo_moved(self, index: int) -> None:
        for batch, at in self.batches:
            self.log.set_undone(batch, index < at)

    def uninstall(self) -> None:
        if self.installed:
            self.log.want(self.ruleset, False)
            self.log.clear(self.ruleset)
        super().uninstall()


def door_gui_for(ruleset: str) -> type[DoorGui]:
    """The door GUI class of ``ruleset`` (a system with no GUI package)."""
    return type("DoorGui", (DoorGui,), {"ruleset": ruleset})
