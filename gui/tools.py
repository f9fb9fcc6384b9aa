"""Map tools: what a press, a drag, a click does. Mouse logic without Qt events.

A tool receives :class:`Pointer` values (map metres, modifier keys, metres per pixel) from
the map view and talks to a :class:`ToolHost` (the document, the selection, picking,
snapping, a sketch to draw). Tests drive tools with plain Pointers. During a drag a tool
shows live states through ``document.preview`` and lands the whole drag as one undo step
with ``document.commit``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import shapely
from PySide6.QtGui import QColor, QPainterPath

from engine import limits
from engine.errors import CoverfireError, IllegalActionError
from engine.model import AREA_ZONES, Encounter
from engine.names import display_name
from engine.obstacles import footprints
from engine.rules import MoveTo
from engine.diff import common_prefix
from gui import edits
from gui.document import EncounterDocument
from gui.layers import Sketch, zone_handles
from gui.layers.tokens import TokenLayer
from gui.qtgeom import add_ring, polyline_path
from gui.selection import Selection

HANDLE_SLACK_PX = 8.0
CLOSE_SLACK_PX = 10.0
PICK_SLACK_PX = 4.0
CLICK_PX = 3.0


@dataclass(frozen=True)
class Pointer:
    """A mouse position on the map in metres, with modifier keys and the current zoom."""

    x: float
    y: float
    shift: bool = False
    ctrl: bool = False
    alt: bool = False
    m_per_px: float = 0.05

    @property
    def xy(self) -> tuple[float, float]:
        return (self.x, self.y)

    def px_to(self, other: "Pointer") -> float:
        """Distance to ``other`` in screen pixels."""
        return math.hypot(self.x - other.x, self.y - other.y) / max(self.m_per_px, 1e-12)


@dataclass(frozen=True)
class Hit:
    """What is under the pointer: ``kind`` is ``token``, ``obstacle``, ``zone``, ``vertex``
    (``index`` of an obstacle's vertex) or ``handle`` (``index`` into
    :func:`gui.layers.zone_handles`)."""

    kind: str
    id: str
    index: int = -1


class Picker:
    """Finds the object under a point, for one encounter (rebuilt when it changes). The
    obstacles' part (10,000 footprints and their tree: ~35 ms) is taken over from
    ``previous`` when the obstacles are the same values (a token moved, a token selected),
    and footprints the cover index made already are used, not made again."""

    def __init__(self, encounter: Encounter, tactics=None, visible: Callable[[object], bool] | None = None,
                 previous: "Picker | None" = None):
        self.encounter = encounter
        self._visible = visible
        vis = visible or (lambda item: True)
        toks = [t for t in encounter.tokens if vis(t)]
        self._tok_ids = [t.id for t in toks]
        self._tok = np.array([(t.x, t.y, t.radius) for t in toks], dtype=float).reshape(-1, 3)
        if previous is not None and previous.encounter.obstacles is encounter.obstacles \
                and previous._visible == visible:
            self._obs_src, self._obs_ids = previous._obs_src, previous._obs_ids
            self._obs, self._tree = previous._obs, previous._tree
        else:
            self._obstacles(encounter, tactics, vis, previous)
        self._zones = []
        if tactics is not None:
            for z in reversed(encounter.zones):  # the last drawn is on top
                if not vis(z):
                    continue
                try:
                    self._zones.append((z.id, tactics.zone_shape(z.id)))
                except ValueError:
                    pass

    def _obstacles(self, encounter: Encounter, tactics, vis, previous: "Picker | None") -> None:
        obs = [o for o in encounter.obstacles if vis(o)]
        self._obs_src = obs
        self._obs_ids = [o.id for o in obs]
        polys: list = [None] * len(obs)
        if previous is not None and previous._visible == self._visible:
            # an edit keeps the values it does not touch: their footprints are the old ones
            old = previous._obs_src
            head = common_prefix(old, obs)
            rest = min(len(old), len(obs)) - head
            tail = common_prefix(reversed(old[head:]), reversed(obs[head:])) if rest > 0 else 0
            polys[:head] = list(previous._obs[:head])
            if tail:
                polys[len(obs) - tail:] = list(previous._obs[len(old) - tail:])
        known = getattr(tactics, "footprint", None)
        missing = [i for i, p in enumerate(polys) if p is None]
        if known is not None:
            for i in missing:
                polys[i] = known(obs[i])
            missing = [i for i in missing if polys[i] is None]
        if missing:
            for i, p in zip(missing, footprints([obs[i] for i in missing])):
                polys[i] = p
        self._obs = np.array(polys, dtype=object) if polys else np.empty(0, dtype=object)
        self._tree = shapely.STRtree(self._obs) if len(self._obs) else None

    def token_at(self, x: float, y: float, slack: float = 0.0, drawn_min: float = 0.0) -> str | None:
        """The token under (x, y) metres within ``slack`` metres of its rim, a disc drawn at
        least ``drawn_min`` metres in radius (the token layer's least size at this zoom)."""
        if not len(self._tok):
            return None
        d = np.hypot(self._tok[:, 0] - x, self._tok[:, 1] - y) - np.maximum(self._tok[:, 2], drawn_min)
        i = int(np.argmin(d))
        return self._tok_ids[i] if d[i] <= slack else None

    def obstacle_at(self, x: float, y: float, slack: float = 0.0) -> str | None:
        if self._tree is None:
            return None
        pt = shapely.Point(x, y)
        idx = self._tree.query(pt, predicate="dwithin", distance=slack) if slack > 0 else self._tree.query(pt, predicate="intersects")
        if len(idx) == 0:
            return None
        return self._obs_ids[int(max(idx))]  # the last drawn is on top

    def zone_at(self, x: float, y: float) -> str | None:
        for zid, shape in self._zones:
            if shape is not None and shapely.intersects_xy(shape, x, y):
                return zid
        return None

    def hit(self, x: float, y: float, m_per_px: float, selected: tuple[str, ...] = ()) -> Hit | None:
        """Handles of selected objects first, then tokens, obstacles, zones."""
        enc = self.encounter
        slack = HANDLE_SLACK_PX * m_per_px
        for ident in selected:
            kind = edits.kind_of(enc, ident)
            if kind == "obstacle":
                pts = np.asarray(enc.obstacle(ident).polygon)
                d = np.hypot(pts[:, 0] - x, pts[:, 1] - y)
                i = int(np.argmin(d))
                if d[i] <= slack:
                    return Hit("vertex", ident, i)
            elif kind == "zone":
                for i, (hx, hy) in enumerate(zone_handles(enc, enc.zone(ident))):
                    if math.hypot(hx - x, hy - y) <= slack:
                        return Hit("handle", ident, i)
        tid = self.token_at(x, y, PICK_SLACK_PX * m_per_px, TokenLayer.MIN_RADIUS_PX * m_per_px)
        if tid is not None:
            return Hit("token", tid)
        oid = self.obstacle_at(x, y)
        if oid is not None:
            return Hit("obstacle", oid)
        zid = self.zone_at(x, y)
        if zid is not None:
            return Hit("zone", zid)
        return None


class ToolHost(Protocol):
    """What a tool needs from the map view."""

    document: EncounterDocument
    selection: Selection
    snapping: bool
    new_token_side: str
    new_obstacle_height: float
    new_wall_height: float
    wall_thickness: float

    def picker(self) -> Picker: ...
    def set_sketch(self, sketch: Sketch | None) -> None: ...
    def status(self, text: str) -> None: ...
    def grid(self) -> float: ...


def _name(item, encounter=None) -> str:
    return display_name(item, encounter)


class Tool:
    """Base tool: does nothing. ``name`` is shown on its toolbar button."""

    name = "Tool"
    shortcut = ""
    tip = ""

    def __init__(self, host: ToolHost):
        self.host = host

    @property
    def doc(self) -> EncounterDocument:
        return self.host.document

    def press(self, p: Pointer) -> None: ...
    def move(self, p: Pointer) -> None: ...
    def release(self, p: Pointer) -> None: ...
    def hover(self, p: Pointer) -> None: ...
    def double_click(self, p: Pointer) -> None: ...

    def finish(self) -> None:
        """Enter: complete what is being drawn."""

    def busy(self) -> bool:
        """Whether something is in progress that Escape would drop (a drag, a shape being
        drawn); when not, Escape on the map cancels the Action panel's action instead."""
        return False

    def cancel(self) -> None:
        """Escape: drop what is in progress."""
        self.doc.cancel_preview()
        self.host.set_sketch(None)

    def undo_point(self) -> None:
        """Backspace while drawing: drop the last point."""

    def snap_point(self, p: Pointer, *, centre: bool = False) -> tuple[float, float]:
        """The pointer, snapped to grid intersections (or cell centres) when snapping is on."""
        if not self.host.snapping:
            return p.xy
        g = self.host.grid()
        off = g / 2 if centre else 0.0
        return (edits.snap(p.x, g, off), edits.snap(p.y, g, off))

    def _land(self, encounter: Encounter, text: str) -> bool:
        """Commit a finished edit; the engine's refusal goes to the status bar. (Checked
        against the last committed state: only what the edit changed is validated.)"""
        try:
            encounter = edits.checked(encounter, self.doc.committed)
        except CoverfireError as exc:
            self.doc.cancel_preview()
            self.host.status(f"Not done: {exc}")
            return False
        return self.doc.commit(encounter, text)

    def _add(self, encounter: Encounter, item, text: str) -> bool:
        """Land ``item`` (a new token or obstacle) added to ``encounter`` as one undo step,
        and select it. Only the new item is checked (the rest was valid, and a whole
        revalidation takes seconds on a big map and makes every value new)."""
        try:
            data = item.model_dump(mode="python", round_trip=True)
            type(item).model_validate(data)
            if edits.kind_of(encounter, item.id) is not None:
                raise IllegalActionError(f"the id {item.id!r} is taken already")
            after = edits.add_unchecked(encounter, item)
            limits.check_data(item.model_dump(mode="python", exclude_none=True))
            limits.check_encounter(after, text=False)  # (counts, coordinates, vertex totals)
        except ValueError as exc:
            self.doc.cancel_preview()
            self.host.status(f"Not done: {exc}")
            return False
        if not self.doc.commit(after, text):
            return False
        self.host.selection.select([item.id], self.doc.encounter)
        return True


# -- select / move -------------------------------------------------------------------------------
class SelectTool(Tool):
    """Click to select (shift: add/remove; a click on a token makes it the attacker), drag
    to move the selection (the attacker stays as it was), drag a vertex, a zone's aim or
    radius handle."""

    name = "Select"
    shortcut = "S"
    tip = "Select and move (drag tokens, shapes, vertices and zone handles)"

    def __init__(self, host: ToolHost):
        super().__init__(host)
        self._down: Pointer | None = None
        self._hit: Hit | None = None
        self._base: Encounter | None = None
        self._dragging = False
        self._anchor: tuple[float, float] | None = None
        self._distance = None  # the dragged token's walk label (gui.drag_distance), made on the first drag
        self._trail: list[tuple[float, float]] = []  # the drag's offsets, step by step (the walked path)

    def press(self, p: Pointer) -> None:
        sel = self.host.selection
        enc = self.doc.encounter
        hit = self.host.picker().hit(p.x, p.y, p.m_per_px, sel.ids)
        self._down, self._hit, self._base, self._dragging = p, hit, enc, False
        self._trail = []
        if hit is None:
            if not p.shift:
                sel.clear(drop_attacker=True)
            return
        if hit.kind in ("vertex", "handle"):
            return
        if p.shift:
            sel.toggle(hit.id, enc)
        elif hit.id not in sel.ids or len(sel.ids) == 1:  # (pressing one of several keeps them all)
            # select, but keep the attacker: a drag moves a token, only a click (see
            # release) makes it the attacker
            sel.select([hit.id], enc, keep_attacker=True)
        item = edits.find(enc, hit.id)
        if hit.kind == "token":
            self._anchor = (item.x, item.y)
        elif hit.kind == "obstacle":
            self._anchor = item.polygon[0]
        else:
            self._anchor = None

    def move(self, p: Pointer) -> None:
        if self._down is None or self._hit is None:
            return
        if not self._dragging and p.px_to(self._down) < CLICK_PX:
            return
        self._dragging = True
        base, hit = self._base, self._hit
        try:
            if hit.kind == "vertex":
                xy = self.snap_point(p)
                o = base.obstacle(hit.id)
                pts = list(o.polygon)
                pts[hit.index] = xy
                why = edits.polygon_ok(pts)
                if why:
                    self.host.status(f"That vertex would break the outline: {why}")
                    return
                self.doc.preview(edits.set_vertex(base, hit.id, hit.index, xy))
            elif hit.kind == "handle":
                self.doc.preview(self._handle_edit(base, hit, p))
            else:
                ids = self.host.selection.ids or (hit.id,)
                dx, dy = p.x - self._down.x, p.y - self._down.y
                if self.host.snapping and self._anchor is not None:
                    token = hit.kind == "token"
                    ax, ay = self._anchor
                    g = self.host.grid()
                    off = g / 2 if token else 0.0
                    dx = edits.snap(ax + dx, g, off) - ax
                    dy = edits.snap(ay + dy, g, off) - ay
                self.doc.preview(edits.translate(base, ids, dx, dy))
                if hit.kind == "token" and len(ids) == 1 and self._anchor is not None:
                    self._follow(base, ids[0], (self._anchor[0] + dx, self._anchor[1] + dy), p.m_per_px)
                self._trail.append((dx, dy))
        except CoverfireError as exc:
            self.host.status(str(exc))

    def _follow(self, base: Encounter, token_id: str, to: tuple[float, float], m_per_px: float) -> None:
        """The walked metres and their cost beside the dragged token (gui.drag_distance)."""
        if self._distance is None:
            from gui.drag_distance import DragDistance

            self._distance = DragDistance(self.host)
        tactics = None if self.doc.tactics_error else self.doc.tactics
        self._distance.follow(base, tactics, token_id, to, m_per_px)

    def _stop_distance(self) -> None:
        if self._distance is not None and self._distance.active:
            self._distance.stop()
            self.host.set_sketch(None)

    def _handle_edit(self, base: Encounter, hit: Hit, p: Pointer) -> Encounter:
        z = base.zone(hit.id)
        handles = zone_handles(base, z)
        is_centre = z.x is not None and hit.index == len(handles) - 1 and (
            z.kind in AREA_ZONES or len(handles) == 2
        )
        if is_centre:
            ox, oy = base.zone_origin(z)
            x, y = self.snap_point(p)
            return edits.translate(base, [z.id], x - ox, y - oy)
        if z.kind in ("blast", "circle"):
            return edits.resize_zone(base, z.id, p.xy)
        return edits.aim_zone(base, z.id, p.xy)

    def release(self, p: Pointer) -> None:
        if self._down is None:
            return
        hit, dragging, down = self._hit, self._dragging, self._down
        self._down, self._hit, self._dragging = None, None, False
        self._stop_distance()
        if hit is not None and not dragging and hit.kind == "token" and not down.shift:
            self.host.selection.select([hit.id], self.doc.encounter)  # a click: the attacker
            return
        if not dragging or hit is None:
            return
        enc = self.doc.encounter
        if enc is self.doc.committed:
            return
        if hit.kind == "vertex":
            text = f"Move a corner of {_name(enc.obstacle(hit.id))}"
        elif hit.kind == "handle":
            text = f"Adjust {_name(enc.zone(hit.id), enc)}"
            try:  # only the zone changed: check it alone (a whole revalidation is slow on big maps)
                z = enc.zone(hit.id)
                type(z).model_validate(z.model_dump(mode="python", round_trip=True))
            except ValueError as exc:
                self.doc.cancel_preview()
                self.host.status(f"Not done: {exc}")
                return
        else:
            ids = self.host.selection.ids or (hit.id,)
            text = f"Move {_name(edits.find(enc, ids[0]), enc)}" if len(ids) == 1 else f"Move {len(ids)} objects"
            moves = drag_moves(self._base, ids, self._trail)
            if moves is not None:  # only tokens: the drag lands as moves with their walked paths
                self.doc.commit_moves(moves, text)
                return
        # moves keep every value finite and valid (vertices were checked as they moved)
        self.doc.commit(enc, text)

    def busy(self) -> bool:
        return self._down is not None

    def cancel(self) -> None:
        self._down, self._hit, self._dragging = None, None, False
        if self._distance is not None:
            self._distance.stop()
        super().cancel()


#: Corners of a drag's walked path closer than this to the straight line between their
#: neighbours are dropped (metres): a hand's wobble is not a detour.
PATH_TOLERANCE = 0.25


def drag_moves(base: Encounter, ids, trail) -> list[MoveTo] | None:
    """The ``engine.rules.MoveTo`` of each dragged token when the drag moved only tokens:
    from where it stood in ``base`` along ``trail`` (the drag's offsets, step by step) to the
    last; ``path`` holds the corners where the walk bent (None: straight). None when the
    drag moved anything but tokens (obstacles, zones) or did not move."""
    import shapely

    tokens = [base.token(i) for i in ids if base.find(i) is not None and edits.kind_of(base, i) == "token"]
    if not trail or len(tokens) != len(ids):
        return None
    line = shapely.LineString([(0.0, 0.0), *trail]).simplify(PATH_TOLERANCE) if len(trail) > 1 else None
    corners = [tuple(map(float, c)) for c in line.coords[1:-1]] if line is not None else []
    dx, dy = trail[-1]
    return [MoveTo(t.id, (t.x + dx, t.y + dy), tuple((t.x + cx, t.y + cy) for cx, cy in corners) or None)
            for t in tokens]


# -- add token --------------------------------------------------------------------------------
class TokenTool(Tool):
    name = "Token"
    shortcut = "Shift+T"  # (T alone targets the token under the mouse, as in Foundry)
    tip = "Add a token where you click"

    def release(self, p: Pointer) -> None:
        enc = self.doc.encounter
        t = edits.new_token(enc, self.snap_point(p, centre=True), side=self.host.new_token_side)
        self._add(enc, t, f"Add {t.name}")


# -- obstacles ------------------------------------------------------------------------------------
class PolygonTool(Tool):
    """Click the vertices; click the first one again (or press Enter) to close."""

    name = "Polygon"
    shortcut = "P"
    tip = "Draw an obstacle: click its corners, click the first corner (or Enter) to close"
    min_points = 3
    too_few = "An obstacle needs at least three corners"
    undo_text = "Draw obstacle"

    def __init__(self, host: ToolHost):
        super().__init__(host)
        self.points: list[tuple[float, float]] = []
        self._cursor: tuple[float, float] | None = None

    def release(self, p: Pointer) -> None:
        xy = self.snap_point(p)
        if len(self.points) >= 3:
            fx, fy = self.points[0]
            if math.hypot(fx - p.x, fy - p.y) <= CLOSE_SLACK_PX * p.m_per_px:
                self.finish()
                return
        if self.points and math.hypot(self.points[-1][0] - xy[0], self.points[-1][1] - xy[1]) < 1e-9:
            return
        self.points.append(xy)
        self._sketch()

    def hover(self, p: Pointer) -> None:
        self._cursor = self.snap_point(p)
        if self.points:
            self._sketch()

    move = hover

    def double_click(self, p: Pointer) -> None:
        self.finish()

    def undo_point(self) -> None:
        if self.points:
            self.points.pop()
            self._sketch()

    def _obstacle(self, encounter: Encounter):
        """The obstacle the points drawn so far make (raises :class:`CoverfireError`)."""
        return edits.new_obstacle(encounter, self.points, self.host.new_obstacle_height)

    def finish(self) -> None:
        if len(self.points) < self.min_points:
            self.host.status(self.too_few)
            return
        enc = self.doc.encounter
        try:
            o = self._obstacle(enc)
        except CoverfireError as exc:
            self.host.status(str(exc))
            return
        self.points = []
        self.host.set_sketch(None)
        self._add(enc, o, self.undo_text)

    def busy(self) -> bool:
        return bool(self.points)

    def cancel(self) -> None:
        self.points = []
        super().cancel()

    def _sketch(self) -> None:
        pts = list(self.points)
        if self._cursor is not None:
            pts.append(self._cursor)
        sk = Sketch(lines=[polyline_path(pts)], handles=list(self.points[:1]))
        if len(pts) >= 3:
            f = QPainterPath()
            add_ring(f, pts)
            sk.fills.append(f)
        self.host.set_sketch(sk)


class RectTool(Tool):
    name = "Rectangle"
    shortcut = "R"
    tip = "Draw a rectangular obstacle by dragging"

    def __init__(self, host: ToolHost):
        super().__init__(host)
        self._start: tuple[float, float] | None = None

    def press(self, p: Pointer) -> None:
        self._start = self.snap_point(p)

    def move(self, p: Pointer) -> None:
        if self._start is None:
            return
        pts = edits.rectangle(self._start, self.snap_point(p))
        f = QPainterPath()
        add_ring(f, pts)
        w, h = pts[1][0] - pts[0][0], pts[2][1] - pts[1][1]
        self.host.set_sketch(Sketch(lines=[f], fills=[f], labels=[(pts[2][0], pts[2][1], f"{w:.1f} x {h:.1f} m")]))

    def release(self, p: Pointer) -> None:
        if self._start is None:
            return
        start, self._start = self._start, None
        self.host.set_sketch(None)
        pts = edits.rectangle(start, self.snap_point(p))
        if pts[1][0] - pts[0][0] < 0.05 or pts[2][1] - pts[1][1] < 0.05:
            return
        enc = self.doc.encounter
        self._add(enc, edits.new_obstacle(enc, pts, self.host.new_obstacle_height), "Draw rectangle")

    def busy(self) -> bool:
        return self._start is not None

    def cancel(self) -> None:
        self._start = None
        super().cancel()


class WallTool(PolygonTool):
    """Click along the wall; double-click or Enter ends it. The wall is a polygon
    ``wall_thickness`` metres thick around the line, ``new_wall_height`` metres tall (full
    height by default: :data:`engine.obstacles.WALL_HEIGHT`)."""

    name = "Wall"
    shortcut = "W"
    tip = "Draw a wall: click along it, double-click (or Enter) to end"
    min_points = 2
    too_few = "A wall needs at least two points"
    undo_text = "Draw wall"

    def release(self, p: Pointer) -> None:
        xy = self.snap_point(p)
        if self.points and math.hypot(self.points[-1][0] - xy[0], self.points[-1][1] - xy[1]) < 1e-9:
            return
        self.points.append(xy)
        self._sketch()

    def _obstacle(self, encounter: Encounter):
        outline = edits.wall_outline(self.points, self.host.wall_thickness)
        return edits.new_obstacle(encounter, outline, self.host.new_wall_height, prefix="wall")

    def _sketch(self) -> None:
        pts = list(self.points)
        if self._cursor is not None:
            pts.append(self._cursor)
        sk = Sketch(lines=[polyline_path(pts)])
        if len(pts) >= 2:
            try:
                f = QPainterPath()
                add_ring(f, edits.wall_outline(pts, self.host.wall_thickness))
                sk.fills.append(f)
            except CoverfireError:
                pass
        self.host.set_sketch(sk)


# -- zones ---------------------------------------------------------------------------------------
class ZoneTool(Tool):
    """Drag from a token (or, for area zones, from any point): the zone's direction and
    length (or radius) follow the mouse, the engine draws its shape live."""

    def __init__(self, host: ToolHost, kind: str):
        super().__init__(host)
        self.kind = kind
        self.name = {"suppressive": "Suppressive", "shotgun": "Shotgun", "blast": "Blast",
                     "cone": "Cone", "line": "Line", "circle": "Circle", "rect": "Area"}[kind]
        self.tip = {
            "suppressive": "Suppressive fire: drag from the shooter towards the target area",
            "shotgun": "Shotgun spread: drag from a token with a shotgun",
            "blast": "Blast circle: press at the centre, drag out the radius",
            "cone": "Cone: drag from a token",
            "line": "Line: drag from a token",
            "circle": "Circle: press at the centre, drag out the radius",
            "rect": "Rectangle area: press at the centre, drag to aim",
        }[kind]
        self.shortcut = {"suppressive": "Z", "shotgun": "G", "blast": "B"}.get(kind, "")
        self._zone_id: str | None = None
        self._base: Encounter | None = None

    def press(self, p: Pointer) -> None:
        enc = self.doc.encounter
        owner = None
        tid = self.host.picker().token_at(p.x, p.y, PICK_SLACK_PX * p.m_per_px, TokenLayer.MIN_RADIUS_PX * p.m_per_px)
        if tid is not None:
            owner = enc.token(tid)
        if self.kind in ("suppressive", "shotgun") and owner is None:
            self.host.status(f"Start a {self.kind} zone on the token that fires")
            return
        if self.kind in AREA_ZONES:  # centred where pressed, or on the token pressed
            at = (owner.x, owner.y) if owner is not None else self.snap_point(p)
            owner = None
        else:
            at = p.xy
        try:
            z = edits.default_zone(enc, self.kind, owner, at)
            new = edits.add(enc, z)
        except CoverfireError as exc:
            self.host.status(f"Cannot add a {self.kind} zone here: {exc}")
            return
        self._zone_id, self._base = z.id, enc
        self.doc.preview(new)
        self.host.selection.select([z.id], new, keep_attacker=True)

    def move(self, p: Pointer) -> None:
        if self._zone_id is None:
            return
        enc = self.doc.encounter
        if self.kind in ("blast", "circle"):
            new = edits.resize_zone(enc, self._zone_id, p.xy)
        else:
            new = edits.aim_zone(enc, self._zone_id, p.xy)
        self.doc.preview(new)
        z = new.zone(self._zone_id)
        text = f"r {z.radius:.1f} m" if self.kind in ("blast", "circle") else f"{z.length or 0:.1f} m at {z.direction:.0f}\u00b0"
        self.host.set_sketch(Sketch(labels=[(p.x, p.y, text)], colour=QColor("#ffffff")))

    def release(self, p: Pointer) -> None:
        if self._zone_id is None:
            return
        zid, self._zone_id = self._zone_id, None
        self.host.set_sketch(None)
        enc = self.doc.encounter
        z = enc.zone(zid)
        self._land(enc, f"Add {z.name or z.kind + ' zone'}")
        self.host.selection.select([zid], self.doc.encounter, keep_attacker=True)

    def busy(self) -> bool:
        return self._zone_id is not None

    def cancel(self) -> None:
        self._zone_id = None
        super().cancel()


# -- background placement ------------------------------------------------------------------------------
class CalibrateTool(Tool):
    """Two clicks on the background image; then ``on_done(a, b)`` (metres) asks the distance."""

    name = "Scale image"
    tip = "Click two points of the background image whose distance you know"

    def __init__(self, host: ToolHost, on_done: Callable[[tuple[float, float], tuple[float, float]], None]):
        super().__init__(host)
        self.points: list[tuple[float, float]] = []
        self.on_done = on_done

    def release(self, p: Pointer) -> None:
        self.points.append(p.xy)
        if len(self.points) == 2:
            a, b = self.points
            self.points = []
            self.host.set_sketch(None)
            self.on_done(a, b)
        else:
            self.host.set_sketch(Sketch(handles=list(self.points)))
            self.host.status("Now click the second point")

    def hover(self, p: Pointer) -> None:
        if self.points:
            self.host.set_sketch(Sketch(lines=[polyline_path([self.points[0], p.xy])], handles=list(self.points)))

    def cancel(self) -> None:
        self.points = []
        super().cancel()


def background_from_calibration(bg, a_map, b_map, metres: float):
    """A background re-scaled so the two clicked points (map metres, on the image as placed
    now) end up ``metres`` apart, with the first point kept where it is."""
    from engine.errors import GeometryError

    d_now = math.hypot(b_map[0] - a_map[0], b_map[1] - a_map[1])
    if d_now <= 1e-9:
        raise GeometryError("the two points are the same: click two different points")
    if not (metres > 0 and math.isfinite(metres)):
        raise GeometryError(f"the distance must be a positive number of metres, got {metres}")
    k = metres / d_now
    x = a_map[0] - (a_map[0] - bg.x) * k
    y = a_map[1] - (a_map[1] - bg.y) * k
    return bg.model_copy(update={"x": x, "y": y, "width": bg.width * k, "height": bg.height * k})
