"""Charge plans worked out without making the GUI thread wait for them.

A charge plan costs a few milliseconds to a tenth of a second, and the first one after
opening a map or changing an obstacle also builds (or edits) the movement graph. On small
maps :class:`ChargeWorker` plans them on the GUI thread in slices of :data:`SLICE_S`
between other events (a plain worker thread was tried: Shapely/GEOS objects shared by two
threads crashed the interpreter now and then); big maps go to the planner's own process
(:class:`ProcessChargeWorker`, :mod:`gui.charge_process`). A :class:`ChargeJob` carries the
revision of the answers it was asked for, a snapshot of the engine's
:class:`~engine.analysis.Tactics` for that revision, the attacker and the targets. Results
come back in batches through a signal; the receiver drops batches of an older revision. A
newer change cancels the running job (it stops after the plan in hand).
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import threading
from collections import deque

from PySide6.QtCore import QObject, QTimer, Signal

# The planner's own modules come with the window, before the program freezes its start-up heap
# (gui/app.py): imported by the first charge plan on a small map, they cost the charge
# column's first slice ~15 ms and set off a full garbage collection there (the demo's
# charge fill: a 90 ms turn, 61 ms of it the collection).
import geometry.nav  # noqa: E402,F401
from engine import clock

log = logging.getLogger(__name__)

#: Seconds between two batches of results sent back to the GUI thread.
BATCH_S = 0.05
#: Seconds of planning in one slice on the GUI thread before other events get their turn.
SLICE_S = 0.008


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
        self.number = 0  # (the process worker's job number)
        self.on_hurry = None

    def hurry(self, target_id: str) -> None:
        self._first.append(target_id)
        if self.on_hurry is not None:
            self.on_hurry(self, target_id)

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def pending(self) -> list[str]:
        """The targets still wanted, hurried ones first."""
        return [*self._first, *self._todo]

    def _next(self) -> tuple[str, bool] | None:
        if self._first:
            return self._first.popleft(), True
        if self._todo:
            return self._todo.popleft(), False
        return None


class ChargeWorker(QObject):
    """Plans charges on the GUI thread in short slices between other events (a zero-delay
    timer; each slice plans for at most :data:`SLICE_S`), so the window stays responsive
    and no Shapely or numpy work ever runs beside the GUI thread's own: GEOS objects
    (prepared geometries, tree caches) shared by two threads crashed the interpreter
    (seen as a segfault in a full test run). ``delivered(job, plans, done)``: a batch of
    ``{target id: ChargePlan or None}`` (None: the engine refused, logged); ``done`` with
    the job's last batch. Big maps go to the planner process instead
    (:class:`ProcessChargeWorker`)."""

    delivered = Signal(object, object, bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lock = threading.Lock()  # held for every plan (callers share the navigator)
        self._job: ChargeJob | None = None
        self.jobs_started = 0
        self._batch: dict = {}
        self._last = 0.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._slice)

    @property
    def job(self) -> ChargeJob | None:
        return self._job

    def start(self, job: ChargeJob) -> None:
        """Run ``job`` next (cancelling the one running)."""
        self.cancel()
        self._job = job
        self.jobs_started += 1
        self._batch, self._last = {}, clock.now()
        self._timer.start()

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self._job = None
        try:
            self._timer.stop()
        except RuntimeError:  # (the window is being torn down: its timer went first)
            pass

    def shutdown(self) -> None:
        self.cancel()

    def _slice(self) -> None:
        """Plan until :data:`SLICE_S` has passed (or an urgent target is done), hand over
        the batch when due, and come back after the events waiting."""
        job = self._job
        if job is None or job.cancelled:
            return
        t0 = clock.now()
        urgent = False
        finished = False
        try:
            while clock.now() - t0 < SLICE_S:
                item = job._next()
                if item is None:
                    finished = True
                    break
                tid, urgent = item
                if tid in job.seen:
                    continue
                job.seen.add(tid)
                with self.lock:
                    try:
                        self._batch[tid] = job.tactics.charge(job.attacker, tid)
                    except ValueError as exc:  # the engine's refusal (an unknown id after an edit ...)
                        log.warning("charge: %s", exc)
                        self._batch[tid] = None
                if urgent:
                    break
        except Exception:  # never lose the column to a bug: say so, hand back what there is
            log.exception("charge worker")
            finished = True
        now = clock.now()
        try:
            if finished:
                job.done = True
                batch, self._batch = self._batch, {}
                self.delivered.emit(job, batch, True)
                return
            if self._batch and (urgent or now - self._last >= BATCH_S):
                batch, self._batch, self._last = self._batch, {}, now
                self.delivered.emit(job, batch, False)
            if self._job is job and not job.cancelled:  # (a receiver may have started another)
                self._timer.start()
        except RuntimeError:  # the window (and this worker's timer) went away meanwhile
            job.cancel()


#: Seconds the planner process may take to start before jobs go to the thread instead.
START_TIMEOUT_S = 20.0
#: Seconds the planner process is given to end after SIGTERM (at exit) before it is killed.
STOP_TIMEOUT_S = 5.0
#: Blocking obstacles from which charges are planned in the planner's own process
#: (:mod:`gui.charge_process`) rather than in slices on the GUI thread: a slice cannot split
#: the first plan's movement-graph build, which took 33 ms CPU at 50 obstacles, 57 at 150,
#: 102 at 400 and 168 at 1,000 here (the demo's 10: 12 ms).
PROCESS_FROM = 48


class _Server:
    """The one planner process of this program and the thread that reads its replies and
    hands each to the worker whose job it is. Started in the background (the process takes a
    second to import numpy and Shapely); ``ready`` is set once it is connected."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.failed = False
        self.starting = clock.Stopwatch()  # (since the process was started)
        self.conn = None
        self.proc = None
        self.jobs: dict[int, tuple] = {}  # job number -> (worker, job)
        self.walkers: dict[int, object] = {}  # walk number -> its gui.walk_worker.WalkWorker
        self.sent: tuple | None = None  # (obstacle set serial, bounds, revision) the process has
        self.numbers = itertools.count(1)
        self.send_lock = threading.Lock()
        self.closing = False  # (stop() was called: no process is started after it)
        self._spawn = threading.Lock()
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._start, name="coverfire-charges-reader", daemon=True).start()

    def alive(self) -> bool:
        return not self.failed and (self.proc is None or self.proc.poll() is None)

    def _start(self) -> None:
        import os
        import subprocess
        from multiprocessing.connection import Listener

        self.starting.restart()
        try:
            from engine.child import command, environment, popen_options

            key = os.urandom(16)
            listener = Listener(authkey=key)
            with self._spawn:
                if self.closing:  # (the program is ending: no child to outlive it)
                    listener.close()
                    self.failed = True
                    return
                self.proc = subprocess.Popen(command("gui.charge_process", listener.address, str(os.getpid())),
                                             env=environment(key=key), stdin=subprocess.DEVNULL, **popen_options())
                self._listener = listener
            self.conn = listener.accept()
            listener.close()
        except Exception:  # no process here: the thread worker does the work
            if not self.closing:  # (else: stop() closed the listener, on purpose)
                log.exception("charge process")
            self.failed = True
            return
        if self.closing:  # (stopped while it connected)
            self.stop()
            return
        threading.Thread(target=self._write, name="coverfire-charges-writer", daemon=True).start()
        self.ready.set()
        self._read()

    def stop(self) -> None:
        """End the planner process, quietly (at the program's exit, :func:`stop_planner`):
        its connection is shut (the process, and this side's reader, see EOF), then it is
        sent SIGTERM, which ends it silently even mid-plan, and waited for. No process is
        started after this."""
        import socket
        import subprocess

        with self._spawn:
            self.closing = True
            proc = self.proc
            listener = getattr(self, "_listener", None)
        self.failed = True
        conn = self.conn
        if conn is not None:
            try:  # (shutdown, not close: wakes the reader blocked in recv with an EOF)
                s = socket.socket(fileno=os.dup(conn.fileno()))
                try:
                    s.shutdown(socket.SHUT_RDWR)
                finally:
                    s.close()
            except OSError:
                pass
        elif listener is not None:  # (still waiting for the process to connect)
            try:
                listener.close()
            except OSError:
                pass
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def send(self, msg) -> None:
        """Send ``msg`` to the process, in order, from a thread of its own: a big message (a
        whole obstacle set, ~0.9 MB at 10,000 obstacles) fills the socket's buffer and would
        hold the GUI thread until the process, maybe busy building a graph, reads it. A
        callable is called there to make the message (of values that do not change)."""
        self._outbox.put(msg)

    def _write(self) -> None:
        while True:
            msg = self._outbox.get()
            try:
                if callable(msg):
                    msg = msg()
                with self.send_lock:
                    self.conn.send(msg)
            except (OSError, EOFError):  # the process went away (alive() says so)
                return
            except Exception:  # (a message that could not be made or sent: said, the rest go on)
                log.exception("planner message")

    def _read(self) -> None:
        while True:
            try:
                msg = self.conn.recv()
            except (EOFError, OSError):
                return
            if msg[0] == "walk":
                walker = self.walkers.pop(msg[1], None)
                if walker is not None:
                    walker.deliver(msg[1], msg[2])
                continue
            kind, number, plans, done = msg
            entry = self.jobs.get(number)
            if entry is None:
                continue
            worker, job = entry
            if done:
                job.done = True
                self.jobs.pop(number, None)
            try:
                worker.delivered.emit(job, plans, done)
            except RuntimeError:  # that window is gone
                self.jobs.pop(number, None)

    def sync(self, obs) -> None:
        """Bring the process's obstacles up to ``obs`` (an ObstacleSet): the edits since
        what it has, or the whole set."""
        from engine.obstacles import flat_footprints

        key = (obs.serial, obs.bounds)
        edits = obs.edits_since(self.sent[2]) if self.sent is not None and self.sent[:2] == key else None
        if edits is None:  # (the flat outlines are made on the writer thread: ~12 ms at 10,000)
            blocking, bounds = obs.blocking, obs.bounds
            self.send(lambda: ("reset", bounds, [o.id for o in blocking], *flat_footprints(blocking)))
        else:
            for removed, added in edits:
                counts, xy = flat_footprints(added)
                self.send(("edit", list(removed), [o.id for o in added], counts, xy))
        self.sent = key + (obs.revision,)


_SERVER: _Server | None = None
_STOP_AT_EXIT = False


def start_planner() -> None:
    """Start the planner process now, in the background (a big map was opened), so that it
    is ready when the first charge is asked for. It is ended at the program's exit
    (:func:`stop_planner`)."""
    global _SERVER, _STOP_AT_EXIT
    if _SERVER is None or (not _SERVER.failed and not _SERVER.alive()):  # (none yet, or it died)
        if not _STOP_AT_EXIT:
            import atexit

            atexit.register(stop_planner)
            _STOP_AT_EXIT = True
        _SERVER = _Server()


def stop_planner() -> None:
    """End the planner process, quietly, and forget it (a later :func:`start_planner`
    starts another): what the program does at exit, so no child outlives it to print
    anything (:meth:`_Server.stop`)."""
    global _SERVER
    server, _SERVER = _SERVER, None
    if server is not None:
        server.stop()


def planner(start: bool = True) -> _Server | None:
    """The planner process's server (started first when ``start``; else None when there is
    none): ``ready``, ``failed``, ``sync(obstacles)``, ``send(message)``, ``numbers``,
    ``walkers`` (see :mod:`gui.walk_worker`)."""
    if start:
        start_planner()
    return _SERVER


class ProcessChargeWorker(ChargeWorker):
    """As :class:`ChargeWorker`, but a big map's charges (from :data:`PROCESS_FROM` blocking
    obstacles) are planned in the planner's own process (:mod:`gui.charge_process`), where
    nothing it does can hold up the GUI thread; small maps keep the thread."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._remote: ChargeJob | None = None
        self._waiting: ChargeJob | None = None  # a big map's job while the process starts

    @property
    def job(self) -> ChargeJob | None:
        for j in (self._remote, self._waiting):
            if j is not None:
                return j
        return self._job

    def start(self, job: ChargeJob) -> None:
        t = job.tactics
        if len(t.cover_index.polygons) < PROCESS_FROM or t.obstacle_set.has_duplicate_ids:
            self.cancel()
            super().start(job)
            return
        self.cancel()
        start_planner()
        server = _SERVER
        if not server.ready.is_set():
            if server.failed:
                super().start(job)  # no process here: the thread does it
            else:  # (starting, a second or so: the job waits for it, pending)
                self._waiting = job
                QTimer.singleShot(50, lambda: self._retry(job))
            return
        try:
            number = next(server.numbers)
            job.number = number
            server.sync(t.obstacle_set)
            ids, pos, discs = t.bodies()
            targets = [pos[i] for i in job.pending() if i in pos]
            from engine.analysis import DEFAULT_REACH, DEFAULT_RUNUP

            move = t.charge_movement(job.attacker)
            server.jobs[number] = (self, job)
            job.on_hurry = lambda j, tid: server.send(("hurry", j.number, pos[tid])) if tid in pos else None
            server.send(("plan", number, ids, discs, pos[job.attacker], targets, move,
                         DEFAULT_REACH, DEFAULT_RUNUP))
        except Exception:  # no process here (it could not start or went away): the thread does it
            log.exception("charge process")
            super().start(job)
            return
        self._remote = job
        self.jobs_started += 1

    def _retry(self, job: ChargeJob) -> None:
        if self._waiting is job and not job.cancelled:
            self._waiting = None
            server = _SERVER
            if server is not None and not server.ready.is_set() and server.starting.elapsed() > START_TIMEOUT_S:
                log.warning("the charge planner process did not start: planning on a thread")
                server.failed = True
            self.start(job)

    def cancel(self) -> None:
        super().cancel()
        if self._waiting is not None:
            self._waiting.cancel()
            self._waiting = None
        if self._remote is not None:
            self._remote.cancel()
            if _SERVER is not None and _SERVER.ready.is_set():
                _SERVER.jobs.pop(self._remote.number, None)
                try:
                    _SERVER.send(("cancel", self._remote.number))
                except OSError:
                    pass
            self._remote = None
