"""How the map looks: palette, height classes, and the options a view draws with.

One :class:`ViewOptions` value per view: the GM's window draws everything; a player view
(or a snapshot) hides hidden tokens and obstacles, GM-only marks and handles, and may use
larger labels. Colours are chosen for a dark map that stays legible through a compressed
screen share (light fills, dark outlines, labels on dark pills).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace

from PySide6.QtGui import QColor, QFont

# -- obstacle height classes (metres) -----------------------------------------------------------
#: Upper bounds of the low and waist-high classes: low < 1.2 m <= waist < 2.0 m <= full.
LOW_MAX = 1.2
FULL_MIN = 2.0
HEIGHT_CLASSES = ("low", "waist", "full")
HEIGHT_LABELS = {"low": "low  < 1.2 m", "waist": "waist  1.2 - 2 m", "full": "full  \u2265 2 m"}
HEIGHT_FILL = {"low": QColor("#8d7b52"), "waist": QColor("#c07a35"), "full": QColor("#54606e")}
HEIGHT_EDGE = {"low": QColor("#e3cf96"), "waist": QColor("#f3b26b"), "full": QColor("#aab6c3")}


def height_class(height: float) -> str:
    """``"low"`` below 1.2 m, ``"full"`` from 2 m, else ``"waist"``."""
    if height < LOW_MAX:
        return "low"
    if height >= FULL_MIN:
        return "full"
    return "waist"


# -- map -----------------------------------------------------------------------------------------
MAP_BACKDROP = QColor("#15191e")  # outside the map
MAP_GROUND = QColor("#232a31")  # the map's own area
GRID_MINOR = QColor(255, 255, 255, 22)
GRID_MAJOR = QColor(255, 255, 255, 48)
MAP_EDGE = QColor("#6d7a88")

# -- sides ---------------------------------------------------------------------------------------
SIDE_COLOURS = {  # (colours only: who the party is is the engine's, engine.vision.player_sides)
    "runner": QColor("#35b8f2"),
    "runners": QColor("#35b8f2"),
    "player": QColor("#35b8f2"),
    "players": QColor("#35b8f2"),
    "pc": QColor("#35b8f2"),
    "pcs": QColor("#35b8f2"),
    "party": QColor("#35b8f2"),
    "ally": QColor("#66bb6a"),
    "allies": QColor("#66bb6a"),
    "ganger": QColor("#f0524f"),
    "enemy": QColor("#f0524f"),
    "hostile": QColor("#f0524f"),
    "security": QColor("#ffa726"),
    "neutral": QColor("#b0b7bf"),
}
_EXTRA = ["#ab47bc", "#26a69a", "#ffca28", "#8d6e63", "#ec407a", "#7e57c2", "#9ccc65", "#29b6f6"]


_SIDE_MEMO: dict[str, QColor] = {}


def side_colour(side: str) -> QColor:
    """A side's disc colour: fixed for the common names, else stable by name (a shared
    value: copy it before changing it)."""
    c = _SIDE_MEMO.get(side)
    if c is None:
        known = SIDE_COLOURS.get(side.lower())
        c = QColor(known) if known is not None else QColor(_EXTRA[zlib.crc32(side.encode("utf-8")) % len(_EXTRA)])
        _SIDE_MEMO[side] = c
    return c


ZONE_DEFAULTS = {
    "suppressive": "#ff7043",
    "shotgun": "#ab47bc",
    "blast": "#ffca28",
    "circle": "#26c6da",
    "cone": "#ef5350",
    "line": "#9ccc65",
    "rect": "#5c6bc0",
}


def zone_colour(zone) -> QColor:
    """A zone's colour: its own ``color`` or the default for its kind."""
    return QColor(zone.color or ZONE_DEFAULTS.get(zone.kind, "#ff7043"))


#: The ink of a text written on a cover class's colour (the Targets table's Cover cells).
COVER_TEXT = QColor("#101418")
COVER_COLOURS = {
    "none": QColor("#cfd8dc"),
    "partial": QColor("#ffe082"),
    "good": QColor("#ffab40"),
    "full": QColor("#ff5252"),
}
OUT_OF_RANGE = QColor("#90a4ae")
BAND_SHORT = {"short": "S", "medium": "M", "long": "L", "extreme": "E"}
#: The legend's line for the badge letters (range band, then its modifier).
BAND_LEGEND = "S short  M medium  L long  E extreme (and the band's modifier)"

SIGHT_CLEAR = QColor("#fff59d")
CHARGE_COLOUR = QColor("#80deea")
RUNUP_COLOUR = QColor("#ffffff")
SELECT_COLOUR = QColor("#ffffff")
HANDLE_FILL = QColor("#ffd54f")
PREVIEW_COLOUR = QColor("#80cbc4")
LABEL_PILL = QColor(10, 12, 16, 190)
LABEL_TEXT = QColor("#f5f7fa")


@dataclass(frozen=True)
class ViewOptions:
    """What a map view draws. ``player=True`` is the players' view: hidden tokens,
    obstacles and zones are left out, and no GM-only marks (selection handles, hidden
    flags) appear. ``label_scale`` multiplies every label's pixel size."""

    player: bool = False
    label_scale: float = 1.0
    show_grid: bool = True
    show_labels: bool = True
    show_badges: bool = True
    show_zones: bool = True
    show_zone_rings: bool = True
    show_sight: bool = True
    show_charge: bool = True
    show_legend: bool = True
    show_scale_bar: bool = True
    show_selection: bool = True
    show_background: bool = True
    title: str | None = None
    #: The least disc radius (pixels) tokens are drawn at, however far out the view is (issue
    #: 30 item 7: 11, a 22 px disc, on screen; exports at print scale draw nearer true size).
    min_token_px: float = 11.0

    def with_(self, **changes) -> "ViewOptions":
        return replace(self, **changes)

    @property
    def label_px(self) -> float:
        """Pixel size of token name labels."""
        return 14.0 * self.label_scale

    @property
    def badge_px(self) -> float:
        return 12.0 * self.label_scale

    def shows(self, item) -> bool:
        """Whether this view draws ``item`` (a token, obstacle or zone) at all."""
        return not (self.player and getattr(item, "hidden", False))


GM_VIEW = ViewOptions()
PLAYER_VIEW = ViewOptions(player=True, label_scale=1.4, show_selection=False, show_sight=False, show_charge=False,
                          min_token_px=5.0)  # (the players' screen: as before issue 30; see min_token_px)


def ui_font(px: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(max(6, int(round(px))))
    f.setBold(bold)
    return f


def metres(value: float) -> str:
    """A length on the map as zone labels show it: whole metres ("22 m"), one precision for
    every zone label (a 10.33 m width reads "10 m")."""
    return f"{value:.0f} m"
