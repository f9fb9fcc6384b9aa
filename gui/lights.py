"""Light sources on the GM's map: the edits (pure functions), the layer that draws them as
soft circles, and the tool that places, moves and sizes them.

Lights are ``Encounter.lights`` (:class:`engine.model.Light`: ``x``, ``y`` and ``radius``
in metres, ``level``, ``on``); what they light is the engine's (:mod:`engine.vision`, walls
cast shadows). The player view never draws a light itself, only the sight it gives.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QRadialGradient

from engine.model import Encounter, Light
from gui import edits
from gui.layers.base import MapLayer
from gui.layers.paint import NO_BRUSH, NO_PEN, cosmetic, draw_label
from gui.style import ViewOptions
from gui.tools import CLICK_PX, HANDLE_SLACK_PX, Pointer, Tool

#: Metres: the radius of a light placed with the tool or the map's menu.
DEFAULT_RADIUS = 6.0
LIGHT_COLOUR = QColor("#ffd54f")
LIGHT_OFF = QColor("#90a4ae")


# -- edits -----------------------------------------------------------------------------------
def add_light(encounter: Encounter, xy: tuple[float, float], radius: float = DEFAULT_RADIUS, **fields) -> tuple[Encounter, str]:
    """The encounter with a new light at ``xy`` (metres), checked; and the light's id."""
    ident = encounter.new_id("light")
    n = sum(1 for _ in encounter.lights) + 1
    light = Light(id=ident, name=fields.pop("name", f"Light {n}"), x=float(xy[0]), y=float(xy[1]),
                  radius=float(radius), **fields)
    return edits.checked(encounter.model_copy(update={"lights": encounter.lights + (light,)})), ident


def set_light(encounter: Encounter, ident: str, **fields) -> Encounter:
    """The encounter with fields of light ``ident`` changed (checked by the engine)."""
    light = encounter.light(ident)
    data = light.model_dump(mode="python")
    data.update(fields)
    new = Light.model_validate(data)
    lights = tuple(new if x.id == ident else x for x in encounter.lights)
    return edits.checked(encounter.model_copy(update={"lights": lights}))


def move_light(encounter: Encounter, ident: str, xy: tuple[float, float]) -> Encounter:
    """The light moved to ``xy`` (fast: no revalidation, for a drag's previews)."""
    lights = tuple(x.model_copy(update={"x": float(xy[0]), "y": float(xy[1])}) if x.id == ident else x
                   for x in encounter.lights)
    return encounter.model_copy(update={"lights": lights})


def delete_light(encounter: Encounter, ident: str) -> Encounter:
    encounter.light(ident)  # raises UnknownIdError
    return encounter.model_copy(update={"lights": tuple(x for x in encounter.lights if x.id != ident)})


def light_at(encounter: Encounter, x: float, y: float, slack: float) -> str | None:
    """The light whose centre is within ``slack`` metres of (x, y) (the nearest), else None."""
    best, best_d = None, slack
    for light in encounter.lights:
        d = math.hypot(light.x - x, light.y - y)
        if d <= best_d:
            best, best_d = light.id, d
    return best


def rim_at(encounter: Encounter, x: float, y: float, slack: float) -> str | None:
    """The light whose circle's rim passes within ``slack`` metres of (x, y), else None."""
    best, best_d = None, slack
    for light in encounter.lights:
        d = abs(math.hypot(light.x - x, light.y - y) - light.radius)
        if d <= best_d:
            best, best_d = light.id, d
    return best


# -- the layer ---------------------------------------------------------------------------------
class LightLayer(MapLayer):
    """Every light of the encounter as a soft circle (on: warm, fading to the rim; off: a
    dashed grey rim), a bulb at its centre and its name. GM's window only."""

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(-44)  # over the fog tint, under tokens
        self._lights: tuple = ()
        self.selected: str | None = None
        self.enabled = True

    def set_lights(self, lights: tuple, selected: str | None = None) -> None:
        if lights is self._lights and selected == self.selected:
            return
        self._lights, self.selected = lights, selected
        if lights and self.enabled:
            x0 = min(x.x - x.radius for x in lights)
            y0 = min(x.y - x.radius for x in lights)
            x1 = max(x.x + x.radius for x in lights)
            y1 = max(x.y + x.radius for x in lights)
            self._set_rect(QRectF(x0, y0, x1 - x0, y1 - y0), 80.0)
        else:
            self._set_rect(QRectF())
        self.update()

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        if not self.enabled or not self._lights:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for light in self._lights:
            c = QPointF(light.x, light.y)
            base = QColor(light.color) if light.color else LIGHT_COLOUR
            if light.on:
                g = QRadialGradient(c, light.radius)
                inner = QColor(base)
                inner.setAlpha(70)
                mid = QColor(base)
                mid.setAlpha(35)
                edge = QColor(base)
                edge.setAlpha(0)
                g.setColorAt(0.0, inner)
                g.setColorAt(0.7, mid)
                g.setColorAt(1.0, edge)
                painter.setPen(NO_PEN)
                painter.setBrush(QBrush(g))
                painter.drawEllipse(c, light.radius, light.radius)
                rim = QColor(base)
                rim.setAlpha(120)
                painter.setBrush(NO_BRUSH)
                painter.setPen(cosmetic(rim, 1.0, Qt.PenStyle.DotLine))
            else:
                painter.setBrush(NO_BRUSH)
                painter.setPen(cosmetic(LIGHT_OFF, 1.2, Qt.PenStyle.DashLine))
            if light.id == self.selected:
                painter.setPen(cosmetic(QColor("#ffffff"), 2.0, Qt.PenStyle.DashLine))
            painter.drawEllipse(c, light.radius, light.radius)
        tr = painter.transform()
        painter.save()
        painter.resetTransform()
        for light in self._lights:
            p = tr.map(QPointF(light.x, light.y))
            painter.setPen(cosmetic(QColor("#101418"), 1.5))
            painter.setBrush(QBrush(LIGHT_COLOUR if light.on else LIGHT_OFF))
            painter.drawEllipse(p, 6.0, 6.0)
            if self.options.show_labels:
                text = light.name or light.id
                if not light.on:
                    text += " (off)"
                draw_label(painter, p.x(), p.y() + 9, text, 11.0 * self.options.label_scale, anchor="top")
        painter.restore()


# -- the tool ----------------------------------------------------------------------------------
class LightTool(Tool):
    """Click the map to place a light; drag a light's bulb to move it, its rim to size it.
    Each is one undo step. ``on_pick(light_id)`` is told which light was placed or touched."""

    name = "Light"
    shortcut = ""
    tip = "Click to place a light; drag a light's centre to move it, its rim to change its radius"

    def __init__(self, host, on_pick=None):
        super().__init__(host)
        self.on_pick = on_pick
        self._drag: tuple[str, str, Pointer] | None = None  # (light id, "move"|"size", press)

    def press(self, p: Pointer) -> None:
        enc = self.doc.encounter
        slack = HANDLE_SLACK_PX * p.m_per_px
        hit = light_at(enc, p.x, p.y, slack)
        if hit is not None:
            self._drag = (hit, "move", p)
        else:
            rim = rim_at(enc, p.x, p.y, slack)
            self._drag = (rim, "size", p) if rim is not None else None
        if self._drag is not None and self.on_pick is not None:
            self.on_pick(self._drag[0])

    def _dragged(self, p: Pointer) -> Encounter | None:
        if self._drag is None:
            return None
        ident, what, start = self._drag
        enc = self.doc.committed
        if what == "move":
            return move_light(enc, ident, p.xy)
        light = enc.light(ident)
        r = max(0.1, math.hypot(p.x - light.x, p.y - light.y))
        lights = tuple(x.model_copy(update={"radius": r}) if x.id == ident else x for x in enc.lights)
        return enc.model_copy(update={"lights": lights})

    def move(self, p: Pointer) -> None:
        new = self._dragged(p)
        if new is not None:
            self.doc.preview(new)
            light = new.light(self._drag[0])
            self.host.status(f"{light.name or light.id}: ({light.x:.1f}, {light.y:.1f}) m, radius {light.radius:.1f} m")

    def release(self, p: Pointer) -> None:
        drag, self._drag = self._drag, None
        if drag is None:
            self._place(p)
            return
        ident, what, start = drag
        if p.px_to(start) < CLICK_PX:
            self.doc.cancel_preview()
            return
        self._drag = drag
        new = self._dragged(p)
        self._drag = None
        try:
            new = edits.checked(new)
        except ValueError as exc:
            self.doc.cancel_preview()
            self.host.status(f"Not done: {exc}")
            return
        self.doc.commit(new, "Move light" if what == "move" else "Resize light")

    def _place(self, p: Pointer) -> None:
        try:
            new, ident = add_light(self.doc.committed, p.xy)
        except ValueError as exc:
            self.host.status(f"Not done: {exc}")
            return
        if self.doc.commit(new, "Add light") and self.on_pick is not None:
            self.on_pick(ident)

    def busy(self) -> bool:
        return self._drag is not None

    def cancel(self) -> None:
        self._drag = None
        super().cancel()


__all__ = ["DEFAULT_RADIUS", "LightLayer", "LightTool", "add_light", "delete_light", "light_at", "move_light",
           "rim_at", "set_light"]
