"""The body diagram of one d100 character: each location's severity (coloured), damage,
armour and durability, bleeding; the injury total against the maximum; stunned, prone,
unconscious and dead; lasting wound penalties. Everything read from the token's
:class:`~engine.d100.sheet.Sheet` and :meth:`engine.d100.system.D100.status`.

:class:`BodyDiagram` paints the figure (also used by the attack dialog to show which
locations the map and the stance table hide); :class:`BodyPanel` is the dock's contents.
The figure is drawn as seen from behind: the character's right side is on the right.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QSizePolicy,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from engine.d100.sheet import LOCATIONS, SEVERITIES
from engine.d100 import effects as fx
from engine.names import token_name
from gui.rules.d100.present import (
    BLOOD,
    HIDDEN_HATCH,
    SEVERITY_COLOURS,
    SEVERITY_TEXT,
    loc_name,
    loc_short,
    stance_name,
)
from gui.rules.base import same_inputs
from gui.rules.widgets import Cell, TableRows, bold, read_only_table
from gui import theme
from gui.rules.d100.controller import RULESET

_TEXT = QColor("#e6e9ed")
_MUTED = QColor("#8b949e")
_CLEAR = QColor(0, 0, 0, 0)

# Figure regions in a 100 x 200 box (x right, y down), the character seen from behind.
_REGIONS: dict[str, tuple[str, tuple[float, float, float, float]]] = {
    "head": ("ellipse", (37.0, 2.0, 26.0, 30.0)),
    "chest": ("rect", (29.0, 36.0, 42.0, 36.0)),
    "abdomen": ("rect", (31.0, 74.0, 38.0, 26.0)),
    "groin": ("rect", (33.0, 102.0, 34.0, 14.0)),
    "left_arm": ("rect", (12.0, 38.0, 15.0, 66.0)),
    "right_arm": ("rect", (73.0, 38.0, 15.0, 66.0)),
    "left_leg": ("rect", (33.0, 118.0, 16.0, 78.0)),
    "right_leg": ("rect", (51.0, 118.0, 16.0, 78.0)),
}


def region_path(location: str, box: QRectF) -> QPainterPath:
    """The outline of ``location`` in the widget's ``box`` (pixels)."""
    kind, (x, y, w, h) = _REGIONS[location]
    sx, sy = box.width() / 100.0, box.height() / 200.0
    r = QRectF(box.left() + x * sx, box.top() + y * sy, w * sx, h * sy)
    p = QPainterPath()
    if kind == "ellipse":
        p.addEllipse(r)
    else:
        rad = min(r.width(), r.height()) * 0.22
        p.addRoundedRect(r, rad, rad)
    return p


class BodyDiagram(QWidget):
    """A figure of the eight locations.

    * :meth:`set_sheet` shows a character's wounds (fill = severity, number = damage points),
      armour (blue rim; dashed once worn out) and bleeding wounds (red drops with a count),
      and hatches the locations its stance hides;
    * :meth:`set_hidden` instead shows which locations some answer hides (blue hatching),
      for the attack dialog's map / stance-table comparison."""

    def __init__(self, parent: QWidget | None = None, *, compact: bool = False):
        super().__init__(parent)
        self.compact = compact
        self._sheet = None
        self._settings = None
        self._hidden: tuple[str, ...] = ()
        self._fractions: dict[str, float] | None = None
        self._title = ""
        self._dead = False
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setMinimumSize(QSize(80, 150) if compact else QSize(110, 210))

    def sizeHint(self) -> QSize:  # noqa: D401 - Qt API
        return QSize(110, 200) if self.compact else QSize(190, 340)

    # -- data ----------------------------------------------------------------------------------
    def set_sheet(self, sheet, settings, hidden: tuple[str, ...] = ()) -> None:
        self._sheet, self._settings = sheet, settings
        self._hidden = tuple(hidden)
        self._fractions = None
        self._dead = bool(sheet is not None and sheet.dead)
        self.update()

    def set_hidden(self, hidden: tuple[str, ...], fractions: dict[str, float] | None = None, title: str = "") -> None:
        self._sheet = None
        self._hidden = tuple(hidden)
        self._fractions = fractions
        self._title = title
        self._dead = False
        self.update()

    @property
    def hidden(self) -> tuple[str, ...]:
        return self._hidden

    # -- drawing -------------------------------------------------------------------------------
    def figure_box(self) -> QRectF:
        top = 18.0 if self._title else 4.0
        h = self.height() - top - 4
        w = min(self.width() - 8, h / 2.0)
        h = w * 2.0
        return QRectF((self.width() - w) / 2.0, top, w, h)

    def location_at(self, pos: QPointF) -> str | None:
        box = self.figure_box()
        for loc in LOCATIONS:
            if region_path(loc, box).contains(pos):
                return loc
        return None

    def paintEvent(self, ev) -> None:  # noqa: N802 - Qt API
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        box = self.figure_box()
        if self._title:
            f = QFont(self.font())
            f.setBold(True)
            p.setFont(f)
            p.setPen(QColor("#e6e9ed"))
            p.drawText(QRectF(0, 0, self.width(), 16), Qt.AlignmentFlag.AlignCenter, self._title)
        small = QFont(self.font())
        small.setPixelSize(max(8, int(box.width() * (0.085 if self.compact else 0.075))))
        small.setBold(True)
        hatch = QBrush(HIDDEN_HATCH, Qt.BrushStyle.BDiagPattern)
        for loc in LOCATIONS:
            path = region_path(loc, box)
            sev = "none"
            if self._sheet is not None:
                sev = self._sheet.wound(loc).severity
            fill = QColor(SEVERITY_COLOURS[sev])
            if self._sheet is None:
                fill = QColor("#4a545e")
            p.setPen(QPen(QColor("#0b0d10"), 1.2))
            p.setBrush(QBrush(fill))
            p.drawPath(path)
            if loc in self._hidden:
                p.setBrush(hatch)
                p.setPen(Qt.PenStyle.NoPen)
                p.drawPath(path)
            r = path.boundingRect()
            if self._sheet is not None:
                arm = self._sheet.armour_at(loc)
                if arm is not None and arm.value > 0:
                    pen = QPen(QColor("#64b5f6"), 3.0 if arm.protects else 2.0)
                    if not arm.protects:
                        pen.setStyle(Qt.PenStyle.DashLine)
                        pen.setColor(QColor("#78909c"))
                    p.setPen(pen)
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    p.drawPath(path)
                w = self._sheet.wound(loc)
                if w.damage > 0:
                    p.setFont(small)
                    p.setPen(SEVERITY_TEXT[sev])
                    p.drawText(r, Qt.AlignmentFlag.AlignCenter, str(w.damage))
                if w.bleeding > 0:
                    rr = max(5.0, box.width() * 0.06)
                    c = QPointF(r.right() - rr * 0.4, r.top() + rr * 0.6)
                    drop = QPainterPath()
                    drop.moveTo(c.x(), c.y() - rr * 1.3)
                    drop.cubicTo(c.x() + rr, c.y() - rr * 0.2, c.x() + rr, c.y() + rr, c.x(), c.y() + rr)
                    drop.cubicTo(c.x() - rr, c.y() + rr, c.x() - rr, c.y() - rr * 0.2, c.x(), c.y() - rr * 1.3)
                    p.setPen(QPen(QColor("#0b0d10"), 1.0))
                    p.setBrush(BLOOD)
                    p.drawPath(drop)
                    if w.bleeding > 1:
                        p.setPen(QColor("#ffffff"))
                        p.drawText(QRectF(c.x() - rr, c.y() - rr * 0.6, 2 * rr, 1.6 * rr),
                                   Qt.AlignmentFlag.AlignCenter, str(w.bleeding))
            elif self._fractions is not None:
                frac = self._fractions.get(loc, 0.0)
                if 0.005 < frac < 0.995:  # partly hidden: say how much (hatching marks the hidden)
                    p.setFont(small)
                    p.setPen(QColor("#ffffff"))
                    p.drawText(r, Qt.AlignmentFlag.AlignCenter, f"{round(frac * 100)}")
        # side letters: seen from behind, the character's right is on the right
        p.setFont(small)
        p.setPen(QColor("#aab6c3"))
        p.drawText(QRectF(box.left(), box.bottom() - 14, 14, 14), Qt.AlignmentFlag.AlignCenter, "L")
        p.drawText(QRectF(box.right() - 14, box.bottom() - 14, 14, 14), Qt.AlignmentFlag.AlignCenter, "R")
        if self._dead:
            p.setPen(QPen(QColor(255, 82, 82, 220), max(3.0, box.width() * 0.05)))
            p.drawLine(box.topLeft() + QPointF(4, 20), box.bottomRight() - QPointF(4, 20))
            p.drawLine(box.topRight() + QPointF(-4, 20), box.bottomLeft() + QPointF(4, -20))
        p.end()

    def event(self, ev) -> bool:
        if ev.type() == ev.Type.ToolTip:
            loc = self.location_at(ev.position() if hasattr(ev, "position") else QPointF(ev.pos()))
            if loc is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(ev.globalPos(), self.tooltip_for(loc), self)
            return True
        return super().event(ev)

    def tooltip_for(self, loc: str) -> str:
        """The location's state, its current step's effect and the damage the next step
        starts at (the encounter's thresholds)."""
        lines = [loc_name(loc).capitalize()]
        if self._sheet is not None:
            w = self._sheet.wound(loc)
            lines.append(f"{w.severity}, {w.damage} points" + (f", {w.bleeding} bleeding" if w.bleeding else ""))
            if w.step:
                lines.append(f"Effect: {fx.effect(loc, w.step).text}")
            if self._settings is not None and w.step < 5:
                nxt = self._settings.thresholds_for(loc)[w.step]
                lines.append(f"Next: {SEVERITIES[w.step + 1]} at {nxt} points")
            arm = self._sheet.armour_at(loc)
            if arm is not None:
                mx = f"/{arm.max_durability}" if arm.max_durability else ""
                lines.append(f"Armour: {arm.name or 'armour'} {arm.value}, durability {arm.durability}{mx}"
                             + ("" if arm.protects else " (worn out)"))
        if loc in self._hidden:
            lines.append("Hidden behind cover")
        if self._fractions is not None:
            lines.append(f"{round(self._fractions.get(loc, 0.0) * 100)}% hidden on the map")
        return "\n".join(lines)


def _chip(text: str, bg: str, fg: str = "#101418") -> str:
    return (f"<span style='background:{bg};color:{fg};font-weight:bold'>&nbsp;{text}&nbsp;</span>")


class BodyPanel(QWidget):
    """The body dock: the shown token's name, injury against maximum, status marks, the
    figure and a table of locations (severity, damage, armour, durability, bleeding)."""

    COLUMNS = ("Location", "Severity", "Dmg", "Armour", "Bleed", "Cover")

    def __init__(self, controller, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.token_id: str | None = None
        self.title = bold(QLabel(), pixel_size=16)
        self.injury = QLabel()
        self.injury.setTextFormat(Qt.TextFormat.RichText)
        self.marks = QLabel()
        self.marks.setTextFormat(Qt.TextFormat.RichText)
        self.marks.setWordWrap(True)
        self.details = QLabel()
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setWordWrap(True)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.diagram = BodyDiagram()
        self.table = read_only_table(self.COLUMNS, rows=len(LOCATIONS))
        self.rows = TableRows(self.table)
        self._read: tuple | None = None  # what the panel was last filled from
        self.table.horizontalHeader().setMinimumSectionSize(30)
        self.table.horizontalHeaderItem(3).setToolTip("Armour value (durability left / at start)")
        self.table.setMinimumHeight(22 * len(LOCATIONS) + 28)
        self.table.setMaximumHeight(22 * len(LOCATIONS) + 30)
        # every column as wide as its contents, the last takes what is left; on a narrower
        # dock than that the table scrolls sideways rather than hide Severity..Cover past its edge
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(len(self.COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)

        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.table.setMaximumHeight(22 * len(LOCATIONS) + 30 + self.table.horizontalScrollBar().sizeHint().height())
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setFrameShape(QTableWidget.Shape.NoFrame)  # (its 2 px: the six columns fit at 125 %)
        self.empty = QLabel("Select a token on the map to see its body.")
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet(f"color:{theme.ink('dim')}")

        self.legend = QLabel("Fill: severity · number: damage points · blue rim: armour (dashed: worn out) "
                             "· red drop: bleeding · hatched: hidden by the stance. Seen from behind: "
                             "R is the character's right. Hover a location for its effects.")
        self.legend.setWordWrap(True)
        self.legend.setStyleSheet(f"color:{theme.ink('dim')}")
        # the figure beside the table where both fit, else above it: beside it at 1366 the
        # table scrolled sideways, Armour..Cover past the panel's edge (issue 30 item 8)
        self.middle = middle = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.diagram.setFixedWidth(104)
        middle.addWidget(self.diagram, 0, Qt.AlignmentFlag.AlignHCenter)
        middle.addWidget(self.table, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 6, 2, 6)  # (narrow side margins: the six columns fit a laptop at 125 %)
        lay.addWidget(self.title)
        lay.addWidget(self.injury)
        lay.addWidget(self.marks)
        lay.addLayout(middle)
        lay.addWidget(self.details)
        lay.addWidget(self.legend)
        lay.addWidget(self.empty)
        lay.addStretch(1)
        controller.stateChanged.connect(self.refresh)
        controller.listen(controller.selection.changed, self.refresh)
        self.refresh()

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(ev)
        hh = self.table.horizontalHeader()
        table = sum(hh.sectionSizeHint(i) for i in range(hh.count())) + 2 * self.table.frameWidth() + 4
        m = self.layout().contentsMargins()
        beside = self.diagram.width() + self.middle.spacing() + table <= ev.size().width() - m.left() - m.right()
        want = QBoxLayout.Direction.LeftToRight if beside else QBoxLayout.Direction.TopToBottom
        if self.middle.direction() != want:
            self.middle.setDirection(want)
            # above the table the figure keeps its least height: the table stays in view
            self.diagram.setMaximumHeight(16777215 if beside else self.diagram.minimumHeight())

    # -- reading helpers for tests and the window ------------------------------------------------
    def cell(self, location: str, column: str) -> str:
        return self.table.item(LOCATIONS.index(location), self.COLUMNS.index(column)).text()

    def refresh(self) -> None:
        c = self.controller
        if not c.active:
            return
        enc = c.document.encounter
        tid = c.shown_token()
        # what the panel reads: the token shown, the tokens (its sheet, an aimed-at token's
        # name) and the rules' settings; an obstacle edit keeps them all
        inputs = (tid, enc.tokens, enc.rules)
        if same_inputs(inputs, self._read):
            return
        self._read = inputs
        self.token_id = tid
        has = tid is not None
        for w in (self.title, self.injury, self.marks, self.diagram, self.details, self.table, self.legend):
            w.setVisible(has)
        self.empty.setVisible(not has)
        if not has:
            return
        tok = enc.token(tid)
        sheet = RULESET.sheet(enc.token(tid))
        st = RULESET.settings(enc)
        status = RULESET.status(enc, tid)
        self.title.setText(f"{token_name(tok)}  \u00b7  {tok.side}" + ("" if tok.rules.get("d100") is not None else "  (no d100 sheet: defaults)"))
        frac = min(1.0, sheet.injury / max(1, sheet.max_injury))
        bar_w = 160
        colour = "#81c784" if frac < 0.5 else ("#ffb74d" if frac < 0.8 else "#ef5350")
        self.injury.setText(
            f"Injury <b>{sheet.injury}</b> / {sheet.max_injury} "
            f"<span style='color:{theme.ink('dim')}'>(dies above {sheet.max_injury})</span><br>"
            f"<table cellspacing=0 cellpadding=0><tr>"
            f"<td style='background:{colour}' width={max(1, int(bar_w * frac))} height=8></td>"
            f"<td style='background:{theme.current().button.name()}' width={max(1, bar_w - int(bar_w * frac))} height=8></td></tr></table>")
        self.marks.setText(self._marks(sheet, status))
        self.details.setText(self._details(enc, sheet, status, st))
        self.diagram.set_sheet(sheet, st, status.hidden)
        self.rows.show([self._row(sheet, loc, status) for loc in LOCATIONS])

    def _row(self, sheet, loc: str, status) -> tuple[Cell, ...]:
        """The cells of one location's row."""
        w = sheet.wound(loc)
        arm = sheet.armour_at(loc)
        if arm is None:
            arm_txt = "\u2014"
        else:
            mx = f"/{arm.max_durability}" if arm.max_durability else ""
            arm_txt = (f"{arm.value}  ({arm.durability}{mx})" if arm.protects
                       else f"worn out (0{mx})")
        cells = (loc_short(loc), w.severity if w.step else "\u2014", str(w.damage) if w.damage else "",
                 arm_txt, f"\u25cf {w.bleeding}" if w.bleeding else "",
                 "hidden" if loc in status.hidden else "")
        tip = self.diagram.tooltip_for(loc)
        out = []
        for col, text in enumerate(cells):
            fg, bg = _TEXT, _CLEAR
            if col == 1:
                sev = w.severity
                bg = SEVERITY_COLOURS[sev] if w.step else _CLEAR
                fg = SEVERITY_TEXT[sev] if w.step else _MUTED
            elif col == 4 and w.bleeding:
                fg = BLOOD
            elif col == 3 and arm is not None:
                fg = QColor("#64b5f6" if arm.protects else "#ef9a9a")
            out.append(Cell(text, fg, bg, tip=tip))
        return tuple(out)

    @staticmethod
    def _marks(sheet, status) -> str:
        chips = []
        if sheet.dead:
            chips.append(_chip("DEAD", "#ff5252", "#ffffff"))
        if sheet.unconscious:
            chips.append(_chip("UNCONSCIOUS", "#7e57c2", "#ffffff"))
        if status.stunned:
            chips.append(_chip("STUNNED: loses " + ("the next turn" if sheet.stunned == 1 else
                                                     f"{sheet.stunned} turns" if sheet.stunned else "this turn"),
                               "#ffca28"))
        if status.map_stance == "prone" or sheet.stance == "prone":
            chips.append(_chip("PRONE", "#90a4ae"))
        if status.stay_prone:
            chips.append(_chip("must stay prone" + (", crawls" if status.crawl else ""), "#b0bec5"))
        for arm in status.useless_arms:
            chips.append(_chip(f"{loc_name(arm)} useless", "#ef9a9a"))
        for arm in status.halved_arms:
            chips.append(_chip(f"{loc_name(arm)}: base halved", "#ffcc80"))
        if status.bleeding:
            chips.append(_chip(f"BLEEDING {status.bleeding} (+{status.bleeding}d3 at turn end)", "#ff3b3b", "#ffffff"))
        if status.speed_penalty:
            chips.append(_chip(f"speed \u2212{status.speed_penalty}", "#ffe082"))
        if not chips:
            chips.append(f"<span style='color:{theme.ink('good')}'>able to act, no lasting wound effects</span>")
        return " ".join(chips)

    def _details(self, enc, sheet, status, st) -> str:
        n = self.controller.name
        held = sheet.weapon or "empty hand"
        off = f"<br>Off hand: {sheet.offhand}" if sheet.offhand else ""
        aim = (f"<br>Aiming at {n(sheet.aim_target)}: <b>+{status.aim_bonus}%</b>" if sheet.aim_target else "")
        rest = f"<br>Weapon rested: +{st.rest_bonus}%" if sheet.rested else ""
        dropped = f"<br>On the floor: {', '.join(sheet.dropped)}" if sheet.dropped else ""
        if st.round:
            left = "\u2014" if sheet.actions_left is None else str(sheet.actions_left)
            acts = f"Actions left <b>{left}</b> this round ({status.actions_per_round} per round; round {st.round})"
        else:
            acts = f"Actions per round <b>{status.actions_per_round}</b> (speed {sheet.speed})"
        why = f"<br><span style='color:{theme.ink('error')}'>Cannot act: {status.reason}</span>" if status.reason else ""
        cover = sheet.cover if sheet.cover is not None else st.cover_value
        return (f"{acts}{why}<br>Stance: <b>{stance_name(sheet.stance)}</b> (cover value {cover})"
                f"<br>Holds ({sheet.primary_hand} hand): <b>{held}</b>{off}{aim}{rest}{dropped}")
