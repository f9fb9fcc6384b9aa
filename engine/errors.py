"""The ways Coverfire can refuse something, one exception type each.

All are ``ValueError`` subclasses so callers that only care "was the input bad" can catch
``ValueError``; the GUI shows ``str(err)`` in a message box and the CLI prints it and exits 2.
"""

from __future__ import annotations

#: Longest reason an error message carries; a longer one (a refused value quoted whole) is cut.
MAX_REASON_CHARS = 600
#: Characters of a value quoted in a message (:func:`excerpt`).
EXCERPT_CHARS = 60


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``repr(value)`` for a message, at most about ``limit`` characters: a long string is cut
    and its length said (``'aaaa…' (6000000 characters)``), so a refused 6 MB value is never
    echoed whole. Never raises (an int past Python's 4,300-digit str limit included)."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}\u2026 ({len(value):,} characters)"
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int too long to print, a list nested too deep
        return f"a number of {value.bit_length():,} bits" if isinstance(value, int) else "a value"
    if len(text) > limit:
        return text[:limit] + f"\u2026 ({len(text):,} characters)"
    return text


def _short(reason: str) -> str:
    if len(reason) <= MAX_REASON_CHARS:
        return reason
    return reason[: MAX_REASON_CHARS - 40] + f"\u2026 (message cut, {len(reason):,} characters)"


class CoverfireError(ValueError):
    """Base of every user-facing error: its ``str`` is a complete sentence for the user."""


class EncounterFileError(CoverfireError):
    """An encounter file that cannot be read: names the file, the JSON path and the fault."""

    def __init__(self, message: str, *, file: str | None = None, path: str = "$") -> None:
        message = _short(message)
        self.file = file
        self.path = path
        self.reason = message
        where = f"{file}: " if file else ""
        at = f"at {path}: " if path and path != "$" else ""
        super().__init__(f"{where}{at}{message}")


class ReadOnlyFileError(EncounterFileError):
    """A save refused because the file on disk is read-only (the GM may save elsewhere)."""


class FileChangedError(EncounterFileError):
    """A save refused because another program changed the file since Coverfire read it."""


class NotAFileError(EncounterFileError):
    """A write refused, nothing opened, because the name is not a regular file nor a new name:
    a pipe (FIFO), a device, a socket or a folder, or a link to one (for every file Coverfire
    writes: encounters, images, exports)."""


class FileBusyError(EncounterFileError):
    """A write refused because another Coverfire kept the file's lock too long (nothing was
    written)."""


class ImportFileError(CoverfireError):
    """A file from another tool (UVTT map, Chummer save) that cannot be imported."""

    def __init__(self, message: str, *, file: str | None = None, path: str | None = None) -> None:
        message = _short(message)
        self.file = file
        self.path = path
        self.reason = message
        where = f"{file}: " if file else ""
        at = f"at {path}: " if path else ""
        super().__init__(f"{where}{at}{message}")


class IllegalActionError(CoverfireError):
    """A rule system refused an action; ``reason`` says why in the GM's words (objects by
    their names, engine.names); ``ids`` the ids of the objects it is about, for programs,
    where the raiser knows them (the refused action holds its own ids too)."""

    def __init__(self, reason: str, *, ids: tuple[str, ...] = ()) -> None:
        self.reason = reason
        self.ids = tuple(ids)
        super().__init__(reason)


class UnknownIdError(CoverfireError):
    """An id that names no token, obstacle or zone of the encounter."""

    def __init__(self, kind: str, ident: str) -> None:
        self.kind = kind
        self.ident = ident
        super().__init__(f"no {kind} with id {ident!r} in this encounter")


class GeometryError(CoverfireError):
    """Impossible geometry: a polygon that crosses itself, a NaN coordinate, a zero radius."""
