"""What each kind of input goes through in one fuzz case, and how it is classified.

A case is named by its seed text (``"7:encounter:123"``): the input is made from it by
:mod:`tests.fuzz.mutate`, so any case replays on its own (``python -m tests.fuzz --case``).
Each pipeline runs the steps a GM's file goes through and stops at the first that does not
pass; its outcome is one of :data:`OUTCOMES`.
"""

from __future__ import annotations

import base64
import io
import json
import random
import shutil
import traceback
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace
from xml.etree import ElementTree as ET

from tests.fuzz.mutate import JsonMutator, mutate_bytes, mutate_image, mutate_xml, png

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "shared" / "samples" if (REPO / "shared" / "samples").is_dir() else Path("/work/shared/samples")

#: The outcomes, in the order of the counts table; the first two are the good ones.
OUTCOMES = ("refused", "accepted", "crashed", "hung", "memory", "accumulated", "unsavable", "unreopenable", "unnamed",
            "local", "silent")
GOOD = ("refused", "accepted")
#: Peak resident memory of a case past which it counts as "memory" (the issue's 2 GiB; the
#: workers' 1 GiB of address space stops most blow-ups first, as a MemoryError).
MEMORY_LIMIT = int(__import__("os").environ.get("COVERFIRE_FUZZ_RSS_LIMIT", 2 << 30))
LABELS = {
    "refused": "refused cleanly",
    "accepted": "accepted, round-trips",
    "crashed": "crashed",
    "hung": "hung > 10 s CPU",
    "memory": "memory > 1 GiB address space or 2 GiB resident",
    "accumulated": "out of memory only after earlier cases (passes alone: a leak)",
    "unsavable": "cannot be saved",
    "unreopenable": "cannot be reopened / reopens different",
    "unnamed": "refused without naming the file",
    "local": "local file pulled in",
    "silent": "changed in silence",
}


#: Called once a case's input is made (the worker tells the runner, which times the case's
#: CPU and wall time from then: mutating a 54 MB map takes the fuzzer 5 s, not Coverfire).
ON_INPUT_MADE = []


def input_made() -> None:
    for hook in ON_INPUT_MADE:
        hook()


class Outcome(Exception):
    """Ends a case with an outcome and a detail line."""

    def __init__(self, outcome: str, detail: str = ""):
        super().__init__(outcome, detail)
        self.outcome, self.detail = outcome, detail


def _where(exc: BaseException) -> str:
    """``Type: message`` and the innermost frame inside the repository."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if str(REPO) in f.filename or "/work/" in f.filename]
    at = f" at {Path(frames[-1].filename).relative_to(REPO) if str(REPO) in frames[-1].filename else frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    text = str(exc).splitlines()[0][:200] if str(exc) else ""
    return f"{type(exc).__name__}: {text}{at}"


def _step(stage: str, fn, *, refusal_ok: bool, file_name: str | None = None, fail: str = "crashed"):
    """Run one stage: a Coverfire refusal ends the case as ``refused`` when allowed (and
    ``unnamed`` when the message does not name the file), anything else as ``fail``."""
    from engine.errors import CoverfireError

    try:
        return fn()
    except MemoryError as exc:
        raise Outcome("memory", f"{stage}: MemoryError{_where(exc)[11:]}") from None
    except CoverfireError as exc:
        if not refusal_ok:
            raise Outcome(fail, f"{stage}: {_where(exc)}") from None
        if file_name is not None and file_name not in str(exc):
            raise Outcome("unnamed", f"{stage}: {_where(exc)}") from None
        raise Outcome("refused", f"{stage}: {str(exc)[:160]}") from None
    except Outcome:
        raise
    except RecursionError as exc:
        raise Outcome(fail, f"{stage}: {_where(exc)}") from None
    except Exception as exc:  # noqa: BLE001 - classifying is the point
        raise Outcome(fail, f"{stage}: {_where(exc)}") from None


def _name(rng: random.Random, suffix: str) -> str:
    return rng.choice(["fight", "fight", "fight", "ünïcödé map", "n" * 240, "with space"]) + suffix


def _roundtrip(enc, out: Path, stage: str = "save"):
    """Save ``enc`` as the window does (images beside it) and load it back; the reloaded
    encounter must equal what was written."""
    from engine.files import load_encounter
    from engine.importers.images import save_with_images

    saved, _written = _step(stage, lambda: save_with_images(enc, out), refusal_ok=False, fail="unsavable")
    back = _step("reload", lambda: load_encounter(out), refusal_ok=False, fail="unreopenable")
    if back != saved:
        raise Outcome("unreopenable", "reload: the reopened encounter differs from the saved one")
    return back


# -- encounter files -----------------------------------------------------------------------
@lru_cache(maxsize=None)
def _demos() -> tuple[tuple[str, object], ...]:
    from assets import ENCOUNTERS

    return tuple((p.name, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(ENCOUNTERS.glob("*.json")))


def _analyze_and_export(path: Path, enc, rng: random.Random, work: Path) -> None:
    from engine.report import run_analyze

    out = io.StringIO()
    args = SimpleNamespace(file=str(path), attacker=None, weapon=None, json=rng.random() < 0.5)
    if enc.tokens and rng.random() < 0.5:
        args.attacker = rng.choice(enc.tokens).id
    _step("analyze", lambda: run_analyze(args, out=out), refusal_ok=True, file_name=None)
    _step("analyze output", lambda: out.getvalue().encode("utf-8"), refusal_ok=False)  # as stdout would
    _app()
    from gui.snapshot import Snapshot, SnapshotSpec

    target = work / rng.choice(["out.svg", "out.svg", "out.png"])

    def export():
        with Snapshot(enc, SnapshotSpec(view=rng.choice(["gm", "player"])), path=path) as snap:
            snap.write(target)

    _step("export", export, refusal_ok=True)


def make_encounter(rng: random.Random, work: Path) -> tuple[Path, str]:
    """A mutated demo encounter file in ``work`` and what was done to it."""
    demo, data = rng.choice(_demos())
    m = JsonMutator(data, rng).mutate()
    raw = m.text().encode("utf-8", "surrogatepass")
    if rng.random() < 0.1:
        raw = mutate_bytes(raw, rng)
    path = work / _name(rng, ".json")
    path.write_bytes(raw)
    return path, f"{demo}: {'; '.join(m.applied)[:300]}"


def encounter_case(rng: random.Random, work: Path) -> str:
    from engine.files import load_encounter

    path, detail = make_encounter(rng, work)
    input_made()
    name = path.name
    try:
        enc = _step("load", lambda: load_encounter(path), refusal_ok=True, file_name=name)
        _analyze_and_export(path, enc, rng, work)
        _roundtrip(enc, work / ("saved-" + name))
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    return detail


# -- Universal VTT maps --------------------------------------------------------------------
@lru_cache(maxsize=None)
def _uvtt() -> tuple[tuple[str, dict], ...]:
    return tuple((p.name, json.loads(p.read_text(encoding="utf-8"))) for p in sorted((SAMPLES / "uvtt").iterdir()))


def _long_wall(m: JsonMutator, rng: random.Random) -> None:
    walls = m.data.get("line_of_sight") if isinstance(m.data, dict) else None
    if not isinstance(walls, list):
        return
    n = rng.choice([1000, 20_000, 100_000])
    x0, y0 = rng.uniform(0, 10), rng.uniform(0, 10)
    wall = [{"x": x0 + i * 0.01, "y": y0 + (i % 2) * 0.01} for i in range(n)]
    walls.append(wall)
    m.applied.append(f"wall of {n} points")


def make_uvtt(rng: random.Random, work: Path) -> tuple[Path, str]:
    """A mutated Universal VTT sample in ``work`` and what was done to it."""
    sample, data = rng.choice(_uvtt())
    m = JsonMutator(data, rng)
    if rng.random() < 0.1:
        _long_wall(m, rng)
    m.mutate()
    raw = m.text().encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:
        raw = mutate_bytes(raw, rng)
    path = work / _name(rng, Path(sample).suffix)
    path.write_bytes(raw)
    return path, f"{sample}: {'; '.join(m.applied)[:300]}"


def uvtt_case(rng: random.Random, work: Path) -> str:
    from engine.importers.uvtt import import_uvtt

    path, detail = make_uvtt(rng, work)
    input_made()
    name = path.name
    try:
        enc, _report = _step("import", lambda: import_uvtt(path), refusal_ok=True, file_name=name)
        _roundtrip(enc, work / "imported.json")
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    return detail


# -- Chummer saves ---------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _chummer() -> tuple[tuple[str, ET.Element], ...]:
    return tuple((p.name, ET.fromstring(p.read_bytes())) for p in sorted((SAMPLES / "chummer").iterdir()))


def make_chummer(rng: random.Random, work: Path) -> tuple[Path, str]:
    """A mutated Chummer sample in ``work`` and what was done to it."""
    sample, root = rng.choice(_chummer())
    raw, applied = mutate_xml(root, rng)
    if rng.random() < 0.1:
        raw = mutate_bytes(raw, rng)
    path = work / _name(rng, ".chum5")
    path.write_bytes(raw)
    return path, f"{sample}: {'; '.join(applied)[:300]}"


def _place_and_roundtrip(token, work: Path) -> None:
    """Place an imported character on the demo encounter (as ``import-character --into``
    does), then save and reload it (:func:`_roundtrip`)."""
    from assets import demo_encounter_path
    from engine.files import load_encounter
    from engine.importers.chummer import add_character

    enc = load_encounter(demo_encounter_path())
    enc, _placed = _step("place", lambda: add_character(enc, token), refusal_ok=True)
    _roundtrip(enc, work / "with-character.json")


def chummer_case(rng: random.Random, work: Path) -> str:
    from engine.importers.chummer import import_chummer

    path, detail = make_chummer(rng, work)
    input_made()
    name = path.name
    try:
        token, _rep = _step("import", lambda: import_chummer(path), refusal_ok=True, file_name=name)
        _place_and_roundtrip(token, work)
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    return detail


# -- images --------------------------------------------------------------------------------------
_APP = []


def _app():
    if not _APP:
        from gui.export import ensure_app

        _APP.append(ensure_app(offscreen=True))
    return _APP[0]


def make_image(rng: random.Random, work: Path) -> tuple[Path, str]:
    """A damaged or hostile image file in ``work`` and what it is."""
    data, what = mutate_image(png(rng.choice([1, 16, 64]), rng.choice([1, 16, 48])), rng)
    path = work / _name(rng, rng.choice([".png", ".jpg"]))
    path.write_bytes(data)
    return path, f"{what} ({len(data)} bytes)"


def image_case(rng: random.Random, work: Path) -> str:
    """A damaged or hostile image used as a map background, as a file beside the encounter
    (what the window's Background image command does) and as a ``data:`` URI (what an import
    holds): refused with the file named, or shown, saved and shown again."""
    _app()
    from engine.model import Background, Encounter, MapSpec
    from gui.map_view import load_background_image

    path, detail = make_image(rng, work)
    input_made()
    name, data = path.name, path.read_bytes()
    try:
        def choose():  # gui.main_window.set_background_image, headless
            from gui.pictures import read_picture_file

            img, why = read_picture_file(path)  # (the window's bounded reader)
            if img is None:
                from engine.errors import CoverfireError

                raise CoverfireError(f"{path} {why}")
            return img

        mode = rng.choice(["file", "data"])
        if mode == "file":
            _step("choose background", choose, refusal_ok=True, file_name=name)
            image = name
        else:
            from engine.importers.images import check_image, data_uri, size_problem

            def held():
                from engine.errors import ImportFileError

                info = check_image(data)
                problem = info.problem or size_problem(info)
                if problem:
                    raise ImportFileError(problem, file=name)
                return data_uri(data, info.format)

            image = _step("check image", held, refusal_ok=True, file_name=name)
        enc = Encounter(name="image", map=MapSpec(width=20, height=15,
                                                  background=Background(image=image, width=20, height=15)))
        doc = work / "with-image.json"
        back = _roundtrip(enc, doc)
        img, why = _step("show", lambda: load_background_image(back, doc), refusal_ok=False)
        if img is None:
            raise Outcome("unreopenable", f"show: {why}")
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    return detail


# -- Foundry scenes -------------------------------------------------------------------------------
def foundry_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("engine.importers.foundry") is not None


@lru_cache(maxsize=None)
def _foundry() -> tuple[tuple[str, dict], ...]:
    """The scenes of the Foundry importer's tests (v10+ and v9 field names), and the same
    with many walls (a scene the size of a real one)."""
    from tests.engine.importers.test_foundry import v9_scene, v10_scene

    big = v10_scene()
    big["walls"] = [{"c": [300 + 10 * i, 250, 300 + 10 * i, 650], "move": 20, "sight": 20, "door": i % 7 == 0}
                    for i in range(100)] + big["walls"]
    return (("v10 scene", v10_scene()), ("v9 scene", v9_scene()), ("v10 scene, 100 walls", big))


def _many_walls(m: JsonMutator, rng: random.Random) -> None:
    walls = m.data.get("walls") if isinstance(m.data, dict) else None
    if not isinstance(walls, list):
        return
    n = rng.choice([1000, 20_000, 100_000])
    walls.extend({"c": [300 + i % 1000, 200 + i // 1000, 301 + i % 1000, 201 + i // 1000], "move": 20, "sight": 20}
                 for i in range(n))
    m.applied.append(f"{n} more walls")


def make_foundry(rng: random.Random, work: Path) -> tuple[Path, str]:
    """A mutated Foundry scene export in ``work`` and what was done to it."""
    sample, data = rng.choice(_foundry())
    m = JsonMutator(data, rng)
    if rng.random() < 0.1:
        _many_walls(m, rng)
    m.mutate()
    raw = m.text().encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:
        raw = mutate_bytes(raw, rng)
    path = work / _name(rng, ".json")
    path.write_bytes(raw)
    return path, f"{sample}: {'; '.join(m.applied)[:300]}"


def foundry_case(rng: random.Random, work: Path) -> str:
    from engine.importers.detect import import_file

    path, detail = make_foundry(rng, work)
    input_made()
    name = path.name
    try:
        result = _step("import", lambda: import_file(path, expect="map"), refusal_ok=True, file_name=name)
        _roundtrip(result.encounter, work / "scene.json")
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    return detail


# -- issue 25: nothing a file can do --------------------------------------------------------------
#: Every open of a path holding this name is recorded (an audit hook): the "secret" local
#: picture a hostile file points at lives outside the input's folder.
SECRET_NAME = "coverfire-secret.png"
_OPENED: list[str] = []


def _audit(event: str, args) -> None:
    if event == "open" and args and isinstance(args[0], (str, bytes)) and SECRET_NAME in str(args[0]):
        _OPENED.append(str(args[0]))


def _secret(work: Path) -> tuple[Path, Path]:
    """(the input's folder ``work/in``, the secret picture ``work/outside/coverfire-secret.png``)."""
    from tests.fuzz.mutate import red_png

    if not getattr(_secret, "hooked", False):
        import sys

        sys.addaudithook(_audit)
        _secret.hooked = True
    (work / "in").mkdir(parents=True, exist_ok=True)
    (work / "outside").mkdir(parents=True, exist_ok=True)
    secret = work / "outside" / SECRET_NAME
    secret.write_bytes(red_png())
    _OPENED.clear()
    return work / "in", secret


def _pulled_in(secret: Path, *, texts=(), images=()) -> str | None:
    """Why the secret picture was pulled in (opened by Python, its bytes in a text, its red
    in a picture), or None."""
    import base64 as b64

    if _OPENED:
        return f"opened {_OPENED[0]}"
    raw = secret.read_bytes()
    needle = b64.b64encode(raw).decode()[:40]
    for t in texts:
        if t and needle in t:
            return "its bytes are in the result"
    for img in images:
        if img is not None and _has_red(img):
            return "its red is in the picture drawn"
    return None


def _has_red(img) -> bool:
    """Whether ``img`` holds the planted secret's pure red. A copy Qt cannot make (it says
    "QImage: out of memory" and hands back a null image) is a ``MemoryError``, which the
    runner counts as memory and runs again alone: seed 2901's worker died at case 3,629 on
    a null copy here, its address space full after 3,628 cases."""
    import numpy as np
    from PySide6.QtGui import QImage

    a = img.convertToFormat(QImage.Format.Format_RGB888)
    if a.isNull() and not img.isNull():
        raise MemoryError(f"no memory for a {img.width()}x{img.height()} copy of the picture drawn")
    w, h, bpl = a.width(), a.height(), a.bytesPerLine()
    px = np.frombuffer(a.constBits(), np.uint8).reshape(h, bpl)[:, : 3 * w].reshape(h, w, 3)
    return bool(((px[..., 0] > 200) & (px[..., 1] < 60) & (px[..., 2] < 60)).any())


def make_picture(rng: random.Random, work: Path) -> tuple[Path, str]:
    """A hostile SVG picture (bombs, local hrefs) in ``work/in`` as a map's background and a
    token's picture, and the encounter that names it."""
    from tests.fuzz.mutate import svg_picture

    folder, secret = _secret(work)
    data, what = svg_picture(rng, str(secret))
    pic = folder / rng.choice(["art.svg", "art.svgz", "art.png"])
    pic.write_bytes(data)
    _demo, d = rng.choice(_demos())
    d = json.loads(json.dumps(d))
    where = rng.choice(["background", "portrait", "both"])
    if where in ("background", "both"):
        d["map"]["background"] = {"image": pic.name, "x": 0, "y": 0, "width": d["map"]["width"],
                                  "height": d["map"]["height"]}
    if where in ("portrait", "both") and d.get("tokens"):
        d["tokens"][0]["portrait"] = pic.name
    path = folder / _name(rng, ".json")
    path.write_text(json.dumps(d), encoding="utf-8")
    return path, f"{what} as {where}"


def picture_case(rng: random.Random, work: Path) -> str:
    """An SVG picture (bomb, entity bomb, local href, ...) as a background and a token's
    picture: the window's picture reader answers within its bounds, and the export is drawn
    (the picture left out with a warning when refused); the secret local file never shows."""
    _app()
    from engine.files import load_encounter
    from gui.picture_loader import PictureSource, loader
    from gui.snapshot import Snapshot, SnapshotSpec

    path, detail = make_picture(rng, work)
    input_made()
    secret = work / "outside" / SECRET_NAME
    try:
        enc = _step("load", lambda: load_encounter(path), refusal_ok=True, file_name=path.name)
        refs = [(r, False) for r in [enc.map.background.image if enc.map.background else None] if r]
        refs += [(t.portrait, True) for t in enc.tokens if t.portrait]

        def read(ref, portrait):  # (as the window reads them: its picture loader, which the export asks again)
            key, pic = loader().request(PictureSource(ref, path, portrait=portrait))
            if pic is None:
                loader().wait([key])
                pic = loader().result(key)
            return pic.image

        shown = [_step("read picture", lambda: read(r, p), refusal_ok=False) for r, p in refs]
        target = path.parent / rng.choice(["out.png", "out.svg"])

        def export():
            with Snapshot(enc, SnapshotSpec(view=rng.choice(["gm", "player"])), path=path) as snap:
                snap.write(target)
                return snap.warnings

        _step("export", export, refusal_ok=True)
        why = _step("look for the secret in what was drawn", lambda: _pulled_in(
            secret, texts=[target.read_text("latin-1") if target.suffix == ".svg" else ""], images=shown),
            refusal_ok=False)
        if why:
            raise Outcome("local", f"the secret local picture was pulled in: {why}")
        _roundtrip(enc, path.parent / "saved.json")
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    return detail


def _foundry_picture_fields(data: dict, ref: str, rng: random.Random) -> list[str]:
    """Point picture fields of a Foundry scene (parsed JSON) at ``ref``, each chosen or not:
    ``img`` (v9), ``background.src`` (v10-v13), ``levels[].background.src`` (v14), each token's
    ``texture.src`` or ``img``; at least one. The fields set, as JSON paths."""
    fields = []
    choices = ["img", "background", "levels", "tokens"]
    picked = [c for c in choices if rng.random() < 0.5] or [rng.choice(choices)]
    if "img" in picked:
        data["img"] = ref
        fields.append("$.img")
    if "background" in picked:
        bg = data.get("background") if isinstance(data.get("background"), dict) else {}
        data["background"] = dict(bg, src=ref)
        fields.append("$.background.src")
    if "levels" in picked:
        data["levels"] = [{"_id": "L1", "name": "Ground", "background": {"src": ref}, "textures": {}}]
        fields.append("$.levels[0].background.src")
    if "tokens" in picked:
        tokens = [t for t in data.get("tokens", []) if isinstance(t, dict)] or [
            {"name": "Spy", "x": 100, "y": 100, "width": 1, "height": 1}]
        for t in tokens[:3]:
            if rng.random() < 0.5:
                t["texture"] = dict(t.get("texture") if isinstance(t.get("texture"), dict) else {}, src=ref)
                fields.append("token texture.src")
            else:
                t.pop("texture", None)
                t["img"] = ref
                fields.append("token img")
        data["tokens"] = tokens
    return fields


def make_localpath(rng: random.Random, work: Path) -> tuple[Path, str]:
    """A Universal VTT map or a Foundry scene in ``work/in`` (or a folder below it) whose
    picture fields point at the secret local file outside that folder (``../``, absolute,
    ``file://``, URL-encoded, backslashes, or a path relative to a folder above, which a
    reader walking up would find); or, one case in ten, at an SVG picture inside the folder
    whose ``<image href>`` points at the secret."""
    from tests.fuzz.mutate import local_refs, svg_picture

    folder, secret = _secret(work)
    if rng.random() < 0.3:
        folder = folder / "a" / "b"
        folder.mkdir(parents=True)
    ref = local_refs(str(secret), rng)
    via = ""
    if rng.random() < 0.1:  # a picture inside the folder, which itself points at the secret
        svg = b""
        while b"<image" not in svg:
            svg, _what = svg_picture(rng, str(secret))
        (folder / "art.svg").write_bytes(svg)
        via = f" (art.svg: {_what})"
        ref = "art.svg"
    if rng.random() < 0.5:
        sample, data = rng.choice(_uvtt())
        data = dict(data, image=ref)
        path = folder / _name(rng, Path(sample).suffix)
        path.write_text(json.dumps(data), encoding="utf-8")
        return path, f"{sample}: $.image = {ref}{via}"
    sample, data = rng.choice(_foundry())
    data = json.loads(json.dumps(data))
    fields = _foundry_picture_fields(data, ref, rng)
    path = folder / _name(rng, ".json")
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, f"{sample}: {', '.join(fields)} = {ref}{via}"


def localpath_case(rng: random.Random, work: Path) -> str:
    """A map whose pictures point outside its folder: imported (the report says the picture
    was not read), saved (nothing written of the secret), reloaded; the secret is never
    opened, its bytes are in no file written, and (when the map holds an SVG picture) its red
    is in no picture drawn of the map."""
    from engine.importers.detect import import_file

    path, detail = make_localpath(rng, work)
    input_made()
    secret = work / "outside" / SECRET_NAME
    try:
        result = _step("import", lambda: import_file(path, expect="map"), refusal_ok=True, file_name=path.name)
        enc = result.encounter
        saved = path.parent / "scene.json"
        back = _roundtrip(enc, saved)
        shown = []
        if "art.svg" in detail:  # (draw what the map holds, as the window would)
            _app()
            from gui.map_view import load_image_ref

            refs = [back.map.background.image if back.map.background else None] + [t.portrait for t in back.tokens]
            for r in [r for r in refs if r]:
                img, _why = _step("read picture", lambda: load_image_ref(r, saved, "Picture", "left out"),
                                  refusal_ok=False)
                shown.append(img)
        files = [p for p in path.parent.rglob("*") if p.is_file() and p != path]
        texts = [p.read_text("latin-1") for p in files]
        why = _step("look for the secret in what was drawn", lambda: _pulled_in(secret, texts=texts, images=shown),
                    refusal_ok=False)
        if why or any(p.read_bytes() == secret.read_bytes() for p in files):
            raise Outcome("local", f"the secret local picture was pulled in: {why or 'copied beside the encounter'}")
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    return detail


def make_tinymap(rng: random.Random, work: Path) -> tuple[Path, str]:
    """A demo encounter with a tiny or huge map (and maybe the biggest tokens on it)."""
    from tests.fuzz.mutate import map_size

    demo, data = rng.choice(_demos())
    data = json.loads(json.dumps(data))
    what = map_size(data, rng)
    path = work / _name(rng, ".json")
    work.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, f"{demo}: {what}"


def tinymap_case(rng: random.Random, work: Path) -> str:
    """A tiny or huge map: refused at load naming its size, or loaded (its size and its
    tokens' places and sizes as written: a load has no way to warn, so any change is a
    silent one), analysed, exported (PNG or SVG, GM or player view), saved and reloaded."""
    from engine.files import load_encounter

    path, detail = make_tinymap(rng, work)
    input_made()
    try:
        enc = _step("load", lambda: load_encounter(path), refusal_ok=True, file_name=path.name)
        data = json.loads(path.read_text(encoding="utf-8"))
        for key in ("width", "height"):
            if getattr(enc.map, key) != data["map"][key]:
                raise Outcome("silent", f"$.map.{key}: {data['map'][key]!r} in the file was read as "
                                        f"{getattr(enc.map, key)!r}")
        read = {t.id: t for t in enc.tokens}
        for i, t in enumerate(data.get("tokens", [])):
            got = read.get(t.get("id"))
            for key in ("x", "y", "radius"):
                if got is not None and key in t and getattr(got, key) != t[key]:
                    raise Outcome("silent", f"$.tokens[{i}].{key}: {t[key]!r} in the file was read as "
                                            f"{getattr(got, key)!r}")
        _analyze_and_export(path, enc, rng, work)
        _roundtrip(enc, work / ("saved-" + path.name))
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    return detail


@lru_cache(maxsize=None)
def _scalar_fields() -> dict[str, str]:
    """Field name -> ``bool``, ``int`` or ``float`` for every scalar field of the encounter's
    models (and the systems' sheets and settings) whose name means one type everywhere."""
    import typing

    from pydantic import BaseModel

    from engine import model, rules

    seen: dict[str, set] = {}
    todo = [model.Encounter]
    for s in rules.systems():
        todo += [s.Sheet, s.Settings]
    done = set()
    while todo:
        m = todo.pop()
        if m in done:
            continue
        done.add(m)
        for name, f in m.model_fields.items():
            stack = [f.annotation]
            while stack:
                tp = stack.pop()
                args = typing.get_args(tp)
                if isinstance(tp, type) and not args and issubclass(tp, BaseModel):  # (3.10: tuple[X, ...] is a type)
                    todo.append(tp)
                elif tp in (bool, int, float):
                    seen.setdefault(f.alias or name, set()).add(tp.__name__)
                stack.extend(a for a in args if a is not type(None) and a is not Ellipsis)
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


def make_coerce(rng: random.Random, work: Path) -> tuple[Path, str, list]:
    from tests.fuzz.mutate import coerce

    demo, data = rng.choice(_demos())
    data = json.loads(json.dumps(data))
    done = coerce(data, rng, _scalar_fields())
    work.mkdir(parents=True, exist_ok=True)
    path = work / _name(rng, ".json")
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, f"{demo}: " + "; ".join(f"{_json_loc(l)}: {o!r} -> {n!r}" for l, o, n in done), done


def _json_loc(loc: tuple) -> str:
    from engine.limits import json_path

    return json_path(loc)


def coerce_case(rng: random.Random, work: Path) -> str:
    """A demo with values a lax model would coerce (``1`` for true, ``"10"`` for 10.0,
    ``false`` for 0, ``5.0`` for 5): refused naming the path, or (when the value is not a
    model's) kept as written; a value changed into another type without a word is "silent"."""
    from engine.files import encounter_to_data, load_encounter

    path, detail, done = make_coerce(rng, work)
    input_made()
    try:
        enc = _step("load", lambda: load_encounter(path), refusal_ok=True, file_name=path.name)
        dumped = encounter_to_data(enc)
        for loc, _old, new in done:
            try:
                got = _get(dumped, loc)
            except (KeyError, IndexError, TypeError):
                continue  # (not kept where it was: dropped with its object, or simplified away)
            if type(got) is not type(new) or got != new:
                raise Outcome("silent", f"{_json_loc(loc)}: {new!r} in the file was read as {got!r}")
        _roundtrip(enc, work / ("saved-" + path.name))
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    return detail


def _get(root, loc):
    for k in loc:
        root = root[k]
    return root


def make_attributes(rng: random.Random, work: Path) -> tuple[Path, str, list]:
    from tests.fuzz.mutate import attribute_out_of_range

    sample, root = rng.choice(_chummer())
    values = [(e, e.text) for e in root.iterfind("attributes/attribute/totalvalue")]
    try:  # (the shared sample is changed and put back: a deep copy of it was 40% of a case)
        done = attribute_out_of_range(root, rng)
        raw = ET.tostring(root)
    finally:
        for e, text in values:
            e.text = text
    work.mkdir(parents=True, exist_ok=True)
    path = work / _name(rng, ".chum5")
    path.write_bytes(raw)
    return path, f"{sample}: " + ", ".join(f"{k} {v}" for k, v in done), done


def attributes_case(rng: random.Random, work: Path) -> str:
    """A Chummer save with attributes outside 0-50: refused (Agility below 1) naming the
    file, or imported with each changed attribute said in the report; placed, saved, reloaded."""
    from engine.importers.chummer import ATTRIBUTE_FIELDS, import_chummer

    path, detail, done = make_attributes(rng, work)
    input_made()
    try:
        token, rep = _step("import", lambda: import_chummer(path), refusal_ok=True, file_name=path.name)
        sheet = token.rules.get("sr5")
        for k, v in done:
            got = getattr(sheet, ATTRIBUTE_FIELDS[k])
            said = any(f"attribute {k} is {v}" in w.message for w in rep.warnings)
            if got != v and not said:
                raise Outcome("silent", f"{k} {v} in the save became {got} without a word")
            note = next((n for n in rep.summary if n.startswith("attributes ")), "")
            if f"{k} {got}" not in note:
                raise Outcome("silent", f"the report says {note!r}, the sheet holds {k} {got}")
        _place_and_roundtrip(token, work)
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    return detail


def make_bomb(rng: random.Random, work: Path) -> tuple[Path, str]:
    """A small file that would build a great deal: a ``.chum5lz`` of many elements, an
    encounter, a Universal VTT map or a Foundry scene listing millions of values."""
    from engine import limits
    from engine.importers import chummer_file, uvtt
    from tests.fuzz.mutate import chummer_bomb, values_bomb

    work.mkdir(parents=True, exist_ok=True)
    which = rng.choice(["chummer", "encounter", "uvtt", "foundry"])
    if which == "chummer":
        data, what = chummer_bomb(rng, chummer_file.MAX_ELEMENTS)
        path = work / _name(rng, ".chum5lz")
        path.write_bytes(data)
        return path, what
    if which == "encounter":
        demo, d = rng.choice(_demos())
        text, what = values_bomb(json.dumps(d), rng, limits.MAX_JSON_ITEMS)
        path = work / _name(rng, ".json")
    elif which == "uvtt":
        sample, d = rng.choice(_uvtt())
        d = dict(d)
        d.pop("image", None)
        text, what = values_bomb(json.dumps(d), rng, uvtt.MAX_JSON_ITEMS,
                                 key=rng.choice(["fuzz_other_tool", "objects_line_of_sight_extra"]))
        path = work / _name(rng, Path(sample).suffix)
    else:
        sample, d = rng.choice(_foundry())
        text, what = values_bomb(json.dumps(d), rng, limits.MAX_JSON_ITEMS)
        path = work / _name(rng, ".json")
    path.write_text(text, encoding="utf-8")
    return path, f"{which}: {what}"


def bomb_case(rng: random.Random, work: Path) -> str:
    """A bomb under the file-size caps: refused with the bound named, or (just under the
    bounds) read, saved and reloaded, within the campaign's CPU and memory limits."""
    from engine.files import load_encounter
    from engine.importers.chummer import import_chummer
    from engine.importers.detect import import_file

    path, detail = make_bomb(rng, work)
    input_made()
    name = path.name
    try:
        if path.suffix == ".chum5lz":
            _step("import", lambda: import_chummer(path), refusal_ok=True, file_name=name)
        elif detail.startswith("encounter"):
            enc = _step("load", lambda: load_encounter(path), refusal_ok=True, file_name=name)
            _roundtrip(enc, work / "saved.json")
        else:
            result = _step("import", lambda: import_file(path, expect="map"), refusal_ok=True, file_name=name)
            _roundtrip(result.encounter, work / "saved.json")
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    return detail


# -- concurrent writers --------------------------------------------------------------------------
#: Wall seconds the writers of one concurrent case may take together before it counts as hung.
WRITERS_TIMEOUT = 25.0


def make_concurrent(rng: random.Random, work: Path) -> tuple[Path, str, list[Path], tuple | None]:
    """An encounter file and two to five Chummer saves (each a different character, one in
    six damaged) to add to it at once; (the encounter, what, the saves, the spot all are
    placed at or None)."""
    demo, data = rng.choice(_demos())
    work.mkdir(parents=True, exist_ok=True)
    target = work / _name(rng, ".json")
    target.write_text(json.dumps(data), encoding="utf-8")
    saves, what = [], []
    for i in range(rng.choice([2, 2, 3, 4, 5])):
        sample, root = rng.choice(_chummer())
        alias = root.find("alias")
        added = alias is None
        if added:
            alias = ET.SubElement(root, "alias")
        old, alias.text = alias.text, f"Writer {i} {rng.randrange(10**6)}"
        try:  # (the shared sample is changed and put back: no deep copy of it)
            raw = ET.tostring(root)
            if rng.random() < 1 / 6:
                raw, applied = mutate_xml(root, rng)
                what.append(f"{sample} damaged ({'; '.join(applied)[:80]})")
            else:
                what.append(sample)
        finally:
            alias.text = old
            if added:
                root.remove(alias)
        save = work / f"writer-{i}.chum5"
        save.write_bytes(raw)
        saves.append(save)
    at = (rng.uniform(1, 10), rng.uniform(1, 10)) if rng.random() < 0.3 else None
    return target, f"{demo} + {len(saves)} writers at once{' at one spot' if at else ''}: {', '.join(what)}", saves, at


def _writer(save: Path, target: Path, at, delay: float, gate: int, result: Path) -> int:
    """A forked ``coverfire import-character SAVE --into TARGET``: waits for the gate, then
    writes; 0 and its token's id in ``result``, 3 refused (said on standard error), 4 a bug."""
    import contextlib
    import re
    import sys
    import time as _time

    from engine.errors import CoverfireError
    from engine.importers.detect import run_import_character

    os = __import__("os")
    os.read(gate, 1)  # (closed by the parent: every writer is released at once)
    _time.sleep(delay)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            run_import_character(SimpleNamespace(file=str(save), into=str(target), side=None,
                                                 at=list(at) if at else None))
    except CoverfireError as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 3
    except BaseException:  # noqa: BLE001 - a bug: its traceback goes to the case's standard error
        traceback.print_exc()
        return 4
    added = re.search(r"^Added .* as '(.*)' at ", out.getvalue(), re.M)
    result.write_text(added.group(1) if added else "?", encoding="utf-8")
    return 0


def concurrent_case(rng: random.Random, work: Path) -> str:
    """Two to five ``import-character --into`` of one encounter at once (forked processes
    released together, each a few ms apart): every writer adds its character or says why not,
    and the file holds every character added (a lost one is a silent change), reopens, and
    keeps no lock or temporary file."""
    import os
    import signal
    import sys

    from engine.files import load_encounter

    target, detail, saves, at = make_concurrent(rng, work)
    before = {t.id for t in load_encounter(target).tokens}
    delays = [rng.choice([0.0, 0.0, 0.001, 0.005, 0.02]) for _ in saves]
    input_made()
    gate_r, gate_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pids = []
    try:
        for i, save in enumerate(saves):
            pid = os.fork()
            if pid == 0:  # the writer: never back into the worker's loop
                code = 4
                try:
                    os.close(gate_w)
                    code = _writer(save, target, at, delays[i], gate_r, work / f"writer-{i}.result")
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            pids.append(pid)
    finally:
        os.close(gate_r)
        os.close(gate_w)  # (go)
    codes = {}
    deadline = clock_now() + WRITERS_TIMEOUT
    while len(codes) < len(pids):
        for pid in pids:
            if pid not in codes:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    codes[pid] = os.waitstatus_to_exitcode(status)
        if len(codes) < len(pids):
            if clock_now() > deadline:
                for pid in pids:
                    if pid not in codes:
                        os.kill(pid, signal.SIGKILL)
                        os.waitpid(pid, 0)
                raise Outcome("hung", f"writers still running after {WRITERS_TIMEOUT:g} s [{detail}]")
            import time as _time

            _time.sleep(0.005)
    try:
        exits = [codes[p] for p in pids]
        if any(c < 0 for c in exits):
            raise Outcome("crashed", f"a writer died of signal {-min(exits)} (exits {exits})")
        if 4 in exits or any(c not in (0, 3) for c in exits):
            raise Outcome("crashed", f"a writer failed (exits {exits}; its traceback is on standard error)")
        enc = _step("reload", lambda: load_encounter(target), refusal_ok=False, fail="unreopenable")
        ids = {t.id for t in enc.tokens}
        added = [(work / f"writer-{i}.result").read_text(encoding="utf-8") for i, c in enumerate(exits) if c == 0]
        lost = [a for a in added if a not in ids]
        if lost or len(ids) != len(before) + len(added) or not before <= ids:
            raise Outcome("silent", f"writers said they added {added}, the file holds {len(ids)} tokens "
                                    f"({len(before)} before): lost {lost or sorted(before - ids)} (exits {exits})")
        left = sorted(p.name for p in target.parent.iterdir() if p.name.startswith(".") and p.is_file())
        if left:
            raise Outcome("unsavable", f"left behind {left} (exits {exits})")
    except Outcome as o:
        o.detail = f"{o.detail} [{detail}]"
        raise
    if not any(c == 0 for c in exits):
        raise Outcome("refused", f"every writer refused (exits {exits}) [{detail}]")
    return f"{detail}; exits {exits}"


def clock_now() -> float:
    from engine import clock

    return clock.now()


# -- kinds that fail on purpose: the classification itself is tested with them ---------------
def _selftest_hang(rng, work):
    while True:  # computing forever (the CPU-time limit); a blocked case meets the wall backstop
        pass


def _selftest_blocked(rng, work):
    import time

    while True:  # blocked, not computing: the wall-time backstop
        time.sleep(1)


def _selftest_memory(rng, work):
    return len(bytearray(2 << 30))  # over the worker's 1 GiB


def _selftest_crash(rng, work):
    from engine.files import loads_encounter

    loads_encounter("{}", file=None)
    raise KeyError("a bug")


def _selftest_stderr(rng, work):
    """Answers "accepted", but a child process it started prints a traceback (as the stray
    charge planner of issue 25 item 9 did after an export)."""
    import os

    pid = os.fork()
    if pid == 0:
        os.write(2, b"Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
                    b"ValueError: a stray child's error\n")
        os._exit(0)
    os.waitpid(pid, 0)
    return "a child printed a traceback"


_LEAKED = []


def _selftest_leak(rng, work):
    """Keeps 600 MiB of address space (untouched) each case: the second in one worker runs
    out of its 1 GiB; alone, each passes."""
    _LEAKED.append(bytearray(600 << 20))
    return f"holding {len(_LEAKED) * 600} MiB"


def _selftest_rss(rng, work):
    """Answers "accepted" after touching 300 MiB (the worker measures the case's peak)."""
    block = b"\x01" * (300 << 20)
    return f"touched {len(block) >> 20} MiB"


class _Escape(BaseException):
    """What no case's ``except`` catches: the worker itself dies of it (exit 1)."""


def _selftest_exit(rng, work):
    raise _Escape("the worker's own end")


def _selftest_segfault(rng, work):
    import os
    import signal

    os.kill(os.getpid(), signal.SIGSEGV)


KINDS = {"encounter": encounter_case, "uvtt": uvtt_case, "chummer": chummer_case, "foundry": foundry_case,
         "image": image_case,
         # issue 25: nothing a file can do
         "picture": picture_case, "localpath": localpath_case, "tinymap": tinymap_case, "coerce": coerce_case,
         "attributes": attributes_case, "bomb": bomb_case, "concurrent": concurrent_case}
SELFTEST = {"selftest-hang": _selftest_hang, "selftest-blocked": _selftest_blocked,
            "selftest-memory": _selftest_memory,
            "selftest-crash": lambda rng, work: _step("crash", lambda: _selftest_crash(rng, work), refusal_ok=False),
            "selftest-segfault": _selftest_segfault, "selftest-exit": _selftest_exit, "selftest-stderr": _selftest_stderr,
            "selftest-rss": _selftest_rss, "selftest-leak": _selftest_leak}
KIND_LABELS = {
    "encounter": "encounter file → load → analyze → export → save → reload",
    "uvtt": "Universal VTT map → import → save → reload",
    "chummer": "Chummer save → import → place → save → reload",
    "foundry": "Foundry scene → import → save → reload",
    "image": "image → background (file or data: URI) → save → reload → show",
    "picture": "SVG picture (bombs, local hrefs) → background and token picture → read → export → save",
    "localpath": "map whose pictures point outside its folder → import → save → reload",
    "tinymap": "tiny or huge map → load → analyze → export → save → reload",
    "coerce": "encounter with values to coerce (1 for true, \"10\" for 10) → load → save → reload",
    "attributes": "Chummer save with attributes outside 0-50 → import → place → save → reload",
    "bomb": "bomb under the size caps (chum5lz, encounter, map, scene) → read → save → reload",
    "concurrent": "2-5 import-character --into one encounter at once → reload: none lost",
}


MAKERS = {"encounter": make_encounter, "uvtt": make_uvtt, "chummer": make_chummer, "foundry": make_foundry,
          "image": make_image, "picture": make_picture, "localpath": make_localpath, "tinymap": make_tinymap,
          "coerce": lambda rng, work: make_coerce(rng, work)[:2],
          "attributes": lambda rng, work: make_attributes(rng, work)[:2], "bomb": make_bomb,
          "concurrent": lambda rng, work: make_concurrent(rng, work)[:2]}


def make_input(case: str, work: Path) -> tuple[Path, str]:
    """The input file of case ``case`` (the same as :func:`run_case` makes), in ``work``."""
    work.mkdir(parents=True, exist_ok=True)
    return MAKERS[case.split(":")[1]](random.Random(case), work)


def run_case(case: str, work: Path) -> tuple[str, str]:
    """Run the case named ``case`` (``"SEED:KIND:INDEX"``) in ``work`` (emptied after);
    returns (outcome, detail)."""
    kind = case.split(":")[1]
    rng = random.Random(case)
    work.mkdir(parents=True, exist_ok=True)
    try:
        detail = {**KINDS, **SELFTEST}[kind](rng, work)
        return "accepted", detail
    except Outcome as o:
        return o.outcome, o.detail
    except MemoryError:
        return "memory", "MemoryError while making the case"
    finally:
        shutil.rmtree(work, ignore_errors=True)
        _deferred_deletes()


def _deferred_deletes() -> None:
    """Delete what the case handed to Qt's ``deleteLater`` (a snapshot's offscreen view), as
    the program's event loop would: a worker runs none, and 40 SVG exports kept 22 MB of
    views alive (the tinymap kind's "memory" cases of seed 2602 were that, 11 of 10,000)."""
    if _APP:
        from PySide6.QtCore import QCoreApplication, QEvent

        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
