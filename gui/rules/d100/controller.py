"""The d100 rules on one main window: applies actions to the document (one undo step each),
keeps the combat log in step with undo and redo, and says which token the docks show.

No rule here: every answer is :data:`engine.d100.RULESET`'s.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from engine.d100 import (
    RULESET,
    Aim,
    ChangeStance,
    EndTurn,
    Fire,
    FireTwoPistols,
    Melee,
    Recover,
    RestWeapon,
    StartRound,
    SwitchWeapon,
)
from engine.model import Encounter
from gui.combat_log import CombatLog

RULESET_NAME = "d100"


def token_name(encounter: Encounter, ident: str | None) -> str:
    if ident is None:
        return ""
    try:
        t = encounter.token(ident)
    except ValueError:
        return ident
    return t.name or t.id


def action_title(encounter: Encounter, action) -> str:
    """The undo step's text for an action: 'd100: Sam fires single at Lupe'."""
    n = lambda i: token_name(encounter, i)  # noqa: E731
    a = action
    if isinstance(a, StartRound):
        r = RULESET.settings(encounter).round + 1
        what = f"start round {r}"
    elif isinstance(a, EndTurn):
        what = f"{n(a.actor)} ends the turn"
    elif isinstance(a, Aim):
        what = f"{n(a.actor)} aims at {n(a.target)}"
    elif isinstance(a, ChangeStance):
        what = f"{n(a.actor)} changes stance"
    elif isinstance(a, Fire):
        mode = {"single": "single", "semi": "semi-auto", "auto": "full auto"}[a.mode]
        what = f"{n(a.actor)} fires {mode} at {', '.join(n(t.id) for t in a.targets)}"
    elif isinstance(a, FireTwoPistols):
        ts = [a.target.id] + ([a.off_target.id] if a.off_target and a.off_target.id != a.target.id else [])
        what = f"{n(a.actor)} fires two pistols at {', '.join(n(t) for t in ts)}"
    elif isinstance(a, Melee):
        what = f"{n(a.actor)} attacks {n(a.target.id)} in melee"
    elif isinstance(a, Recover):
        what = f"{n(a.actor)} recovers {n(a.patient or a.actor)}"
    elif isinstance(a, RestWeapon):
        what = f"{n(a.actor)} {'rests' if a.rest else 'unrests'} the weapon"
    elif isinstance(a, SwitchWeapon):
        what = f"{n(a.actor)} switches to {a.weapon or 'empty hand'}"
    else:
        what = type(a).__name__
    return f"d100: {what}"


class D100Controller(QObject):
    """Signals: ``activeChanged(bool)`` when a d100 encounter is opened or left;
    ``applied(Change)`` after an action landed; ``stateChanged()`` after any change of the
    encounter shown (edits, undo, redo, files)."""

    activeChanged = Signal(bool)
    applied = Signal(object)
    stateChanged = Signal()

    def __init__(self, window, log: CombatLog):
        super().__init__(window)
        self.window = window
        self.document = window.document
        self.selection = window.selection
        self.log = log
        self.last_change = None
        # batch id -> (start, lines) of the encounter's saved d100 log it mirrors
        self._batches: dict[int, tuple[int, tuple]] = {}
        self._active = False
        self.document.changed.connect(self._on_document)
        self._reset()

    # -- state ---------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        """Whether the open encounter uses the d100 rules."""
        return self._active

    @property
    def encounter(self) -> Encounter:
        return self.document.committed

    def name(self, ident: str | None) -> str:
        return token_name(self.encounter, ident)

    def shown_token(self) -> str | None:
        """The token the body diagram shows: the first selected token, else the attacker."""
        enc = self.document.encounter
        ids = {t.id for t in enc.tokens}
        for i in self.selection.ids:
            if i in ids:
                return i
        a = self.selection.attacker
        return a if a in ids else None

    # -- acting --------------------------------------------------------------------------------
    def apply(self, action, dice=None):
        """Resolve ``action`` on the committed encounter with ``dice`` (default: the
        encounter's own, seeded or random), land it as one undo step and log it. Raises
        :class:`engine.errors.IllegalActionError` (nothing changes) when it is not legal."""
        enc = self.document.committed
        change = RULESET.apply(enc, action, dice)
        start = len(RULESET.settings(enc).log)
        self.document.commit(change.encounter, action_title(enc, action))
        self.last_change = change
        rnd = RULESET.settings(change.encounter).round or None
        batch = self.log.add([(ln.text, ln.kind) for ln in change.log], RULESET_NAME, round=rnd)
        self._batches[batch] = (start, tuple(change.log))
        self.applied.emit(change)
        return change

    # -- document ------------------------------------------------------------------------------
    def _on_document(self, change) -> None:
        if change.reset:
            self._reset()
            return
        if change.preview:
            return
        if (self.document.encounter.ruleset == RULESET_NAME) != self._active:
            self._reset()  # the ruleset itself was edited
            return
        self._sync_log()
        self.stateChanged.emit()

    def _reset(self) -> None:
        enc = self.document.encounter
        active = enc.ruleset == RULESET_NAME
        self._batches.clear()
        self.last_change = None
        self.log.clear(RULESET_NAME)
        if active:
            saved = RULESET.settings(enc).log
            if saved:
                batch = self.log.add([(ln.text, ln.kind) for ln in saved], RULESET_NAME, timestamp=None)
                self._batches[batch] = (0, tuple(saved))
        changed = active != self._active
        self._active = active
        self.log.want(RULESET_NAME, active)
        if changed:
            self.activeChanged.emit(active)
        self.stateChanged.emit()

    def _sync_log(self) -> None:
        """Strike through the batches whose lines left the encounter's saved log (undone),
        restore those back in it (redone)."""
        saved = RULESET.settings(self.document.encounter).log if self._active else ()
        for batch, (start, lines) in self._batches.items():
            live = tuple(saved[start:start + len(lines)]) == lines
            self.log.set_undone(batch, not live)
