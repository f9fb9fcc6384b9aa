"""The open encounter as a Qt object: the current frozen value, its file, its undo history,
and the engine's spatial answers kept up to date.

Every edit swaps one :class:`~engine.model.Encounter` value for another. A drag shows its
intermediate states with :meth:`EncounterDocument.preview` (no undo step) and lands with
:meth:`EncounterDocument.commit` (one undo step from the state before the drag began), the
"changing" / "finished" split of pyqtgraph's TargetItem. Listeners get a
:class:`DocumentChange` saying what changed (:func:`gui.edits.diff`), so each map layer
recomputes only what the edit touched.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from engine.analysis import Tactics
from engine.encounter_text import EncounterText
from engine.errors import FileChangedError, ReadOnlyFileError
from engine.files import FileStamp, file_lock, is_read_only, save_encounter, writable_target
from engine.model import Encounter
from engine.rules import MoveTo, move_tokens
from gui.edits import Diff, diff, rebase_background
from gui.idle import IdleJob

#: Encounters of this many obstacles and tokens have their file text made ahead after an open.
WARM_FROM = 1000

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DocumentChange:
    """One change of the document's encounter: what differs (:class:`gui.edits.Diff`),
    whether it is a live preview (a drag in progress) and whether a whole new encounter was
    loaded (``reset``)."""

    diff: Diff
    preview: bool = False
    reset: bool = False


class _Swap(QUndoCommand):
    """An undo step: the encounter before and after one edit."""

    def __init__(self, doc: "EncounterDocument", before: Encounter, after: Encounter, text: str):
        super().__init__(text)
        self._doc, self._before, self._after = doc, before, after
        self._first = True

    def redo(self) -> None:  # noqa: D401 - Qt API
        if self._first and self._doc.encounter is self._after:
            self._first = False  # the edit is already showing (a drag's last preview)
            self._doc._publish(self._after, preview=False, previous=self._doc._committed)
            return
        self._first = False
        self._doc._set(self._after)

    def undo(self) -> None:
        self._doc._set(self._before)


def _has_inline_images(encounter: Encounter) -> bool:
    """Whether the map background or a token's portrait is an in-memory ``data:`` image."""
    bg = encounter.map.background
    if bg is not None and bg.image.startswith("data:"):
        return True
    return any(str(getattr(t, "portrait", None) or "").startswith("data:") for t in encounter.tokens)


class EncounterDocument(QObject):
    """The encounter being edited. Signals:

    * ``changed(DocumentChange)`` after every change (previews included);
    * ``pathChanged(object)`` when the file it belongs to changes (a :class:`Path` or None);
    * ``cleanChanged(bool)`` when it becomes saved (True) or unsaved (False).
    """

    changed = Signal(object)
    pathChanged = Signal(object)
    cleanChanged = Signal(bool)

    def __init__(self, encounter: Encounter, path: str | Path | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._encounter = encounter
        self._committed = encounter  # the value before a preview started
        self._path = Path(path) if path is not None else None
        self._forced_dirty = False
        #: the file as last read or written (to tell, at the next save, a change by another program)
        self._stamp: FileStamp | None = FileStamp.of(self._path) if self._path is not None else None
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        self._tactics = Tactics(encounter)
        #: the file text writer, shared by Save and the autosave: it keeps each value's text
        #: (a big map's edit saved in milliseconds), made ahead in idle turns after an open
        self.file_text = EncounterText()
        self._warm = IdleJob(self._warm_file_text, repeat=True)
        self._tactics_error: str | None = None
        #: ``hook(before, moves, text) -> (encounter, text) | None``, asked by
        #: :meth:`commit_moves` with a drag's ``engine.rules.MoveTo`` values (set by the rule
        #: system's GUI host: ``RuleSystem.on_moves`` charges the move); None: moves are
        #: plain edits. :meth:`commit` never asks it: an edit is a placement, not movement.
        self.moves_hook = None
        #: ``hook(before, after, text) -> Encounter`` functions :meth:`commit` passes every
        #: edit through, in order, after :attr:`moves_hook` (the party's sight adds what it
        #: sees to the explored area in the same undo step: :mod:`gui.party_sight`).
        self.commit_hooks: list = []
        #: ``hook(before, after, text) -> Encounter`` run after every other hook: the
        #: recorder of the fight (:mod:`gui.recorder`, :func:`engine.record.extend`)
        self.record_hook = None
        #: what the last :meth:`open` left out of the file and why (a recorded fight that
        #: does not belong with it: engine/record.py), for the window to say
        self.open_notes: list[str] = []

    # -- state ---------------------------------------------------------------------------
    @property
    def encounter(self) -> Encounter:
        """The encounter as shown now (a preview while a drag is in progress)."""
        return self._encounter

    @property
    def committed(self) -> Encounter:
        """The encounter as of the last finished edit (ignores a preview in progress)."""
        return self._committed

    @property
    def tactics(self):
        """The engine's spatial answers for :attr:`encounter` (``engine.analysis.Tactics``),
        or None when this build has no analysis module."""
        return self._tactics

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def dirty(self) -> bool:
        """Whether there are changes not saved to :attr:`path`."""
        return self._forced_dirty or not self.undo_stack.isClean()

    @property
    def in_preview(self) -> bool:
        return self._encounter is not self._committed

    def display_name(self) -> str:
        return self._path.name if self._path else (self._encounter.name or "Untitled")

    # -- edits ---------------------------------------------------------------------------
    def preview(self, encounter: Encounter) -> None:
        """Show ``encounter`` live without an undo step (a drag in progress)."""
        if encounter is self._encounter:
            return
        self._publish(encounter, preview=True, previous=self._encounter)

    def commit(self, encounter: Encounter, text: str) -> bool:
        """Land an edit as one undo step from the last committed state (dropping any preview).
        A token placed elsewhere this way (the Inspector's x and y) is placed, not moved: no
        movement is charged (a drag lands through :meth:`commit_moves`).

        Returns False (and restores the committed state) when nothing changed."""
        return self._push(self._committed, encounter, text)

    def commit_moves(self, moves: Sequence[MoveTo], text: str) -> bool:
        """Land a drag of tokens: the ``moves`` (``engine.rules.MoveTo``, each with the path
        walked) from the last committed state, as one undo step. The rule system charges the
        movement in the same step (:attr:`moves_hook`: one commit, one publication), which
        may give the encounter to commit and the step's text instead.

        Returns False (and restores the committed state) when nothing changed."""
        before = self._committed
        encounter = move_tokens(before, moves)
        hook = self.moves_hook
        if hook is not None and encounter != before:
            charged = hook(before, tuple(moves), text)
            if charged is not None:
                encounter, text = charged
        return self._push(before, encounter, text)

    def _push(self, before: Encounter, encounter: Encounter, text: str) -> bool:
        if encounter is before or encounter == before:
            self.cancel_preview()
            return False
        for extra in self.commit_hooks:
            encounter = extra(before, encounter, text)
        if self.record_hook is not None:  # last: it records the step as it lands
            encounter = self.record_hook(before, encounter, text)
        self.undo_stack.push(_Swap(self, before, encounter, text))
        return True

    def cancel_preview(self) -> None:
        """Drop a preview and show the last committed state again."""
        if self.in_preview:
            self._publish(self._committed, preview=False, previous=self._encounter)

    def set_content(self, encounter: Encounter, path: str | Path | None, *, dirty: bool = False,
                    obstacles=None) -> None:
        """Replace the whole document (a file opened or recovered): clears the undo history.
        ``obstacles``: the encounter's obstacles already indexed
        (:class:`engine.obstacles.ObstacleSet`, built a slice at a time while a big file was
        opened: :mod:`gui.opening`), else they are indexed here."""
        self._path = Path(path) if path is not None else None
        self._stamp = FileStamp.of(self._path) if self._path is not None else None
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self._forced_dirty = dirty
        self._committed = encounter
        self._encounter = encounter
        self._update_tactics(encounter, reset=True, obstacles=obstacles)
        self.changed.emit(DocumentChange(diff(None, encounter), preview=False, reset=True))
        self.pathChanged.emit(self._path)
        self.cleanChanged.emit(not self.dirty)
        self.file_text = EncounterText()  # (the old map's texts go)
        if len(encounter.obstacles) + len(encounter.tokens) >= WARM_FROM:
            self._warm.start()

    def _warm_file_text(self) -> None:
        if not self.file_text.warm(self._committed):
            self._warm.stop()

    # -- files ---------------------------------------------------------------------------
    def open(self, path: str | Path, parent=None) -> bool:
        """Load a file into this document; raises :class:`engine.errors.EncounterFileError`
        and leaves the document as it was when the file is bad. A big file is read off the
        GUI thread while the window goes on painting (:func:`gui.opening.read_encounter`,
        its progress dialog over ``parent``); returns False when the GM cancelled that."""
        from gui.opening import read_encounter

        got = read_encounter(path, parent)
        if got is None:
            return False
        encounter, obstacles, self.open_notes = got
        self.set_content(encounter, path, obstacles=obstacles)
        return True

    def changed_on_disk(self) -> bool:
        """Whether another program changed (or replaced) this document's file since it was
        opened or last saved here (content compared: size and SHA-256)."""
        if self._path is None or self._stamp is None:
            return False
        now = FileStamp.of(self._path)
        if now is None and not self._path.exists():
            return False  # removed meanwhile: writing it again loses nothing
        return not self._stamp.same_content(now)

    def save(self, path: str | Path | None = None, *, rewritten: Encounter | None = None,
             overwrite_changed: bool = False, overwrite_read_only: bool = False) -> Path:
        """Write the committed encounter (atomically) to ``path`` or the current file.

        What depends on the file's folder (a relative background image path or portrait,
        :func:`gui.edits.rebase_background`) is rewritten for ``path`` (``rewritten``: the
        caller's rewriting, else this one): that is written, and only once the file is written
        it becomes the document's value. Saving is not an edit: no undo step, and every state
        the undo history holds is rewritten the same way (an undo after it still finds the
        image from the new folder). Raises :class:`engine.errors.EncounterFileError` when
        it cannot be written; the document is then as it was. Two refusals the GM may
        override: :class:`~engine.errors.FileChangedError` when another program changed the
        document's own file since it was read (``overwrite_changed``), and
        :class:`~engine.errors.ReadOnlyFileError` for a read-only file
        (``overwrite_read_only``). Through a symbolic link the link's target is written. The
        file's lock (:func:`engine.files.file_lock`) is held from the changed-on-disk check to
        the new stamp, so no other Coverfire writes the file in between; a pipe, a device or
        a folder is refused (:class:`~engine.errors.NotAFileError`), nothing opened."""
        target = Path(path) if path is not None else self._path
        if target is None:
            raise ValueError("this encounter has no file yet: give a path")
        writable_target(target)  # (a pipe, a device, a folder: said first, nothing opened)
        with file_lock(target):  # (another Coverfire's import-character --into waits, then re-reads)
            if not overwrite_changed and target == self._path and self.changed_on_disk():
                raise FileChangedError(
                    "another program changed this file since Coverfire opened it; saving would "
                    "replace its changes", file=str(target))
            if not overwrite_read_only and is_read_only(target):
                raise ReadOnlyFileError(
                    "the file is read-only, so Coverfire did not overwrite it; save under another "
                    "name (File > Save As), or make the file writable first", file=str(target))
            old_path = self._path
            value = rebase_background(self._committed, old_path, target.parent) if rewritten is None else rewritten
            if _has_inline_images(value):
                # an imported map or portrait held as a data: URI: write the image beside the
                # file and store its name (the JSON stays small); memory keeps the data: URI
                from engine.importers.images import save_with_images

                save_with_images(value, target)  # (read-only already asked about above)
            else:
                save_encounter(value, target, overwrite_read_only=True, writer=self.file_text)
            self._stamp = FileStamp.of(target)
        moved = target != self._path
        self._path = target  # (first: views look for a relative image from the new folder)
        if value is not self._committed:
            self._rebase_history(lambda e: rebase_background(e, old_path, target.parent))
            self._set(value)
        if moved:
            self.pathChanged.emit(self._path)
        self._forced_dirty = False
        self.undo_stack.setClean()
        self.cleanChanged.emit(True)
        return target

    # -- internals ---------------------------------------------------------------------------
    def _rebase_history(self, rebase) -> None:
        """Rewrite every state the undo history holds with ``rebase`` (a file's folder moved)."""
        for i in range(self.undo_stack.count()):
            step = self.undo_stack.command(i)
            if isinstance(step, _Swap):
                step._before, step._after = rebase(step._before), rebase(step._after)

    def _set(self, encounter: Encounter) -> None:
        self._publish(encounter, preview=False, previous=self._encounter)

    def _publish(self, encounter: Encounter, *, preview: bool, previous: Encounter) -> None:
        self._encounter = encounter
        if not preview:
            self._committed = encounter
        d = diff(previous, encounter)
        self._update_tactics(encounter)
        self.changed.emit(DocumentChange(d, preview=preview))

    def _update_tactics(self, encounter: Encounter, reset: bool = False, obstacles=None) -> None:
        try:
            if reset:
                self._tactics = Tactics(encounter, obstacles=obstacles)
            else:
                self._tactics.update(encounter)
            self._tactics_error = None
        except ValueError as exc:  # the engine refused this state (shown in the status bar)
            self._tactics_error = str(exc)
            log.warning("analysis failed: %s", exc)

    @property
    def tactics_error(self) -> str | None:
        """The engine's message when it could not analyse the current state, else None."""
        return self._tactics_error

    def _on_clean_changed(self, clean: bool) -> None:
        self.cleanChanged.emit(clean and not self._forced_dirty)
