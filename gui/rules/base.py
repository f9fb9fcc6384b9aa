"""What every rule system's controller on a main window does the same way.

:class:`LogMirror` keeps one rule system's lines in the shared combat log
(:mod:`gui.combat_log`) in step with the log the engine saves in the encounter: each batch
(one action's lines) remembers which slice of the saved log it shows, so after an undo or a
redo the batches whose entries left the saved log are struck through and those back in it
are restored.

:class:`RuleController` is a controller that is active while the open encounter's
``ruleset`` is its own, shows the saved log when an encounter is opened, and follows undo,
redo and edits. A rule system says how to read its saved log (:meth:`RuleController.saved_log`)
and how an entry becomes a line of the shared log (:meth:`RuleController.log_lines`).

No rule here: the entries and their text are the engine's.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, Signal

from engine.model import Encounter
from gui.combat_log import CombatLog


def token_name(encounter: Encounter, ident: str | None) -> str:
    """The token's name (its id when it has none); ``ident`` itself for an unknown id, ""
    for None."""
    if ident is None:
        return ""
    for t in encounter.tokens:
        if t.id == ident:
            return t.name or t.id
    return ident


def picked_targets(selection, encounter: Encounter, actor: str | None) -> list[str]:
    """The targets the GM picked on the map for ``actor``'s action, in picking order: the
    tokens targeted (hover + T, the map's red rings), else the selected tokens other than
    the actor (shift-click adds), else the token looked at (focus)."""
    ids = {t.id for t in encounter.tokens}
    out = [i for i in getattr(selection, "targets", ()) if i in ids and i != actor]
    if not out:
        out = [i for i in selection.ids if i in ids and i != actor]
    if not out and selection.focus in ids and selection.focus != actor:
        out = [selection.focus]
    return out


def take_down_decorations(layer, shown: dict) -> None:
    """Clear the token layer's decorations (:meth:`gui.layers.TokenLayer.set_decorations`)
    while they are still ``shown``, the ones this rule system set last (the layer keeps only
    those with bars or tags); another rule system's are left alone."""
    if shown and layer.decorations == {k: v for k, v in shown.items() if v.bars or v.tags}:
        layer.set_decorations({})


class LogMirror:
    """One rule system's batches in the shared combat log, each mirroring a slice of the
    encounter's saved log (entries compared with ``==``)."""

    def __init__(self, log: CombatLog, ruleset: str):
        self.log = log
        self.ruleset = ruleset
        self._batches: dict[int, tuple[int, tuple]] = {}  # batch id -> (start, entries) it mirrors

    def clear(self) -> None:
        """Forget every batch and take this rule system's lines out of the log."""
        self._batches.clear()
        self.log.clear(self.ruleset)

    def add(self, start: int, entries: Sequence, lines, *, round: int | None = None,
            timestamp: bool | None = True) -> int:
        """Add ``lines`` (texts or (text, kind) pairs) as one batch that mirrors ``entries``,
        the saved log's entries from index ``start`` on; returns the batch id.
        ``timestamp=None`` marks lines loaded from the file (see :meth:`CombatLog.add`)."""
        batch = self.log.add(lines, self.ruleset, round=round, timestamp=timestamp)
        self._batches[batch] = (start, tuple(entries))
        return batch

    def sync(self, saved: Sequence) -> None:
        """Strike through the batches whose entries left ``saved`` (the encounter's saved
        log: undone), restore those back in it (redone)."""
        for batch, (start, entries) in self._batches.items():
            live = tuple(saved[start:start + len(entries)]) == entries
            self.log.set_undone(batch, not live)


class RuleController(QObject):
    """The rule system :attr:`ruleset` on one main window. Signals: ``activeChanged(bool)``
    when an encounter of this rule system is opened or left; ``applied(change)`` after an
    action landed (emitted by the subclass); ``stateChanged()`` after any committed change of
    the encounter (edits, undo, redo, files).

    A subclass sets :attr:`ruleset` and overrides :meth:`saved_log` and :meth:`log_lines`."""

    activeChanged = Signal(bool)
    applied = Signal(object)
    stateChanged = Signal()

    #: The ``Encounter.ruleset`` this controller serves.
    ruleset: str = ""

    def __init__(self, window, log: CombatLog):
        super().__init__(window)
        self.window = window
        self.document = window.document
        self.selection = window.selection
        self.log = log
        self.last_change = None
        self._mirror = LogMirror(log, self.ruleset)
        self._active = False
        self.document.changed.connect(self._on_document)
        self._reset()

    # -- what a rule system says ------------------------------------------------------------------
    def saved_log(self, encounter: Encounter) -> Sequence:
        """The rule system's log entries saved in ``encounter`` (oldest first)."""
        raise NotImplementedError

    def log_lines(self, entries: Sequence) -> list[tuple[str, str]]:
        """The shared log's (text, kind) lines for saved log ``entries``."""
        raise NotImplementedError

    # -- state ------------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        """Whether the open encounter uses this rule system."""
        return self._active

    @property
    def encounter(self) -> Encounter:
        """The committed encounter (a drag in progress is ignored)."""
        return self.document.committed

    def name(self, ident: str | None) -> str:
        return token_name(self.encounter, ident)

    # -- the combat log ---------------------------------------------------------------------------
    def add_log(self, start: int, entries: Sequence, *, round: int | None = None,
                timestamp: bool | None = True) -> None:
        """Show ``entries`` (the saved log's from index ``start`` on) in the shared combat log
        as one batch, which undo strikes through."""
        self._mirror.add(start, entries, self.log_lines(entries), round=round, timestamp=timestamp)

    # -- document ---------------------------------------------------------------------------------
    def _on_document(self, change) -> None:
        if change.reset:
            self._reset()
            return
        if change.preview:
            return
        if (self.document.encounter.ruleset == self.ruleset) != self._active:
            self._reset()  # the ruleset itself was edited
            return
        self._sync_log()
        self.stateChanged.emit()

    def _reset(self) -> None:
        enc = self.document.encounter
        active = enc.ruleset == self.ruleset
        self.last_change = None
        self._mirror.clear()
        if active:
            saved = self.saved_log(enc)
            if saved:
                self.add_log(0, saved, timestamp=None)
        changed = active != self._active
        self._active = active
        self.log.want(self.ruleset, active)
        if changed:
            self.activeChanged.emit(active)
        self.stateChanged.emit()

    def _sync_log(self) -> None:
        """Strike through the batches whose entries left the encounter's saved log (undone),
        restore those back in it (redone)."""
        self._mirror.sync(self.saved_log(self.document.encounter) if self._active else ())


__all__ = ["LogMirror", "RuleController", "picked_targets", "take_down_decorations", "token_name"]
