"""Condition monitors: sizes, wound modifiers, damage with overflow, the state it leaves.

- Physical monitor 8 + ceil(Body / 2) boxes (+ ``physical_bonus_boxes``), Stun monitor
  8 + ceil(Willpower / 2) (+ ``stun_bonus_boxes``), overflow = Body boxes past the Physical
  monitor; more than that is death.
- Wound modifier: -1 per 3 full boxes on each track (``Options.wound_boxes``), the two added
  together; ``pain_tolerance`` boxes of each track are ignored. It applies to every test but
  damage resistance, and to Initiative.
- Stun past the Stun monitor carries into Physical: one Physical box per 2 excess Stun boxes
  (``Options.stun_overflow_ratio``, SR5 core; the seeds say nothing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.sr5.sheet import Options, Sheet


def physical_boxes(s: Sheet) -> int:
    """Boxes of the Physical monitor: 8 + ceil(Body / 2) + bonus (Body 5 -> 11)."""
    return max(1, 8 + math.ceil(s.body / 2) + s.physical_bonus_boxes)


def stun_boxes(s: Sheet) -> int:
    """Boxes of the Stun monitor: 8 + ceil(Willpower / 2) + bonus (Willpower 3 -> 10)."""
    return max(1, 8 + math.ceil(s.willpower / 2) + s.stun_bonus_boxes)


def overflow_boxes(s: Sheet) -> int:
    """Physical overflow: Body boxes past the Physical monitor before death."""
    return s.body


def wound_modifier(s: Sheet, options: Options | None = None) -> int:
    """Dice penalty from damage (<= 0): -1 per ``wound_boxes`` full boxes on each track,
    summed. Overflow boxes add nothing more (the track is full)."""
    per = (options or Options()).wound_boxes
    p = max(0, min(s.physical_damage, physical_boxes(s)) - s.pain_tolerance)
    st = max(0, min(s.stun_damage, stun_boxes(s)) - s.pain_tolerance)
    return -(p // per + st // per)


def status(s: Sheet) -> str:
    """``"ok"``, ``"unconscious"`` (a full track), ``"dying"`` (in physical overflow) or
    ``"dead"`` (past the overflow)."""
    over = s.physical_damage - physical_boxes(s)
    if over > overflow_boxes(s):
        return "dead"
    if over > 0:
        return "dying"
    if over == 0 or s.stun_damage >= stun_boxes(s):
        return "unconscious"
    return "ok"


def can_act(s: Sheet) -> bool:
    return status(s) == "ok"


@dataclass(frozen=True)
class DamageResult:
    """What applying damage did: boxes asked, boxes that landed on each track, the state."""

    boxes: int
    type: str
    physical_added: int
    stun_added: int
    stun_overflow: int  # excess Stun boxes that turned into Physical ones
    wound_before: int
    wound_after: int
    status: str

    def describe(self) -> str:
        if self.boxes <= 0:
            return "no damage"
        bits = []
        if self.stun_added:
            bits.append(f"{self.stun_added} Stun")
        if self.physical_added:
            bits.append(f"{self.physical_added} Physical")
        s = " and ".join(bits) or "no boxes"
        if self.stun_overflow:
            s += f" ({self.stun_overflow} Stun past the monitor)"
        if self.wound_after != self.wound_before:
            s += f"; wound modifier {self.wound_after:+d}"
        if self.status != "ok":
            s += f"; {self.status}"
        return s


def apply_damage(s: Sheet, boxes: int, damage_type: str, options: Options | None = None) -> tuple[Sheet, DamageResult]:
    """Mark ``boxes`` of ``damage_type`` ("P" or "S") on the sheet; excess Stun carries into
    Physical (``stun_overflow_ratio`` excess boxes per Physical box). Returns the new sheet and
    what happened. Physical damage may run into overflow; it is capped one box past death."""
    opts = options or Options()
    boxes = max(0, int(boxes))
    before = wound_modifier(s, opts)
    phys, stun = s.physical_damage, s.stun_damage
    overflow = 0
    if damage_type.upper() == "S":
        room = max(0, stun_boxes(s) - stun)
        stun += min(boxes, room)
        overflow = boxes - min(boxes, room)
        phys += overflow // opts.stun_overflow_ratio
    else:
        phys += boxes
    cap = physical_boxes(s) + overflow_boxes(s) + 1
    phys = min(phys, cap)
    new = s.model_copy(update={"physical_damage": phys, "stun_damage": stun})
    return new, DamageResult(
        boxes,
        damage_type.upper(),
        phys - s.physical_damage,
        stun - s.stun_damage,
        overflow,
        before,
        wound_modifier(new, opts),
        status(new),
    )


@dataclass(frozen=True)
class Monitor:
    """A token's condition at a glance (for the bars on the map): boxes filled and total of
    each track, overflow boxes used and available, the wound modifier and the state."""

    physical: int
    physical_boxes: int
    stun: int
    stun_boxes: int
    overflow: int
    overflow_boxes: int
    wound_modifier: int
    status: str


def monitor(s: Sheet, options: Options | None = None) -> Monitor:
    """The :class:`Monitor` of a sheet."""
    pb = physical_boxes(s)
    return Monitor(
        min(s.physical_damage, pb), pb, min(s.stun_damage, stun_boxes(s)), stun_boxes(s),
        max(0, s.physical_damage - pb), overflow_boxes(s), wound_modifier(s, options), status(s),
    )
