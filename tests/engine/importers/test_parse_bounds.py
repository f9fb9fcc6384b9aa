"""Issue 25 item 5: bombs under the file-size caps. What a parse may build is bounded, not
only the file's size: a Chummer save's XML elements and attributes are counted while it is
parsed, and a JSON file's values (counted by its commas and brackets) before it is parsed;
past a bound the file is refused with the bound named."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

from engine import limits
from engine.errors import EncounterFileError, ImportFileError
from engine.files import load_encounter
from engine.importers import chummer_file, uvtt
from engine.importers.chummer import import_chummer
from engine.importers.detect import import_file

ROOT = Path(__file__).resolve().parents[3]


def _chum5lz(tmp_path: Path, body: bytes) -> Path:
    xml = b'<?xml version="1.0" encoding="utf-8"?><character><name>Bomb</name>' + body + b"</character>"
    p = tmp_path / "bomb.chum5lz"
    p.write_bytes(lzma.compress(xml, format=lzma.FORMAT_ALONE))
    return p


def test_a_small_chum5lz_of_many_elements_is_refused_while_parsing(tmp_path):
    p = _chum5lz(tmp_path, b"<gear/>" * (chummer_file.MAX_ELEMENTS + 10))
    assert p.stat().st_size < 100_000
    with pytest.raises(ImportFileError) as e:
        import_chummer(p)
    assert f"more than {chummer_file.MAX_ELEMENTS:,} elements" in str(e.value) and "bomb.chum5lz" in str(e.value)


def test_what_a_refused_parse_built_is_let_go_at_once_not_at_a_full_collection():
    # (the pure-Python parser defusedxml uses and its expat parser refer to each other: the
    # 500,000 elements of a refused bomb waited for a full garbage collection, and a fuzz
    # worker read the next bomb on top of them: "memory from earlier cases", 2606:bomb)
    import gc

    for raw in (b"<a>" + b"<b/>" * 40_000 + b"<c>" * 70,  # a bound passed (the depth) after 40,000 elements
                b"<a>" + b"<b/>" * 40_000 + b"<c></a>"):  # broken at its end
        gc.collect()
        with pytest.raises(ImportFileError):
            chummer_file.parse_xml(raw, "bomb.chum5")
        assert gc.collect() < 4_000  # (was 40,000 and more: the elements, freed only by the collector)


def test_many_elements_are_refused_before_parsing(monkeypatch):
    from defusedxml import ElementTree as DET

    parsed = []
    monkeypatch.setattr(chummer_file, "iterparse", lambda *a, **k: parsed.append(1) or DET.iterparse(*a, **k))
    body = b"<gear/>" * 1000 + b"<!-- <not a tag> --><?pi x?>" + b"<a></a>" * 1000
    root = chummer_file.parse_xml(b"<character>" + body + b"</character>", "many.chum5")
    assert len(root) == 2000 and parsed == [1]  # (under: parsed)
    with pytest.raises(ImportFileError) as e:
        chummer_file.parse_xml(b"<character>" + b"<gear/>" * chummer_file.MAX_ELEMENTS + b"</character>", "many.chum5")
    assert f"more than {chummer_file.MAX_ELEMENTS:,} elements ({chummer_file.MAX_ELEMENTS + 1:,} start tags" in str(e.value)
    assert parsed == [1]  # (not parsed)


def test_many_attributes_are_refused_too(tmp_path):
    attrs = b" ".join(b'a%d="1"' % i for i in range(1000))
    p = _chum5lz(tmp_path, (b"<gear " + attrs + b"/>") * (chummer_file.MAX_ATTRIBUTES // 1000 + 1))
    with pytest.raises(ImportFileError, match=f"more than {chummer_file.MAX_ATTRIBUTES:,} attributes"):
        import_chummer(p)


def test_an_encounter_listing_too_many_values_is_refused_before_parsing(tmp_path):
    d = json.loads((ROOT / "assets" / "encounters" / "demo.json").read_text(encoding="utf-8"))
    text = json.dumps(d)[:-1] + ', "other_tool": [' + "[0,0]," * (limits.MAX_JSON_ITEMS // 3 + 10) + "[0,0]]}"
    p = tmp_path / "pairs.json"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(EncounterFileError) as e:
        load_encounter(p)
    assert f"at most {limits.MAX_JSON_ITEMS:,} are read" in str(e.value) and "pairs.json" in str(e.value)


def test_a_long_list_of_numbers_another_tool_keeps_is_checked_at_once(tmp_path):
    d = json.loads((ROOT / "assets" / "encounters" / "demo.json").read_text(encoding="utf-8"))
    d["other_tool"] = [[i * 0.5, i * 0.25] for i in range(1000)] + [[1e300, 0]]
    p = tmp_path / "other.json"
    p.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(EncounterFileError, match=r"\$\.other_tool\[1000\]\[0\]"):
        load_encounter(p)  # (the fast check found a fault: walked to name it)
    d["other_tool"] = d["other_tool"][:-1]
    p.write_text(json.dumps(d), encoding="utf-8")
    assert load_encounter(p).model_extra["other_tool"][999] == [499.5, 249.75]


@pytest.mark.parametrize("suffix", [".dd2vtt", ".uvtt"])
def test_a_map_listing_too_many_values_is_refused_before_parsing(tmp_path, suffix):
    text = ('{"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 3}, '
            '"pixels_per_grid": 1}, "line_of_sight": [[' + '{"x":0,"y":0},' * (uvtt.MAX_JSON_ITEMS // 3 + 10)
            + '{"x":1,"y":1}]]}')
    p = tmp_path / ("big" + suffix)
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ImportFileError, match=f"at most {uvtt.MAX_JSON_ITEMS:,} are read"):
        uvtt.import_uvtt(p)
    with pytest.raises(ImportFileError, match="are read"):
        import_file(p)


def test_a_foundry_scene_listing_too_many_values_is_refused(tmp_path):
    from engine.importers.foundry import import_foundry

    text = '{"name": "s", "width": 100, "height": 100, "grid": 100, "walls": [' + "0," * limits.MAX_JSON_ITEMS + "0]}"
    p = tmp_path / "scene.json"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ImportFileError, match="are read"):
        import_foundry(p)


def test_another_tools_big_data_is_not_kept_but_said(tmp_path):
    """A map's unknown field of 200,000 pairs is left out of what the import keeps (it was
    cleaned, saved and read back in every import), with a warning at its path; the small
    unknown fields are kept."""
    from engine.importers.storable import MAX_KEPT_VALUES
    from tests.engine.importers.test_uvtt import _map, _write

    data = _map(big=[[0, 0]] * (MAX_KEPT_VALUES // 2), small={"a": 1})
    enc, rep = uvtt.import_uvtt(_write(tmp_path, data))
    assert enc.imported["unknown_fields"] == {"small": {"a": 1}}
    said = [w for w in rep.warnings if w.where == "$.big"]
    assert len(said) == 1 and f"more than {MAX_KEPT_VALUES:,} values" in said[0].message
