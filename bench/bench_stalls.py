"""The longest event-loop stall of the real main window (offscreen) while a GM works a map.

A probe timer fires every ``PROBE_MS`` on the GUI thread; the gap between two of its firings
is how long the event loop was busy without looking at its queue (a mouse move, a repaint,
a key would have waited as long). For each action the longest gap from its start until the
answers have settled (charge column filled, nothing pending) is the action's **stall**
(budget 50 ms). The actions, driven by timers inside the running event loop as a GM's
mouse would (one drag step per 16 ms frame):

* ``open``: File > Open of the scene's JSON file (load, index, first paint);
* ``attacker``: a click on a token near the middle (targets, zones; the charge column
  starts filling);
* ``charge fill``: the attacker's charge column, until every plan is in (also its duration);
* ``drag``: another token dragged 20 steps and dropped (then the charges refill);
* ``corner``: a corner of an obstacle near the attacker dragged 20 steps and dropped;
* ``door``: a door closed (opened) with one click;
* ``wall``: a two-point wall drawn;
* ``undo ...``: each of those undone;
* ``zoom in`` / ``zoom out``: 8 wheel steps, a frame each, until every obstacle tile in view
  is drawn at the new zoom.

Each stall is given as wall time and as the GUI thread's CPU time in its longest turn (on
this shared 2-core machine a loaded moment stretches wall times several-fold; the CPU time is
what the window itself spent). ``--profile`` samples the GUI thread's Python stack and prints
what ran in each stall over budget (and in the turn of the most GUI-thread CPU, when over
``PROFILE_CPU_MS``); the longest garbage collection of each action is printed too.

Also printed per action: ``answers ms``, from the action until the targets and zones were
recomputed (cover, zones, ranges; budget 30 ms after a door or one obstacle moved), and
``settled ms``, until every charge was back (budget 500 ms after a door or an obstacle
edit on the 10,000-obstacle scene), with the CPU time of the GUI thread in the action.

Scenes: the bundled demo, ``large`` (200 tokens, 2,000 obstacles) and ``big`` (500 tokens,
10,000 obstacles), both with 20 doors. Run::

    QT_QPA_PLATFORM=offscreen python bench/bench_stalls.py [--scenes demo,large,big] [--steps 20] [--json]
        [--ruleset sr5|d100|static-veil] [--profile]

A full run takes about two minutes on this machine; ``--scenes demo --steps 4`` is the CI
smoke test's size.

``--import`` adds an ``import`` row per scene: the scene's obstacles written as a Universal
VTT map (:func:`write_uvtt`: walls 2 m and taller as ``line_of_sight`` outlines, lower
obstacles as ``objects_line_of_sight``, doors as ``portals``, cells of 1.5 m) and brought in
with File > Import Map into a fresh window, measured from the import until the answers
settled (its ``route``: ``direct``, ``process`` or ``fallback``, :mod:`gui.opening`);
``--import-only`` measures only those; ``--foundry 100000`` adds a ``foundry`` row, a Foundry
scene of that many walls (:func:`write_foundry`) imported the same way; ``--recover`` a
``recover`` row per scene: its autosave left by a crashed session, offered at start-up and
recovered (:func:`measure_recovery`)::

    QT_QPA_PLATFORM=offscreen python bench/bench_stalls.py --scenes demo,large,big --import-only --recover \
        --foundry 100000
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

# a 1920x1080 offscreen screen (Qt's default is 800x600, and the window keeps itself on its
# screen: the 1600 x 1000 window would be measured at 800 x 600)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen:configfile="
                      + str(Path(__file__).resolve().parents[1] / "tests" / "gui" / "screens.json"))
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QEventLoop, QObject, QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

PROBE_MS = 5
FRAME_MS = 16
STALL_BUDGET_MS = 50.0
#: With --profile, what ran in an action's turn of the most GUI-thread CPU is printed from this.
PROFILE_CPU_MS = 25.0
SETTLE_TIMEOUT_S = 30.0
ACTIONS = ("open", "attacker", "charge fill", "drag", "undo drag", "corner", "undo corner",
           "door", "undo door", "wall", "undo wall", "zoom in", "zoom out")


class Probe(QObject):
    """Records the gaps between firings of a 5 ms timer on the GUI thread."""

    def __init__(self) -> None:
        super().__init__()
        self.gaps: list[tuple[float, float, float]] = []  # (time of the firing, gap before it, GUI-thread CPU in it) in s
        self._last = time.perf_counter()
        self._cpu = time.thread_time()
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(PROBE_MS)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.gaps.append((now, now - self._last, cpu - self._cpu))
        self._last, self._cpu = now, cpu

    def longest(self, t0: float, t1: float) -> float:
        """The longest gap (ms) that ended in [t0, t1] (or the one running at t1)."""
        return self.longest_window(t0, t1)[0]

    def longest_cpu(self, t0: float, t1: float) -> float:
        """The most GUI-thread CPU time (ms) one gap that ended in [t0, t1] held: the
        longest turn as the machine's load does not stretch it."""
        return max((c for t, _, c in self.gaps if t0 <= t <= t1), default=0.0) * 1e3

    def longest_cpu_window(self, t0: float, t1: float) -> tuple[float, float, float]:
        """The turn that ended in [t0, t1] holding the most GUI-thread CPU time: (its CPU
        ms, when it began, when it ended)."""
        best = max(((c, t, g) for t, g, c in self.gaps if t0 <= t <= t1), default=(0.0, t0, 0.0))
        return best[0] * 1e3, best[1] - best[2], best[1]

    def longest_window(self, t0: float, t1: float) -> tuple[float, float, float]:
        """The longest gap (ms) that ended in [t0, t1] (or the one running at t1), with the
        times it began and ended."""
        best = max(((g, t) for t, g, _ in self.gaps if t0 <= t <= t1), default=(0.0, t0))
        now = time.perf_counter()
        if self._last < t1 and now - self._last > best[0]:  # a stall still going on at t1
            best = (now - self._last, now)
        return best[0] * 1e3, best[1] - best[0], best[1]


class GcWatch:
    """The interpreter's garbage collections (gc.callbacks): when each ran and how long."""

    def __init__(self) -> None:
        import gc

        self.runs: list[tuple[float, float, int]] = []  # (end time, seconds, generation)
        self._t = 0.0
        gc.callbacks.append(self._cb)

    def _cb(self, phase, info) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._t = now
        else:
            self.runs.append((now, now - self._t, info["generation"]))

    def stop(self) -> None:
        import gc

        if self._cb in gc.callbacks:
            gc.callbacks.remove(self._cb)

    def longest(self, t0: float, t1: float) -> tuple[float, int]:
        """The longest collection (ms) that ended in [t0, t1] and its generation."""
        return max(((d * 1e3, g) for t, d, g in self.runs if t0 <= t <= t1), default=(0.0, -1))


class Sampler:
    """With ``--profile``: a thread that records the GUI thread's Python stack every
    ``interval`` s (it gets the interpreter lock between the GUI thread's bytecodes, or when
    a C call releases it), so a stall can be told apart by what ran in it."""

    def __init__(self, interval: float = 0.002) -> None:
        import threading

        self.samples: list[tuple[float, tuple]] = []
        self._ident = threading.get_ident()
        self._stop = threading.Event()
        self._interval = interval
        # the sampler gets the interpreter lock only at a switch (5 ms by default): ask for
        # switches as often as it samples, or a 50 ms turn yields a handful of samples
        self._switch = sys.getswitchinterval()
        sys.setswitchinterval(interval / 2)
        self._thread = threading.Thread(target=self._run, name="stall-sampler", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            frame = sys._current_frames().get(self._ident)
            stack = []
            while frame is not None:
                code = frame.f_code
                stack.append((code.co_filename, code.co_name, frame.f_lineno))
                frame = frame.f_back
            self.samples.append((time.perf_counter(), tuple(stack)))

    def stop(self) -> None:
        self._stop.set()
        sys.setswitchinterval(self._switch)

    def report(self, t0: float, t1: float, top: int = 6) -> list[str]:
        """What ran between ``t0`` and ``t1``: the commonest innermost frames of this
        program and the commonest chains of its frames, with sample counts."""
        from collections import Counter

        root = str(ROOT) + os.sep
        inner: Counter = Counter()
        chains: Counter = Counter()
        incl: Counter = Counter()  # samples in which a function of this program was running
        n = 0
        for t, stack in self.samples:
            if not t0 <= t <= t1:
                continue
            n += 1
            own = [f"{f[len(root):]}:{name}:{line}" for f, name, line in stack
                   if f.startswith(root) and "bench_stalls" not in f]
            for name in {f"{f[len(root):]}:{fn}" for f, fn, _ in stack if f.startswith(root)
                         and "bench_stalls" not in f}:
                incl[name] += 1
            if own:
                inner[own[0]] += 1
                chains[" < ".join(own[:10])] += 1
            else:
                leaf = stack[0] if stack else ("?", "?", 0)
                inner[f"{Path(leaf[0]).name}:{leaf[1]}"] += 1
        out = [f"      {n} samples"]
        out += [f"      {c:4d}  {k}" for k, c in inner.most_common(top)]
        out += ["      chains:"] + [f"      {c:4d}  {k}" for k, c in chains.most_common(top)]
        out += ["      inclusive:"] + [f"      {c:4d}  {k}" for k, c in incl.most_common(3 * top)]
        return out


def _settled(win) -> bool:
    ans = win.answers
    return not ans.charges_pending and not ans._delay.isActive()


class Script:
    """Runs a generator of steps inside the event loop: a step yields a number of ms to
    wait, or a callable to wait for (checked every probe tick, up to SETTLE_TIMEOUT_S)."""

    def __init__(self, gen) -> None:
        self.gen = gen
        self.loop = QEventLoop()
        self.error: BaseException | None = None

    def run(self) -> None:
        QTimer.singleShot(0, self._step)
        self.loop.exec()
        if self.error is not None:
            raise self.error

    def _step(self, value=None) -> None:
        try:
            what = self.gen.send(value)
        except StopIteration:
            self.loop.quit()
            return
        except BaseException as exc:  # noqa: BLE001 - re-raised after the loop
            self.error = exc
            self.loop.quit()
            return
        if callable(what):
            deadline = time.perf_counter() + SETTLE_TIMEOUT_S

            def check():
                if what() or time.perf_counter() > deadline:
                    self._step()
                else:
                    QTimer.singleShot(PROBE_MS, check)

            QTimer.singleShot(0, check)
        else:
            QTimer.singleShot(int(what), self._step)


def _window(tmp: Path):
    from gui.main_window import MainWindow

    settings = QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(None, None, settings=settings, autosave_folder=tmp / "autosave",
                     autosave_interval_ms=10_000_000)
    win.resize(1600, 1000)
    win.show()
    QApplication.processEvents()
    # as the program does once its window is made (gui/app.py): what lives as long as the
    # program is left out of the collector's full passes (else a full pass over the bench's
    # whole heap, 60 ms, lands in whichever action allocates enough to set it off)
    import gc

    gc.freeze()
    return win


def close_window(win) -> None:
    """Close a bench's window and its planner process, and let Qt delete it."""
    win.close()
    worker = getattr(win.answers, "worker", None)
    if worker is not None:
        worker.shutdown()
    win.deleteLater()
    QApplication.processEvents()


def _near_middle(enc, tokens=True, n=2):
    m = enc.map
    items = enc.tokens if tokens else [o for o in enc.obstacles if not o.door]

    def key(it):
        x, y = (it.x, it.y) if tokens else it.polygon[0]
        return (x - m.width / 2) ** 2 + (y - m.height / 2) ** 2

    return sorted(items, key=key)[:n]


def measure_scene(label: str, path: Path, steps: int, log=print, sampler: Sampler | None = None) -> list[dict]:
    """Every action on the scene in ``path``; one row per action."""
    from gui.importing import toggle_door_in
    from gui.tools import Pointer, SelectTool, WallTool

    tmp = Path(tempfile.mkdtemp(prefix="cf-stalls-"))
    win = _window(tmp)
    probe = Probe()
    gcw = GcWatch()
    rows: list[dict] = []
    marks: dict[str, float] = {}

    def on_updated():
        marks.setdefault("answers", time.perf_counter())

    win.answers.updated.connect(on_updated)

    def action(name):
        """Start timing an action: returns a function that ends it (after settling)."""
        marks.clear()
        t0, c0 = time.perf_counter(), time.thread_time()

        def end(extra=None):
            t1 = time.perf_counter()
            stall, g0, g1 = probe.longest_window(t0, t1)
            row = {"scene": label, "action": name, "stall_ms": stall, "stall_cpu_ms": probe.longest_cpu(t0, t1),
                   "answers_ms": (marks["answers"] - t0) * 1e3 if "answers" in marks else None,
                   "settled_ms": (t1 - t0) * 1e3, "cpu_ms": (time.thread_time() - c0) * 1e3,
                   "gc_ms": gcw.longest(t0, t1)[0]}
            row.update(extra or {})
            rows.append(row)
            log(f"  {label:8s} {name:12s} stall {row['stall_ms']:7.1f} ms (cpu {row['stall_cpu_ms']:5.1f})  answers "
                f"{'-' if row['answers_ms'] is None else format(row['answers_ms'], '6.1f')} ms  settled "
                f"{row['settled_ms']:7.0f} ms  (gui cpu {row['cpu_ms']:.0f} ms, longest gc {row['gc_ms']:.0f} ms)")
            if sampler is not None:
                cpu, c_0, c_1 = probe.longest_cpu_window(t0, t1)
                if stall > STALL_BUDGET_MS:
                    for line in sampler.report(g0, g1):
                        log(line)
                if cpu > PROFILE_CPU_MS and (c_0, c_1) != (g0, g1):
                    log(f"      the turn with the most GUI-thread CPU ({cpu:.1f} ms):")
                    for line in sampler.report(c_0, c_1):
                        log(line)

        return end

    def script():
        yield 50
        # open
        end = action("open")
        win.open_file(path, ask=False)
        yield lambda: _settled(win)
        yield 200  # (the first paints)
        end()
        view = win.map_view
        enc = win.document.encounter
        k = view.m_per_px()
        attacker, other = _near_middle(enc)
        tool = SelectTool(view)
        view.set_tool(tool)
        # the attacker, then its charge column
        end = action("attacker")
        tool.press(Pointer(attacker.x, attacker.y, m_per_px=k))
        tool.release(Pointer(attacker.x, attacker.y, m_per_px=k))
        yield 1
        end()
        end = action("charge fill")
        yield lambda: _settled(win)
        end({"charges": len(win.answers.charges)})
        win.selection.attacker_locked = True

        def drag(name, start, to, press_first=None):
            end = action(name)
            if press_first is not None:
                press_first()
            tool.press(Pointer(start[0], start[1], m_per_px=k))
            for i in range(1, steps + 1):
                f = i / steps
                tool.move(Pointer(start[0] + f * to[0], start[1] + f * to[1], m_per_px=k))
                yield FRAME_MS
            before = win.document.undo_stack.index()  # (not count(): a push drops the undone steps)
            tool.release(Pointer(start[0] + to[0], start[1] + to[1], m_per_px=k))
            yield lambda: _settled(win)
            end({"committed": win.document.undo_stack.index() > before})
            if win.document.undo_stack.index() == before:
                log(f"  {label:8s} {name:12s} (the drop was not committed: its undo measures nothing; "
                    f"status: {win.statusBar().currentMessage() or '-'})")

        def undo(name):
            end = action(name)
            win.document.undo_stack.undo()
            yield lambda: _settled(win)
            end()

        # a token drag (another token, the attacker locked)
        # (past the click distance at any zoom: a shorter move is a click, not a drag)
        yield from drag("drag", (other.x, other.y), (max(3.0, 12.0 * k), max(1.5, 6.0 * k)))
        yield from undo("undo drag")
        # an obstacle's corner near the attacker
        enc = win.document.encounter
        shapes = [o for o in enc.obstacles if o.name == "building"] or [o for o in enc.obstacles if not o.door]
        ob = min(shapes, key=lambda o: (o.polygon[0][0] - attacker.x) ** 2 + (o.polygon[0][1] - attacker.y) ** 2)
        vx, vy = ob.polygon[0]
        win.selection.select([ob.id], enc)
        yield lambda: _settled(win)
        # a few pixels (past the click distance), so the corner of a building stays valid
        yield from drag("corner", (vx, vy), (8.0 * k, 4.0 * k))
        yield from undo("undo corner")
        # a door
        enc = win.document.encounter
        doors = [o for o in enc.obstacles if o.door]
        if doors:
            d = min(doors, key=lambda o: (o.polygon[0][0] - attacker.x) ** 2 + (o.polygon[0][1] - attacker.y) ** 2)
            end = action("door")
            toggle_door_in(view, d.id)
            yield lambda: _settled(win)
            end()
            yield from undo("undo door")
        # a wall, two clicks and Enter
        wall = WallTool(view)
        view.set_tool(wall)
        end = action("wall")
        a = (attacker.x + 4.0, attacker.y - 3.0)
        for p in (a, (a[0], a[1] + 6.0)):
            wall.press(Pointer(p[0], p[1], m_per_px=k))
            wall.release(Pointer(p[0], p[1], m_per_px=k))
            yield FRAME_MS
        wall.finish()
        yield lambda: _settled(win)
        end()
        yield from undo("undo wall")
        view.set_tool(tool)
        # the wheel: 8 steps in (a frame each), then 8 out, until every tile in view is drawn
        # at the zoom (the obstacle tiles' pictures are drawn again a budget a paint)
        for name, factor in (("zoom in", 0.8), ("zoom out", 1.25)):  # (zoom_by: a factor under 1 shows less)
            end = action(name)
            for _ in range(8):
                view.zoom_by(factor)
                yield FRAME_MS
            yield lambda: not view.obstacles.redrawing
            end()

    try:
        Script(script()).run()
    finally:
        gcw.stop()
    probe._timer.stop()
    win.document.undo_stack.setClean()
    close_window(win)
    return rows


def write_uvtt(enc, path: Path, cell: float = 1.5, lights=()) -> Path:
    """Write ``enc``'s obstacles as a Universal VTT map of ``cell`` metres a cell: obstacles
    2 m and taller as closed ``line_of_sight`` outlines (walls), lower ones as closed
    ``objects_line_of_sight`` outlines (low cover), doors as ``portals`` along their bars'
    long axis; ``lights`` as given (UVTT light dicts); no image."""
    import math

    def pts(ring):
        return [{"x": round(x / cell, 4), "y": round(y / cell, 4)} for x, y in ring]

    walls, objects, portals = [], [], []
    for o in enc.obstacles:
        ring = list(o.polygon)
        if o.door and len(ring) == 4:
            p = ring
            mid = [((p[k][0] + p[(k + 1) % 4][0]) / 2, (p[k][1] + p[(k + 1) % 4][1]) / 2) for k in range(4)]
            a, b = (mid[0], mid[2]) if math.dist(p[0], p[1]) <= math.dist(p[1], p[2]) else (mid[1], mid[3])
            portals.append({"position": pts([((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)])[0], "bounds": pts([a, b]),
                            "rotation": math.atan2(b[1] - a[1], b[0] - a[0]), "closed": not o.open,
                            "freestanding": False})
        elif o.height >= 2.0 or o.door:
            walls.append(pts(ring + ring[:1]))
        else:
            objects.append(pts(ring + ring[:1]))
    m = enc.map
    data = {"format": 0.3,
            "resolution": {"map_origin": {"x": 0, "y": 0},
                           "map_size": {"x": math.ceil(m.width / cell), "y": math.ceil(m.height / cell)},
                           "pixels_per_grid": 8},
            "line_of_sight": walls, "objects_line_of_sight": objects, "portals": portals,
            "environment": {"baked_lighting": True, "ambient_light": "ffffffff"},
            "lights": [dict(li) for li in lights], "image": ""}
    Path(path).write_text(json.dumps(data), encoding="utf-8")
    return Path(path)


def write_foundry(walls: int, path: Path, seed: int = 1) -> Path:
    """Write a Foundry VTT scene (Export Data, v10+) of ``walls`` short walls (1-3 grid
    squares of 100 px, 5 ft) scattered over a square map, one in 50 a door; no image."""
    import numpy as np

    rng = np.random.default_rng(seed)
    side = int(100 * max(20, round((walls / 2.0) ** 0.5)))
    x0, y0 = rng.uniform(0, side, walls).round(), rng.uniform(0, side, walls).round()
    ang = rng.uniform(0, 2 * np.pi, walls)
    ln = rng.uniform(100, 300, walls)
    x1, y1 = (x0 + ln * np.cos(ang)).round(), (y0 + ln * np.sin(ang)).round()
    data = {"name": f"{walls} walls", "width": side, "height": side, "padding": 0,
            "grid": {"type": 1, "size": 100, "distance": 5, "units": "ft"},
            "walls": [{"c": [float(a), float(b), float(c), float(d)], "move": 20, "sight": 20, "light": 20,
                       "door": 1 if k % 50 == 0 else 0, "ds": 0}
                      for k, (a, b, c, d) in enumerate(zip(x0, y0, x1, y1))],
            "tokens": [], "lights": []}
    Path(path).write_text(json.dumps(data), encoding="utf-8")
    return Path(path)


def _one_shot(win, label: str, name: str, do, about, log=print) -> list[dict]:
    """Time ``do()`` (one GM action in ``win``) from its start until the answers settled and
    the first paints: one row, with ``about(result)``'s fields and words added; then the
    window is closed (its unsaved work dropped)."""
    probe = Probe()
    gcw = GcWatch()
    rows: list[dict] = []

    def script():
        yield 50
        t0, c0 = time.perf_counter(), time.thread_time()
        result = do()
        yield lambda: _settled(win)
        yield 200  # (the first paints)
        t1 = time.perf_counter()
        extra, words = about(result)
        row = {"scene": label, "action": name, "stall_ms": probe.longest(t0, t1),
               "stall_cpu_ms": probe.longest_cpu(t0, t1), "answers_ms": None, "settled_ms": (t1 - t0) * 1e3,
               "cpu_ms": (time.thread_time() - c0) * 1e3, "gc_ms": gcw.longest(t0, t1)[0],
               "obstacles": len(win.document.encounter.obstacles), **extra}
        rows.append(row)
        log(f"  {label:8s} {name:12s} stall {row['stall_ms']:7.1f} ms (cpu {row['stall_cpu_ms']:5.1f})  settled "
            f"{row['settled_ms']:7.0f} ms  (gui cpu {row['cpu_ms']:.0f} ms, longest gc {row['gc_ms']:.0f} ms; "
            f"{row['obstacles']} obstacles, {words})")

    try:
        Script(script()).run()
    finally:
        gcw.stop()
        probe._timer.stop()
        dialog = getattr(getattr(win, "importing", None), "report_dialog", None)
        if dialog is not None:
            dialog.close()
        win.maybe_save = lambda: True  # (the imported or recovered work is unsaved: closing asks nothing)
        close_window(win)
    return rows


def measure_import(label: str, path: Path, log=print, name: str = "import") -> list[dict]:
    """File > Import Map of the map in ``path`` into a fresh window: the longest event-loop
    turn (wall and GUI-thread CPU) from the import until the answers settled; one row."""
    win = _window(Path(tempfile.mkdtemp(prefix="cf-import-")))

    def about(ok):
        loaded = getattr(win.importing, "last_load", None)
        route = loaded.route if loaded is not None else None
        size = path.stat().st_size
        return ({"route": route, "imported": bool(ok), "bytes": size}, f"{size / 1e3:.0f} KB, route {route}")

    return _one_shot(win, label, name, lambda: win.importing.import_map(path, 1.5, 1.0), about, log=log)


def measure_recovery(label: str, path: Path, log=print) -> list[dict]:
    """Crash recovery of the encounter in ``path``: its autosave (left by a process that has
    exited) offered at start-up and recovered (the GM answers Yes) in a fresh window; the
    longest event-loop turn from the offer until the answers settled; one row."""
    import subprocess

    from PySide6.QtWidgets import QMessageBox

    from engine.files import encounter_to_data, load_encounter

    win = _window(Path(tempfile.mkdtemp(prefix="cf-recover-")))
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout)
    folder = win.autosaver.folder
    folder.mkdir(parents=True, exist_ok=True)
    f = folder / "autosave-1-crashed.json"
    f.write_text(json.dumps({"format": "coverfire.autosave", "pid": dead, "saved": time.time(), "source": None,
                             "encounter": encounter_to_data(load_encounter(path))}, ensure_ascii=False),
                 encoding="utf-8")
    question = QMessageBox.question
    QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes)
    try:
        return _one_shot(win, label, "recover", win.offer_recovery,
                         lambda ok: ({"recovered": bool(ok)}, f"recovered {bool(ok)}"), log=log)
    finally:
        QMessageBox.question = question


def run(scenes=("demo", "large", "big"), steps: int = 20, log=print, profile: bool = False,
        ruleset: str | None = None, imports: bool = False, only_imports: bool = False,
        foundry: int = 0, recover: bool = False) -> list[dict]:
    from bench.scene import BIG, LARGE, make_scene
    from engine.files import save_encounter
    from gui.app import make_app

    make_app()
    tmp = Path(tempfile.mkdtemp(prefix="cf-stall-scenes-"))
    rows = []
    for s in scenes:
        if s == "demo":
            path = ROOT / "assets" / "encounters" / "demo.json"
        else:
            spec = {"large": LARGE, "big": BIG}[s]
            path = tmp / f"{s}.json"
            enc = make_scene(1, doors=20, **spec)
            if ruleset is not None:
                enc = enc.model_copy(update={"ruleset": ruleset})
            save_encounter(enc, path)
        log(f"scene {s} ({path.name}), load average {os.getloadavg()[0]:.2f}:")
        sampler = Sampler() if profile else None
        try:
            if not only_imports:  # (--import-only: the import, recovery and Foundry rows alone)
                rows += measure_scene(s, path, steps, log=log, sampler=sampler)
            if imports or only_imports:
                from engine.files import load_encounter

                rows += measure_import(s, write_uvtt(load_encounter(path), tmp / f"{s}.uvtt"), log=log)
            if recover:
                rows += measure_recovery(s, path, log=log)
        finally:
            if sampler is not None:
                sampler.stop()
    if foundry:
        log(f"a Foundry scene of {foundry:,} walls, load average {os.getloadavg()[0]:.2f}:")
        rows += measure_import(f"{foundry // 1000}k" if foundry >= 1000 else str(foundry), write_foundry(foundry, tmp / f"walls-{foundry}.json"),
                               log=log, name="foundry")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", default="demo,large,big")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--ruleset", default=None,
                    help="run the generated scenes under this rule system (sr5, d100, static-veil; default sr5)")
    ap.add_argument("--profile", action="store_true",
                    help="sample the GUI thread's stack; print what ran in each stall over budget")
    ap.add_argument("--import", dest="imports", action="store_true",
                    help="also import each scene as a Universal VTT map (File > Import Map) and measure it")
    ap.add_argument("--import-only", action="store_true", help="measure only the imports")
    ap.add_argument("--foundry", type=int, default=0, metavar="WALLS",
                    help="also import a Foundry scene of this many walls and measure it")
    ap.add_argument("--recover", action="store_true",
                    help="also recover each scene from a crashed session's autosave and measure it")
    args = ap.parse_args(argv)
    t0, c0 = time.perf_counter(), time.process_time()
    rows = run(tuple(s for s in args.scenes.split(",") if s), args.steps,
               log=(lambda *a: None) if args.json else print, profile=args.profile, ruleset=args.ruleset,
               imports=args.imports, only_imports=args.import_only, foundry=args.foundry, recover=args.recover)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    over = [r for r in rows if r["stall_ms"] > STALL_BUDGET_MS]
    print(f"\n{len(rows)} actions in {time.perf_counter() - t0:.0f} s (cpu {time.process_time() - c0:.0f} s), "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; stall budget {STALL_BUDGET_MS:g} ms: "
          + ("all within" if not over else "over in " + ", ".join(f"{r['scene']} {r['action']} ({r['stall_ms']:.0f} ms)"
                                                               for r in over)))
    over_cpu = [r for r in rows if r["stall_cpu_ms"] > STALL_BUDGET_MS]
    print("by the GUI thread's CPU time in one turn (what the load does not stretch): "
          + ("all within" if not over_cpu else "over in " + ", ".join(
              f"{r['scene']} {r['action']} ({r['stall_cpu_ms']:.0f} ms)" for r in over_cpu)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
