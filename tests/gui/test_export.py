"""Snapshots: the demo exported to PNG, SVG and PDF and checked (sizes, pixels where the
map says tokens, zones and obstacles are, hidden objects left out for players), the
``coverfire export`` command's errors, bundles, the clipboard, and the dialog."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QColor, QGuiApplication, QImage

from engine.errors import CoverfireError
from engine.files import load_encounter, save_encounter
from gui import style
from gui.cli import main as cli
from gui.snapshot import MAP_KEY, Snapshot, SnapshotSpec, round_text

ROOT = Path(__file__).resolve().parents[2]


def _rgb(img: QImage) -> np.ndarray:
    """An (h, w, 3) uint8 array of a QImage."""
    img = img.convertToFormat(QImage.Format.Format_RGB888)
    w, h, bpl = img.width(), img.height(), img.bytesPerLine()
    return np.frombuffer(img.constBits(), np.uint8).reshape(h, bpl)[:, : 3 * w].reshape(h, w, 3).copy()


class Png:
    """An exported PNG with its metres-to-pixels mapping (read back from the file)."""

    def __init__(self, path: Path):
        self.img = QImage(str(path))
        assert not self.img.isNull(), path
        self.map = json.loads(self.img.text(MAP_KEY))
        self.rgb = _rgb(self.img)

    def px(self, x: float, y: float) -> tuple[int, int]:
        m, s = self.map, self.map["scale"]
        return (round((m["map_left"] + (x - m["region_x"]) * m["px_per_m"]) * s),
                round((m["map_top"] + (y - m["region_y"]) * m["px_per_m"]) * s))

    def at(self, x: float, y: float) -> np.ndarray:
        px, py = self.px(x, y)
        return self.rgb[py, px].astype(int)


def _near(c: np.ndarray, q: QColor, tol: int) -> bool:
    return bool(np.all(np.abs(c - np.array([q.red(), q.green(), q.blue()])) <= tol))


@pytest.fixture(scope="module")
def demo(qapp):
    return load_encounter(ROOT / "assets" / "encounters" / "demo.json")


@pytest.fixture(scope="module")
def hidden_copy(demo):
    """The demo with Vex (ganger-6, at 22, 8) and the crate (47-48.5 x 25-26.5) hidden."""
    tokens = tuple(t.model_copy(update={"hidden": True}) if t.id == "ganger-6" else t for t in demo.tokens)
    obstacles = tuple(o.model_copy(update={"hidden": True}) if o.id == "crate-1" else o for o in demo.obstacles)
    return demo.model_copy(update={"tokens": tokens, "obstacles": obstacles})


@pytest.fixture(scope="module")
def exports(demo, hidden_copy, tmp_path_factory):
    """PNGs of the demo (player and GM view) and of the hidden copy, written once."""
    folder = tmp_path_factory.mktemp("exports")
    out = {}
    for name, enc, view in (("player", demo, "player"), ("gm", demo, "gm"),
                            ("hidden_player", hidden_copy, "player"), ("hidden_gm", hidden_copy, "gm")):
        path = folder / f"{name}.png"
        with Snapshot(enc, SnapshotSpec(view=view, table=False)) as snap:
            snap.write(path)
        out[name] = Png(path)
    return out


def test_png_size_and_mapping_follow_the_layout(exports):
    p = exports["player"]
    # 60 x 40 m map padded by 2% of 60 m = 1.2 m a side: 62.4 m over 1280 px
    assert p.map["px_per_m"] == pytest.approx(1280 / 62.4)
    assert p.img.width() == 1280 + 2 * 24
    # map 42.4 m tall -> 870 px, plus header, legend and margins
    assert 870 + 100 < p.img.height() < 870 + 260
    assert p.px(-1.2, -1.2) == (24, round(p.map["map_top"]))


def test_png_pixels_show_tokens_zones_and_obstacles_where_the_map_has_them(exports):
    p = exports["player"]
    # standing tokens, 0.2 m off centre (clear of stance marks and facing ticks)
    assert _near(p.at(11.8, 19.8), style.side_colour("runner"), 25)  # Sam at (12, 20)
    assert _near(p.at(35.8, 25.8), style.side_colour("ganger"), 25)  # Spike at (36, 26)
    # inside buildings and the crate: their height class's fill
    assert _near(p.at(4.5, 4.5), style.HEIGHT_FILL["full"], 8)  # warehouse, 8 m
    assert _near(p.at(47.75, 25.75), style.HEIGHT_FILL["low"], 8)  # crate, 0.9 m
    # open ground (off the grid lines), no zone: the map ground colour
    ground = p.at(30.5, 13.5)
    assert _near(ground, style.MAP_GROUND, 8)
    # Sam's suppressive fire: from (12, 20) east, 10 m wide at 30 m, so at x = 30.5 (18.5 m
    # out) it spans y = 20 +- 5 * 18.5 / 30 = 16.9 .. 23.1; (30.5, 20.5) is inside, tinted
    # towards its orange #ff7043
    inside = p.at(30.5, 20.5)
    assert inside[0] > ground[0] + 30 and inside[0] > inside[2] + 20
    # and just outside its northern edge (y = 15.5 < 16.9) not
    assert _near(p.at(30.5, 15.5), style.MAP_GROUND, 8)


def test_hidden_tokens_and_obstacles_are_absent_for_players_and_greyed_for_the_gm(exports):
    shown, hidden = exports["player"], exports["hidden_player"]
    red = style.side_colour("ganger")
    assert _near(shown.at(21.8, 7.8), red, 25)
    assert _near(hidden.at(21.8, 7.8), style.MAP_GROUND, 10)  # Vex gone
    assert _near(hidden.at(47.75, 25.75), style.MAP_GROUND, 10)  # crate gone
    # nothing else changed: every differing pixel lies within 3 m (plus label room) of them
    assert shown.rgb.shape == hidden.rgb.shape
    ys, xs = np.nonzero(np.any(shown.rgb != hidden.rgb, axis=2))
    assert len(xs) > 100
    k = shown.map["px_per_m"]
    boxes = [(shown.px(22, 8), 3 * k + 60), (shown.px(47.75, 25.75), 3 * k + 60)]
    near_any = np.zeros(len(xs), bool)
    for (cx, cy), r in boxes:
        near_any |= (np.abs(xs - cx) <= r) & (np.abs(ys - cy) <= r)
    assert near_any.all()
    # the GM still sees both, faded/hatched
    gm = exports["hidden_gm"]
    vex = gm.at(21.8, 7.8)
    assert not _near(vex, red, 40) and not _near(vex, style.MAP_GROUND, 10)
    assert not _near(gm.at(47.75, 25.75), style.HEIGHT_FILL["low"], 8)


def test_scale_multiplies_the_png_pixels(demo, tmp_path):
    with Snapshot(demo, SnapshotSpec(scale=1.0, table=False, legend=False)) as snap:
        one = snap.image()
        two = snap.image(2.0)
    assert (two.width(), two.height()) == (2 * one.width(), 2 * one.height())
    a, b = _rgb(one), _rgb(two)
    # same picture: Sam's disc in both, at the mapped place
    m = json.loads(one.text(MAP_KEY))
    x = round(m["map_left"] + (11.8 - m["region_x"]) * m["px_per_m"])
    y = round(m["map_top"] + (19.8 - m["region_y"]) * m["px_per_m"])
    assert _near(a[y, x].astype(int), style.side_colour("runner"), 25)
    assert _near(b[2 * y, 2 * x].astype(int), style.side_colour("runner"), 25)


def test_svg_parses_and_pdf_has_one_page(demo, tmp_path):
    with Snapshot(demo, SnapshotSpec(attacker="sam")) as snap:
        size = snap.page_size()
        svg, pdf = tmp_path / "demo.svg", tmp_path / "demo.pdf"
        snap.write(svg)
        snap.write(pdf)
    root = ET.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox") == f"0 0 {round(size.width())} {round(size.height())}"
    texts = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "Alley ambush on Halsey Street" in texts and "Targets of Sam" in texts
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-")
    assert len(re.findall(rb"/Type\s*/Page\b(?!s)", data)) == 1
    box = re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    assert box and float(box.group(1)) == pytest.approx(size.width() * 0.75, abs=1.0)
    assert float(box.group(2)) == pytest.approx(size.height() * 0.75, abs=1.0)


def test_the_targets_table_has_the_docks_numbers(window, qtbot):
    window.selection.select(["sam"], window.document.encounter)
    if hasattr(window.answers, "finish_charges"):
        window.answers.finish_charges()
    window.targets.model.reload()
    from gui.export import window_spec

    with Snapshot(window.document.encounter, window_spec(window, view="gm")) as snap:
        assert snap.rows and snap.table_caption() == "Targets of Sam with the Ingram Smartgun X"
        for tid, cells in snap.rows:
            assert [c.text for c in cells] == window.targets.model.row_texts(tid)
        # nearest first
        d = [float(cells[1].text) for _, cells in snap.rows]
        assert d == sorted(d) and d[0] == pytest.approx(3.8, abs=0.05)  # Nyx: hypot(1.5, 3.5) = 3.81 m
    # players: a hidden target drops out of the table, a hidden attacker takes it away
    enc = window.document.encounter
    tokens = tuple(t.model_copy(update={"hidden": True}) if t.id == "nyx" else t for t in enc.tokens)
    with Snapshot(enc.model_copy(update={"tokens": tokens}), SnapshotSpec(attacker="sam")) as snap:
        assert "nyx" not in [tid for tid, _ in snap.rows] and len(snap.rows) == 7
    with Snapshot(enc.model_copy(update={"tokens": tokens}), SnapshotSpec(attacker="nyx")) as snap:
        assert snap.rows == []


def test_round_and_pass_come_from_the_rule_state_or_are_typed(demo):
    from engine.sr5.sheet import Settings

    assert round_text(demo) is None
    fight = demo.with_rules("sr5", Settings(turn=2, initiative_pass=1))
    assert round_text(fight) == "Combat Turn 2, pass 1"
    with Snapshot(fight, SnapshotSpec(table=False)) as snap:
        assert snap.subtitle().startswith("Combat Turn 2, pass 1")
    with Snapshot(fight, SnapshotSpec(table=False, round="Round 3 (of the boss fight)", title="")) as snap:
        assert snap.subtitle().startswith("Round 3 (of the boss fight)") and snap.title() == ""


# -- the command --------------------------------------------------------------------------------------
def test_cli_exports_png_svg_and_pdf(qapp, tmp_path, capsys):
    demo = str(ROOT / "assets" / "encounters" / "demo.json")
    for ext in ("png", "svg", "pdf"):
        out = tmp_path / f"d.{ext}"
        assert cli(["export", demo, "-o", str(out), "--attacker", "sam", "--view", "gm", "--title", "Ambush"]) == 0
        assert out.stat().st_size > 5000
    said = capsys.readouterr().out
    assert "wrote" in said and "d.png (PNG" in said and "gm view" in said
    assert cli(["export", demo, "-o", str(tmp_path / "big.png"), "--scale", "2"]) == 0
    assert QImage(str(tmp_path / "big.png")).width() == 2 * (1280 + 48)


@pytest.mark.parametrize("args, words", [
    (["{bad}", "-o", "{out}.png"], ["bad.json", "$.tokens[0].x"]),
    (["{missing}", "-o", "{out}.png"], ["missing.json", "no such file"]),
    (["{demo}", "-o", "{out}.jpg"], [".jpg", "use .png, .svg or .pdf"]),
    (["{demo}", "-o", "{out}.png", "--attacker", "bob"], ["'bob'"]),
    (["{demo}", "-o", "{out}.png", "--scale", "5"], ["scale 5", "1 to 4"]),
    (["{demo}", "-o", "{tmp}/no/such/folder/x.png"], ["does not exist"]),
])
def test_cli_mistakes_exit_2_with_one_clear_line(qapp, tmp_path, capsys, args, words):
    bad = tmp_path / "bad.json"
    data = json.loads((ROOT / "assets" / "encounters" / "demo.json").read_text(encoding="utf-8"))
    data["tokens"][0]["x"] = "twelve"
    bad.write_text(json.dumps(data), encoding="utf-8")
    fill = {"bad": str(bad), "missing": str(tmp_path / "missing.json"), "out": str(tmp_path / "out"),
            "demo": str(ROOT / "assets" / "encounters" / "demo.json"), "tmp": str(tmp_path)}
    assert cli(["export"] + [a.format(**fill) for a in args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("coverfire: ") and len(err.splitlines()) == 1 and "Traceback" not in err
    for w in words:
        assert w in err
    assert not list(tmp_path.glob("out*"))


def test_cli_renders_without_a_screen(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = tmp_path / "headless.png"
    r = subprocess.run([sys.executable, "-m", "gui.cli", "export", str(ROOT / "assets" / "encounters" / "demo.json"),
                        "-o", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert QImage(str(out)).width() == 1328


# -- bundles, clipboard, dialog ---------------------------------------------------------------------
def test_a_bundle_reopens_the_fight_where_it_was(demo, tmp_path):
    from gui.export import save_bundle

    src = tmp_path / "campaign"
    (src / "maps").mkdir(parents=True)
    QImage(40, 30, QImage.Format.Format_RGB32).save(str(src / "maps" / "street.png"))
    from engine.model import Background

    moved = demo.model_copy(update={"map": demo.map.model_copy(update={
        "background": Background(image="maps/street.png", width=60.0, height=45.0)})})
    tokens = tuple(t.model_copy(update={"x": 30.0, "y": 35.0}) if t.id == "sam" else t for t in moved.tokens)
    moved = moved.model_copy(update={"tokens": tokens})
    save_encounter(moved, src / "fight.json")
    out = tmp_path / "records"
    out.mkdir()
    png, js = save_bundle(moved, out / "round-3", SnapshotSpec(table=False), source=src / "fight.json",
                          open_file=src / "fight.json")
    assert (png.name, js.name) == ("round-3.png", "round-3.json") and png.parent == js.parent == out
    back = load_encounter(js)
    assert back.token("sam").x == 30.0 and back.tokens == moved.tokens and back.zones == moved.zones
    # the background path is rewritten to reach the same image from the bundle's folder
    assert (out / back.map.background.image).resolve() == (src / "maps" / "street.png").resolve()
    assert back.model_copy(update={"map": moved.map}) == moved
    assert QImage(str(png)).width() == 1328
    # never over the open encounter file
    with pytest.raises(CoverfireError, match="the encounter you have open"):
        save_bundle(moved, src / "fight.png", source=src / "fight.json", open_file=src / "fight.json")


def test_copy_snapshot_puts_an_image_on_the_clipboard(window):
    window.actions["copy snapshot"].trigger()
    img = QGuiApplication.clipboard().image()
    assert not img.isNull() and img.width() == window.map_view.viewport().width() + 48


def test_export_dialog_saves_each_format_and_a_bundle(window, tmp_path, monkeypatch):
    window.selection.select(["sam"], window.document.encounter)
    window.actions["export snapshot"].trigger()
    dlg = window.export_dialog
    assert dlg.attacker.currentData() == "sam" and dlg.title.text() == "Alley ambush on Halsey Street"
    dlg.view.setCurrentIndex(dlg.view.findData("gm"))
    dlg.by_width.setChecked(True)
    dlg.width_spin.setValue(2000)
    png = dlg.save(tmp_path / "shot.png")
    assert png and QImage(str(png)).width() == 2000
    for fmt in ("SVG", "PDF"):
        dlg.format.setCurrentText(fmt)
        out = dlg.save(tmp_path / "shot")
        assert out == tmp_path / f"shot.{fmt.lower()}" and out.stat().st_size > 5000
    png, js = dlg.bundle(tmp_path / "bundle.png")
    assert load_encounter(js) == window.document.committed
    # the choices are remembered for the next export (and for Copy Snapshot)
    from gui.export import load_choices

    c = load_choices(window.settings)
    assert (c["view"], c["size_mode"], c["width"], c["format"]) == ("gm", "width", 2000, "PDF")
    # a failure is a message, not a traceback
    shown = []
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append(text)))
    assert dlg.save(tmp_path / "nope" / "x.pdf") is None
    assert len(shown) == 1 and "cannot write" in shown[0] and "x.pdf" in shown[0]


def test_the_attackers_badges_show_in_a_players_export_when_chosen(demo):
    """Badges are drawn above each target (range band | cover class). Razor (27, 17) is in
    full cover from Sam, so a pill in the "full" colour sits just above Razor's disc."""
    full = style.COVER_COLOURS["full"]

    def full_pixels(spec) -> int:
        with Snapshot(demo, spec) as snap:
            a = _rgb(snap.image()).astype(int)
            (x0, y0), (x1, y1) = snap.map_to_page(27 - 3, 17 - 2.5), snap.map_to_page(27 + 3, 17 - 0.4)
        box = a[round(y0):round(y1), round(x0):round(x1)]
        return int(np.all(np.abs(box - [full.red(), full.green(), full.blue()]) <= 6, axis=2).sum())

    assert full_pixels(SnapshotSpec(attacker="sam", table=False)) > 50
    assert full_pixels(SnapshotSpec(table=False)) == 0
    from gui.player_view import PlayerOptions

    assert full_pixels(SnapshotSpec(attacker="sam", table=False, player=PlayerOptions(badges=False))) == 0


def test_cli_export_says_when_the_background_image_is_missing(qapp, tmp_path, capsys):
    data = json.loads((ROOT / "assets" / "encounters" / "demo.json").read_text(encoding="utf-8"))
    data["map"]["background"] = {"image": "maps/street.png", "width": 60, "height": 40}
    enc = tmp_path / "fight.json"
    enc.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "fight.png"
    assert cli(["export", str(enc), "-o", str(out)]) == 0  # drawn without it
    said = capsys.readouterr()
    assert "wrote" in said.out and out.exists()
    assert said.err.startswith("coverfire: warning: ") and str(tmp_path / "maps" / "street.png") in said.err
    assert "missing" in said.err


def test_copy_from_the_dialog_with_a_width_beyond_4x_says_so_instead_of_a_traceback(window, monkeypatch):
    window.actions["export snapshot"].trigger()
    dlg = window.export_dialog
    dlg.by_width.setChecked(True)
    dlg.width_spin.setValue(16000)  # the view's page is about 1,000-1,600 px: more than 4x
    before = QGuiApplication.clipboard().image()
    assert dlg.copy() is None
    msg = window.statusBar().currentMessage()
    assert msg.startswith("Cannot copy a snapshot: 16000 px is more than 4") and "zoom out or widen the window" in msg
    assert QGuiApplication.clipboard().image() == before  # nothing copied


def test_a_d100_snapshot_table_has_no_shadowrun_range_columns(qtbot, demo_path):
    from engine.files import load_encounter
    from gui.snapshot import Snapshot, SnapshotSpec

    enc = load_encounter(demo_path).model_copy(update={"ruleset": "d100"})
    with Snapshot(enc, SnapshotSpec(view="gm", attacker="sam")) as snap:
        snap.image()
        assert "Band" not in snap.columns and "Mod" not in snap.columns
        assert snap.columns[:2] == ["Target", "Dist"] and "Cover" in snap.columns
    with Snapshot(load_encounter(demo_path), SnapshotSpec(view="gm", attacker="sam")) as snap:
        snap.image()
        assert "Band" in snap.columns and "Mod" in snap.columns
