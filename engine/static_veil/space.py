"""What the map allows for the Static Veil maneuvers: reach, a charge's run-up, where a shove
ends, where a dragged grapple goes. A thin layer over :mod:`geometry.paths` that turns an
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

XY = tuple[float, float]
EPS = 1e-6

_NAV_CACHE: OrderedDict[Any, Any] = OrderedDict()
_NAV_CACHE_SIZE = 4


def _paths():
    # imported on first use: the non-spatial maneuvers work without geometry.paths
    from geometry import paths

    return paths


def blocking_polygons(encounter: Encounter) -> list[shapely.Polygon]:
    """The footprints (metres) of the obstacles that stop a body now (open doors do not)."""
    return [shapely.Polygon(o.polygon) for o in encounter.obstacles if o.blocks]


def navigator(encounter: Encounter):
    """A :class:`geometry.paths.Navigator` for the encounter's blocking obstacles and map
    bounds, cached by obstacle set (moving tokens never rebuilds it)."""
    key = (
        tuple((o.polygon, o.blocks) for o in encounter.obstacles),
        (encounter.map.width, encounter.map.height),
    )
    nav = _NAV_CACHE.get(key)
    if nav is None:
        nav = _paths().Navigator(
            blocking_polygons(encounter), bounds=(0.0, 0.0, encounter.map.width, encounter.map.height)
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
    """The :class:`geometry.paths.ChargePlan` of ``actor`` running at ``target``: a path
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
    """Where a pushed body ends: its centre ``end`` (metres), how far it ``travelled``, and
    what stopped it short (``stopped_by``: a label such as ``"wall 'Crate'"`` or
    ``"token 'Vex'"``; None when it went the whole distance)."""

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
    end, travelled, reason = _paths().slide(
        navigator(encounter),
        (body.x, body.y),
        body.radius,
        direction_deg,
        length,
        discs=bodies(encounter, set(exclude) | {body.id}),
    )
    end = (float(end[0]), float(end[1]))
    travelled = float(travelled)
    stopped = None
    if travelled < length - 1e-3:
        stopped = _what_stops(encounter, end, body.radius, set(exclude) | {body.id}) or (
            str(reason) if reason else "an obstacle"
        )
    return SlideEnd(length, end, travelled, stopped)


def _what_stops(encounter: Encounter, xy: XY, radius: float, exclude: set[str]) -> str | None:
    """The nearest wall, body or map edge to a disc at ``xy`` (what it is pressed against)."""
    best: tuple[float, str] | None = None
    pt = shapely.Point(xy)
    for o in encounter.obstacles:
        if not o.blocks:
            continue
        d = shapely.Polygon(o.polygon).distance(pt) - radius
        label = f"{'door' if o.door else 'wall'} {o.name or o.id!r}" if o.name else f"obstacle {o.id!r}"
        if best is None or d < best[0]:
            best = (d, label)
    for t in encounter.tokens:
        if t.id in exclude:
            continue
        d = math.hypot(t.x - xy[0], t.y - xy[1]) - t.radius - radius
        if best is None or d < best[0]:
            best = (d, f"token {t.name or t.id!r}")
    w, h = encounter.map.width, encounter.map.height
    edge = min(xy[0], xy[1], w - xy[0], h - xy[1]) - radius
    if best is None or edge < best[0]:
        best = (edge, "the map edge")
    if best is None or best[0] > 0.05:
        return None
    return best[1]


@dataclass(frozen=True)
class DragPlan:
    """A grapple moved: the actor's path to its goal, the dragged partner's path, and the
    length (metres) the actor walks."""

    actor_path: tuple[XY, ...]
    partner_path: tuple[XY, ...]
    length: float


def drag(encounter: Encounter, actor: Token, partner: Token, to: XY) -> DragPlan | None:
    """Move ``actor`` to ``to`` with ``partner`` in tow; None when no path exists.

    Uses ``geometry.paths.drag_path`` when it offers one with the agreed meaning;
    otherwise the actor walks the shortest path for the larger of the two bodies and the
    partner follows the same track, trailing its starting centre distance behind."""
    paths = _paths()
    nav = navigator(encounter)
    others = bodies(encounter, {actor.id, partner.id})
    start = (actor.x, actor.y)
    radius = max(actor.radius, partner.radius)
    res = nav.shortest_path(start, tuple(to), radius, discs=others)
    if res is None:
        return None
    track = [tuple(map(float, p)) for p in res.points]
    length = float(res.length)
    spacing = max(distance(actor, partner), actor.radius + partner.radius)
    partner_track = _trail(track, spacing, (partner.x, partner.y))
    del paths
    return DragPlan(tuple(track), tuple(partner_track), length)


def _trail(track: list[XY], spacing: float, partner_start: XY) -> list[XY]:
    """The partner's path: to the actor's start, then along the actor's track, stopping
    ``spacing`` metres (along the track) short of its end; if the track is shorter than the
    spacing, the partner only closes in along its own line towards the actor's end."""
    seg = np.diff(np.asarray(track, dtype=float), axis=0)
    lens = np.hypot(seg[:, 0], seg[:, 1]) if len(seg) else np.zeros(0)
    total = float(lens.sum())
    stop_at = total - spacing
    if stop_at <= EPS:
        ex, ey = track[-1]
        px, py = partner_start
        d = math.hypot(ex - px, ey - py)
        if d <= spacing + EPS:
            return [partner_start]
        f = (d - spacing) / d
        return [partner_start, (px + f * (ex - px), py + f * (ey - py))]
    out = [partner_start, track[0]]
    run = 0.0
    for (a, b), L in zip(zip(track, track[1:]), lens):
        if run + L >= stop_at - EPS:
            f = (stop_at - run) / L if L > 0 else 0.0
            out.append((a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])))
            break
        out.append(b)
        run += L
    return out


def path_length(points: tuple[XY, ...] | list[XY]) -> float:
    """Length of a polyline in metres."""
    if len(points) < 2:
        return 0.0
    a = np.asarray(points, dtype=float)
    return float(np.hypot(*np.diff(a, axis=0).T).sum())
