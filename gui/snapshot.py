"""Snapshots: the map as the players (or the GM) see it, as PNG, SVG or PDF.

One renderer serves the Export Snapshot dialog, "Copy snapshot", the snapshot bundle and
the headless ``coverfire export`` command: :class:`Snapshot` builds an offscreen, read-only
map view of the encounter (the same layers the windows draw), lays out a page (title and
round line above the map; scale bar on it; a legend of obstacle heights, sides, zone
colours and cover classes below; the selected attacker's targets table at the bottom,
with the same numbers as the targets dock) and paints that page onto any QPainter
device: a QImage (PNG, at 1x to 4x of the page's logical pixels via the device pixel
ratio, so labels and lines keep their proportions), a QSvgGenerator or a QPdfWriter (both
vector).

A players' snapshot draws what the players know, as the player view does
(:class:`gui.player_document.PlayerDocument` over the snapshot's own document: the
engine's ``players_knowledge``, and with the encounter's fog on only the tokens the party
sees, under the fog of :class:`gui.layers.fog.FogLayer`); its badges and targets table are
worked out from that knowledge. SVG and PDF hold shapes and text only, but for the
background and token art (see docs/player-view.md, "SVG and PDF: shapes and text").

Page coordinates are logical pixels; :meth:`Snapshot.map_to_page` says where a map point
(metres) lands, and PNGs carry that mapping in a ``Coverfire-Map`` text chunk.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QPointF, QRect, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QImage, QPageSize, QPainter, QPdfWriter, QPen
from PySide6.QtWidgets import QApplication, QGraphicsItem

from engine import clock
from engine.errors import CoverfireError
from engine.files import atomic_write_bytes
from engine.model import Encounter
from engine.names import token_name
from gui import style
from gui.answers import LiveAnswers
from gui.document import EncounterDocument
from gui.layers import NO_BRUSH, NO_PEN, with_alpha, cosmetic
from gui.party_sight import PartySight
from gui.player_document import PlayerDocument
from gui.player_view import PlayerOptions, SharedMapView
from gui.portable_svg import portable_svg
from gui.selection import Selection
from gui.style import GM_VIEW
from gui.targets import COLUMNS, ID_ROLE, SORT_ROLE, TargetsModel, uses_range_bands

FORMATS = {".png": "PNG", ".svg": "SVG", ".pdf": "PDF"}
MIN_SCALE, MAX_SCALE = 1.0, 4.0
MAX_PIXELS = 16384  # widest PNG written (Qt's raster engine limit is 32767)
DEFAULT_MAP_WIDTH = 1280  # logical pixels of the map area when no view size is given
PAGE_MARGIN = 24.0
MAP_KEY = "Coverfire-Map"


def round_text(encounter: Encounter) -> str | None:
    """The round (and pass) of the fight from the encounter's rule system
    (``RuleSystem.round_status``: SR5 "Combat Turn T, pass P", d100 and Static Veil
    "Round R"), or None when no fight is running."""
    return encounter.system.round_status(encounter) or None


@dataclass(frozen=True)
class SnapshotSpec:
    """What a snapshot shows.

    ``view``: ``"player"`` (hidden objects left out, the GM's :class:`PlayerOptions` apply)
    or ``"gm"`` (everything, hidden objects greyed). ``title``: the page's heading (None:
    the encounter's name; "" none). ``round``: the round line (None: from the rule state;
    "" none). ``attacker``/``weapon``: whose badges, range rings and targets table to show.
    ``region``: the map area (x, y, width, height in metres; None: the whole map).
    ``map_width``: logical pixels of the map area. ``scale``: PNG pixels per logical pixel
    (1-4). ``legend``, ``table``: the legend and the targets table below the map;
    ``table_rows``: at most this many targets in it, nearest first (default 30)."""

    view: str = "player"
    title: str | None = None
    round: str | None = None
    attacker: str | None = None
    weapon: str | None = None
    region: tuple[float, float, float, float] | None = None
    map_width: int = DEFAULT_MAP_WIDTH
    scale: float = 1.0
    legend: bool = True
    table: bool = True
    table_rows: int = 30
    player: PlayerOptions = field(default_factory=PlayerOptions)

    def check(self) -> None:
        """Raise :class:`CoverfireError` for a value out of range."""
        if self.view not in ("player", "gm"):
            raise CoverfireError(f"unknown view {self.view!r}: use 'player' or 'gm'")
        if not (MIN_SCALE <= self.scale <= MAX_SCALE) or not math.isfinite(self.scale):
            raise CoverfireError(f"scale {self.scale:g} is out of range: use 1 to 4")
        if not 200 <= self.map_width <= 8000:
            raise CoverfireError(f"map width {self.map_width} px is out of range: use 200 to 8000")
        if self.table_rows < 1:
            raise CoverfireError(f"table rows {self.table_rows}: give at least 1")
        if self.region is not None:
            x, y, w, h = self.region
            if not (all(math.isfinite(v) for v in self.region) and w > 0 and h > 0):
                raise CoverfireError(f"snapshot region {self.region} needs a positive width and height")


@dataclass(frozen=True)
class PageLayout:
    """Where things go on the page, in logical pixels; ``region`` is the map area shown
    (metres) and ``map_rect`` where it is drawn."""

    width: float
    height: float
    region: QRectF
    map_rect: QRectF
    header: QRectF
    legend: QRectF
    table: QRectF

    @property
    def px_per_m(self) -> float:
        return self.map_rect.width() / self.region.width()


@dataclass(frozen=True)
class Cell:
    """One cell of the targets table as the dock shows it."""

    text: str
    right: bool = False
    background: QColor | None = None
    foreground: QColor | None = None


def _align(right: bool):
    return (Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft) | Qt.AlignmentFlag.AlignVCenter


def _font(px: float, bold: bool = False) -> QFont:
    return style.ui_font(px, bold)


class Snapshot:
    """A rendered page of one encounter state. Build it, then :meth:`image`, :meth:`svg`,
    :meth:`pdf` or :meth:`write`. Uses its own document copy, selection and answers, so
    the GM's window is not touched; :meth:`close` frees the offscreen view."""

    TITLE_PX = 26.0
    SUB_PX = 15.0
    LEGEND_PX = 14.0
    TABLE_PX = 14.0

    def __init__(self, encounter: Encounter, spec: SnapshotSpec = SnapshotSpec(), *, path: str | Path | None = None):
        spec.check()
        if QApplication.instance() is None:
            raise CoverfireError("snapshots need a QApplication (use gui.export.ensure_app())")
        self.spec = spec
        self.encounter = encounter
        if spec.attacker is not None:
            encounter.token(spec.attacker)  # UnknownIdError names it
        self.document = EncounterDocument(encounter, path)
        self.selection = Selection(self.document)
        if spec.attacker is not None:
            self.selection.select([spec.attacker], encounter)
            self.selection.clear()
            if spec.weapon is not None:
                self.selection.set_weapon(spec.weapon)
        self.player = spec.view == "player"
        #: what the page draws: the players' knowledge for players (the engine's
        #: ``players_knowledge``, and with the encounter's fog on only the tokens the party
        #: sees, the fog worked out from the true obstacles), else the encounter itself
        self.sight = None
        self.shown_document = self.document
        if self.player:
            self.sight = PartySight(self.document, self.document)
            self.shown_document = PlayerDocument(self.document, self.sight, self.document)
        self.answers = LiveAnswers(self.shown_document, self.selection, self.document)
        if self.answers.error and spec.weapon is not None and spec.attacker is not None:
            raise CoverfireError(self.answers.error)
        extras = spec.player
        if self.player:
            options = extras.view_options().with_(show_legend=False, show_scale_bar=False, title=None, min_token_px=5.0)
        else:
            options = GM_VIEW.with_(show_legend=False, show_scale_bar=False, show_selection=False, min_token_px=5.0,
                                    show_sight=False, show_charge=False, title=None,
                                    label_scale=extras.label_scale)
        self.view = SharedMapView(self.shown_document, self.selection, self.answers, options, extras)
        self.view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        self.view.setUpdatesEnabled(False)  # it is only ever drawn through render()
        self.view.setFrameShape(self.view.Shape.NoFrame)
        self._wait_for_pictures()
        self._uncache()
        self.columns: list[str] = []
        self.targets_total = 0
        self.rows = self._table_rows() if spec.table else []
        self.layout = self._layout()
        m = self.layout.map_rect
        self.view.resize(QSize(int(m.width()), int(m.height())))
        self.view.show()
        QApplication.processEvents()
        self.view.vb.setRange(self.layout.region, padding=0.0)
        QApplication.processEvents()
        self._settle()

    def _wait_for_pictures(self) -> None:
        """Wait for the pictures the page draws (the background, the tokens' pictures),
        decoded in :mod:`gui.picture_loader`'s workers: each has its own time budget there,
        past which it is left out and named in :attr:`warnings`; so this ends."""
        from gui.picture_loader import loader

        loader().wait(self.view.pictures_waited_for)

    def _settle(self, limit_s: float = 60.0) -> None:
        """Let the layers that build over several event-loop turns finish (the obstacle
        tiles of a big map, a few hundred obstacles a turn), so the page shows every obstacle."""
        start = clock.now()
        while any(getattr(layer, "pending", False) for layer in self.view.layers):
            if clock.now() - start > limit_s:
                raise CoverfireError(f"the map's obstacles were not all drawn within {limit_s:g} s; "
                                     "the snapshot was not written")
            QApplication.processEvents()

    def _uncache(self) -> None:
        """Draw every item fresh on the page's device (no item cache: a cache is a bitmap,
        which would land in an SVG or PDF as an image and blur in a PNG at 4x), layers and
        their children (the obstacle tiles) alike."""
        for item in self.view.scene().items():
            if item.cacheMode() != QGraphicsItem.CacheMode.NoCache:
                item.setCacheMode(QGraphicsItem.CacheMode.NoCache)

    def close(self) -> None:
        """Free the offscreen view. No signal reaches it any more (its document, selection
        and answers are this snapshot's own); Qt deletes it and them later. pyqtgraph's
        ``GraphicsView.close`` is not used: it clears the scene under live Python items."""
        for obj in (self.document, self.selection, self.answers, self.sight, self.shown_document):
            if obj is not None:
                obj.blockSignals(True)
        self.view.hide()
        self.view.deleteLater()
        self.document.deleteLater()

    def __enter__(self) -> "Snapshot":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- content ---------------------------------------------------------------------------
    @property
    def warnings(self) -> list[str]:
        """What the page lacks that the encounter asks for (a background image or a token's
        picture that cannot be read, naming the file; what an SVG picture was drawn
        without), in the user's words; empty when nothing is missing."""
        out = [self.view.background_problem] if self.view.background_problem else []
        return out + list(getattr(self.view, "portrait_problems", ()))

    def title(self) -> str:
        return self.encounter.name if self.spec.title is None else self.spec.title

    def subtitle(self) -> str:
        parts = []
        r = round_text(self.encounter) if self.spec.round is None else self.spec.round
        if r:
            parts.append(r)
        parts.append("players' view" if self.player else "GM's view")
        return "  \u00b7  ".join(parts)

    def attacker_shown(self) -> bool:
        a = self.answers.attacker
        if a is None:
            return False
        return self.view.options.shows(self.encounter.token(a))

    def table_caption(self) -> str:
        a = self.encounter.token(self.answers.attacker)
        name = self.selection.weapon
        w = a.weapon(name) if name is not None else self.encounter.system.ready_weapon(self.encounter, a)
        who = token_name(a)
        text = f"Targets of {who}" + (f" with the {w.name}" if w is not None else "")
        if self.targets_total > len(self.rows):
            text += f" (the nearest {len(self.rows)} of {self.targets_total})"
        return text

    def _table_rows(self) -> list[tuple[str, list[Cell]]]:
        """The targets dock's rows (same model, same texts, alignment and cover colours),
        nearest first; hidden targets are left out of the players' view."""
        if not self.attacker_shown():
            return []
        shown = [tid for tid in self.answers.target_order if self.view.options.shows(self.encounter.token(tid))]
        shown.sort(key=lambda tid: (self.answers.targets[tid].distance, tid))
        self.targets_total = len(shown)
        keep = set(shown[: self.spec.table_rows])
        for tid in shown[: self.spec.table_rows]:  # charge plans cost 5-30 ms each: only the rows shown
            self.answers.charge(tid)
        model = TargetsModel(self.answers)
        model.reload()
        model.update_charges()
        # as in the dock: Shadowrun's range band and modifier only for sr5 encounters
        skip = set() if uses_range_bands(self.encounter) else {COLUMNS.index("Band"), COLUMNS.index("Mod")}
        cols = [c for c in range(model.columnCount()) if c not in skip]
        self.columns = [str(model.headerData(c, Qt.Orientation.Horizontal)) for c in cols]
        dist_col = COLUMNS.index("Dist")  # a model column, whichever columns the page shows
        rows = []
        for r in range(model.rowCount()):
            tid = model.data(model.index(r, 0), ID_ROLE)
            if tid not in keep:
                continue
            cells = []
            for c in cols:
                idx = model.index(r, c)
                align = model.data(idx, Qt.ItemDataRole.TextAlignmentRole)
                right = align is not None and bool(int(align) & int(Qt.AlignmentFlag.AlignRight))
                bg = model.data(idx, Qt.ItemDataRole.BackgroundRole)
                fg = model.data(idx, Qt.ItemDataRole.ForegroundRole)
                cells.append(Cell(str(model.data(idx) or ""), right,
                                  QColor(bg.color()) if bg is not None else None,
                                  QColor(fg.color()) if fg is not None else None))
            key = model.data(model.index(r, dist_col), SORT_ROLE)
            rows.append((key, tid, cells))
        rows.sort(key=lambda row: (row[0], row[1]))
        return [(tid, cells) for _, tid, cells in rows]

    def legend_rows(self) -> list[tuple[str, str, QColor]]:
        """(kind, text, colour) legend entries: the view's own (heights, sides, zones) and
        always the cover classes."""
        rows = [r for r in self.view.legend_entries() if r[0] != "cover"]
        rows.append(("cover", "cover", QColor()))
        return rows

    # -- layout ----------------------------------------------------------------------------------
    def _region(self) -> QRectF:
        if self.spec.region is not None:
            return QRectF(*self.spec.region)
        m = self.encounter.map
        rect = QRectF(0, 0, m.width, m.height)
        if m.background is not None and self.view.ground.has_image:
            bg = m.background
            rect = rect.united(QRectF(bg.x, bg.y, bg.width, bg.height))
        pad = 0.02 * max(rect.width(), rect.height())
        rect = rect.adjusted(-pad, -pad, pad, pad)
        # the page holds what is drawn round the tokens too: a name under a token by the
        # map's edge, a badge above one by the top (drawn in pixels, so measured at the
        # page's scale, which the wider area changes a little: a few rounds settle it)
        base, mw = QRectF(rect), float(self.spec.map_width)
        for _ in range(4):
            grown = base.united(self._drawn_round_tokens(rect.width() / mw, 4 * rect.width() / mw))
            if grown == rect:
                break
            rect = grown
        return rect

    def _drawn_round_tokens(self, m_per_px: float, pad: float) -> QRectF:
        """The map area (metres) the tokens' name labels, condition bars and attack badges
        cover at ``m_per_px`` metres per page pixel, ``pad`` metres wider."""
        view = self.view
        toks = view.tokens
        k = 1.0 / m_per_px
        out = QRectF()
        for l, t, r, b in list(toks.block_rects(k).values()) + list(toks.badge_rects(k).values()):
            out = out.united(QRectF(l * m_per_px, t * m_per_px, (r - l) * m_per_px, (b - t) * m_per_px))
        cond = getattr(view, "conditions", None)
        if cond is not None and cond.enabled:
            for (x, y, _, _), rects in zip(cond.bars(), cond.bar_rects(m_per_px)):
                for r in rects:
                    out = out.united(QRectF(x + r.left() * m_per_px, y + r.top() * m_per_px,
                                            r.width() * m_per_px, r.height() * m_per_px))
        return out.adjusted(-pad, -pad, pad, pad) if not out.isEmpty() else out

    def _legend_size(self, width: float) -> float:
        if not self.spec.legend:
            return 0.0
        lines = self._legend_lines(width)
        return len(lines) * self._legend_line_h() + 12

    def _legend_line_h(self) -> float:
        return self.LEGEND_PX * 1.9

    def _legend_items(self) -> list[tuple[str, str, QColor, float]]:
        fm = QFontMetricsF(_font(self.LEGEND_PX))
        out = []
        sw = self.LEGEND_PX * 1.1
        for kind, text, colour in self.legend_rows():
            if kind == "cover":
                out.append(("label", "Cover:", QColor(), fm.horizontalAdvance("Cover:") + 8))
                for cls, c in style.COVER_COLOURS.items():
                    out.append(("cover", cls, c, fm.horizontalAdvance(cls) + 18))
            elif kind == "text":
                out.append(("text", text, colour, fm.horizontalAdvance(text) + 8))
            else:
                out.append((kind, text, colour, sw + 8 + fm.horizontalAdvance(text)))
        return out

    def _legend_lines(self, width: float) -> list[list[tuple[str, str, QColor, float]]]:
        lines: list[list] = [[]]
        used = 0.0
        gap = 22.0
        for item in self._legend_items():
            w = item[3]
            if lines[-1] and used + gap + w > width:
                lines.append([])
                used = 0.0
            used += (gap if lines[-1] else 0.0) + w
            lines[-1].append(item)
        return [ln for ln in lines if ln]

    def _table_geometry(self, width: float) -> tuple[list[float], float, float]:
        """Column widths, row height and total height of the targets table (spare width
        goes to the zones column)."""
        if not self.rows:
            return [], 0.0, 0.0
        fm = QFontMetricsF(_font(self.TABLE_PX))
        fb = QFontMetricsF(_font(self.TABLE_PX, True))
        widths = [fb.horizontalAdvance(c) + 24 for c in self.columns]
        for _, cells in self.rows:
            for i, cell in enumerate(cells):
                widths[i] = max(widths[i], fb.horizontalAdvance(cell.text) + 24)
        total = sum(widths)
        if total < width:
            wide = next((i for i, c in enumerate(self.columns) if c.lower().startswith("zone")), len(widths) - 1)
            widths[wide] += width - total
        else:
            k = width / total
            widths = [w * k for w in widths]
        row_h = fm.height() + 10
        caption = self.TABLE_PX * 1.3 * 1.6
        return widths, row_h, caption + row_h * (len(self.rows) + 1) + 8

    def _layout(self) -> PageLayout:
        region = self._region()
        mw = int(self.spec.map_width)
        mh = max(50, int(round(mw * region.height() / region.width())))
        # match the region to whole pixels exactly (aspect is locked)
        region = QRectF(region.x(), region.y(), region.width(), region.width() * mh / mw)
        margin = PAGE_MARGIN
        width = mw + 2 * margin
        y = margin
        head_h = 0.0
        if self.title():
            head_h += self.TITLE_PX * 1.35
        head_h += self.SUB_PX * 1.6
        header = QRectF(margin, y, mw, head_h)
        y = math.ceil(y + head_h + 8)
        map_rect = QRectF(margin, y, mw, mh)
        y += mh + 12
        lh = math.ceil(self._legend_size(mw))
        legend = QRectF(margin, y, mw, lh)
        y += lh + (10 if lh else 0)
        _, _, th = self._table_geometry(mw)
        table = QRectF(margin, y, mw, th)
        y += th + (margin if th else margin - 12)
        return PageLayout(width, math.ceil(y), region, map_rect, header, legend, table)

    def page_size(self) -> QSizeF:
        return QSizeF(self.layout.width, self.layout.height)

    def map_to_page(self, x: float, y: float) -> tuple[float, float]:
        """Where map point (x, y) metres lands on the page (logical pixels)."""
        L = self.layout
        k = L.px_per_m
        return (L.map_rect.left() + (x - L.region.left()) * k, L.map_rect.top() + (y - L.region.top()) * k)

    def mapping(self) -> dict:
        """The metres-to-page mapping, as written into PNGs (``Coverfire-Map``):
        page = origin + (map - region_origin) * px_per_m, times ``scale`` for PNG pixels."""
        L = self.layout
        return {"map_left": L.map_rect.left(), "map_top": L.map_rect.top(), "px_per_m": L.px_per_m,
                "region_x": L.region.left(), "region_y": L.region.top(), "scale": self.spec.scale}

    # -- painting --------------------------------------------------------------------------------
    def paint(self, painter: QPainter) -> None:
        """Paint the page at logical-pixel coordinates (0, 0)-(width, height)."""
        L = self.layout
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.fillRect(QRectF(0, 0, L.width, L.height), style.MAP_BACKDROP)
        self._paint_header(painter)
        self._uncache()  # tiles built since
        painter.save()
        src = QRect(0, 0, int(L.map_rect.width()), int(L.map_rect.height()))
        self.view.render(painter, L.map_rect, src)
        painter.restore()
        painter.setPen(cosmetic(QColor(255, 255, 255, 50), 1.0))
        painter.setBrush(NO_BRUSH)
        painter.drawRect(L.map_rect)
        if self.spec.player.scale_bar or not self.player:
            self._paint_scale_bar(painter)
        if self.spec.legend:
            self._paint_legend(painter)
        if self.rows:
            self._paint_table(painter)
        painter.restore()

    def _text(self, painter: QPainter, rect: QRectF, text: str, px: float, *, bold: bool = False,
              colour: QColor = style.LABEL_TEXT, align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter) -> None:
        painter.setFont(_font(px, bold))
        painter.setPen(QPen(colour))
        painter.drawText(rect, int(align), text)

    def _paint_header(self, painter: QPainter) -> None:
        r = self.layout.header
        y = r.top()
        if self.title():
            h = self.TITLE_PX * 1.35
            self._text(painter, QRectF(r.left(), y, r.width(), h), self.title(), self.TITLE_PX, bold=True)
            y += h
        self._text(painter, QRectF(r.left(), y, r.width(), self.SUB_PX * 1.6), self.subtitle(), self.SUB_PX,
                   colour=QColor("#aab4bf"))

    def _paint_scale_bar(self, painter: QPainter) -> None:
        L = self.layout
        px_per_m = L.px_per_m
        metres = 1.0
        for e in range(-2, 6):
            for m in (1, 2, 5):
                if m * 10.0**e * px_per_m <= 180:
                    metres = m * 10.0**e
        length = metres * px_per_m
        x0, y0 = L.map_rect.left() + 18, L.map_rect.bottom() - 16
        painter.setPen(NO_PEN)
        painter.setBrush(QBrush(style.LABEL_PILL))
        painter.drawRoundedRect(QRectF(x0 - 10, y0 - 34, length + 20, 44), 6, 6)
        for colour, width in ((QColor("#0b0d10"), 5.0), (QColor("#f5f7fa"), 2.5)):
            painter.setPen(QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
            painter.drawLine(QPointF(x0, y0), QPointF(x0 + length, y0))
            painter.drawLine(QPointF(x0, y0 - 6), QPointF(x0, y0 + 4))
            painter.drawLine(QPointF(x0 + length, y0 - 6), QPointF(x0 + length, y0 + 4))
        self._text(painter, QRectF(x0, y0 - 32, length, 22), f"{metres:g} m", 14, bold=True,
                   align=Qt.AlignmentFlag.AlignCenter)

    def _paint_legend(self, painter: QPainter) -> None:
        r = self.layout.legend
        lines = self._legend_lines(r.width())
        lh = self._legend_line_h()
        px = self.LEGEND_PX
        sw = px * 1.1
        painter.setPen(NO_PEN)
        painter.setBrush(QBrush(QColor(10, 12, 16, 200)))
        painter.drawRoundedRect(r, 8, 8)
        y = r.top() + 6
        for line in lines:
            x = r.left() + 12
            cy = y + lh / 2
            for kind, text, colour, w in line:
                if kind in ("box", "zone", "disc"):
                    sq = QRectF(x, cy - sw / 2, sw, sw)
                    if kind == "box":
                        painter.setPen(QPen(QColor("#0b0d10"), 1.0))
                        painter.setBrush(QBrush(colour))
                        painter.drawRect(sq)
                    elif kind == "zone":
                        painter.setPen(QPen(colour, 1.5))
                        painter.setBrush(QBrush(with_alpha(colour, 110)))
                        painter.drawRect(sq)
                    else:
                        painter.setPen(QPen(QColor("#0b0d10"), 1.2))
                        painter.setBrush(QBrush(colour))
                        painter.drawEllipse(sq)
                    self._text(painter, QRectF(x + sw + 8, y, w, lh), text, px)
                elif kind == "cover":
                    pill = QRectF(x, cy - px * 0.75, w - 4, px * 1.5)
                    painter.setPen(NO_PEN)
                    painter.setBrush(QBrush(colour))
                    painter.drawRoundedRect(pill, 6, 6)
                    self._text(painter, pill, text, px, bold=True, colour=QColor("#0b0d10"),
                               align=Qt.AlignmentFlag.AlignCenter)
                else:
                    self._text(painter, QRectF(x, y, w, lh), text, px,
                               bold=kind == "label", colour=QColor("#dfe4ea"))
                x += w + 22
            y += lh

    def _paint_table(self, painter: QPainter) -> None:
        r = self.layout.table
        widths, row_h, _ = self._table_geometry(r.width())
        px = self.TABLE_PX
        cap_h = px * 1.3 * 1.6
        self._text(painter, QRectF(r.left(), r.top(), r.width(), cap_h), self.table_caption(), px * 1.3, bold=True)
        y = r.top() + cap_h
        painter.setPen(NO_PEN)
        painter.setBrush(QBrush(QColor(10, 12, 16, 215)))
        painter.drawRoundedRect(QRectF(r.left(), y, r.width(), row_h * (len(self.rows) + 1) + 4), 6, 6)
        first = self.rows[0][1]
        x = r.left()
        for i, name in enumerate(self.columns):
            self._text(painter, QRectF(x + 12, y, widths[i] - 24, row_h), name, px, bold=True,
                       colour=QColor("#aab4bf"), align=_align(first[i].right))
            x += widths[i]
        y += row_h
        for n, (tid, cells) in enumerate(self.rows):
            if n % 2 == 0:
                painter.setPen(NO_PEN)
                painter.setBrush(QBrush(QColor(255, 255, 255, 10)))
                painter.drawRect(QRectF(r.left(), y, r.width(), row_h))
            x = r.left()
            for i, cell in enumerate(cells):
                if cell.background is not None and cell.text:  # e.g. the cover class colour
                    painter.setPen(NO_PEN)
                    painter.setBrush(QBrush(cell.background))
                    painter.drawRoundedRect(QRectF(x + 5, y + 3, widths[i] - 10, row_h - 6), 5, 5)
                colour = cell.foreground or style.LABEL_TEXT
                self._text(painter, QRectF(x + 12, y, widths[i] - 24, row_h), cell.text, px,
                           bold=(i == 0 or cell.background is not None), colour=colour, align=_align(cell.right))
                x += widths[i]
            y += row_h

    # -- outputs ---------------------------------------------------------------------------------
    def image(self, scale: float | None = None) -> QImage:
        """The page as an image, ``scale`` (default the spec's) device pixels per logical
        pixel."""
        s = float(self.spec.scale if scale is None else scale)
        w, h = math.ceil(self.layout.width * s), math.ceil(self.layout.height * s)
        if max(w, h) > MAX_PIXELS:
            raise CoverfireError(f"a {w}\u00d7{h} px image is too large (at most {MAX_PIXELS} px a side): "
                                 "use a smaller scale or width")
        img = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
        img.setDevicePixelRatio(s)
        img.fill(style.MAP_BACKDROP)
        p = QPainter(img)
        self.paint(p)
        p.end()
        img.setDevicePixelRatio(1.0)
        img.setText(MAP_KEY, json.dumps(self.mapping() | {"scale": s}))
        img.setText("Title", self.title())
        img.setText("Software", "Coverfire")
        return img

    def png(self, scale: float | None = None) -> bytes:
        return _image_bytes(self.image(scale), "PNG")

    def svg(self, *, over=None, title: str | None = None) -> bytes:
        """The page as SVG (vector; 1 user unit = 1 logical pixel); ``over(painter)`` draws
        more on it after the page (the fight report's lines of fire)."""
        from PySide6.QtSvg import QSvgGenerator

        buf = QBuffer()
        buf.open(QIODevice.OpenModeFlag.WriteOnly)
        gen = QSvgGenerator()
        gen.setOutputDevice(buf)
        size = QSize(math.ceil(self.layout.width), math.ceil(self.layout.height))
        gen.setSize(size)
        gen.setViewBox(QRect(0, 0, size.width(), size.height()))
        gen.setResolution(96)
        gen.setTitle(title or self.title() or "Coverfire snapshot")
        gen.setDescription(f"Coverfire snapshot of {self.encounter.name} ({self.subtitle()})")
        p = QPainter(gen)
        self.paint(p)
        if over is not None:
            over(p)
        p.end()
        return portable_svg(bytes(buf.data()))

    def pdf(self) -> bytes:
        """The page as a one-page PDF (vector), sized to the page at 96 logical pixels per
        inch."""
        buf = QBuffer()
        buf.open(QIODevice.OpenModeFlag.WriteOnly)
        writer = QPdfWriter(buf)
        writer.setResolution(96)
        pts = QSizeF(self.layout.width * 72 / 96, self.layout.height * 72 / 96)
        writer.setPageSize(QPageSize(pts, QPageSize.Unit.Point, "Coverfire snapshot", QPageSize.SizeMatchPolicy.ExactMatch))
        writer.setPageMargins(QMarginsF(0, 0, 0, 0))
        writer.setTitle(self.title() or "Coverfire snapshot")
        writer.setCreator("Coverfire")
        p = QPainter(writer)
        self.paint(p)
        p.end()
        return bytes(buf.data())

    def data(self, fmt: str) -> bytes:
        """The page in ``fmt`` (``PNG``, ``SVG`` or ``PDF``)."""
        fmt = fmt.upper()
        if fmt == "PNG":
            return self.png()
        if fmt == "SVG":
            return self.svg()
        if fmt == "PDF":
            return self.pdf()
        raise CoverfireError(f"unknown snapshot format {fmt!r}: use PNG, SVG or PDF")

    def write(self, path: str | Path) -> Path:
        """Write the page to ``path`` (format by its extension), atomically."""
        path = Path(path)
        fmt = format_for(path)
        payload = self.data(fmt)
        write_bytes(path, payload)
        return path


def format_for(path: str | Path) -> str:
    """``PNG``, ``SVG`` or ``PDF`` by the file's extension; :class:`CoverfireError` for any
    other."""
    suffix = Path(path).suffix.lower()
    try:
        return FORMATS[suffix]
    except KeyError:
        what = f"extension {suffix!r}" if suffix else "no extension"
        raise CoverfireError(f"{path}: {what} is not an image format Coverfire writes; use .png, .svg or .pdf") from None


def write_bytes(path: Path, payload: bytes) -> None:
    """Atomic write with a user's message (not a traceback) when it fails."""
    try:
        atomic_write_bytes(path, payload)
    except OSError as exc:
        raise CoverfireError(f"cannot write {path}: {exc.strerror or exc}") from None


def _image_bytes(img: QImage, fmt: str) -> bytes:
    ba = QByteArray()
    buf = QBuffer(ba)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not img.save(buf, fmt):
        raise CoverfireError(f"Qt could not encode the image as {fmt}")
    buf.close()
    return bytes(ba)


__all__ = ["Snapshot", "SnapshotSpec", "PageLayout", "round_text", "format_for", "write_bytes", "FORMATS", "MAP_KEY"]
