"""The GM's controls for what the players see: the **Sight** panel (a tab of the right-hand
column), the fog shown on the GM's map (View > Show players' fog on my map, key V), the
fog brush and rectangle, and light sources (placed with the Light tool or the map's
right-click menu, edited in the panel).

The panel, top to bottom: fog for the players on or off; the light level (for Shadowrun its
environment's light column, through ``RuleSystem.with_light_level``); which sides are the
players' (a checkable list of the encounter's sides); the explored area (reveal / hide with
the brush or a rectangle, the brush's size, reset); the lights (a list; the picked one's
name, radius, level, on / off, delete). Each change is one undo step through the document's
commit, checked by the engine; nothing opens over the map.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from engine.errors import CoverfireError
from engine.model import LIGHT_LEVELS
from gui import edits
from gui.document import DocumentChange
from gui.fog_tools import BRUSH_RADIUS, FogBrushTool, FogRectTool
from gui.layers.fog import FogLayer
from gui.lights import LightLayer, LightTool, add_light, delete_light, light_at, set_light
from gui.party_sight import PartySight, vision
from gui.style import GM_VIEW
from gui import theme

#: The key that shows or hides the players' fog on the GM's map.
GM_FOG_KEY = "V"
LEVEL_TEXT = {"full": "Full light", "partial": "Partial light", "dim": "Dim light", "dark": "Total darkness"}
LIT_LEVELS = ("full", "partial", "dim")


def _commit(window, new, text: str) -> bool:
    try:
        new = edits.checked(new)
    except (CoverfireError, ValueError) as exc:
        window.statusBar().showMessage(f"Not done: {exc}", 8000)
        return False
    return window.document.commit(new, text)


def encounter_sides(encounter) -> list[str]:
    """The sides of the encounter's tokens, in order of first appearance."""
    out: list[str] = []
    for t in encounter.tokens:
        if t.side not in out:
            out.append(t.side)
    return out


class SightPanel(QWidget):
    """The Sight tab (see the module docstring). ``controller`` is the window's
    :class:`SightController`."""

    def __init__(self, controller: "SightController", parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.window_ = controller.window
        self.setObjectName("sight_panel")
        self._filling = False
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)

        self.fog_box = QCheckBox("Fog of war for the players")
        self.fog_box.setToolTip("The player view shows only what the players' sides see and have seen")
        self.fog_box.toggled.connect(self._set_fog)
        lay.addWidget(self.fog_box)
        self.tint_box = QCheckBox(f"Show it on my map ({GM_FOG_KEY})")
        self.tint_box.toggled.connect(controller.set_gm_fog)
        lay.addWidget(self.tint_box)

        form = QFormLayout()
        self.light_combo = QComboBox()
        for lv in LIGHT_LEVELS:
            self.light_combo.addItem(LEVEL_TEXT[lv], lv)
        self.light_combo.activated.connect(self._set_light_level)
        form.addRow("Light", self.light_combo)
        lay.addLayout(form)

        sides = QGroupBox("Players' sides")
        sl = QVBoxLayout(sides)
        self.sides_list = QListWidget()
        self.sides_list.setMaximumHeight(96)
        self.sides_list.itemChanged.connect(self._set_sides)
        sl.addWidget(self.sides_list)
        lay.addWidget(sides)

        fog = QGroupBox("Explored area")
        fl = QGridLayout(fog)
        self.reveal_radio = QRadioButton("Reveal")
        self.hide_radio = QRadioButton("Hide")
        self.reveal_radio.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.reveal_radio)
        group.addButton(self.hide_radio)
        fl.addWidget(self.reveal_radio, 0, 0)
        fl.addWidget(self.hide_radio, 0, 1)
        self.brush_button = QPushButton("Brush")
        self.brush_button.setToolTip("Paint over the map (one undo step a stroke)")
        self.brush_button.clicked.connect(lambda: controller.use_fog_tool("brush", self.reveal_radio.isChecked()))
        self.rect_button = QPushButton("Rectangle")
        self.rect_button.setToolTip("Drag a rectangle over the map (one undo step)")
        self.rect_button.clicked.connect(lambda: controller.use_fog_tool("rect", self.reveal_radio.isChecked()))
        fl.addWidget(self.brush_button, 1, 0)
        fl.addWidget(self.rect_button, 1, 1)
        fl.addWidget(QLabel("Brush radius (m)"), 2, 0)
        self.brush_spin = QDoubleSpinBox()
        self.brush_spin.setRange(0.2, 50.0)
        self.brush_spin.setSingleStep(0.5)
        self.brush_spin.setValue(BRUSH_RADIUS)
        self.brush_spin.valueChanged.connect(controller.set_brush_radius)
        fl.addWidget(self.brush_spin, 2, 1)
        self.reset_button = QPushButton("Reset explored")
        self.reset_button.setToolTip("Forget what the players have seen (what they see now stays clear)")
        self.reset_button.clicked.connect(controller.reset_explored)
        fl.addWidget(self.reset_button, 3, 0, 1, 2)
        lay.addWidget(fog)

        lights = QGroupBox("Lights")
        ll = QVBoxLayout(lights)
        self.lights_list = QListWidget()
        self.lights_list.setMaximumHeight(110)
        self.lights_list.currentItemChanged.connect(lambda *_: self._show_light())
        ll.addWidget(self.lights_list)
        row = QHBoxLayout()
        self.place_button = QPushButton("Place a light")
        self.place_button.setToolTip("The Light tool: click the map to place a light, drag one to move it")
        self.place_button.clicked.connect(controller.use_light_tool)
        self.delete_button = QPushButton("Delete")
        self.delete_button.clicked.connect(self._delete_light)
        row.addWidget(self.place_button)
        row.addWidget(self.delete_button)
        ll.addLayout(row)
        lf = QFormLayout()
        self.light_name = QLineEdit()
        self.light_name.editingFinished.connect(lambda: self._edit_light(name=self.light_name.text().strip()))
        lf.addRow("Name", self.light_name)
        self.light_radius = QDoubleSpinBox()
        self.light_radius.setRange(0.1, 1000.0)
        self.light_radius.setValue(6.0)
        self.light_radius.setSingleStep(0.5)
        self.light_radius.setKeyboardTracking(False)
        self.light_radius.valueChanged.connect(lambda v: self._edit_light(radius=float(v)))
        lf.addRow("Radius (m)", self.light_radius)
        self.light_level = QComboBox()
        for lv in LIT_LEVELS:
            self.light_level.addItem(LEVEL_TEXT[lv], lv)
        self.light_level.activated.connect(lambda _i: self._edit_light(level=self.light_level.currentData()))
        lf.addRow("Gives", self.light_level)
        self.light_on = QCheckBox("On")
        self.light_on.toggled.connect(lambda on: self._edit_light(on=bool(on)))
        lf.addRow("", self.light_on)
        ll.addLayout(lf)
        lay.addWidget(lights)

        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet(f"color: {theme.ink('dim')};")
        lay.addWidget(self.status)
        lay.addStretch(1)
        from gui.inspector import click_focus_only

        click_focus_only(self)
        self.refresh()

    # -- showing the encounter ----------------------------------------------------------------
    def refresh(self) -> None:
        enc = self.window_.document.encounter
        self._filling = True
        try:
            self.fog_box.setChecked(bool(enc.sight.fog))
            self.tint_box.setChecked(self.controller.gm_fog)
            try:
                level = enc.system.light_level(enc)
            except (CoverfireError, ValueError, AttributeError):
                level = enc.sight.light
            i = self.light_combo.findData(level)
            if i >= 0:
                self.light_combo.setCurrentIndex(i)
            self._fill_sides(enc)
            self._fill_lights(enc)
            self._show_light()
            self._show_status()
        finally:
            self._filling = False

    def _fill_sides(self, enc) -> None:
        sides = encounter_sides(enc)
        players = {s.casefold() for s in vision().player_sides(enc)}
        want = [(s, s.casefold() in players) for s in sides]
        have = [(self.sides_list.item(i).text(), self.sides_list.item(i).checkState() == Qt.CheckState.Checked)
                for i in range(self.sides_list.count())]
        if want == have:
            return
        self.sides_list.clear()
        for s, on in want:
            item = QListWidgetItem(s)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            self.sides_list.addItem(item)

    def _fill_lights(self, enc) -> None:
        want = [(x.id, self._light_text(x)) for x in enc.lights]
        have = [(self.lights_list.item(i).data(Qt.ItemDataRole.UserRole), self.lights_list.item(i).text())
                for i in range(self.lights_list.count())]
        if want == have:
            return
        current = self.current_light()
        self.lights_list.blockSignals(True)
        self.lights_list.clear()
        for ident, text in want:
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, ident)
            self.lights_list.addItem(item)
            if ident == current:
                self.lights_list.setCurrentItem(item)
        self.lights_list.blockSignals(False)

    @staticmethod
    def _light_text(light) -> str:
        state = "" if light.on else ", off"
        return f"{light.name or light.id}: {light.radius:g} m, {light.level}{state}"

    def current_light(self) -> str | None:
        item = self.lights_list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def pick_light(self, ident: str | None) -> None:
        """Show light ``ident`` in the panel (the one the Light tool placed or touched)."""
        self._fill_lights(self.window_.document.encounter)
        for i in range(self.lights_list.count()):
            if self.lights_list.item(i).data(Qt.ItemDataRole.UserRole) == ident:
                self.lights_list.setCurrentRow(i)
                return

    def _show_light(self) -> None:
        enc = self.window_.document.encounter
        ident = self.current_light()
        try:
            light = enc.light(ident) if ident else None
        except (CoverfireError, ValueError):
            light = None
        for w in (self.light_name, self.light_radius, self.light_level, self.light_on, self.delete_button):
            w.setEnabled(light is not None)
        self.controller.light_layer.set_lights(enc.lights, light.id if light else None)
        if light is None:
            return
        was, self._filling = self._filling, True
        try:
            if not self.light_name.hasFocus():
                self.light_name.setText(light.name)
            self.light_radius.setValue(light.radius)
            self.light_level.setCurrentIndex(max(0, self.light_level.findData(light.level)))
            self.light_on.setChecked(light.on)
        finally:
            self._filling = was

    def _show_status(self) -> None:
        sight = self.controller.sight
        enc = self.window_.document.encounter
        if sight.error:
            self.status.setText(f"Sight not worked out: {sight.error}")
        elif not enc.sight.fog:
            self.status.setText("Fog is off: the players see the whole map and every token not hidden.")
        elif not vision().party(enc):
            self.status.setText("No token is on the players' sides: the players see nothing. "
                                "Tick their side under Players' sides.")
        elif sight.view is not None:
            shown = len(sight.view.visible)
            total = sum(1 for t in enc.tokens if not t.hidden)
            self.status.setText(f"The players are shown {shown} of {total} tokens.")
        else:
            self.status.setText("")

    # -- edits -----------------------------------------------------------------------------------
    def _set_fog(self, on: bool) -> None:
        if self._filling:
            return
        enc = self.window_.document.committed
        new = enc.model_copy(update={"sight": enc.sight.model_copy(update={"fog": bool(on)})})
        if _commit(self.window_, new, "Fog on" if on else "Fog off") and on:
            self.controller.set_gm_fog(True)

    def _set_light_level(self, _index: int) -> None:
        if self._filling:
            return
        level = self.light_combo.currentData()
        enc = self.window_.document.committed
        try:
            new = enc.system.with_light_level(enc, level)
        except (CoverfireError, ValueError) as exc:
            self.window_.statusBar().showMessage(f"Not done: {exc}", 8000)
            return
        _commit(self.window_, new, f"Light: {LEVEL_TEXT[level].lower()}")

    def _set_sides(self, _item=None) -> None:
        if self._filling:
            return
        sides = tuple(self.sides_list.item(i).text() for i in range(self.sides_list.count())
                      if self.sides_list.item(i).checkState() == Qt.CheckState.Checked)
        enc = self.window_.document.committed
        new = enc.model_copy(update={"sight": enc.sight.model_copy(update={"player_sides": sides})})
        _commit(self.window_, new, "Players' sides")

    def _edit_light(self, **fields) -> None:
        ident = self.current_light()
        if self._filling or ident is None:
            return
        enc = self.window_.document.committed
        try:
            if all(getattr(enc.light(ident), k) == v for k, v in fields.items()):
                return
            new = set_light(enc, ident, **fields)
        except (CoverfireError, ValueError) as exc:
            self.window_.statusBar().showMessage(f"Not done: {exc}", 8000)
            return
        _commit(self.window_, new, "Edit light")

    def _delete_light(self) -> None:
        ident = self.current_light()
        if ident is not None:
            self.controller.delete_light(ident)


class SightController:
    """The window's sight features (installed on every main window): the party's sight,
    the GM's fog tint and lights layers, the V key, the tools and the Sight panel."""

    def __init__(self, window):
        self.window = window
        self.sight: PartySight = getattr(window, "party_sight", None) or PartySight(window.document, window)
        window.party_sight = self.sight
        self.gm_fog = False
        self.brush_radius = BRUSH_RADIUS
        view = window.map_view
        view.fog_brush_radius = BRUSH_RADIUS
        self.fog_layer = FogLayer(view.options if not view.options.player else GM_VIEW)
        self.light_layer = LightLayer(view.options)
        for layer in (self.fog_layer, self.light_layer):
            view.layers.append(layer)
            view.vb.addItem(layer, ignoreBounds=True)
            layer.set_pixel_size(view.m_per_px())
        A = window.add_action
        window.menus["View"].addSeparator()
        self.act_gm_fog = A("View", "Show players' fo&g on my map", self.set_gm_fog, shortcut=GM_FOG_KEY,
                            checkable=True, name="gm fog",
                            tip=f"Tint what the players have not seen and outline what they see now ({GM_FOG_KEY})")
        tools = window.add_menu("Tools")
        tools.addSeparator()
        for text, kind, reveal in (("Reveal with the fog brush", "brush", True), ("Hide with the fog brush", "brush", False),
                                   ("Reveal a rectangle", "rect", True), ("Hide a rectangle", "rect", False)):
            A("Tools", text, lambda k=kind, r=reveal: self.use_fog_tool(k, r),
              name=f"fog {kind} {'reveal' if reveal else 'hide'}")
        A("Tools", "Place a &light", self.use_light_tool, name="light tool", tip=LightTool.tip)
        self.panel = SightPanel(self)
        window.add_dock(self.panel, "Sight", name="sight")
        self.sight.updated.connect(self._on_sight)
        window.document.changed.connect(self._on_document)
        self._register_menu_entries()
        self._on_sight()

    # -- the GM's fog ------------------------------------------------------------------------------
    def set_gm_fog(self, on: bool) -> None:
        """Show the players' fog on the GM's map as a tint and an outline (or not)."""
        on = bool(on)
        self.gm_fog = on
        self.act_gm_fog.setChecked(on)
        if self.panel.tint_box.isChecked() != on:
            self.panel.tint_box.blockSignals(True)
            self.panel.tint_box.setChecked(on)
            self.panel.tint_box.blockSignals(False)
        self.sight.want("gm fog", on)
        self._on_sight()
        if on and not self.window.document.encounter.sight.fog:
            self.window.statusBar().showMessage(
                "Showing what the players' sides see; the fog is off for the players (Sight panel)", 6000)

    def _on_sight(self) -> None:
        enc = self.window.document.encounter
        self.fog_layer.set_view(enc, self.sight.view if self.gm_fog else None)

    def _on_document(self, change: DocumentChange) -> None:
        enc = self.window.document.encounter
        self.light_layer.set_lights(enc.lights, self.panel.current_light())
        if not change.preview:
            self.panel.refresh()

    # -- tools -----------------------------------------------------------------------------------------
    def set_brush_radius(self, radius: float) -> None:
        self.brush_radius = float(radius)
        self.window.map_view.fog_brush_radius = self.brush_radius
        tool = self.window.map_view.tool
        if isinstance(tool, FogBrushTool):
            tool.radius = self.brush_radius

    def _use(self, tool) -> None:
        view = self.window.map_view
        view.set_tool(tool)
        group = getattr(self.window, "_tool_group", None)
        if group is not None and group.checkedAction() is not None:
            group.setExclusive(False)
            group.checkedAction().setChecked(False)
            group.setExclusive(True)
        view.setFocus()

    def use_fog_tool(self, kind: str, reveal: bool = True):
        """Switch the map to the fog brush (``kind`` "brush") or rectangle ("rect"), revealing
        or hiding; returns the tool."""
        view = self.window.map_view
        cls = FogBrushTool if kind == "brush" else FogRectTool
        tool = cls(view, reveal, self.brush_radius)
        self._use(tool)
        if not self.gm_fog:
            self.set_gm_fog(True)  # the GM sees what the brush does
        return tool

    def use_light_tool(self):
        tool = LightTool(self.window.map_view, on_pick=self.panel.pick_light)
        self._use(tool)
        return tool

    # -- edits -------------------------------------------------------------------------------------------
    def reset_explored(self) -> bool:
        enc = self.window.document.committed
        if not enc.sight.explored:
            self.window.statusBar().showMessage("Nothing is explored yet", 4000)
            return False
        return _commit(self.window, vision().reset_explored(enc), "Reset explored")

    def add_light_at(self, x: float, y: float) -> str | None:
        try:
            new, ident = add_light(self.window.document.committed, (x, y))
        except (CoverfireError, ValueError) as exc:
            self.window.statusBar().showMessage(f"Not done: {exc}", 8000)
            return None
        if _commit(self.window, new, "Add light"):
            self.panel.pick_light(ident)
            return ident
        return None

    def delete_light(self, ident: str) -> bool:
        enc = self.window.document.committed
        return _commit(self.window, delete_light(enc, ident), "Delete light")

    def toggle_light(self, ident: str) -> bool:
        enc = self.window.document.committed
        on = not enc.light(ident).on
        return _commit(self.window, set_light(enc, ident, on=on), "Light on" if on else "Light off")

    # -- the map's right-click menu ------------------------------------------------------------------
    def _register_menu_entries(self) -> None:
        from gui import context_menu

        extras = getattr(context_menu, "GROUND_EXTRAS", None)
        if extras is not None and ground_entries not in extras:
            extras.append(ground_entries)


def ground_entries(window, x: float, y: float) -> list:
    """The right-click menu's light entries on the ground: the light there (on / off,
    edit, delete) or "Add a light here"."""
    from gui.context_menu import Entry

    ctl = getattr(window, "sight_controls", None)
    if ctl is None:
        return []
    enc = window.document.committed
    ident = light_at(enc, x, y, 10.0 * window.map_view.m_per_px())
    if ident is None:
        return [Entry("Add a light here", lambda: ctl.add_light_at(x, y), separator_before=True)]
    light = enc.light(ident)
    name = light.name or light.id

    def edit():
        ctl.panel.pick_light(ident)
        dock = window.docks.get("sight")
        if dock is not None:
            dock.show()
            dock.raise_()

    return [
        Entry(f"Turn {name} {'off' if light.on else 'on'}", lambda: ctl.toggle_light(ident), separator_before=True),
        Entry(f"Edit {name} in the Sight panel", edit),
        Entry(f"Delete {name}", lambda: ctl.delete_light(ident)),
    ]


def _install(window) -> None:
    window.sight_controls = SightController(window)


def _register() -> None:
    from gui.main_window import register_extension

    register_extension(_install)


_register()

__all__ = ["GM_FOG_KEY", "SightController", "SightPanel", "encounter_sides", "ground_entries"]
