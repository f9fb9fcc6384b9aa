"""The ruler bench runs in the real window on the demo (a smoke test: no timing is asserted,
the machine's load decides those)."""

from __future__ import annotations

import math

from bench import bench_ruler


def test_ruler_bench_drags_twice_and_the_walk_is_shown(qapp):
    rows = bench_ruler.run("demo", steps=3, drags=2, log=lambda *a: None)
    assert [r["drag"] for r in rows] == [1, 2]
    for r in rows:
        assert math.isfinite(r["stall_ms"]) and r["stall_ms"] >= 0.0 and r["stall_cpu_ms"] >= 0.0
        assert r["shown"] and (r["walk_m"] is not None or r["walk_note"].startswith("no walk"))
        if r["walk_m"] is not None:  # (never shorter than the straight line)
            assert r["walk_m"] >= math.hypot(*((15.0, 9.0) if r["drag"] == 1 else (12.0, 11.0))) - 1e-6
