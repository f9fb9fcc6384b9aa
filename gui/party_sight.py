"""The party's sight for one document, kept up to date for the window's views.

:class:`PartySight` asks the engine (:mod:`engine.vision`, Qt-free) what the players' side
sees after every change of the document, previews of a drag included, through one
:class:`engine.vision.SightCache` (a drag redoes only the moved token's sight), and tells
the fog layers (``updated``). It is computed only while someone needs it: the encounter's
fog is on (``Encounter.sight.fog``), the player view is open, or the GM shows the fog on
the map.

It also keeps the explored area growing: :meth:`PartySight.explore_on_commit` is one of the
document's ``commit_hooks``, so a landed edit (a drop of a dragged token, a door opened)
adds to ``sight.explored``, in the same undo step as the edit, what the party sees after
it and everything the players were shown since the last landed edit: the party's sight
when the file was opened (or the last edit landed, or was undone), and at every step of a
drag (each party token's area at each place the view was worked out for, kept by
reference, unioned once at the drop). Switching the fog on explores what the party sees
then, in the same undo step. Other edits of the fog itself (reveal, hide, reset) are left
as they are.

While a token is dragged (a preview that moves no obstacle), and when an obstacle drag
rests, the view is worked out off the GUI thread (:attr:`PartySight.ASYNC_PREVIEWS`): the step's encounter goes to one worker
thread (the newest waiting replaces an older one), the tokens move at once and the fog
follows when the worker's answer is in (a poll of :data:`POLL_MS`, on the GUI thread). An
answer belongs to the encounter it was worked out for; one that arrives after a landed edit,
an undo or an open (worked out on the GUI thread meanwhile) is dropped. The answers are the
engine's, the same as a synchronous :meth:`PartySight.refresh` (the cache holds a lock).

Nothing here measures: the areas and the visible tokens are the engine's.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import shapely
from PySide6.QtCore import QObject, QTimer, Signal

from engine import clock
from engine.model import Encounter
from gui.document import DocumentChange, EncounterDocument

log = logging.getLogger(__name__)

#: How often (ms) the GUI thread looks whether the worker's view of a drag step is in.
POLL_MS = 2
#: During a token drag the fog (the players' window, the GM's tint) and the players' document
#: (their tokens, answers and badges: :mod:`gui.player_document`) show a new view at most
#: once in this many ms (10 a second, the pace the players' window repaints at during a drag,
#: :data:`gui.player_repaint.PREVIEW_REPAINT_S`): a view in sooner waits once for the rest of
#: the frame (each view shown costs the GUI thread the players' knowledge, their answers and
#: both fogs' images, about 6 ms on the 200-token / 2,000-obstacle scene; at 30 a second
#: that was most drag steps). The GM's own tokens follow every step; the drop (a landed
#: edit) shows its view at once, worked out for the final state.
FOG_FRAME_MS = 100

#: Metres: the union of a drag's areas the worker keeps is simplified by this much each
#: step (a tenth of the saved explored areas' own tolerance, :data:`engine.vision.EXPLORED_TOLERANCE`).
FOLD_TOLERANCE = 0.005

_EXECUTOR: ThreadPoolExecutor | None = None
_EXECUTOR_LOCK = threading.Lock()


def executor() -> ThreadPoolExecutor:
    """The one worker thread that works out party views of drag steps (every window's)."""
    global _EXECUTOR
    with _EXECUTOR_LOCK:
        if _EXECUTOR is None:
            _EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="party-sight")
        return _EXECUTOR


def vision():
    """The engine's sight module (:mod:`engine.vision`)."""
    from engine import vision as _vision

    return _vision


def only_fog_changed(before: Encounter, after: Encounter) -> bool:
    """Whether ``after`` differs from ``before`` in nothing but ``sight`` (the fog's own
    settings and explored area): every other field is the very same value."""
    if before.sight is after.sight:
        return False
    for name in type(after).model_fields:
        if name != "sight" and getattr(before, name) is not getattr(after, name):
            if getattr(before, name) != getattr(after, name):
                return False
    return True


class PartySight(QObject):
    """What the party sees in the document's encounter now.

    ``view`` is the engine's :class:`engine.vision.PartyView` (``sight``, ``explored``,
    ``visible``) for :attr:`encounter`, or None while nobody needs it. ``updated`` fires
    after it changed. ``error`` holds the engine's message when it could not work it out
    (the fog then shows nothing as explored and no other side's token)."""

    updated = Signal()

    #: At most this many of the places the players were shown since the last landed edit
    #: (besides the view after it) go into the explored area when an edit lands: the first
    #: (the view before a drag began: on opening the file, after the last edit) and the
    #: rest spread evenly over a drag's steps. The union is one GUI-thread turn at the drop:
    #: 8 areas cost about 20 ms CPU on the 200-token / 2,000-obstacle bench scene, every
    #: one of 60 steps 200 ms. (A token drag's steps worked out in the worker are folded
    #: into one union there, every step: they do not count here.)
    MAX_SHOWN = 8

    #: While an obstacle is dragged (a corner, a wall: every party token's sight changes)
    #: the view is worked out at most this often (ms), in the worker; the fog follows when
    #: the drag rests or lands. Token drags redo only the moved token's sight and follow
    #: every step.
    OBSTACLE_PREVIEW_MS = 120

    #: Token drags' views, and an obstacle drag's when it rests, are worked out in the
    #: worker thread (False: on the GUI thread, in the step itself).
    ASYNC_PREVIEWS = True

    def __init__(self, document: EncounterDocument, parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        self._cache = None
        self._users: set[str] = set()
        self.view = None
        self.encounter: Encounter | None = None
        self.error: str | None = None
        self.compute_count = 0
        #: what the players were shown since the committed encounter ``_shown_base``:
        #: each party token's area by its key (docs/sight.md "Explored areas")
        self._shown: dict = {}
        self._shown_base: Encounter | None = None
        #: the document's change the view was last worked out after
        self.last_change: DocumentChange | None = None
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(self.OBSTACLE_PREVIEW_MS)
        self._later.timeout.connect(self._obstacle_preview)
        #: the worker's job: (generation, encounter, future) while one runs; the encounter
        #: waiting for it (newest drag step); CPU seconds the worker spent (bench)
        self._job = None
        self._waiting: Encounter | None = None
        #: (committed encounter, keys, union) of the areas the worker folded together
        self._folded = None
        self._shown_at = -1e9  # (engine.clock seconds the last worker's view was shown)
        self._deferred = False
        self._generation = 0
        self.worker_cpu = 0.0
        self.async_count = 0
        self._poll = QTimer(self)
        self._poll.setSingleShot(True)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._collect)
        document.changed.connect(self._on_document)
        hooks = getattr(document, "commit_hooks", None)
        if hooks is not None:
            hooks.append(self.explore_on_commit)
        self.refresh()

    # -- who needs it ---------------------------------------------------------------------------
    def want(self, who: str, on: bool) -> None:
        """Say that ``who`` (the GM's fog tint) needs the view even with the fog off (or no longer)."""
        before = self.active
        (self._users.add if on else self._users.discard)(who)
        if self.active != before:
            self.refresh()

    @property
    def active(self) -> bool:
        """Whether the view is worked out now: the fog is on, or a user asked for it."""
        enc = self.document.encounter
        return bool(self._users) or bool(getattr(getattr(enc, "sight", None), "fog", False))

    @property
    def fog(self) -> bool:
        """Whether the encounter's fog is on for the players."""
        return bool(self.document.encounter.sight.fog)

    # -- computing --------------------------------------------------------------------------------
    def compute(self, encounter: Encounter):
        """The party's view of ``encounter`` (through the cache: cheap when only a few
        tokens moved since the last call). Raises the engine's ``ValueError`` subclasses."""
        v = vision()
        if self._cache is None:
            self._cache = v.SightCache()
        self.compute_count += 1
        return self._cache.view(encounter)

    def refresh(self) -> None:
        """Work the view out again for the document's encounter (None while unused), and
        tell the listeners (``updated`` fires after every change of the document)."""
        enc = self.document.encounter
        self.encounter = enc
        self._generation += 1  # (a drag step's view still being worked out is stale now)
        self._waiting = None
        if not self.active:
            self.view, self.error = None, None
            self.updated.emit()
            return
        try:
            self.view = self.compute(enc)
            self.error = None
            self._record(enc, self.view)
        except Exception as exc:  # noqa: BLE001 - the engine refused this state (or GEOS did):
            log.warning("party sight: %s", exc)  # the fog then hides everything, nothing is lost
            self.view, self.error = None, str(exc)
        self.updated.emit()

    def _on_document(self, change: DocumentChange) -> None:
        self.last_change = change
        if change.preview and change.diff.obstacles and self.active and self.view is not None:
            # (the last view stays a moment: the player view still follows the edit itself)
            self.encounter = self.document.encounter
            if not self._later.isActive():
                self._later.start()
            self.updated.emit()
            return
        self._later.stop()
        if change.preview and self.ASYNC_PREVIEWS and self.active and self.view is not None:
            # (the players' window moves the token when the view for it is in: its tokens
            # and its fog change together, once a step, at the worker's pace)
            self._submit(self.document.encounter)
            return
        self.refresh()

    def _obstacle_preview(self) -> None:
        """(An obstacle drag rested for :attr:`OBSTACLE_PREVIEW_MS`.) Its view, worked out in
        the worker (:attr:`ASYNC_PREVIEWS`: every party token's sight may change, tens of ms
        on a big map) or here; the drop works it out at once, as any landed edit."""
        if self.ASYNC_PREVIEWS and self.document.in_preview and self.active and self.view is not None:
            self._submit(self.document.encounter)
        else:
            self.refresh()

    # -- drag steps off the GUI thread ---------------------------------------------------------
    @property
    def pending(self) -> bool:
        """Whether a drag step's view is still being worked out."""
        return self._job is not None or self._waiting is not None

    def _submit(self, enc: Encounter) -> None:
        if self._job is not None:
            self._waiting = enc  # (the newest step replaces one not started)
            return
        self._waiting = None
        gen = self._generation
        fold = self._fold_input(enc)
        self._job = (gen, enc, executor().submit(self._work, enc, fold))
        self._poll.start(POLL_MS)

    def _fold_input(self, enc: Encounter, base: Encounter | None = None):
        """What the worker folds the step's areas into: (the committed encounter they belong
        to, ``base``, by default the document's; the areas folded so far and their keys, the
        areas recorded and not folded yet); None with the fog off."""
        if not enc.sight.fog:
            return None
        base = self.document.committed if base is None else base
        if self._folded is not None and self._folded[0] is base:
            _, keys, geom = self._folded
        else:
            keys, geom = frozenset(), None
        todo = [(k, g) for k, g in self._shown.items() if k not in keys] if self._shown_base is base else []
        return base, keys, geom, todo

    def _work(self, enc: Encounter, fold, land: bool = False):
        """(In the worker.) The view of ``enc`` and the union of the committed encounter's
        explored areas with every area the players were shown since it landed and this
        view's ones (one union a step here, so the drop has no long list to union on the
        GUI thread); with ``land``, also that union as the explored areas to save
        (:func:`engine.vision.explored_areas`, for the drop: :meth:`_landed`)."""
        t0 = clock.cpu()
        try:
            view = self.compute(enc)  # (its ``explored`` union is not drawn: gui.layers.fog.dim_geometry)
            folded = landed = None
            if fold is not None:
                base, keys, geom, todo = fold
                v = vision()
                if geom is None:  # (the fold starts from what was explored before the drag)
                    geom = v.explored_geometry(base) if base.sight.explored else None
                new = todo + [(k, g) for k, g in view.parts if k not in keys]
                if new:
                    geoms = ([geom] if geom is not None else []) + [g for _, g in new]
                    geom = geoms[0] if len(geoms) == 1 else shapely.union_all(geoms)
                    # (simplified as the saved explored areas are: it stays as small as they do)
                    geom = shapely.simplify(geom, FOLD_TOLERANCE, preserve_topology=True)
                    keys = keys | {k for k, _ in new}
                folded = (base, keys, geom)
                if land:
                    landed = v.explored_areas(enc, geom if geom is not None else shapely.Polygon())
            return view, None, folded, landed
        except Exception as exc:  # noqa: BLE001 - as in refresh: the fog then hides everything
            return None, exc, None, None
        finally:
            self.worker_cpu += clock.cpu() - t0

    def _collect(self, wait: bool = False) -> None:
        """(On the GUI thread.) Take the worker's view when it is in (``wait``: wait for
        it): shown when nothing landed since it was asked for; then the newest step waiting
        goes to the worker."""
        if self._job is None:
            return
        gen, enc, fut = self._job
        if not fut.done() and not wait:
            self._poll.start(POLL_MS)
            return
        if not wait and not self._deferred:
            left = FOG_FRAME_MS - (clock.now() - self._shown_at) * 1e3
            if left >= 1:
                self._deferred = True  # (once: the next poll shows it, whatever the clock says)
                self._poll.start(int(left))
                return
        self._deferred = False
        self._poll.setInterval(POLL_MS)
        self._job = None
        self._poll.stop()
        view, exc, folded, _ = fut.result()
        if gen == self._generation and self.active:
            self.async_count += 1
            self._shown_at = clock.now()
            self.encounter = enc
            if exc is None:
                self.view, self.error = view, None
                self._record(enc, view)
                if folded is not None and folded[0] is self.document.committed:
                    self._folded = folded
            else:
                log.warning("party sight: %s", exc)
                self.view, self.error = None, str(exc)
            self.updated.emit()
        waiting, self._waiting = self._waiting, None
        if waiting is not None and not wait and gen == self._generation and self.active:
            self._submit(waiting)

    # -- explored grows on landed edits -------------------------------------------------------
    def _record(self, enc: Encounter, view) -> None:
        """Keep what the players are shown now (the fog on): each party token's area, by
        reference (no work beyond a few dict entries a drag step). Started afresh whenever
        the committed encounter changed (an edit landed, was undone or redone, a file was
        opened); a cancelled drag's steps stay, as the players saw them."""
        if not enc.sight.fog:
            return
        base = self.document.committed
        if self._shown_base is not base:
            self._shown_base, self._shown = base, {}
        for key, geom in getattr(view, "parts", ()):
            self._shown.setdefault(key, geom)

    def _shown_since(self, before: Encounter, view) -> list:
        """The areas the players were shown since ``before`` landed and not in ``view`` (the
        view after the edit): the union the worker folded over a token drag's steps (all of
        them), and of the areas not folded at most :attr:`MAX_SHOWN`: the first, then
        evenly spread."""
        if self._shown_base is not before or not before.sight.fog:
            return []
        now = {k for k, _ in getattr(view, "parts", ())}
        folded: list = []
        keys: frozenset = frozenset()
        if self._folded is not None and self._folded[0] is before and self._folded[2] is not None:
            _, keys, geom = self._folded
            folded = [geom]
        extra = [g for k, g in self._shown.items() if k not in now and k not in keys]
        if len(extra) > self.MAX_SHOWN:
            n = len(extra)
            m = self.MAX_SHOWN
            extra = extra[:m] if m <= 1 else [extra[round(i * (n - 1) / (m - 1))] for i in range(m)]
        return folded + extra

    def explore_on_commit(self, before: Encounter, after: Encounter, text: str) -> Encounter:
        """(A document commit hook.) With the fog on, ``after`` with what the party sees
        there and what the players were shown since ``before`` landed (the opening view, a
        drag's steps) added to its explored area; switching the fog on adds what the party
        sees then; unchanged for other edits of the fog itself and with the fog off. The
        drop of a drag finds the moved token's sight in the cache already."""
        try:
            self._collect(wait=True)  # (a drag step's view being worked out is what they see now)
            if not after.sight.fog:
                return after
            v = vision()
            if only_fog_changed(before, after):
                if before.sight.fog:
                    return after
                return v.explore(after, self.compute(after))  # the fog switched on
            landed = self._landed(before, after)
            if landed is not None:
                return v.with_areas(after, *landed)
            view = self.compute(after)
            return v.explore(after, view, also=self._shown_since(before, view))
        except Exception as exc:  # noqa: BLE001 - never lose the GM's edit to the fog's bookkeeping
            log.warning("explore: %s", exc)
            return after

    def _landed(self, before: Encounter, after: Encounter):
        """(At a landed edit with the fog on, the worker idle.) The explored areas of
        ``after`` (:func:`engine.vision.explored_areas`), worked out in the worker: the fold of
        ``before``'s explored areas with what the players were shown since it landed (every
        step of a drag), with what the party sees in ``after``. The GUI thread waits for it
        without working (the union, the simplification and the rounding to the 1 cm grid, on
        the 200-token / 2,000-obstacle scene about 10 ms of its CPU at every drop). None
        where this does not apply (previews worked out here, or an edit of the explored
        areas themselves or of the map: :func:`engine.vision.explore` then does it here)."""
        if not (self.ASYNC_PREVIEWS and before.sight.fog and self.view is not None
                and after.sight.explored is before.sight.explored and after.map is before.map):
            return None
        fold = self._fold_input(after, base=before)
        view, exc, _, landed = executor().submit(self._work, after, fold, True).result()
        if exc is not None:
            raise exc
        return landed


__all__ = ["PartySight", "only_fog_changed", "vision"]
