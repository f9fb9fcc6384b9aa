"""The players' window repaints at most every :data:`PREVIEW_REPAINT_S` seconds while the GM
drags (issue 26 item 7).

A drag step changes the players' tokens, fog and answers; their 1920 x 1080 canvas then
repaints most of itself (names and badges on: every layer's rect), about as much GUI-thread
time as the GM's own map. The players watch a screen share (compressed video, 15-30 frames a
second), so while the GM's document is in a preview the players' view stops following its
items' updates (``QGraphicsView.NoViewportUpdate``) and repaints whole, at most every
:data:`PREVIEW_REPAINT_S` seconds by the program's clock (:mod:`engine.clock`), and once
more at the end of the wait so the last step is shown. Only a change of the players' scene
asks for a repaint (their tokens, fog and answers, as the party's sight lands from its worker;
with the fog off, every step), not the GM's step itself: with the fog on, most steps change
nothing the players see until the view for them is in. When the preview ends (the drop, an
Escape, an undo) the view follows its items again and repaints whole at once: what the
players see then is the fresh picture. ``grab()`` always renders fresh, whatever this does.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QGraphicsView

from engine import clock

#: Seconds between two repaints of the players' view at least, while the GM drags.
PREVIEW_REPAINT_S = 0.1

_FOLLOW = QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate
_HOLD = QGraphicsView.ViewportUpdateMode.NoViewportUpdate


class PreviewRepaint(QObject):
    """Holds ``view``'s repaints to one every :data:`PREVIEW_REPAINT_S` while ``document``
    (the GM's :class:`gui.document.EncounterDocument`) is in a preview."""

    def __init__(self, view: QGraphicsView, document, parent: QObject | None = None):
        super().__init__(parent)
        self.view = view
        self.document = document
        self.held = False
        self.repaints = 0  # whole repaints asked for while held (for tests and benches)
        self._since = clock.Stopwatch(start=False)
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setTimerType(Qt.TimerType.PreciseTimer)
        self._later.timeout.connect(self._due)
        document.changed.connect(self._on_change)
        # what changes in the players' scene while held (the party's sight landing from its
        # worker, a ping, the answers) asks for a repaint too, within the same limit
        view.scene().changed.connect(self._on_scene)

    def _on_change(self, _change=None) -> None:
        if not getattr(self.document, "in_preview", False):
            self.release()
            return
        if not self.held:
            self.held = True
            self.view.setViewportUpdateMode(_HOLD)
            self._repaint()
        # (later steps repaint only when the players' scene changed: with the fog on, a step
        # whose view is not in yet changes nothing they see, :data:`gui.party_sight.FOG_FRAME_MS`)

    def _on_scene(self, _regions=None) -> None:
        if self.held:
            self._soon()

    def _soon(self) -> None:
        """Repaint now when the last repaint is :data:`PREVIEW_REPAINT_S` old, else at the
        end of the wait."""
        left = PREVIEW_REPAINT_S - self._since.elapsed()
        if left <= 0:
            self._later.stop()
            self._repaint()
        elif not self._later.isActive():
            self._later.start(int(left * 1000) + 1)

    def _repaint(self) -> None:
        self._since.restart()
        self.repaints += 1
        self.view.viewport().update()

    def _due(self) -> None:
        if not self.held:
            return
        if getattr(self.document, "in_preview", False):
            self._repaint()
        else:
            self.release()

    def release(self) -> None:
        """Follow the items' updates again, and repaint whole (the preview is over)."""
        self._later.stop()
        if not self.held:
            return
        self.held = False
        self.view.setViewportUpdateMode(_FOLLOW)
        self.view.viewport().update()


__all__ = ["PREVIEW_REPAINT_S", "PreviewRepaint"]
