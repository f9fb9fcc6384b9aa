"""The recorded fight replayed (issue 31): a window showing the map as it was at each step
of the encounter's record, the GM's view or the players' (with their fog at that time), with
a timeline: a slider over the steps, step and round buttons, the step's log lines and its
line of fire. It never changes the encounter: it draws its own read-only copies
(:func:`engine.record.encounter_at` on a document of its own); closing it ("Back to now",
Esc) is leaving the timeline.

Keys: Left/Right a step, Up/Down a pass, Page Up/Page Down a round, Home/End the start and the last step,
Esc back to now.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QLineF, Qt, Signal
from PySide6.QtGui import QColor, QKeySequence, QPen, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsEllipseItem,
    QGraphicsLineItem,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QSlider,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from engine.fight_story import UNSEEN
from engine.record import encounter_at
from gui.answers import LiveAnswers
from gui.document import EncounterDocument
from gui.party_sight import PartySight
from gui.player_document import PlayerDocument
from gui.player_view import PlayerOptions, SharedMapView
from gui.selection import Selection
from gui.style import GM_VIEW

FIRE = QColor("#ffd54f")


class ReplayWindow(QWidget):
    """The replay of ``encounter``'s recorded fight (a value: the window's encounter when the
    replay was opened). ``position`` is the number of timeline stops shown (0: before the
    first step); ``positionChanged(int)`` fires after it moved."""

    positionChanged = Signal(int)

    def __init__(self, encounter, path: str | Path | None = None, parent: QWidget | None = None):
        super().__init__(parent, Qt.WindowType.Window)
        self.encounter = encounter
        self.path = path
        record = encounter.record
        self.steps = record.steps if record is not None else ()
        self.stops = record.stops if record is not None else []
        self.position = 0
        self.players = False
        self.setWindowTitle(f"Replay: {encounter.name}")
        self.document = EncounterDocument(encounter_at(encounter, 0) if record is not None else encounter,
                                          path, self)
        self.document.undo_stack.setUndoLimit(1)
        self.selection = Selection(self)
        self._hidden = {t.id for t in encounter.tokens if t.hidden}
        self.view: SharedMapView | None = None
        self._fire: list = []  # the line-of-fire and actor-ring items drawn over the map now

        self.step_label = QLabel()
        self.step_label.setWordWrap(True)
        f = self.step_label.font()
        f.setPointSizeF(f.pointSizeF() * 1.15)
        f.setBold(True)
        self.step_label.setFont(f)
        self.lines = QListWidget()
        self.lines.setWordWrap(True)
        side = QWidget()
        sl = QVBoxLayout(side)
        sl.setContentsMargins(6, 6, 6, 6)
        sl.addWidget(self.step_label)
        sl.addWidget(self.lines, 1)

        self.map_box = QWidget()
        self.map_layout = QVBoxLayout(self.map_box)
        self.map_layout.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.map_box)
        split.addWidget(side)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setSizes([1000, 300])

        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, len(self.stops))
        self.slider.setPageStep(1)
        self.slider.valueChanged.connect(self.go)
        self.first_button = self._button("Start", lambda: self.go(0), "The map before the first step (Home)")
        self.round_back = self._button("\u25c0\u25c0 Round", self.previous_round, "The end of the round before (Page Up)")
        self.pass_back = self._button("\u25c0 Pass", self.previous_pass, "The end of the pass before (Up)")
        self.back = self._button("\u25c0 Step", lambda: self.go(self.position - 1), "One step back (Left)")
        self.forward = self._button("Step \u25b6", lambda: self.go(self.position + 1), "One step on (Right)")
        self.pass_on = self._button("Pass \u25b6", self.next_pass, "The end of this pass (Down)")
        self.round_on = self._button("Round \u25b6\u25b6", self.next_round, "The end of this round (Page Down)")
        self.view_choice = QComboBox()
        self.view_choice.addItems(["GM's view", "Players' view"])
        self.view_choice.setToolTip("Replay what the GM saw, or what the players saw (their fog then)")
        self.view_choice.currentIndexChanged.connect(lambda i: self.set_players(i == 1))
        self.now_button = self._button("Back to now", self.close, "Leave the replay (Esc); the encounter was never changed")
        bar = QHBoxLayout()
        for w in (self.first_button, self.round_back, self.pass_back, self.back):
            bar.addWidget(w)
        bar.addWidget(self.slider, 1)
        for w in (self.forward, self.pass_on, self.round_on, self.view_choice, self.now_button):
            bar.addWidget(w)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(split, 1)
        lay.addLayout(bar)
        for key, slot in ((Qt.Key.Key_Left, lambda: self.go(self.position - 1)),
                          (Qt.Key.Key_Right, lambda: self.go(self.position + 1)),
                          (Qt.Key.Key_PageUp, self.previous_round), (Qt.Key.Key_PageDown, self.next_round),
                          (Qt.Key.Key_Up, self.previous_pass), (Qt.Key.Key_Down, self.next_pass),
                          (Qt.Key.Key_Home, lambda: self.go(0)), (Qt.Key.Key_End, lambda: self.go(len(self.stops))),
                          (Qt.Key.Key_Escape, self.close)):
            sc = QShortcut(QKeySequence(key), self)
            sc.setContext(Qt.ShortcutContext.WindowShortcut)
            sc.activated.connect(slot)
        self._build_view()
        self.go(len(self.stops), force=True)

    def _button(self, text: str, slot, tip: str) -> QPushButton:
        b = QPushButton(text)
        b.setToolTip(tip)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        b.clicked.connect(slot)
        return b

    # -- the map ------------------------------------------------------------------------------------
    def _build_view(self) -> None:
        if self.view is not None:
            self.map_layout.removeWidget(self.view)
            self.view.hide()
            self.view.deleteLater()
            self._fire.clear()
        if self.players:
            self.sight = PartySight(self.document, self.document)
            shown = PlayerDocument(self.document, self.sight, self.document)
            extras = PlayerOptions()
            options = extras.view_options()
        else:
            self.sight = None
            shown = self.document
            extras = PlayerOptions()
            options = GM_VIEW.with_(show_selection=False, show_sight=False, show_charge=False)
        self.shown_document = shown
        self.answers = LiveAnswers(shown, self.selection, self.document)
        self.view = SharedMapView(shown, self.selection, self.answers, options, extras)
        self.map_layout.addWidget(self.view)
        self.view.fit_map()

    def set_players(self, on: bool) -> None:
        """Show the players' view (their fog at that time) or the GM's."""
        if on == self.players:
            return
        self.players = on
        self.view_choice.setCurrentIndex(1 if on else 0)
        self._build_view()
        self.go(self.position, force=True)

    # -- the timeline ---------------------------------------------------------------------------------
    def steps_shown(self, position: int | None = None) -> int:
        """How many of the record's steps the map shows at ``position`` (default now)."""
        k = self.position if position is None else position
        return 0 if k <= 0 else self.stops[k - 1] + 1

    def go(self, position: int, *, force: bool = False) -> None:
        """Show the map after ``position`` timeline stops (clamped to the timeline)."""
        position = max(0, min(len(self.stops), int(position)))
        if position == self.position and not force:
            return
        self.position = position
        past = encounter_at(self.encounter, self.steps_shown()) if self.encounter.record is not None else self.encounter
        self.document.set_content(past, self.path)
        if self.slider.value() != position:
            self.slider.blockSignals(True)
            self.slider.setValue(position)
            self.slider.blockSignals(False)
        self._show_step()
        self.positionChanged.emit(position)

    def _round_at(self, position: int) -> int:
        return self.steps[self.stops[position - 1]].round if position > 0 else 0

    def _pass_at(self, position: int) -> tuple:
        return (self._round_at(position), self.steps[self.stops[position - 1]].turn if position > 0 else "")

    def _on(self, key) -> None:
        k = self.position
        if k >= len(self.stops):
            return
        here = key(k + 1)
        while k + 1 <= len(self.stops) and key(k + 1) == here:
            k += 1
        self.go(k)

    def _back(self, key) -> None:
        k = self.position
        here = key(k)
        while k > 0 and key(k) == here:
            k -= 1
        self.go(k)

    def next_round(self) -> None:
        """To the last step of this round (or of the next, when already there)."""
        self._on(self._round_at)

    def previous_round(self) -> None:
        """To the last step of the round before this one (the start before the first)."""
        self._back(self._round_at)

    def next_pass(self) -> None:
        """To the last step of this pass (SR5's Initiative Pass; a system without passes: its
        round line's turn)."""
        self._on(self._pass_at)

    def previous_pass(self) -> None:
        self._back(self._pass_at)

    def _clean(self, text: str) -> str:
        if not self.players:
            return text
        for tid in sorted(self._hidden, key=len, reverse=True):
            name = next((t.name for t in self.encounter.tokens if t.id == tid), "") or tid
            text = text.replace(name, UNSEEN).replace(tid, UNSEEN)
        return text

    def _show_step(self) -> None:
        for item in self._fire:
            self.view.vb.removeItem(item)
        self._fire.clear()
        self.lines.clear()
        if self.position == 0:
            self.step_label.setText(f"Before the fight \u00b7 {len(self.stops)} steps recorded")
            return
        step = self.steps[self.stops[self.position - 1]]
        where = step.turn or (f"Round {step.round}" if step.round else "Before the rounds")
        if step.phase and step.phase not in where.lower():
            where += f" \u00b7 {step.phase}"
        self.step_label.setText(f"Step {self.position} of {len(self.stops)} \u00b7 {where}\n{self._clean(step.label)}")
        self.lines.addItems([self._clean(ln) for ln in step.log])
        if step.actor is None or (self.players and step.actor in self._hidden):
            return
        actor = next((t for t in self.document.encounter.tokens if t.id == step.actor), None)
        if actor is not None:  # who acted: a ring round it
            ring = QGraphicsEllipseItem(actor.x - actor.radius - 0.35, actor.y - actor.radius - 0.35,
                                        2 * actor.radius + 0.7, 2 * actor.radius + 0.7)
            ring_pen = QPen(FIRE, 3.0)
            ring_pen.setCosmetic(True)
            ring.setPen(ring_pen)
            ring.setZValue(900)
            self.view.vb.addItem(ring, ignoreBounds=True)
            self._fire.append(ring)
        if step.kind != "action":
            return
        before = encounter_at(self.encounter, self.stops[self.position - 1])
        ids = {t.id: t for t in before.tokens}
        shooter = ids.get(step.actor)
        pen = QPen(FIRE, 2.5)
        pen.setCosmetic(True)
        pen.setStyle(Qt.PenStyle.DashLine)
        for target in step.targets:
            t = ids.get(target)
            if shooter is None or t is None or (self.players and target in self._hidden):
                continue
            line = QGraphicsLineItem(QLineF(shooter.x, shooter.y, t.x, t.y))
            line.setPen(pen)
            line.setZValue(900)
            self.view.vb.addItem(line, ignoreBounds=True)
            self._fire.append(line)

    @property
    def fire_lines(self) -> list[QLineF]:
        """The lines of fire drawn now (map metres)."""
        return [item.line() for item in self._fire if isinstance(item, QGraphicsLineItem)]


__all__ = ["ReplayWindow"]
