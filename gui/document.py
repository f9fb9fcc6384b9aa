"""The open encounter as a Qt object: its file, its undo stack, and the signals of what
changed. The values, the landing of an edit through the hooks, the steps' values and the
engine's spatial answers are the Qt-free :class:`gui.session.Session` it holds; this object
only orders the steps (``QUndoStack``) and signals.

Every edit swaps one :class:`~engine.model.Encounter` value for another. A drag shows its
intermediate states with :meth:`EncounterDocument.preview` (no undo step) and lands with
:meth:`EncounterDocument.commit` (one undo step from the state before the drag began), the
"changing" / "finished" split of pyqtgraph's TargetItem. Listeners get a
:class:`DocumentChange` saying what changed (:func:`gui.edits.diff`), so each map layer
recomputes only what the edit touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from engine.encounter_text import EncounterText
from engine.errors import FileChangedError, ReadOnlyFileError
from engine.files import FileStamp, file_lock, is_read_only, save_encounter, writable_target
from engine.model import Encounter
from engine.rules import Changes, MoveTo
from gui.edits import Diff, diff, rebase_background
from gui.idle import IdleJob
from gui.session import Session, Step

#: Encounters of this many obstacles and tokens have their file text made ahead after an open.
WARM_FROM = 1000


@dataclass(frozen=True)
class DocumentChange:
    """One change of the document's encounter: what differs (:class:`gui.edits.Diff`),
    whether it is a live preview (a drag in progress) and whether a whole new encounter was
    loaded (``reset``); for a rule system's outcome landed, undone or redone, what it says it
    ``changes`` (``engine.rules.Changes``: the panels refresh what it names and nothing
    else), else None (an edit: they look for themselves)."""

    diff: Diff
    preview: bool = False
    reset: bool = False
    changes: Changes | None = None


class _Swap(QUndoCommand):
    """An undo step on the stack: the session's :class:`~gui.session.Step` (the encounter
    before and after one edit)."""

    def __init__(self, doc: "EncounterDocument", step: Step):
        super().__init__(step.text)
        self._doc, self.step = doc, step
        self._first = True

    def redo(self) -> None:  # noqa: D401 - Qt API
        doc, first = self._doc, self._first
        self._first = False
        shown = doc.session.redo(self.step)
        # the edit already showing (a drag's last preview) is told as the whole step
        doc._signal(self.step.before if first and shown is self.step.after else shown, changes=self.step.changes)

    def undo(self) -> None:
        self._doc._signal(self._doc.session.undo(self.step), changes=self.step.changes)


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
        #: the values, the hooks and the Tactics, without Qt (gui.session)
        self.session = Session(encounter)
        self._path = Path(path) if path is not None else None
        self._forced_dirty = False
        #: the file as last read or written (to tell, at the next save, a change by another program)
        self._stamp: FileStamp | None = FileStamp.of(self._path) if self._path is not None else None
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        #: the file text writer, shared by Save and the autosave: it keeps each value's text
        #: (a big map's edit saved in milliseconds), made ahead in idle turns after an open
        self.file_text = EncounterText()
        self._warm = IdleJob(self._warm_file_text, repeat=True)
        #: what the last :meth:`open` left out of the file and why (a recorded fight that
        #: does not belong with it: engine/record.py), for the window to say
        self.open_notes: list[str] = []

    # -- state ---------------------------------------------------------------------------
    @property
    def encounter(self) -> Encounter:
        """The encounter as shown now (a preview while a drag is in progress)."""
        return self.session.encounter

    @property
    def committed(self) -> Encounter:
        """The encounter as of the last finished edit (ignores a preview in progress)."""
        return self.session.committed

    @property
    def tactics(self):
        """The engine's spatial answers for :attr:`encounter` (``engine.analysis.Tactics``)."""
        return self.session.tactics

    @property
    def tactics_error(self) -> str | None:
        """The engine's message when it could not analyse the current state, else None."""
        return self.session.tactics_error

    #: the session's hooks (:class:`gui.session.Session`): ``moves_hook`` charges a drag's
    #: ``MoveTo`` values, ``commit_hooks`` and ``record_hook`` see every landing
    moves_hook = property(lambda self: self.session.moves_hook,
                          lambda self, hook: setattr(self.session, "moves_hook", hook))
    commit_hooks = property(lambda self: self.session.commit_hooks)
    record_hook = property(lambda self: self.session.record_hook,
                           lambda self, hook: setattr(self.session, "record_hook", hook))

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def dirty(self) -> bool:
        """Whether there are changes not saved to :attr:`path`."""
        return self._forced_dirty or not self.undo_stack.isClean()

    @property
    def in_preview(self) -> bool:
        return self.session.in_preview

    def display_name(self) -> str:
        return self._path.name if self._path else (self.encounter.name or "Untitled")

    # -- edits ---------------------------------------------------------------------------
    def preview(self, encounter: Encounter) -> None:
        """Show ``encounter`` live without an undo step (a drag in progress)."""
        if encounter is self.encounter:
            return
        self._signal(self.session.show(encounter, preview=True), preview=True)

    def commit(self, encounter: Encounter, text: str, changes: Changes | None = None) -> bool:
        """Land an edit as one undo step from the last committed state (dropping any preview).
        A token placed elsewhere this way (the Inspector's x and y) is placed, not moved: no
        movement is charged (a drag lands through :meth:`commit_moves`). ``changes``: what a
        rule system's outcome says it changed (``Outcome.changes``), told to the listeners.

        Returns False (and restores the committed state) when nothing changed."""
        return self._push(self.session.land(encounter, text, changes=changes))

    def commit_moves(self, moves: Sequence[MoveTo], text: str) -> bool:
        """Land a drag of tokens: the ``moves`` (``engine.rules.MoveTo``, each with the path
        walked) from the last committed state, as one undo step. The rule system charges the
        movement in the same step (:attr:`moves_hook`: one commit, one publication), which
        may give the encounter to commit and the step's text instead.

        Returns False (and restores the committed state) when nothing changed."""
        return self._push(self.session.land_moves(moves, text))

    def _push(self, step: Step | None) -> bool:
        if step is None:
            self.cancel_preview()
            return False
        self.undo_stack.push(_Swap(self, step))
        return True

    def cancel_preview(self) -> None:
        """Drop a preview and show the last committed state again."""
        if self.in_preview:
            self._signal(self.session.show(self.committed))

    def set_content(self, encounter: Encounter, path: str | Path | None, *, dirty: bool = False,
                    obstacles=None, stamp: FileStamp | None = None) -> None:
        """Replace the whole document (a file opened or recovered): clears the undo history.
        ``obstacles``: the encounter's obstacles already indexed
        (:class:`engine.obstacles.ObstacleSet`, built a slice at a time while a big file was
        opened: :mod:`gui.opening`), else they are indexed here. ``stamp``: the file's
        :class:`~engine.files.FileStamp` as its reader read it, else the file is stamped here."""
        self._path = Path(path) if path is not None else None
        if self._path is None:
            self._stamp = None
        else:
            self._stamp = stamp if stamp is not None else FileStamp.of(self._path)
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self._forced_dirty = dirty
        self.session.reset(encounter, obstacles)
        self.changed.emit(DocumentChange(diff(None, encounter), preview=False, reset=True))
        self.pathChanged.emit(self._path)
        self.cleanChanged.emit(not self.dirty)
        self.file_text = EncounterText()  # (the old map's texts go)
        if len(encounter.obstacles) + len(encounter.tokens) >= WARM_FROM:
            self._warm.start()

    def _warm_file_text(self) -> None:
        if not self.file_text.warm(self.committed):
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
        encounter, obstacles, self.open_notes, stamp = got
        self.set_content(encounter, path, obstacles=obstacles, stamp=stamp)
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
            value = rebase_background(self.committed, old_path, target.parent) if rewritten is None else rewritten
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
        if value is not self.committed:
            steps = [self.undo_stack.command(i) for i in range(self.undo_stack.count())]
            self.session.rebase([c.step for c in steps if isinstance(c, _Swap)],
                                lambda e: rebase_background(e, old_path, target.parent))
            self._signal(self.session.show(value))
        if moved:
            self.pathChanged.emit(self._path)
        self._forced_dirty = False
        self.undo_stack.setClean()
        self.cleanChanged.emit(True)
        return target

    # -- internals ---------------------------------------------------------------------------
    def _signal(self, previous: Encounter, *, preview: bool = False, changes: Changes | None = None) -> None:
        """Tell the listeners what the session now shows instead of ``previous``."""
        self.changed.emit(DocumentChange(diff(previous, self.encounter), preview=preview, changes=changes))

    def _on_clean_changed(self, clean: bool) -> None:
        self.cleanChanged.emit(clean and not self._forced_dirty)
