"""Grenades and minigrenades in a Chummer save, as weapons that say what they carry.

Chummer writes a grenade's damage as text with its blast: ``16P (-2/m)`` (16 Physical,
-2 DV a metre), ``18P(f) (-1/m)`` (flechette), ``10S (10m Radius)`` (the same DV over 10 m),
``(10m Radius)`` or ``Chemical (10m Radius)`` (no damage of its own: smoke, gas). The kind
(:data:`engine.model.BlastKind`) comes from the name after ``Grenade:`` / ``Minigrenade:``,
else from the damage (a falloff with ``(f)``: fragmentation; a falloff: high explosive; a
radius with Stun damage: flash-bang; a radius alone: smoke), with a warning for a guess.
A grenade whose damage says nothing of a blast ("Special") has none: it is never guessed
to be smoke.

A **flash-pak** (``Grenade: Flash-Pak``, damage "Special") is no blast at all: a strobe
that dazzles whoever faces it (a glare penalty on what they see, less with flare
compensation; SR5 p. 435). The sr5 rules have no kind for it (their blasts are
fragmentation, high explosive, flash-bang, gas and smoke, sr5-facts.md "Grenades and
blasts", and the environment's glare is one setting for the whole map), so
:func:`unsupported_device` names it and the importer reports it instead of making it a
weapon.

Minigrenades are ammunition in Chummer: the save lists each kind as a weapon of its own
(``Minigrenade: Fragmentation``, accuracy 0, range "Grenade Launchers"). They are loaded into
the character's grenade launcher instead (:func:`load_launchers`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CODE = re.compile(
    r"^\s*(?P<code>(?:\d+|\(STR[+-]\d+\))[PS](?:\s*\([a-z]+\))?)?\s*"
    r"(?:(?P<word>[A-Za-z][A-Za-z -]*?)\s*)?"
    r"(?:\(\s*(?P<fall>[+-]?\d+)\s*/\s*m\s*\))?\s*"
    r"(?:\(\s*(?P<rad>\d+(?:\.\d+)?)\s*m\s+Radius\s*\))?\s*$",
    re.IGNORECASE,
)

#: Words in a grenade's name -> the blast kind it carries (first match wins).
NAME_KINDS = (
    ("fragmentation", "fragmentation"),
    ("frag", "fragmentation"),
    ("high explosive", "high_explosive"),
    ("high-explosive", "high_explosive"),
    ("flash-bang", "flash_bang"),
    ("flash bang", "flash_bang"),
    ("flashbang", "flash_bang"),
    ("smoke", "smoke"),
    ("gas", "gas"),
)
GRENADE_PREFIXES = ("grenade:", "minigrenade:")


@dataclass(frozen=True)
class Blast:
    """A grenade's blast as the save gives it: ``kind``, the damage code at the centre
    (``"16P"``, ``"18P(f)"``; None: no damage), ``falloff`` DV lost a metre (0: none),
    ``radius`` in metres (None: as far as the DV lasts), ``guessed`` when the kind came from
    the damage rather than the name."""

    kind: str
    damage: str | None
    falloff: int
    radius: float | None
    guessed: bool = False

    def describe(self) -> str:
        parts = [self.kind.replace("_", " ")]
        parts.append(self.damage or "no damage of its own")
        if self.falloff:
            parts.append(f"-{self.falloff}/m")
        if self.radius is not None:
            parts.append(f"{self.radius:g} m radius")
        return ", ".join(parts)


#: Words in a name that make it a flash device (a flash-pak), which has no blast to model.
FLASH_DEVICE_WORDS = ("flash-pak", "flash pak", "flashpak")


def unsupported_device(name: str) -> str | None:
    """What a grenade-like item the sr5 rules cannot model is, in words (None for any
    other): a flash-pak is a strobe that dazzles those facing it, not a cloud or a blast."""
    low = name.lower()
    if any(w in low for w in FLASH_DEVICE_WORDS):
        return ("a flash-pak: a strobe that dazzles whoever faces it (a glare penalty on what they see, "
                "less with flare compensation; SR5 p. 435), not a blast or a cloud")
    return None


def is_grenade_name(name: str) -> bool:
    return name.strip().lower().startswith(GRENADE_PREFIXES)


def is_minigrenade(name: str, category: str, range_table: str) -> bool:
    """A minigrenade (launcher ammunition listed as a weapon)."""
    return name.strip().lower().startswith("minigrenade") or (category == "Gear" and range_table == "Grenade Launchers")


def blast_of(name: str, damage: str) -> Blast | None:
    """The blast of a grenade called ``name`` whose save damage is ``damage``; None when the
    damage text has no blast in it and the name is no grenade's."""
    m = _CODE.match(damage or "")
    low = name.lower()
    kind = next((k for word, k in NAME_KINDS if word in low), None)
    if m is None:
        if kind is None:
            return None
        return Blast(kind, None, 0, None)
    code = m.group("code").replace(" ", "") if m.group("code") else None
    fall = abs(int(m.group("fall"))) if m.group("fall") else 0
    radius = float(m.group("rad")) if m.group("rad") else None
    if not (fall or radius is not None or is_grenade_name(name)):
        return None  # an ordinary damage code
    word = (m.group("word") or "").lower()
    if kind is None and not (code or fall or radius is not None or word.startswith("chem")):
        return None  # "Special" or nothing: no blast the text names (never guessed to be smoke)
    guessed = False
    if kind is None:
        guessed = True
        if fall:
            kind = "fragmentation" if code and "(f)" in code else "high_explosive"
        elif code and code.rstrip(")").split("(")[0].endswith("S"):
            kind = "flash_bang"
        elif word.startswith("chem"):
            kind = "gas"
        else:
            kind = "smoke"
    return Blast(kind, code, fall, radius, guessed)
