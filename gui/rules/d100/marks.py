"""Compact d100 status marks on the map's tokens, drawn by the token layer
(:meth:`gui.layers.TokenLayer.set_decorations`): an injury bar under each name (the injury
total against the maximum, green to red as death nears) and tags for dead, unconscious,
stunned and bleeding. Prone shows as the token's own "P"."""

from __future__ import annotations

from engine.d100.values import settings_of, sheet_of
from gui.layers import TokenBar, TokenDecoration
from gui.rules.base import Kept
from gui.rules.d100.controller import RULESET

INJURY_COLOURS = ((0.5, "#81c784"), (0.8, "#ffb74d"), (1.01, "#ef5350"))
TAG_COLOURS = {"DEAD": "#ff5252", "KO": "#b39ddb", "STUN": "#ffca28", "BLEED": "#ff6b6b"}


def injury_colour(fraction: float) -> str:
    for top, colour in INJURY_COLOURS:
        if fraction < top:
            return colour
    return INJURY_COLOURS[-1][1]


class DecorationCache:
    """Each token's decoration, kept while its sheet (the same frozen value) and the round
    stay the same (:class:`gui.rules.base.Kept`), so only changed tokens ask the rules again."""

    def __init__(self):
        self._kept = Kept()

    def clear(self) -> None:
        self._kept.clear()

    def decorations(self, encounter) -> dict[str, TokenDecoration]:
        """Token id -> decoration for every token with a d100 sheet."""
        rnd = encounter.rules["d100"].round if encounter.rules.get("d100") is not None else 0
        out: dict[str, TokenDecoration] = {}
        for t in encounter.tokens:
            raw = t.rules.get("d100")
            if raw is None:
                continue
            out[t.id] = self._kept.get(t.id, (raw, rnd), lambda t=t: decoration_for(encounter, t.id, t))
        return out


def decoration_for(encounter, token_id: str, token=None) -> TokenDecoration:
    """One token's injury bar and tags (from its sheet and :meth:`RULESET.status`);
    ``token``: the token itself when the caller has it (no look-up by id)."""
    token = token if token is not None else encounter.token(token_id)
    s = sheet_of(token)
    frac = min(1.0, s.injury / max(1, s.max_injury))
    bars = (TokenBar(frac, injury_colour(frac)),) if s.injury > 0 else ()
    tags: list[tuple[str, str]] = []
    if s.dead:
        tags.append(("DEAD", TAG_COLOURS["DEAD"]))
    else:
        if s.unconscious:
            tags.append(("KO", TAG_COLOURS["KO"]))
        if RULESET.status_of(token_id, s, settings_of(encounter)).stunned:
            tags.append(("STUN", TAG_COLOURS["STUN"]))
        bleeding = sum(w.bleeding for w in s.wounds.values())
        if bleeding:
            tags.append((f"BLEED {bleeding}", TAG_COLOURS["BLEED"]))
    return TokenDecoration(bars=bars, tags=tuple(tags))
