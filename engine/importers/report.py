"""What an import did: the summary, the problems and what it left behind, as one value.

Every importer returns an :class:`ImportReport` beside its result. Nothing an importer meets
is dropped without a line here: a wall it could not read, an image it could not use, a
Chummer spell the map has no use for. The GUI shows :meth:`ImportReport.lines`; the CLI
prints them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ImportIssue:
    """One problem met while importing: ``message`` in the GM's words, ``where`` the place in
    the source file (a JSON path such as ``$.portals[2].bounds`` or an XML path such as
    ``character/weapons/weapon[3]``), or ``None`` when it concerns the whole file."""

    message: str
    where: str | None = None

    def __str__(self) -> str:
        return f"at {self.where}: {self.message}" if self.where else self.message


@dataclass(frozen=True)
class ImportReport:
    """The outcome of one import.

    ``source`` is the file read, ``kind`` ``"uvtt"``, ``"foundry"`` or ``"chummer"``. ``summary`` says what
    was imported (counts, sizes); ``warnings`` are problems (something could not be read, was
    approximated or is missing); ``unsupported`` lists things in the file that Coverfire does
    not model and therefore did not carry over. ``seconds`` is the wall time of the import.
    ``files`` names files written beside the encounter when it was saved (images)."""

    source: str
    kind: str
    summary: tuple[str, ...] = ()
    warnings: tuple[ImportIssue, ...] = ()
    unsupported: tuple[str, ...] = ()
    seconds: float = 0.0
    files: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when nothing went wrong (``unsupported`` items alone do not count)."""
        return not self.warnings

    def lines(self) -> list[str]:
        """The report as short lines of text for a message box or a terminal."""
        out = [f"Imported {self.source} ({self.kind}) in {self.seconds:.2f} s"]
        out += [f"  {s}" for s in self.summary]
        if self.warnings:
            out.append(f"{len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''}:")
            out += [f"  - {w}" for w in self.warnings]
        if self.unsupported:
            out.append("Not carried over (Coverfire does not model these):")
            out += [f"  - {u}" for u in self.unsupported]
        if self.files:
            out.append("Files written: " + ", ".join(self.files))
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


@dataclass
class ReportBuilder:
    """Collects an import's report lines while it runs; :meth:`build` freezes them."""

    source: str
    kind: str
    summary: list[str] = field(default_factory=list)
    warnings: list[ImportIssue] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)

    def warn(self, message: str, where: str | None = None) -> None:
        self.warnings.append(ImportIssue(message, where))

    def note(self, line: str) -> None:
        self.summary.append(line)

    def skip(self, line: str) -> None:
        self.unsupported.append(line)

    def build(self, seconds: float = 0.0) -> ImportReport:
        return ImportReport(
            source=self.source,
            kind=self.kind,
            summary=tuple(self.summary),
            warnings=tuple(self.warnings),
            unsupported=tuple(self.unsupported),
            seconds=seconds,
        )


def quote(value: Any) -> str:
    """A value as a report quotes it: JSON (a string in quotes), at most 60 characters, a huge
    integer by its number of digits."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**60:
        return f"an integer of {len(str(abs(value)))} digits"
    try:
        text = json.dumps(value) if not isinstance(value, str) else repr(value)
    except (ValueError, RecursionError, TypeError):
        text = repr(type(value).__name__)
    return text if len(text) <= 60 else text[:57] + "..."
