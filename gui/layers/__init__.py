"""The map's layers, one graphics item each (not one item per object), one module a
layer; this package re-exports their names.

Each layer holds cached paths in map metres (x east, y south) built when its data changes,
an honest ``boundingRect`` (the map area it draws on, plus the pixel margin its labels
need), and calls ``prepareGeometryChange`` before that rect changes. Labels, badges and
handles are drawn in device pixels so they stay readable at any zoom. Static layers
(map ground and obstacles) use ``DeviceCoordinateCache``: during a token drag they are
blitted, not redrawn.

The layers only draw what they are given: the engine's answers come in through
:class:`gui.answers.LiveAnswers` and :class:`engine.analysis.Tactics`; no layer measures.
"""

from gui.labels import place_labels
from gui.layers.answer_layer import AnswerLayer, Badge, badge_for
from gui.layers.base import MapLayer
from gui.layers.ground import GroundLayer
from gui.layers.obstacles import DOOR_EDGE, DOOR_FILL, WINDOW_EDGE, WINDOW_FILL, ObstacleLayer
from gui.layers.overlay import OverlayLayer, Sketch, selection_sketch, zone_handles
from gui.layers.paint import (
    NO_BRUSH,
    NO_PEN,
    SPRITES,
    TEXT,
    with_alpha,
    device_ratio,
    cosmetic,
    draw_label,
    label_sprite,
    stamp,
)
from gui.layers.tokens import TokenBar, TokenDecoration, TokenLayer
from gui.layers.zones import ZoneLabelLayer, ZoneLayer

__all__ = [
    "AnswerLayer", "Badge", "DOOR_EDGE", "DOOR_FILL", "GroundLayer", "MapLayer", "NO_BRUSH", "NO_PEN",
    "ObstacleLayer", "OverlayLayer", "WINDOW_EDGE", "WINDOW_FILL", "SPRITES", "Sketch", "TEXT", "TokenBar", "TokenDecoration",
    "TokenLayer", "ZoneLabelLayer", "ZoneLayer", "with_alpha", "device_ratio", "badge_for", "cosmetic", "draw_label", "label_sprite",
    "place_labels", "selection_sketch", "stamp", "zone_handles",
]
