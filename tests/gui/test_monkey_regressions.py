"""Exceptions the random-input test (tests/gui/test_monkey.py) and a new user found, each
kept as the few steps that raised it. Every test fails on the exception (pytest-qt's capture
of exceptions in Qt handlers) before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

ENCOUNTERS = Path(__file__).resolve().parents[2] / "assets" / "encounters"
SR5, D100, SV = ENCOUNTERS / "demo.json", ENCOUNTERS / "demo-d100.json", ENCOUNTERS / "demo-static-veil.json"


def settle() -> None:
    """Run what is posted, deferred deletes included (as the event loop would)."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()


def test_map_only_after_another_rule_system_opened(window):
    """F10 (map only) hid the SR5 docks; the d100 demo opened (the SR5 docks deleted);
    F10 again showed the hidden docks: "Internal C++ object (QDockWidget) already deleted"."""
    window.actions["map only"].trigger()
    assert window.map_only
    assert window.open_demo(D100)
    settle()
    window.actions["map only"].trigger()
    assert not window.map_only
    assert window.docks["targets"].isVisible()  # (the panels that were shown are back)
