"""Hit locations on a body's silhouette, and how much of each a cover profile hides.

A target seen by a shooter is a silhouette ``2 * radius`` wide and ``height`` tall. Its
coordinates are ``u`` across (metres from the centre line, + to the shooter's right, as in
:meth:`geometry.cover.CoverIndex.hidden_heights`) and ``z`` up (metres above the ground).
:data:`LAYOUTS` gives each of the eight locations (head, chest, abdomen, groin, left and right
arm, left and right leg) a rectangle in that silhouette, per stance of
:mod:`geometry.bodies`: ``u`` as a fraction of the radius, ``z`` in metres for the default
body height (scaled when another height is asked for).

The layouts are calibrated, not anatomical: a 1 m wall right in front of the body hides
groin and legs of a standing body (the d100 table's "standing behind cover") and abdomen,
groin and legs of a crouched one ("crouched behind cover"), seen by a standing or crouched
shooter 3 m away or more (prone shooters: 5 m or more, standing bodies only). See
docs/d100.md for the numbers and where the map and the table part.

Standing (1.8 m): legs 0-0.76, groin 0.76-0.90, abdomen 0.90-1.25, chest 1.25-1.55,
head 1.55-1.80; arms 0.85-1.55 in the outer columns (|u| from 0.6 r to r); head within 0.35 r,
torso within 0.6 r, each leg one half of the torso's width.
Crouched (1.2 m, the firing crouch): legs 0-0.42, groin 0.42-0.56, abdomen 0.56-0.86,
chest 0.86-1.08, head 1.08-1.20; arms 0.80-1.12.
Prone (0.4 m, lying facing the shooter): head 0.25-0.40, chest 0.12-0.25, abdomen 0.08-0.12,
groin 0.04-0.08, legs 0-0.04, arms 0.05-0.30 (a rough view: what a prone body shows depends
on how it lies; the d100 table's "firing prone" row is what the rules use).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from geometry.bodies import STANCE_BODY
from geometry.errors import InvalidInputError

LOCATIONS: tuple[str, ...] = (
    "head", "chest", "abdomen", "groin", "left_arm", "right_arm", "left_leg", "right_leg",
)

HEAD_HALF = 0.35  # head half-width, fraction of the radius
TORSO_HALF = 0.6  # torso half-width; arms fill 0.6 .. 1.0


@dataclass(frozen=True)
class Box:
    """One location's rectangle in a silhouette: ``u0..u1`` across (metres, + to the
    shooter's right; in :data:`LAYOUTS`, fractions of the radius) and ``z0..z1`` up (metres)."""

    location: str
    u0: float
    u1: float
    z0: float
    z1: float

    @property
    def area(self) -> float:
        return (self.u1 - self.u0) * (self.z1 - self.z0)


def _stance(legs, groin, abdomen, chest, head, arms) -> tuple[Box, ...]:
    """Boxes of one stance from the z ranges, in radius fractions across. ``left``/``right``
    here are the body's own sides as seen from behind (right at +u); :func:`layout` mirrors
    them when the body faces the shooter."""
    H, T = HEAD_HALF, TORSO_HALF
    return (
        Box("head", -H, H, *head),
        Box("chest", -T, T, *chest),
        Box("abdomen", -T, T, *abdomen),
        Box("groin", -T, T, *groin),
        Box("left_arm", -1.0, -T, *arms),
        Box("right_arm", T, 1.0, *arms),
        Box("left_leg", -T, 0.0, *legs),
        Box("right_leg", 0.0, T, *legs),
    )


#: stance -> the eight location boxes (u in fractions of the radius, z in metres for the
#: default body height of that stance in geometry.bodies.STANCE_BODY)
LAYOUTS: dict[str, tuple[Box, ...]] = {
    "standing": _stance((0.0, 0.76), (0.76, 0.90), (0.90, 1.25), (1.25, 1.55), (1.55, 1.80), (0.85, 1.55)),
    "crouched": _stance((0.0, 0.42), (0.42, 0.56), (0.56, 0.86), (0.86, 1.08), (1.08, 1.20), (0.80, 1.12)),
    "prone": _stance((0.0, 0.04), (0.04, 0.08), (0.08, 0.12), (0.12, 0.25), (0.25, 0.40), (0.05, 0.30)),
}
#: body height the z numbers of LAYOUTS were written for
LAYOUT_HEIGHTS: dict[str, float] = {"standing": 1.8, "crouched": 1.2, "prone": 0.4}


def right_side(eye_xy: ArrayLike, target_xy: ArrayLike, facing_deg: float) -> int:
    """+1 when the target's right side shows at +u (the shooter's right), -1 when mirrored.

    The body's right points to ``facing + 90`` degrees (y south: clockwise), +u to the line
    of sight's direction + 90; they agree when the body faces away from the shooter
    (cos(facing - line of sight) >= 0). Side-on (exactly 90 degrees) counts as +1."""
    ex, ey = (float(v) for v in np.asarray(eye_xy, dtype=float).reshape(2))
    tx, ty = (float(v) for v in np.asarray(target_xy, dtype=float).reshape(2))
    if not all(math.isfinite(v) for v in (ex, ey, tx, ty, float(facing_deg))):
        raise InvalidInputError("positions and facing must be finite numbers")
    los = math.degrees(math.atan2(ty - ey, tx - ex))
    return 1 if math.cos(math.radians(float(facing_deg) - los)) >= -1e-12 else -1


def layout(stance: str, radius: float, height: float | None = None, side: int = 1) -> tuple[Box, ...]:
    """The eight location boxes of a body in ``stance`` (metres): ``radius`` wide each side,
    ``height`` tall (default: the stance's body height; z scales with it). ``side=-1``
    mirrors left and right (the body faces the shooter)."""
    if stance not in LAYOUTS:
        raise InvalidInputError(f"unknown stance {stance!r}; known stances: {', '.join(LAYOUTS)}")
    if not (math.isfinite(radius) and radius > 0):
        raise InvalidInputError(f"the radius must be a finite number above 0 m, got {radius!r}")
    h_default = LAYOUT_HEIGHTS[stance]
    h = float(height) if height is not None else float(STANCE_BODY.get(stance, (h_default,))[0])
    if not (math.isfinite(h) and h > 0):
        raise InvalidInputError(f"the body height must be a finite number above 0 m, got {height!r}")
    k = h / h_default
    out = []
    for b in LAYOUTS[stance]:
        u0, u1 = b.u0 * radius, b.u1 * radius
        if side < 0:
            u0, u1 = -u1, -u0
        out.append(Box(b.location, u0, u1, b.z0 * k, b.z1 * k))
    return tuple(out)


def sample_columns(boxes: tuple[Box, ...], per_box: int = 8) -> np.ndarray:
    """Column offsets (metres) that sample every box: the centres of ``per_box`` equal
    strips across each, sorted and de-duplicated. Ask the cover profile at these."""
    if per_box < 1:
        raise InvalidInputError(f"per_box must be at least 1, got {per_box}")
    cols = []
    for b in boxes:
        w = (b.u1 - b.u0) / per_box
        cols.append(b.u0 + w * (np.arange(per_box) + 0.5))
    return np.unique(np.concatenate(cols)) if cols else np.zeros(0)


def hidden_fractions(boxes: tuple[Box, ...], u: ArrayLike, hidden: ArrayLike,
                     per_box: int = 8) -> dict[str, float]:
    """Fraction (0..1) of each box's area hidden by a cover profile.

    ``u`` are column offsets (metres) and ``hidden`` the height (metres) up to which each is
    hidden (0 none, ``inf`` all), e.g. from ``CoverIndex.hidden_heights``. Each box is sampled
    at ``per_box`` strip centres, each strip taking the nearest column's height; in a strip
    the hidden part of the box is ``clip(h, z0, z1) - z0``."""
    uu = np.asarray(u, dtype=float).reshape(-1)
    hh = np.asarray(hidden, dtype=float).reshape(-1)
    if uu.size == 0 or uu.size != hh.size:
        raise InvalidInputError(f"need as many hidden heights as columns, got {uu.size} and {hh.size}")
    if not np.all(np.isfinite(uu)) or np.any(np.isnan(hh)):
        raise InvalidInputError("column offsets must be finite and hidden heights numbers")
    order = np.argsort(uu)
    uu, hh = uu[order], hh[order]
    out: dict[str, float] = {}
    for b in boxes:
        w = (b.u1 - b.u0) / per_box
        cu = b.u0 + w * (np.arange(per_box) + 0.5)
        i = np.clip(np.searchsorted(uu, cu), 1, max(1, uu.size - 1))
        if uu.size == 1:
            near = np.zeros(per_box, dtype=int)
        else:
            near = np.where(np.abs(cu - uu[i - 1]) <= np.abs(uu[i] - cu), i - 1, i)
        h = hh[near]
        span = b.z1 - b.z0
        frac = (np.clip(h, b.z0, b.z1) - b.z0) / span if span > 0 else (h >= b.z1).astype(float)
        out[b.location] = float(np.clip(frac.mean(), 0.0, 1.0))
    return out


def hidden_locations(fractions: dict[str, float], threshold: float = 0.75) -> tuple[str, ...]:
    """The locations at least ``threshold`` hidden, in :data:`LOCATIONS` order."""
    return tuple(loc for loc in LOCATIONS if fractions.get(loc, 0.0) >= threshold - 1e-9)
