"""Autosave and crash recovery.

While an encounter has unsaved changes, :class:`Autosaver` writes it every minute to the
user's data folder (``QStandardPaths.AppDataLocation``/autosave), atomically, with the file
it belongs to. A clean exit removes that file; a file left behind by a process that is no
longer running means Coverfire stopped without saving, and :func:`find_recoverable` offers
it on the next start. A damaged autosave is never a crash at start-up: :func:`scan_autosaves`
names it and :func:`set_aside` keeps it as ``<name>.damaged`` for the user to inspect.

A big autosave (from :data:`gui.opening.BACKGROUND_FROM_BYTES`) is not parsed whole at
start-up: the scan reads its leading fields only (who wrote it, when, the encounter's name:
:func:`leading_fields`), and :meth:`Recovery.load` reads and checks the encounter in the
loader process (:func:`gui.opening.load`), a slice per event-loop turn, as File > Open does
(a 10,000-obstacle autosave: 54 ms to parse, 276 ms to check, on the GUI thread before).
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal

from engine.errors import EncounterFileError
from engine.files import atomic_write_bytes, encounter_from_data
from engine.model import Encounter
from gui.document import EncounterDocument
from gui.load_process import AUTOSAVE_MARK as MARK
INTERVAL_MS = 60_000


def default_folder() -> Path:
    """``<AppDataLocation>/autosave`` (created when first written)."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".coverfire") / "autosave"


@dataclass(frozen=True)
class Recovery:
    """An autosave left by a Coverfire that did not close normally."""

    file: Path
    source: str | None
    saved: float
    name: str
    data: dict | None  # (None for a big autosave: read when recovered)

    def encounter(self) -> Encounter:
        """The autosaved encounter (raises :class:`EncounterFileError` if it is damaged)."""
        if self.data is None:
            from gui.load_process import read_autosave

            return read_autosave(self.file)
        return encounter_from_data(self.data, file=str(self.file))

    def load(self, parent=None):
        """The autosaved encounter as :func:`gui.opening.load` gives it (a big one read in the
        loader process while the window paints, its obstacles indexed a slice per turn), or
        None when the GM cancelled. Raises :class:`EncounterFileError` if it is damaged."""
        from gui.opening import Loaded, Request, load

        if self.data is not None:
            return Loaded(self.encounter(), None, {}, "direct")
        return load(Request("autosave", str(self.file)), parent)


def process_start(pid: int) -> int | None:
    """When process ``pid`` started (:func:`engine.processes.started`: clock ticks since boot
    on Linux, creation milliseconds elsewhere), or None where that cannot be read."""
    from engine.processes import started

    return started(pid)


def _alive(pid: int, started: int | None = None) -> bool:
    """Whether the Coverfire process that wrote an autosave still runs: ``pid`` is alive
    (:func:`engine.processes.alive`, on every platform) and, when the autosave recorded its
    start time, started then (else the pid was reused by another program after a crash, and
    the autosave is a crash's)."""
    from engine.processes import alive

    if pid == os.getpid():
        return started is None or started == process_start(pid)
    if not alive(pid):
        return False
    if started is not None:
        now = process_start(pid)
        return now is None or now == started
    return True


def _recovery(f: Path, wrapper: object) -> Recovery | None | bool:
    """What an autosave file's wrapper describes: a :class:`Recovery`, ``False`` when it
    belongs to a session still running (not a crash), ``None`` when it is damaged."""
    if not isinstance(wrapper, dict) or wrapper.get("format") != MARK:
        return None
    pid = wrapper.get("pid")
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid < 2**31:
        return None
    started = wrapper.get("started")
    if isinstance(started, bool) or not isinstance(started, int):
        started = None
    if _alive(pid, started):
        return False
    saved, source, data = wrapper.get("saved", 0), wrapper.get("source"), wrapper.get("encounter")
    if isinstance(saved, bool) or not isinstance(saved, (int, float)) or not isinstance(data, dict):
        return None
    if data.get(_LEADING) is True:  # (a big autosave's leading fields: the encounter is read when recovered)
        data = {k: v for k, v in data.items() if k != _LEADING}
        full = False
    else:
        full = True
    if source is not None and not isinstance(source, str):
        return None
    try:
        datetime.fromtimestamp(saved)  # a time the recovery question can show
    except (OverflowError, OSError, ValueError):
        return None
    return Recovery(f, source, float(saved), str(data.get("name", "Untitled")), data if full else None)


_LEADING = "\0leading"  # (marks an encounter of which only the leading fields were read)
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def leading_fields(text: str, pos: int = 0, stop: str | None = None) -> tuple[dict, int | None]:
    """The leading ``"key": value`` pairs of the JSON object at ``text[pos]``, up to the key
    ``stop`` (not read): ``(fields, where stop's value begins)``, or ``(fields, None)`` when
    the object ended first. Raises ValueError for text that is not such an object."""
    pos = _SPACE.match(text, pos).end()
    if text[pos:pos + 1] != "{":
        raise ValueError("not an object")
    out: dict = {}
    pos = _SPACE.match(text, pos + 1).end()
    if text[pos:pos + 1] == "}":
        return out, None
    while True:
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _SPACE.match(text, pos).end()
        if not isinstance(key, str) or text[pos:pos + 1] != ":":
            raise ValueError("not a key")
        pos = _SPACE.match(text, pos + 1).end()
        if key == stop:
            return out, pos
        out[key], pos = _DECODER.raw_decode(text, pos)
        pos = _SPACE.match(text, pos).end()
        if text[pos:pos + 1] == "}":
            return out, None
        if text[pos:pos + 1] != ",":
            raise ValueError("not an object")
        pos = _SPACE.match(text, pos + 1).end()


def _read_wrapper(f: Path) -> object:
    """An autosave file's wrapper: all of it for a small file; for a big one its leading
    fields and the encounter's up to its map (format, version, name), marked so."""
    raw = f.read_bytes()
    from gui.opening import BACKGROUND_FROM_BYTES

    if len(raw) < BACKGROUND_FROM_BYTES:
        return json.loads(raw.decode("utf-8"))
    text = raw.decode("utf-8")
    try:
        wrapper, at = leading_fields(text, 0, stop="encounter")
        if at is None:
            return wrapper
        encounter, _ = leading_fields(text, at, stop="map")
    except ValueError:
        return json.loads(text)  # (not as the autosaver writes it: read whole, as before)
    wrapper["encounter"] = {**encounter, _LEADING: True}
    return wrapper


def scan_autosaves(folder: Path | None = None) -> tuple[list[Recovery], list[Path]]:
    """The autosaves in ``folder``: those of Coverfire sessions no longer running (newest
    first), and the files that are damaged (unreadable, or not an autosave Coverfire wrote).
    Autosaves of running sessions are in neither list."""
    folder = folder or default_folder()
    found: list[Recovery] = []
    damaged: list[Path] = []
    if not folder.is_dir():
        return found, damaged
    for f in sorted(folder.glob("autosave-*.json")):
        try:
            wrapper = _read_wrapper(f)
        except OSError:
            continue  # cannot be read now (permissions): leave it alone
        except (ValueError, RecursionError):  # not JSON, or nested past what the parser takes
            wrapper = None
        rec = _recovery(f, wrapper)
        if rec is None:
            damaged.append(f)
        elif rec is not False:
            found.append(rec)
    found.sort(key=lambda r: r.saved, reverse=True)
    return found, damaged


def find_recoverable(folder: Path | None = None) -> list[Recovery]:
    """Autosaves of Coverfire sessions that are no longer running, newest first (damaged
    files are left out: see :func:`scan_autosaves`)."""
    return scan_autosaves(folder)[0]


def set_aside(file: Path) -> Path:
    """Rename a damaged autosave to ``<name>.damaged`` (kept for the user to inspect, never
    offered again); returns the new path (the old one when it cannot be renamed)."""
    kept = file.with_name(file.name + ".damaged")
    try:
        file.replace(kept)
    except OSError:
        return file
    return kept


_OUR_START = process_start(os.getpid())


class Autosaver(QObject):
    """Writes the document's unsaved state every ``interval_ms`` milliseconds. ``failed(str)``
    says (in the GM's words: which file, why) each time a write did not succeed, and
    ``resumed(str)`` when one succeeds again; it keeps trying on every tick (a full disk
    freed, a folder made writable) and the GM's work stays in the open document."""

    failed = Signal(str)
    resumed = Signal(str)

    def __init__(self, document: EncounterDocument, folder: Path | None = None,
                 interval_ms: int = INTERVAL_MS, parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        self.folder = Path(folder) if folder is not None else default_folder()
        self.file = self.folder / f"autosave-{os.getpid()}-{uuid.uuid4().hex[:8]}.json"
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        document.cleanChanged.connect(self._on_clean)
        self.last_error: str | None = None

    def tick(self) -> None:
        """Autosave now if there are unsaved changes, else drop the autosave."""
        if not self.document.dirty:
            self.discard()
            return
        try:
            wrapper = {
                "format": MARK,
                "pid": os.getpid(),
                "started": _OUR_START,  # with the pid: a reused pid is told apart
                "saved": time.time(),
                "source": str(self.document.path) if self.document.path else None,
            }
            # the encounter as its file text, made by the document's writer (which keeps each
            # value's text: a 10,000-obstacle map's autosave was ~100-160 ms of model_dump and
            # json on the GUI thread every minute, ~10 ms now)
            head = json.dumps(wrapper, ensure_ascii=False)
            text = head[:-1] + ', "encounter": ' + self.document.file_text.text(self.document.committed) + "}"
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.file, text.encode("utf-8"))
        except Exception as exc:  # noqa: BLE001 - whatever it is, the game goes on and the GM is told
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
            self.last_error = (f"Autosave failed: cannot write {self.file}: {why}. Coverfire tries "
                               f"again every {max(1, self.timer.interval() // 1000)} s; your work is "
                               "still open: save it with File > Save.")
            self.failed.emit(self.last_error)
            return
        if self.last_error is not None:
            self.last_error = None
            self.resumed.emit(f"Autosave works again ({self.file}).")

    def adopt(self, recovery: Recovery) -> bool:
        """Make a recovered (big) autosave this session's own: the file's encounter text is
        kept as it is, under this session's wrapper (its pid, now), and the old file removed,
        so the recovered work is autosaved at once without dumping it again (~300 ms for a
        10,000-obstacle map before the document's file text is warm). Returns False, having
        changed nothing, when it cannot (a small autosave: :meth:`tick` it)."""
        if recovery.data is not None:
            return False
        try:
            text = recovery.file.read_bytes().decode("utf-8")
            _, at = leading_fields(text, 0, stop="encounter")
            if at is None:
                return False
            head = json.dumps({"format": MARK, "pid": os.getpid(), "started": _OUR_START, "saved": time.time(),
                               "source": recovery.source}, ensure_ascii=False)
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.file, (head[:-1] + ', "encounter": ' + text[at:]).encode("utf-8"))
        except (OSError, ValueError):
            return False
        remove(recovery)
        return True

    def discard(self) -> None:
        """Remove this session's autosave (after a save, or on a clean exit)."""
        try:
            self.file.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            pass

    def _on_clean(self, clean: bool) -> None:
        if clean:
            self.discard()


def remove(recovery: Recovery) -> None:
    try:
        recovery.file.unlink()
    except OSError:
        pass


__all__ = ["Autosaver", "Recovery", "find_recoverable", "scan_autosaves", "set_aside", "default_folder",
           "remove", "EncounterFileError"]
