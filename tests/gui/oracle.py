"""The picture oracle (DESIGN.md "The picture is the truth"): the window's picture and scene
items after any history of edits, compared with a freshly opened window's on the same
encounter, at the same size and view.

Incremental drawing (tiles, partial repaints, kept label layouts, cached zone drawings,
sprite caches) is an optimisation of one function, encounter + view -> picture. A fresh
window computes that function from scratch; the window that lived through the edits must
agree with it:

* pixels: what each viewport shows on the screen (its part of the window's backing store,
  :func:`grab`: a fresh render would hide a partial repaint that left something stale),
  after both finished their deferred work (idle scheduler empty, every obstacle tile drawn
  at the zoom), a pixel differing when a channel differs by more than
  :data:`PIXEL_TOLERANCE` levels, at most :data:`PIXELS_ALLOWED` of them (antialiasing);
  the fresh window gets the very target range of the view (the same transform to the bit);
* data: :func:`scene_data`, the scene's items as plain values (zone drawings' bounds, element
  counts and labels, the placed zone labels; legend rows and their layout; token name
  labels and attack badges relative to their own token; rings, targets, decorations),
  numbers within :data:`DATA_TOLERANCE`.

The same for the player view when it is open. Used by tests/gui/test_picture_oracle.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, QSettings, QSize
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

#: A pixel differs when one of its channels differs by more than this many levels.
PIXEL_TOLERANCE = 48
#: ... and a picture differs when more than this many pixels do (antialiasing).
PIXELS_ALLOWED = 12


# -- settling ----------------------------------------------------------------------------------
def _busy(win) -> bool:
    from gui import idle

    if idle.scheduler().jobs:
        return True
    from gui.picture_loader import loader, pending

    if pending():  # (a picture being decoded in a worker: wait for its answer, not in a spin)
        loader().wait()
        return True
    for view in _views(win):
        if view.obstacles.pending or view.obstacles.redrawing:
            return True
    return False


def _views(win) -> list:
    views = [win.map_view]
    pv = player_window(win)
    if pv is not None and pv.isVisible():
        views.append(pv.view)
    return views


def player_window(win):
    ctl = getattr(win, "player_view", None)
    return getattr(ctl, "player", None) if ctl is not None else None


def settle(win, rounds: int = 4000) -> None:
    """Let ``win`` finish its deferred work: events processed (paints included) until the
    idle scheduler has no job and every obstacle tile is drawn at the zoom, three turns in a
    row. Nothing is repainted by force: what the window shows is what its own updates drew."""
    app = QApplication.instance()
    quiet = 0
    for _ in range(rounds):
        app.processEvents()
        if _busy(win):
            quiet = 0
            continue
        quiet += 1
        if quiet >= 3:
            return
    raise AssertionError("the window never finished its deferred work")


# -- pictures ----------------------------------------------------------------------------------
def grab(view) -> QImage:
    """What the view's viewport shows on the screen now: its part of the window's backing
    store (offscreen, ``QScreen.grabWindow`` reads it), not a fresh render (``QWidget.grab``
    would paint the whole viewport again and hide a partial repaint that left something
    stale)."""
    from PySide6.QtCore import QDeadlineTimer
    from PySide6.QtTest import QTest

    vp = view.viewport()
    top = vp.window()
    deadline = QDeadlineTimer(30_000)
    while True:  # (a window just made or resized may not have its backing store yet: a null grab)
        pos = vp.mapTo(top, QPoint(0, 0))
        img = top.screen().grabWindow(top.winId(), pos.x(), pos.y(), vp.width(), vp.height()).toImage()
        if not img.isNull() and (img.width(), img.height()) == (vp.width(), vp.height()):
            return img.convertToFormat(QImage.Format.Format_RGB32)
        if deadline.hasExpired():
            raise AssertionError(f"the view's pixels could not be read ({img.width()}x{img.height()} "
                                 f"for a {vp.width()}x{vp.height()} view)")
        QTest.qWait(5)  # (polling for the condition above)


def as_array(img: QImage) -> np.ndarray:
    h, w, bpl = img.height(), img.width(), img.bytesPerLine()
    a = np.frombuffer(img.constBits(), dtype=np.uint8, count=h * bpl).reshape(h, bpl // 4, 4)
    return a[:, :w, :3].astype(np.int16)


def differing(a: QImage, b: QImage) -> np.ndarray | None:
    """A boolean mask of the pixels that differ past :data:`PIXEL_TOLERANCE` (None when the
    sizes differ)."""
    if a.size() != b.size():
        return None
    return (np.abs(as_array(a) - as_array(b)).max(axis=2) > PIXEL_TOLERANCE)


def save_diff(out: Path, name: str, live: QImage, fresh: QImage, mask: np.ndarray | None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    live.save(str(out / f"{name}-live.png"))
    fresh.save(str(out / f"{name}-fresh.png"))
    if mask is not None:
        img = QImage(live)
        arr = as_array(live).astype(np.uint8)
        arr = (arr * 0.35).astype(np.uint8)
        arr[mask] = (0, 0, 255)  # (BGRA order: red)
        h, w = mask.shape
        buf = np.zeros((h, w, 4), dtype=np.uint8)
        buf[:, :, :3] = arr
        buf[:, :, 3] = 255
        img = QImage(buf.data, w, h, 4 * w, QImage.Format.Format_RGB32).copy()
        img.save(str(out / f"{name}-diff.png"))


# -- scene items as data -----------------------------------------------------------------------
def _r(v: float, nd: int = 2) -> float:
    v = round(float(v), nd)
    return 0.0 if v == 0 else v


def _rect(r: QRectF, nd: int = 2) -> tuple:
    return (_r(r.left(), nd), _r(r.top(), nd), _r(r.width(), nd), _r(r.height(), nd))


def _transform(view) -> tuple:
    """Where map points (0, 0) and (1, 1) land in the viewport, in pixels to 1/100."""
    a, b = view.vb.mapViewToDevice(QPointF(0, 0)), view.vb.mapViewToDevice(QPointF(1, 1))
    return (_r(a.x()), _r(a.y()), _r(b.x() - a.x(), 3), _r(b.y() - a.y(), 3))


def scene_data(view) -> dict:
    """The scene's items of a map view as plain values, each in its own frame: zone
    drawings in metres, legend rows and their layout, token labels and badges in pixels
    relative to their own token's centre."""
    k = 1.0 / view.m_per_px()
    toks = view.tokens
    zones = {}
    for zid, d in view.zones.drawings().items():
        zones[zid] = {
            "full": _rect(d.full.boundingRect()), "clipped": _rect(d.clipped.boundingRect()),
            "n": (d.full.elementCount(), d.clipped.elementCount()), "colour": d.colour.rgba(),
            "labels": [(_r(x), _r(y), text, _r(a, 4)) for x, y, text, a in d.labels],
        }
    centre = {tid: (float(toks._xy[i, 0]) * k, float(toks._xy[i, 1]) * k) for i, tid in enumerate(toks.ids)}
    labels = {}
    for tid, r in toks.label_rects().items():
        cx, cy = centre[tid]
        labels[tid] = (_r(r.left() - cx, 1), _r(r.top() - cy, 1), _r(r.width(), 1), _r(r.height(), 1))
    badges = {}
    for tid, (l, t, r, b) in toks.badge_rects(k).items():
        cx, cy = centre[tid]
        badges[tid] = (_r(l - cx, 1), _r(t - cy, 1), _r(r - l, 1), _r(b - t, 1))
    zone_labels = [(_rect(r, 1), text, c.rgba()) for r, text, c in view.zones.placed_labels(k)]
    entries, bw, bh = view.legend_layout()
    return {
        "view": (_rect(view.vb.viewRect(), 3), view.viewport().width(), view.viewport().height()),
        "transform": _transform(view),
        "zones": zones,
        "zone order": list(view.zones.drawings()),
        "zone labels": zone_labels,
        "legend": [(kind, text, c.rgba(), _r(x, 1), _r(y, 1)) for kind, text, c, x, y in entries],
        "legend box": (_r(bw, 1), _r(bh, 1)),
        "tokens": [(tid, _r(toks._xy[i, 0], 3), _r(toks._xy[i, 1], 3), toks._looks[i][0].rgba(),
                    *toks._looks[i][1:]) for i, tid in enumerate(toks.ids)],
        "labels": labels,
        "badges": badges,
        "badge boxes": {tid: (_r(w, 1), _r(h, 1)) for tid, (w, h) in view.answer_layer.badge_boxes().items()},
        "rings": {tid: [c.rgba() for c in cs] for tid, cs in toks._rings.items()},
        "targets": tuple(toks.targets),
        "decorations": dict(toks.decorations),
    }


#: Numbers in the scene data agree within this (pixels or metres): values computed in
#: another order land either side of a rounding boundary (12.75 px read as 12.7 or 12.8;
#: a disc radius rounded to a quarter pixel at scales a rounding error apart).
DATA_TOLERANCE = 0.35


def same(a, b) -> bool:
    """Whether two scene-data values agree: equal, numbers within :data:`DATA_TOLERANCE`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b  # (counts, colours)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= DATA_TOLERANCE
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def data_differences(a: dict, b: dict) -> list[str]:
    out = []
    for key in a:
        if not same(a[key], b.get(key)):
            if isinstance(a[key], dict) and isinstance(b.get(key), dict):
                for k2 in sorted(set(a[key]) | set(b[key]), key=str):
                    if not same(a[key].get(k2), b[key].get(k2)):
                        out.append(f"{key}[{k2}]: window {a[key].get(k2)!r} != fresh {b[key].get(k2)!r}")
            else:
                out.append(f"{key}: window {a[key]!r} != fresh {b.get(key)!r}")
    return out


# -- the fresh window --------------------------------------------------------------------------
def make_window(encounter, path, folder: Path, size: QSize):
    """A main window on ``encounter`` (file ``path``) with its own settings, shown at
    ``size`` and settled."""
    from gui.main_window import MainWindow

    folder.mkdir(parents=True, exist_ok=True)
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    settings.clear()
    win = MainWindow(encounter, path, settings=settings, autosave_folder=folder / "autosave",
                     autosave_interval_ms=10_000_000)
    win.resize(size)
    win.show()
    settle(win)
    win.map_view.fit_map()
    settle(win)
    return win


def close_window(win) -> None:
    pv = player_window(win)
    if pv is not None:
        pv.hide()
    win.document.undo_stack.setClean()
    win.close()
    win.deleteLater()
    QApplication.instance().processEvents()
    # processEvents() never runs deferred deletes (only a return to the loop that asked
    # for them does): without this every closed window stayed alive, about 9 MB each, and
    # a long run's 800 fresh windows reached 8.8 GB, then were all deleted at once inside
    # the next nested loop (a map drop's), for minutes.
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def _same_view(src, dst) -> None:
    """``dst`` shows what ``src`` shows: the same viewport size, the same map area."""
    win_dst = dst.window()
    for _ in range(4):
        dv = src.viewport().size() - dst.viewport().size()
        if dv.isNull():
            break
        win_dst.resize(win_dst.size() + dv)
        settle(win_dst.window() if hasattr(win_dst, "map_view") else dst.window())
    _same_range(src, dst)
    dst.auto_fit = src.auto_fit


def _same_range(src, dst) -> None:
    """The very range ``src`` asked for (pyqtgraph's target range, which the locked aspect
    widens to the view range): the same viewport then gives the very same transform, to
    the last bit (a view rect copied through ``setRange(rect)`` came out up to 0.02 px off,
    enough to move a cached layer's edge by a whole pixel)."""
    (x0, x1), (y0, y1) = src.vb.state["targetRange"]
    dst.vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0.0)


def fresh_like(live, folder: Path):
    """A fresh main window on the encounter ``live`` shows now, with its file, size, view
    options, selection, attacker, targets, map area and player view (when open)."""
    enc = live.document.encounter
    win = make_window(enc, live.document.path, folder, live.size())
    for name, act in live.actions.items():
        # (the view's choices, and the players' fog shown on the GM's map: key V)
        if (name.startswith("view:") or name == "gm fog") and act.isChecked() != win.actions[name].isChecked():
            win.actions[name].trigger()
    sel = live.selection
    win.selection.attacker_locked = sel.attacker_locked
    win.selection._set(sel.ids, sel.attacker, sel.focus, sel.weapon)
    win.selection.set_targets(sel.targets)
    pv = player_window(live)
    if pv is not None and pv.isVisible():
        win.player_view.set_options(live.player_view.options)
        p = win.player_view.open()
        p.resize(pv.size())
    settle(win)
    _same_view(live.map_view, win.map_view)
    if pv is not None and pv.isVisible():
        p = player_window(win)
        settle(win)
        for _ in range(4):
            dv = pv.view.viewport().size() - p.view.viewport().size()
            if dv.isNull():
                break
            p.resize(p.size() + dv)
            settle(win)
        _same_range(pv.view, p.view)
    settle(win)
    return win


def compare(live, folder: Path, name: str = "step") -> list[str]:
    """The differences between ``live`` and a fresh window on the same encounter and view
    (empty: the same picture and items); pictures of a difference are saved in ``folder``."""
    settle(live)
    fresh = fresh_like(live, folder / "fresh")
    try:
        settle(live)
        pairs = [("map", live.map_view, fresh.map_view)]
        pv, pf = player_window(live), player_window(fresh)
        if pv is not None and pv.isVisible():
            pairs.append(("players", pv.view, pf.view))
        problems = []
        for what, a, b in pairs:
            da, db = scene_data(a), scene_data(b)
            if (da["view"], da["transform"]) != (db["view"], db["transform"]):
                problems.append(f"{what}: the fresh window's view differs: {da['view'], da['transform']} != "
                                f"{db['view'], db['transform']}")
                continue
            problems += [f"{what}: {p}" for p in data_differences(da, db)]
            ia, ib = grab(a), grab(b)
            mask = differing(ia, ib)
            n = -1 if mask is None else int(mask.sum())
            if n > PIXELS_ALLOWED or n < 0:
                ys, xs = np.nonzero(mask) if mask is not None else ((), ())
                where = f" in x {min(xs)}..{max(xs)}, y {min(ys)}..{max(ys)}" if n > 0 else ""
                problems.append(f"{what}: {n} pixels differ{where}")
                save_diff(folder, f"{name}-{what}", ia, ib, mask)
        return problems
    finally:
        close_window(fresh)



# -- exports as data ---------------------------------------------------------------------------
_NUMBER = None


def _numbers_rounded(text: str, nd: int = 1) -> str:
    """``text`` with every number in it rounded to ``nd`` decimals (path data, transforms)."""
    import re

    global _NUMBER
    if _NUMBER is None:
        _NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")
    return _NUMBER.sub(lambda m: repr(_r(float(m.group()), nd)), text)


def svg_items(svg: bytes) -> list[tuple]:
    """An SVG export as data: each element in document order as (tag, its attributes with
    numbers rounded to 0.1, its text), so two exports compare by what they draw (paths,
    fills, transforms, texts), not by their bytes."""
    import xml.etree.ElementTree as ET

    out = []
    for el in ET.fromstring(svg).iter():
        tag = el.tag.rpartition("}")[2]
        attrs = tuple(sorted((k.rpartition("}")[2], _numbers_rounded(v)) for k, v in el.attrib.items()))
        out.append((tag, attrs, (el.text or "").strip()))
    return out


def svg_differences(a: bytes, b: bytes, limit: int = 6) -> list[str]:
    """What differs between two SVG exports as data (empty: the same items)."""
    ia, ib = svg_items(a), svg_items(b)
    out = [f"svg: {len(ia)} items != {len(ib)}"] if len(ia) != len(ib) else []
    for n, (x, y) in enumerate(zip(ia, ib)):
        if x != y:
            out.append(f"svg item {n}: {x!r:.300} != {y!r:.300}")
            if len(out) >= limit:
                break
    return out


def pdf_streams(pdf: bytes) -> list[bytes]:
    """A PDF export's content: its streams unpacked, without the XMP metadata (the date and
    document id of each write)."""
    import re
    import zlib

    out = []
    for raw in re.findall(rb"stream\r?\n(.*?)endstream", pdf, re.S):
        raw = raw.rstrip(b"\r\n")
        try:
            raw = zlib.decompress(raw)
        except zlib.error:
            pass
        if not raw.startswith(b"<?xpacket"):
            out.append(raw)
    return out
