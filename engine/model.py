"""The encounter model: what a GM's encounter file holds, as frozen pydantic values.

Units are metres and degrees. x grows east, y grows south, the origin is the map's top-left
corner; a direction of 0 degrees points east and 90 degrees south. The JSON layout of the
file is documented in ``docs/encounter-format.md`` (with a schema generated from these
models by ``python -m engine.schema``).

Every model is frozen: an edit makes a new value (``model_copy(update=...)``, then
:func:`revalidate` when the edit could break an invariant). Fields other programs wrote that
Coverfire does not know are kept and saved back (``extra="allow"``).
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any, Literal

import shapely
from pydantic import (BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, ValidationInfo, field_validator,
                      model_serializer, model_validator)

from engine import limits
from engine import registry as _rules
from engine.record import Record
from engine.errors import CoverfireError, EncounterFileError
from engine.footprint import bounded_footprint
from engine.id_index import IdIndex
from engine.ranges import BAND_NAMES, CATEGORIES

if TYPE_CHECKING:
    from engine.rules import RuleSystem

FORMAT = "coverfire.encounter"
#: The version this Coverfire writes. Version 2 keeps each rule system's data under one
#: ``rules`` mapping keyed by ruleset name; version 1 had one field per system beside the
#: others (``"sr5": {...}``), which loads as before (moved under ``rules``) and saves as 2.
VERSION = 2
#: Every version this Coverfire reads.
VERSIONS = (1, 2)

Stance = Literal["standing", "crouched", "prone"]
ZoneKind = Literal["suppressive", "shotgun", "blast", "circle", "cone", "line", "rect"]
Choke = Literal["narrow", "medium", "wide"]
#: How a suppressive zone is fired (seed 001): plain, enhanced (5 m at the far end), or a
#: full-auto shotgun's flechettes (narrow choke: as enhanced; medium/wide: wider).
SuppressiveFire = Literal["standard", "enhanced", "flechette"]
BandName = Literal["short", "medium", "long", "extreme"]
#: What a grenade, minigrenade, rocket or missile carries (its blast: engine/sr5/blast.py).
BlastKind = Literal["fragmentation", "high_explosive", "flash_bang", "gas", "smoke"]

#: How much light there is at a place: the Shadowrun environment table's light column (full
#: light, partial light, dim light, total darkness), also the plain setting of other systems.
LightLevel = Literal["full", "partial", "dim", "dark"]
#: The light levels, brightest first (:func:`engine.vision.brightest` picks by this order).
LIGHT_LEVELS: tuple[str, ...] = ("full", "partial", "dim", "dark")
#: The level a light source gives where it shines ("dark" is no light at all).
LitLevel = Literal["full", "partial", "dim"]

#: What an obstacle is when it is more than cover of its height (doors are ``door``).
ObstacleKind = Literal["window"]

#: Zone kinds whose shape points away from an origin along ``direction``.
DIRECTED_ZONES = ("suppressive", "shotgun", "cone", "line")
#: Zone kinds that are an area placed at ``x``, ``y`` (their origin is that centre).
AREA_ZONES = ("blast", "circle", "rect")

DEFAULT_RADIUS = 0.4
SUPPRESSIVE_WIDTH = 10.0  # far-end width of a full 20-round suppressive burst (sr5-facts.md)
SUPPRESSIVE_ROUNDS = 20
ENHANCED_SUPPRESSIVE_WIDTH = 5.0  # "narrows the width at the end of the zone to 5 meters" (seed 001)
#: Flechette suppressive fire with a medium or wide choke: metres added to the far-end width,
#: by the band (short, medium, long, extreme of a flechette shotgun: 15/30/45/60 m) the far end
#: lies in - the shotgun spread table's widths (sr5-facts.md), the documented default
#: (docs/sr5.md); a zone's own ``width`` overrides it.
FLECHETTE_SUPPRESSIVE_EXTRA = {"medium": (2.0, 4.0, 6.0, 8.0), "wide": (3.0, 6.0, 9.0, 12.0)}
FLECHETTE_BAND_MAXIMA = (15.0, 30.0, 45.0, 60.0)


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)


class _WithRules(_Value):
    """A value that carries per-system data: ``rules`` maps a ruleset name to that system's
    data (its ``Sheet`` for a token, its ``Settings`` for the encounter), validated through
    the registry (:mod:`engine.rules`). A system's accessors (``sheet(token)``,
    ``settings(encounter)``) read it with their defaults. (The field itself is declared
    last in each model, so a saved file lists it after the common fields.)"""

    def with_rules(self, name: str, data: Any):
        """A copy with ``data`` as the ``name`` system's data (None removes it)."""
        new = dict(self.rules)
        if data is None:
            new.pop(name, None)
        else:
            new[name] = data
        return self.model_copy(update={"rules": new})


class RangeBand(_Value):
    """A weapon's own range band: upper bound ``max`` in metres, pool ``modifier``."""

    band: BandName
    max: float = Field(gt=0)
    modifier: int


class Weapon(_Value):
    """A weapon a token carries. ``category`` names a range table (``engine.ranges``) unless
    ``ranges`` gives the weapon's own bands. The Shadowrun statistics are optional."""

    name: str = Field(min_length=1)
    category: str | None = None
    ranges: tuple[RangeBand, ...] | None = None
    damage: str | None = None  # e.g. "8P", "(STR+2)P", "10S(e)"
    ap: int = 0
    accuracy: int | None = None
    modes: tuple[str, ...] = ()  # e.g. ("SA", "BF", "FA")
    rc: int = 0
    ammo: int | None = None  # clip capacity in rounds
    loaded: int | None = None  # rounds in the clip now
    smartgun: bool = False
    reach: int = 0
    skill: str | None = None
    reload: Literal["c", "m", "cy", "b", "d", "belt", "ml"] | None = None  # how it loads: c = clip
    spare_clips: int | None = Field(default=None, ge=0)  # full clips carried; None = unlimited
    blast: BlastKind | None = None  # a grenade (or what a launcher fires): its blast, see docs/sr5.md

    @field_validator("category")
    @classmethod
    def _known_category(cls, v: str | None) -> str | None:
        if v is not None and v not in CATEGORIES:
            known = ", ".join(sorted(CATEGORIES))
            raise ValueError(f"unknown weapon category {v!r}; known categories: {known}")
        return v

    @field_validator("ranges")
    @classmethod
    def _ascending(cls, v):
        if v is None:
            return v
        if not v:
            raise ValueError("ranges must list at least one band")
        maxima = [b.max for b in v]
        if any(b <= a for a, b in zip(maxima, maxima[1:])):
            raise ValueError(f"range bands must grow: maxima {maxima}")
        names = [b.band for b in v]
        if len(set(names)) != len(names):
            raise ValueError(f"range bands repeat a name: {names}")
        order = [BAND_NAMES.index(n) for n in names]
        if order != sorted(order):
            raise ValueError(f"range bands out of order: {names} (short, medium, long, extreme)")
        return v


class Obstacle(_Value):
    """Cover: a prism standing on ``polygon`` (metres), ``height`` metres tall.

    A ``door`` that is ``open`` blocks nothing until it is closed. An obstacle of ``kind``
    ``"window"`` blocks movement like any other; its ``height`` is the window's sill, so it
    gives cover up to the sill and sight and fire may pass above it (docs/importing.md)."""

    id: str = Field(min_length=1)
    name: str = ""
    height: float = Field(gt=0, le=1000)
    polygon: tuple[tuple[float, float], ...]
    hidden: bool = False
    door: bool = False
    open: bool = False
    kind: ObstacleKind | None = None  # "window": a window, ``height`` is its sill

    @field_validator("polygon")
    @classmethod
    def _valid_polygon(cls, v):
        pts = list(bounded_footprint(v))  # bounded, simplified when detailed (engine/footprint.py)
        if len(pts) >= 2 and pts[0] == pts[-1]:
            pts = pts[:-1]  # a closing repeat of the first point is allowed and dropped
        if len(set(pts)) < 3:
            raise ValueError(f"a polygon needs at least 3 distinct points, got {len(set(pts))}")
        poly = shapely.Polygon(pts)
        if not shapely.is_valid(poly):
            reason = shapely.is_valid_reason(poly)
            raise ValueError(
                f"the polygon crosses itself ({reason}); Coverfire rejects it rather than guess "
                "which shape was meant: redraw it, or split it into two obstacles"
            )
        if poly.area <= 1e-12:
            raise ValueError("the polygon has no area (its points lie on one line)")
        return tuple((float(x), float(y)) for x, y in pts)

    @property
    def blocks(self) -> bool:
        """Whether this obstacle stops sight and fire now (an open door does not)."""
        return not (self.door and self.open)


class Token(_WithRules):
    """A character on the map: a disc of ``radius`` metres at (``x``, ``y``).

    ``facing`` is in degrees (0 east, 90 south). Rule-system data lives under ``rules``,
    keyed by ruleset name (``{"sr5": {...}}``), each value that system's ``Sheet``."""

    id: str = Field(min_length=1)
    name: str = ""
    side: str = "neutral"
    x: float
    y: float
    radius: float = Field(default=DEFAULT_RADIUS, gt=0, le=50)
    stance: Stance = "standing"
    hidden: bool = False
    facing: float = 0.0
    weapons: tuple[Weapon, ...] = ()
    notes: str = ""
    #: the token's picture, drawn clipped in its disc: a file path (relative to the encounter
    #: file, like the map background) or a ``data:`` URI (Chummer portraits land here)
    portrait: str | None = None
    #: metres it sees in total darkness (its own vision, a light it carries) for systems
    #: without their own vision rules; None: 0 (engine/rules.RuleSystem.vision)
    vision_range: float | None = Field(default=None, ge=0, le=limits.MAX_LENGTH)
    rules: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _version_1_fields(cls, data: Any) -> Any:
        return _rules.lift_legacy(data, "sheet")

    @field_validator("rules", mode="before")
    @classmethod
    def _known_sheets(cls, v: Any) -> dict[str, Any]:
        return _rules.validate_rules(v, "sheet")

    def weapon(self, name: str | None) -> Weapon | None:
        """The weapon of that name; None when it carries none so named (or ``name`` is None).
        Which weapon it has ready is its rule system's answer, not the list's first:
        :meth:`engine.rules.RuleSystem.ready_weapon`."""
        if name is None:
            return None
        for w in self.weapons:
            if w.name == name:
                return w
        return None


class Zone(_Value):
    """A zone of fire or effect drawn on the map.

    Directed kinds (``suppressive``, ``shotgun``, ``cone``, ``line``) start at their origin,
    the ``owner`` token's centre or else (``x``, ``y``), and point along ``direction``.
    Area kinds (``blast``, ``circle``, ``rect``) are centred on (``x``, ``y``); an ``owner``
    there only records who made them. See docs/encounter-format.md for each kind's shape."""

    id: str = Field(min_length=1)
    kind: ZoneKind
    name: str = ""
    owner: str | None = None
    x: float | None = None
    y: float | None = None
    direction: float = 0.0
    length: float | None = Field(default=None, gt=0)
    width: float | None = Field(default=None, gt=0)
    angle: float | None = Field(default=None, gt=0, lt=360)
    radius: float | None = Field(default=None, gt=0)
    choke: Choke | None = None
    rounds: int | None = Field(default=None, ge=1, le=20)
    fire: SuppressiveFire | None = None  # suppressive zones: standard (None) / enhanced / flechette
    weapon: str | None = None
    color: str | None = None
    hidden: bool = False

    @model_validator(mode="after")
    def _shape_complete(self):
        k = self.kind
        has_xy = self.x is not None and self.y is not None
        if (self.x is None) != (self.y is None):
            raise ValueError("give both x and y, or neither")
        if k in AREA_ZONES and not has_xy:
            raise ValueError(f"a {k} zone needs its centre x and y")
        if k in DIRECTED_ZONES and not (has_xy or self.owner):
            raise ValueError(f"a {k} zone needs an owner token or an origin x, y")
        if k in ("blast", "circle") and self.radius is None:
            raise ValueError(f"a {k} zone needs a radius")
        if k in ("suppressive", "cone", "line", "rect") and self.length is None:
            raise ValueError(f"a {k} zone needs a length")
        if k == "cone" and self.angle is None:
            raise ValueError("a cone zone needs an angle (its full opening, in degrees)")
        if k in ("line", "rect") and self.width is None:
            raise ValueError(f"a {k} zone needs a width")
        if k == "shotgun" and not self.owner:
            raise ValueError("a shotgun zone needs an owner: its spread follows the owner's shotgun")
        if self.color is not None and not _is_colour(self.color):
            raise ValueError(f"colour {self.color!r} is not of the form #RRGGBB")
        return self

    @property
    def effective_width(self) -> float | None:
        """Far-end width for suppressive fire in metres: ``width`` when drawn so, else 10 m,
        1 m less per 2 rounds short of 20; enhanced fire (and flechettes on a narrow choke)
        at most 5 m; flechettes on a medium or wide choke that plus the spread width of the
        band the far end lies in."""
        if self.kind != "suppressive":
            return self.width
        if self.width is not None:
            w = self.width
        else:
            rounds = self.rounds if self.rounds is not None else SUPPRESSIVE_ROUNDS
            w = SUPPRESSIVE_WIDTH - (SUPPRESSIVE_ROUNDS - rounds) // 2
        choke = self.choke or "narrow"
        if self.fire == "enhanced" or (self.fire == "flechette" and choke == "narrow"):
            return min(w, ENHANCED_SUPPRESSIVE_WIDTH)
        if self.fire == "flechette":
            length = self.length or 0.0
            band = next((i for i, m in enumerate(FLECHETTE_BAND_MAXIMA) if length <= m),
                        len(FLECHETTE_BAND_MAXIMA) - 1)
            return w + FLECHETTE_SUPPRESSIVE_EXTRA[choke][band]
        return w

    @property
    def effective_choke(self) -> str:
        return self.choke or "medium"


def _is_colour(s: str) -> bool:
    return len(s) == 7 and s[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in s[1:])


class Background(_Value):
    """A map image placed on the map: its top-left at (``x``, ``y``), ``width`` by
    ``height`` metres. ``image`` is a path relative to the encounter file, or a
    ``data:image/png;base64,...`` URI."""

    image: str
    x: float = 0.0
    y: float = 0.0
    width: float = Field(gt=0)
    height: float = Field(gt=0)


class MapSpec(_Value):
    """The map: ``width`` by ``height`` metres; ``grid`` is the square size for snapping."""

    width: float = Field(gt=0, le=100_000)
    height: float = Field(gt=0, le=100_000)
    grid: float = Field(default=1.0, gt=0)
    background: Background | None = None

class Light(_Value):
    """A light source: it lights the map within ``radius`` metres of (``x``, ``y``) to
    ``level``, where no wall shades it (engine/vision.py: a light 2 m up "sees" the point,
    so walls cast shadows). ``on`` False: placed but switched off. ``color`` (``#RRGGBB``)
    is for drawing only."""

    id: str = Field(min_length=1)
    name: str = ""
    x: float = Field(ge=-limits.MAX_COORDINATE, le=limits.MAX_COORDINATE)
    y: float = Field(ge=-limits.MAX_COORDINATE, le=limits.MAX_COORDINATE)
    radius: float = Field(gt=0, le=limits.MAX_LENGTH)
    level: LitLevel = "full"
    on: bool = True
    color: str | None = None

    @field_validator("color")
    @classmethod
    def _colour(cls, v: str | None) -> str | None:
        if v is not None and not _is_colour(v):
            raise ValueError(f"colour {v!r} is not of the form #RRGGBB")
        return v


#: Points one remembered area may have (outer ring and holes together), and all of an
#: encounter's explored areas together: what is saved stays small (engine/vision.py
#: simplifies what it saves to fit).
MAX_AREA_POINTS = 20_000
MAX_EXPLORED_POINTS = 100_000

_Ring = tuple[tuple[float, float], ...]


class Area(_Value):
    """A region of the map (metres): the ``outer`` ring and the ``holes`` inside it, each a
    list of at least 3 points (a closing repeat of the first is allowed). Used for the
    players' explored areas (:class:`Sight`)."""

    outer: _Ring
    holes: tuple[_Ring, ...] = ()

    @field_validator("outer")
    @classmethod
    def _outer(cls, v):
        return _ring(v, "the outer ring")

    @field_validator("holes")
    @classmethod
    def _holes(cls, v):
        return tuple(_ring(r, f"hole {i}") for i, r in enumerate(v))

    @model_validator(mode="after")
    def _bounded(self):
        n = self.points
        if n > MAX_AREA_POINTS:
            raise ValueError(f"the area has {n:,} points; at most {MAX_AREA_POINTS:,}")
        return self

    @property
    def points(self) -> int:
        return len(self.outer) + sum(len(h) for h in self.holes)

    def geometry(self) -> shapely.Geometry:
        """The area as a Shapely geometry (a polygon; repaired with ``make_valid`` when a
        hand-edited file gave a ring that crosses itself)."""
        poly = shapely.Polygon(self.outer, self.holes)
        return poly if poly.is_valid else shapely.make_valid(poly)


def _ring(v, what: str) -> _Ring:
    pts = [(float(x), float(y)) for x, y in v]
    if len(pts) >= 2 and pts[0] == pts[-1]:
        pts = pts[:-1]
    if len(set(pts)) < 3:
        raise ValueError(f"{what} needs at least 3 distinct points, got {len(set(pts))}")
    for x, y in pts:
        if not (abs(x) <= limits.MAX_COORDINATE and abs(y) <= limits.MAX_COORDINATE):
            raise ValueError(f"point ({x:g}, {y:g}) is beyond the coordinate limit "
                             f"(\u00b1{limits.MAX_COORDINATE:,.0f} m)")
    return tuple(pts)


class Sight(_Value):
    """What the players see (engine/vision.py, docs/sight.md): ``fog`` of war on or off;
    ``player_sides``, the sides whose tokens are the players' (None: the usual names,
    :data:`engine.vision.DEFAULT_PLAYER_SIDES`); ``light``, the ambient light level for
    systems without their own setting (Shadowrun keeps it in its environment); ``explored``,
    the areas the party has seen (remembered, saved, reset by the GM)."""

    fog: bool = False
    player_sides: tuple[str, ...] | None = None
    light: LightLevel = "full"
    explored: tuple[Area, ...] = ()

    @model_validator(mode="after")
    def _bounded(self):
        n = sum(a.points for a in self.explored)
        if n > MAX_EXPLORED_POINTS:
            raise ValueError(f"the explored areas have {n:,} points together; at most {MAX_EXPLORED_POINTS:,}")
        return self


#: Light sources an encounter holds.
MAX_LIGHTS = 5_000
_DEFAULT_SIGHT = Sight()


#: Look-ups by id of the encounters' long tuples (:class:`engine.id_index.IdIndex`), one per field.
_LOOKUP = {"tokens": IdIndex(), "obstacles": IdIndex(), "zones": IdIndex(), "lights": IdIndex()}


class Encounter(_WithRules):
    """A whole encounter: the map, its cover, the tokens and the zones; ``ruleset`` names
    the rule system that runs it, ``rules`` holds each system's encounter data."""

    format: Literal["coverfire.encounter"] = FORMAT
    version: Literal[1, 2] = VERSION
    name: str = "Untitled encounter"
    ruleset: str = Field(default_factory=_rules.default_name)
    map: MapSpec
    obstacles: tuple[Obstacle, ...] = ()
    tokens: tuple[Token, ...] = ()
    zones: tuple[Zone, ...] = ()
    lights: tuple[Light, ...] = Field(default=(), max_length=MAX_LIGHTS)
    sight: Sight = Sight()
    rules: dict[str, Any] = Field(default_factory=dict)
    #: the recorded fight (engine/record.py): read apart from the rest by engine.files, so a
    #: record that does not belong is left out with a message and the encounter still opens
    record: Record | None = None

    @model_validator(mode="before")
    @classmethod
    def _version_1_fields(cls, data: Any) -> Any:
        data = _rules.lift_legacy(data, "settings")
        if isinstance(data, dict) and isinstance(data.get("lights"), (list, tuple)) and \
                len(data["lights"]) > MAX_LIGHTS:
            raise EncounterFileError(f"{len(data['lights']):,} lights; an encounter holds at most {MAX_LIGHTS:,}",
                                     path="$.lights")
        data = _imported_lights(data)
        if isinstance(data, dict) and data.get("version") == 1:
            data = {**data, "version": VERSION}  # read as 1, held (and saved) as 2
        return data

    @field_validator("ruleset")
    @classmethod
    def _registered(cls, v: str) -> str:
        try:
            _rules.find_system(v)
        except CoverfireError as exc:
            raise ValueError(str(exc)) from None
        return v

    @field_validator("rules", mode="before")
    @classmethod
    def _known_settings(cls, v: Any) -> dict[str, Any]:
        return _rules.validate_rules(v, "settings")

    @property
    def system(self) -> RuleSystem:
        """The rule system that runs this encounter (``engine.rules.find_system(ruleset)``)."""
        return _rules.find_system(self.ruleset)

    @model_validator(mode="before")
    @classmethod
    def _limits_of_input(cls, data: Any, info: ValidationInfo) -> Any:
        # engine/limits.py: text and numbers; a file's JSON was checked already (engine/files.py)
        if not (info.context or {}).get("text_checked"):
            limits.check_data(data, models=True)
        return data

    @model_validator(mode="after")
    def _limits(self):
        limits.check_encounter(self)  # engine/limits.py: coordinates, grid, counts, vertices
        return self

    @model_validator(mode="after")
    def _references(self):
        seen: dict[str, str] = {}
        for group in ("obstacles", "tokens", "zones", "lights"):
            for i, item in enumerate(getattr(self, group)):
                where = f"$.{group}[{i}].id"
                if item.id in seen:
                    raise EncounterFileError(
                        f"duplicate id {item.id!r} (already used at {seen[item.id]})", path=where
                    )
                seen[item.id] = where
        token_ids = {t.id for t in self.tokens}
        for i, z in enumerate(self.zones):
            if z.owner is not None and z.owner not in token_ids:
                raise EncounterFileError(
                    f"zone {z.id!r} names owner {z.owner!r}, which is no token of this encounter",
                    path=f"$.zones[{i}].owner",
                )
            if z.kind == "shotgun":
                owner = next(t for t in self.tokens if t.id == z.owner)
                w = owner.weapon(z.weapon) if z.weapon else _first_shotgun(owner)
                if z.weapon and w is None:
                    raise EncounterFileError(
                        f"zone {z.id!r} names weapon {z.weapon!r}, which {owner.id!r} does not carry",
                        path=f"$.zones[{i}].weapon",
                    )
        return self

    @model_serializer(mode="wrap")
    def _omit_default_sight(self, handler: SerializerFunctionWrapHandler):
        # no lights and the default sight are left out of a saved file (older files stay as
        # they were when saved again)
        data = handler(self)
        if isinstance(data, dict):
            if not self.lights:
                data.pop("lights", None)
            if self.sight == _DEFAULT_SIGHT:
                data.pop("sight", None)
        return data

    # -- look-ups ---------------------------------------------------------------------------
    def token(self, ident: str) -> Token:
        """The token with this id; raises :class:`~engine.errors.UnknownIdError`."""
        from engine.errors import UnknownIdError

        found = _LOOKUP["tokens"].find(self.tokens, ident)
        if found is not None:
            return found
        raise UnknownIdError("token", ident)

    def obstacle(self, ident: str) -> Obstacle:
        from engine.errors import UnknownIdError

        found = _LOOKUP["obstacles"].find(self.obstacles, ident)
        if found is not None:
            return found
        raise UnknownIdError("obstacle", ident)

    def zone(self, ident: str) -> Zone:
        from engine.errors import UnknownIdError

        found = _LOOKUP["zones"].find(self.zones, ident)
        if found is not None:
            return found
        raise UnknownIdError("zone", ident)

    def zone_origin(self, zone: Zone) -> tuple[float, float]:
        """Where a zone's fire comes from, in metres: the owner's centre for directed zones
        with an owner, else the zone's own (x, y)."""
        if zone.kind in DIRECTED_ZONES and zone.owner is not None:
            t = self.token(zone.owner)
            return (t.x, t.y)
        assert zone.x is not None and zone.y is not None
        return (zone.x, zone.y)

    def light(self, ident: str) -> Light:
        from engine.errors import UnknownIdError

        found = _LOOKUP["lights"].find(self.lights, ident)
        if found is not None:
            return found
        raise UnknownIdError("light", ident)

    def find(self, ident: str) -> Token | Obstacle | Zone | None:
        """The token, obstacle or zone with this id (in that order), or None."""
        for field in ("tokens", "obstacles", "zones"):
            found = _LOOKUP[field].find(getattr(self, field), ident)
            if found is not None:
                return found
        return None

    def position(self, field: str, ident: str) -> int | None:
        """Where the (first) object with id ``ident`` is in the tuple ``field`` ("tokens",
        "obstacles", "zones" or "lights"), or None; found by the kept index, not a scan."""
        return _LOOKUP[field].position(getattr(self, field), ident)

    def all_ids(self) -> set[str]:
        return ({o.id for o in self.obstacles} | {t.id for t in self.tokens} | {z.id for z in self.zones}
                | {light.id for light in self.lights})

    def new_id(self, prefix: str) -> str:
        """A fresh id ``prefix-N`` not used by any object of the encounter: the smallest such
        N. The first few are looked up by the kept indexes (:meth:`position`: a wall drawn on
        a 10,000-obstacle map built a set of every id, ~5 ms of its turn); past those, one set
        of every id is built and the rest tested against it."""
        fields = ("obstacles", "tokens", "zones", "lights")
        n = 1
        while n <= NEW_ID_LOOKUPS:
            ident = f"{prefix}-{n}"
            if all(self.position(f, ident) is None for f in fields):
                return ident
            n += 1
        ids = self.all_ids()
        while f"{prefix}-{n}" in ids:
            n += 1
        return f"{prefix}-{n}"


#: Candidate ids :meth:`Encounter.new_id` looks up one by one before it builds the set of all ids.
NEW_ID_LOOKUPS = 32


#: Light levels of an imported light's ``intensity`` (Universal VTT, 0 to 1 and more): the
#: first row whose threshold it reaches (docs/sight.md); 0 or less is a light switched off.
INTENSITY_LEVELS = (("full", 0.75), ("partial", 0.4), ("dim", 0.0))


def intensity_level(intensity: float) -> str:
    """The light level of an imported light's ``intensity`` (:data:`INTENSITY_LEVELS`)."""
    for level, threshold in INTENSITY_LEVELS:
        if intensity >= threshold:
            return level
    return "dim"


def _imported_lights(data: Any) -> Any:
    """Lights in the form the map importers wrote before lights were part of the model (a
    top-level list of ``{"x", "y", "range", "color", "alpha", "intensity", "bright",
    "hidden", ...}`` in metres, no ids) as :class:`Light` data: ``range`` is the radius,
    ``intensity`` gives the level (:func:`intensity_level`), ``hidden`` (Foundry) or no
    positive range or intensity switches it off. A Foundry light (it has ``bright``) is bright
    (``full``) to its ``bright`` radius and ``dim`` beyond it to its ``range``: a dim light of
    the range plus a full light of the bright radius when that is above 0 and inside the
    range, a full light of the bright radius alone when that reaches the range or beyond.
    Other keys are kept on the light.
    Lights already in the model's form (with an ``id``) pass unchanged."""
    if not isinstance(data, dict) or not isinstance(data.get("lights"), list):
        return data
    raw = data["lights"]
    if all(isinstance(x, dict) and "id" in x for x in raw) or not any(
            isinstance(x, dict) and "id" not in x for x in raw):
        return data
    used = {str(x.get("id")) for x in raw if isinstance(x, dict) and "id" in x}
    for group in ("obstacles", "tokens", "zones"):
        items = data.get(group)
        if isinstance(items, (list, tuple)):
            for it in items:
                ident = it.get("id") if isinstance(it, dict) else getattr(it, "id", None)
                if isinstance(ident, str):
                    used.add(ident)
    counter = itertools.count(1)

    def fresh() -> str:
        while True:
            ident = f"light-{next(counter)}"
            if ident not in used:
                used.add(ident)
                return ident

    out = []
    for item in raw:
        if not isinstance(item, dict) or "id" in item:
            out.append(item)
            continue
        light = dict(item)
        rng = light.pop("range", None)
        bright = light.pop("bright", None)
        hidden = light.pop("hidden", None)
        intensity = light.get("intensity")
        radius = _positive(rng)
        b = _positive(bright)
        on = radius is not None and hidden is not True
        level = "full"
        if isinstance(intensity, (int, float)) and not isinstance(intensity, bool):
            if _positive(intensity) is None:
                on = False  # an intensity of 0 lights nothing
            else:
                level = intensity_level(float(intensity))
        foundry = "bright" in item  # Foundry: bright light to ``bright``, dim light beyond it to ``range``
        if foundry and b is not None and (radius is None or radius <= b):
            radius, on = b, hidden is not True  # bright at or beyond the dim radius: full light only
        elif foundry and radius is not None:
            level = "dim"  # a dim ring (with a full light inside it when ``bright`` is above 0)
        if radius is None:
            radius = b if b is not None else 1.0
            if rng is not None:
                light["range"] = rng  # kept as it was: it gave no usable radius
        light.update(id=fresh(), radius=radius, level=level, on=on)
        if isinstance(light.get("color"), str):
            light["color"] = light["color"].lower()
        out.append(light)
        if b is not None and radius > b:
            out.append({"id": fresh(), "name": light.get("name", ""), "x": light.get("x"), "y": light.get("y"),
                        "radius": b, "level": "full", "on": on, **({"color": light["color"]} if "color" in light else {})})
    return {**data, "lights": out}


def _positive(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if math.isfinite(v) and v > 0 else None


def _first_shotgun(token: Token) -> Weapon | None:
    for w in token.weapons:
        if w.category in ("shotgun_flechette", "shotgun_slug"):
            return w
    return None


def _is_shotgun(weapon: Weapon | None) -> bool:
    return weapon is not None and weapon.category in ("shotgun_flechette", "shotgun_slug")


def zone_weapon(encounter: Encounter, zone: Zone) -> Weapon | None:
    """The weapon a zone fires: the named one, else the owner's ready weapon
    (:meth:`engine.rules.RuleSystem.ready_weapon`) -- for a shotgun zone the ready one when it
    is a shotgun, else the owner's first shotgun; None without an owner or weapon."""
    if zone.owner is None:
        return None
    owner = encounter.token(zone.owner)
    if zone.weapon:
        return owner.weapon(zone.weapon)
    ready = encounter.system.ready_weapon(encounter, owner)
    if zone.kind == "shotgun" and not _is_shotgun(ready):
        return _first_shotgun(owner) or ready
    return ready


def revalidate(encounter: Encounter) -> Encounter:
    """Run every check again on an encounter built with ``model_copy`` (which skips them)."""
    return Encounter.model_validate(encounter.model_dump(mode="python", round_trip=True))
