"""Vector snapshots (issue 18 item 7): an exported SVG or PDF holds the token discs as
circles, the names, badges and targets table as text (searchable, selectable), and images
only for the background and the token art. Checked by parsing the SVG (xml.etree) and by
extracting the PDF's text (pypdf)."""

from __future__ import annotations

import base64
import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pypdf
import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QColor, QImage

from engine.files import load_encounter
from engine.model import Background
from gui import style
from gui.cli import main as cli
from gui.snapshot import Snapshot, SnapshotSpec

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "assets" / "encounters" / "demo.json"
SVG = "{http://www.w3.org/2000/svg}"
HREF = "{http://www.w3.org/1999/xlink}href"
NAMES = {"sam": "Sam", "nyx": "Nyx", "brick": "Brick", "ganger-1": "Razor", "ganger-2": "Spike",
         "ganger-3": "Lupe", "ganger-4": "Tusk", "ganger-5": "Mouse", "ganger-6": "Vex"}
_MATRIX = re.compile(r"matrix\(([^)]*)\)")


def _matrix(g) -> tuple[float, ...]:
    """The (a, b, c, d, e, f) of a group's ``transform="matrix(...)"`` (Qt writes one on every
    group; no rotation in snapshots)."""
    m = _MATRIX.search(g.get("transform", "matrix(1,0,0,1,0,0)"))
    return tuple(float(v) for v in m.group(1).split(","))


class Svg:
    """A parsed snapshot SVG: its texts, its circles (page centre, radius, fill) and images."""

    def __init__(self, data: bytes):
        self.root = ET.fromstring(data)
        parent = {c: p for p in self.root.iter() for c in p}
        self.texts = ["".join(t.itertext()).strip() for t in self.root.iter(SVG + "text")]
        self.circles = []  # (cx, cy, r, fill) in page units
        for c in self.root.iter(SVG + "circle"):
            g = parent[c]
            a, _, _, _, e, f = _matrix(g)
            x, y, r = float(c.get("cx")), float(c.get("cy")), float(c.get("r"))
            self.circles.append((a * x + e, a * y + f, r * abs(a), g.get("fill")))
        self.images = list(self.root.iter(SVG + "image"))
        self.image_rects = []  # (left, top, width, height) in page units
        for i in self.images:
            a, _, _, d, e, f = _matrix(parent[i])
            x, y, w, h = (float(i.get(k)) for k in ("x", "y", "width", "height"))
            self.image_rects.append((a * x + e, d * y + f, a * w, d * h))

    def circles_near(self, x: float, y: float, fill: str, tol: float = 1.0):
        return [c for c in self.circles if c[3] == fill and abs(c[0] - x) <= tol and abs(c[1] - y) <= tol]


def pdf_text(data: bytes) -> str:
    return pypdf.PdfReader(io.BytesIO(data)).pages[0].extract_text()


def pdf_images(data: bytes) -> list:
    page = pypdf.PdfReader(io.BytesIO(data)).pages[0]
    xobjects = page["/Resources"].get("/XObject") or {}
    return [k for k, v in xobjects.items() if v.get_object().get("/Subtype") == "/Image"]


@pytest.fixture(scope="module")
def demo(qapp):
    return load_encounter(DEMO)


@pytest.fixture(scope="module")
def vex_hidden(demo):
    """The demo with Vex (ganger-6) hidden from the players."""
    tokens = tuple(t.model_copy(update={"hidden": True}) if t.id == "ganger-6" else t for t in demo.tokens)
    return demo.model_copy(update={"tokens": tokens})


@pytest.fixture(scope="module")
def player_svg(demo):
    with Snapshot(demo, SnapshotSpec(attacker="sam")) as snap:
        return snap, Svg(snap.svg()), snap.pdf()


def test_every_token_disc_is_a_circle_at_its_place_in_its_sides_colour(demo, player_svg):
    snap, svg, _ = player_svg
    k = snap.layout.px_per_m  # 1280 px over 62.4 m: 20.51 px/m
    assert k == pytest.approx(1280 / 62.4)
    for t in demo.tokens:
        x, y = snap.map_to_page(t.x, t.y)
        hits = svg.circles_near(x, y, style.side_colour(t.side).name())
        assert len(hits) == 1, (t.id, x, y)
        # true size (0.4 m standing: 8.2 px; 0.5 m: 10.3 px), rounded to a quarter pixel
        assert hits[0][2] == pytest.approx(t.radius * k, abs=0.26), t.id
    runner, ganger = style.side_colour("runner").name(), style.side_colour("ganger").name()
    m = snap.layout.map_rect
    on_map = [c for c in svg.circles if m.contains(c[0], c[1])]
    assert sum(c[3] == runner for c in on_map) == 3 and sum(c[3] == ganger for c in on_map) == 6


def test_names_badges_and_the_table_are_text_and_nothing_is_a_bitmap(player_svg):
    snap, svg, _ = player_svg
    texts = svg.texts
    for name in NAMES.values():
        assert texts.count(name) == (1 if name == "Sam" else 2), name  # the label, and a table row (not Sam's)
    # the attack badges above the targets: range band and modifier | cover class
    assert texts.count("M \u22121") == 7 and texts.count("S 0") == 1
    assert texts.count("full") >= 3  # Brick, Razor, Mouse (and the legend)
    assert "Targets of Sam with the Ingram Smartgun X" in texts
    # the stance letters on the discs (Razor, Tusk, Mouse, Brick crouched; Lupe prone)
    assert texts.count("C") == 4 and texts.count("P") == 1
    assert svg.images == []  # no background, no token art: no image at all


def test_the_pdf_holds_the_same_names_as_text_and_no_image(player_svg):
    _, _, pdf = player_svg
    text = pdf_text(pdf)
    words = text.split()
    for name in NAMES.values():
        assert name in words, name
    assert "Targets" in words and "Smartgun" in words
    assert pdf_images(pdf) == []


def test_hidden_tokens_are_not_in_the_players_svg_or_pdf_but_in_the_gms(vex_hidden):
    with Snapshot(vex_hidden, SnapshotSpec(attacker="sam")) as snap:
        svg, pdf = Svg(snap.svg()), pdf_text(snap.pdf())
    assert "Vex" not in svg.texts and "Vex" not in pdf.split()
    assert "Razor" in svg.texts and "Razor" in pdf.split()
    assert not any("Vex" in t for t in svg.texts)  # nor in the table or any caption
    with Snapshot(vex_hidden, SnapshotSpec(view="gm", attacker="sam")) as snap:
        svg = Svg(snap.svg())
        x, y = snap.map_to_page(22.0, 8.0)
    assert svg.texts.count("Vex") == 2
    # drawn faded for the GM: the side's colour at alpha 90 (a dashed rim)
    faded = [c for c in svg.circles if abs(c[0] - x) <= 1 and abs(c[1] - y) <= 1]
    assert len(faded) == 1 and faded[0][3] == style.side_colour("ganger").name()


def _png(colour: str, w: int, h: int) -> bytes:
    img = QImage(w, h, QImage.Format.Format_ARGB32)
    img.fill(QColor(colour))
    ba = QByteArray()
    buf = QBuffer(ba)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    img.save(buf, "PNG")
    return bytes(ba)


def test_background_and_token_art_are_the_only_images(demo, tmp_path):
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "street.png").write_bytes(_png("#336633", 120, 80))
    art = "data:image/png;base64," + base64.b64encode(_png("#e0109c", 64, 64)).decode("ascii")
    tokens = tuple(t.model_copy(update={"portrait": art}) if t.id == "ganger-2" else t for t in demo.tokens)
    enc = demo.model_copy(update={"tokens": tokens, "map": demo.map.model_copy(update={
        "background": Background(image="maps/street.png", width=60.0, height=40.0)})})
    with Snapshot(enc, SnapshotSpec(attacker="sam"), path=tmp_path / "fight.json") as snap:
        svg, pdf = Svg(snap.svg()), snap.pdf()
        k = snap.layout.px_per_m
        bg = snap.map_to_page(0.0, 0.0)
        spike = snap.map_to_page(36.0, 26.0)
    assert len(svg.images) == 2
    assert all(i.get(HREF, "").startswith("data:image/png;base64,") for i in svg.images)  # embedded
    small, big = sorted(svg.image_rects, key=lambda r: r[2])
    # the background: 60 x 40 m from the map's corner
    assert big == pytest.approx((bg[0], bg[1], 60 * k, 40 * k), abs=1.0)
    # Spike's picture: a square as wide as his disc (0.4 m: 2 x 8.25 px), centred on him
    sx, sy = spike
    assert small[2] == pytest.approx(small[3]) and small[2] == pytest.approx(2 * 8.25, abs=0.6)
    assert small[0] + small[2] / 2 == pytest.approx(sx, abs=1.0) and small[1] + small[3] / 2 == pytest.approx(sy, abs=1.0)
    # Spike keeps his name as text and his side's rim as a circle over the picture
    assert "Spike" in svg.texts
    assert len(pdf_images(pdf)) == 2 and "Spike" in pdf_text(pdf).split()


def test_the_cli_writes_vector_svg_and_pdf(tmp_path, capsys, qapp):
    for ext in ("svg", "pdf"):
        out = tmp_path / f"d.{ext}"
        assert cli(["export", str(DEMO), "-o", str(out), "--attacker", "sam"]) == 0
    said = capsys.readouterr().out
    assert "d.svg (SVG, 1328\u00d7" in said and "vector, player view" in said
    svg = Svg((tmp_path / "d.svg").read_bytes())
    assert set(NAMES.values()) <= set(svg.texts) and svg.images == []
    assert set(NAMES.values()) <= set(pdf_text((tmp_path / "d.pdf").read_bytes()).split())


def test_the_windows_export_writes_vector_svg(window, tmp_path):
    window.selection.select(["sam"], window.document.encounter)
    window.actions["export snapshot"].trigger()
    dlg = window.export_dialog
    dlg.format.setCurrentText("SVG")
    out = dlg.save(tmp_path / "shot")
    svg = Svg(out.read_bytes())
    assert set(NAMES.values()) <= set(svg.texts) and svg.images == []
    runner = style.side_colour("runner").name()
    assert sum(c[3] == runner for c in svg.circles) >= 3


# -- the same picture in every viewer -------------------------------------------------------------
def test_cosmetic_strokes_get_their_width_in_the_groups_units():
    from gui.portable_svg import portable_svg

    src = (b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
           b'<g stroke-width="2" stroke-dasharray="8,4" stroke-dashoffset="2" transform="matrix(20,0,0,20,5,5)" '
           b'font-family="Sans Serif"><path vector-effect="non-scaling-stroke" d="M0,0 L1,1"/>'
           b'<path vector-effect="none" d="M0,0 L2,2"/></g>'
           b'<g stroke-width="3" transform="matrix(0,1,-1,0,0,0)"><path vector-effect="non-scaling-stroke" d="M0,0"/></g>'
           b'<g stroke-width="3" transform="matrix(1,0,0,1,40,40)"><circle vector-effect="non-scaling-stroke" r="4"/></g>'
           b'</svg>')
    root = ET.fromstring(portable_svg(src))
    scaled = list(root.iter(SVG + "path"))
    # 2 px at a scale of 20: 0.1 units; the dashes 8 and 4 px: 0.4 and 0.2 units
    assert scaled[0].get("vector-effect") is None and float(scaled[0].get("stroke-width")) == pytest.approx(0.1)
    assert scaled[0].get("stroke-dasharray") == "0.4,0.2" and scaled[0].get("stroke-dashoffset") == "0.1"
    assert scaled[1].get("stroke-width") is None  # not a cosmetic stroke: as it was
    assert scaled[2].get("vector-effect") == "non-scaling-stroke"  # a rotation: left to the viewer
    circle = next(root.iter(SVG + "circle"))
    assert circle.get("vector-effect") == "non-scaling-stroke" and circle.get("stroke-width") is None  # scale 1
    g = next(root.iter(SVG + "g"))
    assert g.get("font-family").endswith(", sans-serif") and "Sans Serif" not in g.get("font-family")


def test_a_hatch_is_tiled_in_pixels_under_a_scaled_group():
    """Qt tiles a pattern brush (the GM's hatch of hidden obstacles, 8 px) in the filled
    group's units: under a scale of 20 that is 8 m. The group gets a copy scaled by 1/20."""
    from gui.portable_svg import portable_svg

    src = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><defs>'
           b'<pattern id="hatch" x="0" y="0" width="8" height="8" patternUnits="userSpaceOnUse">'
           b'<rect width="8" height="8"/></pattern></defs>'
           b'<g fill="url(#hatch)" transform="matrix(20,0,0,20,0,0)"><path d="M0,0 L1,0 L1,1 Z"/></g>'
           b'<g fill="url(#hatch)" transform="matrix(20,0,0,20,5,5)"><path d="M0,0 L1,0 L1,1 Z"/></g>'
           b'<g fill="url(#hatch)" transform="matrix(1,0,0,1,0,0)"><path d="M0,0 L9,0 L9,9 Z"/></g></svg>')
    root = ET.fromstring(portable_svg(src))
    pats = {p.get("id"): p for p in root.iter(SVG + "pattern")}
    fills = [g.get("fill") for g in root.iter(SVG + "g")]
    assert fills[0] == fills[1] != "url(#hatch)" and fills[2] == "url(#hatch)"  # one copy per scale
    copy = pats[fills[0][5:-1]]
    assert copy.get("patternTransform") == "scale(0.05)" and copy.get("width") == "8"
    assert pats["hatch"].get("patternTransform") is None


def test_the_demo_svg_has_pixel_strokes_without_vector_effect_and_known_fonts(player_svg):
    snap, svg, _ = player_svg
    k = snap.layout.px_per_m
    parent = {c: p for p in svg.root.iter() for c in p}
    edge = style.HEIGHT_EDGE["full"].name()
    edges = []
    for el in svg.root.iter():
        g = parent.get(el)
        if g is None or g.tag != SVG + "g":
            continue
        a = _matrix(g)[0]
        if abs(a - 1.0) > 1e-6:
            assert el.get("vector-effect") != "non-scaling-stroke", el.attrib
            if g.get("stroke") == edge and el.get("stroke-width"):
                edges.append((a, float(el.get("stroke-width"))))
    # the buildings' edges: 1.4 px cosmetic pens, drawn in metres at 20.5 px/m: 0.068 m wide
    assert edges  # (one path per obstacle tile)
    for a, w in edges:
        assert a == pytest.approx(k, rel=1e-4) and w == pytest.approx(1.4 / k, rel=1e-3)
    families = {el.get("font-family") for el in svg.root.iter() if el.get("font-family")}
    assert families and all(f.endswith(", sans-serif") and not f.startswith("Sans Serif") for f in families)


def test_the_svg_draws_as_the_png_does(demo):
    """Qt's SVG renderer draws the exported SVG as the PNG export looks: under 2% of the
    pixels differ by more than 40 levels (anti-aliased edges and glyph hinting)."""
    import numpy as np
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgRenderer

    with Snapshot(demo, SnapshotSpec(attacker="sam")) as snap:
        png, data = snap.image(), snap.svg()
    r = QSvgRenderer(QByteArray(data))
    out = QImage(png.width(), png.height(), QImage.Format.Format_ARGB32)
    out.fill(QColor("white"))
    p = QPainter(out)
    r.render(p, QRectF(0, 0, png.width(), png.height()))
    p.end()

    def rgb(img):
        img = img.convertToFormat(QImage.Format.Format_RGB888)
        w, h, bpl = img.width(), img.height(), img.bytesPerLine()
        return np.frombuffer(img.constBits(), np.uint8).reshape(h, bpl)[:, : 3 * w].reshape(h, w, 3).astype(int)

    diff = np.abs(rgb(png) - rgb(out)).max(axis=2)
    assert (diff > 40).mean() < 0.02
    assert diff.mean() < 3.0


def test_a_big_map_is_exported_with_every_obstacle(qapp):
    """The obstacle layer builds a big map BUILD_BATCH obstacles an event-loop turn; a snapshot
    waits for all of them (it drew the first 3,000 of 10,000 before)."""
    from engine.model import Encounter, MapSpec, Obstacle, Token
    from gui.layers.obstacles import BUILD_BATCH

    boxes = []
    for i in range(57):
        for j in range(57):
            x, y = 2.0 + 1.6 * i, 2.0 + 1.6 * j
            boxes.append(Obstacle(id=f"b{i}-{j}", height=3.0,
                                  polygon=((x, y), (x + 0.5, y), (x + 0.5, y + 0.5), (x, y + 0.5))))
    assert len(boxes) > 2 * BUILD_BATCH
    enc = Encounter(name="Crates", map=MapSpec(width=95.0, height=95.0), obstacles=tuple(boxes),
                    tokens=(Token(id="t", name="T", side="runner", x=1.0, y=1.0),))
    with Snapshot(enc, SnapshotSpec(table=False, legend=False)) as snap:
        img = snap.image()
        last = snap.map_to_page(2.0 + 1.6 * 56 + 0.25, 2.0 + 1.6 * 56 + 0.25)  # the last one built
        first = snap.map_to_page(2.25, 2.25)
    fill = style.HEIGHT_FILL["full"]
    for x, y in (first, last):
        c = img.pixelColor(round(x), round(y))
        assert abs(c.red() - fill.red()) <= 8 and abs(c.blue() - fill.blue()) <= 8, (x, y, c.name())
