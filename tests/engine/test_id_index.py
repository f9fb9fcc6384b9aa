"""engine.id_index.IdIndex: look-ups by id in long tuples that follow edits, checked against
a plain scan."""

from __future__ import annotations

from types import SimpleNamespace as O

from engine.id_index import INDEX_FROM, IdIndex


def items(n, prefix="o"):
    return tuple(O(id=f"{prefix}-{i}", v=i) for i in range(n))


def scan(objects, ident):
    return next((o for o in objects if o.id == ident), None)


def test_finds_what_a_scan_finds_across_edits():
    idx = IdIndex()
    a = items(1000)
    assert idx.find(a, "o-999") is a[999]
    assert idx.find(a, "nope") is None
    # one replaced in place (a corner moved): found in its old place, no new index
    b = a[:500] + (O(id="o-500", v=-1),) + a[501:]
    assert idx.find(b, "o-500") is b[500] and b[500].v == -1
    assert idx._state[0] is a  # (checked in place: not indexed again)
    # one added at the end (a wall drawn), then taken out again (its undo)
    c = b + (O(id="wall-1", v=0),)
    assert idx.find(c, "wall-1") is c[-1]
    assert idx._state[0] is a  # (found among the last items: not indexed again)
    assert idx.find(b, "wall-1") is None
    # one removed from the middle: every later one moved a place
    d = b[:10] + b[11:]
    for ident in ("o-9", "o-10", "o-11", "o-999", "wall-1"):
        assert idx.find(d, ident) is scan(d, ident)


def test_a_short_tuple_is_scanned_and_a_repeated_id_gives_the_first():
    idx = IdIndex()
    short = items(INDEX_FROM - 1)
    assert idx.find(short, f"o-{INDEX_FROM - 2}") is short[-1]
    assert idx._state[0] is None
    rep = items(100) + (O(id="o-3", v="second"),)
    assert idx.find(rep, "o-3") is rep[3]


def test_picked_keeps_the_tuples_order_and_drops_gone_ids():
    idx = IdIndex()
    a = items(200)
    assert [o.id for o in idx.picked(a, ["o-150", "o-2", "o-77"])] == ["o-2", "o-77", "o-150"]
    b = a[:100] + a[101:]  # o-100 deleted
    assert [o.id for o in idx.picked(b, ["o-100", "o-150"])] == ["o-150"]


def test_position_is_where_a_scan_finds_it_across_edits():
    idx = IdIndex()
    a = items(300)
    first = lambda objs, ident: next((k for k, o in enumerate(objs) if o.id == ident), None)  # noqa: E731
    b = a[:40] + a[41:]  # one removed: the later ones moved a place
    c = b + (O(id="wall", v=0),)
    for objs in (a, b, c, items(5)):
        for ident in ("o-0", "o-39", "o-40", "o-41", "o-299", "wall", "nope"):
            assert idx.position(objs, ident) == first(objs, ident)

