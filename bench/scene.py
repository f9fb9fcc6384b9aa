"""A seeded random battle scene for benchmarks (engine and GUI).

``make_scene(seed, tokens=200, obstacles=2000, size=None, doors=0)`` returns an
:class:`engine.model.Encounter` on a ``size`` x ``size`` metre map (default: as big as keeps
the density of 2,000 obstacles on 300 x 300 m, :func:`scene_size`): a street-like clutter of
cars, low walls, crates, dumpsters, pillars and a few buildings (heights 0.9 m to 12 m,
so every kind of cover occurs), tokens in every stance on free ground (never inside an
obstacle, never overlapping another token), each with a weapon, and a handful of zones
(suppressive, shotgun, blast, cone, line, rect), and ``doors`` closed doors (1.2 m bars)
on free ground. The same seed always gives the same scene (doors are drawn last, so a scene
with doors is the one without plus them).

Sizes the benches use: :data:`LARGE` (200 tokens, 2,000 obstacles, 300 m) and :data:`BIG`
(500 tokens, 10,000 obstacles, 671 m).
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely import affinity

from engine.model import Encounter, MapSpec, Obstacle, Token, Weapon, Zone

# kind: (share, (min length, max length), (min depth, max depth), heights)
_KINDS = {
    "car": (0.34, (4.0, 5.0), (1.7, 2.0), (1.4, 1.5, 2.2)),
    "wall": (0.26, (3.0, 10.0), (0.25, 0.4), (1.0, 1.2, 2.5)),
    "crate": (0.16, (1.0, 2.0), (1.0, 2.0), (0.9, 1.1)),
    "dumpster": (0.10, (1.8, 2.4), (1.2, 1.6), (1.5,)),
    "pillar": (0.08, (0.6, 1.2), (0.6, 1.2), (4.0, 6.0)),
    "building": (0.06, (8.0, 18.0), (6.0, 14.0), (4.0, 8.0, 12.0)),
}
_WEAPONS = (
    Weapon(name="Ares Predator V", category="heavy_pistol"),
    Weapon(name="Ingram Smartgun X", category="submachine_gun"),
    Weapon(name="AK-97", category="assault_rifle"),
    Weapon(name="Defiance T-250", category="shotgun_flechette"),
    Weapon(name="Colt America L36", category="light_pistol"),
)
_STANCES = ("standing", "standing", "crouched", "prone")


def _obstacles(rng: np.random.Generator, n: int, size: float) -> list[Obstacle]:
    names = list(_KINDS)
    shares = np.array([_KINDS[k][0] for k in names])
    kinds = rng.choice(len(names), size=n, p=shares / shares.sum())
    out = []
    for i, k in enumerate(kinds):
        kind = names[k]
        _, (l0, l1), (d0, d1), heights = _KINDS[kind]
        length, depth = rng.uniform(l0, l1), rng.uniform(d0, d1)
        cx, cy = rng.uniform(0.0, size, 2)
        angle = float(rng.choice((0.0, 90.0))) if kind == "building" else float(rng.uniform(0, 180))
        box = shapely.box(cx - length / 2, cy - depth / 2, cx + length / 2, cy + depth / 2)
        if kind == "building" and rng.random() < 0.5:  # an L-shaped corner block
            box = shapely.difference(box, shapely.box(cx, cy, cx + length, cy + depth))
        poly = affinity.rotate(box, angle, origin=(cx, cy))
        pts = [(round(x, 3), round(y, 3)) for x, y in np.asarray(poly.exterior.coords)[:-1]]
        if not shapely.Polygon(pts).is_valid:
            continue
        out.append(Obstacle(id=f"{kind}-{i}", name=kind, height=float(rng.choice(heights)),
                            polygon=tuple(pts)))
    return out


def _tokens(rng: np.random.Generator, n: int, size: float, obstacles: list[Obstacle]) -> list[Token]:
    blocked = shapely.union_all([shapely.Polygon(o.polygon) for o in obstacles]) if obstacles else None
    if blocked is not None:
        shapely.prepare(blocked)
    placed: list[tuple[float, float, float]] = []
    out = []
    tries = 0
    while len(out) < n:
        tries += 1
        if tries > 200 * n:
            raise RuntimeError("could not place the tokens: the map is too crowded")
        x, y = (float(v) for v in rng.uniform(2.0, size - 2.0, 2))
        r = 0.5 if rng.random() < 0.15 else 0.4
        if blocked is not None and blocked.distance(shapely.Point(x, y)) < r + 0.05:
            continue
        if any(math.hypot(x - px, y - py) < r + pr + 0.05 for px, py, pr in placed[-400:]):
            continue
        placed.append((x, y, r))
        i = len(out)
        w = _WEAPONS[int(rng.integers(len(_WEAPONS)))]
        out.append(Token(id=f"t{i}", name=f"Token {i}", side="runner" if i % 3 == 0 else "ganger",
                         x=round(x, 3), y=round(y, 3), radius=r,
                         stance=_STANCES[int(rng.integers(len(_STANCES)))],
                         facing=float(rng.uniform(0, 360)), weapons=(w, _WEAPONS[3])))
    return out


def _zones(rng: np.random.Generator, tokens: list[Token], size: float) -> list[Zone]:
    def d() -> float:
        return float(rng.uniform(0, 360))

    def xy() -> tuple[float, float]:
        return tuple(float(v) for v in rng.uniform(10, size - 10, 2))

    z = []
    z.append(Zone(id="sup-1", kind="suppressive", owner=tokens[0].id, direction=d(), length=40.0))
    z.append(Zone(id="spread-1", kind="shotgun", owner=tokens[1].id, direction=d(), choke="wide"))
    x, y = xy()
    z.append(Zone(id="blast-1", kind="blast", x=x, y=y, radius=10.0))
    x, y = xy()
    z.append(Zone(id="cone-1", kind="cone", x=x, y=y, direction=d(), length=20.0, angle=60.0))
    z.append(Zone(id="line-1", kind="line", owner=tokens[2].id, direction=d(), length=50.0, width=2.0))
    x, y = xy()
    z.append(Zone(id="rect-1", kind="rect", x=x, y=y, direction=d(), length=20.0, width=8.0))
    return z


LARGE = {"tokens": 200, "obstacles": 2000}
BIG = {"tokens": 500, "obstacles": 10000}


def scene_size(obstacles: int) -> float:
    """The side (m) of a square map holding ``obstacles`` as densely as the 2,000-obstacle,
    300 x 300 m bench scene (rounded to the metre)."""
    return float(round(300.0 * math.sqrt(max(obstacles, 1) / 2000.0)))


def _doors(rng: np.random.Generator, n: int, size: float, obstacles: list[Obstacle],
           tokens: list[Token]) -> list[Obstacle]:
    polys = [shapely.Polygon(o.polygon) for o in obstacles]
    tree = shapely.STRtree(polys) if polys else None
    pts = shapely.points([(t.x, t.y) for t in tokens]) if tokens else None
    ttree = shapely.STRtree(pts) if tokens else None
    out = []
    tries = 0
    while len(out) < n and tries < 100 * max(n, 1):
        tries += 1
        cx, cy = rng.uniform(5.0, size - 5.0, 2)
        angle = float(rng.uniform(0, 180))
        bar = affinity.rotate(shapely.box(cx - 0.6, cy - 0.1, cx + 0.6, cy + 0.1), angle, origin=(cx, cy))
        if tree is not None and len(tree.query(bar, predicate="dwithin", distance=0.3)):
            continue
        if ttree is not None and len(ttree.query(bar, predicate="dwithin", distance=1.0)):
            continue
        pts_ = [(round(x, 3), round(y, 3)) for x, y in np.asarray(bar.exterior.coords)[:-1]]
        out.append(Obstacle(id=f"door-{len(out)}", name="door", height=2.5, polygon=tuple(pts_), door=True))
    return out


def make_scene(seed: int = 1, tokens: int = 200, obstacles: int = 2000, size: float | None = None,
               doors: int = 0) -> Encounter:
    """A seeded random encounter: ``tokens`` tokens, about ``obstacles`` obstacles (a few
    generated footprints may be dropped as invalid) and ``doors`` closed doors on a ``size``
    m square map (default :func:`scene_size`)."""
    size = scene_size(obstacles) if size is None else float(size)
    rng = np.random.default_rng(seed)
    obs = _obstacles(rng, obstacles, size)
    toks = _tokens(rng, tokens, size, obs)
    zones = _zones(rng, toks, size) if len(toks) >= 3 else []
    if doors:
        obs = obs + _doors(rng, doors, size, obs, toks)
    return Encounter(name=f"Bench scene (seed {seed})", map=MapSpec(width=size, height=size),
                     obstacles=tuple(obs), tokens=tuple(toks), zones=tuple(zones))
