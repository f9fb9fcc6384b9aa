"""The sr5 rules on one main window: acts through the door, Shadowrun's
``engine.rules.RuleSystem`` (``preview`` -> ``resolve`` one test at a time -> ``apply``), lands
each ``Outcome`` through the window's one commit path (:func:`gui.rules.base.land`: one undo
step), keeps the shared combat log in step with undo and redo, and answers the docks'
questions by asking the engine.

No rule here: every number comes from the ``RuleSystem`` and the reads of :mod:`engine.sr5`
(``facts``, ``suppressive``). The controller only hands the system the document's cached
``Tactics`` and the encounter's seeded roller.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine.model import Encounter
from engine.sr5 import suppressive
from engine.sr5 import initiative as sr5_initiative
from engine.sr5.changes import Change, settings_of
from engine.sr5.dice import default_roller
from engine.sr5.facts import MapFacts, facts_from_map
from engine.sr5.system import EndPhase, Forced, SR5Action, SR5Dice, SR5Plan, SR5Result, StartTurn
from gui.rules.base import RuleController, picked_targets, token_name

RULESET_NAME = "sr5"
#: Log entry kinds shown in the shared log's colours (gui.combat_log).
_KIND = {"turn": "round", "pass": "round", "initiative": "round", "attack": "hit", "suppression_test": "hit",
         "blast": "hit"}


def _log_lines(entries) -> list[tuple[str, str]]:
    """(text, kind) lines of sr5 log entries for the shared log: the entry, then each roll's
    pool, dice and hits indented (the same text ``initiative.log_text`` exports)."""
    out = []
    for e in entries:
        kind = _KIND.get(e.kind, "")
        if e.kind == "attack" and (": miss" in e.text or ": graze" in e.text):
            kind = "miss"
        if e.kind == "blast" and not e.rolls:
            kind = "miss"  # spared, beyond the blast's reach, caught in gas: no roll of its own
        head = f"[T{e.turn}.{e.initiative_pass}] " if e.turn else ""
        out.append((head + e.text, kind))
        if e.kind == "initiative":
            continue  # the line itself shows the dice and the score
        for r in e.rolls:
            parts = ", ".join(f"{lbl} {v:+d}" for lbl, v in r.parts)
            lim = f" [limit {r.limit}]" if r.limit is not None else ""
            dice = " ".join(str(d) for d in r.dice) or "-"
            out.append((f"    {r.label}: {parts} = {r.pool}{lim}; dice {dice}"
                        + (" (entered)" if r.entered else "") + f" -> {r.hits} hits"
                        + (" CRITICAL GLITCH" if r.critical_glitch else (" GLITCH" if r.glitch else "")), ""))
    return out


class Sr5Controller(RuleController):
    """Signals: ``activeChanged(bool)`` when an sr5 encounter is opened or left;
    ``applied(Change)`` after an action landed (its prompts are the GM's next steps);
    ``stateChanged()`` after any committed change of the encounter (edits, undo, redo, files)."""

    ruleset = RULESET_NAME

    def saved_log(self, encounter: Encounter):
        return settings_of(encounter).log

    def log_lines(self, entries, detail=None) -> list[tuple[str, str]]:
        return _log_lines(entries)

    # -- state ---------------------------------------------------------------------------------
    @property
    def settings(self):
        return settings_of(self.encounter)

    def token_ids(self) -> list[str]:
        return [t.id for t in self.encounter.tokens]

    def shown_token(self) -> str | None:
        """The token the tracker's action list is about: the first selected token, else the
        one whose Action Phase it is, else the attacker."""
        enc = self.encounter
        ids = {t.id for t in enc.tokens}
        for i in self.selection.ids:
            if i in ids:
                return i
        acting = settings_of(enc).acting
        if acting in ids:
            return acting
        a = self.selection.attacker
        return a if a in ids else None

    def picked_targets(self, attacker: str | None) -> list[str]:
        """Targets picked on the map (:func:`gui.rules.base.picked_targets`): the targeted
        tokens, else the selected ones other than the attacker, else the one looked at."""
        return picked_targets(self.selection, self.encounter, attacker)

    def roller(self):
        """The encounter's seeded roller (``Settings.seed`` and the log's length), so the same
        fight replays with the same dice; fresh randomness when the file has no seed."""
        return default_roller(self.settings)

    # -- map facts ------------------------------------------------------------------------------
    def facts(self, attacker: str, targets: Iterable[str], weapon: str | None = None) -> MapFacts:
        """The map's facts for ``attacker`` (distance, cover class, zones, melee contact), from
        the document's cached ``Tactics`` when it answers for the committed encounter."""
        enc = self.encounter
        return facts_from_map(enc, attacker, list(targets), weapon, settings_of(enc).options,
                              tactics=self.shared_tactics())

    def shared_tactics(self):
        """The document's ``Tactics`` (the one the map shows) when it answers for the
        committed encounter, else None. Hypothetical positions (a blast moved where it
        lands, sized to the grenade) are asked of ``engine.whatif.what_if``, which forks it
        and leaves it as it was: the GUI keeps no second Tactics."""
        doc = self.document
        if doc.tactics is None or doc.tactics_error or doc.encounter is not doc.committed:
            return None
        return doc.tactics

    def suppression_status(self) -> dict:
        """``engine.sr5.suppressive.suppression_status`` for the committed encounter: per
        token its penalty, the zones it must test against and those it is spared from."""
        enc = self.encounter
        if not settings_of(enc).suppressions:
            return {}
        shooter = settings_of(enc).suppressions[0].shooter
        return suppressive.suppression_status(enc, self.facts(shooter, []))

    # -- the door: preview, resolve, apply ---------------------------------------------------------
    def preview(self, action: SR5Action) -> SR5Plan:
        """The system's plan of ``action`` on the committed encounter, measured with the
        map's ``Tactics`` (``RuleSystem.preview``; raises when it cannot be planned)."""
        return self.system.preview(self.encounter, action, tactics=self.shared_tactics())

    def resolve(self, state: SR5Plan | SR5Result, dice: SR5Dice | None = None, steps: int | None = 1) -> SR5Result:
        """``state`` (a plan or the rolls so far) with ``steps`` more tests rolled with
        ``dice`` (a roller, typed faces; 0: none), a scattered blast measured where it landed
        (``RuleSystem.resolve``)."""
        return self.system.resolve(state, dice, steps=steps, tactics=self.shared_tactics())

    def act(self, action: SR5Action | SR5Result, dice: SR5Dice | None = None, *, force: bool = False) -> Change:
        """Apply ``action`` (or land a rolled result) through the door with ``dice`` (typed
        faces; None: the encounter's seeded roller): the ``Outcome`` lands as ONE undo step
        (``RuleController.land``) and its log lines go to the shared log. ``force``: the
        GM's word over the rules' objection. Returns the outcome's sr5 ``Change``; raises the
        engine's :class:`~engine.errors.IllegalActionError` (nothing changes) when refused."""
        outcome = self.system.apply(self.encounter, Forced(action) if force else action,
                                    dice if dice is not None else self.roller())
        return self.land(outcome, f"SR5: {outcome.label}")

    def start_turn(self, entered: Mapping[str, Sequence[int] | int] | None = None) -> Change:
        """Roll (the seeded roller) or take typed initiative: ``entered[id]`` is the faces of
        its initiative dice or a whole score."""
        change = self.act(StartTurn(dict(entered or {})))
        self.follow_acting()
        return change

    def end_phase(self) -> Change:
        change = self.act(EndPhase())
        self.follow_acting()
        return change

    def follow_acting(self) -> None:
        """The character whose Action Phase it is now becomes the attacker (its targets and
        the ruler's band are about it), unless the GM locked the attacker or an Action panel
        page is open (it keeps the attacker it was set up for); the selection and the
        targets picked stay."""
        enc = self.encounter
        acting = settings_of(enc).acting
        sel = self.selection
        if not acting or sel.attacker_locked or acting not in {t.id for t in enc.tokens} or sel.attacker == acting:
            return
        if getattr(getattr(self.window, "action_panel", None), "current", None) is not None:
            return  # (a page open in the Action panel keeps the attacker it was set up for)
        sel.set_attacker(acting)

    def log_text(self) -> str:
        """The encounter's sr5 combat log as text, each roll's pool breakdown below its line."""
        return sr5_initiative.log_text(self.encounter)


__all__ = ["RULESET_NAME", "Sr5Controller", "token_name"]
