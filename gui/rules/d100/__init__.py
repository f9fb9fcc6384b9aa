"""The d100 rules in the map window: a body diagram dock, a round tracker dock, the action
dialog (aim, fire, melee, recover ...), status marks on the map's tokens, and the shared
combat log (:mod:`gui.combat_log`). Shown only while the open encounter's ruleset is
``"d100"``.

Importing this module registers :class:`D100Gui` (:func:`gui.rules.base.register_rule_gui`);
while a d100 encounter is open ``window.d100`` (and ``window.rule_gui``) is the window's
:class:`D100Gui`.
"""

from __future__ import annotations

from gui.combat_log import combat_log_for
from gui.rules.base import RuleGui, register_rule_gui
from gui.rules.d100.body import BodyPanel
from gui.rules.d100.controller import RULESET_NAME, D100Controller, action_title
from gui.rules.d100.marks import DecorationCache
from gui.rules.d100.rounds import RoundTracker


def demo_path():
    """The bundled d100 demo (the street map with d100 characters)."""
    from assets import ENCOUNTERS

    return ENCOUNTERS / "demo-d100.json"


class D100Gui(RuleGui):
    """Everything the d100 rules add to one main window (installed only while the open
    encounter's ruleset is d100, :class:`gui.rules.base.RuleGuiHost`)."""

    ruleset = RULESET_NAME
    window_attribute = "d100"

    def __init__(self, window):
        super().__init__(window)
        self.log = combat_log_for(window)
        self.controller = D100Controller(window, self.log)
        self.body = BodyPanel(self.controller)
        self.rounds = RoundTracker(self.controller)
        self.rounds.actRequested.connect(self.open_dialog)
        self.body_dock = self.add_dock(self.body, "Body (d100)", "d100_body")
        self.rounds_dock = self.add_dock(self.rounds, "Round (d100)", "d100_round")
        self.rounds_dock.raise_()  # the tab in front while a d100 encounter is open
        self.marks = DecorationCache()
        self._shown_marks: dict = {}
        self.dialog = None
        self.menu = self.add_menu("d100")
        self.add_action("d100", "&Action\u2026", self.open_dialog, shortcut="A", name="d100 action",
                          tip="Aim, fire, melee, recover ... for the selected token (d100 rules)")
        self.add_action("d100", "&Start next round", self.rounds.start_round, name="d100 start round",
                          tip="End unfinished turns (bleeding) and give everyone their actions by speed")
        self.add_action("d100", "&End current turn", self.rounds.end_turn, name="d100 end turn",
                          tip="End the current character's turn (bleeding is rolled)")
        self.menu.addSeparator()
        self.settings_dialog = None
        self.add_action("d100", "Rules &settings\u2026", self.open_settings, name="d100 settings",
                          tip="The numbers the d100 rules leave open, for this encounter (one undo step)")
        self.add_action("d100", "Export combat &log\u2026", lambda: window.combat_log_panel.export_dialog(),
                          name="d100 export log")
        # (File > Open Demo lists the d100 demo with the others: MainWindow.open_demo)
        self.controller.activeChanged.connect(self._set_active)
        self.controller.stateChanged.connect(self._update_marks)
        self._set_active(self.controller.active)

    def run_option(self, token_id: str, option):
        """The right-click menu's choice: an action with everything chosen is applied (one
        undo step, logged); the others open the action page for the token on that action."""
        if not option.allowed:
            return None
        if option.action is not None:
            try:
                return self.controller.apply(option.action)
            except ValueError as exc:
                self.window.statusBar().showMessage(str(exc), 8000)
                return None
        page = self.open_dialog(token_id)
        keys = {"fire": "single", "fire_two": "two", "change_stance": "stance"}
        key = keys.get(option.key, option.key)
        if page is not None and page.action.findData(key) >= 0:
            page.set_action(key)
        return page

    # -- showing ------------------------------------------------------------------------------------
    def _set_active(self, on: bool) -> None:
        if not on and self.dialog is not None:
            self.dialog.close()
        if not on and self.settings_dialog is not None:
            self.settings_dialog.reject()
        self._update_marks()

    def _update_marks(self) -> None:
        """Injury bars and status tags on the token layer (this GUI alone owns them)."""
        if self.installed and self.controller.active:
            self._shown_marks = self.marks.decorations(self.window.document.encounter)
            self.set_decorations(self._shown_marks)

    def uninstall(self) -> None:
        if self.settings_dialog is not None:
            self.settings_dialog.reject()
            self.settings_dialog.deleteLater()
            self.settings_dialog = None
        self.marks.clear()
        super().uninstall()

    # -- acting --------------------------------------------------------------------------------------
    def open_dialog(self, shooter: str | None = None):
        """Show the action dialog (for ``shooter``, default the attacker); returns it."""
        if not self.controller.active:
            return None
        if self.dialog is None:
            from gui.action_panel import action_panel
            from gui.rules.d100.attack import AttackPage

            self.dialog = self.add_page(AttackPage(action_panel(self.window), self.controller))
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


register_rule_gui(D100Gui)

__all__ = ["D100Gui", "D100Controller", "RULESET_NAME", "action_title", "demo_path"]
