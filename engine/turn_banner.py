"""The turn banner players read on a screen share: "Sam: pass 1, phase 3", "Round 2".

Made from the rule system's :meth:`engine.rules.RuleSystem.current_turn` and the acting
token's display name (:func:`engine.names.token_name`, or the caller's ``name`` function: the
players' window labels an unnamed token by its side, never its id). Given the players'
encounter (``engine.vision.players_knowledge``), an actor they do not know of (hidden, or
unseen in the fog) is not named: the banner says only where the fight stands ("Pass 1,
phase 3"), so it tells nothing the map hides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.names import token_name

if TYPE_CHECKING:
    from engine.model import Encounter, Token


def turn_banner(encounter: Encounter, name: Callable[[Token], str] = token_name) -> str:
    """The banner's text: "<actor's name>: <where>" when the acting token is in
    ``encounter``, else "<Where>" capitalised; empty outside a fight."""
    turn = encounter.system.current_turn(encounter)
    if turn is None or not turn.where:
        return ""
    actor = None
    if turn.actor is not None:
        actor = next((t for t in encounter.tokens if t.id == turn.actor), None)
    if actor is not None:
        return f"{name(actor)}: {turn.where}"
    return turn.where[:1].upper() + turn.where[1:]


__all__ = ["turn_banner"]
