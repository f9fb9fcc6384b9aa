"""Map facts the sr5 rules read: distance, cover class, zones, melee contact.

The rules take these as plain values so every rule is testable without geometry (a test
types ``TargetFacts("razor", distance=34, cover="good")``). :func:`facts_from_tactics`
builds them from ``engine.analysis.Tactics`` (the cached spatial answers of the map), the one
cover computation.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import IllegalActionError
from engine.model import Encounter
from engine.names import name_of
from engine.sr5.sheet import Options

COVER_CLASSES = ("none", "partial", "good", "full")


@dataclass(frozen=True)
class TargetFacts:
    """What the map says about one target as seen by the attacker.

    ``distance`` metres centre to centre; ``cover`` none/partial/good/full (full: blind
    fire); ``visible`` False when the target cannot be seen at all (also blind fire);
    ``in_spread`` whether it stands inside the attacker's shotgun spread; ``charge`` whether
    the attacker has run straight at it (a charge plan was possible and taken)."""

    id: str
    distance: float
    cover: str = "none"
    visible: bool = True
    in_spread: bool = True
    charge: bool = False
    cover_fraction: float | None = None

    def __post_init__(self) -> None:
        if not (isinstance(self.distance, (int, float)) and math.isfinite(self.distance) and self.distance >= 0):
            raise IllegalActionError(f"target {self.id!r}: distance {self.distance!r} is not a distance in metres")
        if self.cover not in COVER_CLASSES:
            raise IllegalActionError(
                f"target {self.id!r}: cover {self.cover!r} is not one of {', '.join(COVER_CLASSES)}"
            )


@dataclass(frozen=True)
class TokenFacts:
    """What the map says about a token whoever shoots: the suppressive zones it is exposed in
    (``in_zones``), inside but fully covered from the zone's origin (``covered_zones``), in or
    right next to (``near_zones``: the dice penalty), and whether an enemy is at melee range."""

    in_zones: tuple[str, ...] = ()
    covered_zones: tuple[str, ...] = ()
    near_zones: tuple[str, ...] = ()
    in_melee: bool = False


@dataclass(frozen=True)
class MapFacts:
    """Facts for one attack: per target (seen from the attacker) and per token."""

    targets: Mapping[str, TargetFacts] = field(default_factory=dict)
    tokens: Mapping[str, TokenFacts] = field(default_factory=dict)

    def target(self, ident: str) -> TargetFacts:
        try:
            return self.targets[ident]
        except KeyError:
            raise IllegalActionError(
                f"no map facts for target {ident!r} (distance, cover): measure it on the map first"
            ) from None

    def token(self, ident: str) -> TokenFacts:
        return self.tokens.get(ident, TokenFacts())


def facts(targets: Iterable[TargetFacts] = (), tokens: Mapping[str, TokenFacts] | None = None) -> MapFacts:
    """A :class:`MapFacts` from a list of target facts (convenience for tests and callers)."""
    return MapFacts({t.id: t for t in targets}, dict(tokens or {}))


def in_melee_contact(encounter: Encounter, a: str, b: str, reach: int = 0, options: Options | None = None) -> bool:
    """Whether ``a`` can strike ``b``: the gap between their discs is at most
    ``melee_metres`` (1 m) + ``reach`` metres."""
    opts = options or Options()
    ta, tb = encounter.token(a), encounter.token(b)
    gap = math.hypot(ta.x - tb.x, ta.y - tb.y) - ta.radius - tb.radius
    return gap <= opts.melee_metres + max(0, reach) + 1e-9


def _melee_flags(encounter: Encounter, options: Options) -> dict[str, bool]:
    """Each token: is an enemy (another side) within melee range of it. The same test as
    :func:`in_melee_contact` with no reach, for all pairs at once (numpy, O(n^2) floats
    rather than O(n^2) id look-ups: the GUI asks this on every change of a 200-token map)."""
    import numpy as np

    toks = [t for t in encounter.tokens if not t.hidden]
    if not toks:
        return {}
    xy = np.array([(t.x, t.y) for t in toks], dtype=float)
    r = np.array([t.radius for t in toks], dtype=float)
    side = np.array([t.side for t in toks], dtype=object)
    gap = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) - r[:, None] - r[None, :]
    enemy = side[:, None] != side[None, :]
    close = (gap <= options.melee_metres + 1e-9) & enemy
    np.fill_diagonal(close, False)
    return {t.id: bool(c) for t, c in zip(toks, close.any(axis=1))}


def facts_from_tactics(
    tactics: Any,
    encounter: Encounter,
    attacker: str,
    targets: Iterable[str] | None = None,
    weapon: str | None = None,
    options: Options | None = None,
) -> MapFacts:
    """Build :class:`MapFacts` from an ``engine.analysis.Tactics`` (contract in notes/api.md):
    ``tactics.targets(attacker, weapon)`` gives distance, cover (fraction, class), the zones
    each target touches and a charge plan; ``tactics.zone_hits()`` tells who is exposed inside
    a suppressive zone (inside and not in full cover from its origin), ``tactics.zone_shape``
    who is inside but covered, or right next to it (within ``Options.adjacent_metres``)."""
    import shapely

    opts = options or Options()
    reports = {r.id: r for r in tactics.targets(attacker, weapon)}
    wanted = list(targets) if targets is not None else list(reports)
    spreads = [z for z in encounter.zones if z.kind == "shotgun" and z.owner == attacker]
    spread_shapes = [tactics.zone_shape(z.id) for z in spreads]
    tf = []
    for tid in wanted:
        if tid not in reports:
            raise IllegalActionError(f"the map has no line to {name_of(encounter, tid)} from {name_of(encounter, attacker)}",
                                     ids=(tid, attacker))
        r = reports[tid]
        tok = encounter.token(tid)
        cls = getattr(r.cover, "cls", None) or getattr(r.cover, "cover_class", None) or "none"
        frac = getattr(r.cover, "fraction", None)
        in_spread = True
        if spread_shapes:
            disc = shapely.Point(tok.x, tok.y).buffer(tok.radius)
            in_spread = any(s.intersects(disc) for s in spread_shapes)
        # a possible charge (r.charge) is offered by the GUI; the declaration says if it was run
        tf.append(TargetFacts(tid, float(r.distance), cls, True, in_spread, False, frac))
    melee = _melee_flags(encounter, opts)
    tokens: dict[str, TokenFacts] = {}
    supp = [z for z in encounter.zones if z.kind == "suppressive"]
    hits = tactics.zone_hits() if supp else {}
    exposed = {z.id: {h.id for h in hits.get(z.id, ())} for z in supp}
    shapes = {z.id: tactics.zone_shape(z.id) for z in supp}
    for t in encounter.tokens:
        disc = shapely.Point(t.x, t.y).buffer(t.radius)
        inside, covered, near = [], [], []
        for z in supp:
            if z.owner == t.id:
                continue
            full = shapes[z.id]
            if t.id in exposed[z.id]:
                inside.append(z.id)
                near.append(z.id)
            elif full.intersects(disc) and full.intersection(disc).area > 0:
                covered.append(z.id)  # inside the area but wholly hidden from its origin
                near.append(z.id)
            elif full.distance(disc) <= opts.adjacent_metres + 1e-9:
                near.append(z.id)
        tokens[t.id] = TokenFacts(tuple(inside), tuple(covered), tuple(near), melee.get(t.id, False))
    return facts(tf, tokens)


def facts_from_map(
    encounter: Encounter,
    attacker: str,
    targets: Iterable[str],
    weapon: str | None = None,
    options: Options | None = None,
    tactics: Any = None,
) -> MapFacts:
    """Map facts for an attack, from ``tactics`` (an ``engine.analysis.Tactics``) or a fresh
    ``Tactics`` of ``encounter``."""
    if tactics is None:
        from engine.analysis import Tactics  # at call time: engine.analysis loads the systems' sheets

        tactics = Tactics(encounter)
    return facts_from_tactics(tactics, encounter, attacker, list(targets), weapon, options)


def zones_swept(encounter: Encounter, token_id: str, points: Iterable[tuple[float, float]]) -> tuple[str, ...]:
    """The suppressive zones (not the token's own) that ``token_id``'s disc overlaps anywhere
    along the polyline ``points`` (map metres, start to end), in the encounter's order: what a
    drag passes through, where the start and end alone would miss a zone crossed on the way."""
    import shapely

    from geometry.zones import suppressive_triangle

    tok = encounter.token(token_id)
    pts = [tuple(map(float, p)) for p in points]
    if not pts:
        return ()
    swept = (shapely.Point(pts[0]) if len(pts) == 1 else shapely.LineString(pts)).buffer(tok.radius)
    out = []
    for z in encounter.zones:
        if z.kind != "suppressive" or z.owner == token_id:
            continue
        shape = suppressive_triangle(encounter.zone_origin(z), z.direction, z.length, z.effective_width)
        if shape.intersects(swept) and shape.intersection(swept).area > 0:
            out.append(z.id)
    return tuple(out)
