"""Intercept (seed 000, "A character may spend an available Free Action to intercept an
opponent who attempts to move past him or break out of melee combat"; sr5-facts.md:
"Interception triggers when someone passes within 1 + reach metres (-5 Initiative)").

:func:`intercept_chances` answers, for a move along a path (the drag's corners, start to
end), which enemies may intercept it and where: an enemy (another ``side``) with an sr5 sheet
who is not surprised, can act, and has a Free Action left or the Initiative for the
interrupt (5), when the path

- **passes within reach** of it: the gap between the discs somewhere along the path is at
  most ``Options.melee_metres`` (1 m) + its reach (ready melee weapon, +1 troll), and the move
  does not end there (a move that ends within reach is an approach, not a passing:
  ``Options.intercept_on_approach`` counts it too); or
- **breaks out of melee**: it starts within that reach and ends beyond it.

The path is what counts: a drag that bends round an enemy's side is offered, a straight one
of the same length away from it is not. The GM answers an offer with an
``AttackDeclaration(intercept=True)`` (Free Action if one is left, else -5 Initiative).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.model import Encounter
from engine.names import token_name
from engine.sr5 import condition
from engine.sr5.changes import settings_of, sheet_of
from engine.sr5.economy import FREE, INTERRUPT, cost_reason

XY = tuple[float, float]
INTERCEPT_INITIATIVE = 5


@dataclass(frozen=True)
class InterceptChance:
    """``interceptor`` may intercept ``mover``: ``why`` ("passes within reach" / "breaks out
    of melee"), ``at`` the first point of the path within its reach (metres), ``reach_m`` the
    gap that triggers it, and the cost: ``cost`` free or interrupt (``initiative`` 5)."""

    interceptor: str
    mover: str
    why: str
    at: XY
    reach_m: float
    cost: str
    initiative: int

    def describe(self, encounter: Encounter) -> str:
        i, m = encounter.token(self.interceptor), encounter.token(self.mover)
        how = "a Free Action" if self.cost == FREE else f"-{self.initiative} Initiative"
        return (f"Intercept: {token_name(i)} may intercept {token_name(m)}, who {self.why} "
                f"at ({self.at[0]:.1f}, {self.at[1]:.1f}) ({how})")


def _gap_along(points: Sequence[XY], centre: XY) -> tuple[float, float, XY]:
    """(gap at start, least centre distance along the path, the nearest point)."""
    best, where = math.inf, points[0]
    for a, b in zip(points, points[1:]):
        ax, ay = a
        dx, dy = b[0] - ax, b[1] - ay
        L2 = dx * dx + dy * dy
        t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((centre[0] - ax) * dx + (centre[1] - ay) * dy) / L2))
        p = (ax + t * dx, ay + t * dy)
        d = math.dist(p, centre)
        if d < best - 1e-12:
            best, where = d, p
    return math.dist(points[0], centre), best, where


def _first_within(points: Sequence[XY], centre: XY, radius: float) -> XY:
    """The first point of the path at most ``radius`` from ``centre`` (the path reaches it)."""
    for a, b in zip(points, points[1:]):
        if math.dist(a, centre) <= radius + 1e-9:
            return a
        ax, ay = a
        dx, dy = b[0] - ax, b[1] - ay
        fx, fy = ax - centre[0], ay - centre[1]
        A = dx * dx + dy * dy
        if A == 0:
            continue
        B = 2 * (fx * dx + fy * dy)
        C = fx * fx + fy * fy - radius * radius
        disc = B * B - 4 * A * C
        if disc < 0:
            continue
        t = (-B - math.sqrt(disc)) / (2 * A)
        if 0.0 <= t <= 1.0:
            return (ax + t * dx, ay + t * dy)
    return points[-1]


def intercept_chances(encounter: Encounter, mover: str, path: Sequence[XY]) -> tuple[InterceptChance, ...]:
    """Who may intercept ``mover`` walking ``path`` (the points after its centre now, the last
    one the destination; see the module docstring), nearest along the path first."""
    from engine.sr5.attack import defender_reach

    st = settings_of(encounter)
    opts = st.options
    m = encounter.token(mover)
    pts: list[XY] = [(m.x, m.y)] + [(float(x), float(y)) for x, y in path]
    pts = [p for i, p in enumerate(pts) if i == 0 or math.dist(p, pts[i - 1]) > 1e-9]
    if len(pts) < 2:
        return ()
    out = []
    for e in encounter.tokens:
        if e.id == mover or e.side == m.side or e.hidden or e.rules.get("sr5") is None:
            continue
        sh = sheet_of(e)
        if "surprised" in sh.conditions or not condition.can_act(sh):
            continue
        if cost_reason(st, e.id, sh, FREE, names=encounter) is None:
            cost, ini = FREE, 0
        elif cost_reason(st, e.id, sh, INTERRUPT, INTERCEPT_INITIATIVE, names=encounter) is None:
            cost, ini = INTERRUPT, INTERCEPT_INITIATIVE
        else:
            continue
        reach = opts.melee_metres + defender_reach(e)
        centre = (e.x, e.y)
        radius = reach + e.radius + m.radius  # centre distance at which the gap is ``reach``
        start, least, _ = _gap_along(pts, centre)
        end = math.dist(pts[-1], centre)
        if start <= radius + 1e-9:
            if end > radius + 1e-9:
                out.append(InterceptChance(e.id, mover, "breaks out of melee", pts[0], reach, cost, ini))
            continue
        if least <= radius + 1e-9 and (end > radius + 1e-9 or opts.intercept_on_approach):
            at = _first_within(pts, centre, radius)
            out.append(InterceptChance(e.id, mover, "passes within reach", at, reach, cost, ini))

    def along(c: InterceptChance) -> float:
        walked = 0.0
        for a, b in zip(pts, pts[1:]):
            seg = math.dist(a, b)
            if math.dist(a, c.at) + math.dist(c.at, b) <= seg + 1e-6:
                return walked + math.dist(a, c.at)
            walked += seg
        return walked

    return tuple(sorted(out, key=along))
