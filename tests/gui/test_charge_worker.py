"""The charge column is filled between events (big maps: in the planner process): the GUI thread never waits for it, its
plans are the engine's, and plans of an encounter no longer shown are dropped."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from engine.analysis import Tactics
from geometry.nav import ChargePlan
from gui.charge_worker import ChargeJob, ChargeWorker
from tests.gui.conftest import mouse_click


class SlowTactics:
    """A stand-in engine whose plans take 20 ms each and say which thread made them."""

    def __init__(self):
        self.threads = set()
        self.calls = 0

    def charge(self, attacker, target):
        self.threads.add(threading.get_ident())
        self.calls += 1
        time.sleep(0.02)
        return (attacker, target)


def test_worker_plans_between_events_and_a_cancelled_job_stops(qtbot):
    """Plans run on the GUI thread in slices (no second thread touches Shapely: GEOS
    objects shared by two threads crashed the interpreter), one slice at a time, so other
    events get their turn between plans; a cancelled job plans nothing more."""
    from PySide6.QtCore import QTimer

    w = ChargeWorker()
    got = {}
    w.delivered.connect(lambda job, plans, done: got.update(plans))
    fake = SlowTactics()
    ticks = []
    probe = QTimer()
    probe.setInterval(1)
    probe.timeout.connect(lambda: ticks.append(fake.calls))
    probe.start()
    start = time.perf_counter()
    w.start(ChargeJob(1, fake, "a", [f"t{i}" for i in range(40)]))
    assert time.perf_counter() - start < 0.01 and fake.calls == 0  # handed over, not waited for
    qtbot.waitUntil(lambda: len(got) >= 4, timeout=5000)
    w.cancel()  # a newer change: the job stops after the plan in hand
    calls = fake.calls
    qtbot.wait(100)
    probe.stop()
    assert fake.calls == calls < 40
    assert fake.threads == {threading.get_ident()}
    # the probe timer fired between plans: at least once for each plan count seen
    assert set(range(1, calls)) <= set(ticks)
    assert got["t0"] == ("a", "t0") and got["t3"] == ("a", "t3")
    w.shutdown()


def test_the_charge_column_fills_in_the_background_with_the_engines_plans(window, qtbot):
    ans = window.answers
    mouse_click(window.map_view, 12.0, 20.0)  # Sam
    assert ans.attacker == "sam" and ans.charges_pending
    qtbot.waitUntil(lambda: not ans.charges_pending, timeout=10_000)
    engine = Tactics(window.document.encounter)
    for tid in ans.target_order:
        want, got = engine.charge("sam", tid), ans.charges[tid]
        assert got.possible == want.possible and got.reason == want.reason
        if want.possible:
            assert got.movement == pytest.approx(want.movement)
    assert ans.worker.jobs_started >= 1


def test_plans_of_an_older_revision_are_dropped(window, qtbot):
    ans = window.answers
    window.selection.select(["sam"], window.document.encounter)
    old = ans.revision
    ans.recompute()  # a newer change landed: a new revision
    ans._stop_charges()  # (no real plans racing the ones handed in below)
    assert ans.revision == old + 1
    before = ChargePlan(False, (), None, None, None, "a plan of the encounter before")
    stale = ChargeJob(old, None, "sam", [])
    ans._on_delivered(stale, {"ganger-1": before}, True)
    assert ans.charges.get("ganger-1") is not before
    now = ChargePlan(False, (), None, None, None, "a plan of this encounter")
    fresh = ChargeJob(ans.revision, None, "sam", [])
    ans._on_delivered(fresh, {"ganger-1": now}, True)
    assert ans.charges["ganger-1"] is now


def test_big_maps_plan_charges_in_the_planners_own_process(window, qtbot, monkeypatch):
    # (the demo made "big" for the test: its charges go to the planner process)
    from gui import charge_worker

    monkeypatch.setattr(charge_worker, "PROCESS_FROM", 1)
    charge_worker.start_planner()
    qtbot.waitUntil(charge_worker._SERVER.ready.is_set, timeout=30_000)
    ans = window.answers
    mouse_click(window.map_view, 12.0, 20.0)  # Sam
    qtbot.waitUntil(lambda: not ans.charges_pending, timeout=30_000)
    assert ans.worker._remote is not None  # planned over there, not on a thread here
    engine = Tactics(window.document.encounter)
    for tid in ans.target_order:
        want, got = engine.charge("sam", tid), ans.charges[tid]
        assert got.possible == want.possible and got.reason == want.reason
        if want.possible:
            assert got.movement == pytest.approx(want.movement)
            assert np.allclose(got.path, want.path, atol=1e-9)
    # an obstacle edit reaches the process as an edit, and the plans follow it
    enc = window.document.encounter
    o = enc.obstacles[0]
    moved = o.model_copy(update={"polygon": tuple((x + 0.5, y) for x, y in o.polygon)})
    window.document.commit(enc.model_copy(update={"obstacles": (moved,) + enc.obstacles[1:]}), "move")
    qtbot.waitUntil(lambda: not ans.charges_pending and len(ans.charges) == len(ans.target_order), timeout=30_000)
    engine = Tactics(window.document.encounter)
    for tid in ans.target_order:
        want, got = engine.charge("sam", tid), ans.charges[tid]
        assert got.possible == want.possible
        if want.possible:
            assert got.movement == pytest.approx(want.movement, rel=0.03)
