"""Every obstacle in one cached path per height class, doors and hidden ones."""

from __future__ import annotations


from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsItem

from gui import style
from gui.qtgeom import rings_path
from gui.style import ViewOptions
from gui.layers.base import MapLayer
from gui.layers.paint import NO_BRUSH, cosmetic


DOOR_FILL = QColor("#7a4e24")  # closed doors: wood, apart from the grey walls
DOOR_EDGE = QColor("#f0c27a")  # their outline, dashed when open
WINDOW_FILL = QColor(150, 210, 255, 150)  # windows (Obstacle.kind "window"): pale glass
WINDOW_EDGE = QColor("#e8f6ff")


class ObstacleLayer(MapLayer):
    """Every obstacle in one cached path per height class (low, waist, full), plus hidden
    ones (GM view only, hatched), closed doors (wood-coloured, so the GM can tell them from
    walls), windows (pale glass, dotted edge) and open doors (dashed outline only)."""

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(-50)
        self._obstacles: tuple = ()
        self._paths: dict[str, QPainterPath] = {}
        self.build_count = 0

    def set_obstacles(self, obstacles: tuple) -> None:
        if obstacles is self._obstacles:
            return
        self._obstacles = obstacles
        self.rebuild()

    def rebuild(self) -> None:
        self.build_count += 1
        groups: dict[str, list] = {c: [] for c in style.HEIGHT_CLASSES}
        groups["hidden"], groups["open"], groups["door"], groups["window"] = [], [], [], []
        for o in self._obstacles:
            if not self.options.shows(o):
                continue
            if o.hidden:
                groups["hidden"].append(o.polygon)
            elif not o.blocks:
                groups["open"].append(o.polygon)
            elif o.door:
                groups["door"].append(o.polygon)
            elif o.kind == "window":
                groups["window"].append(o.polygon)
            else:
                groups[style.height_class(o.height)].append(o.polygon)
        self._paths = {name: rings_path(rings) for name, rings in groups.items() if rings}
        rect = QRectF()
        for path in self._paths.values():
            rect = rect.united(path.boundingRect())
        self._set_rect(rect)
        self.update()

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for cls in style.HEIGHT_CLASSES:
            path = self._paths.get(cls)
            if path is None:
                continue
            painter.setPen(cosmetic(style.HEIGHT_EDGE[cls], 1.4))
            painter.setBrush(QBrush(style.HEIGHT_FILL[cls]))
            painter.drawPath(path)
        path = self._paths.get("door")
        if path is not None:
            painter.setPen(cosmetic(DOOR_EDGE, 1.4))
            painter.setBrush(QBrush(DOOR_FILL))
            painter.drawPath(path)
        path = self._paths.get("window")
        if path is not None:
            painter.setPen(cosmetic(WINDOW_EDGE, 1.4, Qt.PenStyle.DotLine))
            painter.setBrush(QBrush(WINDOW_FILL))
            painter.drawPath(path)
        path = self._paths.get("open")
        if path is not None:
            painter.setPen(cosmetic(DOOR_EDGE, 1.4, Qt.PenStyle.DashLine))
            painter.setBrush(NO_BRUSH)
            painter.drawPath(path)
        path = self._paths.get("hidden")
        if path is not None:
            painter.setPen(cosmetic(QColor(200, 200, 200, 150), 1.2, Qt.PenStyle.DashLine))
            painter.setBrush(QBrush(QColor(200, 200, 200, 90), Qt.BrushStyle.BDiagPattern))
            painter.drawPath(path)
