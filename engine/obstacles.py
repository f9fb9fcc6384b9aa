"""The blocking obstacles of an encounter and the indexes over them, kept up to date edit by
edit: the cover index (:class:`geometry.cover.CoverIndex`) and the movement graphs
(:class:`geometry.nav.Navigator`).

A GM's edits touch one obstacle at a time (a door opened, a crate dragged, a corner moved, a
wall drawn, an undo), so :meth:`ObstacleSet.update` finds the obstacles that changed -- by
identity first: an edited encounter shares every other obstacle value with the one before --
and hands only those to the indexes (:meth:`CoverIndex.edited`, :meth:`Navigator.edited`),
which update the part of them near the change instead of rebuilding. Many changes at once (a
new map) rebuild from scratch.
"""

from __future__ import annotations

import itertools

import numpy as np
import shapely

from engine.diff import changed_items
from engine.errors import GeometryError
from engine.model import Obstacle
from geometry.cover import CoverIndex
from geometry.errors import GeometryInputError

#: An update that changes more obstacles than this share of them (and more than
#: ``REBUILD_MIN`` of them) rebuilds the indexes instead of editing them.
REBUILD_SHARE = 0.2
REBUILD_MIN = 64

#: Height of a wall, metres: full height, above a standing body (1.8 m,
#: :data:`geometry.bodies.STANCE_BODY`), so it hides anyone behind it (full cover) and sight
#: does not pass over it. The Wall tool draws walls this tall unless the GM says otherwise,
#: and imported maps' walls and doors are this tall. Low cover (a crate) is about 1 m.
WALL_HEIGHT = 3.0

_SERIAL = itertools.count(1)


def flat_footprints(obstacles) -> tuple[np.ndarray, np.ndarray]:
    """The obstacles' outlines as flat arrays: points per outline, and all points (n, 2)."""
    obstacles = list(obstacles)
    counts = np.fromiter((len(o.polygon) for o in obstacles), dtype=np.int64, count=len(obstacles))
    xy = np.fromiter((v for o in obstacles for p in o.polygon for v in p), dtype=float,
                     count=2 * int(counts.sum())).reshape(-1, 2)
    return counts, xy


def footprints(obstacles) -> list[shapely.Polygon]:
    """Shapely polygons of the obstacles' footprints (metres), made in one vectorized call."""
    obstacles = list(obstacles)
    if not obstacles:
        return []
    return polygons_from_flat(*flat_footprints(obstacles))


def polygons_from_flat(counts: np.ndarray, xy: np.ndarray) -> list[shapely.Polygon]:
    """Polygons from :func:`flat_footprints` arrays."""
    if len(counts) == 0:
        return []
    # close each ring: its first point again after its last
    n = len(counts)
    first = np.cumsum(counts) - counts
    ring = np.repeat(np.arange(n), counts + 1)
    pos = np.arange(len(ring)) - np.repeat(first + np.arange(n), counts + 1)
    idx = first[ring] + np.where(pos < counts[ring], pos, 0)
    rings = shapely.linearrings(xy[idx], indices=ring)
    return list(shapely.polygons(rings))


class ObstacleSet:
    """The blocking obstacles (``Obstacle.blocks``) of the encounter last given to
    :meth:`update`, their footprints, the cover index over them and (built on first use)
    the movement graphs. ``revision`` counts the changes of the blocking set."""

    def __init__(self) -> None:
        self.serial = next(_SERIAL)  # tells sets apart (a snapshot keeps its original's)
        self.obstacles: tuple | None = None
        self.bounds: tuple | None = None
        self.cover: CoverIndex | None = None
        self.revision = 0
        self.rebuilds = 0  # full builds (the rest were edits)
        self._by_id: dict[str, tuple[Obstacle, shapely.Polygon]] = {}
        self._dups = False  # ids used twice (a file edited by hand): every change rebuilds
        self._nav = None
        self._nav_edits: list = []  # edits not applied to the navigator yet (see navigator)
        self._origin: ObstacleSet | None = None  # the set this one is a snapshot of
        self._changes: dict[int, tuple | None] = {}  # revision -> box it changed (None: all)
        self._log: dict[int, tuple | None] = {}  # revision -> (removed ids, added obstacles) (None: rebuilt)

    @property
    def has_duplicate_ids(self) -> bool:
        """Whether two blocking obstacles share an id (a file edited by hand): every change
        then rebuilds, and nothing can be edited by id (a charge process keeps no copy)."""
        return self._dups

    # -- the obstacles in index order -----------------------------------------------------------
    @property
    def blocking(self) -> list[Obstacle]:
        return [o for o, _ in self._by_id.values()]

    @property
    def polygons(self) -> list[shapely.Polygon]:
        return [p for _, p in self._by_id.values()]

    # -- updates --------------------------------------------------------------------------------
    def update(self, obstacles: tuple, bounds: tuple[float, float, float, float]) -> bool:
        """Take the encounter's obstacles and map bounds; True when the blocking obstacles
        (or the bounds, for the movement graphs) changed. Raises
        :class:`engine.errors.GeometryError` for a footprint the geometry refuses."""
        if bounds != self.bounds:
            self._nav = None
            self.bounds = bounds
            nav_reset = True
        else:
            nav_reset = False
        old = self.obstacles
        if old is not None and obstacles is old:
            return nav_reset
        try:
            changed = self._apply(old, obstacles)
        except GeometryInputError as exc:
            raise GeometryError(str(exc)) from None
        self.obstacles = obstacles
        return changed or nav_reset

    def _apply(self, old: tuple | None, new: tuple) -> bool:
        if old is None or self._dups:
            self._rebuild(new)
            return True
        # the obstacle values that differ, by identity (an edit keeps every other value)
        gone, came = changed_items(old, new)
        if len(old) == len(new):
            if len({o.id for o in gone}) != len(gone) or {o.id for o in gone} != {o.id for o in came}:
                gone, came = self._by_id_diff(old, new)
        elif len({o.id for o in gone}) != len(gone) or len({o.id for o in came}) != len(came):
            gone, came = self._by_id_diff(old, new)
        remove = [o.id for o in gone if o.id in self._by_id and self._by_id[o.id][0] is o]
        add = [o for o in came if o.blocks]
        # a value that changed in nothing the indexes see (a name, hidden; or the same
        # obstacle validated again into a new value) is no change
        removing = set(remove)
        same = {o.id for o in add if o.id in removing and _same_shape(self._by_id[o.id][0], o)}
        for o in add:
            if o.id in same:
                self._by_id[o.id] = (o, self._by_id[o.id][1])
        remove = [i for i in remove if i not in same]
        add = [o for o in add if o.id not in same]
        if not remove and not add:
            return False
        if len(remove) + len(add) > max(REBUILD_MIN, REBUILD_SHARE * max(len(self._by_id), 1)) \
                or len({o.id for o in add}) != len(add):
            self._rebuild(new)
            return True
        polys = footprints(add)
        self._by_id_removed = {}
        for i in remove:
            self._by_id_removed[i] = self._by_id.pop(i)[1]
        for o, p in zip(add, polys):
            if o.id in self._by_id:  # (an id used twice: let a rebuild sort it out)
                self._rebuild(new)
                return True
            self._by_id[o.id] = (o, p)
        old_polys = [p for p in (self._by_id_removed.pop(i) for i in remove)]
        self.cover = self.cover.edited(remove, polys, [o.height for o in add], [o.id for o in add])
        if self._nav is not None or self._nav_edits:
            # (applied when the navigator is next wanted: on the worker thread, for charges)
            self._nav_edits.append((remove, polys, [o.id for o in add]))
        self.revision += 1
        self._log[self.revision] = (list(remove), list(add))
        boxes = shapely.bounds(np.array(old_polys + polys, dtype=object))
        self._note(tuple(float(v) for v in (boxes[:, 0].min(), boxes[:, 1].min(), boxes[:, 2].max(),
                                            boxes[:, 3].max())))
        return True

    @staticmethod
    def _by_id_diff(old: tuple, new: tuple) -> tuple[list, list]:
        before = {o.id: o for o in old}
        after = {o.id: o for o in new}
        gone = [o for i, o in before.items() if after.get(i) is not o]
        came = [o for i, o in after.items() if before.get(i) is not o]
        return gone, came

    def _rebuild(self, obstacles: tuple) -> None:
        blocking = [o for o in obstacles if o.blocks]
        polys = footprints(blocking)
        by_id: dict = {}
        for o, p in zip(blocking, polys):
            by_id.setdefault(o.id, (o, p))
        self._dups = len(by_id) != len(blocking)
        if self._dups:  # ids used twice: index them all, by position
            by_id = {k: (o, p) for k, (o, p) in enumerate(zip(blocking, polys))}
        self._by_id = by_id
        self.cover = CoverIndex(polys, [o.height for o in blocking], list(by_id))
        self._nav = None
        self._nav_edits = []
        self.revision += 1
        self.rebuilds += 1
        self._note(None)

    def build_steps(self, obstacles: tuple, bounds: tuple[float, float, float, float], chunk: int = 1000):
        """On a new set (nothing given to :meth:`update` yet): take ``obstacles`` as
        ``update(obstacles, bounds)`` would, as a generator doing the work ``chunk``
        obstacles per step (their footprints, then the cover index grown by
        :meth:`CoverIndex.edited`), so that the GUI thread can let other events in between
        (a big map opened). Yields the share done (0..1]; once exhausted the set is as
        :meth:`update` leaves it (the same obstacles in the same order, the same answers).
        Raises :class:`engine.errors.GeometryError` as :meth:`update` does."""
        if self.obstacles is not None:
            raise ValueError("build_steps is for a new obstacle set")
        blocking = [o for o in obstacles if o.blocks]
        if len({o.id for o in blocking}) != len(blocking) or len(blocking) <= chunk:
            self.update(obstacles, bounds)  # (ids used twice, or small: one step)
            yield 1.0
            return
        by_id: dict = {}
        cover = None
        try:
            for k in range(0, len(blocking), chunk):
                part = blocking[k:k + chunk]
                polys = footprints(part)
                for o, p in zip(part, polys):
                    by_id[o.id] = (o, p)
                heights, labels = [o.height for o in part], [o.id for o in part]
                cover = CoverIndex(polys, heights, labels) if cover is None else cover.edited((), polys, heights, labels)
                if k + chunk < len(blocking):
                    yield (k + len(part)) / len(blocking)
        except GeometryInputError as exc:
            raise GeometryError(str(exc)) from None
        self.bounds = bounds
        self._nav = None
        self._nav_edits = []
        self._by_id = by_id
        self._dups = False
        self.cover = cover
        self.obstacles = obstacles
        self.revision += 1
        self.rebuilds += 1
        self._note(None)
        yield 1.0

    def _note(self, box: tuple | None) -> None:
        self._changes[self.revision] = box
        self._log.setdefault(self.revision, None)
        if len(self._changes) > 256:
            del self._changes[min(self._changes)]
            self._log.pop(min(self._log), None)

    def edits_since(self, revision: int) -> list[tuple] | None:
        """The edits after ``revision``, oldest first, as (removed ids, added obstacles); None
        when some change was a rebuild (or is too old to be known)."""
        out = []
        for r in range(revision + 1, self.revision + 1):
            e = self._log.get(r)
            if e is None:
                return None
            out.append(e)
        return out
    def changed_since(self, revision: int) -> list[tuple] | None:
        """The boxes (x0, y0, x1, y1, metres) holding every footprint that changed after
        ``revision`` (old and new places), or None when that is not known (a rebuild, a
        revision too old)."""
        out = []
        for r in range(revision + 1, self.revision + 1):
            box = self._changes.get(r)
            if box is None:
                return None
            out.append(box)
        return out

    # -- the movement graphs ------------------------------------------------------------------------
    @property
    def navigator(self):
        """The :class:`geometry.nav.Navigator` over the blocking obstacles and the map's edge
        (made on first use; its graphs are built on first use per body radius, or edited
        from the last built ones after an edit)."""
        if self._nav is not None and self._nav_edits:
            nav, edits = self._nav, self._nav_edits
            for remove, polys, ids in edits:
                nav = nav.edited(remove, polys, ids)
            self._nav, self._nav_edits = nav, []
            origin = self._origin
            if origin is not None and origin.revision == self.revision and origin._nav_edits is edits:
                origin._nav, origin._nav_edits = nav, []  # (the original keeps the edited one)
        if self._nav is None:
            from geometry.nav import Navigator

            try:
                nav = Navigator(self.polygons, self.bounds, ids=[o.id for o in self.blocking])
            except GeometryInputError as exc:
                raise GeometryError(str(exc)) from None
            self._nav = nav
            origin = self._origin
            if origin is not None and origin.revision == self.revision and origin.bounds == self.bounds \
                    and origin._nav is None:
                origin._nav = nav  # (made on another thread for a snapshot: the original keeps it)
        return self._nav

    def footprint(self, obstacle: Obstacle) -> shapely.Polygon | None:
        """The indexed footprint of this very obstacle value (by identity), or None when it
        is not in the set (not blocking, or another value)."""
        hit = self._by_id.get(obstacle.id)
        return hit[1] if hit is not None and hit[0] is obstacle else None

    def has_graph(self, radius: float) -> bool:
        """Whether the movement graph for this body radius is there already (built or made
        by editing), so that a path or charge costs no graph work."""
        nav = self._nav
        return nav is not None and not self._nav_edits and nav.has_graph(radius)

    def snapshot(self) -> "ObstacleSet":
        """A copy for another thread: the same (immutable) cover index and the same navigator
        (made there on first use and handed back to this set if it has not changed since).
        Updates of this set never change the copy."""
        out = ObstacleSet.__new__(ObstacleSet)
        out.__dict__.update(self.__dict__)
        out._by_id = dict(self._by_id)
        out._origin = self
        return out


def _same_shape(a: Obstacle, b: Obstacle) -> bool:
    return a.polygon == b.polygon and a.height == b.height and a.blocks == b.blocks
