"""Issue 16 items 1-2 on the map: the zone layer labels and draws the far end an enhanced or
flechette suppressive zone has (the shape is the engine's ``Tactics.zone_shape``)."""

from __future__ import annotations

from engine.model import Zone
from gui.layers.zones import zone_labels


def test_the_map_labels_the_narrowed_and_widened_far_ends():
    base = Zone(id="sup", kind="suppressive", x=0.0, y=0.0, direction=0.0, length=30.0)
    assert zone_labels(base, (0.0, 0.0))[0][2] == "10 m wide at 30 m"
    assert zone_labels(base.model_copy(update={"fire": "enhanced"}), (0.0, 0.0))[0][2] == "5 m wide at 30 m"
    wide = base.model_copy(update={"fire": "flechette", "choke": "wide", "length": 20.0})
    assert zone_labels(wide, (0.0, 0.0))[0][2] == "16 m wide at 20 m"


def test_the_window_draws_the_enhanced_zone_after_it_is_fired(window, qtbot):
    """The demo's suppressive zone, fired as enhanced fire and committed: the map's zone
    drawing narrows (its full path is 5 m across at the far end) and its label says so."""
    from engine.sr5.suppressive import SuppressiveDeclaration, apply_suppressive, plan_suppressive

    doc = window.document
    enc = doc.encounter
    sup = next(z for z in enc.zones if z.kind == "suppressive")
    plan = plan_suppressive(enc, SuppressiveDeclaration(sup.owner, sup.id, enhanced=True, weapon=sup.weapon))
    after, _ = apply_suppressive(enc, plan, None, force=True)
    assert after.zone(sup.id).fire == "enhanced"
    assert doc.commit(after, "enhanced suppressive fire")
    assert doc.encounter.zone(sup.id).fire == "enhanced"
    qtbot.waitUntil(lambda: window.map_view.zones.drawings()[sup.id].labels[0][2].startswith("5 m"), timeout=3000)
    d = window.map_view.zones.drawings()[sup.id]
    assert [lab[2] for lab in d.labels] == [f"5 m wide at {sup.length:g} m"]
    box = d.full.boundingRect()
    # the demo's zone points east: the far end spans 5 m in y (a 10 m one spanned 10)
    assert abs(sup.direction) < 1e-9 and box.height() == __import__("pytest").approx(5.0, abs=1e-6)
