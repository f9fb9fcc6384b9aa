"""Labels never hide tokens (issue 13 item 8): on the demo, in the GM's view and the
players', no name label lies over any token disc or over a badge; the legend explains the
badge letters; zone labels use one precision; new zones are named from owner and kind."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gui.labels import disc_rects, overlaps, place_labels
from tests.gui.settle import settle


def _discs(layer, k):
    xs = (layer._xy[:, 0] * k).tolist()
    ys = (layer._xy[:, 1] * k).tolist()
    rs = layer.radii_px(k).tolist()
    return dict(zip(layer.ids, disc_rects(xs, ys, rs)))


def _clashes(layer, k, badges=None):
    """(label of, disc or badge of) pairs where a name label covers a disc or a badge, and
    (badge of, disc or badge of) pairs where a badge covers a disc or another badge."""
    labels = layer.label_rects(1.0 / k)
    assert labels, "no labels at this zoom: the test would check nothing"
    discs = _discs(layer, k)
    placed = layer.badge_rects(k)
    assert set(placed) == set(badges or {})
    out = []
    for tid, r in labels.items():
        rect = (r.left(), r.top(), r.right(), r.bottom())
        out += [(tid, other) for other, d in discs.items() if overlaps(rect, d)]
        out += [(tid, f"badge of {other}") for other, b in placed.items() if overlaps(rect, b)]
    for tid, b in placed.items():
        out += [(f"badge of {tid}", other) for other, d in discs.items() if overlaps(b, d)]
        out += [(f"badge of {tid}", f"badge of {o}") for o, b2 in placed.items() if o != tid and overlaps(b, b2)]
    return out


def test_the_placement_is_qt_free():
    code = "import sys, gui.labels; assert not any(m.startswith('PySide6') for m in sys.modules), 'Qt'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_label_moves_off_a_neighbours_disc():
    # token A at (100, 100) r 10; its label (60 x 16) would sit at top 113 .. 129 under it;
    # token B's disc (r 10) centred at (100, 125) is right there
    blocks = [(100.0, 100.0, 13.0, 60.0, 16.0)]
    fixed = disc_rects([100.0, 100.0], [100.0, 125.0], [10.0, 10.0])
    (dx, dy), = place_labels(blocks, fixed=fixed)
    left, top = 100 - 30 + dx, 113 + dy
    rect = (left, top, left + 60, top + 16)
    assert not any(overlaps(rect, d) for d in fixed)
    assert (dx, dy) == (0.0, -(13 + 13 + 16))  # above A: the mirror of the default place


@pytest.mark.parametrize("zoom", [1.0, 0.6, 0.35])
def test_no_label_over_a_disc_or_badge_in_the_gm_view(screen_window, qtbot, zoom):
    view = screen_window.map_view
    screen_window.selection.select(["sam"], screen_window.document.encounter)  # badges on the others
    settle(qtbot, screen_window)
    view.zoom_by(1.0 / zoom) if zoom != 1.0 else None
    settle(qtbot, screen_window)
    k = 1.0 / view.m_per_px()
    badges = view.answer_layer.badge_boxes()
    assert len(badges) == 8
    assert _clashes(view.tokens, k, badges) == []


def test_no_label_over_a_disc_in_the_player_view(screen_window, qtbot):
    win = screen_window
    win.selection.select(["sam"], win.document.encounter)
    win.actions["player view"].trigger()
    pv = win.player_view.player
    pv.resize(1280, 720)
    qtbot.waitExposed(pv)
    settle(qtbot)  # (the player window and the GM's: every top-level window)
    view = pv.view
    k = 1.0 / view.m_per_px()
    assert _clashes(view.tokens, k, view.answer_layer.badge_boxes()) == []


def test_static_veil_badges_do_not_pile_up(window, qtbot):
    """The Static Veil demo puts Bolt beside Nix and Kit beside Jay: their badges once sat on
    one another ("6 m 6 m none")."""
    window.actions["open static-veil demo"].trigger()
    settle(qtbot, window)
    view = window.map_view
    window.selection.select(["rook"], window.document.encounter)
    settle(qtbot, window)
    k = 1.0 / view.m_per_px()
    badges = view.answer_layer.badge_boxes()
    assert len(badges) == len(window.document.encounter.tokens) - 1
    assert _clashes(view.tokens, k, badges) == []


def test_a_crowd_of_tokens_keeps_every_disc_clear(window, qtbot):
    """Nine tokens 1.2 m apart in a row: labels go above and below, none over a disc."""
    from engine.model import Token

    enc = window.document.committed
    crowd = tuple(Token(id=f"t{i}", name=f"Ganger {i}", side="ganger", x=20.0 + 1.2 * i, y=20.0) for i in range(9))
    window.document.commit(enc.model_copy(update={"tokens": enc.tokens + crowd}), "crowd")
    view = window.map_view
    view.vb.setRange(xRange=(16.0, 36.0), yRange=(14.0, 26.0), padding=0)
    settle(qtbot, window)
    k = 1.0 / view.m_per_px()
    assert _clashes(view.tokens, k) == []


def test_the_legend_explains_the_badge_letters_with_an_attacker(window, qtbot):
    from gui import style

    view = window.map_view
    assert style.BAND_LEGEND not in [t for _, t, _ in view.legend_entries()]
    window.selection.select(["sam"], window.document.encounter)
    settle(qtbot, window)
    texts = [t for _, t, _ in view.legend_entries()]
    assert style.BAND_LEGEND in texts and style.BAND_LEGEND.startswith("S short  M medium  L long  E extreme")
    # the whole legend is inside the view
    w, h = view.legend_size()
    assert w <= view.viewport().width() and h < view.viewport().height() / 3


def test_badge_letters_are_s_m_l_e():
    from types import SimpleNamespace as NS

    from gui.layers import badge_for

    def report(band, mod):
        return NS(range=NS(band=band, modifier=mod), cover=NS(cls="none"), distance=50.0)

    texts = [badge_for(report(b, m)).text for b, m in (("short", 0), ("medium", -1), ("long", -3), ("extreme", -6))]
    assert texts == ["S 0", "M \u22121", "L \u22123", "E \u22126"]


def test_zone_labels_use_whole_metres_and_a_blast_shows_its_radius(window):
    from engine.model import Zone
    from gui.layers.zones import zone_labels

    enc = window.document.encounter
    sup = next(z for z in enc.zones if z.kind == "suppressive")
    (x, y, text, a), = zone_labels(sup, enc.zone_origin(sup))
    assert text == "10 m wide at 30 m" and (x, y) == pytest.approx((42.0, 20.0))
    odd = sup.model_copy(update={"length": 22.4, "width": 10.33})
    assert zone_labels(odd, (0.0, 0.0))[0][2] == f"{odd.effective_width:.0f} m wide at 22 m"
    blast = Zone(id="blast-1", kind="blast", x=30.0, y=20.0, radius=5.0)
    assert zone_labels(blast, (30.0, 20.0)) == [(35.0, 20.0, "5 m radius", 0.0)]


def test_new_zones_are_named_from_owner_and_kind(window):
    from gui import edits

    enc = window.document.encounter
    sam = enc.token("sam")
    assert edits.default_zone(enc, "suppressive", sam, (12, 20)).name == "Sam's suppressive fire"
    assert edits.default_zone(enc, "shotgun", sam, (12, 20)).name == "Sam's shotgun spread"
    assert edits.default_zone(enc, "blast", sam, (12, 20)).name == "Sam's blast"
    b = edits.default_zone(enc, "blast", None, (30, 20))
    assert b.name == f"Blast {b.id.rsplit('-', 1)[-1]}"
