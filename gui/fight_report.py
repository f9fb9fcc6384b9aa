"""The after-action report of a recorded fight: a PDF or an HTML page (issue 31).

One page per round (or per action, ``per="action"``): the map at that moment as a vector
picture (the snapshot renderer, :class:`gui.snapshot.Snapshot`, on the encounter as it was:
:func:`engine.record.encounter_at`) with each shooter's line of fire and the zones, then the
round's log lines and the damage each action dealt, continued on the next page when long; at
the end a summary table per character (hits, damage dealt and taken, rounds survived).
``players=True`` writes the players' version: their view and fog at that time, no hidden
token, no name of one (engine/fight_story.py).

    coverfire report FILE --out report.pdf [--players] [--per action]
    File > Export Fight Report...

The story itself (pages, damage, totals) is the engine's: :func:`engine.fight_story.tell`.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPageLayout, QPageSize, QPainter, QPdfWriter, QPen

from engine.errors import CoverfireError
from engine.fight_story import Page, Story, tell
from engine.record import RecordError, encounter_at
from gui import style
from gui.snapshot import Snapshot, SnapshotSpec, write_bytes

FORMATS = (".pdf", ".html", ".htm")
#: The PDF page in logical pixels (A4 landscape at 96 per inch).
PAGE_W, PAGE_H = 1123.0, 794.0
MARGIN = 36.0
TEXT_PX = 12.5
HEAD_PX = 22.0
FIRE = QColor("#ff5252")
INK = QColor("#1d232a")
MUTED = QColor("#59636e")


def _snapshot(encounter, page: Page, story: Story, width: int) -> Snapshot:
    past = encounter_at(encounter, page.upto)
    spec = SnapshotSpec(view="player" if story.players else "gm", title=page.title,
                        round=page.moments[-1].turn or None, map_width=width, table=False, legend=True)
    return Snapshot(past, spec)


def _paint_fire(painter: QPainter, snap: Snapshot, page: Page) -> None:
    """Each action's line of fire on the page: shooter to target where they stood."""
    pen = QPen(FIRE, 2.2)
    pen.setCosmetic(True)
    pen.setStyle(Qt.PenStyle.DashLine)
    painter.save()
    painter.setPen(pen)
    painter.setClipRect(snap.layout.map_rect)
    for m in page.moments:
        for _target, a, b in m.fire:
            painter.drawLine(QPointF(*snap.map_to_page(*a)), QPointF(*snap.map_to_page(*b)))
    painter.restore()


def _lines(page: Page, names: dict[str, str]) -> list[tuple[str, bool]]:
    """The text under a page's map: each moment's label (bold), its log lines, its damage."""
    out: list[tuple[str, bool]] = []
    for m in page.moments:
        when = m.phase or m.turn
        out.append((f"{when[:1].upper()}{when[1:]}: {m.label}" if when else m.label, True))
        out.extend((ln, False) for ln in m.log)
        for h in m.hurt:
            out.append((f"    {names.get(h.token, h.token)} takes {h.taken} {h.track} ({h.now}/{h.size})", False))
    return out


def _summary_rows(story: Story) -> list[list[str]]:
    return [[t.name, t.side, str(t.hits), str(t.dealt), str(t.taken), f"{t.rounds} of {len(story.rounds)}"]
            for t in story.totals]


SUMMARY_HEAD = ["Character", "Side", "Hits", "Damage dealt", "Damage taken", "Rounds survived"]


# -- PDF ----------------------------------------------------------------------------------------------
class _Pages:
    """Pages painted one after another into a PDF."""

    def __init__(self, title: str):
        self.buf = QBuffer()
        self.buf.open(QIODevice.OpenModeFlag.WriteOnly)
        self.writer = QPdfWriter(self.buf)
        self.writer.setResolution(96)
        self.writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
        self.writer.setPageOrientation(QPageLayout.Orientation.Landscape)
        self.writer.setPageMargins(QMarginsF(0, 0, 0, 0))
        self.writer.setTitle(title)
        self.writer.setCreator("Coverfire")
        self.painter = QPainter(self.writer)
        self.pages = 1
        self.y = MARGIN
        self.col = 0  # the column written in (see _flow)
        self.top = MARGIN

    def new_page(self) -> None:
        self.writer.newPage()
        self.pages += 1
        self.y = MARGIN

    def text(self, text: str, px: float = TEXT_PX, *, bold: bool = False, colour: QColor = INK,
             x: float = MARGIN, width: float | None = None) -> float:
        """Draw wrapped text at the cursor; returns its height."""
        p = self.painter
        font = style.ui_font(px, bold)
        p.setFont(font)
        p.setPen(QPen(colour))
        w = (PAGE_W - MARGIN - x) if width is None else width
        flags = int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap)
        rect = QFontMetricsF(font).boundingRect(QRectF(0, 0, w, 10_000), flags, text)
        p.drawText(QRectF(x, self.y, w, rect.height() + 2), flags, text)
        return rect.height() + 2

    def room(self) -> float:
        return PAGE_H - MARGIN - self.y

    def finish(self) -> bytes:
        self.painter.end()
        return bytes(self.buf.data())


MAP_W = 660.0  # the map's column on a page; the log's is the rest
GAP = 24.0


def _flow(doc: _Pages, cols: list[tuple[float, float]], text: str, bold: bool, heading: str) -> None:
    """Write one line into the page's columns, going on to the next column, then to a new
    page of two columns (headed ``heading``) when it is full."""
    need = TEXT_PX * 1.6
    if doc.room() < need:
        if doc.col + 1 < len(cols):
            doc.col += 1
            doc.y = doc.top
        else:
            doc.new_page()
            doc.y += doc.text(heading, HEAD_PX * 0.8, bold=True) + 8
            half = (PAGE_W - 2 * MARGIN - GAP) / 2
            cols[:] = [(MARGIN, half), (MARGIN + half + GAP, half)]
            doc.col = 0
            doc.top = doc.y
    x, w = cols[doc.col]
    doc.y += doc.text(text, TEXT_PX, bold=bold, colour=INK if bold else MUTED, x=x, width=w)


def _paint_pages(encounter, story: Story) -> _Pages:
    names = {t.id: t.name or t.id for t in encounter.tokens}
    doc = _Pages(f"After-action report: {story.title}")
    first = True
    for page in story.pages:
        if not first:
            doc.new_page()
        first = False
        with _snapshot(encounter, page, story, 1000) as snap:
            size = snap.page_size()
            k = min(MAP_W / size.width(), (PAGE_H - 2 * MARGIN) / size.height())
            p = doc.painter
            p.save()
            p.translate(MARGIN, MARGIN)
            p.scale(k, k)
            snap.paint(p)
            _paint_fire(p, snap, page)
            p.restore()
        x = MARGIN + MAP_W + GAP
        cols = [(x, PAGE_W - MARGIN - x)]
        doc.col, doc.y, doc.top = 0, MARGIN, MARGIN
        for text, bold in _lines(page, names):
            _flow(doc, cols, text, bold, f"{page.title} (continued)")
    doc.new_page()
    doc.y += doc.text(f"Summary: {story.title}", HEAD_PX, bold=True) + 8
    rounds = ", ".join(str(r) for r in story.rounds)
    doc.y += doc.text(f"{len(story.rounds)} rounds recorded ({rounds})"
                      + ("; the players' version: hidden characters left out" if story.players else ""),
                      TEXT_PX, colour=MUTED) + 10
    widths = [220.0, 140.0, 80.0, 130.0, 130.0, 150.0]
    for r, row in enumerate([SUMMARY_HEAD] + _summary_rows(story)):
        if doc.room() < TEXT_PX * 2:
            doc.new_page()
        x = MARGIN
        h = 0.0
        for w, cell in zip(widths, row):
            h = max(h, doc.text(cell, TEXT_PX, bold=r == 0, x=x, width=w - 8))
            x += w
        doc.y += h + 4
    return doc


def _pdf(encounter, story: Story) -> bytes:
    return _paint_pages(encounter, story).finish()


# -- HTML -------------------------------------------------------------------------------------------
def _svg_of_page(encounter, page: Page, story: Story) -> str:
    with _snapshot(encounter, page, story, 960) as snap:
        text = snap.svg(over=lambda p: _paint_fire(p, snap, page), title=page.title).decode("utf-8")
    start = text.find("<svg")
    return text[start:] if start >= 0 else text


def _html(encounter, story: Story) -> bytes:
    names = {t.id: t.name or t.id for t in encounter.tokens}
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>After-action report: {e(story.title)}</title>",
             "<style>body{font-family:DejaVu Sans,sans-serif;max-width:1000px;margin:2em auto;color:#1d232a}"
             "section{page-break-after:always;margin-bottom:3em}svg{width:100%;height:auto}"
             ".log{font-family:DejaVu Sans Mono,monospace;font-size:13px;white-space:pre-wrap;color:#59636e}"
             ".act{font-weight:bold;color:#1d232a;margin-top:.6em}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccd;padding:4px 10px;text-align:left}</style></head><body>",
             f"<h1>After-action report: {e(story.title)}</h1>"]
    for page in story.pages:
        parts.append(f"<section><h2>{e(page.title)}</h2>")
        parts.append(_svg_of_page(encounter, page, story))
        parts.append('<div class="log">')
        for text, bold in _lines(page, names):
            parts.append(f'<div class="act">{e(text)}</div>' if bold else f"<div>{e(text)}</div>")
        parts.append("</div></section>")
    parts.append("<section><h2>Summary</h2><table><tr>" + "".join(f"<th>{e(h)}</th>" for h in SUMMARY_HEAD)
                 + "</tr>")
    for row in _summary_rows(story):
        parts.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>")
    parts.append("</table></section></body></html>")
    return "\n".join(parts).encode("utf-8")


def report_bytes(encounter, fmt: str, *, players: bool = False, per: str = "round") -> bytes:
    """The report of ``encounter``'s recorded fight as ``fmt`` (``"pdf"`` or ``"html"``);
    :class:`~engine.errors.CoverfireError` when it has no record."""
    if per not in ("round", "action"):
        raise CoverfireError(f"--per {per!r}: use 'round' or 'action'")
    try:
        story = tell(encounter, per=per, players=players)
    except RecordError as exc:
        raise CoverfireError(str(exc)) from None
    return _pdf(encounter, story) if fmt == "pdf" else _html(encounter, story)


def write_report(encounter, path: str | Path, *, players: bool = False, per: str = "round") -> Path:
    """Write the report to ``path`` (``.pdf``, ``.html``), atomically."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise CoverfireError(f"{path}: a report is written as .pdf or .html, not {suffix or 'no extension'!r}")
    write_bytes(path, report_bytes(encounter, "pdf" if suffix == ".pdf" else "html", players=players, per=per))
    return path


def run_report(args) -> int:
    """``coverfire report FILE -o OUT``: write the report and say what was written."""
    import sys

    from engine.files import load_encounter

    out = Path(args.output)
    if out.suffix.lower() not in FORMATS:
        raise CoverfireError(f"{out}: a report is written as .pdf or .html, not "
                             f"{out.suffix or 'a file with no extension'}")
    if not out.parent.exists():
        raise CoverfireError(f"cannot write {out}: the folder {out.parent} does not exist")
    notes: list[str] = []
    encounter = load_encounter(args.file, notes=notes)
    for note in notes:
        print(f"coverfire: warning: {note}", file=sys.stderr)
    from gui.export import ensure_app

    ensure_app(offscreen=True)
    story_pages = tell(encounter, per=args.per, players=args.players) if encounter.record is not None else None
    write_report(encounter, out, players=args.players, per=args.per)
    rounds = len(story_pages.rounds) if story_pages else 0
    print(f"wrote {out} ({'players' if args.players else 'GM'} version, {rounds} rounds, "
          f"{len(story_pages.pages) if story_pages else 0} {args.per} pages and a summary)")
    return 0


__all__ = ["FORMATS", "report_bytes", "run_report", "write_report"]
