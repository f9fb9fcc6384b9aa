"""gui.idle: deferred work shares one budget per event-loop turn."""

from __future__ import annotations

import time

from gui import idle
from gui.idle import TURN_BUDGET_S, IdleJob


def busy(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_jobs_started_together_are_spread_over_turns(qtbot):
    ran: list[tuple[str, int]] = []
    sched = idle.scheduler()
    jobs = [IdleJob(lambda n=n: (busy(0.6 * TURN_BUDGET_S), ran.append((n, sched.turns)))) for n in "abcd"]
    for j in jobs:
        j.start()
    assert all(j.isActive() for j in jobs)
    qtbot.waitUntil(lambda: len(ran) == 4, timeout=2000)
    turns = [t for _, t in ran]
    # two jobs a turn at most (each takes 0.6 of the budget: a third would start past it),
    # so four jobs take two turns or more, in the order they were started
    assert [n for n, _ in ran] == ["a", "b", "c", "d"]
    assert max(turns.count(t) for t in set(turns)) <= 2 and len(set(turns)) >= 2
    assert not any(j.isActive() for j in jobs)


def test_a_repeating_job_runs_each_turn_until_stopped_and_takes_turns_with_others(qtbot):
    calls = []
    job = IdleJob(lambda: (calls.append("r"), calls.count("r") == 3 and job.stop()), repeat=True)
    other = IdleJob(lambda: calls.append("o"))
    job.start()
    other.start()
    qtbot.waitUntil(lambda: not job.isActive(), timeout=2000)
    assert calls == ["r", "o", "r", "r"]


def test_a_job_that_fails_is_dropped_and_the_others_run(qtbot):
    ran = []

    def gone():
        raise RuntimeError("Internal C++ object already deleted.")

    bad = IdleJob(gone, repeat=True)
    good = IdleJob(lambda: ran.append(1))
    bad.start()
    good.start()
    qtbot.waitUntil(lambda: ran == [1], timeout=2000)
    assert not bad.isActive()


def test_a_turn_right_after_busy_work_is_left_to_it(qtbot):
    sched = idle.scheduler()
    qtbot.waitUntil(lambda: not sched.jobs, timeout=2000)
    ran = []
    skips = sched.skips
    sched._last = (time.perf_counter(), time.thread_time())
    IdleJob(lambda: ran.append(1)).start()
    busy(3 * idle.BUSY_S)  # (the thread's own work: an input handled before the loop comes back)
    qtbot.waitUntil(lambda: ran == [1], timeout=2000)
    assert sched.skips == skips + 1  # one turn left to it, then the job ran
