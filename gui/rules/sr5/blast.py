"""Grenades and blasts from the map: the attacker throws (or fires) at a blast zone's centre.

:class:`BlastPage` shows the engine's plan (Shadowrun's ``RuleSystem.preview`` through
:meth:`Sr5Controller.preview`, measured on the map): the attack pool with every part and its source (range band
of the aim point, the environment ...), the blast (damage, falloff, the circle it fills, the
scatter dice) and for each token the circle catches the DV where it stands, its defense pool
(area effect -2, cover from the blast centre) and its damage resistance pool; who the blast
spares and why. The GM changes any value, then rolls or types the dice step by step: the
attack, on a miss the scatter and its direction (the landing is drawn on the map, and who is
caught there is measured again), then each caught token's defense and soak. *Apply* lands it
all as one undo step (:meth:`Sr5Controller.act`): the zone moves where the blast went off, the damage
is marked, the log tells the story.

No rule here: every number comes from :mod:`engine.sr5.blast`.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QPainterPath
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
)

from engine.errors import CoverfireError, IllegalActionError
from engine.names import zone_name
from engine.sr5 import blast as sr5_blast
from engine.sr5.changes import settings_of
from engine.sr5.actions import ready_weapons
from geometry.cover import cover_percent
from gui.rules.sr5.rolling import RollingPage
from gui.rules.sr5.widgets import (
    PoolView,
    limit_text,
    replace_boxes,
    show_result,
    show_story,
    soak_bit,
    wire_pool,
)
from gui.rules.widgets import bold
from gui import theme

DEFENSE_TEXT = {"normal": "defends normally", "full_defense": "Full Defense (interrupt, -10 Initiative)"}
COVER_TEXT = {"none": "in the open", "partial": "partial cover from the blast", "good": "good cover from the blast"}
STEP_TEXT = {"attack": "Attack", "scatter": "Scatter", "direction": "Scatter direction", "defense": "Defense",
             "soak": "Damage resistance"}
LANDING_COLOUR = "#ffca28"  # the blast zones' own colour (gui.style)


class CaughtBox(QFrame):
    """One token the blast catches: where it stands, the DV there, its defense and damage
    resistance pools (editable before the dice), and how it fared."""

    def __init__(self, dialog: "BlastPage", target: str):
        super().__init__()
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.dialog = dialog
        self.target = target
        self.header = bold(QLabel(), scale=1.05)
        self.header.setWordWrap(True)
        self.result = bold(QLabel())
        self.result.setWordWrap(True)
        self.defense = PoolView("Defense")
        self.soak = PoolView("Damage resistance")
        wire_pool(self.defense, dialog, target, "defense")
        wire_pool(self.soak, dialog, target, "soak")
        lay = QVBoxLayout(self)  # stacked: the Action panel is narrow
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.header)
        lay.addWidget(self.result)
        lay.addWidget(self.defense)
        lay.addWidget(self.soak)

    def show_target(self, plan, tp, editable: bool, defended: bool) -> None:
        """Show the engine's ``BlastTargetPlan`` ``tp``."""
        f = tp.facts
        name = self.dialog.controller.name(tp.target)
        cov = COVER_TEXT.get(f.cover, f.cover)
        if f.cover != "none":
            cov += f" ({cover_percent(f.cover_fraction, f.cover)}% hidden)"
        if plan.damage is None:
            dv = f"in the {plan.spec.label}"
        elif tp.harmed:
            dv = f"DV {tp.dv}{tp.damage_type} here"
        else:
            dv = "beyond the blast's reach"
        self.header.setText(f"{name}  \u2014  {f.distance:.1f} m from the centre ({tp.metres} m), {dv}, {cov}")
        rolls = plan.damage is not None and tp.harmed
        self.defense.setVisible(rolls and defended)
        self.soak.setVisible(rolls)
        if rolls:
            extra = DEFENSE_TEXT[tp.defense_choice] if tp.defense_choice != "normal" else ""
            self.defense.set_pool(tp.defense, editable=editable, title="Defense (each hit takes 1 off the DV)",
                                  extra_total=extra)
            self.soak.set_pool(tp.soak, editable=editable, title=f"Damage resistance (if DV is left, {tp.damage_type})")

    def show_outcome(self, o) -> None:
        """How it went (an engine ``BlastOutcome``), in one line."""
        bits, colour = [], "#cfd8dc"
        if o.defense is not None:
            bits.append(f"defense {o.defense.hits} hit{'s' if o.defense.hits != 1 else ''}")
        if o.result == "escapes":
            bits.append("ESCAPES: no DV left")
            colour = "#9aa4ae"
        elif o.result == "beyond":
            bits.append("unharmed")
            colour = "#9aa4ae"
        elif o.result == "hit":
            bits.append(f"HIT: {o.dv}{o.damage_type} (armor {o.armor})")
            if o.soak is not None:
                bits.append(soak_bit(o))
            colour = "#ff8a65"
        show_result(self.result, bits, colour)


class BlastPage(RollingPage):
    """See the module docstring. ``applied(Change)`` fires after a blast landed."""

    title = "SR5 grenade / blast"
    apply_text = "Apply"
    apply_tip = ("Move the zone where the blast went off, mark the damage, spend the action and the grenade, "
                 "log it (one undo step)")
    what = "blast"

    def __init__(self, panel, controller):
        self.boxes: dict[str, CaughtBox] = {}
        super().__init__(panel, controller)

    # -- building -------------------------------------------------------------------------------
    def build_declaration(self) -> QVBoxLayout:
        self.weapon_combo = QComboBox()
        self.zone_combo = QComboBox()
        self.projectile_combo = QComboBox()
        for key, label in sr5_blast.PROJECTILE_LABEL.items():
            self.projectile_combo.addItem(f"{label} ({sr5_blast.SCATTER_DICE[key]}D6 m)", key)
        self.fit = QCheckBox("Circle = the blast's reach")
        self.fit.setToolTip("On: the circle becomes as large as the blast reaches (its DV, or 10 m); "
                            "off: the blast fills the circle as drawn")
        self.edge = QCheckBox("Push the Limit (Edge)")
        self.follow = QCheckBox("Follow the map")
        self.follow.setToolTip("The attacker and the blast zone follow what is selected on the map")
        self.follow.setChecked(True)
        for combo in (self.attacker_combo, self.weapon_combo, self.zone_combo, self.projectile_combo):
            combo.currentIndexChanged.connect(self._declaration_changed)
        for box in (self.fit, self.edge):
            box.toggled.connect(self._declaration_changed)
        decl = self.decl_form = QFormLayout()
        decl.addRow("Attacker", self.attacker_combo)
        decl.addRow("Weapon", self.weapon_combo)
        decl.addRow("Aim (zone)", self.zone_combo)
        decl.addRow("Scatters as", self.projectile_combo)
        decl.addRow("", self.fit)
        decl.addRow("", self.edge)
        left = QVBoxLayout()
        left.setContentsMargins(0, 0, 0, 0)
        left.addLayout(decl)
        left.addWidget(self.follow)
        left.addWidget(bold(QLabel("Defender answers")))
        left.addLayout(self.defense_form)
        return left

    def build_plan(self) -> QVBoxLayout:
        self.attack = PoolView("Attack (threshold 3: on target)")
        self.attack.edited.connect(lambda k, v: self.override(k, v))
        self.attack.added.connect(lambda label, v: self.add_modifier(label, v))
        self.blast_info = QLabel()
        self.blast_info.setWordWrap(True)
        self.dv = QSpinBox()
        self.dv.setRange(0, 99)
        self.dv.setKeyboardTracking(False)
        self.dv.setToolTip("The blast's DV at its centre (the GM may change it)")
        self.dv.valueChanged.connect(lambda v: self.set_damage(dv=int(v)))
        self.ap = QSpinBox()
        self.ap.setRange(-20, 20)
        self.ap.setKeyboardTracking(False)
        self.ap.valueChanged.connect(lambda v: self.set_damage(ap=int(v)))
        self.scatter = QSpinBox()
        self.scatter.setRange(0, 10)
        self.scatter.setKeyboardTracking(False)
        self.scatter.setSuffix("D6 m")
        self.scatter.setToolTip("Scatter dice on a miss (the hits are taken off)")
        self.scatter.valueChanged.connect(lambda v: self.set_damage(scatter=int(v)))
        nums = QHBoxLayout()
        nums.addWidget(QLabel("DV"))
        nums.addWidget(self.dv)
        nums.addWidget(QLabel("AP"))
        nums.addWidget(self.ap)
        nums.addWidget(QLabel("Scatter"))
        nums.addWidget(self.scatter)
        nums.addStretch(1)
        self.landing = bold(QLabel())
        self.landing.setWordWrap(True)
        self.landing.setStyleSheet(f"color: {LANDING_COLOUR}")
        self.spared = QLabel()
        self.spared.setWordWrap(True)
        self.spared.setStyleSheet(f"color: {theme.ink('dim')}")
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet(f"color: {theme.ink('dim')}")
        self.boxes_layout = QVBoxLayout()
        self.caught_title = bold(QLabel())
        centre = QVBoxLayout()
        centre.addWidget(bold(QLabel("The blast")))
        centre.addWidget(self.blast_info)
        centre.addLayout(nums)
        centre.addWidget(self.landing)
        centre.addWidget(self.attack)
        centre.addWidget(self.caught_title)
        centre.addLayout(self.boxes_layout)
        centre.addWidget(self.spared)
        centre.addWidget(self.notes)
        return centre

    def after_apply(self) -> None:
        self._set_landing_sketch(None)
        self.defenses.clear()

    def applied_note(self, change) -> str:
        if change.details.get("moved"):
            x, y = change.details["landing"]
            return f"\nThe blast zone now stands where it went off: {x:.1f}, {y:.1f}."
        return ""

    def page_closed(self) -> None:
        self._set_landing_sketch(None)

    def rolled(self, before, after) -> None:
        if after.landing is not None and before.landing is None:  # (measured where it landed: the door's resolve)
            self._set_landing_sketch(after)

    # -- opening --------------------------------------------------------------------------------
    def open_for(self, attacker: str | None = None, zone: str | None = None, weapon: str | None = None) -> None:
        """Show the dialog for ``attacker`` (default: the map's attacker, else the acting
        token) aiming at blast zone ``zone`` (default: a selected blast zone, else the
        first) with ``weapon`` (default: its grenade or launcher)."""
        c = self.controller
        sel = c.selection
        if attacker is None:
            attacker = sel.attacker if sel.attacker in c.token_ids() else c.settings.acting
        self.resolution = None
        self.roller = None
        self.overrides.clear()
        self.damage.clear()
        self.defenses.clear()
        self._updating = True
        self.attacker = attacker
        self._fill_attackers()
        self._fill_weapons(weapon)
        self._fill_zones(zone or self._selected_zone())
        self._fill_projectile()
        self.fit.setChecked(settings_of(c.encounter).options.blast_radius == "weapon")
        self.edge.setChecked(False)
        self._updating = False
        self.show_in_panel()
        self.replan()

    def _selected_zone(self) -> str | None:
        enc = self.controller.encounter
        blasts = {z.id for z in enc.zones if z.kind == "blast"}
        for i in self.controller.selection.ids:
            if i in blasts:
                return i
        return None

    def _fill_weapons(self, weapon: str | None = None) -> None:
        c = self.controller
        self.weapon_combo.blockSignals(True)
        self.weapon_combo.clear()
        tok = c.encounter.token(self.attacker) if self.attacker in c.token_ids() else None
        if tok is not None:
            ready = ready_weapons(tok)
            blasts = [w for w in tok.weapons if sr5_blast.is_blast_weapon(w)]
            for w in blasts + [w for w in tok.weapons if w not in blasts]:
                left = f", {w.loaded} left" if w.loaded is not None else ""
                tag = "" if w.name in ready else "  (not ready)"
                kind = f"  [{w.blast.replace('_', ' ')}{left}]" if w.blast else ""
                self.weapon_combo.addItem(w.name + kind + tag, w.name)
            if weapon is None:
                try:
                    weapon = sr5_blast.blast_weapon(tok).name
                except IllegalActionError:
                    weapon = None
            self.weapon_combo.setCurrentIndex(max(0, self.weapon_combo.findData(weapon)))
        self.weapon_combo.blockSignals(False)

    def _fill_zones(self, zone: str | None = None) -> None:
        enc = self.controller.encounter
        keep = zone or self.zone_combo.currentData()
        self.zone_combo.blockSignals(True)
        self.zone_combo.clear()
        for z in enc.zones:
            if z.kind == "blast":
                self.zone_combo.addItem(f"{zone_name(z, enc)}  ({z.x:.1f}, {z.y:.1f}, r {z.radius:.1f} m)", z.id)
        self.zone_combo.setCurrentIndex(max(0, self.zone_combo.findData(keep)))
        self.zone_combo.blockSignals(False)

    def _fill_projectile(self) -> None:
        """The projectile the weapon's category implies (a missile launcher may fire rockets)."""
        tok = self._token()
        w = tok.weapon(self.weapon_combo.currentData()) if tok is not None else None
        proj = sr5_blast.CATEGORY_PROJECTILE.get(w.category if w is not None else None, "standard")
        self.projectile_combo.blockSignals(True)
        self.projectile_combo.setCurrentIndex(max(0, self.projectile_combo.findData(proj)))
        self.projectile_combo.blockSignals(False)

    # -- the map --------------------------------------------------------------------------------
    def _rolling(self) -> bool:
        return self.resolution is not None and self.resolution.attack is not None

    def _on_selection(self) -> None:
        if not self.isVisible() or not self.follow.isChecked() or self._rolling():
            return
        c = self.controller
        sel = c.selection
        attacker = sel.attacker if sel.attacker in c.token_ids() else self.attacker
        zone = self._selected_zone()
        changed = False
        self._updating = True
        if attacker != self.attacker:
            self.attacker = attacker
            self._fill_attackers()
            self._fill_weapons()
            self._fill_projectile()
            changed = True
        if zone is not None and zone != self.zone_combo.currentData():
            self._fill_zones(zone)
            changed = True
        self._updating = False
        if changed:
            self.replan()

    def _on_state(self) -> None:
        if self.isVisible() and not self._rolling():
            self._updating = True
            self._fill_zones()
            self._fill_weapons(self.weapon_combo.currentData())
            self._updating = False
            self.replan()

    # -- declaration and plan -----------------------------------------------------------------
    def _declaration_changed(self, *_):
        if self._updating:
            return
        sender = self.sender()
        if sender is self.attacker_combo:
            self.attacker = self.attacker_combo.currentData()
            self._updating = True
            self._fill_weapons()
            self._fill_projectile()
            self._updating = False
        elif sender is self.weapon_combo:
            self._updating = True
            self._fill_projectile()
            self._updating = False
            self.damage.clear()
        self.replan()

    def declaration(self) -> sr5_blast.BlastDeclaration | None:
        """The declaration the widgets describe (None without an attacker or a blast zone)."""
        zone = self.zone_combo.currentData()
        if not self.attacker or not zone:
            return None
        tok = self._token()
        w = tok.weapon(self.weapon_combo.currentData()) if tok is not None else None
        implied = sr5_blast.CATEGORY_PROJECTILE.get(w.category if w is not None else None)
        proj = self.projectile_combo.currentData()
        return sr5_blast.BlastDeclaration(
            attacker=self.attacker, zone=zone, weapon=self.weapon_combo.currentData(), edge=self.edge.isChecked(),
            projectile=None if proj == implied else proj, fit_radius=self.fit.isChecked(),
            defenses={t: d for t, d in self.defenses.items() if d != "normal"},
            scatter_dice=self.damage.get("scatter"))

    def replan(self) -> None:
        """Ask the engine for the plan again (declaration, map), then put the GM's changes back."""
        if self._rolling():
            return
        self.resolution = None
        self._set_landing_sketch(None)
        self.plan = None
        self._planned_on = self.controller.encounter
        self._error = ""
        decl = self.declaration()
        if decl is None:
            self._error = ("Draw a blast zone on the map first (the Blast tool, B): its centre is where the "
                           "grenade is aimed" if not self.zone_combo.count() else "Pick the attacker")
        else:
            try:
                plan = self._with_overrides(self.controller.preview(decl))
                dmg = {k: v for k, v in self.damage.items() if k in ("dv", "ap")}
                if dmg and plan.damage is not None:
                    plan = plan.with_damage(**dmg)
                self.plan = plan
            except (CoverfireError, ValueError) as exc:
                self._error = str(exc)
        self._show()

    def set_damage(self, **changes) -> None:
        """The GM changes the DV at the centre, the AP or the scatter dice."""
        if self._updating or self._rolling():
            return
        self.damage.update(changes)
        self.replan()

    # -- showing --------------------------------------------------------------------------------
    def _show(self) -> None:
        c = self.controller
        self._follow_rolling()
        plan = self.plan
        editable = not self._rolling()
        for w in (self.attacker_combo, self.weapon_combo, self.zone_combo, self.projectile_combo, self.fit, self.edge,
                  self.follow, self.dv, self.ap, self.scatter):
            w.setEnabled(editable)
        while self.defense_form.rowCount():
            self.defense_form.removeRow(0)
        if plan is None:
            self.headline.setText(f"{c.name(self.attacker) if self.attacker else 'Nobody'} throws a grenade")
            self.problems.setText(self._error)
            for w in (self.attack, self.blast_info, self.landing, self.caught_title, self.spared, self.notes):
                w.setVisible(False)
            self._set_boxes([])
            self._clear_rolls()
            return
        for w in (self.attack, self.blast_info, self.caught_title, self.notes):
            w.setVisible(True)
        r = self.resolution or self.controller.resolve(plan, steps=0)
        targets = r.targets if r.landing is not None else plan.targets
        for tp in targets:
            if plan.damage is None or not tp.harmed:
                continue
            self._add_defense_row(tp.target, DEFENSE_TEXT.items(), editable)
        d = plan.declaration
        how = "throws" if plan.thrown else "fires"
        aim = f"({plan.aim[0]:.1f}, {plan.aim[1]:.1f})"
        band = f", {plan.band} range" if plan.band else ""
        cost = "Simple Action (Throw Weapon)" if plan.thrown else "Simple Action (Fire Weapon)"
        self.headline.setText(f"{c.name(d.attacker)} {how} {plan.weapon.name} at {d.zone} {aim}: "
                              f"{plan.facts.attacker_distance:.1f} m{band}, {cost}")
        self.problems.setText("\n".join(f"Not allowed: {p}" for p in plan.problems))
        self.attack.set_pool(plan.attack, editable=editable, title="Attack (threshold 3: on target; a miss scatters)")
        self.blast_info.setText(f"{plan.spec.label.capitalize()}: {plan.damage_text()}. Circle {plan.radius:.1f} m. "
                                f"On a miss it scatters {plan.scatter_dice}D6 m minus the hits "
                                f"({sr5_blast.PROJECTILE_LABEL[plan.projectile]}), direction "
                                f"{settings_of(c.encounter).options.scatter_direction}.")
        self._updating = True
        for w, v in ((self.dv, plan.damage.value if plan.damage else 0), (self.ap, plan.ap), (self.scatter, plan.scatter_dice)):
            w.blockSignals(True)
            w.setValue(v)
            w.blockSignals(False)
        self.dv.setEnabled(editable and plan.damage is not None)
        self.ap.setEnabled(editable and plan.damage is not None)
        self._updating = False
        self.notes.setText("\n".join(plan.notes))
        self._show_rolls()

    def _set_boxes(self, targets: list[str]) -> None:
        self.boxes = replace_boxes(self.boxes_layout, self.boxes, targets, lambda t: CaughtBox(self, t))

    def _show_rolls(self) -> None:
        c = self.controller
        plan = self.plan
        r = self.resolution or self.controller.resolve(plan, steps=0)
        facts = r.facts if r.landing is not None else plan.facts
        targets = r.targets if r.landing is not None else plan.targets
        where = "where it landed" if r.moved else "at the aim point"
        self.caught_title.setText(f"Caught {where}: {len(targets)}" if targets else f"Nobody is caught {where}")
        self._set_boxes([tp.target for tp in targets])
        defended = settings_of(c.encounter).options.blast_defense == "dodge"
        for tp in targets:
            box = self.boxes[tp.target]
            box.show_target(plan, tp, not self._rolling(), defended)
            box.show_outcome(r.outcome(tp.target) if r.landing is not None else sr5_blast.BlastOutcome(
                tp.target, tp.facts.distance, tp.metres, tp.dv))
        spared = [f"{c.name(t)}: {why}" for t, why in facts.spared]
        self.spared.setText("Spared: " + "; ".join(spared) if spared else "")
        self.spared.setVisible(bool(spared))
        self.landing.setText(r.landing_text())
        self.landing.setVisible(r.attack is not None)
        allowed = plan.legal or self.force.isChecked()
        req = r.next_roll()
        if req is not None:
            p = req.pool
            who = c.name(req.target)
            lim = limit_text(p)
            if req.step == "direction":
                what = f"Next: Scatter direction: {p.total} {'die' if p.total == 1 else 'dice'} ({p.parts[0].label})"
            elif req.step == "scatter":
                what = f"Next: Scatter: {p.total}D6 metres, minus {r.attack.hits} hit{'s' if r.attack.hits != 1 else ''}"
            else:
                what = f"Next: {STEP_TEXT[req.step]} \u2014 {who}: {p.total} dice{lim}"
                if req.step == "attack":
                    what += ", threshold 3"
            self.dice.set_request(what, enabled=allowed)
            box = self.boxes.get(req.target)
            if box is not None and req.step in ("defense", "soak"):
                self.scroll_to(box)
        else:
            self.dice.set_request(None)
        lines = r.steps()  # the engine names the tokens
        if not lines:
            lines = ["Nothing rolled yet. Roll each test with the encounter's dice, or type the faces of the dice "
                     "you rolled: the attack (3 hits land on the aim point), on a miss the scatter and its "
                     "direction, then each caught token's defense and damage resistance."]
        show_story(self.result, lines)
        done = r.done
        if done:
            outs = []
            for tp in targets:
                o = r.outcome(tp.target)
                name = c.name(tp.target)
                if o.result == "hit":
                    outs.append(f"{name}: {o.boxes} boxes {'Physical' if o.damage_type == 'P' else 'Stun'}")
                else:
                    outs.append(f"{name}: {o.result}")
            self.outcome.setText("; ".join(outs) or "Nobody is caught.")
        else:
            self.outcome.setText("")
        self.apply_button.setEnabled(done and allowed)
        self.restart_button.setEnabled(r.attack is not None)

    def _set_landing_sketch(self, r) -> None:
        """Draw where a scattered blast lands on the map (the circle there and the scatter
        line from the aim point); None takes it down."""
        view = self.controller.window.map_view
        if r is None or not r.moved:
            if getattr(self, "_sketch_shown", False):
                view.set_sketch(None)
                self._sketch_shown = False
            return
        from gui.layers import Sketch

        (ax, ay), (lx, ly) = self.plan.aim, r.landing
        circle = QPainterPath()
        circle.addEllipse(QPointF(lx, ly), self.plan.radius, self.plan.radius)
        line = QPainterPath(QPointF(ax, ay))
        line.lineTo(QPointF(lx, ly))
        sk = Sketch(lines=[circle, line], handles=[(lx, ly)],
                    labels=[(lx, ly, f"lands {r.scatter_metres} m off, {r.bearing:.0f}\u00b0")],
                    colour=QColor(LANDING_COLOUR))
        view.set_sketch(sk)
        self._sketch_shown = True


__all__ = ["BlastPage", "CaughtBox"]
