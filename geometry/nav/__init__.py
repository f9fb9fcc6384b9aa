"""Movement on the map (``geometry.nav``): shortest paths, charge plans, shoves and grapple drags.

Pure geometry (Shapely 2 + numpy): metres, x east, y south, directions in degrees with 0 east
and 90 south. A body is a disc of radius ``r``; it may stand wherever its disc does not
overlap an obstacle's footprint, another body's disc or the map edge. ``docs/movement.md``
explains the method, the defaults and the measured speed; in short:

* Every footprint is grown by the mover's radius (Minkowski sum with a regular
  :data:`SIDES`-gon drawn *around* the circle of radius ``r``, turned to the footprint's
  longest edge): the grown shape contains the true rounded one, so a path that clears it
  clears the real wall; sides are offset by exactly ``r``, corners by at most
  ``r / cos(pi / SIDES)``. The grown shapes are merged.
* The visibility graph's nodes are the convex corners of the merged shapes; an edge joins two
  corners when the segment between them is tangent at both ends (only such segments can be
  part of a shortest path) and crosses no grown shape. Candidate pairs are found per bin of
  line directions from a table of thin cells (no geometry); the segments are then tested all
  at once against the prepared merged shape. It is built once per obstacle set and radius
  (rounded to the centimetre) and kept in the :class:`Navigator`. In dense scenes each
  corner's edges are limited to a reach set by the local density of corners (about
  ``2 * PAIR_BUDGET / corners`` corners in its wedges), and paths found are pulled taut.
* A query adds the start, the goal and -- only when they turn out to be in the way -- the
  corners of other bodies' discs (grown the same way), and runs A*.
* :func:`plan_charge` finds the shortest path whose last leg is a straight run-up at the
  target (free bearings found exactly, finishes checked lazily, cheapest first; with a
  movement allowance the search and the bodies it looks at stay within it);
  :func:`slide` moves a disc straight until it touches something (exact);
  :func:`drag_path` moves two linked bodies like a short train.

Errors are :mod:`geometry.errors` types (``ValueError`` subclasses).

One module per idea: :mod:`~geometry.nav.values` (results, defaults, input checks),
:mod:`~geometry.nav.graph` (the visibility graph), :mod:`~geometry.nav.search` (a query and
A*), :mod:`~geometry.nav.navigator`, :mod:`~geometry.nav.charge`, :mod:`~geometry.nav.contact`
(shove and grapple).
"""

from geometry.nav.charge import ChargeFrom, plan_charge, plan_charges
from geometry.nav.contact import drag_path, slide
from geometry.nav.navigator import Navigator
from geometry.nav.values import (
    PAIR_BUDGET,
    SIDES,
    START_REACH,
    TOUCH,
    TREE_AFTER,
    ChargePlan,
    DragResult,
    PathResult,
    SlideResult,
)

__all__ = [
    "PAIR_BUDGET", "SIDES", "START_REACH", "TOUCH", "TREE_AFTER", "ChargePlan", "DragResult",
    "ChargeFrom", "Navigator", "PathResult", "SlideResult", "drag_path", "plan_charge", "plan_charges", "slide",
]
