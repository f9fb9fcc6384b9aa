"""The players' snapshot shows the fog like the player view (issue 18 item 7): with the
encounter's fog on, what the party never saw is dark, what it explored but does not see now
dimmed, what it sees clear; other sides' tokens are on the page (map, labels, table) only
while the party sees them, hidden tokens never; the answers (badges, table) are worked out
from what the players know (``engine.vision.players_knowledge``). The GM's snapshot keeps
everything. Checked in SVG (parsed), PDF (text extracted) and PNG (pixels).

The demo (assets/encounters/demo.json), as tests/gui/test_fog.py sketches it: the warehouse
is an L of 8 m walls over x 0-18, y 0-8 and x 0-8, y 8-14; the runners (the players' side)
stand at Sam (12, 20), Nyx (10.5, 23.5) and Brick (16, 30). Vex (``ganger-6``) moved to
(19.5, 2) is behind the warehouse's corner (18, 8): the lines from Sam and Nyx meet y = 8 at
x = 17.0, inside the 8 m block; Brick's crosses the car he crouches behind. The engine's
answer is checked first, so the test does not rest on this sketch alone.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pypdf
import pytest
import shapely
from PySide6.QtGui import QColor

from engine import vision
from engine.files import load_encounter
from engine.model import Obstacle
from gui import edits
from gui.layers.fog import FOG_DARK, FOG_DIM
from gui.snapshot import Snapshot, SnapshotSpec
from tests.gui.test_snapshot_vector import DEMO, NAMES, SVG, Svg

BEHIND_CORNER = (19.5, 2.0)
INSIDE_WAREHOUSE = (4.0, 4.0)  # 4 m from every wall of the 8 m block: never in sight
OPEN_GROUND = (13.5, 17.5)  # between the warehouse and Sam, in the open


def _fog(enc, on: bool = True):
    return enc.model_copy(update={"sight": enc.sight.model_copy(update={"fog": on})})


@pytest.fixture(scope="module")
def fogged(qapp):
    """The demo with Vex behind the warehouse corner and the fog on."""
    return _fog(edits.move_tokens(load_encounter(DEMO), {"ganger-6": BEHIND_CORNER}))


def _export(enc, view: str = "player", **spec):
    with Snapshot(enc, SnapshotSpec(view=view, attacker="sam", **spec)) as snap:
        return snap, Svg(snap.svg()), pypdf.PdfReader(io.BytesIO(snap.pdf())).pages[0].extract_text().split(), \
            snap.image()


def _px(snap, img, x: float, y: float) -> QColor:
    px, py = snap.map_to_page(x, y)
    return img.pixelColor(round(px), round(py))


def _near(a: QColor, b: QColor, tol: int = 6) -> bool:
    return abs(a.red() - b.red()) <= tol and abs(a.green() - b.green()) <= tol and abs(a.blue() - b.blue()) <= tol


def _over(under: QColor, top: QColor) -> QColor:
    a = top.alpha() / 255.0
    return QColor(round(top.red() * a + under.red() * (1 - a)), round(top.green() * a + under.green() * (1 - a)),
                  round(top.blue() * a + under.blue() * (1 - a)))


def test_an_enemy_behind_the_building_corner_is_not_in_the_players_snapshot_but_in_the_gms(fogged):
    seen = vision.party_view(fogged).visible
    assert not any(vision.token_sees(fogged, r, "ganger-6") for r in ("sam", "nyx", "brick"))
    assert "ganger-6" not in seen and {"sam", "nyx", "brick", "ganger-1"} <= seen
    snap, svg, pdf, _ = _export(fogged)
    # every token's name is on the page exactly when the party is shown the token
    for tid, name in NAMES.items():
        assert (name in svg.texts) == (tid in seen), (tid, sorted(seen))
        assert (name in pdf) == (tid in seen), tid
    assert "ganger-6" not in [tid for tid, _ in snap.rows] and "ganger-1" in [tid for tid, _ in snap.rows]
    assert snap.table_caption() == "Targets of Sam with the Ingram Smartgun X"
    assert svg.images == []  # the fog is paths, not a picture
    # the GM's snapshot keeps Vex (map label and table row)
    gm, gsvg, gpdf, _ = _export(fogged, "gm")
    assert gsvg.texts.count("Vex") == 2 and "Vex" in gpdf and "ganger-6" in [tid for tid, _ in gm.rows]


def test_the_fog_is_dark_where_never_seen_dim_where_explored_and_clear_in_sight(fogged):
    plain, _, _, plain_img = _export(_fog(fogged, False), table=False)
    snap, svg, _, img = _export(fogged, table=False)
    assert _near(_px(snap, img, *INSIDE_WAREHOUSE), FOG_DARK)  # never seen
    assert _near(_px(snap, img, *OPEN_GROUND), _px(plain, plain_img, *OPEN_GROUND), 2)  # in sight: untouched
    # the fog's dark region is a filled path in the SVG, in the fog's colour
    fills = {(g.get("fill"), g.get("fill-opacity")) for g in svg.root.iter(SVG + "g") if g.find(SVG + "path") is not None}
    assert (FOG_DARK.name(), "1") in fills
    # the GM reveals a square inside the warehouse: explored, out of sight: dimmed over the map
    revealed = vision.reveal(fogged, shapely.box(2.0, 2.0, 6.0, 6.0))
    snap2, _, _, img2 = _export(revealed, table=False)
    assert _near(_px(snap2, img2, *INSIDE_WAREHOUSE), _over(_px(plain, plain_img, *INSIDE_WAREHOUSE), FOG_DIM))
    assert _near(_px(snap2, img2, 7.0, 7.0), FOG_DARK)  # outside the square: still dark


def test_without_fog_the_players_snapshot_shows_every_token_not_hidden(fogged):
    _, svg, _, _ = _export(_fog(fogged, False))
    assert set(NAMES.values()) <= set(svg.texts)


def test_a_hidden_token_is_never_in_the_players_snapshot_even_in_sight(fogged):
    enc = edits.apply_fields(fogged, "ganger-1", {"hidden": True})  # Razor, in the party's sight
    snap, svg, pdf, _ = _export(enc)
    assert "Razor" not in svg.texts and "Razor" not in pdf and "ganger-1" not in [t for t, _ in snap.rows]
    assert "Spike" in svg.texts  # still seen


def test_the_players_answers_leave_out_a_hidden_wall(fogged):
    """Spike (36, 26) stands in the open from Sam (12, 20). A hidden 3 m wall across the line
    between them (x 24-24.3, y 20-29.5: Sam's line crosses x = 24 at y = 23) hides him from
    the GM's true answer; the players' snapshot, worked out without it, says no cover."""
    wall = Obstacle(id="secret-wall", name="Secret wall", height=3.0, hidden=True,
                    polygon=((24.0, 20.0), (24.3, 20.0), (24.3, 29.5), (24.0, 29.5)))
    enc = edits.add(_fog(fogged, False), wall)

    def cover(snap) -> str:
        col = snap.columns.index("Cover")
        return dict(snap.rows)["ganger-2"][col].text

    gm, _, _, _ = _export(enc, "gm")
    players, svg, _, _ = _export(enc)
    assert cover(gm) == "full" and cover(players) == "none"
    assert "Spike" in svg.texts
    # with the fog on, the hidden wall still blocks the party's eyes (the fog uses the true
    # obstacles): Nyx's line (10.5, 23.5)-(36, 26) crosses x = 24 at y = 24.8 and Brick's
    # (16, 30)-(36, 26) at y = 28.4, both on the wall, so nobody sees Spike: not shown
    fog_on = _fog(enc)
    assert not any(vision.token_sees(fog_on, r, "ganger-2") for r in ("sam", "nyx", "brick"))
    snap, fsvg, fpdf, _ = _export(fog_on)
    assert "Spike" not in fsvg.texts and "Spike" not in fpdf and "ganger-2" not in dict(snap.rows)
    assert "Razor" in fsvg.texts


def test_the_cli_and_the_windows_export_both_draw_the_fog(fogged, tmp_path, capsys, window):
    from engine.files import save_encounter
    from gui.cli import main as cli

    src = tmp_path / "fight.json"
    save_encounter(fogged, src)
    for ext in ("svg", "pdf", "png"):
        assert cli(["export", str(src), "-o", str(tmp_path / f"cli.{ext}"), "--attacker", "sam"]) == 0
    assert "wrote" in capsys.readouterr().out
    svg = Svg((tmp_path / "cli.svg").read_bytes())
    pdf = pypdf.PdfReader(str(tmp_path / "cli.pdf")).pages[0].extract_text().split()
    assert "Vex" not in svg.texts and "Vex" not in pdf and "Razor" in svg.texts and "Razor" in pdf
    # the window: File > Export Snapshot, players' view, SVG
    window.open_file(src, ask=False)
    window.selection.select(["sam"], window.document.encounter)
    window.actions["export snapshot"].trigger()
    dlg = window.export_dialog
    dlg.view.setCurrentIndex(dlg.view.findData("player"))
    dlg.format.setCurrentText("SVG")
    out = dlg.save(tmp_path / "window.svg")
    wsvg = Svg(out.read_bytes())
    assert "Vex" not in wsvg.texts and {"Sam", "Razor", "Spike"} <= set(wsvg.texts)
    dlg.view.setCurrentIndex(dlg.view.findData("gm"))
    assert "Vex" in Svg(dlg.save(tmp_path / "window-gm.svg").read_bytes()).texts
