"""The d100 rule system (seed 003): hit locations, aimed and placed shots, stances, wounds
per body part, armour that wears, bleeding, recovery.

Its door is the :class:`~engine.rules.RuleSystem` of :mod:`engine.d100.system`
(``engine.rules.find_system("d100")``), which is the rules: ``actions`` / ``why_not`` /
``preview`` / ``apply``. Actions are the values of
:mod:`engine.d100.actions`, dice sources :mod:`engine.d100.dice`, the character and encounter
data :mod:`engine.d100.sheet`, the map's hidden locations :mod:`engine.d100.mapcover`.
Defaults for every number the seed leaves open: docs/d100.md. Importing this package loads
nothing (:mod:`engine.model` loads ``engine.d100.sheet`` while it is being built).
"""
