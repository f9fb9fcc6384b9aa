"""The main window: the map in the middle, the inspector and targets docks, tools, menus,
files (open, save, recent, autosave and recovery).

Later features plug in without editing this file: :meth:`MainWindow.add_dock`,
:meth:`MainWindow.add_menu`, :meth:`MainWindow.add_action`, and
:func:`register_extension` (a function called with every new main window, e.g. a rule
system adding its attack dialog and initiative tracker).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QMargins, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QCheckBox,
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QTabBar,
    QTabWidget,
    QToolBar,
    QWidget,
)

from engine.errors import CoverfireError
from engine.model import Background, Encounter, MapSpec
from gui import edits, saving, screen_fit, style
from gui.answers import LiveAnswers
from gui.autosave import Autosaver, remove, scan_autosaves, set_aside
from gui.document import EncounterDocument
from gui.inspector import InspectorPanel
from gui.map_view import MapView
from gui.selection import Selection
from gui.targets import TargetsPanel
from gui.tools import (
    CalibrateTool,
    PolygonTool,
    RectTool,
    SelectTool,
    TokenTool,
    WallTool,
    ZoneTool,
    background_from_calibration,
)

APP_NAME = "Coverfire"
MAX_RECENT = 8
#: Bumped when the docks' arrangement changes so much that an old saved one should be dropped.
STATE_VERSION = 2
MAP_ONLY_KEY = "F10"
FILE_FILTER = saving.OPEN_FILTER  # the Open dialog's; Save As uses saving.SAVE_FILTER

#: Functions called with each new :class:`MainWindow` (see :func:`register_extension`).
EXTENSIONS: list[Callable[["MainWindow"], None]] = []
#: Modules whose import registers built-in extensions; imported when a window is built.
BUILTIN_EXTENSIONS: list[str] = ["gui.player_view", "gui.export", "gui.rules", "gui.importing", "gui.sight_panel",
                                  "gui.recorder"]


def _load_builtin_extensions() -> None:
    import importlib

    for name in BUILTIN_EXTENSIONS:
        importlib.import_module(name)


def _in_builtin_order(extensions: list) -> list:
    """The extensions in the order of :data:`BUILTIN_EXTENSIONS` (then any others, as
    registered), whatever order their modules happened to be imported in: a window is built
    the same way every time (the rule systems' combat log after the player view, say)."""
    def rank(fn) -> int:
        module = getattr(fn, "__module__", "") or ""
        for i, name in enumerate(BUILTIN_EXTENSIONS):
            if module == name or module.startswith(name + "."):
                return i
        return len(BUILTIN_EXTENSIONS)

    return sorted(extensions, key=rank)


def register_extension(fn: Callable[["MainWindow"], None]) -> Callable[["MainWindow"], None]:
    """Have ``fn(window)`` called for every main window built from now on (to add docks,
    menus, actions). Usable as a decorator."""
    if fn not in EXTENSIONS:
        EXTENSIONS.append(fn)
    return fn


def demo_file() -> Path:
    from assets import demo_encounter_path

    return demo_encounter_path()


def demo_paths() -> list[Path]:
    """The bundled demo encounters (the main demo first), one per rule system."""
    from assets import ENCOUNTERS

    first = demo_file()
    return [first] + sorted(p for p in ENCOUNTERS.glob("demo*.json") if p != first)


def demo_label(path: Path) -> str:
    """The menu text of a demo: the encounter's own name (its file name if unreadable)."""
    import json

    try:
        name = json.loads(path.read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError):
        name = None
    return str(name) if name else path.stem


def blank_encounter() -> Encounter:
    return Encounter(name="Untitled encounter", map=MapSpec(width=40.0, height=30.0))


class MainWindow(QMainWindow):
    """The GM's window on one encounter document."""

    def __init__(self, encounter: Encounter | None = None, path: str | Path | None = None, *,
                 settings: QSettings | None = None, autosave_folder: Path | None = None,
                 autosave_interval_ms: int = 60_000):
        super().__init__()
        self.settings = settings or QSettings(APP_NAME, APP_NAME)
        self.document = EncounterDocument(encounter or blank_encounter(), path, self)
        self.selection = Selection(self)
        self.answers = LiveAnswers(self.document, self.selection, self)
        self.map_view = MapView(self.document, self.selection, self.answers)
        self.setCentralWidget(self.map_view)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks
                            | QMainWindow.DockOption.AllowNestedDocks)
        # the right column's tabs stand down its left edge: all six titles show at 1366 (across
        # a 340 px column they hid behind scroll arrows; issue 30 item 8)
        self.setTabPosition(Qt.DockWidgetArea.RightDockWidgetArea, QTabWidget.TabPosition.West)
        self.setTabPosition(Qt.DockWidgetArea.LeftDockWidgetArea, QTabWidget.TabPosition.North)
        self.menus: dict[str, QMenu] = {}
        self.actions: dict[str, QAction] = {}
        self.docks: dict[str, QDockWidget] = {}
        from gui.tab_fit import TabFit

        self._tab_fit = TabFit(self)  # the dock column's tabs all in view (gui/tab_fit.py)
        self.tools: dict[str, Callable[[], object]] = {}
        self._view_options = style.GM_VIEW

        self.inspector = InspectorPanel(self.document, self.selection)
        self.targets = TargetsPanel(self.answers, self.selection)
        self._build_menus()
        self._build_toolbars()
        self.add_dock(self.targets, "Targets", Qt.DockWidgetArea.RightDockWidgetArea, "targets")
        self.add_dock(self.inspector, "Inspector", Qt.DockWidgetArea.RightDockWidgetArea, "inspector")
        self.docks["inspector"].visibilityChanged.connect(lambda on: on and self.inspector.refresh_if_stale())
        self._build_status()

        self.document.cleanChanged.connect(lambda _: self._update_title())
        self.document.pathChanged.connect(lambda _: self._update_title())
        self.document.changed.connect(self._on_document)
        self.map_view.statusMessage.connect(lambda t: self.statusBar().showMessage(t, 6000))
        self.autosaver = Autosaver(self.document, autosave_folder, autosave_interval_ms, self)
        self.autosaver.failed.connect(lambda text: self.statusBar().showMessage(text, autosave_interval_ms))
        self.autosaver.resumed.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self._update_title()
        self._map_only_hidden: list[QWidget] | None = None
        self.restored_layout = self._restore_geometry()
        _load_builtin_extensions()
        for ext in _in_builtin_order(EXTENSIONS):
            ext(self)
        self.restored_layout = self._restore_state() and self.restored_layout
        from gui.context_menu import MapContextMenu
        from gui.why_greyed import GreyedExplainer

        self.context_menu = MapContextMenu(self)
        from gui.drop import DropHandler

        self.drops = DropHandler(self)

        self.greyed = GreyedExplainer(self)
        for menu in self.findChildren(QMenu):
            self.greyed.watch_menu(menu)
        if not self.restored_layout:
            self.docks["targets"].raise_()

    # -- fitting the screen -----------------------------------------------------------------------
    def available_geometry(self):
        """The available geometry (desktop minus task bars) of the screen the window is on."""
        scr = self.screen() or QGuiApplication.primaryScreen()
        return scr.availableGeometry()

    def frame_margins(self) -> QMargins:
        """The frame (title bar, borders) the window system adds around the client area, as
        it reports it now (usually nothing before the window is shown and decorated)."""
        handle = self.windowHandle()
        if handle is not None:
            return handle.frameMargins()
        fg, g = self.frameGeometry(), self.geometry()
        return QMargins(g.x() - fg.x(), g.y() - fg.y(), fg.right() - g.right(), fg.bottom() - g.bottom())

    def _frame_known(self) -> bool:
        return self.isVisible() and self.windowHandle() is not None

    def _margins_for_fit(self) -> QMargins:
        """The frame to fit with: the reported one once the window is shown, before that at
        least :data:`gui.screen_fit.ASSUMED_FRAME` (a title bar the window manager adds later)."""
        m = self.frame_margins()
        return m if self._frame_known() else screen_fit.widest(m, screen_fit.ASSUMED_FRAME)

    def fill_screen(self) -> None:
        """Take the whole available geometry of the window's screen (the first start): the
        window's frame, title bar included, fills it; refitted when the frame becomes known."""
        self._fill_on_frame = True
        self._fit_frame()

    def _fit_frame(self) -> None:
        avail = self.available_geometry()
        margins = self._margins_for_fit()
        self._fitted_margins = margins if self._frame_known() else None
        if self._frame_known() and not margins.isNull():
            self._fill_on_frame = False  # the real frame is in: later moves are the GM's
        self._filled = screen_fit.client_for_frame(avail, margins)
        self.setGeometry(self._filled)

    def keep_on_screen(self) -> None:
        """Shrink and move the window so its frame lies within its screen's available
        geometry (after a restore, or after opening an encounter whose panels asked for room)."""
        if self.isFullScreen() or self.isMaximized():
            return
        avail = self.available_geometry()
        margins = self._margins_for_fit()
        frame = screen_fit.frame_of(self.geometry(), margins)
        fitted = screen_fit.inside(frame, avail)
        if fitted == frame:
            return
        self.setGeometry(screen_fit.client_for_frame(fitted, margins))

    def _check_frame(self) -> None:
        """When the window system reports a frame other than the one the window was fitted
        with (a title bar added after the window was shown), fit again with the real one."""
        if not self._frame_known() or self.isFullScreen() or self.isMaximized():
            return
        margins = self.frame_margins()
        if margins == getattr(self, "_fitted_margins", None):
            return
        self._fitted_margins = margins
        filled = getattr(self, "_filled", None)  # (a size set since, by the program or the GM, stands)
        if getattr(self, "_fill_on_frame", False) and filled is not None and self.size() == filled.size():
            self._fit_frame()
        else:
            self.keep_on_screen()

    def moveEvent(self, ev) -> None:  # noqa: N802 - Qt API
        super().moveEvent(ev)
        self._check_frame()

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(ev)
        self._check_frame()
        if getattr(self, "_sized", False):
            QTimer.singleShot(0, self, self.tidy_dock_tabs)  # (the column's height changed)

    def _restore_geometry(self) -> bool:
        geo = self.settings.value("window/geometry")
        if isinstance(geo, QByteArray) and self.restoreGeometry(geo):
            self.keep_on_screen()
            return True
        self.fill_screen()
        return False

    def _restore_state(self) -> bool:
        state = self.settings.value("window/state")
        if not isinstance(state, QByteArray):
            return False
        ok = self.restoreState(state, STATE_VERSION)
        self.keep_on_screen()
        return bool(ok)

    def save_layout(self) -> None:
        """Remember the window's size and place, its docks and their sizes."""
        if self._map_only_hidden is not None:
            self.set_map_only(False)
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState(STATE_VERSION))

    def _after_open(self) -> None:
        self.keep_on_screen()
        self.tidy_dock_tabs()

    def tidy_dock_tabs(self) -> None:
        """Dock tabs show their whole titles, never "Ta…" (the right column's stand down its
        left edge: all of them show), and the Action panel's tab is the column's last, so it
        appearing shifts no other tab (issue 30 item 8)."""
        for bar in self.findChildren(QTabBar):
            if bar.parent() is self:
                bar.setElideMode(Qt.TextElideMode.ElideNone)
                bar.setUsesScrollButtons(True)
                bar.setExpanding(False)
                if not bar.property("coverfire_fit"):
                    bar.setProperty("coverfire_fit", True)
                    bar.installEventFilter(self._tab_fit)
                self._tab_fit.fit(bar)

    def default_dock_width(self) -> int:
        return screen_fit.dock_width(self.width())

    def resizeDocks(self, docks, sizes, orientation) -> None:  # noqa: N802 - Qt API
        """As Qt's, but a dock asked to be wider than the map-first limit gets the limit
        (rule systems ask for room; the map keeps most of the window)."""
        if orientation == Qt.Orientation.Horizontal:
            limit = screen_fit.dock_width_limit(self.width()) + self.side_tabs_width()
            sizes = [min(int(s), limit) for s in sizes]
        super().resizeDocks(docks, sizes, orientation)

    # -- map only, full screen ------------------------------------------------------------------
    @property
    def map_only(self) -> bool:
        return self._map_only_hidden is not None

    def set_map_only(self, on: bool) -> None:
        """Hide every panel and toolbar (the map keeps its own legend, scale bar and
        badges), or show again the ones that were shown."""
        if on == self.map_only:
            self.actions["map only"].setChecked(on)
            return
        if on:
            shown = [w for w in list(self.docks.values()) + self.findChildren(QToolBar) if w.isVisible()]
            for w in shown:
                w.hide()
            self._map_only_hidden = shown
            self.statusBar().showMessage(f"Map only: {MAP_ONLY_KEY} shows the panels again", 6000)
        else:
            hidden, self._map_only_hidden = self._map_only_hidden, None
            # only what is still the window's: a rule system's docks leave with its
            # encounter (another system's opened meanwhile) and are deleted
            still = set(map(id, list(self.docks.values()) + self.findChildren(QToolBar)))
            for w in hidden:
                if id(w) in still:
                    w.show()
        self.actions["map only"].setChecked(on)
        self.map_view.setFocus()

    def set_full_screen(self, on: bool) -> None:
        if on:
            self.showFullScreen()
        else:
            self.showNormal()
            self.keep_on_screen()
        self.actions["full screen"].setChecked(on)

    # -- extension points ---------------------------------------------------------------------
    def add_dock(self, widget: QWidget, title: str, area: Qt.DockWidgetArea = Qt.DockWidgetArea.RightDockWidgetArea,
                 name: str | None = None, *, tabify_with: str | None = None) -> QDockWidget:
        """Put ``widget`` in a dock panel (listed in View > Panels); ``tabify_with`` names a
        dock to share tabs with."""
        name = name or title.lower().replace(" ", "_")
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{name}")
        dock.setWidget(_scrolling(widget))
        # map first: every panel is a tab of one column on the right (the GM may drag them
        # elsewhere; the arrangement is saved), whichever side its maker asked for
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        host = self.docks.get(tabify_with) if tabify_with else None
        if host is None and self.docks:
            host = next(iter(self.docks.values()))
        if host is not None:
            self.tabifyDockWidget(host, dock)
            action = self.docks.get("action")
            if action is not None and not action.isFloating() and name != "action":
                # the Action panel's tab stays the column's last: it appearing shifts no tab
                shown = not action.isHidden()
                front = shown and (self._in_front(action) or not self.isVisible())
                self.tabifyDockWidget(dock, action)
                action.setVisible(shown)
                if front:
                    action.raise_()
        self.docks[name] = dock
        self.menus["Panels"].addAction(dock.toggleViewAction())
        if getattr(self, "_sized", False):
            QTimer.singleShot(0, self, self.tidy_dock_tabs)  # (a tab more: still all in view)
        return dock

    def add_menu(self, title: str, *, before: str = "Help") -> QMenu:
        """The menu called ``title`` (made, before ``before``, if new)."""
        if title in self.menus:
            return self.menus[title]
        menu = QMenu(title, self)
        anchor = self.menus.get(before)
        if anchor is not None:
            self.menuBar().insertMenu(anchor.menuAction(), menu)
        else:
            self.menuBar().addMenu(menu)
        self.menus[title] = menu
        return menu

    def add_action(self, menu: str, text: str, slot: Callable[[], object], *, shortcut: str | QKeySequence | None = None,
                   name: str | None = None, checkable: bool = False, tip: str = "") -> QAction:
        """An action in menu ``menu`` (made if new) calling ``slot``; kept in ``self.actions``."""
        act = QAction(text, self)
        if shortcut:
            act.setShortcut(QKeySequence(shortcut))
        act.setCheckable(checkable)
        if tip:
            act.setStatusTip(tip)
            act.setToolTip(tip)
        act.triggered.connect(lambda checked=False: slot(checked) if checkable else slot())
        self.add_menu(menu).addAction(act)
        self.actions[name or text.replace("&", "").replace("\u2026", "").strip().lower()] = act
        return act

    def add_tool(self, name: str, factory: Callable[[MapView], object], *, shortcut: str = "", tip: str = "") -> QAction:
        """A map tool with a toolbar button; ``factory(map_view)`` makes the tool."""
        act = QAction(name, self)
        act.setCheckable(True)
        if shortcut:
            act.setShortcut(QKeySequence(shortcut))
        act.setToolTip(f"{tip} ({shortcut})" if shortcut else tip)
        act.setStatusTip(tip)
        self._tool_group.addAction(act)
        self._tool_bar.addAction(act)
        self.add_menu("Tools").addAction(act)
        self.tools[name] = factory
        act.triggered.connect(lambda _=False, n=name: self.set_tool(n))
        self.actions[f"tool:{name}"] = act
        return act

    def set_tool(self, name: str):
        """Switch the map to the named tool; returns the tool."""
        tool = self.tools[name](self.map_view)
        self.map_view.set_tool(tool)
        self.actions[f"tool:{name}"].setChecked(True)
        self._show_tool_options(name)
        return tool

    #: Which options of the toolbar each tool shows (gui.main_window._build_toolbars).
    TOOL_OPTIONS = {"Token": "token", "Polygon": "obstacle", "Rectangle": "obstacle", "Wall": "wall"}

    def _show_tool_options(self, tool: str) -> None:
        shown = self.TOOL_OPTIONS.get(tool)
        for group, acts in getattr(self, "_tool_options", {}).items():
            for a in acts:
                a.setVisible(group == shown)

    # -- building --------------------------------------------------------------------------------
    def _build_menus(self) -> None:
        for title in ("&File", "&Edit", "&View", "&Map", "&Tools", "&Help"):
            m = self.menuBar().addMenu(title)
            self.menus[title.replace("&", "")] = m
        self.menus["Panels"] = self.menus["View"].addMenu("Panels")
        A = self.add_action
        A("File", "&New", self.new_file, shortcut=QKeySequence.StandardKey.New)
        A("File", "&Open\u2026", self.open_dialog, shortcut=QKeySequence.StandardKey.Open)
        self.recent_menu = self.menus["File"].addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.demo_menu = self.menus["File"].addMenu("Open &Demo")
        for i, path in enumerate(demo_paths()):
            act = self.demo_menu.addAction(demo_label(path))
            act.setStatusTip(f"Open {path.name} as a new, unsaved encounter (Save asks for a file name)")
            act.triggered.connect(lambda _=False, p=path: self.open_demo(p))
            self.actions["open demo" if i == 0 else f"open {path.stem.removeprefix('demo-')} demo"] = act
        self.menus["File"].addSeparator()
        A("File", "&Save", self.save, shortcut=QKeySequence.StandardKey.Save)
        A("File", "Save &As\u2026", self.save_as, shortcut=QKeySequence.StandardKey.SaveAs)
        self.menus["File"].addSeparator()
        A("File", "&Quit", self.close, shortcut=QKeySequence.StandardKey.Quit)

        undo = self.document.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.document.undo_stack.createRedoAction(self, "&Redo")
        keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
        for extra in ("Ctrl+Shift+Z", "Ctrl+Y"):
            if QKeySequence(extra) not in keys:
                keys.append(QKeySequence(extra))
        redo.setShortcuts(keys)
        self.menus["Edit"].addAction(undo)
        self.menus["Edit"].addAction(redo)
        self.actions["undo"], self.actions["redo"] = undo, redo
        self.menus["Edit"].addSeparator()
        A("Edit", "&Delete", self.delete_selection, shortcut=QKeySequence.StandardKey.Delete)
        A("Edit", "D&uplicate", self.duplicate_selection, shortcut="Ctrl+D")
        A("Edit", "Select &None", lambda: self.selection.clear(drop_attacker=True), shortcut="Ctrl+Shift+A",
          name="select none")
        A("Edit", "&Target token under the mouse", self.toggle_target_under_mouse, shortcut="T",
          name="target", tip="Target the token under the mouse, or stop targeting it (T, as in Foundry)")
        A("Edit", "Clear tar&gets", self.selection.clear_targets, name="clear targets",
          tip="Stop targeting every token")
        A("Edit", "&Lock attacker", lambda on: self.targets.lock.setChecked(on), shortcut="L",
          checkable=True, name="lock attacker")

        self.targets.lock.toggled.connect(self.actions["lock attacker"].setChecked)
        A("View", "&Map only", self.set_map_only, shortcut=MAP_ONLY_KEY, checkable=True, name="map only",
          tip=f"Hide every panel and toolbar, the map alone ({MAP_ONLY_KEY} again shows them)")
        A("View", "F&ull screen", self.set_full_screen, shortcut=QKeySequence.StandardKey.FullScreen,
          checkable=True, name="full screen", tip="The window over the whole screen")
        if self.actions["full screen"].shortcut().isEmpty():
            self.actions["full screen"].setShortcut(QKeySequence("F11"))
        from gui import theme_menu

        theme_menu.install(self)
        self.menus["View"].addSeparator()
        A("View", "&Fit map", self.map_view.fit_map, shortcut="F", name="fit")
        A("View", "Zoom &in", lambda: self.map_view.zoom_by(1 / 1.25), shortcut=QKeySequence.StandardKey.ZoomIn, name="zoom in")
        A("View", "Zoom &out", lambda: self.map_view.zoom_by(1.25), shortcut=QKeySequence.StandardKey.ZoomOut, name="zoom out")
        self.actions["zoom in"].setShortcuts([QKeySequence(QKeySequence.StandardKey.ZoomIn), QKeySequence("+"), QKeySequence("=")])
        self.actions["zoom out"].setShortcuts([QKeySequence(QKeySequence.StandardKey.ZoomOut), QKeySequence("-")])
        self.menus["View"].addSeparator()
        for field, text in (("show_grid", "Grid"), ("show_labels", "Names"), ("show_badges", "Target badges"),
                            ("show_zones", "Zones"), ("show_legend", "Legend"), ("show_scale_bar", "Scale bar")):
            act = A("View", text, lambda on, f=field: self._toggle_option(f, on), checkable=True, name=f"view:{field}")
            act.setChecked(getattr(self._view_options, field))

        A("Map", "&Background image\u2026", self.choose_background, name="background")
        A("Map", "&Scale background by two points\u2026", self.calibrate_background, name="calibrate")
        A("Map", "&Remove background", self.remove_background, name="remove background")
        self.menus["Map"].addSeparator()
        A("Map", "Snap to &grid", lambda on: setattr(self.map_view, "snapping", on), checkable=True,
          shortcut="Ctrl+G", name="snap")

        A("Help", "&About Coverfire", self._about, name="about")

    def _build_toolbars(self) -> None:
        self._tool_bar = QToolBar("Tools", self)
        self._tool_bar.setObjectName("toolbar_tools")
        self._tool_bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self._tool_bar)
        self._tool_group = QActionGroup(self)
        self._tool_group.setExclusive(True)
        from gui.ruler import RulerTool

        for cls in (SelectTool, RulerTool, TokenTool, PolygonTool, RectTool, WallTool):
            self.add_tool(cls.name, lambda v, c=cls: c(v), shortcut=cls.shortcut, tip=cls.tip)
        self._tool_bar.addSeparator()
        for kind in ("suppressive", "shotgun", "blast", "cone", "line"):
            proto = ZoneTool(self.map_view, kind)
            self.add_tool(proto.name, lambda v, k=kind: ZoneTool(v, k), shortcut=proto.shortcut, tip=proto.tip)
        self.actions["tool:Select"].setChecked(True)

        opts = QToolBar("Tool options", self)
        opts.setObjectName("toolbar_options")
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, opts)
        # only the options of the tool in use, short labels (their full sense in the tooltips):
        # all at once the options ran past the window's edge at 125 % (issue 30 item 8)
        self._tool_options: dict[str, list[QAction]] = {}

        def option(group: str, label: str, field, tip: str) -> None:
            text = QLabel(f"  {label} ")
            text.setToolTip(tip)
            field.setToolTip(tip)
            self._tool_options.setdefault(group, []).extend([opts.addWidget(text), opts.addWidget(field)])

        self.side_combo = QComboBox()
        self.side_combo.setEditable(True)
        self.side_combo.addItems(["runner", "ganger", "neutral", "security", "ally"])
        self.side_combo.setCurrentText(self.map_view.new_token_side)
        self.side_combo.currentTextChanged.connect(lambda s: setattr(self.map_view, "new_token_side", s.strip() or "neutral"))
        option("token", "New token side", self.side_combo, "The side of the tokens the Token tool places")
        self.height_spin = QDoubleSpinBox()
        self.height_spin.setRange(0.1, 100.0)
        self.height_spin.setSingleStep(0.1)
        self.height_spin.setValue(self.map_view.new_obstacle_height)
        self.height_spin.valueChanged.connect(lambda v: setattr(self.map_view, "new_obstacle_height", float(v)))
        option("obstacle", "Height (m)", self.height_spin, "Obstacle height (m) of what the Polygon and Rectangle tools draw")
        self.wall_height_spin = QDoubleSpinBox()
        self.wall_height_spin.setRange(0.1, 100.0)
        self.wall_height_spin.setSingleStep(0.1)
        self.wall_height_spin.setValue(self.map_view.new_wall_height)
        self.wall_height_spin.valueChanged.connect(lambda v: setattr(self.map_view, "new_wall_height", float(v)))
        option("wall", "Height (m)", self.wall_height_spin, "How tall the Wall tool's walls are: full height by default "
               "(taller than anyone standing: full cover)")
        self.wall_spin = QDoubleSpinBox()
        self.wall_spin.setRange(0.05, 5.0)
        self.wall_spin.setSingleStep(0.05)
        self.wall_spin.setValue(self.map_view.wall_thickness)
        self.wall_spin.valueChanged.connect(lambda v: setattr(self.map_view, "wall_thickness", float(v)))
        option("wall", "Thickness (m)", self.wall_spin, "How thick the Wall tool's walls are (metres)")
        self.snap_box = QCheckBox("Snap")
        self.snap_box.setToolTip("Snap to the grid (Ctrl+G)")
        self.snap_box.toggled.connect(lambda on: self.actions["snap"].setChecked(on) or setattr(self.map_view, "snapping", on))
        self.actions["snap"].toggled.connect(self.snap_box.setChecked)
        opts.addWidget(self.snap_box)
        self._show_tool_options("Select")

    def _build_status(self) -> None:
        self.cursor_label = QLabel()
        self.statusBar().addPermanentWidget(self.cursor_label)
        self.map_view.cursorMoved.connect(lambda x, y: self.cursor_label.setText(f"x {x:.1f} m   y {y:.1f} m"))

    def _toggle_option(self, field: str, on: bool) -> None:
        self._view_options = self._view_options.with_(**{field: on})
        self.map_view.set_options(self._view_options)

    # -- document events ------------------------------------------------------------------------
    def _on_document(self, change) -> None:
        if change.reset:
            self.selection.clear()
            self.selection.set_attacker(None)
            self.selection.clear_targets()
            self._update_title()
            # a rule system's panels may just have been shown: stay on the screen
            self.keep_on_screen()
            QTimer.singleShot(0, self._after_open)
        if self.document.tactics_error and not change.preview:
            self.statusBar().showMessage(f"The engine cannot analyse this: {self.document.tactics_error}", 8000)

    def _update_title(self) -> None:
        self.setWindowTitle(window_title(self.document.path, self.document.encounter.name))
        self.setWindowModified(self.document.dirty)

    # -- files ------------------------------------------------------------------------------------
    def _is_template(self, path: Path | None) -> bool:
        if path is None:
            return True
        try:  # every bundled encounter (the demos of each rule system) is read-only
            from assets import ENCOUNTERS

            return path.resolve().parent == ENCOUNTERS.resolve()
        except OSError:
            return False

    def new_file(self) -> None:
        if self.maybe_save():
            self.document.set_content(blank_encounter(), None)

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        start = str(self.document.path.parent) if self.document.path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Open encounter", start, FILE_FILTER)
        if path:
            self.open_file(path, ask=False)

    def open_file(self, path: str | Path, *, ask: bool = True) -> bool:
        """Open an encounter file. A bad file shows the engine's message and the current
        encounter stays as it was. Returns whether it opened."""
        if ask and not self.maybe_save():
            return False
        try:
            if not self.document.open(path, self):
                return False  # (the GM cancelled a big file's opening)
        except CoverfireError as exc:
            QMessageBox.warning(self, "Cannot open this encounter",
                                f"{exc}\n\nThe encounter you had open is unchanged.")
            return False
        self.autosaver.discard()
        if not self._is_template(Path(path)):
            self._add_recent(Path(path))
        self.map_view.fit_map()
        return True

    def open_demo(self, path: str | Path | None = None) -> bool:
        """Open a bundled demo as a new, untitled encounter: Save asks for a file name, so
        the bundled file is never written."""
        from engine.files import load_encounter

        path = Path(path) if path is not None else demo_file()
        if not self.maybe_save():
            return False
        try:
            enc = load_encounter(path)
        except CoverfireError as exc:
            QMessageBox.warning(self, "Cannot open the demo", f"{exc}\n\nThe encounter you had open is unchanged.")
            return False
        self.document.set_content(enc, None)
        self.autosaver.discard()
        self.map_view.fit_map()
        return True

    def save(self) -> bool:
        """Save to the current file (Save As for a new encounter or the bundled demo)."""
        if self._is_template(self.document.path):
            return self.save_as()
        return self._write(self.document.path)

    def save_as(self, path: str | Path | None = None) -> bool:
        """Save under another name. Without ``path`` the dialog proposes ``NAME.coverfire.json``
        (the type the desktop entry registers) and a plain ``.json`` typed there is offered
        the rename (gui/saving.py); a ``path`` given is written as it is."""
        if path is None:
            current = self.document.path if self.document.path and not self._is_template(self.document.path) else None
            start = saving.proposed_path(current, self.document.encounter.name, Path.home())
            typed, _ = QFileDialog.getSaveFileName(self, "Save encounter as", str(start), saving.SAVE_FILTER)
            if not typed:
                return False
            path = saving.typed_path(Path(typed))
            if not saving.is_encounter_name(path):
                renamed = saving.encounter_name_for(path)
                choice = saving.ask_rename(self, path, renamed)
                if choice == saving.CANCEL:
                    return False
                if choice == saving.RENAME:
                    path = renamed
        # (a background image path relative to the file is rewritten to reach the image from
        # the new folder: EncounterDocument.save)
        return self._write(Path(path))

    def _write(self, path: Path, rewritten: Encounter | None = None) -> bool:
        if not saving.write(self, path, rewritten):  # every failure shown (gui/saving.py)
            return False
        self._add_recent(path)
        self.statusBar().showMessage(f"Saved {path}", 4000)
        return True

    def maybe_save(self) -> bool:
        """Ask about unsaved changes: True to go on (saved or discarded), False to stop."""
        if not self.document.dirty:
            return True
        ans = QMessageBox.question(
            self, "Unsaved changes",
            f"Save the changes to {self.document.display_name()}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if ans == QMessageBox.StandardButton.Save:
            return self.save()
        return ans == QMessageBox.StandardButton.Discard

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        self.greyed.start()
        if not getattr(self, "_sized", False):
            self._sized = True
            if not self.restored_layout:
                self.apply_default_layout()
            self.keep_on_screen()
            self._check_frame()
            self.tidy_dock_tabs()
            self.map_view.setFocus()  # tool keys work from the start
            QTimer.singleShot(0, self.map_view.fit_map)

    def apply_default_layout(self) -> None:
        """The first-start arrangement: the panels one tabbed column on the right, a quarter
        of the window wide (300-420 px)."""
        shown = [d for d in self.docks.values() if d.isVisible() and not d.isFloating()]
        if shown:
            super().resizeDocks(shown[:1], [self.default_dock_width() + self.side_tabs_width()],
                                Qt.Orientation.Horizontal)

    def _in_front(self, dock: QDockWidget) -> bool:
        """Whether ``dock`` shows: not hidden, and the current tab of its tab group if any."""
        if dock.isHidden():
            return False
        title = dock.windowTitle()
        for bar in self.findChildren(QTabBar):
            if bar.parent() is self and any(bar.tabText(i) == title for i in range(bar.count())):
                return bar.tabText(bar.currentIndex()) == title
        return True

    def side_tabs_width(self) -> int:
        """The width (pixels) of the dock column's tab bar standing down its left edge (the
        column's width, as Qt sizes it, includes it: the panels keep their own width)."""
        west = (QTabBar.Shape.RoundedWest, QTabBar.Shape.TriangularWest)
        bars = [b for b in self.findChildren(QTabBar) if b.parent() is self and b.isVisible() and b.shape() in west]
        return max((b.sizeHint().width() for b in bars), default=0)

    def closeEvent(self, ev: QCloseEvent) -> None:
        if not self.maybe_save():
            ev.ignore()
            return
        self.save_layout()
        self.autosaver.discard()
        self.autosaver.timer.stop()
        self.greyed.stop()  # (an application event filter: a closed window filters nothing)
        ev.accept()

    def recent_files(self) -> list[str]:
        v = self.settings.value("recentFiles", [])
        if isinstance(v, str):
            v = [v]
        return [str(p) for p in (v or [])]

    def _add_recent(self, path: Path) -> None:
        p = str(Path(path).resolve())
        files = [f for f in self.recent_files() if f != p]
        files.insert(0, p)
        self.settings.setValue("recentFiles", files[:MAX_RECENT])

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        if not files:
            a = self.recent_menu.addAction("(none)")
            a.setEnabled(False)
            return
        for f in files:
            a = self.recent_menu.addAction(f)
            a.triggered.connect(lambda _=False, f=f: self.open_file(f))

    def offer_recovery(self, folder: Path | None = None) -> bool:
        """After a crash: offer the newest leftover autosave. Returns whether one was recovered.
        Damaged autosaves (and ones whose encounter no longer loads) are named in a message
        and kept aside as ``<name>.damaged``, so they are neither lost nor asked about again."""
        from datetime import datetime

        found, damaged = scan_autosaves(folder or self.autosaver.folder)
        if damaged:
            kept = [f"{f}  (kept as {set_aside(f)})" for f in damaged]
            QMessageBox.warning(self, "Damaged autosave",
                                "Coverfire cannot read these autosave files:\n" + "\n".join(kept)
                                + "\n\nNothing was deleted.")
        for rec in found:
            when = datetime.fromtimestamp(rec.saved).strftime("%Y-%m-%d %H:%M")
            where = rec.source or "a new encounter"
            ans = QMessageBox.question(
                self, "Recover unsaved work?",
                f"Coverfire closed without saving \u201c{rec.name}\u201d ({where}), autosaved {when}.\n\n"
                "Recover it? (No deletes the autosave.)",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.Yes,
            )
            if ans == QMessageBox.StandardButton.Yes:
                try:
                    got = rec.load(self)  # (a big autosave: read in the loader process, the window painting)
                except CoverfireError as exc:
                    QMessageBox.warning(self, "Cannot recover", f"{exc}\n\nThe autosave is kept as {set_aside(rec.file)}.")
                    continue
                if got is None:  # the GM cancelled: nothing changes, the autosave is offered again next time
                    self.statusBar().showMessage(f"Recovery cancelled; the autosave is kept ({rec.file})", 10000)
                    return False
                self.document.set_content(got.encounter, rec.source, dirty=True, obstacles=got.obstacles)
                if not self.autosaver.adopt(rec):  # (a big one: its text kept, under this session)
                    remove(rec)
                    self.autosaver.tick()
                return True
            remove(rec)
        return False

    # -- edit commands -----------------------------------------------------------------------------
    def toggle_target_under_mouse(self) -> bool | None:
        """T: target the token under the mouse, or stop targeting it. Returns whether it is
        targeted now (None with no token under the mouse)."""
        tid = self.map_view.hovered
        if tid is None:
            self.statusBar().showMessage("Point at a token and press T to target it", 5000)
            return None
        return self.toggle_target(tid)

    def toggle_target(self, token_id: str) -> bool:
        on = self.selection.toggle_target(token_id)
        name = edits.find(self.document.encounter, token_id).name or token_id
        n = len(self.selection.targets)
        self.statusBar().showMessage(f"{'Targeted' if on else 'No longer targeting'} {name} "
                                     f"({n} target{'s' if n != 1 else ''})", 5000)
        return on

    def delete_selection(self) -> None:
        enc = self.document.committed
        # only what the encounter holds: a zone being dragged out is selected while it is
        # still a preview (Delete pressed mid-drag)
        have = enc.all_ids()
        ids = [i for i in self.selection.ids if i in have]
        if not ids:
            return
        new = edits.delete(enc, ids)
        text = f"Delete {edits.find(enc, ids[0]).name or ids[0]}" if len(ids) == 1 else f"Delete {len(ids)} objects"
        self.document.commit(new, text)
        self.selection.clear()

    def duplicate_selection(self) -> None:
        ids = self.selection.ids
        if not ids:
            return
        try:
            new, new_ids = edits.duplicate(self.document.committed, ids)
        except CoverfireError as exc:
            self.statusBar().showMessage(str(exc), 6000)
            return
        self.document.commit(new, "Duplicate")
        self.selection.select(new_ids, new, keep_attacker=True)

    # -- background image ---------------------------------------------------------------------------
    def choose_background(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Background image", str(Path.home()), "Images (*.png *.jpg *.jpeg)")
        if path:
            self.set_background_image(path)

    def set_background_image(self, image_path: str | Path) -> bool:
        """Put an image under the map, as wide as the map (then use two-point scaling)."""
        from gui.picture_loader import load_now

        img, why = load_now(Path(image_path))  # (decoded off the GUI thread, within its bounds)
        if img is None:
            QMessageBox.warning(self, "Cannot use this image", f"{image_path} {why}")
            return False
        enc = self.document.committed
        ref = self.image_ref(image_path)
        w = enc.map.width
        bg = Background(image=ref, x=0.0, y=0.0, width=w, height=w * img.height() / img.width())
        new_map = enc.map.model_copy(update={"background": bg})
        self.document.commit(enc.model_copy(update={"map": new_map}), "Set background image")
        self.map_view.fit_map()
        self.statusBar().showMessage("Map > Scale background by two points sets its size", 8000)
        return True

    def image_ref(self, image_path: str | Path) -> str:
        """How the encounter names an image file: relative to the encounter file (so the two
        can move together; Save As rewrites it), absolute while the encounter has no file."""
        ref = str(Path(image_path).resolve())
        if self.document.path is not None and not self._is_template(self.document.path):
            try:
                ref = os.path.relpath(ref, self.document.path.parent.resolve())
            except ValueError:  # another drive
                pass
        return ref

    # -- drag and drop onto the window (the map view says where a file fell) ----------------------
    def dragEnterEvent(self, ev) -> None:  # noqa: N802 - Qt API
        if ev.mimeData().hasUrls():
            ev.acceptProposedAction()

    def dropEvent(self, ev) -> None:  # noqa: N802 - Qt API
        paths = [u.toLocalFile() for u in ev.mimeData().urls() if u.isLocalFile()]
        if paths:
            ev.acceptProposedAction()
            self.drops.drop(paths, None)

    def calibrate_background(self) -> None:
        if self.document.encounter.map.background is None:
            QMessageBox.information(self, "No background", "Choose a background image first (Map > Background image).")
            return
        self.map_view.set_tool(CalibrateTool(self.map_view, self._calibrated))
        self._tool_group.checkedAction() and self._tool_group.checkedAction().setChecked(False)
        self.statusBar().showMessage("Click two points on the image whose distance you know", 10000)

    def _calibrated(self, a, b) -> None:
        metres, ok = QInputDialog.getDouble(self, "Distance", "Distance between the two points (metres):", 10.0, 0.01, 100000.0, 2)
        self.set_tool("Select")
        if ok:
            self.apply_calibration(a, b, metres)

    def apply_calibration(self, a, b, metres: float) -> bool:
        enc = self.document.committed
        bg = enc.map.background
        try:
            new_bg = background_from_calibration(bg, a, b, metres)
        except CoverfireError as exc:
            QMessageBox.warning(self, "Cannot scale", str(exc))
            return False
        new_map = enc.map.model_copy(update={"background": new_bg})
        self.document.commit(enc.model_copy(update={"map": new_map}), "Scale background")
        self.map_view.fit_map()
        return True

    def remove_background(self) -> None:
        enc = self.document.committed
        if enc.map.background is None:
            return
        self.document.commit(enc.model_copy(update={"map": enc.map.model_copy(update={"background": None})}),
                             "Remove background")

    def _about(self) -> None:
        QMessageBox.about(self, "About Coverfire",
                          "Coverfire: a battle map for game masters who run gun fights.\n"
                          "Cover, zones, ranges and charges, worked out as you drag.")


def window_title(path: Path | None, encounter_name: str) -> str:
    """The window title: the file's name once (and the encounter's name when it says more),
    or the encounter's name for an unsaved one; ``[*]`` marks unsaved changes."""
    name = (encounter_name or "").strip()
    if path is None:
        return f"{name or 'Untitled encounter'} (not saved)[*] \u2014 {APP_NAME}"
    if name and name not in (path.name, path.stem):
        return f"{path.name}[*] \u2014 {name} \u2014 {APP_NAME}"
    return f"{path.name}[*] \u2014 {APP_NAME}"


def _scrolling(widget: QWidget) -> QWidget:
    """A panel as a dock's contents: scrolling inside when the dock is smaller than the panel
    wants (so no panel can push the window past the screen). A panel that scrolls already
    (a table, a list) is used as it is."""
    if isinstance(widget, QAbstractScrollArea):
        return widget
    area = QScrollArea()
    area.setObjectName(f"scroll_{widget.objectName() or type(widget).__name__}")
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setWidget(widget)
    return area
