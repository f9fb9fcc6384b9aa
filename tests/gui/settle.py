"""Waiting for the window's deferred work by its condition, never by a fixed delay
(DESIGN.md "Time in tests").

What the window leaves for later turns of the event loop: the idle scheduler's jobs
(:mod:`gui.idle`: tiles, zones, the picker, rows ...), its own single-shot timers (a panel's
``_later`` refresh, the inspector's pages, a charge delay), and ``QTimer.singleShot(0, ...)``
calls (a dock's first fit, a refit after the open), which no object shows. :func:`settle`
waits until the first two are done and a zero-delay timer of its own, queued after the third,
has fired, twice in a row with nothing new started in between.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication

#: Single-shot timers longer than this are not waited for (an autosave interval, a status
#: message's timeout): a test that needs one fired drives it itself.
LONGEST_WAITED_MS = 1000


def pending(window=None) -> list[str]:
    """What is still to run: the idle scheduler's jobs and the active single-shot timers (at
    most :data:`LONGEST_WAITED_MS`) of ``window`` (or of every top-level widget), by name."""
    from gui.idle import scheduler

    out = [f"idle job {job.fn!r}" for job in list(scheduler().jobs.values())]
    roots = [window] if window is not None else QApplication.topLevelWidgets()
    for root in roots:
        for timer in root.findChildren(QTimer):
            if timer.isActive() and timer.isSingleShot() and timer.interval() <= LONGEST_WAITED_MS:
                parent = timer.parent()
                out.append(f"timer of {type(parent).__name__} ({timer.interval()} ms)")
    return out


def settle(qtbot, window=None, timeout: int = 10_000) -> None:
    """Process events until the window's deferred work is done (see the module's text):
    nothing :func:`pending`, and a zero-delay timer queued after any ``singleShot(0)`` call
    has fired, twice in a row. Fails after ``timeout`` ms saying what is still pending."""
    calm = [0]

    def done() -> bool:
        if pending(window):
            calm[0] = 0
            return False
        fired = []
        QTimer.singleShot(0, lambda: fired.append(True))
        while not fired:  # (our timer, queued after every zero-delay call made so far)
            QCoreApplication.processEvents()
        calm[0] = calm[0] + 1 if not pending(window) else 0
        return calm[0] >= 2

    try:
        qtbot.waitUntil(done, timeout=timeout)
    except Exception as exc:  # (qtbot's TimeoutError): say what did not finish
        raise AssertionError(f"the window did not settle in {timeout} ms: {pending(window)}") from exc
