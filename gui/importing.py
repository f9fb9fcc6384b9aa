"""File > Import Map, File > Import Character, and doors opened and closed on the map.

The importing itself is the engine's (:mod:`engine.importers`); this module asks the GM for
the file and the few choices the file cannot answer, shows the engine's import report, and
turns clicks into one undo step each:

* **Import Map…** reads a Universal VTT map (``.dd2vtt``, ``.uvtt``, ``.df2vtt``) or a Foundry
  VTT scene (exported ``.json``, a world's ``scenes.db``), asks the
  metres per grid cell (default 1.5 m) and the height of low cover (default 1 m), both
  remembered in the window's settings, and opens the result as a new, unsaved encounter
  (after offering to save the current one). A file that cannot be read leaves the current
  encounter as it was.
* **Import Character…** reads a Chummer5a save (``.chum5``), asks the side, then the GM
  clicks where the character stands (Enter or Esc: the free spot nearest the map's centre).
* **Doors** (``Obstacle.door``): the *Door* tool (O) opens or closes the door clicked; with
  the Select tool, a double-click on a door does the same. Cover follows at once (the
  engine's analysis ignores open doors).

Importing this module registers :func:`install` with :func:`gui.main_window.register_extension`;
``window.importing`` is then the window's :class:`ImportActions`.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import shapely
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
)

from engine.errors import CoverfireError
from engine.importers.report import ImportReport
from engine.model import Encounter, Token
from engine.names import obstacle_name, token_name
from gui import edits
from gui.layers import Sketch
from gui.qtgeom import add_ring
from gui.tools import PICK_SLACK_PX, Pointer, SelectTool, Tool

MAP_FILTER = ("Maps and scenes (*.dd2vtt *.uvtt *.df2vtt *.json *.db);;Universal VTT maps (*.dd2vtt *.uvtt *.df2vtt);;"
              "Foundry VTT scenes (*.json *.db);;All files (*)")
CHARACTER_FILTER = "Chummer characters (*.chum5 *.chum5lz *.chum);;All files (*)"  # .chum: Chummer 4 (SR4)
SIDES = ("runner", "ganger", "neutral", "security", "ally")

#: QSettings keys (the window's ``settings``)
KEY_CELL = "import/cell_size"
KEY_OBJECT_HEIGHT = "import/object_height"
KEY_WINDOW_SILL = "import/window_sill"
KEY_MAP_FOLDER = "import/map_folder"
KEY_CHARACTER_FOLDER = "import/character_folder"

DEFAULT_CELL = 1.5  # metres per grid cell (5 ft)
DEFAULT_OBJECT_HEIGHT = 1.0  # metres: low cover drawn as objects in the map file
DEFAULT_WINDOW_SILL = 1.0  # metres: windows block movement and give cover up to their sill
DOOR_SLACK_PX = 8.0  # a click this close (screen pixels) to a thin door hits it


# -- doors (no Qt) ---------------------------------------------------------------------------------
def door_at(encounter: Encounter, x: float, y: float, slack: float = 0.0) -> str | None:
    """The id of the door (``Obstacle.door``) nearest map point (x, y) metres, if it lies
    within ``slack`` metres of it (inside counts as 0); else None."""
    doors = [o for o in encounter.obstacles if o.door]
    if not doors:
        return None
    polys = np.array([shapely.Polygon(o.polygon) for o in doors], dtype=object)
    d = shapely.distance(polys, shapely.Point(x, y))
    i = int(np.argmin(d))
    return doors[i].id if d[i] <= slack else None


def toggle_door(encounter: Encounter, door_id: str) -> tuple[Encounter, bool]:
    """The encounter with door ``door_id`` opened (when closed) or closed (when open), and
    whether it is open now. Raises :class:`engine.errors.UnknownIdError` for an unknown id and
    :class:`engine.errors.IllegalActionError` for an obstacle that is not a door."""
    from engine.errors import IllegalActionError

    o = encounter.obstacle(door_id)
    if not o.door:
        raise IllegalActionError(f"{obstacle_name(o)} is not a door")
    opened = not o.open
    return edits.replace(encounter, o.model_copy(update={"open": opened})), opened


def _door_label(o) -> str:
    """A door's name, or its id when the name is just "Door" (imported doors are all called so)."""
    return o.name if o.name and o.name.strip().lower() != "door" else o.id


class DoorTool(Tool):
    """Click a door to open or close it (one undo step)."""

    name = "Door"
    shortcut = "O"
    tip = "Open or close a door: click it (with Select, double-click a door)"

    def __init__(self, host):
        super().__init__(host)
        self._pressed: str | None = None

    def _door(self, p: Pointer) -> str | None:
        return door_at(self.doc.encounter, p.x, p.y, DOOR_SLACK_PX * p.m_per_px)

    def press(self, p: Pointer) -> None:
        self._pressed = self._door(p)

    def release(self, p: Pointer) -> None:
        pressed, self._pressed = self._pressed, None
        door = self._door(p)
        if door is None or door != pressed:
            if door is None and pressed is None:
                self.host.status("No door there: doors are the thin bars across openings (dashed when open)")
            return
        toggle_door_in(self.host, door)
        self.hover(p)

    def hover(self, p: Pointer) -> None:
        door = self._door(p)
        if door is None:
            self.host.set_sketch(None)
            return
        o = self.doc.encounter.obstacle(door)
        path = QPainterPath()
        add_ring(path, o.polygon)
        verb = "close" if o.open else "open"
        self.host.set_sketch(Sketch(lines=[path], labels=[(p.x, p.y, f"click: {verb} {_door_label(o)}")]))

    def cancel(self) -> None:
        self._pressed = None
        super().cancel()


def toggle_door_in(host, door_id: str) -> bool:
    """Open or close ``door_id`` in ``host.document`` as one undo step; the status line says
    what happened. Returns whether the document changed."""
    doc = host.document
    try:
        new, opened = toggle_door(doc.committed, door_id)
    except (CoverfireError, ValueError) as exc:
        host.status(str(exc))
        return False
    o = new.obstacle(door_id)
    text = f"{'Open' if opened else 'Close'} {_door_label(o)}"
    done = doc.commit(new, text)
    if done:
        host.status(f"{_door_label(o)} is {'open: it blocks nothing' if opened else 'closed: it blocks sight and fire'}"
                    " (Ctrl+Z undoes)")
    return done


# -- placing an imported character ------------------------------------------------------------------
class PlaceCharacterTool(Tool):
    """Click where an imported character stands. Enter or Esc (or switching tools) puts it
    on the free spot nearest the map's centre, so the character is never lost."""

    name = "Place character"

    def __init__(self, host, token: Token, on_place):
        super().__init__(host)
        self.token = token
        self.on_place = on_place  # on_place(at | None) -> bool (False: not placed, try again)
        self.done = False
        who = token_name(token)
        self.tip = f"Click where {who} stands (Enter or Esc: the free spot nearest the map's centre)"

    def _place(self, at) -> None:
        if self.done:
            return
        self.done = True
        if not self.on_place(at):
            self.done = False

    def release(self, p: Pointer) -> None:
        self._place(self.snap_point(p, centre=True))

    def hover(self, p: Pointer) -> None:
        x, y = self.snap_point(p, centre=True)
        r = self.token.radius
        path = QPainterPath()
        path.addEllipse(x - r, y - r, 2 * r, 2 * r)
        self.host.set_sketch(Sketch(lines=[path], fills=[path], labels=[(x, y + r, token_name(self.token))]))

    def finish(self) -> None:
        self._place(None)

    def cancel(self) -> None:
        self.host.set_sketch(None)
        self._place(None)


# -- dialogs ------------------------------------------------------------------------------------------
class MapImportDialog(QDialog):
    """Asks what the map file cannot say: metres per grid cell and the height of low cover."""

    def __init__(self, parent, file_name: str, cell: float, object_height: float,
                 window_sill: float = DEFAULT_WINDOW_SILL):
        super().__init__(parent)
        self.setWindowTitle("Import map")
        self.setObjectName("map_import_dialog")
        lay = QVBoxLayout(self)
        intro = QLabel(f"<b>{file_name}</b><br>The map measures in grid cells. How large is one cell? "
                       "(A Foundry scene's own grid units are used when it gives them.)")
        intro.setWordWrap(True)
        lay.addWidget(intro)
        form = QFormLayout()
        self.cell_spin = QDoubleSpinBox(objectName="cell_size")
        self.cell_spin.setRange(0.1, 100.0)
        self.cell_spin.setDecimals(2)
        self.cell_spin.setSingleStep(0.5)
        self.cell_spin.setSuffix(" m")
        self.cell_spin.setValue(cell)
        self.cell_spin.setToolTip("1.5 m is the usual 5-foot square")
        form.addRow("Metres per cell", self.cell_spin)
        self.object_spin = QDoubleSpinBox(objectName="object_height")
        self.object_spin.setRange(0.1, 10.0)
        self.object_spin.setDecimals(2)
        self.object_spin.setSingleStep(0.1)
        self.object_spin.setSuffix(" m")
        self.object_spin.setValue(object_height)
        self.object_spin.setToolTip("Height of the objects the map marks as blocking sight (tables, crates): low cover")
        form.addRow("Object height (low cover)", self.object_spin)
        self.sill_spin = QDoubleSpinBox(objectName="window_sill")
        self.sill_spin.setRange(0.1, 3.0)
        self.sill_spin.setDecimals(2)
        self.sill_spin.setSingleStep(0.1)
        self.sill_spin.setSuffix(" m")
        self.sill_spin.setValue(window_sill)
        self.sill_spin.setToolTip("Windows block movement and give cover up to their sill; sight passes above it")
        form.addRow("Window sill height", self.sill_spin)
        lay.addLayout(form)
        note = QLabel("Walls and doors are 3 m tall. These values are remembered.")
        note.setWordWrap(True)
        lay.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def values(self) -> tuple[float, float]:
        """(metres per cell, object height in metres)."""
        return float(self.cell_spin.value()), float(self.object_spin.value())

    def sill(self) -> float:
        """The window sill height in metres."""
        return float(self.sill_spin.value())


class ImportReportDialog(QDialog):
    """The engine's import report, in a window the GM reads and closes (not modal)."""

    def __init__(self, parent, title: str, report: ImportReport):
        super().__init__(parent)
        self.setObjectName("import_report_dialog")
        self.setWindowTitle(title)
        self.report = report
        lay = QVBoxLayout(self)
        n = len(report.warnings)
        head = "Imported without problems." if report.ok else f"Imported, with {n} warning{'s' if n != 1 else ''}."
        if report.unsupported:
            head += " Some things in the file are not carried over (listed below)."
        self.headline = QLabel(head)
        self.headline.setWordWrap(True)
        lay.addWidget(self.headline)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setPlainText("\n".join(report.lines()))
        lay.addWidget(self.text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        lay.addWidget(buttons)
        self.resize(640, 380)


# -- the window's actions ----------------------------------------------------------------------------
def _setting_float(settings, key: str, default: float) -> float:
    try:
        v = float(settings.value(key, default))
    except (TypeError, ValueError):
        return default
    return v if math.isfinite(v) and v > 0 else default


class ImportActions(QObject):
    """File > Import Map and Import Character, the Door tool and double-clicking doors, for
    one main window."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.report_dialog: ImportReportDialog | None = None
        #: How the last map import went (:class:`gui.opening.Loaded`: its ``route``), None if cancelled.
        self.last_load = None
        self.placing: PlaceCharacterTool | None = None
        A = window.add_action
        acts = [
            A("File", "Import &Map\u2026", self.import_map_dialog, name="import map",
              tip="Open a Universal VTT map (.dd2vtt, .uvtt, .df2vtt) or a Foundry scene (.json, scenes.db) "
                  "as a new encounter: picture, walls, doors, windows"),
            A("File", "Import &Character\u2026", self.import_character_dialog, name="import character",
              tip="Add a Chummer5a character (.chum5, .chum5lz) to this encounter, where you click"),
        ]
        menu = window.menus["File"]
        anchor = window.actions.get("save")
        if anchor is not None:
            for act in acts:
                menu.removeAction(act)
                menu.insertAction(anchor, act)
            menu.insertSeparator(anchor)
        window.add_tool(DoorTool.name, lambda v: DoorTool(v), shortcut=DoorTool.shortcut, tip=DoorTool.tip)
        window.map_view.viewport().installEventFilter(self)
        window.selection.changed.connect(self._hint_door)

    # -- settings ----------------------------------------------------------------------------------
    @property
    def settings(self):
        return self.window.settings

    def cell_size(self) -> float:
        """The remembered metres per cell (default 1.5)."""
        return _setting_float(self.settings, KEY_CELL, DEFAULT_CELL)

    def object_height(self) -> float:
        """The remembered low-cover height in metres (default 1)."""
        return _setting_float(self.settings, KEY_OBJECT_HEIGHT, DEFAULT_OBJECT_HEIGHT)

    def window_sill(self) -> float:
        """The remembered window sill height in metres (default 1)."""
        return _setting_float(self.settings, KEY_WINDOW_SILL, DEFAULT_WINDOW_SILL)

    def _folder(self, key: str) -> str:
        v = self.settings.value(key)
        if v and Path(str(v)).is_dir():
            return str(v)
        doc = self.window.document.path
        return str(doc.parent) if doc is not None else str(Path.home())

    # -- maps -----------------------------------------------------------------------------------------
    def import_map_dialog(self) -> bool:
        """Pick a map file, ask its scale, import it. Returns whether a map was opened."""
        w = self.window
        path, _ = QFileDialog.getOpenFileName(w, "Import map", self._folder(KEY_MAP_FOLDER), MAP_FILTER)
        if not path:
            return False
        self.settings.setValue(KEY_MAP_FOLDER, str(Path(path).parent))
        scene = self.choose_scene(path)
        if scene is False:
            return False
        dlg = MapImportDialog(w, Path(path).name, self.cell_size(), self.object_height(), self.window_sill())
        if dlg.exec() != QDialog.DialogCode.Accepted:
            return False
        cell, height = dlg.values()
        return self.import_map(path, cell, height, window_sill=dlg.sill(), scene=scene)

    def choose_scene(self, path: str | Path) -> int | None | bool:
        """For a Foundry file of several scenes (a scenes.db, a scene list), ask which one:
        its 0-based index; None for any other file (or one scene); False when the GM cancels."""
        from gui.drop import MAP_SUFFIXES
        from gui.opening import Request, load

        if Path(path).suffix.lower() in MAP_SUFFIXES:
            return None  # (a Universal VTT map: one scene; no process started to learn it)
        try:
            got = load(Request("scenes", str(path)), self.window)  # (a big file: told in the loader process)
        except CoverfireError:
            return None  # import_map shows the message
        if got is None:
            return False  # (the GM cancelled reading it)
        names = got.extras["scenes"]
        if names is None or len(names) < 2:  # (not a Foundry file, or one scene)
            return None
        labels = [f"{i + 1}. {n}" for i, n in enumerate(names)]
        choice, ok = QInputDialog.getItem(self.window, "Import Foundry scene",
                                          f"{Path(path).name} holds {len(names)} scenes. Import which one?",
                                          labels, 0, False)
        if not ok:
            return False
        return labels.index(choice) if choice in labels else 0

    def import_map(self, path: str | Path, cell_size: float | None = None, object_height: float | None = None,
                   *, window_sill: float | None = None, scene: int | str | None = None) -> bool:
        """Import a Universal VTT map and open it as a new, unsaved encounter (asking first to
        save the current one). A file the engine cannot read shows its message and leaves the
        current encounter as it was. A big map is imported in the loader process while the
        window goes on painting (:func:`gui.opening.load`: a progress dialog, Cancel changes
        nothing). Returns whether the map was opened."""
        from gui.opening import Request, load

        w = self.window
        cell = self.cell_size() if cell_size is None else float(cell_size)
        height = self.object_height() if object_height is None else float(object_height)
        sill = self.window_sill() if window_sill is None else float(window_sill)
        request = Request("import", str(path), {"cell_size": cell, "object_height": height, "window_sill": sill,
                                                "scene": scene})
        self.last_load = None
        try:
            loaded = load(request, w)  # (a big map in the loader process: the window goes on painting)
        except CoverfireError as exc:
            QMessageBox.warning(w, "Cannot import this map", f"{exc}\n\nThe encounter you had open is unchanged.")
            return False
        self.last_load = loaded
        if loaded is None:
            return False  # (the GM cancelled the import: nothing changed)
        encounter, report = loaded.encounter, loaded.extras["report"]
        self.settings.setValue(KEY_CELL, cell)
        self.settings.setValue(KEY_OBJECT_HEIGHT, height)
        self.settings.setValue(KEY_WINDOW_SILL, sill)
        if not w.maybe_save():
            return False
        w.document.set_content(encounter, None, dirty=True, obstacles=loaded.obstacles)
        w.autosaver.discard()
        w.map_view.fit_map()
        walls = sum(1 for o in encounter.obstacles if not o.door and o.height >= 2.0)
        doors = sum(1 for o in encounter.obstacles if o.door)
        imported = getattr(encounter, "imported", None)
        own = imported.get("foundry_counts") if isinstance(imported, dict) else None
        if isinstance(own, dict):  # a Foundry scene: its walls and lights as Foundry counts them
            walls_said = (f"{own.get('walls', 0)} Foundry walls ({own.get('doors', 0)} doors: {doors} on the map), "
                          f"{own.get('lights', 0)} lights")
        else:
            walls_said = f"{walls} walls, {doors} doors"
        w.statusBar().showMessage(
            f"Imported {Path(path).name}: {encounter.map.width:g} x {encounter.map.height:g} m, "
            f"{walls_said} (Door tool or double-click: open/close). Save to keep it.", 10000)
        self.show_report(f"Map import: {Path(path).name}", report)
        return True

    # -- characters ---------------------------------------------------------------------------------
    def import_character_dialog(self) -> bool:
        """Pick a Chummer save, its side, then place it with a click. Returns whether the
        character was read (it is added once placed)."""
        w = self.window
        path, _ = QFileDialog.getOpenFileName(w, "Import character", self._folder(KEY_CHARACTER_FOLDER), CHARACTER_FILTER)
        if not path:
            return False
        self.settings.setValue(KEY_CHARACTER_FOLDER, str(Path(path).parent))
        token, report = self._read_character(path)
        if token is None:
            return False
        sides = list(SIDES)
        combo = getattr(w, "side_combo", None)
        if combo is not None:
            sides += [combo.itemText(i) for i in range(combo.count()) if combo.itemText(i) not in sides]
        side, ok = QInputDialog.getItem(w, "Import character", f"Side of {token_name(token)}:", sides, 0, True)
        if not ok:
            return False
        self.place_character(token.model_copy(update={"side": side.strip() or "runner"}), report)
        return True

    def _read_character(self, path):
        from engine.importers.detect import import_file

        try:
            result = import_file(path, side="runner", expect="character")
            return result.token, result.report
        except CoverfireError as exc:
            QMessageBox.warning(self.window, "Cannot import this character", str(exc))
            return None, None

    def import_character(self, path: str | Path, side: str = "runner", at: tuple[float, float] | None = None,
                         *, click: bool = False) -> bool:
        """Import a Chummer save into the open encounter: at ``at`` (metres), on the free spot
        nearest the map's centre (``at`` None), or where the GM clicks (``click``)."""
        token, report = self._read_character(path)
        if token is None:
            return False
        token = token.model_copy(update={"side": side or "runner"})
        if click:
            self.place_character(token, report)
            return True
        return self._add(token, report, at)

    def place_character(self, token: Token, report: ImportReport | None = None) -> PlaceCharacterTool:
        """Let the GM click where ``token`` stands (the map's tool until then)."""
        w = self.window
        tool = PlaceCharacterTool(w.map_view, token, lambda at: self._add(token, report, at))
        self.placing = tool
        w.map_view.set_tool(tool)
        group = getattr(w, "_tool_group", None)
        if group is not None and group.checkedAction() is not None:
            group.checkedAction().setChecked(False)
        w.map_view.setFocus()
        w.statusBar().showMessage(tool.tip, 30000)
        return tool

    def _add(self, token: Token, report: ImportReport | None, at) -> bool:
        """Add ``token`` at ``at`` (None: the free spot) as one undo step."""
        from engine.importers.chummer import add_character

        w = self.window
        doc = w.document
        try:
            new, placed = add_character(doc.committed, token, at)
        except CoverfireError as exc:
            w.statusBar().showMessage(f"Not there: {exc}. Click on the map (Enter: the free spot near the centre)", 10000)
            return False
        doc.commit(new, f"Import {token_name(placed)}")
        w.selection.select([placed.id], doc.encounter)
        if self.placing is not None and w.map_view.tool is self.placing:
            self.placing = None
            w.set_tool("Select")
        self.placing = None
        where = f"({placed.x:.1f}, {placed.y:.1f}) m"
        from engine.importers.placing import placement_problem

        problem = placement_problem(new, placed.x, placed.y, placed.radius, ignore=placed.id) if at is not None else None
        w.statusBar().showMessage(f"Imported {token_name(placed)} ({placed.side}) at {where}"
                                  + (f". Warning: {problem}; drag it clear (Ctrl+Z undoes)" if problem else ""),
                                  15000 if problem else 8000)
        if report is not None and not report.ok:
            self.show_report(f"Character import: {token_name(placed)}", report)
        return True

    # -- report -------------------------------------------------------------------------------------
    def show_report(self, title: str, report: ImportReport) -> ImportReportDialog:
        """Show an import report beside the map (closing the one shown before)."""
        if self.report_dialog is not None:
            self.report_dialog.close()
        dlg = ImportReportDialog(self.window, title, report)
        self.report_dialog = dlg
        dlg.show()
        return dlg

    # -- doors ----------------------------------------------------------------------------------------
    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 - Qt API
        """A double-click on a door with the Select tool opens or closes it."""
        if ev.type() == QEvent.Type.MouseButtonDblClick and ev.button() == Qt.MouseButton.LeftButton:
            view = self.window.map_view
            if type(view.tool) is SelectTool and view.interactive:
                x, y = view.viewport_to_map(ev.position())
                k = view.m_per_px()
                if view.picker().token_at(x, y, PICK_SLACK_PX * k) is None:
                    door = door_at(view.document.encounter, x, y, DOOR_SLACK_PX * k)
                    if door is not None:
                        toggle_door_in(view, door)
                        return True
        return False

    def _hint_door(self) -> None:
        ids = self.window.selection.ids
        if len(ids) != 1:
            return
        enc = self.window.document.encounter
        if edits.kind_of(enc, ids[0]) != "obstacle":
            return
        o = enc.obstacle(ids[0])
        if o.door:
            state, verb = ("open", "close") if o.open else ("closed", "open")
            self.window.statusBar().showMessage(
                f"{_door_label(o)}: {state}. Double-click it (or use the Door tool, O) to {verb} it", 8000)


def install(window) -> ImportActions:
    """Add the import actions and the Door tool to ``window`` (``window.importing``)."""
    window.importing = ImportActions(window)
    return window.importing


def _register() -> None:
    from gui.main_window import register_extension

    register_extension(install)


_register()
