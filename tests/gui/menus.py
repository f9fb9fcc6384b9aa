"""Walking a menu (bar) and its submenus in a test without ``QAction.menu()``.

PySide6 before 6.11.2 (PYSIDE-3380; 6.8.0.2, the lowest Coverfire allows, has it) makes the
QMenu that ``action.menu()`` returns a Python child of that action's wrapper: when the
action's wrapper goes (a loop's temporary), the menu's wrapper is marked deleted, and so is
every wrapper under it -- the submenu's actions, the program's own ``self.some_action``
too -- while the C++ objects live on ("Internal C++ object (PySide6.QtGui.QAction) already
deleted" at the next use). So a submenu is found here from the other side: the QMenu whose
``menuAction()`` is the action (``QMenu.menuAction`` makes no such link). Coverfire's own code
never calls ``QAction.menu()`` (tests/test_no_action_menu.py).
"""

from __future__ import annotations

import shiboken6
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu, QWidget


def _key(obj) -> int:
    return shiboken6.getCppPointer(obj)[0]


def submenus() -> dict[int, QMenu]:
    """Every QMenu there is (each window's, and the windows that are menus: a popup menu is
    a window of its own), by its menu action's C++ address."""
    out: dict[int, QMenu] = {}
    for w in QApplication.topLevelWidgets():
        for m in ([w] if isinstance(w, QMenu) else []) + w.findChildren(QMenu):
            out[_key(m.menuAction())] = m
    return out


def submenu(action: QAction, found: dict[int, QMenu] | None = None) -> QMenu | None:
    """The submenu ``action`` opens (None for a plain action); ``found``: a ``submenus()``
    already made (none made since)."""
    return (submenus() if found is None else found).get(_key(action))


def all_actions(menu: QWidget, found: dict[int, QMenu] | None = None) -> list[QAction]:
    """``menu``'s actions and its submenus', depth first (each submenu's action before its
    entries)."""
    found = submenus() if found is None else found
    out = []
    for a in menu.actions():
        out.append(a)
        sub = found.get(_key(a))
        if sub is not None:
            out += all_actions(sub, found)
    return out


__all__ = ["all_actions", "submenu", "submenus"]
