"""Words and colours for the d100 rules on screen: location and severity names, the
severity palette, and the step-by-step text of an applied action (from the engine's
:class:`~engine.d100.values.Change`; nothing is computed here)."""

from __future__ import annotations

from html import escape

from PySide6.QtGui import QColor

from engine.d100.sheet import LOCATIONS
from engine.d100.values import STANCE_LABELS
from gui import theme

#: Severity -> fill colour of a body location (none: unhurt grey-green).
SEVERITY_COLOURS: dict[str, QColor] = {
    "none": QColor("#3d4a45"),
    "light": QColor("#e6d15a"),
    "heavy": QColor("#f39c3d"),
    "serious": QColor("#e8602c"),
    "acute": QColor("#d32f2f"),
    "crippled": QColor("#7b1fa2"),
}
SEVERITY_TEXT: dict[str, QColor] = {
    "none": QColor("#e6e9ed"),
    "light": QColor("#1b1f24"),
    "heavy": QColor("#1b1f24"),
    "serious": QColor("#ffffff"),
    "acute": QColor("#ffffff"),
    "crippled": QColor("#ffffff"),
}
BLOOD = QColor("#ff3b3b")
HIDDEN_HATCH = QColor("#90caf9")

_SHORT = {
    "head": "Head", "chest": "Chest", "abdomen": "Abdomen", "groin": "Groin",
    "left_arm": "L arm", "right_arm": "R arm", "left_leg": "L leg", "right_leg": "R leg",
}


def loc_name(location: str | None) -> str:
    """``"left_arm"`` -> ``"left arm"``."""
    return (location or "").replace("_", " ")


def loc_short(location: str) -> str:
    return _SHORT.get(location, loc_name(location))


def stance_name(stance: str) -> str:
    return STANCE_LABELS.get(stance, stance)


def locations_text(locs) -> str:
    """Comma list of location names, or "none"."""
    locs = [loc for loc in LOCATIONS if loc in tuple(locs or ())]
    if len(locs) == len(LOCATIONS):
        return "every location"
    return ", ".join(loc_name(x) for x in locs) if locs else "none"


def _sev(sev: str) -> str:
    c = SEVERITY_COLOURS.get(sev)
    if c is None or sev == "none":
        return escape(sev)
    return f"<span style='color:{c.name()};font-weight:bold'>{escape(sev)}</span>"


def chance_html(ch) -> str:
    """A chance as '<b>75%</b> = 55 smg skill +20 aim x1' with placed threshold."""
    parts = []
    for i, m in enumerate(ch.modifiers):
        parts.append((f"{m.value}" if i == 0 else f"{m.value:+d}") + f" {escape(m.label)}")
    placed = f"; placed at \u2264 {ch.placed_max}" if ch.placed_max > 0 else "; cannot be placed"
    return f"<b>{ch.value}%</b> = {' '.join(parts)}{placed}"


def change_html(change, name) -> str:
    """The step-by-step account of one applied action, as HTML for the dialog.

    ``name(id)`` gives a token's display name. Everything comes from the change record:
    each shot's roll, hit or miss, placed or not, the location, damage through cover and
    armour, the severity step and the injury total, then every effect (event)."""
    out: list[str] = []
    for s in change.shots:
        head = f"<b>Shot {s.index}</b> at <b>{escape(name(s.target))}</b> with {escape(s.weapon)}: "
        auto = {"success": " (1-5 always succeeds)", "failure": " (96-100 always fails)"}.get(s.automatic or "", "")
        verdict = f"<span style='color:{theme.ink('good')};font-weight:bold'>HIT</span>" if s.hit else \
            f"<span style='color:{theme.ink('dim')};font-weight:bold'>MISS</span>"
        out.append(f"{head}rolled <b>{s.roll}</b> vs {s.chance.value}% \u2192 {verdict}{auto}")
        if not s.hit:
            continue
        if s.parry_chance is not None:
            out.append(f"&nbsp;&nbsp;parry: {escape(name(s.target))} rolled {s.parry_roll} vs "
                       f"{s.parry_chance.value}% \u2192 " + ("<b>parried</b>" if s.parried else "failed"))
            if s.parried:
                continue
        if s.placed:
            out.append(f"&nbsp;&nbsp;placed shot (\u2264 {s.chance.placed_max}): location roll {s.location_roll} "
                       f"moved to {s.placed_roll} toward {escape(loc_name(s.prefer))} \u2192 "
                       f"<b>{escape(loc_name(s.location))}</b>")
        else:
            why = f"not placed ({s.roll} > {s.chance.placed_max})" if s.chance.placed_max > 0 and s.automatic != "success" \
                else "not placed"
            out.append(f"&nbsp;&nbsp;{why}: location roll {s.location_roll} \u2192 <b>{escape(loc_name(s.location))}</b>")
        d = s.damage
        if d is None:
            continue
        steps = [f"damage <b>{d.rolled}</b>"]
        if d.hidden:
            steps.append(f"\u2212 cover {d.cover} (hidden) = {d.after_cover}")
        else:
            steps.append("(not behind cover)")
        if d.armour:
            wear = (f", pierced: wears {d.wear}, durability {d.durability_before}\u2192{d.durability_after}"
                    if d.pierced else ", not pierced")
            steps.append(f"\u2212 armour {d.armour}{wear}")
        elif d.durability_before is not None:
            steps.append("(armour worn out)")
        steps.append(f"= <b>{d.taken}</b> to the {escape(loc_name(d.location))}")
        out.append("&nbsp;&nbsp;" + " ".join(steps))
        sev = (f"{_sev(d.severity_before)} \u2192 {_sev(d.severity_after)}" if d.severity_after != d.severity_before
               else f"stays {_sev(d.severity_after)}")
        out.append(f"&nbsp;&nbsp;{escape(loc_name(d.location))}: {sev}; injury total {d.injury_before} \u2192 "
                   f"<b>{d.injury_after}</b>")
    r = change.recover
    if r is not None:
        what = loc_name(r.location) if r.location else "injury total"
        out.append(f"<b>Recover</b> {escape(name(r.patient))}'s {escape(what)}: rolled <b>{r.roll}</b> vs "
                   f"{r.chance.value}% \u2192 " + ("<b>success</b>" if r.success else "fails"))
        if r.success:
            sev = f"; {_sev(r.severity_before)} \u2192 {_sev(r.severity_after)}" if r.severity_before else ""
            out.append(f"&nbsp;&nbsp;heals {r.healed}{sev}; injury {r.injury_before} \u2192 <b>{r.injury_after}</b>")
    effects = [e for e in change.events if e.kind not in ("severity",)]
    if effects:
        out.append("<b>Effects</b>")
        for e in effects:
            colour = "#ff5252" if e.kind in ("dead", "pass_out") and (e.amount or e.kind == "dead") else "#e6e9ed"
            out.append(f"&nbsp;&nbsp;\u2022 <span style='color:{colour}'>{escape(e.text)}</span>")
    if not out:
        out = [escape(ln.text.strip()) for ln in change.log] or ["Done."]
    if change.rolls:
        dice = ", ".join(f"{escape(r.label)} d{r.sides} <b>{r.value}</b>" + (" (entered)" if r.entered else "")
                         for r in change.rolls)
        out.append(f"<span style='color:{theme.ink('dim')}'>Dice: {dice}</span>")
    return "<br>".join(out)
