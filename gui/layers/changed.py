"""Which items of a long tuple an edit replaced, added or removed, found by identity.

An edit of the encounter keeps every value it does not touch (the same objects), so the
items that differ between the tuple before and after lie between their common prefix and
their common suffix (one wall drawn, undone, a door toggled). Both are found by C-level
``map(operator.is_not, ...)`` over the tuples: ~0.2 ms for 10,000 obstacles, where a dict
or a set of every id took 3-10 ms.
"""

from __future__ import annotations

import operator
from itertools import compress


def common_prefix(a, b) -> int:
    """How many leading items ``a`` and ``b`` share (the same objects)."""
    diff = list(map(operator.is_not, a, b))
    try:
        return diff.index(True)
    except ValueError:
        return len(diff)


def changed_items(old: tuple, new: tuple, limit: int) -> tuple[list, list] | None:
    """(items of ``old`` that are not in ``new``, items of ``new`` not in ``old``), by
    identity, in their order; None when more than ``limit`` items differ either way."""
    head = common_prefix(old, new)
    rest = min(len(old), len(new)) - head
    tail = common_prefix(reversed(old[head:]), reversed(new[head:])) if rest > 0 else 0
    mid_old, mid_new = old[head:len(old) - tail], new[head:len(new) - tail]
    if len(mid_old) == len(mid_new):  # items replaced in place (a corner, a door)
        keep = list(map(operator.is_not, mid_old, mid_new))
        gone, came = list(compress(mid_old, keep)), list(compress(mid_new, keep))
    else:
        if len(mid_old) > 4 * limit or len(mid_new) > 4 * limit:
            return None
        in_new, in_old = set(map(id, mid_new)), set(map(id, mid_old))
        gone = [o for o in mid_old if id(o) not in in_new]
        came = [o for o in mid_new if id(o) not in in_old]
    if len(gone) > limit or len(came) > limit:
        return None
    return gone, came
