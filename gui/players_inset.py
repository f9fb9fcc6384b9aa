"""The "Players see" dock: a small live picture of the players' window in the GM's window,
for a GM with one laptop screen (the players' window may be behind this one, or on a screen
the GM does not look at).

The picture is the players' canvas itself (``PlayerWindow.grab_canvas``: grabbed at its own size,
so the players' view's tile and sprite caches serve it, then scaled down): what it shows is
what the players get, blank card, banner, revealed roll and pings included. It is never
painted in a drag step: a change of the players' picture starts an idle job
(:mod:`gui.idle`), which redraws at most every :data:`PREVIEW_INTERVAL_S` seconds while
the GM drags (a preview) and :data:`INTERVAL_S` otherwise, by the program's clock
(:mod:`engine.clock`); a hidden dock (folded into a tab) draws nothing until shown.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QCheckBox, QDockWidget, QHBoxLayout, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from engine import clock
from gui import style
from gui.idle import IdleJob

#: Seconds between two pictures at least, while the GM drags (previews), and otherwise.
PREVIEW_INTERVAL_S = 0.5
INTERVAL_S = 0.1
CLOSED_NOTE = "The players' window is closed: View > Player View (Ctrl+Shift+P)"


class InsetPicture(QWidget):
    """The picture itself (16:9, as wide as the dock), or a line saying why there is none."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.image: QImage | None = None
        self.note = ""
        sp = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        sp.setHeightForWidth(True)
        self.setSizePolicy(sp)
        self.setMinimumSize(160, 90)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt API
        return True

    def heightForWidth(self, w: int) -> int:  # noqa: N802 - Qt API
        return max(90, round(w * 9 / 16))

    def sizeHint(self) -> QSize:
        return QSize(320, 180)

    def picture_rect(self) -> QRectF:
        """Where the picture goes (widget pixels): the largest 16:9 rect, centred."""
        w, h = self.width(), self.height()
        s = min(w / 16, h / 9)
        return QRectF((w - 16 * s) / 2, (h - 9 * s) / 2, 16 * s, 9 * s)

    def paintEvent(self, ev) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("#000000"))
        r = self.picture_rect()
        if self.image is not None and not self.image.isNull():
            p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
            p.drawImage(r, self.image)
        else:
            p.setPen(QColor("#9aa4ae"))
            p.setFont(style.ui_font(12))
            p.drawText(r.adjusted(8, 8, -8, -8), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.note)
        p.setPen(QPen(QColor(255, 255, 255, 50), 1))
        p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5))
        p.end()


class PlayersInset(QWidget):
    """The dock's contents: the picture, a button that opens or closes the players' window,
    and the Blank check box (both the View menu's actions)."""

    def __init__(self, controller):
        super().__init__()
        self.controller = controller
        window = controller.window
        self.window = window
        self.picture = InsetPicture(self)
        self.refreshes = 0  # pictures drawn (for tests and benches)
        self._job = IdleJob(self._refresh)
        self._since = clock.Stopwatch(start=False)
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setTimerType(Qt.TimerType.PreciseTimer)
        self._later.timeout.connect(self._due)
        self._armed_at = 0.0  # the stopwatch's reading when the wait began
        self.open_button = QPushButton()
        self.open_button.clicked.connect(lambda: controller.act_open.trigger())
        self.blank_box = QCheckBox("Blank")
        self.blank_box.setToolTip("Hide the map from the players (Ctrl+B)")
        self.blank_box.toggled.connect(lambda on: on != controller.act_blank.isChecked() and controller.act_blank.trigger())
        controller.act_blank.toggled.connect(self.blank_box.setChecked)
        controller.act_open.toggled.connect(lambda _: self._buttons())
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.open_button)
        row.addWidget(self.blank_box)
        row.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.picture, 1)
        lay.addLayout(row)
        self._buttons()
        # under the panels' tabs, not one of them: the GM sees it while working in the others
        # (shown when the players' window opens, hidden when it closes; the arrangement is saved
        # with the window's)
        dock = QDockWidget("Players see", window)
        dock.setObjectName("dock_players_see")
        dock.setWidget(self)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock, Qt.Orientation.Vertical)
        dock.hide()
        window.docks["players_see"] = dock
        window.menus["Panels"].addAction(dock.toggleViewAction())
        self.dock = dock
        self.dock.visibilityChanged.connect(lambda on: on and self.refresh_soon())
        self.picture.note = CLOSED_NOTE

    def show_dock(self) -> None:
        """Show the dock, tall enough for a 16:9 picture as wide as it (the first time)."""
        first = not self.dock.isVisible() and not getattr(self, "_fitted", False)
        self.dock.show()
        if first and not self.dock.isFloating():
            self._fitted = True
            QTimer.singleShot(0, self.fit_height)

    def fit_height(self) -> None:
        """Make the dock as tall as a 16:9 picture as wide as it wants (at most 40 % of the
        window's height: the panels above keep the rest)."""
        if not self.dock.isVisible() or self.dock.isFloating():
            return
        w = max(160, self.dock.width() - 8)
        title = self.dock.height() - self.height()
        want = round(w * 9 / 16) + self.open_button.sizeHint().height() + 16 + max(0, title)
        want = min(want, int(0.4 * self.window.height()))
        self.window.resizeDocks([self.dock], [want], Qt.Orientation.Vertical)

    def _buttons(self) -> None:
        open_ = self.controller.act_open.isChecked()
        self.open_button.setText("Close player view" if open_ else "Open player view")
        self.blank_box.setEnabled(open_)

    def attach(self, player) -> None:
        """Follow ``player`` (a :class:`gui.player_view.PlayerWindow`): a new picture after
        each change of what it shows."""
        player.pictureChanged.connect(self.refresh_soon)

    def refresh_soon(self) -> None:
        """Draw a new picture in a later event-loop turn (at most one waits)."""
        if not self._job.isActive():
            self._job.start()

    def _interval(self) -> float:
        return PREVIEW_INTERVAL_S if getattr(self.window.document, "in_preview", False) else INTERVAL_S

    def _refresh(self) -> None:
        if not self.isVisible() or self._later.isActive():
            return  # (drawn when the dock is shown again; or a picture is due already)
        elapsed = self._since.elapsed()
        left = self._interval() - elapsed
        if left > 0:
            self._armed_at = elapsed
            self._later.start(int(left * 1000) + 2)
            return
        self._refresh_now()

    def _due(self) -> None:
        """The wait is over by the timer: draw when the program's clock agrees; a clock that
        did not move (a test's manual clock) waits for the next change instead."""
        elapsed = self._since.elapsed()
        if elapsed >= self._interval():
            self._refresh_now()
        elif elapsed > self._armed_at:  # (the timer fired a little early)
            self._armed_at = elapsed
            self._later.start(int((self._interval() - elapsed) * 1000) + 2)

    def _refresh_now(self) -> None:
        self._later.stop()
        if not self.isVisible():
            return
        player = self.controller.player
        if player is None or not player.isVisible():
            self.picture.image = None
            self.picture.note = CLOSED_NOTE
        else:
            self.picture.image = scaled(player.grab_canvas().toImage(), self.picture.picture_rect().size().toSize(),
                                        player.devicePixelRatioF())
            self.picture.note = ""
        self.refreshes += 1
        self._since.restart()
        self.picture.update()


def scaled(img: QImage, size: QSize, dpr: float = 1.0) -> QImage:
    """``img`` scaled smoothly to fit ``size`` (logical pixels at ``dpr``)."""
    if size.width() < 2 or size.height() < 2:
        return img
    dpr = dpr or 1.0
    return img.scaled(QSize(int(size.width() * dpr), int(size.height() * dpr)),
                      Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)


__all__ = ["INTERVAL_S", "PREVIEW_INTERVAL_S", "InsetPicture", "PlayersInset", "scaled"]
