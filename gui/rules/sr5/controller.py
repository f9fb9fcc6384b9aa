"""The sr5 rules on one main window: applies the engine's actions to the document (one undo
step each), keeps the shared combat log in step with undo and redo, and answers the docks'
questions by asking the engine.

No rule here: every number comes from :mod:`engine.sr5` (``combat``, ``attack``,
``suppressive``, ``condition``, ``facts``). The controller only fetches map facts with the
document's cached ``Tactics``, hands out the seeded roller, and commits ``(new_encounter,
change)`` pairs with :meth:`gui.document.EncounterDocument.commit`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from engine.model import Encounter
from engine.sr5 import attack as sr5_attack
from engine.sr5 import blast as sr5_blast
from engine.sr5 import combat, condition, suppressive
from engine.sr5.changes import Change, settings_of, sheet_of
from engine.sr5.dice import default_roller
from engine.sr5.facts import MapFacts, facts_from_map
from gui.rules.base import RuleController, picked_targets, token_name

RULESET_NAME = "sr5"
#: Log entry kinds shown in the shared log's colours (gui.combat_log).
_KIND = {"turn": "round", "pass": "round", "initiative": "round", "attack": "hit", "suppression_test": "hit",
         "blast": "hit"}


def _log_lines(entries) -> list[tuple[str, str]]:
    """(text, kind) lines of sr5 log entries for the shared log: the entry, then each roll's
    pool, dice and hits indented (the same text ``combat.log_text`` exports)."""
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
    last_change: Change | None

    def saved_log(self, encounter: Encounter):
        return settings_of(encounter).log

    def log_lines(self, entries) -> list[tuple[str, str]]:
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

    def monitor(self, ident: str):
        """``engine.sr5.condition.Monitor`` of a token (its sheet, or the default one)."""
        return condition.monitor(sheet_of(self.encounter.token(ident)), self.settings.options)

    # -- map facts ------------------------------------------------------------------------------
    def facts(self, attacker: str, targets: Iterable[str], weapon: str | None = None) -> MapFacts:
        """The map's facts for an attack (distance, cover class, zones, melee contact), from
        the document's cached ``Tactics`` when it matches the committed encounter."""
        enc = self.encounter
        if weapon is not None and enc.token(attacker).weapon(weapon) is None:
            weapon = None  # "Unarmed" (the rules' own weapon): the map measures with no weapon
        tactics = self.document.tactics if self.document.encounter is enc and not self.document.tactics_error else None
        return facts_from_map(enc, attacker, list(targets), weapon, settings_of(enc).options, tactics=tactics)

    def plan_attack(self, decl: sr5_attack.AttackDeclaration) -> sr5_attack.AttackPlan:
        """The engine's plan of ``decl`` with the map's facts filled in."""
        f = self.facts(decl.attacker, decl.targets, decl.weapon)
        return sr5_attack.plan_attack(self.encounter, decl, f)

    def plan_suppressive(self, decl: suppressive.SuppressiveDeclaration) -> suppressive.SuppressivePlan:
        f = self.facts(decl.shooter, [], decl.weapon)
        return suppressive.plan_suppressive(self.encounter, decl, f)

    def shared_tactics(self):
        """The document's ``Tactics`` (the one the map shows) when it answers for the
        committed encounter, else None. Hypothetical positions (a blast moved where it
        lands, sized to the grenade) are asked of ``engine.whatif.what_if``, which forks it
        and leaves it as it was: the GUI keeps no second Tactics."""
        doc = self.document
        if doc.tactics is None or doc.tactics_error or doc.encounter is not doc.committed:
            return None
        return doc.tactics

    def plan_blast(self, decl: sr5_blast.BlastDeclaration) -> sr5_blast.BlastPlan:
        """The engine's plan of a grenade thrown (or fired) at a blast zone, measured on the
        map (``engine.sr5.blast.plan_blast_on_map``)."""
        return sr5_blast.plan_blast_on_map(self.encounter, decl, tactics=self.shared_tactics())

    def land_blast(self, resolution: sr5_blast.BlastResolution) -> sr5_blast.BlastResolution:
        """A scattered blast with the map's facts where it landed (who is caught there)."""
        return resolution.land(sr5_blast.landing_facts(self.encounter, resolution, tactics=self.shared_tactics()))

    def apply_blast(self, resolution: sr5_blast.BlastResolution, *, force: bool = False) -> Change:
        return self.apply(lambda e: sr5_blast.apply_blast(e, resolution, force=force))

    def suppression_status(self) -> dict:
        """``engine.sr5.suppressive.suppression_status`` for the committed encounter: per
        token its penalty, the zones it must test against and those it is spared from."""
        enc = self.encounter
        if not settings_of(enc).suppressions:
            return {}
        shooter = settings_of(enc).suppressions[0].shooter
        return suppressive.suppression_status(enc, self.facts(shooter, []))

    # -- acting ----------------------------------------------------------------------------------
    def apply(self, fn: Callable[[Encounter], tuple[Encounter, Change]], title: str | None = None) -> Change:
        """Run ``fn(committed_encounter) -> (new, change)`` (an engine ``apply_*``), land the
        result as ONE undo step and log it. Raises the engine's
        :class:`~engine.errors.IllegalActionError` (nothing changes) when it refuses."""
        enc = self.encounter
        new, change = fn(enc)
        start = len(settings_of(enc).log)
        self.document.commit(new, f"SR5: {title or change.label}")
        self.last_change = change
        self.record_log(start, new)
        self.applied.emit(change)
        return change

    def record_log(self, start: int, encounter: Encounter) -> None:
        """Mirror the sr5 log entries of ``encounter`` from index ``start`` on into the shared
        combat log, as one batch that undo strikes through."""
        entries = tuple(settings_of(encounter).log[start:])
        if entries:
            self.add_log(start, entries, round=settings_of(encounter).turn or None)

    def start_turn(self, entered: Mapping[str, Sequence[int] | int] | None = None) -> Change:
        """Roll (the seeded roller) or take typed initiative: ``entered[id]`` is the faces of
        its initiative dice or a whole score."""
        change = self.apply(lambda e: combat.start_turn(e, self.roller(), entered=entered or {}))
        self.follow_acting()
        return change

    def end_phase(self) -> Change:
        change = self.apply(combat.end_phase)
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
        window = getattr(self, "window", None)
        panel = getattr(window, "action_panel", None) if window is not None else None
        if getattr(panel, "current", None) is not None:
            return  # (a page open in the Action panel keeps the attacker it was set up for)
        sel.set_attacker(acting)

    def do_action(self, action: combat.Action, dice=None, *, force: bool = False) -> Change:
        """A non-attack action (Take Aim, Full Defense, Hit the Dirt ...); its test, if any,
        rolls ``dice`` (typed faces) or the seeded roller."""
        return self.apply(lambda e: combat.apply_action(e, action, dice if dice is not None else self.roller(),
                                                        force=force))

    def apply_attack(self, resolution: sr5_attack.AttackResolution, *, force: bool = False) -> Change:
        return self.apply(lambda e: sr5_attack.apply_attack(e, resolution, force=force))

    def apply_suppressive(self, plan: suppressive.SuppressivePlan, dice=None, *, force: bool = False) -> Change:
        return self.apply(lambda e: suppressive.apply_suppressive(e, plan, dice if dice is not None else self.roller(),
                                                                  force=force))

    def apply_suppression_test(self, resolution: suppressive.SuppressionTestResolution) -> Change:
        return self.apply(lambda e: suppressive.apply_suppression_test(e, resolution))

    def log_text(self) -> str:
        """The encounter's sr5 combat log as text, each roll's pool breakdown below its line."""
        return combat.log_text(self.encounter)


__all__ = ["RULESET_NAME", "Sr5Controller", "token_name"]
