"""Issue 25 items 1 and 4 (window side): every picture (a background, a token's picture,
from a file or a ``data:`` URI) is checked before Qt decodes it (gui.pictures): an SVG
``<use>`` bomb and a PNG whose header claims 10^10 pixels are left out with a message
naming the file and the bound, and the map opens; an SVG's ``<image href>`` to a local
file is not drawn, and the message says so."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path

import numpy as np
from PySide6.QtGui import QImage

from engine.files import load_encounter
from engine.importers.images import MAX_SVG_ELEMENTS
from gui.cli import main as cli
from gui.map_view import load_image_ref
from gui.pictures import decode_picture, read_picture_file
from tests.engine.importers.test_svg_pictures import use_bomb

ROOT = Path(__file__).resolve().parents[2]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def huge_png(w: int = 100_000, h: int = 100_000) -> bytes:
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(b"\x00" * 1000)) + _chunk(b"IEND", b""))


def test_a_use_bomb_file_is_refused_before_qt_draws_it(tmp_path, qapp):
    p = tmp_path / "bomb.svg"
    p.write_bytes(use_bomb())
    img, why = read_picture_file(p)
    assert img is None and f"{MAX_SVG_ELEMENTS:,}" in why
    img, why = load_image_ref("bomb.svg", tmp_path / "fight.json", "Background image", "the map is drawn without it")
    assert img is None and str(p) in why and why.endswith("the map is drawn without it")


def test_a_use_bomb_data_uri_is_refused(qapp):
    uri = "data:image/svg+xml;base64," + base64.b64encode(use_bomb()).decode()
    img, why = load_image_ref(uri, None, "The picture of sam", "its disc is drawn plain")
    assert img is None and "data: URI" in why and f"{MAX_SVG_ELEMENTS:,}" in why


def test_a_huge_header_is_refused_before_decoding(qapp):
    img, why = decode_picture(huge_png())
    assert img is None and "100000 x 100000" in why


def test_other_formats_are_sized_from_their_header_first(qapp):
    # a BMP whose header claims 60,000 x 60,000 pixels (Qt's own reader answers its size)
    head = b"BM" + struct.pack("<IHHI", 54, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 60_000, 60_000, 1, 24,
                                                                     0, 0, 0, 0, 0, 0)
    img, why = decode_picture(head + b"\x00" * 64)
    assert img is None and "does not decode" in why  # (its size, or that the header gives none)


def test_a_good_svg_and_a_good_png_are_drawn(qapp):
    img, why = read_picture_file(ROOT / "assets" / "icons" / "coverfire.svg")
    assert why is None and (img.width(), img.height()) == (256, 256)
    img, why = read_picture_file(ROOT / "assets" / "icons" / "coverfire-64.png")
    assert why is None and img.width() == 64


def test_a_big_svg_is_drawn_at_a_bounded_size(qapp):
    data = b'<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="50000"><rect width="10" height="10"/></svg>'
    img, why = decode_picture(data)
    assert why is None and (img.width(), img.height()) == (4096, 2048)


def _red_png(path: Path) -> None:
    img = QImage(8, 8, QImage.Format.Format_RGB32)
    img.fill(0xFFFF0000)
    assert img.save(str(path))


def test_an_svg_image_href_to_a_local_file_is_not_drawn(tmp_path, qapp):
    _red_png(tmp_path / "secret.png")
    svg = (b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="8" '
           b'height="8"><image xlink:href="secret.png" width="8" height="8"/><image href="'
           + str(tmp_path / "secret.png").encode() + b'" width="8" height="8"/></svg>')
    (tmp_path / "art.svg").write_bytes(svg)
    img, note = load_image_ref("art.svg", tmp_path / "fight.json", "The picture of sam", "its disc is drawn plain")
    assert img is not None and "secret.png" in note and "drawn without" in note
    px = img.convertToFormat(QImage.Format.Format_ARGB32).pixel(4, 4)
    assert (px >> 16) & 0xFF < 128  # not the red of secret.png


def test_export_opens_the_map_and_names_the_pictures_left_out(tmp_path, capsys, qapp):
    (tmp_path / "bomb.svg").write_bytes(use_bomb())
    (tmp_path / "huge.png").write_bytes(huge_png())
    d = json.loads((ROOT / "assets" / "encounters" / "demo.json").read_text(encoding="utf-8"))
    d["map"]["background"] = {"image": "bomb.svg", "x": 0, "y": 0, "width": 60, "height": 40}
    d["tokens"][0]["portrait"] = "huge.png"
    d["tokens"][1]["portrait"] = "bomb.svg"
    src = tmp_path / "fight.json"
    src.write_text(json.dumps(d), encoding="utf-8")
    load_encounter(src)
    assert cli(["export", str(src), "-o", str(tmp_path / "out.png"), "--view", "gm"]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 3, err
    assert "Background image" in err and "The picture of" in err and "megapixels" in err
    assert np.all(QImage(str(tmp_path / "out.png")).size().toTuple())


def test_an_svg_slow_to_draw_is_killed_and_left_out(monkeypatch, qapp):
    """40,000 full-page rectangles at 4096 x 4096 px pass the element count (each is one
    element) but would fill 670 billion pixels: the drawing process is killed at its
    budget (1 s here) and the picture is left out, named."""
    from gui import svg_worker

    monkeypatch.setattr(svg_worker, "SECONDS", 1.0)
    data = (b'<svg xmlns="http://www.w3.org/2000/svg" width="4096" height="4096">'
            + b'<rect width="4096" height="4096" fill="#123456" stroke="red" stroke-width="900"/>' * 40_000
            + b"</svg>")
    img, why = decode_picture(data)
    assert img is None and "took longer than 1 s" in why


def test_the_drawing_process_starts_from_the_bundle_too(monkeypatch):
    import sys

    from gui import svg_worker

    from engine.child import WORKER_ARG

    assert svg_worker.command()[1:] == ["-m", "engine.child", "gui.svg_worker"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert svg_worker.command() == [sys.executable, WORKER_ARG, "gui.svg_worker"]
