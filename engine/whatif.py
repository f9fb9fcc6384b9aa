"""Map facts for a position that is not the committed one, from one call.

    tac = what_if(encounter, moves=[MoveTo("sam", (12.0, 4.0))], tactics=shared)
    tac.targets("sam")          # cover, range, zones as if Sam stood there

The answer is a :class:`~engine.analysis.Tactics` of the hypothetical encounter (tokens
moved, zones put in or replaced, each zone validated), sharing the obstacle indexes of
``tactics`` when the obstacles are the same; ``tactics`` itself is never changed, so a
preview (a grenade's landing point, a drag in progress) cannot leave a shared object on the
wrong encounter.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import ValidationError

from engine.analysis import Tactics
from engine.errors import IllegalActionError
from engine.model import Encounter, Zone
from engine.names import zone_name
from engine.rules import MoveTo, move_tokens


def hypothetical(encounter: Encounter, moves: Iterable[MoveTo] = (), zones: Iterable[Zone] = ()) -> Encounter:
    """``encounter`` with ``moves`` made and ``zones`` put in (replacing those of the same
    id, else added); raises :class:`IllegalActionError` for a zone the file would refuse."""
    moves = tuple(moves)
    enc = move_tokens(encounter, moves) if moves else encounter
    zones = tuple(zones)
    if zones:
        checked = []
        for z in zones:
            try:
                checked.append(Zone.model_validate(z.model_dump(mode="python", round_trip=True)))
            except ValidationError as exc:
                why = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'zone'}: {e['msg']}" for e in exc.errors())
                raise IllegalActionError(f"{zone_name(z, encounter)}: {why}", ids=(z.id,)) from None
        by_id = {z.id: z for z in checked}
        kept = tuple(by_id.pop(z.id, z) for z in enc.zones)
        enc = enc.model_copy(update={"zones": kept + tuple(by_id.values())})
    return enc


def what_if(encounter: Encounter, *, moves: Iterable[MoveTo] = (), zones: Iterable[Zone] = (),
            tactics: Tactics | None = None) -> Tactics:
    """The :class:`Tactics` of :func:`hypothetical` ``(encounter, moves, zones)``: a fork of
    ``tactics`` (its obstacle indexes shared) when given, else a new one; ``tactics`` itself
    when nothing is hypothetical (it already answers for that very encounter). Read it only."""
    enc = hypothetical(encounter, moves, zones)
    if tactics is not None and enc is tactics.encounter:
        return tactics  # nothing hypothetical: its answers are already the ones asked for
    if tactics is not None:
        return tactics.fork(enc)
    return Tactics(enc)
