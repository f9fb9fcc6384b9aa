"""what_if: map facts for a hypothetical position from one call, the shared Tactics untouched."""

from __future__ import annotations

import pytest

from engine.analysis import Tactics
from engine.errors import IllegalActionError
from engine.model import Encounter
from engine.rules import MoveTo
from engine.whatif import hypothetical, what_if


def _scene():
    # a 1 m thick wall 3 m tall from y=0 to y=10 between the shooter (0, 5) and the target
    return Encounter.model_validate({
        "map": {"width": 30, "height": 30},
        "obstacles": [{"id": "wall", "height": 3, "polygon": [[4, 0], [5, 0], [5, 10], [4, 10]]}],
        "tokens": [{"id": "s", "x": 1, "y": 5}, {"id": "t", "x": 10, "y": 5}],
        "zones": [{"id": "boom", "kind": "blast", "x": 10, "y": 5, "radius": 2}],
    })


def test_a_hypothetical_move_answers_there_and_leaves_the_shared_tactics_as_it_was():
    enc = _scene()
    shared = Tactics(enc)
    assert shared.cover("s")["t"].fraction == pytest.approx(1.0)  # behind the wall: hidden
    builds = shared.index_builds
    fork = what_if(enc, moves=[MoveTo("t", (10.0, 25.0))], tactics=shared)
    # to (10, 25) the line from (1, 5) crosses the wall's x = 4..5 at y = 5 + 20 * (3..4) / 9
    # = 11.7..13.9, past its end at y = 10 (and the 0.4 m disc's edges stay past it): in the open
    assert fork.cover("s")["t"].fraction == pytest.approx(0.0)
    assert fork.encounter.token("t").y == 25.0 and enc.token("t").y == 5.0
    assert shared.encounter is enc and shared.cover("s")["t"].fraction == pytest.approx(1.0)
    assert shared.index_builds == builds == fork.index_builds  # the obstacle index was shared, not rebuilt
    assert what_if(enc, tactics=shared) is shared  # nothing hypothetical: the same answers


def test_a_hypothetical_zone_is_checked_and_put_in_place():
    enc = _scene()
    moved = enc.zone("boom").model_copy(update={"x": 1.0, "y": 5.0})
    tac = what_if(enc, zones=[moved])
    hits = {h.id for h in tac.zone_hits()["boom"]}
    assert hits == {"s"}  # the 2 m circle at the shooter catches only the shooter
    assert [z.id for z in tac.encounter.zones] == ["boom"] and enc.zone("boom").x == 10.0
    with pytest.raises(IllegalActionError, match="Blast: radius") as refused:  # the zone by its name
        hypothetical(enc, zones=[enc.zone("boom").model_copy(update={"radius": -1.0})])
    assert refused.value.ids == ("boom",)


def test_a_blast_previewed_elsewhere_leaves_the_given_tactics_on_its_encounter():
    from engine.sr5.blast import blast_facts

    enc = _scene()
    shared = Tactics(enc)
    f = blast_facts(enc, "boom", "s", x=1.0, y=5.0, tactics=shared)
    assert {c.id for c in f.caught} == {"s"} and (f.x, f.y) == (1.0, 5.0)
    assert shared.encounter is enc and {h.id for h in shared.zone_hits()["boom"]} == {"t"}
