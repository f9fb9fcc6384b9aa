"""The d100 hit-location rules of seed 003: check an action, preview its chances, apply it.

Check, then apply (as python-chess separates ``is_legal`` from ``push``):

* :meth:`D100Rules.why_not` answers None or the reason an action is refused;
  :meth:`D100Rules.check` raises :class:`~engine.errors.IllegalActionError` with it.
* :meth:`D100Rules.preview` gives, before any die is rolled, every chance with each modifier
  and its source, the placed-shot threshold, the hidden locations and the cover value.
* :meth:`D100Rules.apply` resolves the action with a dice source and returns a
  :class:`Change`: the new encounter, every die, every shot (roll, location placed or not,
  damage through cover and armour, severity steps and their effects), the log lines, and the
  before/after values of what it touched.

One module an idea: :mod:`engine.d100.values` (tables, the values answered, pure helpers),
:mod:`engine.d100.legality` (reading, checking, previewing), :mod:`engine.d100.resolution`
(applying). This module joins them into :class:`D100Rules` (:data:`RULES`).

Percentages are whole percent; damage and injury whole points. Numbers the seed leaves open
come from the encounter's :class:`~engine.d100.sheet.Settings` (docs/d100.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.d100.legality import Legality
from engine.d100.resolution import Resolution
from engine.d100.sheet import LOCATIONS, SEVERITIES, STANCES


@dataclass(frozen=True)
class D100Rules(Legality, Resolution):
    """The ``d100`` rule system (seed 003). Stateless: every call takes the encounter."""

    name: str = "d100"
    label: str = "d100 hit locations (seed 003)"
    stances: tuple[str, ...] = STANCES
    locations: tuple[str, ...] = LOCATIONS
    severities: tuple[str, ...] = SEVERITIES


RULES = D100Rules()
