"""A new object's id is ``prefix-N`` with the smallest N no object of any kind uses: the first
candidates are looked up by the kept indexes (no set of a 10,000-obstacle map's ids built
for a wall drawn), the later ones against one set of every id; either way the same N."""

from __future__ import annotations

from bench.scene import make_scene
from engine import model


def with_ids(enc, obstacle_ids, token_ids=()):
    obs = tuple(o.model_copy(update={"id": i}) for o, i in zip(enc.obstacles, obstacle_ids)) + enc.obstacles[len(obstacle_ids):]
    toks = tuple(t.model_copy(update={"id": i}) for t, i in zip(enc.tokens, token_ids)) + enc.tokens[len(token_ids):]
    return enc.model_copy(update={"obstacles": obs, "tokens": toks})


def test_the_smallest_free_number_whichever_kind_holds_the_others():
    enc = make_scene(4, tokens=40, obstacles=300)
    # walls 1-3 and 5 are obstacles, wall-4 a token's id: the next wall is wall-6
    enc = with_ids(enc, ["wall-1", "wall-2", "wall-3", "wall-5"], ["wall-4"])
    assert enc.new_id("wall") == "wall-6"
    assert enc.new_id("door") == "door-1"


def test_past_the_looked_up_candidates_the_set_finds_the_same_number():
    n = model.NEW_ID_LOOKUPS
    enc = make_scene(4, tokens=40, obstacles=300)
    # every number up to n + 10 taken but n + 7 (among the obstacles) and 12 (a gap inside
    # the looked-up ones, taken by a token)
    taken = [f"crate-{k}" for k in range(1, n + 11) if k not in (12, n + 7)]
    enc = with_ids(enc, taken, ["crate-12"])
    assert enc.new_id("crate") == f"crate-{n + 7}"
    ids = enc.all_ids()
    k = 1
    while f"crate-{k}" in ids:
        k += 1
    assert f"crate-{k}" == f"crate-{n + 7}"
