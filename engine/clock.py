"""The one clock every time budget in the program reads.

A budget ("stop after 5 ms of work this turn", "a turn left to a busy GUI thread", "a slice
of 4 ms") is a promise about how the program *behaves* with the time it has; how fast the
machine is at that moment is not part of it. So no budget reads :mod:`time` itself: each reads
:func:`now` (wall seconds, a monotonic clock) or :func:`cpu` (the calling thread's CPU
seconds), and the tests swap the clock for a :class:`ManualClock` they drive, so what a turn
does is decided by the test, not by the load on the machine (DESIGN.md "Time in tests").

Durations that are only *reported* (an import's "took 0.8 s") may read :mod:`time` directly.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


class Clock:
    """The real clock: :func:`time.perf_counter` and :func:`time.thread_time`."""

    def now(self) -> float:
        """Wall seconds since an arbitrary start (monotonic)."""
        return time.perf_counter()

    def cpu(self) -> float:
        """CPU seconds the calling thread has used."""
        return time.thread_time()

    def thread_cpu(self, ident: int) -> float | None:
        """CPU seconds the thread ``ident`` (:func:`threading.get_ident`) has used, for a
        budget of work done in a worker; None where the system cannot say (Windows)."""
        try:
            return time.clock_gettime(time.pthread_getcpuclockid(ident))
        except (AttributeError, OSError, ValueError):
            return None


class ManualClock(Clock):
    """A clock that moves only when told: :meth:`advance` moves both the wall and the CPU time
    (as work on this thread would), :meth:`wait` the wall time alone (as time spent off the
    thread would). ``step`` seconds are added to both on every reading of :meth:`now`, so a
    loop that reads the clock until a budget is spent ends after ``budget / step`` readings
    (``step=0``, the default: a budget is never spent unless a test advances the clock)."""

    def __init__(self, start: float = 1000.0, step: float = 0.0) -> None:
        self._wall = start
        self._cpu = start
        self.step = step
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            self._wall += self.step
            self._cpu += self.step
            return self._wall

    def cpu(self) -> float:
        with self._lock:
            return self._cpu

    def thread_cpu(self, ident: int) -> float | None:
        """Every thread's CPU time is this clock's (moved by :meth:`advance`)."""
        return self.cpu()

    def advance(self, seconds: float) -> None:
        """``seconds`` of work on this thread: wall and CPU time both move."""
        with self._lock:
            self._wall += seconds
            self._cpu += seconds

    def wait(self, seconds: float) -> None:
        """``seconds`` of waiting: the wall time moves, the thread's CPU time does not."""
        with self._lock:
            self._wall += seconds


_clock: Clock = Clock()


def now() -> float:
    """Wall seconds from the program's clock (see the module's text)."""
    return _clock.now()


def cpu() -> float:
    """The calling thread's CPU seconds from the program's clock."""
    return _clock.cpu()


def thread_cpu(ident: int) -> float | None:
    """Another thread's CPU seconds from the program's clock (None where unknown)."""
    return _clock.thread_cpu(ident)


def current() -> Clock:
    return _clock


def use(clock: Clock) -> Clock:
    """Make ``clock`` the program's clock; answers the one it replaces."""
    global _clock
    old, _clock = _clock, clock
    return old


class Stopwatch:
    """Seconds since it was (re)started, on the program's clock: a time-out ("the planner
    process may take 20 s to start") or a throttle ("at most every 100 ms"). Before the first
    start, :meth:`elapsed` is infinite (long ago). Readings of two clocks cannot be compared, so
    when the program's clock was swapped since the start (a test set or took away its
    :class:`ManualClock`) the stopwatch starts again from the new clock's reading."""

    def __init__(self, start: bool = True) -> None:
        self._clock: Clock | None = None
        self._at = 0.0
        if start:
            self.restart()

    def restart(self) -> None:
        c = _clock
        self._clock, self._at = c, c.now()

    def elapsed(self) -> float:
        """Seconds since the start (wall time)."""
        if self._clock is None:
            return math.inf
        if self._clock is not _clock:
            self.restart()
        return _clock.now() - self._at


@contextmanager
def using(clock: Clock) -> Iterator[Clock]:
    """``with using(ManualClock()) as c:`` the program reads ``c`` inside the block."""
    old = use(clock)
    try:
        yield clock
    finally:
        use(old)
