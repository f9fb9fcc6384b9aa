"""Shadowrun 5e numbers: firing modes, shotgun chokes, skills per weapon, damage codes, limits.

Sources: seed 001 (firing modes, recoil, defense modifiers), sr5-facts.md (chokes, skills of
the range categories). Where the texts leave a choice open the default is named here and
documented in docs/sr5.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from engine.errors import IllegalActionError
from engine.model import Weapon
from engine.ranges import BAND_NAMES
from engine.sr5.sheet import Sheet


# -- firing modes --------------------------------------------------------------------------------
@dataclass(frozen=True)
class FiringMode:
    """A way to fire: ``rounds`` per attack, the ``action`` it costs, whether the rounds count
    as recoil, the ``defense`` modifier the target gets, the weapon mode it ``needs``, and
    whether it may be split over several targets."""

    id: str
    label: str
    rounds: int
    action: str  # "simple" | "complex"
    recoil: bool
    defense: int
    needs: str
    multiple: bool


FIRING_MODES: dict[str, FiringMode] = {
    m.id: m
    for m in (
        FiringMode("SS", "single shot", 1, "simple", False, 0, "SS", False),
        FiringMode("SA", "semi-automatic", 1, "simple", True, 0, "SA", False),
        FiringMode("SB", "semi-automatic burst", 3, "complex", True, -2, "SA", True),
        FiringMode("BF", "burst fire", 3, "simple", True, -2, "BF", True),
        FiringMode("LB", "long burst", 6, "complex", True, -5, "BF", True),
        FiringMode("FA", "full auto (simple)", 6, "simple", True, -5, "FA", True),
        FiringMode("FAC", "full auto (complex)", 10, "complex", True, -9, "FA", True),
    )
}
SUPPRESSIVE_ROUNDS = 20


def weapon_modes(weapon: Weapon) -> tuple[str, ...]:
    """The firing modes a weapon allows: its own (SS, SA, BF, FA) plus the ones they imply
    (SA -> SB, BF -> LB, FA -> FA complex), in FIRING_MODES order."""
    own = {m.upper() for m in weapon.modes}
    return tuple(m.id for m in FIRING_MODES.values() if m.needs in own)


def current_mode(weapon: Weapon, sheet: Sheet) -> str | None:
    """The mode selected on the sheet for this weapon, else its first listed mode."""
    chosen = sheet.modes.get(weapon.name)
    if chosen:
        return chosen
    modes = weapon_modes(weapon)
    return modes[0] if modes else None


# -- skills --------------------------------------------------------------------------------------
CATEGORY_SKILL = {
    "taser": "pistols",
    "hold_out": "pistols",
    "light_pistol": "pistols",
    "heavy_pistol": "pistols",
    "machine_pistol": "pistols",  # SA; bursts and full auto use automatics (seed 001)
    "submachine_gun": "automatics",
    "carbine": "automatics",
    "assault_rifle": "automatics",
    "shotgun_flechette": "longarms",
    "shotgun_slug": "longarms",
    "sniper_rifle": "longarms",
    "sporting_rifle": "longarms",
    "light_machine_gun": "heavy_weapons",
    "medium_machine_gun": "heavy_weapons",
    "heavy_machine_gun": "heavy_weapons",
    "assault_cannon": "heavy_weapons",
    "grenade_launcher": "heavy_weapons",
    "missile_launcher": "heavy_weapons",
    "bow": "archery",
    "light_crossbow": "archery",
    "medium_crossbow": "archery",
    "heavy_crossbow": "archery",
    "thrown_knife": "throwing_weapons",
    "shuriken": "throwing_weapons",
    "standard_grenade": "throwing_weapons",
    "aerodynamic_grenade": "throwing_weapons",
    "flamethrower": "exotic_ranged_weapon",
}
MELEE_SKILLS = ("blades", "clubs", "unarmed_combat", "exotic_melee_weapon")
THROWN_CATEGORIES = ("thrown_knife", "shuriken", "standard_grenade", "aerodynamic_grenade")


def _key(s: str) -> str:
    return s.strip().lower().replace(" ", "_").replace("-", "_")


#: The two exotic skills: each exotic weapon has its own (seed 001, "Separate skill for each
#: exotic weapon!"): the key is the skill's with the weapon's kind after it.
EXOTIC_SKILLS = ("exotic_ranged_weapon", "exotic_melee_weapon")


def _base_skill(weapon: Weapon, mode: str | None) -> str:
    if weapon.skill:
        return _key(weapon.skill)
    if weapon.category == "machine_pistol" and mode in ("BF", "LB", "FA", "FAC"):
        return "automatics"
    if weapon.category in CATEGORY_SKILL:
        return CATEGORY_SKILL[weapon.category]
    return "unarmed_combat" if is_melee(weapon) else "exotic_ranged_weapon"


def weapon_skill(weapon: Weapon, mode: str | None = None) -> str:
    """The skill key a weapon is fired (or swung) with: ``Weapon.skill`` when given, else
    from its range category; a machine pistol fires BF, LB and FA with Automatics (seed 001).
    An exotic weapon's skill is its own: ``exotic_ranged_weapon_<kind>`` (the kind is its
    range category, ``flamethrower``, else its name as a key: ``exotic_ranged_weapon_ares_lancer``),
    likewise ``exotic_melee_weapon_<kind>``."""
    key = _base_skill(weapon, mode)
    if key in EXOTIC_SKILLS:
        return f"{key}_{weapon.category or _key(weapon.name)}"
    return key


def exotic_family(key: str) -> str | None:
    """The generic exotic skill a per-weapon key belongs to (None for other skills)."""
    return next((g for g in EXOTIC_SKILLS if key.startswith(g + "_")), None)


def skill_rating(sheet: Sheet, weapon: Weapon, mode: str | None = None, carried=()) -> int:
    """The rating the character fires ``weapon`` with: its own skill key; an exotic weapon's
    per-weapon skill, or the generic exotic skill on the sheet only when ``weapon`` is the
    one exotic weapon of that family among ``carried`` (so one rating never serves a
    flamethrower and a laser both)."""
    key = weapon_skill(weapon, mode)
    if key in sheet.skills:
        return sheet.skill(key)
    fam = exotic_family(key)
    if fam is None or fam not in sheet.skills:
        return sheet.skill(key)
    kinds = {weapon_skill(w) for w in carried if exotic_family(weapon_skill(w)) == fam} | {key}
    return sheet.skill(fam) if len(kinds) == 1 else 0


def is_melee(weapon: Weapon) -> bool:
    """A melee weapon: its skill is a melee skill, or it has no range category and no modes."""
    if weapon.skill:
        return _key(weapon.skill) in MELEE_SKILLS
    return weapon.category is None and weapon.ranges is None and not weapon.modes


def is_heavy(weapon: Weapon, mode: str | None = None) -> bool:
    """Fired with Heavy Weapons: uncompensated recoil doubles (seed 001)."""
    return weapon_skill(weapon, mode) == "heavy_weapons"


UNARMED = Weapon(name="Unarmed", damage="(STR)S", skill="unarmed_combat", reach=0)


# -- damage codes --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Damage:
    """A weapon's damage: ``value`` boxes (Strength already added), ``type`` P or S, and the
    element code in brackets (``"f"`` flechette, ``"e"`` electricity ...), if any."""

    value: int
    type: str
    element: str | None = None
    text: str = ""


_DAMAGE = re.compile(
    r"^\s*(?:\(\s*STR\s*(?P<sign>[+-])?\s*(?P<add>\d+)?\s*\)|STR\s*(?P<sign2>[+-])\s*(?P<add2>\d+)|(?P<str0>STR)|(?P<dv>-?\d+))"
    r"\s*(?P<type>[PSps])\s*(?:\(\s*(?P<el>[A-Za-z]+)\s*\))?\s*$"
)


def parse_damage(text: str | None, strength: int = 3, *, weapon: str = "weapon") -> Damage:
    """``"8P"``, ``"(STR+2)P"``, ``"10S(e)"``, ``"9P(f)"`` as a :class:`Damage`.
    Raises :class:`IllegalActionError` naming the weapon when the code cannot be read."""
    if not text:
        raise IllegalActionError(f"{weapon} has no damage value (like 8P or (STR+2)P)")
    m = _DAMAGE.match(text)
    if not m:
        raise IllegalActionError(
            f"{weapon}: damage {text!r} is not a damage code like 8P, 10S(e) or (STR+2)P"
        )
    if m.group("dv") is not None:
        value = int(m.group("dv"))
    else:
        sign = m.group("sign") or m.group("sign2") or "+"
        add = int(m.group("add") or m.group("add2") or 0)
        value = strength + (add if sign == "+" else -add)
    el = m.group("el")
    return Damage(value, m.group("type").upper(), el.lower() if el else None, text)


# -- shotgun chokes ------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChokeBand:
    """A choke's effect at one range band (sr5-facts.md, single source: a default)."""

    choke: str
    band: str
    defense: int
    dv: int
    accuracy: int
    max_targets: int
    width: float | None  # metres of spread; targets within it may be hit


_CHOKE = {
    # choke: (defense, dv per band, accuracy per band, targets per band, width per band)
    "narrow": (-1, (0, 0, 0, 0), (0, 0, 0, 0), (1, 1, 1, 1), (None, None, None, None)),
    "medium": (-3, (-1, -3, -5, -7), (0, 0, -1, -1), (2, 3, 4, 6), (2.0, 4.0, 6.0, 8.0)),
    "wide": (-5, (-3, -5, -7, -9), (0, 0, -1, -1), (2, 3, 4, 6), (3.0, 6.0, 9.0, 12.0)),
}
CHOKES = tuple(_CHOKE)


def choke_band(choke: str, band: str) -> ChokeBand:
    """The numbers of ``choke`` (narrow/medium/wide) at range ``band``."""
    if choke not in _CHOKE:
        raise IllegalActionError(f"choke {choke!r} is not narrow, medium or wide")
    d, dv, acc, tg, w = _CHOKE[choke]
    i = BAND_NAMES.index(band)
    return ChokeBand(choke, band, d, dv[i], acc[i], tg[i], w[i])


def has_choke(weapon: Weapon) -> bool:
    """A shotgun firing flechettes or shot: its choke spreads the shot."""
    return weapon.category == "shotgun_flechette"


def current_choke(weapon: Weapon, sheet: Sheet) -> str:
    """The choke set on the sheet for this shotgun; narrow when none was set (a default)."""
    return sheet.chokes.get(weapon.name, "narrow")


# -- limits --------------------------------------------------------------------------------------
def physical_limit(s: Sheet) -> int:
    """ceil((2 x Strength + Body + Reaction) / 3)."""
    return math.ceil((2 * s.strength + s.body + s.reaction) / 3)


def mental_limit(s: Sheet) -> int:
    """ceil((2 x Logic + Intuition + Willpower) / 3)."""
    return math.ceil((2 * s.logic + s.intuition + s.willpower) / 3)


def recoil_compensation(s: Sheet) -> int:
    """The character's own recoil compensation: 1 + ceil(Strength / 3) (STR 4 -> 3)."""
    return 1 + math.ceil(s.strength / 3)


def smartlinked(weapon: Weapon, s: Sheet) -> bool:
    """A smartgun used by a character with a smartlink: +2 accuracy (seed 001)."""
    return weapon.smartgun and s.smartlink != "none"


def wireless_smartlink_dice(weapon: Weapon, s: Sheet) -> int:
    """Dice from a wireless smartlink: +1 in gear, +2 implanted; 0 otherwise."""
    if not (smartlinked(weapon, s) and s.wireless):
        return 0
    return 2 if s.smartlink == "implant" else 1
