"""What keeps a drag step cheap on a big map: the map's layers redraw only what changed."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from engine.model import Obstacle
from gui import idle
from gui.layers import obstacles as obstacle_layer
from gui.layers.obstacles import ObstacleLayer
from gui.style import GM_VIEW


def _crates(n: int, dx: float = 0.0) -> tuple[Obstacle, ...]:
    out = []
    for i in range(n):
        x, y = 3.0 * (i % 100) + dx, 3.0 * (i // 100)
        out.append(Obstacle(id=f"c{i}", polygon=((x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)), height=1.0))
    return tuple(out)


def _no_idle_work(qtbot) -> None:
    """Wait until no deferred work of earlier tests is queued (the scheduler is the program's one)."""
    sched = idle.scheduler()
    qtbot.waitUntil(lambda: not sched.jobs, timeout=10_000)


def test_a_corner_dragged_while_a_big_map_is_still_being_drawn_does_not_restart_the_drawing(qtbot, manual_clock):
    """On the test's clock: building costs no time (batches are whole tiles up to
    BUILD_BATCH obstacles), and each drag step keeps the thread busy (2 x BUSY_S), so the
    scheduler leaves turns to the drag (MAX_SKIPS before each turn of drawing)."""
    _no_idle_work(qtbot)
    sched = idle.scheduler()

    def turns_to_draw(drag: bool) -> tuple[int, int, dict]:
        layer = ObstacleLayer(GM_VIEW)
        obs = _crates(3 * obstacle_layer.BUILD_BATCH + 10)
        layer.set_obstacles(obs)
        assert layer.pending
        passes, turns = 0, sched.turns
        while layer.pending:
            passes += 1
            if drag:  # every turn the GM drags one vertex of c0 a little further (a corner drag)
                o = obs[0]
                obs = (o.model_copy(update={"polygon": ((-0.1 * passes, 0.0),) + o.polygon[1:]}),) + obs[1:]
                layer.set_obstacles(obs)
                manual_clock.advance(2 * idle.BUSY_S)  # (a drag step on a big map: the thread's own work)
            QApplication.processEvents()
            assert passes < 100, "the drawing restarts on every edit and never ends"
        drawn = {i: o for tile in layer._tiles.values() for i, o in tile.items.items()}
        assert len(drawn) == len(obs)
        assert drawn["c1000"] is obs[1000]
        return sched.turns - turns, passes, drawn

    quiet, quiet_passes, _ = turns_to_draw(False)
    # the 1,210 crates lie in 6 tiles of 238, 228, 216, 228, 228 and 72: whole tiles up to
    # 400 obstacles a turn make 5 turns, one an event-loop pass
    assert quiet == quiet_passes == 5
    dragged, dragged_passes, drawn = turns_to_draw(True)
    assert dragged == quiet  # as many turns of drawing as if nothing were dragged
    assert dragged_passes == (idle.MAX_SKIPS + 1) * quiet  # (and the drag had the others)
    assert drawn["c0"].polygon[0] == (-0.1 * dragged_passes, 0.0)  # the last drag step's corner


def test_a_batch_of_tiles_ends_when_its_building_time_is_spent(qtbot, manual_clock, monkeypatch):
    """BUILD_MS of building a turn (the test's clock: each tile takes 2 ms to build), at least
    one tile: 450 crates, one a tile, are built 3 tiles a turn."""
    _no_idle_work(qtbot)
    sched = idle.scheduler()
    real = obstacle_layer._Tile.rebuild

    def slow(tile, options):
        manual_clock.advance(0.002)
        return real(tile, options)

    monkeypatch.setattr(obstacle_layer._Tile, "rebuild", slow)
    m = obstacle_layer.TILE_M
    obs = tuple(Obstacle(id=f"c{i}", polygon=((m * (i % 30) + 1, m * (i // 30) + 1), (m * (i % 30) + 2, m * (i // 30) + 1),
                                              (m * (i % 30) + 2, m * (i // 30) + 2)), height=1.0)
                for i in range(450))
    layer = ObstacleLayer(GM_VIEW)
    layer.set_obstacles(obs)
    built = []
    turns = sched.turns
    while layer.pending:
        QApplication.processEvents()
        built.append(len(layer._tiles))
        assert len(built) < 1000
    assert sched.turns - turns == len(built) == 150
    assert built[:3] == [3, 6, 9] and built[-1] == 450
    # and a slow tile is a turn of its own: at least one tile a turn
    monkeypatch.setattr(obstacle_layer, "BUILD_MS", 0.0)
    layer = ObstacleLayer(GM_VIEW)
    layer.set_obstacles(obs)
    turns = sched.turns
    qtbot.waitUntil(lambda: not layer.pending, timeout=30_000)
    assert sched.turns - turns == 450


def test_the_selection_forgets_only_ids_that_are_gone_whatever_changed(qtbot):
    from engine.model import Encounter, MapSpec, Token, Zone
    from gui.edits import move_tokens
    from gui.selection import Selection

    enc = Encounter(map=MapSpec(width=50, height=50), obstacles=_crates(3),
                    tokens=(Token(id="a", x=10, y=10), Token(id="b", x=20, y=20)),
                    zones=(Zone(id="z", kind="circle", x=5, y=5, radius=2),))
    sel = Selection()
    sel.select(["a"], enc)
    sel.toggle("c1")
    sel.toggle("z")
    sel.set_targets(["b"])
    sel.prune(move_tokens(enc, {"a": (11.0, 10.0)}))  # a drag step: nothing is gone
    assert (sel.ids, sel.attacker, sel.targets) == (("a", "c1", "z"), "a", ("b",))
    fewer = enc.model_copy(update={"obstacles": enc.obstacles[:1], "zones": ()})
    sel.prune(fewer)  # the same tokens, but c1 and the zone deleted
    assert (sel.ids, sel.attacker, sel.targets) == (("a",), "a", ("b",))
    sel.prune(fewer.model_copy(update={"tokens": fewer.tokens[:1]}))  # b deleted
    assert (sel.ids, sel.attacker, sel.targets) == (("a",), "a", ())
    sel.prune(enc.model_copy(update={"tokens": ()}))
    assert (sel.ids, sel.attacker) == ((), None)


def test_the_selection_outline_follows_edits_of_the_selected_obstacles(qtbot):
    from engine.model import Encounter, MapSpec, Token
    from gui.layers.overlay import selection_sketch

    enc = Encounter(map=MapSpec(width=400, height=400), obstacles=_crates(3000),
                    tokens=(Token(id="a", x=350, y=350),))

    def handles(e, ids):
        return selection_sketch(e, ids, {}).handles

    assert handles(enc, ["c7"]) == list(enc.obstacles[7].polygon)
    # a corner drag step: a new tuple, c7's corner moved
    o = enc.obstacles[7]
    moved = o.model_copy(update={"polygon": ((20.5, 0.5),) + o.polygon[1:]})
    step = enc.model_copy(update={"obstacles": enc.obstacles[:7] + (moved,) + enc.obstacles[8:]})
    assert handles(step, ["c7"])[0] == (20.5, 0.5)
    # c7 renamed (same length, same place): found under its new name, not the old one
    renamed = step.model_copy(update={"obstacles": step.obstacles[:7] + (moved.model_copy(update={"id": "door"}),)
                                      + step.obstacles[8:]})
    assert handles(renamed, ["door"])[0] == (20.5, 0.5)
    assert handles(renamed, ["c7"]) == []
    # one deleted before it: everything after it moved up one place
    fewer = renamed.model_copy(update={"obstacles": renamed.obstacles[1:]})
    assert handles(fewer, ["c9", "a"]) == list(enc.obstacles[9].polygon)
    assert len(selection_sketch(fewer, ["c9", "a"], {}).lines) == 2  # the token's rim too


def test_the_legend_lists_the_height_classes_after_each_edit(window):
    from gui import style

    view = window.map_view
    doc = window.document
    base = doc.encounter

    def heights():
        return [t for k, t, _ in view.legend_entries() if k == "box"]

    before = heights()
    lows = [o for o in base.obstacles if style.height_class(o.height) == "low" and o.blocks and not o.hidden]
    assert lows and style.HEIGHT_LABELS["low"] in before
    # every low obstacle raised to 3 m, one edit step after another (a drag)
    enc = base
    for o in lows:
        enc = enc.model_copy(update={"obstacles": tuple(
            p.model_copy(update={"height": 3.0}) if p.id == o.id else p for p in enc.obstacles)})
        doc.preview(enc)
        view.legend_entries()
    assert style.HEIGHT_LABELS["low"] not in heights()
    assert style.HEIGHT_LABELS["full"] in heights()
    doc.cancel_preview()
    assert heights() == before


def test_an_obstacle_edit_redraws_only_the_zones_it_lies_in(qtbot):
    from engine.analysis import Tactics
    from engine.model import Encounter, MapSpec, Zone
    from gui.layers.zones import ZoneLayer

    wall = Obstacle(id="w", polygon=((18, 9), (19, 9), (19, 11), (18, 11)), height=3.0)  # 3 m east of A's centre
    far = Obstacle(id="f", polygon=((80, 80), (81, 80), (81, 81), (80, 81)), height=3.0)
    enc = Encounter(map=MapSpec(width=100, height=100), obstacles=(wall, far),
                    zones=(Zone(id="A", kind="circle", x=15, y=10, radius=6),
                           Zone(id="B", kind="circle", x=70, y=70, radius=6)))
    layer = ZoneLayer(GM_VIEW)
    tactics = Tactics(enc)
    layer.set_zones(enc, tactics)
    assert layer.build_count == 2
    from PySide6.QtCore import QPointF

    behind_wall, behind_crate = QPointF(20.5, 10.0), QPointF(75.0, 70.0)
    assert not layer.drawings()["A"].clipped.contains(behind_wall)  # the wall's shadow
    assert layer.drawings()["B"].clipped.contains(behind_crate)
    # the far crate moved (outside both zones): nothing is drawn again
    moved = enc.model_copy(update={"obstacles": (wall, far.model_copy(update={"polygon": (
        (85, 80), (86, 80), (86, 81), (85, 81))}))})
    tactics.update(moved)
    layer.set_zones(moved, tactics)
    assert layer.build_count == 2
    # ... into B: B is drawn again, not A
    into_b = moved.model_copy(update={"obstacles": (wall, far.model_copy(update={"polygon": (
        (72, 69), (73, 69), (73, 71), (72, 71))}))})
    tactics.update(into_b)
    layer.set_zones(into_b, tactics)
    assert layer.build_count == 3
    assert not layer.drawings()["B"].clipped.contains(behind_crate)  # in the crate's shadow now
    # the wall in A taken away: A is drawn again, whole now
    no_wall = into_b.model_copy(update={"obstacles": (wall.model_copy(update={"height": 0.5}),) + into_b.obstacles[1:]})
    tactics.update(no_wall)
    layer.set_zones(no_wall, tactics)
    assert layer.build_count == 4
    assert layer.drawings()["A"].clipped.contains(behind_wall)


def test_stamping_many_sprites_at_once_draws_the_same_pixels_as_one_by_one(qtbot):
    import numpy as np
    from PySide6.QtGui import QColor, QImage, QPainter

    from gui.layers.paint import SPRITES, stamp, stamp_many

    def disc(q):
        q.setBrush(QColor("#2f81c7"))
        q.drawEllipse(1, 1, 9, 7)

    rng = np.random.default_rng(7)
    xs, ys = rng.uniform(-5, 205, 300), rng.uniform(-5, 155, 300)
    xs[:4] = (10.5, 20.49, 30.51, -0.5)  # the rounding edges
    for dpr in (1.0, 2.0):
        pm = SPRITES.get(("test-disc", dpr), 11, 9, disc, dpr)
        for anchor in ("center", "top", "bottom"):
            images = []
            for many in (False, True):
                img = QImage(int(200 * dpr), int(150 * dpr), QImage.Format.Format_ARGB32_Premultiplied)
                img.setDevicePixelRatio(dpr)
                img.fill(0)
                p = QPainter(img)
                if many:
                    stamp_many(p, pm, xs, ys, anchor)
                else:
                    for x, y in zip(xs, ys):
                        stamp(p, pm, float(x), float(y), anchor)
                p.end()
                images.append(img)
            blank = QImage(images[0].size(), images[0].format())
            blank.setDevicePixelRatio(dpr)
            blank.fill(0)
            assert images[1] != blank  # (something was drawn)
            assert images[0] == images[1], (dpr, anchor)


def _zoomed_out_window(qtbot, tmp_path, enc):
    from PySide6.QtCore import QSettings

    from gui.main_window import MainWindow

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(enc, None, settings=settings, autosave_folder=tmp_path / "autosave",
                     autosave_interval_ms=10_000_000)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    win.map_view.fit_map()
    sched = idle.scheduler()
    qtbot.waitUntil(lambda: not sched.jobs and not win.map_view.obstacles.pending, timeout=10_000)  # (start-up work done)
    return win


def test_zoomed_out_a_drag_repaints_what_changed_and_the_screen_ends_as_a_full_repaint(qtbot, tmp_path, monkeypatch):
    """Zoomed out (no names, badges are dots) a drag step repaints only the moved disc's
    place and the badges that changed. Replaying only the repainted regions of each step
    onto the first frame must give the picture a full repaint gives."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtGui import QPainter, QRegion
    from PySide6.QtWidgets import QMessageBox

    from engine.model import Encounter, MapSpec, Token
    from gui.tools import Pointer, SelectTool

    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard))
    # the target T far east stands behind a tall wall as seen from A's start; A walks north
    # past the wall's end, and T's dot turns from full cover (red) to none
    wall = Obstacle(id="w", polygon=((300, 196), (302, 196), (302, 204), (300, 204)), height=4.0)
    enc = Encounter(map=MapSpec(width=400, height=400), obstacles=(wall,) + _crates(30, dx=20),
                    tokens=(Token(id="A", x=60, y=200), Token(id="T", x=310, y=200, side="ganger"),
                            Token(id="U", x=200, y=380, side="ganger"))
                    + tuple(Token(id=f"corner{i}", x=x, y=y, side="ganger")  # (the bounds stay)
                            for i, (x, y) in enumerate(((5, 5), (395, 5), (5, 395), (395, 395)))))
    win = _zoomed_out_window(qtbot, tmp_path, enc)
    view = win.map_view

    class Exposed(QObject):
        region, grabbing = QRegion(), False

        def eventFilter(self, obj, ev):  # noqa: N802 - Qt API
            if ev.type() == QEvent.Type.Paint and not self.grabbing:
                self.region = self.region.united(ev.region())
            return False

    rec = Exposed()
    view.viewport().installEventFilter(rec)
    win.selection.select(["A"], win.document.encounter)
    sched = idle.scheduler()
    # (A's answers shown, and the map painted with them: the selection repaints the map)
    qtbot.waitUntil(lambda: not sched.jobs and "T" in win.answers.targets and not rec.region.isEmpty(), timeout=10_000)
    assert view.tokens.simple_drawing()
    assert win.answers.targets["T"].cover.cls == "full"

    def full():
        rec.grabbing = True
        img = view.viewport().grab().toImage()
        rec.grabbing = False
        return img

    screen = full()
    tool = SelectTool(view)
    view.set_tool(tool)
    k = view.m_per_px()
    tool.press(Pointer(60, 200, m_per_px=k))
    areas = []
    for i in range(1, 13):
        rec.region = QRegion()
        tool.move(Pointer(60, 200 - 15.0 * i, m_per_px=k))
        QApplication.processEvents()
        p = QPainter(screen)
        p.setClipRegion(rec.region)
        p.drawImage(0, 0, full())
        p.end()
        areas.append(sum(r.width() * r.height() for r in rec.region))
    assert win.answers.targets["T"].cover.cls == "none"
    vp = view.viewport().size()
    assert max(areas) < 0.5 * vp.width() * vp.height()  # never the whole map
    assert screen == full()
    tool.release(Pointer(60, 200 - 15.0 * 12, m_per_px=k))


def test_the_targets_table_repaints_only_the_rows_that_changed(window):
    from gui import edits
    from gui.targets import TargetsPanel

    model = window.findChild(TargetsPanel).model
    sel = window.selection
    sel.select(["sam"], window.document.encounter)
    sel.attacker_locked = True
    model.reload()
    spans = []
    model.dataChanged.connect(lambda a, b, *_: spans.append((a.row(), b.row())))
    nyx = window.document.encounter.token("nyx")
    window.document.preview(edits.move_tokens(window.document.encounter, {"nyx": (nyx.x + 0.5, nyx.y)}))
    model.reload()
    row = model.row_of("nyx")
    assert spans == [(row, row)]  # Nyx's distance (its row) and nothing else
    assert model.row_texts("nyx")[1] == f"{window.answers.targets['nyx'].distance:.1f}"
    spans.clear()
    model.reload()  # nothing changed since
    assert spans == []
    window.document.cancel_preview()
    sel.attacker_locked = False
