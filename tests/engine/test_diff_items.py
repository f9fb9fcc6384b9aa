"""engine.diff.changed_items: the items an edit replaced, added or removed, by identity."""

from engine.diff import changed_items, changed_positions


class Item:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):  # equal values are still different objects to changed_items
        return isinstance(other, Item) and other.name == self.name

    __hash__ = object.__hash__


def names(found):
    return None if found is None else ([o.name for o in found[0]], [o.name for o in found[1]])


ITEMS = tuple(Item(f"o{i}") for i in range(10))


def test_appended_removed_replaced_and_nothing():
    w = Item("wall")
    assert names(changed_items(ITEMS, ITEMS + (w,), 5)) == ([], ["wall"])
    assert names(changed_items(ITEMS + (w,), ITEMS, 5)) == (["wall"], [])
    middle = ITEMS[:4] + ITEMS[5:]
    assert names(changed_items(ITEMS, middle, 5)) == (["o4"], [])
    door = ITEMS[:3] + (Item("o3"),) + ITEMS[4:]  # an equal value, a new object
    assert names(changed_items(ITEMS, door, 5)) == (["o3"], ["o3"])
    two = (Item("a"),) + ITEMS[1:8] + (Item("b"),) + ITEMS[9:]
    assert names(changed_items(ITEMS, two, 5)) == (["o0", "o8"], ["a", "b"])
    assert names(changed_items(ITEMS, ITEMS[:], 5)) == ([], [])
    assert names(changed_items((), ITEMS[:2], 5)) == ([], ["o0", "o1"])


def test_too_many_changes_give_none():
    fresh = tuple(Item(o.name) for o in ITEMS)
    assert changed_items(ITEMS, fresh, 5) is None
    assert names(changed_items(ITEMS, fresh, 10)) == ([o.name for o in ITEMS], [o.name for o in ITEMS])
    assert changed_items(ITEMS[:2], ITEMS[:2] + tuple(Item(str(i)) for i in range(30)), 5) is None


def test_changed_positions_are_the_indices_replaced_in_place():
    moved = ITEMS[:2] + (Item("o2"),) + ITEMS[3:7] + (Item("o7"),) + ITEMS[8:]
    assert changed_positions(ITEMS, moved, 16) == [2, 7]
    assert changed_positions(ITEMS, moved, 1) is None  # more than the limit
    assert changed_positions(ITEMS, ITEMS[:9], 16) is None  # not one length
    assert changed_positions(ITEMS, ITEMS, 16) == []
    assert names(changed_items(ITEMS, moved)) == (["o2", "o7"], ["o2", "o7"])  # no limit

