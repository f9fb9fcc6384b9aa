"""The open encounter without Qt (issue 27 item 3): the committed and the previewed values,
the steps of the undo history as values, the hooks every landing passes through, and the
engine's ``Tactics`` kept in step. :class:`gui.document.EncounterDocument` holds one and only
signals what it did (its ``QUndoStack`` orders the steps), so this logic is tested without a
window (tests/test_session.py).

A landing: :meth:`Session.land` from the committed state (a placement: an x/y typed in the
Inspector is not movement) or :meth:`Session.land_moves` (a drag's ``MoveTo`` values, charged
by :attr:`Session.moves_hook` in the same step); then every :attr:`~Session.commit_hooks`
hook in order, the :attr:`~Session.record_hook` last. It gives the :class:`Step` to push, or
None when nothing changed. A rule system's landing hands its ``Outcome.changes``
(``engine.rules.Changes``): the step keeps them (with what the hooks added), and so do its
undo and redo, for the panels to refresh from.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.analysis import Tactics
from engine.model import Encounter
from engine.rules import Changes, MoveTo, move_tokens

log = logging.getLogger(__name__)

Hook = Callable[[Encounter, Encounter, str], Encounter]


@dataclass
class Step:
    """One undo step: the encounter ``before`` and ``after`` an edit, named ``text``
    (rewritten in place when a save moves the file's folder: :meth:`Session.rebase`), and
    for a rule system's outcome what it ``changes`` (either way: undo changes the same)."""

    before: Encounter
    after: Encounter
    text: str
    changes: Changes | None = None


class Session:
    """See the module docstring. ``encounter`` is what shows (a drag's preview included),
    ``committed`` the value of the last finished edit."""

    def __init__(self, encounter: Encounter, obstacles=None):
        self.encounter = encounter
        self.committed = encounter
        self.tactics = Tactics(encounter, obstacles=obstacles)
        self.tactics_error: str | None = None
        #: ``hook(before, moves, text) -> (encounter, text) | None``, asked by :meth:`land_moves`
        #: with a drag's ``MoveTo`` values (the rule system's ``on_moves`` charges them);
        #: None: moves are plain edits. :meth:`land` never asks it.
        self.moves_hook: Callable[[Encounter, tuple[MoveTo, ...], str], tuple[Encounter, str] | None] | None = None
        #: ``hook(before, after, text) -> Encounter``, each landing passed through in order
        #: (the party's sight adds what it sees to the explored area: gui.party_sight).
        self.commit_hooks: list[Hook] = []
        #: run after every other hook: the fight's recorder (gui.recorder)
        self.record_hook: Hook | None = None

    @property
    def in_preview(self) -> bool:
        return self.encounter is not self.committed

    # -- landing ---------------------------------------------------------------------------------
    def land(self, encounter: Encounter, text: str, before: Encounter | None = None,
             changes: Changes | None = None) -> Step | None:
        """The step of an edit from ``before`` (the committed state) to ``encounter``, through
        the hooks; None when nothing changed. ``changes``: what a rule system's outcome says
        it changed (what the hooks change besides is added)."""
        before = self.committed if before is None else before
        if encounter is before or encounter == before:
            return None
        outcome = encounter
        for extra in self.commit_hooks:
            encounter = extra(before, encounter, text)
        if self.record_hook is not None:  # last: it records the step as it lands
            encounter = self.record_hook(before, encounter, text)
        if changes is not None and encounter is not outcome:
            changes = changes | Changes.between(outcome, encounter)
        return Step(before, encounter, text, changes)

    def land_moves(self, moves: Sequence[MoveTo], text: str) -> Step | None:
        """The step of a drag of tokens from the committed state: the moves, charged by the
        :attr:`moves_hook` (which may give the encounter and the text instead)."""
        before = self.committed
        encounter = move_tokens(before, moves)
        if self.moves_hook is not None and encounter != before:
            charged = self.moves_hook(before, tuple(moves), text)
            if charged is not None:
                encounter, text = charged
        return self.land(encounter, text, before)

    # -- showing ---------------------------------------------------------------------------------
    def show(self, encounter: Encounter, *, preview: bool = False) -> Encounter:
        """Show ``encounter`` (committed unless ``preview``), the ``Tactics`` following it;
        returns what showed before."""
        previous = self.encounter
        self.encounter = encounter
        if not preview:
            self.committed = encounter
        self._follow(encounter)
        return previous

    def undo(self, step: Step) -> Encounter:
        """Show the value before ``step``; returns what showed."""
        return self.show(step.before)

    def redo(self, step: Step) -> Encounter:
        """Show the value after ``step``; returns what showed."""
        return self.show(step.after)

    def reset(self, encounter: Encounter, obstacles=None) -> None:
        """A whole new encounter (a file opened): a fresh ``Tactics`` (``obstacles``: already
        indexed, :class:`engine.obstacles.ObstacleSet`)."""
        self.encounter = self.committed = encounter
        self._follow(encounter, reset=True, obstacles=obstacles)

    @staticmethod
    def rebase(steps: Sequence[Step], rewrite: Callable[[Encounter], Encounter]) -> None:
        """Rewrite every value ``steps`` hold (a save moved the file's folder)."""
        for step in steps:
            step.before, step.after = rewrite(step.before), rewrite(step.after)

    def _follow(self, encounter: Encounter, reset: bool = False, obstacles=None) -> None:
        try:
            if reset:
                self.tactics = Tactics(encounter, obstacles=obstacles)
            else:
                self.tactics.update(encounter)
            self.tactics_error = None
        except ValueError as exc:  # the engine refused this state (shown in the status bar)
            self.tactics_error = str(exc)
            log.warning("analysis failed: %s", exc)


__all__ = ["Session", "Step"]
