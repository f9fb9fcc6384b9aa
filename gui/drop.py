"""Drag and drop onto the window: a file dropped opens, imports or sets what its kind says.

* an encounter (``.json``) opens (asking to save the current one first); a Foundry scene
  ``.json`` (it has ``walls``) is imported as a map;
* a Universal VTT map (``.dd2vtt``, ``.uvtt``, ``.df2vtt``) is imported as a new encounter;
* a Chummer save (``.chum5``, ``.chum5lz``) adds its character where it was dropped;
* a picture (``.png``, ``.jpg``, ``.jpeg``) dropped on a token becomes that token's art
  (``Token.portrait``), anywhere else the map's background.

A file Coverfire cannot use is named in a message and the encounter stays as it was (the
import and open paths it hands over to say why themselves). :func:`kind_of_file` is the
decision, without Qt.
"""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox

from engine.errors import CoverfireError
from gui import edits

MAP_SUFFIXES = (".dd2vtt", ".uvtt", ".df2vtt")
CHARACTER_SUFFIXES = (".chum5", ".chum5lz")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def kind_of_file(path: Path) -> str | None:
    """``"encounter"``, ``"foundry"``, ``"map"``, ``"character"``, ``"image"``, or None
    for a file Coverfire does not take, by its name (and, for ``.json``, a look inside)."""
    suffix = path.suffix.lower()
    if suffix in MAP_SUFFIXES:
        return "map"
    if suffix in CHARACTER_SUFFIXES:
        return "character"
    if suffix in IMAGE_SUFFIXES:
        return "image"
    if suffix == ".json":
        try:
            with open(path, "rb") as fh:
                head = fh.read(4_000_000)
            data = json.loads(head)
        except (OSError, ValueError):
            return "encounter"  # the encounter loader says what is wrong with it
        if isinstance(data, dict) and "walls" in data and "tokens" not in data and "obstacles" not in data:
            return "foundry"
        return "encounter"
    if path.name == "scenes.db":
        return "foundry"
    return None


WHAT_WE_TAKE = ("an encounter (.json), a Universal VTT map (.dd2vtt, .uvtt, .df2vtt), a Chummer save "
                "(.chum5, .chum5lz) or a picture (.png, .jpg)")


class DropHandler(QObject):
    """Takes files dropped on one main window (its map view reports where they fell)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        window.setAcceptDrops(True)
        window.map_view.filesDropped.connect(self.drop)

    def drop(self, paths: list, at: tuple[float, float] | None = None) -> bool:
        """Handle files dropped at map point ``at`` (metres; None: off the map). One file is
        used (the first Coverfire takes); returns whether it did something."""
        w = self.window
        files = [Path(p) for p in paths]
        usable = [(p, kind_of_file(p)) for p in files]
        chosen = next(((p, k) for p, k in usable if k is not None), None)
        if chosen is None:
            names = ", ".join(p.name for p in files) or "nothing"
            QMessageBox.warning(w, "Cannot use this file",
                                f"Coverfire cannot use {names}: drop {WHAT_WE_TAKE}.\n\n"
                                "The encounter you had open is unchanged.")
            return False
        path, kind = chosen
        if len(files) > 1:
            w.statusBar().showMessage(f"Using {path.name}; drop one file at a time", 8000)
        if not path.is_file():
            QMessageBox.warning(w, "Cannot use this file", f"{path} is not a file Coverfire can read.\n\n"
                                "The encounter you had open is unchanged.")
            return False
        if kind == "encounter":
            return w.open_file(path)
        importing = getattr(w, "importing", None)
        if kind in ("map", "foundry"):
            if importing is None:
                return self._missing("importing maps")
            return importing.import_map(path)
        if kind == "character":
            if importing is None:
                return self._missing("importing characters")
            return importing.import_character(path, at=at) if at is not None else importing.import_character(path)
        # a picture: the token's art under the drop, else the map's background
        token = w.map_view.tokens.token_at(at[0], at[1], 3 * w.map_view.m_per_px()) if at is not None else None
        if token is not None:
            return self.set_portrait(token, path)
        return w.set_background_image(path)

    def _missing(self, what: str) -> bool:
        QMessageBox.warning(self.window, "Not in this build", f"This Coverfire has no {what}.")
        return False

    def set_portrait(self, token_id: str, image_path: Path) -> bool:
        """Make the picture at ``image_path`` the token's art (one undo step); a file that is
        not a picture Coverfire reads is named in a message and nothing changes."""
        from PySide6.QtGui import QImage

        from gui.map_view import why_not_an_image

        w = self.window
        img = QImage(str(image_path))
        if img.isNull():
            QMessageBox.warning(w, "Cannot use this picture", f"{image_path} {why_not_an_image(Path(image_path))}.\n\n"
                                "The token is unchanged.")
            return False
        enc = w.document.committed
        t = enc.token(token_id)
        ref = w.image_ref(image_path)
        try:
            new = edits.checked(edits.replace(enc, t.model_copy(update={"portrait": ref})))
        except CoverfireError as exc:
            QMessageBox.warning(w, "Cannot use this picture", str(exc))
            return False
        w.document.commit(new, f"Picture for {t.name or t.id}")
        w.statusBar().showMessage(f"{image_path.name} is {t.name or t.id}'s picture now", 6000)
        return True


__all__ = ["DropHandler", "kind_of_file"]
