"""Finding objects of a long tuple by id without scanning it each time.

An encounter keeps its obstacles, tokens and zones in tuples; an edit makes new tuples with
all but a few items where they were (a drag step: a 10,000-obstacle map, one obstacle
replaced). :class:`IdIndex` remembers where each id was in the last tuple it indexed and
checks an answer in the tuple asked about (``objects[i].id == ident``), so most look-ups of
a new tuple cost nothing; only an id not found in its old place nor among the last few
items (one just added) makes it index the new tuple (~2 ms for 10,000 obstacles, where a scan for the last of them took ~1-2 ms each
time: a wall drawn was looked up seven times in one event-loop turn).

The indexes are safe to share between threads: a look-up only ever returns an object that
has the id asked for in the tuple asked about, and an index is replaced whole, never changed
in place. Ids are unique in a valid encounter (its validation refuses a repeated one).
"""

from __future__ import annotations

#: Tuples shorter than this are scanned (a dictionary would cost more than it saves).
INDEX_FROM = 32
#: The last items of a tuple looked at for an id not in its old place before indexing it.
APPENDED = 4


class IdIndex:
    """Where objects are in a tuple of them, by id, kept across edits (see the module)."""

    def __init__(self) -> None:
        self._state: tuple[tuple | None, dict[str, int]] = (None, {})  # (the tuple indexed, id -> position)

    def _index(self, objects: tuple) -> dict[str, int]:
        pos: dict[str, int] = {}
        for i, o in enumerate(objects):
            pos.setdefault(o.id, i)  # (the first of a repeated id, as a scan finds it)
        self._state = (objects, pos)
        return pos

    def find(self, objects: tuple, ident: str):
        """The object of ``objects`` with id ``ident``, or None."""
        i = self.position(objects, ident)
        return None if i is None else objects[i]

    def position(self, objects: tuple, ident: str) -> int | None:
        """Where in ``objects`` the (first) object with id ``ident`` is, or None."""
        if len(objects) < INDEX_FROM:
            for k, o in enumerate(objects):
                if o.id == ident:
                    return k
            return None
        indexed, pos = self._state
        i = pos.get(ident)
        if i is not None and i < len(objects) and objects[i].id == ident:
            return i
        if indexed is objects:
            return None
        if i is None and indexed is not None:  # an id the last tuple did not have: one just added?
            n = len(objects)
            for k in range(max(0, n - APPENDED), n):  # (a wall drawn, a token placed: at the end)
                if objects[k].id == ident:
                    return k
        return self._index(objects).get(ident)

    def picked(self, objects: tuple, want) -> list:
        """The objects whose id is in ``want``, in their order in ``objects``."""
        indexed, pos = self._state
        n = len(objects)
        found = [i for w in want if (i := pos.get(w)) is not None and i < n and objects[i].id == w]
        if len(found) != len(want) and indexed is not objects:
            pos = self._index(objects)
            found = [pos[w] for w in want if w in pos]
        return [objects[i] for i in sorted(set(found))]
