"""The d100 hit-location system (seed 003): its :class:`~engine.rules.RuleSystem`
(``"d100"``), which *is* the rules, as a python-chess variant is the ``Board``.

Check, then apply (``is_legal`` / ``push``): :meth:`~engine.d100.legality.Legality.why_not`
answers None or the reason; ``preview`` gives every chance with each modifier and its source,
the placed-shot threshold, the hidden locations and the cover value, before any die;
``apply`` resolves the action with a dice source (:mod:`engine.d100.dice`: ``EnteredDice``,
``SeededDice``; None: the encounter's seed) into an :class:`~engine.rules.Outcome` whose
``detail`` is the d100 :class:`~engine.d100.values.Change` (every die, every shot through cover
and armour, severity steps and their effects, the before/after values of what it touched).
Its actions are the values of :mod:`engine.d100.actions` (``Fire``, ``Aim``, ``ChangeStance``,
``StartRound`` ...). The checking half is :mod:`engine.d100.legality`, the applying half
:mod:`engine.d100.resolution`; tables and pure helpers :mod:`engine.d100.values`.
d100 sets no movement limit of its own but a crawler's.
"""

from __future__ import annotations

from engine import rules
from engine.d100.actions import (
    ACTIONS, Action, Aim, ChangeStance, EndTurn, Fire, FireTwoPistols, Melee, Recover, RestWeapon, StartRound,
    TargetSpec,
)
from engine.d100.dice import Dice, ScriptedDice
from engine.d100.legality import Legality
from engine.d100.movement import cost_words, crawl_left, move
from engine.d100.resolution import Resolution
from engine.d100.sheet import LOCATIONS, SEVERITIES, STANCES, Settings, Sheet
from engine.d100.values import Change, Preview
from engine.errors import IllegalActionError


class D100(Legality, Resolution, rules.RuleSystem[Action, Preview, Dice, Action, Change]):  # (rolls inside apply)
    """The ``d100`` rule system (seed 003). Stateless: every call takes the encounter."""

    name = "d100"
    label = "d100 hit locations"
    Sheet = Sheet
    Settings = Settings
    legacy_key = "d100"
    uses_range_bands = False
    stances = STANCES
    locations = LOCATIONS
    severities = SEVERITIES

    def movement(self, encounter, token_id):
        """No limit, except a crawler's (a leg at Acute) during a round: ``crawl_metres``
        a round (``engine.d100.movement``)."""
        left = crawl_left(encounter, token_id)
        if left is None:
            return None
        crawl = self.settings(encounter).crawl_metres
        return rules.Movement(walk=crawl, run=crawl, left=left)

    def move_cost(self, encounter, token_id, metres):
        """A crawler's metres this round (``movement.cost_words``)."""
        return cost_words(encounter, token_id, metres)

    def on_moves(self, encounter, moves):
        """Make the moves; during a round count each mover's metres along its path, and
        refuse a crawler's drag past its crawl distance with the reason in the notes
        (``engine.d100.movement.move``)."""
        after, notes, log = move(encounter, [(m.token, (*(m.path or ()), m.to)) for m in moves])
        return rules.Outcome.of(encounter, after, rules.moves_label(encounter, moves), log=log, notes=notes)

    def actions(self, encounter, actor, target=None):
        """Every d100 action for ``actor`` (against ``target`` where one is needed), each
        with None or the rules' reason it is refused now (``why_not``)."""
        encounter.token(actor)
        if target is not None:
            encounter.token(target)
        stance = self.sheet(encounter.token(actor)).stance
        probes = [
            StartRound(), EndTurn(actor), ChangeStance(actor, stance), RestWeapon(actor),
            Recover(actor),
        ]
        targeted = [Aim, Fire, FireTwoPistols, Melee]
        out = []
        for a in probes:
            why = self.why_not(encounter, a)
            if isinstance(a, ChangeStance) and why is not None and "already" in why:
                why = None  # another stance is open: the probe asked for the one it has
            out.append(rules.Option(a.key, a.label, why, a if why is None and not isinstance(a, ChangeStance) else None))
        for cls in targeted:
            if target is None:
                out.append(rules.Option(cls.key, cls.label, "choose a target on the map"))
                continue
            spec = TargetSpec(target)
            a = {Aim: lambda: Aim(actor, target), Fire: lambda: Fire(actor, (spec,)),
                 FireTwoPistols: lambda: FireTwoPistols(actor, spec), Melee: lambda: Melee(actor, spec)}[cls]()
            why = self.why_not(encounter, a)
            out.append(rules.Option(cls.key, cls.label, why, a if why is None else None))
        return out

    def action_from_data(self, data) -> Action:
        """``{"kind": K, ...fields}`` with ``K`` an action key of :mod:`engine.d100.actions`
        (``fire``, ``aim``, ``change_stance`` ...); a target is an id or a
        :class:`~engine.d100.actions.TargetSpec` object."""
        def target(v):
            if v is None or isinstance(v, str):
                return TargetSpec(v) if v else None
            v = dict(v)
            for k in ("hidden", "modifiers"):
                if k in v and v[k] is not None:
                    v[k] = tuple(tuple(m) if isinstance(m, list) else m for m in v[k])
            return TargetSpec(**v)

        spec = dict(data)
        kind = spec.pop("kind")
        by_key = {cls.key: cls for cls in ACTIONS}
        if kind not in by_key:
            raise IllegalActionError(f"d100 has no action kind {kind!r}; known: {', '.join(sorted(by_key))}")
        cls = by_key[kind]
        if "targets" in spec:
            spec["targets"] = tuple(target(t) for t in spec["targets"])
        for k in ("target", "off_target"):
            if k in spec and cls.__name__ in ("Melee", "FireTwoPistols"):
                spec[k] = target(spec[k])
        if "modifiers" in spec:
            spec["modifiers"] = tuple(tuple(m) for m in spec["modifiers"])
        return cls(**spec)

    def dice_from_data(self, data) -> Dice:
        """A list of die results is used in order (``ScriptedDice``), each exactly once."""
        return ScriptedDice(list(data)) if isinstance(data, list) else data

    def token_status(self, encounter, token_id):
        """Injury, bleeding, actions left in a round, the lasting effects of wounds."""
        st = self.status(encounter, token_id)
        s = self.sheet(encounter.token(token_id))
        out = [f"Injury {s.injury}"]
        if st.bleeding:
            out.append(f"Bleeding {st.bleeding}")
        if self.settings(encounter).round > 0 and s.actions_left is not None:
            out.append(f"Actions {s.actions_left}/{st.actions_per_round}")
        if st.stunned:
            out.append("Stunned")
        if st.crawl:
            out.append("May only crawl")
        if st.useless_arms:
            out.append("Useless: " + ", ".join(st.useless_arms))
        if not st.can_act and st.reason:
            out.append(st.reason)
        return tuple(out)

    def ready_weapon(self, encounter, token):
        """The weapon in hand, as the attack page fires it: the first held one (main hand,
        then off hand) that is no melee weapon, else the first held one; the token's weapon
        of that name (its ranges). Nothing held, or no sheet: the first weapon."""
        s = token.rules.get(self.name)
        if s is not None:
            held = [n for n in (s.weapon, s.offhand) if n is not None and token.weapon(n) is not None]
            ranged = [n for n in held if not getattr(s.weapon_named(n), "melee", False)]
            for name in ranged + held:
                return token.weapon(name)
        return super().ready_weapon(encounter, token)

    def condition_tracks(self, encounter, token_id):
        """The injury total out of ``max_injury``."""
        s = encounter.token(token_id).rules.get(self.name)
        if s is None:
            return ()
        return (rules.Track("Injury", min(s.injury, s.max_injury), s.max_injury),)

    def round_status(self, encounter):
        """"Round R" while rounds run; empty before the first."""
        s = encounter.rules.get(self.name)
        return f"Round {s.round}" if s is not None and s.round > 0 else ""

    def current_turn(self, encounter):
        """"round R" while rounds run (d100 tracks no acting token); None before the first."""
        s = encounter.rules.get(self.name)
        return rules.Turn(None, f"round {s.round}") if s is not None and s.round > 0 else None

    def round_number(self, encounter):
        s = encounter.rules.get(self.name)
        return max(0, s.round) if s is not None else 0


SYSTEM = rules.register(D100())
