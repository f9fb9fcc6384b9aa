"""Issue 30 item 2: the outcome of what was just applied shows at the Action panel's top
(above the scrolling page, never scrolled away), and a page that can no longer act says why
there: after Sam's attack on Razor is applied the page offers a second attack the engine
refuses, and its reason is in view whatever the scroll."""

from __future__ import annotations

from tests.gui.test_sr5_gui import start_turn


def test_an_applied_attack_says_so_at_the_top_and_why_no_second(window, qtbot):
    start_turn(window)
    panel = window.action_panel
    page = window.sr5.open_attack("sam", ["ganger-1"])
    page.roll_all()
    assert panel.result_text() == ""
    sb = panel.scroll.verticalScrollBar()
    sb.setValue(sb.maximum())  # the GM had scrolled down to the story
    change = page.apply()
    assert change is not None
    assert panel.result_text().startswith(f"Applied: {change.label}  (Ctrl+Z undoes it)")
    assert "Razor" in panel.result_text() and sb.value() == 0  # back at the page's headline
    reason = page.problems.text()
    assert reason.startswith("Not allowed: Sam has already attacked")
    assert panel.blocked_text() == ""  # (the page's own line says it, in view)
    qtbot.waitUntil(lambda: sb.maximum() > 0)
    sb.setValue(sb.maximum())  # scrolled away again: the top says it
    assert panel.blocked_text() == reason
    window.actions["sr5 end phase"].trigger()  # something else happened: no stale result
    assert panel.result_text() == ""
