"""Saving from the window: every way a save can fail ends in a message, and the two the GM
can decide (the file changed on disk, the file is read-only) in a question.

* Changed on disk (another program, e.g. ``coverfire import-character --into``, wrote the
  file since it was opened): Overwrite, Save As…, or Cancel.
* Read-only: not overwritten; the GM may Save As… instead.
* Anything else (a full disk, a folder that cannot be written, even a bug): a warning naming
  the file and why; the encounter stays open and unsaved, nothing is lost.

Names: Save As proposes ``NAME.coverfire.json`` (:func:`proposed_path`), the type the desktop
entry registers for encounters (gui/desktop_entry.py), so a double-click opens Coverfire; a
plain ``.json`` is typed ``application/json`` and opens in a text editor. A name typed
without ``.json`` gets ``.coverfire.json`` (:func:`typed_path`); a plain ``.json`` the GM
typed is offered the rename (:func:`ask_rename`: Rename, Keep, Cancel).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from engine.errors import CoverfireError, FileChangedError, ReadOnlyFileError
from engine.model import Encounter
from gui.desktop_entry import ENCOUNTER_SUFFIX

if TYPE_CHECKING:
    from gui.main_window import MainWindow

log = logging.getLogger(__name__)

OVERWRITE, SAVE_AS, CANCEL = "overwrite", "save_as", "cancel"
RENAME, KEEP = "rename", "keep"
#: The Save dialog's filter: encounters by the name ending the desktop knows them by.
SAVE_FILTER = f"Coverfire encounters (*{ENCOUNTER_SUFFIX});;All files (*)"
#: The Open dialog's: older encounters saved as plain .json too.
OPEN_FILTER = f"Coverfire encounters (*{ENCOUNTER_SUFFIX} *.json);;All files (*)"
#: Longest file name proposed from an encounter's name (before the ending).
MAX_STEM = 80
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')
KEPT = "Your work is still open and unsaved: nothing was lost."


def file_stem(name: str | None) -> str:
    """A file name made from an encounter's name: characters no file system takes (``/ \\ :
    * ? " < > |``, control characters) become "-", spaces kept, at most :data:`MAX_STEM`
    characters; "encounter" when nothing is left."""
    stem = _UNSAFE.sub("-", name or "")
    stem = " ".join(stem.split()).strip(" .-")[:MAX_STEM].strip(" .-")
    return stem or "encounter"


def is_encounter_name(path: Path) -> bool:
    """Whether ``path`` ends in ``.coverfire.json`` (any case)."""
    return path.name.lower().endswith(ENCOUNTER_SUFFIX)


def encounter_name_for(path: Path) -> Path:
    """``path`` with the encounter ending: ``fight.json`` -> ``fight.coverfire.json``."""
    name = path.name
    if is_encounter_name(path):
        return path
    if name.lower().endswith(".json"):
        name = name[: -len(".json")]
    if name.lower().endswith(".coverfire"):
        name = name[: -len(".coverfire")]
    return path.with_name(name + ENCOUNTER_SUFFIX)


def proposed_path(current: Path | None, name: str | None, folder: Path) -> Path:
    """The name the Save dialog proposes: the current file when it already ends in
    ``.coverfire.json``; beside it with that ending (``fight.json`` -> ``fight.coverfire.json``);
    for an untitled encounter, ``NAME.coverfire.json`` in ``folder`` from its ``name``."""
    if current is not None:
        return encounter_name_for(current)
    return folder / (file_stem(name) + ENCOUNTER_SUFFIX)


def typed_path(path: Path) -> Path:
    """The file a name typed in the Save dialog means: as typed when it ends in ``.json``,
    else with ``.coverfire.json`` added (``fight`` -> ``fight.coverfire.json``, ``fight.coverfire``
    -> ``fight.coverfire.json``; ``Warehouse 1.5`` -> ``Warehouse 1.5.coverfire.json``: a dot in
    a name is no file type)."""
    if path.name.lower().endswith(".json"):
        return path
    return encounter_name_for(path)


def ask_rename(window, typed: Path, renamed: Path) -> str:
    """Offer a plain ``.json`` the GM typed the encounter ending instead: :data:`RENAME`,
    :data:`KEEP` (as typed) or :data:`CANCEL`."""
    text = (f"\u201c{typed.name}\u201d would open in a text editor when double-clicked: the desktop types "
            f".json files as JSON. Save it as \u201c{renamed.name}\u201d, the file type Coverfire registers "
            "for encounters, instead?")
    if renamed.exists():
        text += f"\n\n{renamed.name} already exists in that folder and would be replaced."
    box = QMessageBox(QMessageBox.Icon.Question, "Save as a Coverfire encounter?", text, parent=window)
    rename = box.addButton(f"Rename to {renamed.name}", QMessageBox.ButtonRole.AcceptRole)
    keep = box.addButton(f"Keep {typed.name}", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(rename)
    box.exec()
    clicked = box.clickedButton()
    return RENAME if clicked is rename else KEEP if clicked is keep else CANCEL


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
