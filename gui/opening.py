"""Opening a big encounter file, importing a big map or recovering a big autosave without
freezing the window.

A 10,000-obstacle file takes 0.6 s to parse and validate and 0.15 s more to index, all of
it holding the interpreter lock (a worker thread was measured: the window still stalled
120 ms at a time, in ``json.loads``). So :class:`BackgroundOpen` has the file read in a
process of its own (:mod:`gui.load_process`), takes the encounter back a frame per
event-loop turn, and builds its obstacle index a slice per turn
(:meth:`engine.obstacles.ObstacleSet.build_steps`); no turn does more than about
:data:`SLICE_S` of work. :func:`read_encounter` wraps that for the main window: a progress
dialog (window-modal, so the map cannot be edited half-way; Cancel keeps the encounter that
was open) while an inner event loop keeps the window painting. Files below
:data:`BACKGROUND_FROM_BYTES` are read at once, as before (a few milliseconds).

The process is started by :mod:`engine.child`, from source and from the frozen bundle alike.

The same mechanism runs every request of :mod:`gui.load_process` (a :class:`Request`:
``open``, ``import`` a map with its options, ``autosave``, Foundry ``scenes``, ``sniff``):
:func:`load` is the one entry point, which does a small file here and now
(:data:`DIRECT_BELOW`), a big one in the process, and when the process cannot run (it
did not start, it died or wrote what cannot be read) the same
:func:`gui.load_process.perform` here, as before.

The cyclic garbage collector is held off while the encounter's objects are made (a full
collection over 10,000 obstacles' values took 100-290 ms, at a random moment) and the
objects then made permanent (``gc.freeze``): later collections skip them.
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, QProcess, QProcessEnvironment, Qt, Signal

from engine import clock
from engine.errors import CoverfireError

log = logging.getLogger(__name__)

#: Files from this size (bytes) are read in the loader process (about 40 ms of reading here).
BACKGROUND_FROM_BYTES = 200_000
#: Seconds of work per event-loop turn while a file is taken back and indexed.
SLICE_S = 0.010
#: Obstacles indexed per step.
INDEX_CHUNK = 800
#: Milliseconds before the progress dialog shows (quick opens never flash one).
DIALOG_AFTER_MS = 300
#: Below this size (bytes) a request is done here and now, by kind. A map import costs about
#: 1.8 ms of CPU a kilobyte of walls (a 15 KB Universal VTT map of 130 obstacles: 26 ms; a
#: 14 KB comb wall of 800 points: 27 ms; 30 KB: 54 ms), ten times an encounter's reading:
#: its direct path ends at 16 KB (a real map with its picture is larger and always goes to
#: the process).
#: Telling what a file is (``sniff``, ``scenes``) parses a JSON file whole: 19 ms a megabyte
#: of a Foundry scene's walls (10 MB: 192 ms), so from 1 MB it is done in the process.
DIRECT_BELOW = {"open": BACKGROUND_FROM_BYTES, "autosave": BACKGROUND_FROM_BYTES, "import": 16_000,
                "scenes": 1_000_000, "sniff": 1_000_000}
#: What the progress dialog says is being done, by kind.
VERBS = {"open": "Opening", "import": "Importing", "autosave": "Recovering", "scenes": "Reading",
         "sniff": "Reading"}
#: What the progress dialog says while the process works, by kind.
WORK = {"open": "Reading the file\u2026", "import": "Reading the map, making its walls and doors\u2026",
        "autosave": "Reading the autosave\u2026", "scenes": "Reading its scene list\u2026",
        "sniff": "Telling what it is\u2026"}


@dataclass(frozen=True)
class Request:
    """One request of :mod:`gui.load_process`: ``kind`` (``open``, ``import``, ``autosave``,
    ``scenes``), the file, and the options (an import's ``cell_size``, ``object_height``,
    ``window_sill``, ``scene``)."""

    kind: str
    path: str
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Loaded:
    """What a request gave: the encounter (None for ``scenes``), its obstacles indexed
    (:class:`~engine.obstacles.ObstacleSet`, or None: index them as usual), the extras
    (``report``, ``scenes``) and the ``route`` it took: ``direct`` (a small file, here),
    ``process`` (read in the loader process, taken back a slice per turn) or ``fallback``
    (the process could not: done here)."""

    encounter: object
    obstacles: object
    extras: dict
    route: str


class BackgroundOpen(QObject):
    """Runs one :class:`Request` (by default: open the encounter file ``source``) off the GUI
    thread. ``finished`` once it is over: then :attr:`encounter` and :attr:`obstacles` (an
    indexed :class:`~engine.obstacles.ObstacleSet` for it) and :attr:`extras` are set, or
    :attr:`error` (the file's :class:`~engine.errors.CoverfireError`), or :attr:`fallback`
    (the process could not do it: do it here) or :attr:`cancelled`. ``progress(text,
    share)`` on the way."""

    finished = Signal()
    progress = Signal(str, float)

    def __init__(self, source: str | os.PathLike | Request, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.request = source if isinstance(source, Request) else Request("open", str(Path(source)))
        self.path = self.request.path
        self.encounter = None
        self.obstacles = None
        self.extras: dict = {}
        self.error: CoverfireError | None = None
        self.fallback = False
        self.cancelled = False
        self.done = False
        self._out = bytearray()
        self._err = bytearray()
        self._frames: list = []
        self._next = 0
        self._items: dict[str, list] = {}
        self._head = None
        self._rest = None
        self._steps = None
        self._gc_was = gc.isenabled()
        from gui.idle import IdleJob

        self._timer = IdleJob(lambda: self._slice())  # (a turn's slice shares the window's deferred-work budget)
        self._proc: QProcess | None = None

    # -- the process ----------------------------------------------------------------------------
    def start(self) -> None:
        from engine.child import command, environment
        from gui.load_process import argv

        env = QProcessEnvironment()
        for name, value in environment().items():
            env.insert(name, value)
        proc = QProcess(self)
        proc.setProcessEnvironment(env)
        proc.setStandardInputFile(QProcess.nullDevice())
        proc.readyReadStandardOutput.connect(self._read_out)
        proc.readyReadStandardError.connect(lambda: self._err.extend(bytes(proc.readAllStandardError())))
        proc.finished.connect(self._on_exit)
        proc.errorOccurred.connect(self._on_error)
        self._proc = proc
        self.progress.emit(WORK.get(self.request.kind, WORK["open"]), 0.0)
        program, *args = command("gui.load_process", *argv(self.request.kind, self.path, self.request.options))
        proc.start(program, args)

    def _read_out(self) -> None:
        if self._proc is not None:
            self._out.extend(bytes(self._proc.readAllStandardOutput()))

    def _on_error(self, err) -> None:
        if err == QProcess.ProcessError.FailedToStart and not self.done:
            log.warning("the file reader process did not start: reading %s here", self.path)
            self._finish(fallback=True)

    def _on_exit(self, code: int, status) -> None:
        if self.done:
            return
        self._read_out()
        from gui.load_process import split_frames

        if status != QProcess.ExitStatus.NormalExit or code != 0:
            log.warning("the file reader process failed (%s): reading %s here\n%s", code, self.path,
                        bytes(self._err).decode("utf-8", "replace")[-2000:])
            self._finish(fallback=True)
            return
        self._frames = split_frames(self._out)
        if not self._frames:
            self._finish(fallback=True)
            return
        gc.disable()  # (a full collection over the new objects would stall the window)
        self._timer.start()

    # -- taking the encounter back, then indexing it ---------------------------------------------
    def _slice(self) -> None:
        if self.done:
            return
        t0 = clock.now()
        try:
            while clock.now() - t0 < SLICE_S:
                if self._step():
                    return
        except CoverfireError as exc:
            self._finish(error=exc)
            return
        except Exception:  # noqa: BLE001 - a frame it cannot read: read the file here instead
            log.exception("reading %s in the background", self.path)
            self._finish(fallback=True)
            return
        self._timer.start()

    def _step(self) -> bool:
        """One unit of work; True when all is done (or stopped)."""
        if self._steps is not None:
            try:
                share = next(self._steps)
            except StopIteration:
                self._finish()
                return True
            self.progress.emit("Indexing the cover\u2026", 0.5 + 0.5 * share)
            return False
        if self._next < len(self._frames):
            msg = pickle.loads(self._frames[self._next])
            self._next += 1
            kind = msg[0]
            if kind == "exception":
                from gui.load_process import rebuilt_error

                raise rebuilt_error(msg[1], msg[2])
            if kind == "header":
                self._head = msg
            elif kind == "items":
                self._items.setdefault(msg[1], []).extend(msg[2])
            elif kind == "extra":
                self.extras[msg[1]] = msg[2]
            elif kind == "rest":
                self._rest = ("rest", msg[1])
            self.progress.emit("Taking it in\u2026", 0.5 * self._next / len(self._frames))
            return False
        if self._head is None or self._rest is None or self._head[1] != len(self._frames) - 1:
            raise ValueError("the reader's output is incomplete")
        from engine.obstacles import ObstacleSet
        from gui.load_process import assemble

        self._frames, self._out = [], bytearray()
        if self._rest[1] is None:  # (a request answered by its extras alone)
            self._finish()
            return True
        self.encounter = assemble(self._rest[1], self._head[2], self._items)
        self.obstacles = ObstacleSet()
        m = self.encounter.map
        self._steps = self.obstacles.build_steps(self.encounter.obstacles, (0.0, 0.0, float(m.width), float(m.height)),
                                                 chunk=INDEX_CHUNK)
        return False

    def _finish(self, *, error=None, fallback=False, cancelled=False) -> None:
        if self.done:
            return
        self.done = True
        self._timer.stop()
        if error is not None or fallback or cancelled:
            self.encounter = self.obstacles = None
            self.extras = {}
        self.error, self.fallback, self.cancelled = error, fallback, cancelled
        if self.encounter is not None:
            gc.freeze()  # (the encounter's objects: later collections leave them be)
        if self._gc_was:
            gc.enable()
        if self._proc is not None and self._proc.state() != QProcess.ProcessState.NotRunning:
            self._proc.kill()
            self._proc.waitForFinished(1000)
        self.finished.emit()

    def cancel(self) -> None:
        """Stop: nothing is opened."""
        self._finish(cancelled=True)


#: The route of the last :func:`load` (``direct``, ``process``, ``fallback``): what
#: ``coverfire --measure-open`` reports (gui/open_stall.py).
last_route: str | None = None


def load(request: Request, parent=None) -> Loaded | None:
    """Do ``request``: a file smaller than :data:`DIRECT_BELOW` here and now; a bigger one
    in the loader process while the window goes on painting (a progress dialog over
    ``parent`` with Cancel); here after all when the process cannot. None when the GM
    cancelled (nothing changed). Raises the file's
    :class:`~engine.errors.CoverfireError`."""
    global last_route
    from gui.load_process import perform

    try:
        size = os.stat(request.path).st_size
    except OSError:
        size = 0  # (the request says what is wrong with it)
    if size < DIRECT_BELOW.get(request.kind, BACKGROUND_FROM_BYTES):
        encounter, extras = perform(request.kind, request.path, request.options)
        last_route = "direct"
        return Loaded(encounter, None, extras, "direct")
    job = BackgroundOpen(request, parent)
    loop = QEventLoop()
    job.finished.connect(loop.quit)
    dialog = _progress_dialog(parent, Path(request.path).name, job, VERBS.get(request.kind, "Opening"))
    job.start()
    if not job.done:
        loop.exec()
    if dialog is not None:
        dialog.close()
        dialog.deleteLater()
    job.deleteLater()
    if job.cancelled:
        return None
    if job.error is not None:
        raise job.error
    if job.fallback:
        encounter, extras = perform(request.kind, request.path, request.options)
        last_route = "fallback"
        return Loaded(encounter, None, extras, "fallback")
    last_route = "process"
    return Loaded(job.encounter, job.obstacles, job.extras, "process")


def file_kind(path: str | os.PathLike, parent=None):
    """What ``path`` is (:func:`engine.importers.detect.sniff`'s
    :class:`~engine.importers.detect.FileKind`; a big file told in the loader process while
    the window paints), or None when the GM cancelled."""
    got = load(Request("sniff", str(path)), parent)
    return None if got is None else got.extras["kind"]


def read_encounter(path: str | os.PathLike, parent=None):
    """The encounter in ``path``, for a big file its indexed obstacle set, and what was left
    out of it (a recorded fight that does not belong, :mod:`engine.record`):
    ``(encounter, obstacles or None, notes, stamp)``, or None when the GM cancelled; ``stamp``
    is the :class:`~engine.files.FileStamp` of the bytes the reader read (the reader stamps
    the file it reads: the window need not read it again). Raises
    :class:`~engine.errors.EncounterFileError` for a file that cannot be opened. A big file
    is read by :class:`BackgroundOpen` while the window goes on painting (a progress dialog
    over it); a small one here and now (:func:`load`)."""
    got = load(Request("open", str(path)), parent)
    if got is None:
        return None
    return got.encounter, got.obstacles, list(got.extras.get("notes", ())), got.extras.get("stamp")



def _progress_dialog(parent, name: str, job: BackgroundOpen, verb: str = "Opening"):
    if parent is None:
        return None
    from PySide6.QtWidgets import QProgressDialog

    dialog = QProgressDialog(f"{verb} {name}\u2026", "Cancel", 0, 100, parent)
    dialog.setWindowTitle(verb)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(DIALOG_AFTER_MS)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    dialog.setValue(0)

    def on_progress(text: str, share: float) -> None:
        dialog.setLabelText(f"{verb} {name}\u2026\n{text}")
        if share <= 0.0:
            dialog.setRange(0, 0)  # (the reader process is at work: a busy bar, no share yet)
        else:
            if dialog.maximum() == 0:
                dialog.setRange(0, 100)
            dialog.setValue(int(round(100 * share)))

    job.progress.connect(on_progress)
    dialog.canceled.connect(job.cancel)
    return dialog
