"""Edge actions a GM uses in a gunfight (SR5 core, issue 16; seed 001's Lucky Cover).

Each spends one point of the character's current Edge (``Sheet.edge_points``; refused at 0)
and costs no action of the phase (cost ``"edge"``); they are listed with the other actions
(:data:`engine.sr5.economy.ACTIONS`) and taken with :func:`engine.sr5.actions.apply_action`:

- **Push the Limit**: declared with the roll (``edge=True`` on an attack or test): + Edge
  dice, no limit, sixes explode (:mod:`engine.sr5.dice`).
- **Second Chance** (``second_chance``): after a roll, reroll every die that did not hit
  (:func:`second_chance`); not on a Push the Limit roll, and it cannot undo a critical glitch.
- **Close Call** (``close_call``): a glitch is ignored, a critical glitch becomes a plain
  glitch (:func:`close_call`).
- **Seize the Initiative** (``seize_initiative``): acts first in every pass of the turn (of
  this turn while one runs, else of the next); among several who seized, the usual order.
- **Blitz** (``blitz``): declared before initiative is rolled: 5D6 for the next turn.
- **Dead Man's Trigger** (``dead_mans_trigger``): when falling unconscious or dying, a Body +
  Willpower (3) test; success grants one Simple Action at once (``Sheet.last_action``).
- **Lucky Cover** (``lucky_cover``, seed 001): drop prone under enhanced or flechette
  suppressive fire and be spared (:mod:`engine.sr5.suppressive`); a Free Action at any time.

The two that change a roll (Second Chance, Close Call) are applied to the roll itself by
:meth:`engine.sr5.attack.AttackResolution.second_chance` / ``close_call`` (or the functions
here on any :class:`~engine.sr5.dice.TestResult`); the action books the Edge point and the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine.errors import IllegalActionError
from engine.sr5.dice import Roller, TestResult, check_faces

BLITZ_DICE = 5
DEAD_MANS_TRIGGER_THRESHOLD = 3


def second_chance(result: TestResult, dice: Roller | Sequence[int]) -> TestResult:
    """``result`` with every die that did not hit rolled again (``dice``: a roller or the
    faces of the rerolled dice, one per miss). Refused on a Push the Limit roll and on a
    critical glitch (seed-less SR5 core rules)."""
    if result.edge:
        raise IllegalActionError("Second Chance cannot reroll a Push the Limit roll")
    if result.critical_glitch:
        raise IllegalActionError("Second Chance cannot undo a critical glitch (Close Call softens it)")
    misses = [d for d in result.dice if d < 5]
    if not misses:
        raise IllegalActionError("every die hit: nothing to reroll")
    if hasattr(dice, "roll"):
        new = tuple(dice.roll(len(misses)))  # type: ignore[union-attr]
    else:
        new = check_faces(dice, what="Second Chance dice")
        if len(new) != len(misses):
            raise IllegalActionError(f"Second Chance rerolls {len(misses)} dice, not {len(new)}")
    kept = tuple(d for d in result.dice if d >= 5)
    return replace(result, dice=kept + new, second_chance=True)


def close_call(result: TestResult) -> TestResult:
    """``result`` with its glitch negated (a critical glitch becomes a plain glitch)."""
    if not result.glitch:
        raise IllegalActionError("Close Call needs a glitch to negate")
    return replace(result, close_call=True)
