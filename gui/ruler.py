"""The ruler (key M): drag from any point to measure.

It shows the straight distance in metres, the range band and modifier the attacker's weapon
(the chosen one, else the one it has ready: ``RuleSystem.ready_weapon``) has at that distance (the engine's bands: :func:`engine.analysis.weapon_bands`,
:func:`engine.ranges.band_at`), and the shortest walk around the obstacles from the walker
to the end (the engine's navigator, ``Tactics.navigator.shortest_path``, for a body of the
walker's size) -- the walker is the token the drag starts on, else the selected token.
:func:`measure` is the reading (no Qt); :class:`RulerTool` draws it.

On a big map the walk is worked out in the charge planner's process
(:class:`gui.walk_worker.WalkWorker`): distance and band are shown at once, the walk reads
"walk: working out…" until it comes, then the ruler is drawn again. After an edit (an undo,
a door) the shown reading is measured again, for the new obstacles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from PySide6.QtGui import QColor

from engine.analysis import aided_modifiers, weapon_bands
from engine.errors import CoverfireError
from engine.model import Encounter
from engine.names import name_of
from engine.ranges import band_at
from gui import style
from gui.layers import Sketch
from gui.layers.tokens import TokenLayer
from gui.qtgeom import polyline_path
from gui.tools import PICK_SLACK_PX, Pointer, Tool
from gui.charge_process import refusal_text
from gui.walk_worker import WalkWorker, walk_here

RULER_COLOUR = QColor("#ffffff")
#: The walk's line while the planner works it out.
WALK_PENDING = "walk: working out\u2026"


@dataclass(frozen=True)
class Reading:
    """What the ruler reads from ``start`` to ``end`` (metres): the straight ``distance``;
    the attacker's weapon's ``band`` (name, modifier) there, or ``band_note`` saying why
    there is none (no attacker, no weapon, out of range); the ``walk`` (its length and
    points) of ``walker`` from where it stands to ``end``, or ``walk_note`` saying why
    there is none; ``walk_pending`` while it is being worked out (then neither)."""

    start: tuple[float, float]
    end: tuple[float, float]
    distance: float
    band: tuple[str, int] | None = None
    band_note: str = ""
    weapon: str | None = None
    walker: str | None = None
    walk: float | None = None
    walk_points: tuple[tuple[float, float], ...] = ()
    walk_note: str = ""
    walk_pending: bool = False

    def lines(self, encounter: Encounter) -> list[str]:
        """The ruler's label, a line each: distance, band, walk."""
        out = [f"{self.distance:.1f} m"]
        if self.band is not None:
            name, mod = self.band
            letter = style.BAND_SHORT.get(name, name[:1].upper())
            out.append(f"{letter} {mod:+d} ({name}, {self.weapon})".replace("-", "\u2212").replace("+0", "0"))
        elif self.band_note:
            out.append(self.band_note)
        who = _name(encounter, self.walker) if self.walker else ""
        if self.walk_pending:
            out.append(WALK_PENDING)
        elif self.walk is not None:
            out.append(f"{who} walks {self.walk:.1f} m")
        elif self.walk_note:
            out.append(self.walk_note)
        return out


def _name(encounter: Encounter, ident: str) -> str:
    return name_of(encounter, ident)


def measure(encounter: Encounter, tactics, start, end, *, attacker: str | None = None,
            weapon: str | None = None, walker: str | None = None, walks: WalkWorker | None = None) -> Reading:
    """The ruler's reading from ``start`` to ``end`` (map metres). The walk is asked of
    ``walks`` (pending while it works it out) or, without, worked out here."""
    sx, sy = float(start[0]), float(start[1])
    ex, ey = float(end[0]), float(end[1])
    d = math.hypot(ex - sx, ey - sy)
    fields: dict = {}
    if attacker is None:
        fields["band_note"] = "no attacker: click a token for its weapon's range"
    else:
        try:
            a = encounter.token(attacker)
        except (CoverfireError, ValueError):
            a = None
        # the named weapon, else the one it has ready (the engine's one answer, as the attack page)
        w = None if a is None else a.weapon(weapon) if weapon is not None else encounter.system.ready_weapon(encounter, a)
        if w is None:
            fields["band_note"] = f"{_name(encounter, attacker)} has no weapon"
        else:
            bands, minimum = weapon_bands(a, w)
            b = band_at(bands, d, minimum) if bands else None
            fields["weapon"] = w.name
            if not bands:
                fields["band_note"] = f"{w.name} has no range bands"
            elif b is None:
                fields["band_note"] = f"out of range of {w.name}" if d > minimum else f"inside {w.name}'s minimum range"
            else:
                mods = aided_modifiers(encounter, a, w, bands)  # (a rangefinder: the attack's modifier)
                fields["band"] = (b.band, int(b.modifier) if mods is None else mods[b.band])
    if walker is not None and tactics is not None:
        fields["walker"] = walker
        try:
            w_tok = encounter.token(walker)
            begin, radius = (float(w_tok.x), float(w_tok.y)), float(w_tok.radius)
            if walks is not None:
                answer = walks.walk(tactics, begin, (ex, ey), radius)
            else:
                answer = walk_here(tactics.navigator, begin, (ex, ey), radius)
        except (CoverfireError, ValueError) as exc:
            answer = ("refused", str(exc))
        if answer is None:
            fields["walk_pending"] = True
        elif answer[0] == "refused":
            fields["walk_note"] = f"no walk: {refusal_text(answer, encounter)}"
        elif answer[0] == "none":
            fields["walk_note"] = f"no walk: {_name(encounter, walker)} cannot get there"
        else:
            fields["walk_points"], fields["walk"] = answer[1], answer[2]
    elif walker is None:
        fields["walk_note"] = "select a token for its walk"
    return Reading((sx, sy), (ex, ey), d, **fields)


class RulerTool(Tool):
    """Drag to measure; the reading stays drawn until the next drag, Escape or another tool."""

    name = "Ruler"
    shortcut = "M"
    tip = "Measure: drag from any point (distance, the attacker's range band, the selected token's walk)"

    def __init__(self, host):
        super().__init__(host)
        self._start: tuple[float, float] | None = None
        self._walker: str | None = None
        self._from_token: str | None = None  # the token the ruler was pressed on (its gun's band)
        self._end: tuple[float, float] | None = None
        self._m_per_px = 1.0
        self._listening = None  # the document whose changes measure the shown reading again
        self.reading: Reading | None = None
        self.walks = WalkWorker()
        self.walks.answered.connect(self._walk_answered)
        self._prepare()

    def _prepare(self) -> None:
        """Taken up on a big map with a token selected: its movement graph is built now, in
        the planner (its walk is then quicker to come)."""
        tactics, enc = self.doc.tactics, self.doc.encounter
        ids = {t.id: t for t in enc.tokens}
        walker = next((ids[i] for i in self.host.selection.ids if i in ids), None)
        if tactics is not None and walker is not None:
            try:
                self.walks.prepare(tactics, walker.radius)
            except ValueError:  # (the engine has no answers for this encounter)
                pass

    def _walker_for(self, p: Pointer) -> str | None:
        tid = self.host.picker().token_at(p.x, p.y, PICK_SLACK_PX * p.m_per_px, TokenLayer.MIN_RADIUS_PX * p.m_per_px)
        if tid is not None:
            return tid
        enc = self.doc.encounter
        ids = {t.id for t in enc.tokens}
        for i in self.host.selection.ids:
            if i in ids:
                return i
        return None

    def press(self, p: Pointer) -> None:
        self._listen()
        self._walker = self._walker_for(p)
        self._start = (p.x, p.y)
        self._from_token = None
        if self._walker is not None:  # from a token: from its centre
            t = self.doc.encounter.token(self._walker)
            drawn = max(t.radius, TokenLayer.MIN_RADIUS_PX * p.m_per_px)
            if math.hypot(t.x - p.x, t.y - p.y) <= drawn + PICK_SLACK_PX * p.m_per_px:
                self._start = (t.x, t.y)
                self._from_token = t.id
        self.move(p)

    def move(self, p: Pointer) -> None:
        if self._start is None:
            return
        self._end, self._m_per_px = (p.x, p.y), p.m_per_px
        self._show()

    def _show(self) -> None:
        """Measure from the start to the end again (the walk from the worker) and draw it."""
        sel = self.host.selection
        enc = self.doc.encounter
        error = self.doc.tactics_error  # (the engine refused this encounter: its answers are older)
        # the band of the measured token's gun when the ruler starts on a token, else the attacker's
        if self._from_token is not None and self._from_token != sel.attacker:
            attacker, weapon = self._from_token, None
        else:
            attacker, weapon = sel.attacker, sel.weapon
        self.reading = measure(enc, None if error else self.doc.tactics, self._start, self._end,
                               attacker=attacker, weapon=weapon, walker=self._walker, walks=self.walks)
        if error and self._walker is not None:
            self.reading = replace(self.reading, walk_note=f"no walk: {error}")
        self.host.set_sketch(self.sketch(self.reading, self._m_per_px))
        self.host.status("   ".join(self.reading.lines(enc)))

    def release(self, p: Pointer) -> None:
        if self._start is None:
            return
        self.move(p)
        self._start = None

    def _walk_answered(self) -> None:
        """The worker has more (the walk came, the planner is ready): draw the reading again."""
        if self.reading is not None and self.reading.walk_pending:
            self._again()

    def _again(self) -> None:
        r = self.reading
        if r is None:
            return
        start = self._start
        self._start, self._end = r.start, r.end
        try:
            self._show()
        finally:
            self._start = start

    def _listen(self) -> None:
        doc = self.doc
        if self._listening is not doc:
            self._unlisten()
            doc.changed.connect(self._document_changed)
            self._listening = doc

    def _unlisten(self) -> None:
        doc, self._listening = self._listening, None
        if doc is not None:
            try:
                doc.changed.disconnect(self._document_changed)
            except (RuntimeError, TypeError):  # (gone, or not connected)
                pass

    def _document_changed(self, change=None) -> None:
        """An edit (undo, a door, the Action panel): the shown reading is measured again, so
        it never shows a walk (or a walker's place) of the encounter before."""
        if self.reading is not None:
            self._again()

    def sketch(self, reading: Reading, m_per_px: float) -> Sketch:
        """The ruler's drawing: the straight line with end handles, the walk's path, the
        reading's lines stacked by the end point."""
        sk = Sketch(colour=RULER_COLOUR)
        sk.lines.append(polyline_path([reading.start, reading.end]))
        sk.handles.extend([reading.start, reading.end])
        straight = (len(reading.walk_points) == 2 and math.dist(reading.walk_points[0], reading.start) < 1e-6)
        if len(reading.walk_points) >= 2 and not straight:  # (the same as the ruler's line: drawn once)
            sk.lines.append(polyline_path(list(reading.walk_points)))
        ex, ey = reading.end
        for i, text in enumerate(reading.lines(self.doc.encounter)):
            sk.labels.append((ex, ey + i * 22.0 * m_per_px, text))
        return sk

    def cancel(self) -> None:
        self._start = None
        self.reading = None
        self.walks.cancel()
        self._unlisten()
        super().cancel()


__all__ = ["Reading", "RulerTool", "measure"]
