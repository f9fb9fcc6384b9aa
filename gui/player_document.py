"""What the players know, as a read-only document the player view draws (and the answers it
shows are worked out from).

:class:`PlayerDocument` follows the GM's :class:`gui.document.EncounterDocument`: its
encounter is the engine's ``players_knowledge`` of the GM's (hidden obstacles, hidden
tokens left out: :func:`engine.vision.players_knowledge`) and, while the fog is on, only
the tokens the party is shown (``PartyView.visible``: its own sides' tokens, and other
sides' tokens while in the party's sight). It has its own :class:`engine.analysis.Tactics`,
so cover badges, range rings and zone hits in the player view come from what the players
know (a hidden wall gives no "full" badge there), while the GM's window keeps the true
answers. :class:`PlayerAnswers` is the player view's :class:`gui.answers.LiveAnswers`
counterpart (targets and zone hits, no charges: the player view draws none).

Identity is kept where nothing changed (the same obstacle and zone tuples while the GM's
are the same), so a drag step only moves a token here too and the engine keeps its indexes.
"""

from __future__ import annotations

import logging
from collections import defaultdict

from PySide6.QtCore import QObject, Signal

from engine.model import Encounter
from engine.vision import zones_without_owners
from gui.document import DocumentChange, EncounterDocument
from gui.edits import diff
from gui.party_sight import PartySight, vision
from gui.selection import Selection

log = logging.getLogger(__name__)


class PlayerDocument(QObject):
    """The players' side of a document (read-only): ``encounter``, ``tactics``,
    ``tactics_error``, ``path`` and the ``changed(DocumentChange)`` signal, as the map
    views and answers read them from an :class:`EncounterDocument`. ``view`` is the party's
    :class:`engine.vision.PartyView` it was filtered with (None: fog off)."""

    changed = Signal(object)

    def __init__(self, source: EncounterDocument, sight: PartySight, parent: QObject | None = None):
        super().__init__(parent)
        self.source = source
        self.sight = sight
        self._parts: dict[str, tuple] = {}
        self._tokens_key: tuple | None = None
        self._tokens: tuple = ()
        self._encounter = self.players_encounter(source.encounter)
        self._tactics = self._make_tactics(self._encounter)
        self.tactics_error: str | None = None
        self._shared = self._tactics is not None and self._tactics_shares(self._encounter)
        sight.updated.connect(self._on_sight)

    # -- the document interface ----------------------------------------------------------------
    @property
    def encounter(self) -> Encounter:
        return self._encounter

    @property
    def tactics(self):
        return self._tactics

    @property
    def path(self):
        return self.source.path

    @property
    def view(self):
        """The party's view the tokens were filtered by (None while the fog is off)."""
        enc = self.source.encounter
        if not enc.sight.fog:
            return None
        if self.sight.view is None:  # (the engine could not work it out: nothing is shown)
            import shapely

            shown = frozenset(t.id for t in self._encounter.tokens)
            return vision().PartyView(shapely.Polygon(), shapely.Polygon(), shown)
        return self.sight.view

    def close(self) -> None:
        """Stop following (the player view closed)."""
        try:
            self.sight.updated.disconnect(self._on_sight)
        except (RuntimeError, TypeError):
            pass

    # -- what the players know --------------------------------------------------------------------
    def _same(self, name: str, source_value, make):
        """The knowledge's ``name`` part: the one made last time while the GM's ``source_value``
        is the very same value, else ``make()``."""
        hit = self._parts.get(name)
        if hit is not None and hit[0] is source_value:
            return hit[1]
        value = make()
        self._parts[name] = (source_value, value)
        return value

    def players_encounter(self, enc: Encounter) -> Encounter:
        """What the players know of ``enc``: the engine's ``players_knowledge`` with, while
        the fog is on, only the tokens of ``PartyView.visible``."""
        know = None

        def knowledge():
            nonlocal know
            if know is None:
                know = vision().players_knowledge(enc)
            return know

        obstacles = self._same("obstacles", enc.obstacles, lambda: knowledge().obstacles)
        zones = self._same("zones", enc.zones, lambda: knowledge().zones)
        view = self.sight.view if enc.sight.fog else None
        if view is None and enc.sight.fog:
            shown_ids = frozenset(t.id for t in enc.tokens if not t.hidden and self._is_player(enc, t))
        elif view is not None:
            shown_ids = frozenset(view.visible)
        else:
            shown_ids = None  # no fog: every token the players may know of
        key = (enc.tokens, shown_ids)
        if self._tokens_key is None or self._tokens_key[0] is not enc.tokens or self._tokens_key[1] != shown_ids:
            if shown_ids is None:
                known = {t.id for t in knowledge().tokens}
                tokens = tuple(t for t in enc.tokens if t.id in known)
            else:
                tokens = tuple(t for t in enc.tokens if t.id in shown_ids and not t.hidden)
            if len(tokens) == len(enc.tokens):
                tokens = enc.tokens
            self._tokens_key, self._tokens = key, tokens
        tokens = self._tokens
        if tokens is not enc.tokens:
            zones = self._zones_of(enc, zones, tokens)
        if obstacles is enc.obstacles and zones is enc.zones and tokens is enc.tokens:
            return enc
        return enc.model_copy(update={"obstacles": obstacles, "zones": zones, "tokens": tokens})

    def _zones_of(self, enc: Encounter, zones: tuple, tokens: tuple) -> tuple:
        """``zones`` without owners the players are not shown (as the engine does for a hidden
        owner: the zone stays where it was fired from; a shotgun spread, which needs its
        owner, goes)."""
        shown = {t.id for t in tokens}
        gone = frozenset(z.owner for z in zones if z.owner is not None and z.owner not in shown)
        if not gone:
            return zones
        hit = self._parts.get("owned zones")
        if hit is not None and hit[0] is zones and hit[1] == gone:
            return hit[2]
        out = zones_without_owners(enc, zones, gone)
        self._parts["owned zones"] = (zones, gone, out)
        return out

    @staticmethod
    def _is_player(enc: Encounter, token) -> bool:
        try:
            return vision().is_players(enc, token)
        except ValueError:
            return False

    def _tactics_shares(self, enc: Encounter) -> bool:
        return enc.obstacles is self.source.encounter.obstacles and self.source.tactics is not None

    def _make_tactics(self, enc: Encounter):
        """The players' Tactics: while the obstacles are the GM's very ones, a follower of the
        GM's (:meth:`engine.analysis.Tactics.follower`: the same indexes, no second build, and
        the GM's cover answers, asked for when needed, so the order in which the two documents
        hear of a change does not matter)."""
        from engine.analysis import Tactics

        self._shared = self._tactics_shares(enc)
        return self.source.tactics.follower(enc) if self._shared else Tactics(enc)

    # -- following the GM's document --------------------------------------------------------------
    def _on_sight(self) -> None:
        change = self.sight.last_change
        reset = change is not None and change.reset
        new = self.players_encounter(self.source.encounter)
        previous = self._encounter
        if new is previous and not reset:
            return
        self._encounter = new
        try:
            shares = self._tactics_shares(new)
            if self._tactics is None or reset or shares != self._shared or \
                    (shares and not self.source.tactics.shares_indexes(self._tactics)):
                self._tactics = self._make_tactics(new)
            else:
                self._tactics.update(new)
            self.tactics_error = None
        except ValueError as exc:  # the engine refused this state
            self.tactics_error = str(exc)
        d = diff(None, new) if reset else diff(previous, new)
        self.changed.emit(DocumentChange(d, preview=self.source.in_preview, reset=reset))


class PlayerAnswers(QObject):
    """The engine's answers for the player view, from the :class:`PlayerDocument`: targets
    of the GM's attacker (when the players know of it) and zone hits. The same names as
    :class:`gui.answers.LiveAnswers` where the map views read them; no charges, no sight
    lines (the player view draws neither)."""

    updated = Signal()
    focusUpdated = Signal()
    chargesUpdated = Signal()

    def __init__(self, document: PlayerDocument, selection: Selection, parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        self.selection = selection
        self.targets: dict[str, object] = {}
        self.target_order: list[str] = []
        self.charges: dict = {}
        self.zone_hits: dict[str, list] = {}
        self.token_zones: dict[str, list[tuple[str, float]]] = {}
        self.error: str | None = None
        self.compute_count = 0
        self._key = None
        document.changed.connect(lambda _change: self.recompute())
        selection.changed.connect(self._on_selection)
        self.recompute()

    @property
    def attacker(self) -> str | None:
        a = self.selection.attacker
        if a is None:
            return None
        return a if any(t.id == a for t in self.document.encounter.tokens) else None

    def _on_selection(self) -> None:
        if (self.attacker, self.selection.weapon) != self._key:
            self.recompute(targets_only=True)
        else:
            self.updated.emit()

    def recompute(self, *, targets_only: bool = False) -> None:
        tactics = self.document.tactics
        attacker = self.attacker
        self._key = (attacker, self.selection.weapon)
        self.error = self.document.tactics_error
        if tactics is None or self.error:
            self.targets, self.target_order, self.zone_hits, self.token_zones = {}, [], {}, {}
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
        except ValueError as exc:
            self.error = str(exc)
            log.warning("player answers: %s", exc)
            self.targets, self.target_order = {}, []
        self.updated.emit()

    def _zones(self) -> None:
        if not self.document.encounter.zones:
            self.zone_hits, self.token_zones = {}, {}
            return
        hits = self.document.tactics.zone_hits()
        by_token: dict[str, list[tuple[str, float]]] = defaultdict(list)
        for zid, zhits in hits.items():
            for h in zhits:
                by_token[h.id].append((zid, float(h.fraction)))
        self.zone_hits, self.token_zones = hits, dict(by_token)

    def sight(self, target_id: str):  # the player view draws no sight lines
        return None

    def live_charge(self, target_id: str):  # nor charge paths
        return None


__all__ = ["PlayerAnswers", "PlayerDocument"]
