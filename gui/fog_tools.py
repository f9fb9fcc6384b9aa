"""The GM's hand on the fog: a brush and a rectangle that reveal explored area to the
players or hide it again, each stroke or rectangle one undo step.

The area is a Shapely geometry in metres (the brush's stroke buffered by its radius, or the
dragged rectangle); the engine adds it to or takes it out of ``Encounter.sight.explored``
(:func:`engine.vision.reveal`, :func:`engine.vision.conceal`). What the party sees now stays
clear whatever is hidden (it is in sight).
"""

from __future__ import annotations

import shapely
from PySide6.QtGui import QPainterPath

from gui import edits
from gui.layers import Sketch
from gui.party_sight import vision
from gui.qtgeom import add_ring, geometry_path
from gui.tools import CLICK_PX, Pointer, Tool

#: Metres: the brush's radius unless the GM sets another (the Sight panel).
BRUSH_RADIUS = 1.5
#: Metres: points of a stroke closer than this to the last one are skipped.
STROKE_STEP = 0.1


def stroke_area(points, radius: float) -> shapely.Geometry:
    """The area a brush of ``radius`` metres covers along ``points`` ((x, y) metres): a
    disc for one point, the stroke buffered otherwise."""
    if radius <= 0 or not points:
        return shapely.Polygon()
    if len(points) == 1:
        return shapely.Point(points[0]).buffer(radius, quad_segs=16)
    return shapely.LineString(points).buffer(radius, quad_segs=16)


def apply_fog(doc, area: shapely.Geometry, reveal: bool, text: str) -> bool:
    """Reveal (or hide) ``area`` of the document's committed encounter as one undo step."""
    if area.is_empty:
        return False
    v = vision()
    enc = doc.committed
    new = v.reveal(enc, area) if reveal else v.conceal(enc, area)
    return doc.commit(edits.checked(new), text)


class _FogTool(Tool):
    def __init__(self, host, reveal: bool = True, radius: float | None = None):
        super().__init__(host)
        self.reveal = reveal
        self.radius = float(radius if radius is not None else getattr(host, "fog_brush_radius", BRUSH_RADIUS))

    @property
    def verb(self) -> str:
        return "Reveal" if self.reveal else "Hide"

    def _done(self, area: shapely.Geometry, what: str) -> None:
        try:
            apply_fog(self.doc, area, self.reveal, f"{self.verb} fog ({what})")
        except Exception as exc:  # noqa: BLE001 - the engine (or GEOS) refused the area
            self.host.status(f"Not done: {exc}")


class FogBrushTool(_FogTool):
    """Paint to reveal explored area to the players (``reveal``) or hide it again; the
    stroke lands on release as one undo step."""

    name = "Fog brush"
    tip = "Drag to reveal the map to the players (the Sight panel switches to hiding and sets the size)"

    def __init__(self, host, reveal: bool = True, radius: float | None = None):
        super().__init__(host, reveal, radius)
        self._points: list[tuple[float, float]] | None = None

    def press(self, p: Pointer) -> None:
        self._points = [p.xy]
        self._sketch()

    def move(self, p: Pointer) -> None:
        if self._points is None:
            return
        last = self._points[-1]
        if abs(p.x - last[0]) + abs(p.y - last[1]) >= STROKE_STEP:
            self._points.append(p.xy)
            self._sketch()

    def hover(self, p: Pointer) -> None:
        ring = QPainterPath()
        ring.addEllipse(p.x - self.radius, p.y - self.radius, 2 * self.radius, 2 * self.radius)
        self.host.set_sketch(Sketch(lines=[ring]))

    def _sketch(self) -> None:
        path = geometry_path(stroke_area(self._points, self.radius))
        self.host.set_sketch(Sketch(lines=[path], fills=[path]))

    def release(self, p: Pointer) -> None:
        points, self._points = self._points, None
        self.host.set_sketch(None)
        if points:
            self._done(stroke_area(points, self.radius), "brush")

    def busy(self) -> bool:
        return self._points is not None

    def cancel(self) -> None:
        self._points = None
        super().cancel()


class FogRectTool(_FogTool):
    """Drag a rectangle to reveal it to the players (``reveal``) or hide it again; one
    undo step."""

    name = "Fog rectangle"
    tip = "Drag a rectangle to reveal it to the players (the Sight panel switches to hiding)"

    def __init__(self, host, reveal: bool = True, radius: float | None = None):
        super().__init__(host, reveal, radius)
        self._start: Pointer | None = None

    def press(self, p: Pointer) -> None:
        self._start = p

    def move(self, p: Pointer) -> None:
        if self._start is None:
            return
        pts = edits.rectangle(self._start.xy, p.xy)
        f = QPainterPath()
        add_ring(f, pts)
        w, h = pts[1][0] - pts[0][0], pts[2][1] - pts[1][1]
        self.host.set_sketch(Sketch(lines=[f], fills=[f], labels=[(pts[2][0], pts[2][1],
                                                                   f"{self.verb} {w:.1f} x {h:.1f} m")]))

    def release(self, p: Pointer) -> None:
        start, self._start = self._start, None
        self.host.set_sketch(None)
        if start is None or p.px_to(start) < CLICK_PX:
            return
        x0, x1 = sorted((start.x, p.x))
        y0, y1 = sorted((start.y, p.y))
        self._done(shapely.box(x0, y0, x1, y1), "rectangle")

    def busy(self) -> bool:
        return self._start is not None

    def cancel(self) -> None:
        self._start = None
        super().cancel()


__all__ = ["BRUSH_RADIUS", "FogBrushTool", "FogRectTool", "apply_fog", "stroke_area"]
