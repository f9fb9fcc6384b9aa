"""The fight recorder on every main window (issue 31): each landed edit goes through
:func:`engine.record.extend` last of the document's hooks (so an applied rule action or a
move in a round becomes a step of the encounter's record in the same undo step), with the
window's attacker as the actor and the GM's picked targets; and the menu entries
View > Replay the Fight... (gui/replay.py) and File > Export Fight Report... (gui/fight_report.py).

A file whose record was left out when it was opened (it does not belong with it: see
engine/record.py) says so in the status bar.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine import record
from engine.errors import CoverfireError
from gui.rules.base import picked_targets

#: A record this long has its last state worked out ahead after an open (in a thread).
PREPARE_FROM = 200


def record_hook(window):
    """The document's ``record_hook`` for ``window``."""

    def hook(before, after, text):
        actor = window.selection.attacker
        if actor is not None and not any(t.id == actor for t in after.tokens):
            actor = None
        targets = picked_targets(window.selection, after, actor)
        return record.extend(before, after, label=text, actor=actor, targets=targets)

    return hook


def prepare_after_open(window):
    """After a file with a long record is opened, its last state is worked out in a worker
    thread (:func:`engine.record.prepare`), so the first action is not held up by it."""

    def on_change(change) -> None:
        enc = window.document.committed
        if change.reset and enc.record is not None and len(enc.record.steps) >= PREPARE_FROM:
            threading.Thread(target=record.prepare, args=(enc,), name="coverfire-record-prepare",
                             daemon=True).start()

    window.document.changed.connect(on_change)


def open_replay(window):
    """Open the replay of the window's recorded fight (a window of its own over the map)."""
    enc = window.document.committed
    if enc.record is None or not enc.record.stops:
        QMessageBox.information(window, "No recorded fight",
                                "This encounter has no recorded fight yet: rule actions and moves in a round "
                                "are recorded as you apply them, and saved with the encounter.")
        return None
    from gui.replay import ReplayWindow

    replay = ReplayWindow(enc, window.document.path, window)
    replay.setGeometry(window.geometry())
    replay.show()
    replay.raise_()
    window.replay = replay
    return replay


def export_report_dialog(window) -> None:
    enc = window.document.committed
    if enc.record is None or not enc.record.stops:
        QMessageBox.information(window, "No recorded fight",
                                "This encounter has no recorded fight to report on yet.")
        return
    folder = window.document.path.parent if window.document.path else Path.home()
    stem = (window.document.path.name.split(".")[0] if window.document.path else "fight") + "-report.pdf"
    path, chosen = QFileDialog.getSaveFileName(window, "Export fight report", str(folder / stem),
                                               "PDF (*.pdf);;HTML page (*.html);;Players' PDF (*.pdf)")
    if not path:
        return
    from gui.fight_report import write_report

    try:
        write_report(enc, path, players=chosen.startswith("Players"))
    except CoverfireError as exc:
        QMessageBox.warning(window, "Cannot export the report", str(exc))
        return
    window.statusBar().showMessage(f"Wrote the fight report {path}", 8000)


def install(window) -> None:
    window.document.record_hook = record_hook(window)
    prepare_after_open(window)
    window.add_action("View", "&Replay the Fight\u2026", lambda: open_replay(window), name="replay fight",
                      tip="Step through the recorded fight: the map as it was at each action")
    window.add_action("File", "Export Fight &Report\u2026", lambda: export_report_dialog(window),
                      name="export fight report",
                      tip="An after-action report of the recorded fight: one page per round, PDF or HTML")

    from assets import recorded_fight_path

    window.demo_menu.addSeparator()
    demo = window.demo_menu.addAction("Recorded fight (replay, report)")
    demo.setStatusTip("The street demo with three recorded Combat Turns: View > Replay the Fight, "
                      "File > Export Fight Report")
    demo.triggered.connect(lambda _=False: window.open_demo(recorded_fight_path()))
    window.actions["open recorded fight demo"] = demo

    def said(_path=None) -> None:
        notes, window.document.open_notes = window.document.open_notes, []
        if notes:
            window.statusBar().showMessage(" ".join(notes), 20000)

    window.document.pathChanged.connect(said)


def _register() -> None:
    from gui.main_window import register_extension

    register_extension(install)


_register()
