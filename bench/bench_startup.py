"""Start-up: how long until Coverfire's first window has painted, against a bare PySide6
window on the same machine (issue 29 item 5: within 4x), wall and CPU time; and how long
``coverfire --version`` takes, against the same bare window (within 1x: it loads no Qt).

    python bench/bench_startup.py [--runs 5] [--check] [--python PY] [--version-cmd CMD] [-- COMMAND ...]

``COMMAND`` is the Coverfire to start (default: this checkout, ``python -m gui.cli demo``;
CI passes the wheel's ``coverfire demo`` and the bundle's executable); the bare window runs
with ``--python`` (default this interpreter; it needs PySide6 and psutil). Both are started
offscreen with a throwaway home, one after the other, ``--runs`` times each; each prints its
first paint (wall ms since its process was created, and its CPU ms) and Coverfire also when
its map window was ready (gui/start_window.py). ``--version-cmd`` (default: this checkout's
``python -m gui.cli``; CI passes the wheel's and the bundle's program) is run with
``--version`` as many times (its CPU time from the system's accounting of the ended process).
Printed: the best and the median of each and the ratios of the best (the best of several
runs is what the machine can do; the median is what load did to it), with the machine's load.

``--check`` fails (status 1) when Coverfire's best first paint is past :data:`RATIO` times the
bare window's best, or ``--version``'s best past :data:`VERSION_RATIO` times it, in CPU time;
in wall time too, but only when the load stayed at or below the machine's cores throughout (a
busy machine stretches wall times by whatever else runs: the CPU time a process spent is what
it costs, whatever the load).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import shlex
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Coverfire's first paint may take this many times a bare PySide6 window's.
RATIO = 4.0
#: ``coverfire --version`` may take this many times a bare PySide6 window's first paint.
VERSION_RATIO = 1.0
_LINE = re.compile(r"startup: (first paint|window ready) (\d+) ms \(cpu (\d+) ms\)")


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, QT_QPA_PLATFORM="offscreen", COVERFIRE_STARTUP_REPORT="1", HOME=str(home),
                XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local" / "share"))


def measure_version(cmd: list[str], home: Path) -> tuple[float, float]:
    """Run ``cmd --version`` once: (wall ms, CPU ms of the process, from ``wait4``)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([*cmd, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(home),
                            cwd=home, stdin=subprocess.DEVNULL)
    if hasattr(os, "wait4"):
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = (time.perf_counter() - t0) * 1e3
        proc.returncode = os.waitstatus_to_exitcode(status)
        cpu = (usage.ru_utime + usage.ru_stime) * 1e3
    else:  # (no rusage of one child: Windows)
        proc.wait(timeout=300)
        wall = (time.perf_counter() - t0) * 1e3
        cpu = float("nan")
    out, err = proc.stdout.read().decode(errors="replace"), proc.stderr.read().decode(errors="replace")
    if proc.returncode != 0 or not out.strip():
        raise SystemExit(f"{' '.join(cmd)} --version: status {proc.returncode}, printed {out!r}:\n{err[-2000:]}")
    return wall, cpu


def measure(cmd: list[str], home: Path) -> dict[str, tuple[float, float]]:
    """Run ``cmd`` once; ``{"first paint": (wall, cpu), "window ready": ...}`` in ms."""
    done = subprocess.run(cmd, capture_output=True, text=True, env=_env(home), cwd=home, timeout=300,
                          stdin=subprocess.DEVNULL)
    found = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in _LINE.finditer(done.stderr)}
    if done.returncode != 0 or "first paint" not in found:
        raise SystemExit(f"{' '.join(cmd)}: status {done.returncode}, no start-up report:\n{done.stderr[-2000:]}")
    return found


def verdict(wall_ratio: float, cpu_ratio: float, budget: float, busy: bool) -> str:
    """``"ok"``, or what is over ``budget``: the CPU ratio always, the wall ratio only when the
    machine was not ``busy`` (its load above its cores at some point of the runs)."""
    over = [f"CPU {cpu_ratio:.1f}x"] if cpu_ratio > budget else []
    if wall_ratio > budget and not busy:
        over.append(f"wall {wall_ratio:.1f}x")
    return "ok" if not over else f"OVER {budget:g}x ({', '.join(over)})"


def _busy(loads: list[str]) -> bool:
    cores = os.cpu_count() or 1
    return any(x == "?" or float(x) > cores for x in loads)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = None
    if "--" in argv:
        cmd, argv = argv[argv.index("--") + 1:], argv[:argv.index("--")]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--check", action="store_true",
                   help=f"fail past {RATIO:g}x the bare window (--version: past {VERSION_RATIO:g}x)")
    p.add_argument("--python", default=sys.executable, help="the Python (with PySide6) of the bare window")
    p.add_argument("--label", default="coverfire")
    p.add_argument("--version-cmd", help="the program run with --version (default: this checkout's, "
                                         "python -m gui.cli; 'none' skips it)")
    a = p.parse_args(argv)
    ours = cmd or [sys.executable, "-m", "gui.cli", "demo"]
    if cmd is None:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [x for x in [os.environ.get("PYTHONPATH")] if x])
    version_cmd = (None if a.version_cmd == "none" else
                   shlex.split(a.version_cmd) if a.version_cmd else [sys.executable, "-m", "gui.cli"])
    bare = [a.python, str(ROOT / "bench" / "bare_window.py")]
    runs: dict[str, list] = {"bare": [], "ours": [], "version": []}
    loads = [_load()]
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.runs):
            for key, c in (("bare", bare), ("ours", ours)):
                home = Path(tmp) / f"{key}{i}"
                home.mkdir()
                runs[key].append(measure(c, home))
            if version_cmd:
                runs["version"].append(measure_version(version_cmd, Path(tmp) / f"ours{i}"))
            loads.append(_load())
    out = {}
    for key in ("bare", "ours"):
        for what in ("first paint", "window ready"):
            vals = [r[what] for r in runs[key] if what in r]
            if vals:
                out[(key, what)] = (min(v[0] for v in vals), statistics.median(v[0] for v in vals),
                                    min(v[1] for v in vals), statistics.median(v[1] for v in vals))
    if runs["version"]:
        vals = runs["version"]
        out[("ours", "--version")] = (min(v[0] for v in vals), statistics.median(v[0] for v in vals),
                                      min(v[1] for v in vals), statistics.median(v[1] for v in vals))
    busy = _busy(loads)
    print(f"startup ({a.runs} runs each, load {' '.join(loads)} on {os.cpu_count()} cores"
          f"{': busy, wall times not judged' if busy else ''}):")
    for (key, what), (wb, wm, cb, cm) in out.items():
        name = "bare PySide6 window" if key == "bare" else a.label
        print(f"  {name:22s} {what:12s} wall best {wb:6.0f} ms median {wm:6.0f} ms   cpu best {cb:5.0f} ms median {cm:5.0f} ms")
    b, o = out[("bare", "first paint")], out[("ours", "first paint")]
    wall_ratio, cpu_ratio = o[0] / b[0], o[2] / b[2]
    first = verdict(wall_ratio, cpu_ratio, RATIO, busy)
    print(f"{a.label}: first paint {o[0]:.0f} ms wall / {o[2]:.0f} ms cpu = {wall_ratio:.1f}x / {cpu_ratio:.1f}x "
          f"a bare PySide6 window (budget {RATIO:g}x): {first}")
    verdicts = [first]
    if ("ours", "--version") in out:
        v = out[("ours", "--version")]
        version = verdict(v[0] / b[0], v[2] / b[2], VERSION_RATIO, busy)
        print(f"{a.label}: --version {v[0]:.0f} ms wall / {v[2]:.0f} ms cpu = {v[0] / b[0]:.1f}x / {v[2] / b[2]:.1f}x "
              f"a bare PySide6 window's first paint (budget {VERSION_RATIO:g}x): {version}")
        verdicts.append(version)
    return 1 if a.check and any(x != "ok" for x in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
