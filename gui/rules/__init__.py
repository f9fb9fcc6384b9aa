"""Rule systems' parts of the window, one package per rule system (``gui/rules/<name>/``).

Each package defines one :class:`gui.rules.base.RuleGui` and registers it by its ruleset;
importing this package gives every new main window a :class:`gui.rules.base.RuleGuiHost`,
which installs only the open encounter's RuleGui (found by discovery, no system named here).

What they share: :mod:`gui.rules.base` (``RuleGui``, the registry, ``RuleController``:
the saved log in the shared combat log and struck through on undo; ``LogMirror``;
``token_name``; ``picked_targets``; ``same_inputs`` and ``Kept``: what a panel read kept
while it is the same objects), :mod:`gui.rules.widgets` (``bold``, ``read_only_table``,
``set_cell``; ``TableRows`` and ``Cell``: a table's rows written only when they changed, a
part per event-loop turn; ``Section``) and the Action panel (:mod:`gui.action_panel`).
"""


def _register() -> None:
    from gui.main_window import register_extension
    from gui.rules.base import install_host

    register_extension(install_host)


_register()
