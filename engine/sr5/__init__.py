"""The Shadowrun 5e rule system (``ruleset: "sr5"``), Qt-free.

Modules, each usable alone:

- :mod:`engine.sr5.sheet` - the data in the encounter file (``Sheet`` per token, ``Settings``
  per encounter);
- :mod:`engine.sr5.dice` - seeded roller, typed-in dice, hits, glitches, Edge;
- :mod:`engine.sr5.pools` - pools whose every die has a labelled source, GM overrides;
- :mod:`engine.sr5.environment` - the combined visibility/light/wind/range modifier;
- :mod:`engine.sr5.condition` - monitors, wound modifiers, damage and overflow;
- :mod:`engine.sr5.initiative` - Initiative Scores, passes, Action Phases, the combat log text;
- :mod:`engine.sr5.economy` - the actions and their costs, who may pay one now, booking it;
- :mod:`engine.sr5.actions` - the non-attack actions: check one, then apply it;
- :mod:`engine.sr5.movement` - the walking/running budget, checking and counting a move;
- :mod:`engine.sr5.attack` - the DADA attack: plan (pools), resolve (rolls), apply (damage);
- :mod:`engine.sr5.suppressive` - suppressive fire zones and their tests;
- :mod:`engine.sr5.blast` - grenades and blasts: the throw, scatter, who is caught, falloff;
- :mod:`engine.sr5.facts` - map facts in (distance, cover, zones), from ``engine.analysis``;
- :mod:`engine.sr5.changes` - change records for refresh and undo.

Its door is the :class:`~engine.rules.RuleSystem` of :mod:`engine.sr5.system`
(``engine.rules.find_system("sr5")``). Importing this package loads nothing (the model loads
the sheet while it is being built).
"""
