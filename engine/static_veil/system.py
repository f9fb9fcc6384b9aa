"""Static Veil (seed 004): its :class:`~engine.rules.RuleSystem` (``"static-veil"``), which
*is* the rules (a python-chess variant is the ``Board``): combat maneuvers priced in action
points.

Like python-chess's ``is_legal()`` and ``push()``, checking is apart from changing:
``actions`` lists what a character may do now (the maneuver picker, each with its AP cost and,
when refused, why: ``available_maneuvers``); ``why_not``; ``preview`` answers, changing
nothing, what a maneuver would cost and do on the map (the charge path and run-up, where a
shove would leave the target for each number of net hits, where a moved grapple goes, the
tests it needs; a :class:`Move`'s way around obstacles and bodies: ``plan_move``); ``apply``
lands it as an :class:`~engine.rules.Outcome` whose ``detail`` is the Static Veil
:class:`~engine.static_veil.values.Change` (the document keeps one undo step per maneuver).

Its actions are the maneuvers of :mod:`engine.static_veil.actions` (``Shove``, ``Charge``,
``Grapple`` ...) carrying the GM's test outcomes, plus :class:`StartTurn` / :class:`Move` /
:class:`EndTurn` below. Tests are entered by the GM (``Settings.dice == "gm"``) or rolled by
the seeded d100 model (``"d100"``: :mod:`engine.static_veil.dice`, docs/static-veil.md);
``dice`` for :meth:`apply` is None or a mapping of a maneuver's outcome fields
(``{"outcome": Opposed(True, 2)}``) put into it.

One module an idea: :mod:`~engine.static_veil.values` (what the rules answer),
:mod:`~engine.static_veil.legality` (checking and planning), :mod:`~engine.static_veil.resolution`
(applying), :mod:`~engine.static_veil.turns` (states, turns, normal moves): the bases of
:class:`StaticVeil`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Union

from engine import rules
from engine.errors import CoverfireError, IllegalActionError
from engine.model import Encounter
from engine.names import token_name
from engine.static_veil.actions import ACTION_BY_KEY, ManeuverBase
from engine.static_veil.dice import Attack, Check, Opposed
from engine.static_veil.legality import Legality
from engine.static_veil.resolution import Resolution
from engine.static_veil.sheet import Settings, Sheet
from engine.static_veil.turns import Turns, move_words
from engine.static_veil.values import Change, Preview

#: Static Veil's typed values: a maneuver or a step of the turn; the GM's test outcomes.
VeilAction = Union[ManeuverBase, "StartTurn", "Move", "EndTurn"]
VeilDice = Mapping[str, object]


@dataclass(frozen=True)
class StartTurn:
    """Begin ``actor``'s turn (AP and Movement full again); ``new_round`` counts up."""

    actor: str
    new_round: bool = False
    key = "start_turn"
    label = "Start turn"


@dataclass(frozen=True)
class Move:
    """A normal move of ``actor`` to centre ``to`` (metres): preview plans the way around
    obstacles and bodies (``plan_move``); apply walks ``path`` when given (the
    previewed way), else the planned one, and spends its length of Movement."""

    actor: str
    to: tuple[float, float]
    path: tuple[tuple[float, float], ...] | None = None
    key = "move"
    label = "Move"


@dataclass(frozen=True)
class EndTurn:
    """End ``actor``'s turn (Distracted counts down)."""

    actor: str
    key = "end_turn"
    label = "End turn"


class StaticVeil(Legality, Resolution, Turns, rules.RuleSystem[VeilAction, Preview, VeilDice, VeilAction, Change]):
    """The ``static-veil`` rule system (outcomes travel in the action: it resolves in ``apply``)."""

    name = "static-veil"
    label = "Static Veil"
    Sheet = Sheet
    Settings = Settings
    legacy_key = "static_veil"
    uses_range_bands = False

    # -- movement ----------------------------------------------------------------------------
    def movement(self, encounter, token_id):
        """The token's Movement per turn (its sheet's ``movement``) and what is left of it;
        None without a sheet."""
        s = encounter.token(token_id).rules.get(self.name)
        if s is None:
            return None
        return rules.Movement(walk=float(s.movement), run=float(s.movement), left=float(s.movement_left))

    def move_cost(self, encounter, token_id, metres):
        """The metres of Movement a move spends in the token's turn (``turns.move_words``)."""
        return move_words(encounter, token_id, metres)

    def on_moves(self, encounter, moves):
        """Make the moves; while a turn runs each mover with a sheet walks the way
        :meth:`plan_move` finds and spends its length of Movement. A move the rules refuse
        lands with nothing spent, the reason in the notes. Every token ends where it was put."""
        if self.settings(encounter).active is None:
            return rules.Outcome.of(encounter, rules.move_tokens(encounter, moves), rules.moves_label(encounter, moves))
        enc = encounter
        notes: list[str] = []
        log: list[str] = []
        details = []
        for m in moves:
            t = enc.token(m.token)
            dest = (float(m.to[0]), float(m.to[1]))
            name = token_name(t)
            if t.rules.get(self.name) is not None and (t.x, t.y) != dest:
                plan = self.plan_move(enc, m.token, dest)
                if plan.allowed:
                    try:
                        res = self._walk(enc, m.token, plan.path)
                    except CoverfireError as exc:
                        notes.append(f"{name}: no Movement spent \u2014 {exc}")
                    else:
                        details.append((enc, res.change))
                        enc = res.encounter
                        log += [e.text for e in res.change.log]
                        notes.append(res.change.summary or f"{name} moves {plan.movement_cost:.1f} m")
                else:
                    notes.append(f"{name}: no Movement spent \u2014 {plan.reason}")
            t = enc.token(m.token)
            if (t.x, t.y) != dest:
                enc = rules.move_tokens(enc, [rules.MoveTo(m.token, dest)])
        return rules.Outcome.of(encounter, enc, rules.moves_label(encounter, moves), log=log, notes=notes,
                                detail=tuple(details))

    # -- actions -----------------------------------------------------------------------------
    def actions(self, encounter, actor, target=None):
        """The maneuver picker (:meth:`available_maneuvers`): every maneuver with its
        reason when refused; targeted ones against ``target`` when given."""
        out = [rules.Option(StartTurn.key, StartTurn.label, None, StartTurn(actor)),
               rules.Option(EndTurn.key, EndTurn.label, None, EndTurn(actor))]
        for o in self.available_maneuvers(encounter, actor, target):
            # allowed but for a target still to choose: not yet open, with the picker's hint
            reason = o.reason if o.reason else (None if o.allowed else "not now")
            out.append(rules.Option(o.key, f"{o.label} ({o.ap_cost} AP)", reason, detail=o))
        return out

    def why_not(self, encounter: Encounter, action: VeilAction) -> str | None:
        if isinstance(action, (StartTurn, EndTurn)):
            try:
                encounter.token(action.actor)
            except CoverfireError as exc:
                return str(exc)
            return None
        return super().why_not(encounter, action)

    def preview(self, encounter: Encounter, action: VeilAction, *, tactics=None) -> Preview:
        if isinstance(action, Move):
            return self.plan_move(encounter, action.actor, action.to)
        return super().preview(encounter, action)

    def apply(self, encounter: Encounter, action: VeilAction, dice: VeilDice | None = None) -> rules.Outcome[Change]:
        if isinstance(dice, Mapping):
            action = dataclasses.replace(action, **dice)
        elif dice is not None:
            raise IllegalActionError("Static Veil takes the tests' outcomes in the maneuver (or a mapping of them)")
        if isinstance(action, StartTurn):
            res = self._start_turn(encounter, action.actor, action.new_round)
        elif isinstance(action, EndTurn):
            res = self._end_turn(encounter, action.actor)
        elif isinstance(action, Move):
            path = action.path or self.plan_move(encounter, action.actor, action.to).path
            res = self._walk(encounter, action.actor, path or (action.to,))
        else:
            res = self._maneuver(encounter, action)
        return rules.Outcome.of(encounter, res.encounter, res.change.label, log=[e.text for e in res.change.log],
                                detail=res.change)

    # -- JSON forms --------------------------------------------------------------------------
    def action_from_data(self, data) -> VeilAction:
        """``{"kind": K, ...fields}`` with ``K`` a maneuver key (``shove``, ``charge`` ...),
        ``start_turn`` or ``end_turn``; ``outcome`` {won, net_hits}, ``attack`` {hit,
        net_hits, damage} and ``resist`` {passed} are the GM's test entries."""
        kw = dict(data)
        kind = kw.pop("kind")
        if kind == StartTurn.key:
            return StartTurn(**kw)
        if kind == EndTurn.key:
            return EndTurn(**kw)
        if kind not in ACTION_BY_KEY:
            raise IllegalActionError(f"Static Veil has no maneuver {kind!r}; known: {', '.join(ACTION_BY_KEY)}")
        make = {"outcome": lambda v: Opposed(**v), "attack": lambda v: Attack(**v), "resist": lambda v: Check(**v),
                "to": lambda v: (float(v[0]), float(v[1])),
                "modifiers": lambda v: tuple((str(a), int(b)) for a, b in v)}
        return ACTION_BY_KEY[kind](**{k: make[k](v) if k in make and v is not None else v for k, v in kw.items()})

    # -- status ------------------------------------------------------------------------------
    def token_status(self, encounter, token_id):
        """The map's state labels ("Prone", "Grappling Vex", ...), and AP and Movement left
        during the token's turn."""
        out = list(self.states(encounter, token_id))
        s = self.sheet(encounter.token(token_id))
        if self.settings(encounter).active == token_id:
            out.append(f"{s.ap} AP, {s.movement_left:.1f} m left")
        return tuple(out)

    def round_status(self, encounter):
        """"Round R" once the fight has begun (a turn running or a log entry)."""
        s = encounter.rules.get(self.name)
        if s is None or not (s.log or s.active):
            return ""
        return f"Round {s.round}"

    def current_turn(self, encounter):
        """The token whose turn it is (``Settings.active``) and "round R" once the fight has
        begun; None before."""
        s = encounter.rules.get(self.name)
        if s is None or not (s.log or s.active):
            return None
        return rules.Turn(s.active, f"round {s.round}")

    def round_number(self, encounter):
        """The round once the fight has begun (as :meth:`round_status`), else 0."""
        s = encounter.rules.get(self.name)
        return s.round if s is not None and (s.log or s.active) else 0


SYSTEM = rules.register(StaticVeil())

__all__ = ["SYSTEM", "EndTurn", "Move", "StartTurn", "StaticVeil"]
