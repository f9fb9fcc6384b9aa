"""The player view: a second top-level window made for screen sharing.

It shows the GM's document to the players: no toolbars or docks, no hidden tokens,
obstacles or zones, no GM notes, no selection handles, sight lines or charge paths, no
ids of unnamed tokens. The GM chooses what else players see (:class:`PlayerOptions`:
names, condition bars, zones, cover badges, range rings, grid, legend, label size) and
those choices persist in QSettings. The window's title is the GM's, so it can be picked in
a screen-share app's window list.

It follows the GM's view (pan and zoom) or stays where pinned, updates live while the GM
drags (it listens to the same document's ``changed`` signal, previews included), can be
blanked between scenes (a neutral card with the title), and can go full screen on any
screen.

Two extra layers live here and are also used by snapshots (:mod:`gui.snapshot`):
:class:`ConditionLayer` (condition bars from the rule system's sheet values) and
:class:`RangeRingLayer` (the selected attacker's weapon range bands, from the engine).

What the players know (#18): the window draws a :class:`gui.player_document.PlayerDocument`
(the engine's ``players_knowledge``: no hidden obstacle, token or zone, and with the fog on
only the tokens the party is shown), so its badges, range rings and zone hits are worked
out without hidden walls; with the encounter's fog on it draws the fog
(:class:`gui.layers.fog.FogLayer`: unexplored dark, explored dimmed, in sight clear).

Made for a screen share (#26): the window draws a fixed 16:9 canvas (1280x720 or
1920x1080, :data:`CANVASES`) letterboxed at any window size, everything sized in canvas
pixels and drawn at the window's resolution; the turn banner and revealed rolls over it
(:mod:`gui.player_overlays`), the GM's pings (:mod:`gui.pings`), the camera on the acting
token when asked. Its size, screen, full screen and stay-on-top are remembered; the GM's
window shows what it shows in the "Players see" dock (:mod:`gui.players_inset`).

Menus (added to every main window through :func:`gui.main_window.register_extension`):
View > Player View (Ctrl+Shift+P), Player View Options..., Player view follows my view,
Player camera follows the acting token, Player view stays on top, Blank player view
(Ctrl+B), Ping at the mouse (Q; Alt+click on the map pings too), Player view full screen
on > (each screen).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from PySide6.QtCore import QByteArray, QEvent, QObject, QPointF, QRect, QRectF, QSettings, QSize, Qt, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QCursor, QGuiApplication, QKeyEvent, QPainter, QPen, QPixmap, QScreen
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QStackedLayout,
    QVBoxLayout,
    QWidget,
)

from engine.model import Encounter, Token
from engine.rules import Track
from engine.turn_banner import turn_banner
from engine.vision import is_players
from gui import style
from gui.answers import LiveAnswers
from gui.document import DocumentChange, EncounterDocument
from gui.idle import IdleJob
from gui.layers import NO_BRUSH, NO_PEN, TEXT, MapLayer, cosmetic, draw_label
from gui.layers.fog import FogLayer
from gui.layers.paint import ensure_pixmap_cache
from gui.map_view import MapView
from gui.party_sight import PartySight
from gui.pings import PingLayer, Pings
from gui.player_document import PlayerAnswers, PlayerDocument
from gui.player_overlays import BlankCard, RevealedRoll, TurnBanner
from gui.selection import Selection
from gui.style import PLAYER_VIEW, ViewOptions

SETTINGS_GROUP = "playerView"
#: The key that pings at the mouse (Alt+click pings too).
PING_KEY = "Q"
#: The players' canvas sizes (:attr:`PlayerOptions.canvas`), canvas pixels.
CANVASES = {"1280x720": (1280, 720), "1920x1080": (1920, 1080)}


# -- what a token's condition is -------------------------------------------------------------
#: One damage track of a token (``engine.rules.Track``: ``label``, ``taken`` of ``size``, ``left``).
ConditionTrack = Track


def condition_tracks(encounter: Encounter, token: Token) -> tuple[ConditionTrack, ...]:
    """The damage tracks a token's sheet has under the encounter's rule system
    (``RuleSystem.condition_tracks``: SR5 Physical and Stun monitors, d100 injury out of
    ``max_injury``; Static Veil sheets have no maximum, so no bar). No sheet: no tracks."""
    return encounter.system.condition_tracks(encounter, token.id)


TRACK_COLOURS = {"Physical": QColor("#66bb6a"), "Stun": QColor("#4fc3f7"), "Injury": QColor("#66bb6a")}
HURT_COLOUR = QColor("#ef5350")


def _track_colour(track: ConditionTrack) -> QColor:
    """Physical/injury bars shade from green to red as they empty; Stun stays blue."""
    base = TRACK_COLOURS.get(track.label, QColor("#66bb6a"))
    if track.label == "Stun":
        return base
    f = track.left
    return QColor.fromRgbF(base.redF() * f + HURT_COLOUR.redF() * (1 - f),
                           base.greenF() * f + HURT_COLOUR.greenF() * (1 - f),
                           base.blueF() * f + HURT_COLOUR.blueF() * (1 - f))


# -- extra layers ------------------------------------------------------------------------------
class ConditionLayer(MapLayer):
    """Condition bars beside the tokens' name labels (to the right of the name pill, so
    the attacker's badges above the tokens never cover them; under the disc when names
    are off): one thin bar per track, filled by the share still unharmed. Drawn in device
    pixels; no numbers (players read the bar, not the boxes)."""

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(5)
        self._bars: list[tuple[float, float, float, str, tuple[ConditionTrack, ...]]] = []
        self._ids: list[str] = []
        #: the view's :class:`gui.layers.TokenLayer`: bars follow a name its label layout moved
        self.labels = None
        self.show_npcs = False
        self.enabled = True

    def set_tokens(self, encounter: Encounter) -> None:
        bars, ids = [], []
        if self.enabled:
            for t in encounter.tokens:
                if not self.options.shows(t):
                    continue
                # the party is the engine's (``engine.vision.is_players``: the encounter's
                # ``sight.player_sides``, the fog's party too); other sides are NPCs
                if self.options.player and not self.show_npcs and not is_players(encounter, t):
                    continue
                tracks = condition_tracks(encounter, t)
                if tracks:
                    label = t.name or (t.side if self.options.player else t.id)
                    bars.append((t.x, t.y, t.radius, label, tracks))
                    ids.append(t.id)
        self._bars, self._ids = bars, ids
        if bars:
            xs = [b[0] for b in bars]
            ys = [b[1] for b in bars]
            r = max(b[2] for b in bars)
            rect = QRectF(min(xs) - r, min(ys) - r, max(xs) - min(xs) + 2 * r, max(ys) - min(ys) + 2 * r)
        else:
            rect = QRectF()
        self._set_rect(rect, 220.0 * self.options.label_scale)
        self.update()

    def bars(self) -> list[tuple[float, float, float, tuple[ConditionTrack, ...]]]:
        """(x, y, radius, tracks) of each token with bars, metres."""
        return [(x, y, r, tracks) for x, y, r, _, tracks in self._bars]

    def bar_rects(self, m_per_px: float) -> list[list[QRectF]]:
        """Where each token's bars go at ``m_per_px`` metres per pixel, in pixels relative
        to the token's centre (one rect per track)."""
        from gui.layers import TokenLayer

        s = self.options.label_scale
        px_per_m = 1.0 / m_per_px
        names = self.options.show_labels and px_per_m >= TokenLayer.LABEL_MIN_PX_PER_M
        out = []
        for tid, (_, _, r, label, tracks) in zip(self._ids, self._bars):
            rp = r * px_per_m
            n = len(tracks)
            rects = []
            if names:
                _, w, h = TEXT.get(label, self.options.label_px, True)
                pill_w, pill_h = w + 0.7 * h, 1.12 * h
                left, top = pill_w / 2 + 3, rp + 3
                bh = max(3.0, min(6.0 * s, (pill_h - 2 * (n - 1)) / n))
                y = top + (pill_h - n * bh - 2 * (n - 1)) / 2
                ox, oy = self.labels.label_offset(tid, px_per_m) if self.labels is not None else (0.0, 0.0)
                for _ in tracks:
                    rects.append(QRectF(left + ox, y + oy, 30.0 * s, bh))
                    y += bh + 2
            else:
                w = max(2 * rp, 30.0 * s)
                y = rp + 3
                for _ in tracks:
                    rects.append(QRectF(-w / 2, y, w, 4.0 * s))
                    y += 4.0 * s + 2
            out.append(rects)
        return out

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        if not self._bars:
            return
        tr = painter.transform()
        px_per_m = abs(tr.m11()) or 1.0
        layout = self.bar_rects(1.0 / px_per_m)
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for (x, y, _, _, tracks), rects in zip(self._bars, layout):
            c = tr.map(QPointF(x, y))
            for track, rect in zip(tracks, rects):
                frame = rect.translated(c.x(), c.y())
                painter.setPen(NO_PEN)
                painter.setBrush(QBrush(QColor(10, 12, 16, 220)))
                painter.drawRoundedRect(frame.adjusted(-1.5, -1.5, 1.5, 1.5), 2, 2)
                painter.setBrush(QBrush(_track_colour(track)))
                painter.drawRect(QRectF(frame.left(), frame.top(), frame.width() * track.left, frame.height()))
        painter.restore()


class RangeRingLayer(MapLayer):
    """Circles round the attacker at each range band's outer edge of its weapon (the
    engine's ``weapon_bands``; distance centre to centre, as the engine measures), each
    labelled with band, modifier and metres."""

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(-40)
        self._centre: tuple[float, float] | None = None
        self._bands: tuple = ()
        self._map = QRectF()
        self.enabled = False

    def set_attacker(self, encounter: Encounter, answers: LiveAnswers) -> None:
        self._centre, self._bands = None, ()
        a = answers.attacker
        tactics = answers.document.tactics
        if self.enabled and a is not None and tactics is not None:
            t = encounter.token(a)
            if self.options.shows(t):
                try:
                    w = tactics.weapon_of(a, answers.selection.weapon)
                except ValueError:
                    w = None
                if w is not None:
                    from engine.analysis import weapon_bands

                    self._bands, _ = weapon_bands(t, w)
                    self._centre = (t.x, t.y)
                    self._map = QRectF(0, 0, encounter.map.width, encounter.map.height)
        if self._centre and self._bands:
            r = max(b.max for b in self._bands)
            cx, cy = self._centre
            self._set_rect(QRectF(cx - r, cy - r, 2 * r, 2 * r), 60.0 * self.options.label_scale)
        else:
            self._set_rect(QRectF())
        self.update()

    LABEL_ANGLES = (-60, -120, 60, 120, -30, -150, 30, 150, 0, 180, -90, 90)

    def label_point(self, radius: float, seen: QRectF) -> tuple[float, float] | None:
        """Where on a ring of ``radius`` metres its label goes: the first of
        :data:`LABEL_ANGLES` (degrees, 0 east, 90 south) whose point lies in ``seen``
        (the visible part of the map, metres); None when none does."""
        cx, cy = self._centre
        for deg in self.LABEL_ANGLES:
            a = math.radians(deg)
            x, y = cx + radius * math.cos(a), cy + radius * math.sin(a)
            if seen.contains(QPointF(x, y)):
                return (x, y)
        return None

    def rings(self) -> list[tuple[str, float, int]]:
        """(band, radius in metres, modifier) of the rings drawn now."""
        return [(b.band, b.max, b.modifier) for b in self._bands] if self._centre else []

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        if not self._centre or not self._bands:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        cx, cy = self._centre
        painter.setBrush(NO_BRUSH)
        for b in self._bands:
            painter.setPen(cosmetic(QColor(0, 0, 0, 140), 3.5))
            painter.drawEllipse(QPointF(cx, cy), b.max, b.max)
            painter.setPen(cosmetic(QColor(255, 241, 118, 190), 1.6, Qt.PenStyle.DashLine))
            painter.drawEllipse(QPointF(cx, cy), b.max, b.max)
        tr = painter.transform()
        seen = QRectF(self._map)
        if painter.hasClipping():
            seen = seen.intersected(painter.clipBoundingRect())
        seen = seen.adjusted(1, 1, -1, -1)
        painter.save()
        painter.resetTransform()
        px = 11.0 * self.options.label_scale
        for b in self._bands:
            at = self.label_point(b.max, seen)
            if at is None:
                continue
            p = tr.map(QPointF(*at))
            mod = f"{b.modifier:+d}".replace("-", "\u2212") if b.modifier else "0"
            draw_label(painter, p.x(), p.y(), f"{b.band} {mod}  {b.max:g} m", px, anchor="center",
                       bold=True, fg=QColor("#101418"), bg=QColor(255, 241, 118, 220))
        painter.restore()


# -- the players' choices ----------------------------------------------------------------------
@dataclass(frozen=True)
class PlayerOptions:
    """What the GM lets players see. ``label_scale`` multiplies label sizes (1.4 reads well
    through a 1080p screen share); ``npc_conditions`` shows condition bars of tokens outside
    the party too (the players' sides, ``engine.vision.player_sides``); ``title_on_map`` also prints the title over the map.
    ``canvas`` is the players' fixed 16:9 canvas (a key of :data:`CANVASES`); ``on_top``
    keeps the players' window above the GM's; ``banner`` shows whose turn it is;
    ``follow_acting`` centres the players' camera on the acting token when the turn passes."""

    title: str = ""
    names: bool = True
    conditions: bool = True
    npc_conditions: bool = False
    zones: bool = True
    badges: bool = True
    range_rings: bool = False
    grid: bool = True
    legend: bool = True
    scale_bar: bool = True
    title_on_map: bool = False
    label_scale: float = 1.4
    follow: bool = True
    canvas: str = "1280x720"
    on_top: bool = False
    banner: bool = True
    follow_acting: bool = False

    def canvas_size(self) -> tuple[int, int]:
        """The canvas's (width, height) in canvas pixels (the default for an unknown key)."""
        return CANVASES.get(self.canvas, CANVASES["1280x720"])

    def with_(self, **changes) -> "PlayerOptions":
        return replace(self, **changes)

    def view_options(self) -> ViewOptions:
        """The map view options of a player view with these choices."""
        return PLAYER_VIEW.with_(
            label_scale=max(0.5, min(4.0, float(self.label_scale))),
            show_labels=self.names, show_zones=self.zones, show_zone_rings=self.zones,
            show_badges=self.badges, show_grid=self.grid, show_legend=self.legend,
            show_scale_bar=self.scale_bar, title=(self.title or None) if self.title_on_map else None,
            show_selection=False, show_sight=False, show_charge=False,
        )

    # QSettings round trip
    def save(self, settings: QSettings) -> None:
        settings.beginGroup(SETTINGS_GROUP)
        for f in fields(self):
            settings.setValue(f.name, getattr(self, f.name))
        settings.endGroup()

    @classmethod
    def load(cls, settings: QSettings) -> "PlayerOptions":
        """The saved choices (defaults for anything missing or unreadable)."""
        out = {}
        settings.beginGroup(SETTINGS_GROUP)
        for f in fields(cls):
            v = settings.value(f.name)
            if v is None:
                continue
            default = f.default
            try:
                if isinstance(default, bool):
                    out[f.name] = v if isinstance(v, bool) else str(v).lower() in ("true", "1", "yes")
                elif isinstance(default, float):
                    out[f.name] = float(v)
                else:
                    out[f.name] = str(v)
            except (TypeError, ValueError):
                continue
        settings.endGroup()
        if out.get("canvas") not in CANVASES:
            out.pop("canvas", None)
        return cls(**out)


# -- a map view with the extra layers ------------------------------------------------------------
class SharedMapView(MapView):
    """A read-only :class:`MapView` of a shared document with condition bars, range rings
    and the fog (used by the player window and by snapshots). ``extras`` holds the choices
    the :class:`ViewOptions` do not cover. The fog is drawn when the document is a
    :class:`PlayerDocument` whose encounter has the fog on (its ``view``)."""

    def __init__(self, document: EncounterDocument, selection: Selection, answers: LiveAnswers,
                 options: ViewOptions, extras: PlayerOptions | None = None, parent: QWidget | None = None):
        self._extras_ready = False
        super().__init__(document, selection, answers, options, interactive=False, parent=parent)
        self.extras = extras or PlayerOptions()
        self.conditions = ConditionLayer(options)
        self.conditions.labels = self.tokens
        self.range_rings = RangeRingLayer(options)
        self.fog = FogLayer(options)
        for layer in (self.conditions, self.range_rings, self.fog):
            self.layers.append(layer)
            self.vb.addItem(layer, ignoreBounds=True)
            layer.set_pixel_size(self.m_per_px())
        self._extras_ready = True
        self._apply_extras()
        self._refresh_fog()

    def _refresh_fog(self) -> None:
        """Draw the party's fog of the document (none without one, or with the fog off)."""
        self.fog.set_view(self.document.encounter, getattr(self.document, "view", None))

    def set_extras(self, extras: PlayerOptions) -> None:
        self.extras = extras
        self._apply_extras()

    def _apply_extras(self) -> None:
        self.conditions.enabled = self.extras.conditions
        self.conditions.show_npcs = self.extras.npc_conditions or not self.options.player
        self.range_rings.enabled = self.extras.range_rings
        self._refresh_extras()

    def _refresh_extras(self) -> None:
        if not self._extras_ready:
            return
        enc = self.document.encounter
        self.conditions.set_tokens(enc)
        self.range_rings.set_attacker(enc, self.answers)

    def set_options(self, options: ViewOptions) -> None:
        super().set_options(options)
        self.tokens.set_tokens(self.display_tokens(self.document.encounter.tokens))
        self._apply_extras()

    def _on_document(self, change: DocumentChange) -> None:
        super()._on_document(change)
        if self._extras_ready:
            # (the sight settings name the players' sides: who gets bars)
            if change.reset or change.diff.tokens or change.diff.token_looks or change.diff.sight:
                self.conditions.set_tokens(self.document.encounter)
            self._refresh_fog()

    def display_tokens(self, tokens: tuple) -> tuple:
        """The tokens as labelled here: for players an unnamed token is labelled with its
        side ("ganger"), never its id ("ganger-3" would number the NPCs for them)."""
        if not self.options.player or all(t.name for t in tokens):
            return tokens
        if getattr(self, "_display_for", None) is tokens:
            return self._display
        # the labelled copy of a token is kept while the token is the same value, so a drag
        # hands the token layer the same objects but for the moved one
        copies = getattr(self, "_copies", {})  # token id -> (token, its labelled copy)
        fresh: dict[str, tuple] = {}
        out = []
        for t in tokens:
            if t.name:
                out.append(t)
                continue
            hit = copies.get(t.id)
            if hit is None or hit[0] is not t:
                hit = (t, t.model_copy(update={"name": t.side}))
            fresh[t.id] = hit
            out.append(hit[1])
        self._copies = fresh
        self._display_for, self._display = tokens, tuple(out)
        return self._display

    def _on_answers(self) -> None:
        super()._on_answers()
        if self._extras_ready:
            self.range_rings.set_attacker(self.document.encounter, self.answers)

    def token_tooltip(self, token_id: str) -> str:
        """Players' tooltips: name and zones only (never an id, notes or numbers)."""
        text = super().token_tooltip(token_id)
        if not self.options.player or not text:
            return text
        t = self.document.encounter.token(token_id)
        lines = text.split("\n")
        lines[0] = t.name or t.side
        return "\n".join(lines)

    def mouseDoubleClickEvent(self, ev) -> None:  # no editing from here
        ev.accept()

    def keyPressEvent(self, ev: QKeyEvent) -> None:
        ev.ignore()  # let the player window handle its keys


class PlayerWindow(QWidget):
    """The player view window on one document (shared with the GM's window).

    It draws a fixed 16:9 canvas (:attr:`PlayerOptions.canvas`: 1280x720 or 1920x1080)
    letterboxed in the window: the canvas fills the largest 16:9 rect of the window (black
    bars beside or above it), and everything in it, labels, banner, pings, is sized in
    canvas pixels times :meth:`canvas_scale`, drawn at the window's own resolution, so the
    picture is the same, and crisp, whatever the window's size.

    ``follow(gm_view)`` ties its pan and zoom to the GM's map; :attr:`following` switches
    that off (pinned: the view stays, the GM can still pan it with the right or middle
    button and zoom with the wheel). With :attr:`PlayerOptions.follow_acting` the camera
    centres on the acting token when the turn passes (or it moves). Keys in this window: F11
    full screen, Esc leave full screen, B blank/reveal, P pin/follow."""

    blankChanged = Signal(bool)
    followChanged = Signal(bool)
    #: the canvas was painted anew or changed what it shows (for the GM's inset)
    pictureChanged = Signal()
    #: the window was closed (its close button, or the system)
    closed = Signal()

    def __init__(self, document: EncounterDocument, selection: Selection, answers: LiveAnswers,
                 options: PlayerOptions | None = None, gm_view: MapView | None = None,
                 parent: QWidget | None = None, sight: PartySight | None = None, pings=None):
        super().__init__(parent, Qt.WindowType.Window)
        self.document = document
        self.options = options or PlayerOptions()
        self.gm_view = gm_view
        self.setObjectName("coverfire_player_view")
        #: the party's sight (shared with the GM's window when it gives one)
        self.sight = sight if sight is not None else PartySight(document, self)
        #: what the players know (drawn here) and the answers worked out from it
        self.players = PlayerDocument(document, self.sight, self)
        self.player_answers = PlayerAnswers(self.players, selection, self)
        #: the letterboxed 16:9 canvas: the map (or the blank card) and what lies over it
        self.stage = QWidget(self)
        self.stage.setObjectName("players_canvas")
        self._scale = 1.0
        self.view = SharedMapView(self.players, selection, self.player_answers, self._view_options(),
                                  self.options, self.stage)
        # while the GM drags, the players' canvas repaints whole at most every 0.1 s
        from gui.player_repaint import PreviewRepaint

        self.preview_repaint = PreviewRepaint(self.view, document, self)
        self.ping_layer = PingLayer(self.view.options)
        self.view.layers.append(self.ping_layer)
        self.view.vb.addItem(self.ping_layer, ignoreBounds=True)
        if pings is not None:
            pings.attach(self.ping_layer)
        self.card = BlankCard(self.stage)
        self._stack = QStackedLayout(self.stage)
        self._stack.setContentsMargins(0, 0, 0, 0)
        self._stack.addWidget(self.view)
        self._stack.addWidget(self.card)
        self.banner = TurnBanner(self.stage)
        self.banner.enabled = self.options.banner
        self.roll = RevealedRoll(self.stage, below=self.banner)
        self._blank = False
        self._following = False
        self._acting_at: tuple | None = None
        self._rescale_later = IdleJob(self._apply_scale)
        self.resize(*self.options.canvas_size())
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._apply_title()
        self._apply_on_top()
        document.changed.connect(self._on_document)
        self.players.changed.connect(self._on_players)
        # a paint of the map (or the card) is a new picture; (not the scene's ``changed``
        # signal: connecting it sends every item's update through the scene, off Qt's
        # direct path to the views)
        self._grabbing = False
        for w in (self.view.viewport(), self.card):
            w.installEventFilter(self)
        if gm_view is not None:
            gm_view.vb.sigRangeChanged.connect(self._on_gm_range)
        self.set_following(self.options.follow)
        self._refresh_banner()

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 - Qt API
        if ev.type() == QEvent.Type.Paint and not self._grabbing:
            self.pictureChanged.emit()
        return False

    def grab_canvas(self) -> QPixmap:
        """The canvas as the players see it now (its own size), without counting as a new
        picture."""
        self._grabbing = True
        try:
            return self.stage.grab()
        finally:
            self._grabbing = False

    # -- the canvas --------------------------------------------------------------------------
    def canvas_size(self) -> QSize:
        """The players' canvas in canvas pixels (1280x720 or 1920x1080), whatever the window."""
        return QSize(*self.options.canvas_size())

    def canvas_rect(self) -> QRect:
        """Where the canvas lies in the window (window pixels): the largest 16:9 rect, centred."""
        return letterbox(self.size(), self.canvas_size())

    def canvas_scale(self) -> float:
        """Window pixels per canvas pixel."""
        return self._scale

    def _view_options(self) -> ViewOptions:
        o = self.options.view_options()
        return o.with_(label_scale=o.label_scale * self._scale)

    def _layout_stage(self) -> None:
        rect = self.canvas_rect()
        if self.stage.geometry() != rect:
            self.stage.setGeometry(rect)
        scale = rect.width() / max(1, self.canvas_size().width())
        if abs(scale - self._scale) > 1e-3:
            self._scale = scale
            self._rescale_later.start()  # (a window dragged to a new size: once, at the end)
        for pill in (self.banner, self.roll):
            pill.set_scale(scale)

    def _apply_scale(self) -> None:
        opts = self._view_options()
        if opts != self.view.options:
            self.view.set_options(opts)
            self.ping_layer.options = opts
            if self._following:
                self.sync_to_gm()
        self.pictureChanged.emit()

    def paintEvent(self, ev) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), Qt.GlobalColor.black)  # the letterbox bars
        p.end()

    # -- title, options --------------------------------------------------------------------
    def title(self) -> str:
        """The window title: the GM's, else the encounter's name and "players"."""
        return self.options.title.strip() or f"{self.document.encounter.name} \u2014 players"

    def _apply_title(self) -> None:
        t = self.title()
        if t != self.windowTitle():
            self.setWindowTitle(t)
            self.card.set_title(t)

    def _apply_on_top(self) -> None:
        on = bool(self.options.on_top)
        if bool(self.windowFlags() & Qt.WindowType.WindowStaysOnTopHint) != on:
            shown = self.isVisible()
            self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint, on)
            if shown:
                self.show()  # (changing a window's flags hides it)

    @property
    def on_top(self) -> bool:
        return bool(self.windowFlags() & Qt.WindowType.WindowStaysOnTopHint)

    def set_options(self, options: PlayerOptions) -> None:
        """Show with other choices (applied at once)."""
        old = self.options
        self.options = options
        self.view.set_options(self._view_options())
        self.ping_layer.options = self.view.options
        self.view.set_extras(options)
        self._apply_title()
        self._apply_on_top()
        self.banner.enabled = options.banner
        self._refresh_banner()
        if options.canvas != old.canvas:
            self._layout_stage()
            self._apply_scale()
        if options.follow != self._following:
            self.set_following(options.follow)
        if options.follow_acting and not old.follow_acting:
            self._acting_at = None
            self._follow_acting()

    def _on_document(self, change: DocumentChange) -> None:
        if not change.preview:
            self._apply_title()  # the encounter's name may have changed
        if change.reset and self._following:
            self.sync_to_gm()

    def _on_players(self, change: DocumentChange) -> None:
        if change.preview:
            return
        self._refresh_banner()
        self._follow_acting()

    # -- the turn banner, the camera on the acting token, revealed rolls --------------------------
    def _refresh_banner(self) -> None:
        self.banner.set_text(turn_banner(self.players.encounter, lambda t: t.name or t.side))
        self.banner.setVisible(bool(self.banner.lines) and self.banner.enabled and not self._blank)
        self.roll.place()

    def acting_token(self) -> Token | None:
        """The acting token, when the players know of it (else None)."""
        enc = self.players.encounter
        turn = enc.system.current_turn(enc)
        if turn is None or turn.actor is None:
            return None
        return next((t for t in enc.tokens if t.id == turn.actor), None)

    def _follow_acting(self) -> None:
        if not self.options.follow_acting:
            return
        t = self.acting_token()
        at = (t.id, t.x, t.y) if t is not None else None
        if t is None or at == self._acting_at:
            return
        self._acting_at = at
        self.centre_on(t.x, t.y)

    def centre_on(self, x: float, y: float) -> None:
        """Centre the view on map point (x, y) metres, keeping the zoom."""
        r = self.view.vb.viewRect()
        self.view.auto_fit = False
        self.view.vb.setRange(QRectF(x - r.width() / 2, y - r.height() / 2, r.width(), r.height()), padding=0.0)

    def reveal_roll(self, lines) -> None:
        """Show ``lines`` (a roll's log lines) to the players for a few seconds."""
        self.roll.reveal(lines)
        self.pictureChanged.emit()

    # -- follow or pin -------------------------------------------------------------------------
    @property
    def following(self) -> bool:
        return self._following

    def set_following(self, on: bool) -> None:
        """Follow the GM's pan and zoom (True) or stay where it is now (False, pinned)."""
        on = bool(on) and self.gm_view is not None
        changed = on != self._following
        self._following = on
        self.options = self.options.with_(follow=on)
        if on:
            self.sync_to_gm()
        if changed:
            self.followChanged.emit(on)

    def sync_to_gm(self) -> None:
        """Show (at least) the map area the GM's view shows now."""
        if self.gm_view is None:
            return
        rect = self.gm_view.vb.viewRect()
        if rect.width() > 0 and rect.height() > 0:
            self.view.vb.setRange(rect, padding=0.0)

    def _on_gm_range(self, *_):
        if self._following:
            self.sync_to_gm()

    def view_rect(self) -> QRectF:
        """The map area (metres) this view shows now."""
        return self.view.vb.viewRect()

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        self._layout_stage()
        if self._following:
            self.sync_to_gm()

    # -- blank / reveal --------------------------------------------------------------------------
    @property
    def blank(self) -> bool:
        return self._blank

    def set_blank(self, on: bool) -> None:
        """Hide the map behind the title card (True) or show it (False)."""
        on = bool(on)
        if on == self._blank:
            return
        self._blank = on
        self._stack.setCurrentWidget(self.card if on else self.view)
        self.banner.setVisible(not on and bool(self.banner.lines) and self.banner.enabled)
        self.roll.set_blank(on)
        self.roll.place()
        self.blankChanged.emit(on)
        self.pictureChanged.emit()

    # -- screens -----------------------------------------------------------------------------
    def show_full_screen(self, screen: QScreen | int | None = None) -> None:
        """Full screen on ``screen`` (a QScreen or an index into ``QGuiApplication.screens()``;
        None: the screen it is on)."""
        if isinstance(screen, int):
            screens = QGuiApplication.screens()
            if not 0 <= screen < len(screens):
                raise ValueError(f"there is no screen {screen + 1}; this computer has {len(screens)}")
            screen = screens[screen]
        if screen is not None:
            if self.isFullScreen():
                self.showNormal()
            self.setScreen(screen)
            self.move(screen.geometry().topLeft())
            self.resize(screen.geometry().size())
        self.showFullScreen()
        self.raise_()

    def leave_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()

    def closeEvent(self, ev) -> None:
        super().closeEvent(ev)
        self.closed.emit()

    def keyPressEvent(self, ev: QKeyEvent) -> None:
        key = ev.key()
        if key == Qt.Key.Key_F11:
            self.leave_full_screen() if self.isFullScreen() else self.show_full_screen()
        elif key == Qt.Key.Key_Escape:
            self.leave_full_screen()
        elif key == Qt.Key.Key_B:
            self.set_blank(not self._blank)
        elif key == Qt.Key.Key_P:
            self.set_following(not self._following)
        else:
            super().keyPressEvent(ev)
            return
        ev.accept()


def letterbox(outer: QSize, canvas: QSize) -> QRect:
    """The largest rect of ``canvas``'s shape inside ``outer``, centred (whole pixels)."""
    ow, oh = max(0, outer.width()), max(0, outer.height())
    cw, ch = max(1, canvas.width()), max(1, canvas.height())
    s = min(ow / cw, oh / ch)
    w, h = int(round(cw * s)), int(round(ch * s))
    return QRect((ow - w) // 2, (oh - h) // 2, w, h)

# -- the options dialog -------------------------------------------------------------------------
class PlayerOptionsDialog(QDialog):
    """Choose what players see; every change applies at once (``changed`` signal)."""

    changed = Signal(object)

    LABELS = (
        ("names", "Names"),
        ("conditions", "Condition bars (party)"),
        ("npc_conditions", "Condition bars of NPCs too"),
        ("zones", "Zones (and zone rings on tokens)"),
        ("badges", "Range and cover badges of the attacker's targets"),
        ("range_rings", "Range rings round the attacker"),
        ("grid", "Grid"),
        ("legend", "Legend"),
        ("scale_bar", "Scale bar"),
        ("title_on_map", "Title over the map"),
        ("banner", "Turn banner (whose turn it is)"),
        ("follow", "Follow my view (off: pinned)"),
        ("follow_acting", "Camera follows the acting token"),
        ("on_top", "Keep the players' window on top"),
    )

    def __init__(self, options: PlayerOptions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Player view options")
        self._options = options
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.title_edit = QLineEdit(options.title)
        self.title_edit.setPlaceholderText("shown as the window title (for the screen share)")
        form.addRow("Title", self.title_edit)
        self.scale_spin = QDoubleSpinBox()
        self.scale_spin.setRange(0.8, 3.0)
        self.scale_spin.setSingleStep(0.1)
        self.scale_spin.setValue(options.label_scale)
        form.addRow("Label size", self.scale_spin)
        self.canvas_combo = QComboBox()
        for key, (w, h) in CANVASES.items():
            self.canvas_combo.addItem(f"{w} \u00d7 {h}", key)
        self.canvas_combo.setCurrentIndex(max(0, self.canvas_combo.findData(options.canvas)))
        self.canvas_combo.setToolTip("The players' fixed 16:9 picture: choose the size your screen share sends")
        form.addRow("Canvas", self.canvas_combo)
        lay.addLayout(form)
        self.boxes: dict[str, QCheckBox] = {}
        for name, text in self.LABELS:
            box = QCheckBox(text)
            box.setChecked(bool(getattr(options, name)))
            box.toggled.connect(self._emit)
            lay.addWidget(box)
            self.boxes[name] = box
        self.title_edit.textChanged.connect(self._emit)
        self.scale_spin.valueChanged.connect(self._emit)
        self.canvas_combo.currentIndexChanged.connect(self._emit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.accept)
        buttons.accepted.connect(self.accept)
        lay.addWidget(buttons)

    def options(self) -> PlayerOptions:
        return self._options.with_(
            title=self.title_edit.text(), label_scale=round(self.scale_spin.value(), 2),
            canvas=self.canvas_combo.currentData() or self._options.canvas,
            **{name: box.isChecked() for name, box in self.boxes.items()},
        )

    def _emit(self, *_):
        self._options = self.options()
        self.changed.emit(self._options)


# -- the main window's side -----------------------------------------------------------------------
class PlayerViewController(QObject):
    """Owns a main window's player view: opens and closes it, keeps its options, its place
    (size, screen, full screen) in the window's QSettings, and keeps the menu's check marks in
    step; makes the GM's pings (Alt+click on the map, or the key :data:`PING_KEY` at the
    mouse) and reveals rolls. The player view closes with the main window (and never keeps
    the application running on its own)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        window.installEventFilter(self)
        self.options = PlayerOptions.load(window.settings)
        self.player: PlayerWindow | None = None
        self.dialog: PlayerOptionsDialog | None = None
        #: the GM's pings, drawn on the GM's map and in the players' window
        self.pings = Pings(self)
        window.pings = self.pings
        self.gm_ping_layer = PingLayer(window.map_view.options)
        window.map_view.layers.append(self.gm_ping_layer)
        window.map_view.vb.addItem(self.gm_ping_layer, ignoreBounds=True)
        self.pings.attach(self.gm_ping_layer)
        self._mouse_at: tuple[float, float] | None = None
        window.map_view.cursorMoved.connect(lambda x, y: setattr(self, "_mouse_at", (x, y)))
        window.map_view.viewport().installEventFilter(self)
        A = window.add_action
        window.menus["View"].addSeparator()
        self.act_open = A("View", "&Player View", self.toggle, shortcut="Ctrl+Shift+P", checkable=True,
                          name="player view", tip="A second window for the players, to screen-share")
        self.act_options = A("View", "Player View &Options\u2026", self.edit_options, name="player view options")
        self.act_follow = A("View", "Player view follows my view", self.set_following, checkable=True,
                            name="player view follows")
        self.act_follow.setChecked(self.options.follow)
        self.act_follow_acting = A("View", "Player camera follows the acting token", self.set_follow_acting,
                                   checkable=True, name="player view follows acting",
                                   tip="Centre the players' view on whoever acts when the turn passes")
        self.act_follow_acting.setChecked(self.options.follow_acting)
        self.act_on_top = A("View", "Player view stays on &top", self.set_on_top, checkable=True,
                            name="player view on top", tip="Keep the players' window above this one")
        self.act_on_top.setChecked(self.options.on_top)
        self.act_blank = A("View", "&Blank player view", self.set_blank, checkable=True, shortcut="Ctrl+B",
                           name="blank player view", tip="Hide the map from the players (shows the title)")
        self.act_ping = A("View", "Ping at the mouse", self.ping_at_mouse, shortcut=PING_KEY, name="ping",
                          tip="An animated marker the players see (also Alt+click on the map)")
        self.screen_menu = window.menus["View"].addMenu("Player view &full screen on")
        self.screen_menu.aboutToShow.connect(self._fill_screens)
        from gui.players_inset import PlayersInset

        self.inset = PlayersInset(self)

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 - Qt API
        if obj is self.window and ev.type() == QEvent.Type.Hide and not self.window.isVisible():
            if self.player is not None:  # the main window closed (not minimised)
                if self.player.isVisible():
                    self.remember_place()
                self.player.hide()
        elif (ev.type() == QEvent.Type.MouseButtonPress and obj is self.window.map_view.viewport()
              and ev.button() == Qt.MouseButton.LeftButton and ev.modifiers() & Qt.KeyboardModifier.AltModifier):
            x, y = self.window.map_view.viewport_to_map(ev.position())
            self.ping(x, y)
            return True  # (the click pings; no tool sees it)
        return False

    # -- pings ---------------------------------------------------------------------------------
    def ping(self, x: float, y: float):
        """A ping at map point (x, y) metres, on the GM's map and the players'."""
        return self.pings.ping(x, y)

    def ping_at_mouse(self) -> None:
        """Ping where the mouse is on the map (the view's centre when it is elsewhere)."""
        view = self.window.map_view
        pos = view.viewport().mapFromGlobal(QCursor.pos())
        if view.viewport().rect().contains(pos):
            self.ping(*view.viewport_to_map(pos))
        elif self._mouse_at is not None:
            self.ping(*self._mouse_at)
        else:
            c = view.vb.viewRect().center()
            self.ping(c.x(), c.y())

    # -- the window ---------------------------------------------------------------------------
    def open(self) -> PlayerWindow:
        """Show the player view (made on first use, where it was last: its size, screen and
        full screen remembered); returns it."""
        ensure_pixmap_cache()
        first = self.player is None
        if first:
            w = self.window
            self.player = PlayerWindow(w.document, w.selection, w.answers, self.options, w.map_view,
                                       sight=getattr(w, "party_sight", None), pings=self.pings)
            self.player.setAttribute(Qt.WidgetAttribute.WA_QuitOnClose, False)
            w.destroyed.connect(self.player.deleteLater)  # a top-level window: not a child of w
            self.player.blankChanged.connect(self.act_blank.setChecked)
            self.player.followChanged.connect(self._follow_changed)
            self.player.closed.connect(self._player_closed)
            self.inset.attach(self.player)
        full = first and self._restore_place()
        if full is not None and full is not False:
            self.player.show_full_screen(full)
        else:
            self.player.show()
        self.player.raise_()
        self.act_open.setChecked(True)
        self.inset.show_dock()
        self.inset.refresh_soon()
        return self.player

    def _restore_place(self):
        """Put the new player window where it was (False: nothing remembered; a screen (or
        None) to go full screen on)."""
        s = self.window.settings
        geo = s.value(f"{SETTINGS_GROUP}/geometry")
        restored = isinstance(geo, QByteArray) and self.player.restoreGeometry(geo)
        name = s.value(f"{SETTINGS_GROUP}/screen")
        screen = next((sc for sc in QGuiApplication.screens() if name and sc.name() == str(name)), None)
        if screen is not None and not restored:
            self.player.setScreen(screen)
            self.player.move(screen.availableGeometry().topLeft())
        full = str(s.value(f"{SETTINGS_GROUP}/fullScreen", "false")).lower() in ("true", "1")
        if full:
            return screen if screen is not None else None
        return False

    def remember_place(self) -> None:
        """Keep the player window's size, place, screen and full screen in the settings."""
        p = self.player
        if p is None:
            return
        s = self.window.settings
        s.setValue(f"{SETTINGS_GROUP}/geometry", p.saveGeometry())
        scr = p.screen()
        if scr is not None:
            s.setValue(f"{SETTINGS_GROUP}/screen", scr.name())
        s.setValue(f"{SETTINGS_GROUP}/fullScreen", p.isFullScreen())

    def _player_closed(self) -> None:
        self.remember_place()
        self.act_open.setChecked(False)
        self.inset.dock.hide()

    def close(self) -> None:
        if self.player is not None:
            if self.player.isVisible():
                self.remember_place()
            self.player.hide()
        self.act_open.setChecked(False)
        self.inset.dock.hide()

    def toggle(self, on: bool) -> None:
        self.open() if on else self.close()

    def reveal_roll(self, lines) -> bool:
        """Show a roll's lines to the players for a few seconds (False: the player view is
        not open, so nobody would see it; the status bar says so)."""
        if self.player is None or not self.player.isVisible():
            self.window.statusBar().showMessage("Open the player view (Ctrl+Shift+P) to reveal rolls to the players", 6000)
            return False
        self.player.reveal_roll(lines)
        return True

    def set_on_top(self, on: bool) -> None:
        self.set_options(self.options.with_(on_top=bool(on)))

    def set_follow_acting(self, on: bool) -> None:
        self.set_options(self.options.with_(follow_acting=bool(on)))

    def set_options(self, options: PlayerOptions) -> None:
        self.options = options
        options.save(self.window.settings)
        self.act_follow.setChecked(options.follow)
        self.act_follow_acting.setChecked(options.follow_acting)
        self.act_on_top.setChecked(options.on_top)
        if self.player is not None:
            self.player.set_options(options)

    def edit_options(self) -> PlayerOptionsDialog:
        if self.dialog is None:
            self.dialog = PlayerOptionsDialog(self.options, self.window)
            self.dialog.changed.connect(self.set_options)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def set_following(self, on: bool) -> None:
        self.set_options(self.options.with_(follow=bool(on)))

    def _follow_changed(self, on: bool) -> None:
        if on != self.options.follow:
            self.options = self.options.with_(follow=on)
            self.options.save(self.window.settings)
        self.act_follow.setChecked(on)

    def set_blank(self, on: bool) -> None:
        if on and self.player is None:
            self.open()
        if self.player is not None:
            self.player.set_blank(on)
        self.act_blank.setChecked(bool(self.player and self.player.blank))

    def full_screen_on(self, index: int) -> PlayerWindow:
        p = self.open()
        p.show_full_screen(index)
        return p

    def _fill_screens(self) -> None:
        self.screen_menu.clear()
        for i, s in enumerate(QGuiApplication.screens()):
            g = s.geometry()
            act = QAction(f"Screen {i + 1}: {s.name() or 'screen'} ({g.width()}\u00d7{g.height()})", self.screen_menu)
            act.triggered.connect(lambda _=False, i=i: self.full_screen_on(i))
            self.screen_menu.addAction(act)
        self.screen_menu.addSeparator()
        act = QAction("Windowed", self.screen_menu)
        act.triggered.connect(lambda: self.player and self.player.leave_full_screen())
        self.screen_menu.addAction(act)


def _install(window) -> None:
    window.player_view = PlayerViewController(window)


def _register() -> None:
    from gui.main_window import register_extension

    register_extension(_install)


_register()

__all__ = [
    "ConditionTrack", "condition_tracks", "ConditionLayer", "RangeRingLayer",
    "PlayerOptions", "SharedMapView", "BlankCard", "PlayerWindow", "PlayerOptionsDialog",
    "PlayerViewController", "CANVASES", "PING_KEY", "letterbox",
]
