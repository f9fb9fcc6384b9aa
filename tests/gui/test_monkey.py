"""A GM who presses anything (issue 23 item 6, "No exception escapes").

The real main window, offscreen, on each of the three demos, is driven by a seeded
``random.Random`` with real events (QTest): tool and edit keys, clicks, shift-clicks,
double-clicks, drags, right-clicks (the context menu that opens gets a random action or is
closed), right drags, wheel steps, hovering, files dropped (a Chummer save, a picture, a map,
a demo), random enabled actions of the menu bar, random buttons, check boxes, combo boxes
and spin boxes of the panels, and switching encounters (File > Open Demo) mid-run. Every
dialog is answered at once (cancelled, "Discard" for unsaved changes, the first item of a
list); dialogs shown without blocking are closed. The test fails on any exception:
one pytest-qt catches in a Qt handler, a logging record at ERROR with a traceback, or a
"Traceback" written to stderr. At the end the encounter is saved, read back and compared with
the window's document (its in-memory data: images as the save writes them, files beside it),
and opened again in the window.

``COVERFIRE_MONKEY_EVENTS`` (events per demo; small by default, for CI) and
``COVERFIRE_MONKEY_SEED`` set the run; a failure names its seed, demo and event, and the
last events, so ``COVERFIRE_MONKEY_SEED=<seed> COVERFIRE_MONKEY_EVENTS=<n>`` replays it
(timers and the charge worker make a replay likely, not certain, to take the same path);
``COVERFIRE_MONKEY_WEIGHTS="drop=10,switch_demo=5"`` presses some things more often.
The long run by hand: ``COVERFIRE_MONKEY_EVENTS=5000 nice python -m pytest -q -s
tests/gui/test_monkey.py``.
"""

from __future__ import annotations

import logging
import os
import random
import time
import traceback
from collections import deque
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QAction, QColor, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QColorDialog,
    QComboBox,
    QDialog,
    QFileDialog,
    QInputDialog,
    QMenu,
    QMessageBox,
    QTabBar,
    QWidget,
)

from tests.gui.conftest import open_window
from tests.gui.menus import submenu, submenus
from tests.gui.settle import settle

EVENTS = int(os.environ.get("COVERFIRE_MONKEY_EVENTS", "250"))  # (~3 s of CPU a demo)
SEED = int(os.environ.get("COVERFIRE_MONKEY_SEED", "20231"))
#: Other weights for some kinds of event, e.g. "drop=10,switch_demo=5" (Monkey.kinds).
WEIGHTS = os.environ.get("COVERFIRE_MONKEY_WEIGHTS", "")

#: Menu-bar actions the monkey leaves alone: Quit closes the window under the test (closing
#: is tried by the window tests); nothing else here quits, opens the OS file manager or a
#: browser, or waits for an answer the patched dialogs cannot give.
SKIPPED_ACTIONS = {"Quit", "Follow the desktop", "Dark", "Light"}  # (View > Theme: the application's
# palette, shared with the tests after this one in the process; tested in test_theme_contrast.py)

#: Keys a GM presses on the map (with the modifiers they go with).
NO = Qt.KeyboardModifier.NoModifier
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier
K = Qt.Key
KEYS = [(k, NO) for k in (K.Key_S, K.Key_M, K.Key_P, K.Key_R, K.Key_W, K.Key_Z, K.Key_G, K.Key_B, K.Key_T,
                          K.Key_L, K.Key_O, K.Key_A, K.Key_N, K.Key_V, K.Key_F, K.Key_Delete, K.Key_Escape,
                          K.Key_Return, K.Key_Enter, K.Key_Backspace, K.Key_Left, K.Key_Right, K.Key_Up,
                          K.Key_Down, K.Key_Plus, K.Key_Minus, K.Key_Equal, K.Key_Space, K.Key_Tab,
                          K.Key_1, K.Key_3, K.Key_F10)]
KEYS += [(K.Key_Z, CTRL), (K.Key_Z, CTRL | SHIFT), (K.Key_Y, CTRL), (K.Key_D, CTRL), (K.Key_G, CTRL),
         (K.Key_A, CTRL | SHIFT), (K.Key_T, SHIFT), (K.Key_B, CTRL), (K.Key_Plus, CTRL), (K.Key_Minus, CTRL)]
#: Keys that are pressed often (the tools, undo, escape, enter): weighted twice.
OFTEN = [(K.Key_S, NO), (K.Key_Escape, NO), (K.Key_Return, NO), (K.Key_Z, CTRL), (K.Key_Z, CTRL | SHIFT),
         (K.Key_Delete, NO), (K.Key_A, NO), (K.Key_T, NO)]


ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
#: Files the monkey drops on the map (those missing on this machine are left out).
DROPPED = [SHARED / "samples" / "chummer" / "Wesson.chum5", SHARED / "outside" / "chummer" / "Barrett.chum5",
           SHARED / "samples" / "uvtt" / "foundry_to_uvtt-prismatic_ballroom_main.uvtt",
           ROOT / "assets" / "icons" / "coverfire-64.png", ROOT / "assets" / "encounters" / "demo-d100.json"]


def demo_files() -> list[Path]:
    from gui.main_window import demo_paths

    return demo_paths()


# -- answering every dialog at once ---------------------------------------------------------------
@pytest.fixture
def no_dialogs(monkeypatch):
    """Every modal question answered at once: unsaved changes discarded, a choice from a list
    its first item, every other question, file, text, number, colour cancelled; a dialog's
    exec() rejected."""
    box = QMessageBox.StandardButton
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: box.Discard))
    for name in ("warning", "information", "critical"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(lambda *a, **k: box.Ok))
    monkeypatch.setattr(QMessageBox, "about", staticmethod(lambda *a, **k: None))
    monkeypatch.setattr(QMessageBox, "aboutQt", staticmethod(lambda *a, **k: None))
    monkeypatch.setattr(QMessageBox, "exec", lambda self, *a, **k: int(box.Cancel))
    monkeypatch.setattr(QDialog, "exec", lambda self, *a, **k: int(QDialog.DialogCode.Rejected))
    for name in ("getOpenFileName", "getSaveFileName", "getOpenFileUrl", "getSaveFileUrl"):
        monkeypatch.setattr(QFileDialog, name, staticmethod(lambda *a, **k: ("", "")))
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: ([], "")))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: ""))
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: ("", False)))
    monkeypatch.setattr(QInputDialog, "getMultiLineText", staticmethod(lambda *a, **k: ("", False)))
    monkeypatch.setattr(QInputDialog, "getInt", staticmethod(lambda *a, **k: (0, False)))
    monkeypatch.setattr(QInputDialog, "getDouble", staticmethod(lambda *a, **k: (0.0, False)))
    # (a list is answered with its first item: a Chummer save dropped on the map asks its side)
    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(lambda parent, title, label, items, *a, **k:
                                                              (items[0], True) if items else ("", False)))
    monkeypatch.setattr(QColorDialog, "getColor", staticmethod(lambda *a, **k: QColor()))


class Troubles(logging.Handler):
    """Logging records at ERROR or above that carry a traceback (``log.exception``)."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.records.append(record)


def make_window(path: Path, tmp_path: Path, qtbot):
    """The main window on ``path`` (tests/gui/conftest.py's ``open_window``)."""
    return open_window(qtbot, path, tmp_path)


# -- the monkey -----------------------------------------------------------------------------------
class Monkey:
    """Sends one random event at a time to ``win`` (its map, menus and panels)."""

    def __init__(self, win, rng: random.Random, qtbot):
        self.win, self.rng, self.qtbot = win, rng, qtbot
        self.log: deque[str] = deque(maxlen=40)
        self.kinds = [
            (self.key, 30), (self.click, 14), (self.shift_click, 3), (self.double_click, 2), (self.drag, 10),
            (self.right_click, 8), (self.right_drag, 2), (self.wheel, 4), (self.hover, 6), (self.menu_action, 7),
            (self.panel_button, 7), (self.panel_combo, 3), (self.panel_spin, 2), (self.panel_check, 2),
            (self.tab, 2), (self.wait, 2), (self.switch_demo, 0.6), (self.drop, 1),
        ]
        self._fns = [k for k, _ in self.kinds]
        wanted = dict(part.split("=") for part in WEIGHTS.split(",") if "=" in part)
        self._weights = [float(wanted.get(k.__name__, w)) for k, w in self.kinds]

    # where things are
    @property
    def view(self):
        return self.win.map_view

    def point(self) -> QPoint:
        """A viewport pixel: near a token, an obstacle's corner or a zone's centre (mostly),
        or anywhere in the view."""
        enc = self.win.document.encounter
        vp = self.view.viewport()
        r = self.rng.random()
        xy = None
        if r < 0.55 and enc.tokens:
            t = self.rng.choice(enc.tokens)
            xy = (t.x, t.y)
        elif r < 0.7 and enc.obstacles:
            o = self.rng.choice(enc.obstacles)
            pts = getattr(o, "points", None) or getattr(o, "polygon", None)
            try:
                xy = tuple(self.rng.choice(list(pts))) if pts else None
            except (TypeError, IndexError):
                xy = None
        elif r < 0.78 and enc.zones:
            z = self.rng.choice(enc.zones)
            xy = (getattr(z, "x", None), getattr(z, "y", None))
            if None in xy:
                xy = None
        if xy is not None:
            try:
                p = self.view.map_to_viewport(float(xy[0]), float(xy[1]))
            except (TypeError, ValueError):
                p = None
            if p is not None and 0 <= p.x() < vp.width() and 0 <= p.y() < vp.height():
                jitter = self.rng.choice((0, 0, 3, 12))
                return QPoint(p.x() + self.rng.randint(-jitter, jitter), p.y() + self.rng.randint(-jitter, jitter))
        return QPoint(self.rng.randrange(max(1, vp.width())), self.rng.randrange(max(1, vp.height())))

    def modifiers(self):
        return self.rng.choice((NO, NO, NO, NO, SHIFT, CTRL, Qt.KeyboardModifier.AltModifier))

    # the events
    def key(self) -> None:
        key, mods = self.rng.choice(KEYS + OFTEN) if self.rng.random() < 0.9 else (self.rng.choice(KEYS)[0], self.modifiers())
        focus = QApplication.focusWidget()
        target = focus if (focus is not None and focus.window() is self.win and self.rng.random() < 0.3) else self.view
        if target is self.view:
            self.view.setFocus()
        self.log.append(f"key {key.name} {mods} -> {type(target).__name__}")
        QTest.keyClick(target, key, mods)

    def click(self, mods=None) -> None:
        p = self.point()
        mods = self.modifiers() if mods is None else mods
        self.log.append(f"click {p.x()},{p.y()} {mods}")
        QTest.mouseClick(self.view.viewport(), Qt.MouseButton.LeftButton, mods, p)

    def shift_click(self) -> None:
        self.click(SHIFT)

    def double_click(self) -> None:
        p = self.point()
        self.log.append(f"double-click {p.x()},{p.y()}")
        QTest.mouseDClick(self.view.viewport(), Qt.MouseButton.LeftButton, NO, p)

    def _drag(self, button, mods=NO) -> None:
        vp = self.view.viewport()
        a = self.point()
        if self.rng.random() < 0.5:
            b = self.point()
        else:
            b = a + QPoint(self.rng.randint(-150, 150), self.rng.randint(-150, 150))
        steps = self.rng.randint(1, 8)
        self.log.append(f"drag {button.name} {a.x()},{a.y()} -> {b.x()},{b.y()} in {steps} {mods}")
        QTest.mousePress(vp, button, mods, a)
        for i in range(1, steps + 1):
            QTest.mouseMove(vp, QPoint(round(a.x() + (b.x() - a.x()) * i / steps), round(a.y() + (b.y() - a.y()) * i / steps)))
        if self.rng.random() < 0.05:  # a key in the middle of a drag
            key, kmods = self.rng.choice(OFTEN)
            self.log.append(f"  key {key.name} during the drag")
            QTest.keyClick(self.view, key, kmods)
        QTest.mouseRelease(vp, button, mods, b)

    def drag(self) -> None:
        self._drag(Qt.MouseButton.LeftButton, self.rng.choice((NO, NO, NO, SHIFT, CTRL)))

    def right_drag(self) -> None:
        self._drag(self.rng.choice((Qt.MouseButton.RightButton, Qt.MouseButton.MiddleButton)))

    def right_click(self) -> None:
        p = self.point()
        self.log.append(f"right-click {p.x()},{p.y()}")
        QTest.mouseClick(self.view.viewport(), Qt.MouseButton.RightButton, NO, p)
        menu = getattr(self.win.context_menu, "last_menu", None)
        if menu is None or not menu.isVisible():
            return
        acts = enabled_actions(menu)
        if acts and self.rng.random() < 0.8:
            act = self.rng.choice(acts)
            self.log.append(f"  context menu: {act.text()!r}")
            menu.hide()
            act.trigger()
        else:
            self.log.append("  context menu closed")
            menu.close()

    def wheel(self) -> None:
        p = self.point()
        vp = self.view.viewport()
        dy = self.rng.choice((120, -120, 240, -240, 40))
        self.log.append(f"wheel {dy} at {p.x()},{p.y()}")
        ev = QWheelEvent(QPointF(p), QPointF(vp.mapToGlobal(p)), QPoint(0, 0), QPoint(0, dy), Qt.MouseButton.NoButton,
                         self.modifiers(), Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(vp, ev)

    def hover(self) -> None:
        p = self.point()
        self.log.append(f"hover {p.x()},{p.y()}")
        QTest.mouseMove(self.view.viewport(), p)

    def menu_action(self) -> None:
        acts = [a for a in enabled_actions(self.win.menuBar()) if a.text().replace("&", "") not in SKIPPED_ACTIONS]
        if not acts:
            return
        act = self.rng.choice(acts)
        self.log.append(f"menu action {act.text()!r}")
        act.trigger()

    def _panel_widgets(self, cls) -> list[QWidget]:
        out = []
        for dock in self.win.docks.values():
            if not dock.isVisible():
                continue
            out += [w for w in dock.findChildren(cls) if w.isVisible() and w.isEnabled()]
        return out

    def panel_button(self) -> None:
        buttons = [b for b in self._panel_widgets(QAbstractButton) if not isinstance(b, QCheckBox)]
        if not buttons:
            return
        b = self.rng.choice(buttons)
        self.log.append(f"button {b.text()!r} ({type(b).__name__} in {type(b.parent()).__name__})")
        QTest.mouseClick(b, Qt.MouseButton.LeftButton, NO, b.rect().center())

    def panel_check(self) -> None:
        boxes = self._panel_widgets(QCheckBox)
        if boxes:
            b = self.rng.choice(boxes)
            self.log.append(f"check box {b.text()!r}")
            QTest.mouseClick(b, Qt.MouseButton.LeftButton, NO, QPoint(6, b.height() // 2))

    def panel_combo(self) -> None:
        combos = [c for c in self._panel_widgets(QComboBox) if c.count() > 0]
        if combos:
            c = self.rng.choice(combos)
            i = self.rng.randrange(c.count())
            self.log.append(f"combo {c.objectName() or type(c.parent()).__name__} -> {c.itemText(i)!r}")
            c.setCurrentIndex(i)
            if shiboken6.isValid(c):  # (a page may rebuild its form, this combo with it)
                c.activated.emit(i)  # (what choosing it with the mouse sends too)

    def panel_spin(self) -> None:
        spins = self._panel_widgets(QAbstractSpinBox)
        if spins:
            s = self.rng.choice(spins)
            n = self.rng.choice((1, -1, 3, -3, 10))
            self.log.append(f"spin {type(s).__name__} by {n}")
            s.stepBy(n)
            if self.rng.random() < 0.5 and shiboken6.isValid(s):
                s.editingFinished.emit()

    def tab(self) -> None:
        bars = [b for b in self.win.findChildren(QTabBar) if b.isVisible() and b.count() > 1]
        if bars:
            b = self.rng.choice(bars)
            i = self.rng.randrange(b.count())
            self.log.append(f"tab {b.tabText(i)!r}")
            b.setCurrentIndex(i)

    def wait(self) -> None:
        # (one of the GM's inputs: a pause, in which timers and workers run; the test
        # waits for nothing here)
        ms = self.rng.choice((5, 20, 60))
        self.log.append(f"wait {ms} ms")
        self.qtbot.wait(ms)

    def switch_demo(self) -> None:
        acts = [a for a in self.win.demo_menu.actions() if a.isEnabled()]
        act = self.rng.choice(acts)
        self.log.append(f"File > Open Demo > {act.text()!r}")
        act.trigger()

    def drop(self) -> None:
        """A file dropped on the map: a Chummer save (a token where it fell), a picture (a
        token's art or the background), a demo (it opens), a map (its import dialog is
        cancelled)."""
        files = [f for f in DROPPED if f.is_file()]
        if not files:
            return
        f = self.rng.choice(files)
        p = self.point()
        x, y = self.view.viewport_to_map(p)
        self.log.append(f"drop {f.name} at {x:.1f},{y:.1f}")
        self.view.filesDropped.emit([str(f)], (x, y))  # (what the view's dropEvent sends)

    def step(self) -> None:
        fn = self.rng.choices(self._fns, self._weights)[0]
        fn()
        QApplication.processEvents()
        self.tidy()

    def tidy(self) -> None:
        """Close what a dialog-less GM would have closed: dialogs shown without blocking, a
        menu left open, now and then the player view."""
        for w in QApplication.topLevelWidgets():
            if w is self.win or not w.isVisible():
                continue
            if isinstance(w, QDialog):
                self.log.append(f"  dialog {w.windowTitle()!r} closed")
                w.reject()
            elif isinstance(w, QMenu):
                w.close()
            elif self.rng.random() < 0.3:
                self.log.append(f"  window {w.windowTitle()!r} closed")
                w.close()
        if not self.win.isActiveWindow():
            self.win.activateWindow()


def enabled_actions(widget, found=None) -> list[QAction]:
    """The enabled, visible leaf actions of a menu (bar), submenus included (found from
    their side, tests/gui/menus.py: no ``QAction.menu()``)."""
    found = submenus() if found is None else found
    out = []
    for a in widget.actions():
        if a.isSeparator() or not a.isEnabled() or not a.isVisible():
            continue
        sub = submenu(a, found)
        if sub is not None:
            sub.aboutToShow.emit()  # (Open Recent fills itself then: its submenus found anew)
            out += enabled_actions(sub, submenus())
        else:
            out.append(a)
    return out


def differences(a, b, lines: int = 60) -> str:
    """Where two encounters' files differ (a unified diff, its first ``lines`` lines)."""
    import difflib

    from engine.files import dumps_encounter

    diff = difflib.unified_diff(dumps_encounter(a).splitlines(), dumps_encounter(b).splitlines(),
                                "window", "reopened", n=2, lineterm="")
    return "\n".join(list(diff)[:lines]) or "(the same file text: the values differ where JSON cannot say)"


# -- the test -------------------------------------------------------------------------------------
@pytest.mark.slow  # (400 events: ~5 s of CPU a demo when quiet; 5,000 by hand take minutes)
@pytest.mark.parametrize("demo", [p.name for p in demo_files()])
def test_a_gm_who_presses_anything(demo, qtbot, tmp_path, no_dialogs, capfd):
    from engine.files import load_encounter
    from engine.importers.images import externalize_images

    path = next(p for p in demo_files() if p.name == demo)
    seed = f"{SEED}:{demo}"
    rng = random.Random(seed)
    troubles = Troubles()
    logging.getLogger().addHandler(troubles)
    try:
        win = make_window(path, tmp_path, qtbot)
        monkey = Monkey(win, rng, qtbot)
        started = time.process_time()
        with qtbot.capture_exceptions() as exceptions:
            for i in range(EVENTS):
                raised = None
                try:
                    monkey.step()
                except Exception as exc:  # (raised through a QTest call: an event handler's)
                    raised = exc
                err = capfd.readouterr().err
                if raised is not None or exceptions or troubles.records or "Traceback" in err:
                    what = [("".join(traceback.format_exception(*e))) for e in exceptions]
                    if raised is not None:
                        what.append("".join(traceback.format_exception(raised)))
                    what += [logging.Formatter().format(r) for r in troubles.records]
                    if "Traceback" in err:
                        what.append(err)
                    recent = "\n".join(monkey.log)
                    pytest.fail(f"COVERFIRE_MONKEY_SEED={SEED} ({seed}), event {i + 1} of {EVENTS}:\n"
                                f"last events:\n{recent}\n\n" + "\n".join(what), pytrace=False)
            # put down what is in hand, then save, read back and compare
            QTest.keyClick(win.map_view, Qt.Key.Key_Escape)
            QTest.keyClick(win.map_view, Qt.Key.Key_S)
            settle(qtbot, win)
            out = tmp_path / "after-the-monkey.json"
            assert win.save_as(out), f"seed {seed}: Save As failed"
            again = load_encounter(out)
            # the document as its file holds it: images kept in memory as data: URIs (an
            # imported character's portrait) are written beside the file and named there
            (tmp_path / "expected").mkdir()
            expected, written = externalize_images(win.document.encounter, tmp_path / "expected" / out.name)
            assert again == expected, (f"COVERFIRE_MONKEY_SEED={SEED} ({seed}): the saved file reads back "
                                       f"different:\n{differences(expected, again)}\nlast events:\n"
                                       + "\n".join(monkey.log))
            for name in written:
                assert (out.parent / name).read_bytes() == (tmp_path / "expected" / name).read_bytes(), name
            assert win.open_file(out, ask=False)
            assert win.document.encounter == again
            QApplication.processEvents()
        cpu = time.process_time() - started
        assert not exceptions, f"seed {seed}: {exceptions}"
        assert not troubles.records, f"seed {seed}: {[logging.Formatter().format(r) for r in troubles.records]}"
        err = capfd.readouterr().err
        assert "Traceback" not in err, f"seed {seed}, saving and opening again:\n{err}"
        print(f"\nmonkey {seed}: {EVENTS} events, 0 exceptions, {cpu:.1f} s CPU")
    finally:
        logging.getLogger().removeHandler(troubles)
