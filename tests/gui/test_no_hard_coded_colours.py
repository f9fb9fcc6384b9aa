"""Issue 30 item 10: the panels' colours come from the theme (gui/theme.py: ``ink``,
``colour``, ``accent``), so the dark and the light theme both read. A colour written into
gui/ as a literal outside the theme is found here: a CSS colour in a style sheet or a text
(``color:#…``, ``background:#…``, ``rgb(…)``) anywhere but the theme and the fight report's
own printed page, and a ``QColor("#…")`` or a ``Qt.white``-like constant anywhere but the
modules that draw the map or a picture with its own colours (the map keeps its colours in
both themes)."""

from __future__ import annotations

import re
from pathlib import Path

GUI = Path(__file__).resolve().parents[2] / "gui"

#: The theme itself, and the fight report's HTML page (a printed document's own colours).
CSS_ALLOWED = {"theme.py", "fight_report.py"}
#: What draws the map, its pictures and overlays, exports and the body figure: its own colours.
QCOLOR_ALLOWED = {
    "theme.py", "style.py", "map_view.py", "snapshot.py", "lights.py", "pings.py", "player_overlays.py",
    "player_view.py", "players_inset.py", "replay.py", "ruler.py", "tools.py", "fight_report.py", "start_window.py",
    "layers/answer_layer.py", "layers/obstacles.py", "layers/overlay.py", "layers/paint.py", "layers/tokens.py",
    "layers/zones.py", "rules/static_veil/layer.py", "rules/d100/body.py", "rules/d100/present.py",
}
CSS = re.compile(r"""(?:color|background(?:-color)?)\s*:\s*(?:#[0-9a-fA-F]{3,8}\b|white\b|black\b)|\brgba?\s*\(\s*\d""")
QCOLOR = re.compile(r"""QColor\(\s*["']#|\bQt\.(?:white|black|red|green|blue|yellow|gray|darkGray|lightGray|cyan|magenta)\b|Qt\.GlobalColor\.""")


def _sources():
    for path in sorted(GUI.rglob("*.py")):
        yield path.relative_to(GUI).as_posix(), path.read_text(encoding="utf-8")


def test_no_css_colour_outside_the_theme():
    found = [f"gui/{name}:{i}: {line.strip()[:90]}" for name, text in _sources() if name not in CSS_ALLOWED
             for i, line in enumerate(text.splitlines(), 1) if CSS.search(line)]
    assert found == []


def test_no_qcolor_literal_in_the_panels():
    found = [f"gui/{name}:{i}: {line.strip()[:90]}" for name, text in _sources() if name not in QCOLOR_ALLOWED
             for i, line in enumerate(text.splitlines(), 1) if QCOLOR.search(line)]
    assert found == []


def test_the_inks_read_in_both_themes():
    from gui import theme

    for colours in theme.THEMES.values():
        for role in ("error", "dim", "warn", "good", "text"):
            assert theme.contrast(getattr(colours, role), colours.window) >= 4.5, (colours.name, role)
        for name, ink in theme.ACCENTS[colours.name].items():
            assert theme.contrast(ink, colours.window) >= 4.5, (colours.name, name)
