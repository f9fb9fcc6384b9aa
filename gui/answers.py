"""The engine's live answers for what the GM is looking at, computed once per change and
shared by every view (map layers, targets table, player view).

All numbers come from :class:`engine.analysis.Tactics`; nothing here measures anything.

Targets (distance, range, cover, zones) and zone hits are recomputed on every change,
previews included, since they take a few milliseconds. Charge plans cost 5-15 ms each (and
the first one builds the engine's movement graph), so the targets table's charge column is
filled in idle time after a change lands, a few plans per event-loop turn, while the
looked-at target's charge is computed at once.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict

from PySide6.QtCore import QObject, QTimer, Signal

from gui.document import DocumentChange, EncounterDocument
from gui.selection import Selection

log = logging.getLogger(__name__)

CHARGE_DELAY_MS = 150  # idle time after a change before the charge column is filled
CHARGE_SLICE_S = 0.010  # at most this long per event-loop turn filling it


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
        self._queue: list[str] = []
        self._delay = QTimer(self)
        self._delay.setSingleShot(True)
        self._delay.setInterval(CHARGE_DELAY_MS)
        self._delay.timeout.connect(self._start_charges)
        self._slicer = QTimer(self)
        self._slicer.setInterval(0)
        self._slicer.timeout.connect(self._charge_slice)
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
        self.selection.prune(self.document.encounter)
        self.recompute(change)

    def _on_selection(self) -> None:
        key = (self.attacker, self.selection.weapon)
        if key != self._attacker_key:
            self.recompute(targets_only=True)
        else:
            self.updated.emit()

    def recompute(self, change: DocumentChange | None = None, *, targets_only: bool = False) -> None:
        """Ask the engine again (after ``change``, or everything)."""
        self._sight.clear()
        self._stop_charges()
        self.charges = {}
        tactics = self.document.tactics
        self.error = self.document.tactics_error
        attacker = self.attacker
        self._attacker_key = (attacker, self.selection.weapon)
        if tactics is None or self.error:
            self.targets, self.target_order = {}, []
            self.zone_hits, self.token_zones = {}, {}
            self.updated.emit()
            return
        self.compute_count += 1
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
            self._queue = list(self.target_order)
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

    # -- charges, in idle time ---------------------------------------------------------------
    def _stop_charges(self) -> None:
        self._delay.stop()
        self._slicer.stop()
        self._queue = []

    def _start_charges(self) -> None:
        if self._queue:
            self._slicer.start()

    def _charge_slice(self) -> None:
        start = time.perf_counter()
        got = False
        while self._queue and time.perf_counter() - start < CHARGE_SLICE_S:
            tid = self._queue.pop(0)
            if tid not in self.charges:
                self.charge(tid)
                got = True
        if not self._queue:
            self._slicer.stop()
        if got:
            self.chargesUpdated.emit()

    @property
    def charges_pending(self) -> bool:
        return bool(self._queue)

    def finish_charges(self) -> None:
        """Compute every pending charge plan now (for tests and exports)."""
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
            start = time.perf_counter()
            try:
                self.charges[target_id] = tactics.charge(attacker, target_id)
            except ValueError as exc:
                log.warning("charge: %s", exc)
                self.charges[target_id] = None
            self._last_charge_ms = (time.perf_counter() - start) * 1e3
        return self.charges[target_id]

    def live_charge(self, target_id: str):
        """The charge plan for the looked-at target, or None for now when plans are slow on
        this map (the last took over ``LIVE_CHARGE_BUDGET_MS``): then it comes
        (``focusUpdated``) once the mouse rests, so hovering and dragging stay smooth."""
        if target_id in self.charges:
            return self.charges[target_id]
        if self._last_charge_ms > self.LIVE_CHARGE_BUDGET_MS:
            self._focus_pending = target_id
            self._focus_later.start()
            return None
        return self.charge(target_id)

    def _focus_charge(self) -> None:
        tid, self._focus_pending = self._focus_pending, None
        if tid is not None and self.attacker is not None:
            self.charge(tid)  # (may be known already, from the idle-time fill)
            self.focusUpdated.emit()
