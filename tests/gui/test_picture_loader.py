"""Issue 25 item 1: a picture never freezes the window. Every picture (a background, a
token's picture, from a file or a ``data:`` URI) is decoded off the GUI thread
(gui.picture_loader) within a size and a time budget: the window opens and draws the map
without it, the picture appears when it is decoded, and past its budget it is left out
with a message naming the file and the bound; ``export`` waits within the same budget.

A decoder that never finishes (what Qt did with the issue's 2.4 KB nested-``<use>`` SVG) is
stood in for by a reader that blocks until the test lets it go: before the loader, opening
such a map never returned."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QImage, QImageReader

from engine.files import load_encounter
from engine.importers.images import MAX_SVG_ELEMENTS
from gui import picture_loader
from gui.cli import main as cli
from tests.engine.importers.test_svg_pictures import use_bomb
from tests.gui.settle import settle
from tests.gui.test_picture_bounds import huge_png
from tests.gui.test_token_art import png_bytes

ROOT = Path(__file__).resolve().parents[2]
TEAL = QColor("#10a0a0")


def _encounter(tmp_path: Path, background: str | None = None, portraits: dict[int, str] | None = None) -> Path:
    d = json.loads((ROOT / "assets" / "encounters" / "demo.json").read_text(encoding="utf-8"))
    if background is not None:
        d["map"]["background"] = {"image": background, "x": 0, "y": 0, "width": d["map"]["width"],
                                  "height": d["map"]["height"]}
    for i, src in (portraits or {}).items():
        d["tokens"][i]["portrait"] = src
    path = tmp_path / "fight.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    return path


def _window(qtbot, path: Path, tmp_path: Path, monkeypatch):
    """The main window on ``path``, shown, without waiting for its pictures."""
    from gui.main_window import MainWindow
    from tests.gui.conftest import discard_on_close

    discard_on_close(monkeypatch)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(load_encounter(path), path, settings=settings, autosave_folder=tmp_path / "autosave",
                     autosave_interval_ms=10_000_000)
    qtbot.addWidget(win)
    win.resize(1366, 768)
    win.show()
    qtbot.waitExposed(win)
    return win


@pytest.fixture
def stuck(monkeypatch):
    """Reading the file ``stuck.png`` blocks until the test ends (a decoder that never
    finishes); every other file is read as usual. Yields the event set once it blocks."""
    from gui import pictures

    real = pictures.read_picture_file
    entered, release = threading.Event(), threading.Event()

    def read(path, *args, **kw):
        if Path(path).name == "stuck.png":
            entered.set()
            release.wait(60)
            return None, "was let go by the test"
        return real(path, *args, **kw)

    monkeypatch.setattr(pictures, "read_picture_file", read)
    yield entered
    release.set()


def test_a_picture_that_never_decodes_does_not_stop_the_window_opening(qtbot, tmp_path, monkeypatch, stuck,
                                                                      manual_clock):
    (tmp_path / "stuck.png").write_bytes(png_bytes())
    win = _window(qtbot, _encounter(tmp_path, background="stuck.png"), tmp_path, monkeypatch)
    view = win.map_view
    # the window is open and draws the map; the picture is being decoded elsewhere
    qtbot.waitUntil(stuck.is_set)
    assert threading.current_thread() is threading.main_thread()
    assert view.pictures_pending and not view.ground.has_image and view.background_problem is None
    assert str(tmp_path / "stuck.png") in picture_loader.pending()
    # past its budget (the program's clock) it is left out, named with the bound
    manual_clock.advance(picture_loader.SECONDS + 1)
    qtbot.waitUntil(lambda: not view.pictures_pending)
    why = view.background_problem
    assert str(tmp_path / "stuck.png") in why and f"more than {picture_loader.SECONDS:g} s of CPU time" in why
    assert why.endswith("the map is drawn without it") and not view.ground.has_image
    assert why in win.statusBar().currentMessage()


def test_a_token_picture_that_never_decodes_leaves_its_disc_plain(qtbot, tmp_path, monkeypatch, stuck,
                                                                  manual_clock):
    (tmp_path / "stuck.png").write_bytes(png_bytes())
    (tmp_path / "ok.png").write_bytes(png_bytes(TEAL))
    win = _window(qtbot, _encounter(tmp_path, portraits={0: "stuck.png", 1: "ok.png"}), tmp_path, monkeypatch)
    view = win.map_view
    enc = win.document.encounter
    qtbot.waitUntil(lambda: stuck.is_set() and set(view.tokens.portraits) == {enc.tokens[1].id})
    assert view.pictures_pending and view.portrait_problems == []
    manual_clock.advance(picture_loader.SECONDS + 1)
    qtbot.waitUntil(lambda: not view.pictures_pending)
    (why,) = view.portrait_problems
    assert str(tmp_path / "stuck.png") in why and why.endswith("its disc is drawn plain")
    assert set(view.tokens.portraits) == {enc.tokens[1].id}


def test_pictures_are_decoded_off_the_gui_thread(qtbot, tmp_path, monkeypatch):
    from gui import pictures

    real, threads = pictures.read_picture_file, []

    def read(path, *args, **kw):
        threads.append(threading.current_thread())
        return real(path, *args, **kw)

    monkeypatch.setattr(pictures, "read_picture_file", read)
    (tmp_path / "teal.png").write_bytes(png_bytes(TEAL, 32))
    win = _window(qtbot, _encounter(tmp_path, background="teal.png"), tmp_path, monkeypatch)
    qtbot.waitUntil(lambda: win.map_view.ground.has_image)
    assert threads and threading.main_thread() not in threads


def test_a_use_bomb_background_and_portrait_the_window_opens_and_names_them(qtbot, tmp_path, monkeypatch):
    (tmp_path / "bomb.svg").write_bytes(use_bomb())
    assert len(use_bomb()) < 2600
    win = _window(qtbot, _encounter(tmp_path, background="bomb.svg", portraits={2: "bomb.svg"}), tmp_path,
                  monkeypatch)
    view = win.map_view
    settle(qtbot, win)
    assert not view.pictures_pending and not view.ground.has_image and view.tokens.portraits == {}
    bound = f"{MAX_SVG_ELEMENTS:,}"
    assert str(tmp_path / "bomb.svg") in view.background_problem and bound in view.background_problem
    (why,) = view.portrait_problems
    assert str(tmp_path / "bomb.svg") in why and bound in why
    assert view.obstacles.boundingRect().width() > 0  # (the map itself is drawn)


def test_a_huge_png_header_is_refused_before_decoding(qtbot, tmp_path, monkeypatch):
    reads = []
    real = QImageReader.read
    monkeypatch.setattr(QImageReader, "read", lambda self, *a: reads.append(1) or real(self, *a))
    (tmp_path / "huge.png").write_bytes(huge_png())
    win = _window(qtbot, _encounter(tmp_path, background="huge.png"), tmp_path, monkeypatch)
    view = win.map_view
    settle(qtbot, win)
    why = view.background_problem
    assert str(tmp_path / "huge.png") in why and "100000 x 100000" in why and "megapixels" in why
    assert reads == [] and not view.ground.has_image


def _pixel(view, x: float, y: float) -> QColor:
    p = view.map_to_viewport(x, y)
    return view.viewport().grab().toImage().pixelColor(p.x(), p.y())


def test_a_normal_picture_appears_when_decoded_and_a_fresh_window_draws_the_same(qtbot, tmp_path, monkeypatch):
    (tmp_path / "teal.png").write_bytes(png_bytes(TEAL, 40))
    path = _encounter(tmp_path, background="teal.png")
    landed = []
    picture_loader.loader().loaded.connect(landed.append)
    win = _window(qtbot, path, tmp_path, monkeypatch)
    view = win.map_view
    qtbot.waitUntil(lambda: view.ground.has_image)
    settle(qtbot, win)
    assert view.background_problem is None
    assert [k[1] for k in landed] == [str(tmp_path / "teal.png")]  # (it came by the loader's signal)
    picture_loader.loader().loaded.disconnect(landed.append)
    # the viewport shows the picture where the map had its plain ground (a spot clear of tokens)
    x, y = 40.5, 37.5  # (clear of obstacles and tokens, between grid lines)
    c = _pixel(view, x, y)
    assert abs(c.red() - TEAL.red()) < 40 and abs(c.green() - TEAL.green()) < 40 and abs(c.blue() - TEAL.blue()) < 40
    # a window opened afresh (the picture kept by the loader) draws the same
    win2 = _window(qtbot, path, tmp_path, monkeypatch)
    settle(qtbot, win2)
    win.map_view.fit_map()
    win2.map_view.fit_map()
    settle(qtbot, win)
    a = win.map_view.viewport().grab().toImage()
    b = win2.map_view.viewport().grab().toImage()
    assert a.size() == b.size() and a == b


def test_export_finishes_within_the_budget_and_names_the_picture(tmp_path, capsys, monkeypatch, stuck, qapp):
    """The headless export waits for the pictures, each at most its budget (made small
    here): a picture that never decodes (a read that hangs: no CPU spent, so its wall-time
    bound, three times the CPU budget) is left out with a warning, the export is written."""
    monkeypatch.setattr(picture_loader, "SECONDS", 0.3)
    (tmp_path / "stuck.png").write_bytes(png_bytes())
    (tmp_path / "bomb.svg").write_bytes(use_bomb())
    src = _encounter(tmp_path, background="stuck.png", portraits={0: "bomb.svg"})
    assert cli(["export", str(src), "-o", str(tmp_path / "out.png"), "--view", "gm"]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 2, err
    assert "stuck.png was not decoded within 0.9 s" in err and f"{MAX_SVG_ELEMENTS:,}" in err
    assert not QImage(str(tmp_path / "out.png")).isNull()


def test_a_picture_left_out_for_its_time_is_tried_again_by_the_next_view(qtbot, tmp_path, monkeypatch, manual_clock):
    """A picture past its budget is named to the views waiting for it; a view asking later
    (the file opened again) tries it again rather than taking the old answer."""
    loader = picture_loader.PictureLoader(threads=1)
    gate = threading.Event()
    monkeypatch.setattr(picture_loader, "decode_source",
                        lambda src, seconds=None: (gate.wait(60), picture_loader.Picture(None, "done"))[1])
    source = picture_loader.PictureSource(str(tmp_path / "slow.png"), None)
    key, pic = loader.request(source)
    assert pic is None
    qtbot.waitUntil(lambda: loader._jobs[key].started)  # (a worker is on it)
    manual_clock.advance(picture_loader.SECONDS + 1)
    assert loader.wait([key])
    assert loader.result(key).timed_out and "s of CPU time to decode" in loader.result(key).why
    again, pic = loader.request(source)
    assert again == key and pic is None and loader.pending  # (asked again: decoding again)
    gate.set()
    assert loader.wait([key])
    assert loader.result(key).why == "done"


def test_the_players_view_shows_the_picture_decoded_once(qtbot, tmp_path, monkeypatch):
    """The players' view opened after the GM's picture landed shows it at once: the loader
    keeps it (one decoding, no second wait)."""
    from gui import pictures

    real, reads = pictures.read_picture_file, []
    monkeypatch.setattr(pictures, "read_picture_file", lambda p, *a, **k: reads.append(Path(p).name) or real(p, *a, **k))
    (tmp_path / "teal.png").write_bytes(png_bytes(TEAL, 24))
    win = _window(qtbot, _encounter(tmp_path, background="teal.png"), tmp_path, monkeypatch)
    qtbot.waitUntil(lambda: win.map_view.ground.has_image)
    win.actions["player view"].trigger()
    pv = win.player_view.player.view
    assert pv.ground.has_image and not pv.pictures_pending and reads == ["teal.png"]


def test_a_file_changed_on_disk_replaces_its_kept_picture(qtbot, tmp_path):
    """The answer for a file as it was before it changed (another size or time) is dropped
    when the changed file's lands: no view asks for the old one again, and a long-lived
    process reading picture after picture at one path (the fuzz campaign's workers: 212 MiB
    after 200 cases, then out of memory) kept every one up to the 768 MiB cache."""
    loader = picture_loader.PictureLoader(threads=1)
    art, other = tmp_path / "art.png", tmp_path / "other.png"
    other.write_bytes(png_bytes(TEAL, 8))
    art.write_bytes(png_bytes(TEAL, 16))
    first, _ = loader.request(picture_loader.PictureSource(str(art), None))
    kept, _ = loader.request(picture_loader.PictureSource(str(other), None))
    assert loader.wait()
    art.write_bytes(png_bytes(QColor("#a01010"), 32))  # (another size: another key)
    second, _ = loader.request(picture_loader.PictureSource(str(art), None))
    assert second != first
    assert loader.wait()
    assert loader.result(first) is None and loader.result(second).image.width() == 32
    assert loader.result(kept).image.width() == 8 and len(loader._cache) == 2
    portrait, _ = loader.request(picture_loader.PictureSource(str(art), None, portrait=True))
    assert loader.wait()
    assert loader.result(second) is not None and loader.result(portrait) is not None  # (both kinds kept)


def test_an_svg_portrait_is_drawn_at_the_size_it_is_kept_not_at_4096_px(tmp_path, monkeypatch):
    # (drawn at 4,096 x 4,096, 64 MB of pixels, then scaled to 1,024: a "both" SVG case of the
    # fuzz campaign cost 5.2 s of CPU and its worker 128 MB at a time, 1.8 s once drawn to size)
    from gui import svg_worker

    asked = []
    monkeypatch.setattr(svg_worker, "render", lambda svg, w, h, *a, **k: (asked.append((w, h)), (None, "not drawn"))[1])
    art = tmp_path / "art.svg"
    art.write_bytes(b'<svg xmlns="http://www.w3.org/2000/svg" width="40000" height="20000">'
                    b'<rect width="40000" height="20000" fill="teal"/></svg>')
    for portrait in (True, False):
        pic = picture_loader.decode_source(picture_loader.PictureSource(str(art), None, portrait=portrait))
        assert pic.image is None and "not drawn" in pic.why
    assert asked == [(picture_loader.PORTRAIT_SIDE, picture_loader.PORTRAIT_SIDE // 2), (4096, 2048)]
