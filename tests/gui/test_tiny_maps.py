"""Issue 25 item 2: a tiny map, or a token far bigger than its map, never kills or hangs
the program. A map narrower than ``MIN_MAP_SIZE`` is refused at load with its JSON path;
every sprite pixmap stays within ``MAX_SPRITE_SIDE`` device pixels; the label layout's grid
grows with the discs (a disc a million pixels wide filled 10^8 cells)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import limits
from engine.errors import EncounterFileError
from engine.files import load_encounter, loads_encounter
from gui.cli import main as cli
from gui.layers.paint import MAX_SPRITE_SIDE, SPRITES, stamp
from gui.layers.tokens import layout_cell

ROOT = Path(__file__).resolve().parents[2]
DEMO = json.loads((ROOT / "assets" / "encounters" / "demo.json").read_text(encoding="utf-8"))


def _demo_on(width: float, *, radius: float | None = None) -> dict:
    d = json.loads(json.dumps(DEMO))
    d["map"].update(width=width, height=width, grid=0.01)
    if radius is not None:
        for t in d["tokens"]:
            t["radius"] = radius
    return d


@pytest.mark.parametrize("width", [1e-9, 1e-3, 0.099])
def test_a_map_narrower_than_the_bound_is_refused_with_its_path(width):
    with pytest.raises(EncounterFileError) as e:
        loads_encounter(json.dumps(_demo_on(width)), file="tiny.json")
    msg = str(e.value)
    assert "$.map.width" in msg and f"at least {limits.MIN_MAP_SIZE:g} m" in msg and "tiny.json" in msg


@pytest.mark.parametrize("width", [1e-9, 1e-3])
def test_export_of_a_tiny_map_says_why_and_exits_2(tmp_path, capsys, width, qapp):
    src = tmp_path / "tiny.json"
    src.write_text(json.dumps(_demo_on(width)), encoding="utf-8")
    assert cli(["export", str(src), "-o", str(tmp_path / "out.png")]) == 2
    assert "at least 0.1 m" in capsys.readouterr().err
    assert not (tmp_path / "out.png").exists()


def test_a_sprite_past_the_bound_keeps_its_logical_size_in_a_bounded_pixmap(qapp):
    calls = []
    pm = SPRITES.get(("test-huge-sprite",), 1e12, 3e11, lambda q: calls.append(q), 1.0)
    assert calls and max(pm.width(), pm.height()) <= MAX_SPRITE_SIDE
    assert pm.width() / pm.devicePixelRatio() == pytest.approx(1e12, rel=1e-3)
    small = SPRITES.get(("test-small-sprite",), 40, 20, lambda q: None, 2.0)
    assert (small.width(), small.height(), small.devicePixelRatio()) == (80, 40, 2.0)


def test_a_sprite_far_off_the_page_is_stamped_without_overflow(qapp):
    from PySide6.QtGui import QImage, QPainter

    img = QImage(64, 64, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(0)
    pm = SPRITES.get(("test-far-sprite",), 10, 10, lambda q: None, 1.0)
    p = QPainter(img)
    rect = stamp(p, pm, 5e12, -5e12)  # (int(5e12) overflowed Qt's 32-bit ints: SIGSEGV)
    p.end()
    assert rect.width() == 10


def test_the_label_layout_grid_grows_with_the_discs():
    assert layout_cell([4.0, 30.0]) == 96.0
    r = 650_000.0  # a 50 m token on a 0.1 m map, fitted on a 1,300 px page
    cells = (2 * r / layout_cell([r]) + 1) ** 2
    assert cells <= 18 ** 2


@pytest.mark.parametrize("suffix,view", [(".png", "player"), (".svg", "gm")])
def test_the_smallest_map_with_the_biggest_tokens_exports(tmp_path, capsys, suffix, view, qapp):
    """A 0.1 m map holding 50 m tokens (each disc 650,000 px on the page): before, the disc
    sprite's QPixmap overflowed (SIGSEGV) and the label layout did not finish."""
    src = tmp_path / "small.json"
    src.write_text(json.dumps(_demo_on(limits.MIN_MAP_SIZE, radius=50)), encoding="utf-8")
    load_encounter(src)
    out = tmp_path / ("out" + suffix)
    assert cli(["export", str(src), "-o", str(out), "--view", view]) == 0, capsys.readouterr().err
    assert out.stat().st_size > 0


def test_the_sprite_cache_is_bounded_in_bytes_the_oldest_going_first(qapp, monkeypatch):
    # (bounded by count only, 160 tiny and huge maps exported in one process kept 132 MiB)
    from gui.layers import paint

    cache = paint._SpriteCache()
    monkeypatch.setattr(cache, "LIMIT_BYTES", 3 * 100 * 100 * 4)
    pms = [cache.get(("test-bytes", i), 100, 100, lambda q: None, 1.0) for i in range(5)]
    assert cache.nbytes == 3 * 100 * 100 * 4 and len(cache._cache) == 3
    assert [k[1] for k in cache._cache] == [2, 3, 4]
    assert pms[0].cacheKey() not in paint._SIZES and pms[4].cacheKey() in paint._SIZES
    big = cache.get(("test-bytes", "big"), 200, 200, lambda q: None, 1.0)  # (alone past the bound: kept alone)
    assert list(cache._cache) == [("test-bytes", "big", 1.0)] and cache.nbytes == 200 * 200 * 4
    assert cache.get(("test-bytes", "big"), 200, 200, lambda q: None, 1.0) is big
