"""The spatial answers for one encounter: range, cover, zones, lines of sight and charges.

:class:`Tactics` holds the indexes (obstacle cover index, movement graph) of an encounter and
answers a GM's questions from them. The GUI keeps one and calls :meth:`Tactics.update` on
every change -- on every mouse move during a drag -- so the obstacle index is rebuilt only
when the obstacles themselves change; moving tokens costs nothing until a question is asked.

Numbers that the rules leave open are module constants here (documented in
docs/geometry.md): origin heights of zones, the shotgun spread widths, the default reach
and run-up of a charge. The geometry (cover, zones, paths) lives in ``geometry/``.
"""

from __future__ import annotations

import contextlib
import copy
import math
from dataclasses import dataclass

import numpy as np
import shapely

from engine.diff import changed_positions
from engine.errors import CoverfireError, GeometryError
from engine.model import DIRECTED_ZONES, Encounter, Token, Weapon, Zone, zone_weapon
from engine.names import geometry_text, token_name
from engine.obstacles import ObstacleSet
from engine.rules import find_system
from engine.ranges import CATEGORIES, DEFAULT_STRENGTH, RANGE_EPSILON, Band, bands_for
from geometry.bodies import body_height, eye_height
from geometry.cover import CoverIndex, cover_class, cover_classes, segment_box_distance
from geometry.errors import GeometryInputError
from geometry.zones import (
    circle,
    cone,
    corridor,
    discs_in_shape,
    fire_shadows,
    rect,
    shotgun_spread,
    suppressive_triangle,
)

#: Metres: centres of attacker and target are ``r1 + r2 + reach`` apart in melee contact.
DEFAULT_REACH = 1.0
#: Metres of straight run at the target a charge needs (Static Veil Charge).
DEFAULT_RUNUP = 4.0
#: Metres a token may move in a charge when its sheet does not say (no sr5 sheet in an sr5
#: encounter, no static_veil sheet in a static-veil one): farther targets are "too far", and
#: the search for a charge never looks beyond it (:meth:`Tactics.charge_movement`).
DEFAULT_CHARGE_MOVEMENT = 40.0
#: Metres above the ground that blast, circle and rect zones act from (their centre).
AREA_ZONE_ORIGIN_HEIGHT = 1.0
#: Metres above the ground a directed zone without an owner fires from (a standing eye).
UNOWNED_FIRE_HEIGHT = eye_height("standing")
#: Body height (metres) whose full cover :meth:`Tactics.zone_shape_clipped` takes out.
CLIP_BODY_HEIGHT = body_height("standing")
#: Shotgun spread width (metres) in the Short, Medium, Long, Extreme band, by choke
#: (shared/reference/sr5-facts.md; narrow choke: a 1 m corridor).
SHOTGUN_SPREAD_WIDTHS: dict[str, tuple[float, ...]] = {
    "narrow": (1.0, 1.0, 1.0, 1.0),
    "medium": (2.0, 4.0, 6.0, 8.0),
    "wide": (3.0, 6.0, 9.0, 12.0),
}
#: Range table a shotgun zone falls back to when its owner's weapon has none.
FALLBACK_SHOTGUN_CATEGORY = "shotgun_flechette"


class UnknownWeaponError(CoverfireError):
    """A weapon name the token does not carry."""

    def __init__(self, token: Token, name: str) -> None:
        self.token = token.id
        self.name = name
        carried = ", ".join(repr(w.name) for w in token.weapons) or "nothing"
        super().__init__(f"{token_name(token)} carries no weapon named {name!r} (it carries {carried})")


# --- values ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RangeResult:
    """The range band a distance falls in: its name, pool modifier and upper bound (m)."""

    band: str
    modifier: int
    max: float


@dataclass(frozen=True, slots=True)
class CoverResult:
    """Hidden fraction (0..1) of the target's silhouette and its class."""

    fraction: float
    cls: str


@dataclass(frozen=True, slots=True)
class TargetReport:
    """What an attacker's weapon faces at one target. ``distance`` is centre to centre in
    metres; ``range`` is None without a weapon or out of range; ``zones`` are the ids of the
    zones touching the target; ``charge`` is filled when asked for."""

    id: str
    distance: float
    range: RangeResult | None
    cover: CoverResult
    zones: tuple[str, ...]
    charge: object | None = None  # geometry.nav.ChargePlan


@dataclass(frozen=True, slots=True)
class ZoneHit:
    """A token a zone touches: ``fraction`` of its footprint inside the zone's shape and its
    ``cover`` fraction from the zone's origin (below 1: not in full cover)."""

    id: str
    fraction: float
    cover: float


@dataclass(frozen=True, slots=True)
class SightReport:
    """A line of sight from an attacker's eye to a target, for drawing and explaining.

    ``eye`` and ``target`` are plan points (m), ``eye_z`` the eye height; the silhouette is
    ``2 * radius`` wide, ``target_height`` tall; ``u`` are column offsets across it (+ to the
    shooter's right) and ``hidden`` the height each is hidden to (0 none, inf all)."""

    attacker: str
    target_id: str
    eye: tuple[float, float]
    eye_z: float
    target: tuple[float, float]
    target_height: float
    radius: float
    distance: float
    fraction: float
    cls: str
    u: tuple[float, ...]
    hidden: tuple[float, ...]

    @property
    def cover(self) -> CoverResult:
        return CoverResult(self.fraction, self.cls)


@contextlib.contextmanager
def _as_engine_errors():
    try:
        yield
    except GeometryInputError as exc:
        raise GeometryError(str(exc)) from None


# --- ranges ---------------------------------------------------------------------------------

def token_strength(token: Token) -> int:
    """The Strength that scales thrown weapons' ranges: the first Strength a system of the
    token's ``rules`` reads from its sheet (:meth:`RuleSystem.strength`), else
    ``engine.ranges.DEFAULT_STRENGTH``."""
    for name in token.rules:
        strength = getattr(find_system(name), "strength", None)
        s = strength(token) if strength is not None else None
        if isinstance(s, (int, float)) and s > 0:
            return int(s)
    return DEFAULT_STRENGTH


def weapon_bands(token: Token, weapon: Weapon) -> tuple[tuple[Band, ...], float]:
    """A weapon's range bands in metres and its minimum range: its own ``ranges``, else its
    category's table (Strength-scaled ones with the token's Strength); no bands if neither."""
    if weapon.ranges:
        return tuple(Band(b.band, float(b.max), int(b.modifier)) for b in weapon.ranges), 0.0
    if weapon.category:
        cat = CATEGORIES[weapon.category]
        return bands_for(weapon.category, token_strength(token)), cat.minimum
    return (), 0.0


def aided_modifiers(encounter: Encounter, token: Token, weapon: Weapon, bands) -> dict[str, int] | None:
    """Each band's modifier as the token's attack with ``weapon`` takes it: that of the
    band as many rows nearer as the token's aids against range
    (:meth:`engine.rules.RuleSystem.range_aids`: Shadowrun's improved rangefinder with a
    smartlink, ...); None without aids (the bands' own). The map's badges, the Targets
    panel, the ruler and ``coverfire analyze`` give these, so they agree with the attack."""
    aids = encounter.system.range_aids(encounter, token, weapon) if bands else 0
    if not aids:
        return None
    return {b.band: int(bands[max(i - aids, 0)].modifier) for i, b in enumerate(bands)}


def _ranges(bands, minimum, dist: np.ndarray) -> list[RangeResult | None]:
    if not bands:
        return [None] * len(dist)
    maxima = np.array([b.max for b in bands]) + RANGE_EPSILON
    k = np.searchsorted(maxima, dist, side="left")
    results = [RangeResult(b.band, b.modifier, b.max) for b in bands] + [None]
    out = [results[i] for i in k.tolist()]
    if minimum > 0:
        low = dist < minimum - RANGE_EPSILON
        out = [None if lo else r for r, lo in zip(out, low.tolist())]
    return out


# --- the cached answers ------------------------------------------------------------------------

class Tactics:
    """The spatial answers for one encounter, cached. Call :meth:`update` with each new
    version of the encounter; the obstacle indexes (:class:`engine.obstacles.ObstacleSet`:
    cover index, movement graphs built on the first charge) are kept while the obstacles
    stay the same and edited, near the change only, when a few of them change."""

    def __init__(self, encounter: Encounter, *, obstacles: ObstacleSet | None = None,
                 cover_from: Tactics | None = None) -> None:
        self._obs = obstacles if obstacles is not None else ObstacleSet()
        #: another Tactics over these very obstacle indexes whose cover answers this one may
        #: take (:meth:`cover_answers`; the players' view of the GM's encounter)
        self._cover_from = cover_from
        self._tokens: tuple | None = None
        self._zone_cache: dict[str, tuple] = {}
        self._hits: dict[str, list[ZoneHit]] | None = None
        self._hit_cache: dict[str, tuple] = {}
        self._cover_memo: tuple | None = None  # (attacker token, index_builds, {target id: (token, fraction)})
        self._charge_memo: tuple | None = None  # see _charge_from
        self._tok_change: tuple | None = None  # (previous tokens, positions changed since)
        self.update(encounter)

    def fork(self, encounter: Encounter) -> Tactics:
        """A new Tactics for ``encounter`` (a hypothetical version of this one's: tokens or
        zones moved) that shares this one's obstacle indexes when the obstacles and the map
        are the very same, so a what-if costs no index build; this Tactics is left exactly as
        it was. Ask the fork its question and drop it (it follows this one's obstacles)."""
        cur = self.encounter
        same = encounter.obstacles is cur.obstacles and encounter.map == cur.map
        return Tactics(encounter, obstacles=self._obs if same else None)

    def follower(self, encounter: Encounter) -> Tactics:
        """A Tactics for a view of this one's encounter with the very same obstacles (the
        players' encounter: some tokens and zones left out) that shares the obstacle indexes
        and takes this one's cover answers (exact: each is kept by the attacker's and the
        target's very token values and the obstacles' revision). Whichever of the two
        updates first updates the shared indexes; neither depends on the other's order."""
        return Tactics(encounter, obstacles=self._obs, cover_from=self)

    def shares_indexes(self, other: Tactics | None) -> bool:
        """Whether ``other`` answers from these very obstacle indexes."""
        return other is not None and other._obs is self._obs

    def cover_answers(self, attacker: Token) -> dict | None:
        """The cover answers known from ``attacker``'s eye (this very token value) at the
        current obstacles: {target id: (target token, hidden fraction)}, or None. Read by a
        :meth:`follower`; the dictionary is live (either may add to it)."""
        memo = self._cover_memo
        if memo is not None and memo[0] is attacker and memo[1] == self.index_builds:
            return memo[2]
        return None

    @property
    def index_builds(self) -> int:
        """How often the blocking obstacles changed (the index built or edited; for tests,
        benches and cache keys)."""
        return self._obs.revision

    # -- state ---------------------------------------------------------------------------------
    def update(self, encounter: Encounter) -> None:
        """Take a new version of the encounter. Cheap when only tokens or zones changed."""
        bounds = (0.0, 0.0, float(encounter.map.width), float(encounter.map.height))
        self._obs.update(encounter.obstacles, bounds)
        if encounter.tokens is not self._tokens:
            toks = encounter.tokens
            old = self._tokens
            # a drag step: a few tokens are new values, the rest the very same
            changed = changed_positions(old, toks, 16) if old is not None else None
            if changed is not None and any(old[i].id != toks[i].id for i in changed):
                changed = None
            self._tokens = toks
            if changed is not None:
                xy, r, h = self._xy.copy(), self._r.copy(), self._h.copy()
                for i in changed:
                    t = toks[i]
                    xy[i] = (t.x, t.y)
                    r[i] = t.radius
                    h[i] = body_height(t.stance)
                self._xy, self._r, self._h = xy, r, h
            else:
                self._ids = [t.id for t in toks]
                self._pos = {t.id: i for i, t in enumerate(toks)}
                self._xy = np.array([(t.x, t.y) for t in toks], dtype=float).reshape(-1, 2)
                self._r = np.array([t.radius for t in toks], dtype=float)
                self._h = np.array([body_height(t.stance) for t in toks], dtype=float)
            self._tok_change = (old, changed) if changed is not None else None
        self._hits = None
        self.encounter = encounter

    def snapshot(self) -> "Tactics":
        """A copy of these answers for another thread (a worker planning charges while the
        GUI thread goes on updating this one): the same obstacle indexes and navigator, this
        encounter's tokens, caches of its own. Its answers are those of this revision."""
        out = copy.copy(self)
        out._obs = self._obs.snapshot()
        out._zone_cache = dict(self._zone_cache)
        out._hit_cache = dict(self._hit_cache)
        out._cover_memo = None
        out._charge_memo = None
        return out

    @property
    def obstacle_set(self) -> ObstacleSet:
        """The obstacle indexes these answers read (shared by forks and followers; a charge
        process keeps a copy in step with them)."""
        return self._obs

    def bodies(self) -> tuple[list[str], dict[str, int], np.ndarray]:
        """The tokens as the answers index them: their ids in encounter order, each id's row,
        and one row ``(x, y, radius)`` in metres per token."""
        discs = np.column_stack((self._xy, self._r)) if len(self._ids) else np.zeros((0, 3))
        return list(self._ids), dict(self._pos), discs

    def has_graph(self, token_id: str) -> bool:
        """Whether charges and paths of this token cost no movement-graph work any more (the
        graph for its radius is built)."""
        return self._obs.has_graph(self._token(token_id).radius)

    @property
    def cover_index(self) -> CoverIndex:
        """The obstacle index (blocking obstacles only)."""
        assert self._obs.cover is not None
        return self._obs.cover

    def footprint(self, obstacle) -> "shapely.Polygon | None":
        """The indexed footprint of this very obstacle value of the encounter (a blocking
        one), or None (see :meth:`engine.obstacles.ObstacleSet.footprint`)."""
        return self._obs.footprint(obstacle)

    @property
    def navigator(self):
        """The movement graph over the blocking obstacles and the map's edge (built lazily)."""
        return self._obs.navigator

    def _token(self, ident: str) -> Token:
        return self.encounter.token(ident)

    def _cover_fractions(self, a: Token, rows: np.ndarray) -> np.ndarray:
        """Hidden fractions (0..1) of the tokens at ``rows`` (indices into the encounter's
        tokens) from the eye of ``a``. Tokens do not hide one another, so a target's answer
        is kept while the attacker, that target (the same frozen values) and the obstacles
        stay the same: dragging one target re-measures that one only."""
        memo = self._cover_memo
        rev = self.index_builds
        if memo is None or memo[0] is not a:
            shared = self._cover_from.cover_answers(a) if self.shares_indexes(self._cover_from) else None
            memo = self._cover_memo = (a, rev, shared if shared is not None else {})
        elif memo[1] != rev:
            # obstacles changed: only targets whose line of sight passes the changed boxes
            # need measuring again (nothing else can hide them, or stop hiding them)
            memo = self._cover_memo = (a, rev, self._still_valid(a, memo[2], self._obs.changed_since(memo[1])))
        known = memo[2]
        toks = self._tokens
        out = np.empty(len(rows))
        todo = []
        if not known:
            todo = list(range(len(rows)))
        else:
            for k, i in enumerate(rows.tolist()):
                hit = known.get(toks[i].id)
                if hit is not None and hit[0] is toks[i]:
                    out[k] = hit[1]
                else:
                    todo.append(k)
        if todo:
            sel = rows[todo]
            with _as_engine_errors():
                f = self.cover_index.cover_fractions((a.x, a.y), eye_height(a.stance), self._xy[sel],
                                                     self._r[sel], self._h[sel])
            out[todo] = f
            for i, v in zip(sel.tolist(), f.tolist()):
                known[toks[i].id] = (toks[i], v)
        return out

    @staticmethod
    def _still_valid(a: Token, known: dict, boxes: list[tuple] | None) -> dict:
        """The cover answers of ``known`` ({target id: (token, fraction)} from ``a``'s eye)
        that obstacle changes within ``boxes`` cannot have touched: the sight triangle from
        the eye to a target's silhouette lies within the target's radius of the segment from
        the eye to its centre, so a target is kept when that segment stays farther than its
        radius from every box. None (unknown changes): nothing is kept."""
        return Tactics._untouched((a.x, a.y), known, boxes)

    def _seen_past(self, eye: tuple[float, float], boxes: list[tuple] | None) -> np.ndarray | None:
        """Which tokens (rows of the encounter's tokens, as they stand) obstacle changes
        within ``boxes`` may hide or unhide from the plan point ``eye`` (see
        :meth:`_still_valid`); None when the changes are not known (every answer is redone)."""
        if boxes is None:
            return None
        hit = np.zeros(len(self._r), dtype=bool)
        if not boxes or not len(hit):
            return hit
        E = np.array([eye[0], eye[1]], dtype=float)
        R = self._r + 1e-6
        for x0, y0, x1, y1 in boxes:
            hit |= segment_box_distance(E, self._xy, (x0, y0, x1, y1)) <= R
        return hit

    @staticmethod
    def _untouched(eye: tuple[float, float], known: dict, boxes: list[tuple] | None) -> dict:
        """The entries of ``known`` ({token id: (token, answer)}) whose answer, as seen from
        the plan point ``eye``, obstacle changes within ``boxes`` cannot have touched (see
        :meth:`_still_valid`); None (unknown changes): nothing is kept."""
        if boxes is None or not known:
            return {}
        ids = list(known)
        toks = [known[i][0] for i in ids]
        P = np.array([(t.x, t.y) for t in toks], dtype=float)
        R = np.array([t.radius for t in toks], dtype=float) + 1e-6
        hit = np.zeros(len(ids), dtype=bool)
        E = np.array([eye[0], eye[1]], dtype=float)
        for x0, y0, x1, y1 in boxes:
            hit |= segment_box_distance(E, P, (x0, y0, x1, y1)) <= R
        return {i: known[i] for i, h in zip(ids, hit.tolist()) if not h}

    # -- targets -----------------------------------------------------------------------------------
    def weapon_of(self, attacker_id: str, weapon: str | None = None) -> Weapon | None:
        """The attacker's named weapon, or (``weapon`` None) the one it has ready, as its
        rule system says (:meth:`engine.rules.RuleSystem.ready_weapon`: what the attack
        takes); None when it carries none. Raises :class:`UnknownWeaponError` for a name it
        does not carry."""
        a = self._token(attacker_id)
        if weapon is None:
            return self.encounter.system.ready_weapon(self.encounter, a)
        w = a.weapon(weapon)
        if w is None:
            raise UnknownWeaponError(a, weapon)
        return w

    def cover(self, attacker_id: str, target_ids=None) -> dict[str, CoverResult]:
        """Cover of each target (default: every other token) from the attacker's eye."""
        a = self._token(attacker_id)
        ids = [t for t in self._ids if t != attacker_id] if target_ids is None else list(target_ids)
        for t in ids:
            if t not in self._pos:
                self._token(t)  # raises UnknownIdError
        f = self._cover_fractions(a, np.array([self._pos[t] for t in ids], dtype=np.int64))
        return {t: CoverResult(float(v), cover_class(v)) for t, v in zip(ids, f)}

    def targets(self, attacker_id: str, weapon: str | None = None, charges: bool = False) -> list[TargetReport]:
        """For the attacker (its named weapon, default its ready one) and every other token, in
        the encounter's order: distance, range band, cover, zones touching it, and with
        ``charges`` the charge plan to it."""
        a = self._token(attacker_id)
        w = self.weapon_of(attacker_id, weapon)
        me = self._pos[attacker_id]
        others = np.array([i for i in range(len(self._ids)) if i != me], dtype=np.int64)
        if others.size == 0:
            return []
        xy = self._xy[others]
        dist = np.hypot(xy[:, 0] - a.x, xy[:, 1] - a.y)
        bands, minimum = weapon_bands(a, w) if w is not None else ((), 0.0)
        ranges = _ranges(bands, minimum, dist)
        mods = aided_modifiers(self.encounter, a, w, bands) if w is not None else None
        if mods:  # (the band the distance's, its modifier the attack's: a rangefinder's band nearer)
            ranges = [None if r is None else RangeResult(r.band, mods[r.band], r.max) for r in ranges]
        frac = self._cover_fractions(a, others)
        by_token = self.token_zones()
        classes = cover_classes(frac)
        out = []
        ids = self._ids
        for i, d, rg, f, cls in zip(others.tolist(), dist.tolist(), ranges, frac.tolist(), classes):
            tid = ids[i]
            # every charge by one attacker shares one search from it (same answers)
            plan = self._charge(attacker_id, tid, shared=True) if charges else None
            out.append(TargetReport(tid, d, rg, CoverResult(f, cls), by_token.get(tid, ()), plan))
        return out

    # -- line of sight ----------------------------------------------------------------------------
    def line_of_sight(self, attacker_id: str, target_id: str, columns: int = 41) -> SightReport:
        """The attacker's eye, the target's silhouette and how much of it is hidden, with
        the hidden height of ``columns`` evenly spaced columns across it."""
        a = self._token(attacker_id)
        t = self._token(target_id)
        e = eye_height(a.stance)
        h = body_height(t.stance)
        u = np.linspace(-t.radius, t.radius, max(2, int(columns)))
        frac = float(self._cover_fractions(a, np.array([self._pos[t.id]]))[0])
        with _as_engine_errors():
            hidden = self.cover_index.hidden_heights((a.x, a.y), e, (t.x, t.y), t.radius, u)
        return SightReport(a.id, t.id, (a.x, a.y), e, (t.x, t.y), h, t.radius,
                           math.hypot(t.x - a.x, t.y - a.y), frac, cover_class(frac),
                           tuple(u.tolist()), tuple(hidden.tolist()))

    # -- charges ---------------------------------------------------------------------------------
    def charge(self, attacker_id: str, target_id: str, reach: float | None = None,
               runup: float | None = None, max_movement: float | None = None):
        """The attacker's shortest charge at the target (``geometry.nav.plan_charge``):
        ends ``r1 + r2 + reach`` apart after a straight run of at least ``runup`` metres,
        walking around obstacles and the other tokens, in at most ``max_movement`` metres
        (default :meth:`charge_movement`; a farther target is refused as too far). When the
        geometry refuses (a token inside an obstacle or off the map) the plan says so in
        ``reason``. Charges by the same attacker (same encounter revision) share the search
        from it from the fourth on."""
        return self._charge(attacker_id, target_id, reach, runup, max_movement)

    def charge_movement(self, token_id: str) -> float:
        """The most metres the token may move in a charge: the running limit its encounter's
        rule system gives (:meth:`engine.rules.RuleSystem.movement`), else
        :data:`DEFAULT_CHARGE_MOVEMENT`."""
        self._token(token_id)  # an unknown id is an UnknownIdError, whatever the system
        budget = self.encounter.system.movement(self.encounter, token_id)
        return float(budget.run) if budget is not None else DEFAULT_CHARGE_MOVEMENT

    def _charge(self, attacker_id: str, target_id: str, reach: float | None = None,
                runup: float | None = None, max_movement: float | None = None, shared: bool = False):
        from geometry.nav import ChargePlan

        a = self._token(attacker_id)
        t = self._token(target_id)
        if a.id == t.id:
            return ChargePlan(False, (), None, None, None, "a token cannot charge itself")
        if max_movement is None:
            max_movement = self.charge_movement(a.id)
        reach = DEFAULT_REACH if reach is None else reach
        runup = DEFAULT_RUNUP if runup is None else runup
        try:
            mover, bodies, row = self._charge_from(a, float(reach), float(runup), float(max_movement))
            return mover.plan_at(bodies, row[t.id], shared_tree=True if shared else None)
        except GeometryInputError as exc:
            return ChargePlan(False, (), None, None, None, geometry_text(exc, self.encounter))

    def _charge_from(self, a: Token, reach: float, runup: float, max_movement: float):
        """The attacker's side of its charges (``geometry.nav.ChargeFrom``), the other tokens
        as bodies (rows x, y, r in the encounter's order) and each one's row: kept while the
        attacker, the tokens and the obstacles stay the same, so the charges of one attacker
        at every target share them (the same plans as one by one)."""
        from geometry.nav import ChargeFrom

        nav = self.navigator
        key = (reach, runup, max_movement)
        memo = self._charge_memo  # (attacker, tokens, navigator, key, answer): by identity
        if memo is not None and memo[0] is a and memo[1] is self._tokens and memo[2] is nav and memo[3] == key:
            return memo[4]
        me = self._pos[a.id]
        rows = [i for i in range(len(self._ids)) if i != me]
        bodies = np.column_stack((self._xy[rows], self._r[rows])) if rows else np.zeros((0, 3))
        row = {self._ids[i]: k for k, i in enumerate(rows)}
        mover = ChargeFrom(nav, (a.x, a.y), a.radius, reach=reach, runup=runup, max_movement=max_movement)
        out = (mover, bodies, row)
        self._charge_memo = (a, self._tokens, nav, key, out)
        return out

    # -- zones --------------------------------------------------------------------------------------
    def zone_origin(self, zone_id: str) -> tuple[float, float, float]:
        """Where a zone's fire comes from: plan point (m) and height above ground (m) --
        the owner's eye for directed zones with an owner, else the documented defaults."""
        enc = self.encounter
        z = enc.zone(zone_id)
        x, y = enc.zone_origin(z)
        if z.kind in DIRECTED_ZONES:
            if z.owner is not None:
                return x, y, eye_height(enc.token(z.owner).stance)
            return x, y, UNOWNED_FIRE_HEIGHT
        return x, y, AREA_ZONE_ORIGIN_HEIGHT

    def _shape(self, z: Zone, origin: tuple[float, float]) -> shapely.Geometry:
        k = z.kind
        if k == "suppressive":
            return suppressive_triangle(origin, z.direction, z.length, z.effective_width)
        if k == "shotgun":
            owner = self.encounter.token(z.owner)
            w = zone_weapon(self.encounter, z)
            bands, _ = weapon_bands(owner, w) if w is not None else ((), 0.0)
            if not bands:
                bands = bands_for(FALLBACK_SHOTGUN_CATEGORY)
            widths = SHOTGUN_SPREAD_WIDTHS[z.effective_choke]
            return shotgun_spread(origin, z.direction, [(b.max, wd) for b, wd in zip(bands, widths)],
                                  length=z.length)
        if k in ("blast", "circle"):
            return circle(origin, z.radius)
        if k == "cone":
            return cone(origin, z.direction, z.length, z.angle)
        if k == "line":
            return corridor(origin, z.direction, z.length, z.width)
        if k == "rect":
            return rect(origin, z.direction, z.length, z.width)
        raise GeometryError(f"zone {z.id!r} has unknown kind {k!r}")

    def _zone(self, zone_id: str):
        z = self.encounter.zone(zone_id)
        ox, oy, oz = self.zone_origin(zone_id)
        # a shotgun's spread follows its owner's weapon (bands), not the zone's value alone
        owner = self.encounter.token(z.owner) if z.kind == "shotgun" and z.owner else None
        key = (z, ox, oy, oz, owner)
        hit = self._zone_cache.get(zone_id)
        if hit is not None and hit[0] == key:
            return hit[1]
        with _as_engine_errors():
            shape = self._shape(z, (ox, oy))
        shapely.prepare(shape)
        self._zone_cache[zone_id] = (key, shape)
        return shape

    def zone_shape(self, zone_id: str) -> shapely.Geometry:
        """The zone's area on the map (a Shapely polygon, metres)."""
        return self._zone(zone_id)

    def zone_shape_clipped(self, zone_id: str) -> shapely.Geometry:
        """The zone's area minus the ground where a standing body (``CLIP_BODY_HEIGHT``) is
        wholly hidden from the zone's origin by obstacles taller than the origin height."""
        shape = self._zone(zone_id)
        ox, oy, oz = self.zone_origin(zone_id)
        idx = self.cover_index
        cand = idx.tree.query(shape, predicate="intersects")
        if cand.size == 0:
            return shape
        x0, y0, x1, y1 = shape.bounds
        extent = max(math.hypot(x - ox, y - oy) for x in (x0, x1) for y in (y0, y1))
        with _as_engine_errors():
            shadows = fire_shadows(idx.polygons[cand], idx.heights[cand], (ox, oy), oz,
                                   CLIP_BODY_HEIGHT, extent)
        return shape if shadows.is_empty else shapely.difference(shape, shadows)

    def zone_hits(self) -> dict[str, list[ZoneHit]]:
        """For every zone, the tokens it touches (part of the footprint inside its shape and
        not in full cover from its origin), in the encounter's token order. The owner of a
        directed zone is not in it.

        Incremental: a token's answer for a zone is kept while the token (the same frozen
        value), the zone and its origin stay the same and no obstacle changed near the line
        from the origin to it (the part inside the shape does not depend on obstacles, the
        cover from the origin only on those near that line, :meth:`_untouched`) -- dragging
        one token re-measures that token only (and the zones it owns), an obstacle edit only
        the tokens seen past it."""
        if self._hits is not None:
            return self._hits
        out: dict[str, list[ZoneHit]] = {}
        toks = self._tokens or ()
        live = set()
        rev = self.index_builds
        for z in self.encounter.zones:
            live.add(z.id)
            shape = self._zone(z.id)
            key = self._zone_cache[z.id][0]  # (values: not id(), addresses are reused)
            old = self._hit_cache.get(z.id)  # (key, {token id: (token, hit)}, tokens, obstacles' revision)
            known: dict[str, tuple] = old[1] if old is not None and old[0] == key else {}
            redo: list[int] = []  # rows the obstacles changed near (seen from the origin)
            if known and old[3] != rev:
                ox, oy, _ = self.zone_origin(z.id)
                past = self._seen_past((ox, oy), self._obs.changed_since(old[3]))
                if past is None:
                    known = {}
                else:
                    redo = np.flatnonzero(past).tolist()
            step = self._tok_change
            if known and old[2] is toks:
                todo, fresh = redo, (dict(known) if redo else known)
            elif known and step is not None and step[0] is old[2]:
                # (only the tokens that changed since)
                todo, fresh = sorted(set(step[1]).union(redo)), dict(known)
            else:
                todo = [i for i, t in enumerate(toks) if known.get(t.id, (None,))[0] is not t]
                if redo:
                    todo = sorted(set(todo).union(redo))
                fresh = {t.id: known[t.id] for t in toks if t.id in known}
            if todo:
                idx = np.array(todo, dtype=np.int64)
                with _as_engine_errors():
                    frac = discs_in_shape(shape, self._xy[idx], self._r[idx])
                if z.kind in DIRECTED_ZONES and z.owner is not None:
                    frac[idx == self._pos[z.owner]] = 0.0
                inside = np.nonzero(frac > 0)[0]
                cov = np.zeros(idx.size)
                if inside.size:
                    ox, oy, oz = self.zone_origin(z.id)
                    sel = idx[inside]
                    with _as_engine_errors():
                        cov[inside] = self.cover_index.cover_fractions(
                            (ox, oy), oz, self._xy[sel], self._r[sel], self._h[sel])
                for k, i in enumerate(todo):
                    t = toks[i]
                    f, c = float(frac[k]), float(cov[k])
                    hit = ZoneHit(t.id, f, c) if f > 0 and cover_class(c) != "full" else None
                    fresh[t.id] = (t, hit)
            self._hit_cache[z.id] = (key, fresh, toks, rev)
            out[z.id] = [fresh[t.id][1] for t in toks if fresh[t.id][1] is not None]
        for cache in (self._hit_cache, self._zone_cache):
            for zid in [k for k in cache if k not in live]:
                del cache[zid]
        self._hits = out
        return out

    def token_zones(self) -> dict[str, tuple[str, ...]]:
        """Token id -> ids of the zones touching it (zones in the encounter's order)."""
        by: dict[str, list[str]] = {}
        for zid, hits in self.zone_hits().items():
            for h in hits:
                by.setdefault(h.id, []).append(zid)
        return {k: tuple(v) for k, v in by.items()}
