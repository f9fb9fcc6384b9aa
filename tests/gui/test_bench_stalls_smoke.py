"""The stall bench runs in the real window on the demo and measures every action (a smoke
test: no timing is asserted, the machine's load decides those)."""

from __future__ import annotations

import math

from bench import bench_stalls


def test_stall_bench_measures_every_action_on_the_demo(qapp):
    rows = bench_stalls.run(("demo",), steps=3, log=lambda *a: None)
    got = [r["action"] for r in rows]
    # the demo has no door: every other action is measured, once, in order
    assert got == [a for a in bench_stalls.ACTIONS if "door" not in a]
    for r in rows:
        assert r["scene"] == "demo"
        assert math.isfinite(r["stall_ms"]) and r["stall_ms"] >= 0.0
        assert r["settled_ms"] >= 0.0
    fill = next(r for r in rows if r["action"] == "charge fill")
    assert fill["charges"] == 8  # the demo's other tokens, every charge in
    # both drops landed as undo steps (the corner's replaces the undone drag's: the stack's
    # count stays 1, its index moves on), so their undos measure something
    for name in ("drag", "corner"):
        assert next(r for r in rows if r["action"] == name)["committed"] is True, name
    # the edits reached the engine: their answers were recomputed
    for name in ("drag", "corner", "wall", "undo wall"):
        assert next(r for r in rows if r["action"] == name)["answers_ms"] is not None, name


def test_stall_bench_measures_imports(qapp):
    # the demo written as a Universal VTT map (small: imported directly) and a Foundry scene
    # of 300 walls (past the direct path's 16 KB: through the loader process)
    rows = bench_stalls.run(("demo",), log=lambda *a: None, only_imports=True, foundry=300)
    assert [(r["scene"], r["action"], r["route"], r["imported"]) for r in rows] == [
        ("demo", "import", "direct", True), ("300", "foundry", "process", True)]
    demo = next(r for r in rows if r["action"] == "import")
    assert demo["obstacles"] >= 10  # the demo's obstacles, come back as walls and low cover
    for r in rows:
        assert math.isfinite(r["stall_cpu_ms"]) and r["stall_cpu_ms"] >= 0.0 and r["settled_ms"] > 0.0
