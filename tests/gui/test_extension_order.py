"""A window is built the same way whatever order the extension modules were imported in
(a test importing gui.rules first once built the combat log before the player view, and the
"Reveal roll to players" went nowhere)."""

from __future__ import annotations

from gui.main_window import BUILTIN_EXTENSIONS, _in_builtin_order


def _fn(module: str):
    def ext(window):
        return None

    ext.__module__ = module
    return ext


def test_extensions_install_in_the_builtin_order_whatever_their_import_order():
    registered = [_fn("gui.recorder"), _fn("gui.rules.base"), _fn("tests.someone"), _fn("gui.player_view"),
                  _fn("gui.export")]
    order = [f.__module__ for f in _in_builtin_order(registered)]
    assert order == ["gui.player_view", "gui.export", "gui.rules.base", "gui.recorder", "tests.someone"]
    assert BUILTIN_EXTENSIONS.index("gui.player_view") < BUILTIN_EXTENSIONS.index("gui.rules")


def test_a_revealed_roll_reaches_the_player_view_opened_after_the_log(window, qtbot):
    from gui.combat_log import combat_log_for

    log = combat_log_for(window)  # (the log first, the player view after)
    player = window.player_view.open()
    qtbot.waitExposed(player)
    log.add(["Sam fires at Razor: 6 hits against 2"], "sr5", round=1)
    assert window.combat_log_panel.reveal() == ["Sam fires at Razor: 6 hits against 2"]
    assert player.roll.lines == ("Sam fires at Razor: 6 hits against 2",)
