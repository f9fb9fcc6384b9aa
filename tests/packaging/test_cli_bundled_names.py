"""``coverfire analyze demo``: an installed Coverfire names its bundled demos by name."""

from __future__ import annotations

import json

from gui.cli import main


def test_analyze_demo_reads_the_bundled_demo(tmp_path, monkeypatch, capsys, demo_path):
    monkeypatch.chdir(tmp_path)
    assert main(["analyze", "demo", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    tokens = json.loads(demo_path.read_text())["tokens"]
    assert [r["attacker"] for r in out] == [t["id"] for t in tokens]
    assert len(out[0]["targets"]) == len(tokens) - 1


def test_a_file_of_that_name_here_wins(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "demo").write_text("{broken")
    assert main(["analyze", "demo"]) == 2
    assert "demo" in capsys.readouterr().err


def test_an_unknown_name_is_still_no_such_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["analyze", "demo-nowhere"]) == 2
    assert capsys.readouterr().err == "coverfire: demo-nowhere: no such file\n"
