"""The map's right-click menu: what can be done now with what is under the mouse.

A right click without a drag (a right drag pans) asks :func:`entries_for` what the menu
holds for the token, obstacle or zone under the mouse, or the empty ground: a list of
:class:`Entry` values (label, enabled, the reason a greyed one is refused, the callback;
submenus as entries with children). The token's entries come first from the active rule
system's GUI (``window.rule_gui.context_actions(token_id)``, the actions its rules allow now,
each greyed with the engine's reason when refused) or, while a system has no such hook,
from the engine's own list (``encounter.system.actions``); then the generic ones (attacker,
target, stance, hide, duplicate, delete, Inspector). :class:`MapContextMenu` turns them into
a ``QMenu``; entries are plain values so tests read them without opening a menu.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import get_args

from PySide6.QtCore import QObject, QPoint
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QInputDialog, QMenu

from engine.errors import CoverfireError
from engine.model import Encounter, Stance
from engine.names import display_name, obstacle_name, token_name, zone_name
from gui import edits

STANCES = get_args(Stance)
#: Obstacle heights the menu offers (metres): the classes the legend names.
HEIGHT_PRESETS = ((0.9, "low"), (1.5, "waist-high"), (2.5, "full"))
REASON_CHARS = 70
#: ``fn(window, x, y) -> [Entry]`` functions adding entries to the ground's menu (lights:
#: :func:`gui.sight_panel.ground_entries`).
GROUND_EXTRAS: list = []


@dataclass(frozen=True)
class Entry:
    """One menu entry. ``reason``: why a greyed one is refused (shown beside it, in its
    tooltip and in the status bar). ``children``: a submenu. ``checked``: a ticked choice
    (None: not a choice)."""

    label: str
    callback: Callable[[], object] | None = None
    enabled: bool = True
    reason: str = ""
    children: tuple["Entry", ...] = ()
    checked: bool | None = None
    separator_before: bool = False


@dataclass
class Target:
    """What a right click hit: ``kind`` token/obstacle/zone/ground, its id, the map point."""

    kind: str
    id: str | None
    x: float
    y: float
    extra: dict = field(default_factory=dict)


def _commit(window, new: Encounter, text: str) -> bool:
    try:
        new = edits.checked(new, window.document.committed)  # (only what changed is validated)
    except CoverfireError as exc:
        window.statusBar().showMessage(f"Not done: {exc}", 8000)
        return False
    return window.document.commit(new, text)


def _set_fields(window, ident: str, fields: dict, text: str) -> bool:
    try:
        new = edits.apply_fields(window.document.committed, ident, fields)
    except (CoverfireError, ValueError) as exc:
        window.statusBar().showMessage(f"Not done: {exc}", 8000)
        return False
    return _commit(window, new, text)


def _inspect(window, ident: str) -> None:
    window.selection.select([ident], window.document.encounter, keep_attacker=True)
    dock = window.docks.get("inspector")
    if dock is not None:
        dock.show()
        dock.raise_()


def _delete(window, ident: str) -> None:
    enc = window.document.committed
    item = edits.find(enc, ident)
    if _commit(window, edits.delete(enc, [ident]), f"Delete {display_name(item, enc)}"):
        window.selection.prune(window.document.encounter)


def _duplicate_entry(window, ident: str) -> Entry:
    enc = window.document.committed
    try:
        new, new_ids = edits.duplicate(enc, [ident])
    except CoverfireError as exc:
        return Entry("Duplicate", enabled=False, reason=str(exc))

    def run():
        if window.document.commit(new, "Duplicate"):
            window.selection.select(new_ids, window.document.encounter, keep_attacker=True)

    return Entry("Duplicate", run)


def rule_entries(window, token_id: str) -> list[Entry]:
    """The actions the token's rule system allows now (greyed with the engine's reason when
    refused): the active rule GUI's ``context_actions`` if it has them, else the engine's
    ``actions`` list (an allowed one makes the token the attacker and opens the Action panel)."""
    enc = window.document.committed
    gui = getattr(window, "rule_gui", None)
    hook = getattr(gui, "context_actions", None) if gui is not None else None
    if hook is not None:
        out, keys = [], []
        for a in hook(token_id):
            out.append(Entry(a.label, a.callback, bool(a.enabled), "" if a.enabled else (a.reason or "")))
            keys.append(getattr(a, "key", "") or "")
        return grouped(out, keys)
    try:
        system = enc.system
        options = system.actions(enc, token_id)
    except (CoverfireError, ValueError, AttributeError):
        return []

    def open_for(key: str):
        def run():
            window.selection.set_attacker(token_id)
            dock = window.docks.get("action")
            if dock is not None:
                dock.show()
                dock.raise_()
            window.statusBar().showMessage(f"{key}: declare it in the Action panel", 6000)
        return run

    return grouped([Entry(o.label, open_for(o.label), o.reason is None, o.reason or "") for o in options],
                   [o.key for o in options])


#: At most this many entries a menu level (issue 30 item 5): a longer list of a rule
#: system's actions is grouped.
MENU_MAX = 12
#: The groups of a long list of rule actions, in the order they are offered (the most
#: likely first), each with the words of an action's key or label that put it there (the
#: first group whose words match wins, so "Reload Firearm" is not an attack; a system may say itself with an option's ``group``).
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Edge", ("edge",)),
    ("Ready / hand", ("ready", "draw", "reload", "clip", "magazine", "gun_mode", "gun mode", "choke", "drop_object",
                      "pick", "rest", "holster", "linked", "swap")),
    ("Attack", ("attack", "shot", "shoot", "fire", "aim", "melee", "charge", "shove", "grapple", "takedown",
                "pressure", "break_free", "break free", "distraction", "suppress", "blast", "throw", "strike")),
    ("Move", ("run", "sprint", "prone", "stand", "dirt", "stance", "move", "crouch", "dodge", "walk")),
)
GROUP_ORDER = ("Attack", "Move", "Ready / hand", "Edge", "Other")


def action_group(key: str, label: str, group: str = "") -> str:
    """The menu group of a rule action (:data:`GROUPS`; "Other" when no words match)."""
    if group:
        return group
    words = f"{key} {label}".lower()
    for name, keys in GROUPS:
        if any(k in words for k in keys):
            return name
    return "Other"


def grouped(entries: Sequence[Entry], keys: Sequence[str]) -> list[Entry]:
    """A rule system's action entries for its submenu: as they are when there are at most
    :data:`MENU_MAX`; else grouped (:data:`GROUP_ORDER`), each group's allowed entries before
    its greyed ones, the attack group's entries first and inline when few, the others in
    submenus (a group longer than MENU_MAX ends with "More")."""
    if len(entries) <= MENU_MAX:
        return list(entries)
    groups: dict[str, list[Entry]] = {g: [] for g in GROUP_ORDER}
    for e, key in zip(entries, keys):
        groups.setdefault(action_group(key, e.label), []).append(e)
    out: list[Entry] = []
    for name, members in groups.items():
        if not members:
            continue
        members = [e for e in members if e.enabled] + [e for e in members if not e.enabled]
        if len(members) > MENU_MAX:
            members = members[:MENU_MAX - 1] + [Entry("More", children=tuple(members[MENU_MAX - 1:]))]
        if not out and len(members) <= MENU_MAX // 2:
            out += members  # the most likely: no submenu to open
        else:
            out.append(Entry(name, children=tuple(members), separator_before=bool(out) and not out[-1].children))
    return out


def token_entries(window, token_id: str) -> list[Entry]:
    enc = window.document.committed
    t = enc.token(token_id)
    sel = window.selection
    out: list[Entry] = []
    if sel.attacker == token_id:
        out.append(Entry("Attack from here", enabled=False, reason=f"{token_name(t)} is the attacker already"))
    else:
        out.append(Entry("Attack from here", lambda: sel.set_attacker(token_id)))
    targeted = token_id in sel.targets
    if sel.attacker == token_id and not targeted:
        out.append(Entry("Target", enabled=False, reason="the attacker cannot target itself"))
    else:
        out.append(Entry("Stop targeting" if targeted else "Target", lambda: window.toggle_target(token_id)))
    rules = rule_entries(window, token_id)
    if rules:
        label = getattr(getattr(enc, "system", None), "label", "") or "Rules"
        out.append(Entry(f"{label} actions", children=tuple(rules), separator_before=True))
    stances = tuple(Entry(s.capitalize(), (lambda s=s: _set_fields(window, token_id, {"stance": s},
                                                                     f"{token_name(t)}: {s}")),
                          checked=(t.stance == s)) for s in STANCES)
    out.append(Entry("Stance", children=stances, separator_before=not rules))
    out.append(Entry("Reveal to players" if t.hidden else "Hide from players",
                     lambda: _set_fields(window, token_id, {"hidden": not t.hidden},
                                         f"{'Reveal' if t.hidden else 'Hide'} {token_name(t)}")))
    out.append(_duplicate_entry(window, token_id))
    out.append(Entry("Delete", lambda: _delete(window, token_id)))
    out.append(Entry("Edit in Inspector", lambda: _inspect(window, token_id), separator_before=True))
    return out


def _ask_height(window, ident: str, now: float) -> None:
    h, ok = QInputDialog.getDouble(window, "Obstacle height", "Height (metres):", now, 0.05, 1000.0, 2)
    if ok:
        _set_fields(window, ident, {"height": float(h)}, "Set height")


def obstacle_entries(window, ident: str) -> list[Entry]:
    o = window.document.committed.obstacle(ident)
    name = obstacle_name(o)
    heights = tuple(Entry(f"{h:g} m ({what})", (lambda h=h: _set_fields(window, ident, {"height": h}, f"{name}: {h:g} m")),
                          checked=abs(o.height - h) < 1e-9) for h, what in HEIGHT_PRESETS)
    heights += (Entry(f"Other\u2026 (now {o.height:g} m)", lambda: _ask_height(window, ident, o.height)),)
    out = [Entry("Height", children=heights)]
    if o.door:
        out.append(Entry("Close the door" if o.open else "Open the door",
                         lambda: _set_fields(window, ident, {"open": not o.open},
                                             f"{'Close' if o.open else 'Open'} {name}")))
    else:
        out.append(Entry("Open the door", enabled=False, reason=f"{name} is not a door"))
    out.append(Entry("Reveal to players" if o.hidden else "Hide from players",
                     lambda: _set_fields(window, ident, {"hidden": not o.hidden},
                                         f"{'Reveal' if o.hidden else 'Hide'} {name}")))
    out.append(_duplicate_entry(window, ident))
    out.append(Entry("Delete", lambda: _delete(window, ident)))
    out.append(Entry("Edit in Inspector", lambda: _inspect(window, ident), separator_before=True))
    return out


def _aim(window, ident: str) -> None:
    window.set_tool("Select")
    window.selection.select([ident], window.document.encounter, keep_attacker=True)
    window.statusBar().showMessage("Drag the zone's yellow handle to aim it", 8000)


def zone_entries(window, ident: str) -> list[Entry]:
    enc = window.document.committed
    z = enc.zone(ident)
    name = zone_name(z, enc)
    out = []
    if z.kind in ("blast", "circle"):
        out.append(Entry("Aim", enabled=False, reason=f"a {z.kind} has no direction: drag its handle to size it"))
    else:
        out.append(Entry("Aim", lambda: _aim(window, ident)))
    owners = [Entry("No owner", (lambda: _set_fields(window, ident, {"owner": None, "x": enc.zone_origin(z)[0],
                                                                        "y": enc.zone_origin(z)[1]}, f"{name}: no owner")),
                    checked=z.owner is None)]
    for t in enc.tokens:
        owners.append(Entry(token_name(t), (lambda tid=t.id: _set_fields(window, ident, {"owner": tid, "x": None, "y": None},
                                                                           f"{name}: owner")),
                            checked=z.owner == t.id))
    out.append(Entry("Owner", children=tuple(owners)))
    out.append(Entry("Reveal to players" if z.hidden else "Hide from players",
                     lambda: _set_fields(window, ident, {"hidden": not z.hidden},
                                         f"{'Reveal' if z.hidden else 'Hide'} {name}")))
    out.append(Entry("Delete", lambda: _delete(window, ident)))
    out.append(Entry("Edit in Inspector", lambda: _inspect(window, ident), separator_before=True))
    return out


def ground_entries(window, x: float, y: float) -> list[Entry]:
    def add_token():
        enc = window.document.committed
        t = edits.new_token(enc, (x, y), side=window.map_view.new_token_side)
        if _commit(window, edits.add_unchecked(enc, t), f"Add {t.name}"):
            window.selection.select([t.id], window.document.encounter, keep_attacker=True)

    out = [Entry("Add a token here", add_token)]
    for extra in GROUND_EXTRAS:
        out += extra(window, x, y)
    if window.selection.targets:
        out.append(Entry("Clear targets", window.selection.clear_targets))
    out.append(Entry("Fit map", window.map_view.fit_map, separator_before=True))
    return out


def target_at(window, x: float, y: float) -> Target:
    view = window.map_view
    hit = view.picker().hit(x, y, view.m_per_px())
    if hit is None:
        return Target("ground", None, x, y)
    kind = hit.kind if hit.kind in ("token", "obstacle", "zone") else edits.kind_of(window.document.encounter, hit.id)
    return Target(kind or "ground", hit.id, x, y)


def entries_for(window, x: float, y: float) -> tuple[Target, list[Entry]]:
    """What a right click at map point (x, y) metres opens: the object hit and its entries."""
    t = target_at(window, x, y)
    if t.kind == "token":
        return t, token_entries(window, t.id)
    if t.kind == "obstacle":
        return t, obstacle_entries(window, t.id)
    if t.kind == "zone":
        return t, zone_entries(window, t.id)
    return t, ground_entries(window, x, y)


def _short(reason: str) -> str:
    reason = " ".join(reason.split())
    return reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS - 1] + "\u2026"


def fill_menu(menu: QMenu, entries: Sequence[Entry]) -> None:
    """Add ``entries`` to ``menu``: a greyed entry shows its reason beside its label, in its
    tooltip and (through the window's greyed-control watcher) in the status bar."""
    menu.setToolTipsVisible(True)
    for e in entries:
        if e.separator_before and menu.actions():
            menu.addSeparator()
        if e.children:
            sub = menu.addMenu(e.label)
            fill_menu(sub, e.children)
            sub.setEnabled(e.enabled)
            continue
        text = e.label if e.enabled or not e.reason else f"{e.label}  \u2014  {_short(e.reason)}"
        act = QAction(text, menu)
        act.setEnabled(e.enabled)
        if e.reason:
            act.setToolTip(e.reason)
            act.setStatusTip(e.reason)
        if e.checked is not None:
            act.setCheckable(True)
            act.setChecked(e.checked)
        if e.callback is not None:
            act.triggered.connect(lambda _=False, cb=e.callback: cb())
        menu.addAction(act)


def _title(window, target: Target) -> str:
    enc = window.document.committed
    if target.kind == "ground":
        return f"Map at {target.x:.1f}, {target.y:.1f} m"
    item = edits.find(enc, target.id)
    return f"{target.kind.capitalize()}: {display_name(item, enc)}"


class MapContextMenu(QObject):
    """Opens the right-click menu of the window's map (``map_view.contextRequested``)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.last_menu: QMenu | None = None
        window.map_view.contextRequested.connect(self.open_at)

    def build(self, x: float, y: float) -> QMenu:
        target, entries = entries_for(self.window, x, y)
        menu = QMenu(self.window)
        head = menu.addAction(_title(self.window, target))
        head.setEnabled(False)
        menu.addSeparator()
        fill_menu(menu, entries)
        if getattr(self.window, "greyed", None) is not None:
            self.window.greyed.watch_menu(menu)
            for sub in menu.findChildren(QMenu):
                self.window.greyed.watch_menu(sub)
        self.last_menu = menu
        return menu

    def open_at(self, x: float, y: float, global_pos: QPoint) -> QMenu:
        menu = self.build(x, y)
        menu.aboutToHide.connect(lambda: self.window.map_view.setFocus())
        menu.popup(global_pos)
        return menu


__all__ = ["Entry", "MapContextMenu", "entries_for", "fill_menu", "rule_entries"]
