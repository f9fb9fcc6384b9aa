"""The values the Static Veil rules answer (seed 004): previews of a maneuver (path, run-up,
shove ends, tests), the picker's options and variants, the change record and result of an
applied maneuver, and the error that asks the GM for a test's outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import IllegalActionError
from engine.model import Encounter, Token
from engine.static_veil.dice import Roll, TestSpec
from engine.static_veil.sheet import LogEntry, Settings

XY = tuple[float, float]
#: Slack (metres) when comparing a gap with the reach, so a token placed by the run-up
#: planner exactly at reach counts as in reach.
REACH_SLACK = 1e-3
#: How many net hits :meth:`StaticVeil.preview` shows shove ends for (0..SHOVE_PREVIEW_HITS).
SHOVE_PREVIEW_HITS = 5
#: Opponent skill against an attack in the d100 model.
DEFENSE_SKILL = "defense"


class OutcomeNeededError(IllegalActionError):
    """The GM has not entered a test's outcome yet (dice model ``"gm"``); ``tests`` lists
    the tests still needed, each a :class:`~engine.static_veil.dice.TestSpec`."""

    def __init__(self, reason: str, tests: tuple[TestSpec, ...]) -> None:
        self.tests = tests
        super().__init__(reason)


# ----------------------------------------------------------------------------------------------
# Values the GUI reads
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShoveEnd:
    """Where a shove leaves its target for ``net_hits``: pushed ``distance`` metres, ends
    at ``end`` after ``travelled`` metres, stopped short by ``stopped_by`` (or None). A target
    held in a grapple takes its partner along: ``partner`` ends at ``partner_end``."""

    net_hits: int
    distance: float
    end: XY
    travelled: float
    stopped_by: str | None
    partner: str | None = None
    partner_end: XY | None = None


@dataclass(frozen=True)
class Preview:
    """What a maneuver would cost and do, without doing it.

    ``allowed`` False comes with ``reason``. ``path`` is the actor's movement (charge, shove
    run-up, grapple move) from its centre now to ``end``; ``runup_start`` is where the
    straight run-up begins. ``partner_path`` is a dragged grapple partner's track.
    ``shove_direction`` (degrees) and ``shove_ends`` (one per net hits 0..5) show a shove.
    ``tests`` are the tests the maneuver needs, with Success Targets."""

    maneuver: str
    label: str
    actor: str
    target: str | None
    allowed: bool
    reason: str | None = None
    ap_cost: int = 0
    movement_cost: float = 0.0
    path: tuple[XY, ...] = ()
    runup_start: XY | None = None
    end: XY | None = None
    partner: str | None = None
    partner_path: tuple[XY, ...] = ()
    shove_direction: float | None = None
    shove_ends: tuple[ShoveEnd, ...] = ()
    tests: tuple[TestSpec, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Variant:
    """A choice within a maneuver (a called-shot location, a distraction approach): its
    ``key`` for the action, a ``label``, the Success Target ``modifier`` it brings, and
    whether it is ``allowed`` against the chosen target (``reason`` if not)."""

    key: str
    label: str
    modifier: int = 0
    allowed: bool = True
    reason: str | None = None


@dataclass(frozen=True)
class Option:
    """One line of the maneuver picker: ``key`` (see ``actions.ACTION_BY_KEY``), its AP
    cost, whether it is ``allowed`` now and why not. ``needs_target``: pick a token first
    (then ask again with ``target_id`` for the full answer). ``variants`` lists choices with
    their Success Target modifier (called-shot locations, distraction approaches)."""

    key: str
    label: str
    ap_cost: int
    allowed: bool
    reason: str | None
    needs_target: bool
    target: str | None = None
    variants: tuple[Variant, ...] = ()


@dataclass(frozen=True)
class Move:
    """A token's movement in a change: its path (metres), first point where it was."""

    token: str
    path: tuple[XY, ...]


@dataclass(frozen=True)
class Change:
    """What one applied maneuver changed: the tokens before and after, the Static Veil
    settings (turn state, log, dice position) before and after, the log lines added, the
    dice rolled and the movements made."""

    maneuver: str
    label: str
    actor: str | None
    target: str | None
    before: tuple[Token, ...]
    after: tuple[Token, ...]
    settings_before: Settings | None
    settings_after: Settings
    log: tuple[LogEntry, ...] = ()
    rolls: tuple[Roll, ...] = ()
    moves: tuple[Move, ...] = ()
    success: bool | None = None
    summary: str = ""

    @property
    def token_ids(self) -> tuple[str, ...]:
        """Ids of the tokens this change touched (for the GUI to redraw)."""
        return tuple(t.id for t in self.after)


@dataclass(frozen=True)
class Result:
    """An applied maneuver: the new encounter and the change record."""

    encounter: Encounter
    change: Change
