"""Chummer5a reference data the importer needs: active skill ids and range table names.

Chummer saves name a skill by its id in Chummer's own skill list (``data/skills.xml`` of the
Chummer5a project, ``<skill><id>``), not by name. This table maps those ids to the skill's
name, linked attribute, category and skill group (a table of facts, typed here from the
data file; no code of Chummer's). Knowledge skills are saved with their names and need no
table.
"""

from __future__ import annotations

from typing import NamedTuple


class SkillInfo(NamedTuple):
    name: str
    attribute: str
    category: str
    group: str | None


def _s(name: str, attribute: str, category: str, group: str | None = None) -> SkillInfo:
    return SkillInfo(name, attribute, category + " Active", group)


#: Chummer5a active skill id -> (name, attribute, category, skill group).
SKILLS: dict[str, SkillInfo] = {
    "b52f7575-eebf-41c4-938d-df3397b5ee68": _s("Aeronautics Mechanic", "LOG", "Technical", "Engineering"),
    "fc89344f-daa6-438e-b61d-23f10dd13e44": _s("Alchemy", "MAG", "Magical", "Enchanting"),
    "e09e5aa7-e496-41a2-97ce-17f577361888": _s("Animal Handling", "CHA", "Technical"),
    "74a68a9e-8c5b-4998-8dbb-08c1e768afc3": _s("Arcana", "LOG", "Pseudo-Magical"),
    "1537ca5c-fa93-4c05-b073-a2a0eed91b8e": _s("Archery", "AGI", "Combat"),
    "ada6d9b2-e451-4289-be45-7085fa34a51a": _s("Armorer", "LOG", "Technical"),
    "955d9376-3066-469d-8670-5170c1d59020": _s("Artificing", "MAG", "Magical", "Enchanting"),
    "2f4c706f-5ac5-4774-8a45-3b4667989a20": _s("Artisan", "INT", "Technical"),
    "59318078-e071-411b-9194-7222560e9f4a": _s("Assensing", "INT", "Magical"),
    "b7599a42-ceed-4558-b357-865aa3e317f5": _s("Astral Combat", "WIL", "Magical"),
    "788b387b-ee41-4e6a-bf22-481a8cc4cf9f": _s("Automatics", "AGI", "Combat", "Firearms"),
    "5e5f2f7f-f63b-4f65-a65d-91b3d4523c6f": _s("Automotive Mechanic", "LOG", "Technical", "Engineering"),
    "9a2d9175-d445-45ca-842d-90223ad13f05": _s("Banishing", "MAG", "Magical", "Conjuring"),
    "dfba7c09-3d95-43fd-be75-39b3e8b22cd3": _s("Binding", "MAG", "Magical", "Conjuring"),
    "ba624682-a5c0-4cf5-b47b-1021e6a1800d": _s("Biotechnology", "LOG", "Technical", "Biotech"),
    "48763fa5-4b89-48c7-80ff-d0a2761de4c0": _s("Blades", "AGI", "Combat", "Close Combat"),
    "bd4d977a-cbd4-4289-99bb-896caed6786a": _s("Chemistry", "LOG", "Technical"),
    "cd9f6bf7-fa48-464b-9a8f-c7ce26713a72": _s("Clubs", "AGI", "Combat", "Close Combat"),
    "f338d383-ffd8-4ff8-b99b-cf4c2ed1b159": _s("Compiling", "RES", "Resonance", "Tasking"),
    "1c14bf0d-cc69-4126-9a95-1f2429c11aa5": _s("Computer", "LOG", "Technical", "Electronics"),
    "6d7f48d3-84a1-4fce-90d3-58d566f70fa6": _s("Con", "CHA", "Social", "Acting"),
    "3db81bcc-264b-47e1-847c-06bdacd88973": _s("Counterspelling", "MAG", "Magical", "Sorcery"),
    "7143f979-aa48-4cc8-a29c-e010400e6e11": _s("Cybercombat", "LOG", "Technical", "Cracking"),
    "9b386fe5-83b3-436f-9035-efd1c0f7a680": _s("Cybertechnology", "LOG", "Technical", "Biotech"),
    "64eed2e9-e61c-4cba-81d4-18a612cf2df6": _s("Decompiling", "RES", "Resonance", "Tasking"),
    "276877e1-5cdf-4e95-befd-13c1abb5ae02": _s("Demolitions", "LOG", "Technical"),
    "a9d9b686-bc4a-4347-b011-ff8f41455965": _s("Disenchanting", "MAG", "Magical", "Enchanting"),
    "9b2416b2-3e2b-4dd6-ab9d-530f493c1c22": _s("Disguise", "INT", "Physical", "Stealth"),
    "23c3320c-5010-4b2e-ac46-76f0a86af0b9": _s("Diving", "BOD", "Physical"),
    "2c8e5f20-e52d-4844-89e9-51b92dba47df": _s("Electronic Warfare", "LOG", "Technical", "Cracking"),
    "3f93335c-49d6-4904-a97e-4c942ab05b59": _s("Escape Artist", "AGI", "Physical"),
    "b20acd11-f102-40f3-a641-e3c420fbdb91": _s("Etiquette", "CHA", "Social", "Influence"),
    "a1366ec2-772d-4f08-8c65-5f79464d975b": _s("Exotic Melee Weapon", "AGI", "Combat"),
    "88ee65ba-c797-4f9c-91fe-39bc43b0f9c8": _s("Exotic Ranged Weapon", "AGI", "Combat"),
    "b5f95b50-e630-4162-a6a4-7dd6ab8d0256": _s("Pilot Exotic Vehicle", "REA", "Vehicle"),
    "47cb1e8b-c285-4c54-9aaa-75305ad6dd4f": _s("First Aid", "LOG", "Technical", "Biotech"),
    "27db6e2a-a49f-4232-b150-e676b8dacb52": _s("Flight", "AGI", "Physical", "Athletics"),
    "c9f52f97-a284-44a7-8af6-802dd3ed554f": _s("Forgery", "LOG", "Technical"),
    "f510ccc3-cf95-4461-b2f7-e966daaa5a91": _s("Free-Fall", "BOD", "Physical"),
    "58452cff-44ea-41c6-a554-28a869149b27": _s("Gunnery", "AGI", "Vehicle"),
    "a9fa961d-07e5-46da-8edc-403ae3e6cc75": _s("Gymnastics", "AGI", "Physical", "Athletics"),
    "c2bb65f5-4a6b-49bf-9925-ef6434cb6929": _s("Hacking", "LOG", "Technical", "Cracking"),
    "41e184e0-7273-403a-9300-fa29a1707bf0": _s("Hardware", "LOG", "Technical", "Electronics"),
    "64841e6e-9487-4b63-80a1-dcad6eb78179": _s("Heavy Weapons", "AGI", "Combat"),
    "e7e5a43f-9762-4863-86dc-3fd7799e53a2": _s("Impersonation", "CHA", "Social", "Acting"),
    "935621c5-d384-42f2-a740-1fa349fa85a1": _s("Industrial Mechanic", "LOG", "Technical", "Engineering"),
    "3b34b209-00be-42b8-b4ac-cc7dea08af8a": _s("Instruction", "CHA", "Social"),
    "9de43fad-b365-4e73-bc06-91dd571b858a": _s("Intimidation", "CHA", "Social"),
    "963a548d-c629-4a13-a3e3-31b085a42e20": _s("Leadership", "CHA", "Social", "Influence"),
    "09fbc992-9fad-4f2d-ab56-725bac943dc6": _s("Locksmith", "AGI", "Technical"),
    "64088b25-de37-4d71-8800-4a430fde08af": _s("Longarms", "AGI", "Combat", "Firearms"),
    "938be691-4b3d-49a2-a673-bbf9924ce8f0": _s("Medicine", "LOG", "Technical", "Biotech"),
    "48cc79be-f75e-4fe6-8721-7864c9f231f6": _s("Nautical Mechanic", "LOG", "Technical", "Engineering"),
    "f8037e7f-d48b-452b-8f66-2e0c36677fea": _s("Navigation", "INT", "Technical", "Outdoors"),
    "729c9cee-ef8f-492d-aa7f-17ec1bc3816e": _s("Negotiation", "CHA", "Social", "Influence"),
    "17fbaafa-8dbb-4f29-9244-5ae1cd4ac42f": _s("Palming", "AGI", "Physical", "Stealth"),
    "04e1eb3e-e82d-485b-a7fd-1e677df2a070": _s("Perception", "INT", "Physical"),
    "53f96d6a-363b-4c14-be1d-68e74930c67b": _s("Performance", "CHA", "Social", "Acting"),
    "3ba9397e-f790-44ca-ae40-15a2356e348d": _s("Pilot Aerospace", "REA", "Vehicle"),
    "10d5c887-a1e5-4cca-8613-3a28f1aab810": _s("Pilot Aircraft", "REA", "Vehicle"),
    "ae91a8a6-80e7-4f52-b9eb-21725a5528a4": _s("Pilot Ground Craft", "REA", "Vehicle"),
    "b8a24d87-465a-4365-9948-038fe1ac62c4": _s("Pilot Walker", "REA", "Vehicle"),
    "1579818e-af85-47cd-8c9f-2e86e9dc19da": _s("Pilot Watercraft", "REA", "Vehicle"),
    "adf31a50-b228-4e09-a09c-46ab9f5e59a1": _s("Pistols", "AGI", "Combat", "Firearms"),
    "3a38bbcf-38b0-435b-98f2-4ce8c50e8490": _s("Registering", "RES", "Resonance", "Tasking"),
    "a6287e62-6a3b-43ce-b6e0-20f3655910e2": _s("Ritual Spellcasting", "MAG", "Magical", "Sorcery"),
    "1531b2d8-6116-4be4-87b0-232dba1fc447": _s("Running", "STR", "Physical", "Athletics"),
    "9cff9aa7-d092-4f89-8b7b-3ab835818874": _s("Sneaking", "AGI", "Physical", "Stealth"),
    "b693f3bf-48dc-4570-9743-d94d14ee698b": _s("Software", "LOG", "Technical", "Electronics"),
    "c4367a39-4065-4b1d-aa62-e9dce377e452": _s("Spellcasting", "MAG", "Magical", "Sorcery"),
    "51e34c6c-b07f-45f4-8a5e-8f2b617ed32f": _s("Summoning", "MAG", "Magical", "Conjuring"),
    "89ee1730-053a-400f-a13a-4fbadae015f0": _s("Survival", "WIL", "Physical", "Outdoors"),
    "0dbcb9cd-f824-4b5d-a387-90d33318b04c": _s("Swimming", "STR", "Physical", "Athletics"),
    "867a6fa0-7d98-4cde-83a4-b33dd39de08e": _s("Throwing Weapons", "AGI", "Combat"),
    "7ed2f3e0-a791-4cb7-ba3e-ac785fdc3d7e": _s("Tracking", "INT", "Physical", "Outdoors"),
    "4fcd40cb-4b02-4b7e-afcb-f44d46cd5706": _s("Unarmed Combat", "AGI", "Combat", "Close Combat"),
}

#: The skills a token carries onto the map: Chummer name -> key in the sr5 sheet's ``skills``.
MAP_SKILLS: dict[str, str] = {
    "Pistols": "pistols",
    "Automatics": "automatics",
    "Longarms": "longarms",
    "Heavy Weapons": "heavy_weapons",
    "Exotic Ranged Weapon": "exotic_ranged_weapon",
    "Throwing Weapons": "throwing_weapons",
    "Archery": "archery",
    "Blades": "blades",
    "Clubs": "clubs",
    "Unarmed Combat": "unarmed_combat",
    "Exotic Melee Weapon": "exotic_melee_weapon",
    "Gymnastics": "gymnastics",
    "Running": "running",
    "Perception": "perception",
}

#: Chummer range table name (a weapon's ``range``, else its ``category``) -> Coverfire range
#: category (engine/ranges.py). Chummer's plain "Shotguns" table equals the slug table.
RANGE_CATEGORIES: dict[str, str] = {
    "Tasers": "taser",
    "Holdouts": "hold_out",
    "Light Pistols": "light_pistol",
    "Heavy Pistols": "heavy_pistol",
    "Machine Pistols": "machine_pistol",
    "Submachine Guns": "submachine_gun",
    "Carbines": "carbine",
    "Assault Rifles": "assault_rifle",
    "Shotguns": "shotgun_slug",
    "Shotguns (slug)": "shotgun_slug",
    "Shotguns (flechette)": "shotgun_flechette",
    "Sniper Rifles": "sniper_rifle",
    "Sporting Rifles": "sporting_rifle",
    "Light Machine Guns": "light_machine_gun",
    "Medium Machine Guns": "medium_machine_gun",
    "Heavy Machine Guns": "heavy_machine_gun",
    "Medium/Heavy Machinegun": "medium_machine_gun",
    "Assault Cannons": "assault_cannon",
    "Grenade Launchers": "grenade_launcher",
    "Missile Launchers": "missile_launcher",
    "Bows": "bow",
    "Light Crossbows": "light_crossbow",
    "Medium Crossbows": "medium_crossbow",
    "Heavy Crossbows": "heavy_crossbow",
    "Thrown Knife": "thrown_knife",
    "Throwing Knife": "thrown_knife",
    "Shuriken": "shuriken",
    "Standard Grenade": "standard_grenade",
    "Aerodynamic Grenade": "aerodynamic_grenade",
    "Flamethrowers": "flamethrower",
}

#: Chummer tables Coverfire has no category for: their bands (metres, or multiples of
#: Strength when ``per_strength``), kept as the weapon's own ``ranges``.
OWN_RANGES: dict[str, tuple[tuple[float, ...], bool]] = {
    "Harpoon Gun": ((5, 20, 40, 60), False),
    "Harpoon Gun (Underwater)": ((6, 24, 60, 120), False),
    "Net": ((0.5, 1, 1.5, 2.5), True),
}

#: Chummer weapon category -> the skill key it uses (when the weapon names no ``useskill``).
CATEGORY_SKILLS: dict[str, str] = {
    "Tasers": "pistols",
    "Holdouts": "pistols",
    "Light Pistols": "pistols",
    "Heavy Pistols": "pistols",
    "Machine Pistols": "automatics",
    "Submachine Guns": "automatics",
    "Carbines": "automatics",
    "Assault Rifles": "automatics",
    "Shotguns": "longarms",
    "Sniper Rifles": "longarms",
    "Sporting Rifles": "longarms",
    "Light Machine Guns": "heavy_weapons",
    "Medium Machine Guns": "heavy_weapons",
    "Heavy Machine Guns": "heavy_weapons",
    "Assault Cannons": "heavy_weapons",
    "Grenade Launchers": "heavy_weapons",
    "Missile Launchers": "heavy_weapons",
    "Bows": "archery",
    "Crossbows": "archery",
    "Throwing Weapons": "throwing_weapons",
    "Blades": "blades",
    "Clubs": "clubs",
    "Unarmed": "unarmed_combat",
    "Exotic Melee Weapons": "exotic_melee_weapon",
    "Exotic Ranged Weapons": "exotic_ranged_weapon",
    "Flamethrowers": "exotic_ranged_weapon",
    "Laser Weapons": "exotic_ranged_weapon",
}

#: Chummer quality name -> sr5 sheet quality key (the others are listed as not carried over).
QUALITIES: dict[str, str] = {
    "Ambidextrous": "ambidextrous",
    "Acrobatic Defender": "acrobatic_defender",
    "Agile Defender": "agile_defender",
    "Perceptive Defender": "perceptive_defender",
    "Too Pretty To Hit": "too_pretty_to_hit",
    "Too Pretty to Hit": "too_pretty_to_hit",
}

#: Words in the name of worn gear, cyberware or a weapon accessory -> sr5 sheet vision aid.
VISION_WORDS: tuple[tuple[str, str], ...] = (
    ("low-light", "low_light"),
    ("low light", "low_light"),
    ("thermographic", "thermographic"),
    ("flare compensation", "flare_compensation"),
    ("vision magnification", "image_magnification"),
    ("image magnification", "image_magnification"),
    ("ultrasound", "ultrasound"),
    ("improved range finder", "improved_rangefinder"),
    ("improved rangefinder", "improved_rangefinder"),
)

#: Natural vision of the metatypes (SR5 core).
METATYPE_VISION: dict[str, tuple[str, ...]] = {
    "elf": ("low_light",),
    "ork": ("low_light",),
    "dwarf": ("thermographic",),
    "troll": ("thermographic",),
}
