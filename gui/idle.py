"""Work the window does a slice per event-loop turn, with one time budget for all of it.

A big map's open leaves work for later turns: the obstacle tiles built a batch at a time,
the zones drawn, the picker made, the initiative order's rows written, the inspector's
pages made ahead. Each had its own zero-interval ``QTimer``; but Qt fires every timer that is
due in one pass of its event loop, so five of them started by the same open ran in the same
turn (~40 ms on a 10,000-obstacle map) and the mouse waited for all of them.

:class:`IdleJob` has a ``QTimer``'s start/stop/isActive, and all jobs share one scheduler: a
turn runs jobs in the order they were started until :data:`TURN_BUDGET_S` of work is done
(always at least one), and the rest wait for the next turn; a turn in which the thread has
just been busy with its own work (an input, a paint: :data:`BUSY_S`) runs none. A repeating job (``repeat=True``)
goes to the back of the queue after each run until it is stopped, so long jobs take turns.

Both budgets read the program's clock (:mod:`engine.clock`: wall and GUI-thread CPU seconds),
so a test decides how long each job and the work between turns "take".
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from engine import clock

log = logging.getLogger(__name__)

#: Seconds of queued work one event-loop turn runs (besides what the turn does itself).
TURN_BUDGET_S = 0.005
#: GUI-thread CPU seconds since the last jobs ran past which (when it is most of the time
#: since) a turn is left to the thread's own work, at most :data:`MAX_SKIPS` turns in a row.
BUSY_S = 0.015
MAX_SKIPS = 3


class _Scheduler(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.jobs: OrderedDict[int, IdleJob] = OrderedDict()
        self.turns = 0  # turns that ran jobs (for tests and benches)
        # (the clock read, wall, GUI-thread CPU) when the last jobs ended (readings of another
        # clock, before a test swapped it, say nothing of this one's)
        self._last: tuple[clock.Clock, float, float] | None = None
        self._skipped = 0  # turns left in a row to a busy thread
        self.skips = 0  # turns left to a busy thread (for tests and benches)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._turn)

    def add(self, job: "IdleJob") -> None:
        self.jobs[id(job)] = job
        if not self._timer.isActive():
            self._timer.start()

    def discard(self, job: "IdleJob") -> None:
        self.jobs.pop(id(job), None)

    def _turn(self) -> None:
        clk = clock.current()
        now, cpu = clk.now(), clk.cpu()
        last, self._last = self._last, (clk, now, cpu)
        if last is not None and last[0] is clk and self._skipped < MAX_SKIPS:
            # the GUI thread's own work since the last turn's jobs (an input handled, a paint):
            # when it kept the thread busy, this turn is left to it (a click on a big map was
            # ~40 ms; with 10 ms of tiles and text after it in the same turn, over 50)
            used, wall = cpu - last[2], now - last[1]
            if used > BUSY_S and used > 0.5 * wall:
                self._skipped += 1
                self.skips += 1
                self._timer.start()
                return
        self._skipped = 0
        self.turns += 1
        start = clk.now()
        ran = 0
        # only the jobs queued when the turn began: one started now waits for the next turn
        for key in list(self.jobs):
            if ran and clk.now() - start >= TURN_BUDGET_S:
                break
            job = self.jobs.pop(key, None)
            if job is None:
                continue
            ran += 1
            if job.repeat:
                self.jobs[key] = job  # (to the back: long jobs take turns)
            try:
                job.fn()
            except RuntimeError as exc:  # its Qt object was deleted (a closed window)
                log.debug("idle job %r dropped: %s", job.fn, exc)
                self.jobs.pop(key, None)
            except Exception:  # noqa: BLE001 - one job's fault must not stop the others
                log.exception("idle job %r", job.fn)
                self.jobs.pop(key, None)
        self._last = (clk, clk.now(), clk.cpu())
        if self.jobs:
            self._timer.start()


_SCHEDULER: _Scheduler | None = None


def scheduler() -> _Scheduler:
    """The application's one scheduler (made on first use; needs a QApplication)."""
    global _SCHEDULER
    if _SCHEDULER is None:
        _SCHEDULER = _Scheduler()
    return _SCHEDULER


class IdleJob:
    """``fn`` run in a later event-loop turn once started (again every turn while it is
    active, with ``repeat``), sharing the turns' budget with every other job."""

    def __init__(self, fn: Callable[[], object], *, repeat: bool = False) -> None:
        self.fn = fn
        self.repeat = repeat

    def start(self) -> None:
        scheduler().add(self)

    def stop(self) -> None:
        scheduler().discard(self)

    def isActive(self) -> bool:  # noqa: N802 - as QTimer's
        return id(self) in scheduler().jobs
