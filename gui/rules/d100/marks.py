"""Compact d100 status marks on the map's tokens, drawn by the token layer
(:meth:`gui.layers.TokenLayer.set_decorations`): an injury bar under each name (the injury
total against the maximum, green to red as death nears) and tags for dead, unconscious,
stunned and bleeding. Prone shows as the token's own "P"."""

from __future__ import annotations

from engine.d100 import RULESET
from gui.layers import TokenBar, TokenDecoration

INJURY_COLOURS = ((0.5, "#81c784"), (0.8, "#ffb74d"), (1.01, "#ef5350"))
TAG_COLOURS = {"DEAD": "#ff5252", "KO": "#b39ddb", "STUN": "#ffca28", "BLEED": "#ff6b6b"}


def injury_colour(fraction: float) -> str:
    for top, colour in INJURY_COLOURS:
        if fraction < top:
            return colour
    return INJURY_COLOURS[-1][1]


class DecorationCache:
    """Each token's decoration, kept while its sheet (the same frozen value) and the round
    stay the same, so only changed tokens ask the rules again."""

    def __init__(self):
        self._seen: dict[str, tuple[object, int, TokenDecoration]] = {}

    def clear(self) -> None:
        self._seen.clear()

    def decorations(self, encounter) -> dict[str, TokenDecoration]:
        """Token id -> decoration for every token with a d100 sheet."""
        rnd = encounter.rules["d100"].round if encounter.rules.get("d100") is not None else 0
        out: dict[str, TokenDecoration] = {}
        seen: dict[str, tuple[object, int, TokenDecoration]] = {}
        for t in encounter.tokens:
            if t.rules.get("d100") is None:
                continue
            hit = self._seen.get(t.id)
            if hit is not None and hit[0] is t.rules.get("d100") and hit[1] == rnd:
                dec = hit[2]
            else:
                dec = decoration_for(encounter, t.id)
            seen[t.id] = (t.rules.get("d100"), rnd, dec)
            out[t.id] = dec
        self._seen = seen
        return out


def decoration_for(encounter, token_id: str) -> TokenDecoration:
    """One token's injury bar and tags (from its sheet and :meth:`RULESET.status`)."""
    s = RULESET.sheet(encounter, token_id)
    frac = min(1.0, s.injury / max(1, s.max_injury))
    bars = (TokenBar(frac, injury_colour(frac)),) if s.injury > 0 else ()
    tags: list[tuple[str, str]] = []
    if s.dead:
        tags.append(("DEAD", TAG_COLOURS["DEAD"]))
    else:
        if s.unconscious:
            tags.append(("KO", TAG_COLOURS["KO"]))
        if RULESET.status(encounter, token_id).stunned:
            tags.append(("STUN", TAG_COLOURS["STUN"]))
        bleeding = sum(w.bleeding for w in s.wounds.values())
        if bleeding:
            tags.append((f"BLEED {bleeding}", TAG_COLOURS["BLEED"]))
    return TokenDecoration(bars=bars, tags=tuple(tags))
