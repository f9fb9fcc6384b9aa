"""Dice pools that say where every die came from, and that the GM can edit before rolling.

A :class:`Pool` is a list of :class:`Modifier` values (the base parts, such as the skill and
the attribute, are modifiers of kind ``"base"``) plus the parts of its limit. Every part has
a stable ``key`` (``"range"``, ``"cover"``, ``"recoil"`` ...), a label for the dialog
(``"range band 34 m -> long"``) and a ``source`` (``"map"``, ``"sheet"``, ``"weapon"``,
``"environment"``, ``"declaration"``, ``"gm"``). :meth:`Pool.override` replaces a part's value
and remembers the original, so the dialog can show "GM: 0 (was -3)".
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.errors import IllegalActionError
from engine.names import name_of

if TYPE_CHECKING:
    from engine.model import Encounter
    from engine.sr5.sheet import Settings, Sheet


@dataclass(frozen=True)
class Modifier:
    """One part of a pool or limit: ``value`` dice (or limit points) for a stated reason."""

    key: str
    label: str
    value: int
    source: str = "rules"
    kind: str = "modifier"  # "base" for skill/attribute/limit base, else "modifier"
    original: int | None = None  # the rules' value when the GM overrode it

    @property
    def overridden(self) -> bool:
        return self.original is not None

    def text(self) -> str:
        """``"range band 34 m -> long -3"``; base parts without sign, GM edits marked."""
        v = f"{self.value}" if self.kind == "base" else f"{self.value:+d}"
        s = f"{self.label} {v}"
        if self.overridden:
            s += f" (GM; rules said {self.original:+d})"
        return s


@dataclass(frozen=True)
class Pool:
    """A dice pool: ``parts`` add up to :attr:`total` (never below 0); ``limit_parts`` add up
    to :attr:`limit` (None when the test has no limit); ``edge`` = Push the Limit (the limit
    is ignored and sixes explode)."""

    label: str
    parts: tuple[Modifier, ...] = ()
    limit_parts: tuple[Modifier, ...] = ()
    edge: bool = False
    threshold: int | None = None

    @property
    def total(self) -> int:
        """Dice to roll (0 when the parts sum below 0)."""
        return max(0, sum(p.value for p in self.parts))

    @property
    def raw_total(self) -> int:
        return sum(p.value for p in self.parts)

    @property
    def limit(self) -> int | None:
        """The limit on hits, or None when there is none (or Edge ignores it)."""
        if not self.limit_parts:
            return None
        return max(0, sum(p.value for p in self.limit_parts))

    @property
    def modifiers(self) -> tuple[Modifier, ...]:
        return tuple(p for p in self.parts if p.kind != "base")

    def part(self, key: str) -> Modifier | None:
        for p in self.parts:
            if p.key == key:
                return p
        return None

    def value(self, key: str) -> int:
        """A part's value (0 when absent)."""
        p = self.part(key)
        return p.value if p else 0

    def with_part(self, mod: Modifier) -> Pool:
        """This pool with ``mod`` added (replacing a part of the same key)."""
        if self.part(mod.key) is not None:
            return replace(self, parts=tuple(mod if p.key == mod.key else p for p in self.parts))
        return replace(self, parts=self.parts + (mod,))

    def with_limit_part(self, mod: Modifier) -> Pool:
        if any(p.key == mod.key for p in self.limit_parts):
            return replace(self, limit_parts=tuple(mod if p.key == mod.key else p for p in self.limit_parts))
        return replace(self, limit_parts=self.limit_parts + (mod,))

    def override(self, key: str, value: int, label: str | None = None) -> Pool:
        """The GM sets part ``key`` to ``value`` dice. An unknown key adds a GM modifier
        (``label`` names it); a key of the limit (prefix ``"limit:"``) edits the limit."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise IllegalActionError(f"modifier {key!r}: {value!r} is not a whole number of dice")
        if key.startswith("limit:"):
            k = key[len("limit:") :]
            for p in self.limit_parts:
                if p.key == k:
                    orig = p.original if p.overridden else p.value
                    new = replace(p, value=value, original=None if value == orig else orig)
                    return self.with_limit_part(new)
            return self.with_limit_part(Modifier(k, label or "GM", value, "gm", original=0))
        p = self.part(key)
        if p is None:
            return self.with_part(Modifier(key, label or "GM modifier", value, "gm", original=0))
        orig = p.original if p.overridden else p.value
        return self.with_part(replace(p, value=value, original=None if value == orig else orig))

    def describe(self) -> str:
        """``"Automatics 5 + Agility 4, dim light -3 = 6 [limit 4]"``: base parts added up,
        then each modifier with its sign."""
        bases = [p.text() for p in self.parts if p.kind == "base"]
        mods = [p.text() for p in self.parts if p.kind != "base"]
        body = " + ".join(bases) or "0"
        if mods:
            body += ", " + ", ".join(mods)
        s = f"{body} = {self.total}"
        if self.edge:
            s += " (Edge: no limit, sixes explode)"
        elif self.limit is not None:
            s += f" [limit {self.limit}]"
        if self.threshold is not None:
            s += f" ({self.threshold})"
        return s

    def breakdown(self) -> tuple[tuple[str, int], ...]:
        """(label, dice) of every part, for the log."""
        return tuple((p.label, p.value) for p in self.parts)

    def limit_breakdown(self) -> tuple[tuple[str, int], ...]:
        return tuple((p.label, p.value) for p in self.limit_parts)


def base(key: str, label: str, value: int, source: str = "sheet") -> Modifier:
    """A base part (skill, attribute, accuracy)."""
    return Modifier(key, label, int(value), source, "base")


def mod(key: str, label: str, value: int, source: str = "rules") -> Modifier:
    return Modifier(key, label, int(value), source, "modifier")


def divide(total: int, n: int) -> tuple[int, ...]:
    """Split ``total`` dice over ``n`` targets as evenly as possible, larger shares first:
    11 over 3 -> (4, 4, 3) (seed 001)."""
    if n <= 0:
        return ()
    q, r = divmod(max(0, total), n)
    return tuple(q + 1 if i < r else q for i in range(n))


def roll_record(pool: Pool, result) -> "RollRecord":
    """The log record of rolling ``pool`` with ``result`` (a dice.TestResult)."""
    from engine.sr5.sheet import RollRecord

    return RollRecord(
        label=pool.label,
        pool=pool.total,
        parts=pool.breakdown(),
        limit=None if pool.edge else pool.limit,
        limit_parts=pool.limit_breakdown(),
        dice=tuple(result.dice),
        hits=result.hits,
        threshold=result.threshold,
        glitch=result.glitch,
        critical_glitch=result.critical_glitch,
        edge=pool.edge,
        entered=result.entered,
    )


def roll_pool(pool: Pool, dice) -> "TestResult":
    """Roll ``pool`` (its total, limit, Edge and threshold) with a roller or typed faces."""
    from engine.sr5.dice import roll_test

    return roll_test(pool.total, dice, limit=pool.limit, edge=pool.edge, threshold=pool.threshold)


def suppression_modifier(settings: Settings, tid: str, sheet: Sheet, near_zones: Sequence[str],
                         *, names: Encounter | None = None) -> Modifier | None:
    """The dice penalty of the strongest active suppressive zone ``tid`` is in or right next
    to (``near_zones`` from the map), or None (none, its own zone, or it is unaware); its
    label names the shooter by name in ``names`` (the encounter), else by id."""
    if "unaware" in sheet.conditions:
        return None
    cands = [s for s in settings.suppressions if s.zone in near_zones and s.shooter != tid and s.hits > 0]
    if not cands:
        return None
    best = max(cands, key=lambda s: s.hits)
    shooter = name_of(names, best.shooter) if names is not None else best.shooter
    return mod("suppressed", f"suppressive fire of {shooter} ({best.hits} hits)", -best.hits, "map")
