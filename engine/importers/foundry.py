"""Foundry VTT scenes as Coverfire encounters: a scene's "Export Data" JSON, and the scenes
of a world's or module's ``scenes.db`` (NeDB: one JSON document a line, Foundry up to v10;
every change appends the scene again, so the last line of an ``_id`` is the scene and a
``$$deleted`` line removes it, as NeDB loads it).

Foundry measures in canvas pixels. The canvas is the scene (``width`` x ``height`` px) with
a padding around it of ``ceil(padding * width / grid) * grid`` px (likewise for the height),
shifted by the background's offset; walls, tokens and lights are given on the canvas. A point
becomes metres from the scene's top-left corner as

    x_m = (x_px - pad_x) / grid_px * cell_m,   cell_m = grid distance x the metres of its units

(5 ft is 1.524 m). The scene's generation is told by where it keeps its picture
(:func:`version_of`); the fields read:

============================  ====================  ==================================
what                          v9 (and 0.7/0.8)      v10-v13; v14
============================  ====================  ==================================
background image              ``img``               ``background.src``; v14
                                                    ``levels[].background.src``
grid size, distance, units    ``grid`` (number),    ``grid`` {``size``, ``distance``,
                              ``gridDistance``,     ``units``} (some v10/v11 keep
                              ``gridUnits``         the v9 numbers)
wall sight                    ``sight`` 0/10/20     ``sight`` / ``light`` 0/10/20/30/40
                              (0.7/0.8 ``sense``
                              0/1/2), wall by wall
wall movement                 ``move`` 0/20 (0/1)   ``move`` 0/20
token image                   ``img``               ``texture.src``
light radii, colour           ``dim``, ``bright``,  ``config`` {``dim``, ``bright``,
                              ``tintColor``         ``color``, ``alpha``}
============================  ====================  ==================================

Walls: ``c`` = [x0, y0, x1, y1]. ``door`` 0 none, 1 door, 2 secret door; ``ds`` 0 closed,
1 open, 2 locked. A wall that blocks movement and sight is a full wall; one that blocks
movement only (glass, a railing) is imported like a window (it blocks movement, sight passes
above its sill); one that blocks sight only (a curtain, an illusion) stops nobody, so it is
no obstacle: it is kept under ``imported.sight_only_walls`` (metres) and counted in the
report. Tokens: ``x``, ``y`` is the top-left corner, ``width``/``height`` in grid squares;
``disposition`` 1 friendly, 0 neutral, -1 hostile, -2 secret becomes the side. Lights: bright
(``full``) light to the bright radius, ``dim`` light beyond it to the dim radius
(:func:`_lights`). Picture paths are URL-decoded and looked for beside the file
(:func:`find_beside`).
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from urllib.parse import unquote
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import shapely

from engine import limits
from engine.errors import EncounterFileError, ImportFileError
from engine.files import read_user_file
from engine.importers import uvtt
from engine.importers.guard import guarded
from engine.importers.report import ImportReport, ReportBuilder, quote
from engine.importers.storable import MAX_KEPT_DEPTH, clean_text, storable, storable_encounter
from engine.importers.walls import Crop, ring, thin_polygons
from engine.model import DEFAULT_RADIUS, Background, Encounter, MapSpec, Obstacle, Token

#: Metres in one of a scene's grid units (``gridUnits`` / ``grid.units``, lower case).
UNITS = {
    "ft": 0.3048, "ft.": 0.3048, "feet": 0.3048, "foot": 0.3048, "'": 0.3048,
    "m": 1.0, "m.": 1.0, "meter": 1.0, "meters": 1.0, "metre": 1.0, "metres": 1.0, "mt": 1.0,
    "yd": 0.9144, "yds": 0.9144, "yard": 0.9144, "yards": 0.9144,
    "km": 1000.0, "mi": 1609.344, "mile": 1609.344, "miles": 1609.344,
}
#: Foundry's default scene padding (a quarter of the scene on each side).
DEFAULT_PADDING = 0.25
#: Token sides by ``disposition``.
DISPOSITIONS = {1: "friendly", 0: "neutral", -1: "hostile", -2: "secret"}
#: Largest scene file read, bytes.
MAX_FILE_BYTES = 512 * 1024 * 1024
#: Walls read from a scene at most.
MAX_WALLS = 50_000
#: Largest magnitude of a pixel coordinate or size read.
MAX_PIXELS = 1e8


@dataclass(frozen=True)
class FoundryOptions:
    """The GM's choices for a Foundry import (metres). ``cell_size`` is used only when the
    scene's units are unknown; ``scene`` picks a scene of a scenes.db by name or 0-based
    index (default the first)."""

    cell_size: float = uvtt.DEFAULT_CELL_SIZE
    wall_thickness: float = uvtt.WALL_THICKNESS
    wall_height: float = uvtt.WALL_HEIGHT
    window_sill: float = uvtt.WINDOW_SILL
    scene: str | int | None = None


class _Bad(Exception):
    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.message, self.where = message, where


def _num(value: Any, where: str, *, default: float | None = None) -> float:
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(f"expected a number, got {quote(value)}", where)
    if isinstance(value, int) and abs(value) > MAX_PIXELS:
        raise _Bad(f"{quote(value)} is too large for a scene", where)
    v = float(value)
    if not math.isfinite(v) or abs(v) > MAX_PIXELS:
        raise _Bad(f"{quote(value)} is not a usable number", where)
    return v


# -- reading ------------------------------------------------------------------------------------


def is_scene(doc: Any) -> bool:
    """Whether a parsed JSON value looks like a Foundry scene document."""
    return (isinstance(doc, dict) and "walls" in doc and "width" in doc and "height" in doc
            and ("grid" in doc or "gridDistance" in doc))


@dataclass(frozen=True)
class SceneFile:
    """The scenes of a Foundry file, each with its place (``$`` for an exported scene,
    ``line 37`` in a scenes.db: the line that holds the scene as it is now, ``$[2]`` in a
    list). ``lines`` counts a scenes.db's document lines, ``history`` the earlier versions
    of its scenes left out (NeDB appends a line for every change), ``deleted`` the scenes
    deleted (``$$deleted``), ``unreadable`` the lines that are not JSON (NeDB skips them too);
    all 0 for a JSON file."""

    scenes: tuple[tuple[dict, str], ...]
    lines: int = 0
    history: int = 0
    deleted: int = 0
    unreadable: int = 0

    @property
    def nedb(self) -> bool:
        return self.lines > 0


def read_scene_file(path: str | Path) -> SceneFile:
    """The scenes of a Foundry file (:class:`SceneFile`); :class:`ImportFileError` when the
    file holds none.

    A scenes.db is read as NeDB loads it: every line is a document; a line whose ``_id``
    was seen before replaces that document (it is the scene's newer version) and keeps its
    place in the list, one with ``$$deleted: true`` removes it, and the index lines
    (``$$indexCreated``, ``$$indexRemoved``) are no documents. A line without an ``_id``
    (hand-made files) is a scene of its own."""
    name = str(Path(path))
    raw = read_user_file(path, error=ImportFileError, what="a Foundry scene", max_bytes=MAX_FILE_BYTES)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFileError(f"not a Foundry scene: not UTF-8 text (byte {exc.start})", file=name) from None
    limits.check_json_items(text, file=name, error=ImportFileError)  # (bounded before parsing)
    try:
        doc = limits.parse_json(text)
    except json.JSONDecodeError:
        doc = None
    except (ValueError, RecursionError) as exc:
        raise ImportFileError(f"malformed JSON: {exc}", file=name, path="$") from None
    if doc is not None:
        if is_scene(doc):
            return SceneFile(((doc, "$"),))
        if isinstance(doc, list):
            found = tuple((d, f"$[{i}]") for i, d in enumerate(doc) if is_scene(d))
            if found:
                return SceneFile(found)
        raise ImportFileError("not a Foundry scene: no walls, size and grid", file=name, path="$")
    # NeDB: one document a line, the last line of an _id is the document (nedb's
    # Persistence.treatRawData).
    current: dict[Any, tuple[dict, int]] = {}
    lines = history = deleted = bad = 0
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            d = json.loads(line)
        except (ValueError, RecursionError):
            bad += 1
            continue
        if not isinstance(d, dict):
            bad += 1
            continue
        lines += 1
        ident = d.get("_id")
        if not isinstance(ident, (str, int)) or isinstance(ident, bool) or ident == "":
            if "$$indexCreated" in d or "$$indexRemoved" in d or d.get("$$deleted") is True:
                continue
            ident = ("line", n)  # no id: a document of its own
        if d.get("$$deleted") is True:
            if current.pop(ident, None) is not None:
                deleted += 1
            continue
        if ident in current:
            history += 1
        current[ident] = (d, n)
    found = tuple((d, f"line {n}") for d, n in current.values() if is_scene(d))
    if not found:
        raise ImportFileError(
            "not a Foundry scene: neither one JSON document nor a scenes.db with scenes in it", file=name)
    return SceneFile(found, lines=lines, history=history, deleted=deleted, unreadable=bad)


def read_scenes(path: str | Path) -> list[tuple[dict, str]]:
    """The scene documents of a Foundry file, each with its place (:func:`read_scene_file`)."""
    return list(read_scene_file(path).scenes)


def scene_names(path: str | Path) -> list[str]:
    """The names of the scenes in a Foundry file, in its order (for choosing one)."""
    with guarded(str(path), "the Foundry scene"):
        return [clean_text(str(d.get("name") or f"scene {i + 1}"), 200) for i, (d, _w) in enumerate(read_scenes(path))]


def _pick(scenes: list[tuple[dict, str]], choice: str | int | None, rep: ReportBuilder, file: str):
    if len(scenes) > 1:
        names = [str(d.get("name") or f"scene {i + 1}") for i, (d, _w) in enumerate(scenes)]
        shown = ", ".join(repr(n) for n in names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
        rep.note(f"this is a Foundry scene list of {len(scenes)} scenes: {shown}")
    if choice is None:
        return scenes[0]
    if isinstance(choice, int) or (isinstance(choice, str) and choice.isdigit()):
        k = int(choice)
        if 0 <= k < len(scenes):
            return scenes[k]
    for d, where in scenes:
        if str(d.get("name", "")).strip().lower() == str(choice).strip().lower():
            return d, where
    raise ImportFileError(f"the file holds no scene {choice!r}", file=file)


def import_foundry(path: str | Path, cell_size: float = uvtt.DEFAULT_CELL_SIZE, *, scene: str | int | None = None,
                   wall_thickness: float = uvtt.WALL_THICKNESS, wall_height: float = uvtt.WALL_HEIGHT,
                   window_sill: float = uvtt.WINDOW_SILL, name: str | None = None) -> tuple[Encounter, ImportReport]:
    """Read a Foundry scene (exported JSON, or a scenes.db) and make an encounter of it.
    Returns (encounter, report); :class:`ImportFileError` for a file with no scene in it."""
    start = time.perf_counter()
    p = Path(path)
    opts = _options(cell_size, wall_thickness, wall_height, window_sill, scene)
    with guarded(str(p), "the Foundry scene"):
        sf = read_scene_file(p)
        rep = _file_report(p, sf)
        doc, where = _pick(list(sf.scenes), scene, rep, str(p))
        encounter = _convert(doc, where, opts, rep, file=str(p), base_dir=p.parent,
                             name=name or str(doc.get("name") or p.stem))
    return encounter, rep.build(time.perf_counter() - start)


@dataclass(frozen=True)
class SceneImport:
    """One scene of :func:`import_every_scene`: its ``name`` and either the ``encounter``
    with its ``report`` or the ``error`` that refused it (a 10 km world map)."""

    name: str
    encounter: Encounter | None
    report: ImportReport | None
    error: ImportFileError | None = None


def import_every_scene(path: str | Path, cell_size: float = uvtt.DEFAULT_CELL_SIZE, *,
                       wall_thickness: float = uvtt.WALL_THICKNESS, wall_height: float = uvtt.WALL_HEIGHT,
                       window_sill: float = uvtt.WINDOW_SILL) -> list[SceneImport]:
    """Every scene of a Foundry file as :func:`import_foundry` makes each (the file read
    once), in the file's order: for checking a whole world."""
    p = Path(path)
    opts = _options(cell_size, wall_thickness, wall_height, window_sill, None)
    out = []
    with guarded(str(p), "the Foundry scene"):
        sf = read_scene_file(p)
    for i, (doc, where) in enumerate(sf.scenes):
        name = str(doc.get("name") or f"{p.stem} {i + 1}")
        start = time.perf_counter()
        rep = _file_report(p, sf)
        try:
            with guarded(str(p), "the Foundry scene"):
                encounter = _convert(doc, where, opts, rep, file=str(p), base_dir=p.parent, name=name)
        except ImportFileError as exc:
            out.append(SceneImport(clean_text(name, 200), None, None, exc))
            continue
        out.append(SceneImport(encounter.name, encounter, rep.build(time.perf_counter() - start)))
    return out


def _options(cell_size, wall_thickness, wall_height, window_sill, scene) -> FoundryOptions:
    uvtt.UvttOptions(cell_size=cell_size, wall_thickness=wall_thickness, wall_height=wall_height,
                     window_sill=window_sill).check()
    return FoundryOptions(cell_size, wall_thickness, wall_height, window_sill, scene)


def _file_report(p: Path, sf: SceneFile) -> ReportBuilder:
    rep = ReportBuilder(source=str(p), kind="foundry")
    if sf.nedb:
        left = ([_n(sf.history, "earlier version")] if sf.history else []) + (
            [_n(sf.deleted, "deleted scene")] if sf.deleted else [])
        rep.note(f"a Foundry NeDB database: {_n(sf.lines, 'line')}, {_n(len(sf.scenes), 'scene')} as they are now"
                 + (f" ({' and '.join(left)} left out)" if left else ""))
        if sf.unreadable:
            rep.warn(f"{_n(sf.unreadable, 'line')} of the database are not JSON documents; skipped "
                     "(as Foundry's NeDB skips them)")
    return rep


# -- conversion ---------------------------------------------------------------------------------


#: The generations of Foundry's scene fields :func:`version_of` tells apart.
V9, V10, V14 = "v9", "v10-v13", "v14"


def version_of(doc: dict) -> str:
    """The generation of a scene's fields, told by where the scene keeps its picture:
    ``"v14"`` with ``levels`` (each level has its ``background.src``), ``"v10-v13"`` with
    a ``background`` object, ``"v9"`` with a top-level ``img`` (Foundry 9 and before, also
    0.7/0.8). Without either, the grid says it (an object is v10+, a number v9). Wall fields
    are read wall by wall (:func:`_restrictions`) and do not decide it: Foundry 9's walls
    already have ``sight``."""
    if isinstance(doc.get("levels"), list) and not isinstance(doc.get("background"), dict):
        return V14
    if isinstance(doc.get("background"), dict):
        return V10
    if "img" in doc:
        return V9
    if isinstance(doc.get("grid"), dict):
        return V10
    return V9


def _grid(doc: dict, opts: FoundryOptions, rep: ReportBuilder) -> tuple[float, float, str]:
    """(grid size px, metres a square, how the metres were found)."""
    g = doc.get("grid")
    if isinstance(g, dict):
        size, dist, units, at = g.get("size"), g.get("distance"), g.get("units"), "$.grid"
    else:
        size, dist, units, at = g, doc.get("gridDistance"), doc.get("gridUnits"), "$"
    gtype = g.get("type") if isinstance(g, dict) else doc.get("gridType")
    if isinstance(gtype, int) and not isinstance(gtype, bool) and gtype >= 2:
        rep.warn(f"the scene has a hex grid (type {gtype}); Coverfire's grid is square: read as squares of the same "
                 "size (positions and walls are exact; only the grid drawn differs)", "$.grid.type")
    try:
        px = _num(size, f"{at}.size" if at != "$" else "$.grid", default=100.0)
        if px < 1:
            raise _Bad(f"a grid of {px:g} px is not a grid", "$.grid")
    except _Bad as bad:
        rep.warn(f"{bad.message}; 100 px taken (Foundry's default)", bad.where)
        px = 100.0
    try:
        d = _num(dist, f"{at}.distance" if at != "$" else "$.gridDistance", default=5.0)
        if d <= 0:
            raise _Bad(f"a grid distance of {d:g} is not a distance", "$.gridDistance")
    except _Bad as bad:
        rep.warn(f"{bad.message}; 5 taken (Foundry's default)", bad.where)
        d = 5.0
    u = str(units or "").strip().lower()
    if u in UNITS:
        cell = d * UNITS[u]
        how = f"{d:g} {units} a square = {cell:.4g} m"
    else:
        cell = opts.cell_size
        rep.warn(f"grid units {units!r} are not a length Coverfire knows (ft, m, yd, mi, km); one square is "
                 f"taken as {cell:g} m (the cell size chosen)", f"{at}.units" if at != "$" else "$.gridUnits")
        how = f"{d:g} {units or '(no units)'} a square, taken as {cell:g} m"
    if not (0 < cell <= 1000):
        raise ImportFileError(f"one grid square would be {cell:g} m; not a battle map")
    return px, cell, how


def _convert(doc: dict, where: str, opts: FoundryOptions, rep: ReportBuilder, *, file: str, base_dir: Path,
             name: str) -> Encounter:
    version = version_of(doc)
    px, cell, how = _grid(doc, opts, rep)
    try:
        w_px = _num(doc.get("width"), "$.width")
        h_px = _num(doc.get("height"), "$.height")
        if w_px < 1 or h_px < 1:
            raise _Bad(f"a scene of {w_px:g} x {h_px:g} px has no area", "$.width")
    except _Bad as bad:
        raise ImportFileError(f"the scene has no usable size: {bad.message}", file=file, path=bad.where) from None
    try:
        padding = _num(doc.get("padding"), "$.padding", default=DEFAULT_PADDING)
        if not 0 <= padding <= 1:
            raise _Bad(f"padding {padding:g} is not a fraction from 0 to 1", "$.padding")
    except _Bad as bad:
        rep.warn(f"{bad.message}; {DEFAULT_PADDING:g} taken", bad.where)
        padding = DEFAULT_PADDING
    src, src_at, offsets = _picture(doc, version)
    off_x, off_y = (float(v) if _is_num(v) else 0.0 for v in offsets)
    pad_x = math.ceil(padding * w_px / px) * px - off_x
    pad_y = math.ceil(padding * h_px / px) * px - off_y
    k = cell / px  # metres a pixel
    width, height = w_px * k, h_px * k

    def to_m(x: float, y: float) -> tuple[float, float]:
        return (x - pad_x) * k, (y - pad_y) * k

    half = opts.wall_thickness / 2
    crop = Crop(shapely.box(-cell, -cell, width + cell, height + cell))
    obstacles: list[Obstacle] = []
    counts: dict[str, int] = {}

    def add(poly, prefix: str, where_: str, **fields) -> int:
        n = 0
        for piece in crop.cut(poly):
            ident = f"{prefix}-{counts.get(prefix, 0) + 1}"
            try:
                obstacles.append(Obstacle(id=ident, polygon=ring(piece), **fields))
            except ValueError as exc:
                rep.warn(f"this wall cannot become an obstacle ({type(exc).__name__}); skipped", where_)
                continue
            counts[prefix] = counts.get(prefix, 0) + 1
            n += 1
        return n

    stats = {"walls": 0, "doors": 0, "doors_dropped": 0, "open": 0, "secret": 0, "locked": 0, "movement_only": 0,
             "one_way": 0, "limited": 0, "nothing": 0}
    sight_only: list[list[float]] = []
    walls = doc.get("walls")
    if not isinstance(walls, list):
        rep.warn(f"expected a list of walls, got {quote(walls)}; none imported", "$.walls")
        walls = []
    if len(walls) > MAX_WALLS:
        rep.warn(f"the scene has {len(walls):,} walls; the first {MAX_WALLS:,} are read", "$.walls")
        walls = walls[:MAX_WALLS]
    plain_lines: list[np.ndarray] = []
    for i, wall in enumerate(walls):
        at = f"$.walls[{i}]"
        if not isinstance(wall, dict):
            rep.warn(f"expected a wall object, got {quote(wall)}; skipped", at)
            continue
        c = wall.get("c")
        try:
            if not isinstance(c, list) or len(c) != 4:
                raise _Bad(f"\"c\" must be [x0, y0, x1, y1], got {quote(c)}", f"{at}.c")
            x0, y0, x1, y1 = (_num(v, f"{at}.c[{j}]") for j, v in enumerate(c))
        except _Bad as bad:
            rep.warn(f"{bad.message}; this wall is skipped", bad.where)
            continue
        a, b = to_m(x0, y0), to_m(x1, y1)
        if math.hypot(b[0] - a[0], b[1] - a[1]) < 1e-4:
            rep.warn("the wall's two ends are the same point; skipped", f"{at}.c")
            continue
        move, sight = _restrictions(wall, version)
        door = wall.get("door", 0)
        door = door if door in (0, 1, 2) else 0
        if wall.get("dir") not in (None, 0):
            stats["one_way"] += 1
        if door:
            ds = wall.get("ds", 0)
            is_open = ds == 1
            label = "Secret door" if door == 2 else "Door"
            if ds == 2:
                label += " (locked)"
                stats["locked"] += 1
            poly = thin_polygons(shapely.LineString([a, b]), half)[0]
            n = add(poly, "door", at, name=label, height=opts.wall_height, door=True, open=is_open,
                    hidden=door == 2)
            stats["doors"] += n
            stats["doors_dropped"] += n == 0
            stats["open"] += is_open and n > 0
            stats["secret"] += door == 2 and n > 0
            continue
        if move and sight:
            if sight == "limited":
                stats["limited"] += 1
            plain_lines.append(np.array([a, b]))
        elif move:
            poly = thin_polygons(shapely.LineString([a, b]), half)[0]
            stats["movement_only"] += add(poly, "window", at, name="Movement-only wall", height=opts.window_sill,
                                          kind="window")
        elif sight:
            sight_only.append([round(a[0], 4), round(a[1], 4), round(b[0], 4), round(b[1], 4)])
        else:
            stats["nothing"] += 1
    for chain in (piece for c in uvtt.merge(plain_lines) for piece in uvtt.split(c, uvtt.MAX_POLYLINE_POINTS)):
        for poly in thin_polygons(uvtt.chunked(chain), half):
            stats["walls"] += add(poly, "wall", "$.walls", name="Wall", height=opts.wall_height)

    tokens, token_note = _tokens(doc, to_m, px, cell, version, base_dir, rep)
    lights, light_counts = _lights(doc, to_m, cell / _grid_distance(doc),
                                   {o.id for o in obstacles} | {t.id for t in tokens}, rep)

    background = None
    image_note: dict[str, Any] = {}
    if isinstance(src, str) and src.strip():
        image_note["image_path"] = src
        found = find_beside(src, base_dir)
        if found is None:
            decoded = _decoded(src)
            tree = _data_folders(Path(os.path.abspath(base_dir)))
            looked = f"{base_dir} and the folders above it up to {tree[-1]}" if len(tree) > 1 else f"{base_dir}"
            rep.warn(f"the background {src!r} is not beside the file (looked for "
                     f"{decoded + ' ' if decoded != src else ''}in {looked}); the map "
                     "has no picture until one is set", src_at)
            picture_line = f"background: none; the scene names {src!r}, looked for in {looked}"
        else:
            uri, _info, _note = uvtt.image_from_path(str(found), uvtt.UvttOptions(), base_dir, rep, src_at)
            if uri is not None:
                background = Background(image=uri, x=0.0, y=0.0, width=width, height=height)
                picture_line = f"background: {found} (the scene names {src!r})"
            else:
                picture_line = f"background: none; {found} (the scene names {src!r}) is not a usable picture"
    else:
        tiles = len(doc["tiles"]) if isinstance(doc.get("tiles"), list) else 0
        rep.warn("the scene has no background image" + (
            f" (its picture may be in its {_n(tiles, 'tile')}, which Coverfire does not read)" if tiles else ""),
            src_at)
        picture_line = f"background: none (the scene names no picture at {src_at})"

    imported: dict[str, Any] = {
        "from": Path(file).name, "kind": "foundry", "foundry_version": version, "scene_place": where,
        "grid_px": px, "cell_size": cell, "padding": padding, "scene_px": [w_px, h_px],
        "wall_height": opts.wall_height, "wall_thickness": opts.wall_thickness, "window_sill": opts.window_sill,
        **image_note,
    }
    own = foundry_counts(doc)
    imported["foundry_counts"] = own
    core = _core_version(doc)
    if core:
        imported["core_version"] = core
    if sight_only:
        imported["sight_only_walls"] = sight_only
    if crop.dropped or crop.cut_count:
        imported["cropped"] = {"margin": cell, "dropped": crop.dropped, "cut": crop.cut_count}
    if isinstance(doc.get("flags"), dict) and doc["flags"]:
        imported["flags"] = storable(doc["flags"], "$.flags", rep)
    imported = storable(imported, "$", rep, max_depth=MAX_KEPT_DEPTH + 2)
    try:
        encounter = Encounter(
            name=clean_text(name, 200), map=MapSpec(width=width, height=height, grid=cell, background=background),
            obstacles=tuple(obstacles), tokens=tuple(tokens), lights=lights, imported=imported)
    except (ValueError, EncounterFileError) as exc:
        raise ImportFileError(f"the converted scene is not a valid encounter: {exc}", file=file) from None
    encounter = storable_encounter(encounter, rep, file=file)

    rep.note(f"Foundry scene {name!r} ({_generation(version, core)}{', ' + where if where != '$' else ''}): "
             f"{width:g} x {height:g} m ({w_px:g} x {h_px:g} px, grid {px:g} px; {how})")
    rep.note(f"the scene in Foundry: {_n(own['walls'], 'wall')} ({_n(own['doors'], 'door')} among them: "
             f"{own['secret_doors']} secret, {own['locked_doors']} locked), {_n(own['lights'], 'light')}, "
             f"{_n(own['tokens'], 'token')}")
    rep.note(f"{_n(stats['walls'], 'wall obstacle')}, {opts.wall_height:g} m tall"
             + (f" ({_n(stats['limited'], 'wall')} of limited sight read as full walls)" if stats["limited"] else ""))
    rep.note(f"{_n(stats['doors'], 'door')} ({stats['open']} open, {stats['secret']} secret: GM only, "
             f"{stats['locked']} locked)" + (f"; {_n(stats['doors_dropped'], 'door')} wholly in the scene's padding "
                                             "dropped" if stats["doors_dropped"] else ""))
    if stats["movement_only"]:
        rep.note(f"{_n(stats['movement_only'], 'wall')} that block{'s' if stats['movement_only'] == 1 else ''} movement only (glass, railings): imported as windows, "
                 f"cover up to the {opts.window_sill:g} m sill, sight above it")
    if sight_only:
        rep.note(f"{_n(len(sight_only), 'wall')} that block{'s' if len(sight_only) == 1 else ''} sight only (curtains, illusions): they stop no one, so they are "
                 "no obstacles; kept under imported.sight_only_walls")
    if stats["nothing"]:
        rep.skip(f"{stats['nothing']} walls that block neither movement nor sight (sound only)")
    if stats["one_way"]:
        rep.skip(f"{stats['one_way']} one-way walls (read as blocking both ways)")
    if crop.dropped or crop.cut_count:
        rep.note(f"{_n(crop.dropped, 'wall')} lying wholly in the scene's padding dropped, {crop.cut_count} cut "
                 f"one square ({cell:.3g} m) outside the map")
    rep.note(token_note)
    lc = light_counts
    if lc["foundry"]:
        rep.note(f"{_n(lc['kept'], 'light')} of the scene's {lc['foundry']} kept as {_n(len(lights), 'model light')}: "
                 f"{lc['two_part']} bright to the bright radius with a dim ring to the dim radius, "
                 f"{lc['bright_only']} bright only (bright radius at or beyond the dim), {lc['dim_only']} dim only"
                 + (f"; {lc['hidden']} hidden (switched off)" if lc["hidden"] else ""))
    else:
        rep.note("0 lights")
    if lc["cones"]:
        rep.skip(f"{_n(lc['cones'], 'light')} shining in a cone (angle under 360°): imported as full circles")
    if lc["no_radius"]:
        rep.skip(f"{_n(lc['no_radius'], 'light')} with no bright or dim radius (they light nothing)")
    if lc["darkness"]:
        rep.skip(f"{_n(lc['darkness'], 'darkness source')} (negative lights)")
    rep.note(picture_line)
    for key in ("drawings", "notes", "sounds", "templates", "tiles"):
        n = len(doc.get(key) or []) if isinstance(doc.get(key), list) else 0
        if n:
            rep.skip(f"{key}: {n}")
    return encounter


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _generation(version: str, core: str | None) -> str:
    """The scene's version as the report says it: the generation of its fields and, when the
    file has it, Foundry's own ``coreVersion``."""
    fields = {V9: "Foundry 9 or older fields", V10: "Foundry 10-13 fields", V14: "Foundry 14 fields"}[version]
    return f"{version}: {fields}" + (f", core {core}" if core else "")


def _picture(doc: dict, version: str) -> tuple[Any, str, tuple[Any, Any]]:
    """(the picture path the scene names, the JSON path of that field, its offset x, y px)
    for the scene's generation: v9 ``img`` (offset ``shiftX``/``shiftY``), v10-v13
    ``background.src`` (``background.offsetX``/``offsetY``), v14 the ``background.src`` of
    the level named by ``initialLevel``, else the first level (offset
    ``textures.offsetX``/``offsetY``, else ``shiftX``/``shiftY``)."""
    shift = (doc.get("shiftX", 0), doc.get("shiftY", 0))
    if version == V14:
        levels = [lv for lv in doc["levels"] if isinstance(lv, dict)]
        if not levels:
            return None, "$.levels", shift
        initial = doc.get("initialLevel")
        k = next((i for i, lv in enumerate(doc["levels"]) if isinstance(lv, dict) and initial is not None
                  and lv.get("_id") == initial), doc["levels"].index(levels[0]))
        level = doc["levels"][k]
        bg = level.get("background") if isinstance(level.get("background"), dict) else {}
        tex = level.get("textures") if isinstance(level.get("textures"), dict) else {}
        return bg.get("src"), f"$.levels[{k}].background.src", (tex.get("offsetX", shift[0]), tex.get("offsetY", shift[1]))
    if version == V10:
        bg = doc.get("background") if isinstance(doc.get("background"), dict) else {}
        return bg.get("src"), "$.background.src", (bg.get("offsetX", 0), bg.get("offsetY", 0))
    return doc.get("img"), "$.img", shift


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and (
        not isinstance(v, float) or math.isfinite(v)) and abs(v) <= MAX_PIXELS


def _grid_distance(doc: dict) -> float:
    """The scene's grid distance (light radii are given in its units)."""
    g = doc.get("grid")
    d = g.get("distance") if isinstance(g, dict) else doc.get("gridDistance")
    return float(d) if _is_num(d) and d > 0 else 5.0


def foundry_counts(doc: dict) -> dict[str, int]:
    """What Foundry itself shows of a scene: its walls (doors are walls), doors, secret and
    locked doors, lights and tokens, counted in the scene document as given."""
    def items(key: str) -> list:
        v = doc.get(key)
        return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []

    walls = items("walls")
    doors = [w for w in walls if w.get("door") in (1, 2)]
    return {"walls": len(walls), "doors": len(doors), "secret_doors": sum(w.get("door") == 2 for w in doors),
            "locked_doors": sum(w.get("ds") == 2 for w in doors), "lights": len(items("lights")),
            "tokens": len(items("tokens"))}


def _core_version(doc: dict) -> str | None:
    flags = doc.get("flags") if isinstance(doc.get("flags"), dict) else {}
    src = flags.get("exportSource") if isinstance(flags.get("exportSource"), dict) else {}
    stats = doc.get("_stats") if isinstance(doc.get("_stats"), dict) else {}
    v = src.get("coreVersion") or stats.get("coreVersion")
    return str(v)[:20] if isinstance(v, (str, int, float)) and not isinstance(v, bool) else None


def _restrictions(wall: dict, version: str) -> tuple[bool, bool | str]:
    """(blocks movement, blocks sight: True, "limited" or False) of a wall: ``sight``
    0/10/20/30/40 (Foundry 9 and later; 10 is limited) or 0.7/0.8's ``sense`` 0/1/2 (2 is
    limited), whichever the wall has; ``move`` 0 lets through (1 in 0.8, 20 later block).
    A wall with neither takes its scene generation's default (blocking)."""
    move = wall.get("move", 1 if version == V9 else 20)
    blocks_move = isinstance(move, (int, float)) and not isinstance(move, bool) and move > 0
    if "sight" in wall or ("sense" not in wall and version != V9):
        sight = wall.get("sight", 20)
        limited = sight == 10
    else:
        sight = wall.get("sense", 1)
        limited = sight == 2
    blocks_sight = isinstance(sight, (int, float)) and not isinstance(sight, bool) and sight > 0
    return blocks_move, ("limited" if limited and blocks_sight else blocks_sight)


def _decoded(src: str) -> str:
    """A picture path as a file name: Foundry writes paths URL-encoded
    (``Mansion%201st%20floor.webp``, ``Caf%C3%A9.jpg``); a query (``?123``) is left out,
    backslashes are folder separators."""
    return unquote(src.strip().split("?")[0]).replace("\\", "/")


#: Folders of Foundry's data folder that hold what scenes name (``modules/x/maps/a.webp``).
DATA_SUBFOLDERS = ("modules", "worlds", "systems")


def _in_data_folder(folders: list[Path]) -> bool:
    """Whether :func:`_data_folders` found Foundry's data folder (not only the folders above)."""
    top = folders[-1]
    return top.name == "Data" or (len(folders) > 1 and folders[-2].name in DATA_SUBFOLDERS)


def _data_folders(base_dir: Path) -> list[Path]:
    """The folders a scene's picture path is looked for under: the scene file's folder and
    those above it up to Foundry's data folder (the one named ``Data``, or holding the
    ``modules``/``worlds``/``systems`` folder the file lies in, at most 7 above it), else the
    file's folder alone: a scene in ``~/Downloads/x/`` naming ``Documents/private.png``
    reads nothing of ``~/Documents`` (issue 25 item 4; the fuzz campaign's localpath kind
    found it walking up). The last is the top of the file's folder tree."""
    chain = [f for f in [base_dir, *base_dir.parents][:8] if f.parent != f]
    for i, folder in enumerate(chain):
        if folder.name == "Data" or (i > 0 and chain[i - 1].name in DATA_SUBFOLDERS):
            return chain[:i + 1]
    return [base_dir]


def find_beside(src: str, base_dir: Path) -> Path | None:
    """The image a scene names (a path in Foundry's data folder, such as
    ``modules/x/maps/a.jpg`` or ``worlds/w/a%20b.webp``, URL-decoded), looked for beside the
    scene file: the path under the file's folder and each folder above it up to Foundry's
    data folder (:func:`_data_folders`; a scenes.db lives in ``Data/worlds/W/data/``), then
    the file name alone beside it (outside a data folder: only under the file's own folder).
    None when not found, when ``src`` is a web address, or
    when the path would leave the folder it is looked for in (``..`` after decoding; links
    the GM made are followed); an absolute path counts only when it lies in that folder tree
    (else it is read as relative to it, as Foundry's ``/modules/...``)."""
    if not isinstance(src, str) or len(src) > 4096:
        return None
    text = _decoded(src)
    if re.match(r"^[a-z][a-z0-9+.-]*:", text, re.IGNORECASE) and not re.match(r"^[a-z]:/", text, re.IGNORECASE):
        return None  # a web address, data: or file: URI
    text = re.sub(r"^[a-z]:/", "/", text, flags=re.IGNORECASE)  # a Windows drive: read as an absolute path
    if "\x00" in text:
        return None
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        return None
    rel = Path(*parts)
    try:
        base_dir = Path(os.path.abspath(base_dir))
        folders = _data_folders(base_dir)
        if text.startswith("/"):
            absolute = Path("/", *parts)
            # (inside Foundry's data folder when the file lies in one, else inside the file's own
            # folder: a scene in ~/Downloads naming /home/gm/x.png reads nothing of the GM's)
            top = folders[-1] if _in_data_folder(folders) else base_dir
            if absolute.is_relative_to(top) and absolute.is_file():
                return absolute.resolve()
        for folder in folders:
            candidate = folder / rel
            if candidate.is_file():
                return candidate.resolve()
        alone = base_dir / rel.name
        return alone.resolve() if alone.is_file() else None
    except (OSError, ValueError, RuntimeError):  # a name too long for the file system, a link loop
        return None


def _tokens(doc: dict, to_m, px: float, cell: float, version: str, base_dir: Path, rep: ReportBuilder):
    raw = doc.get("tokens")
    if raw is None:
        return [], "0 tokens"
    if not isinstance(raw, list):
        rep.warn(f"expected a list of tokens, got {quote(raw)}; none imported", "$.tokens")
        return [], "0 tokens"
    out: list[Token] = []
    ids: set[str] = set()
    images = 0
    hidden = 0
    for i, t in enumerate(raw[:5000]):
        at = f"$.tokens[{i}]"
        if not isinstance(t, dict):
            rep.warn(f"expected a token object, got {quote(t)}; skipped", at)
            continue
        try:
            x = _num(t.get("x"), f"{at}.x")
            y = _num(t.get("y"), f"{at}.y")
            w = _num(t.get("width"), f"{at}.width", default=1.0)
            h = _num(t.get("height"), f"{at}.height", default=1.0)
            if not (0 < w <= 50 and 0 < h <= 50):
                raise _Bad(f"a token of {w:g} x {h:g} squares", f"{at}.width")
        except _Bad as bad:
            rep.warn(f"{bad.message}; this token is skipped", bad.where)
            continue
        cx, cy = to_m(x + w * px / 2, y + h * px / 2)
        name = clean_text(str(t.get("name") or f"Token {i + 1}"), 200)
        base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "token"
        ident, n = base, 1
        while ident in ids:
            n += 1
            ident = f"{base}-{n}"
        ids.add(ident)
        disp = t.get("disposition", 0)
        side = DISPOSITIONS.get(disp, "neutral") if isinstance(disp, int) and not isinstance(disp, bool) else "neutral"
        extra: dict[str, Any] = {}
        tex = t.get("texture") if isinstance(t.get("texture"), dict) else {}
        src = tex.get("src") if isinstance(tex.get("src"), str) else t.get("img")
        if isinstance(src, str) and src.strip():
            found = find_beside(src, base_dir)
            if found is not None:
                uri, _info, _note = uvtt.image_from_path(str(found), uvtt.UvttOptions(), base_dir, rep, f"{at}.img")
                if uri is not None:
                    extra["portrait"] = uri
                    images += 1
        is_hidden = bool(t.get("hidden")) is True
        hidden += is_hidden
        try:
            out.append(Token(id=ident, name=name, side=side, x=cx, y=cy, radius=DEFAULT_RADIUS * max(w, h),
                             hidden=is_hidden, **extra))
        except ValueError as exc:
            rep.warn(f"the token cannot be placed ({type(exc).__name__}); skipped", at)
    if len(raw) > 5000:
        rep.warn(f"the scene has {len(raw):,} tokens; the first 5,000 are read", "$.tokens")
    note = (f"{len(out)} token{'s' if len(out) != 1 else ''} ({hidden} hidden, {images} with their image found); "
            f"radius {DEFAULT_RADIUS:g} m a square of token size; side from disposition (friendly, neutral, hostile)")
    if out:
        rep.skip("the tokens' actors (sheets, items): Coverfire reads tokens by name, position and size only")
    return out, note


def _lights(doc: dict, to_m, m_per_unit: float, used: set[str], rep: ReportBuilder) -> tuple[list[dict], dict]:
    """The scene's lights as the model's :class:`~engine.model.Light` data, and counts for
    the report. Foundry lights a circle brightly to its ``bright`` radius and dimly beyond
    it to its ``dim`` radius (scene units; v9 top-level ``dim``/``bright``, v10+
    ``config``), the brighter winning where they overlap; so a light becomes a ``full``
    light of the bright radius (when it is above 0) and a ``dim`` light of the dim radius
    (when that is larger than the bright one): dim only is dim light alone, bright at or
    beyond dim is full light alone. Both parts carry ``foundry_light`` (the light's index in
    the scene). A light with no radius lights nothing and darkness sources (``negative``)
    are not lights: both are left out, counted."""
    raw = doc.get("lights")
    counts = {"foundry": 0, "kept": 0, "two_part": 0, "dim_only": 0, "bright_only": 0, "no_radius": 0,
              "darkness": 0, "cones": 0, "hidden": 0}
    if raw is None:
        return [], counts
    if not isinstance(raw, list):
        rep.warn(f"expected a list of lights, got {quote(raw)}; none imported", "$.lights")
        return [], counts
    counts["foundry"] = len(raw)
    out: list[dict] = []
    n = 0

    def fresh() -> str:
        nonlocal n
        while True:
            n += 1
            if f"light-{n}" not in used:
                used.add(f"light-{n}")
                return f"light-{n}"

    for i, light in enumerate(raw[:5000]):
        at = f"$.lights[{i}]"
        if not isinstance(light, dict):
            rep.warn(f"expected a light object, got {quote(light)}; skipped", at)
            continue
        try:
            x, y = to_m(_num(light.get("x"), f"{at}.x"), _num(light.get("y"), f"{at}.y"))
        except _Bad as bad:
            rep.warn(f"{bad.message}; this light is skipped", bad.where)
            continue
        cfg = light.get("config") if isinstance(light.get("config"), dict) else light
        if cfg.get("negative") is True:
            counts["darkness"] += 1
            continue
        dim, bright = (float(v) * m_per_unit if _is_num(v) and v > 0 else 0.0
                       for v in (cfg.get("dim"), cfg.get("bright")))
        parts = ([("full", bright)] if bright > 0 else []) + ([("dim", dim)] if dim > bright else [])
        if not parts:
            counts["no_radius"] += 1
            continue
        counts["two_part" if len(parts) == 2 else "bright_only" if bright > 0 else "dim_only"] += 1
        extra: dict[str, Any] = {"foundry_light": i}
        colour = cfg.get("color", light.get("tintColor"))
        if isinstance(colour, str) and re.match(r"^#[0-9a-fA-F]{6}$", colour):
            extra["color"] = colour.lower()
        alpha = cfg.get("alpha", light.get("tintAlpha"))
        if _is_num(alpha) and 0 <= alpha <= 1:
            extra["alpha"] = float(alpha)
        angle = cfg.get("angle", light.get("angle"))
        if _is_num(angle) and 0 < angle < 360:
            counts["cones"] += 1
            extra["angle"] = float(angle)
        hidden = light.get("hidden") is True
        counts["hidden"] += hidden
        counts["kept"] += 1
        for level, radius in parts:
            out.append({"id": fresh(), "x": x, "y": y, "radius": radius, "level": level, "on": not hidden, **extra})
    if len(raw) > 5000:
        rep.warn(f"the scene has {len(raw):,} lights; the first 5,000 are read", "$.lights")
    return out, counts
