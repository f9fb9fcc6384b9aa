"""Movement values and the checks of their inputs: the results a path, charge, shove or
grapple returns (metres), the defaults every part of :mod:`geometry.nav` shares, and small
polyline helpers."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from geometry.errors import InvalidInputError

XY = tuple[float, float]

#: Corners of the polygon that stands in for a round body (drawn around the circle).
SIDES = 8
#: Metres: a body may touch a wall or another body; overlapping by more than this blocks it.
TOUCH = 1e-4
#: Candidate corner pairs a static graph may examine before edges get a length limit.
PAIR_BUDGET = 400_000
#: In a length-limited graph a start or goal looks for corners as far as a corner there looks
#: through its narrow tangent wedges (all round, so ~4x the candidates), times this.
START_REACH = 1.0
#: Charge plans by the same mover (position, radius, bodies) planned as single searches before
#: a shared shortest-path tree is kept for the rest (worth it when many targets are asked).
TREE_AFTER = 3


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class PathResult:
    """A path for a body's centre: ``points`` from start to goal (metres) and its ``length``."""

    points: tuple[XY, ...]
    length: float


@dataclass(frozen=True)
class ChargePlan:
    """How a body charges another: the shortest movement that ends in melee contact and whose
    last leg runs straight at the target for at least the run-up.

    ``path`` runs from the mover's centre to ``contact`` (the mover's centre when it arrives,
    ``r1 + r2 + reach`` metres from the target's centre); ``runup_start`` is where the final
    straight leg begins (``path[-2]``), at least the run-up away from ``contact``;
    ``movement`` is the path's length in metres. When no charge is possible, ``possible`` is
    False, ``reason`` says why in a sentence, and the other fields are empty/None."""

    possible: bool
    path: tuple[XY, ...]
    movement: float | None
    runup_start: XY | None
    contact: XY | None
    reason: str | None


@dataclass(frozen=True)
class SlideResult:
    """Where a body pushed in a straight line stops.

    ``end`` is its centre (metres), ``travelled`` how far it moved, ``stopped_by`` what
    stopped it short (the obstacle's id -- or ``"obstacle #i"`` -- , the body's id -- or
    ``"body #j"`` -- , or ``"map edge"``; None when it went the whole way).
    ``stopped_kind`` is ``"obstacle"``, ``"body"``, ``"edge"`` or None and ``stopped_index``
    the obstacle's or body's index in the lists given. Unpacks as
    ``end, travelled, stopped_by = slide(...)``."""

    end: XY
    travelled: float
    stopped_by: str | None
    stopped_kind: str | None = None
    stopped_index: int | None = None

    def __iter__(self) -> Iterator:
        return iter((self.end, self.travelled, self.stopped_by))


@dataclass(frozen=True)
class DragResult:
    """A grapple moved: the mover walks ``mover_path`` (its ``length`` metres) and drags the
    other body along ``other_path``; both end at ``mover_end`` and ``other_end``."""

    mover_path: tuple[XY, ...]
    other_path: tuple[XY, ...]
    mover_end: XY
    other_end: XY
    length: float


# --------------------------------------------------------------------------- input checks


def check_point(p, role: str) -> XY:
    try:
        x, y = (float(v) for v in p)
    except (TypeError, ValueError):
        raise InvalidInputError(f"the {role} point must be two numbers (x, y), got {p!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise InvalidInputError(f"the {role} point ({x}, {y}) is not finite")
    return (x, y)


def check_positive(v, what: str, allow_zero: bool = False) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{what} must be a number, got {v!r}") from None
    if not math.isfinite(f) or f < 0 or (f == 0 and not allow_zero):
        need = "zero or more" if allow_zero else "more than zero"
        raise InvalidInputError(f"{what} must be a finite number {need}, got {v!r}")
    return f


def disc_array(discs) -> np.ndarray:
    if discs is None:
        return np.zeros((0, 3))
    try:
        a = np.asarray(discs, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError("discs must be an (m, 3) array of (x, y, radius) rows") from None
    if a.size == 0:
        return np.zeros((0, 3))
    if a.ndim != 2 or a.shape[1] != 3:
        raise InvalidInputError(f"discs must be an (m, 3) array of (x, y, radius) rows, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise InvalidInputError("discs hold a NaN or infinite number")
    if (a[:, 2] < 0).any():
        raise InvalidInputError("a disc has a negative radius")
    return a


def polyline_length(points) -> float:
    a = np.asarray(points, dtype=float)
    if len(a) < 2:
        return 0.0
    return float(np.hypot(*np.diff(a, axis=0).T).sum())


def merge_collinear(points: list[XY], tol: float = 1e-7) -> list[XY]:
    """Drop repeated points and points in the middle of a straight run."""
    out: list[XY] = []
    for p in points:
        if out and math.hypot(p[0] - out[-1][0], p[1] - out[-1][1]) <= 1e-9:
            continue
        while len(out) >= 2:
            a, b = out[-2], out[-1]
            ux, uy = b[0] - a[0], b[1] - a[1]
            vx, vy = p[0] - b[0], p[1] - b[1]
            lu, lv = math.hypot(ux, uy), math.hypot(vx, vy)
            if abs(ux * vy - uy * vx) <= tol * lu * lv and ux * vx + uy * vy > 0:
                out.pop()
            else:
                break
        out.append(p)
    return out


def truncate(points: Sequence[XY], distance: float) -> list[XY]:
    """The first ``distance`` metres of a polyline."""
    out = [points[0]]
    run = 0.0
    for a, b in zip(points, points[1:]):
        seg = math.hypot(b[0] - a[0], b[1] - a[1])
        if run + seg >= distance - 1e-12:
            f = (distance - run) / seg if seg > 0 else 0.0
            out.append((a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])))
            return merge_collinear(out)
        out.append(b)
        run += seg
    return list(points)
