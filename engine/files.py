"""Reading and writing encounter files (UTF-8 JSON; reads versions 1 and 2, writes 2).

:func:`load_encounter` raises :class:`~engine.errors.EncounterFileError` naming the file, the
JSON path (``$.tokens[2].x``) and what is wrong. :func:`save_encounter` writes atomically: a
temporary file beside the target, flushed to disk, then renamed over it, so a crash or a
full disk never leaves a half-written encounter.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from engine.errors import CoverfireError, EncounterFileError
from engine.model import FORMAT, VERSION, VERSIONS, Encounter

MAX_FILE_BYTES = 256 * 1024 * 1024
#: Deepest nesting of JSON arrays and objects read (an encounter needs fewer than ten levels).
MAX_DEPTH = 100


def _json_path(loc: tuple[Any, ...]) -> str:
    out = "$"
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}"
    return out


def _find_nonfinite(value: Any, loc: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """The JSON path (as keys) of the first NaN or infinite number, in document order; raises
    :class:`_TooDeep` at nesting deeper than :data:`MAX_DEPTH` (so the recursion is bounded)."""
    if isinstance(value, float) and not math.isfinite(value):
        return loc
    if isinstance(value, (dict, list)):
        if len(loc) >= MAX_DEPTH:
            raise _TooDeep(loc)
        for k, v in value.items() if isinstance(value, dict) else enumerate(value):
            hit = _find_nonfinite(v, loc + (k,))
            if hit is not None:
                return hit
    return None


class _TooDeep(Exception):
    def __init__(self, loc: tuple[Any, ...]) -> None:
        self.loc = loc


def encounter_from_data(data: Any, *, file: str | None = None) -> Encounter:
    """Validate already-parsed JSON data as an encounter."""
    if not isinstance(data, dict):
        raise EncounterFileError("an encounter file holds one JSON object", file=file)
    if data.get("format") != FORMAT:
        raise EncounterFileError(
            f"this is not a Coverfire encounter: \"format\" is {data.get('format')!r}, "
            f"expected {FORMAT!r}",
            file=file,
            path="$.format",
        )
    version = data.get("version")
    if version not in VERSIONS or isinstance(version, bool):
        raise EncounterFileError(
            f"unknown version {version!r}: this Coverfire reads versions "
            f"{', '.join(map(str, VERSIONS))} (and writes {VERSION})",
            file=file,
            path="$.version",
        )
    try:
        bad = _find_nonfinite(data)
    except _TooDeep as deep:
        raise EncounterFileError(f"the JSON is nested too deeply (more than {MAX_DEPTH} levels)",
                                 file=file, path=_json_path(deep.loc)) from None
    if bad is not None:
        raise EncounterFileError(
            "NaN or infinite numbers are not allowed", file=file, path=_json_path(bad)
        )
    try:
        return Encounter.model_validate(data)
    except ValidationError as exc:
        raise _from_validation(exc, file) from None
    except EncounterFileError as exc:  # raised directly by a validator outside pydantic
        raise EncounterFileError(exc.reason, file=file, path=exc.path) from None


def _from_validation(exc: ValidationError, file: str | None) -> EncounterFileError:
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
            msg += f" (got {first['input']!r})"
    more = len(errors) - 1
    if more:
        msg += f" (and {more} more problem{'s' if more > 1 else ''})"
    return EncounterFileError(msg, file=file, path=path)


def loads_encounter(text: str, *, file: str | None = None) -> Encounter:
    """Parse encounter JSON text; ``file`` only names the source in error messages."""
    try:
        data = json.loads(text)  # NaN/Infinity parse, then are refused with their path
    except json.JSONDecodeError as exc:
        raise EncounterFileError(
            f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", file=file
        ) from None
    except ValueError as exc:
        raise EncounterFileError(f"malformed JSON: {exc}", file=file) from None
    except RecursionError:
        raise EncounterFileError(f"the JSON is nested too deeply (more than {MAX_DEPTH} levels)", file=file) from None
    return encounter_from_data(data, file=file)


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
        size = p.stat().st_size
        if size > max_bytes:
            raise error(f"the file is {size} bytes, larger than {what} can be", file=name)
        return p.read_bytes()
    except FileNotFoundError:
        raise error("no such file", file=name) from None
    except IsADirectoryError:
        raise error(f"this is a folder, not {what}", file=name) from None
    except OSError as exc:
        raise error(f"cannot read the file: {exc.strerror or exc}", file=name) from None


def load_encounter(path: str | os.PathLike[str]) -> Encounter:
    """Read and check an encounter file; every failure is an :class:`EncounterFileError`."""
    name = str(Path(path))
    raw = read_user_file(path, error=EncounterFileError, what="an encounter file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise EncounterFileError(
            f"not UTF-8 text (byte {exc.start} is {raw[exc.start]:#04x})", file=name
        ) from None
    return loads_encounter(text, file=name)


def encounter_to_data(encounter: Encounter) -> dict[str, Any]:
    """The JSON-ready dict of an encounter (fields left at None are omitted)."""
    return encounter.model_dump(mode="json", exclude_none=True)


def dumps_encounter(encounter: Encounter) -> str:
    return json.dumps(encounter_to_data(encounter), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _mode_for(p: Path) -> int:
    """Keep an existing file's permissions; a new file gets the usual 0666 less the umask
    (mkstemp alone would make it owner-only)."""
    try:
        return p.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` so that the file is either the old one or the new one,
    never a mixture: temp file in the same folder, fsync, rename."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=folder)
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


def save_encounter(encounter: Encounter, path: str | os.PathLike[str]) -> None:
    """Save atomically as UTF-8 JSON; raises :class:`EncounterFileError` if it cannot."""
    text = dumps_encounter(encounter)
    try:
        atomic_write_bytes(path, text.encode("utf-8"))
    except OSError as exc:
        raise EncounterFileError(f"cannot save: {exc.strerror or exc}", file=str(path)) from None
