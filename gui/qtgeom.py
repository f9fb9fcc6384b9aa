"""Conversions from coordinates and Shapely geometries to Qt drawing paths (no measuring)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph.functions as fn
import shapely
from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainterPath, QPolygonF


def polygon_f(coords) -> QPolygonF:
    """A QPolygonF from an (n, 2) array-like of metres, filled through numpy (no per-point calls)."""
    arr = np.asarray(coords, dtype=np.float64).reshape(-1, 2)
    poly = fn.create_qpolygonf(len(arr))
    if len(arr):
        fn.ndarray_from_qpolygonf(poly)[:] = arr
    return poly


def add_ring(path: QPainterPath, coords) -> None:
    """Add one closed ring (a polygon outline) to ``path``."""
    arr = np.asarray(coords, dtype=np.float64).reshape(-1, 2)
    if len(arr) < 2:
        return
    path.addPolygon(polygon_f(arr))
    path.closeSubpath()


def rings_path(rings: Sequence) -> QPainterPath:
    """One path holding many closed rings (e.g. every obstacle of a height class)."""
    path = QPainterPath()
    for ring in rings:
        add_ring(path, ring)
    return path


def geometry_path(geom) -> QPainterPath:
    """A QPainterPath for a Shapely geometry: polygons (with holes, odd-even fill) and lines;
    points and empty geometries give an empty path."""
    path = QPainterPath()
    path.setFillRule(path.fillRule().OddEvenFill)
    if geom is None or geom.is_empty:
        return path
    for part in shapely.get_parts(geom):
        t = part.geom_type
        if t == "Polygon":
            add_ring(path, part.exterior.coords)
            for hole in part.interiors:
                add_ring(path, hole.coords)
        elif t in ("LineString", "LinearRing"):
            coords = np.asarray(part.coords)
            if len(coords) >= 2:
                path.addPolygon(polygon_f(coords))
        elif t in ("MultiPolygon", "GeometryCollection", "MultiLineString"):
            sub = geometry_path(part)
            path.addPath(sub)
    return path


def polyline_path(points: Sequence[tuple[float, float]]) -> QPainterPath:
    """An open polyline through ``points``."""
    path = QPainterPath()
    if len(points) >= 2:
        path.addPolygon(polygon_f(points))
    elif len(points) == 1:
        path.moveTo(QPointF(*points[0]))
    return path
