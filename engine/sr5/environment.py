"""The environment modifier: visibility, light/glare, wind and range as one table (sr5-facts.md).

Each column has a level 0..3 (modifiers 0, -1, -3, -6). The combined modifier takes the worst
level among the columns and steps one level worse when two or more columns share that worst
level; level 4 is -10 (two or more columns at -6). So long range in moderate fog is -6.

Vision and sighting aids shift a column's level up (better), as seed 001 lists them. Several
aids on one column add up, each applied in turn to the level the previous one left (a
documented default; the seed lists them one by one). Blind fire (the target is fully behind
cover or cannot be seen at all) sets the light column to total darkness, which no aid
improves: that is how "-6, not cumulative with darkness" holds. In melee only the light and
visibility columns count.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.sr5.sheet import Environment, Sheet

LEVEL_MODIFIER = (0, -1, -3, -6, -10)
VISIBILITY = {"clear": 0, "light": 1, "moderate": 2, "heavy": 3}
LIGHT = {"full": 0, "partial": 1, "dim": 2, "dark": 3}
GLARE = {"none": 0, "weak": 1, "moderate": 2, "blinding": 3}
WIND = {"none": 0, "light": 1, "moderate": 2, "strong": 3}
RANGE = {"short": 0, "medium": 1, "long": 2, "extreme": 3}

_VIS_TEXT = ("clear", "light rain/fog/smoke", "moderate rain/fog/smoke", "heavy rain/fog/smoke")
_LIGHT_TEXT = ("full light", "partial light", "dim light", "total darkness")
_GLARE_TEXT = ("no glare", "weak glare", "moderate glare", "blinding glare")
_WIND_TEXT = ("no wind", "light winds", "moderate winds", "strong winds")
ULTRASOUND_METRES = 50.0


@dataclass(frozen=True)
class Column:
    """One column of the table: its level before and after aids, and what it is."""

    name: str  # "visibility" | "light" | "wind" | "range"
    raw: int
    level: int
    text: str
    aids: tuple[str, ...] = ()

    @property
    def modifier(self) -> int:
        return LEVEL_MODIFIER[self.level]


@dataclass(frozen=True)
class EnvironmentResult:
    """The combined environment modifier and the columns it came from."""

    columns: tuple[Column, ...]
    level: int
    blind: bool = False

    @property
    def modifier(self) -> int:
        return LEVEL_MODIFIER[self.level]

    def column(self, name: str) -> Column | None:
        for c in self.columns:
            if c.name == name:
                return c
        return None

    def label(self) -> str:
        """``"range 34 m -> long (-3)"``, ``"range 34 m -> long (-3), dim light (-3): two
        columns at -3 -> -6"``; ``"clear"`` when nothing counts."""
        bad = [c for c in self.columns if c.level > 0]
        if not bad:
            return "environment: clear"
        parts = []
        for c in bad:
            s = c.text if len(bad) == 1 else f"{c.text} ({c.modifier:+d})"
            if c.aids:
                s += f" [{', '.join(c.aids)}]"
            parts.append(s)
        text = ", ".join(parts)
        worst = max(c.level for c in bad)
        n = sum(1 for c in bad if c.level == worst)
        if n >= 2:
            text += f": {n} columns at {LEVEL_MODIFIER[worst]:+d} -> {self.modifier:+d}"
        return text


def combine(levels) -> int:
    """Combined level of the columns' levels: the worst, one worse if two or more share it."""
    levels = [int(x) for x in levels]
    worst = max(levels, default=0)
    if worst <= 0:
        return 0
    return worst + 1 if sum(1 for x in levels if x == worst) >= 2 else worst


def _shift(level: int, by: int) -> int:
    return max(0, level - by)


def range_aids(sheet: Sheet | None, smartlink: bool) -> tuple[str, ...]:
    """The attacker's aids against range, each one row better in the range column: an image
    magnifier lined up (``sheet.aim_magnified``), an improved rangefinder with a smartlink
    in use, tracer rounds (the environment table's range column; also the range modifier of
    the map's badges, the Targets panel and ``coverfire analyze``)."""
    vision = set(sheet.vision) if sheet else set()
    out = []
    if sheet is not None and sheet.aim_magnified and "image_magnification" in vision:
        out.append("image magnification")
    if smartlink and "improved_rangefinder" in vision:
        out.append("rangefinder")
    if "tracer_rounds" in vision:
        out.append("tracer rounds")
    return tuple(out)


def environment(
    env: Environment,
    sheet: Sheet | None = None,
    *,
    band: str | None = None,
    distance: float | None = None,
    blind: bool = False,
    melee: bool = False,
    smartlink: bool = False,
    light: str | None = None,
) -> EnvironmentResult:
    """The environment modifier for one attack.

    ``band``/``distance`` (metres) give the range column (None: no range, e.g. melee);
    ``blind`` is blind fire; ``smartlink`` says a smartlink is in use with this weapon
    (wind one row better, and it lets an improved rangefinder work). ``sheet.vision`` lists
    the attacker's aids; ``sheet.aim_magnified`` says an image magnifier was lined up.
    ``light`` is the light level where the target stands (``engine.vision.light_at``: the
    environment's light is the ambient level, a light source may make it brighter there);
    None: the environment's."""
    vision = set(sheet.vision) if sheet else set()
    cols: list[Column] = []

    # visibility ---------------------------------------------------------------------------
    raw = VISIBILITY[env.visibility]
    lvl, aids = raw, []
    if lvl and "thermographic" in vision and not env.thermal_smoke:
        lvl, aids = _shift(lvl, 1), aids + ["thermographic"]
    if lvl and "ultrasound" in vision:
        lvl, aids = _shift(lvl, 1), aids + ["ultrasound"]
    cols.append(Column("visibility", raw, lvl, _VIS_TEXT[raw], tuple(aids)))

    # light and glare (one column: the worse of the two) ------------------------------------
    if blind:
        cols.append(Column("light", 3, 3, "blind fire: target not seen"))
    else:
        here = env.light if light is None else light
        raw_l = LIGHT[here]
        lvl, aids = raw_l, []
        if lvl in (1, 2) and "low_light" in vision:
            lvl, aids = 0, aids + ["low-light"]
        if lvl == 3 and "low_light" in vision and "low_light_flashlight" in vision:
            lvl, aids = 2, aids + ["low-light flashlight"]
        if lvl and "thermographic" in vision:
            by = 2 if "infrared_flashlight" in vision else 1
            lvl, aids = _shift(lvl, by), aids + ["thermographic" + (" + IR flashlight" if by == 2 else "")]
        if lvl and "ultrasound" in vision and distance is not None and distance <= ULTRASOUND_METRES:
            lvl, aids = 0, aids + ["ultrasound within 50 m"]
        raw_g = GLARE[env.glare]
        g = raw_g
        if g and "flare_compensation" in vision:
            g = _shift(g, 2)
            aids.append("flare compensation")
        if g > lvl:
            cols.append(Column("light", max(raw_l, raw_g), g, _GLARE_TEXT[raw_g], tuple(aids)))
        else:
            text = _LIGHT_TEXT[raw_l] + (" at the target (a light)" if here != env.light else "")
            cols.append(Column("light", max(raw_l, raw_g), lvl, text, tuple(aids)))

    if not melee:
        # wind -------------------------------------------------------------------------------
        raw = WIND[env.wind]
        lvl, aids = raw, []
        if lvl and smartlink:
            lvl, aids = _shift(lvl, 1), aids + ["smartlink"]
        if lvl >= 2 and "tracer_rounds" in vision:
            lvl, aids = _shift(lvl, 1), aids + ["tracer rounds"]
        cols.append(Column("wind", raw, lvl, _WIND_TEXT[raw], tuple(aids)))

        # range ------------------------------------------------------------------------------
        if band is not None:
            raw = RANGE[band]
            lvl, aids = raw, []
            for aid in range_aids(sheet, smartlink):
                if lvl:
                    lvl, aids = _shift(lvl, 1), aids + [aid]
            where = f"range {distance:.0f} m -> {band}" if distance is not None else f"range {band}"
            cols.append(Column("range", raw, lvl, where, tuple(aids)))

    # columns in melee with visibility and light only (sr5-facts)
    return EnvironmentResult(tuple(cols), combine(c.level for c in cols), blind)
