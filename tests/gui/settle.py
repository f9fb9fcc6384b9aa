"""Waiting for the window's deferred work by its condition, never by a fixed delay
(DESIGN.md "Time in tests").

What the window leaves for later turns of the event loop: the idle scheduler's jobs
(:mod:`gui.idle`: tiles, zones, the picker, rows ...), the pictures being decoded
(:mod:`gui.picture_loader`: each lands within its budget), its own single-shot timers (a panel's
``_later`` refresh, the inspector's pages, a charge delay), and ``QTimer.singleShot(0, ...)``
calls (a dock's first fit, a refit after the open), which no object shows. :func:`settle`
waits until the first two are done and a zero-delay timer of its own, queued after the third,
has fired, twice in a row with nothing new started in between.

Not waited for: the workers' polls of their threads and processes (charges, walks): they
land answers, never edits, and on a busy machine may take long; a test that needs their
answers waits for those. Nor timers longer than :data:`LONGEST_WAITED_MS`.
"""

from __future__ import annotations

from PySide6.QtCore import QDeadlineTimer, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

#: Single-shot timers longer than this are not waited for (an autosave interval, a status
#: message's timeout): a test that needs one fired drives it itself.
LONGEST_WAITED_MS = 1000


def _background(obj) -> bool:
    from gui.charge_worker import ChargeWorker
    from gui.walk_worker import WalkWorker

    return isinstance(obj, (ChargeWorker, WalkWorker))


def _name(fn) -> str:
    try:
        return repr(fn)
    except RuntimeError:  # a job of a closed window's panel (the scheduler drops it when it runs)
        return getattr(fn, "__qualname__", "a job of a deleted object")


def pending(window=None) -> list[str]:
    """What is still to run: the idle scheduler's jobs and the active single-shot timers (at
    most :data:`LONGEST_WAITED_MS`, not the workers') of ``window`` (or of every top-level
    widget), by name."""
    from gui.idle import scheduler

    from gui.picture_loader import pending as pictures

    out = [f"idle job {_name(job.fn)}" for job in list(scheduler().jobs.values())]
    out += [f"picture {where}" for where in pictures()]
    roots = [window] if window is not None else QApplication.topLevelWidgets()
    for root in roots:
        for timer in root.findChildren(QTimer):
            if timer.isActive() and timer.isSingleShot() and timer.interval() <= LONGEST_WAITED_MS \
                    and not _background(timer.parent()):
                out.append(f"timer of {type(timer.parent()).__name__} ({timer.interval()} ms)")
    return out


def settle(qtbot, window=None, timeout: int = 30_000) -> None:
    """Process events until the window's deferred work is done (see the module's text):
    nothing :func:`pending`, and a zero-delay timer queued after any ``singleShot(0)`` call
    has fired, twice in a row (``qtbot`` None: polled without the fixture). Fails after ``timeout`` ms (generous: a bound on a hang, not
    a measure of speed) saying what is still pending."""
    state = {"calm": 0, "fired": None}

    def done() -> bool:
        if pending(window):
            state["calm"], state["fired"] = 0, None
            return False
        if state["fired"] is None:  # (queued after every zero-delay call made so far)
            fired = state["fired"] = []
            QTimer.singleShot(0, lambda: fired.append(True))
            return False
        if not state["fired"]:
            return False
        state["calm"], state["fired"] = state["calm"] + 1, None
        return state["calm"] >= 2

    if qtbot is None:  # (a helper without the fixture: the same polls, by hand)
        deadline = QDeadlineTimer(timeout)
        while not done():
            if deadline.hasExpired():
                raise AssertionError(f"the window did not settle in {timeout} ms: {pending(window)}")
            QTest.qWait(10)
        return
    try:
        qtbot.waitUntil(done, timeout=timeout)
    except Exception as exc:  # (qtbot's TimeoutError): say what did not finish
        raise AssertionError(f"the window did not settle in {timeout} ms: {pending(window)}") from exc
