"""A hidden wall leaves no trace in the players' exports (issue 26 item 2).

docs/sight.md "Hidden obstacles and the fog": a hidden obstacle still hides bodies behind it
(the party does not see a ganger there), but the fog's floor and the lit ground treat it as
open ground. So a players' export of an encounter with a hidden wall is the very same as the
export of that encounter without the wall (no token behind it): the SVG text and the PDF's
drawing byte for byte, the PNG pixel for pixel; and no coordinate of the wall's corners
appears in the SVG.

The layout: a 40 x 20 m map, one runner at (10, 10), the fog on; a 3 m wall, hidden, with
corners chosen to be recognisable in text: x 23.37..23.61, y 6.13..13.89. Before the fix
its shadow (x > 23.61, between the lines from the runner through the corners) was black in
the players' fog (the floor was worked out with the true obstacles) and the SVG's fog path
went through (23.61, 6.13) and (23.61, 13.89).
"""

from __future__ import annotations

import io
import re

import pypdf
import pytest

from engine.model import Encounter, Light, MapSpec, Obstacle, Sight, Token
from gui.snapshot import Snapshot, SnapshotSpec

CORNERS = ("23.37", "23.61", "6.13", "13.89")


def _scene(light: str, *, wall: bool = True, ganger: bool = False) -> Encounter:
    obstacles = (Obstacle(id="secret", height=3.0, hidden=True,
                          polygon=((23.37, 6.13), (23.61, 6.13), (23.61, 13.89), (23.37, 13.89))),) if wall else ()
    tokens = [Token(id="sam", x=10, y=10, side="runner")]
    if ganger:
        tokens.append(Token(id="g", x=30, y=10, side="ganger"))
    lights = (Light(id="lamp", x=20, y=10, radius=15),) if light == "dark" else ()
    return Encounter(ruleset="d100", map=MapSpec(width=40, height=20), obstacles=obstacles, tokens=tuple(tokens),
                     lights=lights, sight=Sight(fog=True, light=light))


def _exports(enc):
    with Snapshot(enc, SnapshotSpec(view="player", attacker="sam")) as snap:
        return snap.svg(), snap.pdf(), snap.image()


def _pdf_drawing(data: bytes) -> bytes:
    page = pypdf.PdfReader(io.BytesIO(data)).pages[0]
    return page.get_contents().get_data()


@pytest.mark.parametrize("light", ["full", "dark"])
def test_a_players_export_with_a_hidden_wall_is_the_export_without_it(qapp, light):
    svg, pdf, png = _exports(_scene(light))
    svg0, pdf0, png0 = _exports(_scene(light, wall=False))
    text = svg.decode() if isinstance(svg, bytes) else svg
    for c in CORNERS:
        assert not re.search(rf"(?<![\d.]){re.escape(c)}\d*", text), c
    assert svg == svg0
    assert _pdf_drawing(pdf) == _pdf_drawing(pdf0)
    assert png.size() == png0.size() and png == png0  # pixel for pixel: no black wedge


def test_the_hidden_wall_still_hides_a_body_behind_it(qapp):
    # The ganger at (30, 10) stands in the wall's shadow (the line from (10, 10) runs along
    # y = 10 through the wall, 3 m tall, taller than a body): not seen, not on the players'
    # page; the floor there is clear (the fog treats the wall as open ground).
    from engine import vision

    enc = _scene("full", ganger=True)
    view = vision.SightCache().view(enc)
    assert "g" not in view.visible
    assert view.sight.contains(__import__("shapely").Point(30, 10))
    svg, _, _ = _exports(enc)
    assert ">g<" not in (svg.decode() if isinstance(svg, bytes) else svg)
    shown = vision.SightCache().view(enc.model_copy(update={"obstacles": ()}))
    assert "g" in shown.visible  # (without the wall it would be)
