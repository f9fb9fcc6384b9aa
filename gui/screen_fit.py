"""Keeping the window on its screen, map first: how big the window and its dock column are.

Pure arithmetic on rectangles (``QRect`` values, device-independent pixels) so the rules are
tested without a screen: the window never exceeds the available geometry of the screen it
is on (the desktop minus task bars), and the docks leave the map most of the window.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize

#: The dock column's width at first start: a quarter of the window, within these bounds
#: (the map keeps >= 60% of the window's area at 1366x768 and >= 70% at 1920x1080).
DOCK_MIN = 300
DOCK_MAX = 420
DOCK_SHARE = 0.25


def inside(frame: QRect, avail: QRect) -> QRect:
    """``frame`` (a window's frame) made no larger than ``avail`` and moved into it."""
    w, h = min(frame.width(), avail.width()), min(frame.height(), avail.height())
    x = min(max(frame.x(), avail.x()), avail.x() + avail.width() - w)
    y = min(max(frame.y(), avail.y()), avail.y() + avail.height() - h)
    return QRect(x, y, w, h)


#: The frame a window manager adds around the client area, assumed before the window is shown
#: (a title bar and thin borders, device-independent pixels; most platforms report no frame
#: until the window is mapped). The first fit leaves this much room, and the fit is redone
#: with the real frame as soon as the window system reports it.
ASSUMED_FRAME = QMargins(1, 32, 1, 1)


def widest(a: QMargins, b: QMargins) -> QMargins:
    """Side by side, the larger of two frames' margins."""
    return QMargins(max(a.left(), b.left()), max(a.top(), b.top()),
                    max(a.right(), b.right()), max(a.bottom(), b.bottom()))


def client_for_frame(frame: QRect, margins: QMargins) -> QRect:
    """The client rectangle of a window whose frame is exactly ``frame`` when the window
    system adds ``margins`` (left, top = title bar, right, bottom) around the client area."""
    inner = frame.marginsRemoved(margins)
    return QRect(inner.x(), inner.y(), max(1, inner.width()), max(1, inner.height()))


def frame_of(client: QRect, margins: QMargins) -> QRect:
    """The frame of a window whose client area is ``client`` (``margins`` added around it)."""
    return client.marginsAdded(margins)


def client_size(frame: QSize, margins: tuple[int, int]) -> QSize:
    """The client size of a window whose frame is ``frame``, the frame adding ``margins``
    (extra width, extra height) around the client area."""
    return QSize(max(1, frame.width() - margins[0]), max(1, frame.height() - margins[1]))


def dock_width(window_width: int) -> int:
    """The dock column's default width (pixels) for a window ``window_width`` wide."""
    return int(min(DOCK_MAX, max(DOCK_MIN, round(window_width * DOCK_SHARE))))


def dock_width_limit(window_width: int) -> int:
    """The widest a program-requested dock may be (a rule system asking for room): the
    default width, so the map keeps its share (the GM may still drag a dock wider)."""
    return dock_width(window_width)


__all__ = ["inside", "client_size", "client_for_frame", "frame_of", "widest", "ASSUMED_FRAME", "dock_width", "dock_width_limit", "DOCK_MIN", "DOCK_MAX"]
