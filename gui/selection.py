"""What the GM has picked: the selected objects, the attacker whose answers are shown, the
target looked at, and the weapon used. Shared by every view of one document (the GM map,
the targets table, a player view), separate from the document so no undo step records it.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QObject, Signal

from engine.model import Encounter


class Selection(QObject):
    """Selection state. ``changed`` fires after any field changes.

    * ``ids``: selected object ids (tokens, obstacles, zones), in picking order;
    * ``attacker``: the token whose targets are shown; follows a single selected token
      unless ``attacker_locked``;
    * ``focus``: a target picked in the targets table (its line of sight and charge are
      drawn as when hovering it);
    * ``weapon``: the attacker's weapon by name (None: the one it has ready, the engine's
      ``RuleSystem.ready_weapon``);
    * ``targets``: the tokens targeted for an attack (hover + T on the map, the context
      menu), in picking order, apart from the selection: selecting or dragging a token
      leaves them as they are. ``targetsChanged`` fires when they change (``changed`` too).
    """

    changed = Signal()
    targetsChanged = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._ids: tuple[str, ...] = ()
        self._attacker: str | None = None
        self._focus: str | None = None
        self._weapon: str | None = None
        self._targets: tuple[str, ...] = ()
        self.attacker_locked = False

    # -- targets (apart from the selection) ---------------------------------------------------
    @property
    def targets(self) -> tuple[str, ...]:
        return self._targets

    def set_targets(self, ids: Iterable[str]) -> None:
        """Target exactly these tokens (in this order)."""
        ids = tuple(dict.fromkeys(ids))
        if ids == self._targets:
            return
        self._targets = ids
        self.targetsChanged.emit()
        self.changed.emit()

    def toggle_target(self, ident: str) -> bool:
        """Target ``ident``, or stop targeting it; returns whether it is targeted now."""
        if ident in self._targets:
            self.set_targets(i for i in self._targets if i != ident)
            return False
        self.set_targets(self._targets + (ident,))
        return True

    def clear_targets(self) -> None:
        self.set_targets(())

    @property
    def ids(self) -> tuple[str, ...]:
        return self._ids

    @property
    def attacker(self) -> str | None:
        return self._attacker

    @property
    def focus(self) -> str | None:
        return self._focus

    @property
    def weapon(self) -> str | None:
        return self._weapon

    def first(self) -> str | None:
        return self._ids[0] if self._ids else None

    def select(self, ids: Iterable[str], encounter: Encounter | None = None, *, keep_attacker: bool = False) -> None:
        """Select these ids. A single token becomes the attacker (unless locked or
        ``keep_attacker``); a selected token that is not the attacker becomes the focus."""
        ids = tuple(dict.fromkeys(ids))
        attacker, focus, weapon = self._attacker, self._focus, self._weapon
        token_ids = {t.id for t in encounter.tokens} if encounter is not None else None
        if len(ids) == 1 and (token_ids is None or ids[0] in token_ids):
            if keep_attacker or self.attacker_locked:
                focus = ids[0] if ids[0] != attacker else None
            else:
                if ids[0] != attacker:
                    weapon = None
                attacker, focus = ids[0], None
        else:
            focus = None
        self._set(ids, attacker, focus, weapon)

    def toggle(self, ident: str, encounter: Encounter | None = None) -> None:
        """Add ``ident`` to the selection, or take it out (shift-click)."""
        if ident in self._ids:
            self._set(tuple(i for i in self._ids if i != ident), self._attacker, self._focus, self._weapon)
        else:
            self._set(self._ids + (ident,), self._attacker, self._focus, self._weapon)

    def clear(self, *, drop_attacker: bool = False) -> None:
        """Select nothing. The attacker (and its badges) stays, unless ``drop_attacker``
        and it is not locked (a click on empty ground)."""
        attacker = None if (drop_attacker and not self.attacker_locked) else self._attacker
        self._set((), attacker, None, self._weapon if attacker else None)

    def set_attacker(self, ident: str | None, weapon: str | None = None) -> None:
        self._set(self._ids, ident, None if ident == self._focus else self._focus, weapon)

    def set_weapon(self, weapon: str | None) -> None:
        self._set(self._ids, self._attacker, self._focus, weapon)

    def prune(self, encounter: Encounter) -> None:
        """Forget ids that no longer exist (after an undo or a delete). Called on every
        drag step: selected obstacles and zones are looked up (:meth:`Encounter.position`), not a set
        of a 10,000-obstacle map's ids built a step."""
        by_id = {t.id: t for t in encounter.tokens}
        want = {i for i in self._ids if i not in by_id}
        live: set[str] = set()
        # (the encounter's own indexes: kept by every look-up of the drag, they know the
        # tuple before this step; an index of the selection's own met each new selection's
        # first step unindexed: 10,000 obstacles indexed in that step's turn)
        for field in ("obstacles", "zones"):
            if want:
                found = {w for w in want if encounter.position(field, w) is not None}
                live |= found
                want -= found
        if want:  # (a light, or gone: not a set of every id built, ~3 ms on 10,000 obstacles)
            live |= {w for w in want if encounter.position("lights", w) is not None}
        ids = tuple(i for i in self._ids if i in by_id or i in live)
        attacker = self._attacker if self._attacker in by_id else None
        focus = self._focus if self._focus in by_id else None
        weapon = self._weapon
        if attacker is not None and weapon is not None:
            if by_id[attacker].weapon(weapon) is None:
                weapon = None
        if (ids, attacker, focus, weapon) != (self._ids, self._attacker, self._focus, self._weapon):
            self._set(ids, attacker, focus, weapon)
        if any(t not in by_id for t in self._targets):
            self.set_targets(t for t in self._targets if t in by_id)

    def rename(self, old: str, new: str) -> None:
        """Follow an object whose id was edited."""
        sub = lambda i: new if i == old else i  # noqa: E731
        self._set(tuple(sub(i) for i in self._ids), sub(self._attacker), sub(self._focus), self._weapon)
        if old in self._targets:
            self.set_targets(sub(i) for i in self._targets)

    def _set(self, ids, attacker, focus, weapon) -> None:
        if (ids, attacker, focus, weapon) == (self._ids, self._attacker, self._focus, self._weapon):
            return
        self._ids, self._attacker, self._focus, self._weapon = ids, attacker, focus, weapon
        self.changed.emit()
