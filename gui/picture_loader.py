"""The one door every picture comes in by: decoded off the GUI thread, within a size and a
time budget (issue 25 item 1).

A map's background and its tokens' pictures (from a file or a ``data:`` URI in the encounter;
an imported Universal VTT or Foundry map's pictures are files by then) are asked for with
:meth:`PictureLoader.request`. The GUI thread only names the picture (a ``stat`` of its file):
the bytes are read, checked and decoded by :mod:`gui.pictures` in a worker thread (a raster
picture by ``QImageReader`` after its header's pixel size passed the bound; an SVG in its
child process, :mod:`gui.svg_worker`), and the answer comes back to the GUI thread as
:attr:`PictureLoader.loaded`. Meanwhile the map is drawn without the picture; a view redraws
with it when it lands (:class:`gui.map_view.MapView`).

Bounds, each naming the file and the bound in its message when passed:

* the file's size (:data:`gui.pictures.MAX_PICTURE_BYTES`) and the pixel size its header
  claims (:data:`engine.importers.images.MAX_IMAGE_PIXELS`, ``MAX_IMAGE_SIDE``), before any
  decoding; an SVG's element count after its ``<use>`` references (``MAX_SVG_ELEMENTS``);
* :data:`SECONDS` of CPU time of the worker decoding it (an SVG's drawing process: its own
  CPU limit), or :data:`WALL_FACTOR` times as much wall time (a read that hangs), from the
  start of its decoding, read on the program's clock (:mod:`engine.clock`): past it the
  picture is left out, and an answer that comes later is dropped (the next view to ask tries
  again). An SVG's drawing process is killed at the same budget;
* a token's picture is kept at most :data:`PORTRAIT_SIDE` pixels a side (scaled in the
  worker: a disc is never drawn larger), so no paint scales a 64-megapixel portrait.

Answers are kept (the players' view, an export and a window opened again ask for the same
pictures) up to :data:`CACHE_BYTES` of pixels, by file, its size and modification time; a
file's answer replaces the one kept for that file before it changed (which no view asks for again).
``QImage`` is safe to make in another thread; ``QPixmap`` is not, and is never made here.
"""

from __future__ import annotations

import base64
import os
import queue
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QImage

from engine import clock

#: CPU seconds a picture may take to decode (its worker thread's; an SVG's drawing process
#: has as many), from when a worker starts on it.
SECONDS = 10.0
#: Wall seconds, as a multiple of :data:`SECONDS`, past which a picture is left out however
#: little CPU it took (a read that hangs, a worker starved by a busy machine).
WALL_FACTOR = 3.0
#: Largest side, in pixels, a token's picture is kept at (scaled down in the worker).
PORTRAIT_SIDE = 1024
#: Decoded pictures kept for the next view that asks (bytes of pixels).
CACHE_BYTES = 768 * 1024 * 1024
#: Worker threads (the machine has two cores; the GUI thread keeps one).
THREADS = 2
#: How often the budget of the pictures being decoded is checked, ms.
POLL_MS = 100


@dataclass(frozen=True)
class PictureSource:
    """One picture an encounter names: ``ref`` as written (a ``data:`` URI, or a path
    relative to ``doc_path``'s folder, or absolute); ``portrait``: a token's picture (kept
    at most :data:`PORTRAIT_SIDE` a side). ``key`` identifies the decoded answer."""

    ref: str
    doc_path: Path | None
    portrait: bool = False

    @property
    def is_data(self) -> bool:
        return self.ref.startswith("data:")

    def path(self) -> Path:
        p = Path(self.ref)
        if not p.is_absolute() and self.doc_path is not None:
            p = self.doc_path.parent / p
        return p

    def key(self) -> tuple:
        """What the answer depends on: the bytes (a ``data:`` URI itself; a file by its
        absolute path, size and modification time) and whether it is a portrait."""
        if self.is_data:
            return ("data", self.ref, self.portrait)
        p = self.path()
        try:
            st = os.stat(p)
            stamp = (st.st_size, st.st_mtime_ns, st.st_mode)
        except (OSError, ValueError):
            stamp = None
        return ("file", os.path.abspath(p), stamp, self.portrait)

    def where(self) -> str:
        """The picture as a message names it: its file, or that it is held in the encounter."""
        return "(held in the encounter file as a data: URI)" if self.is_data else str(self.path().absolute())


@dataclass(frozen=True)
class Picture:
    """A decoded picture, or why not: ``image`` (None when left out) and ``why`` (the end
    of a sentence naming the picture: why it was left out, or what an SVG was drawn
    without), as :func:`gui.pictures.decode_picture` answers."""

    image: QImage | None
    why: str | None
    #: left out for its time: the views waiting are told, the next to ask tries again
    timed_out: bool = False

    @property
    def nbytes(self) -> int:
        return 0 if self.image is None else int(self.image.sizeInBytes())


def decode_source(src: PictureSource, seconds: float | None = None) -> Picture:
    """Read and decode ``src`` within the bounds of :mod:`gui.pictures` (any thread; an SVG
    drawn in at most ``seconds`` of CPU, :data:`SECONDS` by default, and ``WALL_FACTOR``
    times as much wall time)."""
    seconds = SECONDS if seconds is None else seconds
    side = PORTRAIT_SIDE if src.portrait else None  # (an SVG portrait is drawn at its kept size, not 4,096 px)
    from gui.pictures import NOT_READABLE, decode_picture, read_picture_file

    if src.is_data:
        try:
            data = base64.b64decode(src.ref.split(",", 1)[1])
        except (IndexError, ValueError):
            return Picture(None, NOT_READABLE)
        img, why = decode_picture(data, seconds, seconds * WALL_FACTOR, side)
    else:  # (checked before decoded; a FIFO is not opened)
        img, why = read_picture_file(src.path(), seconds, seconds * WALL_FACTOR, side)
    if img is None:
        return Picture(None, why)
    if src.portrait and max(img.width(), img.height()) > PORTRAIT_SIDE:
        img = img.scaled(PORTRAIT_SIDE, PORTRAIT_SIDE, Qt.AspectRatioMode.KeepAspectRatio,
                         Qt.TransformationMode.SmoothTransformation)
    # (the format a paint draws fastest, converted here rather than in every paint)
    fmt = QImage.Format.Format_ARGB32_Premultiplied if img.hasAlphaChannel() else QImage.Format.Format_RGB32
    if img.format() != fmt:
        img = img.convertToFormat(fmt)
    return Picture(img, why)


class _Job:
    __slots__ = ("key", "source", "seconds", "thread", "clock", "wall0", "cpu0")

    def __init__(self, key: tuple, source: PictureSource, seconds: float) -> None:
        self.key, self.source, self.seconds = key, source, seconds
        self.thread: int | None = None  # (the worker's thread, once it started on it)
        self.clock = self.wall0 = self.cpu0 = None

    @property
    def started(self) -> bool:
        return self.thread is not None

    def start(self, thread: int) -> None:
        """Started now by the worker ``thread`` (or the program's clock was swapped: again)."""
        self.clock = clock.current()
        self.wall0, self.cpu0 = clock.now(), clock.thread_cpu(thread)
        self.thread = thread

    def spent(self) -> tuple[float, float | None]:
        """(wall seconds, the worker's CPU seconds or None) since it started on this."""
        if self.clock is not clock.current():  # (readings of two clocks do not compare)
            self.start(self.thread)
        cpu = clock.thread_cpu(self.thread)
        return clock.now() - self.wall0, (None if cpu is None or self.cpu0 is None else cpu - self.cpu0)

    def past_budget(self) -> str | None:
        """Why this picture is left out for its time (the end of a sentence naming it), or
        None while it is within its budget."""
        if not self.started:
            return None
        wall, cpu = self.spent()
        if cpu is not None and cpu > self.seconds:
            return f"took more than {self.seconds:g} s of CPU time to decode (the bound on decoding a picture)"
        limit = self.seconds * (WALL_FACTOR if cpu is not None else 1.0)
        if wall > limit:
            return f"was not decoded within {limit:g} s (the bound on decoding a picture)"
        return None


class _Bridge(QObject):
    """Carries a worker's answer to the GUI thread (a queued signal: it lives there)."""

    answered = Signal(object, object)


class PictureLoader(QObject):
    """Decodes pictures in worker threads (see the module's text). Signal ``loaded(key)``:
    the answer for ``key`` (a :meth:`PictureSource.key`) is ready in :meth:`result`."""

    loaded = Signal(object)

    def __init__(self, threads: int = THREADS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.seconds: float | None = None  # (None: the module's SECONDS, read at each check)
        self._cache: OrderedDict[tuple, Picture] = OrderedDict()
        self._jobs: dict[tuple, _Job] = {}
        self._queue: queue.Queue[_Job] = queue.Queue()
        self._bridge = _Bridge()
        self._bridge.answered.connect(self._answered, Qt.ConnectionType.QueuedConnection)
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._check_budgets)
        self._threads = [threading.Thread(target=self._work, name=f"coverfire-picture-{i}", daemon=True)
                         for i in range(max(1, threads))]
        for t in self._threads:
            t.start()

    # -- asking ------------------------------------------------------------------------------
    def budget(self) -> float:
        """CPU seconds a picture may take to decode now (see :data:`SECONDS`)."""
        return SECONDS if self.seconds is None else self.seconds

    def request(self, source: PictureSource) -> tuple[tuple, Picture | None]:
        """Ask for ``source``: ``(key, picture)`` when it is decoded already, else ``(key,
        None)`` and :attr:`loaded` says when it is (the decoding started once per key)."""
        key = source.key()
        hit = self._cache.get(key)
        if hit is not None and not hit.timed_out:
            self._cache.move_to_end(key)
            return key, hit
        if key not in self._jobs:
            job = self._jobs[key] = _Job(key, source, self.budget())
            self._queue.put(job)
            if not self._poll.isActive():
                self._poll.start()
        return key, None

    def result(self, key: tuple) -> Picture | None:
        """The answer for ``key`` when there is one (None while it is being decoded)."""
        return None if key in self._jobs else self._cache.get(key)

    @property
    def pending(self) -> list[str]:
        """The pictures still being decoded (or waiting for a worker), by where they are."""
        return [job.source.where() for job in self._jobs.values()]

    def wait(self, keys=None, seconds: float | None = None) -> bool:
        """Process events until every key in ``keys`` (None: every picture asked for) has
        its answer (each within its own budget, so this ends; ``seconds``: a further bound,
        the program's clock). For the headless ``export`` and a GM's explicit choice of a
        picture: the window still paints meanwhile. Answers whether all are there."""
        keys = None if keys is None else list(keys)
        for k in keys or ():
            if k not in self._jobs and k not in self._cache:
                raise KeyError(f"no picture was asked for as {k!r}")
        start = clock.now()

        def waiting() -> bool:
            return bool(self._jobs) if keys is None else any(k in self._jobs for k in keys)

        while waiting():
            if seconds is not None and clock.now() - start > seconds:
                return False
            self._check_budgets()
            if not waiting():
                break
            loop, tick = QEventLoop(), QTimer()
            tick.setSingleShot(True)
            tick.timeout.connect(loop.quit)
            self.loaded.connect(loop.quit)
            tick.start(POLL_MS)
            loop.exec()
            tick.stop()
            self.loaded.disconnect(loop.quit)
        return True

    # -- the workers and their answers ----------------------------------------------------------
    def _work(self) -> None:
        while True:
            job = self._queue.get()
            job.start(threading.get_ident())
            try:
                pic = decode_source(job.source, job.seconds)
            except MemoryError:
                pic = Picture(None, "is a picture too big to decode in the memory left")
            except Exception as exc:  # (a decoder's own failure: named, never a traceback)
                pic = Picture(None, f"could not be decoded ({type(exc).__name__}: {exc})")
            try:
                self._bridge.answered.emit(job, pic)
            except RuntimeError:  # (the application is gone)
                return

    def _answered(self, job: _Job, pic: Picture) -> None:
        if self._jobs.get(job.key) is not job:
            return  # (past its budget: left out already; this late answer is dropped)
        del self._jobs[job.key]
        self._keep(job.key, pic)

    def _keep(self, key: tuple, pic: Picture) -> None:
        for old in [k for k in self._cache if _same_file(k, key)]:
            del self._cache[old]  # (that file as it was: no view can ask for it again)
        self._cache[key] = pic
        total = sum(p.nbytes for p in self._cache.values())
        while total > CACHE_BYTES and len(self._cache) > 1:
            _, old = self._cache.popitem(last=False)
            total -= old.nbytes
        if not self._jobs:
            self._poll.stop()
        self.loaded.emit(key)

    def _check_budgets(self) -> None:
        for job in list(self._jobs.values()):
            why = job.past_budget()
            if why:
                del self._jobs[job.key]
                self._keep(job.key, Picture(None, why, timed_out=True))
        if not self._jobs:
            self._poll.stop()


def _same_file(kept: tuple, new: tuple) -> bool:
    """Whether the answer kept as ``kept`` is for the file ``new`` names, as it was before it
    changed (another size, time or mode: a key no view asks for again, :meth:`PictureSource.key`)."""
    return kept[0] == new[0] == "file" and kept[1] == new[1] and kept[3] == new[3] and kept[2] != new[2]


_loader: PictureLoader | None = None


def load_now(path: Path, *, portrait: bool = False) -> tuple[QImage | None, str | None]:
    """The picture in the file ``path`` the GM just chose (a menu, a drop), decoded by the
    workers while the window keeps painting, and waited for within its budget: ``(image,
    why)`` as :func:`gui.pictures.read_picture_file` answers. The answer is kept, so the map
    view asking next finds it at once."""
    key, pic = loader().request(PictureSource(str(Path(path).absolute()), None, portrait=portrait))
    if pic is None:
        loader().wait([key])
        pic = loader().result(key)
    return pic.image, pic.why


def loader() -> PictureLoader:
    """The program's picture loader (made on first use, in the GUI thread)."""
    global _loader
    if _loader is None:
        _loader = PictureLoader()
    return _loader


def pending() -> list[str]:
    """The pictures being decoded now (empty before any was asked for)."""
    return [] if _loader is None else _loader.pending


__all__ = ["SECONDS", "PORTRAIT_SIDE", "CACHE_BYTES", "Picture", "PictureSource", "PictureLoader",
           "decode_source", "load_now", "loader", "pending"]
