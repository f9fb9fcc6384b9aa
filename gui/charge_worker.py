"""Charge plans worked out on a worker thread, so the GUI thread never waits for them.

A charge plan costs a few milliseconds to a tenth of a second, and the first one after
opening a map or changing an obstacle also builds (or edits) the movement graph -- up to a
second on a 10,000-obstacle map. :class:`ChargeWorker` runs those on one background thread
(``concurrent.futures``): a :class:`ChargeJob` carries the revision of the answers it was
asked for, a snapshot of the engine's :class:`~engine.analysis.Tactics` for that revision
(the same indexes, its own caches: the GUI thread goes on updating the original), the
attacker and the targets. Results come back in batches through a queued Qt signal; the
receiver drops batches of an older revision. A newer change cancels the running job (it
stops after the plan in hand). Plans of the snapshot and of the GUI thread share one
navigator, so every plan is made holding :attr:`ChargeWorker.lock`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)

#: Seconds between two batches of results sent back to the GUI thread.
BATCH_S = 0.05


class ChargeJob:
    """Charge plans of one attacker at ``targets`` (ids, in the order they are wanted) for
    answers revision ``revision``; :meth:`hurry` puts a target first."""

    def __init__(self, revision: int, tactics, attacker: str, targets, weapon=None) -> None:
        self.revision = revision
        self.tactics = tactics
        self.attacker = attacker
        self._todo = deque(targets)
        self._first: deque = deque()
        self._cancelled = threading.Event()
        self.seen: set[str] = set()
        self.done = False

    def hurry(self, target_id: str) -> None:
        self._first.append(target_id)

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def _next(self) -> tuple[str, bool] | None:
        if self._first:
            return self._first.popleft(), True
        if self._todo:
            return self._todo.popleft(), False
        return None


class ChargeWorker(QObject):
    """One background thread planning charges. ``delivered(job, plans, done)``: a batch of
    ``{target id: ChargePlan or None}`` (None: the engine refused, logged), on the GUI
    thread; ``done`` with the job's last batch."""

    delivered = Signal(object, object, bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lock = threading.Lock()  # held for every plan (the navigator is shared)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="coverfire-charges")
        self._job: ChargeJob | None = None
        self.jobs_started = 0

    @property
    def job(self) -> ChargeJob | None:
        return self._job

    def start(self, job: ChargeJob) -> None:
        """Run ``job`` next (cancelling the one running)."""
        self.cancel()
        self._job = job
        self.jobs_started += 1
        self._pool.submit(self._run, job)

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self._job = None

    def shutdown(self) -> None:
        self.cancel()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _run(self, job: ChargeJob) -> None:
        batch: dict = {}
        last = time.perf_counter()
        try:
            while not job.cancelled:
                item = job._next()
                if item is None:
                    break
                tid, urgent = item
                if tid in job.seen:
                    continue
                job.seen.add(tid)
                with self.lock:
                    if job.cancelled:
                        break
                    try:
                        batch[tid] = job.tactics.charge(job.attacker, tid)
                    except ValueError as exc:  # the engine's refusal (an unknown id after an edit ...)
                        log.warning("charge: %s", exc)
                        batch[tid] = None
                now = time.perf_counter()
                if urgent or now - last >= BATCH_S:
                    self.delivered.emit(job, batch, False)
                    batch, last = {}, now
        except RuntimeError:  # the window is gone
            return
        except Exception:  # never lose the thread to a bug: say so, hand back what there is
            log.exception("charge worker")
        job.done = True
        try:
            self.delivered.emit(job, batch, True)
        except RuntimeError:  # the window is gone
            pass
