"""The ways a spatial question can be asked wrongly, one exception type each.

``geometry/`` must not import ``engine/``, so it has its own small family of errors. All are
``ValueError`` subclasses with a complete sentence as their message; the engine catches
:class:`GeometryInputError` and re-raises it as ``engine.errors.GeometryError`` (same text).
"""

from __future__ import annotations


class GeometryInputError(ValueError):
    """Base of every geometry-level error: impossible input to a spatial question."""


class InvalidInputError(GeometryInputError):
    """A number or shape that cannot be used: NaN or infinite coordinates, a radius that is
    not positive, an array of the wrong shape, an invalid polygon."""


class InsideObstacleError(GeometryInputError):
    """A point (a path's start or goal, a body's centre) that lies inside an obstacle's footprint.

    ``role`` says which point ("start", "goal", "target", ...), ``point`` is its (x, y) in
    metres and ``obstacle`` the obstacle's id (or its index in the list given, when no ids
    were given)."""

    def __init__(self, role: str, point: tuple[float, float], obstacle: str | int) -> None:
        self.role = role
        self.point = (float(point[0]), float(point[1]))
        self.obstacle = obstacle
        name = f"obstacle {obstacle!r}" if isinstance(obstacle, str) else f"obstacle #{obstacle}"
        super().__init__(
            f"the {role} point ({self.point[0]:.2f}, {self.point[1]:.2f}) lies inside {name}"
        )


class OutsideMapError(GeometryInputError):
    """A point that lies outside the map's bounds."""

    def __init__(self, role: str, point: tuple[float, float], bounds: tuple[float, float, float, float]) -> None:
        self.role = role
        self.point = (float(point[0]), float(point[1]))
        self.bounds = bounds
        super().__init__(
            f"the {role} point ({self.point[0]:.2f}, {self.point[1]:.2f}) lies outside the map "
            f"({bounds[0]:g}..{bounds[2]:g} x {bounds[1]:g}..{bounds[3]:g} m)"
        )
