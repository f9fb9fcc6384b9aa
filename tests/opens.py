"""Whether a path was opened, by anyone in this process (Python or Qt's C++), told by the
kernel (Linux inotify): for tests that a pipe or a device is refused without being opened,
decided by an event, not by how long the refusal took."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct

IN_OPEN = 0x00000020
IN_NONBLOCK = 0o4000


class OpenWatch:
    """``with OpenWatch(path) as w: ...; w.opens()``: how many times ``path`` was opened
    since the watch began (skips the test off Linux)."""

    def __init__(self, path) -> None:
        self.path = os.fspath(path)
        self._fd = -1

    def __enter__(self) -> "OpenWatch":
        import pytest

        name = ctypes.util.find_library("c")
        libc = ctypes.CDLL(name, use_errno=True) if name else None
        if libc is None or not hasattr(libc, "inotify_init1"):
            pytest.skip("no inotify here (Linux only)")
        self._fd = libc.inotify_init1(IN_NONBLOCK)
        if self._fd < 0 or libc.inotify_add_watch(self._fd, os.fsencode(self.path), IN_OPEN) < 0:
            pytest.skip(f"cannot watch {self.path}: {os.strerror(ctypes.get_errno())}")
        return self

    def opens(self) -> int:
        n = 0
        while True:
            try:
                buf = os.read(self._fd, 4096)
            except BlockingIOError:
                return n
            off = 0
            while off < len(buf):
                _wd, mask, _cookie, size = struct.unpack_from("iIII", buf, off)
                n += bool(mask & IN_OPEN)
                off += 16 + size

    def __exit__(self, *exc) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
