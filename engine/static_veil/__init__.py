"""The Static Veil rule system (seed 004): combat maneuvers priced in action points.

Its door is the :class:`~engine.rules.RuleSystem` of :mod:`engine.static_veil.system`
(``engine.rules.find_system("static-veil")``): ``actions`` (the maneuver picker) / ``why_not``
/ ``preview`` / ``apply`` of a maneuver (:mod:`engine.static_veil.actions`, test outcomes
:mod:`engine.static_veil.dice`), ``Move``, ``StartTurn`` or ``EndTurn``; that object is the
rules. A character's data :mod:`engine.static_veil.sheet`.
See docs/static-veil.md. Importing this package loads nothing (:mod:`engine.model` loads
``engine.static_veil.sheet`` while it is being built).
"""
