"""The d100 rules in the map window: a body diagram dock, a round tracker dock, the action
dialog (aim, fire, melee, recover ...), status marks on the map's tokens, and the shared
combat log (:mod:`gui.combat_log`). Shown only while the open encounter's ruleset is
``"d100"``.

Importing this module registers :func:`install` with :func:`gui.main_window.register_extension`;
``window.d100`` is then the window's :class:`D100Gui`.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer

from gui.combat_log import combat_log_for
from gui.rules.base import take_down_decorations
from gui.rules.d100.body import BodyPanel
from gui.rules.d100.controller import RULESET_NAME, D100Controller, action_title
from gui.rules.d100.marks import DecorationCache
from gui.rules.d100.rounds import RoundTracker


def demo_path():
    """The bundled d100 demo (the street map with d100 characters)."""
    from assets import ENCOUNTERS

    return ENCOUNTERS / "demo-d100.json"


class D100Gui(QObject):
    """Everything the d100 rules add to one main window."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.log = combat_log_for(window)
        self.controller = D100Controller(window, self.log)
        self.body = BodyPanel(self.controller)
        self.rounds = RoundTracker(self.controller)
        self.rounds.actRequested.connect(self.open_dialog)
        self.body_dock = window.add_dock(self.body, "Body (d100)", Qt.DockWidgetArea.LeftDockWidgetArea, "d100_body")
        self.rounds_dock = window.add_dock(self.rounds, "Round (d100)", Qt.DockWidgetArea.LeftDockWidgetArea, "d100_round")
        window.splitDockWidget(self.rounds_dock, self.body_dock, Qt.Orientation.Vertical)
        self.marks = DecorationCache()
        self._shown_marks: dict = {}
        self.dialog = None
        self.menu = window.add_menu("d100")
        window.add_action("d100", "&Action\u2026", self.open_dialog, shortcut="A", name="d100 action",
                          tip="Aim, fire, melee, recover ... for the selected token (d100 rules)")
        window.add_action("d100", "&Start next round", self.rounds.start_round, name="d100 start round",
                          tip="End unfinished turns (bleeding) and give everyone their actions by speed")
        window.add_action("d100", "&End current turn", self.rounds.end_turn, name="d100 end turn",
                          tip="End the current character's turn (bleeding is rolled)")
        self.menu.addSeparator()
        self.settings_dialog = None
        window.add_action("d100", "Rules &settings\u2026", self.open_settings, name="d100 settings",
                          tip="The numbers the d100 rules leave open, for this encounter (one undo step)")
        window.add_action("d100", "Export combat &log\u2026", lambda: window.combat_log_panel.export_dialog(),
                          name="d100 export log")
        # (File > Open Demo lists the d100 demo with the others: MainWindow.open_demo)
        self.controller.activeChanged.connect(self._set_active)
        self.controller.stateChanged.connect(self._update_marks)
        # once every extension is installed, follow the document last of all, so a rule
        # system that clears the token layer's decorations on a change cannot wipe ours
        QTimer.singleShot(0, lambda: window.document.changed.connect(self._after_document))
        self._sized = False
        window.installEventFilter(self)
        self._set_active(self.controller.active)

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 - Qt API
        if obj is self.window and ev.type() == QEvent.Type.Show and not self._sized:
            self._sized = True
            QTimer.singleShot(0, self.size_docks)
        return False

    def size_docks(self) -> None:
        """Give the left column room for the figure and its table; the round tracker
        enough rows for a street fight, the body the rest."""
        if self.window.settings.value("window/geometry") is not None:
            return  # the GM's own layout is restored
        w = self.window
        w.resizeDocks([self.rounds_dock], [470], Qt.Orientation.Horizontal)
        w.resizeDocks([self.rounds_dock, self.body_dock], [370, 530], Qt.Orientation.Vertical)
        if "combat_log" in w.docks:
            w.resizeDocks([w.docks["combat_log"]], [150], Qt.Orientation.Vertical)

    # -- showing ------------------------------------------------------------------------------------
    def _set_active(self, on: bool) -> None:
        self.menu.menuAction().setVisible(on)
        for name in ("d100 action", "d100 start round", "d100 end turn", "d100 settings", "d100 export log"):
            self.window.actions[name].setEnabled(on)
        self.body_dock.setVisible(on)
        self.rounds_dock.setVisible(on)
        self.body_dock.toggleViewAction().setVisible(on)
        self.rounds_dock.toggleViewAction().setVisible(on)
        if not on and self.dialog is not None:
            self.dialog.close()
        if not on and self.settings_dialog is not None:
            self.settings_dialog.reject()
        self._update_marks()

    def _after_document(self, change) -> None:
        if not change.preview and self.controller.active:
            self._update_marks()

    def _update_marks(self) -> None:
        """Injury bars and status tags on the token layer while d100 is active; when it is
        not, take down only what this rule system put there."""
        layer = self.window.map_view.tokens
        if self.controller.active:
            self._shown_marks = self.marks.decorations(self.window.document.encounter)
            layer.set_decorations(self._shown_marks)
        else:
            self.marks.clear()
            take_down_decorations(layer, self._shown_marks)
            self._shown_marks = {}

    # -- acting --------------------------------------------------------------------------------------
    def open_dialog(self, shooter: str | None = None):
        """Show the action dialog (for ``shooter``, default the attacker); returns it."""
        if not self.controller.active:
            return None
        if self.dialog is None:
            from gui.action_panel import action_panel
            from gui.rules.d100.attack import AttackPage

            self.dialog = AttackPage(action_panel(self.window), self.controller)
        self.dialog.open_for(shooter if isinstance(shooter, str) else None)
        return self.dialog

    def open_settings(self):
        """Show d100 > Rules settings… (:mod:`gui.rules.d100.settings`) filled from the
        encounter; returns the dialog."""
        if not self.controller.active:
            return None
        if self.settings_dialog is None:
            from gui.rules.d100.settings import SettingsDialog

            self.settings_dialog = SettingsDialog(self.window, self.controller)
        self.settings_dialog.load()
        self.settings_dialog.open()
        return self.settings_dialog

    def open_demo(self) -> bool:
        """Open the d100 demo as a new encounter (Save asks where, so the bundled file stays)."""
        from engine.errors import CoverfireError
        from engine.files import load_encounter
        from PySide6.QtWidgets import QMessageBox

        if not self.window.maybe_save():
            return False
        try:
            enc = load_encounter(demo_path())
        except CoverfireError as exc:
            QMessageBox.warning(self.window, "Cannot open the d100 demo", str(exc))
            return False
        self.window.document.set_content(enc, None)
        self.window.map_view.fit_map()
        return True


def install(window) -> D100Gui:
    """Add the d100 docks, menu and map marks to ``window`` (``window.d100``)."""
    gui = D100Gui(window)
    window.d100 = gui
    return gui


def _register() -> None:
    from gui.main_window import register_extension

    register_extension(install)


_register()

__all__ = ["D100Gui", "D100Controller", "RULESET_NAME", "action_title", "demo_path", "install"]
