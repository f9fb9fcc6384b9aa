"""What every child process of the window (the charge planner and its walks,
:mod:`gui.charge_process`; the file reader, :mod:`gui.load_process`) does first: end with its
parent, quietly. No Qt here (this is imported in the child).

A child outliving its parent only ever printed tracebacks after the work was done (an
``export`` of a 200-token map exited 0, then its planner, started a moment before, found the
window's listener gone and printed ``ConnectionRefusedError``). So a child:

* ignores Ctrl-C (SIGINT): the terminal sends it to the whole process group, and the parent
  decides; the child then sees its connection close;
* is sent SIGTERM by the system when its parent goes (Linux ``PR_SET_PDEATHSIG``: even while
  it computes, and even when the parent is killed), which ends a Python process silently;
* and, everywhere, treats EOF or a broken pipe on its connection as the order to stop (the
  callers: :func:`gui.charge_process.serve`, :func:`gui.load_process.main`).
"""

from __future__ import annotations

import os
import signal
import sys

#: ``prctl`` option: the signal this process gets when the thread that started it ends.
PR_SET_PDEATHSIG = 1


def end_with_parent(parent: int | None = None) -> bool:
    """Set this process up to end quietly with its parent (see the module's text). ``parent``:
    the parent's pid as it said it (then a parent already gone is noticed at once).
    Answers whether the parent is still there; the caller then stops when it is not."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):  # (not the main thread: nothing to do)
        pass
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):  # (no prctl here: EOF on the connection still stops it)
            pass
    # a parent gone before the prctl: this process was handed to another (init, a subreaper)
    return parent is None or os.getppid() == parent
