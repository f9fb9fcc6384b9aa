"""d100 > Rules settings…: the encounter's d100 settings (the numbers the seed leaves open,
:class:`engine.d100.sheet.Settings`, docs/d100.md) as a dialog instead of JSON.

Every setting shows its value in this encounter and the documented default beside it
(``Settings()``'s own, so the two cannot drift apart); "Reset to defaults" puts every
default back in the editors. The location table is edited as d100 ranges per location and
checked by :func:`engine.d100.sheet.table_from_ranges`; everything else by the engine's model
(:class:`~engine.d100.sheet.Settings` validators). What is wrong is shown beside the tab
and under the tabs, naming the location or step, and OK stays disabled. OK lands the new
settings on the document as one undo step, "d100 rules settings"; the fight's saved state
(round, order, log, dice position) is kept.

No rule here: the ranges, defaults and checks are the engine's.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.d100.sheet import (
    DEFAULT_LOCATION_TABLE,
    SEVERITIES,
    LocationTableError,
    Settings,
    location_ranges,
    table_from_ranges,
    threshold_fault,
)
from gui import theme
from gui.rules.widgets import bold
from gui.rules.d100.controller import RULESET

UNDO_TEXT = "d100 rules settings"

def _bad() -> str:
    """A field the rules refused: framed in the theme's error ink."""
    return f"border: 2px solid {theme.ink('error')}"

#: The location rows, head to foot as in the default table (fixed, whatever the roll order).
ROW_LOCATIONS: tuple[str, ...] = tuple(loc for loc, _ in DEFAULT_LOCATION_TABLE)
STEPS: tuple[str, ...] = SEVERITIES[1:]  # light ... crippled

#: Words for the choices of the Literal settings.
CHOICES: dict[str, dict[str, str]] = {
    "crossing_effects": {
        "each": "applies each step's effects, in order",
        "highest": "applies only the last step's effects",
    },
    "armour_wear": {
        "half_down": "half the damage reaching it, rounded down",
        "half_up": "half the damage reaching it, rounded up",
    },
    "armour_wear_of": {
        "shot": "the shot's damage, before cover",
        "after_cover": "what cover leaves of the shot",
    },
    "recover_by": {
        "actor": "the one who recovers",
        "patient": "the wounded one",
    },
}
_SHORT_CHOICE = {"each": "each step", "highest": "last step only", "half_down": "rounded down",
                 "shot": "the shot", "after_cover": "after cover",
                 "half_up": "rounded up", "actor": "the one who recovers", "patient": "the wounded one"}


@dataclass(frozen=True)
class Spec:
    """One scalar setting as the dialog shows it: the ``Settings`` field ``name``, the
    ``label`` before its editor, the ``unit`` after it, the tab it is on and a ``tip``."""

    name: str
    label: str
    tab: str
    unit: str = ""
    tip: str = ""


TABS: tuple[str, ...] = ("Hit locations", "Wounds", "Chances", "Map, recovery, dice")

#: Every scalar setting, in the order shown (the location table and thresholds have their
#: own grids on the first two tabs).
SPECS: tuple[Spec, ...] = (
    Spec("placed_shift", "A placed shot moves the location roll up to", "Hit locations", "points",
         "Seed: a placed shot moves the location roll up to 20 points toward the preferred location."),
    Spec("crossing_effects", "A hit that crosses several steps", "Wounds", "",
         "The seed: effects happen every time a threshold is crossed."),
    Spec("head_stun_chance", "A head hit that reaches no stunning step stuns on d100 \u2264", "Wounds", "%",
         "\"Head shots always have a chance to stun\" (any damage, even 0 through a helmet)."),
    Spec("pass_out_chance", "Pass out from system shock on d100 \u2264", "Wounds", "%"),
    Spec("drop_chance", "Drop the weapon on d100 \u2264", "Wounds", "%",
         "Rolled only when that arm holds something."),
    Spec("cover_value", "Cover subtracts from a hit on a hidden location", "Wounds", "damage",
         "Subtracted before armour; cover does not wear. A character's own cover value "
         "(sheet) or the attack dialog's overrides it."),
    Spec("armour_wear", "Pierced armour loses durability", "Wounds", ""),
    Spec("armour_wear_of", "The wear is half of", "Wounds", "",
         "Seed: \"equal to half the damage of the shot\"."),
    Spec("base_chance", "Base chance when the weapon's skill is not on the sheet", "Chances", "%"),
    Spec("aim_step", "Aim: bonus per Aim action", "Chances", "%"),
    Spec("aim_max", "Aim: bonus at most", "Chances", "%"),
    Spec("rest_bonus", "Rested weapon bonus", "Chances", "%"),
    Spec("semi_penalty", "Semi-auto: penalty per shot fired, on each shot", "Chances", "%"),
    Spec("auto_divisor", "Full auto divides the chance by", "Chances", ""),
    Spec("auto_targets", "Full auto: targets at most", "Chances", ""),
    Spec("two_pistol_penalty", "Two pistols: penalty on each", "Chances", "%"),
    Spec("off_hand_penalty", "Attacking with the weapon in the off hand: penalty", "Chances", "%",
         "The seed gives no number; an Ambidextrous trait takes it away."),
    Spec("crawl_metres", "A leg at Acute: may only crawl, per round", "Chances", "m"),
    Spec("crawl_refuses", "Refuse a drag past the crawl distance", "Chances"),
    Spec("auto_success", "Rolls from 1 to this always succeed", "Chances", "",
         "0: no automatic success."),
    Spec("auto_failure", "Rolls from this to 100 always fail", "Chances", "",
         "101: no automatic failure."),
    Spec("melee_reach", "Melee and Recover reach (gap between bodies)", "Chances", "m"),
    Spec("hidden_threshold", "Map: a location counts as hidden when at least", "Map, recovery, dice",
         "% of it is hidden", "The map's hidden locations, shown beside the stance table's in the action dialog."),
    Spec("recover_by", "The Recover roll uses the maximum injury of", "Map, recovery, dice", ""),
    Spec("recover_heals_total", "Healing a location also lowers the injury total", "Map, recovery, dice"),
    Spec("recover_stops_bleeding", "Recover on a location closes its bleeding wounds", "Map, recovery, dice"),
    Spec("recover_wakes", "Recover wakes an unconscious character", "Map, recovery, dice"),
    Spec("seed", "Dice seed (empty: random dice)", "Map, recovery, dice", "",
         "With a seed the dice are reproducible: undo then redo rolls the same. "
         "A new seed starts its sequence from the first roll. Reset to defaults keeps it."),
)
SPEC: dict[str, Spec] = {s.name: s for s in SPECS}
#: The tab each Settings field is edited on (for placing the engine's messages).
FIELD_TAB: dict[str, str] = {
    **{s.name: s.tab for s in SPECS},
    "location_table": "Hit locations",
    "thresholds": "Wounds",
    "location_thresholds": "Wounds",
}
_MODEL_TAB = "Chances"  # the model-level check: always-succeed below always-fail


def _bounds(name: str) -> tuple[float | None, float | None, bool]:
    """(lowest, highest, lowest excluded) allowed for a Settings field, from its Field()."""
    lo = hi = None
    open_lo = False
    for m in Settings.model_fields[name].metadata:
        if getattr(m, "ge", None) is not None:
            lo = m.ge
        if getattr(m, "gt", None) is not None:
            lo, open_lo = m.gt, True
        if getattr(m, "le", None) is not None:
            hi = m.le
    return lo, hi, open_lo


def _loc(location: str) -> str:
    return location.replace("_", " ")


def _fmt(name: str, value) -> str:
    """A setting's value in words, for the default column."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if name in _SHORT_CHOICE.keys() | CHOICES.keys() and isinstance(value, str):
        return _SHORT_CHOICE.get(value, value)
    if name == "hidden_threshold":
        return f"{value * 100:g} %"
    if name == "seed":
        return "random" if value is None else str(value)
    unit = SPEC[name].unit if name in SPEC else ""
    unit = {"%": " %", "points": " points", "damage": "", "m": " m"}.get(unit, "")
    return f"{value:g}{unit}" if isinstance(value, float) else f"{value}{unit}"


def _engine_message(err: dict) -> str:
    msg = str(err.get("msg", ""))
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
    loc = err.get("loc") or ()
    if loc and loc[0] in SPEC and err.get("type") != "value_error":
        msg = f"{SPEC[loc[0]].label}: {msg}"
    return msg


class _Editor:
    """One scalar setting's editor: reads and writes the value in the model's terms."""

    def __init__(self, name: str, on_change: Callable[[], None]):
        self.name = name
        ann = Settings.model_fields[name].annotation
        self.original = None  # the value loaded, kept when the editor still shows it
        if name == "seed":
            w = QLineEdit()
            w.setPlaceholderText("random")
            w.textChanged.connect(on_change)
            self.kind = "seed"
        elif typing.get_origin(ann) is typing.Literal:
            w = QComboBox()
            for v in typing.get_args(ann):
                w.addItem(CHOICES.get(name, {}).get(v, v), v)
            w.currentIndexChanged.connect(on_change)
            self.kind = "choice"
        elif ann is bool:
            w = QCheckBox()
            w.toggled.connect(on_change)
            self.kind = "bool"
        elif ann is float:
            w = QDoubleSpinBox()
            lo, hi, open_lo = _bounds(name)
            scale = 100.0 if name == "hidden_threshold" else 1.0
            w.setDecimals(1 if scale == 100.0 else 2)
            step = 10 ** -w.decimals()
            w.setRange((lo or 0) * scale + (step if open_lo else 0), (hi if hi is not None else 1e6) * scale)
            w.setSingleStep(5.0 if scale == 100.0 else 0.25)
            w.valueChanged.connect(on_change)
            self.scale = scale
            self.kind = "float"
        else:
            w = QSpinBox()
            lo, hi, _ = _bounds(name)
            w.setRange(int(lo if lo is not None else 0), int(hi if hi is not None else 100_000))
            w.valueChanged.connect(on_change)
            self.kind = "int"
        w.setObjectName(f"d100_setting_{name}")
        self.widget = w

    def set(self, value) -> None:
        self.original = value
        w = self.widget
        if self.kind == "seed":
            w.setText("" if value is None else str(value))
        elif self.kind == "choice":
            w.setCurrentIndex(max(0, w.findData(value)))
        elif self.kind == "bool":
            w.setChecked(bool(value))
        elif self.kind == "float":
            w.setValue(float(value) * self.scale)
        else:
            w.setValue(int(value))

    def get(self):
        """The value shown, in the model's terms; raises ValueError for an unreadable seed."""
        w = self.widget
        if self.kind == "seed":
            text = w.text().strip()
            if not text:
                return None
            try:
                return int(text)
            except ValueError:
                raise ValueError(f"the dice seed {text!r} is not a whole number (leave it empty for random dice)") from None
        if self.kind == "choice":
            return w.currentData()
        if self.kind == "bool":
            return w.isChecked()
        if self.kind == "float":
            if isinstance(self.original, float) and round(self.original * self.scale, w.decimals()) == w.value():
                return self.original  # shown rounded, not changed
            return round(w.value() / self.scale, 6)
        return w.value()


class SettingsDialog(QDialog):
    """The d100 settings of the open encounter. :meth:`load` fills it from the committed
    encounter; :meth:`candidate` is what OK would land (or the problems); :meth:`apply`
    lands it as one undo step."""

    def __init__(self, window, controller):
        super().__init__(window)
        self.window_ = window
        self.controller = controller
        self.setWindowTitle("d100 rules settings")
        self.setModal(True)
        self.defaults = Settings()
        self.errors: dict[str, list[str]] = {}
        self.bad: set[str] = set()
        self.bad_location: str | None = None
        self._loading = False
        self._build()
        self.load()

    # -- building -------------------------------------------------------------------------------
    def _build(self) -> None:
        self.tabs = QTabWidget()
        self.pages: dict[str, QWidget] = {}
        self.grids: dict[str, QGridLayout] = {}
        self.tab_errors: dict[str, QLabel] = {}
        for tab in TABS:
            page = QWidget()
            lay = QVBoxLayout(page)
            self.pages[tab] = page
            self.tabs.addTab(page, tab)
        self._build_locations()
        self._build_thresholds()
        self.editors: dict[str, _Editor] = {}
        self.default_labels: dict[str, QLabel] = {}
        for tab in TABS:
            box = QGroupBox({"Hit locations": "Placed shots", "Wounds": "Effects, cover and armour",
                             "Chances": "Chances and modifiers", "Map, recovery, dice": "Map, recovery, dice"}[tab])
            grid = QGridLayout(box)
            grid.setColumnStretch(0, 1)
            self.grids[tab] = grid
            for col, head in enumerate(("", "this encounter", "", "default")):
                if head:
                    grid.addWidget(self._grey(head), 0, col)
            self.pages[tab].layout().addWidget(box)
        for spec in SPECS:
            ed = _Editor(spec.name, self._changed)
            self.editors[spec.name] = ed
            grid = self.grids[spec.tab]
            row = grid.rowCount()
            label = QLabel(spec.label)
            label.setBuddy(ed.widget)
            if spec.tip:
                label.setToolTip(spec.tip)
                ed.widget.setToolTip(spec.tip)
            grid.addWidget(label, row, 0)
            grid.addWidget(ed.widget, row, 1)
            grid.addWidget(self._grey(spec.unit), row, 2)
            dl = QLabel(_fmt(spec.name, getattr(self.defaults, spec.name)))
            self.default_labels[spec.name] = dl
            grid.addWidget(dl, row, 3)
        self.rolls_note = self._grey("")
        self.rolls_note.setWordWrap(True)
        self.pages["Map, recovery, dice"].layout().addWidget(self.rolls_note)
        for tab in TABS:
            err = QLabel()
            err.setWordWrap(True)
            err.setStyleSheet(f"color:{theme.ink('error')}")
            err.setObjectName(f"d100_settings_error_{tab}")
            err.hide()
            self.tab_errors[tab] = err
            lay = self.pages[tab].layout()
            lay.addWidget(err)
            lay.addStretch(1)

        intro = QLabel("The numbers the d100 rules leave open, for this encounter only "
                       "(docs/d100.md). Hover a setting for the seed's words.")
        intro.setWordWrap(True)
        intro.setStyleSheet(f"color:{theme.ink('dim')}")
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet(f"color:{theme.ink('error')}")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.reset_button = QPushButton("Reset to defaults")
        self.reset_button.setToolTip("Put every documented default in the editors (OK applies them)")
        self.reset_button.clicked.connect(self.reset_defaults)
        self.buttons.addButton(self.reset_button, QDialogButtonBox.ButtonRole.ResetRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(self.summary)
        lay.addWidget(self.buttons)

    def _grey(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setStyleSheet(f"color:{theme.ink('dim')}")
        return label

    def _build_locations(self) -> None:
        box = QGroupBox("Location table: the d100 roll that lands on each location")
        grid = QGridLayout(box)
        for col, head in enumerate(("Location", "from", "to", "", "default")):
            if head:
                grid.addWidget(bold(QLabel(head)) if col == 0 else self._grey(head), 0, col)
        self.range_spins: dict[str, tuple[QSpinBox, QSpinBox]] = {}
        self.range_defaults: dict[str, QLabel] = {}
        default = location_ranges(DEFAULT_LOCATION_TABLE)
        for i, loc in enumerate(ROW_LOCATIONS, start=1):
            lo, hi = QSpinBox(), QSpinBox()
            for s, part in ((lo, "from"), (hi, "to")):
                s.setRange(1, 100)
                s.setObjectName(f"d100_range_{loc}_{part}")
                s.valueChanged.connect(self._changed)
            self.range_spins[loc] = (lo, hi)
            grid.addWidget(QLabel(_loc(loc)), i, 0)
            grid.addWidget(lo, i, 1)
            grid.addWidget(hi, i, 2)
            a, b = default[loc]
            d = QLabel(f"{a}-{b}")
            self.range_defaults[loc] = d
            grid.addWidget(d, i, 4)
        note = self._grey("Every roll 1-100 must land on exactly one location. The order of the "
                          "ranges is the order a placed shot moves the roll along the body.")
        note.setWordWrap(True)
        grid.addWidget(note, len(ROW_LOCATIONS) + 1, 0, 1, 5)
        grid.setColumnStretch(0, 1)
        self.pages["Hit locations"].layout().addWidget(box)

    def _build_thresholds(self) -> None:
        box = QGroupBox("Severity thresholds: the damage on one location at which each step starts")
        grid = QGridLayout(box)
        grid.addWidget(self._grey("own"), 0, 1)
        for j, step in enumerate(STEPS):
            grid.addWidget(self._grey(step), 0, 2 + j)
        grid.addWidget(self._grey("default"), 0, 2 + len(STEPS))

        def spins(key: str) -> list[QSpinBox]:
            out = []
            for step in STEPS:
                s = QSpinBox()
                s.setRange(0, 10_000)
                s.setObjectName(f"d100_threshold_{key}_{step}")
                s.valueChanged.connect(self._changed)
                out.append(s)
            return out

        self.threshold_spins = spins("all")
        grid.addWidget(bold(QLabel("every location")), 1, 0)
        for j, s in enumerate(self.threshold_spins):
            grid.addWidget(s, 1, 2 + j)
        self.threshold_default = QLabel(", ".join(map(str, self.defaults.thresholds)))
        grid.addWidget(self.threshold_default, 1, 2 + len(STEPS))
        self.own_checks: dict[str, QCheckBox] = {}
        self.own_spins: dict[str, list[QSpinBox]] = {}
        self.own_defaults: dict[str, QLabel] = {}
        for i, loc in enumerate(ROW_LOCATIONS, start=2):
            grid.addWidget(QLabel(_loc(loc)), i, 0)
            c = QCheckBox()
            c.setObjectName(f"d100_threshold_own_{loc}")
            c.setToolTip(f"Give the {_loc(loc)} its own thresholds (unchecked: the ones for every location)")
            c.toggled.connect(lambda on, loc=loc: self._own_toggled(loc, on))
            self.own_checks[loc] = c
            grid.addWidget(c, i, 1)
            self.own_spins[loc] = spins(loc)
            for j, s in enumerate(self.own_spins[loc]):
                grid.addWidget(s, i, 2 + j)
            d = QLabel(self._own_default_text(loc))
            self.own_defaults[loc] = d
            grid.addWidget(d, i, 2 + len(STEPS))
        self.crossing_note = self._grey("Each must be above the one before it, light at 1 or more.")
        grid.addWidget(self.crossing_note, len(ROW_LOCATIONS) + 2, 0, 1, 3 + len(STEPS))
        self.pages["Wounds"].layout().addWidget(box)

    def _own_default_text(self, loc: str) -> str:
        t = self.defaults.location_thresholds.get(loc)  # type: ignore[call-overload]
        return "as every location" if t is None else ", ".join(map(str, t))

    # -- filling --------------------------------------------------------------------------------
    def load(self, settings: Settings | None = None) -> None:
        """Show ``settings`` (default: the committed encounter's)."""
        st = settings if settings is not None else RULESET.settings(self.controller.encounter)
        self._loading = True
        try:
            ranges = location_ranges(st.location_table)
            for loc, (lo, hi) in self.range_spins.items():
                a, b = ranges[loc]
                lo.setValue(a)
                hi.setValue(b)
            for s, v in zip(self.threshold_spins, st.thresholds):
                s.setValue(v)
            for loc in ROW_LOCATIONS:
                own = st.location_thresholds.get(loc)  # type: ignore[call-overload]
                self.own_checks[loc].setChecked(own is not None)
                for s, v in zip(self.own_spins[loc], own if own is not None else st.thresholds):
                    s.setValue(v)
                    s.setEnabled(own is not None)
            for name, ed in self.editors.items():
                ed.set(getattr(st, name))
            self.rolls_note.setText(
                f"Seeded dice have rolled {st.rolls} times in this encounter; keeping the seed keeps that "
                "place in its sequence." if st.seed is not None else
                "Random dice: set a seed to make the rolls reproducible.")
        finally:
            self._loading = False
        self._changed()

    def reset_defaults(self) -> None:
        """Put every documented default in the editors; the dice seed shown is kept (it is
        the fight's dice, not a rule). Nothing changes until OK."""
        seed = self.editors["seed"].widget.text()
        self.load(self.defaults)
        self.editors["seed"].widget.setText(seed)

    def set_thresholds(self, values, location: str | None = None) -> None:
        """Type ``values`` (light ... crippled) into the thresholds for every location, or
        ``location``'s own (ticking "own")."""
        if location is not None:
            self.own_checks[location].setChecked(True)
        for s, v in zip(self.threshold_spins if location is None else self.own_spins[location], values):
            s.setValue(int(v))

    def set_range(self, location: str, low: int, high: int) -> None:
        """Type ``low``-``high`` into ``location``'s row of the location table."""
        lo, hi = self.range_spins[location]
        lo.setValue(low)
        hi.setValue(high)

    def _own_toggled(self, loc: str, on: bool) -> None:
        for s, v in zip(self.own_spins[loc], (s.value() for s in self.threshold_spins)):
            if on and not self._loading:
                s.setValue(v)  # start from the general ones
            s.setEnabled(on)
        self._changed()

    # -- checking -------------------------------------------------------------------------------
    def ranges(self) -> dict[str, tuple[int, int]]:
        """The location table's ranges as typed (location -> (from, to))."""
        return {loc: (lo.value(), hi.value()) for loc, (lo, hi) in self.range_spins.items()}

    def edits(self) -> tuple[dict, dict[str, list[str]]]:
        """The Settings fields as typed and the problems found before the model sees them,
        per tab: the location table's ranges (:func:`table_from_ranges`), thresholds that do
        not rise (:func:`threshold_fault`), an unreadable seed. A field with a problem is left
        out. Sets :attr:`bad` to the editors at fault ("range:head", "own:chest", a field)."""
        problems: dict[str, list[str]] = {}
        out: dict = {}
        self.bad: set[str] = set()
        self.bad_location = None
        try:
            out["location_table"] = table_from_ranges(self.ranges())
        except LocationTableError as exc:
            self.bad_location = exc.location
            self.bad.add(f"range:{exc.location}")
            problems.setdefault("Hit locations", []).append(f"Location table: {exc}")
        general = tuple(s.value() for s in self.threshold_spins)
        fault = threshold_fault(general)
        if fault:
            self.bad.add("thresholds")
            problems.setdefault("Wounds", []).append(f"Thresholds for every location: {fault}")
        else:
            out["thresholds"] = general
        own: dict[str, tuple[int, ...]] = {}
        for loc in ROW_LOCATIONS:
            if not self.own_checks[loc].isChecked():
                continue
            t = tuple(s.value() for s in self.own_spins[loc])
            fault = threshold_fault(t)
            if fault:
                self.bad.add(f"own:{loc}")
                problems.setdefault("Wounds", []).append(f"Thresholds of the {_loc(loc)}: {fault}")
            own[loc] = t
        if not any(k.startswith("own:") for k in self.bad):
            out["location_thresholds"] = own
        for name, ed in self.editors.items():
            try:
                out[name] = ed.get()
            except ValueError as exc:
                self.bad.add(name)
                problems.setdefault(SPEC[name].tab, []).append(str(exc))
        return out, problems

    def candidate(self) -> tuple[Settings | None, dict[str, list[str]]]:
        """The settings OK would land on the committed encounter (its fight state kept; a
        new seed starts at its first roll), validated by the engine's model, or None and
        the problems per tab (the GM's words, naming the location or step)."""
        base = RULESET.settings(self.controller.encounter)
        edits, problems = self.edits()
        data = {**base.model_dump(), **edits}
        if "seed" in edits and edits["seed"] != base.seed:
            data["rolls"] = 0
        try:
            new = Settings.model_validate(data)
        except ValidationError as exc:
            for err in exc.errors():
                loc = err.get("loc") or ()
                field = str(loc[0]) if loc else None
                if field is None:  # the model's own check: always-succeed below always-fail
                    self.bad.update(("auto_success", "auto_failure"))
                else:
                    self.bad.add(field)
                problems.setdefault(FIELD_TAB.get(field or "", _MODEL_TAB), []).append(_engine_message(err))
            return None, problems
        if problems:
            return None, problems
        return new, {}

    def _changed(self, *_args) -> None:
        if self._loading:
            return
        for loc in ROW_LOCATIONS:  # a location without its own thresholds shows the general ones
            if not self.own_checks[loc].isChecked():
                for s, g in zip(self.own_spins[loc], self.threshold_spins):
                    s.blockSignals(True)
                    s.setValue(g.value())
                    s.blockSignals(False)
        new, problems = self.candidate()
        self.errors = problems
        for tab, label in self.tab_errors.items():
            said = problems.get(tab, [])
            label.setText("\n".join(said))
            label.setVisible(bool(said))
            i = TABS.index(tab)
            self.tabs.tabBar().setTabTextColor(i, theme.colour('error') if said else self.tabs.palette().windowText().color())
            self.tabs.setTabText(i, f"{tab} \u26a0" if said else tab)
        lines = [f"{tab}: {msg}" for tab in TABS for msg in problems.get(tab, [])]
        self.summary.setText("Cannot apply:\n" + "\n".join(lines) if lines else "")
        self.summary.setVisible(bool(lines))
        self.ok_button.setEnabled(new is not None)
        self._mark()

    def _mark(self) -> None:
        """Default labels turn amber where this encounter differs; the editors at fault red."""
        d = self.defaults
        ranges, dr = self.ranges(), location_ranges(d.location_table)
        for loc, (lo, hi) in self.range_spins.items():
            self._flag(self.range_defaults[loc], ranges[loc] != dr[loc])
            for s in (lo, hi):
                s.setStyleSheet(_bad() if f"range:{loc}" in self.bad else "")
        general = tuple(s.value() for s in self.threshold_spins)
        self._flag(self.threshold_default, general != d.thresholds)
        for s in self.threshold_spins:
            s.setStyleSheet(_bad() if "thresholds" in self.bad else "")
        for loc in ROW_LOCATIONS:
            on = self.own_checks[loc].isChecked()
            self._flag(self.own_defaults[loc], on != (loc in d.location_thresholds))
            for s in self.own_spins[loc]:
                s.setStyleSheet(_bad() if f"own:{loc}" in self.bad or (on and "location_thresholds" in self.bad) else "")
        for name, ed in self.editors.items():
            try:
                value = ed.get()
            except ValueError:
                value = object()
            self._flag(self.default_labels[name], value != getattr(d, name))
            ed.widget.setStyleSheet(_bad() if name in self.bad else "")

    def _flag(self, label: QLabel, changed: bool) -> None:
        label.setStyleSheet(f"color:{theme.ink('warn')}" if changed else f"color:{theme.ink('dim')}")
        label.setToolTip("This encounter differs from the default" if changed else "")

    # -- landing --------------------------------------------------------------------------------
    def apply(self) -> bool:
        """Land the settings shown on the document as one undo step ("d100 rules settings");
        False (nothing changes) when they are not valid or equal the encounter's."""
        new, problems = self.candidate()
        if new is None:
            self._changed()
            return False
        enc = self.controller.encounter
        if new == RULESET.settings(enc):
            return False
        return self.window_.document.commit(enc.with_rules("d100", new), UNDO_TEXT)

    def accept(self) -> None:  # noqa: D401 - Qt API
        """OK: apply, then close (stays open, OK disabled, while something is wrong)."""
        new, _ = self.candidate()
        if new is None:
            self._changed()
            return
        self.apply()
        super().accept()


__all__ = ["SPECS", "SettingsDialog", "UNDO_TEXT"]
