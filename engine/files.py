"""Reading and writing encounter files (UTF-8 JSON; reads versions 1 and 2, writes 2).

:func:`load_encounter` raises :class:`~engine.errors.EncounterFileError` naming the file, the
JSON path (``$.tokens[2].x``) and what is wrong. :func:`save_encounter` writes atomically: a
temporary file beside the target, flushed to disk, then renamed over it, so a crash or a
full disk never leaves a half-written encounter.

Every write refuses, before opening anything, a name that is not a regular file nor a new one
(a FIFO, a device, a folder, or a link to one: :func:`writable_target`, the write side of
:func:`read_user_file`'s check). Writers of one encounter file take its lock
(:func:`file_lock`) and a read-modify-write re-reads under it (``import-character --into``), so
two ``coverfire import-character --into F`` at once both land.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import ValidationError

from engine import clock, limits
from engine.errors import (CoverfireError, EncounterFileError, FileBusyError, NotAFileError, ReadOnlyFileError,
                           excerpt)
from engine.model import FORMAT, VERSION, VERSIONS, Encounter
from engine.record import attach as attach_record
from engine.strict import check_strict
from engine.unknown_fields import check_unknown_fields

MAX_FILE_BYTES = 256 * 1024 * 1024
#: Deepest nesting of JSON arrays and objects read (engine/limits.py).
MAX_DEPTH = limits.MAX_DEPTH
_json_path = limits.json_path


def encounter_from_data(data: Any, *, file: str | None = None, notes: list[str] | None = None) -> Encounter:
    """Validate already-parsed JSON data as an encounter. Its recorded fight
    (``"record"``, :mod:`engine.record`) is read apart: one that does not belong with the
    encounter is left out, and why is added to ``notes``."""
    if isinstance(data, dict) and "record" in data:
        data = dict(data)
        raw_record = data.pop("record")
        encounter = encounter_from_data(data, file=file)
        encounter, problem = attach_record(encounter, raw_record)
        if problem is not None and notes is not None:
            notes.append(f"{file}: {problem}" if file else problem)
        return encounter
    if not isinstance(data, dict):
        raise EncounterFileError("an encounter file holds one JSON object", file=file)
    if data.get("format") != FORMAT:
        raise EncounterFileError(
            f"this is not a Coverfire encounter: \"format\" is {excerpt(data.get('format'))}, "
            f"expected {FORMAT!r}",
            file=file,
            path="$.format",
        )
    version = data.get("version")
    if version not in VERSIONS or isinstance(version, bool):
        raise EncounterFileError(
            f"unknown version {excerpt(version)}: this Coverfire reads versions "
            f"{', '.join(map(str, VERSIONS))} (and writes {VERSION})",
            file=file,
            path="$.version",
        )
    limits.check_data(data, file=file)  # nesting, numbers, text, sizes: before the model
    check_strict(data, file=file)  # read as written: no 1 -> true, "10" -> 10.0 (engine/strict.py)
    try:
        return Encounter.model_validate(data, context={"text_checked": True})
    except ValidationError as exc:
        raise file_error_of(exc, file) from None
    except EncounterFileError as exc:  # raised directly by a validator outside pydantic
        raise EncounterFileError(exc.reason, file=file, path=exc.path) from None


def file_error_of(exc: ValidationError, file: str | None) -> EncounterFileError:
    errors = exc.errors()
    first = errors[0]
    inner = first.get("ctx", {}).get("error")
    if isinstance(inner, EncounterFileError):
        return EncounterFileError(inner.reason, file=file, path=inner.path)
    path = _json_path(tuple(first["loc"]))
    kind = first["type"]
    if kind == "missing":
        msg = f"missing required field {first['loc'][-1]!r}"
        path = _json_path(tuple(first["loc"][:-1]))
    elif kind == "extra_forbidden":
        msg = "unknown field"
    else:
        msg = first["msg"]
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        if kind not in ("value_error",) and "input" in first and not isinstance(first["input"], (dict, list)):
            msg += f" (got {excerpt(first['input'])})"
    more = len(errors) - 1
    if more:
        msg += f" (and {more} more problem{'s' if more > 1 else ''})"
    return EncounterFileError(msg, file=file, path=path)


def loads_encounter(text: str, *, file: str | None = None, notes: list[str] | None = None) -> Encounter:
    """Parse encounter JSON text; ``file`` only names the source in error messages; what
    was left out (a recorded fight that does not belong) is added to ``notes``."""
    limits.check_json_items(text, file=file)  # (what the parse would build, bounded before it runs)
    try:
        data = limits.parse_json(text)  # NaN/Infinity parse, then are refused with their path
    except json.JSONDecodeError as exc:
        raise EncounterFileError(
            f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", file=file
        ) from None
    except ValueError as exc:
        raise EncounterFileError(f"malformed JSON: {exc}", file=file) from None
    except RecursionError:
        raise EncounterFileError(f"the JSON is nested too deeply (more than {MAX_DEPTH} levels)", file=file) from None
    check_unknown_fields(data, file=file)  # (what it keeps unread, bounded before any walk of the rest)
    return encounter_from_data(data, file=file, notes=notes)


def read_user_file(
    path: str | os.PathLike[str],
    *,
    error: Callable[..., CoverfireError],
    what: str,
    max_bytes: int = MAX_FILE_BYTES,
) -> bytes:
    """The bytes of a file the user chose, or ``error(message, file=path)`` saying why not
    (missing, a folder, unreadable, larger than ``max_bytes``); ``what`` names the kind of
    file expected ("an encounter file", "a map file")."""
    p = Path(path)
    name = str(p)
    try:
        st = p.stat()
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError
        if not stat.S_ISREG(st.st_mode):  # a FIFO or /dev/stdin would block the reader forever
            raise error(f"this is not a regular file (a pipe or a device), not {what}", file=name)
        size = st.st_size
        if size > max_bytes:
            raise error(f"the file is {size} bytes, larger than {what} can be", file=name)
        return p.read_bytes()
    except FileNotFoundError:
        raise error("no such file", file=name) from None
    except IsADirectoryError:
        raise error(f"this is a folder, not {what}", file=name) from None
    except OSError as exc:
        raise error(f"cannot read the file: {exc.strerror or exc}", file=name) from None


def load_encounter(path: str | os.PathLike[str], *, notes: list[str] | None = None,
                   stamps: list["FileStamp"] | None = None) -> Encounter:
    """Read and check an encounter file; every failure is an :class:`EncounterFileError`
    (what was left out and why is added to ``notes``: :func:`encounter_from_data`). The
    :class:`FileStamp` of the bytes read is added to ``stamps`` (when given): what the file
    was as read, without reading it again (the window's own read of a 10,000-obstacle file
    to stamp it, and its SHA-256, were ~20 ms of the open's turn)."""
    name = str(Path(path))
    raw = read_user_file(path, error=EncounterFileError, what="an encounter file")
    if stamps is not None:
        stamps.append(FileStamp.of_bytes(path, raw))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise EncounterFileError(
            f"not UTF-8 text (byte {exc.start} is {raw[exc.start]:#04x})", file=name
        ) from None
    return loads_encounter(text, file=name, notes=notes)


def encounter_to_data(encounter: Encounter) -> dict[str, Any]:
    """The JSON-ready dict of an encounter (fields left at None are omitted)."""
    return encounter.model_dump(mode="json", exclude_none=True)


def dumps_encounter(encounter: Encounter) -> str:
    """The text an encounter file holds (:func:`dumps_data` of its data)."""
    return dumps_data(encounter_to_data(encounter))


def _flat(value: Any) -> bool:
    """A list written on one line: numbers and short texts (a point, a list of sides), or a
    list of such lists (a polygon: its points on one line)."""
    for v in value:  # (plain loops: a 1,250,000-pair list took 0.8 s through nested all())
        if isinstance(v, dict):
            return False
        if isinstance(v, list):
            for w in v:
                if isinstance(w, (dict, list)):
                    return False
    return True


def dumps_data(data: Any) -> str:
    """Encounter data as JSON text: objects indented two spaces a level, a list of numbers or
    of points on one line (a 5,000-obstacle map was 24 MB with a coordinate a line, and the
    pure-Python indenting encoder took a second to write it); UTF-8 text as is, NaN refused
    (``ValueError``)."""
    return dump_value(data, "") + "\n"


def dump_value(data: Any, indent: str) -> str:
    if not isinstance(data, (dict, list)) or not data or (isinstance(data, list) and _flat(data)) or \
            (isinstance(data, dict) and "patch" in data and "check" in data):  # a recorded step: one line
        return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    inner = indent + "  "
    if isinstance(data, dict):
        body = ",\n".join(f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {dump_value(v, inner)}"
                          for k, v in data.items())
        return "{\n" + body + "\n" + indent + "}"
    return "[\n" + ",\n".join(inner + dump_value(v, inner) for v in data) + "\n" + indent + "]"


def _mode_for(p: Path) -> int:
    """Keep an existing file's permissions; a new file gets the usual 0666 less the umask
    (mkstemp alone would make it owner-only)."""
    try:
        return p.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


#: A temp file left by a writer that is still running is kept this long (seconds) before a
#: later save treats it as stale anyway (the writer's pid may have been reused).
STALE_TEMP_AGE = 3600.0
#: A temp file in the older ``.NAME.XXXXXXXX.tmp`` form (no pid) is stale after this long.
STALE_LEGACY_TEMP_AGE = 60.0


def real_target(path: str | os.PathLike[str]) -> Path:
    """Where writing ``path`` must land: a symbolic link's final target (so saving through
    a link updates the real file and keeps the link), else ``path`` itself."""
    p = Path(path)
    if p.is_symlink():
        return Path(os.path.realpath(p))
    return p


def _temp_prefix(p: Path) -> str:
    """``.<first 40 characters of the name>.<hash of the whole name>.``: short whatever the
    name's length (a name near the 255-byte limit cannot grow a suffix), unique per name."""
    digest = hashlib.sha1(os.fsencode(p.name)).hexdigest()[:8]
    short = os.fsencode(p.name)[:40].decode("utf-8", "ignore") or "f"
    return f".{short}.{digest}."


def _pid_alive(pid: int) -> bool:
    """Whether the process that made a temp file still runs (on every platform:
    :func:`engine.processes.alive`)."""
    from engine.processes import alive

    return alive(pid)


def clean_stale_temps(path: str | os.PathLike[str], now: float | None = None) -> list[Path]:
    """Remove the temp files an interrupted save of ``path`` left beside it (a kill between
    writing the temp file and renaming it): those of writers no longer running, of this
    process, or older than :data:`STALE_TEMP_AGE`; the older pid-less form after
    :data:`STALE_LEGACY_TEMP_AGE`. Returns what was removed; never raises."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    now = time.time() if now is None else now
    removed: list[Path] = []
    prefix = _temp_prefix(p)
    legacy = f".{p.name}."
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if not name.endswith(".tmp"):
            continue
        f = folder / name
        try:
            age = now - f.lstat().st_mtime
        except OSError:
            continue
        if name.startswith(prefix):
            pid_text = name[len(prefix):].split("-", 1)[0]
            pid = int(pid_text) if pid_text.isdigit() else 0
            stale = pid == os.getpid() or not pid or not _pid_alive(pid) or age > STALE_TEMP_AGE
        elif name.startswith(legacy) and len(name) == len(legacy) + 8 + 4:
            stale = age > STALE_LEGACY_TEMP_AGE
        else:
            continue
        if stale:
            try:
                f.unlink()
                removed.append(f)
            except OSError:
                pass
    return removed


def _kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def writable_target(path: str | os.PathLike[str]) -> Path:
    """Where a write of ``path`` lands (:func:`real_target`), or :class:`NotAFileError`
    naming ``path`` when what is there is not a regular file: a FIFO (opening one to write
    waits for a reader, forever), a device (``/dev/null``: renaming over it would replace
    it), a socket, a folder, or a link to one. A new name is fine. Only ``stat``: nothing is
    opened. The write side of :func:`read_user_file`'s check."""
    p = real_target(path)
    try:
        st = os.stat(p)
    except OSError:  # a new name (or one the write itself will say it cannot use)
        return p
    if stat.S_ISREG(st.st_mode):
        return p
    kind = _kind_of(st.st_mode)
    what = f"this is a link to {p}, {kind}" if Path(path).is_symlink() else f"this is {kind}"
    if kind != "a folder":
        what += ", not a regular file"
    raise NotAFileError(f"{what}, so Coverfire did not write to it; give the name of a regular "
                        "file or a new one", file=str(path))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` so that the file is either the old one or the new one,
    never a mixture: temp file in the same folder, fsync, rename. Through a symbolic link it
    writes the link's target (the link stays). Temp files an earlier interrupted save left
    are removed first (:func:`clean_stale_temps`). A name that is not a regular file nor a
    new one (a FIFO, a device, a folder) is refused first, nothing opened
    (:class:`~engine.errors.NotAFileError`, :func:`writable_target`)."""
    p = writable_target(path)
    folder = p.parent if str(p.parent) else Path(".")
    clean_stale_temps(p)
    fd, tmp = tempfile.mkstemp(prefix=f"{_temp_prefix(p)}{os.getpid()}-", suffix=".tmp", dir=folder)
    try:
        os.fchmod(fd, _mode_for(p))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable where the OS allows
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def is_read_only(path: str | os.PathLike[str]) -> bool:
    """Whether an existing file is marked read-only (no write permission bit for anyone, as
    ``chmod a-w`` leaves it; root would be allowed to write it, Coverfire still asks)."""
    try:
        st = real_target(path).stat()
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and not st.st_mode & 0o222


def _encode(text: str, file: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # only a model built around engine/limits.py gets here
        raise EncounterFileError(
            f"cannot save: the text holds a broken character (\\u{ord(text[exc.start]):04x}, a lone "
            "surrogate) that UTF-8 cannot hold; nothing was written", file=file) from None


def write_encounter_bytes(path: str | os.PathLike[str], data: bytes, *, overwrite_read_only: bool = False) -> None:
    """Write an encounter's bytes atomically (:func:`atomic_write_bytes`), as every save
    does: raises :class:`~engine.errors.ReadOnlyFileError` for a read-only file (unless
    ``overwrite_read_only``) and :class:`EncounterFileError` for any other failure (a full
    disk, a folder that cannot be written, a name too long); the old file is then intact.
    Holds the file's lock (:func:`file_lock`) while it writes; refuses a pipe, a device or
    a folder (:class:`~engine.errors.NotAFileError`) without opening it."""
    name = str(path)
    if not overwrite_read_only and is_read_only(path):
        raise ReadOnlyFileError(
            "the file is read-only, so Coverfire did not overwrite it; save under another "
            "name (File > Save As), or make the file writable first", file=name)
    try:
        with file_lock(path):
            atomic_write_bytes(path, data)
    except OSError as exc:
        why = exc.strerror or str(exc)
        if exc.errno == errno.ENOSPC:
            why = f"the disk is full ({exc.strerror})"
        elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            why = f"the folder cannot be written ({exc.strerror})"
        raise EncounterFileError(f"cannot save: {why}; the file on disk is unchanged", file=name) from None


def save_encounter(encounter: Encounter, path: str | os.PathLike[str], *, overwrite_read_only: bool = False,
                   writer=None) -> None:
    """Save atomically as UTF-8 JSON; raises :class:`EncounterFileError` if it cannot (see
    :func:`write_encounter_bytes`), and refuses, writing nothing, an encounter the loader
    would refuse past :mod:`engine.limits` (one built with ``model_copy``, which skips the
    checks: a file is only written if it can be opened again). ``writer``: an
    :class:`engine.encounter_text.EncounterText` that keeps the texts of values written
    before (the same text, made in milliseconds after an edit of a big map)."""
    try:
        text = writer.text(encounter) if writer is not None else dumps_data(checked_data(encounter))
    except EncounterFileError as exc:
        raise EncounterFileError(f"cannot save: {exc.reason}; nothing was written", file=str(path),
                                 path=exc.path) from None
    write_encounter_bytes(path, _encode(text, str(path)), overwrite_read_only=overwrite_read_only)


# -- one writer at a time ---------------------------------------------------------------------------
#: Seconds a writer waits for another's lock on a file before it gives up (nothing written).
LOCK_TIMEOUT = 30.0
#: Seconds between two tries of a lock another writer holds.
LOCK_POLL = 0.02
_held = threading.local()  # lock file -> [fd, depth] of the locks this thread holds


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock file of ``path``: ``.<name>.<hash>.lock`` beside the file a write lands in
    (through a link: beside its target, so writers through the link and to the target take
    one lock). It exists only while a writer holds it."""
    p = real_target(path)
    return (p.parent if str(p.parent) else Path(".")) / f"{_temp_prefix(p)}lock"


def _try_lock(fd: int) -> bool:
    if os.name == "nt":  # pragma: no cover - Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    except OSError as exc:  # a file system without locks (some network shares): write unlocked
        raise _NoLocks from exc
    return True


class _NoLocks(Exception):
    """This file system cannot lock (``ENOLCK``, ``EOPNOTSUPP``)."""


def _acquire(lock: Path, name: str, timeout: float) -> int | None:
    """An open descriptor of ``lock`` locked by this process, or None where no lock file can
    be made (a read-only folder: the write will say why it cannot either) or the file
    system has no locks (then the write goes ahead as before there were locks)."""
    deadline = clock.now() + timeout
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0),
                         0o666)
        except OSError:
            return None
        try:
            while not _try_lock(fd):
                if clock.now() >= deadline:
                    raise FileBusyError(
                        f"another Coverfire has been writing this file for {timeout:g} s (it holds {lock.name}); "
                        "nothing was written: try again when it is done", file=name)
                time.sleep(LOCK_POLL)
            # the holder before us removes the lock file as it lets go: ours must still be it
            mine = os.fstat(fd)
            try:
                now = os.stat(lock)
            except FileNotFoundError:
                now = None
            if now is not None and (now.st_ino, now.st_dev) == (mine.st_ino, mine.st_dev):
                return fd
        except _NoLocks:
            os.close(fd)
            try:
                os.unlink(lock)
            except OSError:
                pass
            return None
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # (a lock file already let go: take the next one)


@contextmanager
def file_lock(path: str | os.PathLike[str], *, timeout: float | None = None) -> Iterator[None]:
    """Hold the write lock of ``path`` (an advisory lock on :func:`lock_path`, ``flock`` on
    POSIX) for the block: other Coverfire processes (and threads) writing the same file wait
    for it, up to ``timeout`` seconds (:data:`LOCK_TIMEOUT`, read on :mod:`engine.clock`),
    then get :class:`~engine.errors.FileBusyError`. Re-entrant in one thread (a save inside a
    read-modify-write). Where no lock file can be made (a read-only folder) the block runs
    unlocked: its write then fails and says why. A lock left by a killed writer is no
    obstacle: the system lets it go with the process."""
    lock = lock_path(path)
    held = getattr(_held, "locks", None)
    if held is None:
        held = _held.locks = {}
    key = str(lock)
    if key in held:
        held[key][1] += 1
        try:
            yield
        finally:
            held[key][1] -= 1
        return
    fd = _acquire(lock, str(path), LOCK_TIMEOUT if timeout is None else timeout)
    if fd is None:
        yield
        return
    held[key] = [fd, 1]
    try:
        yield
    finally:
        del held[key]
        _release(lock, fd)


def _release(lock: Path, fd: int) -> None:
    if os.name == "nt":  # pragma: no cover - Windows: unlock, close, then remove if no one has it open
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        except OSError:
            pass
        os.close(fd)
        try:
            os.unlink(lock)
        except OSError:
            pass
        return
    try:  # removed while still held: a waiter then finds its file let go and takes a new one
        os.unlink(lock)
    except OSError:
        pass
    os.close(fd)


def checked_data(encounter: Encounter) -> dict[str, Any]:
    """:func:`encounter_to_data`, refused (:class:`EncounterFileError`, with the JSON path)
    past :mod:`engine.limits`."""
    data = encounter_to_data(encounter)
    limits.check_data(data)
    return data


@dataclass(frozen=True)
class FileStamp:
    """What a file was when Coverfire read or wrote it: to tell, at the next save, whether
    another program changed it meanwhile."""

    mtime_ns: int
    size: int
    sha256: str

    @classmethod
    def of(cls, path: str | os.PathLike[str]) -> "FileStamp | None":
        """The stamp of the file now, or None when there is none (missing, unreadable)."""
        try:
            p = real_target(path)
            st = p.stat()
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
                return None
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
        except OSError:
            return None
        return cls(st.st_mtime_ns, st.st_size, digest)

    @classmethod
    def of_bytes(cls, path: str | os.PathLike[str], data: bytes) -> "FileStamp":
        """The stamp of the file at ``path`` whose content was read as ``data`` (its size and
        SHA-256 are those of ``data``, so a change after the read is told at the next save)."""
        try:
            mtime = real_target(path).stat().st_mtime_ns
        except OSError:
            mtime = 0
        return cls(mtime, len(data), hashlib.sha256(data).hexdigest())

    def same_content(self, other: "FileStamp | None") -> bool:
        return other is not None and other.size == self.size and other.sha256 == self.sha256
