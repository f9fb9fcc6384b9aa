"""The charge column is filled between events (big maps: in the planner process): the GUI thread never waits for it, its
plans are the engine's, and plans of an encounter no longer shown are dropped."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from engine.analysis import Tactics
from geometry.nav import ChargePlan
from gui.charge_worker import ChargeJob, ChargeWorker
from tests.gui.conftest import mouse_click


class SlowTactics:
    """A stand-in engine whose plans take 3 ms each (of the test's clock: ``manual_clock``)
    and say which thread made them."""

    def __init__(self, clock):
        self.clock = clock
        self.threads = set()
        self.calls = 0

    def charge(self, attacker, target):
        self.threads.add(threading.get_ident())
        self.calls += 1
        self.clock.advance(0.003)
        return (attacker, target)


def _ticks(qtbot, fake):
    """A zero-delay timer that notes the plans made each time the event loop comes round."""
    from PySide6.QtCore import QTimer

    ticks: list[int] = []
    probe = QTimer()
    probe.setInterval(0)
    probe.timeout.connect(lambda: ticks.append(fake.calls))
    probe.start()
    return probe, ticks


def test_worker_plans_in_slices_and_hands_the_plans_over_in_batches(qtbot, manual_clock):
    """SLICE_S (8 ms) of planning a slice: 3 plans of 3 ms; a batch once BATCH_S (50 ms) has
    passed since the last: every 6 slices, 18 plans; the rest with the job's end."""
    w = ChargeWorker()
    fake = SlowTactics(manual_clock)
    batches = []
    w.delivered.connect(lambda job, plans, done: batches.append((sorted(plans, key=lambda t: int(t[1:])), done)))
    probe, ticks = _ticks(qtbot, fake)
    targets = [f"t{i}" for i in range(40)]
    w.start(ChargeJob(1, fake, "a", targets))
    assert fake.calls == 0  # handed over, not waited for
    qtbot.waitUntil(lambda: bool(batches) and batches[-1][1], timeout=5000)
    probe.stop()
    assert batches == [(targets[:18], False), (targets[18:36], False), (targets[36:], True)]
    # the event loop came round after every slice (and never within one)
    assert set(range(3, 40, 3)) <= set(ticks) and all(n % 3 == 0 or n == 40 for n in ticks)
    assert fake.threads == {threading.get_ident()}
    w.shutdown()


def test_an_urgent_target_ends_its_slice_and_is_handed_over_at_once(qtbot, manual_clock):
    w = ChargeWorker()
    fake = SlowTactics(manual_clock)
    batches = []
    w.delivered.connect(lambda job, plans, done: batches.append((list(plans), done, fake.calls)))
    job = ChargeJob(1, fake, "a", [f"t{i}" for i in range(40)])
    w.start(job)
    job.hurry("t30")  # (the GM looks at t30)
    qtbot.waitUntil(lambda: bool(batches) and batches[-1][1], timeout=5000)
    assert batches[0] == (["t30"], False, 1)  # its plan first, alone, at once
    assert batches[1] == ([f"t{i}" for i in range(18)], False, 19)  # then as before
    assert sorted(t for plans, _, _ in batches for t in plans) == sorted(job.seen) and len(job.seen) == 40
    w.shutdown()


def test_worker_plans_between_events_and_a_cancelled_job_stops(qtbot, manual_clock):
    """Plans run on the GUI thread in slices (no second thread touches Shapely: GEOS
    objects shared by two threads crashed the interpreter), one slice at a time, so other
    events get their turn between plans; a cancelled job plans nothing more."""
    w = ChargeWorker()
    got = {}
    fake = SlowTactics(manual_clock)

    def delivered(job, plans, done):
        got.update(plans)
        w.cancel()  # a newer change: the job stops after the plan in hand

    w.delivered.connect(delivered)
    probe, ticks = _ticks(qtbot, fake)
    w.start(ChargeJob(1, fake, "a", [f"t{i}" for i in range(40)]))
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    calls = fake.calls
    assert calls == len(got) == 18  # (the first batch)
    seen = len(ticks)
    qtbot.waitUntil(lambda: len(ticks) >= seen + 20, timeout=5000)  # (the loop came round 20 times more)
    probe.stop()
    assert fake.calls == calls and len(got) == calls
    assert fake.threads == {threading.get_ident()}
    assert got["t0"] == ("a", "t0") and got["t17"] == ("a", "t17")
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


def test_the_planner_process_hands_its_plans_over_a_batch_each_batch_time(manual_clock, monkeypatch):
    """gui.charge_process.main (what the planner process runs), here on a stand-in
    connection: a batch once BATCH_S (50 ms) has passed since the last; plans of 20 ms (of the
    test's clock) make batches of 3, and the last with the job's end."""
    from engine.analysis import DEFAULT_REACH, DEFAULT_RUNUP
    from engine.model import Obstacle
    from engine.obstacles import flat_footprints
    from geometry.nav import ChargeFrom
    from gui import charge_process

    real = ChargeFrom.plan_at

    def plan_at(self, *a, **k):
        manual_clock.advance(0.02)
        return real(self, *a, **k)

    monkeypatch.setattr(ChargeFrom, "plan_at", plan_at)

    class Conn:
        def __init__(self, messages):
            self.inbox, self.sent = list(messages), []

        def recv(self):
            return self.inbox.pop(0)

        def poll(self):
            return False  # (nothing comes while the job runs)

        def send(self, msg):
            self.sent.append(msg)

    crate = Obstacle(id="crate", polygon=((20, 20), (22, 20), (22, 22), (20, 22)), height=1.0)
    ids = ["a"] + [f"t{i}" for i in range(7)]
    discs = np.array([(5.0, 5.0, 0.4)] + [(8.0 + 2 * i, 5.0, 0.4) for i in range(7)])
    conn = Conn([("reset", (0.0, 0.0, 40.0, 40.0), ["crate"], *flat_footprints([crate])),
                 ("plan", 1, ids, discs, 0, list(range(1, 8)), 30.0, DEFAULT_REACH, DEFAULT_RUNUP),
                 ("quit",)])
    charge_process.main(conn)
    assert [(kind, job, sorted(plans), done) for kind, job, plans, done in conn.sent] == [
        ("plans", 1, ["t0", "t1", "t2"], False), ("plans", 1, ["t3", "t4", "t5"], False), ("plans", 1, ["t6"], True)]
    assert all(p.possible for _, _, plans, _ in conn.sent for p in plans.values())
