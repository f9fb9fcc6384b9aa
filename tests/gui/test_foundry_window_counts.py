"""The window imports a real Foundry world's scene as Foundry shows it (issue #28): the scene
list has the world's scenes (the last line of each _id, deleted ones gone) and the imported
scene has Foundry's walls, doors and lights, in the document and in the status line.
Counted apart from the importer, from the raw NeDB lines; skips without ../shared/outside."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QInputDialog

from tests.engine.importers.test_foundry_real_counts import OUTSIDE, raw_scenes


@pytest.mark.parametrize("db, scene", [
    ("foundry/zahi-cartography-maps.db", "OotA - Underground Stream"),
    ("foundry/coppertop/Data/modules/pla01-tmacm/packs/maps.db", "Coppertop Manor"),
])
def test_the_window_imports_the_scene_foundry_shows(window, monkeypatch, db, scene):
    path = OUTSIDE / db
    if not path.is_file():
        pytest.skip("../shared/outside is not beside this checkout")
    raws = raw_scenes(path)
    names = [str(d["name"]) for d in raws]
    raw = next(d for d in raws if d["name"] == scene)
    asked: list = []

    def get_item(parent, title, label, items, current=0, editable=False):
        asked.append(list(items))
        return next(x for x in items if x.endswith(raw["name"])), True

    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(get_item))
    window.document.set_content(window.document.encounter, None, dirty=False)
    k = window.importing.choose_scene(path)
    assert asked == [[f"{i + 1}. {n}" for i, n in enumerate(names)]]
    assert window.importing.import_map(path, scene=k)
    enc = window.document.encounter
    walls = raw["walls"]
    doors = [w for w in walls if w.get("door") in (1, 2)]
    assert enc.name == raw["name"]
    assert sum(o.door for o in enc.obstacles) == len(doors)
    assert sum("(locked)" in o.name for o in enc.obstacles if o.door) == sum(w.get("ds") == 2 for w in doors)
    assert len({li.foundry_light for li in enc.lights}) == len(raw["lights"])
    msg = window.statusBar().currentMessage()
    assert f"{len(walls)} Foundry walls ({len(doors)} doors: {len(doors)} on the map), {len(raw['lights'])} lights" \
        in msg
