"""Which of a target's hit locations the map hides from a shooter, next to the stance table.

The d100 rules take the hidden locations from the target's stance (the seed's table). The
map can say otherwise: :func:`map_cover` splits the target's silhouette into the eight
locations (:mod:`geometry.locations`), asks the obstacle index how high each column is hidden
from the shooter's eye (:meth:`geometry.cover.CoverIndex.hidden_heights`), and reports both
answers and where they part, so the GM can pick one. A location counts as hidden on the map
when at least ``Settings.hidden_threshold`` (default 0.75) of its area is hidden.

Pass the answer the GM picks to an attack as ``TargetSpec(hidden=...)``:
``report.target_spec("map")`` or ``report.target_spec("table")``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.d100.actions import TargetSpec
from engine.d100.values import settings_of, sheet_of, stance_hidden
from engine.errors import GeometryError
from engine.model import Encounter
from engine.names import geometry_text
from geometry.bodies import body_height, eye_height
from geometry.errors import GeometryInputError
from geometry.locations import Box, hidden_fractions, hidden_locations, layout, right_side, sample_columns


@dataclass(frozen=True)
class MapCover:
    """The map's and the stance table's hidden locations of ``target`` seen by ``shooter``.

    ``fractions``: location -> hidden fraction of its area (0..1); ``map_hidden`` those at or
    above the threshold; ``table_hidden`` the stance row's; ``only_map`` / ``only_table`` the
    differences; ``agrees`` when there are none. ``map_full`` every location wholly hidden
    (no aiming by the map), ``table_full`` the stance is ``hiding``. For drawing: ``boxes``
    (metres in the silhouette, u + to the shooter's right), the profile ``u`` / ``hidden``
    (metres; inf = hidden at any height), ``side`` (+1: the body's right at +u)."""

    shooter: str
    target: str
    stance: str
    map_stance: str
    threshold: float
    fractions: dict[str, float]
    map_hidden: tuple[str, ...]
    table_hidden: tuple[str, ...]
    only_map: tuple[str, ...]
    only_table: tuple[str, ...]
    map_full: bool
    table_full: bool
    side: int
    boxes: tuple[Box, ...] = field(repr=False, default=())
    u: tuple[float, ...] = field(repr=False, default=())
    hidden: tuple[float, ...] = field(repr=False, default=())

    @property
    def agrees(self) -> bool:
        return not self.only_map and not self.only_table

    def target_spec(self, choice: str = "table", prefer: str = "chest", cover: int | None = None) -> TargetSpec:
        """The attack target with the hidden locations the GM picked (``"map"`` or
        ``"table"``)."""
        if choice not in ("map", "table"):
            raise ValueError(f"choice must be 'map' or 'table', got {choice!r}")
        hidden = self.map_hidden if choice == "map" else self.table_hidden
        return TargetSpec(self.target, prefer=prefer, hidden=hidden, cover=cover)


def map_cover(encounter: Encounter, shooter_id: str, target_id: str, tactics=None,
              per_box: int = 8) -> MapCover:
    """The map's hidden locations of ``target_id`` from ``shooter_id``'s eye, beside the
    stance table's. ``tactics`` (an :class:`engine.analysis.Tactics` of this encounter)
    reuses its obstacle index; without it one is built."""
    if tactics is None:
        from engine.analysis import Tactics

        tactics = Tactics(encounter)
    a = encounter.token(shooter_id)
    t = encounter.token(target_id)
    st = settings_of(encounter)
    ts = sheet_of(t)
    try:
        side = right_side((a.x, a.y), (t.x, t.y), t.facing)
        boxes = layout(t.stance, t.radius, body_height(t.stance), side)
        u = sample_columns(boxes, per_box)
        h = np.asarray(tactics.cover_index.hidden_heights((a.x, a.y), eye_height(a.stance), (t.x, t.y),
                                                          t.radius, u), dtype=float)
        fr = hidden_fractions(boxes, u, h, per_box)
    except GeometryInputError as e:
        raise GeometryError(geometry_text(e, encounter)) from None
    mh = hidden_locations(fr, st.hidden_threshold)
    th = stance_hidden(ts.stance, ts)
    return MapCover(
        shooter=shooter_id,
        target=target_id,
        stance=ts.stance,
        map_stance=t.stance,
        threshold=st.hidden_threshold,
        fractions=fr,
        map_hidden=mh,
        table_hidden=th,
        only_map=tuple(x for x in mh if x not in th),
        only_table=tuple(x for x in th if x not in mh),
        map_full=all(v >= 1.0 - 1e-9 for v in fr.values()),
        table_full=ts.stance == "hiding",
        side=side,
        boxes=boxes,
        u=tuple(u.tolist()),
        hidden=tuple(h.tolist()),
    )
