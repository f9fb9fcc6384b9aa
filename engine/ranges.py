"""Shadowrun 5e range tables (metres), from ``shared/reference/sr5-facts.md``.

A distance falls in the first band whose ``max`` is at least that distance (within
``RANGE_EPSILON``, so a token placed at exactly 5 m is Short, not Medium); beyond the last
band it is out of range. Categories whose bands scale with the thrower's Strength store
multipliers and are resolved with :func:`bands_for`.
"""

from __future__ import annotations

from dataclasses import dataclass

BAND_NAMES = ("short", "medium", "long", "extreme")
BAND_MODIFIERS = {"short": 0, "medium": -1, "long": -3, "extreme": -6}
RANGE_EPSILON = 1e-6  # metres: floating-point slack on a band's upper bound


@dataclass(frozen=True)
class Band:
    """One range band: upper bound in metres and the attack pool modifier."""

    band: str
    max: float
    modifier: int


@dataclass(frozen=True)
class RangeCategory:
    """A weapon category's table: fixed metres, or multiples of Strength (``per_strength``)."""

    id: str
    label: str
    maxima: tuple[float, ...]
    per_strength: bool = False
    minimum: float = 0.0


def _cat(id_: str, label: str, *maxima: float, per_strength: bool = False, minimum: float = 0.0):
    return RangeCategory(id_, label, tuple(float(m) for m in maxima), per_strength, minimum)


CATEGORIES: dict[str, RangeCategory] = {
    c.id: c
    for c in (
        _cat("taser", "Taser", 5, 10, 15, 20),
        _cat("hold_out", "Hold-out pistol", 5, 15, 30, 50),
        _cat("light_pistol", "Light pistol", 5, 15, 30, 50),
        _cat("machine_pistol", "Machine pistol", 5, 15, 30, 50),
        _cat("heavy_pistol", "Heavy pistol", 5, 20, 40, 60),
        _cat("submachine_gun", "Submachine gun", 10, 40, 80, 150),
        _cat("carbine", "Carbine", 10, 40, 80, 150),
        _cat("assault_rifle", "Assault rifle", 25, 150, 350, 550),
        _cat("shotgun_flechette", "Shotgun (flechette)", 15, 30, 45, 60),
        _cat("shotgun_slug", "Shotgun (slug)", 10, 40, 80, 150),
        _cat("sniper_rifle", "Sniper rifle", 50, 350, 800, 1500),
        _cat("sporting_rifle", "Sporting rifle", 50, 250, 500, 750),
        _cat("light_machine_gun", "Light machine gun", 25, 200, 400, 800),
        _cat("medium_machine_gun", "Medium machine gun", 40, 250, 750, 1200),
        _cat("heavy_machine_gun", "Heavy machine gun", 40, 250, 750, 1200),
        _cat("assault_cannon", "Assault cannon", 50, 300, 750, 1500),
        _cat("grenade_launcher", "Grenade launcher", 50, 100, 150, 500, minimum=5),
        _cat("missile_launcher", "Missile launcher", 70, 150, 450, 1500, minimum=20),
        _cat("bow", "Bow", 1, 10, 30, 60, per_strength=True),
        _cat("light_crossbow", "Light crossbow", 6, 24, 60, 120),
        _cat("medium_crossbow", "Medium crossbow", 9, 36, 90, 150),
        _cat("heavy_crossbow", "Heavy crossbow", 15, 45, 120, 180),
        _cat("thrown_knife", "Thrown knife", 1, 2, 3, 5, per_strength=True),
        _cat("shuriken", "Shuriken", 1, 2, 5, 7, per_strength=True),
        _cat("standard_grenade", "Standard grenade", 2, 4, 6, 10, per_strength=True),
        _cat("aerodynamic_grenade", "Aerodynamic grenade", 2, 4, 8, 15, per_strength=True),
        _cat("flamethrower", "Flamethrower", 15, 20),
    )
}

DEFAULT_STRENGTH = 3  # used for Strength-scaled categories when the token has no SR5 sheet


def bands_for(category: str, strength: int | None = None) -> tuple[Band, ...]:
    """The bands of a category, in metres; Strength-scaled ones use ``strength``."""
    cat = CATEGORIES[category]
    scale = float(strength if strength is not None else DEFAULT_STRENGTH) if cat.per_strength else 1.0
    return tuple(
        Band(name, m * scale, BAND_MODIFIERS[name]) for name, m in zip(BAND_NAMES, cat.maxima)
    )


def band_at(bands: tuple[Band, ...] | list[Band], distance: float, minimum: float = 0.0) -> Band | None:
    """The first band whose ``max`` is at least ``distance``; ``None`` when out of range."""
    if distance < minimum - RANGE_EPSILON:
        return None
    for b in bands:
        if distance <= b.max + RANGE_EPSILON:
            return b
    return None
