"""Reading a token's states, the turn, and normal movement of Static Veil (seed 004): the
third base of the Static Veil :class:`~engine.rules.RuleSystem`
(:class:`engine.static_veil.system.StaticVeil`), beside :mod:`~engine.static_veil.legality`
(checking and planning) and :mod:`~engine.static_veil.resolution` (applying maneuvers).
"""

from __future__ import annotations

import math

from engine.errors import IllegalActionError
from engine.model import Encounter, Token
from engine.names import geometry_text, name_of, token_name
from engine.static_veil import space
from engine.static_veil.resolution import Work
from engine.static_veil.tokens import has_token, metres, sheet_of
from engine.static_veil.sheet import Settings, Sheet
from engine.static_veil.values import REACH_SLACK, XY, Preview, Result
from geometry.errors import GeometryInputError


class Turns:
    """States, turns and normal moves (the system's ``_finish`` records each)."""

    # -- reading ----------------------------------------------------------------------------------
    @staticmethod
    def settings(encounter: Encounter) -> Settings:
        """The encounter's Static Veil settings (defaults when the file has none)."""
        s = encounter.rules.get("static-veil")
        return s if s is not None else Settings()

    @staticmethod
    def sheet(token: Token) -> Sheet:
        """A token's Static Veil sheet (defaults when it has none)."""
        return sheet_of(token)

    def states(self, encounter: Encounter, token_id: str) -> tuple[str, ...]:
        """The token's states as the map labels them: "Prone", "Grappling Vex",
        "Grappled by Rook", "Distracted (1)", "Incapacitated", "Charged"."""
        return self.token_states(encounter, encounter.token(token_id))

    def token_states(self, encounter: Encounter, t) -> tuple[str, ...]:
        """:meth:`states` of the token ``t`` of ``encounter`` in hand (looks up only a grapple
        partner's name: the map marks every token this way)."""
        s = sheet_of(t)
        out: list[str] = []
        if s.prone or t.stance == "prone":
            out.append("Prone")
        if s.grapple is not None:
            other = name_of(encounter, s.grapple.other)
            out.append(f"Grappling {other}" if s.grapple.initiator else f"Grappled by {other}")
        if s.distracted:
            out.append(f"Distracted ({s.distracted})")
        if s.incapacitated:
            out.append("Incapacitated")
        if s.charged_this_turn:
            out.append("Charged")
        return tuple(out)

    def grapple_links(self, encounter: Encounter) -> tuple[tuple[str, str], ...]:
        """Every grapple as (initiator id, held id), for the map to draw a link."""
        out = []
        for t in encounter.tokens:
            s = sheet_of(t)
            if s.grapple is not None and s.grapple.initiator:
                out.append((t.id, s.grapple.other))
        return tuple(out)

    # -- turns ------------------------------------------------------------------------------------
    def _start_turn(self, encounter: Encounter, token_id: str, new_round: bool = False) -> Result:
        """Begin ``token_id``'s turn: its AP and Movement are full again and it may charge
        again. The previous active token's turn ends first (see :meth:`_end_turn`);
        ``new_round`` counts the round up."""
        settings = self.settings(encounter)
        encounter.token(token_id)
        work = Work(encounter, settings)
        if settings.active and settings.active != token_id and has_token(encounter, settings.active):
            self._end_turn_into(work, settings.active)
        rnd = settings.round + 1 if new_round else settings.round
        work.settings = work.settings.model_copy(update={"round": rnd, "active": token_id})
        work.set_sheet(token_id, ap_left=None, movement_used=0.0, charged_this_turn=False, turn_path=())
        t = work.token(token_id)
        work.lines.append(f"Round {rnd}: {token_name(t)}'s turn ({sheet_of(t).ap} AP, {metres(sheet_of(t).movement)}).")
        return self._finish(encounter, work, "start_turn", "Start turn", None, None, actor=token_id)

    def _end_turn(self, encounter: Encounter, token_id: str) -> Result:
        """End ``token_id``'s turn: Distracted counts down one of its turns and clears at 0."""
        settings = self.settings(encounter)
        encounter.token(token_id)
        work = Work(encounter, settings)
        self._end_turn_into(work, token_id)
        if settings.active == token_id:
            work.settings = work.settings.model_copy(update={"active": None})
        return self._finish(encounter, work, "end_turn", "End turn", None, None, actor=token_id)

    def _end_turn_into(self, work: Work, token_id: str) -> None:
        s = work.sheet(token_id)
        if s.distracted:
            left = max(0, s.distracted_turns - 1)
            if left == 0:
                work.set_sheet(token_id, distracted=0, distracted_turns=0)
                work.lines.append(f"{token_name(work.token(token_id))} is no longer Distracted.")
            else:
                work.set_sheet(token_id, distracted_turns=left)
        work.lines.append(f"{token_name(work.token(token_id))} ends the turn.")

    def check_move(self, encounter: Encounter, token_id: str, to: XY, length: float | None = None) -> None:
        """Refuse a normal move of ``token_id`` to centre ``to`` (path ``length`` metres,
        default the straight line) that Static Veil forbids: more than the Movement left, or
        away from a grapple partner (grappled bodies move only by Move the Grapple)."""
        t = encounter.token(token_id)
        s = sheet_of(t)
        if not all(math.isfinite(v) for v in to):
            raise IllegalActionError("the destination is not a finite point")
        if length is None:
            length = math.hypot(to[0] - t.x, to[1] - t.y)
        if s.incapacitated:
            raise IllegalActionError(f"{token_name(t)} is incapacitated and cannot move")
        if s.grapple is not None and has_token(encounter, s.grapple.other):
            other = encounter.token(s.grapple.other)
            reach = self.settings(encounter).reach
            d = math.hypot(other.x - to[0], other.y - to[1]) - t.radius - other.radius
            if d > reach + REACH_SLACK:
                raise IllegalActionError(
                    f"{token_name(t)} is in a grapple with {token_name(other)} and cannot use normal "
                    "Movement to move away; use Move the Grapple, Break Free or release it"
                )
        if length > s.movement_left + REACH_SLACK:
            raise IllegalActionError(
                f"{token_name(t)} has {metres(s.movement_left)} of Movement left; this move is {metres(length)}"
            )

    def plan_move(self, encounter: Encounter, token_id: str, to: XY) -> Preview:
        """A normal move of ``token_id`` to centre ``to``, planned without changing anything:
        the shortest way around obstacles and other bodies (``path``, ``movement_cost`` its
        length in metres, ``end``), ``allowed`` False with the reason when :meth:`check_move`
        refuses it (Movement left, a grapple) or there is no way. Apply it with
        ``Move`` (``path``)."""
        t = encounter.token(token_id)
        base = dict(maneuver="move", label="Move", actor=token_id, target=None, ap_cost=0)
        to = (float(to[0]), float(to[1]))
        if not all(math.isfinite(v) for v in to):
            return Preview(allowed=False, reason="the destination is not a finite point", **base)
        try:
            way = space.walk(encounter, t, to)
        except GeometryInputError as exc:  # inside a wall, off the map
            return Preview(allowed=False, reason=geometry_text(exc, encounter), **base)
        if way is None:
            return Preview(allowed=False, reason=f"{token_name(t)} cannot get to ({to[0]:.1f}, {to[1]:.1f}): "
                           "no way around the obstacles and bodies", **base)
        path, length = way
        why = None
        try:
            self.check_move(encounter, token_id, path[-1], length)
        except IllegalActionError as exc:
            why = exc.reason
        return Preview(allowed=why is None, reason=why, movement_cost=length, path=path, end=path[-1], **base)

    def _walk(self, encounter: Encounter, token_id: str, path: tuple[XY, ...] | list[XY]) -> Result:
        """A normal move of ``token_id`` along ``path`` (metres, first point its centre now or
        omitted): checked by :meth:`check_move`, spends the path's length of Movement, one
        undo step (``apply`` of ``Move``, ``on_moves`` of a drag)."""
        t = encounter.token(token_id)
        pts = [(float(x), float(y)) for x, y in path]
        if not pts:
            raise IllegalActionError("a move needs at least a destination")
        if math.hypot(pts[0][0] - t.x, pts[0][1] - t.y) > 1e-9:
            pts.insert(0, (t.x, t.y))
        length = space.path_length(pts)
        self.check_move(encounter, token_id, pts[-1], length)
        work = Work(encounter, self.settings(encounter))
        s = work.sheet(token_id)
        walked = s.turn_path if s.turn_path and s.turn_path[-1] == pts[0] else (pts[0],)
        work.set_sheet(token_id, movement_used=s.movement_used + length, turn_path=walked + tuple(pts[1:]))
        work.move(token_id, tuple(pts))
        left = work.sheet(token_id).movement_left
        work.lines.append(f"{token_name(t)} moves {metres(length)} ({metres(left)} of Movement left).")
        return self._finish(encounter, work, "move", "Move", None, None, actor=token_id)


def move_words(encounter: Encounter, token_id: str, length: float) -> str:
    """The Movement a move of ``length`` metres spends in the token's turn ("4.0 m of
    Movement, 2.0 m left"), past what is left ("needs 7.0 m of Movement; 6.0 m left"), or ""
    when no turn of it runs (a move then spends nothing) or it has no sheet."""
    t = encounter.token(token_id)
    if t.rules.get("static-veil") is None or Turns.settings(encounter).active != token_id:
        return ""
    left = sheet_of(t).movement_left
    if length <= left + 1e-6:
        return f"{metres(length)} of Movement, {metres(left - length)} left"
    return f"needs {metres(length)} of Movement; {metres(left)} left"
