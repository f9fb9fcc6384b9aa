"""What the players see: light, each token's vision, the party's sight and the explored map.

No Qt. The geometry is :mod:`geometry.sight` (what an eye sees among obstacle prisms); this
module adds the encounter's light and the tokens' vision, as docs/sight.md describes:

* **Light at a point** (:func:`light_at`): the best of the ambient level (the rule system's
  :meth:`~engine.rules.RuleSystem.light_level`) and the level of every light source that is
  ``on`` and whose lit area covers the point (:func:`geometry.sight.lit_area`: a light 2 m up
  "sees" the point, so walls cast shadows and a low wall leaves a standing body lit). The
  light on a body (:func:`token_light`) is judged at the body's own height: a prone body
  behind a low wall can lie in its shadow where a standing one is lit.
* **What a token sees** (its area and the bodies in it): its area in sight
  (:func:`geometry.sight.sight_area`) among the obstacles the players know (the fog's
  floor: a hidden wall is open ground there, so the players' screen gives no shape of it
  away), cut by the light; the bodies it sees are judged with the true obstacles (a hidden
  wall still blocks the eye). Where the light is full, partial or dim the token sees all of it (dim
  and partial light cost modifiers, they do not blind: Shadowrun's dim light is -3); in
  total darkness only what is lit and what lies within its :attr:`Vision.dark_m` metres.
  Low-light vision needs some light, so in total darkness it is normal vision.
  Thermographic vision sees *bodies* (tokens) in the dark anywhere in its area in sight,
  but not the ground.
* **"A sees B"** (:func:`token_sees`): :func:`geometry.sight.sees` (some of B's silhouette
  is not hidden: never "seen" with full cover) and the light rule at B's centre.
* **The party** (:func:`party_view`, :class:`SightCache`): the tokens of the players' sides
  (:func:`player_sides`), hidden ones too (a token the GM hides from the players' screen
  still sees for them). Its sight is the union of theirs; ``visible`` lists the tokens the
  players are shown: their own sides' tokens that are not hidden, and other sides' tokens
  that are not hidden and that some party token sees now. Hidden tokens never.
* **Explored** areas (:func:`explore`, :func:`reveal`, :func:`conceal`,
  :func:`reset_explored`) are kept in ``Encounter.sight.explored`` as
  :class:`~engine.model.Area` values, simplified (:data:`EXPLORED_TOLERANCE`) so files stay
  small.
* :func:`players_knowledge` is the encounter as the players know it: hidden obstacles,
  hidden tokens and hidden zones left out, so the player view's cover, range and zone
  answers use only what they were shown.

Units: metres.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import shapely

from engine.model import LIGHT_LEVELS, MAX_AREA_POINTS, MAX_EXPLORED_POINTS, Area
from geometry.bodies import body_height, eye_height
from geometry.sight import ARC_RAYS, LIGHT_HEIGHT, SIMPLIFY, VERTEX_EPS, sees, sight_area, sight_bounds

if TYPE_CHECKING:
    from engine.model import Encounter, Token

VisionKind = Literal["normal", "low_light", "thermographic"]
VISION_KINDS = ("normal", "low_light", "thermographic")

#: The sides whose tokens are the players' when ``Encounter.sight.player_sides`` is None
#: (compared without regard to case).
DEFAULT_PLAYER_SIDES: tuple[str, ...] = ("runner", "runners", "player", "players", "pc", "pcs",
                                         "party", "ally", "allies")

#: Metres: explored areas are simplified by this much before they are saved (and more, in
#: steps of 2x, while they hold more points than the model allows).
EXPLORED_TOLERANCE = 0.05
#: Metres: saved explored areas' points are rounded to this grid (1 cm).
EXPLORED_GRID = 0.01
#: Metres: a standing body whose centre lies this far inside an eye's area in sight is seen
#: without solving its cover (the area's outline is exact to well under this, docs/geometry.md).
SEES_MARGIN = 0.05
_STANDING = body_height("standing")
#: Pieces of explored area smaller than this (m^2) are dropped when saved.
EXPLORED_MIN_AREA = 0.01


@dataclass(frozen=True)
class Vision:
    """How a token sees: ``kind`` ("normal", "low_light", "thermographic") and ``dark_m``,
    the metres it sees in total darkness (its own light or vision; 0: none)."""

    kind: VisionKind = "normal"
    dark_m: float = 0.0

    def __post_init__(self):
        if self.kind not in VISION_KINDS:
            raise ValueError(f"unknown vision {self.kind!r}; known: {', '.join(VISION_KINDS)}")
        d = float(self.dark_m)
        if not math.isfinite(d) or d < 0:
            raise ValueError(f"the dark vision range must be a finite number >= 0 m, got {self.dark_m!r}")


class PartyView:
    """What the party sees now: ``sight`` (the union of its tokens' areas in sight, cut by
    the light), ``explored`` (the encounter's explored areas and ``sight`` together: all the
    players have seen), both Shapely geometries in metres, clipped to the map; ``visible``,
    the ids of the tokens the players are shown (module docstring). ``remembered`` is the
    saved explored areas alone (None: none). ``explored`` is worked out when first read (a
    union with the remembered areas), so a drag step that does not draw it does not pay.
    ``parts`` are the pieces ``sight`` is the union of, as ``(key, geometry)`` pairs, one
    per party token (the key names its place, stance and light), for keeping what the
    players were shown during a drag (:func:`explore`'s ``also``) without a union a step."""

    __slots__ = ("sight", "visible", "remembered", "parts", "_explored")

    def __init__(self, sight: shapely.Geometry, explored: shapely.Geometry | None = None,
                 visible: frozenset[str] = frozenset(), *, remembered: shapely.Geometry | None = None,
                 parts: tuple = ()) -> None:
        self.sight = sight
        self.visible = frozenset(visible)
        self.remembered = remembered
        self.parts = tuple(parts)
        self._explored = explored

    @property
    def explored(self) -> shapely.Geometry:
        if self._explored is None:
            self._explored = self.sight if self.remembered is None else shapely.union(self.remembered, self.sight)
        return self._explored

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PartyView):
            return NotImplemented
        return (self.visible == other.visible and shapely.equals(self.sight, other.sight)
                and shapely.equals(self.explored, other.explored))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"PartyView(sight={self.sight.area:.1f} m2, visible={sorted(self.visible)}, "
                f"remembered={'none' if self.remembered is None else f'{self.remembered.area:.1f} m2'})")


# -- light ------------------------------------------------------------------------------------
def brightest(levels) -> str:
    """The brightest of light levels (``"dark"`` when there are none)."""
    best = len(LIGHT_LEVELS) - 1
    for lv in levels:
        best = min(best, LIGHT_LEVELS.index(lv))
    return LIGHT_LEVELS[best]


def ambient(enc: Encounter) -> str:
    """The encounter's ambient light level (its rule system's setting)."""
    return enc.system.light_level(enc)


def light_at(enc: Encounter, x: float, y: float, cache: SightCache | None = None, *,
             body: float | None = None) -> str:
    """The light level at map point (``x``, ``y``) metres: the best of the ambient level and
    the lights that are on and reach it unshaded (module docstring): that do not leave a
    column ``body`` m tall there (None: a standing body, 1.8 m) wholly in shadow."""
    return (cache or _SHARED).light_at(enc, x, y, body)


def token_light(enc: Encounter, token: Token | str, cache: SightCache | None = None) -> str:
    """The light on a token (a :class:`~engine.model.Token` or its id): :func:`light_at` its
    centre, judged at the height of its body in its stance (a prone body lies in a low
    wall's shadow where a standing one is lit)."""
    t = enc.token(token) if isinstance(token, str) else token
    return light_at(enc, t.x, t.y, cache, body=body_height(t.stance))


# -- sides ------------------------------------------------------------------------------------
def player_sides(enc: Encounter) -> tuple[str, ...]:
    """The players' sides: ``enc.sight.player_sides``, or :data:`DEFAULT_PLAYER_SIDES`."""
    sides = enc.sight.player_sides
    return DEFAULT_PLAYER_SIDES if sides is None else tuple(sides)


def is_players(enc: Encounter, token: Token, sides: tuple[str, ...] | None = None) -> bool:
    """Whether ``token`` is on one of the players' sides (case does not matter)."""
    sides = player_sides(enc) if sides is None else sides
    return token.side.casefold() in {s.casefold() for s in sides}


def party(enc: Encounter) -> tuple[Token, ...]:
    """The tokens of the players' sides, hidden ones too (they see for the party)."""
    keep = {s.casefold() for s in player_sides(enc)}
    return tuple(t for t in enc.tokens if t.side.casefold() in keep)


# -- the party's view -----------------------------------------------------------------------
def party_view(enc: Encounter) -> PartyView:
    """What the party sees now (:class:`PartyView`), from a shared :class:`SightCache`."""
    return _SHARED.view(enc)


def token_sight(enc: Encounter, token_id: str, cache: SightCache | None = None) -> shapely.Geometry:
    """The area (metres, clipped to the map) one token sees now, its light rule applied."""
    return (cache or _SHARED).token_area(enc, enc.token(token_id))


def token_sees(enc: Encounter, viewer_id: str, target_id: str, cache: SightCache | None = None) -> bool:
    """Whether token ``viewer_id`` sees token ``target_id`` now: some of the target's
    silhouette is not hidden from the viewer's eye (:func:`geometry.sight.sees`, the cover
    computation: never with full cover) and the light rule lets it make it out."""
    return (cache or _SHARED).sees(enc, enc.token(viewer_id), enc.token(target_id))


class SightCache:
    """Remembers the pieces of the party's sight between calls, so that a call after a
    small edit redoes only what it touched: each token's area in sight is kept by its
    position and stance, each light's lit area by its place and radius (all dropped when the
    blocking obstacles change), and the union of the party's areas but one, so dragging a
    token redoes only its own part. One cache per window (not thread-safe by itself: calls
    are serialised by a lock)."""

    def __init__(self) -> None:
        from engine.obstacles import ObstacleSet

        self._lock = threading.RLock()
        self._obs = ObstacleSet()  # the true obstacles: they hide bodies (a hidden wall too)
        self._floor_obs = ObstacleSet()  # the ones the players know: the fog's floor
        self._floor_in: tuple | None = None  # (enc.obstacles, its known part) for the floor set
        self._rev: tuple | None = None  # (obstacle-set revisions, map box)
        self._areas: dict[tuple, shapely.Geometry] = {}  # geometric area by (x, y, stance)
        self._outer: dict[tuple, shapely.Geometry] = {}  # a polygon sure to hold all of it (same keys)
        self._lights: dict[tuple, shapely.Geometry] = {}  # lit area by (x, y, radius, body height)
        self._lit: dict[tuple, tuple] = {}  # (body height, floor) -> (key, {level: geometry})
        self._hidden = False  # whether some obstacle is hidden from the players
        self._secret: shapely.Geometry | None = None  # the hidden blocking footprints' union
        self._seen: dict[tuple, shapely.Geometry] = {}  # area after light by (area key, light key, vision)
        self._rest: tuple | None = None  # (keys of all but one, their union)
        self._last: list | None = None  # the party's area keys at the last call
        self._whole: tuple | None = None  # (the party's area keys, their union) at the last call
        self._explored: tuple | None = None  # (explored tuple, its union)
        self._sees: dict[tuple, dict] = {}  # eye key (place, vision, light) -> {target key: seen}
        self.computed_areas = 0  # token areas computed (not taken from the cache): for tests, benches

    # -- the obstacles -------------------------------------------------------------------
    @property
    def _floor_index(self):
        """The cover index of the floor's areas in sight: the obstacles the players know
        (hidden ones left out, docs/sight.md "Hidden obstacles and the fog"), or the true
        index itself when nothing is hidden."""
        return self._floor_obs.cover if self._hidden else self._obs.cover

    def _sync(self, enc: Encounter) -> None:
        box = (0.0, 0.0, float(enc.map.width), float(enc.map.height))
        before, before_f = self._obs.revision, self._floor_obs.revision
        self._obs.update(enc.obstacles, box)
        if self._floor_in is None or self._floor_in[0] is not enc.obstacles:
            known = _known_obstacles(enc.obstacles)
            secret = [shapely.Polygon(o.polygon) for o in enc.obstacles if o.hidden and o.blocks]
            geom = shapely.union_all(secret) if secret else None
            if geom is not None:
                shapely.prepare(geom)
            self._floor_in = (enc.obstacles, known, geom)
        known, self._secret = self._floor_in[1], self._floor_in[2]
        self._hidden = known is not enc.obstacles
        if self._hidden:
            self._floor_obs.update(known, box)
        rev = (self._obs.revision, self._floor_obs.revision, self._hidden, box)
        if rev == self._rev:
            return
        boxes = None
        if self._rev is not None and self._rev[3] == box and self._rev[2] == self._hidden:
            boxes = self._obs.changed_since(before)
            if boxes is not None and self._hidden:
                more = self._floor_obs.changed_since(before_f)
                boxes = None if more is None else boxes + more
        self._rev = rev
        self._rest = None
        self._last = None
        self._whole = None
        if not boxes:
            self._areas.clear()
            self._outer.clear()
            self._lights.clear()
            self._seen.clear()
            self._sees.clear()
            self._lit.clear()
            return
        self._forget_near(boxes)

    def _forget_near(self, boxes: list[tuple]) -> None:
        """Drop what the obstacle changes inside ``boxes`` may have changed. An eye's area
        in sight and its answers about bodies change only when a changed footprint touches
        that area: if every point of a footprint is hidden (a standing column there is), so
        is every point behind it, and every line from eyes below a standing body's top to a
        body point behind it is blocked on the way (docs/sight.md)."""
        changed = shapely.union_all([shapely.box(*b).buffer(SEES_MARGIN) for b in boxes])
        shapely.prepare(changed)
        gone = [k for k, a in self._outer.items() if shapely.intersects(changed, a)]
        for k in gone:
            del self._areas[k], self._outer[k]
        gone_set = set(gone)
        for ek in [ek for ek in self._sees if ek[:3] in gone_set]:
            del self._sees[ek]
        # a light stands above a body's top, where that argument does not hold: any change
        # within its reach redoes it
        lit_gone = [k for k in self._lights if shapely.dwithin(changed, shapely.Point(k[0], k[1]), k[2])]
        for k in lit_gone:
            del self._lights[k]
        if lit_gone:  # what is lit changed: every answer in the dark may have
            self._lit.clear()
            self._seen.clear()
            self._sees = {ek: d for ek, d in self._sees.items() if not isinstance(ek[5], tuple)}
        else:
            for sk in [sk for sk in self._seen if sk[0] in gone_set]:
                del self._seen[sk]

    def _reach(self, enc: Encounter) -> float:
        return math.hypot(enc.map.width, enc.map.height)

    def _clip(self, enc: Encounter, geom: shapely.Geometry) -> shapely.Geometry:
        return shapely.clip_by_rect(geom, 0.0, 0.0, float(enc.map.width), float(enc.map.height))

    # -- light ---------------------------------------------------------------------------
    def _light_key(self, enc: Encounter) -> tuple:
        return (ambient(enc),) + tuple((li.x, li.y, li.radius, li.level) for li in enc.lights if li.on)

    def lit(self, enc: Encounter, body: float | None = None) -> dict[str, shapely.Geometry]:
        """The areas lit by the lights that are on, by level ("full", "partial", "dim"),
        clipped to the map (metres): where a column ``body`` m tall (None: a standing body)
        is not wholly in shadow."""
        with self._lock:
            self._sync(enc)
            return self._lit_areas(enc, body)

    def _lit_areas(self, enc: Encounter, body: float | None = None, floor: bool = False) -> dict[str, shapely.Geometry]:
        """The lit areas by level for a column ``body`` m tall (None: standing); ``floor``:
        for the fog's floor, where hidden obstacles cast no shadow (they do on bodies)."""
        H = _STANDING if body is None else float(body)
        floor = floor and self._hidden
        key = tuple((li.x, li.y, li.radius, li.level) for li in enc.lights if li.on)
        hit = self._lit.get((H, floor))
        if hit is not None and hit[0] == key:
            return hit[1]
        index = self._floor_index if floor else self._obs.cover
        by_level: dict[str, list] = {}
        for x, y, r, level in key:
            k = (x, y, r, H, floor)
            a = self._lights.get(k)
            if a is None:
                a = self._clip(enc, sight_area(index, (x, y), LIGHT_HEIGHT, H, vision=r))
                self._lights[k] = a
            by_level.setdefault(level, []).append(a)
        out = {lv: shapely.union_all(parts) for lv, parts in by_level.items()}
        self._lit[(H, floor)] = (key, out)
        return out

    def light_at(self, enc: Encounter, x: float, y: float, body: float | None = None) -> str:
        with self._lock:
            self._sync(enc)
            amb = ambient(enc)
            if amb == "full" or not enc.lights:
                return amb
            lit = self._lit_areas(enc, body)
            for lv in LIGHT_LEVELS[:LIGHT_LEVELS.index(amb)]:  # brighter than the ambient, brightest first
                geom = lit.get(lv)
                if geom is not None and shapely.intersects_xy(geom, float(x), float(y)):
                    return lv
            return amb

    # -- one token -------------------------------------------------------------------------
    def _area(self, enc: Encounter, t: Token) -> tuple[tuple, shapely.Geometry]:
        k = (t.x, t.y, t.stance)
        a = self._areas.get(k)
        if a is None:
            self.computed_areas += 1
            a, outer = sight_bounds(self._floor_index, (t.x, t.y), eye_height(t.stance), vision=self._reach(enc))
            a = self._clip(enc, a)
            self._areas[k] = a
            self._outer[k] = a if outer is a else self._clip(enc, outer)
        return k, a

    def _vision(self, enc: Encounter, t: Token) -> Vision:
        return enc.system.vision(enc, t)

    def _token_area(self, enc: Encounter, t: Token) -> tuple[tuple, shapely.Geometry]:
        k, a = self._area(enc, t)
        amb = ambient(enc)
        if amb != "dark":
            return k, a
        v = self._vision(enc, t)
        lkey = self._light_key(enc)
        key = (k, lkey, v.dark_m)
        seen = self._seen.get(key)
        if seen is None:
            lit = self._lit_areas(enc, floor=True)
            parts = list(lit.values())
            if v.dark_m > 0:
                parts.append(shapely.Point(t.x, t.y).buffer(v.dark_m, quad_segs=32))
            seen = shapely.intersection(a, shapely.union_all(parts)) if parts else shapely.Polygon()
            self._seen[key] = seen
        return key, seen

    def token_area(self, enc: Encounter, t: Token) -> shapely.Geometry:
        with self._lock:
            self._sync(enc)
            return self._token_area(enc, t)[1]

    def sees(self, enc: Encounter, viewer: Token, target: Token) -> bool:
        with self._lock:
            self._sync(enc)
            return self._sees_many(enc, viewer, [target])[0]

    def sees_all(self, enc: Encounter, viewer_id: str, target_ids) -> list[bool]:
        """Whether token ``viewer_id`` sees each of ``target_ids`` (:func:`token_sees`)."""
        with self._lock:
            self._sync(enc)
            return self._sees_many(enc, enc.token(viewer_id), [enc.token(t) for t in target_ids])

    def _eye_key(self, enc: Encounter, viewer: Token, v: Vision | None = None, amb: str | None = None) -> tuple:
        """The key of an eye's answers about bodies: its place, stance and vision, the light."""
        v = self._vision(enc, viewer) if v is None else v
        amb = ambient(enc) if amb is None else amb
        return (viewer.x, viewer.y, viewer.stance, v.kind, v.dark_m, self._light_key(enc) if amb == "dark" else amb)

    def _sees_many(self, enc: Encounter, viewer: Token, targets: list, keys: list | None = None) -> list[bool]:
        """Whether ``viewer`` sees each of ``targets`` (see :func:`token_sees`), cached by
        the viewer's place, stance and vision, the light, and each target's place, stance
        and size."""
        v = self._vision(enc, viewer)
        amb = ambient(enc)
        eye_key = self._eye_key(enc, viewer, v, amb)
        known = self._sees.get(eye_key)
        if known is None:
            if len(self._sees) > 1000:
                self._sees.clear()
            known = self._sees[eye_key] = {}
        if keys is None:  # (the targets' keys, given by a caller asking several eyes)
            keys = [(t.x, t.y, t.stance, t.radius) for t in targets]
        out = [known.get(k) for k in keys]
        todo = [i for i, hit in enumerate(out) if hit is None]
        if todo:
            akey, area = self._area(enc, viewer)
            outer = self._outer[akey]
            # The area in sight is where a standing body would not be wholly hidden: a body
            # none of whose disc comes near a polygon sure to hold all of it (``outer``: the
            # area's outline cuts corners where two walls' edges cross between its rays) is
            # not seen (its silhouette lies in its disc); a standing body whose centre lies
            # inside the area itself (never more than what is in sight), clear of its
            # outline by SEES_MARGIN, is seen. Only the rest are solved with the cover
            # computation itself (geometry.sight.sees).
            xy = np.array([keys[i][:2] for i in todo], dtype=float).reshape(-1, 2)
            r = np.array([keys[i][3] for i in todo], dtype=float)
            h = np.array([body_height(keys[i][2]) for i in todo], dtype=float)
            pts = shapely.points(xy)
            shapely.prepare(area)
            shapely.prepare(outer)
            near = shapely.dwithin(outer, pts, r + self._slack(enc))
            ok = np.zeros(len(todo), dtype=bool)
            tall = near & (h >= _STANDING) & shapely.contains_xy(area, xy[:, 0], xy[:, 1])
            if tall.any() and self._secret is not None:
                # the area is the floor's (hidden obstacles left out): a body is seen without
                # solving only when no hidden footprint lies on the line to its centre
                idx = np.nonzero(tall)[0]
                lines = shapely.linestrings(np.stack([np.broadcast_to([viewer.x, viewer.y], (idx.size, 2)),
                                                      xy[idx]], axis=1))
                tall[idx[shapely.intersects(self._secret, lines)]] = False
            if tall.any():
                idx = np.nonzero(tall)[0]
                clear = shapely.distance(area.boundary, pts[idx]) > SEES_MARGIN
                ok[idx[clear]] = True
                near[idx[clear]] = False
            if near.any():
                idx = np.nonzero(near)[0]
                ok[idx] = sees(self._obs.cover, (viewer.x, viewer.y), eye_height(viewer.stance), xy[idx], r[idx],
                               h[idx])
            if ok.any() and amb == "dark" and v.kind != "thermographic":
                ok &= self._lit_or_near(enc, viewer, v, xy, r, h)
            for j, i in enumerate(todo):
                out[i] = known[keys[i]] = bool(ok[j])
        return out  # type: ignore[return-value]

    def _slack(self, enc: Encounter) -> float:
        """Metres a body's disc may miss the outer polygon by and still be asked about:
        the outline's simplification (4 x SIMPLIFY) and the slivers either side of a
        vertex's bearing (2 x VERTEX_EPS x the reach) and the vision circle's chords (the
        reach x (1 - cos(pi / ARC_RAYS))), :func:`geometry.sight.sight_bounds`."""
        reach = self._reach(enc)
        return 1e-6 + 4 * SIMPLIFY + 2 * VERTEX_EPS * reach + reach * (1 - math.cos(math.pi / ARC_RAYS))

    def _lit_or_near(self, enc: Encounter, viewer: Token, v: Vision, xy: np.ndarray, r: np.ndarray,
                     h: np.ndarray) -> np.ndarray:
        """In total darkness, whether the light lets ``viewer`` make out bodies at ``xy``
        (radii ``r``, heights ``h``): the centre stands in some light, judged at the body's
        own height (:func:`token_light`), or within the viewer's dark vision."""
        ok = np.hypot(xy[:, 0] - viewer.x, xy[:, 1] - viewer.y) <= v.dark_m + r
        for H in np.unique(h):
            these = h == H
            for geom in self._lit_areas(enc, float(H)).values():
                if ok[these].all():
                    break
                ok[these] |= shapely.intersects_xy(geom, xy[these, 0], xy[these, 1])
        return ok

    # -- the party -----------------------------------------------------------------------
    def view(self, enc: Encounter) -> PartyView:
        """What the party sees now (:class:`PartyView`)."""
        with self._lock:
            self._sync(enc)
            eyes = party(enc)
            keyed = [self._token_area(enc, t) for t in eyes]
            sight = self._union(keyed)
            remembered = self._explored_union(enc)
            sides = {s.casefold() for s in player_sides(enc)}
            visible = {t.id for t in enc.tokens if not t.hidden and t.side.casefold() in sides}
            others = [t for t in enc.tokens if not t.hidden and t.side.casefold() not in sides]
            if others:
                seen = np.zeros(len(others), dtype=bool)
                keys = [(t.x, t.y, t.stance, t.radius) for t in others]
                # eyes whose answers are kept first: the one that moved (a drag step) then
                # measures only the bodies none of the others sees (the same union)
                eyes = sorted(eyes, key=lambda t: self._eye_key(enc, t) not in self._sees)
                for eye in eyes:
                    left = [i for i in range(len(others)) if not seen[i]]
                    if not left:
                        break
                    res = self._sees_many(enc, eye, [others[i] for i in left], [keys[i] for i in left])
                    for i, s in zip(left, res):
                        seen[i] = s
                visible |= {others[i].id for i in np.nonzero(seen)[0]}
            return PartyView(sight, None if remembered is not None else sight, frozenset(visible),
                             remembered=remembered, parts=tuple(keyed))

    def _union(self, keyed: list[tuple[tuple, shapely.Geometry]]) -> shapely.Geometry:
        """The union of the areas, reusing the union of all but one kept from the last call
        (a drag moves one token), and the last call's union itself for the same areas (a
        drop after the drag's last step, worked out again on committing it)."""
        if not keyed:
            return shapely.Polygon()
        if len(keyed) == 1:
            return keyed[0][1]
        keys = [k for k, _ in keyed]
        if self._whole is not None and self._whole[0] == keys:
            return self._whole[1]  # (the same areas: a drop after its last step, a fog-only edit)
        whole = self._union_of(keyed, keys)
        self._whole = (keys, whole)
        return whole

    def _union_of(self, keyed: list[tuple[tuple, shapely.Geometry]], keys: list) -> shapely.Geometry:
        if self._rest is not None:
            rest_keys, rest = self._rest
            if len(rest_keys) == len(keys) - 1:
                for j in range(len(keys)):
                    if keys[:j] + keys[j + 1:] == rest_keys:
                        self._last = keys
                        return shapely.union(rest, keyed[j][1])
        last, self._last = self._last, keys
        if last is not None and len(last) == len(keys):
            moved = [j for j in range(len(keys)) if keys[j] != last[j]]
            if len(moved) == 1:  # one token moved since the last call: a drag begins
                j = moved[0]
                rest = shapely.union_all([a for i, (_, a) in enumerate(keyed) if i != j])
                self._rest = (keys[:j] + keys[j + 1:], rest)
                return shapely.union(rest, keyed[j][1])
        return shapely.union_all([a for _, a in keyed])

    def _explored_union(self, enc: Encounter) -> shapely.Geometry | None:
        areas = enc.sight.explored
        if not areas:
            return None
        if self._explored is not None and self._explored[0] is areas:
            return self._explored[1]
        u = explored_geometry(enc)
        self._explored = (areas, u)
        return u


_SHARED = SightCache()


# -- explored areas ---------------------------------------------------------------------------
def explored_geometry(enc: Encounter) -> shapely.Geometry:
    """The encounter's explored areas as one Shapely geometry (metres). The last few are
    remembered by identity (an edit keeps the explored tuple), so a drag's steps do not
    rebuild it."""
    areas = enc.sight.explored
    if not areas:
        return shapely.Polygon()
    hit = _GEOMS.get(id(areas))
    if hit is not None and hit[0] is areas:
        return hit[1]
    geom = shapely.union_all([a.geometry() for a in areas])
    _remember(areas, geom)
    return geom


_GEOMS: dict[int, tuple] = {}


def _remember(areas: tuple, geom: shapely.Geometry) -> None:
    if len(_GEOMS) > 16:
        _GEOMS.clear()
    _GEOMS[id(areas)] = (areas, geom)


def areas_of(geom: shapely.Geometry, tolerance: float = EXPLORED_TOLERANCE) -> tuple[Area, ...]:
    return _areas_and_geometry(geom, tolerance)[0]


def _areas_and_geometry(geom: shapely.Geometry, tolerance: float = EXPLORED_TOLERANCE):
    """``geom`` as :class:`~engine.model.Area` values for saving: simplified by
    ``tolerance`` metres (doubled while the result has more points than
    :data:`~engine.model.MAX_EXPLORED_POINTS` together or
    :data:`~engine.model.MAX_AREA_POINTS` in one area), points rounded to
    :data:`EXPLORED_GRID`, pieces under :data:`EXPLORED_MIN_AREA` m^2 dropped."""
    tol = float(tolerance)
    for _ in range(40):
        g = shapely.simplify(geom, tol, preserve_topology=True)
        g = shapely.set_precision(g, EXPLORED_GRID)
        polys = [p for p in _polygons(g) if p.area >= EXPLORED_MIN_AREA]
        counts = [int(shapely.get_num_coordinates(p)) for p in polys]
        if sum(counts) <= MAX_EXPLORED_POINTS and all(c <= MAX_AREA_POINTS for c in counts):
            areas = tuple(
                Area.model_construct(outer=_ring_of(p.exterior), holes=tuple(_ring_of(h) for h in p.interiors))
                for p in polys)  # valid by construction (set_precision): the checks are skipped
            return areas, shapely.MultiPolygon(polys) if len(polys) > 1 else (polys[0] if polys else shapely.Polygon())
        tol *= 2.0
    return (), shapely.Polygon()  # pragma: no cover - a tolerance of 5e10 m leaves nothing to count


def _ring_of(ring) -> tuple[tuple[float, float], ...]:
    return tuple(map(tuple, np.round(np.asarray(ring.coords)[:-1], 2).tolist()))  # the 1 cm grid, short in JSON


def _polygons(g: shapely.Geometry) -> list[shapely.Polygon]:
    if g.is_empty:
        return []
    if isinstance(g, shapely.Polygon):
        return [g]
    if hasattr(g, "geoms"):
        return [p for part in g.geoms for p in _polygons(part)]
    return []


def explored_areas(enc: Encounter, geom: shapely.Geometry) -> tuple[tuple[Area, ...], shapely.Geometry]:
    """``geom`` clipped to the map of ``enc`` as saved explored areas (simplified, on the
    1 cm grid: :func:`areas_of`) and their geometry, for :func:`with_areas` (Qt-free and
    thread-safe: a GUI may work it out in a worker thread)."""
    geom = shapely.clip_by_rect(geom, 0.0, 0.0, float(enc.map.width), float(enc.map.height))
    return _areas_and_geometry(geom)


def with_areas(enc: Encounter, areas: tuple[Area, ...], made: shapely.Geometry) -> Encounter:
    """The encounter with ``areas`` (from :func:`explored_areas`, whose geometry ``made`` is
    remembered for them) as its explored areas."""
    _remember(areas, made)
    sight = enc.sight.model_copy(update={"explored": areas})
    return enc.model_copy(update={"sight": sight})


def with_explored(enc: Encounter, geom: shapely.Geometry) -> Encounter:
    """The encounter with ``geom`` (clipped to the map) as its explored areas."""
    return with_areas(enc, *explored_areas(enc, geom))


def explore(enc: Encounter, view: PartyView | None = None, also=()) -> Encounter:
    """The encounter with what the party sees now (``view``, default :func:`party_view`)
    and the geometries ``also`` (what the players were shown before: the party's sight
    when the file was opened or the fog switched on, each step of a drag) added to its
    explored areas."""
    view = party_view(enc) if view is None else view
    extra = [g for g in also if g is not None and not g.is_empty]
    if not extra:
        return with_explored(enc, shapely.union(explored_geometry(enc), view.sight))
    return with_explored(enc, shapely.union_all([explored_geometry(enc), view.sight, *extra]))


def reveal(enc: Encounter, geom: shapely.Geometry) -> Encounter:
    """The encounter with ``geom`` (metres) added to the explored areas (the GM's brush)."""
    return with_explored(enc, shapely.union(explored_geometry(enc), _areal(geom)))


def conceal(enc: Encounter, geom: shapely.Geometry) -> Encounter:
    """The encounter with ``geom`` (metres) taken out of the explored areas."""
    return with_explored(enc, shapely.difference(explored_geometry(enc), _areal(geom)))


def reset_explored(enc: Encounter) -> Encounter:
    """The encounter with nothing explored."""
    return enc.model_copy(update={"sight": enc.sight.model_copy(update={"explored": ()})})


def _areal(geom: shapely.Geometry) -> shapely.Geometry:
    if not isinstance(geom, shapely.Geometry):
        raise ValueError(f"expected a Shapely geometry, got {type(geom).__name__}")
    return geom if geom.is_valid else shapely.make_valid(geom)


# -- what the players know --------------------------------------------------------------------
_KNOWN: dict[int, tuple] = {}


def players_knowledge(enc: Encounter) -> Encounter:
    """The encounter as the players know it: hidden obstacles, hidden tokens and hidden
    zones left out (a zone whose owner is hidden stays where it was fired from, without the
    owner; a shotgun zone, which needs its owner, goes). Nothing hidden: ``enc`` itself.
    The same input gives the same (identical) output, so caches keyed by identity keep
    working. For the player view's answers; the GM's keep the true encounter."""
    hit = _KNOWN.get(id(enc))
    if hit is not None and hit[0] is enc:
        return hit[1]
    hidden_t = {t.id for t in enc.tokens if t.hidden}
    obstacles = _known_obstacles(enc.obstacles)  # remembered by identity: no scan on a token edit
    tokens = tuple(t for t in enc.tokens if not t.hidden) if hidden_t else enc.tokens
    zones = _known_zones(enc, hidden_t)
    if obstacles is enc.obstacles and tokens is enc.tokens and zones is enc.zones:
        return enc
    out = enc.model_copy(update={"obstacles": obstacles, "tokens": tokens, "zones": zones})
    if len(_KNOWN) > 8:
        _KNOWN.clear()
    _KNOWN[id(enc)] = (enc, out)
    return out


_KNOWN_ZONES: tuple = (None, None, None)


def zones_without_owners(enc: Encounter, zones: tuple, owners) -> tuple:
    """``zones`` as the players know them when the tokens ``owners`` are not shown: each such
    zone stays where it was fired from, without its owner; a shotgun spread, which needs its
    owner, goes."""
    out = []
    for z in zones:
        if z.owner in owners:
            if z.kind == "shotgun":
                continue
            ox, oy = enc.zone_origin(z)
            z = z.model_copy(update={"owner": None, "x": ox, "y": oy})
        out.append(z)
    return tuple(out)


def _known_zones(enc: Encounter, hidden_t: set[str]) -> tuple:
    """The zones the players know (see :func:`players_knowledge`); the very same tuple
    while neither the zones nor the hidden owners' places change (a drag step of another
    token keeps the zones' caches)."""
    global _KNOWN_ZONES
    if not any(z.hidden or z.owner in hidden_t for z in enc.zones):
        return enc.zones
    owners = tuple(sorted((z.owner, *enc.zone_origin(z)) for z in enc.zones if z.owner in hidden_t))
    seen, key, out = _KNOWN_ZONES
    if seen is enc.zones and key == owners:
        return out
    out = zones_without_owners(enc, tuple(z for z in enc.zones if not z.hidden), hidden_t)
    _KNOWN_ZONES = (enc.zones, owners, out)
    return out


_KNOWN_OBS: tuple = (None, None)


def _known_obstacles(obstacles: tuple) -> tuple:
    """The obstacles that are not hidden; the same tuple for the same input (an edit to a
    token keeps the obstacle tuple, so the players' cover index is kept too). The pair is
    replaced in one assignment, so threads never see one input with another's output."""
    global _KNOWN_OBS
    seen, out = _KNOWN_OBS
    if seen is obstacles:
        return out
    out = tuple(o for o in obstacles if not o.hidden)
    if len(out) == len(obstacles):
        out = obstacles
    _KNOWN_OBS = (obstacles, out)
    return out


__all__ = [
    "DEFAULT_PLAYER_SIDES", "EXPLORED_TOLERANCE", "PartyView", "SightCache", "VISION_KINDS", "Vision",
    "ambient", "areas_of", "brightest", "conceal", "explore", "explored_areas", "explored_geometry", "is_players",
    "light_at", "party", "party_view", "player_sides", "players_knowledge", "reset_explored", "reveal",
    "token_light", "token_sees", "token_sight", "with_areas", "with_explored",
]
