"""Which texts of a window are cut (issue 30 item 8): walk every widget that shows on screen
and report each label, button, check box, combo box, tab and table header whose text does
not fit the room it was given (elided by Qt, or clipped by the widget's edge).

:func:`cut_texts` answers a list of plain strings, ``"<where>: <text> (needs N px, has M)"``,
empty when every text fits.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGraphicsView,
    QHeaderView,
    QLabel,
    QPushButton,
    QRadioButton,
    QStyle,
    QTabBar,
    QTableView,
    QToolButton,
    QTreeView,
    QWidget,
)

#: Pixels a measured text may overhang its room (rounding of fonts' advances).
SLACK = 1


def _shown(w: QWidget) -> bool:
    return w.isVisible() and not w.visibleRegion().isEmpty() and w.width() > 0


def _where(w: QWidget) -> str:
    names = []
    p = w
    while p is not None and len(names) < 3:
        names.append(p.objectName() or type(p).__name__)
        p = p.parentWidget()
    return "/".join(reversed(names))


def _rich(text: str) -> bool:
    from PySide6.QtGui import Qt as GuiQt

    return GuiQt.mightBeRichText(text)


def _text(w) -> str:
    if isinstance(w, QComboBox):
        return w.currentText()
    if isinstance(w, QAbstractSpinBox):
        return w.text()
    return w.text()


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def _label(w: QLabel) -> str | None:
    text = w.text()
    if not text or w.pixmap() is not None and not w.pixmap().isNull():
        return None
    if w.textFormat() == Qt.TextFormat.RichText or (w.textFormat() == Qt.TextFormat.AutoText and _rich(text)):
        # rich text lays itself out: its document's ideal width against the label's
        if w.wordWrap():
            need_h = w.heightForWidth(w.width())
            if need_h > w.height() + SLACK:
                return f"{_where(w)}: {text[:60]!r} (needs {need_h} px high, has {w.height()})"
        return None
    cr = w.contentsRect()
    m = w.margin() * 2 + w.indent() if w.indent() > 0 else w.margin() * 2
    room = cr.width() - m
    fm = w.fontMetrics()
    if w.wordWrap():
        need_h = w.heightForWidth(w.width())
        if need_h > w.height() + SLACK:
            return f"{_where(w)}: {text[:60]!r} (needs {need_h} px high, has {w.height()})"
        # a single word longer than the line is cut even when wrapped
        longest = max((fm.horizontalAdvance(word) for word in text.split()), default=0)
        if longest > room + SLACK:
            return f"{_where(w)}: {text[:60]!r} (a word needs {longest} px, has {room})"
        return None
    need = max(fm.horizontalAdvance(line) for line in text.split("\n"))
    if need > room + SLACK:
        return f"{_where(w)}: {text[:60]!r} (needs {need} px, has {room})"
    return None


def _button(w: QAbstractButton) -> str | None:
    text = _plain(w.text())
    if not text:
        return None
    if isinstance(w, QToolButton):
        if w.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly:
            return None
        need = w.sizeHint().width()
    elif isinstance(w, (QPushButton, QCheckBox, QRadioButton)):
        need = w.sizeHint().width()
    else:
        return None
    if need > w.width() + SLACK:
        return f"{_where(w)}: {text!r} (needs {need} px, has {w.width()})"
    return None


def _combo(w: QComboBox) -> str | None:
    text = w.currentText()
    if not text:
        return None
    from PySide6.QtWidgets import QStyleOptionComboBox

    opt = QStyleOptionComboBox()
    w.initStyleOption(opt)
    field = w.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt, QStyle.SubControl.SC_ComboBoxEditField, w)
    need = w.fontMetrics().horizontalAdvance(text)
    if not w.itemIcon(w.currentIndex()).isNull():
        need += w.iconSize().width() + 4
    if need > field.width() + SLACK:
        return f"{_where(w)}: {text!r} (needs {need} px, has {field.width()})"
    return None


def _tabs(w: QTabBar) -> list[str]:
    out = []
    fm = w.fontMetrics()
    for i in range(w.count()):
        text = _plain(w.tabText(i))
        r = w.tabRect(i)
        vertical = w.shape() in (QTabBar.Shape.RoundedWest, QTabBar.Shape.RoundedEast,
                                 QTabBar.Shape.TriangularWest, QTabBar.Shape.TriangularEast)
        room = r.height() if vertical else r.width()
        need = fm.horizontalAdvance(text) + 8
        if need > room + SLACK:
            out.append(f"{_where(w)} tab: {text!r} (needs {need} px, has {room})")
        if not w.rect().contains(r) and r.isValid():
            out.append(f"{_where(w)} tab: {text!r} lies outside the tab bar (behind its scroll arrows)")
    return out


def _header(h: QHeaderView) -> list[str]:
    out = []
    model = h.model()
    if model is None or h.orientation() != Qt.Orientation.Horizontal:
        return out
    fm = h.fontMetrics()
    for i in range(h.count()):
        if h.isSectionHidden(i):
            continue
        text = model.headerData(i, Qt.Orientation.Horizontal)
        if not text:
            continue
        text = str(text)
        room = h.sectionSize(i)
        need = fm.horizontalAdvance(text) + 8
        # the sort arrow's room where the column sorts by it
        if h.isSortIndicatorShown() and h.sortIndicatorSection() == i:
            need += 12
        if need > room + SLACK:
            out.append(f"{_where(h)} header: {text!r} (needs {need} px, has {room})")
        x = h.sectionViewportPosition(i)
        if x + min(room, need) > h.viewport().width() + SLACK:
            out.append(f"{_where(h)} header: {text!r} past the table's right edge ({x + need} > {h.viewport().width()})")
    return out


def _cells(v: QAbstractItemView) -> list[str]:
    """Table and tree cells whose text Qt elides (only tables that do not scroll sideways:
    a cell past a horizontal scroll bar is not cut, it is off to the side)."""
    out = []
    if not isinstance(v, (QTableView, QTreeView)):
        return out
    model = v.model()
    cols = model.columnCount()
    rows = min(model.rowCount(), 40)
    for r in range(rows):
        for c in range(cols):
            idx = model.index(r, c)
            rect = v.visualRect(idx)
            if rect.isEmpty() or v.indexWidget(idx) is not None:
                continue
            text = model.data(idx, Qt.ItemDataRole.DisplayRole)
            if text in (None, ""):
                continue
            text = str(text)
            # the delegate's own measure: what Qt elides against
            need = v.sizeHintForIndex(idx).width()
            m = v.fontMetrics()
            if need > rect.width() + SLACK and not (v.wordWrap() and rect.height() > m.height() * 1.8):
                out.append(f"{_where(v)} cell ({r}, {c}): {text[:60]!r} (needs {need} px, has {rect.width()})")
    return out


def cut_texts(root: QWidget) -> list[str]:
    """Every text under ``root`` that shows on screen and does not fit (see the module)."""
    out: list[str] = []
    for w in [root] + root.findChildren(QWidget):
        if not _shown(w):
            continue
        if isinstance(w, QAbstractScrollArea) and not isinstance(w, QGraphicsView) and w.horizontalScrollBar().isVisible():
            out.append(f"{_where(w)}: scrolls sideways (its contents need {w.horizontalScrollBar().maximum()} px more)")
        if isinstance(w, (QLabel, QAbstractButton, QComboBox, QAbstractSpinBox)):
            right = w.mapTo(w.window(), w.rect().topRight()).x()
            if right > w.window().width() + SLACK:
                out.append(f"{_where(w)}: {(_text(w) or type(w).__name__)!r} runs past the window's right edge "
                           f"({right} > {w.window().width()})")
        if isinstance(w, QLabel):
            bad = _label(w)
        elif isinstance(w, QAbstractButton):
            bad = _button(w)
        elif isinstance(w, QComboBox):
            bad = _combo(w)
        elif isinstance(w, QTabBar):
            out += _tabs(w)
            continue
        elif isinstance(w, QHeaderView):
            out += _header(w)
            continue
        elif isinstance(w, QAbstractItemView):
            out += _cells(w)
            continue
        else:
            continue
        if bad:
            out.append(bad)
    # dedupe, keep order
    return list(dict.fromkeys(out))


__all__ = ["cut_texts"]
