"""Map facts the sr5 rules read: distance, cover class, zones, melee contact.

The rules take these as plain values so every rule is testable without geometry (a test
types ``TargetFacts("razor", distance=34, cover="good")``). :func:`facts_from_tactics`
builds them from ``engine.analysis.Tactics`` (the cached spatial answers of the map), and
:func:`facts_from_encounter` gives the facts that need no cover geometry (centre distances,
melee contact), for when no Tactics is at hand.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import IllegalActionError
from engine.model import Encounter
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
    """Each token: is an enemy (another side) within melee range of it."""
    out = {}
    toks = [t for t in encounter.tokens if not t.hidden]
    for t in toks:
        out[t.id] = any(
            o.id != t.id and o.side != t.side and in_melee_contact(encounter, o.id, t.id, 0, options)
            for o in toks
        )
    return out


def facts_from_encounter(
    encounter: Encounter, attacker: str, targets: Iterable[str], options: Options | None = None
) -> MapFacts:
    """Facts without cover geometry: centre distances, no cover, melee contact by distance."""
    opts = options or Options()
    a = encounter.token(attacker)
    tf = []
    for tid in targets:
        t = encounter.token(tid)
        tf.append(TargetFacts(tid, math.hypot(t.x - a.x, t.y - a.y)))
    melee = _melee_flags(encounter, opts)
    return facts(tf, {k: TokenFacts(in_melee=v) for k, v in melee.items()})


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
    each target touches and a charge plan; ``tactics.zone_shape`` and ``zone_shape_clipped``
    tell who is exposed inside a suppressive zone, covered inside it, or right next to it
    (within ``Options.adjacent_metres``)."""
    import shapely

    opts = options or Options()
    reports = {r.id: r for r in tactics.targets(attacker, weapon)}
    wanted = list(targets) if targets is not None else list(reports)
    spreads = [z for z in encounter.zones if z.kind == "shotgun" and z.owner == attacker]
    spread_shapes = [tactics.zone_shape(z.id) for z in spreads]
    tf = []
    for tid in wanted:
        if tid not in reports:
            raise IllegalActionError(f"the map has no line to {tid!r} from {attacker!r}")
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
    shapes = {z.id: (tactics.zone_shape(z.id), tactics.zone_shape_clipped(z.id)) for z in supp}
    for t in encounter.tokens:
        disc = shapely.Point(t.x, t.y).buffer(t.radius)
        inside, covered, near = [], [], []
        for zid, (full, clipped) in shapes.items():
            if full.intersects(disc):
                (inside if clipped.intersects(disc) else covered).append(zid)
                near.append(zid)
            elif full.distance(disc) <= opts.adjacent_metres + 1e-9:
                near.append(zid)
        tokens[t.id] = TokenFacts(tuple(inside), tuple(covered), tuple(near), melee.get(t.id, False))
    return facts(tf, tokens)
