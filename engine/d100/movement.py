"""Movement in the d100 rules (seed 003): "general movement is free and does not cost
actions", except for a character who "may only crawl" (a leg at Acute or worse): during a
round it moves at most ``Settings.crawl_metres`` in the round; a drag past that is refused
with the reason (``Settings.crawl_refuses``; else it lands and the reason is noted).

Metres are the drag's path (its corners, start to end), not the straight distance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.d100.sheet import SEVERITIES
from engine.d100.values import lasting_of, settings_of, sheet_of
from engine.model import Encounter
from engine.names import token_name

EPS = 1e-6
LEGS = ("left_leg", "right_leg")


def crawl_leg(encounter: Encounter, token_id: str) -> str | None:
    """The leg that makes the token crawl (its worst one at Acute or beyond), or None."""
    s = sheet_of(encounter.token(token_id))
    if not lasting_of(s, settings_of(encounter)).crawl:
        return None
    legs = [(s.wound(leg).step, leg) for leg in LEGS if s.wound(leg).step >= SEVERITIES.index("acute")]
    return max(legs)[1] if legs else LEGS[0]


def crawl_left(encounter: Encounter, token_id: str) -> float | None:
    """Metres the token may still crawl this round; None when it moves freely (it does not
    crawl, or no round is running)."""
    st = settings_of(encounter)
    if st.round <= 0 or crawl_leg(encounter, token_id) is None:
        return None
    return max(0.0, st.crawl_metres - sheet_of(encounter.token(token_id)).moved)


def cost_words(encounter: Encounter, token_id: str, metres: float) -> str:
    """A crawler's metres this round ("crawling: 1.5 of 2.0 m left"); "" for a token that
    moves freely (no leg at Acute, or no round running)."""
    left = crawl_left(encounter, token_id)
    if left is None:
        return ""
    if metres <= left + EPS:
        return f"crawling: {metres:.1f} of {left:.1f} m left this round"
    return f"past the crawl: {metres:.1f} m, {left:.1f} m left this round"


def check_move(encounter: Encounter, token_id: str, metres: float) -> str | None:
    """None when the token may move ``metres`` more now; else the reason."""
    if not (isinstance(metres, (int, float)) and math.isfinite(metres) and metres >= 0):
        return f"a move of {metres!r} metres is not a distance"
    left = crawl_left(encounter, token_id)
    if left is None or metres <= left + EPS:
        return None
    t = encounter.token(token_id)
    s = sheet_of(t)
    leg = crawl_leg(encounter, token_id) or "leg"
    st = settings_of(encounter)
    return (f"{token_name(t)} may only crawl ({leg.replace('_', ' ')} {s.wound(leg).severity}): "
            f"{st.crawl_metres:g} m a round, {s.moved:.1f} m crawled; {metres:.1f} m more is too far")


def path_metres(start: tuple[float, float], path: Sequence[tuple[float, float]]) -> float:
    pts = [start, *path]
    return sum(math.dist(a, b) for a, b in zip(pts, pts[1:]))


def move(encounter: Encounter, moves: Sequence[tuple[str, Sequence[tuple[float, float]]]]
         ) -> tuple[Encounter, tuple[str, ...], tuple[str, ...]]:
    """Make ``moves`` (token id, path of corners ending at the destination): during a round
    each mover's metres are added to ``Sheet.moved``; a crawler's move past its crawl
    distance stays where it was (``crawl_refuses``) or lands noted. Returns the encounter,
    the GM's notes (reasons) and the log lines."""
    st = settings_of(encounter)
    notes: list[str] = []
    log: list[str] = []
    by_id = {t.id: t for t in encounter.tokens}
    for tid, path in moves:
        t = encounter.token(tid)
        if not path:
            continue
        metres = path_metres((t.x, t.y), path)
        why = check_move(encounter, tid, metres)
        if why and st.crawl_refuses:
            notes.append(f"refused: {why}")
            continue
        upd = {"x": float(path[-1][0]), "y": float(path[-1][1])}
        new = t.model_copy(update=upd)
        if st.round > 0:
            s = sheet_of(t)
            new = new.with_rules("d100", s.model_copy(update={"moved": s.moved + metres}))
            if crawl_leg(encounter, tid) is not None:
                log.append(f"{token_name(t)} crawls {metres:.1f} m")
        if why:
            notes.append(f"moved anyway: {why}")
        by_id[tid] = new
    tokens = tuple(by_id[t.id] for t in encounter.tokens)
    return encounter.model_copy(update={"tokens": tokens}), tuple(notes), tuple(log)
