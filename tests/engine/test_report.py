"""``coverfire analyze`` through the real command entry point (gui.cli.main)."""

from __future__ import annotations

import json

import pytest

from gui.cli import main

ISSUE_EXAMPLE = {
    "format": "coverfire.encounter", "version": 1, "name": "Issue example", "ruleset": "sr5",
    "map": {"width": 60.0, "height": 40.0},
    "obstacles": [],
    "tokens": [
        {"id": "sam", "name": "Sam", "side": "runner", "x": 3.0, "y": 6.0,
         "weapons": [{"name": "Ares Predator V", "category": "heavy_pistol"}]},
        {"id": "ork-1", "name": "Ork", "side": "ganger", "x": 8.0, "y": 6.0},
    ],
    "zones": [{"id": "sup-1", "kind": "suppressive", "owner": "sam", "direction": 0,
               "length": 30, "width": 10}],
}


@pytest.fixture
def example(tmp_path):
    p = tmp_path / "example.json"
    p.write_text(json.dumps(ISSUE_EXAMPLE), encoding="utf-8")
    return p


def test_json_is_the_issue_example(example, capsys):
    # 5 m in the open with a heavy pistol (Short <= 5 m), inside Sam's suppressive triangle;
    # charge: back off 0.8 m then run 4 m (contact at 0.4 + 0.4 + 1 = 1.8 m): 4.8 m
    assert main(["analyze", str(example), "--attacker", "sam", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["attacker"] == "sam"
    assert data["targets"] == [{
        "id": "ork-1", "distance": 5.0,
        "range": {"band": "short", "modifier": 0},
        "cover": {"fraction": 0.0, "class": "none"},
        "zones": ["sup-1"],
        "charge": {"possible": True, "movement": 4.8, "path": [[3, 6], [2.2, 6], [6.2, 6]], "reason": None},
    }]


def test_table_by_default(example, capsys):
    assert main(["analyze", str(example), "--attacker", "sam"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("ork-1"))
    for cell in ("5.0", "short +0", "0% none", "sup-1", "4.8 m"):
        assert cell in line


def test_every_token_in_turn_without_attacker(example, capsys):
    assert main(["analyze", str(example), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["attacker"] for d in data] == ["sam", "ork-1"]
    back = data[1]["targets"][0]
    assert back["id"] == "sam" and back["range"] is None  # the ork has no weapon
    assert back["zones"] == []  # Sam owns the zone: not in it


def test_demo_report_shape_and_numbers(demo_path, capsys):
    assert main(["analyze", str(demo_path), "--attacker", "sam", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["targets"]) == 8
    for t in data["targets"]:
        assert set(t) >= {"id", "distance", "range", "cover", "zones", "charge"}
        assert 0.0 <= t["cover"]["fraction"] <= 1.0
        assert t["cover"]["class"] in {"none", "partial", "good", "full"}
        assert set(t["charge"]) >= {"possible", "movement", "path", "reason"}
    t = {x["id"]: x for x in data["targets"]}
    # centre to centre from Sam (12, 20): Nyx (10.5, 23.5) sqrt(1.5^2 + 3.5^2) = 3.808 m;
    # Razor (27, 17) sqrt(15^2 + 3^2) = 15.297 m; Tusk (41.5, 15.5) sqrt(29.5^2 + 4.5^2) = 29.841 m
    assert (t["nyx"]["distance"], t["ganger-1"]["distance"], t["ganger-4"]["distance"]) == (3.808, 15.297, 29.841)
    # the Ingram, a submachine gun: short to 10 m, medium to 40 m
    assert t["nyx"]["range"] == {"band": "short", "modifier": 0}
    assert all(x["range"] == {"band": "medium", "modifier": -1} for i, x in t.items() if i != "nyx")
    # Spike (36, 26) stands in the open; Tusk is inside Sam's suppressive fire
    assert t["ganger-2"]["cover"] == {"fraction": 0.0, "class": "none"} and t["ganger-4"]["zones"] == ["sup-1"]
    # Sam runs 24 m a Combat Turn (Agility 6 x 4): Tusk, about 28 m from contact, is too far
    assert not t["ganger-4"]["charge"]["possible"] and "too far" in t["ganger-4"]["charge"]["reason"]
    assert t["nyx"]["charge"]["possible"] and t["nyx"]["charge"]["path"][0] == [12, 20]


@pytest.mark.parametrize("argv,message", [
    (["--attacker", "bob"], "no token with id 'bob'"),
    (["--attacker", "sam", "--weapon", "Bazooka"], "carries no weapon named 'Bazooka'"),
    (["--weapon", "Ares Predator V"], "--weapon needs --attacker"),
])
def test_user_mistakes_exit_2_with_a_message(example, capsys, argv, message):
    assert main(["analyze", str(example), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_bad_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json", encoding="utf-8")
    assert main(["analyze", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "malformed JSON" in err
    assert main(["analyze", str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err
