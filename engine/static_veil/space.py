"""What the map allows for the Static Veil maneuvers: reach, a charge's run-up, where a shove
ends, where a dragged grapple goes. A thin layer over :mod:`geometry.nav` that turns an
encounter into plain numbers and back; no rules here.

Every obstacle that blocks (all but open doors) stops bodies, whatever its height: a body
does not walk or slide through a car. Other tokens are discs (x, y, radius) to go around.
Distances are metres between centres unless a name says "gap" (edge to edge).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely

from engine.model import Encounter, Token
from engine.names import token_name

XY = tuple[float, float]

_NAV_CACHE: OrderedDict[Any, Any] = OrderedDict()
_NAV_CACHE_SIZE = 4


def _paths():
    # imported on first use: the non-spatial maneuvers work without geometry.nav
    from geometry import nav as paths

    return paths


def blocking_polygons(encounter: Encounter) -> list[shapely.Polygon]:
    """The footprints (metres) of the obstacles that stop a body now (open doors do not)."""
    return [shapely.Polygon(o.polygon) for o in encounter.obstacles if o.blocks]


def navigator(encounter: Encounter):
    """A :class:`geometry.nav.Navigator` for the encounter's blocking obstacles and map
    bounds, cached by obstacle set (moving tokens never rebuilds it)."""
    key = (
        tuple((o.polygon, o.blocks) for o in encounter.obstacles),
        (encounter.map.width, encounter.map.height),
    )
    nav = _NAV_CACHE.get(key)
    if nav is None:
        nav = _paths().Navigator(
            blocking_polygons(encounter),
            bounds=(0.0, 0.0, encounter.map.width, encounter.map.height),
            ids=[o.id for o in encounter.obstacles if o.blocks],
        )
        _NAV_CACHE[key] = nav
        while len(_NAV_CACHE) > _NAV_CACHE_SIZE:
            _NAV_CACHE.popitem(last=False)
    else:
        _NAV_CACHE.move_to_end(key)
    return nav


def bodies(encounter: Encounter, exclude: set[str] | frozenset[str] = frozenset()) -> np.ndarray:
    """Other tokens as an (m, 3) array of discs (x, y, radius), leaving out ``exclude``."""
    rows = [(t.x, t.y, t.radius) for t in encounter.tokens if t.id not in exclude]
    return np.array(rows, dtype=float).reshape(-1, 3)


def distance(a: Token, b: Token) -> float:
    """Centre-to-centre distance of two tokens, metres."""
    return math.hypot(b.x - a.x, b.y - a.y)


def gap(a: Token, b: Token) -> float:
    """Edge-to-edge distance of two tokens, metres (0 when they touch or overlap)."""
    return max(0.0, distance(a, b) - a.radius - b.radius)


def bearing(a: XY, b: XY) -> float:
    """Direction from point ``a`` to point ``b`` in degrees, 0 east, 90 south, in [0, 360)."""
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) % 360.0


def compass(direction_deg: float) -> str:
    """The nearest of eight compass words for a map direction (y grows south)."""
    names = ("east", "south-east", "south", "south-west", "west", "north-west", "north", "north-east")
    return names[int(((direction_deg % 360.0) + 22.5) // 45.0) % 8]


def charge_plan(encounter: Encounter, actor: Token, target: Token, reach: float, runup: float):
    """The :class:`geometry.nav.ChargePlan` of ``actor`` running at ``target``: a path
    around obstacles and other bodies whose last ``runup`` metres run straight at the
    target, ending with the two bodies ``reach`` metres apart edge to edge."""
    return _paths().plan_charge(
        navigator(encounter),
        (actor.x, actor.y),
        actor.radius,
        (target.x, target.y),
        target.radius,
        discs=bodies(encounter, {actor.id, target.id}),
        reach=reach,
        runup=runup,
    )


@dataclass(frozen=True)
class SlideEnd:
    """Where a pushed body ends: its centre ``end`` (metres) after ``travelled`` metres of
    the ``distance`` it was pushed, and what stopped it short (``stopped_by``: e.g.
    ``"wall 'Crate'"``, ``"Ash"``, ``"the map edge"``; None when it went the whole way)."""

    distance: float
    end: XY
    travelled: float
    stopped_by: str | None


def slide(
    encounter: Encounter,
    body: Token,
    direction_deg: float,
    length: float,
    exclude: set[str] | frozenset[str] = frozenset(),
) -> SlideEnd:
    """Push ``body`` straight along ``direction_deg`` for ``length`` metres; it stops at
    the first wall, map edge or other body (tokens in ``exclude`` and itself do not stop it)."""
    skip = set(exclude) | {body.id}
    others = [t for t in encounter.tokens if t.id not in skip]
    res = _paths().slide(
        navigator(encounter),
        (body.x, body.y),
        body.radius,
        direction_deg,
        length,
        discs=bodies(encounter, skip),
        disc_ids=[t.id for t in others],
    )
    stopped = None
    if res.stopped_by is not None:
        if res.stopped_kind == "obstacle":
            o = encounter.obstacle(str(res.stopped_by))
            kind = "door" if o.door else "wall"
            stopped = f"{kind} '{o.name}'" if o.name else f"the {kind}"
        elif res.stopped_kind == "body":
            t = encounter.token(str(res.stopped_by))
            stopped = token_name(t)
        else:
            stopped = "the map edge"
    return SlideEnd(float(length), (float(res.end[0]), float(res.end[1])), float(res.travelled), stopped)


@dataclass(frozen=True)
class DragPlan:
    """A grapple moved: the actor's path to its goal, the dragged partner's path (both
    metres, first point where each stands now), and the length the actor walks."""

    actor_path: tuple[XY, ...]
    partner_path: tuple[XY, ...]
    length: float


def drag(encounter: Encounter, actor: Token, partner: Token, to: XY) -> DragPlan | None:
    """Move ``actor`` to ``to`` with ``partner`` in tow (:func:`geometry.nav.drag_path`:
    the actor walks the shortest path for the larger body, the partner follows the same
    track as far behind as they stood apart); None when no path exists."""
    res = _paths().drag_path(
        navigator(encounter),
        (actor.x, actor.y),
        actor.radius,
        (partner.x, partner.y),
        partner.radius,
        tuple(to),
        discs=bodies(encounter, {actor.id, partner.id}),
    )
    if res is None:
        return None
    a = tuple((float(x), float(y)) for x, y in res.mover_path)
    b = tuple((float(x), float(y)) for x, y in res.other_path)
    return DragPlan(a, b, float(res.length))


def walk(encounter: Encounter, body: Token, to: XY) -> tuple[tuple[XY, ...], float] | None:
    """The shortest way (metres) for ``body``'s centre to ``to`` around the blocking
    obstacles, the map edge and the other tokens: (points from where it stands, length), or
    None when it cannot get there. Raises :class:`geometry.errors.GeometryInputError` when
    ``to`` is inside an obstacle or off the map."""
    res = navigator(encounter).shortest_path(
        (body.x, body.y), tuple(to), body.radius, discs=bodies(encounter, {body.id})
    )
    if res is None:
        return None
    return tuple((float(x), float(y)) for x, y in res.points), float(res.length)


def path_length(points: tuple[XY, ...] | list[XY]) -> float:
    """Length of a polyline in metres."""
    if len(points) < 2:
        return 0.0
    a = np.asarray(points, dtype=float)
    return float(np.hypot(*np.diff(a, axis=0).T).sum())
