"""Suppressive fire from a zone on the map, and the tests of those caught in it.

:class:`SuppressivePage`: the shooter fills one of the map's suppressive zones; the pool
(the door's ``preview`` of a ``SuppressiveDeclaration``) with every part editable, why it is
not allowed, one roll (seeded or typed), applied as one undo step (``Sr5Controller.act``);
then who must roll and who is spared and why (``suppression_status``).

:class:`SuppressionTestPage`: one token's Reaction + Edge test against an active zone and,
when it fails, its damage resistance (the door's ``preview`` of a ``SuppressionTest``, then
``resolve`` one test at a time and ``act``).
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.errors import CoverfireError
from engine.names import token_name, zone_name
from engine.sr5.suppressive import SuppressiveDeclaration
from engine.sr5.system import SuppressionTest
from engine.sr5.changes import settings_of
from gui.action_panel import ActionPage
from gui.rules.sr5.widgets import DiceRow, PoolView, story_box
from gui import theme


def _footer(*rows) -> QWidget:
    """The panel footer of a page: ``rows`` (widgets or layouts) stacked."""
    lay = QVBoxLayout()
    lay.setContentsMargins(0, 4, 0, 0)
    for r in rows:
        if isinstance(r, QWidget):
            lay.addWidget(r)
        else:
            lay.addLayout(r)
    w = QWidget()
    w.setLayout(lay)
    return w


class SuppressivePage(ActionPage):
    """See the module docstring. ``applied(Change)`` after the fire landed."""

    title = "SR5 suppressive fire"

    def __init__(self, panel, controller):
        super().__init__(panel)
        self.controller = controller
        self.plan = None
        self.fired = None  # the Change of the fire just applied (the dialog then shows who is caught)
        self.overrides: dict[str, tuple[int, str | None]] = {}
        self._gm = 0
        self.shooter = QComboBox()
        self.zone = QComboBox()
        self.enhanced = QCheckBox("Enhanced")
        self.enhanced.setToolTip("Enhanced suppressive fire: the far end narrows to 5 m and lying prone does not spare (Lucky Cover does)")
        self.edge = QCheckBox("Edge: no limit")
        self.edge.setToolTip("Push the Limit (Edge): no limit, sixes explode")
        self.shooter.currentIndexChanged.connect(self._shooter_changed)
        self.zone.currentIndexChanged.connect(lambda _i: self._zone_changed())
        self.enhanced.toggled.connect(lambda _: self.replan())
        self.edge.toggled.connect(lambda _: self.replan())
        form = QFormLayout()
        form.addRow("Shooter", self.shooter)
        form.addRow("Zone on the map", self.zone)
        form.addRow("", self.enhanced)
        form.addRow("", self.edge)
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.problems = QLabel()
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet(f"color: {theme.ink('error')}")
        self.pool = PoolView("Shooter's test (its hits are the zone's threshold and penalty)")
        self.pool.edited.connect(self.override)
        self.pool.added.connect(lambda label, v: self.add_modifier(label, v))
        self.dice = DiceRow()
        self.dice.rollRequested.connect(self.fire)
        self.force = QCheckBox("GM: allow it anyway")
        self.force.toggled.connect(lambda _: self._show())
        self.result = story_box()
        self.result.setMinimumHeight(160)
        close = QPushButton("Close")
        close.setToolTip("Close (Esc)")
        close.clicked.connect(self.cancel)
        buttons = QHBoxLayout()
        buttons.addWidget(self.force)
        buttons.addStretch(1)
        buttons.addWidget(close)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addWidget(self.headline)
        lay.addWidget(self.problems)
        lay.addLayout(form)
        lay.addWidget(self.pool)
        lay.addWidget(QLabel("Who is caught"))
        lay.addWidget(self.result)
        lay.addStretch(1)
        self.footer = _footer(self.dice, buttons)

    def apply_default(self):
        """Enter: fire (roll the shooter's test with the encounter's dice)."""
        if self.dice.roll_button.isEnabled():
            return self.fire()
        return None

    def open_for(self, shooter: str | None = None, zone: str | None = None) -> None:
        c = self.controller
        enc = c.encounter
        if shooter is None:
            sel = c.selection.attacker
            shooter = sel if sel in c.token_ids() else c.settings.acting
        self.overrides.clear()
        self.fired = None
        self.shooter.blockSignals(True)
        self.shooter.clear()
        for t in enc.tokens:
            self.shooter.addItem(token_name(t), t.id)
        self.shooter.setCurrentIndex(max(0, self.shooter.findData(shooter)))
        self.shooter.blockSignals(False)
        self._fill_zones(zone)
        self.show_in_panel()
        self.replan()
        self.result.setPlainText(self._status_text())

    def _fill_zones(self, zone: str | None = None) -> None:
        enc = self.controller.encounter
        sid = self.shooter.currentData()
        self.zone.blockSignals(True)
        self.zone.clear()
        zones = [z for z in enc.zones if z.kind == "suppressive"]
        zones.sort(key=lambda z: (z.owner != sid, z.owner is not None))
        for z in zones:
            name = zone_name(z, enc)
            who = self.controller.name(z.owner) if z.owner else None
            # (whose it is, unless its name says so: "Sam's suppressive fire (Sam's)" was cut)
            owner = f" ({who}'s)" if who and not name.startswith(f"{who}'s") else ""
            self.zone.addItem(f"{name}{owner}", z.id)
        if zone is not None:
            self.zone.setCurrentIndex(max(0, self.zone.findData(zone)))
        self.zone.blockSignals(False)

    def _shooter_changed(self, *_):
        self.overrides.clear()
        self.fired = None
        self._fill_zones()
        self.replan()

    def _zone_changed(self) -> None:
        self.fired = None
        self.replan()

    def replan(self) -> None:
        c = self.controller
        sid, zid = self.shooter.currentData(), self.zone.currentData()
        self.plan = None
        self._error = ""
        if sid and zid:
            try:
                plan = c.preview(SuppressiveDeclaration(
                    sid, zid, edge=self.edge.isChecked(), enhanced=self.enhanced.isChecked()))
                for key, (value, label) in self.overrides.items():
                    plan = plan.override(key, value, label)
                self.plan = plan
            except CoverfireError as exc:
                self._error = str(exc)
        elif not zid:
            self._error = "Draw a suppressive zone on the map first (the Suppressive tool), aimed from the shooter"
        self._show()

    def override(self, key: str, value: int, label: str | None = None) -> None:
        old = self.overrides.get(key)
        self.overrides[key] = (int(value), label if label is not None else (old[1] if old else None))
        self.replan()

    def add_modifier(self, label: str, value: int) -> None:
        self._gm += 1
        self.override(f"gm{self._gm}", value, label)

    def _show(self) -> None:
        p = self.plan
        if p is None:
            self.headline.setText("")
            self.problems.setText(self._error)
            self.pool.setVisible(False)
            self.dice.set_request(None, many=False)
            return
        self.pool.setVisible(True)
        if self.fired is not None:
            self.headline.setText(f"Done: {self.fired.label}. Pick another zone or shooter to fire again.")
            self.problems.setText("")
            self.pool.set_pool(p.pool, editable=False)
            self.dice.set_request(None, many=False)
            return
        self.headline.setText(f"{self.controller.name(p.declaration.shooter)} fills {self.controller.name(p.declaration.zone)} with "
                              f"{p.weapon}: {p.rounds} rounds, Complex Action; failing a test costs "
                              f"{p.dv}{p.damage_type} (AP {p.ap}), no net hits")
        self.problems.setText("\n".join(f"Not allowed: {x}" for x in p.problems))
        self.pool.set_pool(p.pool)
        ok = p.legal or self.force.isChecked()
        lim = f", limit {p.pool.limit}" if p.pool.limit is not None and not p.pool.edge else ""
        self.dice.set_request(f"Roll: {p.pool.total} dice{lim}", enabled=ok, many=False)

    def fire(self, faces=None):
        """Roll the shooter's test (typed ``faces`` or the seeded dice) and apply it."""
        p = self.plan
        if p is None or not (p.legal or self.force.isChecked()):
            return None
        try:
            change = self.controller.act(p, list(faces) if faces else None, force=self.force.isChecked())
        except CoverfireError as exc:
            self.dice.show_error(str(exc))
            return None
        self.dice.show_error("")
        self.dice.faces.clear()
        self.fired = change
        self.replan()
        self.result.setPlainText(change.label + "\n" + "".join(f"\u2192 {x}\n" for x in change.prompts)
                                 + "\n" + self._status_text()
                                 + "\n\nRoll each test from the Initiative dock (Roll test\u2026 beside the name).")
        self.applied.emit(change)
        return change

    def _status_text(self) -> str:
        c = self.controller
        if not settings_of(c.encounter).suppressions:
            return "No suppressive fire in force."
        lines = []
        try:
            status = c.suppression_status()
        except CoverfireError as exc:
            return str(exc)
        for tid, zs in status.items():
            bits = []
            if zs.must_test:
                bits.append("must roll Reaction + Edge vs " + ", ".join(c.name(z) for z in zs.must_test))
            bits += [f"spared in {c.name(z)}: {why}" for z, why in zs.spared]
            if zs.penalty:
                bits.append(f"{zs.penalty:+d} dice ({c.name(zs.penalty_zone)})")
            lines.append(f"{c.name(tid)}: " + "; ".join(bits))
        return "\n".join(lines) or "Nobody is in or next to the zone."


class SuppressionTestPage(ActionPage):
    """One token's test against an active suppressive zone, then its damage resistance."""

    title = "SR5 suppressive fire test"

    def __init__(self, panel, controller):
        super().__init__(panel)
        self.controller = controller
        self.plan = None
        self.resolution = None
        self.roller = None
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.test = PoolView("Reaction + Edge")
        self.soak = PoolView("Damage resistance")
        self.test.edited.connect(lambda k, v: self.override(k, v, "test"))
        self.soak.edited.connect(lambda k, v: self.override(k, v, "soak"))
        self.test.add_button.setVisible(False)
        self.soak.add_button.setVisible(False)
        self.dice = DiceRow()
        self.dice.rollRequested.connect(self.roll_next)
        self.dice.rollAllRequested.connect(self.roll_all)
        self.result = story_box()
        self.apply_button = QPushButton("Apply")
        self.apply_button.clicked.connect(self.apply)
        close = QPushButton("Close")
        close.setToolTip("Close (Esc): nothing is applied")
        close.clicked.connect(self.cancel)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.apply_button)
        buttons.addWidget(close)
        self.result.setMinimumHeight(120)
        # who must test now, picked here (issue 30 item 3: the tests were buttons of the
        # Initiative panel, two scrolls away)
        self.who = QComboBox()
        self.who.setToolTip("The tokens that must roll against active suppressive fire now")
        self.who.activated.connect(self._picked)
        self.problems = QLabel()  # (why there is no test to roll: the panel's top says it too)
        self.problems.setWordWrap(True)
        from gui import theme

        self.problems.setStyleSheet(f"color: {theme.ink('error')}")
        who_row = QHBoxLayout()
        who_row.addWidget(QLabel("Test for"))
        who_row.addWidget(self.who, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addLayout(who_row)
        lay.addWidget(self.problems)
        lay.addWidget(self.headline)
        lay.addWidget(self.test)
        lay.addWidget(self.soak)
        lay.addWidget(self.result)
        lay.addStretch(1)
        self.footer = _footer(self.dice, buttons)

    def apply_default(self):
        if self.apply_button.isEnabled():
            return self.apply()
        return None

    def pending(self) -> list[tuple[str, str]]:
        """(token, zone) of every test to roll now: each token that must roll, against the
        first zone it must roll against (``suppression_status``)."""
        try:
            status = self.controller.suppression_status()
        except CoverfireError:
            return []
        return [(tid, zs.must_test[0]) for tid, zs in status.items() if zs.must_test]

    def _fill_who(self, token: str | None, zone: str | None) -> None:
        c = self.controller
        self.who.blockSignals(True)
        self.who.clear()
        for tid, z in self.pending():
            self.who.addItem(f"{c.name(tid)} vs {c.name(z)}", (tid, z))
            if tid == token and z == zone:
                self.who.setCurrentIndex(self.who.count() - 1)
        self.who.blockSignals(False)
        self.who.setEnabled(self.who.count() > 0)

    def _picked(self, i: int) -> None:
        data = self.who.itemData(i)
        if data:
            self.open_for(*data)

    def open_next(self) -> None:
        """Open the page on the first test to roll now; without one it says why."""
        todo = self.pending()
        if todo:
            self.open_for(*todo[0])
            return
        self.plan = None
        self.resolution = None
        self._fill_who(None, None)
        self.headline.setText("")
        st_active = bool(self.controller.settings.suppressions)
        self.problems.setText("No one must roll against suppressive fire now" if st_active else
                              "No suppressive fire is active")
        self.show_in_panel()
        self._show()

    def open_for(self, token: str, zone: str, index: int = 0) -> None:
        self.problems.setText("")
        try:
            self.plan = self.controller.preview(SuppressionTest(token, zone, index))
        except CoverfireError as exc:
            self.plan = None
            self.problems.setText(str(exc))
        self.resolution = None
        self.roller = None
        self._fill_who(token, zone)
        self.show_in_panel()
        self._show()

    def override(self, key: str, value: int, pool: str) -> None:
        if self.plan is None or (self.resolution and self.resolution.test is not None):
            return
        self.plan = self.plan.override(key, value, pool=pool)
        self._show()

    def _show(self) -> None:
        p = self.plan
        if p is None:
            self.dice.set_request(None)
            self.apply_button.setEnabled(False)
            return
        c = self.controller
        r = self.resolution or c.resolve(p, steps=0)
        dtype = r.damage_type
        stun = f" \u2014 armor {p.armor} {p.ap:+d} AP beats DV {p.dv}: Stun" if dtype != p.damage_type else ""
        self.headline.setText(f"{c.name(p.token)} against suppressive fire {c.name(p.zone)}: Reaction + Edge, threshold "
                              f"{p.test.threshold}. Failing means {p.dv}{p.damage_type}, AP {p.ap}, no net hits{stun}.")
        editable = self.resolution is None
        self.test.set_pool(p.test, editable=editable)
        self.soak.set_pool(p.soak, editable=editable, title=f"Damage resistance vs {p.dv}{p.damage_type}")
        nxt = r.next_roll()
        if nxt is not None:
            self.dice.set_request(f"Next: {nxt.label}: {nxt.total} dice", many=True)
        else:
            self.dice.set_request(None)
        lines = []
        if r.test is not None:
            lines.append(f"test: {r.test.describe()}" + (": dodges the fire" if r.test.success else ": caught by the fire"))
        if r.soak is not None:
            lines.append(f"soak: {r.soak.describe()} -> {r.boxes} boxes {r.damage_type}")
        self.result.setPlainText("\n".join(lines))
        self.apply_button.setEnabled(r.done and r.test is not None)

    def roll_next(self, faces=None) -> bool:
        if self.plan is None:
            return False
        r = self.resolution or self.controller.resolve(self.plan, steps=0)
        if r.done:
            return False
        if self.roller is None:
            self.roller = self.controller.roller()
        r = self.dice.roll_step(lambda dice: self.controller.resolve(r, dice), self.roller, faces)
        if r is None:
            return False
        self.resolution = r
        self._show()
        return True

    def roll_all(self) -> None:
        while self.roll_next():
            pass

    def apply(self):
        r = self.resolution
        if r is None or not r.done:
            return None
        try:
            change = self.controller.act(r)
        except CoverfireError as exc:
            self.dice.show_error(str(exc))
            return None
        self.result.setPlainText(self.result.toPlainText() + f"\n\nApplied: {change.label}  (Ctrl+Z undoes it)")
        self.apply_button.setEnabled(False)
        self.resolution = None
        self.plan = None  # done: open it again for another test
        self.dice.set_request(None)
        self._fill_who(None, None)
        self.applied.emit(change)
        return change


__all__ = ["SuppressionTestPage", "SuppressivePage"]
