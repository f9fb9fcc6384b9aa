"""The d100 rules on one main window: applies actions to the document (one undo step each),
keeps the combat log in step with undo and redo, and says which token the docks show.

No rule here: every answer is the d100 RuleSystem's (``find_system("d100")``).
"""

from __future__ import annotations

from engine.d100.actions import (
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
from engine.rules import find_system
from gui.rules.base import RuleController, token_name

RULESET_NAME = "d100"
#: the d100 RuleSystem, which is the rules (every module of this package asks it)
RULESET = find_system(RULESET_NAME)


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


class D100Controller(RuleController):
    """Signals: ``activeChanged(bool)`` when a d100 encounter is opened or left;
    ``applied(Change)`` after an action landed; ``stateChanged()`` after any change of the
    encounter shown (edits, undo, redo, files)."""

    ruleset = RULESET_NAME

    def saved_log(self, encounter: Encounter):
        return RULESET.settings(encounter).log

    def log_lines(self, entries, detail=None) -> list[tuple[str, str]]:
        return [(ln.text, ln.kind) for ln in entries]

    # -- state ---------------------------------------------------------------------------------
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
        return self.land(self.system.apply(enc, action, dice), action_title(enc, action))
