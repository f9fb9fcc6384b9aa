"""What the CI's start-up check fails on (bench/bench_startup.py --check, run by .ci/check-wheel
and .ci/check-bundle): CPU time past the budget always; wall time only on a machine that was
not busier than its cores (a loaded machine made a 1.8x start read 4.2x, and CI red)."""

from __future__ import annotations

from bench import bench_startup as bs


def test_cpu_over_budget_fails_whatever_the_load():
    assert bs.verdict(1.5, 4.2, 4.0, busy=True) == "OVER 4x (CPU 4.2x)"
    assert bs.verdict(1.5, 4.2, 4.0, busy=False) == "OVER 4x (CPU 4.2x)"


def test_wall_over_budget_fails_only_on_a_machine_that_was_not_busy():
    assert bs.verdict(5.0, 3.1, 4.0, busy=True) == "ok"
    assert bs.verdict(5.0, 3.1, 4.0, busy=False) == "OVER 4x (wall 5.0x)"
    assert bs.verdict(5.0, 4.5, 4.0, busy=False) == "OVER 4x (CPU 4.5x, wall 5.0x)"
    assert bs.verdict(4.0, 4.0, 4.0, busy=False) == "ok"  # (at the budget is within it)
    assert bs.verdict(0.4, 0.9, 1.0, busy=False) == "ok"


def test_busy_is_a_load_above_the_cores_at_any_reading(monkeypatch):
    monkeypatch.setattr(bs.os, "cpu_count", lambda: 2)
    assert not bs._busy(["0.5", "2", "1.9"])
    assert bs._busy(["0.5", "2.01", "1.0"])
    assert bs._busy(["?"])  # (no reading: not judged on wall time)
