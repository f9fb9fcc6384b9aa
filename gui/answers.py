"""The engine's live answers for what the GM is looking at, computed once per change and
shared by every view (map layers, targets table, player view).

All numbers come from :class:`engine.analysis.Tactics`; nothing here measures anything.

Targets (distance, range, cover, zones) and zone hits are recomputed on every change,
previews included, since they take a few milliseconds (obstacle edits only edit the
engine's indexes near the change). Charge plans cost 1-100 ms each, and the first one after
opening a map or changing an obstacle builds or edits the movement graph (up to a second on
a 10,000-obstacle map), so the targets table's charge column is filled in the background
once a change lands (:mod:`gui.charge_worker`: in the planner's own process from
:data:`~gui.charge_worker.PROCESS_FROM` obstacles, in short slices on the GUI thread on
smaller maps); results are tagged with the revision of the
answers they belong to and dropped when a newer change came meanwhile, and the column reads
"pending" until they arrive. The looked-at target's charge is computed at once when that is
cheap (the graph is there and plans are fast), else the worker does it first.
"""

from __future__ import annotations

import logging
from collections import defaultdict

from PySide6.QtCore import QObject, QTimer, Signal

from engine import clock
from gui.charge_worker import PROCESS_FROM, ChargeJob, ProcessChargeWorker, start_planner
from gui.document import DocumentChange, EncounterDocument
from gui.selection import Selection

log = logging.getLogger(__name__)

CHARGE_DELAY_MS = 150  # idle time after a change before the charge column is filled
#: Obstacles up to which the looked-at target's charge may build the movement graph at once
#: on the GUI thread (a small map: milliseconds, as :data:`gui.charge_worker.PROCESS_FROM`);
#: on bigger maps the planner process builds it.
SYNC_GRAPH_OBSTACLES = 48


class LiveAnswers(QObject):
    """Targets of the selected attacker and the tokens each zone touches.

    Signals: ``updated`` after targets and zones were recomputed; ``chargesUpdated`` when
    more charge plans are known. ``targets`` maps target id to the engine's ``TargetReport``
    (empty without an attacker), in ``target_order``; ``charges`` maps target id to a
    ``ChargePlan`` (filled in idle time, see :meth:`finish_charges`); ``zone_hits`` maps zone
    id to its ``ZoneHit`` list; ``token_zones`` maps token id to ``[(zone_id, fraction)]``.
    """

    updated = Signal()
    chargesUpdated = Signal()
    focusUpdated = Signal()

    #: When the last charge plan took longer than this (ms), the looked-at target's plan is
    #: worked out only when the mouse rests (``FOCUS_DELAY_MS``), so the map stays smooth.
    LIVE_CHARGE_BUDGET_MS = 8.0
    FOCUS_DELAY_MS = 150

    def __init__(self, document: EncounterDocument, selection: Selection, parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        self.selection = selection
        self.targets: dict[str, object] = {}
        self.target_order: list[str] = []
        self.charges: dict[str, object] = {}
        self.zone_hits: dict[str, list] = {}
        self.token_zones: dict[str, list[tuple[str, float]]] = {}
        self.error: str | None = None
        self.compute_count = 0
        self._attacker_key: tuple | None = None
        self._sight: dict[tuple, object] = {}
        self.revision = 0  # of the answers: every recomputation makes a new one
        self._wanted = False  # the charge column is to be filled for this revision
        self._delay = QTimer(self)
        self._delay.setSingleShot(True)
        self._delay.setInterval(CHARGE_DELAY_MS)
        self._delay.timeout.connect(self._start_charges)
        self.worker = ProcessChargeWorker(self)
        self.worker.delivered.connect(self._on_delivered)
        self._last_charge_ms = 0.0
        self._focus_pending: str | None = None
        self._focus_later = QTimer(self)
        self._focus_later.setSingleShot(True)
        self._focus_later.setInterval(self.FOCUS_DELAY_MS)
        self._focus_later.timeout.connect(self._focus_charge)
        document.changed.connect(self._on_document)
        selection.changed.connect(self._on_selection)
        self.recompute()

    @property
    def available(self) -> bool:
        """Whether the engine's analysis is there to ask."""
        return self.document.tactics is not None

    @property
    def attacker(self) -> str | None:
        a = self.selection.attacker
        if a is None:
            return None
        return a if any(t.id == a for t in self.document.encounter.tokens) else None

    # -- recomputation -------------------------------------------------------------------
    def _on_document(self, change: DocumentChange) -> None:
        self._pruning = True  # (the recompute below answers the pruned selection too)
        try:
            self.selection.prune(self.document.encounter)
        finally:
            self._pruning = False
        if change.changes is not None and not change.preview and not self._reads(change.changes):
            return  # a rule outcome that changed nothing the answers read (it says what it changed)
        self.recompute(change)

    def _reads(self, changes) -> bool:
        """Whether a rule outcome's ``changes`` (``engine.rules.Changes``) name anything the
        answers are made of: a token's body on the map, the obstacles, zones, map, lights or
        sight, the per-system data (movement left, for the charges) or the attacker's own
        (its ready weapon, its aids)."""
        return bool(changes.bodies or changes.obstacles or changes.zones or changes.map or changes.lights
                    or changes.sight or changes.settings or self.attacker in changes.tokens)

    def _on_selection(self) -> None:
        if getattr(self, "_pruning", False):
            return
        key = (self.attacker, self.selection.weapon)
        if key != self._attacker_key:
            self.recompute(targets_only=True)
        elif self._selection_shown != self._shown_of_selection():
            # the looked-at target (its sight line and charge) or the lock changed: the same
            # answers, shown again. An obstacle or zone picked changes nothing the answers'
            # readers show (the selection's own outline follows selection.changed): on a
            # 10,000-obstacle map the new wall's selection redid the badges, the legend and
            # the targets table in the wall's own turn
            self._selection_shown = self._shown_of_selection()
            self.updated.emit()

    def _shown_of_selection(self) -> tuple:
        """What of the selection the answers' readers show besides the attacker and weapon."""
        return (self.selection.focus, self.selection.attacker_locked)

    def recompute(self, change: DocumentChange | None = None, *, targets_only: bool = False) -> None:
        """Ask the engine again (after ``change``, or everything)."""
        self._sight.clear()
        self._stop_charges()
        self.revision += 1
        self.charges = {}
        tactics = self.document.tactics
        self.error = self.document.tactics_error
        attacker = self.attacker
        self._attacker_key = (attacker, self.selection.weapon)
        self._selection_shown = self._shown_of_selection()
        if tactics is None or self.error:
            self.targets, self.target_order = {}, []
            self.zone_hits, self.token_zones = {}, {}
            self.updated.emit()
            return
        self.compute_count += 1
        if len(tactics.cover_index.polygons) >= PROCESS_FROM:
            start_planner()  # (a big map: the charge planner's process, started in the background)
        try:
            if attacker is not None:
                reports = tactics.targets(attacker, self.selection.weapon)
                self.targets = {r.id: r for r in reports}
                self.target_order = [r.id for r in reports]
            else:
                self.targets, self.target_order = {}, []
            if not targets_only:
                self._zones()
        except ValueError as exc:  # the engine's own refusal, shown to the GM
            self.error = str(exc)
            log.warning("analysis: %s", exc)
            self.targets, self.target_order = {}, []
        self.updated.emit()
        if attacker is not None and not (change is not None and change.preview):
            self._wanted = True
            self._delay.start()

    def _zones(self) -> None:
        enc = self.document.encounter
        if not enc.zones:
            self.zone_hits, self.token_zones = {}, {}
            return
        hits = self.document.tactics.zone_hits()
        by_token: dict[str, list[tuple[str, float]]] = defaultdict(list)
        for zid, zhits in hits.items():
            for h in zhits:
                by_token[h.id].append((zid, float(h.fraction)))
        self.zone_hits = hits
        self.token_zones = dict(by_token)

    # -- charges, in the background ----------------------------------------------------------
    def _stop_charges(self) -> None:
        self._delay.stop()
        self.worker.cancel()
        self._wanted = False

    def _job(self) -> ChargeJob | None:
        job = self.worker.job
        return job if job is not None and job.revision == self.revision and not job.done else None

    def _start_charges(self, first: str | None = None) -> None:
        """Hand the charges still missing (``first`` first) to the worker."""
        tactics, attacker = self.document.tactics, self.attacker
        if tactics is None or attacker is None or self.error:
            return
        job = self._job()
        if job is not None:
            if first is not None:
                job.hurry(first)
            return
        todo = [t for t in self.target_order if t not in self.charges] if self._wanted else []
        if first is not None and first not in self.charges:
            todo.insert(0, first)
        if todo:
            self.worker.start(ChargeJob(self.revision, tactics.snapshot(), attacker, todo))

    def _on_delivered(self, job: ChargeJob, plans: dict, done: bool) -> None:
        if job.revision != self.revision:
            return  # answers of an encounter that is no longer shown
        for tid, plan in plans.items():
            self.charges.setdefault(tid, plan)
        if plans:
            self.chargesUpdated.emit()
        if self._focus_pending is not None and self._focus_pending in self.charges:
            self._focus_pending = None
            self.focusUpdated.emit()

    @property
    def charges_pending(self) -> bool:
        """Whether charge plans of the current answers are still being worked out."""
        return self._wanted and any(t not in self.charges for t in self.target_order)

    def finish_charges(self) -> None:
        """Compute every pending charge plan now, on this thread (for tests and exports)."""
        self._stop_charges()
        for tid in self.target_order:
            if tid not in self.charges:
                self.charge(tid)
        self.chargesUpdated.emit()

    # -- one target ---------------------------------------------------------------------
    def sight(self, target_id: str):
        """The engine's ``SightReport`` from the attacker to ``target_id`` (None without an
        attacker or engine, or for the attacker itself)."""
        attacker = self.attacker
        tactics = self.document.tactics
        if attacker is None or tactics is None or target_id == attacker or self.error:
            return None
        key = (attacker, target_id)
        if key not in self._sight:
            try:
                self._sight[key] = tactics.line_of_sight(attacker, target_id)
            except ValueError as exc:
                log.warning("line of sight: %s", exc)
                self._sight[key] = None
        return self._sight[key]

    def charge(self, target_id: str):
        """The engine's ``ChargePlan`` from the attacker to ``target_id`` (kept until the
        next change)."""
        attacker = self.attacker
        tactics = self.document.tactics
        if attacker is None or tactics is None or target_id == attacker or self.error:
            return None
        if target_id not in self.charges:
            with self.worker.lock:  # (the worker may be planning on the same navigator)
                start = clock.now()
                try:
                    plan = tactics.charge(attacker, target_id)
                except ValueError as exc:
                    log.warning("charge: %s", exc)
                    plan = None
                self._last_charge_ms = (clock.now() - start) * 1e3
            self.charges[target_id] = plan
        return self.charges[target_id]

    def live_charge(self, target_id: str):
        """The charge plan for the looked-at target, or None for now when working it out
        could make the map stutter (plans are slow on this map -- the last took over
        ``LIVE_CHARGE_BUDGET_MS`` --, the movement graph is not built yet on a big map, or
        the worker is busy with a plan): then the worker does it first and it comes
        (``focusUpdated``) once the mouse rests."""
        if target_id in self.charges:
            return self.charges[target_id]
        attacker, tactics = self.attacker, self.document.tactics
        if attacker is None or tactics is None or target_id == attacker or self.error:
            return None
        try:
            ready = tactics.has_graph(attacker) or len(tactics.cover_index.polygons) <= SYNC_GRAPH_OBSTACLES
        except ValueError:
            return None
        if ready and self._last_charge_ms <= self.LIVE_CHARGE_BUDGET_MS and self.worker.lock.acquire(blocking=False):
            self.worker.lock.release()
            return self.charge(target_id)
        self._focus_pending = target_id
        self._focus_later.start()
        return None

    def _focus_charge(self) -> None:
        tid = self._focus_pending
        if tid is None or self.attacker is None:
            return
        if tid in self.charges:
            self._focus_pending = None
            self.focusUpdated.emit()
            return
        self._start_charges(first=tid)
