"""What the sr5 attack and grenade pages are alike: one implementation of an Action-panel
page that plans an action on the map, lets the GM change any modifier, rolls (seeded) or
takes typed dice step by step, and applies the result as one undo step.

:class:`RollingPage` lays the page out for the narrow Action panel (the headline and the
problems on top, the declaration in a folding section, the subclass's plan, the story step
by step) with the dice and Start over / Apply / Close in the panel's footer, always in view.
It keeps the GM's overrides across replans, rolls the rest, starts over, refuses a stale
roll, and applies through the controller (the door: ``Sr5Controller.act``). A subclass builds its declaration
(:meth:`build_declaration`) and plan (:meth:`build_plan`), and says how to plan
(:meth:`replan`), show (:meth:`_show`), roll (:meth:`roll_next`) and what the story says
after an apply (:meth:`applied_note`).

No rule here: every number comes from the engine through the controller.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.errors import CoverfireError, IllegalActionError
from engine.names import token_name
from gui.action_panel import ActionPage
from gui.rules.sr5.widgets import DiceRow, headline_labels, story_box
from gui.rules.widgets import Section, bold


class RollingPage(ActionPage):
    """See the module docstring. Attributes the subclasses share: ``plan``, ``resolution``,
    ``roller``, ``attacker``, ``defenses``, ``overrides`` ((pool, target, key) -> (value,
    label)), ``damage``, ``dice``, ``force``, ``result`` (the story), ``outcome``,
    ``apply_button``, ``restart_button``, ``defense_form``, ``attacker_combo``."""

    #: The Apply button's text and tooltip.
    apply_text = "Apply"
    apply_tip = ""
    #: What is being applied, for the stale-roll message ("attack", "blast").
    what = ""

    def __init__(self, panel, controller):
        super().__init__(panel)
        self.controller = controller
        self.plan = None
        self.resolution = None
        self.roller = None
        self.attacker: str | None = None
        self.defenses: dict[str, str] = {}
        self.overrides: dict[tuple, tuple[int, str | None]] = {}
        self.damage: dict = {}
        self._error = ""
        self._planned_on = None
        self._updating = False
        self._gm_count = 0
        self._was_rolling = False
        self.attacker_combo = QComboBox()
        self.defense_form = QFormLayout()
        self.headline, self.problems = headline_labels()
        self._build_footer()
        decl = self.build_declaration()
        self.declaration_section = Section("Declaration", decl)
        self.result = story_box()
        self.result.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.result.setMinimumHeight(140)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addWidget(self.headline)
        lay.addWidget(self.problems)
        lay.addWidget(self.declaration_section)
        lay.addLayout(self.build_plan())
        lay.addWidget(Section("Step by step", self.result))
        lay.addStretch(1)
        controller.listen(controller.selection.changed, self._selection_changed)
        controller.stateChanged.connect(self._state_changed)

    # -- what a subclass builds ---------------------------------------------------------------------
    def build_declaration(self) -> QVBoxLayout:
        """The declaration's widgets (attacker, weapon ...), stacked."""
        raise NotImplementedError

    def build_plan(self) -> QVBoxLayout:
        """The plan's widgets (pools per target ...), stacked."""
        raise NotImplementedError

    def applied_note(self, change) -> str:
        """Lines added to the story after ``change`` landed."""
        return ""

    def after_apply(self) -> None:
        """Clear what the subclass keeps between an apply and the next plan."""

    def _selection_changed(self) -> None:
        self._drop_gone()
        self._on_selection()

    def _state_changed(self) -> None:
        self._drop_gone()
        self._on_state()

    def _drop_gone(self) -> None:
        """Forget the attacker, the targets and their defenses the encounter no longer has
        (deleted, undone, or another encounter opened): the page never asks the engine about
        a token that is not there. Dice rolled for an attacker who is gone are forgotten
        too. (A subclass's ``damage`` stays: the grenade page keys it by DV and AP, and the
        attack page uses only its targets'.)"""
        ids = set(self.controller.token_ids())
        if self.attacker is not None and self.attacker not in ids:
            self.attacker = None
            self.resolution = None
            self.roller = None
        targets = getattr(self, "targets", None)
        if targets and any(t not in ids for t in targets):
            self.targets = [t for t in targets if t in ids]
        for t in [t for t in self.defenses if t not in ids]:
            del self.defenses[t]

    def _token(self):
        """The attacker's token, None without one (or one the encounter no longer has)."""
        c = self.controller
        return c.encounter.token(self.attacker) if self.attacker in c.token_ids() else None

    def _on_selection(self) -> None:
        """The map's selection changed (the page follows it while nothing is rolled)."""

    def _on_state(self) -> None:
        """The committed encounter changed (edits, undo, redo)."""

    # -- building ------------------------------------------------------------------------------------
    def _build_footer(self) -> None:
        """The dice, the outcome, "GM: allow it anyway" and Start over / Apply / Close, kept
        by the panel below the scrolling page."""
        self.dice = DiceRow()
        self.dice.rollRequested.connect(self.roll_next)
        self.dice.rollAllRequested.connect(self.roll_all)
        self.outcome = bold(QLabel())
        self.outcome.setWordWrap(True)
        self.force = QCheckBox("GM: allow anyway")
        self.force.setToolTip("Roll and apply although the rules object (the GM's word)")
        self.force.toggled.connect(lambda _: self._show())
        self.apply_button = QPushButton(self.apply_text)
        self.apply_button.setToolTip(self.apply_tip + " (Enter)")
        self.apply_button.clicked.connect(self.apply)
        self.restart_button = QPushButton("Start over")
        self.restart_button.setToolTip("Forget the dice rolled so far (nothing was applied)")
        self.restart_button.clicked.connect(self.start_over)
        close = QPushButton("Close")
        close.setToolTip("Close the action (Esc): nothing is applied")
        close.clicked.connect(self.cancel)
        buttons = QHBoxLayout()
        buttons.addWidget(self.restart_button)
        buttons.addStretch(1)
        buttons.addWidget(self.apply_button)
        buttons.addWidget(close)
        said = QHBoxLayout()
        said.addWidget(self.outcome, 1)
        said.addWidget(self.force)
        foot = QVBoxLayout()
        foot.setContentsMargins(0, 4, 0, 0)
        foot.setSpacing(3)
        foot.addWidget(self.dice)
        foot.addLayout(said)
        foot.addLayout(buttons)
        self.footer = QWidget()
        self.footer.setLayout(foot)

    # -- the panel -------------------------------------------------------------------------------------
    def apply_default(self):
        if self.apply_button.isEnabled():
            return self.apply()
        return None

    def cancel(self) -> None:
        """Escape / Close: forget the dice rolled and close the page; nothing is applied."""
        self.resolution = None
        self.roller = None
        super().cancel()

    def _follow_rolling(self) -> None:
        """Fold the declaration away once the dice start (the pools and the story need the
        room), unfold it when they are forgotten; the GM's own folding stands in between."""
        rolling = self._rolling()
        if rolling != self._was_rolling:
            self._was_rolling = rolling
            self.declaration_section.set_expanded(not rolling)

    # -- the attacker -------------------------------------------------------------------------------
    def _fill_attackers(self) -> None:
        c = self.controller
        self.attacker_combo.blockSignals(True)
        self.attacker_combo.clear()
        for t in c.encounter.tokens:
            self.attacker_combo.addItem(token_name(t), t.id)
        self.attacker_combo.setCurrentIndex(max(0, self.attacker_combo.findData(self.attacker)))
        if self.attacker is None and self.attacker_combo.count():
            self.attacker = self.attacker_combo.currentData()
        self.attacker_combo.blockSignals(False)

    def _with_overrides(self, plan, keep=lambda target: True):
        """``plan`` with the GM's overrides put back (those of targets ``keep`` accepts);
        an override the new plan refuses is forgotten."""
        for (pool, target, key), (value, label) in list(self.overrides.items()):
            if target is not None and not keep(target):
                continue
            try:
                plan = plan.override(key, value, target=target, pool=pool, label=label)
            except IllegalActionError:
                del self.overrides[(pool, target, key)]
        return plan

    # -- the GM's changes -----------------------------------------------------------------------------
    def override(self, key: str, value: int, *, target: str | None = None, pool: str = "attack",
                 label: str | None = None) -> None:
        """The GM sets a modifier (the plan's ``override``); kept when the plan is redone."""
        if self.plan is None or self._rolling():
            return
        old = self.overrides.get((pool, target, key))
        self.overrides[(pool, target, key)] = (int(value), label if label is not None else (old[1] if old else None))
        self.replan()

    def add_modifier(self, label: str, value: int, *, target: str | None = None, pool: str = "attack") -> None:
        """A modifier of the GM's own on a pool."""
        self._gm_count += 1
        self.override(f"gm{self._gm_count}", value, target=target, pool=pool, label=label)

    def set_defense(self, target: str, choice: str) -> None:
        """The defender ``target`` answers with ``choice`` (normal, full_defense, ...)."""
        self.defenses[target] = choice
        self.replan()

    def _add_defense_row(self, target: str, items, enabled: bool) -> None:
        """A row in ``defense_form``: ``target``'s name and a combo of the ``(choice, text)``
        ``items``, set to its current answer, that calls :meth:`set_defense`."""
        combo = QComboBox()
        for ch, text in items:
            combo.addItem(text, ch)
        combo.setCurrentIndex(max(0, combo.findData(self.defenses.get(target, "normal"))))
        combo.setEnabled(enabled)
        combo.currentIndexChanged.connect(lambda _i, t=target, cb=combo: self.set_defense(t, cb.currentData()))
        self.defense_form.addRow(self.controller.name(target), combo)

    # -- rolling ----------------------------------------------------------------------------------------
    def roll_next(self, faces: list[int] | None = None) -> bool:
        """Make the next roll through the door (``Sr5Controller.resolve``): with the
        encounter's seeded roller (``faces`` None) or the typed faces. Returns whether it was
        taken (a wrong count shows why)."""
        if self.plan is None or not (self.plan.legal or self.force.isChecked()):
            return False
        r = self.resolution or self.controller.resolve(self.plan, steps=0)
        if r.done:
            return False
        if self.roller is None or not self._rolling():
            self.roller = self.controller.roller()
        rolled = self.dice.roll_step(lambda dice: self.controller.resolve(r, dice), self.roller, faces)
        if rolled is None:
            return False
        self.rolled(r, rolled)
        self.resolution = rolled
        self._show()
        return True

    def rolled(self, before, after) -> None:
        """A test was rolled (``before`` -> ``after``, the resolutions)."""

    def roll_all(self) -> None:
        """Roll every roll still needed with the encounter's dice."""
        while self.plan is not None and not (self.resolution and self.resolution.done):
            if not self.roll_next():
                break

    def start_over(self) -> None:
        """Forget the dice rolled so far and plan again."""
        self.resolution = None
        self.roller = None
        self.replan()

    def _clear_rolls(self) -> None:
        """Nothing to roll, tell or apply (no plan)."""
        self.dice.set_request(None)
        self.result.setPlainText("")
        self.outcome.setText("")
        self.apply_button.setEnabled(False)
        self.restart_button.setEnabled(False)

    # -- applying ------------------------------------------------------------------------------------------
    def apply(self):
        """Apply the rolled action (one undo step); returns the engine's Change or None (the
        reason under the dice)."""
        r = self.resolution
        if r is None or not r.done:
            return None
        if self.controller.encounter is not self._planned_on:
            self.dice.show_error(f"The encounter changed since this {self.what} was planned (an undo, a move, "
                                 "another action): Start over to plan it again on the map as it is now.")
            return None
        try:
            change = self.controller.act(r, force=self.force.isChecked())
        except CoverfireError as exc:
            self.dice.show_error(str(exc))
            return None
        story = self.result.toPlainText()
        self.resolution = None
        self.roller = None
        self.overrides.clear()
        self.after_apply()
        self.replan()
        self.result.setPlainText(story + "\n\nApplied: " + change.label + "  (Ctrl+Z undoes it)"
                                 + self.applied_note(change))
        self.applied.emit(change)
        return change


__all__ = ["RollingPage"]
