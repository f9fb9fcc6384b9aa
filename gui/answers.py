"""The engine's live answers for what the GM is looking at, computed once per change and
shared by every view (map layers, targets table, player view).

All numbers come from :class:`engine.analysis.Tactics`; nothing here measures anything.
"""

from __future__ import annotations

import logging
from collections import defaultdict

from PySide6.QtCore import QObject, Signal

from gui.document import DocumentChange, EncounterDocument
from gui.selection import Selection

log = logging.getLogger(__name__)


class LiveAnswers(QObject):
    """Targets of the selected attacker and the tokens each zone touches.

    ``updated`` fires after they were recomputed. ``targets`` maps target id to the engine's
    ``TargetReport`` (empty without an attacker); ``zone_hits`` maps zone id to its
    ``ZoneHit`` list; ``token_zones`` maps token id to ``[(zone_id, fraction), ...]``.
    :meth:`sight` and :meth:`charge` answer for one target on demand (cached until the next
    change)."""

    updated = Signal()

    def __init__(self, document: EncounterDocument, selection: Selection, parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        self.selection = selection
        self.targets: dict[str, object] = {}
        self.target_order: list[str] = []
        self.zone_hits: dict[str, list] = {}
        self.token_zones: dict[str, list[tuple[str, float]]] = {}
        self.error: str | None = None
        self._attacker_key: tuple | None = None
        self._sight: dict[tuple, object] = {}
        self._charge: dict[tuple, object] = {}
        self.compute_count = 0
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
        key = (self.selection.attacker, self.selection.weapon)
        if key != self._attacker_key:
            self.recompute(targets_only=True)
        else:
            self.updated.emit()

    def recompute(self, change: DocumentChange | None = None, *, targets_only: bool = False) -> None:
        """Ask the engine again (after ``change``, or everything)."""
        self._sight.clear()
        self._charge.clear()
        tactics = self.document.tactics
        self.error = self.document.tactics_error
        if tactics is None or self.error:
            self.targets, self.target_order = {}, []
            if not targets_only:
                self.zone_hits, self.token_zones = {}, {}
            self.updated.emit()
            return
        self.compute_count += 1
        attacker = self.attacker
        self._attacker_key = (self.selection.attacker, self.selection.weapon)
        try:
            if attacker is not None:
                weapon = self.selection.weapon
                reports = tactics.targets(attacker, weapon)
                self.targets = {r.id: r for r in reports}
                self.target_order = [r.id for r in reports]
            else:
                self.targets, self.target_order = {}, []
            if not targets_only:
                self._zones(change)
        except ValueError as exc:  # the engine's own refusal, shown to the GM
            self.error = str(exc)
            log.warning("analysis: %s", exc)
            self.targets, self.target_order = {}, []
        self.updated.emit()

    def _zones(self, change: DocumentChange | None) -> None:
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

    # -- one target ---------------------------------------------------------------------
    def sight(self, target_id: str):
        """The engine's line-of-sight report from the attacker to ``target_id`` (None
        without an attacker or engine, or for the attacker itself)."""
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
        """The engine's charge plan from the attacker to ``target_id`` (reused from the
        targets report when it holds one)."""
        attacker = self.attacker
        tactics = self.document.tactics
        if attacker is None or tactics is None or target_id == attacker or self.error:
            return None
        report = self.targets.get(target_id)
        if report is not None and getattr(report, "charge", None) is not None:
            return report.charge
        key = (attacker, target_id)
        if key not in self._charge:
            try:
                self._charge[key] = tactics.charge(attacker, target_id)
            except ValueError as exc:
                log.warning("charge: %s", exc)
                self._charge[key] = None
        return self._charge[key]
