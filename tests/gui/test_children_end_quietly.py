"""Child processes end with their parent, quietly (issue 25 item 9).

``coverfire export`` of a 200-token map exited 0, then its charge planner, started a moment
before the export was done, found the window's listener gone and printed a traceback
(``gui/charge_process.py:46``, ``ConnectionRefusedError``). Every child (the planner, which
also answers the ruler's walks; the file reader) now takes EOF or a broken pipe as the order
to stop, ignores the terminal's Ctrl-C, gets SIGTERM from the system when its parent goes, and
the parent ends the planner at exit. Each test reads the children's standard error to its end:
the read ends when every process holding it (the parent and its children) has ended, so it is
also the wait for them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from engine.files import save_encounter

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
           QT_QPA_PLATFORM="offscreen")


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # (ended, not reaped yet)
    except FileNotFoundError:
        return True
    except OSError:
        return not os.path.exists(f"/proc/{pid}")


def _wait_gone(pid: int) -> None:
    while not _gone(pid):  # (the test's timeout bounds this)
        time.sleep(0.01)


@pytest.mark.timeout(600)
def test_export_of_a_200_token_map_ends_without_a_traceback(tmp_path):
    from bench.scene import make_scene

    src = tmp_path / "big.json"
    save_encounter(make_scene(seed=1, tokens=200, obstacles=200), src)
    r = subprocess.run([sys.executable, "-m", "gui.cli", "export", str(src), "-o", str(tmp_path / "x.png"),
                        "--attacker", "t0"], cwd=tmp_path, env=ENV, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=500)  # (ends when the planner has ended too)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "Error" not in r.stderr, r.stderr
    assert (tmp_path / "x.png").stat().st_size > 0


#: A parent that starts the planner, says its pid, then ends as told: ``exit`` (a normal end,
#: at once, before the planner has connected), ``abort`` (``os._exit``: no clean-up at all,
#: before it connected), or ``wait`` (once connected, wait to be killed).
PARENT = textwrap.dedent("""
    import os, sys, time
    from gui import charge_worker
    charge_worker.start_planner()
    server = charge_worker._SERVER
    while server.proc is None and not server.failed:
        time.sleep(0.001)
    how = sys.argv[1]
    if how == "wait":
        server.ready.wait(300)
    print(server.proc.pid, flush=True)
    if how == "exit":
        sys.exit(0)
    if how == "abort":
        os._exit(0)
    sys.stdin.read()
""")


def _parent(how: str) -> tuple[subprocess.Popen, int]:
    p = subprocess.Popen([sys.executable, "-c", PARENT, how], cwd=ROOT, env=ENV, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.strip().isdigit(), p.stderr.read()
    return p, int(line)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("how", ["exit", "abort"])
def test_a_planner_whose_parent_ends_before_it_connects_ends_quietly(how):
    parent, child = _parent(how)
    err = parent.stderr.read()  # (to the end: the parent and the planner both gone)
    assert parent.wait() == 0
    parent.stdout.close()
    parent.stdin.close()
    parent.stderr.close()
    _wait_gone(child)
    assert "Traceback" not in err and "Error" not in err, err


@pytest.mark.timeout(300)
def test_a_planner_whose_parent_is_killed_ends_quietly():
    parent, child = _parent("wait")
    assert not _gone(child)
    parent.send_signal(signal.SIGKILL)
    err = parent.stderr.read()
    assert parent.wait() == -signal.SIGKILL
    for f in (parent.stdout, parent.stdin, parent.stderr):
        f.close()
    _wait_gone(child)
    assert "Traceback" not in err and "Error" not in err, err


@pytest.mark.timeout(300)
def test_the_planner_is_ended_at_exit_and_ignores_ctrl_c(qtbot):
    from gui import charge_worker

    charge_worker.stop_planner()
    charge_worker.start_planner()
    server = charge_worker._SERVER
    qtbot.waitUntil(server.ready.is_set, timeout=60_000)
    proc = server.proc
    os.kill(proc.pid, signal.SIGINT)  # (the terminal's Ctrl-C reaches the whole group: the parent decides)
    server.send(("prepare", 0.5))  # a message after it: still read and served
    assert proc.poll() is None
    charge_worker.stop_planner()  # what the program's exit does
    assert proc.poll() is not None and charge_worker._SERVER is None
    assert not server.alive()


@pytest.mark.timeout(300)
def test_the_file_reader_whose_window_goes_stops_quietly(tmp_path):
    from bench.scene import make_scene

    src = tmp_path / "big.json"
    save_encounter(make_scene(seed=2, tokens=50, obstacles=3000), src)  # frames of megabytes: more than a pipe holds
    p = subprocess.Popen([sys.executable, "-c", "import sys; from gui.load_process import main; sys.exit(main())",
                          "open", str(src)], cwd=ROOT, env=ENV, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.read(1)  # (it has started writing its frames)
    p.stdout.close()  # the window goes: the reading end of its pipe closes
    err = p.stderr.read().decode()
    assert p.wait() == 0, err
    p.stderr.close()
    assert "Traceback" not in err and "Error" not in err, err
