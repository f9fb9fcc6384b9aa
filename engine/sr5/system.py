"""The sr5 rule system as one object, for ``engine.rules.get_ruleset("sr5")``."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from engine.sr5 import attack, blast, combat, condition, dice, environment, facts, pools, suppressive
from engine.sr5.sheet import Settings, Sheet


@dataclass(frozen=True)
class RuleSet:
    """A registered rule system: its name, label, file data types and its modules."""

    name: str
    label: str
    sheet: type
    settings: type
    attack: ModuleType
    combat: ModuleType
    condition: ModuleType
    dice: ModuleType
    environment: ModuleType
    facts: ModuleType
    pools: ModuleType
    suppressive: ModuleType
    blast: ModuleType | None = None


RULESET = RuleSet(
    name="sr5",
    label="Shadowrun 5th edition",
    sheet=Sheet,
    settings=Settings,
    attack=attack,
    combat=combat,
    condition=condition,
    dice=dice,
    environment=environment,
    facts=facts,
    pools=pools,
    suppressive=suppressive,
    blast=blast,
)
