"""The outcome entry of a Static Veil maneuver: one small row per test the engine says the
maneuver needs (``Preview.tests``, :class:`engine.static_veil.dice.TestSpec`).

* opposed test: who won (the acting character or the opponent) and by how many net hits;
* attack: does it get through, net hits, damage (optional);
* Grip / Vigor check: passes or fails (asked only when the attack gets through);
* Passive Defense: hits (asked only when the acting character wins).

Nothing is pre-selected: the GM has to say who won, so Confirm cannot land a result nobody
entered. :meth:`OutcomeForm.values` gives the maneuver's outcome fields (``outcome``,
``attack``, ``resist``, ``pd_hits``) as the engine's values.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)
from gui import theme

MAX_HITS = 20


def _mods(mods) -> str:
    if not mods:
        return ""
    return " (" + ", ".join(f"{label} {v:+d}" for label, v in mods) + ")"


def describe_test(spec, actor: str, opponent: str | None) -> str:
    """One line of rich text naming a test and its Success Targets, e.g.
    "<b>Shove: opposed Athletics</b>: Kit 55 vs Jay 40"."""
    head = f"<b>{spec.name}</b>"
    if spec.kind in ("opposed", "attack"):
        a = f"{actor} {spec.actor_target}{_mods(spec.modifiers)}"
        skill = f" {spec.opponent_skill}" if spec.kind == "attack" and spec.opponent_skill else ""
        o = f"{opponent}{skill} {spec.opponent_target}{_mods(spec.opponent_modifiers)}"
        return f"{head}: {a} vs {o}"
    if spec.kind == "check":
        per = f", {spec.per_net_hit:+d} per net hit of the attack" if spec.per_net_hit else ""
        return f"{head}: {opponent} {spec.actor_target}{per}"
    if spec.kind == "passive_defense":
        return f"{head}: {opponent} {spec.actor_target}"
    return head


class _Row(QFrame):
    def __init__(self, spec, parent=None):
        super().__init__(parent)
        self.spec = spec
        self.lay = QVBoxLayout(self)
        self.lay.setContentsMargins(0, 2, 0 ,2)
        self.lay.setSpacing(2)


class OutcomeForm(QWidget):
    """Rows for the tests of one maneuver; ``changed`` fires on every edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(0, 0, 0, 0)
        self._lay.setSpacing(6)
        self.rows: list[_Row] = []
        self.specs: tuple = ()
        # the widgets of each kind of test (None when the maneuver has no such test)
        self.win_actor: QRadioButton | None = None
        self.win_opponent: QRadioButton | None = None
        self.net_hits: QSpinBox | None = None
        self.hit_yes: QRadioButton | None = None
        self.hit_no: QRadioButton | None = None
        self.attack_hits: QSpinBox | None = None
        self.damage: QSpinBox | None = None
        self.check_pass: QRadioButton | None = None
        self.check_fail: QRadioButton | None = None
        self.pd_hits: QSpinBox | None = None
        self._groups: list[QButtonGroup] = []

    # -- building ------------------------------------------------------------------------------
    def set_tests(self, specs, actor: str, opponent: str | None) -> None:
        """Show rows for ``specs`` (the engine's TestSpecs), naming the acting character
        ``actor`` and the other side ``opponent``."""
        for r in self.rows:
            r.setParent(None)
            r.deleteLater()
        self.rows = []
        self._groups = []
        self.win_actor = self.win_opponent = self.net_hits = None
        self.hit_yes = self.hit_no = self.attack_hits = self.damage = None
        self.check_pass = self.check_fail = self.pd_hits = None
        self.specs = tuple(specs)
        for spec in self.specs:
            row = _Row(spec, self)
            title = QLabel(describe_test(spec, actor, opponent))
            title.setWordWrap(True)
            row.lay.addWidget(title)
            line = QHBoxLayout()
            line.setSpacing(8)
            if spec.kind == "opposed":
                self.win_actor = QRadioButton(f"{actor} wins")
                self.win_opponent = QRadioButton(f"{opponent} wins")
                self._group(self.win_actor, self.win_opponent)
                self.net_hits = self._spin("by", line, after="net hits")
                line.insertWidget(0, self.win_opponent)
                line.insertWidget(0, self.win_actor)
            elif spec.kind == "attack":
                self.hit_yes = QRadioButton("gets through")
                self.hit_no = QRadioButton("does not")
                self._group(self.hit_yes, self.hit_no)
                line.addWidget(self.hit_yes)
                line.addWidget(self.hit_no)
                line.addStretch(1)
                row.lay.addLayout(line)
                line = QHBoxLayout()
                line.setSpacing(8)
                self.attack_hits = self._spin("net hits", line)
                self.damage = self._spin("damage", line, minimum=-1)
                self.damage.setSpecialValueText("\u2014")
                self.damage.setValue(-1)
                self.damage.setToolTip("Damage by the normal combat rules (\u2014: not entered; the log "
                                       "notes any called-shot bonus)")
            elif spec.kind == "check":
                self.check_pass = QRadioButton("passes")
                self.check_fail = QRadioButton("fails")
                self._group(self.check_pass, self.check_fail)
                line.addWidget(self.check_pass)
                line.addWidget(self.check_fail)
                note = QLabel("(only if the attack gets through)")
                note.setStyleSheet(f"color: {theme.ink('dim')};")
                line.addWidget(note)
            elif spec.kind == "passive_defense":
                self.pd_hits = self._spin("hits", line)
                note = QLabel("(only if the grip wins)")
                note.setStyleSheet(f"color: {theme.ink('dim')};")
                line.addWidget(note)
            line.addStretch(1)
            row.lay.addLayout(line)
            self._lay.addWidget(row)
            self.rows.append(row)
        self._update_enabled()

    def _group(self, a: QRadioButton, b: QRadioButton) -> None:
        g = QButtonGroup(self)
        g.setExclusive(True)
        g.addButton(a)
        g.addButton(b)
        g.buttonToggled.connect(lambda *_: self._edited())
        self._groups.append(g)

    def _spin(self, label: str, line: QHBoxLayout, *, after: str = "", minimum: int = 0) -> QSpinBox:
        if label:
            line.addWidget(QLabel(label))
        sb = QSpinBox()
        sb.setRange(minimum, 99 if minimum < 0 else MAX_HITS)
        sb.valueChanged.connect(lambda *_: self._edited())
        line.addWidget(sb)
        if after:
            line.addWidget(QLabel(after))
        return sb

    def _edited(self) -> None:
        self._update_enabled()
        self.changed.emit()

    def _update_enabled(self) -> None:
        hit = self.hit_yes is not None and self.hit_yes.isChecked()
        for w in (self.check_pass, self.check_fail):
            if w is not None:
                w.setEnabled(hit)
        if self.pd_hits is not None:
            self.pd_hits.setEnabled(self.win_actor is not None and self.win_actor.isChecked())
        if self.attack_hits is not None:
            self.attack_hits.setEnabled(hit)
            self.damage.setEnabled(hit)

    # -- reading -------------------------------------------------------------------------------
    @property
    def has_tests(self) -> bool:
        return bool(self.specs)

    def actor_wins(self) -> bool | None:
        """Whether the GM entered a win for the acting character (None: nothing entered)."""
        if self.win_actor is not None:
            if self.win_actor.isChecked():
                return True
            if self.win_opponent.isChecked():
                return False
            return None
        if self.hit_yes is not None:
            if self.hit_yes.isChecked():
                return True
            if self.hit_no.isChecked():
                return False
        return None

    def entered_net_hits(self) -> int | None:
        if self.net_hits is not None:
            return self.net_hits.value()
        if self.attack_hits is not None:
            return self.attack_hits.value()
        return None

    def missing(self) -> str | None:
        """What the GM still has to enter, in words (None: the form is complete)."""
        if self.win_actor is not None and self.actor_wins() is None:
            return "who won the opposed test"
        if self.hit_yes is not None and not (self.hit_yes.isChecked() or self.hit_no.isChecked()):
            return "whether the attack gets through"
        if self.check_pass is not None and self.hit_yes is not None and self.hit_yes.isChecked():
            if not (self.check_pass.isChecked() or self.check_fail.isChecked()):
                return "whether the check passes"
        return None

    def values(self) -> dict:
        """The maneuver's outcome fields from what was entered (only those entered)."""
        from engine.static_veil.dice import Attack, Check, Opposed

        out: dict = {}
        won = self.actor_wins()
        if self.win_actor is not None and won is not None:
            out["outcome"] = Opposed(won=won, net_hits=self.net_hits.value())
        if self.hit_yes is not None and won is not None:
            dmg = self.damage.value()
            out["attack"] = Attack(hit=won, net_hits=self.attack_hits.value() if won else 0,
                                   damage=None if dmg < 0 else dmg)
        if self.check_pass is not None and (self.check_pass.isChecked() or self.check_fail.isChecked()):
            out["resist"] = Check(passed=self.check_pass.isChecked())
        if self.pd_hits is not None and won:
            out["pd_hits"] = self.pd_hits.value()
        return out

    # -- filling (tests and keyboard-free use) -----------------------------------------------------
    def enter(self, won: bool, net_hits: int = 0, *, damage: int | None = None, check: bool | None = None,
              pd_hits: int | None = None) -> None:
        """Fill the form as the GM would: the acting character ``won`` (or the attack got
        through) by ``net_hits``; optional damage, check result and Passive Defense hits."""
        if self.win_actor is not None:
            (self.win_actor if won else self.win_opponent).setChecked(True)
            self.net_hits.setValue(net_hits)
        if self.hit_yes is not None:
            (self.hit_yes if won else self.hit_no).setChecked(True)
            self.attack_hits.setValue(net_hits)
            self.damage.setValue(-1 if damage is None else damage)
        if check is not None and self.check_pass is not None:
            (self.check_pass if check else self.check_fail).setChecked(True)
        if pd_hits is not None and self.pd_hits is not None:
            self.pd_hits.setValue(pd_hits)
