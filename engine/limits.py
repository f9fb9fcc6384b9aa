"""What an encounter can hold: the bounds every encounter is checked against.

A map is bounded so that every later step (cover, zones, export, painting, the grid layer,
saving) has a finite amount of finite work to do. Anything past a bound is refused with an
:class:`~engine.errors.EncounterFileError` naming the JSON path (``$.tokens[2].y``) and the
limit, never clamped in silence. The table is in ``docs/encounter-format.md`` ("Limits").

Two checks, one set of numbers:

* :func:`check_data` walks parsed JSON before the model sees it (``engine.files``): nesting,
  non-finite and giant numbers, string lengths, text that cannot be written as UTF-8 (a lone
  surrogate such as ``"\\ud83d"``, half an emoji cut by JavaScript), list sizes. It bounds
  the work the model's validation does on a hostile file.
* :func:`check_encounter` runs on every :class:`~engine.model.Encounter` (a model validator),
  so encounters an importer or an edit builds are held to the same bounds: coordinates,
  lengths, the grid, object counts, vertex totals; and what builds an encounter in code
  goes through :func:`check_data` first (``models=True``: text and numbers). Obstacle footprints are bounded and simplified by
  :func:`engine.footprint.bounded_footprint`.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel

from engine.errors import EncounterFileError, excerpt

if TYPE_CHECKING:
    from engine.model import Encounter

#: Widest and tallest map, metres (100 km).
MAX_MAP_SIZE = 100_000.0
#: Narrowest and shortest map, metres (10 cm: ten of the smallest grid squares). A map of
#: 1e-9 m puts a 0.4 m token a trillion pixels wide on the export's page.
MIN_MAP_SIZE = 0.1
#: Largest |x| or |y| of a token, a footprint vertex, a zone or a background corner, metres:
#: the largest map and as much again beyond its edges.
MAX_COORDINATE = 200_000.0
#: Largest zone length, width or radius and background width or height, metres.
MAX_LENGTH = 200_000.0
#: Smallest grid square, metres (1 cm).
MIN_GRID = 0.01
#: Most grid squares across the map's longer side (the grid layer draws each line zoomed in;
#: a 100 km map with the default 1 m grid is allowed).
MAX_GRID_LINES = 100_000
#: Most points an obstacle's polygon may list in a file (more is refused before any geometry).
MAX_POLYGON_POINTS = 100_000
#: Most vertices an obstacle keeps after simplification (engine/footprint.py).
MAX_FOOTPRINT_VERTICES = 2_000
#: Most footprint vertices of all obstacles together.
MAX_TOTAL_VERTICES = 1_000_000
MAX_OBSTACLES = 100_000
MAX_TOKENS = 5_000
MAX_ZONES = 5_000
#: Longest id, name, side, owner or weapon name, characters.
MAX_NAME_CHARS = 1_000
#: Longest other text (notes, log lines, fields other tools add), characters.
MAX_TEXT_CHARS = 100_000
#: Longest image reference (a ``data:`` URI holds the whole image), characters.
MAX_IMAGE_CHARS = 64 * 1024 * 1024
#: Deepest nesting of JSON arrays and objects (an encounter needs fewer than ten levels).
MAX_DEPTH = 100
#: Largest magnitude of any number anywhere in the file (ids of other tools, seeds included).
MAX_NUMBER = 1e18

#: Most values (numbers, strings, arrays, objects, true/false/null) a JSON file may hold
#: before it is parsed: the largest real scene seen holds 209,000; a million-vertex map
#: about 3,000,000. Under the 256 MiB file cap, 97 MB of pairs parsed into 5.8 GB.
MAX_JSON_ITEMS = 5_000_000

#: Keys whose string values are names (:data:`MAX_NAME_CHARS`).
NAME_KEYS = frozenset({"id", "name", "side", "owner", "weapon", "category", "kind", "ruleset"})
#: Keys whose string values may be whole images (:data:`MAX_IMAGE_CHARS`).
IMAGE_KEYS = frozenset({"image", "portrait"})

_SURROGATE = re.compile("[\ud800-\udfff]")
#: Keys whose values are points or rings of points (checked at once: a 5,000-wall map holds
#: 700,000 numbers, a second's walk one by one).
POINT_KEYS = frozenset({"polygon", "outer", "holes"})


def _plain_numbers(value: list) -> bool:
    """True when ``value`` is a rectangular array (at most 3 deep) of finite numbers within
    :data:`MAX_NUMBER` (nothing in it for :func:`check_data` to refuse); False when it must be
    walked item by item to find (and name) what is wrong, if anything."""
    try:
        a = np.asarray(value, dtype=float)
    except (ValueError, TypeError, OverflowError):
        return False
    return bool(a.ndim <= 3 and np.isfinite(a).all() and (np.abs(a) <= MAX_NUMBER).all())


_COUNTS = (("obstacles", MAX_OBSTACLES), ("tokens", MAX_TOKENS), ("zones", MAX_ZONES))


def json_path(loc: tuple[Any, ...]) -> str:
    """``("tokens", 2, "x")`` as ``$.tokens[2].x``."""
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


#: What one JSON object costs a parse, in values: an empty ``{}`` builds a 64-byte dict
#: (and every later copy another), a number 24 bytes.
OBJECT_WEIGHT = 4


def json_items(text: str) -> int:
    """How many values JSON ``text`` holds, at most: one more than its commas and opening
    brackets (an object counting :data:`OBJECT_WEIGHT`) (a comma inside a string counts too, so this is an upper bound; the text of an
    encounter or a map is names, notes and base64 images, with few), counted without parsing
    it (a second for 256 MB, and no memory): what a parse would build."""
    return text.count(",") + text.count("[") + OBJECT_WEIGHT * text.count("{") + 1


def check_json_items(text: str, *, file: str | None = None, error=EncounterFileError,
                     max_items: int | None = None) -> None:
    """Refuse JSON ``text`` holding more than ``max_items`` (:data:`MAX_JSON_ITEMS`) values,
    before it is parsed: ``error(message, file=file)`` (an :class:`EncounterFileError`
    unless told)."""
    bound = MAX_JSON_ITEMS if max_items is None else max_items
    n = json_items(text)
    if n > bound:
        raise error(f"the JSON lists about {n:,} values (numbers, texts, arrays, objects: counted by its commas "
                    f"and brackets); at most {bound:,} are read", file=file)


def parse_json(text: str) -> Any:
    """``json.loads(text)`` with Python's cyclic garbage collector paused while it runs: a
    parse makes no cycles, but each 700 containers it builds start a collection, which walks
    the young ones, and every tenth an older generation: 1,250,000 pairs (15 MB) parsed in
    1.0-1.8 s of CPU, 0.27 s without (the same exceptions as ``json.loads``)."""
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        return json.loads(text)
    finally:
        if was:
            gc.enable()


def _refuse(message: str, loc: tuple[Any, ...], file: str | None = None) -> EncounterFileError:
    return EncounterFileError(message, file=file, path=json_path(loc))


def _check_text(s: str, key: Any, loc: tuple[Any, ...], file: str | None) -> None:
    limit = MAX_IMAGE_CHARS if key in IMAGE_KEYS else MAX_NAME_CHARS if key in NAME_KEYS else MAX_TEXT_CHARS
    if len(s) > limit:
        raise _refuse(f"the text is {len(s):,} characters long; at most {limit:,} are allowed here "
                      f"(starts {excerpt(s, 40)})", loc, file)
    m = _SURROGATE.search(s)
    if m is not None:
        raise _refuse(
            f"the text holds a broken character (a lone UTF-16 surrogate \\u{ord(m.group()):04x} at "
            f"character {m.start()}, often half an emoji cut by another program), which cannot be "
            "saved as UTF-8; Coverfire refuses it rather than change your text: fix or retype it",
            loc, file)


def check_data(data: Any, *, file: str | None = None, models: bool = False) -> None:
    """Refuse parsed JSON past the bounds (see the module docstring), with the JSON path of
    the first fault in document order. Iterative: never a ``RecursionError``. With
    ``models``, ``data`` is what builds an encounter in code (pydantic models inside are
    walked too) and obstacle polygons are left to the model's own bounds
    (:func:`engine.footprint.bounded_footprint`), which keeps the walk cheap."""
    # a stack of iterators over children, made as they are reached: memory grows with the
    # depth, not with the items (1,250,000 empty objects held 1,250,000 entries: past 1 GiB)
    stack: list[Any] = [iter(((data, None, ()),))]
    while stack:
        nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
            continue
        value, key, loc = nxt
        if models and isinstance(value, BaseModel):
            fields = dict(value.__dict__)
            fields.update(value.__pydantic_extra__ or {})
            value = fields
        if isinstance(value, str):
            _check_text(value, key, loc, file)
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, (int, float)):
            if isinstance(value, float) and not math.isfinite(value):
                raise _refuse("NaN or infinite numbers are not allowed", loc, file)
            if abs(value) > MAX_NUMBER:
                raise _refuse(f"the number {excerpt(value)} is beyond the largest Coverfire "
                              f"reads ({MAX_NUMBER:g})", loc, file)
        elif isinstance(value, (dict, list, tuple)):
            if len(loc) >= MAX_DEPTH:
                raise _refuse(f"the JSON is nested too deeply (more than {MAX_DEPTH} levels)", loc, file)
            if (isinstance(value, list) and (key in POINT_KEYS or len(value) >= 64) and len(loc) + 3 < MAX_DEPTH
                    and _plain_numbers(value)):
                continue  # (points, and any long array of numbers another tool keeps: checked at once)
            if isinstance(value, dict):
                for k in value:
                    if isinstance(k, str):
                        _check_text(k, None, loc, file)
            if not loc and isinstance(value, dict):
                _check_counts({k: len(v) for k, v in value.items() if isinstance(v, list)}, file)
                obstacles = value.get("obstacles")
                if isinstance(obstacles, list):
                    total = 0
                    for i, o in enumerate(obstacles):
                        poly = o.get("polygon") if isinstance(o, dict) else None
                        if isinstance(poly, list):
                            if len(poly) > MAX_POLYGON_POINTS:
                                raise _refuse(too_many_points(len(poly)), ("obstacles", i, "polygon"), file)
                            total += len(poly)
                            if total > MAX_TOTAL_VERTICES:
                                raise _refuse(f"the obstacles list more than {MAX_TOTAL_VERTICES:,} polygon "
                                              "points together", ("obstacles", i, "polygon"), file)
            # the children next, in document order, so the first fault in it is found first
            stack.append(_children(value, key, loc, models))


def _children(value: dict | list | tuple, key: Any, loc: tuple[Any, ...], models: bool):
    """(child, its key, its location) of a container, one at a time (:func:`check_data`)."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for k, v in items:
        if models and k == "polygon":
            continue
        yield v, k if isinstance(k, str) else key, loc + (k,)


def too_many_points(n: int) -> str:
    return (f"the polygon lists {n:,} points; at most {MAX_POLYGON_POINTS:,} are read "
            f"(and at most {MAX_FOOTPRINT_VERTICES:,} kept after simplifying)")


def check_counts(sizes: dict[str, int], file: str | None = None) -> None:
    """Refuse more objects of a kind (``{"obstacles": n, ...}``) than an encounter holds."""
    _check_counts(sizes, file)


def _check_counts(sizes: dict[str, int], file: str | None) -> None:
    for group, limit in _COUNTS:
        n = sizes.get(group, 0)
        if n > limit:
            raise _refuse(f"{n:,} {group}; an encounter holds at most {limit:,}", (group,), file)


def _coordinate(v: float | None, loc: tuple[Any, ...]) -> None:
    if v is not None and not abs(v) <= MAX_COORDINATE:
        raise _refuse(f"{v:g} m is beyond the coordinate limit (\u00b1{MAX_COORDINATE:,.0f} m)", loc)


def _length(v: float | None, loc: tuple[Any, ...]) -> None:
    if v is not None and not v <= MAX_LENGTH:
        raise _refuse(f"{v:g} m is longer than the length limit ({MAX_LENGTH:,.0f} m)", loc)


def check_encounter(encounter: "Encounter", *, text: bool = False) -> None:
    """Refuse an encounter past the bounds: object counts, the grid, coordinates, lengths,
    vertex totals; with ``text`` its text and numbers too (:func:`check_data` on the model;
    the model's validation already checks what built it)."""
    _check_counts({g: len(getattr(encounter, g)) for g, _ in _COUNTS}, None)
    m = encounter.map
    for field in ("width", "height"):
        if getattr(m, field) > MAX_MAP_SIZE:
            raise _refuse(f"the map is {getattr(m, field):g} m; at most {MAX_MAP_SIZE:,.0f} m", ("map", field))
        if getattr(m, field) < MIN_MAP_SIZE:
            raise _refuse(f"the map is {getattr(m, field):g} m {'wide' if field == 'width' else 'tall'}; "
                          f"at least {MIN_MAP_SIZE:g} m", ("map", field))
    if m.grid < MIN_GRID:
        raise _refuse(f"a grid square of {m.grid:g} m is smaller than the smallest ({MIN_GRID:g} m)",
                      ("map", "grid"))
    lines = max(m.width, m.height) / m.grid
    if lines > MAX_GRID_LINES:
        raise _refuse(
            f"a grid square of {m.grid:g} m puts {lines:,.0f} squares across this "
            f"{max(m.width, m.height):g} m map; at most {MAX_GRID_LINES:,} (a square of at least "
            f"{max(m.width, m.height) / MAX_GRID_LINES:g} m)", ("map", "grid"))
    bg = m.background
    if bg is not None:
        _coordinate(bg.x, ("map", "background", "x"))
        _coordinate(bg.y, ("map", "background", "y"))
        _length(bg.width, ("map", "background", "width"))
        _length(bg.height, ("map", "background", "height"))
    for i, t in enumerate(encounter.tokens):
        _coordinate(t.x, ("tokens", i, "x"))
        _coordinate(t.y, ("tokens", i, "y"))
    for i, z in enumerate(encounter.zones):
        _coordinate(z.x, ("zones", i, "x"))
        _coordinate(z.y, ("zones", i, "y"))
        for field in ("length", "width", "radius"):
            _length(getattr(z, field), ("zones", i, field))
    total = sum(len(o.polygon) for o in encounter.obstacles)
    if total > MAX_TOTAL_VERTICES:
        raise _refuse(f"the obstacles have {total:,} vertices together; at most {MAX_TOTAL_VERTICES:,}",
                      ("obstacles",))
    if text:
        check_data(encounter, models=True)


__all__ = [name for name in globals() if name.isupper()] + [
    "check_data", "check_encounter", "check_json_items", "json_items", "json_path", "too_many_points"]
