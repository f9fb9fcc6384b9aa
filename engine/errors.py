"""The ways Coverfire can refuse something, one exception type each.

All are ``ValueError`` subclasses so callers that only care "was the input bad" can catch
``ValueError``; the GUI shows ``str(err)`` in a message box and the CLI prints it and exits 2.
"""

from __future__ import annotations


class CoverfireError(ValueError):
    """Base of every user-facing error: its ``str`` is a complete sentence for the user."""


class EncounterFileError(CoverfireError):
    """An encounter file that cannot be read: names the file, the JSON path and the fault."""

    def __init__(self, message: str, *, file: str | None = None, path: str = "$") -> None:
        self.file = file
        self.path = path
        self.reason = message
        where = f"{file}: " if file else ""
        at = f"at {path}: " if path and path != "$" else ""
        super().__init__(f"{where}{at}{message}")


class ImportFileError(CoverfireError):
    """A file from another tool (UVTT map, Chummer save) that cannot be imported."""

    def __init__(self, message: str, *, file: str | None = None, path: str | None = None) -> None:
        self.file = file
        self.path = path
        self.reason = message
        where = f"{file}: " if file else ""
        at = f"at {path}: " if path else ""
        super().__init__(f"{where}{at}{message}")


class IllegalActionError(CoverfireError):
    """A rule system refused an action; ``reason`` says why in the GM's words."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class UnknownIdError(CoverfireError):
    """An id that names no token, obstacle or zone of the encounter."""

    def __init__(self, kind: str, ident: str) -> None:
        self.kind = kind
        self.ident = ident
        super().__init__(f"no {kind} with id {ident!r} in this encounter")


class GeometryError(CoverfireError):
    """Impossible geometry: a polygon that crosses itself, a NaN coordinate, a zero radius."""
