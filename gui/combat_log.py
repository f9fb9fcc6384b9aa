"""The combat log shared by every rule system's GUI: one list per main window, one dock.

A rule system adds the lines an action wrote (:meth:`CombatLog.add`, one *batch* per
action) and marks a batch undone or live again when the GM undoes or redoes it
(:meth:`CombatLog.set_undone`); undone lines stay visible, struck through, and are left out
of the export. Opening another encounter clears the log (the new file's rule system may load
its saved lines again).

    from gui.combat_log import combat_log_for
    log = combat_log_for(window)          # made and docked once per window
    log.want("sr5", True)                 # show the dock while this owner needs it
    batch = log.add(["Sam fires ...", "  hit"], "sr5", round=1)
    log.set_undone(batch, True)
    log.export("fight.txt")               # plain text, one line each

No rule logic here: lines are text the engine wrote.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QMenu,
    QFileDialog,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gui import theme


@dataclass(frozen=True)
class LogLine:
    """One line: the ``text``, the rule system that wrote it (``ruleset``), when it was
    added (``timestamp``; None for lines loaded from a saved file), the ``batch`` (one
    action) it belongs to, the game ``round`` (None: not tracked), a ``kind`` the rule
    system gives (``"hit"``, ``"miss"``, ``"round"`` ...), and whether it was undone."""

    text: str
    ruleset: str
    timestamp: datetime | None
    batch: int
    round: int | None = None
    kind: str = ""
    undone: bool = False

    def export_text(self) -> str:
        """``[hh:mm:ss] ruleset R<n> | text`` (``--:--:--`` for saved lines)."""
        when = self.timestamp.strftime("%H:%M:%S") if self.timestamp else "--:--:--"
        rnd = f" R{self.round}" if self.round else ""
        return f"[{when}] {self.ruleset}{rnd} | {self.text}"


class CombatLog(QObject):
    """The lines of one window's fight. ``changed`` fires after every change."""

    changed = Signal()
    visibilityWanted = Signal(bool)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._lines: list[LogLine] = []
        self._next_batch = 1
        self._wanted: set[str] = set()

    # -- reading -----------------------------------------------------------------------------
    def lines(self, *, include_undone: bool = True) -> list[LogLine]:
        return [ln for ln in self._lines if include_undone or not ln.undone]

    def batch(self, batch: int) -> list[LogLine]:
        return [ln for ln in self._lines if ln.batch == batch]

    def text(self, *, include_undone: bool = False) -> str:
        """The log as plain text, one line each (undone lines left out unless asked)."""
        return "".join(ln.export_text() + "\n" for ln in self.lines(include_undone=include_undone))

    # -- writing -----------------------------------------------------------------------------
    def add(self, entries: Iterable[str | tuple[str, str]], ruleset: str, *, round: int | None = None,
            timestamp: datetime | None | bool = True) -> int:
        """Add one action's lines (texts, or (text, kind) pairs); returns the batch id.
        ``timestamp=True`` stamps them now; None marks them as loaded from a file."""
        stamp = datetime.now() if timestamp is True else (timestamp or None)
        batch = self._next_batch
        self._next_batch += 1
        for e in entries:
            text, kind = (e, "") if isinstance(e, str) else e
            self._lines.append(LogLine(text, ruleset, stamp, batch, round, kind))
        self.changed.emit()
        return batch

    def set_undone_many(self, marks) -> None:
        """Mark each (batch, undone) of ``marks`` at once: one ``changed`` for them all (an
        undo or an apply syncs every batch of a rule system; one signal each rewrote the
        list 16 times an SR5 Apply, a third of its time: issue 30 item 9)."""
        want = dict(marks)
        hit = False
        for i, ln in enumerate(self._lines):
            u = want.get(ln.batch)
            if u is not None and ln.undone != u:
                self._lines[i] = replace(ln, undone=u)
                hit = True
        if hit:
            self.changed.emit()

    def set_undone(self, batch: int, undone: bool = True) -> None:
        """Mark a batch undone (or live again after a redo)."""
        hit = False
        for i, ln in enumerate(self._lines):
            if ln.batch == batch and ln.undone != undone:
                self._lines[i] = replace(ln, undone=undone)
                hit = True
        if hit:
            self.changed.emit()

    def clear(self, ruleset: str | None = None) -> None:
        """Forget every line (or one rule system's)."""
        before = len(self._lines)
        self._lines = [ln for ln in self._lines if ruleset is not None and ln.ruleset != ruleset]
        if len(self._lines) != before:
            self.changed.emit()

    def export(self, path: str | Path, *, include_undone: bool = False) -> Path:
        """Write the log as UTF-8 text; raises ``OSError`` when the file cannot be written."""
        path = Path(path)
        path.write_text(self.text(include_undone=include_undone), encoding="utf-8")
        return path

    # -- who needs the dock ------------------------------------------------------------------
    def want(self, owner: str, on: bool) -> None:
        """Say whether ``owner`` (a rule system's GUI) needs the dock shown now; the dock is
        shown while anyone does."""
        was = bool(self._wanted)
        (self._wanted.add if on else self._wanted.discard)(owner)
        if bool(self._wanted) != was:
            self.visibilityWanted.emit(bool(self._wanted))

    @property
    def wanted(self) -> bool:
        return bool(self._wanted)


_KIND_COLOURS = {
    "round": "#80cbc4",
    "hit": "#ffcc80",
    "damage": "#ffab91",
    "severity": "#ef9a9a",
    "dead": "#ff5252",
    "miss": "#9aa4ae",
}


class CombatLogPanel(QWidget):
    """The dock's contents: the lines (newest at the bottom), show-undone, export, clear, and
    "Reveal roll to players" (a button, and the lines' context menu): ``revealRequested``
    carries the chosen lines' texts (the selected ones; none selected: the newest action's)."""

    revealRequested = Signal(list)

    def __init__(self, log: CombatLog, parent: QWidget | None = None):
        super().__init__(parent)
        self.log = log
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setUniformItemSizes(False)
        self.list.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.list.setFont(mono)
        self.show_undone = QCheckBox("Show undone")
        self.show_undone.setChecked(True)
        self.show_undone.setToolTip("Undone actions stay in the log, struck through; they are never exported")
        self.show_undone.toggled.connect(self.refresh)
        self.export_button = QPushButton("Export\u2026")
        self.export_button.setToolTip("Save the log (without undone actions) as a text file")
        self.export_button.clicked.connect(self.export_dialog)
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip("Empty the log on screen (saved rule-system logs in the file are kept)")
        self.clear_button.clicked.connect(lambda: self.log.clear())
        self.reveal_action = QAction("Reveal roll to players", self)
        self.reveal_action.setToolTip("Show the selected lines (else the last action's) in the players' window for a few seconds")
        self.reveal_action.triggered.connect(self.reveal)
        self.reveal_button = QPushButton("Reveal")
        self.reveal_button.setToolTip(self.reveal_action.toolTip())
        self.reveal_button.clicked.connect(self.reveal)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._context_menu)
        # the check box above the buttons: in one row Clear was cut at 1366 (issue 30 item 8)
        bar = QHBoxLayout()
        bar.addWidget(self.reveal_button)
        bar.addWidget(self.export_button)
        bar.addWidget(self.clear_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.list, 1)
        lay.addWidget(self.show_undone)
        lay.addLayout(bar)
        log.changed.connect(self._log_changed)
        self._stale = False
        self.refresh()

    def _log_changed(self) -> None:
        """The log changed: the list is written out now, or, behind another tab of a shown
        window, when it comes to the front (issue 30 item 9)."""
        top = self.window()
        if top is not self and top.isVisible() and not self.isVisible():
            self._stale = True
            return
        self.refresh()

    def showEvent(self, ev) -> None:  # noqa: N802 - Qt API
        super().showEvent(ev)
        if self._stale:
            self.refresh()

    def refresh(self) -> None:
        self._stale = False
        self.list.clear()
        for ln in self.log.lines(include_undone=self.show_undone.isChecked()):
            when = ln.timestamp.strftime("%H:%M:%S") if ln.timestamp else "saved"
            item = QListWidgetItem(f"{when}  {ln.text}")
            item.setToolTip(f"{ln.ruleset}" + (f", round {ln.round}" if ln.round else "")
                            + (" \u2014 undone" if ln.undone else ""))
            f = item.font()
            if ln.undone:
                f.setStrikeOut(True)
                item.setForeground(theme.colour("dim"))
            else:
                colour = _KIND_COLOURS.get(ln.kind)
                if colour:
                    item.setForeground(QColor(colour))
                if ln.kind in ("round", "dead"):
                    f.setBold(True)
            item.setFont(f)
            item.setData(Qt.ItemDataRole.UserRole, ln.batch)
            self.list.addItem(item)
        self.list.scrollToBottom()

    def reveal_lines(self) -> list[str]:
        """The texts "Reveal" shows: the selected lines, in log order; none selected, the
        lines of the newest action that is not undone."""
        rows = sorted(self.list.row(i) for i in self.list.selectedItems())
        shown = self.log.lines(include_undone=self.show_undone.isChecked())
        if rows:
            return [shown[r].text for r in rows if 0 <= r < len(shown) and not shown[r].undone]
        live = self.log.lines(include_undone=False)
        if not live:
            return []
        return [ln.text for ln in self.log.batch(live[-1].batch) if not ln.undone]

    def reveal(self) -> list[str]:
        lines = self.reveal_lines()
        if lines:
            self.revealRequested.emit(lines)
        return lines

    def _context_menu(self, pos) -> None:
        item = self.list.itemAt(pos)
        if item is not None and not item.isSelected():
            self.list.setCurrentItem(item)
        menu = QMenu(self)
        menu.addAction(self.reveal_action)
        menu.popup(self.list.viewport().mapToGlobal(pos))

    def export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export combat log", str(Path.home() / "combat-log.txt"),
                                              "Text files (*.txt);;All files (*)")
        if not path:
            return
        try:
            self.log.export(path)
        except OSError as exc:
            QMessageBox.warning(self, "Cannot export the log", f"{path}: {exc.strerror or exc}")


def combat_log_for(window) -> CombatLog:
    """The window's combat log, made (with its dock "Combat log", a tab beside the Inspector, hidden until
    an owner :meth:`CombatLog.want`\\ s it) on first use. Opening another file clears it."""
    log = getattr(window, "combat_log", None)
    if log is not None:
        return log
    log = CombatLog(window)
    panel = CombatLogPanel(log)
    # A tab beside the Inspector, not a strip under the map: at 1920x1080 with a rule system's
    # panel on the left, a bottom log left the map a third of the screen's height.
    dock = window.add_dock(panel, "Combat log", Qt.DockWidgetArea.RightDockWidgetArea, "combat_log",
                           tabify_with="inspector")
    dock.setVisible(False)
    log.visibilityWanted.connect(dock.setVisible)
    window.combat_log = log
    window.combat_log_panel = panel

    def reveal(lines) -> None:  # (the player view asked for when it is used, however the window was built)
        players = getattr(window, "player_view", None)
        if players is not None:
            players.reveal_roll(lines)

    panel.revealRequested.connect(reveal)

    def _on_document(change) -> None:
        if change.reset:
            log.clear()

    window.document.changed.connect(_on_document)
    return log


__all__ = ["CombatLog", "CombatLogPanel", "LogLine", "combat_log_for"]
