"""The real Chummer saves in ../shared/outside (MANIFEST.txt names each source) still import.

Skipped when ../shared/outside is not beside this checkout; nothing is copied into the
project. Issue 28 items 6-8 are checked on the saves that showed them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ImportFileError
from engine.importers.detect import import_file

OUTSIDE = Path(__file__).resolve().parents[3].parent / "shared" / "outside"
FOLDERS = ("chummer", "chummer-sr4", "chummer-synthetic")
#: Saves refused on purpose: an A.I. has no body (docs/importing.md).
REFUSED = {"Bland McHuman.chum5": "is an A.I."}


def _saves() -> list[Path]:
    return sorted(p for f in FOLDERS if (OUTSIDE / f).is_dir() for p in (OUTSIDE / f).iterdir()
                  if p.suffix in (".chum5", ".chum", ".chum5lz"))


@pytest.fixture
def outside() -> Path:
    if not (OUTSIDE / "chummer").is_dir():
        pytest.skip("../shared/outside is not beside this checkout")
    return OUTSIDE


def test_every_real_save_imports_or_is_refused_for_its_reason(outside):
    saves = _saves()
    assert len(saves) >= 30
    for p in saves:
        if p.name in REFUSED:
            with pytest.raises(ImportFileError, match=REFUSED[p.name]):
                import_file(p, expect="character")
            continue
        res = import_file(p, expect="character")
        sheet = res.token.rules["sr5"]
        assert sheet.agility > 0 and sheet.armor >= 0, p.name


def test_critter_body_armor_rating_6_is_armour_6(outside):
    res = import_file(outside / "chummer" / "Mittens Chargen.chum5", expect="character")
    assert res.token.rules["sr5"].armor == 6
    assert "armour 6 (Critter Body Armor 6)" in res.report.summary


@pytest.mark.parametrize("name", ["Glessner.chum5", "Monomax (approved) 3.chum5", "Pañcama.chum5"])
def test_no_flash_pak_becomes_a_smoke_grenade(outside, name):
    res = import_file(outside / "chummer" / name, expect="character")
    assert not any("Flash-Pak" in w.name for w in res.token.weapons)
    assert any("Flash-Pak" in w.message and "flash-pak" in w.message for w in res.report.warnings)


@pytest.mark.parametrize("name", ["Street Samurai.chum", "Combat Mage.chum", "Drone Rigger.chum",
                                  "Gunslinger Adept.chum", "Hacker.chum"])
def test_chummer_4_saves_say_they_are_sr4_and_wear_their_armour(outside, name):
    res = import_file(outside / "chummer-sr4" / name, expect="character")
    assert any("Shadowrun 4th edition" in w.message for w in res.report.warnings)
    assert res.token.rules["sr5"].armor >= 6  # each wears an SR4 vest, coat or jacket (Ballistic 6-8)
