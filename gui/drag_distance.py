"""The distance a dragged token walks, shown beside it during the drag (issue 30 item 6).

While the GM drags one token, the label beside it reads the metres of the walk around the
obstacles from where the token stood to where it is now (the ruler's walk:
:class:`gui.walk_worker.WalkWorker`, in the charge planner's process on a big map) and what
that costs in the encounter's rule system (``RuleSystem.move_cost``: Shadowrun's walking or
running, Static Veil's Movement, d100's crawl), and the walk's path is drawn. The walk is
asked once per event-loop turn (a zero timer gathers the drag's steps), never inside the
drag step itself, so a drag step costs what it did; while the walk is worked out the label
gives the straight distance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer

from engine.errors import CoverfireError
from engine.names import display_name
from gui.layers import Sketch
from gui.qtgeom import polyline_path
from gui.walk_worker import WalkWorker


@dataclass(frozen=True)
class DragReading:
    """What the label beside a dragged token says: ``walked`` metres along ``path`` (None
    while pending or when there is no walk), the straight ``straight`` metres, the system's
    ``cost`` words for the walk, and ``note`` when there is no walk."""

    token: str
    name: str
    at: tuple[float, float]
    straight: float
    walked: float | None = None
    path: tuple[tuple[float, float], ...] = ()
    cost: str = ""
    note: str = ""
    pending: bool = False

    def lines(self) -> list[str]:
        if self.walked is not None:
            out = [f"{self.name} walks {self.walked:.1f} m"]
        elif self.pending:
            out = [f"{self.straight:.1f} m (walk: working out\u2026)"]
        else:
            out = [f"{self.straight:.1f} m" + (f" ({self.note})" if self.note else "")]
        if self.cost:
            out.append(self.cost)
        return out


class DragDistance(QObject):
    """The drag-distance label of one select tool (see the module doc)."""

    def __init__(self, host, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.walks = WalkWorker(self)
        self.walks.answered.connect(self._refresh)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._refresh)
        self._req: tuple | None = None  # (base encounter, tactics, token id, to, m_per_px)
        self.reading: DragReading | None = None

    def follow(self, base, tactics, token_id: str, to: tuple[float, float], m_per_px: float) -> None:
        """The token ``token_id`` of ``base`` (the encounter before the drag) is dragged to
        ``to``: the label follows at once (its last reading moved along), the walk is asked
        in the next turn."""
        self._req = (base, tactics, token_id, (float(to[0]), float(to[1])), m_per_px)
        if self.reading is not None and self.reading.token == token_id:
            self._draw(self._req, self.reading)
        self._timer.start()

    @property
    def active(self) -> bool:
        """Whether a drag is being followed (its label shown or about to be)."""
        return self._req is not None

    def stop(self) -> None:
        self._timer.stop()
        self._req, self.reading = None, None
        self.walks.cancel()

    def _refresh(self) -> None:
        req = self._req
        if req is None:
            return
        base, tactics, tid, to, m_per_px = req
        try:
            tok = base.token(tid)
        except (CoverfireError, ValueError):
            return
        start = (float(tok.x), float(tok.y))
        straight = math.dist(start, to)
        fields: dict = {}
        if tactics is not None and straight > 1e-9:
            try:
                answer = self.walks.walk(tactics, start, to, float(tok.radius))
            except (CoverfireError, ValueError) as exc:
                answer = ("refused", str(exc))
            if answer is None:
                fields["pending"] = True
            elif answer[0] == "path":
                fields["path"], fields["walked"] = tuple(answer[1]), float(answer[2])
            else:
                fields["note"] = "no walk around the obstacles"
        elif straight <= 1e-9:
            fields["walked"] = 0.0
        metres = fields.get("walked", straight)
        try:
            fields["cost"] = base.system.move_cost(base, tid, metres)
        except (CoverfireError, ValueError):
            fields["cost"] = ""
        reading = DragReading(tid, display_name(tok, base), to, straight, **fields)
        self.reading = reading
        self._draw(req, reading)

    def _draw(self, req, reading: DragReading) -> None:
        base, _, tid, to, m_per_px = req
        tok = base.token(tid)
        sk = Sketch()
        if len(reading.path) >= 2:
            sk.lines.append(polyline_path(list(reading.path)))
        # beside the token, clear of its disc: right of it, the lines stacked downwards
        from gui.layers.tokens import TokenLayer

        r = max(float(tok.radius), TokenLayer.MIN_RADIUS_PX * m_per_px)
        x, y = to[0] + r, to[1] - r - 12.0 * m_per_px
        for i, text in enumerate(reading.lines()):
            sk.labels.append((x, y + i * 22.0 * m_per_px, text))
        self.host.set_sketch(sk)


__all__ = ["DragDistance", "DragReading"]
