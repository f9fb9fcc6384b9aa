"""A recorded fight told as a story: its pages (one per round, or one per action), each
action's log lines and line of fire, the damage each step dealt, and the totals per
character (hits, damage dealt and taken, rounds survived), for the after-action report
(gui/fight_report.py) and the replay's timeline (gui/replay.py). Qt-free; it reads the
record (engine/record.py) and asks the rule system only its public questions
(``condition_tracks``).

``players=True`` tells it for the players: tokens hidden from them (hidden now or at any
recorded step) are left out of the totals and their names (and ids) in the log lines read
"someone unseen".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from engine import record as _record
from engine.model import Encounter, Token

UNSEEN = "someone unseen"


@dataclass(frozen=True)
class Hurt:
    """What one step did to one token's damage track: ``taken`` boxes (points) more."""

    token: str
    track: str
    taken: int
    now: int
    size: int


@dataclass(frozen=True)
class Moment:
    """One stop of the story: step ``index`` of the record (the state after it is
    ``index + 1``), its lines, its shooter and targets with where they stood, what it hurt."""

    index: int
    kind: str
    round: int
    turn: str
    phase: str
    label: str
    log: tuple[str, ...]
    actor: str | None
    targets: tuple[str, ...]
    #: (target, shooter's point, target's point) in metres, where they stood when it was done
    fire: tuple[tuple[str, tuple[float, float], tuple[float, float]], ...]
    hurt: tuple[Hurt, ...]


@dataclass(frozen=True)
class Page:
    """One page: its ``title`` ("Round 2"), the moments on it and the state it draws (the
    record's state after ``upto`` steps)."""

    title: str
    round: int
    moments: tuple[Moment, ...]
    upto: int


@dataclass
class Totals:
    """One character's fight: ``hits`` (steps it hurt someone in, per target), damage
    ``dealt`` and ``taken`` (boxes or points), ``rounds`` recorded it ended standing."""

    token: str
    name: str
    side: str
    hits: int = 0
    dealt: int = 0
    taken: int = 0
    rounds: int = 0


@dataclass(frozen=True)
class Story:
    title: str
    ruleset: str
    pages: tuple[Page, ...]
    totals: tuple[Totals, ...]
    rounds: tuple[int, ...]
    players: bool
    hidden: frozenset[str] = field(default_factory=frozenset)


def _token(state: dict, tid: str) -> Token | None:
    data = state["tokens"].get(tid)
    return Token.model_validate(data) if data is not None else None


def _tracks(encounter: Encounter, token: Token | None) -> dict[str, tuple[int, int]]:
    if token is None:
        return {}
    enc = encounter.model_copy(update={"tokens": (token,), "record": None})
    return {t.label: (t.taken, t.size) for t in encounter.system.condition_tracks(enc, token.id)}


def _touched(step) -> set[str]:
    out = set()
    for op in step.patch:
        parts = op.get("path", "").split("/")
        if len(parts) > 2 and parts[1] == "tokens":
            out.add(parts[2].replace("~1", "/").replace("~0", "~"))
    return out


def _xy(state: dict, tid: str | None) -> tuple[float, float] | None:
    t = state["tokens"].get(tid) if tid is not None else None
    return (float(t["x"]), float(t["y"])) if t is not None else None


def tell(encounter: Encounter, *, per: Literal["round", "action"] = "round", players: bool = False) -> Story:
    """The story of ``encounter``'s recorded fight (raises :class:`engine.record.RecordError`
    when it has none)."""
    rec = encounter.record
    if rec is None or not rec.stops:
        raise _record.RecordError("this encounter has no recorded fight (its rule actions are recorded "
                                  "as they are applied in the window)")
    hidden: set[str] = {t.id for t in encounter.tokens if t.hidden}
    names: dict[str, str] = {}
    sides: dict[str, str] = {}
    moments: list[Moment] = []
    states = [_record.state_at(rec, 0)]
    standing_at_round_end: dict[int, set[str]] = {}
    for i, step in enumerate(rec.steps):
        before, after = states[-1], _record.apply(states[-1], step.patch)
        states.append(after)
        for tid, t in after["tokens"].items():
            names[tid] = t.get("name") or tid
            sides[tid] = t.get("side", "neutral")
            if t.get("hidden"):
                hidden.add(tid)
        if step.kind == "edit":
            continue
        hurt = []
        for tid in sorted(_touched(step)):
            was = _tracks(encounter, _token(before, tid))
            now = _tracks(encounter, _token(after, tid))
            for label, (taken, size) in now.items():
                more = taken - was.get(label, (0, size))[0]
                if more > 0:
                    hurt.append(Hurt(tid, label, more, taken, size))
        fire = []
        origin = _xy(before, step.actor)
        for target in step.targets:
            end = _xy(before, target)
            if origin is not None and end is not None and step.kind == "action":
                fire.append((target, origin, end))
        moments.append(Moment(i, step.kind, step.round, step.turn, step.phase, step.label, step.log, step.actor,
                              step.targets, tuple(fire), tuple(hurt)))
    # who stands at each round's end: no damage track full
    last_of_round: dict[int, int] = {}
    for i, step in enumerate(rec.steps):
        if step.kind != "edit":
            last_of_round[step.round] = i + 1
    for rnd, upto in last_of_round.items():
        standing = set()
        for tid in states[upto]["tokens"]:
            tracks = _tracks(encounter, _token(states[upto], tid))
            if all(taken < size for taken, size in tracks.values()):
                standing.add(tid)
        standing_at_round_end[rnd] = standing
    totals: dict[str, Totals] = {}

    def tot(tid: str) -> Totals:
        if tid not in totals:
            totals[tid] = Totals(tid, names.get(tid, tid), sides.get(tid, "neutral"))
        return totals[tid]

    for m in moments:
        for h in m.hurt:
            tot(h.token).taken += h.taken
            if m.actor is not None and m.actor != h.token:
                tot(m.actor).dealt += h.taken
        for target in {h.token for h in m.hurt}:
            if m.actor is not None and m.actor != target:
                tot(m.actor).hits += 1
    for rnd, standing in standing_at_round_end.items():
        if rnd <= 0:
            continue
        for tid in standing:
            tot(tid).rounds += 1
    for tid in names:
        tot(tid)
    if players:
        moments = [_redacted(m, hidden, names) for m in moments]
        for tid in hidden:
            totals.pop(tid, None)
    pages: list[Page] = []
    if per == "action":
        for m in moments:
            pages.append(Page(f"Round {m.round}" if m.round else "Before the fight", m.round, (m,), m.index + 1))
    else:
        by_round: dict[int, list[Moment]] = {}
        for m in moments:
            by_round.setdefault(m.round, []).append(m)
        for rnd in sorted(by_round):
            ms = by_round[rnd]
            pages.append(Page(f"Round {rnd}" if rnd else "Before the fight", rnd, tuple(ms), ms[-1].index + 1))
    order = [t.id for t in encounter.tokens]
    ranked = sorted(totals.values(), key=lambda t: (order.index(t.token) if t.token in order else len(order), t.token))
    return Story(encounter.name, encounter.ruleset, tuple(pages), tuple(ranked),
                 tuple(sorted(r for r in last_of_round if r > 0)), players, frozenset(hidden))


def _redacted(m: Moment, hidden: set[str], names: dict[str, str]) -> Moment:
    words = sorted({names.get(t, t) for t in hidden} | hidden, key=len, reverse=True)
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in words if w) + r")(?!\w)") if words else None

    def clean(text: str) -> str:
        return pattern.sub(UNSEEN, text) if pattern is not None else text

    fire = () if m.actor in hidden else tuple(f for f in m.fire if f[0] not in hidden)
    return Moment(m.index, m.kind, m.round, m.turn, m.phase, clean(m.label), tuple(clean(x) for x in m.log),
                  None if m.actor in hidden else m.actor, tuple(t for t in m.targets if t not in hidden), fire,
                  tuple(h for h in m.hurt if h.token not in hidden))


def state_encounter(encounter: Encounter, upto: int) -> Encounter:
    """The encounter as the story's page ``upto`` draws it (:func:`engine.record.encounter_at`)."""
    return _record.encounter_at(encounter, upto)


__all__ = ["UNSEEN", "Hurt", "Moment", "Page", "Story", "Totals", "state_encounter", "tell"]
