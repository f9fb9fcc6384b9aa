"""gui.idle: deferred work shares one budget per event-loop turn.

The scheduler reads the program's clock (engine.clock); these tests drive it (the
``manual_clock`` fixture): a job "takes" the time it advances the clock by, and the thread's
own work between turns is the clock advanced outside a job, so what each turn runs is decided
here, whatever the machine's load."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTimer

from gui import idle
from gui.idle import BUSY_S, MAX_SKIPS, TURN_BUDGET_S, IdleJob


@pytest.fixture
def sched(qtbot, manual_clock):
    """The scheduler with no job queued, its last turn read on the test's clock."""
    s = idle.scheduler()
    qtbot.waitUntil(lambda: not s.jobs, timeout=5000)
    done = []
    IdleJob(lambda: done.append(1)).start()  # (one turn on this clock: the busy rule has a start)
    qtbot.waitUntil(lambda: done == [1], timeout=5000)
    return s


def test_jobs_started_together_are_spread_over_turns(qtbot, manual_clock, sched):
    ran: list[tuple[str, int]] = []

    def job(n):
        manual_clock.advance(0.6 * TURN_BUDGET_S)  # (each job takes 0.6 of a turn's budget)
        ran.append((n, sched.turns))

    jobs = [IdleJob(lambda n=n: job(n)) for n in "abcde"]
    for j in jobs:
        j.start()
    assert all(j.isActive() for j in jobs)
    qtbot.waitUntil(lambda: len(ran) == 5, timeout=5000)
    # two jobs a turn (after the second the budget is spent: the third waits for the next
    # turn), in the order they were started
    t = ran[0][1]
    assert ran == [("a", t), ("b", t), ("c", t + 1), ("d", t + 1), ("e", t + 2)]
    assert not any(j.isActive() for j in jobs)


def test_a_turn_runs_at_least_one_job_however_long_it_takes(qtbot, manual_clock, sched):
    ran: list[tuple[str, int]] = []

    def job(n):
        manual_clock.advance(10 * TURN_BUDGET_S)
        ran.append((n, sched.turns))

    for n in "abc":
        IdleJob(lambda n=n: job(n)).start()
    qtbot.waitUntil(lambda: len(ran) == 3, timeout=5000)
    t = ran[0][1]
    assert ran == [("a", t), ("b", t + 1), ("c", t + 2)]


def test_with_no_time_spent_every_job_queued_runs_in_one_turn_and_one_started_by_a_job_in_the_next(
        qtbot, manual_clock, sched):
    ran: list[tuple[str, int]] = []
    late = IdleJob(lambda: ran.append(("late", sched.turns)))
    jobs = [IdleJob(lambda n=n: ran.append((n, sched.turns))) for n in "abc"]
    jobs[1].fn = lambda: (ran.append(("b", sched.turns)), late.start())
    for j in jobs:
        j.start()
    qtbot.waitUntil(lambda: len(ran) == 4, timeout=5000)
    t = ran[0][1]
    assert ran == [("a", t), ("b", t), ("c", t), ("late", t + 1)]


def test_a_repeating_job_runs_each_turn_until_stopped_and_takes_turns_with_others(qtbot, manual_clock, sched):
    calls = []

    def repeating():
        manual_clock.advance(1.5 * TURN_BUDGET_S)  # (past a turn's budget: the other job waits)
        calls.append(("r", sched.turns))
        if len([c for c in calls if c[0] == "r"]) == 3:
            job.stop()

    job = IdleJob(repeating, repeat=True)
    other = IdleJob(lambda: calls.append(("o", sched.turns)))
    job.start()
    other.start()
    qtbot.waitUntil(lambda: not job.isActive() and not other.isActive(), timeout=5000)
    t = calls[0][1]
    # the repeating job went to the back after its run: the other had the next turn first
    assert calls == [("r", t), ("o", t + 1), ("r", t + 1), ("r", t + 2)]


def test_a_job_that_fails_is_dropped_and_the_others_run(qtbot, manual_clock, sched):
    ran = []

    def gone():
        raise RuntimeError("Internal C++ object already deleted.")

    bad = IdleJob(gone, repeat=True)
    good = IdleJob(lambda: ran.append(1))
    bad.start()
    good.start()
    qtbot.waitUntil(lambda: ran == [1], timeout=5000)
    assert not bad.isActive()


def test_a_turn_right_after_busy_work_is_left_to_it(qtbot, manual_clock, sched):
    ran = []
    skips = sched.skips
    IdleJob(lambda: ran.append(sched.skips)).start()
    manual_clock.advance(3 * BUSY_S)  # (the thread's own work: an input handled before the loop comes back)
    qtbot.waitUntil(lambda: bool(ran), timeout=5000)
    assert ran == [skips + 1] and sched.skips == skips + 1  # one turn left to it, then the job ran


def test_a_turn_after_a_wait_is_not_left_to_anyone(qtbot, manual_clock, sched):
    """As much CPU time as above, but over a long wall time (the thread mostly waited: a
    dialog open, the window in the background): the turn runs its jobs."""
    ran = []
    skips = sched.skips
    IdleJob(lambda: ran.append(sched.skips)).start()
    manual_clock.advance(3 * BUSY_S)
    manual_clock.wait(1.0)
    qtbot.waitUntil(lambda: bool(ran), timeout=5000)
    assert ran == [skips] and sched.skips == skips


def test_little_work_between_turns_leaves_no_turn(qtbot, manual_clock, sched):
    ran = []
    skips = sched.skips
    IdleJob(lambda: ran.append(sched.skips)).start()
    manual_clock.advance(0.9 * BUSY_S)
    qtbot.waitUntil(lambda: bool(ran), timeout=5000)
    assert ran == [skips] and sched.skips == skips


def test_a_thread_busy_before_every_turn_still_gets_its_jobs_run_after_a_few_turns(qtbot, manual_clock, sched):
    """Busy work before every turn (a drag's steps, each a long input and paint): at most
    MAX_SKIPS turns in a row are left to it, then jobs run."""
    ran = []
    skips = sched.skips
    busy_turns = []

    def busy():  # (the thread's own work before each turn of the scheduler)
        manual_clock.advance(3 * BUSY_S)
        busy_turns.append(sched.skips)

    work = QTimer()
    work.setInterval(0)
    work.timeout.connect(busy)
    work.start()
    try:
        IdleJob(lambda: ran.append(sched.skips)).start()
        qtbot.waitUntil(lambda: bool(ran), timeout=5000)
    finally:
        work.stop()
    assert ran == [skips + MAX_SKIPS] and sched.skips == skips + MAX_SKIPS


def test_a_last_turn_read_on_another_clock_leaves_no_turn(qtbot, manual_clock, sched):
    """The readings of the clock before a swap (a test setting or taking away its clock) say
    nothing of the new one's: no turn is left to a 'busy' thread on their account."""
    from engine import clock

    ran = []
    skips = sched.skips
    with clock.using(clock.ManualClock(start=1e6)):  # (as if a million CPU seconds had passed)
        IdleJob(lambda: ran.append(sched.skips)).start()
        qtbot.waitUntil(lambda: bool(ran), timeout=5000)
    assert ran == [skips] and sched.skips == skips
