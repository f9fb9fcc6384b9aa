"""Reading an encounter file in a process of its own (no Qt here: this is what the process
imports), so that a big map's JSON parse and validation (0.6 s for 10,000 obstacles, all of
it holding the interpreter lock: a thread would freeze the window as long) never runs on the
GUI thread.

The process reads and checks the file exactly as :func:`engine.files.load_encounter` does and
writes to its standard output a series of frames, each an 8-byte length and a pickle:

* ``("header", frames, fields_set)``: how many frames follow and the encounter's
  ``model_fields_set``;
* ``("items", field, [values ...])``: a slice of one of the encounter's long tuples
  (obstacles, tokens, zones ...), cut so that each frame unpickles in a few milliseconds;
* ``("rest", encounter)``: the encounter with those tuples empty (last frame);

or a single ``("error", reason, file, path)`` for a file it refuses (the
:class:`~engine.errors.EncounterFileError` to raise). The window unpickles one frame per
event-loop turn (:mod:`gui.opening`) and puts the encounter together again with
``model_copy`` (no second validation). Anything else going wrong in here ends the process
with a non-zero status: the window then reads the file itself.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys

#: Bytes of pickled values per frame (about 5 ms to unpickle on this machine).
FRAME_BYTES = 64 * 1024
#: Tuples of the encounter with more items than this are sent in slices.
SLICED_FROM = 32
_LEN = struct.Struct("<Q")


def frames(encounter) -> list[bytes]:
    """The encounter as pickled frames (see the module's docstring)."""
    from pydantic import BaseModel

    sliced: dict[str, tuple] = {}
    for name in type(encounter).model_fields:
        value = getattr(encounter, name)
        if isinstance(value, tuple) and len(value) > SLICED_FROM and all(isinstance(v, BaseModel) for v in value):
            sliced[name] = value
    body: list[bytes] = []
    for name, values in sliced.items():
        sample = values[:: max(1, len(values) // 16)]
        each = sum(len(pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL)) for v in sample) / len(sample)
        per = max(1, int(FRAME_BYTES // max(each, 1.0)))
        for k in range(0, len(values), per):
            body.append(pickle.dumps(("items", name, list(values[k:k + per])), protocol=pickle.HIGHEST_PROTOCOL))
    rest = encounter.model_copy(update={name: () for name in sliced})
    body.append(pickle.dumps(("rest", rest), protocol=pickle.HIGHEST_PROTOCOL))
    head = pickle.dumps(("header", len(body), set(encounter.model_fields_set)), protocol=pickle.HIGHEST_PROTOCOL)
    return [head] + body


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


def _write(out, payload: bytes) -> None:
    out.write(_LEN.pack(len(payload)))
    out.write(payload)


def main(path: str | None = None) -> int:  # pragma: no cover - runs in the child process
    """Read ``path`` (default ``sys.argv[1]``) and write its frames to standard output."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # (anything printed by a library goes to stderr, not into the frames)
    path = path if path is not None else sys.argv[1]
    from engine.errors import EncounterFileError
    from engine.files import load_encounter

    try:
        enc = load_encounter(path)
    except EncounterFileError as exc:
        _write(out, pickle.dumps(("error", exc.reason, exc.file, exc.path)))
        out.flush()
        return 0
    for frame in frames(enc):
        _write(out, frame)
    out.flush()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
