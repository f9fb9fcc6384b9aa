"""Placing an imported character: bounded free-spot search, warnings for a spot in a wall,
and the import commands in a pipe (issue #17 item 3, #15 item 5)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import IllegalActionError
from engine.files import save_encounter
from engine.importers.placing import MAX_CANDIDATES, add_character, free_spot, placement_problem
from engine.model import Encounter, MapSpec, Obstacle, Token

ROOT = Path(__file__).resolve().parents[3]
SQUARE = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))


def _box(ident, x0, y0, x1, y1, **kw):
    return Obstacle(id=ident, name=kw.pop("name", ident), height=3.0,
                    polygon=((x0, y0), (x1, y0), (x1, y1), (x0, y1)), **kw)


def test_free_spot_is_the_nearest_free_grid_point_to_the_centre():
    # 10 x 10 m map, a wall block 4..6 x 4..6 over the centre; disc radius 0.4.
    enc = Encounter(map=MapSpec(width=10, height=10), obstacles=(_box("w", 4, 4, 6, 6),))
    # The nearest 0.5 m grid points clear of the block by more than 0.4 m lie 1.5 m from the
    # centre on an axis: (5, 3.5) north first (y grows south).
    assert free_spot(enc, 0.4) == (5.0, 3.5)
    # With a token there, the next one: (3.5, 5) (west) at the same distance.
    enc2 = enc.model_copy(update={"tokens": (Token(id="t", x=5.0, y=3.5),)})
    assert free_spot(enc2, 0.4) == (3.5, 5.0)


def test_free_spot_answers_at_once_on_a_map_narrower_than_a_token_or_covered(monkeypatch):
    import engine.importers.placing as placing

    narrow = Encounter(map=MapSpec(width=0.5, height=20))
    assert free_spot(narrow, 0.4) == (0.25, 10.0)
    big = 100_000.0
    covered = Encounter(map=MapSpec(width=big, height=big), obstacles=(_box("all", -1, -1, big + 1, big + 1),))
    tried = []
    points = placing.shapely.points
    monkeypatch.setattr(placing.shapely, "points", lambda xs, ys: tried.append(len(xs)) or points(xs, ys))
    assert free_spot(covered, 0.4) == (big / 2, big / 2)  # nowhere free: the centre
    # was unbounded (2e5 rings of 0.5 m, 4e10 points): the grid coarsens to MAX_CANDIDATES
    # points (rounded out to whole rows and columns), tried in one query
    assert len(tried) == 1 and MAX_CANDIDATES // 2 < tried[0] <= MAX_CANDIDATES + 2 * math.isqrt(MAX_CANDIDATES) + 1
    # On a big open map the grid coarsens to at most MAX_CANDIDATES points but the centre is free.
    assert free_spot(Encounter(map=MapSpec(width=big, height=big)), 0.4) == (big / 2, big / 2)
    assert MAX_CANDIDATES == 40_000


def test_placement_problem_names_the_wall():
    enc = Encounter(map=MapSpec(width=10, height=10), obstacles=(_box("w", 4, 4, 6, 6, name="Wall"),))
    assert placement_problem(enc, 5, 5, 0.4) == "(5, 5) is inside Wall: the token cannot move from there"
    assert placement_problem(enc, 3.8, 5, 0.4) == "(3.8, 5) is overlapping Wall: the token cannot move from there"
    assert placement_problem(enc, 3.5, 5, 0.4) is None
    assert "reaches off the map" in placement_problem(enc, 0.1, 5, 0.4)
    with pytest.raises(IllegalActionError, match="not a point"):
        add_character(enc, Token(id="a", x=0, y=0), at=(float("nan"), 1.0))


def _run(args, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "gui.cli", *args], capture_output=True, text=True, env=env,
                          cwd=str(ROOT), timeout=60, **kw)


def test_import_map_into_a_closed_pipe_prints_no_traceback(tmp_path, samples_dir):
    out = tmp_path / "fight.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = f"{sys.executable} -m gui.cli import-map '{samples_dir / 'uvtt/dd2vtt_importer-test.dd2vtt'}' -o '{out}' | head -1"
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=60)
    assert r.stdout.startswith("Imported ")
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr
    assert out.is_file()  # written before anything was printed


def test_import_character_at_a_point_inside_a_wall_warns(tmp_path, samples_dir):
    enc = Encounter(map=MapSpec(width=10, height=10), obstacles=(_box("w", 4, 4, 6, 6, name="Wall"),))
    path = tmp_path / "fight.json"
    save_encounter(enc, path)
    r = _run(["import-character", str(samples_dir / "chummer/Wesson.chum5"), "--into", str(path), "--at", "5", "5"])
    assert r.returncode == 0, r.stderr
    assert "Warning: (5, 5) is inside Wall: the token cannot move from there" in r.stdout
    r = _run(["import-character", str(samples_dir / "chummer/Wesson.chum5"), "--into", str(path), "--at", "2", "2"])
    assert r.returncode == 0 and "Warning" not in r.stdout
    assert len(json.loads(path.read_text())["tokens"]) == 2
