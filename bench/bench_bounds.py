"""Bounded-input bench: how long the inputs that once blew up take now.

The tests beside them (tests/engine/test_footprint.py, tests/engine/importers/test_uvtt*.py,
test_placing.py, test_chummer_saves.py, tests/engine/test_files.py, test_analysis.py,
tests/engine/static_veil/test_api.py) bound the *work* each does (vertices, points made
thick, candidates tried, encoder calls ...), never its time (DESIGN.md "Time in tests"):
the seconds are printed here. Run by hand from the repository root::

    python bench/bench_bounds.py [--fuzz 40] [--samples ../shared/samples]

It prints the CPU and wall seconds of each case, with the time the test used to allow
(the "was" column: what it took before its guard, where known). ``--fuzz N`` also runs the
first N fuzz cases of each kind (tests/fuzz, seed 15 as tests/gui/test_window_fuzzed_files.py)
through their pipelines and prints the slowest of each kind. Exit status 1 when a case takes
more CPU than it was allowed in its test.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]


def _timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c0, time.perf_counter() - w0


def _uvtt_map(tmp: Path, walls, objects=()) -> Path:
    data = {"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 20, "y": 20},
                                          "pixels_per_grid": 64},
            "line_of_sight": walls, "objects_line_of_sight": list(objects), "portals": [], "lights": []}
    p = tmp / f"m{random.random():.9f}.dd2vtt"
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def cases(tmp: Path, samples: Path | None):
    """(name, allowed CPU seconds in the old test, was, thunk) for each bounded input."""
    import pytest  # noqa: F401  (the static-veil helpers import it)

    from engine.files import load_encounter, loads_encounter, save_encounter
    from engine.footprint import bounded_footprint, circle
    from engine.importers.chummer import import_chummer
    from engine.importers.images import save_with_images
    from engine.importers.placing import free_spot
    from engine.importers.uvtt import import_uvtt
    from engine.model import Encounter, MapSpec, Obstacle
    from engine.report import analyze

    def pillar():
        enc = loads_encounter(json.dumps({
            "format": "coverfire.encounter", "version": 1, "map": {"width": 60, "height": 40},
            "obstacles": [{"id": "pillar", "height": 3.0, "polygon": [list(p) for p in circle(22.0, 20.0, 1.0, 10_000)]}],
            "tokens": [{"id": "a", "x": 5.0, "y": 20.0}, {"id": "b", "x": 40.0, "y": 20.3},
                       {"id": "c", "x": 25.0, "y": 5.0}]}))
        analyze(enc)

    yield "10,000-point pillar: load + analyze", 2.0, "16 s", pillar

    def zigzag():
        n = 50_000
        pts = [(10 + (5 if i % 2 else 3) * math.cos(2 * math.pi * i / n), 10 + (5 if i % 2 else 3) * math.sin(2 * math.pi * i / n))
               for i in range(n)]
        try:
            bounded_footprint(pts)
        except ValueError:
            pass

    yield "50,000-point zig-zag footprint refused", 1.0, "3.2 s", zigzag

    wall = [{"x": 2, "y": 2}, {"x": 8, "y": 2}, {"x": 8, "y": 6}]
    other = [{"x": 2, "y": 8}, {"x": 6, "y": 8}]
    box = [{"x": 12, "y": 12}, {"x": 14, "y": 12}, {"x": 14, "y": 14}, {"x": 12, "y": 14}, {"x": 12, "y": 12}]
    repeats = _uvtt_map(tmp, [wall] * 3000 + [wall[::-1]] * 3000 + [other], [box])
    yield "UVTT: one wall 6,000 times", 3.0, "> 10 s", lambda: import_uvtt(repeats)

    from tests.fuzz.kinds import make_input

    fuzz_path, _ = make_input("3002:uvtt:1542", tmp / "fuzz")

    def fuzz_case():
        enc, _ = import_uvtt(fuzz_path)
        save_with_images(enc, tmp / "out.json")
        load_encounter(tmp / "out.json")

    yield "UVTT: fuzz 3002:uvtt:1542 import + save + reopen", 5.0, "> 10 s", fuzz_case

    zz = [{"x": 1 + (i % 500) * 0.01, "y": 1 + (i % 2) * 0.01 + i // 500} for i in range(1000)]
    many = _uvtt_map(tmp, [[{"x": p["x"] + k * 1e-3, "y": p["y"]} for p in zz] for k in range(200)])
    yield "UVTT: 200 zig-zag walls, 200,000 points", 4.0, "52 s", lambda: import_uvtt(many)

    rnd = random.Random(7)
    big_wall = {"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 20, "y": 20},
                                              "pixels_per_grid": 10}, "image": "",
                "line_of_sight": [[{"x": rnd.uniform(0, 20), "y": rnd.uniform(0, 20)} for _ in range(20_000)],
                                  [{"x": 10 + 5 * math.cos(2 * math.pi * i / 20_000),
                                    "y": 10 + 5 * math.sin(2 * math.pi * i / 20_000)} for i in range(20_000)]]}
    p20k = tmp / "m20k.dd2vtt"
    p20k.write_text(json.dumps(big_wall), encoding="utf-8")
    yield "UVTT: walls of 20,000 points", 5.0, "22 s, 2.7 GB", lambda: import_uvtt(p20k, cell_size=1.5)

    if samples is not None:
        for name in ("uvtt/dd2vtt_importer-test.dd2vtt", "uvtt/uvtt2fgu-sampleMap.dd2vtt",
                     "uvtt/foundry_to_uvtt-prismatic_ballroom_main.uvtt"):
            if (samples / name).is_file():
                yield f"UVTT sample {Path(name).name}", 2.0, "", lambda p=samples / name: import_uvtt(p)

    big = 100_000.0
    covered = Encounter(map=MapSpec(width=big, height=big), obstacles=(Obstacle(
        id="all", name="all", height=3.0, polygon=((-1, -1), (big + 1, -1), (big + 1, big + 1), (-1, big + 1))),))
    yield "free_spot on a covered 100 km map", 2.0, "unbounded", lambda: free_spot(covered, 0.4)

    from tests.engine.importers.test_chummer_saves import _save

    deep = tmp / "deep.chum5"
    deep.write_text(_save(gears="<gear><name>box</name><children>" * 500 + "</children></gear>" * 500), encoding="utf-8")

    def chummer_deep():
        try:
            import_chummer(deep)
        except ValueError:
            pass

    yield "Chummer save nested 500 deep refused", 1.0, "", chummer_deep

    ring = [(50 + 10 * math.cos(k / 40 * math.tau), 50 + 10 * math.sin(k / 40 * math.tau)) for k in range(40)]
    five_k = Encounter(name="big", map=MapSpec(width=2000, height=2000), obstacles=tuple(
        Obstacle(id=f"o{i}", height=2.0, polygon=tuple((x + 20 * (i % 90), y + 20 * (i // 90)) for x, y in ring))
        for i in range(5000)))
    yield "save 5,000 obstacles", 1.5, "> 1 s", lambda: save_encounter(five_k, tmp / "big.json")

    from assets import ENCOUNTERS, demo_encounter_path
    from engine.files import encounter_from_data

    data = json.loads((ENCOUNTERS / "demo-d100.json").read_text(encoding="utf-8"))
    pasted = next(t for t in data["tokens"] if t["id"] == "ganger-3")
    data["tokens"] += [{**pasted, "id": f"ganger-3-copy{k}"} for k in range(100)]
    stacked = encounter_from_data(data)
    yield "d100 demo, a token pasted 100 times: 2 attackers", 10.0, "36 s an attacker", \
        lambda: [analyze(stacked, a) for a in ("sam", "ganger-3-copy7")]

    from tests.engine.static_veil.test_api import RULESET

    sv = load_encounter(demo_encounter_path()).model_copy(update={"ruleset": "static-veil"})
    ids = [t.id for t in sv.tokens]
    RULESET.available_maneuvers(sv, ids[0], ids[1])
    yield f"static-veil picker x {len(ids) - 1} targets", 0.25 * (len(ids) - 1), "", \
        lambda: [RULESET.available_maneuvers(sv, ids[0], t) for t in ids[1:]]


def fuzz(n: int, tmp: Path) -> list[tuple[str, float, float, str]]:
    """The slowest of the first ``n`` fuzz cases of each kind: (kind, CPU s, wall s, case)."""
    from tests.fuzz.kinds import run_case

    out = []
    for kind in ("encounter", "uvtt", "foundry", "chummer", "image"):
        worst = (0.0, 0.0, "")
        for i in range(n):
            case = f"15:{kind}:{i}"
            cpu, wall = _timed(lambda: run_case(case, tmp / "fz"))
            worst = max(worst, (cpu, wall, case))
        out.append((kind, *worst))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fuzz", type=int, default=0, metavar="N", help="also time N fuzz cases of each kind")
    ap.add_argument("--samples", type=Path, default=ROOT.parent / "shared" / "samples")
    args = ap.parse_args(argv)
    samples = args.samples if args.samples.is_dir() else None
    missed = 0
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print(f"{'case':54s} {'CPU s':>7s} {'wall s':>7s} {'allowed':>8s}  was")
        for name, allowed, was, thunk in cases(tmp, samples):
            cpu, wall = _timed(thunk)
            flag = "  MISSED" if cpu > allowed else ""
            missed += bool(flag)
            print(f"{name:54s} {cpu:7.3f} {wall:7.3f} {allowed:8.2f}  {was}{flag}")
        if args.fuzz:
            print(f"\nslowest of {args.fuzz} fuzz cases a kind (CPU budget 10 s each)")
            for kind, cpu, wall, case in fuzz(args.fuzz, tmp):
                flag = "  MISSED" if cpu > 10.0 else ""
                missed += bool(flag)
                print(f"{kind:12s} {cpu:7.3f} {wall:7.3f}  {case}{flag}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
