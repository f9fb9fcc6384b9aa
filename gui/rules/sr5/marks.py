"""What the map shows under each sr5 token: its Physical and Stun monitors as two small bars
(one cell per box), the wound modifier, and status tags (acting, running, prone, Full
Defense, aiming, under suppressive fire, down). Plain values for
:meth:`gui.layers.TokenLayer.set_decorations`; the numbers are the engine's
(``condition.monitor``, the sheet's state, ``suppression_status``)."""

from __future__ import annotations

from engine.model import Encounter
from engine.sr5 import condition
from engine.sr5.changes import settings_of, sheet_of
from gui.layers import TokenBar, TokenDecoration

PHYSICAL = (0x66, 0xBB, 0x6A)  # green when unharmed
HURT = (0xEF, 0x53, 0x50)  # red when full
STUN = "#4fc3f7"
TAG = {
    "acting": "#fff176",
    "wound": "#ffb74d",
    "run": "#80deea",
    "prone": "#bcaaa4",
    "fd": "#ce93d8",
    "aim": "#a5d6a7",
    "supp": "#ff8a65",
    "down": "#ef5350",
}
DOWN_TEXT = {"unconscious": "KO", "dying": "DYING", "dead": "DEAD"}


def _shade(left: float) -> str:
    """Physical bar colour: green at full health to red when the track is full."""
    r, g, b = (round(a * left + h * (1 - left)) for a, h in zip(PHYSICAL, HURT))
    return f"#{r:02x}{g:02x}{b:02x}"


def decorations_for(encounter: Encounter, suppression: dict | None = None) -> dict[str, TokenDecoration]:
    """Per token with an sr5 sheet: the bars (Physical filled by the boxes left, then Stun)
    and tags. ``suppression`` is ``suppression_status`` (token -> ZoneStatus) when fire is in
    force."""
    st = settings_of(encounter)
    out = {}
    for t in encounter.tokens:
        if t.rules.get("sr5") is None:
            continue
        sh = sheet_of(t)
        m = condition.monitor(sh, st.options)
        p_left = 1.0 - m.physical / m.physical_boxes if m.physical_boxes else 0.0
        s_left = 1.0 - m.stun / m.stun_boxes if m.stun_boxes else 0.0
        bars = (TokenBar(p_left, _shade(p_left), m.physical_boxes), TokenBar(s_left, STUN, m.stun_boxes))
        tags: list[tuple[str, str]] = []
        if m.status != "ok":
            tags.append((DOWN_TEXT.get(m.status, m.status.upper()), TAG["down"]))
        if st.acting == t.id:
            tags.append(("\u25b6 ACTS", TAG["acting"]))
        if m.wound_modifier:
            tags.append((f"{m.wound_modifier:+d}", TAG["wound"]))
        if sh.running:
            tags.append(("SPRINT" if sh.sprinting else "RUN", TAG["run"]))
        if t.stance == "prone":
            tags.append(("PRONE", TAG["prone"]))
        if sh.full_defense:
            tags.append(("FD", TAG["fd"]))
        if sh.aim:
            tags.append((f"AIM {sh.aim}", TAG["aim"]))
        zs = (suppression or {}).get(t.id)
        if zs is not None and (zs.must_test or zs.penalty):
            tags.append((f"SUPP {zs.penalty:+d}" if zs.penalty else "SUPP", TAG["supp"]))
        out[t.id] = TokenDecoration(bars, tuple(tags))
    return out


__all__ = ["decorations_for"]
