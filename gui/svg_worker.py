"""Drawing an SVG picture in a child process, under a time and a memory limit.

An SVG that :func:`engine.importers.images.clean_svg` accepts draws a bounded number of
elements at a bounded size, but the cost of each (a full-page fill, a huge stroke, a glyph
at a million pixels) is not bounded by counting them. So the picture is drawn in a child
process: past :data:`SECONDS` of CPU time (its limit; a wall-time bound the caller gives, as
many seconds by default) or its 1 GiB address-space limit the child is killed and the picture is left out with a message, and the window goes on.

The child is this module's :func:`main`, started by :mod:`engine.child` (from source
``python -m engine.child gui.svg_worker``; in the frozen bundle, which has no Python to start,
the bundle's own executable with :data:`engine.child.WORKER_ARG`). It reads ``cpu-seconds width height`` (16 bytes)
and the cleaned SVG on stdin and writes the picture as PNG on stdout.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys

#: CPU seconds an SVG picture may take to draw (and wall seconds, unless the caller says).
SECONDS = 10.0
#: Address space of the drawing process, bytes.
MEMORY = 1 << 30
def command() -> list[str]:
    """How to start the drawing process, from source or from the frozen bundle."""
    from engine.child import command as child_command

    return child_command("gui.svg_worker")


def render(svg: bytes, width: int, height: int, seconds: float | None = None,
           wall: float | None = None) -> tuple[bytes | None, str | None]:
    """The PNG bytes of ``svg`` drawn at ``width`` x ``height`` pixels in a child process,
    or (None, why): it took longer than ``seconds`` of CPU (:data:`SECONDS`) or ``wall``
    seconds of wall time (as many by default), ran out of its memory, or Qt could not draw it."""
    cpu = SECONDS if seconds is None else seconds
    limit = cpu if wall is None else wall
    from engine.child import environment, popen_options

    env = environment(dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    try:
        done = subprocess.run(command(), input=struct.pack("<dII", cpu, width, height) + svg, capture_output=True,
                              timeout=limit, env=env, **popen_options())
    except subprocess.TimeoutExpired:
        return None, f"drawing it took longer than {limit:g} s"
    except OSError as exc:
        return None, f"it could not be drawn ({exc.strerror or exc})"
    if done.returncode != 0 or not done.stdout.startswith(b"\x89PNG"):
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        if done.returncode < 0 or "MemoryError" in why[0] or "CPU" in why[0]:
            return None, f"drawing it went past the limits of {cpu:g} s and {MEMORY >> 20} MB"
        return None, f"Qt cannot draw it ({why[0][:160]})"
    return done.stdout, None


def main() -> int:
    """The child: read the size and the SVG on stdin, write the PNG on stdout."""
    import math

    if sys.platform == "win32":  # (no such limits: the parent's wall-time limit still holds)
        resource = None
    else:  # (a POSIX without it fails loudly)
        import resource
    from gui.child_process import end_with_parent

    end_with_parent()  # (a window killed mid-drawing takes its drawing process with it)
    if resource is not None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    data = sys.stdin.buffer.read()
    seconds, width, height = struct.unpack("<dII", data[:16])
    cpu = math.ceil(seconds) + 1  # (its CPU budget; the parent's wait is its wall budget)
    if resource is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSize
    from PySide6.QtGui import QImageReader

    buf = QBuffer()
    buf.setData(QByteArray(data[16:]))
    buf.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buf, b"svg")
    reader.setScaledSize(QSize(width, height))
    img = reader.read()
    if img.isNull():
        print(reader.errorString(), file=sys.stderr)
        return 1
    out = QBuffer()
    out.open(QIODevice.OpenModeFlag.WriteOnly)
    img.save(out, "PNG")
    sys.stdout.buffer.write(bytes(out.data()))
    return 0


def child_main(args: list[str]) -> int:  # pragma: no cover - runs in the child
    """The child's entry (:func:`engine.child.run`)."""
    return main()


if __name__ == "__main__":
    sys.exit(main())
