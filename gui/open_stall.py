"""``coverfire --measure-open FILE``: how long the window's event loop is held at a time while
it opens ``FILE`` (the longest turn: a mouse move or a repaint would have waited as long),
measured in whichever Coverfire runs it, so the standalone bundle can be measured as the
source is (``.ci/check-bundle`` prints ``bundle: open stall N ms``; budget 50 ms).

As bench/bench_stalls.py's ``open`` row: a map window (offscreen is fine) with a throwaway
settings file and autosave folder, a probe timer every :data:`PROBE_MS` on the GUI thread
(the gap between two firings is a turn), File > Open of ``FILE``, then until the answers
have settled and :data:`AFTER_MS` more (the first paints). Prints one line::

    open stall 38 ms (cpu 21 ms), read by: process, 10000 obstacles, 500 tokens

``read by`` is the route of gui/opening.py (``process``: the file reader's own process;
``fallback``: it could not run, the window read the file itself; ``direct``: a small file).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, QSettings, Qt, QTimer

from engine import clock

#: The probe timer's interval (ms).
PROBE_MS = 5
#: After the answers settled, the first paints of the opened map (ms).
AFTER_MS = 200
#: Give up waiting for the answers to settle after this long (s).
SETTLE_LIMIT_S = 120.0
LINE = "open stall {stall:.0f} ms (cpu {cpu:.0f} ms), read by: {route}, {obstacles} obstacles, {tokens} tokens"


class Probe(QObject):
    """The longest gap between firings of a timer on the GUI thread, and the GUI thread's
    CPU time in it."""

    def __init__(self) -> None:
        super().__init__()
        self.longest = 0.0
        self.longest_cpu = 0.0
        self._last, self._cpu = clock.now(), clock.cpu()
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(PROBE_MS)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def reset(self) -> None:
        self.longest = self.longest_cpu = 0.0
        self._last, self._cpu = clock.now(), clock.cpu()

    def _tick(self) -> None:
        now, cpu = clock.now(), clock.cpu()
        self.longest = max(self.longest, now - self._last)
        self.longest_cpu = max(self.longest_cpu, cpu - self._cpu)
        self._last, self._cpu = now, cpu


def _wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def measure_open(path: Path) -> dict:
    """Open ``path`` in a fresh map window; the longest turn (ms, wall and CPU) and the route."""
    from gui import opening
    from gui.app import make_app
    from gui.main_window import MainWindow

    app = make_app()
    tmp = Path(tempfile.mkdtemp(prefix="cf-open-stall-"))
    settings = QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(None, None, settings=settings, autosave_folder=tmp / "autosave", autosave_interval_ms=10_000_000)
    win.resize(1600, 1000)
    win.show()
    app.processEvents()
    probe = Probe()
    _wait(50)
    probe.reset()
    if not win.open_file(path, ask=False):
        raise SystemExit(f"coverfire: {path} was not opened")
    deadline = clock.now() + SETTLE_LIMIT_S
    while (win.answers.charges_pending or win.answers._delay.isActive()) and clock.now() < deadline:
        _wait(PROBE_MS)
    _wait(AFTER_MS)
    probe._tick()  # (a turn still running counts)
    enc = win.document.encounter
    row = {"stall": probe.longest * 1e3, "cpu": probe.longest_cpu * 1e3, "route": opening.last_route,
           "obstacles": len(enc.obstacles), "tokens": len(enc.tokens)}
    win.close()
    worker = getattr(win.answers, "worker", None)
    if worker is not None:
        worker.shutdown()
    return row


def run(file: str) -> int:
    """The CLI's ``--measure-open FILE``: print the line (see the module's text)."""
    path = Path(file)
    if not path.is_file():
        raise SystemExit(f"coverfire: --measure-open: no file {path}")
    print(LINE.format(**measure_open(path)), flush=True)
    return 0
