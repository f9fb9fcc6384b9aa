"""Shapely's functions cost what GEOS does, not a signature inspection per call: Shapely 2.1.0
checked every call of its positional-argument deprecations with ``inspect.signature`` (its
issue 2282, fixed in 2.1.1), which doubled the CPU of Coverfire's geometry (the real Foundry
scenes' import, the bench scene's sight pairs) on the lowest pins. pyproject.toml asks for
2.1.1 or newer; this is what tells 2.1.0 apart."""

from __future__ import annotations

import inspect

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon


def test_making_and_reading_geometry_inspects_no_signature(monkeypatch):
    calls = []
    real = inspect.signature
    monkeypatch.setattr(inspect, "signature", lambda *a, **k: calls.append(a) or real(*a, **k))
    square = Polygon([(0, 0), (4, 0), (4, 4), (0, 4)])
    line = LineString([(0, 0), (1, 1)])
    coords = shapely.get_coordinates([square, line])
    moved = shapely.transform(square, lambda xy: xy + 1.0)
    rings = shapely.linearrings(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]))
    assert len(coords) == 7 and moved.bounds == (1.0, 1.0, 5.0, 5.0) and rings.is_ring
    assert calls == []
