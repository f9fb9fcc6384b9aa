"""Chummer5a character saves (.chum5, XML) as Shadowrun tokens.

:func:`parse_chummer` reads a save into a :class:`ChummerCharacter` (plain values, Chummer's
own words); :meth:`ChummerCharacter.to_token` maps it onto the encounter model: the sr5
:class:`~engine.sr5.sheet.Sheet` under ``Token.rules["sr5"]`` and the equipped weapons as
:class:`~engine.model.Weapon` values. :func:`import_chummer` does both;
:func:`add_character` puts the token into an encounter under a fresh id.

How each number is read (details and defaults in docs/importing.md):

- attributes: ``totalvalue`` when the save has it (newer Chummer: augmentations included),
  else ``metatypemin + base + karma`` (older saves; augmentations are then not applied);
- skills: by id through :data:`~engine.importers.chummer_data.SKILLS` (older saves: by
  name). Rating = base points (plus the skill group's, plus free levels) + karma (plus the
  group's), as Chummer adds them; unconditional skill improvements (Improved Ability ...)
  are added, since the map reads ratings only to build dice pools;
- weapons: equipped ones only, with accessories (accuracy, RC per RC group, fire modes,
  damage and AP replacements). A smartgun's own accuracy bonus is *not* added: the weapon
  is flagged ``smartgun`` and the sr5 rules add it when the character has a smartlink;
  the character's Strength-based recoil compensation is likewise left to the rules;
- armour: the best equipped armour (with its mods) plus every "+N" accessory armour, and
  armour worn over a suit through Custom Fit (Stack);
- damage: ``physicalcmfilled`` and ``stuncmfilled``; walk and run: Agility x the save's
  ground multipliers (``walk`` "2/1/0", ``run`` "4/0/0");
- the portrait: the main mugshot (or the first), checked like a map image;
- a Chummer 4 save (Shadowrun 4th edition) says so and imports what maps across, the
  differences in the report (:mod:`engine.importers.chummer_sr4`).

Anything the map does not model (spells, contacts, vehicles, gear, other skills and
qualities, improvements it cannot apply) is named in the report.
"""

from __future__ import annotations

import ast
import math
import re
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from engine import limits
from engine.errors import CoverfireError, ImportFileError
from engine.importers import chummer_data as data
from engine.importers import images
from engine.importers import chummer_grenades as grenades
from engine.importers import chummer_sr4 as sr4
from engine.importers.chummer_file import read_chummer_xml
from engine.importers.guard import guarded
from engine.importers.placing import add_character, free_spot, placement_problem
from engine.importers.report import ImportReport, ReportBuilder
from engine.importers.storable import clean_text
from engine.model import RangeBand, Token, Weapon
from engine.ranges import BAND_MODIFIERS, BAND_NAMES, CATEGORIES
from engine.sr5.sheet import Sheet

MAX_FILE_BYTES = 64 * 1024 * 1024
ATTRIBUTE_FIELDS = {
    "BOD": "body", "AGI": "agility", "REA": "reaction", "STR": "strength", "WIL": "willpower",
    "LOG": "logic", "INT": "intuition", "CHA": "charisma", "EDG": "edge",
}
MODES = ("SS", "SA", "BF", "FA")
RELOAD = {"c": "c", "m": "m", "cy": "cy", "b": "b", "d": "d", "belt": "belt", "ml": "ml"}
_DAMAGE = re.compile(r"^(\d+|\(STR([+-]\d+)?\))[PS](\([a-z]+\))?$")
_AMMO = re.compile(r"^\s*(\d+)\s*(?:\((\w+)\))?")


# -- parsed values ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArmorPiece:
    """One equipped armour: ``value`` its rating with mods (None for a "+N" accessory),
    ``bonus`` what it adds on top of another armour ("+N", or its Custom Fit (Stack)
    override), ``stacks_on`` the armour its Custom Fit (Stack) names."""

    name: str
    value: int | None
    bonus: int = 0
    stacks_on: str | None = None


@dataclass(frozen=True)
class ChummerCharacter:
    """A Chummer save read into plain values (metres, boxes, ratings)."""

    name: str
    metatype: str = "human"
    attributes: dict[str, int] = field(default_factory=dict)  # BOD ... EDG, MAG, RES, ESS
    skills: dict[str, int] = field(default_factory=dict)  # Chummer skill name -> rating
    weapons: tuple[Weapon, ...] = ()
    armor: int = 0
    armor_parts: tuple[str, ...] = ()  # how the armour value was made, e.g. "Lined Coat 9"
    physical_damage: int = 0
    stun_damage: int = 0
    walk: float | None = None  # metres per Combat Turn
    run: float | None = None
    smartlink: str = "none"
    vision: tuple[str, ...] = ()
    qualities: tuple[str, ...] = ()
    initiative_dice: int = 1
    initiative_bonus: int = 0
    physical_bonus_boxes: int = 0
    stun_bonus_boxes: int = 0
    portrait: str | None = None  # data: URI
    ready: tuple[str, ...] | None = None  # weapons in hand (``Sheet.in_hand``); None: the first

    def to_sheet(self) -> Sheet:
        """The sr5 sheet of this character (Sheet fields; walk and run as extra fields)."""
        attrs = {ATTRIBUTE_FIELDS[k]: max(0, min(50, v)) for k, v in self.attributes.items() if k in ATTRIBUTE_FIELDS}
        skills = {
            data.MAP_SKILLS[name]: min(20, r) for name, r in self.skills.items() if name in data.MAP_SKILLS and r > 0
        }
        extra: dict[str, Any] = {}
        if self.walk is not None:
            extra["walk_rate"] = self.walk
        if self.run is not None:
            extra["run_rate"] = self.run
        return Sheet(
            metatype=self.metatype,
            **attrs,
            skills=skills,
            qualities=self.qualities,
            armor=max(0, min(100, self.armor)),
            smartlink=self.smartlink,
            vision=self.vision,
            initiative_dice=max(1, min(5, self.initiative_dice)),
            initiative_bonus=max(-50, min(50, self.initiative_bonus)),
            physical_bonus_boxes=max(-20, min(50, self.physical_bonus_boxes)),
            stun_bonus_boxes=max(-20, min(50, self.stun_bonus_boxes)),
            physical_damage=max(0, min(500, self.physical_damage)),
            stun_damage=max(0, min(500, self.stun_damage)),
            in_hand=self.ready,
            **extra,
        )

    def to_token(self, *, ident: str, side: str = "runner", x: float = 0.0, y: float = 0.0) -> Token:
        """A token for this character at (``x``, ``y``) metres."""
        extra = {"portrait": self.portrait} if self.portrait else {}
        return Token(
            id=ident, name=self.name, side=side, x=x, y=y, weapons=self.weapons, rules={"sr5": self.to_sheet()}, **extra
        )


# -- XML helpers --------------------------------------------------------------------------------


def _text(node: ET.Element | None, tag: str, default: str = "") -> str:
    """The stripped text of ``node``'s ``tag`` child (``default`` when there is none), cut to
    what an encounter keeps as a name (:data:`~engine.limits.MAX_NAME_CHARS`, ending in
    …): every text read here becomes a name, a skill or a note of a few words."""
    if node is None:
        return default
    t = node.findtext(tag)
    if t is None:
        return default
    t = t.strip()
    return t if len(t) <= limits.MAX_NAME_CHARS else t[: limits.MAX_NAME_CHARS - 1] + "…"


def _int(text: str | None, default: int | None = None) -> int | None:
    if text is None:
        return default
    s = text.strip()
    if s in ("", "-"):
        return default
    try:
        n = int(s)
    except ValueError:
        try:
            f = float(s)
        except ValueError:
            return default
        n = int(f) if math.isfinite(f) else default
    # no save holds a number past what an encounter file may (engine/limits.py): such a one
    # was written and then could not be reopened (fuzz 2026:chummer:59, an AP of 1e20)
    return n if n is None or abs(n) <= limits.MAX_NUMBER else default


def _true(text: str | None) -> bool:
    return (text or "").strip().lower() == "true"


# -- parsing ------------------------------------------------------------------------------------


def parse_chummer(path: str | Path) -> tuple[ChummerCharacter, ReportBuilder]:
    """Read a .chum5 save into a :class:`ChummerCharacter` and the report lines so far.
    Raises :class:`ImportFileError` for a file that is not a readable Chummer save."""
    p = Path(path)
    root = read_chummer_xml(p)
    rep = ReportBuilder(source=str(p), kind="chummer")
    return _parse(root, rep, fallback_name=p.stem), rep


def _parse(root: ET.Element, rep: ReportBuilder, fallback_name: str) -> ChummerCharacter:
    edition, signs = sr4.edition_of(root)
    is_sr4 = edition == sr4.EDITION
    if is_sr4:
        rep.warn("this is a Shadowrun 4th edition save (Chummer 4: " + ", ".join(signs) + "); Coverfire's "
                 "map rules are SR5's, so only what maps across is imported: " + "; ".join(sr4.DIFFERENCES),
                 "character/gameedition")
    elif edition != "SR5":
        rep.warn(f"the save is for {edition}, not Shadowrun 5th edition; read as SR5", "character/gameedition")
    version = _text(root, "appversion") or _text(root, "createdversion")
    name = clean_text(_text(root, "alias") or _text(root, "name") or fallback_name, 200)
    attrs = _attributes(root, rep)
    _check_body(root, name, attrs)
    attrs = _within_sheet(attrs, rep)
    metatype = _metatype(root, rep)
    made_by = "a Chummer 4 save for Shadowrun 4th edition" if is_sr4 else f"Chummer {version or 'version unknown'}"
    rep.note(f"{name}: {metatype}, {made_by}")
    improvements = _improvements(root)
    names = _source_names(root)
    skills = _skills(root, improvements, rep, names)
    phys_limit = math.ceil((2 * attrs.get("STR", 3) + attrs.get("BOD", 3) + attrs.get("REA", 3)) / 3)
    smartlink = _smartlink(root, improvements)
    weapons, weapon_vision, holster = _weapons(root, improvements, attrs, phys_limit, rep)
    if is_sr4:
        armor, parts, impact = sr4.armor(root, improvements, lambda imp: source_of(imp, names))
        rep.note(f"armour is SR4's Ballistic {armor}; its Impact {impact} is not used (SR5 has one armour value)")
        moves = sr4.movement(root)
        walk, run = moves if moves is not None else _movement(root, attrs, rep)
    else:
        armor, parts = _armor(root, rep, improvements=improvements, names=names, strength=attrs.get("STR"),
                             attrs=attrs)
        walk, run = _movement(root, attrs, rep)
    qualities = _qualities(root, improvements, holster, rep)
    vision = _vision(root, metatype, weapon_vision)
    init_dice = 1 + sum(v for t, v, _ in improvements if t in ("InitiativeDice", "InitiativeDiceAdd"))
    if is_sr4:  # SR4's extra passes are SR5's extra dice (as SR5 rewrote Wired Reflexes)
        passes = sum(v for kind in ("InitiativePass", "InitiativePassAdd") for v, _i in sr4.counted(improvements, kind))
        if passes:
            init_dice += passes
            rep.note(f"{passes:+d} Initiative Pass{'es' if abs(passes) != 1 else ''} (SR4) read as "
                     f"{passes:+d} Initiative {'Dice' if abs(passes) != 1 else 'Die'}")
    init_bonus = sum(v for t, v, _ in improvements if t == "Initiative")
    phys_boxes = sum(v for t, v, _ in improvements if t == "PhysicalCM")
    stun_boxes = sum(v for t, v, _ in improvements if t == "StunCM")
    phys = _int(_text(root, "physicalcmfilled"), 0) or 0
    stun = _int(_text(root, "stuncmfilled"), 0) or 0
    portrait = _portrait(root, rep)
    _unsupported(root, skills, rep)
    ready = _ready_weapon(weapons, skills, attrs, rep)

    rep.note("attributes " + ", ".join(f"{k} {attrs[k]}" for k in ATTRIBUTE_FIELDS if k in attrs))
    combat = [f"{n} {r}" for n, r in skills.items() if n in data.MAP_SKILLS and r > 0]
    rep.note("skills " + (", ".join(combat) if combat else "(no combat skills)"))
    rep.note(f"{len(weapons)} equipped weapon{'s' if len(weapons) != 1 else ''}: " + ", ".join(w.name for w in weapons))
    rep.note(f"armour {armor} (" + (" + ".join(parts) if parts else "none worn") + ")")
    rep.note(f"damage {phys} physical, {stun} stun; walk {walk:g} m, run {run:g} m" if walk is not None and run is not None
             else f"damage {phys} physical, {stun} stun")
    rep.note("portrait: " + ("yes" if portrait else "none in the save"))
    return ChummerCharacter(
        name=name,
        metatype=metatype,
        attributes=attrs,
        skills=skills,
        weapons=weapons,
        armor=armor,
        armor_parts=parts,
        physical_damage=phys,
        stun_damage=stun,
        walk=walk,
        run=run,
        smartlink=smartlink,
        vision=vision,
        qualities=qualities,
        initiative_dice=init_dice,
        initiative_bonus=init_bonus,
        physical_bonus_boxes=phys_boxes,
        stun_bonus_boxes=stun_boxes,
        portrait=portrait,
        ready=ready,
    )


def _dv(weapon: Weapon, strength: int) -> int:
    """The DV of a weapon's damage code ("8P" -> 8, "(STR+2)P" -> Strength + 2; 0 without one)."""
    m = re.match(r"^(?:(\d+)|\(STR([+-]\d+)?\))", weapon.damage or "")
    if not m:
        return 0
    return int(m.group(1)) if m.group(1) else strength + int(m.group(2) or 0)


def _ready_weapon(weapons, skills: dict[str, int], attrs: dict[str, int], rep: ReportBuilder) -> tuple[str, ...]:
    """The weapon in hand at the start (docs/importing.md, "Ready weapon"): the best ranged
    weapon that is no grenade or launcher -- the most dice (the rating of its skill), then the
    highest DV, then accuracy, the save's order on a tie; without one the best launcher or
    grenade, then the best melee weapon other than Unarmed Attack; with none, nothing in
    hand (Unarmed is always ready)."""
    ratings = {data.MAP_SKILLS[n]: r for n, r in skills.items() if n in data.MAP_SKILLS}
    strength = attrs.get("STR", 3)

    def score(w: Weapon):
        return (ratings.get(w.skill or "", 0), _dv(w, strength), w.accuracy or 0)

    ranged = [w for w in weapons if w.category is not None or w.ranges is not None]
    guns = [w for w in ranged if w.blast is None and w.category != "grenade_launcher"]
    blasts = [w for w in ranged if w not in guns]
    melee = [w for w in weapons if w not in ranged and not w.name.lower().startswith("unarmed")]
    for group, what in ((guns, "best ranged weapon"), (blasts, "no gun: best launcher or grenade"),
                        (melee, "no ranged weapon: best melee weapon")):
        if group:
            best = max(group, key=lambda w: (score(w), -weapons.index(w)))
            sk, dv, acc = score(best)
            rep.note(f"ready weapon: {best.name} ({what}: skill {sk}, DV {dv}, accuracy {acc})")
            return (best.name,)
    rep.note("ready weapon: none (Unarmed)")
    return ()


#: Metatype categories of characters without a body of their own.
BODILESS_CATEGORIES = ("A.I.", "AI", "Sprite", "Spirits", "Spirit")


def _check_body(root: ET.Element, name: str, attrs: dict[str, int]) -> None:
    """Refuse a character Coverfire cannot put on the map as a body that moves and fights:
    an A.I. (Chummer's metatype category "A.I.": no Body, Agility, Reaction or Strength) or
    any save whose Agility is 0 (it would walk 0 m). :class:`ImportFileError` says what is
    missing and what to import instead."""
    category = _text(root, "metatypecategory")
    meta = _text(root, "metatype")
    physical = {k: attrs.get(k, 0) for k in ("BOD", "AGI", "REA", "STR")}
    if category in BODILESS_CATEGORIES or meta.upper().replace(".", "") == "AI":
        raise ImportFileError(
            f"{name} is an A.I. (metatype {meta or '?'}, category {category or '?'}): it has no body "
            f"(Body {physical['BOD']}, Agility {physical['AGI']}, Reaction {physical['REA']}, "
            f"Strength {physical['STR']}), so Coverfire cannot make a token that moves and fights on the map. "
            "Import the drone or vehicle it rides as a character instead, or place a token for its host by hand",
            path="character/metatypecategory")
    missing = [k for k, v in physical.items() if k in attrs and v <= 0]
    if "AGI" in missing or (len(missing) == 4):
        raise ImportFileError(
            f"{name} has " + ", ".join(f"{ATTR_NAMES[k]} 0" for k in missing)
            + ": the token could not move (walk 0 m) or fight; Coverfire refuses it rather than guess. "
            "Fix the attributes in Chummer and import again", path="character/attributes")


ATTR_NAMES = {"BOD": "Body", "AGI": "Agility", "REA": "Reaction", "STR": "Strength"}
#: The values an sr5 sheet's attribute holds (engine.sr5.sheet.Sheet).
ATTRIBUTE_RANGE = (0, 50)


def _within_sheet(attrs: dict[str, int], rep: ReportBuilder) -> dict[str, int]:
    """The attributes as the sheet holds them: a value outside :data:`ATTRIBUTE_RANGE`
    (Strength -1, Agility 60) is brought to the nearest end, and the report says so with
    the value the save gave, so the report and the imported sheet agree."""
    lo, hi = ATTRIBUTE_RANGE
    out = dict(attrs)
    for k in ATTRIBUTE_FIELDS:
        v = attrs.get(k)
        if v is not None and not lo <= v <= hi:
            out[k] = max(lo, min(hi, v))
            rep.warn(f"attribute {k} is {v} in the save, outside the {lo}-{hi} a sheet holds; imported as {out[k]}",
                     f"character/attributes/attribute[name={k}]")
    return out


def _metatype(root: ET.Element, rep: ReportBuilder) -> str:
    meta = _text(root, "metatype")
    key = meta.lower()
    if key in ("human", "elf", "dwarf", "ork", "troll"):
        variant = _text(root, "metavariant")
        if variant:
            rep.skip(f"metavariant {variant} (read as {key})")
        return key
    rep.warn(f"metatype {meta or '(none)'} is not one the sr5 rules know; the token is a human", "character/metatype")
    return "human"


_GUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _source_names(root: ET.Element) -> dict[str, str]:
    """guid -> name of everything in the save that can be an improvement's source (qualities,
    cyberware, powers, gear, armour and their mods ...)."""
    out: dict[str, str] = {}
    for el in root.iter():
        g = el.findtext("guid")
        n = el.findtext("name")
        if g and n:
            extra = (el.findtext("extra") or "").strip()
            rating = (el.findtext("rating") or "").strip()
            label = n.strip() + (f" ({extra})" if extra else "") + (f" {rating}" if rating not in ("", "0") else "")
            out.setdefault(g.strip(), label)
    return out


def source_of(imp: ET.Element, names: dict[str, str]) -> str:
    """Where an improvement comes from, in words: "Quality Catlike", "Cyberware Bone Lacing
    (Aluminum)"; the kind alone when the save does not name the source."""
    kind = _text(imp, "improvementsource") or "improvement"
    src = _text(imp, "sourcename")
    name = names.get(src) or (src if src and not _GUID.match(src) else "")
    return f"{kind} {name}".strip() if name else f"a {kind} (unnamed)" if kind != "improvement" else "an improvement"


def _improvements(root: ET.Element) -> list[tuple[str, int, ET.Element]]:
    """(type, value, element) of every enabled, unconditional improvement."""
    out = []
    node = root.find("improvements")
    if node is None:
        return out
    for imp in node.findall("improvement"):
        if not _true(imp.findtext("enabled") or "True"):
            continue
        if _text(imp, "condition"):
            continue
        kind = _text(imp, "improvementttype") or _text(imp, "improvementtype")
        out.append((kind, _int(_text(imp, "val"), 0) or 0, imp))
    return out


def _attributes(root: ET.Element, rep: ReportBuilder) -> dict[str, int]:
    out: dict[str, int] = {}
    node = root.find("attributes")
    if node is None:
        rep.warn("the save has no attributes; every attribute is left at 3", "character/attributes")
        return out
    added = False
    for i, a in enumerate(node.findall("attribute")):
        name = _text(a, "name")
        if not name or name in out:
            continue
        total = _int(a.findtext("totalvalue"))
        if total is None:
            parts = [_int(a.findtext(t)) for t in ("metatypemin", "base", "karma")]
            if parts[0] is not None:
                total = sum(p or 0 for p in parts)
                added = True
            else:
                total = _int(a.findtext("value"))
        if total is None:
            if name in ATTRIBUTE_FIELDS:
                rep.warn(f"attribute {name} has no value; left at 3", f"character/attributes/attribute[{i + 1}]")
            continue
        out[name] = total
    if added:
        rep.warn(
            "this older save gives no final attribute values; they are metatype minimum + base + karma, "
            "without augmentations (check cyberware and adept powers by hand)",
            "character/attributes",
        )
    ess = _text(root, "totaless")
    if ess:
        try:
            out["ESS"] = math.floor(float(ess))
        except (ValueError, OverflowError):  # (NaN, Infinity)
            pass
    return out


def _skills(root: ET.Element, improvements, rep: ReportBuilder, names: dict[str, str] | None = None) -> dict[str, int]:
    """Active skill name -> rating as Chummer computes it (see the module docstring)."""
    names = names if names is not None else _source_names(root)
    created = _true(_text(root, "created"))
    new = root.find("newskills")
    ratings: dict[str, int] = {}
    if new is not None and new.find("skills") is not None:
        groups = {}
        for g in new.findall("groups/group"):
            groups[_text(g, "name")] = (_int(_text(g, "base"), 0) or 0, _int(_text(g, "karma"), 0) or 0)
        free_base = _by_name(improvements, "SkillBase")
        free_karma = _by_name(improvements, "SkillLevel")
        unknown = 0
        for i, s in enumerate(new.findall("skills/skill")):
            suid = _text(s, "suid")
            info = data.SKILLS.get(suid)
            sname = info.name if info else _text(s, "name")
            if info is None and not sname:
                unknown += 1
                continue
            if info is not None and info.name.startswith("Exotic") and _text(s, "specific"):
                sname = info.name  # one rating per exotic skill key; the weapon is in its name
            base_pts = _int(_text(s, "base"), 0) or 0
            karma_pts = _int(_text(s, "karma"), 0) or 0
            gbase, gkarma = groups.get(info.group, (0, 0)) if info and info.group else (0, 0)
            cap = 12 if created else 6
            base = min(gbase + base_pts + free_base.get(sname, 0), cap) if gbase > 0 else min(base_pts + free_base.get(sname, 0), cap)
            karma = min(karma_pts + free_karma.get(sname, 0) + gkarma, cap)
            ratings[sname] = max(ratings.get(sname, 0), base + karma)
        # Skill groups whose members the save does not list.
        for sid, info in data.SKILLS.items():
            if info.group and info.name not in ratings and sum(groups.get(info.group, (0, 0))) > 0:
                ratings[info.name] = sum(groups[info.group])
        if unknown:
            rep.warn(f"{unknown} skill{'s' if unknown != 1 else ''} with an id not in Chummer's SR5 skill list; skipped",
                     "character/newskills/skills")
    elif root.find("skills") is not None:
        rep.warn("older save layout: skills read by name and rating", "character/skills")
        for s in root.findall("skills/skill"):
            sname = _text(s, "name")
            r = _int(_text(s, "rating"))
            if r is None:
                r = (_int(_text(s, "base"), 0) or 0) + (_int(_text(s, "karma"), 0) or 0)
            if sname:
                ratings[sname] = max(ratings.get(sname, 0), r)
    else:
        rep.warn("the save lists no skills; the token has none", "character/newskills")
    # Unconditional bonuses to a skill (Improved Ability and the like) count toward its dice.
    for kind, val, imp in improvements:
        if kind == "Skill" and val:
            sname = _text(imp, "improvedname")
            if sname in data.MAP_SKILLS:
                ratings[sname] = ratings.get(sname, 0) + val
                rep.note(f"{sname} includes {val:+d} from {source_of(imp, names)}")
        elif kind in ("SkillGroup", "SkillCategory", "SkillAttribute") and val:
            rep.skip(f"improvement {kind} {_text(imp, 'improvedname')} {val:+d} from {source_of(imp, names)} "
                     "(not applied)")
    return ratings


def _by_name(improvements, kind: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for k, v, imp in improvements:
        if k == kind:
            n = _text(imp, "improvedname")
            out[n] = out.get(n, 0) + v
    return out


def _smartlink(root: ET.Element, improvements) -> str:
    for kind, _v, imp in improvements:
        if kind == "Smartlink":
            src = _text(imp, "improvementsource")
            return "implant" if src in ("Cyberware", "Bioware") else "gear"
    return "none"


# -- weapons ------------------------------------------------------------------------------------


def _weapons(root, improvements, attrs, phys_limit, rep: ReportBuilder):
    out: list[Weapon] = []
    vision: set[str] = set()
    holster = False
    node = root.find("weapons")
    if node is None:
        return (), vision, holster
    skill_acc = _by_name(improvements, "WeaponSkillAccuracy")
    names: dict[str, int] = {}
    skipped = []
    minis: list[tuple[ET.Element, str]] = []
    qty: dict[str, float] = {}
    for g in root.iter("gear"):
        try:
            q = float(_text(g, "qty") or 1)
        except ValueError:
            q = 1.0
        qty[_text(g, "guid")] = q if math.isfinite(q) and q > 0 else 1.0

    def walk(elements, prefix):
        nonlocal holster
        for i, w in enumerate(elements):
            where = f"{prefix}[{i + 1}]"
            wname = _text(w, "name") or "Unnamed weapon"
            if not _true(_text(w, "equipped", "True")):
                skipped.append(wname)
                continue
            device = grenades.unsupported_device(wname)
            if device is not None:
                count = int(qty.get(_text(w, "parentid"), 1.0))
                rep.warn(f"{count} x {wname} (damage {_text(w, 'damage') or 'none'!r}) carried: {device}. "
                         "The sr5 rules do not model it, so it is not imported as a weapon (nor as a smoke "
                         "grenade); when one goes off, set the sr5 environment's glare (environment.glare) by hand", where)
                continue
            if grenades.is_minigrenade(wname, _text(w, "category"), _text(w, "range")):
                minis.append((w, where))
                continue
            if (grenades.is_grenade_name(wname) and _text(w, "type") != "Melee"
                    and grenades.blast_of(wname, _text(w, "damage")) is None):
                rep.warn(f"{wname}: damage {_text(w, 'damage') or 'none'!r} names no blast the sr5 rules know "
                         "(fragmentation, high explosive, flash-bang, gas, smoke); not imported as a weapon", where)
                continue
            weapon, accs = _weapon(w, where, skill_acc, attrs, phys_limit, rep, qty)
            for a in accs:
                low = a.lower()
                if "quick-draw holster" in low:
                    holster = True
                for word, key in data.VISION_WORDS:
                    if word in low:
                        vision.add(key)
            if weapon is not None:
                n = names.get(weapon.name, 0) + 1
                names[weapon.name] = n
                if n > 1:
                    new = f"{weapon.name} ({n})"
                    rep.note(f"a second {weapon.name} is named {new!r}")
                    weapon = weapon.model_copy(update={"name": new})
                out.append(weapon)
            under = w.findall("underbarrel/weapon")
            if under:
                walk(under, f"{where}/underbarrel/weapon")

    walk(node.findall("weapon"), "character/weapons/weapon")
    if skipped:
        rep.skip("weapons not equipped: " + ", ".join(skipped))
    if minis:
        out = _load_launchers(out, minis, qty, rep)
    return tuple(out), vision, holster


def _load_launchers(weapons: list[Weapon], minis, qty: dict[str, float], rep: ReportBuilder) -> list[Weapon]:
    """Minigrenades (ammunition in Chummer, listed as weapons of their own) loaded into the
    character's grenade launchers: each launcher takes the first kind the save lists, a full
    clip of it; the other kinds are named in the report as carried."""
    rounds = []
    for w, where in minis:
        name = _text(w, "name") or "Minigrenade"
        blast = grenades.blast_of(name, _text(w, "damage"))
        if blast is None:
            rep.warn(f"{name}: damage {_text(w, 'damage')!r} says no blast; not loaded", where)
            continue
        ap = _int(_text(w, "ap"), 0) or 0
        count = int(qty.get(_text(w, "parentid"), 1.0))
        rounds.append((name, blast, ap, count, where))
    launchers = [i for i, wp in enumerate(weapons) if wp.category == "grenade_launcher"
                 or getattr(wp, "damage_note", None) == "Grenade"]
    if not rounds:
        return weapons
    if not launchers:
        for name, _b, _ap, count, where in rounds:
            rep.warn(f"{count} x {name} carried without a grenade launcher; not imported", where)
        return weapons
    name, blast, ap, count, _where = rounds[0]
    out = list(weapons)
    for i in launchers:
        wp = out[i]
        extra = {k: v for k, v in (wp.model_extra or {}).items() if k != "damage_note"}
        extra.update(blast=blast.kind, blast_falloff=blast.falloff, loaded_with=name)
        if blast.radius is not None:
            extra["blast_radius"] = blast.radius
        data_ = wp.model_dump(exclude_none=False)
        data_.update(extra, damage=blast.damage, ap=ap, loaded=wp.ammo)
        data_.pop("damage_note", None)
        out[i] = Weapon.model_validate(data_)
        rep.note(f"{wp.name} loaded with {name} ({blast.describe()}): "
                 f"{wp.ammo if wp.ammo is not None else 'a'} round{'s' if wp.ammo != 1 else ''} in, {count} carried")
    others = [f"{c} x {n}" for n, _b, _a, c, _w in rounds[1:]]
    if others:
        rep.note("minigrenades also carried (switch rounds on the sheet): " + ", ".join(others))
    return out


def _weapon(w: ET.Element, where: str, skill_acc, attrs, phys_limit, rep: ReportBuilder, qty: dict[str, float]):
    name = _text(w, "name") or "Unnamed weapon"
    label = f"{where} ({name})"
    category = _text(w, "category")
    wtype = _text(w, "type")
    accessories = [a for a in w.findall("accessories/accessory") if _true(_text(a, "equipped", "True"))]
    acc_names = [_text(a, "name") for a in accessories]

    # Skill.
    useskill = _text(w, "useskill")
    skill = None
    if useskill:
        skill = data.MAP_SKILLS.get(useskill) or useskill.lower().replace(" ", "_").replace("-", "_")
    else:
        skill = data.CATEGORY_SKILLS.get(category)
    if skill is None and category not in ("Gear",):
        rep.warn(f"no combat skill known for category {category!r}; the weapon names none", label)

    # Damage and AP (accessories may replace or add).
    damage = _text(w, "damage")
    ap_text = _text(w, "ap")
    for a in accessories:
        if _text(a, "damagereplace"):
            damage = _text(a, "damagereplace")
        if _text(a, "apreplace"):
            ap_text = _text(a, "apreplace")
    dmg_add = sum(_int(_text(a, "damage"), 0) or 0 for a in accessories)
    ap_add = sum(_int(_text(a, "ap"), 0) or 0 for a in accessories)
    extra: dict[str, Any] = {}
    dmg_value: str | None = damage.replace(" ", "") or None
    blast = grenades.blast_of(name, damage) if wtype != "Melee" else None
    if blast is not None:
        dmg_value = blast.damage
        extra["blast"] = blast.kind
        extra["blast_falloff"] = blast.falloff
        if blast.radius is not None:
            extra["blast_radius"] = blast.radius
        rep.note(f"{name} carries {blast.describe()}" + (" (kind read from its damage)" if blast.guessed else ""))
    elif damage.strip().lower() == "grenade":
        extra["damage_note"] = damage  # a launcher: what it fires is loaded from its minigrenades
        dmg_value = None
    elif dmg_value and not _DAMAGE.match(dmg_value):
        rep.warn(f"damage {damage!r} is not a damage code; kept as a note on the weapon", f"{label}/damage")
        extra["damage_note"] = damage
        dmg_value = None
    elif dmg_value and dmg_add:
        m = re.match(r"^(\d+)(.*)$", dmg_value)
        if m:
            dmg_value = f"{int(m.group(1)) + dmg_add}{m.group(2)}"
        else:
            rep.warn(f"an accessory adds {dmg_add:+d} DV to {damage!r}; not applied", f"{label}/accessories")
    ap = _int(ap_text, None)
    if ap is None:
        if ap_text not in ("", "-"):
            rep.warn(f"AP {ap_text!r} is not a number; taken as 0", f"{label}/ap")
        ap = 0
    ap += ap_add

    # Accuracy: the weapon's, accessories' (not the smartgun's: the rules add it), skill bonuses.
    acc_text = _text(w, "accuracy")
    accuracy: int | None
    m = re.match(r"^Physical\s*([+-]\s*\d+)?$", acc_text)
    if m:
        accuracy = phys_limit + (int(m.group(1).replace(" ", "")) if m.group(1) else 0)
    else:
        accuracy = _int(acc_text)
        if accuracy is None and acc_text:
            rep.warn(f"accuracy {acc_text!r} is not a number; left out", f"{label}/accuracy")
    smartgun = any("smartgun" in n.lower() for n in acc_names) or "smartgun" in name.lower()
    if accuracy is not None:
        for a in accessories:
            if "smartgun" in _text(a, "name").lower():
                continue
            accuracy += _int(_text(a, "accuracy"), 0) or 0
        if skill:
            for sname, key in data.MAP_SKILLS.items():
                if key == skill and skill_acc.get(sname):
                    accuracy += skill_acc[sname]

    # Modes.
    modes: list[str] = []
    mode_text = _text(w, "mode")
    for a in accessories:
        if _text(a, "firemodereplace"):
            mode_text = _text(a, "firemodereplace")
    for part in re.split(r"[/,\s]+", mode_text):
        if part in MODES and part not in modes:
            modes.append(part)
        elif part not in ("", "0", "-"):
            rep.warn(f"firing mode {part!r} is not SS, SA, BF or FA; left out", f"{label}/mode")
    for a in accessories:
        for part in re.split(r"[/,\s]+", _text(a, "addmode") or _text(a, "firemode")):
            if part in MODES and part not in modes:
                modes.append(part)
    modes.sort(key=MODES.index)

    # Recoil compensation: the weapon's plus accessories (the best of each RC group).
    rc_text = _text(w, "rc")
    rc = _int(re.split(r"[(\s]", rc_text)[0] if rc_text else "0", 0) or 0
    groups: dict[str, int] = {}
    deployable = []
    for a in accessories:
        val = _int(_text(a, "rc"), 0) or 0
        if not val:
            continue
        if _true(_text(a, "rcdeployable")):
            deployable.append(f"{_text(a, 'name')} {val:+d}")
            continue
        grp = _text(a, "rcgroup") or "0"
        if grp == "0":
            rc += val
        else:
            groups[grp] = max(groups.get(grp, 0), val)
    rc += sum(groups.values())
    if deployable:
        rep.note(f"{name}: RC when deployed not included ({', '.join(deployable)})")

    # Ammunition: a firearm starts with a full clip of its own capacity; a grenade is one of
    # the ``qty`` the save's gear carries (its count left, no clip).
    ammo = reload = loaded = None
    if blast is not None and skill in ("throwing_weapons", None) and _text(w, "range") != "Grenade Launchers":
        loaded = max(1, min(999, int(qty.get(_text(w, "parentid"), 1.0))))
    elif wtype != "Melee":
        m = _AMMO.match(_text(w, "ammo"))
        if m and 0 < int(m.group(1)) <= 10_000:
            ammo = loaded = int(m.group(1))
            reload = RELOAD.get((m.group(2) or "").lower())
    bonus = [a for a in accessories if (_int(_text(a, "ammobonus"), 0) or 0) or (_int(_text(a, "rangebonus"), 0) or 0)]
    for a in bonus:
        rep.warn(f"accessory {_text(a, 'name')} changes clip size or range; not applied", f"{label}/accessories")

    # Range.
    cat_id = None
    ranges = None
    if wtype != "Melee":
        table = _text(w, "range") or category
        if table == "Crossbows" or category == "Crossbows":
            table = next((t for t in ("Light", "Medium", "Heavy") if t.lower() in name.lower()), "Medium") + " Crossbows"
        mult = _range_multiplier(_text(w, "rangemultiply"), label, rep)
        if table in data.RANGE_CATEGORIES:
            cat_id = data.RANGE_CATEGORIES[table]
            if abs(mult - 1.0) > 1e-9:
                cat = CATEGORIES[cat_id]
                if cat.per_strength:
                    rep.warn(f"range multiplier {mult:g} on a Strength-scaled range; not applied", label)
                else:
                    ranges = _own_bands(tuple(m_ * mult for m_ in cat.maxima))
        elif table in data.OWN_RANGES:
            maxima, per_str = data.OWN_RANGES[table]
            scale = attrs.get("STR", 3) if per_str else 1
            ranges = _own_bands(tuple(m_ * scale * mult for m_ in maxima))
            rep.note(f"{name}: range table {table!r} kept as the weapon's own bands")
        else:
            rep.warn(f"no range table for {table!r}; the weapon has no range bands", f"{label}/range")

    reach = _int(_text(w, "reach"), 0) or 0
    try:
        weapon = Weapon(
            name=name,
            category=cat_id,
            ranges=ranges,
            damage=dmg_value,
            ap=ap,
            accuracy=accuracy,
            modes=tuple(modes),
            rc=rc,
            ammo=ammo,
            loaded=loaded,
            smartgun=smartgun,
            reach=reach,
            skill=skill,
            reload=reload,
            **extra,
        )
    except ValueError as exc:
        rep.warn(f"the weapon cannot be used: {exc}; skipped", label)
        return None, acc_names
    return weapon, acc_names


#: Range multipliers read at most (Chummer's own go up to 2 or so).
MAX_RANGE_MULTIPLIER = 100.0


def _range_multiplier(text: str, label: str, rep: ReportBuilder) -> float:
    """``rangemultiply`` as a number (1 when empty); a text that is not one positive number
    up to :data:`MAX_RANGE_MULTIPLIER` ("1.5.2", "NaN", "-2") is 1 with a warning."""
    if not text:
        return 1.0
    try:
        v = float(text)
    except (ValueError, OverflowError):
        v = math.nan
    if not (math.isfinite(v) and 0 < v <= MAX_RANGE_MULTIPLIER):
        rep.warn(f"range multiplier {text[:40]!r} is not a number from 0 to {MAX_RANGE_MULTIPLIER:g}; 1 used",
                 f"{label}/rangemultiply")
        return 1.0
    return v


def _own_bands(maxima: tuple[float, ...]) -> tuple[RangeBand, ...]:
    return tuple(
        RangeBand(band=n, max=float(m), modifier=BAND_MODIFIERS[n]) for n, m in zip(BAND_NAMES, maxima) if m > 0
    )


# -- armour, movement, qualities, vision --------------------------------------------------------


def _armor(root: ET.Element, rep: ReportBuilder, *, improvements=(), names: dict[str, str] | None = None,
           strength: int | None = None, attrs: dict[str, int] | None = None) -> tuple[int, tuple[str, ...]]:
    """The armour value as Chummer totals it (``Character.GetArmorRating``): the best equipped
    armour with its mods, plus the "+N" armour worn with it and Custom Fit (Stack) bonuses
    (together at most Strength), plus every unconditional ``Armor`` improvement -- from
    cyberware, bioware, qualities, powers (Orthoskin, Bone Lacing, cyberlimb armour ...);
    those an armour or armour mod makes count only with that armour. Improvements sharing a
    ``unique`` name count once, the best of them. An armour whose value is worked out from
    its rating ("Rating", "FixedValues(...)", "Rating * 2") is evaluated as Chummer does
    (:func:`rated_value`). (value, the parts it is made of)."""
    names = names or {}
    pieces: list[tuple[ArmorPiece, set[str]]] = []
    node = root.find("armors")
    for i, a in enumerate(node.findall("armor") if node is not None else ()):
        if not _true(_text(a, "equipped", "True")):
            continue
        name = _text(a, "name") or f"armor {i + 1}"
        text = _text(a, "armor")
        mods = [m for m in a.findall("armormods/armormod") if _true(_text(m, "equipped", "True"))]
        mod_value = sum(_int(_text(m, "armor"), 0) or 0 for m in mods)
        damage = _int(_text(a, "damage"), 0) or 0
        override = _text(a, "armoroverride")
        stack_fit = next((m for m in mods if _text(m, "name") == "Custom Fit (Stack)"), None)
        guids = {_text(a, "guid")} | {_text(m, "guid") for m in mods}
        bonus = 0
        stacks_on = None
        if override.startswith("+") and stack_fit is not None:
            bonus = _int(override, 0) or 0
            stacks_on = _text(stack_fit, "extra") or None
        value = _int(text)
        if value is None and text:
            rating = _int(_text(a, "rating"), 0) or 0
            value = rated_value(text, rating, attrs or {})
            if value is not None:
                rep.note(f"{name}: armour {text!r} at rating {rating} = {value} (as Chummer works it out)")
        if value is None:
            rep.warn(f"armour value {text!r} is not a number; {name} left out", f"character/armors/armor[{i + 1}]")
            continue
        if text.startswith("+"):
            pieces.append((ArmorPiece(name, None, value + mod_value - damage), guids))
        else:
            pieces.append((ArmorPiece(name, value + mod_value - damage, bonus, stacks_on), guids))

    # Armor improvements: general ones, and those an armour (or its mod) makes.
    general: list[tuple[int, str]] = []
    own: dict[int, list[tuple[int, str]]] = {}
    best_unique: dict[str, tuple[int, ET.Element]] = {}
    plain: list[tuple[int, ET.Element]] = []
    for kind, val, imp in improvements:
        if kind != "Armor" or not val:
            continue
        u = _text(imp, "unique")
        if u:
            if u not in best_unique or val > best_unique[u][0]:
                best_unique[u] = (val, imp)
        else:
            plain.append((val, imp))
    order = {id(imp): i for i, (_k, _v, imp) in enumerate(improvements)}
    for val, imp in sorted(plain + list(best_unique.values()), key=lambda vi: order[id(vi[1])]):
        src_kind = _text(imp, "improvementsource")
        label = f"{source_of(imp, names)} {val:+d}"
        if src_kind in ("Armor", "ArmorMod"):
            src = _text(imp, "sourcename")
            k = next((j for j, (_p, g) in enumerate(pieces) if src in g), None)
            if k is not None:
                own.setdefault(k, []).append((val, label))
            continue
        general.append((val, label))
    for imp in root.findall("improvements/improvement"):
        if (_text(imp, "improvementttype") or _text(imp, "improvementtype")) == "Armor" and _text(imp, "condition"):
            rep.skip(f"armour {_text(imp, 'val')} from {source_of(imp, names)} only when {_text(imp, 'condition')} "
                     "(conditional; not added)")

    cap = strength if strength is not None and strength > 0 else None
    best_total = None
    best_parts: tuple[str, ...] = ()
    bases = [k for k, (p, _g) in enumerate(pieces) if p.value is not None] or [None]
    for kb in bases:
        base = pieces[kb][0] if kb is not None else None
        total = base.value if base else 0
        parts = [f"{base.name} {base.value}"] if base else []
        stack = 0
        stack_parts = []
        for k, (p, _g) in enumerate(pieces):
            if k == kb:
                continue
            if p.value is None:
                stack += p.bonus
                stack_parts.append(f"{p.name} +{p.bonus}")
            elif base is not None and p.bonus and p.stacks_on == base.name:
                stack += p.bonus
                stack_parts.append(f"{p.name} +{p.bonus} (Custom Fit (Stack))")
        if cap is not None and stack > cap:
            stack_parts[-1] += f" (accessories capped at Strength {cap}: +{cap} in all)"
            stack = cap
        total += stack
        parts += stack_parts
        for val, label in own.get(kb, []) if kb is not None else []:
            total += val
            parts.append(label)
        if best_total is None or total > best_total:
            best_total, best_parts = total, tuple(parts)
    best_total = best_total or 0
    for val, label in general:
        best_total += val
    best_parts = best_parts + tuple(label for _v, label in general)
    named = [p.name for p, _g in pieces]
    ignored = [n for n in named if not any(part.startswith(n + " ") for part in best_parts)]
    if ignored:
        rep.note("armour worn but not stacking: " + ", ".join(ignored))
    return max(0, best_total), best_parts


#: Longest rating expression read (Chummer's own are a word or two).
MAX_EXPRESSION_CHARS = 200
_FIXED = re.compile(r"^FixedValues\((.*)\)$")
_ATTR_REF = re.compile(r"\{([A-Z]{3})(Unaug|Base)?\}")
_ARITH = re.compile(r"^[0-9.+\-*/%() ]+$")


def rated_value(text: str, rating: int, attrs: dict[str, int]) -> int | None:
    """A number of Chummer's that depends on the item's rating, worked out as Chummer's
    ``Armor.ProcessRatingString`` does: ``FixedValues(a,b,c)`` takes the rating's entry (the
    last past the end), a leading "+" is dropped, ``Rating`` / ``{Rating}`` is the rating,
    ``{STR}`` and the like the attribute's value, then the arithmetic (``+ - * / div mod``,
    brackets) is done and rounded away from zero (Chummer's ``StandardRound``: 4.5 -> 5).
    None for a text that is none of these."""
    s = (text or "").strip()
    if not s or len(s) > MAX_EXPRESSION_CHARS:
        return None
    m = _FIXED.match(s)
    if m:
        entries = [e.strip().strip("[]") for e in m.group(1).split(",")]
        if not entries:
            return None
        s = entries[max(0, min(len(entries), rating) - 1)]
    s = s.lstrip("+")
    s = s.replace("{Rating}", str(rating)).replace("Rating", str(rating))
    s = _ATTR_REF.sub(lambda mm: str(attrs[mm.group(1)]) if mm.group(1) in attrs else mm.group(0), s)
    s = re.sub(r"\bdiv\b", "/", s)
    s = re.sub(r"\bmod\b", "%", s)
    if not _ARITH.match(s):
        return None
    try:
        value = _arith(ast.parse(s, mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError, OverflowError):
        return None
    if not math.isfinite(value):
        return None
    n = math.ceil(value) if value >= 0 else math.floor(value)
    return n if abs(n) <= limits.MAX_NUMBER else None


def _arith(node: ast.AST) -> float:
    """The value of a parsed expression of numbers, + - * / % and brackets (ValueError for
    anything else)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        v = _arith(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        a, b = _arith(node.left), _arith(node.right)
        op = node.op
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.Div):
            return a / b
        if isinstance(op, ast.Mod):
            return math.fmod(a, b)
    raise ValueError("not arithmetic")


#: Largest walk or run rate a sheet holds, metres per Combat Turn.
MAX_RATE = 1000.0


def _movement(root: ET.Element, attrs: dict[str, int], rep: ReportBuilder) -> tuple[float | None, float | None]:
    agi = attrs.get("AGI")
    if agi is None:
        return None, None

    def ground(tag: str, default: float) -> float:
        text = _text(root, tag)
        if not text:
            rep.warn(f"no {tag} rate in the save; Agility x {default:g} used", f"character/{tag}")
            return default
        first = text.split("/")[0]
        try:
            v = float(first)
        except (ValueError, OverflowError):
            v = math.nan
        if not (math.isfinite(v) and 0 <= v and agi * v <= MAX_RATE):
            rep.warn(f"{tag} rate {text[:40]!r} is not a ground multiplier (0 to {MAX_RATE:g} m a turn in all); "
                     f"Agility x {default:g} used", f"character/{tag}")
            return default
        return v

    walk, run = ground("walk", 2), ground("run", 4)
    return min(agi * walk, MAX_RATE), min(agi * run, MAX_RATE)


def _qualities(root, improvements, holster: bool, rep: ReportBuilder) -> tuple[str, ...]:
    out: list[str] = []
    others = []
    for q in root.findall("qualities/quality"):
        n = _text(q, "name")
        key = data.QUALITIES.get(n)
        if key:
            if key not in out:
                out.append(key)
        elif n:
            others.append(n)
    if any(k == "Ambidextrous" for k, _v, _i in improvements) and "ambidextrous" not in out:
        out.append("ambidextrous")
    if holster:
        out.append("quick_draw_holster")
    if others:
        rep.skip("qualities: " + ", ".join(others))
    return tuple(out)


def _vision(root: ET.Element, metatype: str, weapon_vision: set[str]) -> tuple[str, ...]:
    found: list[str] = list(data.METATYPE_VISION.get(metatype, ()))

    todo = list(reversed(root.findall("gears/gear") + root.findall("cyberwares/cyberware")))
    while todo:  # gear inside gear, depth-first in the save's order (no recursion: saves nest deep)
        g = todo.pop()
        if not _true(_text(g, "equipped", "True")):
            continue
        low = _text(g, "name").lower()
        for word, key in data.VISION_WORDS:
            if word in low and key not in found:
                found.append(key)
        todo.extend(reversed(g.findall("children/gear") + g.findall("children/cyberware") + g.findall("gears/gear")))
    for key in sorted(weapon_vision):
        if key not in found:
            found.append(key)
    return tuple(found)


def _portrait(root: ET.Element, rep: ReportBuilder) -> str | None:
    shots = [m.text or "" for m in root.findall("mugshots/mugshot")]
    if not shots and (root.findtext("mugshot") or "").strip():
        shots = [root.findtext("mugshot") or ""]  # older layout: one mugshot
    shots = [s.strip() for s in shots if s and s.strip()]
    if not shots:
        return None
    index = _int(_text(root, "mainmugshotindex"), -1)
    text = shots[index] if index is not None and 0 <= index < len(shots) else shots[0]
    head = images.image_header(images.b64_prefix(text))
    if head.problem is None:
        too_big = images.size_problem(head)
        if too_big:
            rep.warn(f"the portrait is not used: {too_big}", "character/mugshots")
            return None
    blob, b64_problem = images.b64_decode(text)
    info = images.check_image(blob)
    if info.problem or head.problem:
        rep.warn(f"the portrait cannot be used: {info.problem or head.problem}"
                 + (f" ({b64_problem})" if b64_problem else ""), "character/mugshots")
        return None
    return images.data_uri(blob, info.format)


def _unsupported(root: ET.Element, skills: dict[str, int], rep: ReportBuilder) -> None:
    others = sorted(f"{n} {r}" for n, r in skills.items() if n not in data.MAP_SKILLS and r > 0)
    if others:
        rep.skip("other active skills: " + ", ".join(others))
    knowledge = [k for k in root.findall("newskills/knoskills/skill") if _text(k, "name")]
    if knowledge:
        rep.skip(f"knowledge and language skills: {len(knowledge)}")
    powers = [f"{_text(p, 'name')} {_text(p, 'rating')}".strip() for p in root.findall("powers/power")]
    if powers:
        rep.skip("adept powers (their bonuses are applied only through the save's improvements): " + ", ".join(powers))
    for tag, label in (
        ("spells/spell", "spells"), ("complexforms/complexform", "complex forms"), ("spirits/spirit", "spirits"),
        ("foci/focus", "foci"), ("martialarts/martialart", "martial arts"), ("critterpowers/critterpower", "critter powers"),
        ("contacts/contact", "contacts"), ("vehicles/vehicle", "vehicles and drones"), ("drugs/drug", "drugs"),
        ("lifestyles/lifestyle", "lifestyles"), ("gears/gear", "gear items (top level)"),
        ("cyberwares/cyberware", "cyberware and bioware"),
    ):
        n = len(root.findall(tag))
        if n:
            rep.skip(f"{label}: {n}")


# -- the token and the encounter ----------------------------------------------------------------


def _slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:40].strip("-") or "character"


def import_chummer(
    path: str | Path, side: str = "runner", at: tuple[float, float] | None = None
) -> tuple[Token, ImportReport]:
    """Read a Chummer5a save and make a Shadowrun token of it.

    The token's id is made from the character's alias or name (``add_character`` makes it
    unique in an encounter); it stands at ``at`` (metres) or at (0, 0) when ``at`` is None.
    Raises :class:`ImportFileError` (file, XML place, reason) for a file that is not a
    readable Chummer save; anything the token cannot carry is listed in the report."""
    start = time.perf_counter()
    x, y = at if at is not None else (0.0, 0.0)
    if not (math.isfinite(x) and math.isfinite(y)):
        raise CoverfireError(f"position ({x}, {y}) is not a finite point")
    with guarded(str(path), "the Chummer save"):
        char, rep = parse_chummer(path)
        token = char.to_token(ident=_slug(char.name), side=side or "runner", x=float(x), y=float(y))
    return token, rep.build(time.perf_counter() - start)


__all__ = [
    "ArmorPiece", "ChummerCharacter", "add_character", "free_spot", "import_chummer", "parse_chummer",
    "placement_problem", "read_chummer_xml",
]
