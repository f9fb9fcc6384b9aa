"""The d100 action dialog: pick the shooter, the action, the target(s) on the map; see the
chance with every modifier and its source, the locations the map hides next to the stance
table's; roll or enter the dice; apply (one undo step) and read what happened, step by step.

Every number comes from the engine: :meth:`engine.d100.system.D100.preview` before the roll,
:func:`engine.d100.mapcover.map_cover` for the map's hidden locations, the
:class:`~engine.d100.values.Change` after. The dialog is not modal: while it is open the
shooter stays the attacker and clicking tokens on the map picks targets (shift-click adds
more, for full auto).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.d100.sheet import LOCATIONS, STANCES
from engine.d100.actions import (
    Aim,
    ChangeStance,
    Fire,
    FireTwoPistols,
    Melee,
    Recover,
    RestWeapon,
    SwitchWeapon,
    TargetSpec,
)
from engine.d100.dice import EnteredDice
from engine.d100.mapcover import map_cover
from engine.errors import CoverfireError
from engine.names import token_name
from gui.action_panel import ActionPage
from gui.rules.d100.body import BodyDiagram
from gui.rules.d100.controller import RULESET, action_title
from gui.rules.d100.present import change_html, chance_html, loc_name, locations_text, stance_name
from gui import theme

#: (key, label) of the actions, in the dialog's order.
ACTIONS: tuple[tuple[str, str], ...] = (
    ("aim", "Aim (+20% per action, max +60%)"),
    ("single", "Fire: single shot"),
    ("semi", "Fire: semi-automatic (-10% per shot, each)"),
    ("auto", "Fire: full auto (chance / 5, up to 3 targets)"),
    ("two", "Fire two pistols (-20% each)"),
    ("melee", "Melee attack"),
    ("recover", "Recover (heal self or another)"),
    ("rest", "Rest / unrest weapon"),
    ("switch", "Switch weapon"),
    ("stance", "Change stance"),
)
ATTACKS = ("single", "semi", "auto", "two", "melee")
_OTHER_DICE = re.compile(r"^\s*([a-z ]+(?:#\d+)?)\s*=\s*(\d+)\s*$")


@dataclass
class TargetChoice:
    """The GM's choices for one target: preferred location, whose hidden locations to use
    (``"table"`` or ``"map"``) and a cover value override (None: the rules' default)."""

    prefer: str = "chest"
    use: str = "table"
    cover: int | None = None


def parse_other_dice(text: str) -> dict[str, int]:
    """``"hit#2=40, stun=30"`` -> ``{"hit#2": 40, "stun": 30}``; raises ``ValueError`` naming
    the part it cannot read."""
    out: dict[str, int] = {}
    for part in re.split(r"[,;]", text or ""):
        if not part.strip():
            continue
        m = _OTHER_DICE.match(part.lower())
        if not m:
            raise ValueError(f"cannot read {part.strip()!r}: write label=value, e.g. hit#2=40 or stun=30")
        out[m.group(1).strip()] = int(m.group(2))
    return out


class AttackPage(ActionPage):
    """Signals ``applied(Change)`` after an action landed."""

    title = "d100 action"

    def __init__(self, panel, controller):
        super().__init__(panel)
        self.window_ = controller.window
        self.controller = controller
        self.choices: dict[str, TargetChoice] = {}
        self.covers: dict[str, object] = {}  # target id -> MapCover (or an error text)
        self.targets: list[str] = []
        self.gm_modifiers: list[tuple[str, int]] = []
        self.preview = None
        self.last_change = None
        self._lock_before: bool | None = None
        self._building = False
        self._build()
        controller.stateChanged.connect(self._on_state)
        controller.listen(controller.selection.changed, self._on_selection)

    # -- building -------------------------------------------------------------------------------
    def _build(self) -> None:
        self.shooter = QComboBox()
        self.shooter.currentIndexChanged.connect(self._shooter_changed)
        self.shooter_info = QLabel()
        self.shooter_info.setTextFormat(Qt.TextFormat.RichText)
        self.shooter_info.setWordWrap(True)
        self.action = QComboBox()
        for key, label in ACTIONS:
            self.action.addItem(label, key)
        self.action.setCurrentIndex(1)  # Fire: single shot
        self.action.currentIndexChanged.connect(self._action_changed)
        self.weapon = QComboBox()
        self.weapon.currentIndexChanged.connect(self.refresh_preview)
        self.switch_to = QComboBox()
        self.switch_to.currentIndexChanged.connect(self.refresh_preview)
        self.hand = QComboBox()
        self.hand.addItem("main hand", "main")
        self.hand.addItem("off hand", "off")
        self.hand.currentIndexChanged.connect(self.refresh_preview)
        self.stance = QComboBox()
        for s in STANCES:
            self.stance.addItem(stance_name(s), s)
        self.stance.currentIndexChanged.connect(self.refresh_preview)
        self.recover_loc = QComboBox()
        self.recover_loc.currentIndexChanged.connect(self.refresh_preview)
        self.parry = QCheckBox("Defender parries")
        self.parry.setToolTip("The defender parries when able")
        self.parry.setChecked(True)
        self.parry.toggled.connect(self.refresh_preview)
        self.rest_on = QCheckBox("Rest")
        self.rest_on.setToolTip("Checked: rest the weapon; unchecked: unrest it (free)")
        self.rest_on.setChecked(True)
        self.rest_on.toggled.connect(self.refresh_preview)

        who = QGroupBox("Who and what")
        form = QFormLayout(who)
        form.addRow("Shooter", self.shooter)
        form.addRow("", self.shooter_info)
        form.addRow("Action", self.action)
        self.opt_row = QWidget()
        opt = QHBoxLayout(self.opt_row)
        opt.setContentsMargins(0, 0, 0, 0)
        self.opt_label = QLabel()
        opt.addWidget(self.opt_label)
        # the option's field takes the row (beside a stretch a weapon's name was cut at 1366)
        for w in (self.weapon, self.switch_to, self.hand, self.stance, self.recover_loc, self.parry, self.rest_on):
            if isinstance(w, QComboBox):
                w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                w.setMinimumContentsLength(8)
            opt.addWidget(w, 1 if isinstance(w, QComboBox) else 0)
        form.addRow(self.opt_row)

        # targets
        tg = QGroupBox("Targets")
        self.targets_hint = QLabel()
        self.targets_hint.setWordWrap(True)
        self.targets_hint.setStyleSheet(f"color:{theme.ink('dim')}")
        self.target_rows = QVBoxLayout()  # one small form per target (the panel is narrow)
        self.target_rows.setContentsMargins(0, 0, 0, 0)
        self._target_forms: list[QWidget] = []
        self.figure_for = QComboBox()
        self.figure_for.setToolTip("Whose hidden locations the figures show")
        self.figure_for.currentIndexChanged.connect(lambda _=0: self._show_cover_figures())
        self.clear_targets = QPushButton("Clear targets")
        self.clear_targets.clicked.connect(self._clear_targets)
        self.map_fig = BodyDiagram(compact=True)
        self.table_fig = BodyDiagram(compact=True)
        self.cover_note = QLabel()
        self.cover_note.setWordWrap(True)
        self.cover_note.setTextFormat(Qt.TextFormat.RichText)
        figs = QHBoxLayout()
        figs.addWidget(self.map_fig)
        figs.addWidget(self.table_fig)
        figs.addStretch(1)
        tgl = QVBoxLayout(tg)
        tgl.addWidget(self.targets_hint)
        tgl.addLayout(self.target_rows)
        tgl.addWidget(self.clear_targets, 0, Qt.AlignmentFlag.AlignLeft)
        tgl.addWidget(self.figure_for)
        tgl.addLayout(figs)
        tgl.addWidget(self.cover_note)

        # chance
        ch = QGroupBox("Chance (every modifier and its source)")
        self.reason = QLabel()
        self.reason.setWordWrap(True)
        self.reason.setStyleSheet(f"color:{theme.ink('error')};font-weight:bold")
        self.cost_label = QLabel()
        self.cost_label.setStyleSheet(f"color:{theme.ink('dim')}")
        self.chance_tree = QTreeWidget()
        self.chance_tree.setColumnCount(3)
        self.chance_tree.setHeaderLabels(["", "%", "Source"])
        self.chance_tree.setRootIsDecorated(True)
        self.chance_tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.chance_tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.chance_tree.header().setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.chance_tree.header().setStretchLastSection(False)
        self.chance_tree.setMinimumHeight(180)
        self.chance_tree.setWordWrap(True)
        self.mod_table = QTableWidget(0, 2)
        self.mod_table.setHorizontalHeaderLabels(["GM modifier (all shots)", "%"])
        self.mod_table.verticalHeader().setVisible(False)
        self.mod_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.mod_table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.mod_table.setMaximumHeight(110)
        self.mod_table.itemChanged.connect(self._mods_edited)
        add = QPushButton("+ Modifier")
        add.setToolTip("Add a situational modifier (e.g. darkness -20, long range -10)")
        add.clicked.connect(self.add_modifier_row)
        rem = QPushButton("\u2212 Remove")
        rem.clicked.connect(self._remove_modifier_row)
        mods_bar = QHBoxLayout()
        mods_bar.addWidget(add)
        mods_bar.addWidget(rem)
        mods_bar.addStretch(1)
        chl = QVBoxLayout(ch)
        chl.addWidget(self.reason)
        chl.addWidget(self.cost_label)
        chl.addWidget(self.chance_tree, 1)
        chl.addWidget(self.mod_table)
        chl.addLayout(mods_bar)

        # dice
        dice = self.dice_box = QGroupBox("Dice")
        self.roll_mode = QRadioButton()
        self.enter_mode = QRadioButton("Enter the dice rolled")
        self.enter_mode.setToolTip("Blank fields are rolled for you")
        self.roll_mode.setChecked(True)
        grp = QButtonGroup(self)
        grp.addButton(self.roll_mode)
        grp.addButton(self.enter_mode)
        self.hit_die = QSpinBox()
        self.hit_die.setRange(0, 100)
        self.hit_die.setSpecialValueText("roll")
        self.loc_die = QSpinBox()
        self.loc_die.setRange(0, 100)
        self.loc_die.setSpecialValueText("roll")
        self.dmg_dice = QLineEdit()
        self.dmg_dice.setPlaceholderText("roll (or the dice, e.g. 4 5)")
        self.other_dice = QLineEdit()
        self.other_dice.setPlaceholderText("e.g. hit#2=40, location#2=12, stun=30")
        self.dice_grid = QWidget()
        dg = self.dice_form = QFormLayout(self.dice_grid)
        dg.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        dg.setContentsMargins(18, 0, 0, 0)
        self.hit_label = QLabel("d100 to hit (first shot)")
        dg.addRow(self.hit_label, self.hit_die)
        dg.addRow("d100 location (first hit)", self.loc_die)
        self.dmg_label = QLabel("damage dice")
        dg.addRow(self.dmg_label, self.dmg_dice)
        dg.addRow("other dice", self.other_dice)
        for w in (self.hit_die, self.loc_die, self.dmg_dice, self.other_dice):
            if isinstance(w, QSpinBox):
                w.valueChanged.connect(lambda _=0: self.enter_mode.setChecked(True))
            else:
                w.textEdited.connect(lambda _="": self.enter_mode.setChecked(True))
        dl = QVBoxLayout(dice)
        dl.addWidget(self.roll_mode)
        dl.addWidget(self.enter_mode)
        dl.addWidget(self.dice_grid)

        # result
        res = QGroupBox("Result")
        self.result = QTextBrowser()
        self.result.setMinimumHeight(160)
        self.result.setOpenLinks(False)
        self.result.setPlaceholderText("Apply an action to see what happened, step by step.")
        rl = QVBoxLayout(res)
        rl.addWidget(self.result)

        self.apply_button = QPushButton("Apply")
        self.apply_button.setDefault(True)
        self.apply_button.setToolTip("Resolve the action, apply it to the encounter (Ctrl+Z undoes it) and log it")
        self.apply_button.clicked.connect(self.apply)
        self.close_button = QPushButton("Close")
        self.close_button.setToolTip("Close the action (Esc): nothing is applied")
        self.close_button.clicked.connect(self.cancel)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color:{theme.ink('error')}")
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.apply_button)
        buttons.addWidget(self.close_button)

        # one column: the Action panel is narrow; the Apply button stays in the footer
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 4, 6, 4)
        for box in (who, tg, ch, dice, res):
            outer.addWidget(box)
        outer.addStretch(1)
        foot = QVBoxLayout()
        foot.setContentsMargins(0, 4, 0, 0)
        foot.addWidget(self.message)
        foot.addLayout(buttons)
        self.footer = QWidget()
        self.footer.setLayout(foot)
        QShortcut(QKeySequence("Ctrl+Return"), self, activated=self.apply)

    # -- opening and closing --------------------------------------------------------------------
    def open_for(self, shooter: str | None = None) -> None:
        """Show the dialog with ``shooter`` (default: the map's attacker or selected token)."""
        c = self.controller
        sel = c.selection
        shooter = shooter or sel.attacker or c.shown_token()
        if self._lock_before is None:
            self._lock_before = sel.attacker_locked
        self._fill_shooters(shooter)
        sel.attacker_locked = True
        if shooter is not None and sel.attacker != shooter:
            sel.set_attacker(shooter)
        self.show_in_panel()
        self._on_selection()

    def page_closed(self) -> None:
        """The panel let the page go (Close, Escape, another encounter): give back the
        attacker lock and forget the targets, choices and result."""
        self.clear()
        if self._lock_before is not None:
            self.controller.selection.attacker_locked = self._lock_before
            self._lock_before = None
            self.controller.selection.changed.emit()

    def clear(self) -> None:
        """Forget what was set up and shown (targets, choices, map covers, the result)."""
        self.targets = []
        self.choices.clear()
        self.covers.clear()
        self.preview = None
        self.result.clear()
        self.message.clear()

    def apply_default(self):
        if self.apply_button.isEnabled():
            return self.apply()
        return None

    # -- reading the choices --------------------------------------------------------------------
    @property
    def encounter(self):
        return self.controller.document.committed

    def shooter_id(self) -> str | None:
        return self.shooter.currentData()

    def action_key(self) -> str:
        return self.action.currentData()

    def set_action(self, key: str) -> None:
        self.action.setCurrentIndex(self.action.findData(key))

    def max_targets(self) -> int:
        key = self.action_key()
        if key == "auto":
            return RULESET.settings(self.encounter).auto_targets
        if key == "two":
            return 2
        if key in ("single", "semi", "melee", "aim", "recover"):
            return 1
        return 0

    def target_spec(self, tid: str) -> TargetSpec:
        """The target with the GM's choices (preferred location, map or table, cover)."""
        ch = self.choices.setdefault(tid, TargetChoice())
        hidden = None
        mc = self.covers.get(tid)
        if ch.use == "map" and mc is not None and not isinstance(mc, str):
            hidden = mc.map_hidden
        return TargetSpec(tid, prefer=ch.prefer, hidden=hidden, cover=ch.cover)

    def build_action(self):
        """The engine action the dialog describes now (None when it lacks a target)."""
        a = self.shooter_id()
        key = self.action_key()
        if a is None:
            return None
        used = self.targets[: self.max_targets()] if self.max_targets() else []
        mods = tuple(self.gm_modifiers)
        if key == "aim":
            if not used:
                return None
            ch = self.choices.setdefault(used[0], TargetChoice())
            mc = self.covers.get(used[0])
            full = mc.map_full if (ch.use == "map" and mc is not None and not isinstance(mc, str)) else None
            return Aim(a, used[0], full_cover=full)
        if key in ("single", "semi", "auto"):
            if not used:
                return None
            return Fire(a, tuple(self.target_spec(t) for t in used), mode=key,
                        weapon=self.weapon.currentData(), modifiers=mods)
        if key == "two":
            if not used:
                return None
            off = self.target_spec(used[1]) if len(used) > 1 else None
            return FireTwoPistols(a, self.target_spec(used[0]), off, mode="single", modifiers=mods)
        if key == "melee":
            if not used:
                return None
            return Melee(a, self.target_spec(used[0]), parry=None if self.parry.isChecked() else False, modifiers=mods)
        if key == "recover":
            patient = used[0] if used else None
            return Recover(a, patient, self.recover_loc.currentData(), modifiers=mods)
        if key == "rest":
            return RestWeapon(a, self.rest_on.isChecked())
        if key == "switch":
            return SwitchWeapon(a, self.switch_to.currentData(), hand=self.hand.currentData())
        if key == "stance":
            return ChangeStance(a, self.stance.currentData())
        return None

    def dice(self):
        """The dice source: the encounter's (seeded or random), or the GM's entries first.
        Raises ``ValueError`` for entries it cannot read."""
        base = RULESET.dice_for(self.encounter)
        if self.roll_mode.isChecked():
            return base
        entries: dict[str, int] = {}
        key = self.action_key()
        first = "recover" if key == "recover" else "hit"
        if self.hit_die.value():
            entries[first] = self.hit_die.value()
        if self.loc_die.value():
            entries["location"] = self.loc_die.value()
        dmg = self.dmg_dice.text().strip()
        if dmg:
            vals = [v for v in re.split(r"[\s,+]+", dmg) if v]
            if not all(v.isdigit() for v in vals):
                raise ValueError(f"damage dice {dmg!r}: write the dice as numbers, e.g. 4 5")
            for i, v in enumerate(vals):
                entries["damage" if i == 0 else f"damage#{i + 1}"] = int(v)
        entries.update(parse_other_dice(self.other_dice.text()))
        return EnteredDice(entries, fallback=base)

    # -- reacting -------------------------------------------------------------------------------
    def _fill_shooters(self, current: str | None) -> None:
        enc = self.controller.document.encounter
        self._building = True
        self.shooter.clear()
        for t in enc.tokens:
            self.shooter.addItem(f"{token_name(t)} ({t.side})", t.id)
        i = self.shooter.findData(current)
        self.shooter.setCurrentIndex(max(0, i))
        self._building = False
        self._shooter_changed()

    def _shooter_changed(self, *_) -> None:
        if self._building:
            return
        a = self.shooter_id()
        sel = self.controller.selection
        if a is not None and self.isVisible() and sel.attacker != a:
            sel.set_attacker(a)
        self.targets = [t for t in self.targets if t != a]
        self._fill_options()
        self._refresh_targets()

    def _action_changed(self, *_) -> None:
        self._fill_options()
        self._refresh_targets()

    def _on_selection(self) -> None:
        if not self.isVisible() and self._lock_before is None:
            return
        enc = self.controller.document.encounter
        ids = {t.id for t in enc.tokens}
        a = self.shooter_id()
        sel = self.controller.selection
        picked = [i for i in sel.targets if i in ids and i != a] or [i for i in sel.ids if i in ids and i != a]
        if picked != self.targets:
            self.targets = picked
            self._refresh_targets()

    def _on_state(self) -> None:
        if not self.controller.active:
            self.close()
            return
        if self.isVisible():
            enc = self.controller.document.encounter
            ids = [t.id for t in enc.tokens]
            if [self.shooter.itemData(i) for i in range(self.shooter.count())] != ids:
                self._fill_shooters(self.shooter_id())
            self.covers.clear()
            self._fill_options()
            self._refresh_targets()

    def _clear_targets(self) -> None:
        sel = self.controller.selection
        sel.select([self.shooter_id()] if self.shooter_id() else [], self.controller.document.encounter,
                   keep_attacker=True)

    def _fill_options(self) -> None:
        """Show the option widgets the action needs, filled from the shooter's sheet."""
        enc = self.encounter
        a = self.shooter_id()
        key = self.action_key()
        self._building = True
        for w in (self.weapon, self.switch_to, self.hand, self.stance, self.recover_loc, self.parry, self.rest_on):
            w.setVisible(False)
        label = ""
        if a is not None:
            s = RULESET.sheet(enc.token(a))
            status = RULESET.status(enc, a)
            held = s.weapon or "empty hand"
            off = f", off hand {s.offhand}" if s.offhand else ""
            aim = f"; aiming at {self.controller.name(s.aim_target)} +{status.aim_bonus}%" if s.aim_target else ""
            rest = "; weapon rested" if s.rested else ""
            st = RULESET.settings(enc)
            acts = (f"{s.actions_left} of {status.actions_per_round} actions left" if st.round and s.actions_left is not None
                    else f"{status.actions_per_round} actions per round")
            why = f"<br><span style='color:{theme.ink('error')}'>cannot act: {status.reason}</span>" if status.reason else ""
            self.shooter_info.setText(f"{acts} \u00b7 {stance_name(s.stance)} \u00b7 holds <b>{held}</b>{off}{aim}{rest}{why}")
            if key in ("single", "semi", "auto"):
                label = "Weapon"
                keep = self.weapon.currentData()
                self.weapon.clear()
                for name in (s.weapon, s.offhand):
                    w = s.weapon_named(name)
                    if w is not None and not w.melee:
                        # its modes in the tooltip: the whole text was cut at 1366 (issue 30 item 8)
                        self.weapon.addItem(f"{w.name} ({w.damage})", w.name)
                        self.weapon.setItemData(self.weapon.count() - 1, f"{w.name}: {w.damage}; modes {', '.join(w.modes)}",
                                                Qt.ItemDataRole.ToolTipRole)
                if self.weapon.count() == 0:
                    self.weapon.addItem("(no ranged weapon held)", None)
                i = self.weapon.findData(keep)
                self.weapon.setCurrentIndex(max(0, i))
                self.weapon.setVisible(True)
            elif key == "switch":
                label = "Take"
                keep = self.switch_to.currentData()
                self.switch_to.clear()
                for w in s.weapons:
                    where = " (on the floor)" if w.name in s.dropped else (" (held)" if w.name in (s.weapon, s.offhand) else "")
                    self.switch_to.addItem(f"{w.name}{where}", w.name)
                self.switch_to.addItem("(empty the hand)", None)
                i = self.switch_to.findData(keep)
                self.switch_to.setCurrentIndex(max(0, i))
                self.switch_to.setVisible(True)
                self.hand.setVisible(True)
            elif key == "stance":
                label = "New stance"
                if self.stance.currentData() == s.stance:
                    self.stance.setCurrentIndex((STANCES.index(s.stance) + 1) % len(STANCES))
                self.stance.setVisible(True)
            elif key == "melee":
                self.parry.setVisible(True)
            elif key == "rest":
                self.rest_on.setChecked(not s.rested)
                self.rest_on.setVisible(True)
        if key == "recover":
            label = "Heal"
        self.opt_label.setText(label)
        self.opt_row.setVisible(key in ("single", "semi", "auto", "switch", "stance", "melee", "rest", "recover"))
        # dice only where something is rolled; location and damage only for attacks
        self.dice_box.setVisible(key in ATTACKS or key == "recover")
        for row in (1, 2):
            self.dice_form.setRowVisible(row, key in ATTACKS)
        self.other_dice.setPlaceholderText("e.g. heal=2" if key == "recover" else "e.g. hit#2=40, location#2=12, stun=30")
        self._building = False

    def _fill_recover_locations(self) -> None:
        enc = self.encounter
        used = self.targets[:1]
        patient = used[0] if used else self.shooter_id()
        keep = self.recover_loc.currentData()
        self._building = True
        self.recover_loc.clear()
        self.recover_loc.addItem("the injury total", None)
        if patient is not None:
            s = RULESET.sheet(enc.token(patient))
            for loc in LOCATIONS:
                w = s.wound(loc)
                if w.damage or w.step or w.bleeding:
                    self.recover_loc.addItem(f"{loc_name(loc)} ({w.severity}, {w.damage})", loc)
        i = self.recover_loc.findData(keep)
        self.recover_loc.setCurrentIndex(max(0, i))
        self.recover_loc.setVisible(True)
        self._building = False

    def _refresh_targets(self) -> None:
        """The targets table: per target the preferred location, the map's and the stance
        table's hidden locations, which one to use and the cover value."""
        enc = self.encounter
        a = self.shooter_id()
        key = self.action_key()
        n = self.max_targets()
        used = self.targets[:n] if n else []
        if key == "recover":
            self._fill_recover_locations()
        hints = {
            "aim": "Click the target on the map.",
            "single": "Click the target on the map.",
            "semi": "Click the target on the map.",
            "auto": f"Click a target on the map; shift-click to add up to {n} (shots split evenly, extra to the first).",
            "two": "Click the target on the map; shift-click a second one for the off-hand pistol.",
            "melee": "Click the target on the map (within reach).",
            "recover": "Click the patient on the map (none: the shooter heals itself).",
        }
        hint = hints.get(key, "This action needs no target.")
        if len(self.targets) > len(used) and n:
            hint += f"  <span style='color:{theme.ink('warn')}'>{len(self.targets) - len(used)} more selected, not used.</span>"
        self.targets_hint.setText(hint)
        self.clear_targets.setVisible(n > 0)
        attack = key in ATTACKS or key == "aim"
        shown = {1: key in ATTACKS, 2: attack, 3: key in ATTACKS}
        for old in self._target_forms:  # drop the old forms and their widgets
            self.target_rows.removeWidget(old)
            old.hide()
            old.deleteLater()
        self._target_forms = []
        keep_fig = self.figure_for.currentData()
        self.figure_for.blockSignals(True)
        self.figure_for.clear()
        tactics = self.controller.document.tactics
        for row, tid in enumerate(used):
            ch = self.choices.setdefault(tid, TargetChoice())
            if attack and tid not in self.covers and a is not None:
                try:
                    self.covers[tid] = map_cover(enc, a, tid, tactics)
                except (CoverfireError, ValueError) as exc:
                    self.covers[tid] = f"The map cannot say: {exc}"
            mc = self.covers.get(tid)
            name = self.controller.name(tid)
            if key == "two":
                name += "  (main pistol)" if row == 0 else "  (off-hand pistol)"
            form_w = QGroupBox(name)
            form = QFormLayout(form_w)
            form.setContentsMargins(6, 2, 6, 2)
            self.target_rows.addWidget(form_w)
            self._target_forms.append(form_w)
            self.figure_for.addItem(f"Figures: {name}", tid)
            prefer = QComboBox()
            for loc in LOCATIONS:
                prefer.addItem(loc_name(loc), loc)
            prefer.setCurrentIndex(LOCATIONS.index(ch.prefer))
            prefer.setToolTip("Where a placed shot goes: the location roll moves up to 20 toward it")
            prefer.currentIndexChanged.connect(lambda _=0, t=tid, w=prefer: self._set_choice(t, prefer=w.currentData()))
            if shown[1]:
                form.addRow("Preferred location", prefer)
            use = QComboBox()
            if mc is None or isinstance(mc, str) or mc.agrees:
                use.addItem("map and table agree" if mc is not None and not isinstance(mc, str) else "stance table",
                            "table")
                use.setEnabled(False)
                ch.use = "table"
            else:
                use.addItem("stance table (the rule)", "table")
                use.addItem("the map", "map")
                use.setCurrentIndex(1 if ch.use == "map" else 0)
                use.setStyleSheet(f"QComboBox {{ color: {theme.ink('warn')}; }}")
                use.setToolTip("The map and the stance table differ: pick whose hidden locations this attack uses")
                use.currentIndexChanged.connect(lambda _=0, t=tid, w=use: self._set_choice(t, use=w.currentData()))
            if shown[2]:
                form.addRow("Hidden locations", use)
            cover = QSpinBox()
            cover.setRange(0, 1000)
            default_cover = self._default_cover(tid)
            cover.setValue(ch.cover if ch.cover is not None else default_cover)
            cover.setSuffix("" if ch.cover is not None else " (default)")
            cover.setToolTip("Subtracted from a hit's damage on a hidden location, before armour")
            cover.valueChanged.connect(lambda v, t=tid, d=default_cover, w=cover: self._set_cover(t, v, d, w))
            if shown[3]:
                form.addRow("Cover value", cover)
            if not any(shown.values()):
                form_w.setFlat(True)
        self.figure_for.setCurrentIndex(max(0, self.figure_for.findData(keep_fig)))
        self.figure_for.setVisible(attack and len(used) > 1)
        self.figure_for.blockSignals(False)
        self._show_cover_figures()
        self.refresh_preview()

    def _default_cover(self, tid: str) -> int:
        enc = self.encounter
        s = RULESET.sheet(enc.token(tid))
        return s.cover if s.cover is not None else RULESET.settings(enc).cover_value

    def _set_choice(self, tid: str, **kw) -> None:
        ch = self.choices.setdefault(tid, TargetChoice())
        for k, v in kw.items():
            setattr(ch, k, v)
        self._show_cover_figures()
        self.refresh_preview()

    def _set_cover(self, tid: str, value: int, default: int, widget: QSpinBox) -> None:
        ch = self.choices.setdefault(tid, TargetChoice())
        ch.cover = None if value == default else value
        widget.setSuffix("" if ch.cover is not None else " (default)")
        self.refresh_preview()

    def set_target_choice(self, tid: str, *, prefer: str | None = None, use: str | None = None,
                          cover: int | None = None) -> None:
        """Set a target's choices as the widgets would (for scripting and tests)."""
        kw = {k: v for k, v in (("prefer", prefer), ("use", use), ("cover", cover)) if v is not None}
        self._set_choice(tid, **kw)
        self._refresh_targets()

    def _show_cover_figures(self) -> None:
        row = max(0, self.figure_for.currentIndex())
        n = self.max_targets()
        used = self.targets[:n] if n else []
        attack = self.action_key() in ATTACKS or self.action_key() == "aim"
        mc = self.covers.get(used[row]) if attack and row < len(used) else None
        show = mc is not None and not isinstance(mc, str)
        self.map_fig.setVisible(show)
        self.table_fig.setVisible(show)
        self.cover_note.setVisible(attack and bool(used))
        if not show:
            self.cover_note.setText(mc if isinstance(mc, str) else "")
            return
        name = self.controller.name(mc.target)
        shooter = self.controller.name(mc.shooter)
        self.map_fig.set_hidden(mc.map_hidden, mc.fractions, "Map")
        self.table_fig.set_hidden(mc.table_hidden, None, "Stance table")
        use = self.choices.get(mc.target, TargetChoice()).use
        full = " <b>(full cover: no aiming)</b>" if mc.map_full else ""
        note = (f"<b>{name}</b> seen from {shooter}'s eye<br>"
                f"<b>Map</b> hides: {locations_text(mc.map_hidden)}{full}<br>"
                f"<b>Stance table</b> ({stance_name(mc.stance)}) hides: {locations_text(mc.table_hidden)}<br>")
        if mc.agrees:
            note += f"<span style='color:{theme.ink('good')}'>The map agrees with the stance table.</span>"
        else:
            parts = []
            if mc.only_map:
                parts.append(f"only the map hides {locations_text(mc.only_map)}")
            if mc.only_table:
                parts.append(f"only the table hides {locations_text(mc.only_table)}")
            note += (f"<span style='color:{theme.ink('warn')}'>They differ: {'; '.join(parts)}.</span><br>"
                     f"This attack uses <b>{'the map' if use == 'map' else 'the stance table'}</b> "
                     "(change it under the target).")
        note += (f"<br><span style='color:{theme.ink('dim')}'>Hatched: hidden (cover value applies). Numbers: % of a "
                 f"partly hidden location; it counts as hidden from {round(mc.threshold * 100)}%.</span>")
        self.cover_note.setText(note)

    # -- modifiers ------------------------------------------------------------------------------
    def add_modifier_row(self, label: str = "GM modifier", value: int = -10) -> None:
        row = self.mod_table.rowCount()
        self.mod_table.blockSignals(True)
        self.mod_table.insertRow(row)
        self.mod_table.setItem(row, 0, QTableWidgetItem(label))
        self.mod_table.setItem(row, 1, QTableWidgetItem(str(value)))
        self.mod_table.blockSignals(False)
        self._mods_edited()

    def _remove_modifier_row(self) -> None:
        row = self.mod_table.currentRow()
        if row < 0:
            row = self.mod_table.rowCount() - 1
        if row >= 0:
            self.mod_table.removeRow(row)
            self._mods_edited()

    def _mods_edited(self, *_) -> None:
        mods = []
        bad = []
        for row in range(self.mod_table.rowCount()):
            label_item, value_item = self.mod_table.item(row, 0), self.mod_table.item(row, 1)
            label = (label_item.text() if label_item else "").strip() or "GM modifier"
            text = (value_item.text() if value_item else "").strip().replace("%", "")
            try:
                mods.append((label, int(text)))
            except ValueError:
                bad.append(f"row {row + 1}: {text!r} is not a whole number of percent")
        self.gm_modifiers = mods
        self.message.setText("; ".join(bad))
        self.refresh_preview()

    # -- preview ----------------------------------------------------------------------------------
    def refresh_preview(self, *_) -> None:
        """Ask the engine for the chances of the action as it stands."""
        if self._building:
            return
        enc = self.encounter
        try:
            action = self.build_action()
        except ValueError as exc:
            action = None
            self.reason.setText(str(exc))
        self.chance_tree.clear()
        self.preview = None
        seed = RULESET.settings(enc).seed
        st = RULESET.settings(enc)
        self.roll_mode.setText(f"Roll (seeded: {seed}, roll #{st.rolls + 1})" if seed is not None else "Roll (random)")
        self.roll_mode.setToolTip("The encounter's dice: seeded, so the same fight replays with the same rolls"
                                  if seed is not None else "The encounter has no seed: random dice")
        if action is None:
            self.cost_label.clear()
            self.reason.setText("Pick a target on the map." if self.max_targets() else "")
            self.apply_button.setEnabled(False)
            return
        pre = self.controller.system.preview(enc, action)
        self.preview = pre
        self.reason.setText("" if pre.legal else f"Not possible now: {pre.reason}")
        self.cost_label.setText("Free action (costs no action)." if pre.cost == 0 else
                                f"Costs {pre.cost} action of {self.controller.name(action.actor)}'s speed.")
        self.apply_button.setEnabled(pre.legal)
        for atk in pre.attacks:
            shots = atk.shots
            first = shots[0]
            top = QTreeWidgetItem([f"{self.controller.name(atk.target)} with {atk.weapon}: "
                                   f"{len(shots)} shot{'s' if len(shots) != 1 else ''}",
                                   f"{first.value}", ""])
            f = top.font(0)
            f.setBold(True)
            top.setFont(0, f)
            top.setFont(1, f)
            self.chance_tree.addTopLevelItem(top)
            for m in first.modifiers:
                QTreeWidgetItem(top, [m.label, f"{m.value:+d}" if m is not first.modifiers[0] else str(m.value), m.source])
            if len(shots) > 1:
                vals = ", ".join(f"{c.value}%" for c in shots)
                QTreeWidgetItem(top, [f"each shot: {vals}", "", "per shot"])
            placed = (f"placed shot on a roll \u2264 {first.placed_max} "
                      f"({'half: aimed' if first.aimed else 'a tenth: unaimed'}), toward {loc_name(atk.prefer)}"
                      if first.placed_max > 0 else "cannot be placed")
            QTreeWidgetItem(top, [placed, "", "placed"])
            QTreeWidgetItem(top, [f"1\u2013{first.auto_success} always hits, {first.auto_failure}\u2013100 always misses",
                                  "", "dice"])
            src = {"stance": "stance table", "given": "as picked"}.get(atk.hidden_source, atk.hidden_source)
            QTreeWidgetItem(top, [f"hidden ({src}): {locations_text(atk.hidden)}; cover value {atk.cover}", "",
                                  "cover"])
            if atk.parry is not None:
                QTreeWidgetItem(top, [f"{self.controller.name(atk.target)} parries: {atk.parry.text()}", "", "parry"])
            top.setExpanded(True)
        if pre.recover is not None:
            top = QTreeWidgetItem([f"Recover {self.controller.name(getattr(action, 'patient', None) or action.actor)}: "
                                   f"heals {pre.heal} on success", f"{pre.recover.value}", ""])
            self.chance_tree.addTopLevelItem(top)
            for m in pre.recover.modifiers:
                QTreeWidgetItem(top, [m.label, str(m.value), m.source])
            top.setExpanded(True)
        if not pre.attacks and pre.recover is None and pre.legal:
            self.chance_tree.addTopLevelItem(QTreeWidgetItem(["No roll needed.", "", ""]))
        self.chance_tree.resizeColumnToContents(1)
        # damage dice label
        weapon = None
        if pre.attacks:
            s = RULESET.sheet(enc.token(action.actor))
            w = s.weapon_named(pre.attacks[0].weapon)
            weapon = w.damage if w is not None else None
        self.dmg_label.setText(f"damage dice ({weapon})" if weapon else "damage dice")
        self.hit_label.setText("d100 recover roll" if self.action_key() == "recover" else "d100 to hit (first shot)")

    def apply(self) -> object | None:
        """Resolve and apply the action (one undo step); show the result. Returns the
        engine's Change, or None when it was refused (the reason is shown)."""
        self.message.clear()
        try:
            action = self.build_action()
            if action is None:
                self.message.setText("Pick a target on the map first.")
                return None
            dice = self.dice()
            title = action_title(self.encounter, action)
            change = self.controller.apply(action, dice)
        except (CoverfireError, ValueError) as exc:
            self.message.setText(str(exc))
            return None
        self.last_change = change
        html = f"<b>{escape(title)}</b><br>" + change_html(change, self.controller.name)
        if isinstance(dice, EnteredDice):
            unused = sorted(set(dice.entered) - dice.used_entries)
            if unused:
                html += (f"<br><span style='color:{theme.ink('warn')}'>Entered but not needed: "
                         + ", ".join(f"{k}={dice.entered[k]}" for k in unused) + "</span>")
        self.result.setHtml(html)
        if self.enter_mode.isChecked():
            for w in (self.hit_die, self.loc_die):
                w.blockSignals(True)
                w.setValue(0)
                w.blockSignals(False)
            self.dmg_dice.clear()
            self.other_dice.clear()
            self.roll_mode.setChecked(True)
        self.applied.emit(change)
        return change


#: The old name (the action was a dialog before it moved into the Action panel).
AttackDialog = AttackPage

__all__ = ["ACTIONS", "AttackDialog", "AttackPage", "TargetChoice", "parse_other_dice", "chance_html"]
