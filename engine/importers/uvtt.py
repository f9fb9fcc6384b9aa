"""Universal VTT maps (.dd2vtt from Dungeondraft, .uvtt, .df2vtt) as Coverfire encounters.

The file gives everything in grid cells from ``resolution.map_origin``; Coverfire works in
metres from the map's top-left corner, so every point becomes
``((x - origin_x) * cell_size, (y - origin_y) * cell_size)``. The file never says how big a
cell is: the GM chooses (:data:`DEFAULT_CELL_SIZE`, 1.5 m, is common for Shadowrun maps).

What becomes what (numbers in docs/importing.md):

- ``line_of_sight`` polylines: full-height walls, each a thin polygon along the polyline
  (:data:`WALL_THICKNESS` wide, flat ends, mitred corners). Polylines that meet end to end
  are merged into one obstacle first; a polyline that closes on itself (a room, a pillar) is
  cut in two, because an obstacle's polygon has no holes.
- ``objects_line_of_sight``: low cover, :data:`OBJECT_HEIGHT` tall. A closed outline (a table,
  a crate) becomes the filled shape; an open one a thin polygon like a wall.
- ``portals``: doors along their ``bounds``, open when ``closed`` is false (an open door
  blocks nothing; a click on the map toggles it).
- ``lights`` become the encounter's lights (``Encounter.lights``: radius in metres,
  intensity as a light level, docs/sight.md); ``environment.ambient_light`` sets the
  ambient light level (``RuleSystem.with_light_level``: ``sight.light`` and the system's own
  setting, Shadowrun's environment light row).
- ``image``: the background, sized ``map_size`` cells. A base64 image is checked (size from
  its header before decoding, completeness, checksums) and kept as a ``data:`` URI until the
  encounter is saved with :func:`engine.importers.images.save_with_images`, which writes it
  beside the encounter file.

Broken parts (an image path that is not there, a cut-short image, an oversized image, a wall
with a bad point, an unknown ``format``) are reported as warnings and the rest is imported;
only a file that cannot be read as a UVTT map at all raises
:class:`~engine.errors.ImportFileError`.
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import shapely

from engine import clock, limits, obstacles
from engine.errors import CoverfireError, EncounterFileError, ImportFileError
from engine.files import read_user_file
from engine.importers import images
from engine.importers.guard import guarded
from engine.importers.report import ImportReport, ReportBuilder, quote
from engine.importers.storable import MAX_KEPT_DEPTH, clean_text, storable, storable_encounter
from engine.importers.walls import MITRE_LIMIT, PRECISION, Crop, chunked, filled, merge, ring, split, thin_polygons  # noqa: F401

from engine.model import Background, Encounter, MapSpec, Obstacle, intensity_level

#: Metres per grid cell when the GM does not say.
DEFAULT_CELL_SIZE = 1.5
#: Width of a wall or door polygon, metres.
WALL_THICKNESS = 0.15
#: Height of walls and doors, metres (taller than anyone standing: full cover).
WALL_HEIGHT = obstacles.WALL_HEIGHT
#: Height of the low cover made from ``objects_line_of_sight``, metres.
OBJECT_HEIGHT = 1.0
#: Sill height of a window (a portal with ``"closed": false``), metres: it blocks movement,
#: gives cover up to the sill and lets sight and fire through above it.
WINDOW_SILL = 1.0
#: Ends of an object polyline closer than this (in cells) make a closed outline.
CLOSE_TOLERANCE_CELLS = 0.05
#: Format versions seen in files from Dungeondraft, DungeonFog, Arkenforge and Foundry exports.
KNOWN_FORMATS = (0.2, 0.3, 0.4, 1.0)
#: Wall polylines shorter than this (metres) are noise from the drawing tool and are skipped.
MIN_WALL_LENGTH = 1e-5
#: Largest map file read, bytes.
MAX_FILE_BYTES = 512 * 1024 * 1024
#: Largest magnitude of a number read (cells, pixels, radians): times any cell size Coverfire
#: accepts (at most 1000 m) it stays a finite number of metres.
MAX_NUMBER = 1e9
#: A polyline with more points than this is simplified (within :data:`SIMPLIFY_TOLERANCES`,
#: metres, the smallest that brings it under the cap) or, failing that, thinned evenly.
MAX_POLYLINE_POINTS = 1000
SIMPLIFY_TOLERANCES = (0.01, 0.02, 0.05)
#: Walls and object outlines are simplified within this (metres): finer detail than a pixel
#: of the map's picture only costs time (a 1,000-point wall zig-zagging by 1.5 cm took 0.12 s
#: to make thick, 200 of them 50 s).
WALL_DETAIL = 0.02
#: Points kept from all polylines of a map at most; polylines past it are skipped.
MAX_MAP_POINTS = 200_000
#: CPU seconds the walls may take to be made thick; a map over it is refused, naming the walls
#: (a hostile comb of walls at the point limit would take about a minute).
THICKEN_CPU_S = 6.0
#: Points looked at at most, repeated polylines included (they are left out, not kept).
MAX_READ_POINTS = 1_000_000
#: Walls, doors and cover lying wholly farther than this many cells outside the map are
#: dropped (Dungeondraft's cropped exports carry the whole level); the rest is cut there.
CROP_MARGIN_CELLS = 1.0
#: Ambient light luminance (0-1, alpha applied) at or above which a row applies.
LIGHT_ROWS = (("full", 0.75), ("partial", 0.4), ("dim", 0.15), ("dark", 0.0))

#: Most JSON values a map file may hold, counted before it is parsed: the points looked at
#: (:data:`MAX_READ_POINTS`, three values each: the object, x, y) and room for the rest. A
#: 99 MB map of points took 7.6 GB and 180 s to parse before its points were counted.
MAX_JSON_ITEMS = 3 * MAX_READ_POINTS + 100_000
_IMAGE_PATH = re.compile(r"\.(png|webp|jpe?g|gif|bmp)$", re.IGNORECASE)


@dataclass(frozen=True)
class UvttOptions:
    """The GM's choices for one import (metres)."""

    cell_size: float = DEFAULT_CELL_SIZE
    wall_thickness: float = WALL_THICKNESS
    wall_height: float = WALL_HEIGHT
    object_height: float = OBJECT_HEIGHT
    max_image_pixels: int = images.MAX_IMAGE_PIXELS
    window_sill: float = WINDOW_SILL

    def check(self) -> None:
        """Raise :class:`CoverfireError` for a number no map can use."""
        for name in ("cell_size", "wall_thickness", "wall_height", "object_height", "window_sill"):
            v = getattr(self, name)
            if _finite(v) is None or v <= 0:
                raise CoverfireError(f"{name.replace('_', ' ')} must be a positive number of metres, got {v!r}")
        if self.cell_size > 1000:
            raise CoverfireError(f"a cell size of {self.cell_size} m is not a battle map")
        if self.wall_height > 1000 or self.object_height > 1000 or self.window_sill > 1000:
            raise CoverfireError("obstacle heights are limited to 1000 m")


class _Bad(Exception):
    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(f"expected a number, got {quote(value)}", where)
    if isinstance(value, int) and abs(value) > MAX_NUMBER:  # before float(): it may overflow
        raise _Bad(f"{quote(value)} is too large for a map (at most {MAX_NUMBER:g})", where)
    v = float(value)
    if not math.isfinite(v):
        raise _Bad(f"expected a finite number, got {value!r}", where)
    if abs(v) > MAX_NUMBER:
        raise _Bad(f"{quote(value)} is too large for a map (at most {MAX_NUMBER:g})", where)
    return v


def _finite(value: Any) -> float | None:
    """``value`` as a float when it is a finite number within :data:`MAX_NUMBER`, else None
    (never raises, also not for an integer beyond float range)."""
    try:
        return _number(value, "")
    except _Bad:
        return None


def _xy(value: Any, where: str) -> tuple[float, float]:
    if not isinstance(value, dict):
        raise _Bad(f"expected a point {{\"x\": .., \"y\": ..}}, got {quote(value)}", where)
    if "x" not in value or "y" not in value:
        raise _Bad("a point needs both x and y", where)
    return _number(value["x"], f"{where}.x"), _number(value["y"], f"{where}.y")


def _points(pl: list, where: str) -> list[tuple[float, float]]:
    """The points of a polyline (``[{"x": .., "y": ..}, ...]``) as floats; :class:`_Bad` at
    the first bad one. Plain numbers are converted at once (a million points took 3 s one by
    one); anything else is read point by point to name what is wrong where."""
    try:
        xs = [p["x"] for p in pl]
        ys = [p["y"] for p in pl]
        if set(map(type, xs)) | set(map(type, ys)) <= {int, float}:  # (no bools, no strings)
            a = np.array([xs, ys], dtype=float)
            if np.isfinite(a).all() and bool((np.abs(a) <= MAX_NUMBER).all()):
                return list(zip(a[0].tolist(), a[1].tolist()))
    except (TypeError, KeyError, IndexError, OverflowError, ValueError):
        pass
    return [_xy(p, f"{where}[{j}]") for j, p in enumerate(pl)]


# -- reading the file ---------------------------------------------------------------------------


def read_uvtt_json(path: str | Path) -> dict:
    """The parsed JSON object of a map file; :class:`ImportFileError` if it is not one."""
    name = str(Path(path))
    raw = read_user_file(path, error=ImportFileError, what="a map file", max_bytes=MAX_FILE_BYTES)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFileError(
            f"not a Universal VTT map: not UTF-8 text (byte {exc.start} is {raw[exc.start]:#04x})",
            file=name,
        ) from None
    limits.check_json_items(text, file=name, error=ImportFileError, max_items=MAX_JSON_ITEMS)  # (before parsing)
    try:
        data = limits.parse_json(text)
    except json.JSONDecodeError as exc:
        raise ImportFileError(
            f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", file=name, path="$"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise ImportFileError(f"malformed JSON: {exc}", file=name, path="$") from None
    if not isinstance(data, dict):
        raise ImportFileError(
            f"a Universal VTT map holds one JSON object, this holds {type(data).__name__}", file=name, path="$"
        )
    return data


def import_uvtt(
    path: str | Path,
    cell_size: float = DEFAULT_CELL_SIZE,
    *,
    wall_thickness: float = WALL_THICKNESS,
    wall_height: float = WALL_HEIGHT,
    object_height: float = OBJECT_HEIGHT,
    max_image_pixels: int = images.MAX_IMAGE_PIXELS,
    name: str | None = None,
    window_sill: float = WINDOW_SILL,
) -> tuple[Encounter, ImportReport]:
    """Read a Universal VTT map file and make an encounter of it (all lengths in metres).

    Returns (encounter, report). The background image, when usable, is a ``data:`` URI in
    the encounter; save with :func:`engine.importers.images.save_with_images` to write it
    beside the encounter file. Raises :class:`ImportFileError` (file name, JSON path,
    reason) only when the file cannot be read as a map at all; everything else is imported
    where it can be and reported."""
    start = time.perf_counter()
    opts = UvttOptions(cell_size, wall_thickness, wall_height, object_height, max_image_pixels, window_sill)
    opts.check()
    p = Path(path)
    with guarded(str(p), "the map"):
        data = read_uvtt_json(p)
        encounter, builder = _convert(data, opts, file=str(p), base_dir=p.parent, name=name or p.stem)
    report = builder.build(time.perf_counter() - start)
    return encounter, report


def import_uvtt_data(
    data: dict,
    options: UvttOptions = UvttOptions(),
    *,
    file: str = "<map>",
    base_dir: str | Path | None = None,
    name: str = "Imported map",
) -> tuple[Encounter, ImportReport]:
    """:func:`import_uvtt` on already-parsed JSON (``base_dir`` resolves an image path)."""
    start = time.perf_counter()
    options.check()
    if not isinstance(data, dict):
        raise ImportFileError("a Universal VTT map holds one JSON object", file=file, path="$")
    with guarded(file, "the map"):
        encounter, builder = _convert(data, options, file=file, base_dir=Path(base_dir or "."), name=name)
    return encounter, builder.build(time.perf_counter() - start)


# -- conversion ---------------------------------------------------------------------------------


def _convert(data: dict, opts: UvttOptions, *, file: str, base_dir: Path, name: str):
    rep = ReportBuilder(source=file, kind="uvtt")
    fmt = _check_format(data, rep)
    cell = opts.cell_size

    res = data.get("resolution")
    if not isinstance(res, dict):
        raise ImportFileError(
            "not a Universal VTT map: no \"resolution\" object (map size and grid)", file=file, path="$.resolution"
        )
    origin = (0.0, 0.0)
    if "map_origin" in res:
        try:
            origin = _xy(res["map_origin"], "$.resolution.map_origin")
        except _Bad as bad:
            rep.warn(f"{bad.message}; origin taken as (0, 0)", bad.where)
    ppg: float | None = None
    try:
        ppg = _number(res.get("pixels_per_grid"), "$.resolution.pixels_per_grid")
        if ppg <= 0:
            raise _Bad(f"pixels_per_grid must be positive, got {ppg}", "$.resolution.pixels_per_grid")
    except _Bad as bad:
        rep.warn(f"{bad.message}; the image size cannot be checked", bad.where)
        ppg = None
    size_cells: tuple[float, float] | None = None
    try:
        size_cells = _xy(res.get("map_size"), "$.resolution.map_size")
        if size_cells[0] <= 0 or size_cells[1] <= 0:
            raise _Bad(f"map_size must be positive, got {size_cells}", "$.resolution.map_size")
    except _Bad as bad:
        rep.warn(f"{bad.message}; the map size is taken from the walls and image instead", bad.where)
        size_cells = None

    ox, oy = origin

    def to_m(pts: list[tuple[float, float]]) -> np.ndarray:
        a = np.asarray(pts, dtype=float)
        a[:, 0] -= ox
        a[:, 1] -= oy
        return a * cell

    dropped = [0]

    def fine(a: np.ndarray) -> np.ndarray:
        """``a`` simplified within :data:`WALL_DETAIL` (Douglas-Peucker; past
        :data:`MAX_SIMPLIFY_POINTS`, the points within it of the one kept before dropped)."""
        if len(a) <= 2:
            return a
        if len(a) <= MAX_SIMPLIFY_POINTS:
            b = np.asarray(shapely.simplify(shapely.LineString(a), WALL_DETAIL, preserve_topology=False).coords)
            if len(b) < 2 or (np.allclose(a[0], a[-1]) and len(b) < 4):  # a closed outline kept closed
                b = a
        else:
            b = _radial(a, WALL_DETAIL)
        dropped[0] += len(a) - len(b)
        return b

    budget = [MAX_MAP_POINTS, MAX_READ_POINTS]
    walls = _polylines(data, "line_of_sight", rep, cell, budget)
    objects = _polylines(data, "objects_line_of_sight", rep, cell, budget)
    portals = _portals(data, rep)

    # Image first: its header may be the only size the map has.
    img_uri, img_info, image_note = _image(data, opts, base_dir, rep)

    if size_cells is None:
        size_cells = _fallback_size(walls, objects, portals, img_info, ppg, origin)
        if size_cells is None:
            raise ImportFileError(
                "the map has no usable map_size, no walls and no image to measure it by",
                file=file,
                path="$.resolution.map_size",
            )
    width, height = size_cells[0] * cell, size_cells[1] * cell

    if img_uri is not None and img_info is not None and ppg is not None and not img_info.problem:
        ew, eh = size_cells[0] * ppg, size_cells[1] * ppg
        if abs(img_info.width - ew) > 1.5 or abs(img_info.height - eh) > 1.5:
            rep.warn(
                f"the image is {img_info.width} x {img_info.height} px but map_size x pixels_per_grid "
                f"gives {ew:.0f} x {eh:.0f} px; the image is stretched over the {width:g} x {height:g} m map",
                "$.image",
            )

    half = opts.wall_thickness / 2
    obstacles: list[Obstacle] = []
    margin = CROP_MARGIN_CELLS * cell
    crop = Crop(shapely.box(-margin, -margin, width + margin, height + margin))

    counts: dict[str, int] = {}

    def add(where: str, poly, prefix: str, **fields) -> int:
        """Add ``poly`` (cut to the map and its margin) as obstacles ``prefix-N``; returns how
        many were added (0 when it lies wholly outside)."""
        n = 0
        for piece in crop.cut(poly):
            ident = f"{prefix}-{counts.get(prefix, 0) + 1}"
            try:
                obstacles.append(Obstacle(id=ident, polygon=ring(piece), **fields))
            except ValueError as exc:  # a degenerate shape the geometry could not make valid
                rep.warn(f"this shape cannot become an obstacle ({exc.__class__.__name__}); skipped", where)
                continue
            counts[prefix] = counts.get(prefix, 0) + 1
            n += 1
        return n

    # Walls: merge polylines that meet end to end, then thin polygons.
    wall_lines = []
    for pts, where in walls:
        a = fine(to_m(pts))
        if float(np.hypot(*np.diff(a, axis=0).T).sum()) < MIN_WALL_LENGTH:
            rep.warn("the polyline is shorter than 10 micrometres; skipped", where)
            continue
        wall_lines.append((a, where))
    chains = [piece for chain in merge([a for a, _ in wall_lines]) for piece in split(chain, MAX_POLYLINE_POINTS)]
    n_wall_polys = 0
    started = clock.cpu()
    for done, chain in enumerate(chains):
        if clock.cpu() - started > THICKEN_CPU_S:
            raise ImportFileError(
                f"the walls are too detailed to make thick in reasonable time ({done:,} of {len(chains):,} "
                f"wall pieces done in {THICKEN_CPU_S:g} s of CPU); simplify them in the map editor",
                path="$.line_of_sight")
        for poly in thin_polygons(chunked(chain), half):
            n_wall_polys += add("$.line_of_sight", poly, "wall", name="Wall", height=opts.wall_height)

    # Doors (closed portals) and windows (open ones: Dungeondraft marks windows so).
    n_doors = n_windows = 0
    for i, portal in portals:
        poly = _door_polygon(portal, to_m, half, cell, rep, f"$.portals[{i}]")
        if poly is None:
            continue
        if portal["closed"]:
            label = "Door (freestanding)" if portal.get("freestanding") else "Door"
            n_doors += add(f"$.portals[{i}]", poly, "door", name=label, height=opts.wall_height, door=True)
        else:
            n_windows += add(f"$.portals[{i}]", poly, "window", name="Window", height=opts.window_sill, kind="window")

    # Low cover from objects.
    n_cover = 0
    tol = CLOSE_TOLERANCE_CELLS * cell
    for pts, where in objects:
        a = fine(to_m(pts))
        closed = len(a) >= 4 and float(np.hypot(*(a[0] - a[-1]))) <= tol
        if closed:
            polys = [filled(a, half)]
        else:
            polys = thin_polygons(chunked(shapely.LineString(a)), half)
        for poly in polys:
            if poly is None or poly.is_empty or poly.area <= 1e-9:
                rep.warn("the object outline has no area; skipped", where)
                continue
            n_cover += add(where, poly, "cover", name="Low cover", height=opts.object_height)

    lights = _lights(data, to_m, cell, rep)
    env_light, env_raw = _ambient(data, rep)

    imported = storable(_provenance(data, file, fmt, opts, origin, ppg, size_cells, env_raw, image_note, rep),
                        "$", rep, max_depth=MAX_KEPT_DEPTH + 2)
    if crop.dropped or crop.cut_count:
        imported["cropped"] = {"margin": margin, "dropped": crop.dropped, "cut": crop.cut_count}
    background = None
    if img_uri is not None:
        background = Background(image=img_uri, x=0.0, y=0.0, width=width, height=height)
    try:
        encounter = Encounter(
            name=clean_text(name, 200),
            map=MapSpec(width=width, height=height, grid=cell, background=background),
            obstacles=tuple(obstacles),
            lights=lights,
            imported=imported,
        )
        encounter = encounter.system.with_light_level(encounter, env_light)  # the system's own light row too
    except (ValueError, EncounterFileError) as exc:  # pragma: no cover - a bug, not a user error
        raise ImportFileError(f"the converted map is not a valid encounter: {exc}", file=file) from None
    encounter = storable_encounter(encounter, rep, file=file)

    rep.note(
        f"map {width:g} x {height:g} m ({size_cells[0]:g} x {size_cells[1]:g} cells of {cell:g} m)"
        + (", origin subtracted" if (ox, oy) != (0.0, 0.0) else "")
    )
    if crop.dropped or crop.cut_count:
        rep.note(
            f"cropped export: {crop.dropped} shape{'s' if crop.dropped != 1 else ''} lying wholly more than "
            f"{CROP_MARGIN_CELLS:g} cell ({margin:g} m) outside the map dropped, {crop.cut_count} cut at that margin"
        )
    rep.note(
        f"{n_wall_polys} wall obstacle{'s' if n_wall_polys != 1 else ''} from {len(walls)} wall "
        f"polyline{'s' if len(walls) != 1 else ''}, {opts.wall_height:g} m tall"
    )
    if dropped[0]:
        rep.note(f"walls and objects simplified within {WALL_DETAIL * 100:g} cm: {dropped[0]:,} point"
                 f"{'s' if dropped[0] != 1 else ''} left out (finer than the walls are thick)")
    rep.note(f"{n_doors} door{'s' if n_doors != 1 else ''} (closed portals)")
    if n_windows:
        rep.note(f"{n_windows} window{'s' if n_windows != 1 else ''} (open portals): they block movement and give "
                 f"cover up to the {opts.window_sill:g} m sill")
    rep.note(f"{n_cover} low cover obstacle{'s' if n_cover != 1 else ''}, {opts.object_height:g} m tall")
    rep.note(f"{len(lights)} light{'s' if len(lights) != 1 else ''} kept; default light: {env_light}")
    rep.note("background: " + ("the map image" if background else "none"))
    return encounter, rep


def _check_format(data: dict, rep: ReportBuilder) -> Any:
    fmt = data.get("format")
    if fmt is None:
        rep.warn("the file gives no \"format\"; read as a Universal VTT map", "$.format")
    elif isinstance(fmt, bool) or not isinstance(fmt, (int, float, str)):
        rep.warn(f"unknown format {quote(fmt)}; read as far as it matches Universal VTT", "$.format")
    else:
        try:
            value = float(fmt)
        except (ValueError, OverflowError):  # OverflowError: an integer beyond float range
            value = None
        if value is None or not any(abs(value - k) < 1e-9 for k in KNOWN_FORMATS):
            known = ", ".join(f"{k:g}" for k in KNOWN_FORMATS)
            rep.warn(
                f"unknown format {quote(fmt)} (this importer knows {known}); read as far as it matches",
                "$.format",
            )
    if isinstance(fmt, (int, float)) and not isinstance(fmt, bool) and _finite(fmt) is None:
        return quote(fmt)  # kept as text: a number no map holds
    return fmt


def _polylines(data: dict, key: str, rep: ReportBuilder, cell: float = DEFAULT_CELL_SIZE,
               budget: list[int] | None = None) -> list[tuple[list[tuple[float, float]], str]]:
    """Valid polylines of ``data[key]`` in cells, each with its JSON path; bad ones reported,
    repeats of an earlier one (the same points, either way round) left out with one warning.
    A polyline over :data:`MAX_POLYLINE_POINTS` points is simplified (:func:`_capped`);
    once ``budget[0]`` points are kept (or ``budget[1]`` read), the rest are skipped with a
    warning."""
    budget = budget if budget is not None else [MAX_MAP_POINTS, MAX_READ_POINTS]
    raw = data.get(key)
    if raw is None:
        return []
    if not isinstance(raw, list):
        rep.warn(f"expected a list of polylines, got {quote(raw)}; none imported", f"$.{key}")
        return []
    out = []
    seen: set[tuple[tuple[float, float], ...]] = set()
    repeats = 0
    for i, pl in enumerate(raw):
        where = f"$.{key}[{i}]"
        if not isinstance(pl, list):
            rep.warn(f"expected a list of points, got {quote(pl)}; skipped", where)
            continue
        if len(pl) > budget[0] or len(pl) > budget[1]:
            spent = 0 if len(pl) > budget[0] else 1  # (the other is left as it is: later lists say the same)
            limit = (f"more than {MAX_MAP_POINTS:,} points" if spent == 0
                     else f"more than {MAX_READ_POINTS:,} points, repeats included")
            rep.warn(f"the map holds {limit}; this polyline and the {len(raw) - i - 1} after it are skipped",
                     where)
            budget[spent] = 0
            break
        budget[1] -= len(pl)
        try:
            pts = _points(pl, where)
        except _Bad as bad:
            rep.warn(f"{bad.message}; this polyline is skipped", bad.where)
            continue
        dedup = [pts[0]] if pts else []
        for q in pts[1:]:
            if q != dedup[-1]:
                dedup.append(q)
        if len(dedup) < 2:
            rep.warn(f"a polyline needs two distinct points, this has {len(dedup)}; skipped", where)
            continue
        key_ = tuple(dedup)
        if key_ in seen or key_[::-1] in seen:
            repeats += 1
            continue
        seen.add(key_)
        budget[0] -= len(pl)
        if len(dedup) > MAX_POLYLINE_POINTS:
            dedup = _capped(dedup, cell, rep, where)
        out.append((dedup, where))
    if repeats:
        rep.warn(f"{repeats:,} polyline{'s' if repeats != 1 else ''} repeat{'s' if repeats == 1 else ''} one before "
                 "point for point (forwards or backwards); left out, as they would only stack identical "
                 "obstacles", f"$.{key}")
    return out


#: Above this many points a polyline is thinned evenly without Douglas-Peucker: GEOS's
#: simplify recurses once a vertex on a zig-zag and a deep enough one overflows the C stack.
MAX_SIMPLIFY_POINTS = 5000


def _radial(a: np.ndarray, tol: float) -> np.ndarray:
    """``a`` (n x 2) without the points closer than ``tol`` to the point kept before them (the
    line moves at most ``tol``); the last point is always kept. O(n), no recursion."""
    keep = [0]
    lx, ly = a[0]
    t2 = tol * tol
    for i in range(1, len(a) - 1):
        x, y = a[i]
        if (x - lx) ** 2 + (y - ly) ** 2 >= t2:
            keep.append(i)
            lx, ly = x, y
    keep.append(len(a) - 1)
    return a[keep]


def _capped(pts: list[tuple[float, float]], cell: float, rep: ReportBuilder, where: str) -> list[tuple[float, float]]:
    """A polyline of more than :data:`MAX_POLYLINE_POINTS` points (cells) brought under the
    cap: points closer together than the tolerance dropped, then simplified (Douglas-Peucker,
    only below :data:`MAX_SIMPLIFY_POINTS`) within the smallest of :data:`SIMPLIFY_TOLERANCES`
    (metres) that does it, else thinned to evenly spaced points. A warning says which."""
    n = len(pts)
    a = np.asarray(pts, dtype=float)
    for tol in SIMPLIFY_TOLERANCES:
        b = _radial(a, tol / cell)
        if len(b) <= MAX_POLYLINE_POINTS:
            coords = [(float(x), float(y)) for x, y in b]
        elif len(b) <= MAX_SIMPLIFY_POINTS:
            simple = shapely.simplify(shapely.LineString(b), tol / cell, preserve_topology=False)
            coords = [(float(x), float(y)) for x, y in simple.coords]
        else:
            continue
        if 2 <= len(coords) <= MAX_POLYLINE_POINTS:
            rep.warn(f"the polyline has {n:,} points; simplified to {len(coords):,} within {tol * 100:g} cm "
                     f"(at most {MAX_POLYLINE_POINTS:,} points a polyline)", where)
            return coords
    idx = np.unique(np.linspace(0, n - 1, MAX_POLYLINE_POINTS).round().astype(int))
    rep.warn(f"the polyline has {n:,} points and does not simplify within {SIMPLIFY_TOLERANCES[-1] * 100:g} cm; "
             f"thinned to {len(idx):,} evenly spaced points, so its shape is approximate", where)
    return [pts[int(k)] for k in idx]


def _portals(data: dict, rep: ReportBuilder) -> list[tuple[int, dict]]:
    raw = data.get("portals")
    if raw is None:
        return []
    if not isinstance(raw, list):
        rep.warn(f"expected a list of portals, got {quote(raw)}; no doors imported", "$.portals")
        return []
    out = []
    for i, p in enumerate(raw):
        where = f"$.portals[{i}]"
        if not isinstance(p, dict):
            rep.warn(f"expected a portal object, got {quote(p)}; skipped", where)
            continue
        closed = p.get("closed")
        if not isinstance(closed, bool):
            rep.warn(f"\"closed\" is {quote(closed)}, not true or false; the door is imported closed", f"{where}.closed")
            p = dict(p, closed=True)
        out.append((i, p))
    return out


def _door_polygon(portal: dict, to_m, half: float, cell: float, rep: ReportBuilder, where: str):
    bounds = portal.get("bounds")
    pts = None
    try:
        if isinstance(bounds, list) and len(bounds) >= 2:
            pts = [_xy(bounds[0], f"{where}.bounds[0]"), _xy(bounds[-1], f"{where}.bounds[{len(bounds) - 1}]")]
        else:
            # No bounds: one cell wide across its position, turned by its rotation (radians).
            cx, cy = _xy(portal.get("position"), f"{where}.position")
            rot = _number(portal.get("rotation", 0.0), f"{where}.rotation")
            dx, dy = 0.5 * math.cos(rot), 0.5 * math.sin(rot)
            pts = [(cx - dx, cy - dy), (cx + dx, cy + dy)]
            rep.warn("the portal has no two-point bounds; made one cell wide from its position and rotation", where)
    except _Bad as bad:
        rep.warn(f"{bad.message}; this door is skipped", bad.where)
        return None
    a = to_m(pts)
    if float(np.hypot(*(a[1] - a[0]))) < 1e-6:
        rep.warn("the door's two bounds are the same point; skipped", f"{where}.bounds")
        return None
    return thin_polygons(shapely.LineString(a), half)[0]


def _fallback_size(walls, objects, portals, img_info, ppg, origin):
    if img_info is not None and not img_info.problem and ppg:
        return img_info.width / ppg, img_info.height / ppg
    xs: list[float] = []
    ys: list[float] = []
    for pts, _ in walls + objects:
        xs += [p[0] for p in pts]
        ys += [p[1] for p in pts]
    if not xs:
        return None
    return max(max(xs) - origin[0], 1.0), max(max(ys) - origin[1], 1.0)


# -- lights, ambient light, image ---------------------------------------------------------------


def _argb(value: Any) -> tuple[float, float, float, float] | None:
    """(alpha, red, green, blue) in 0-1 from an ``AARRGGBB`` (or ``RRGGBB``) hex text."""
    if not isinstance(value, str):
        return None
    s = value.strip().lstrip("#")
    if len(s) == 6:
        s = "ff" + s
    if len(s) != 8 or any(c not in "0123456789abcdefABCDEF" for c in s):
        return None
    a, r, g, b = (int(s[i : i + 2], 16) / 255 for i in range(0, 8, 2))
    return a, r, g, b


def _lights(data: dict, to_m, cell: float, rep: ReportBuilder) -> list[dict]:
    """The file's lights as :class:`~engine.model.Light` data (docs/sight.md): ``range``
    cells become the radius in metres, ``intensity`` the level
    (:func:`engine.model.intensity_level`: 0.75 and up full, 0.4 partial, less dim; 0 or
    less: switched off), the colour ``#RRGGBB`` with its alpha kept beside it; ``shadows``
    and anything else are kept as given. A light without a positive range is skipped."""
    raw = data.get("lights")
    if raw is None:
        return []
    if not isinstance(raw, list):
        rep.warn(f"expected a list of lights, got {quote(raw)}; none kept", "$.lights")
        return []
    out = []
    for i, light in enumerate(raw):
        where = f"$.lights[{i}]"
        if not isinstance(light, dict):
            rep.warn(f"expected a light object, got {quote(light)}; skipped", where)
            continue
        try:
            (x, y), = to_m([_xy(light.get("position"), f"{where}.position")]).tolist()
        except _Bad as bad:
            rep.warn(f"{bad.message}; this light is skipped", bad.where)
            continue
        rng = _finite(light.get("range"))
        if rng is None or rng <= 0:
            rep.warn(f"range {quote(light.get('range'))} is not a positive number of cells; this light "
                     "is skipped", f"{where}.range")
            continue
        item: dict[str, Any] = {"id": f"light-{len(out) + 1}", "x": x, "y": y, "radius": rng * cell}
        intensity = _finite(light.get("intensity"))
        if intensity is not None:
            item["level"] = intensity_level(intensity) if intensity > 0 else "full"
            item["on"] = intensity > 0
        colour = _argb(light.get("color"))
        if colour is not None:
            a, r, g, b = colour
            item["color"] = "#{:02x}{:02x}{:02x}".format(round(r * 255), round(g * 255), round(b * 255))
            item["alpha"] = round(a, 4)
        elif light.get("color") is not None:
            rep.warn(f"colour {quote(light.get('color'))} is not AARRGGBB; left out", f"{where}.color")
        for k, v in light.items():  # intensity, shadows and anything else, as given (if it can be saved)
            if k not in ("position", "range", "color") and k not in item:
                kept = storable({k: v}, where, rep)
                item.update(kept or {})
        out.append(item)
    return out


def _ambient(data: dict, rep: ReportBuilder) -> tuple[str, Any]:
    env = data.get("environment")
    if env is None:
        return "full", None
    if not isinstance(env, dict):
        rep.warn(f"expected an environment object, got {quote(env)}; light left at full", "$.environment")
        return "full", env
    colour = env.get("ambient_light")
    if colour is None:
        return "full", env
    argb = _argb(colour)
    if argb is None:
        rep.warn(f"ambient_light {quote(colour)} is not AARRGGBB; light left at full", "$.environment.ambient_light")
        return "full", env
    a, r, g, b = argb
    lum = a * (0.2126 * r + 0.7152 * g + 0.0722 * b)
    for row, threshold in LIGHT_ROWS:
        if lum >= threshold - 1e-9:
            return row, env
    return "dark", env  # pragma: no cover - the last threshold is 0


def _image(data: dict, opts: UvttOptions, base_dir: Path, rep: ReportBuilder):
    """(data URI or None, ImageInfo or None, provenance note) for the map's image."""
    raw = data.get("image")
    where = "$.image"
    if raw is None or raw == "":
        rep.warn("the file holds no image; the map has no background", where)
        return None, None, None
    if not isinstance(raw, str):
        rep.warn(f"expected base64 text or a path, got {quote(raw)}; no background", where)
        return None, None, None
    text = raw.strip()
    if not text.startswith("data:") and len(text) < 4096 and _IMAGE_PATH.search(text):
        inside, outside = images.path_inside(text, base_dir)
        if inside is None:  # (a file from elsewhere reads no picture outside its own folder)
            rep.warn(
                f"the image is given as a path, {text!r}, that Coverfire does not read: {outside}; "
                "an imported map's picture is read only inside the map file's own folder; "
                "the map has no background until one is set",
                where,
            )
            return None, None, {"image_path": text}
        return image_from_path(text, opts, base_dir, rep, where, found=inside)
    mime, payload = images.split_data_uri(text)
    head = images.b64_prefix(payload)
    info = images.image_header(head)
    if info.format is None:
        rep.warn("the image is neither base64 PNG/JPEG/WebP/GIF nor a path to one; no background", where)
        return None, None, {"image": "unreadable"}
    if info.problem is None:
        too_big = images.size_problem(info, opts.max_image_pixels)
        if too_big:
            rep.warn(
                f"the image is not used as background: {too_big}; export the map with fewer pixels per grid",
                where,
            )
            return None, info, {"image": "too large", "image_px": [info.width, info.height]}
    blob, b64_problem = images.b64_decode(payload)
    checked = images.check_image(blob)
    problem = checked.problem or info.problem
    if problem:
        extra = f" ({b64_problem})" if b64_problem else ""
        rep.warn(f"the image cannot be used: {problem}{extra}; the map has no background", where)
        return None, checked, {"image": "broken", "image_problem": problem}
    if b64_problem:  # decoded whole despite odd characters: re-encode cleanly
        return images.data_uri(blob, checked.format), checked, None
    return images.data_uri_from_b64(payload, checked.format), checked, None


def image_from_path(text: str, opts: UvttOptions, base_dir: Path, rep: ReportBuilder, where: str,
                     found: Path | None = None):
    """(data URI or None, ImageInfo or None, provenance note) of the picture file ``text``
    (``found``, else relative to ``base_dir`` or absolute). The caller has checked that the
    path is one the file may name (:func:`_image`: inside the map's folder; Foundry's
    ``find_beside``)."""
    candidate = found if found is not None else Path(text)
    if not candidate.is_absolute():
        candidate = base_dir / candidate
    note = {"image_path": text}
    try:
        there = candidate.is_file()
    except (OSError, ValueError):  # a name too long for the file system, a NUL in it
        there = False
    if not there:
        rep.warn(
            f"the image is given as a path, {text!r}, which is not there (looked in {base_dir}); "
            "the map has no background until one is set",
            where,
        )
        return None, None, note
    try:
        size = candidate.stat().st_size
        if size > MAX_FILE_BYTES:
            rep.warn(f"the image file is {size} bytes, larger than Coverfire reads; no background", where)
            return None, None, note
        with candidate.open("rb") as fh:
            head = fh.read(65536)
        info = images.image_header(head)
        if info.problem is None:
            too_big = images.size_problem(info, opts.max_image_pixels)
            if too_big:
                rep.warn(f"the image {text!r} is not used as background: {too_big}", where)
                return None, info, note
        blob = candidate.read_bytes()
    except OSError as exc:
        rep.warn(f"cannot read the image {text!r}: {exc.strerror or exc}; no background", where)
        return None, None, note
    checked = images.check_image(blob)
    if checked.problem:
        rep.warn(f"the image {text!r} cannot be used: {checked.problem}; no background", where)
        return None, checked, note
    return images.data_uri(blob, checked.format), checked, note


def _provenance(data, file, fmt, opts, origin, ppg, size_cells, env_raw, image_note, rep: ReportBuilder) -> dict:
    known = {
        "format", "resolution", "line_of_sight", "objects_line_of_sight", "portals",
        "lights", "environment", "image",
    }
    out: dict[str, Any] = {
        "from": Path(file).name,
        "kind": "uvtt",
        "format": fmt,
        "cell_size": opts.cell_size,
        "map_origin": [origin[0], origin[1]],
        "map_size": [size_cells[0], size_cells[1]] if size_cells else None,
        "pixels_per_grid": ppg,
        "wall_thickness": opts.wall_thickness,
        "wall_height": opts.wall_height,
        "object_height": opts.object_height,
        "window_sill": opts.window_sill,
    }
    if env_raw is not None:
        out["environment"] = storable(env_raw, "$.environment", rep)
    if image_note:
        out.update(image_note)
    unknown = {k: v for k, v in data.items() if k not in known}
    if unknown:
        out["unknown_fields"] = storable(unknown, "$", rep)
    return {k: v for k, v in out.items() if v is not None}


# -- command line -------------------------------------------------------------------------------


def run_import_map(args) -> int:
    """``coverfire import-map FILE -o ENCOUNTER.json [--cell-size METRES]``: import, write the
    encounter and its background image beside it, print the report."""
    cell = args.cell_size if getattr(args, "cell_size", None) is not None else DEFAULT_CELL_SIZE
    encounter, report = import_uvtt(args.file, cell)
    _saved, written = images.save_with_images(encounter, args.output)
    for line in report.lines():
        print(line)
    print(f"Wrote {args.output}" + (" and " + ", ".join(written) if written else ""))
    return 0
