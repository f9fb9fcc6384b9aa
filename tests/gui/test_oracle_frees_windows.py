"""The picture oracle opens a fresh window after every step: each one it closes must be gone
at once, not left for the next nested event loop (a long run's 800 windows held 8.8 GB and
were then deleted all at once, for minutes, inside a map drop)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication

from engine.files import load_encounter
from gui.main_window import MainWindow, demo_paths
from tests.gui import oracle


def _main_windows() -> int:
    return sum(isinstance(w, MainWindow) for w in QApplication.topLevelWidgets())


def test_a_closed_oracle_window_is_deleted_at_once(qtbot, tmp_path):
    before = _main_windows()
    path = demo_paths()[0]
    for i in range(3):
        win = oracle.make_window(load_encounter(path), path, tmp_path / f"w{i}", QSize(1000, 700))
        assert _main_windows() == before + 1
        oracle.close_window(win)
        assert _main_windows() == before
