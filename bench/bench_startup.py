"""Start-up: how long until Coverfire's first window has painted, against a bare PySide6
window on the same machine (issue 29 item 5: within 4x), wall and CPU time.

    python bench/bench_startup.py [--runs 5] [--check] [--python PY] [-- COMMAND ...]

``COMMAND`` is the Coverfire to start (default: this checkout, ``python -m gui.cli demo``;
CI passes the wheel's ``coverfire demo`` and the bundle's executable); the bare window runs
with ``--python`` (default this interpreter; it needs PySide6 and psutil). Both are started
offscreen with a throwaway home, one after the other, ``--runs`` times each; each prints its
first paint (wall ms since its process was created, and its CPU ms) and Coverfire also when
its map window was ready (gui/start_window.py). Printed: the best and the median of each and
the ratios of the best (the best of several runs is what the machine can do; the median is
what load did to it), with the machine's load. ``--check`` fails (status 1) when Coverfire's
best first paint is past :data:`RATIO` times the bare window's, in wall or in CPU time.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Coverfire's first paint may take this many times a bare PySide6 window's.
RATIO = 4.0
_LINE = re.compile(r"startup: (first paint|window ready) (\d+) ms \(cpu (\d+) ms\)")


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def measure(cmd: list[str], home: Path) -> dict[str, tuple[float, float]]:
    """Run ``cmd`` once; ``{"first paint": (wall, cpu), "window ready": ...}`` in ms."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", COVERFIRE_STARTUP_REPORT="1", HOME=str(home),
               XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local" / "share"))
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=home, timeout=300,
                          stdin=subprocess.DEVNULL)
    found = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in _LINE.finditer(done.stderr)}
    if done.returncode != 0 or "first paint" not in found:
        raise SystemExit(f"{' '.join(cmd)}: status {done.returncode}, no start-up report:\n{done.stderr[-2000:]}")
    return found


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = None
    if "--" in argv:
        cmd, argv = argv[argv.index("--") + 1:], argv[:argv.index("--")]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--check", action="store_true", help=f"fail past {RATIO:g}x the bare window")
    p.add_argument("--python", default=sys.executable, help="the Python (with PySide6) of the bare window")
    p.add_argument("--label", default="coverfire")
    a = p.parse_args(argv)
    ours = cmd or [sys.executable, "-m", "gui.cli", "demo"]
    if cmd is None:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [x for x in [os.environ.get("PYTHONPATH")] if x])
    bare = [a.python, str(ROOT / "bench" / "bare_window.py")]
    runs: dict[str, list] = {"bare": [], "ours": []}
    loads = [_load()]
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.runs):
            for key, c in (("bare", bare), ("ours", ours)):
                home = Path(tmp) / f"{key}{i}"
                home.mkdir()
                runs[key].append(measure(c, home))
            loads.append(_load())
    out = {}
    for key in ("bare", "ours"):
        for what in ("first paint", "window ready"):
            vals = [r[what] for r in runs[key] if what in r]
            if vals:
                out[(key, what)] = (min(v[0] for v in vals), statistics.median(v[0] for v in vals),
                                    min(v[1] for v in vals), statistics.median(v[1] for v in vals))
    print(f"startup ({a.runs} runs each, load {' '.join(loads)}):")
    for (key, what), (wb, wm, cb, cm) in out.items():
        name = "bare PySide6 window" if key == "bare" else a.label
        print(f"  {name:22s} {what:12s} wall best {wb:6.0f} ms median {wm:6.0f} ms   cpu best {cb:5.0f} ms median {cm:5.0f} ms")
    b, o = out[("bare", "first paint")], out[("ours", "first paint")]
    wall_ratio, cpu_ratio = o[0] / b[0], o[2] / b[2]
    verdict = "ok" if max(wall_ratio, cpu_ratio) <= RATIO else f"over {RATIO:g}x"
    print(f"{a.label}: first paint {o[0]:.0f} ms wall / {o[2]:.0f} ms cpu = {wall_ratio:.1f}x / {cpu_ratio:.1f}x "
          f"a bare PySide6 window (budget {RATIO:g}x): {verdict}")
    return 1 if a.check and verdict != "ok" else 0


if __name__ == "__main__":
    sys.exit(main())
