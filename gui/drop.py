"""Drag and drop onto the window: a file dropped opens, imports or sets what its kind says.

What a file is is told by its content first (:func:`engine.importers.detect.sniff`, the
importers' own test), then by its name:

* an encounter (``.json``) opens (asking to save the current one first);
* a Universal VTT map (``.dd2vtt``, ``.uvtt``, ``.df2vtt``, or any name) or a Foundry scene
  is imported as a new encounter;
* a Chummer save (``.chum5``, ``.chum5lz``) adds its character where it was dropped;
* a picture (``.png``, ``.jpg``, ``.jpeg``) dropped on a token becomes that token's art
  (``Token.portrait``), anywhere else the map's background.

A file Coverfire cannot use is named in a message saying what it is, and the encounter stays
as it was (the import and open paths it hands over to say why themselves).
:func:`what_is` is the decision, without Qt.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox

from engine.errors import CoverfireError
from engine.importers.detect import sniff
from engine.names import token_name
from gui import edits

MAP_SUFFIXES = (".dd2vtt", ".uvtt", ".df2vtt")
CHARACTER_SUFFIXES = (".chum5", ".chum5lz")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
#: Bytes looked at for a picture's signature or an encounter's ``"format"``.
HEAD_BYTES = 64 * 1024
#: Words of :func:`engine.importers.detect.sniff` naming what another tool's ``.json`` is
#: (said to the GM instead of opening it as an encounter that would only be refused).
_OTHER_TOOLS = ("this is a Foundry", "this is part of a Foundry", "this is a walls-only", "this is a picture",
                "this is a ZIP", "this is an XML", "this is an SVG")
_KINDS = {"uvtt": "map", "foundry": "foundry", "chummer": "character"}


def _is_picture(head: bytes) -> bool:
    return head[:4] in (b"\x89PNG", b"GIF8") or head[:3] == b"\xff\xd8\xff" or (
        head[:4] == b"RIFF" and head[8:12] == b"WEBP")


def what_is(path: Path, sniffer=sniff) -> tuple[str | None, str | None]:
    """(kind, what): the kind :func:`kind_of_file` says, or None with what the file is in
    words. By content first (:func:`engine.importers.detect.sniff`, the importers' own
    test: a map saved as ``.json`` is a map), then by name; a ``.json`` no importer takes is
    an encounter (its loader says what is wrong with it, with the JSON path), unless it is
    another tool's document (a Foundry actor, a walls-only export). Never opens a pipe or
    a device. ``sniffer`` stands for ``sniff`` (the window's tells a big file in the loader
    process); when it answers None (the GM cancelled), so does this: ``(None, None)``."""
    path = Path(path)
    suffix = path.suffix.lower()
    if path.exists() and not path.is_file():
        return None, "this is not a regular file (a folder, a pipe or a device)"
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError:
        head = b""
    if _is_picture(head) or suffix in IMAGE_SUFFIXES:
        return "image", "a picture"
    if not head:  # missing, unreadable or empty: by name, and what it is handed to says why
        by_name = ("map" if suffix in MAP_SUFFIXES else "character" if suffix in CHARACTER_SUFFIXES
                   else "encounter" if suffix == ".json" else None)
        return by_name, "an empty or unreadable file"
    if suffix == ".json" and b'"coverfire.encounter"' in head:
        return "encounter", "a Coverfire encounter"
    found = sniffer(path)
    if found is None:
        return None, None
    if found.kind in _KINDS:
        return _KINDS[found.kind], found.what
    if suffix in MAP_SUFFIXES:
        return "map", found.what  # the map importer says where it breaks
    if suffix in CHARACTER_SUFFIXES:
        return "character", found.what
    if suffix == ".json" and not found.what.startswith(_OTHER_TOOLS):
        return "encounter", found.what
    return None, found.what


def kind_of_file(path: Path) -> str | None:
    """``"encounter"``, ``"foundry"``, ``"map"``, ``"character"``, ``"image"``, or None
    for a file Coverfire does not take (:func:`what_is`)."""
    return what_is(path)[0]


WHAT_WE_TAKE = ("an encounter (.json), a Universal VTT map (.dd2vtt, .uvtt, .df2vtt), a Foundry scene (.json), "
                "a Chummer save (.chum5, .chum5lz) or a picture (.png, .jpg)")


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
        from gui.opening import file_kind

        w = self.window
        files = [Path(p) for p in paths]
        chosen, refused = None, []
        for p in files:  # the first file Coverfire takes
            kind, what = what_is(p, lambda q: file_kind(q, w))  # (a big file: told in the loader process)
            if what is None:
                return False  # (the GM cancelled reading it: nothing changes)
            if kind is not None:
                chosen = (p, kind)
                break
            refused.append(f"{p}: {what}")
        if chosen is None:
            said = "\n".join(refused) if refused else "nothing was dropped"
            QMessageBox.warning(w, "Cannot use this file",
                                f"Coverfire cannot use {said}.\n\nDrop {WHAT_WE_TAKE}.\n\n"
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
        from gui.picture_loader import load_now

        w = self.window
        img, why = load_now(Path(image_path), portrait=True)  # (off the GUI thread, within its bounds)
        if img is None:
            QMessageBox.warning(w, "Cannot use this picture", f"{image_path} {why}.\n\n"
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
        w.document.commit(new, f"Picture for {token_name(t)}")
        w.statusBar().showMessage(f"{image_path.name} is {token_name(t)}'s picture now", 6000)
        return True


__all__ = ["DropHandler", "kind_of_file", "what_is"]
