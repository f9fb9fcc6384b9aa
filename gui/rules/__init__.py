"""Rule systems' windows and docks, one package per rule system (``gui.rules.d100`` ...).

Each package registers itself with :func:`gui.main_window.register_extension` when imported
and shows its docks and menus only while the open encounter uses its ``ruleset``.

What they share: :mod:`gui.rules.base` (``RuleController``: activation by ruleset, the saved
log in the shared combat log and struck through on undo; ``LogMirror``; ``token_name``;
``take_down_decorations``) and :mod:`gui.rules.widgets` (``bold``, ``read_only_table``,
``set_cell``).
"""
