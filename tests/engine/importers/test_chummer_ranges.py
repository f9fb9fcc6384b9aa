"""Issue 25 item 8 (Chummer): an attribute outside the 0-50 a sheet holds is brought into
range *and said*: the report warns with the save's value and the imported one, and its
attribute note gives what the sheet holds (before, STR -1 became 0 and AGI 60 became 50
while the report said "AGI 60, STR -1")."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from engine.importers.chummer import import_chummer

WESSON = "chummer/Wesson.chum5"


def _with(samples_dir, tmp_path, **values) -> object:
    root = ET.parse(samples_dir / WESSON).getroot()
    for a in root.findall("attributes/attribute"):
        if a.findtext("name") in values:
            a.find("totalvalue").text = str(values[a.findtext("name")])
    p = tmp_path / "wesson-odd.chum5"
    p.write_bytes(ET.tostring(root))
    return p


@pytest.mark.parametrize("abbr, field, value, imported", [
    ("AGI", "agility", 60, 50), ("STR", "strength", -1, 0), ("LOG", "logic", 10 ** 6, 50)])
def test_an_attribute_out_of_range_is_said(samples_dir, tmp_path, abbr, field, value, imported):
    token, rep = import_chummer(_with(samples_dir, tmp_path, **{abbr: value}))
    assert getattr(token.rules.get("sr5"), field) == imported
    said = [w for w in rep.warnings if abbr in w.where]
    assert len(said) == 1 and f"is {value} in the save" in said[0].message and f"imported as {imported}" in said[0].message
    note = next(n for n in rep.summary if n.startswith("attributes "))
    assert f"{abbr} {imported}" in note and f"{abbr} {value}," not in note + ","


def test_an_agility_below_zero_is_still_refused_with_the_file(samples_dir, tmp_path):
    from engine.errors import ImportFileError

    with pytest.raises(ImportFileError, match="wesson-odd.chum5"):
        import_chummer(_with(samples_dir, tmp_path, AGI=-1))
