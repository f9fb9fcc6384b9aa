"""The Shadowrun 5e rules in the map window: the initiative tracker dock, the attack dialog
(declare, every modifier with its source, edit, roll or type dice step by step, apply),
suppressive fire from a map zone and its tests, grenades thrown at a blast zone (scatter,
who is caught, falloff), condition monitors and status marks on the
tokens, and the shared combat log (:mod:`gui.combat_log`), exportable with the dice of every
roll. Shown only while the open encounter's ruleset is ``"sr5"``.

Importing this module registers :class:`Sr5Gui` (:func:`gui.rules.base.register_rule_gui`);
while an sr5 encounter is open ``window.sr5`` (and ``window.rule_gui``) is the window's
:class:`Sr5Gui`.

No rule logic here: every answer comes from :mod:`engine.sr5`.
"""

from __future__ import annotations

from pathlib import Path

from engine.sr5.changes import settings_of
from engine.sr5.intercept import InterceptChance
from gui.combat_log import combat_log_for
from gui.rules.base import RuleGui, register_rule_gui
from gui.rules.sr5.controller import RULESET_NAME, Sr5Controller
from gui.rules.sr5.marks import decorations_for
from gui.rules.sr5.tracker import InitiativeTracker
from gui import theme

MOVE_SUFFIX = " (SR5: movement counted)"
MIN_WIDTH = 280  # room for the reasons an action is refused (wrapped), on a laptop
ACTIONS = ("sr5 attack", "sr5 suppressive", "sr5 blast", "sr5 suppression tests", "sr5 initiative", "sr5 end phase",
           "sr5 export log")


class Sr5Gui(RuleGui):
    """Everything the sr5 rules add to one main window (installed only while the open
    encounter's ruleset is sr5, :class:`gui.rules.base.RuleGuiHost`)."""

    ruleset = RULESET_NAME
    window_attribute = "sr5"

    def __init__(self, window):
        super().__init__(window)
        self.log = combat_log_for(window)
        self.controller = Sr5Controller(window, self.log)
        self.tracker = InitiativeTracker(self.controller)
        self.tracker.setMinimumWidth(MIN_WIDTH)
        self.tracker.attackRequested.connect(self.open_attack)
        self.tracker.suppressiveRequested.connect(self.open_suppressive)
        self.tracker.testRequested.connect(self.open_test)
        self.tracker.testsRequested.connect(self.open_next_test)
        self.dock = self.add_dock(self.tracker, "Initiative (SR5)", "sr5_initiative")
        self.dock.raise_()  # the tab in front while an sr5 encounter is open
        from gui.action_panel import action_panel

        self.panel = action_panel(window)  # the attack, grenade and suppressive fire run there
        self._shown_marks: dict = {}
        self.attack_dialog = None
        self.suppressive_dialog = None
        self.blast_dialog = None
        self.test_dialog = None
        self.intercept_page = None
        self.menu = self.add_menu("SR5")
        A = self.add_action
        A("SR5", "&Attack\u2026", self.open_attack, shortcut="A", name="sr5 attack",
          tip="Attack with the selected token; shift-click the targets on the map (SR5 rules)")
        A("SR5", "&Suppressive fire\u2026", self.open_suppressive, name="sr5 suppressive",
          tip="Fill a suppressive zone on the map with fire (SR5 rules)")
        A("SR5", "Throw/Fire &grenade\u2026", self.open_blast, name="sr5 blast",
          tip="Throw a grenade (or fire a launcher) at the selected blast zone: scatter, who is caught (SR5 rules)")
        A("SR5", "Suppressive fire &tests\u2026", self.open_next_test, name="sr5 suppression tests",
          tip="Roll the tests of the tokens caught in active suppressive fire (SR5 rules)")
        self.menu.addSeparator()
        A("SR5", "&Roll initiative\u2026", self.tracker.open_initiative, name="sr5 initiative",
          tip="Start the next Combat Turn: roll or enter initiative")
        A("SR5", "&End phase", self.tracker.end_phase, shortcut="N", name="sr5 end phase",
          tip="End the acting character's Action Phase")
        self.menu.addSeparator()
        A("SR5", "Export combat &log with dice\u2026", self.export_dialog, name="sr5 export log",
          tip="Save the SR5 combat log as text, every roll's pool and dice below its line")
        # (count_moves, from RuleGui: a drag during a Combat Turn lands with its metres counted,
        # RuleSystem.on_moves, in the drag's own undo step)
        self.controller.activeChanged.connect(self._set_active)
        self.controller.stateChanged.connect(self._update_marks)
        self.controller.stateChanged.connect(self._show_move_notes)  # (after the tracker's refresh)
        self._set_active(self.controller.active)

    def run_option(self, token_id: str, option):
        """The right-click menu's choice: Attack opens the attack page for the token (against
        the targets picked on the map); another action is taken through the controller."""
        if not option.allowed:
            return None
        if option.key == "attack":
            self.window.selection.set_attacker(token_id)
            return self.open_attack(token_id)
        if option.action is not None:
            try:
                return self.controller.act(option.action)
            except ValueError as exc:
                self.window.statusBar().showMessage(str(exc), 8000)
        return None

    # -- showing ------------------------------------------------------------------------------------
    def _set_active(self, on: bool) -> None:
        if on:
            self.tracker.refresh()
        else:
            for page in (self.attack_dialog, self.suppressive_dialog, self.blast_dialog, self.test_dialog,
                         self.intercept_page):
                if page is not None:
                    page.close()
        self._update_marks()

    # -- movement ------------------------------------------------------------------------------------
    def move_text(self, text: str, outcome) -> str:
        return f"{text}{MOVE_SUFFIX}"

    def moves_charged(self, before, outcome) -> None:
        """A drag counted (``engine.sr5`` ``on_moves``: Run, running, suppressive fire): its
        log lines into the shared log, the engine's notes in the tracker."""
        self.controller.record_log(len(settings_of(before).log), outcome.encounter)
        self._move_notes = "\n".join(outcome.notes)  # shown once the tracker has followed the change
        chances = [d for d in outcome.detail if isinstance(d, InterceptChance)]
        if chances:
            self.offer_intercept(outcome.encounter, chances)

    def offer_intercept(self, encounter, chances):
        """Put the engine's Intercept offers for the move that just landed to the GM in the
        Action panel (take the move back and intercept, or let it pass); returns the page."""
        if self.intercept_page is None:
            from gui.rules.sr5.intercept import InterceptPage

            self.intercept_page = self.add_page(InterceptPage(self.panel, self))
        self.intercept_page.offer(encounter, chances)
        return self.intercept_page

    def _show_move_notes(self) -> None:
        """The drag's notes in the tracker, after its refresh of that change (which clears
        the message)."""
        notes, self._move_notes = getattr(self, "_move_notes", ""), ""
        if notes:
            self.tracker.message.setStyleSheet(f"color: {theme.ink('warn')}" if "anyway" in notes else "")
            self.tracker.message.setText(notes)

    def _update_marks(self) -> None:
        """Monitor bars and status tags on the token layer (this GUI alone owns them)."""
        if not self.installed or not self.controller.active:
            return
        supp = None
        if self.controller.settings.suppressions:
            try:
                supp = self.controller.suppression_status()
            except ValueError:
                supp = None
        self._shown_marks = decorations_for(self.controller.encounter, supp)
        self.set_decorations(self._shown_marks)

    # -- dialogs --------------------------------------------------------------------------------------
    def _page(self, attr: str, module: str, cls: str):
        """The Action-panel page kept as ``attr`` (``gui.rules.sr5.<module>.<cls>``, made on
        first use); None outside an sr5 encounter."""
        if not self.controller.active:
            return None
        if getattr(self, attr) is None:
            import importlib

            page = getattr(importlib.import_module(f"gui.rules.sr5.{module}"), cls)(self.panel, self.controller)
            setattr(self, attr, self.add_page(page))
            if attr == "attack_dialog":
                page.blastRequested.connect(lambda a, w: self.open_blast(a, None, w))
        return getattr(self, attr)

    def open_attack(self, attacker: str | None = None, targets: list[str] | None = None, intercept: bool = False):
        """Show the attack dialog (for ``attacker``, default the map's attacker, against
        ``targets``, default the tokens shift-clicked on the map); returns it."""
        page = self._page("attack_dialog", "attack", "AttackPage")
        if page is not None:
            page.open_for(attacker if isinstance(attacker, str) else None, targets, intercept=intercept)
        return page

    def open_suppressive(self, shooter: str | None = None, zone: str | None = None):
        page = self._page("suppressive_dialog", "suppressive", "SuppressivePage")
        if page is not None:
            page.open_for(shooter if isinstance(shooter, str) else None, zone)
        return page

    def open_blast(self, attacker: str | None = None, zone: str | None = None, weapon: str | None = None):
        """Show the grenade dialog for ``attacker`` (default: the map's attacker) aiming at
        blast zone ``zone`` (default: the selected blast zone) with ``weapon``; returns it."""
        page = self._page("blast_dialog", "blast", "BlastPage")
        if page is not None:
            page.open_for(attacker if isinstance(attacker, str) else None, zone, weapon)
        return page

    def open_next_test(self):
        """The suppressive-fire test page on the first test to roll now (it lists the others)."""
        page = self._page("test_dialog", "suppressive", "SuppressionTestPage")
        if page is not None:
            page.open_next()
        return page

    def open_test(self, token: str, zone: str, index: int = 0):
        page = self._page("test_dialog", "suppressive", "SuppressionTestPage")
        if page is not None:
            page.open_for(token, zone, index)
        return page

    # -- export ---------------------------------------------------------------------------------------
    def export_log(self, path: str | Path) -> Path:
        """Write the encounter's sr5 combat log (``combat.log_text``) as UTF-8 text; raises
        ``OSError`` when it cannot be written."""
        path = Path(path)
        path.write_text(self.controller.log_text(), encoding="utf-8")
        return path

    def export_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        path, _ = QFileDialog.getSaveFileName(self.window, "Export SR5 combat log", str(Path.home() / "sr5-combat-log.txt"),
                                              "Text files (*.txt);;All files (*)")
        if not path:
            return
        try:
            self.export_log(path)
        except OSError as exc:
            QMessageBox.warning(self.window, "Cannot export the log", f"{path}: {exc.strerror or exc}")


register_rule_gui(Sr5Gui)

__all__ = ["RULESET_NAME", "Sr5Controller", "Sr5Gui"]
