"""The sr5 attack dialog (DADA): declare, see every pool with each modifier and where it came
from, change any of them, roll or type the dice step by step, and apply the damage.

The attacker is the map's attacker (the selected token) and the targets are the tokens
shift-clicked on the map (they follow the map while nothing is rolled). Every number comes
from the engine through the door (Shadowrun's ``RuleSystem``): :meth:`Sr5Controller.preview`
plans the declaration on the map (the document's ``Tactics``), the GM's changes go through
``AttackPlan.override`` / ``with_damage``, each roll through :meth:`Sr5Controller.resolve` (one
test at a time), the story through ``AttackResolution.steps``, and the result lands with
:meth:`Sr5Controller.act` as one undo step.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.errors import CoverfireError, IllegalActionError
from engine.sr5.attack import AttackDeclaration
from engine.sr5.blast import is_blast_weapon
from engine.sr5.actions import Action, find_weapon, ready_weapons
from engine.sr5.changes import sheet_of
from engine.sr5.tables import CHOKES, FIRING_MODES, current_choke, current_mode, has_choke, weapon_modes
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

DEFENSE_TEXT = {
    "normal": "defends normally",
    "full_defense": "Full Defense (interrupt, -10 Initiative)",
    "block": "Block (melee, -5 Initiative)",
    "dodge": "Dodge (melee, -5 Initiative)",
    "parry": "Parry (melee, -5 Initiative)",
}
COVER_TEXT = {"none": "no cover", "partial": "partial cover", "good": "good cover", "full": "full cover: blind fire"}


class TargetBox(QFrame):
    """One target's pools: its attack (share and own modifiers), defense and soak, and the
    damage it faces (DV, type, AP the GM may change)."""

    def __init__(self, dialog: "AttackPage", target: str):
        super().__init__()
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.dialog = dialog
        self.target = target
        self.header = bold(QLabel(), scale=1.1)
        self.header.setWordWrap(True)
        self.facts = QLabel()
        self.facts.setStyleSheet(f"color: {theme.ink('dim')}")
        self.result = bold(QLabel())
        self.result.setWordWrap(True)
        self.facts.setWordWrap(True)
        self.attack = PoolView("Attack")
        self.defense = PoolView("Defense")
        self.soak = PoolView("Damage resistance")
        self.attack.edited.connect(self._attack_edited)
        self.attack.added.connect(lambda label, v: dialog.add_modifier(label, v, target=target, pool="attack"))
        wire_pool(self.defense, dialog, target, "defense")
        wire_pool(self.soak, dialog, target, "soak")
        self.dv = QSpinBox()
        self.dv.setRange(0, 99)
        self.dv.setKeyboardTracking(False)
        self.dtype = QComboBox()
        self.dtype.addItems(["P", "S"])
        self.ap = QSpinBox()
        self.ap.setRange(-20, 20)
        self.ap.setKeyboardTracking(False)
        self.damage_note = QLabel()
        self.damage_note.setWordWrap(True)
        self.dv.valueChanged.connect(lambda v: dialog.set_damage(target, dv=int(v)))
        self.dtype.currentTextChanged.connect(lambda t: dialog.set_damage(target, damage_type=t))
        self.ap.valueChanged.connect(lambda v: dialog.set_damage(target, ap=int(v)))
        dmg = QHBoxLayout()
        dmg.addWidget(QLabel("Damage"))
        dmg.addWidget(self.dv)
        dmg.addWidget(self.dtype)
        dmg.addWidget(QLabel("AP"))
        dmg.addWidget(self.ap)
        dmg.addStretch(1)
        lay = QVBoxLayout(self)  # stacked: the Action panel is narrow
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.header)
        lay.addWidget(self.facts)
        lay.addWidget(self.result)
        lay.addWidget(self.attack)
        lay.addWidget(self.defense)
        lay.addWidget(self.soak)
        lay.addLayout(dmg)
        lay.addWidget(self.damage_note)

    def show_outcome(self, o, tp) -> None:
        """The result against this target so far (an engine ``TargetOutcome``), in one line."""
        bits = []
        if o.attack is not None:
            bits.append(f"attack {o.attack.hits} hit{'s' if o.attack.hits != 1 else ''}"
                        + (f" ({o.attack.raw_hits} rolled, limit {o.attack.limit})" if o.attack.limited else ""))
        if o.defense is not None:
            bits.append(f"defense {o.defense.hits}")
        colour = "#cfd8dc"
        if o.result == "miss":
            bits.append("MISS")
            colour = "#9aa4ae"
        elif o.result == "graze":
            bits.append("GRAZE: contact, no damage")
            colour = "#ffe082"
        elif o.result == "hit":
            text = f"HIT, {o.net_hits} net: DV {tp.damage.value} + {o.net_hits} = {o.dv}{o.damage_type}"
            if o.damage_type == "S" and tp.damage.type == "P":
                text += f" (armor {o.armor} > DV: Stun)"
            bits.append(text)
            if o.soak is not None:
                bits.append(soak_bit(o))
            colour = "#ff8a65"
        show_result(self.result, bits, colour)

    def _attack_edited(self, key: str, value: int) -> None:
        plan = self.dialog.plan
        if plan is None:
            return
        whole = len(plan.targets) == 1 or not plan.split  # the target's pool holds the common parts
        if whole and key in {p.key for p in plan.common.parts}:
            self.dialog.override(key, value)
        else:
            self.dialog.override(key, value, target=self.target)

    def show_plan(self, plan, tp, editable: bool) -> None:
        d = self.dialog
        name = d.controller.name(tp.target)
        f = tp.facts
        bits = [f"{f.distance:.1f} m"]
        if tp.band:
            bits.append(f"{tp.band} range")
        if plan.kind == "ranged":
            cov = COVER_TEXT.get(f.cover, f.cover)
            if f.cover_fraction is not None and f.cover != "none":
                cov += f" ({cover_percent(f.cover_fraction, f.cover)}% hidden)"
            bits.append(cov)
            if not f.in_spread:
                bits.append("outside the spread")
        self.header.setText(f"{name}  \u2014  " + ", ".join(bits))
        env = tp.environment.label() if tp.environment is not None else ""
        self.facts.setText(f"Environment: {env}" if env else "")
        self.facts.setVisible(bool(env))
        single = len(plan.targets) == 1 or not plan.split
        fixed = frozenset({"share"})
        title = "Attack" if single else f"Attack (share {plan.shares[plan.targets.index(tp)]} of {plan.common.total})"
        self.attack.set_pool(tp.attack, editable=editable, fixed=fixed, title=title)
        extra = f"{DEFENSE_TEXT.get(tp.defense_choice, tp.defense_choice)}" if tp.defense_choice != "normal" else ""
        self.defense.set_pool(tp.defense, editable=editable, title="Defense", extra_total=extra)
        self.soak.set_pool(tp.soak, editable=editable, title="Damage resistance (if hit)")
        for w, v in ((self.dv, tp.damage.value), (self.ap, tp.ap)):
            w.blockSignals(True)
            w.setValue(v)
            w.blockSignals(False)
            w.setEnabled(editable)
        self.dtype.blockSignals(True)
        self.dtype.setCurrentText(tp.damage.type)
        self.dtype.blockSignals(False)
        self.dtype.setEnabled(editable)
        note = f"hit: {tp.damage.value}{tp.damage.type} + net hits"
        if tp.damage.text and tp.damage.text != f"{tp.damage.value}{tp.damage.type}":
            note += f"  ({tp.damage.text})"
        self.damage_note.setText(note)


class AttackPage(RollingPage):
    """See the module docstring. ``applied(Change)`` fires after an attack landed;
    ``blastRequested(attacker, weapon)`` when the GM takes a grenade to a blast zone."""

    blastRequested = Signal(str, str)
    title = "SR5 attack"
    apply_text = "Apply damage"
    apply_tip = "Mark the damage, spend the action and ammunition, log it (one undo step)"
    what = "attack"

    def __init__(self, panel, controller):
        self.intercept = False  # (set by open_for before the first plan)
        self.targets: list[str] = []
        self.target_boxes: dict[str, TargetBox] = {}
        self._weapons_of: str | None = None  # (the attacker whose weapons the combo lists)
        super().__init__(panel, controller)

    # -- building -------------------------------------------------------------------------------
    def build_declaration(self) -> QVBoxLayout:
        self.weapon_combo = QComboBox()
        self.mode_combo = QComboBox()
        self.second_combo = QComboBox()
        self.mode_note = QLabel()
        self.mode_note.setWordWrap(True)
        self.mode_note.setStyleSheet(f"color: {theme.ink('warn')}")
        self.mode_button = QPushButton("Change gun mode")
        self.mode_button.setToolTip("Book Change Gun Mode for the attacker (a Simple Action; Free with a wireless smartgun)")
        self.mode_button.clicked.connect(self.change_mode)
        self.choke_combo = QComboBox()
        self.choke_combo.addItems(list(CHOKES))
        self.choke_button = QPushButton("Change choke")
        self.choke_button.setToolTip("Book Change Choke (a Simple Action; Free with a wireless smartgun)")
        self.choke_button.clicked.connect(self.change_choke)
        self.follow = QCheckBox("Targets follow the map")
        self.follow.setChecked(True)
        self.follow.setToolTip("Click the attacker, shift-click targets on the map")
        self.target_list = QLabel()
        self.target_list.setWordWrap(True)
        self.called = QCheckBox("Called shot (-4)")
        self.edge = QCheckBox("Edge: no limit")
        self.off_hand = QCheckBox("Off hand (-2)")
        self.area = QCheckBox("Area effect (-2 def.)")
        self.charge = QCheckBox("Charge (melee)")
        self.superior = QCheckBox("Superior pos. (+2)")
        self.touch = QCheckBox("Touch only (+2)")
        self.friends = QSpinBox()
        self.friends.setRange(0, 10)
        for box, tip in ((self.edge, "Push the Limit (Edge): no limit, sixes explode"),
                         (self.area, "Area effect: the defense is -2"),
                         (self.charge, "Charge: melee after a run"),
                         (self.superior, "Superior position: melee +2"),
                         (self.touch, "Touch only: melee +2")):
            box.setToolTip(tip)
        for combo in (self.attacker_combo, self.weapon_combo, self.mode_combo, self.second_combo):
            combo.currentIndexChanged.connect(self._declaration_changed)
        for box in (self.called, self.edge, self.off_hand, self.area, self.charge, self.superior, self.touch):
            box.toggled.connect(self._declaration_changed)
        self.friends.valueChanged.connect(self._declaration_changed)
        self.follow.toggled.connect(lambda on: on and self._on_selection())

        decl = self.decl_form = QFormLayout()
        decl.addRow("Attacker", self.attacker_combo)
        decl.addRow("Weapon", self.weapon_combo)
        decl.addRow("Mode", self.mode_combo)
        decl.addRow("", self.mode_note)
        decl.addRow("", self.mode_button)
        self.choke_row = QWidget()
        cr = QHBoxLayout(self.choke_row)
        cr.setContentsMargins(0, 0, 0, 0)
        cr.addWidget(self.choke_combo)
        cr.addWidget(self.choke_button)
        decl.addRow("Choke", self.choke_row)
        decl.addRow("Second gun", self.second_combo)
        self.blast_note = QLabel("A grenade (or launcher) is aimed at a blast zone on the map, not at a token.")
        self.blast_note.setWordWrap(True)
        self.blast_note.setStyleSheet(f"color: {theme.ink('warn')}")
        self.blast_button = QPushButton("Throw/Fire at a blast zone\u2026")
        self.blast_button.setToolTip("Open the grenade page: aim at a blast zone's centre, scatter, who is caught")
        self.blast_button.clicked.connect(self._to_blast)
        decl.addRow("", self.blast_note)
        decl.addRow("", self.blast_button)
        decl.addRow("Targets", self.target_list)
        decl.addRow("", self.follow)
        left = QVBoxLayout()
        left.setContentsMargins(0, 0, 0, 0)
        left.addLayout(decl)
        left.addWidget(bold(QLabel("Defender answers")))
        left.addLayout(self.defense_form)
        checks = QGridLayout()
        for i, box in enumerate((self.called, self.edge, self.off_hand, self.area, self.charge, self.superior,
                                 self.touch)):
            checks.addWidget(box, i // 2, i % 2)
        fr = QHBoxLayout()
        fr.addWidget(QLabel("Friends in melee"))
        fr.addWidget(self.friends)
        fr.addStretch(1)
        left.addWidget(bold(QLabel("Declared")))
        left.addLayout(checks)
        left.addLayout(fr)
        return left

    def build_plan(self) -> QVBoxLayout:
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet(f"color: {theme.ink('dim')}")
        self.common = PoolView("Attack pool before division")
        self.common.edited.connect(lambda k, v: self.override(k, v))
        self.common.added.connect(lambda label, v: self.add_modifier(label, v))
        self.recoil = QLabel()
        self.recoil.setWordWrap(True)
        self.shares = QLabel()
        self.shares.setWordWrap(True)
        bold(self.shares)
        self.boxes_layout = QVBoxLayout()
        centre = QVBoxLayout()
        centre.addWidget(self.common)
        centre.addWidget(self.recoil)
        centre.addWidget(self.shares)
        centre.addLayout(self.boxes_layout)
        centre.addWidget(self.notes)
        return centre

    def applied_note(self, change) -> str:
        return "".join(f"\n{p}" for p in change.prompts)

    def after_apply(self) -> None:
        self.damage.clear()

    # -- opening --------------------------------------------------------------------------------
    def open_for(self, attacker: str | None = None, targets: list[str] | None = None, weapon: str | None = None,
                 intercept: bool = False) -> None:
        """Show the dialog for ``attacker`` (default: the map's attacker or the acting token)
        against ``targets`` (default: the tokens picked on the map); ``intercept``: the
        attack is an Intercept (a melee attack out of turn, Free Action or -5 Initiative)."""
        c = self.controller
        self.intercept = intercept
        sel = c.selection
        if attacker is None:
            attacker = sel.attacker if sel.attacker in c.token_ids() else c.settings.acting
        self.resolution = None
        self.overrides.clear()
        self.damage.clear()
        self.defenses.clear()
        self._updating = True
        self.attacker = attacker
        self._fill_attackers()
        self._fill_weapons(weapon or (sel.weapon if attacker == sel.attacker else None))
        self.targets = list(targets) if targets is not None else c.picked_targets(attacker)
        self._updating = False
        self.show_in_panel()
        self.replan()

    def _fill_weapons(self, weapon: str | None = None) -> None:
        c = self.controller
        self.weapon_combo.blockSignals(True)
        self.second_combo.blockSignals(True)
        self.weapon_combo.clear()
        self.second_combo.clear()
        self.second_combo.addItem("none", None)
        tok = self._token()
        self._weapons_of = self.attacker if tok is not None else None
        if tok is not None:
            ready = ready_weapons(tok)
            for w in tok.weapons:
                self.weapon_combo.addItem(w.name + ("" if w.name in ready else "  (not ready)"), w.name)
                self.second_combo.addItem(w.name, w.name)
            self.weapon_combo.addItem("Unarmed", "Unarmed")
            if weapon is None:  # the weapon it has ready: the engine's one answer (map badges, Targets)
                held = c.encounter.system.ready_weapon(c.encounter, tok)
                weapon = held.name if held is not None else "Unarmed"
            i = self.weapon_combo.findData(weapon)
            self.weapon_combo.setCurrentIndex(max(0, i))
        self.weapon_combo.blockSignals(False)
        self.second_combo.blockSignals(False)
        self._fill_modes()

    def _fill_modes(self, mode: str | None = None) -> None:
        c = self.controller
        self.mode_combo.blockSignals(True)
        self.mode_combo.clear()
        tok = self._token()
        wname = self.weapon_combo.currentData()
        w = None
        if tok is not None and wname:
            try:
                w = find_weapon(tok, wname)
            except IllegalActionError:
                w = None
        modes = weapon_modes(w) if w is not None else ()
        for m in modes:
            fm = FIRING_MODES[m]
            self.mode_combo.addItem(f"{m}  {fm.label} ({fm.rounds} rd, {fm.action})", m)
        if modes:
            want = mode or current_mode(w, sheet_of(tok))
            i = self.mode_combo.findData(want)
            self.mode_combo.setCurrentIndex(max(0, i))
        self.mode_combo.setEnabled(bool(modes))
        choke = w is not None and has_choke(w)
        self.decl_form.setRowVisible(self.choke_row, choke)
        key = (self.attacker, w.name if w is not None else None)
        if choke and key != getattr(self, "_choke_for", None):  # keep the GM's pick while the gun stays
            self.choke_combo.setCurrentText(current_choke(w, sheet_of(tok)))
        self._choke_for = key
        self.mode_combo.blockSignals(False)

    # -- the map --------------------------------------------------------------------------------
    def _rolling(self) -> bool:
        return self.resolution is not None and bool(self.resolution.rolls)

    def _on_selection(self) -> None:
        if not self.isVisible() or not self.follow.isChecked() or self._rolling():
            return
        c = self.controller
        sel = c.selection
        ids = c.token_ids()
        attacker = sel.attacker if sel.attacker in ids else self.attacker
        if attacker not in ids:
            attacker = None  # its token is gone (an undo of its import): no attacker, no plan
        changed = attacker != self.attacker
        if changed:
            self.attacker = attacker
            self._updating = True
            self._fill_attackers()
            self._fill_weapons(sel.weapon)
            self._updating = False
        targets = c.picked_targets(self.attacker)
        if changed or targets != self.targets:
            self.targets = targets
            self.replan()

    def _on_state(self) -> None:
        if self.isVisible() and not self._rolling():
            self._updating = True
            self._fill_attackers()  # (tokens added or deleted; a lost attacker was dropped)
            if self.attacker != self._weapons_of:  # (another attacker now: its own weapons)
                self._fill_weapons()
            self._fill_modes(self.mode_combo.currentData())
            self._updating = False
            self.replan()

    def set_targets(self, targets: list[str]) -> None:
        """Attack these targets (ids, in order: larger shares go first)."""
        self.targets = list(targets)
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
            self._updating = False
            self.targets = [t for t in self.targets if t != self.attacker]
        elif sender is self.weapon_combo:
            self._updating = True
            self._fill_modes()
            self._updating = False
        self.replan()

    def declaration(self) -> AttackDeclaration | None:
        """The declaration the widgets describe (None without an attacker or a target)."""
        if not self.attacker or not self.targets:
            return None
        return AttackDeclaration(
            attacker=self.attacker,
            targets=tuple(self.targets),
            weapon=self.weapon_combo.currentData(),
            mode=self.mode_combo.currentData() if self.mode_combo.isEnabled() else None,
            second_weapon=self.second_combo.currentData(),
            off_hand=self.off_hand.isChecked(),
            called_shot=self.called.isChecked(),
            edge=self.edge.isChecked(),
            area=self.area.isChecked(),
            defenses={t: d for t, d in self.defenses.items() if t in self.targets and d != "normal"},
            charge=self.charge.isChecked(),
            superior_position=self.superior.isChecked(),
            friends_in_melee=int(self.friends.value()),
            touch_only=self.touch.isChecked(),
            intercept=self.intercept,
        )

    def replan(self) -> None:
        """Ask the engine for the plan again (declaration, map facts), then put the GM's
        changes back on it."""
        if self._rolling():
            return
        self.resolution = None
        decl = self.declaration()
        self.plan = None
        self._planned_on = self.controller.encounter
        self._error = ""
        if decl is not None and self._blast_weapon():
            self._error = (f"{decl.weapon} explodes: it is aimed at a blast zone on the map, not at a token "
                           "(Throw/Fire at a blast zone\u2026)")
        elif decl is not None:
            try:
                plan = self._with_overrides(self.controller.preview(decl), lambda t: t in self.targets)
                for t, d in self.damage.items():
                    if t in self.targets:
                        plan = plan.with_damage(t, **d)
                self.plan = plan
            except CoverfireError as exc:
                self._error = str(exc)
        self._show()

    def set_damage(self, target: str, **changes) -> None:
        if self._updating or self._rolling():
            return
        self.damage.setdefault(target, {}).update(changes)
        self.replan()

    # -- showing --------------------------------------------------------------------------------
    def _show(self) -> None:
        c = self.controller
        self._follow_rolling()
        plan = self.plan
        rolling = self._rolling()
        editable = not rolling
        for w in (self.attacker_combo, self.weapon_combo, self.mode_combo, self.second_combo, self.called, self.edge,
                  self.off_hand, self.area, self.charge, self.superior, self.touch, self.friends, self.follow):
            w.setEnabled(editable and (w is not self.mode_combo or self.mode_combo.count() > 0))
        # targets and their answers
        self.target_list.setText(", ".join(c.name(t) for t in self.targets) or "shift-click them on the map")
        while self.defense_form.rowCount():
            self.defense_form.removeRow(0)
        melee = plan is not None and plan.kind == "melee"
        choices = ["normal", "full_defense"] + (["block", "dodge", "parry"] if melee else [])
        for t in self.targets:
            self._add_defense_row(t, [(ch, DEFENSE_TEXT[ch]) for ch in choices], editable)
        # mode note
        self._show_mode_note()
        if plan is None:
            who = c.name(self.attacker) if self.attacker else "nobody"
            self.headline.setText(f"{who} attacks \u2014 pick targets: shift-click them on the map")
            self.problems.setText(self._error)
            self.common.setVisible(False)
            self.recoil.setText("")
            self.shares.setText("")
            self.notes.setText("")
            self._set_boxes([])
            self._clear_rolls()
            return
        names = ", ".join(c.name(t) for t in self.targets)
        mode = f" {plan.mode.id} ({plan.mode.label}, {plan.rounds} rounds)" if plan.mode else ""
        cost = {"simple": "Simple Action", "complex": "Complex Action", "free": "Free Action",
                "interrupt": f"interrupt (-{plan.cost_initiative} Initiative)", "none": "no action"}.get(plan.cost, plan.cost)
        self.headline.setText(f"{c.name(self.attacker)} \u2192 {names}: {plan.weapon.name}{mode}, {cost}")
        self.problems.setText("\n".join(f"Not allowed: {p}" for p in plan.problems))
        multi = len(plan.targets) > 1 and plan.split
        self.common.setVisible(multi)
        if multi:
            self.common.set_pool(plan.common, editable=editable, title=f"Attack pool before division ({len(plan.targets)} targets)")
            self.shares.setText(f"{plan.common.total} dice over {len(plan.targets)} targets \u2192 "
                                + ", ".join(f"{c.name(tp.target)} {s}" for tp, s in zip(plan.targets, plan.shares)))
        else:
            self.shares.setText("")
        self.recoil.setText(f"Recoil: {plan.recoil.text}" if plan.recoil else "")
        self.notes.setText("\n".join(plan.notes))
        self._set_boxes([tp.target for tp in plan.targets])
        for tp in plan.targets:
            self.target_boxes[tp.target].show_plan(plan, tp, editable)
        self._show_rolls()

    def _blast_weapon(self) -> bool:
        tok = self._token()
        w = tok.weapon(self.weapon_combo.currentData()) if tok is not None else None
        return w is not None and is_blast_weapon(w)

    def _to_blast(self) -> None:
        if self.attacker and self.weapon_combo.currentData():
            self.blastRequested.emit(self.attacker, self.weapon_combo.currentData())

    def _show_mode_note(self) -> None:
        c = self.controller
        note, can_change = "", False
        tok = self._token()
        wname = self.weapon_combo.currentData()
        if tok is not None and wname and wname != "Unarmed" and self.mode_combo.count():
            w = tok.weapon(wname)
            cur = current_mode(w, sheet_of(tok)) if w is not None else None
            want = self.mode_combo.currentData()
            if w is not None and cur and want and cur != want:
                note = f"The sheet has {w.name} on {cur}; switching to {want} is Change Gun Mode."
                can_change = True
        self.mode_note.setText(note)
        self.decl_form.setRowVisible(self.mode_note, bool(note))
        self.decl_form.setRowVisible(self.mode_button, can_change)
        blast = self._blast_weapon()
        self.decl_form.setRowVisible(self.blast_note, blast)
        self.decl_form.setRowVisible(self.blast_button, blast)

    def _set_boxes(self, targets: list[str]) -> None:
        self.target_boxes = replace_boxes(self.boxes_layout, self.target_boxes, targets,
                                          lambda t: TargetBox(self, t))

    def _show_rolls(self) -> None:
        plan = self.plan
        allowed = plan.legal or self.force.isChecked()
        r = self.resolution or self.controller.resolve(plan, steps=0)
        req = r.next_roll()
        if req is not None:
            c = self.controller
            p = req.pool
            what = {"attack": "Attack", "defense": "Defense", "soak": "Damage resistance"}[req.step]
            who = c.name(plan.declaration.attacker) if req.step == "attack" else c.name(req.target)
            lim = limit_text(p)
            vs = f" vs {c.name(req.target)}" if req.step == "attack" else ""
            self.dice.set_request(f"Next: {what} \u2014 {who}{vs}: {p.total} dice{lim}", enabled=allowed)
            box = self.target_boxes.get(req.target)
            if box is not None and r.rolls and len(plan.targets) > 1:
                self.scroll_to(box)  # the target being rolled for
        else:
            self.dice.set_request(None)
        lines = r.steps()  # the engine names the targets
        if not lines:
            lines = ["Nothing rolled yet. Roll each test with the encounter's dice, or type the",
                     "faces of the dice you rolled; every step shows here: attack, defense,",
                     "net hits, damage value against armor, damage resistance, boxes."]
        show_story(self.result, lines)
        for tp in plan.targets:
            box = self.target_boxes.get(tp.target)
            if box is not None:
                box.show_outcome(r.outcome(tp.target), tp)
        done = r.done and bool(r.rolls)
        if done:
            outs = []
            for tp in plan.targets:
                o = r.outcome(tp.target)
                name = self.controller.name(tp.target)
                if o.result == "hit":
                    outs.append(f"{name}: hit, {o.boxes} boxes {'Physical' if o.damage_type == 'P' else 'Stun'}")
                else:
                    outs.append(f"{name}: {o.result}")
            self.outcome.setText("; ".join(outs))
        else:
            self.outcome.setText("")
        # no "Apply damage" when nothing hit: the miss still spends the action and the rounds
        hit = done and any(r.outcome(tp.target).result == "hit" for tp in plan.targets)
        self.apply_button.setText("Apply damage" if hit or not done else "Apply the miss")
        self.apply_button.setToolTip(self.apply_tip + " (Enter)" if hit or not done else
                                     "Nothing hit: spend the action and ammunition, log the miss (one undo step)")
        self.apply_button.setEnabled(done and allowed)
        self.restart_button.setEnabled(bool(r.rolls))

    # -- rolling --------------------------------------------------------------------------------
    # -- actions from the dialog ------------------------------------------------------------------
    def change_mode(self) -> None:
        self._act(Action(self.attacker, "change_gun_mode", weapon=self.weapon_combo.currentData(),
                         mode=self.mode_combo.currentData()))

    def change_choke(self) -> None:
        self._act(Action(self.attacker, "change_choke", weapon=self.weapon_combo.currentData(),
                         choke=self.choke_combo.currentText()))

    def _act(self, action: Action) -> None:
        try:
            self.controller.act(action)
        except CoverfireError as exc:
            self.dice.show_error(str(exc))


__all__ = ["AttackPage", "TargetBox"]
