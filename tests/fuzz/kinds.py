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
OUTCOMES = ("refused", "accepted", "crashed", "hung", "memory", "unsavable", "unreopenable", "unnamed")
GOOD = ("refused", "accepted")
LABELS = {
    "refused": "refused cleanly",
    "accepted": "accepted, round-trips",
    "crashed": "crashed",
    "hung": "hung > 10 s CPU",
    "memory": "memory > 1 GiB",
    "unsavable": "cannot be saved",
    "unreopenable": "cannot be reopened / reopens different",
    "unnamed": "refused without naming the file",
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


def chummer_case(rng: random.Random, work: Path) -> str:
    from engine.files import load_encounter
    from engine.importers.chummer import add_character, import_chummer
    from assets import demo_encounter_path

    path, detail = make_chummer(rng, work)
    input_made()
    name = path.name
    try:
        token, _rep = _step("import", lambda: import_chummer(path), refusal_ok=True, file_name=name)
        enc = load_encounter(demo_encounter_path())
        enc, _placed = _step("place", lambda: add_character(enc, token), refusal_ok=True)
        _roundtrip(enc, work / "with-character.json")
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
    from PySide6.QtGui import QImage

    from engine.model import Background, Encounter, MapSpec
    from gui.map_view import is_regular_file, load_background_image, why_not_an_image

    path, detail = make_image(rng, work)
    input_made()
    name, data = path.name, path.read_bytes()
    try:
        def choose():  # gui.main_window.set_background_image, headless
            img = QImage(str(path)) if is_regular_file(path) else QImage()
            if img.isNull():
                from engine.errors import CoverfireError

                raise CoverfireError(f"{path} {why_not_an_image(path)}")
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


# -- kinds that fail on purpose: the classification itself is tested with them ---------------
def _selftest_hang(rng, work):
    while True:  # computing forever (the CPU-time limit); a blocked case meets the wall backstop
        pass


def _selftest_memory(rng, work):
    return len(bytearray(2 << 30))  # over the worker's 1 GiB


def _selftest_crash(rng, work):
    from engine.files import loads_encounter

    loads_encounter("{}", file=None)
    raise KeyError("a bug")


def _selftest_segfault(rng, work):
    import os
    import signal

    os.kill(os.getpid(), signal.SIGSEGV)


KINDS = {"encounter": encounter_case, "uvtt": uvtt_case, "chummer": chummer_case, "foundry": foundry_case,
         "image": image_case}
SELFTEST = {"selftest-hang": _selftest_hang, "selftest-memory": _selftest_memory,
            "selftest-crash": lambda rng, work: _step("crash", lambda: _selftest_crash(rng, work), refusal_ok=False),
            "selftest-segfault": _selftest_segfault}
KIND_LABELS = {
    "encounter": "encounter file → load → analyze → export → save → reload",
    "uvtt": "Universal VTT map → import → save → reload",
    "chummer": "Chummer save → import → place → save → reload",
    "foundry": "Foundry scene → import → save → reload",
    "image": "image → background (file or data: URI) → save → reload → show",
}


MAKERS = {"encounter": make_encounter, "uvtt": make_uvtt, "chummer": make_chummer, "foundry": make_foundry,
          "image": make_image}


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
