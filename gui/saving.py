"""Saving from the window: every way a save can fail ends in a message, and the two the GM
can decide (the file changed on disk, the file is read-only) in a question.

* Changed on disk (another program, e.g. ``coverfire import-character --into``, wrote the
  file since it was opened): Overwrite, Save As…, or Cancel.
* Read-only: not overwritten; the GM may Save As… instead.
* Anything else (a full disk, a folder that cannot be written, even a bug): a warning naming
  the file and why; the encounter stays open and unsaved, nothing is lost.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from engine.errors import CoverfireError, FileChangedError, ReadOnlyFileError
from engine.model import Encounter

if TYPE_CHECKING:
    from gui.main_window import MainWindow

log = logging.getLogger(__name__)

OVERWRITE, SAVE_AS, CANCEL = "overwrite", "save_as", "cancel"
KEPT = "Your work is still open and unsaved: nothing was lost."


def ask_changed_on_disk(window, exc: FileChangedError) -> str:
    """Ask what to do about a file another program changed: :data:`OVERWRITE`,
    :data:`SAVE_AS` or :data:`CANCEL`."""
    box = QMessageBox(QMessageBox.Icon.Warning, "File changed on disk",
                      f"{exc}.\n\nOverwrite it with your version, or save yours under another name?",
                      parent=window)
    overwrite = box.addButton("Overwrite", QMessageBox.ButtonRole.DestructiveRole)
    save_as = box.addButton("Save As\u2026", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(save_as)
    box.exec()
    clicked = box.clickedButton()
    return OVERWRITE if clicked is overwrite else SAVE_AS if clicked is save_as else CANCEL


def offer_save_as(window, exc: ReadOnlyFileError) -> bool:
    """Say a file is read-only; True when the GM wants to save under another name."""
    ans = QMessageBox.question(window, "File is read-only", f"{exc}.\n\nSave under another name?",
                               QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel,
                               QMessageBox.StandardButton.Save)
    return ans == QMessageBox.StandardButton.Save


def write(window: "MainWindow", path: Path, rewritten: Encounter | None = None) -> bool:
    """Save the window's document to ``path``; True when it was written. Never fails
    silently (see the module docstring)."""
    overwrite_changed = False
    while True:
        try:
            window.document.save(path, rewritten=rewritten, overwrite_changed=overwrite_changed)
        except FileChangedError as exc:
            choice = ask_changed_on_disk(window, exc)
            if choice == OVERWRITE:
                overwrite_changed = True
                continue
            return window.save_as() if choice == SAVE_AS else False
        except ReadOnlyFileError as exc:
            return window.save_as() if offer_save_as(window, exc) else False
        except CoverfireError as exc:
            QMessageBox.warning(window, "Cannot save", f"{exc}\n\n{KEPT}")
            return False
        except Exception as exc:  # noqa: BLE001 - a bug must not make Save fail in silence
            log.exception("saving %s failed", path)
            QMessageBox.warning(window, "Cannot save",
                                f"{path}: cannot save ({type(exc).__name__}: {str(exc)[:300]})\n\n{KEPT}")
            return False
        return True
