"""Shadowrun 4th edition saves (Chummer 4, "ChummerGen SR4": ``.chum``) read as far as they
map onto the sr5 sheet.

Chummer 4 writes ``<gameedition>SR4</gameedition>``; its older releases write no edition at
all, and then the save still tells: armour as ``<b>`` (Ballistic) and ``<i>`` (Impact) in
place of Chummer5's one ``<armor>``, and items whose ``<source>`` is ``SR4``
(:func:`edition_of`). Chummer5a itself refuses such a save ("intended to be used with
Shadowrun 4th Edition"); Coverfire imports what means the same in both editions and names
the rest in the report (:data:`DIFFERENCES`, docs/importing.md "Shadowrun 4 saves"):

- the same: attributes (``totalvalue``), metatype, active skills by name and rating, damage
  taken, walk and run (SR4 gives them in metres, ``<movement>10/25, Swim 6</movement>``);
- read across: armour is the **Ballistic** rating as Chummer 4 totals it
  (``Character.TotalBallisticArmorRating``: the best armour that is no "+N" item and no
  Form-Fitting, the "+N" items that are no clothing added, "+N" clothing together in its place
  when higher, then ``BallisticArmor`` improvements); SR4's second value, Impact, is named
  in the report and not used (SR5 has one armour value); extra Initiative Passes
  (``InitiativePass``) become extra Initiative Dice, as SR5 turned Wired Reflexes' passes
  into dice;
- kept as SR4 wrote them, with a warning: weapon damage, AP, recoil, ranges; SR4 weapons
  have no Accuracy, so their attacks have no limit.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

EDITION = "SR4"

#: What differs between an SR4 save and the sr5 sheet it becomes, as the report says it.
DIFFERENCES = (
    "the same in both: attributes, metatype, active skills by name and rating, damage taken, "
    "walk and run (the save's own metres)",
    "read across: armour is the SR4 Ballistic rating (SR4 has Ballistic and Impact, SR5 one value; "
    "SR5's armour values run higher), extra Initiative Passes are extra Initiative Dice",
    "kept as SR4 wrote them (check them against SR5's): weapon damage, AP, recoil and ranges; SR4 "
    "weapons have no Accuracy, so their attacks have no limit",
)

_MOVEMENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)")


def _t(node: ET.Element | None, tag: str) -> str:
    if node is None:
        return ""
    return (node.findtext(tag) or "").strip()


def _n(text: str) -> int:
    try:
        v = float(text.lstrip("+") or 0)
    except ValueError:
        return 0
    return int(v) if math.isfinite(v) and abs(v) < 1e6 else 0


def edition_of(root: ET.Element) -> tuple[str, tuple[str, ...]]:
    """(the edition the save is for, what in it says so). ``gameedition`` when the save has
    one ("SR5", "SR4"); without it, "SR4" when the armour is written as Ballistic/Impact or
    an item's source is the SR4 core book, else "SR5" (Chummer5's older saves)."""
    given = _t(root, "gameedition")
    if given:
        return given.upper(), (f"<gameedition>{given}</gameedition>",)
    signs = []
    armours = root.findall("armors/armor")
    if any(a.find("b") is not None and a.find("armor") is None for a in armours):
        signs.append("armour as Ballistic/Impact (<b>/<i>), not one <armor> value")
    if any((s.text or "").strip() == "SR4" for s in root.iter("source")):
        signs.append("items from the SR4 core book (<source>SR4</source>)")
    if signs:
        signs.insert(0, "no <gameedition>")
        return EDITION, tuple(signs)
    return "SR5", ()


def armor(root: ET.Element, improvements, source=lambda imp: "an improvement") -> tuple[int, tuple[str, ...], int]:
    """(Ballistic total, its parts, Impact total) as Chummer 4 totals them
    (``TotalBallisticArmorRating`` / ``TotalImpactArmorRating``): each armour's value plus
    its equipped mods' minus its damage (``bdamage``/``idamage``); the best that is no "+N"
    item and no Form-Fitting; "+N" items that are no clothing added; "+N" clothing together
    when higher than the best; then ``BallisticArmor`` / ``ImpactArmor`` improvements
    (:func:`counted`, named by ``source(improvement)``)."""
    totals = {}
    for key, tag, damage, imp_kind in (("b", "b", "bdamage", "BallisticArmor"), ("i", "i", "idamage", "ImpactArmor")):
        best, best_name = 0, None
        stacking: list[tuple[str, int]] = []
        clothing: list[tuple[str, int]] = []
        for a in root.findall("armors/armor"):
            if _t(a, "equipped").lower() not in ("", "true"):
                continue
            text = _t(a, tag)
            mods = sum(_n(_t(m, tag)) for m in a.findall("armormods/armormod")
                       if _t(m, "equipped").lower() in ("", "true"))
            value = _n(text) + mods - _n(_t(a, damage))
            name = _t(a, "name") or "armour"
            if text.startswith("+"):
                (clothing if _t(a, "category") == "Clothing" else stacking).append((name, value))
            elif not name.startswith("Form-Fitting") and value > best:
                best, best_name = value, name
        parts = [f"{best_name} {best}"] if best_name else []
        cloth = sum(v for _n_, v in clothing)
        if clothing and cloth > best:
            best = cloth
            parts = [f"{n} +{v}" for n, v in clothing]
        total = best + sum(v for _n_, v in stacking)
        parts += [f"{n} +{v}" for n, v in stacking]
        for val, imp in counted(improvements, imp_kind):
            total += val
            parts.append(f"{source(imp)} {val:+d}")
        totals[key] = (max(0, total), tuple(parts))
    (ballistic, parts), (impact, _) = totals["b"], totals["i"]
    return ballistic, parts, impact


def counted(improvements, kind: str) -> list[tuple[int, ET.Element]]:
    """The (value, improvement) of each ``kind`` improvement that counts, as Chummer 4's
    ``ImprovementManager.ValueOf`` adds them: all without a ``unique`` name, and of those
    sharing one only the highest (two cyberarms' armour, "cearmor", count once)."""
    plain: list[tuple[int, ET.Element]] = []
    best: dict[str, tuple[int, ET.Element]] = {}
    for k, val, imp in improvements:
        if k != kind or not val:
            continue
        u = _t(imp, "unique")
        if not u:
            plain.append((val, imp))
        elif u not in best or val > best[u][0]:
            best[u] = (val, imp)
    return plain + list(best.values())


def movement(root: ET.Element) -> tuple[float, float] | None:
    """(walk, run) metres per Combat Turn from SR4's ``<movement>`` ("10/25, Swim 6"); None
    when the save has none that reads so."""
    m = _MOVEMENT.match(_t(root, "movement"))
    if not m:
        return None
    walk, run = float(m.group(1)), float(m.group(2))
    if not (0 < walk <= 1000 and 0 < run <= 1000):
        return None
    return walk, run
