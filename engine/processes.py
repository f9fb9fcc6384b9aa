"""Whether another process still runs, the same way on Linux, Windows and macOS (psutil).

``os.kill(pid, 0)`` answers that on POSIX only: on Windows ``os.kill`` *ends* the process
(``TerminateProcess``) for any signal but the two console events, and raises ``OSError`` for
a pid that does not exist and for one it may not touch alike, so an autosave of a running
session would be offered as a crash's (or a crash's never offered) and a save's stale temp
file of a running Coverfire deleted. :mod:`psutil` asks each system its own way.

With the pid, a process is told apart by its start time (:func:`started`): after a crash
the system may give the pid to another program.
"""

from __future__ import annotations

import sys

import psutil


def alive(pid: int) -> bool:
    """Whether a process ``pid`` exists now (one of another user counts)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        return psutil.pid_exists(pid)
    except (OSError, ValueError, OverflowError):
        return False


def started(pid: int) -> int | None:
    """When process ``pid`` started, as a number that is the same every time this machine is
    asked about that process (compared, never shown): on Linux the clock ticks since boot
    of ``/proc/PID/stat`` (psutil adds the boot time, which the kernel derives from the wall
    clock, so a clock adjustment would move it); elsewhere the system's creation time
    (psutil), in whole milliseconds since the epoch. None when there is no such process or
    the system will not say."""
    if sys.platform.startswith("linux"):
        try:
            with open(f"/proc/{int(pid)}/stat", "rb") as fh:
                stat = fh.read()
            return int(stat[stat.rindex(b")") + 2:].split()[19])
        except (OSError, ValueError, IndexError, OverflowError):
            return None
    try:
        return round(psutil.Process(pid).create_time() * 1000)
    except (psutil.Error, OSError, ValueError, OverflowError):
        return None
