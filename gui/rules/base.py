"""What every rule system's GUI on a main window does the same way, and the one registry of
them (issue 12 item 3: the GUI knows no rule system by name).

:class:`RuleGui` is one rule system's part of one main window: its docks, menus, actions,
map layers, Action-panel pages, token decorations, and the answers the rest of the window
asks of it (:meth:`RuleGui.context_actions` for the map's right-click menu; what the rest asks of
the rules themselves — range bands, condition bars, the round line — it asks the engine's
``RuleSystem``). ``gui/rules/<name>/`` defines
one subclass and registers it (:func:`register_rule_gui`); :class:`RuleGuiHost` installs only
the open encounter's one and uninstalls it cleanly (every dock, menu, action, layer, page
and signal it added) when an encounter of another system opens. A system with no RuleGui
(a test's fourth system) simply has none: the window works without.

:class:`LogMirror` keeps one rule system's lines in the shared combat log
(:mod:`gui.combat_log`) in step with the log the engine saves in the encounter: each batch
(one action's lines) remembers which slice of the saved log it shows, so after an undo or a
redo the batches whose entries left the saved log are struck through and those back in it
are restored.

:class:`RuleController` is a controller that is active while the open encounter's
``ruleset`` is its own, shows the saved log when an encounter is opened, and follows undo,
redo and edits. A rule system says how to read its saved log (:meth:`RuleController.saved_log`)
and how an entry becomes a line of the shared log (:meth:`RuleController.log_lines`).

:func:`same_inputs` and :class:`Kept` are how every system's panels avoid asking again what
they already know: a panel remembers the objects it read (the encounter's tokens, its rules'
settings) and skips an edit that left them the same objects (the encounter's values are
frozen: an obstacle edit keeps the very same tokens); a per-token answer (a row, a map mark)
is kept while that token is the same value.

No rule here: the entries and their text are the engine's.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from PySide6.QtCore import QObject, Signal

from engine.model import Encounter
from engine.names import name_of
from gui.combat_log import CombatLog


# -- the one commit path of a rule action -----------------------------------------------------------
def land(window, outcome, text: str | None = None) -> bool:
    """Land a rule system's ``Outcome`` (``RuleSystem.apply``) in the window: its encounter as
    one undo step named ``text`` (else the outcome's label) that tells the panels what the
    outcome ``changes`` (they refresh from it), its notes in the status bar. Returns whether
    anything changed. Every page, tracker and menu entry lands through here."""
    landed = window.document.commit(outcome.encounter, text or outcome.label or "Rule action", outcome.changes)
    if outcome.notes:
        window.statusBar().showMessage("; ".join(outcome.notes), 10000)
    return landed


def _system(ruleset: str):
    from engine.rules import find_system

    return find_system(ruleset)


# -- what the rest of the window asks a rule system's GUI -----------------------------------------
@dataclass(frozen=True)
class ContextAction:
    """One entry of a token's right-click menu: ``label``; ``enabled`` or greyed with the
    engine's ``reason``; ``callback()`` does it (opens the Action panel, books the action)."""

    label: str
    enabled: bool
    reason: str
    callback: Callable[[], object]
    key: str = ""  # the system's own name of the action (its menu group: gui.context_menu.action_group)


class Listener:
    """Connections to signals of longer-lived objects (the document, the selection), kept so
    they can all be cut at once (:meth:`detach`) when a rule system's GUI is uninstalled."""

    def listen(self, signal, slot) -> None:
        """``signal.connect(slot)``, remembered for :meth:`detach`."""
        signal.connect(slot)
        self.__dict__.setdefault("_listening", []).append((signal, slot))

    def detach(self) -> None:
        """Disconnect everything :meth:`listen` connected."""
        for signal, slot in self.__dict__.pop("_listening", []):
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):  # already gone with its sender
                pass


#: The display name of an id (a token's name, a zone's, an obstacle's; ``ident`` itself when
#: unknown, "" for None): the engine's one helper (engine.names), under its old name here.
token_name = name_of


def picked_targets(selection, encounter: Encounter, actor: str | None) -> list[str]:
    """The targets the GM picked on the map for ``actor``'s action, in picking order: the
    tokens targeted (hover + T, the map's red rings), else the selected tokens other than
    the actor (shift-click adds), else the token looked at (focus)."""
    ids = {t.id for t in encounter.tokens}
    out = [i for i in getattr(selection, "targets", ()) if i in ids and i != actor]
    if not out:
        out = [i for i in selection.ids if i in ids and i != actor]
    if not out and selection.focus in ids and selection.focus != actor:
        out = [selection.focus]
    return out


_PLAIN = (int, float, str, bool, type(None))


def same_inputs(a: Sequence | None, b: Sequence | None) -> bool:
    """Whether two tuples of what a panel read hold the very same things: the same objects
    (``is``: the encounter's frozen values are replaced, never changed, so the same object
    means the same value) or equal plain values (numbers, strings, None). None (nothing read
    yet) is the same as nothing."""
    if a is None or b is None or len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is not y and not (type(x) in _PLAIN and type(x) is type(y) and x == y):
            return False
    return True


class Kept:
    """Values worked out from some inputs, kept while those inputs are the same
    (:func:`same_inputs`): each rule system's panels ask it, per token, for what the token's
    row or mark shows, so an edit that leaves a token's sheet alone (an obstacle edit, another
    token's move) asks the rules nothing for it. ``get(key, inputs, make)`` is ``make()``
    unless ``key`` was last worked out from the same ``inputs``."""

    def __init__(self, limit: int = 8192):
        self.limit = limit
        self._kept: dict = {}

    def get(self, key, inputs: tuple, make: Callable[[], object]):
        hit = self._kept.get(key)
        if hit is not None and same_inputs(hit[0], inputs):
            return hit[1]
        if len(self._kept) >= self.limit:
            self._kept.clear()
        value = make()
        self._kept[key] = (inputs, value)
        return value

    def clear(self) -> None:
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)


def take_down_decorations(layer, shown: dict) -> None:
    """Clear the token layer's decorations (:meth:`gui.layers.TokenLayer.set_decorations`)
    while they are still ``shown``, the ones this rule system set last (the layer keeps only
    those with bars or tags); another rule system's are left alone."""
    if shown and layer.decorations == {k: v for k, v in shown.items() if v.bars or v.tags}:
        layer.set_decorations({})


class LogMirror:
    """One rule system's batches in the shared combat log, each mirroring a slice of the
    encounter's saved log (entries compared with ``==``)."""

    def __init__(self, log: CombatLog, ruleset: str):
        self.log = log
        self.ruleset = ruleset
        self._batches: dict[int, tuple[int, tuple]] = {}  # batch id -> (start, entries) it mirrors

    def clear(self) -> None:
        """Forget every batch and take this rule system's lines out of the log."""
        self._batches.clear()
        self.log.clear(self.ruleset)

    def add(self, start: int, entries: Sequence, lines, *, round: int | None = None,
            timestamp: bool | None = True) -> int:
        """Add ``lines`` (texts or (text, kind) pairs) as one batch that mirrors ``entries``,
        the saved log's entries from index ``start`` on; returns the batch id.
        ``timestamp=None`` marks lines loaded from the file (see :meth:`CombatLog.add`)."""
        batch = self.log.add(lines, self.ruleset, round=round, timestamp=timestamp)
        self._batches[batch] = (start, tuple(entries))
        return batch

    def sync(self, saved: Sequence) -> None:
        """Strike through the batches whose entries left ``saved`` (the encounter's saved
        log: undone), restore those back in it (redone)."""
        marks = [(batch, tuple(saved[start:start + len(entries)]) != entries)
                 for batch, (start, entries) in self._batches.items()]
        self.log.set_undone_many(marks)


class RuleController(QObject, Listener):
    """The rule system :attr:`ruleset` on one main window. Signals: ``activeChanged(bool)``
    when an encounter of this rule system is opened or left; ``applied(change)`` after an
    action landed (:meth:`land`); ``stateChanged()`` after any committed change of the
    encounter (edits, undo, redo, files), with :attr:`changes` set meanwhile when it was a
    rule outcome's.

    A subclass sets :attr:`ruleset` and overrides :meth:`saved_log` and :meth:`log_lines`
    (and :meth:`saved_batches` to show a loaded log in more than one batch)."""

    activeChanged = Signal(bool)
    applied = Signal(object)
    stateChanged = Signal()

    #: The ``Encounter.ruleset`` this controller serves.
    ruleset: str = ""

    def __init__(self, window, log: CombatLog):
        super().__init__(window)
        self.window = window
        self.document = window.document
        self.selection = window.selection
        self.log = log
        self._mirror = LogMirror(log, self.ruleset)
        self._active = False
        #: while ``stateChanged`` is told of a rule outcome landed, undone or redone: what it
        #: says it changed (``engine.rules.Changes``), else None (the panels look for themselves)
        self.changes = None
        self.listen(self.document.changed, self._on_document)
        self._reset()

    # -- what a rule system says ------------------------------------------------------------------
    def saved_log(self, encounter: Encounter) -> Sequence:
        """The rule system's log entries saved in ``encounter`` (oldest first)."""
        raise NotImplementedError

    def log_lines(self, entries: Sequence, detail=None) -> list[tuple[str, str]]:
        """The shared log's (text, kind) lines for saved log ``entries`` (written by the
        outcome whose ``detail`` is given; None: loaded from the file)."""
        raise NotImplementedError

    def saved_batches(self, saved: Sequence) -> list[tuple[int, int, int | None]]:
        """How a loaded log shows: ``(start, end, round)`` of each batch (default one)."""
        return [(0, len(saved), None)]

    # -- state ------------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        """Whether the open encounter uses this rule system."""
        return self._active

    @property
    def encounter(self) -> Encounter:
        """The committed encounter (a drag in progress is ignored)."""
        return self.document.committed

    def name(self, ident: str | None) -> str:
        return token_name(self.encounter, ident)

    system = property(lambda self: _system(self.ruleset), doc="The door to the rules: its RuleSystem.")

    # -- the one commit path ------------------------------------------------------------------------
    def land(self, outcome, text: str | None = None):
        """Land this system's ``Outcome`` (``RuleSystem.apply``): one undo step named ``text``
        (:func:`land`), the saved log's new entries into the shared log as one batch (struck
        through while undone), then ``applied`` for the panels. Returns the outcome's
        ``detail`` (the system's own record)."""
        start = len(self.saved_log(self.document.committed))
        if land(self.window, outcome, text):
            self.record_log(start, outcome.encounter, outcome.detail)
        self.applied.emit(outcome.detail)
        return outcome.detail

    def record_log(self, start: int, encounter: Encounter, detail=None) -> None:
        """Mirror the saved log's entries of ``encounter`` from index ``start`` on (written by
        the outcome whose ``detail`` is given) into the shared combat log, as one batch that
        undo strikes through."""
        entries = tuple(self.saved_log(encounter)[start:])
        if entries:
            self.add_log(start, entries, round=self.system.round_number(encounter) or None, detail=detail)

    # -- the combat log ---------------------------------------------------------------------------
    def add_log(self, start: int, entries: Sequence, *, round: int | None = None,
                timestamp: bool | None = True, detail=None) -> None:
        """Show ``entries`` (the saved log's from index ``start`` on) in the shared combat log
        as one batch, which undo strikes through."""
        self._mirror.add(start, entries, self.log_lines(entries, detail), round=round, timestamp=timestamp)

    # -- document ---------------------------------------------------------------------------------
    def _on_document(self, change) -> None:
        if change.reset:
            self._reset()
            return
        if change.preview:
            return
        if (self.document.encounter.ruleset == self.ruleset) != self._active:
            self._reset()  # the ruleset itself was edited
            return
        self._sync_log()
        self.changes = change.changes  # (a rule outcome's: what the panels refresh, while told)
        try:
            self.stateChanged.emit()
        finally:
            self.changes = None

    def _reset(self) -> None:
        enc = self.document.encounter
        active = enc.ruleset == self.ruleset
        self._mirror.clear()
        if active:
            saved = self.saved_log(enc)
            for start, end, rnd in (self.saved_batches(saved) if saved else ()):
                self.add_log(start, saved[start:end], round=rnd, timestamp=None)
        changed = active != self._active
        self._active = active
        self.log.want(self.ruleset, active)
        if changed:
            self.activeChanged.emit(active)
        self.stateChanged.emit()

    def _sync_log(self) -> None:
        """Strike through the batches whose entries left the encounter's saved log (undone),
        restore those back in it (redone)."""
        self._mirror.sync(self.saved_log(self.document.encounter) if self._active else ())


    def detach(self) -> None:
        """Leave the window (the rule system's GUI is uninstalled): no more document events,
        its lines out of the shared combat log."""
        super().detach()
        self._mirror.clear()
        self.log.want(self.ruleset, False)


# -- one rule system's GUI on one window ------------------------------------------------------------
class RuleGui(QObject, Listener):
    """One rule system's part of one main window (see the module docstring). A subclass sets
    :attr:`ruleset`, builds its docks, menus and pages in ``__init__`` through
    :meth:`add_dock`, :meth:`add_menu`, :meth:`add_action`, :meth:`add_layer`,
    :meth:`add_page` and :meth:`listen` (so :meth:`uninstall` can take them all away) and
    overrides the hooks it answers. :attr:`window_attribute` names the window attribute it
    is reachable as while installed (``window.sr5``)."""

    #: The ``Encounter.ruleset`` this GUI serves.
    ruleset: ClassVar[str] = ""
    #: The main window's attribute this GUI is while installed ("" for none).
    window_attribute: ClassVar[str] = ""

    system = property(lambda self: _system(self.ruleset), doc="The door to the rules: its RuleSystem.")

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.installed = True
        self._docks: list[str] = []
        self._menus: list[str] = []
        self._actions: list[str] = []
        self._layers: list = []
        self._pages: list = []
        self._decorated = False
        #: charge dragged tokens' movement during a fight (RuleSystem.on_moves, one commit)
        self.count_moves = True
        self._pending_moves = None

    # -- what the GUI adds to the window (taken away again by uninstall) ---------------------------
    def add_dock(self, widget, title: str, name: str, **kw):
        dock = self.window.add_dock(widget, title, name=name, **kw)
        self._docks.append(name)
        return dock

    def add_menu(self, title: str):
        if title not in self.window.menus:
            self._menus.append(title)
        return self.window.add_menu(title)

    def add_action(self, menu: str, text: str, slot, *, name: str, **kw):
        act = self.window.add_action(menu, text, slot, name=name, **kw)
        self._actions.append(name)
        return act

    def add_layer(self, item) -> None:
        """A map layer (a pyqtgraph item) drawn over the map while installed."""
        view = self.window.map_view
        view.vb.addItem(item, ignoreBounds=True)
        view.layers.append(item)
        self._layers.append(item)

    def add_page(self, page):
        """An Action-panel page of this system (taken out of the panel on uninstall)."""
        self._pages.append(page)
        return page

    def set_decorations(self, decorations: dict) -> None:
        """Put this system's bars and tags under the tokens (it alone owns them)."""
        self.window.map_view.tokens.set_decorations(decorations)
        self._decorated = True

    # -- what the window asks -----------------------------------------------------------------------
    def context_actions(self, token_id: str) -> list[ContextAction]:
        """The token's right-click entries: every action its rule system lists for it now
        (``RuleSystem.actions``, against the first targeted token where one needs a target),
        the refused ones greyed with the engine's reason; choosing one runs
        :meth:`run_option` (an action needing no more choices is applied, one undo step;
        the others open this system's Action-panel page)."""
        from functools import partial

        from engine.errors import CoverfireError

        enc = self.window.document.committed
        sel = self.window.selection
        target = next((t for t in getattr(sel, "targets", ()) if t != token_id), None)
        try:
            options = _system(enc.ruleset).actions(enc, token_id, target)
        except (CoverfireError, ValueError) as exc:
            return [ContextAction("No actions", False, str(exc), lambda: None)]
        return [ContextAction(o.label, o.allowed, o.reason or "", partial(self.run_option, token_id, o), o.key)
                for o in options]

    # -- moves ---------------------------------------------------------------------------------------
    def charge_moves(self, before: Encounter, moves: Sequence, text: str):
        """(The document's ``moves_hook``.) A drag's ``moves`` (``engine.rules.MoveTo``, with
        their walked paths): the encounter the rule system makes of them
        (``RuleSystem.on_moves``: the movement charged in the same step) and the step's text,
        or None to commit the moves as a plain edit (nothing to charge, or
        :attr:`count_moves` off). What the GM should read is handed to :meth:`moves_charged`
        once the step is committed."""
        from engine.errors import CoverfireError
        from engine.rules import move_tokens

        if not self.count_moves or not self.installed:
            return None
        after = move_tokens(before, moves)
        try:
            outcome = moves_outcome(before, moves)
        except (CoverfireError, ValueError) as exc:  # the GM's move stands, uncharged
            self.window.statusBar().showMessage(f"Movement not counted: {exc}", 10000)
            return None
        if outcome is None:
            return None
        if outcome.encounter == after:
            if not outcome.notes:
                return None
            self._pending_moves = (before, outcome, after)  # (refused: the GM's move stands, and why)
            return after, text
        self._pending_moves = (before, outcome, outcome.encounter)
        return outcome.encounter, self.move_text(text, outcome)

    def move_text(self, text: str, outcome) -> str:
        """The undo step's text of a drag whose movement ``outcome`` charged."""
        return text

    def moves_charged(self, before: Encounter, outcome) -> None:
        """A drag landed with its movement charged (or refused, ``outcome.notes`` say why):
        tell the GM. The default shows the notes in the status bar."""
        if outcome.notes:
            self.window.statusBar().showMessage("; ".join(outcome.notes), 10000)

    def _after_commit(self) -> None:
        pending, self._pending_moves = self._pending_moves, None
        # the step landed as charged: its tokens are the charged ones (the document's later
        # hooks add to other parts: the party's explored areas, the fight's record)
        if pending is not None and self.window.document.committed.tokens is pending[2].tokens:
            self.moves_charged(pending[0], pending[1])

    def run_option(self, token_id: str, option) -> object:
        """Do the engine ``Option`` chosen for ``token_id`` from its right-click menu: each
        system's GUI routes it through its own controller and pages (its log, its Action
        panel; the door page for a system without a GUI of its own)."""
        raise NotImplementedError

    # -- leaving ------------------------------------------------------------------------------------
    def uninstall(self) -> None:
        """Take away everything this GUI added to the window: pages, layers, actions, menus,
        docks, decorations, signal connections. The window is as if it had never been."""
        if not self.installed:
            return
        self.installed = False
        self.detach()
        owned = [v for v in vars(self).values() if isinstance(v, Listener) and v is not self]
        for child in [*self.findChildren(QObject), *owned]:
            if isinstance(child, Listener):
                child.detach()
        for v in owned:  # (controllers made with the window as parent)
            if isinstance(v, QObject) and v.parent() is not self:
                v.deleteLater()
        w = self.window
        panel = getattr(w, "action_panel", None)
        for page in self._pages:
            if panel is not None:
                panel.remove_page(page)
            if isinstance(page, Listener):
                page.detach()
            page.setParent(None)
            page.deleteLater()
        view = w.map_view
        for item in self._layers:
            view.vb.removeItem(item)
            if item in view.layers:
                view.layers.remove(item)
        for name in self._actions:
            act = w.actions.pop(name, None)
            if act is not None:
                for m in w.menus.values():
                    m.removeAction(act)
                act.deleteLater()
        for title in self._menus:
            menu = w.menus.pop(title, None)
            if menu is not None:
                w.menuBar().removeAction(menu.menuAction())
                menu.deleteLater()
        for name in self._docks:
            dock = w.docks.pop(name, None)
            if dock is not None:
                w.menus["Panels"].removeAction(dock.toggleViewAction())
                w.removeDockWidget(dock)
                dock.setParent(None)
                dock.deleteLater()
        if self._decorated:
            view.tokens.set_decorations({})
        if self.window_attribute and getattr(w, self.window_attribute, None) is self:
            setattr(w, self.window_attribute, None)
        self.setParent(None)
        self.deleteLater()


# -- the registry -------------------------------------------------------------------------------------
RULE_GUIS: dict[str, type[RuleGui]] = {}
_DISCOVERED = False


def register_rule_gui(cls: type[RuleGui]) -> type[RuleGui]:
    """Register a rule system's GUI class by its ``ruleset`` (usable as a decorator)."""
    if not cls.ruleset:
        raise ValueError(f"{cls.__name__} names no ruleset")
    RULE_GUIS[cls.ruleset] = cls
    return cls


def unregister_rule_gui(ruleset: str) -> None:
    RULE_GUIS.pop(ruleset, None)


def _discover() -> None:
    """Import every ``gui/rules/<name>/`` package once (each registers its RuleGui)."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    here = Path(__file__).resolve().parent
    for info in pkgutil.iter_modules([str(here)]):
        if info.ispkg:
            importlib.import_module(f"gui.rules.{info.name}")


def find_rule_gui(ruleset: str) -> type[RuleGui] | None:
    """The GUI class of ``ruleset``, or None when that system has none."""
    if ruleset not in RULE_GUIS:
        _discover()
    return RULE_GUIS.get(ruleset)


def moves_outcome(before: Encounter, moves: Sequence):
    """The rule system's ``Outcome`` of the ``moves`` (``engine.rules.MoveTo``) from
    ``before`` (``RuleSystem.on_moves``), None when none of their tokens was in ``before``.
    Raises the engine's error when it cannot say."""
    ids = {t.id for t in before.tokens}
    moves = [m for m in moves if m.token in ids]
    return _system(before.ruleset).on_moves(before, moves) if moves else None


class RuleGuiHost(QObject):
    """Installs on one window only the open encounter's :class:`RuleGui` (``window.rule_gui``,
    None for a system without one) and swaps it when an encounter of another system opens
    (or the ruleset is edited). ``changed(rule_gui or None)`` after a swap."""

    changed = Signal(object)

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        window.rule_gui = None
        _discover()
        for cls in RULE_GUIS.values():  # ``window.sr5`` ... is None while not installed
            if cls.window_attribute and not hasattr(window, cls.window_attribute):
                setattr(window, cls.window_attribute, None)
        # the Action panel first: it lets its page go on another encounter before the new
        # system's GUI shows its own
        from gui.action_panel import action_panel

        action_panel(window)
        window.document.changed.connect(self._on_document)
        window.document.moves_hook = self.charge_moves
        self.sync()

    def charge_moves(self, before, moves, text):
        """The document's ``moves_hook``: the installed GUI (every system has one: its own or
        the door, :mod:`gui.rules.door`) charges the moves and tells the GM."""
        gui = self.window.rule_gui
        return gui.charge_moves(before, moves, text) if gui is not None else None

    def _on_document(self, change) -> None:
        if change.preview and not change.reset:
            return
        self.sync()
        gui = self.window.rule_gui
        if gui is not None and not change.reset:
            gui._after_commit()

    def sync(self) -> None:
        """Install the open encounter's RuleGui if another one (or none) is installed."""
        w = self.window
        ruleset = w.document.encounter.ruleset
        cur = w.rule_gui
        if cur is not None and cur.ruleset == ruleset:
            return
        cls = find_rule_gui(ruleset)
        if cls is None:  # a system with no GUI of its own acts through the door page
            from gui.rules.door import door_gui_for

            cls = door_gui_for(ruleset)
        if cur is not None:
            cur.uninstall()
            w.rule_gui = None
        if cls is not None:
            gui = cls(w)
            w.rule_gui = gui
            if cls.window_attribute:
                setattr(w, cls.window_attribute, gui)
        self.changed.emit(w.rule_gui)


def install_host(window) -> RuleGuiHost:
    """Give ``window`` its :class:`RuleGuiHost` (``window.rule_gui_host``)."""
    host = getattr(window, "rule_gui_host", None)
    if host is None:
        host = RuleGuiHost(window)
        window.rule_gui_host = host
    return host


__all__ = ["ContextAction", "Kept", "Listener", "LogMirror", "RULE_GUIS", "RuleController", "RuleGui",
           "RuleGuiHost", "find_rule_gui", "install_host", "moves_outcome", "picked_targets",
           "register_rule_gui", "same_inputs", "take_down_decorations", "token_name",
           "unregister_rule_gui"]
