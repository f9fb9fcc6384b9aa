"""The Action panel: one dock beside the map in which the fight runs (issue 13 item 2).

Every rule system's actions (an attack, a grenade, suppressive fire, a d100 action, a Static
Veil maneuver) are :class:`ActionPage` widgets shown one at a time in this panel, never in a
window over the map: while a page is open the GM keeps picking targets on the map and the map
keeps drawing the preview. The panel is at most :data:`MAX_WIDTH` px wide and scrolls inside.

Keys: Escape cancels the page (it drops the action being set up: nothing changes), Enter
applies it (unless the focus is in a text field, whose Enter is its own); after an action is
applied the keyboard focus goes back to the map, so tool keys work at once.

No rule here: the panel knows no rule system; pages come from ``gui/rules/<name>/``.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui import theme

#: The widest the panel (and its dock) gets, in pixels.
MAX_WIDTH = 420
#: What a page is laid out for: the panel's width less its margins and a scroll bar.
PAGE_WIDTH = MAX_WIDTH - 40


class WrapScroll(QScrollArea):
    """A vertical scroll area whose page is as wide as the view and as tall as its wrapped
    text needs (QScrollArea's own resizing goes by the height-for-width alone and squashes
    rows of word-wrapped labels and forms). ``fitted`` after each fit (a text on the page
    changed, the page grew or shrank)."""

    fitted = Signal()

    def __init__(self, body: QWidget | None = None):
        super().__init__()
        self.setWidgetResizable(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._pending = False
        if body is not None:
            self.setWidget(body)

    def setWidget(self, body: QWidget) -> None:  # noqa: N802 - Qt API
        super().setWidget(body)
        body.installEventFilter(self)
        self.fit()

    def takeWidget(self) -> QWidget | None:  # noqa: N802 - Qt API
        w = super().takeWidget()
        if w is not None:
            w.removeEventFilter(self)
        return w

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 - Qt API
        if obj is self.widget() and ev.type() == QEvent.Type.LayoutRequest and not self._pending:
            self._pending = True
            QTimer.singleShot(0, self, self.fit)  # (dropped if the scroll area is deleted first)
        return super().eventFilter(obj, ev)

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(ev)
        self.fit()

    def fit(self) -> None:
        """Size the page to the view's width and the height its layout needs at that width
        (combo boxes added since are let narrower than their items, :func:`fit_combos`)."""
        self._pending = False
        body = self.widget()
        if body is None:
            return
        fit_combos(body)
        w = max(120, self.viewport().width())
        lay = body.layout()
        if lay is None:
            h = body.heightForWidth(w) if body.hasHeightForWidth() else body.sizeHint().height()
            body.resize(w, max(h, self.viewport().height()))
            return
        lay.activate()
        h = lay.heightForWidth(w) if lay.hasHeightForWidth() else -1
        h = max(h, lay.minimumSize().height(), lay.sizeHint().height(), self.viewport().height())
        if body.width() != w or body.height() != h:
            body.resize(w, h)
        self.fitted.emit()


def fit_combos(widget: QWidget, chars: int = 14, wide: int = 170) -> None:
    """Let every combo box in ``widget`` wider than ``wide`` px be narrower than its longest
    item (``chars`` characters at least; the list still shows whole items), so the page fits
    the panel."""
    for combo in widget.findChildren(QComboBox):
        if combo.sizeAdjustPolicy() == QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon:
            continue
        if combo.minimumSizeHint().width() <= wide:
            continue
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(chars)
        # (a style change drops the least size the combo cached for its old policy)
        QApplication.sendEvent(combo, QEvent(QEvent.Type.StyleChange))


class ActionPage(QWidget):
    """One action in the panel. A subclass sets :attr:`title` and overrides
    :meth:`apply_default` (what Enter does), :meth:`cancel` (drop what is set up; it must
    change nothing in the encounter) and may override :meth:`page_closed` (the panel let the
    page go: take down map sketches, give back the attacker lock). It emits
    :attr:`applied` after an action landed (the panel then gives the map the focus)."""

    applied = Signal(object)
    #: The panel's heading while this page shows.
    title: str = ""

    def __init__(self, panel: "ActionPanel | None" = None):
        super().__init__()
        self.panel = panel
        #: A widget the panel keeps below the scrolling page, always in view (the dice and
        #: the Apply button); None for none.
        self.footer: QWidget | None = None
        if panel is not None:
            panel.add_page(self)

    # -- what a page says ---------------------------------------------------------------------------
    def apply_default(self):
        """Enter: apply what the page shows, if it can be applied (default: nothing)."""
        return None

    def cancel(self) -> None:
        """Escape: drop the action being set up (default: close the page)."""
        if self.panel is not None:
            self.panel.close_page(self)

    def page_closed(self) -> None:
        """The panel stopped showing this page."""

    def blocked_reason(self) -> str:
        """Why the page cannot act now, shown at the panel's top above the scrolling page
        (issue 30 item 2: "a page that can no longer act says why at its top"); "" when it
        can. Default: the text of the page's ``problems`` label, if it has one."""
        label = getattr(self, "problems", None)
        text = label.text() if isinstance(label, QLabel) else ""
        return text.strip()

    def result_text(self, change) -> str:
        """The line the panel's top shows after ``change`` landed from this page: its label
        and, below, its notes or prompts (the engine names the tokens)."""
        label = getattr(change, "label", "") or ""
        extra = list(getattr(change, "notes", ()) or ()) + list(getattr(change, "prompts", ()) or ())
        text = f"Applied: {label}  (Ctrl+Z undoes it)" if label else "Applied  (Ctrl+Z undoes it)"
        return "\n".join([text, *(f"\u2192 {x}" for x in extra[:3])])

    # -- asking the panel ---------------------------------------------------------------------------
    def show_in_panel(self) -> None:
        """Show this page in its panel (the dock shown and raised)."""
        if self.panel is not None:
            self.panel.show_page(self)

    def close(self) -> bool:  # noqa: D401 - like QWidget.close, for the pages' Close buttons
        """Let the page go (the panel closes when it is the page shown)."""
        if self.panel is not None and self.panel.current is self:
            self.panel.close_page(self)
            return True
        return super().close()

    def isVisible(self) -> bool:  # noqa: N802 - Qt API
        """Whether the page is the one the panel shows (and the panel is shown)."""
        if self.panel is None:
            return super().isVisible()
        return self.panel.current is self and super().isVisible()

    def scroll_to(self, widget: QWidget) -> None:
        """Scroll the panel so ``widget`` (on this page) is in view."""
        if self.panel is not None and self.panel.current is self:
            self.panel.scroll.ensureWidgetVisible(widget, 0, 0)


class ActionPanel(QWidget):
    """The panel's widget (put in a dock by :func:`install`): a heading with a close button
    and one scrolling page. ``pageChanged(page or None)`` when another page shows or the
    panel closes; ``applied(change)`` after a page applied an action."""

    pageChanged = Signal(object)
    applied = Signal(object)

    def __init__(self, window=None):
        super().__init__()
        self.window = window
        self.dock = None
        self.current: ActionPage | None = None
        self._pages: list[ActionPage] = []
        self.setMaximumWidth(MAX_WIDTH)
        self.heading = QLabel("No action")
        f = self.heading.font()
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.1)
        self.heading.setFont(f)
        self.heading.setWordWrap(True)
        self.close_button = QToolButton()
        self.close_button.setText("\u2715")
        self.close_button.setToolTip("Close the action (Esc): nothing is applied")
        self.close_button.clicked.connect(self.cancel)
        top = QHBoxLayout()
        top.setContentsMargins(6, 4, 4, 0)
        top.addWidget(self.heading, 1)
        top.addWidget(self.close_button)
        self.empty = QLabel("Pick an action from the rule system's menu or panel (the attack key is A).")
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet(f"color: {theme.ink('dim')}; padding: 8px")
        self.scroll = WrapScroll(self.empty)
        # the outcome of what was just applied and why the page cannot act now: at the top,
        # never scrolled away (issue 30 item 2)
        self.result_label = QLabel()
        self.result_label.setWordWrap(True)
        self.result_label.setObjectName("actionResult")
        self.result_label.setStyleSheet("padding: 4px 6px; font-weight: bold")
        self.blocked_label = QLabel()
        self.blocked_label.setWordWrap(True)
        self.blocked_label.setObjectName("actionBlocked")
        self.blocked_label.setStyleSheet(f"color: {theme.ink('error')}; padding: 2px 6px")
        self.result_label.hide()
        self.blocked_label.hide()
        self._results: dict[int, str] = {}  # id(page) -> its last result text
        self.scroll.fitted.connect(self.refresh_top)
        self.scroll.verticalScrollBar().valueChanged.connect(lambda _: self.refresh_top())
        if window is not None and getattr(window, "document", None) is not None:
            window.document.changed.connect(lambda _=None: self.refresh_top())
        self._holder = QWidget()  # parent of the pages (and footers) not shown
        self._holder.hide()
        self.footer_slot = QVBoxLayout()
        self.footer_slot.setContentsMargins(6, 0, 6, 4)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(top)
        lay.addWidget(self.result_label)
        lay.addWidget(self.blocked_label)
        lay.addWidget(self.scroll, 1)
        lay.addLayout(self.footer_slot)
        esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        esc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        esc.activated.connect(self.cancel)
        self._update_heading()

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt API
        """No: the dock's scroll area then fits the panel to the dock's height (the page
        scrolls inside, the footer's Apply and Close stay in view) instead of making it as
        tall as its wrapped texts would like (at 125 % scaling on a laptop that pushed Apply
        and Close out of the dock)."""
        return False

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt API
        """Its least height (QScrollArea asks even so, when the layout has height-for-width)."""
        return self.minimumSizeHint().height()

    # -- pages -------------------------------------------------------------------------------------
    def add_page(self, page: ActionPage) -> None:
        page.panel = self
        if page not in self._pages:
            self._pages.append(page)
            page.setParent(self._holder)
            page.applied.connect(self._page_applied)

    def remove_page(self, page: ActionPage) -> None:
        """Forget ``page`` (its rule system was uninstalled); closes the panel when shown."""
        if self.current is page:
            self.close_page(page)
        if page in self._pages:
            self._pages.remove(page)
            try:
                page.applied.disconnect(self._page_applied)
            except (RuntimeError, TypeError):
                pass
        page.panel = None

    def pages(self) -> list[ActionPage]:
        return list(self._pages)

    def show_page(self, page: ActionPage) -> None:
        """Show ``page`` (added if new) in the panel, the dock shown and raised."""
        self.add_page(page)
        if self.current is not page:
            old = self.current
            if old is not None:
                self._take_current()
                old.page_closed()
            page.setMaximumWidth(MAX_WIDTH)
            fit_combos(page)
            if page.footer is not None:
                fit_combos(page.footer)
            for w in [page, *page.findChildren(QWidget)]:
                w.ensurePolished()  # (sizes measured with the style's fonts and margins)
            self.scroll.setWidget(page)
            QTimer.singleShot(0, self.scroll.fit)
            page.show()
            if page.footer is not None:
                self.footer_slot.addWidget(page.footer)
                page.footer.show()
            self.current = page
            self._results.pop(id(page), None)  # (a page opened again starts without an old result)
            self._update_heading()
            self.refresh_top()
            self.pageChanged.emit(page)
        if self.dock is not None:
            shown = self.dock.isVisible()
            self.dock.show()
            self.dock.raise_()
            if not shown:
                self._grow()
                QTimer.singleShot(0, self._grow)  # (again once the dock is laid out)

    def _grow(self) -> None:
        """Give the panel the height of its column (the docks it shares the column with keep
        their least), so the page shows more than its footer on a laptop screen."""
        win = self.window
        if self.dock is None or win is None or not self.dock.isVisible() or self.dock.isFloating():
            return
        win.resizeDocks([self.dock], [win.height()], Qt.Orientation.Vertical)

    def close_page(self, page: ActionPage | None = None) -> None:
        """Stop showing ``page`` (default: the one shown) and hide the dock."""
        cur = self.current
        if cur is None or (page is not None and page is not cur):
            return
        self._take_current()
        self.scroll.setWidget(self._make_empty())
        self.current = None
        self._results.pop(id(cur), None)
        self._update_heading()
        self.refresh_top()
        cur.page_closed()
        if self.dock is not None:
            self.dock.hide()
        self.pageChanged.emit(None)
        self.focus_map()

    def _take_current(self) -> None:
        cur = self.current
        if cur is not None and cur.footer is not None:
            self.footer_slot.removeWidget(cur.footer)
            cur.footer.setParent(self._holder)
        w = self.scroll.takeWidget()
        if w is not None and w is not self.empty:
            w.setParent(self._holder)
        elif w is self.empty:
            w.setParent(None)
            w.deleteLater()

    def _make_empty(self) -> QLabel:
        self.empty = QLabel("Pick an action from the rule system's menu or panel.")
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet(f"color: {theme.ink('dim')}; padding: 8px")
        return self.empty

    def _update_heading(self) -> None:
        self.heading.setText(self.current.title if self.current is not None else "No action")
        self.close_button.setEnabled(self.current is not None)

    # -- keys ----------------------------------------------------------------------------------------
    def cancel(self) -> None:
        """Escape: the page shown drops its action (nothing changes); the panel closes."""
        cur = self.current
        if cur is None:
            self.focus_map()
            return
        cur.cancel()
        if self.current is cur:
            self.close_page(cur)

    def keyPressEvent(self, ev) -> None:  # noqa: N802 - Qt API
        """Enter (not taken by a child) applies the page shown; Escape cancels it (when the
        shortcut did not, e.g. with the focus outside the panel)."""
        if ev.key() == Qt.Key.Key_Escape:
            self.cancel()
            ev.accept()
            return
        if ev.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.current is not None:
            focus = QApplication.focusWidget()
            if not isinstance(focus, (QLineEdit, QPlainTextEdit, QTextEdit)):
                self.current.apply_default()
                ev.accept()
                return
        super().keyPressEvent(ev)

    def _page_applied(self, change) -> None:
        page = self.sender()
        if isinstance(page, ActionPage):
            doc = getattr(self.window, "document", None)
            self._results[id(page)] = (page.result_text(change), doc.committed if doc is not None else None)
            if page is self.current:
                self.scroll.verticalScrollBar().setValue(0)  # the page's headline, where the eye goes next
        self.refresh_top()
        self.applied.emit(change)
        self.focus_map()

    def _in_view(self, widget: QWidget) -> bool:
        """Whether ``widget`` (on the page shown) lies within the scroll area's view."""
        vp = self.scroll.viewport()
        if not widget.isVisibleTo(self.scroll.widget() or widget):
            return False
        top = widget.mapTo(vp, widget.rect().topLeft()).y()
        return 0 <= top and top + widget.height() <= vp.height()

    def result_text(self) -> str:
        """What the panel's top says was just applied on the page shown ("" for nothing)."""
        return self.result_label.text() if self.result_label.isVisibleTo(self) else ""

    def blocked_text(self) -> str:
        """Why the page shown cannot act now, as the panel's top says it ("" when it can)."""
        return self.blocked_label.text() if self.blocked_label.isVisibleTo(self) else ""

    def refresh_top(self) -> None:
        """Show the page's last result and its blocked reason above the scrolling page."""
        cur = self.current
        result, after = self._results.get(id(cur), ("", None)) if cur is not None else ("", None)
        doc = getattr(self.window, "document", None)
        if result and doc is not None and doc.committed is not after:
            result = ""  # (something else happened since: the result is no longer what was just done)
        blocked = cur.blocked_reason() if cur is not None else ""
        problems = getattr(cur, "problems", None)
        if blocked and isinstance(problems, QLabel) and self._in_view(problems):
            blocked = ""  # (the page's own line says it, in view)
        if self.result_label.text() != result:
            self.result_label.setText(result)
        self.result_label.setVisible(bool(result))
        if self.blocked_label.text() != blocked:
            self.blocked_label.setText(blocked)
        self.blocked_label.setVisible(bool(blocked))

    def focus_map(self) -> None:
        """Give the keyboard to the map (after an action, so tool keys work at once)."""
        view = getattr(self.window, "map_view", None)
        if view is not None:
            view.setFocus(Qt.FocusReason.OtherFocusReason)


def install(window) -> ActionPanel:
    """The window's Action panel (``window.action_panel``), made once, in a dock on the right
    that starts hidden (a page shows it)."""
    panel = getattr(window, "action_panel", None)
    if panel is not None:
        return panel
    panel = ActionPanel(window)
    # beside the map on the right, a tab with the Inspector (and the log) when they are there
    dock = window.add_dock(panel, "Action", Qt.DockWidgetArea.RightDockWidgetArea, "action",
                           tabify_with="inspector" if "inspector" in window.docks else None)
    dock.setMaximumWidth(MAX_WIDTH)
    dock.hide()
    panel.dock = dock
    window.action_panel = panel
    # another encounter opened: no page keeps an old action or result
    window.document.changed.connect(lambda change: change.reset and panel.close_page())
    return panel


def action_panel(window) -> ActionPanel:
    """The window's Action panel, made on first use."""
    return install(window)


__all__ = ["ActionPage", "ActionPanel", "WrapScroll", "fit_combos", "MAX_WIDTH", "PAGE_WIDTH", "action_panel", "install"]
