"""What differs between two encounters, cheaply: values shared by identity compare in O(1).

Edits made with ``model_copy`` keep every untouched value identical (``is``), so a drag of one
token among hundreds compares one token. :func:`diff` is what the window's layers refresh
from; :func:`changed_ids` is the per-id part an :class:`~engine.rules.Changes` record keeps.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model import Encounter


@dataclass(frozen=True)
class Diff:
    """What differs between two encounters: the ids of tokens added, removed or changed
    (``tokens``), whether any token changed other than by position (``token_looks``), and
    whether the obstacles, zones, map, lights or sight settings (fog, sides, light, explored
    areas) changed, or anything else."""

    tokens: frozenset[str] = frozenset()
    token_looks: bool = False
    obstacles: bool = False
    zones: bool = False
    map: bool = False
    other: bool = False
    lights: bool = False
    sight: bool = False

    @property
    def empty(self) -> bool:
        return not (self.tokens or self.token_looks or self.obstacles or self.zones or self.map or self.other
                    or self.lights or self.sight)

    @property
    def only_token_positions(self) -> bool:
        """True when the only change is where some tokens stand."""
        return bool(self.tokens) and not (self.token_looks or self.obstacles or self.zones or self.map or self.other
                                          or self.lights or self.sight)


def _same(a, b) -> bool:
    return a is b or a == b


def diff(old: Encounter | None, new: Encounter) -> Diff:
    """Compare two encounters; values shared by identity compare in O(1)."""
    if old is None:
        ids = frozenset(t.id for t in new.tokens)
        return Diff(ids, True, True, True, True, True, True, True)
    if old is new:
        return Diff()
    tokens: set[str] = set()
    looks = False
    if old.tokens is not new.tokens:
        before = {t.id: t for t in old.tokens}
        after = {t.id: t for t in new.tokens}
        if before.keys() != after.keys():
            looks = True
        for tid in before.keys() | after.keys():
            a, b = before.get(tid), after.get(tid)
            if a is b:
                continue
            if a is None or b is None:
                tokens.add(tid)
                continue
            if a == b:
                continue
            tokens.add(tid)
            if a.model_copy(update={"x": b.x, "y": b.y}) != b:
                looks = True
        if [t.id for t in old.tokens] != [t.id for t in new.tokens]:
            looks = True
    other = not (
        _same(old.name, new.name)
        and _same(old.ruleset, new.ruleset)
        and _same(old.rules, new.rules)
        and _same(old.model_extra, new.model_extra)
    )
    return Diff(
        frozenset(tokens),
        looks,
        not _same(old.obstacles, new.obstacles),
        not _same(old.zones, new.zones),
        not _same(old.map, new.map),
        other,
        not _same(old.lights, new.lights),
        not _same(old.sight, new.sight),
    )


def _changed(old: tuple, new: tuple) -> set[str]:
    if old is new:
        return set()
    before = {x.id: x for x in old}
    after = {x.id: x for x in new}
    return {i for i in before.keys() | after.keys() if not _same(before.get(i), after.get(i))}


def changed_ids(old: Encounter, new: Encounter) -> dict[str, set[str]]:
    """Ids of the tokens, obstacles, zones and lights added, removed or changed from ``old``
    to ``new``, by group (``{"tokens": {...}, "obstacles": {...}, "zones": {...}, "lights": {...}}``)."""
    return {g: _changed(getattr(old, g), getattr(new, g)) for g in ("tokens", "obstacles", "zones", "lights")}
