"""An array of ``QPainter.PixmapFragment`` for one ``drawPixmapFragments`` call, filled
from numpy: many sprites stamped in one C++ call (:func:`gui.layers.paint.stamp_many`).

PySide6's ``drawPixmapFragments(fragments, count, pixmap)`` takes a pointer to the first of
``count`` fragments laid out as C++ lays them out (ten doubles each: x, y, sourceLeft,
sourceTop, width, height, scaleX, scaleY, rotation, opacity). The array is a numpy array of
that shape and the pointer its memory wrapped as a fragment with shiboken6's public
``wrapInstance`` (what pyqtgraph's private ``pyqtgraph.Qt.internals.PrimitiveArray`` does;
Coverfire no longer depends on that private class).
"""

from __future__ import annotations

import numpy as np
import shiboken6
from PySide6.QtGui import QPainter

#: Doubles in one ``QPainter::PixmapFragment``.
FIELDS = 10


class Fragments:
    """A growable array of fragments: :meth:`resize` to ``n``, fill :meth:`ndarray` (``n`` x
    :data:`FIELDS`), then ``painter.drawPixmapFragments(*fragments.drawargs(), pixmap)``."""

    def __init__(self) -> None:
        self._array = np.empty((0, FIELDS), dtype=np.float64)
        self._size = 0

    def resize(self, n: int) -> None:
        if n > len(self._array):
            self._array = np.empty((max(n, 2 * len(self._array)), FIELDS), dtype=np.float64)
        self._size = n

    def ndarray(self) -> np.ndarray:
        return self._array[: self._size]

    def drawargs(self) -> tuple:
        """``(first fragment, count)`` for ``drawPixmapFragments`` (None and 0 when empty)."""
        if self._size == 0:
            return None, 0
        assert self._array.flags.c_contiguous and QPainter.PixmapFragment is not None
        return shiboken6.wrapInstance(self._array.ctypes.data, QPainter.PixmapFragment), self._size
