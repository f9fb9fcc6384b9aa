"""Save and autosave of a big map reuse the texts of the values an edit kept (the document's
EncounterText, made ahead after the open): the file is exactly the ordinary save's, and the
autosave recovers to the same encounter."""

from __future__ import annotations

import json

from bench.scene import make_scene
from engine.files import dumps_encounter, encounter_from_data, load_encounter
from gui import edits
from gui.document import WARM_FROM


def test_a_big_maps_save_and_autosave_reuse_what_the_edit_kept(window, qtbot, tmp_path):
    enc = make_scene(4, tokens=50, obstacles=WARM_FROM + 200)
    doc = window.document
    doc.set_content(enc, None)
    assert doc._warm.isActive()
    qtbot.waitUntil(lambda: not doc._warm.isActive(), timeout=20000)
    n = len(enc.obstacles) + len(enc.tokens) + len(enc.zones)
    assert len(doc.file_text._kept) == n  # (every value's text made ahead)
    # a door-like edit: one obstacle raised
    o = enc.obstacles[3]
    doc.commit(edits.replace(enc, o.model_copy(update={"height": o.height + 1.0})), "Raise")
    path = tmp_path / "big.json"
    assert window.save_as(path)
    assert doc.file_text.reused == n - 1
    assert path.read_text(encoding="utf-8") == dumps_encounter(doc.committed)
    assert load_encounter(path).obstacles[3].height == o.height + 1.0
    # the autosave: the same encounter comes back
    doc.commit(edits.replace(doc.committed, doc.committed.tokens[0].model_copy(update={"name": "Moved"})), "Rename")
    window.autosaver.tick()
    wrapper = json.loads(window.autosaver.file.read_text(encoding="utf-8"))
    back = encounter_from_data(wrapper["encounter"])
    assert back == doc.committed
    assert wrapper["source"] == str(path)
