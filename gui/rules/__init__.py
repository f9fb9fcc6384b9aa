"""Rule systems' windows and docks, one package per rule system (``gui.rules.d100`` ...).

Each package registers itself with :func:`gui.main_window.register_extension` when imported
and shows its docks and menus only while the open encounter uses its ``ruleset``.
"""
