"""Give the bundled demo's tokens Shadowrun 5e sheets, so a whole fight runs from it.

Loads ``assets/encounters/demo.json`` with :mod:`engine.files`, sets each token's ``sr5``
sheet (attributes, skills, armor, smartlink, initiative dice, ready weapon and mode), adds the
weapons of :data:`EXTRA_WEAPONS` a token does not carry yet (Brick's fragmentation grenades),
and the encounter's ``sr5`` settings (a dice seed, partial light), and writes it back with
:func:`engine.files.save_encounter`. Map, obstacles, token positions and zones are left as
they are (other tests measure them). Run again after editing the sheets below:

    python assets/encounters/make_sr5_demo_sheets.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.files import load_encounter, save_encounter  # noqa: E402
from engine.model import Weapon  # noqa: E402
from engine.sr5.sheet import Environment, Settings, Sheet  # noqa: E402

GANGER = dict(body=4, agility=4, reaction=3, strength=4, willpower=3, logic=2, intuition=3, charisma=2, edge=1,
              armor=9, skills={"pistols": 3, "automatics": 3, "longarms": 3, "blades": 2, "unarmed_combat": 3,
                               "gymnastics": 2, "perception": 2, "running": 2})

SHEETS: dict[str, dict] = {
    # street samurai: wired reflexes 1, cybereyes with smartlink and low-light
    "sam": dict(body=5, agility=6, reaction=6, strength=4, willpower=3, logic=3, intuition=4, charisma=2, edge=3,
                armor=12, smartlink="implant", vision=("low_light",), initiative_dice=2,
                skills={"automatics": 6, "pistols": 5, "longarms": 2, "blades": 3, "unarmed_combat": 3,
                        "gymnastics": 3, "perception": 3, "running": 3},
                modes={"Ingram Smartgun X": "BF"}),
    # elf infiltrator with a flechette shotgun, medium choke to match her spread on the map
    "nyx": dict(metatype="elf", body=3, agility=6, reaction=4, strength=3, willpower=4, logic=3, intuition=5,
                charisma=4, edge=4, armor=9, vision=("low_light",),
                skills={"longarms": 5, "pistols": 4, "gymnastics": 4, "perception": 5, "running": 3, "blades": 2},
                qualities=("agile_defender",), chokes={"Defiance T-250": "medium"}),
    # troll muscle: dermal plating in the armor
    "brick": dict(metatype="troll", body=9, agility=4, reaction=4, strength=8, willpower=4, logic=2, intuition=3,
                  charisma=2, edge=2, armor=15, initiative_bonus=0,
                  skills={"automatics": 4, "throwing_weapons": 3, "blades": 4, "unarmed_combat": 5,
                          "running": 2, "perception": 2},
                  modes={"AK-97": "SA"}, qualities=("ambidextrous",)),
    "ganger-1": dict(GANGER),  # Razor, light pistol
    "ganger-2": dict(GANGER, body=5, strength=5, skills={**GANGER["skills"], "longarms": 4}),  # Spike, shotgun
    "ganger-3": dict(GANGER, agility=5, smartlink="gear", skills={**GANGER["skills"], "pistols": 4}),  # Lupe
    "ganger-4": dict(GANGER, body=6, strength=6, reaction=4, armor=12, edge=2,  # Tusk, the boss
                     skills={**GANGER["skills"], "automatics": 5}, modes={"AK-97": "BF"}),
    "ganger-5": dict(GANGER, body=3, agility=5, reaction=4),  # Mouse, prone lookout
    "ganger-6": dict(GANGER, agility=5, reaction=4, smartlink="gear",  # Vex, SMG
                     skills={**GANGER["skills"], "automatics": 4}, modes={"Ingram Smartgun X": "BF"}),
}

#: Weapons added after a token's own (kept when already there): Brick carries two
#: fragmentation grenades (18P(f) AP +5, -1 DV per metre; engine/sr5/blast.py).
EXTRA_WEAPONS: dict[str, tuple[Weapon, ...]] = {
    "brick": (Weapon(name="Frag grenade", category="standard_grenade", blast="fragmentation", loaded=2),),
}

SETTINGS = Settings(environment=Environment(light="partial"), seed=2075)


def main(path: Path | None = None) -> Path:
    path = path or ROOT / "assets" / "encounters" / "demo.json"
    enc = load_encounter(path)
    tokens = []
    for t in enc.tokens:
        data = SHEETS.get(t.id)
        if data is not None:
            t = t.with_rules("sr5", Sheet(**data))
        have = {w.name for w in t.weapons}
        extra = tuple(w for w in EXTRA_WEAPONS.get(t.id, ()) if w.name not in have)
        if extra:
            t = t.model_copy(update={"weapons": t.weapons + extra})
        tokens.append(t)
    new = enc.model_copy(update={"tokens": tuple(tokens), "ruleset": "sr5"}).with_rules("sr5", SETTINGS)
    new = type(new).model_validate(new.model_dump(mode="python", round_trip=True))
    for a, b in zip(enc.tokens, new.tokens):  # positions stay as they were
        assert (a.id, a.x, a.y, a.radius, a.stance, a.facing) == (b.id, b.x, b.y, b.radius, b.stance, b.facing)
    assert new.obstacles == enc.obstacles and new.zones == enc.zones and new.map == enc.map
    save_encounter(new, path)
    return path


if __name__ == "__main__":
    print(f"wrote {main()}")
