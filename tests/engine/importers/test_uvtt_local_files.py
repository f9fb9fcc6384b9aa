"""Issue 25 item 4: a Universal VTT map's ``image`` given as a path is read only inside the
map file's own folder tree: ``../x.png``, an absolute path elsewhere, ``file:`` and ``~``
pull no local picture into the map, its folder or the exports (the image stays named in the
import's provenance, and the report says why it was not read)."""

from __future__ import annotations

import pytest

from engine.importers.images import path_inside, save_with_images
from engine.importers.uvtt import import_uvtt
from tests.engine.importers._helpers import png_bytes
from tests.engine.importers.test_uvtt import _map, _write


@pytest.fixture
def secret(tmp_path):
    """A picture outside the map's folder (``tmp_path/home/secret.png``) and the map's
    folder (``tmp_path/maps``)."""
    (tmp_path / "home").mkdir()
    p = tmp_path / "home" / "secret.png"
    p.write_bytes(png_bytes(4, 3))
    (tmp_path / "maps" / "sub").mkdir(parents=True)
    return p


@pytest.mark.parametrize("ref", ["../home/secret.png", "sub/../../home/secret.png", "ABS", "file://ABS",
                                 "~/secret.png", "..\\home\\secret.png"])
def test_a_path_out_of_the_folder_reads_nothing(tmp_path, secret, ref):
    ref = ref.replace("ABS", str(secret))
    enc, rep = import_uvtt(_write(tmp_path / "maps", _map(image=ref)))
    assert enc.map.background is None
    assert [w.where for w in rep.warnings] == ["$.image"]
    assert "only inside the map file's own folder" in rep.warnings[0].message
    assert enc.imported["image_path"] == ref  # (kept: nothing is lost)
    _saved, written = save_with_images(enc, tmp_path / "maps" / "out.json")
    assert written == []
    assert secret.read_bytes() not in (tmp_path / "maps" / "out.json").read_bytes()


def test_paths_inside_the_folder_are_read(tmp_path, secret):
    maps = tmp_path / "maps"
    (maps / "sub" / "cellar.png").write_bytes(png_bytes(4, 3))
    for ref in ("sub/cellar.png", "./sub/cellar.png", str(maps / "sub" / "cellar.png")):
        enc, rep = import_uvtt(_write(maps, _map(image=ref)))
        assert rep.ok and enc.map.background.image.startswith("data:image/png"), ref


def test_path_inside_answers_why():
    assert path_inside("../x.png", "/srv/maps") == (None, "it leads out of the file's own folder (..)")
    assert path_inside("/etc/x.png", "/srv/maps")[1].startswith("it is an absolute path outside")
    assert path_inside("http://a/x.png", "/srv/maps")[1] == "it is an address, not a path beside the file"
    assert str(path_inside("a/b.png", "/srv/maps")[0]) == "/srv/maps/a/b.png"


def test_a_foundry_scene_outside_a_data_folder_reads_no_absolute_path_above_it(tmp_path, secret):
    """Issue 25 item 4, found by the campaign (2501:localpath:24): a scene file outside any
    Foundry data folder looked for absolute paths up to seven folders above it (a scene in
    ~/Downloads read /home/gm/...). Absolute paths count only inside its own folder now."""
    from engine.importers.foundry import find_beside

    base = tmp_path / "maps"
    assert find_beside(str(secret), base) is None
    (base / "sub" / "inside.png").write_bytes(png_bytes(4, 3))
    assert find_beside(str(base / "sub" / "inside.png"), base) == (base / "sub" / "inside.png").resolve()


def test_a_foundry_scene_outside_a_data_folder_reads_no_relative_path_above_it(tmp_path, secret):
    """Issue 25 item 4, found by the fuzz campaign's localpath kind (a relative path to a
    file beside one of the folders above): a scene in ``maps/sub/`` naming ``home/secret.png``
    found ``tmp_path/home/secret.png`` by walking up (a scene in ~/Downloads/x/ naming
    Documents/private.png read ~/Documents). Outside a Foundry data folder a scene reads
    pictures under its own folder only; the report says where it looked."""
    import json

    from engine.importers.detect import import_file
    from engine.importers.foundry import find_beside
    from tests.engine.importers.test_foundry import v10_scene

    base = tmp_path / "maps" / "sub"
    assert find_beside("home/secret.png", base) is None
    assert find_beside("secret.png", base) is None
    scene = v10_scene()
    scene["background"] = {"src": "home/secret.png"}
    scene["tokens"] = [{"name": "Spy", "x": 100, "y": 100, "width": 1, "height": 1,
                        "texture": {"src": "home/secret.png"}}]
    path = base / "scene.json"
    path.write_text(json.dumps(scene), encoding="utf-8")
    r = import_file(path, expect="map")
    assert r.encounter.map.background is None
    assert all(t.portrait is None for t in r.encounter.tokens)
    warning = next(w for w in r.report.warnings if w.where == "$.background.src")
    assert warning.message == (f"the background 'home/secret.png' is not beside the file (looked for in {base}); "
                               "the map has no picture until one is set")
    # inside the folder it is found, as before
    (base / "home").mkdir()
    (base / "home" / "secret.png").write_bytes(png_bytes(4, 3))
    assert find_beside("home/secret.png", base) == (base / "home" / "secret.png").resolve()
