"""The ruler's walk worked out without making the GUI thread wait for it.

The walk is :meth:`geometry.nav.Navigator.shortest_path` for the walker's radius (no other
bodies). Its first search on a map builds the movement graph for that radius (about a second
on a 10,000-obstacle map), and a search can take tens of milliseconds there, so on a big map
(from :data:`gui.charge_worker.PROCESS_FROM` blocking obstacles, as the charges) the walk is
asked of the charge planner's own process (:mod:`gui.charge_process`, the ``walk`` message),
which keeps the same obstacles, edited by the same messages, and answers with the same
path. Small maps search on the GUI thread (milliseconds), unless a walk there measured over
:data:`HERE_BUDGET_S` of CPU: then that map's walks go to the planner as well.

:meth:`WalkWorker.walk` answers at once when the walk is known (small map, or the answer for
exactly this request came) and otherwise returns None (pending) and asks the planner; the
latest request wins (the planner answers only the latest of the walks waiting, and an answer
to any but this worker's latest request is dropped). Answers are keyed by the obstacle set,
its revision and bounds, the two points and the radius, so an answer for older obstacles (an
edit came meanwhile) or an older ruler end is never given for the current ones. ``answered``
is emitted when asking again may give more (an answer came, the planner became ready, or it
died and is to be asked again).

Answers are tuples: ``("path", points, length)``, ``("none",)`` (cannot get there) or
``("refused", message)`` (the geometry's refusal), as the planner sends them.
"""

from __future__ import annotations

import itertools
import logging

from PySide6.QtCore import QObject, QTimer, Signal

from engine import clock
from gui import charge_worker

log = logging.getLogger(__name__)

#: How often (ms) a walk waiting for the planner checks that it is still there.
WATCH_MS = 500
#: Seconds of GUI-thread CPU a walk there (a small map) may take; after a slower one (few
#: obstacles of many corners), that map's walks go to the planner too. (The demo's first
#: walk, its graph built, takes ~12 ms.)
HERE_BUDGET_S = 0.030

_ASKERS = itertools.count(1)


def walk_here(navigator, start, goal, radius: float) -> tuple:
    """The walk's answer worked out on this thread (the planner's own function, so the same
    tuples: :func:`gui.charge_process.walk`)."""
    from gui.charge_process import walk

    return walk(navigator, start, goal, radius)


class WalkWorker(QObject):
    """Walks for one ruler; see the module doc."""

    #: Obstacle sets (serials) on which a walk on the GUI thread was too slow.
    slow_sets: set = set()

    answered = Signal()
    _reply = Signal(int, object)  # (from the planner's reader thread)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._known: tuple | None = None  # (key, answer) of the last answer
        self._asked: tuple | None = None  # (number, key, server) of the request in flight
        self.asked_of_planner = 0  # requests sent to the planner (for tests and benches)
        self.worked_here = 0  # walks worked out on this thread
        self.asker = next(_ASKERS)  # (the planner answers the latest walk of each asker)
        self._reply.connect(self._on_reply)
        self._watch = QTimer(self)
        self._watch.setInterval(WATCH_MS)
        self._watch.timeout.connect(self._check)

    @staticmethod
    def _key(obs, start, goal, radius) -> tuple:
        return (obs.serial, obs.revision, obs.bounds, (float(start[0]), float(start[1])),
                (float(goal[0]), float(goal[1])), float(radius))

    def walk(self, tactics, start, goal, radius: float) -> tuple | None:
        """The walk of a body of ``radius`` (metres) from ``start`` to ``goal`` on
        ``tactics``' obstacles: its answer, or None while the planner works it out."""
        obs = getattr(tactics, "_obs", None)
        if obs is None:  # (an engine without the obstacle set the planner mirrors)
            self.worked_here += 1
            return walk_here(tactics.navigator, start, goal, radius)
        key = self._key(obs, start, goal, radius)
        if self._known is not None and self._known[0] == key:
            return self._known[1]
        if getattr(obs, "_dups", False) or (len(tactics.cover_index.polygons) < charge_worker.PROCESS_FROM
                                            and obs.serial not in self.slow_sets):
            t0 = clock.cpu()
            answer = self._here(tactics, key, start, goal, radius)
            if clock.cpu() - t0 > HERE_BUDGET_S and not getattr(obs, "_dups", False):
                self.slow_sets.add(obs.serial)
            return answer
        charge_worker.start_planner()
        server = charge_worker.planner()
        if not server.ready.is_set():
            if server.failed or server.starting.elapsed() > charge_worker.START_TIMEOUT_S:
                if not server.failed:
                    log.warning("the planner process did not start: the ruler's walk on this thread")
                    server.failed = True
                return self._here(tactics, key, start, goal, radius)
            self._forget()
            self._watch.start()  # (asked again once it is there)
            return None
        if self._asked is not None and self._asked[1] == key and self._asked[2] is server:
            return None  # (in flight)
        self._forget()
        try:
            number = next(server.numbers)
            server.walkers[number] = self
            server.sync(obs)
            server.send(("walk", number, key[3], key[4], key[5], self.asker))
        except Exception:  # no planner after all: this thread does it
            log.exception("walk planner")
            return self._here(tactics, key, start, goal, radius)
        self._asked = (number, key, server)
        self.asked_of_planner += 1
        self._watch.start()
        return None

    def prepare(self, tactics, radius: float) -> None:
        """On a big map whose planner is there: have it build the movement graph for bodies
        of ``radius`` now (the ruler was taken up), so that the first walk is quicker."""
        obs = getattr(tactics, "_obs", None)
        if obs is None or getattr(obs, "_dups", False) or (len(tactics.cover_index.polygons) < charge_worker.PROCESS_FROM
                                            and obs.serial not in self.slow_sets):
            return
        server = charge_worker.planner()
        if not server.ready.is_set():
            return
        try:
            server.sync(obs)
            server.send(("prepare", float(radius)))
        except Exception:  # (no planner after all: the walk will find out)
            log.exception("walk planner")

    @property
    def pending(self) -> bool:
        """Whether a walk was asked of the planner and has not come back."""
        return self._asked is not None

    def _here(self, tactics, key, start, goal, radius) -> tuple:
        answer = walk_here(tactics.navigator, key[3], key[4], key[5])
        self.worked_here += 1
        self._known = (key, answer)
        return answer

    def deliver(self, number: int, answer) -> None:
        """The planner's answer to request ``number`` (called on its reader thread)."""
        try:
            self._reply.emit(number, answer)
        except RuntimeError:  # this worker is gone
            pass

    def _on_reply(self, number: int, answer) -> None:
        asked = self._asked
        if asked is None or asked[0] != number:
            return  # an answer to an older request: the ruler has moved on
        self._forget()
        self._watch.stop()
        self._known = (asked[1], answer)
        self.answered.emit()

    def _check(self) -> None:
        """While waiting: ask again when the planner became ready or went away."""
        server = charge_worker.planner(start=False)
        asked = self._asked
        if asked is None:
            if server is None or server.ready.is_set() or server.failed \
                    or server.starting.elapsed() > charge_worker.START_TIMEOUT_S:
                self._watch.stop()
                self.answered.emit()
            return
        if server is not asked[2] or not server.alive():
            log.warning("the planner process went away: the ruler's walk is asked again")
            self._forget()
            self._watch.stop()
            self.answered.emit()

    def _forget(self) -> None:
        asked, self._asked = self._asked, None
        if asked is not None:
            asked[2].walkers.pop(asked[0], None)

    def cancel(self) -> None:
        """Forget the request in flight (its answer will be dropped)."""
        self._forget()
        try:
            self._watch.stop()
        except RuntimeError:  # (torn down)
            pass


__all__ = ["WalkWorker", "walk_here"]
