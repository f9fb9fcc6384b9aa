"""Bodies: a token is an upright cylinder whose height and eye height follow its stance.

All values are metres above the ground. These are the defaults of issue 2 (standing 1.8 m
with eyes at 1.6 m, crouched 1.2 m / 1.0 m, prone 0.4 m / 0.3 m); docs/geometry.md lists
them. Change :data:`STANCE_BODY` (or pass heights explicitly to geometry functions) to use
other numbers.
"""

from __future__ import annotations

from geometry.errors import InvalidInputError

#: stance -> (body height, eye height), metres
STANCE_BODY: dict[str, tuple[float, float]] = {
    "standing": (1.8, 1.6),
    "crouched": (1.2, 1.0),
    "prone": (0.4, 0.3),
}


def _body(stance: str) -> tuple[float, float]:
    try:
        return STANCE_BODY[stance]
    except KeyError:
        known = ", ".join(STANCE_BODY)
        raise InvalidInputError(f"unknown stance {stance!r}; known stances: {known}") from None


def body_height(stance: str) -> float:
    """How tall a body in this stance stands, in metres (the silhouette's height)."""
    return _body(stance)[0]


def eye_height(stance: str) -> float:
    """The height of the eyes (and the muzzle) of a body in this stance, in metres."""
    return _body(stance)[1]
