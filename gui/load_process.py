"""Reading a map or encounter file in a process of its own (no Qt here: this is what the
process imports), so that a big file's parse, validation or import (0.6 s for a
10,000-obstacle encounter, 3.2 s for a Universal VTT map of 13,000 walls, up to 6.5 s for a
refused comb-wall map, all of it holding the interpreter lock: a thread would freeze the
window as long) never runs on the GUI thread.

One process runs one :func:`perform` request (the window's fallback runs the very same
function in-process when the process cannot):

* ``open PATH``: an encounter file, read and checked as :func:`engine.files.load_encounter`;
* ``import PATH OPTIONS``: a map (:func:`engine.importers.detect.import_file` with
  ``expect="map"``; ``OPTIONS`` a JSON object of ``cell_size``, ``object_height``,
  ``window_sill``, ``scene``), giving the encounter and its ``report``
  (:class:`~engine.importers.report.ImportReport`);
* ``autosave PATH``: the encounter in an autosave file (:func:`read_autosave`);
* ``scenes PATH``: the scene names of a Foundry file (``scenes``; None for a file that is
  not a Foundry one; no encounter);
* ``sniff PATH``: what the file is (``kind``, :func:`engine.importers.detect.sniff`, which
  parses a JSON file whole: 190 ms for a 10 MB Foundry scene).

It writes to its standard output a series of frames, each an 8-byte length and a pickle:

* ``("header", frames, fields_set)``: how many frames follow and the encounter's
  ``model_fields_set`` (None with no encounter);
* ``("items", field, [values ...])``: a slice of one of the encounter's long tuples
  (obstacles, tokens, zones ...), cut so that each frame unpickles in a few milliseconds;
* ``("extra", name, value)``: something else the request answers (the import ``report``,
  the ``scenes``);
* ``("rest", encounter)``: the encounter with those tuples empty, or None (last frame);

or a single ``("exception", pickled, message)`` for a file it refuses: the
:class:`~engine.errors.CoverfireError` to raise (``pickled`` is that error pickled, or None;
``message`` its text, which the window shows whatever the error's class). The window unpickles
one frame per event-loop turn (:mod:`gui.opening`) and puts the encounter together again
with ``model_copy`` (no second validation). Anything else going wrong in here ends the
process with a non-zero status: the window then does the work itself. The process ends
quietly with the window (:mod:`gui.child_process`): a broken pipe on its output (the window
gone, or the GM's Cancel) stops it, and so does the system's SIGTERM when the window goes.
"""

from __future__ import annotations

import json
import os
import pickle
import struct
import sys

#: Bytes of pickled values per frame (about 5 ms to unpickle on this machine).
FRAME_BYTES = 64 * 1024
#: Tuples of the encounter with more items than this are sent in slices.
SLICED_FROM = 32
#: What the autosaver writes in its files' ``"format"`` (:mod:`gui.autosave`).
AUTOSAVE_MARK = "coverfire.autosave"
KINDS = ("open", "import", "autosave", "scenes", "sniff")
_LEN = struct.Struct("<Q")
_P = pickle.HIGHEST_PROTOCOL


def read_autosave(path) -> object:
    """The encounter an autosave file holds (its ``"encounter"``, checked as
    :func:`engine.files.encounter_from_data` with the autosave's name). Raises
    :class:`~engine.errors.EncounterFileError` for a file that is not one, or damaged."""
    from engine.errors import EncounterFileError
    from engine.files import encounter_from_data, read_user_file

    name = str(path)
    raw = read_user_file(path, error=EncounterFileError, what="an autosave file")
    try:
        wrapper = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # (UnicodeDecodeError is a ValueError)
        raise EncounterFileError(f"the autosave is damaged (not JSON: {exc})", file=name) from None
    if not isinstance(wrapper, dict) or wrapper.get("format") != AUTOSAVE_MARK:
        raise EncounterFileError("this is not an autosave Coverfire wrote", file=name)
    return encounter_from_data(wrapper.get("encounter"), file=name)


def perform(kind: str, path: str, options: dict | None = None):
    """Run one request here: ``(encounter or None, extras)`` (see the module's docstring);
    raises the file's :class:`~engine.errors.CoverfireError`."""
    options = dict(options or {})
    if kind == "open":
        from engine.files import load_encounter

        notes: list[str] = []
        stamps: list = []
        encounter = load_encounter(path, notes=notes, stamps=stamps)
        return encounter, {"notes": notes, "stamp": stamps[0]}
    if kind == "import":
        from engine.importers.detect import import_file

        result = import_file(path, expect="map", **options)
        return result.encounter, {"report": result.report}
    if kind == "autosave":
        return read_autosave(path), {}
    if kind == "scenes":
        from engine.importers.detect import sniff
        from engine.importers.foundry import scene_names

        return None, {"scenes": scene_names(path) if sniff(path).kind == "foundry" else None}
    if kind == "sniff":
        from engine.importers.detect import sniff

        return None, {"kind": sniff(path)}
    raise ValueError(f"unknown request {kind!r}")


def frames(encounter, extras: dict | None = None) -> list[bytes]:
    """The encounter (or None) and the extras as pickled frames (see the module's docstring)."""
    body: list[bytes] = []
    sliced: dict[str, tuple] = {}
    if encounter is not None:
        from pydantic import BaseModel

        for name in type(encounter).model_fields:
            value = getattr(encounter, name)
            if isinstance(value, tuple) and len(value) > SLICED_FROM and all(isinstance(v, BaseModel) for v in value):
                sliced[name] = value
        for name, values in sliced.items():
            sample = values[:: max(1, len(values) // 16)]
            each = sum(len(pickle.dumps(v, protocol=_P)) for v in sample) / len(sample)
            per = max(1, int(FRAME_BYTES // max(each, 1.0)))
            for k in range(0, len(values), per):
                body.append(pickle.dumps(("items", name, list(values[k:k + per])), protocol=_P))
    for name, value in (extras or {}).items():
        body.append(pickle.dumps(("extra", name, value), protocol=_P))
    rest = encounter.model_copy(update={name: () for name in sliced}) if encounter is not None else None
    body.append(pickle.dumps(("rest", rest), protocol=_P))
    fields_set = set(encounter.model_fields_set) if encounter is not None else None
    return [pickle.dumps(("header", len(body), fields_set), protocol=_P)] + body


def error_frame(exc: Exception) -> bytes:
    """The one frame that says the file was refused with ``exc``."""
    try:
        pickled = pickle.dumps(exc, protocol=_P)
    except Exception:  # noqa: BLE001 - an error that does not pickle: its message is enough
        pickled = None
    return pickle.dumps(("exception", pickled, str(exc)), protocol=_P)


def rebuilt_error(pickled: bytes | None, message: str):
    """The error an ``("exception", ...)`` frame names: the very error when it unpickles with
    the same message, else a :class:`~engine.errors.CoverfireError` of that message."""
    from engine.errors import CoverfireError

    if pickled is not None:
        try:
            exc = pickle.loads(pickled)
        except Exception:  # noqa: BLE001 - an error whose class will not rebuild from its message
            exc = None
        if isinstance(exc, CoverfireError) and str(exc) == message:
            return exc
    return CoverfireError(message)


def split_frames(data: bytes | bytearray | memoryview) -> list[memoryview]:
    """The frames in a process's output (a truncated last frame is left out)."""
    view = memoryview(data)
    out = []
    pos = 0
    while pos + _LEN.size <= len(view):
        (n,) = _LEN.unpack_from(view, pos)
        start = pos + _LEN.size
        if start + n > len(view):
            break
        out.append(view[start:start + n])
        pos = start + n
    return out


def assemble(rest, fields_set, items: dict[str, list]):
    """The encounter from its ``rest`` and the slices received (``field -> values``)."""
    enc = rest.model_copy(update={name: tuple(values) for name, values in items.items()})
    object.__setattr__(enc, "__pydantic_fields_set__", set(fields_set))
    return enc


def argv(kind: str, path: str, options: dict | None = None) -> list[str]:
    """The process's arguments for a request (what :func:`main` reads)."""
    return [kind, str(path), json.dumps(dict(options or {}))]


def _write(out, payload: bytes) -> None:
    out.write(_LEN.pack(len(payload)))
    out.write(payload)


def main(args: list[str] | None = None) -> int:  # pragma: no cover - runs in the child process
    """Run the request in ``args`` (default ``sys.argv[1:]``: ``KIND PATH [OPTIONS]``, or just
    ``PATH`` to open an encounter) and write its frames to standard output."""
    from gui.child_process import end_with_parent

    end_with_parent()  # (Ctrl-C is the window's to take; the system's SIGTERM when it goes)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # (anything printed by a library goes to stderr, not into the frames)
    args = list(sys.argv[1:] if args is None else args)
    kind, path, options = ("open", args[0], {}) if len(args) == 1 else (args[0], args[1],
                                                                          json.loads(args[2]) if len(args) > 2 else {})
    from engine.errors import CoverfireError

    try:
        try:
            encounter, extras = perform(kind, path, options)
        except CoverfireError as exc:
            _write(out, error_frame(exc))
            out.flush()
            return 0
        for frame in frames(encounter, extras):
            _write(out, frame)
        out.flush()
    except (BrokenPipeError, ConnectionResetError):  # the window went away (or cancelled): stop, quietly
        _drop(out)
        return 0
    return 0


def child_main(args: list[str]) -> int:  # pragma: no cover - runs in the child process
    """The child's entry (:func:`engine.child.run`): :func:`main` on ``args``."""
    return main(args)


def _drop(out) -> None:
    """Let the frames' stream go without the interpreter's final flush of a closed pipe
    printing anything: its descriptor now points at the null device."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
