"""The inspector dock: every field of the selected object (or of the encounter and its map
when nothing is selected), edited in place. Each change is one undo step, checked by the
engine (:func:`gui.edits.apply_fields` -> :func:`engine.model.revalidate`); a refused value
shows the engine's message under the form and the encounter stays as it was.

Besides the form, "All fields (JSON)" shows the object exactly as the file stores it,
including rule-system sheets and fields other programs wrote, and applies edits to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QColorDialog,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine import clock
from engine.errors import CoverfireError
from engine.model import Encounter
from engine.names import display_name, token_name
from engine.ranges import CATEGORIES
from gui import edits
from gui.document import DocumentChange, EncounterDocument
from gui.idle import IdleJob
from gui.selection import Selection
from gui import theme

STANCES = ("standing", "crouched", "prone")
ZONE_KINDS = ("suppressive", "shotgun", "blast", "circle", "cone", "line", "rect")
CHOKES = ("", "narrow", "medium", "wide")
def rulesets() -> tuple[str, ...]:
    """The ruleset names the registered rule systems answer to (``engine.rules.names``)."""
    from engine.rules import names

    return names()


# (field, label, kind) per object type. Kinds: text, float, optfloat, optint, bool, stance,
# side, zonekind, choke, owner, zoneweapon, colour, longtext, polygon, weapons, ruleset.
TOKEN_FIELDS = (
    ("id", "Id", "text"), ("name", "Name", "text"), ("side", "Side", "side"),
    ("x", "X (m)", "float"), ("y", "Y (m)", "float"), ("radius", "Radius (m)", "float"),
    ("stance", "Stance", "stance"), ("facing", "Facing (\u00b0, 0 east, 90 south)", "float"),
    ("hidden", "Hidden from players", "bool"),
    ("vision_range", "Sees in the dark (m)", "optfloat"), ("notes", "GM notes", "longtext"),
    ("weapons", "Weapons", "weapons"),
)
#: Field kinds laid across the whole column, their label on the row above.
WIDE_FIELDS = ("weapons", "longtext", "polygon")
OBSTACLE_FIELDS = (
    ("id", "Id", "text"), ("name", "Name", "text"), ("height", "Height (m)", "float"),
    ("hidden", "Hidden from players", "bool"), ("door", "Door", "bool"), ("open", "Open (a door)", "bool"),
    ("polygon", "Corners (x, y per line)", "polygon"),
)
ZONE_FIELDS = (
    ("id", "Id", "text"), ("kind", "Kind", "zonekind"), ("name", "Name", "text"),
    ("owner", "Owner (origin)", "owner"), ("x", "X (m)", "optfloat"), ("y", "Y (m)", "optfloat"),
    ("direction", "Direction (\u00b0)", "float"), ("length", "Length (m)", "optfloat"),
    ("width", "Width (m)", "optfloat"), ("angle", "Angle (\u00b0)", "optfloat"),
    ("radius", "Radius (m)", "optfloat"), ("choke", "Choke", "choke"), ("rounds", "Rounds", "optint"),
    ("weapon", "Weapon", "zoneweapon"), ("color", "Colour (#RRGGBB)", "colour"),
    ("hidden", "Hidden from players", "bool"),
)
ENCOUNTER_FIELDS = (
    ("name", "Encounter name", "text"), ("ruleset", "Rule system", "ruleset"),
    ("map.width", "Map width (m)", "float"), ("map.height", "Map height (m)", "float"),
    ("map.grid", "Grid square (m)", "float"),
)


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:g}" if abs(v) < 1e6 else repr(v)
    return str(v)


class _LongText(QPlainTextEdit):
    """A multi-line field that reports ``editingFinished`` when it loses focus."""

    editingFinished = Signal()

    def focusOutEvent(self, ev) -> None:
        super().focusOutEvent(ev)
        if self.document().isModified():
            self.document().setModified(False)
            self.editingFinished.emit()


def click_focus_only(panel: QWidget) -> None:
    """Fields take keyboard focus only when clicked (Qt.ClickFocus): neither selecting an
    object, nor a dialog closing, nor Tab puts the caret in a field, so the GM's tool keys
    (S, P, T ...) never type into one (a Static Veil GM once renamed "rook" to "s")."""
    for w in panel.findChildren(QWidget):
        if w.focusPolicy() & Qt.FocusPolicy.TabFocus:
            w.setFocusPolicy(Qt.FocusPolicy.ClickFocus)


class InspectorPanel(QWidget):
    """Edits the selected object. ``error`` holds the last refusal (also shown inline)."""

    PREVIEW_REFRESH_MS = 100

    def __init__(self, document: EncounterDocument, selection: Selection, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.selection = selection
        self.error: str | None = None
        self._target: tuple[str, str] | None = None  # (kind, id)
        self._setters: dict[str, Callable[[object], None]] = {}
        self.widgets: dict[str, QWidget] = {}

        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        self.heading = QLabel()
        self.heading.setStyleSheet("font-weight: 600; font-size: 14px;")
        outer.addWidget(self.heading)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {theme.ink('error')}; padding: 4px; border-radius: 3px;")
        self.error_label.hide()
        outer.addWidget(self.error_label)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer.addWidget(self.scroll, 1)
        # one page of fields per kind of target, made on first use and kept: a token's dozen
        # fields took ~10-30 ms to make on every switch from the map's fields to a token's
        self._pages: dict[str, tuple[QWidget, dict, dict]] = {}
        self._form_host, self.form = self._new_page()
        self.scroll.setWidget(self._form_host)

        self.json_box = QGroupBox("All fields (JSON, as in the file)")
        self.json_box.setCheckable(True)
        self.json_box.setChecked(False)
        jl = QVBoxLayout(self.json_box)
        self.json_edit = QPlainTextEdit()
        self.json_edit.setMinimumHeight(140)
        self.json_edit.setStyleSheet("font-family: monospace;")
        jl.addWidget(self.json_edit)
        self.json_apply = QPushButton("Apply JSON")
        self.json_apply.clicked.connect(self._apply_json)
        jl.addWidget(self.json_apply)
        self.json_box.toggled.connect(self._json_toggled)
        self.json_edit.setVisible(False)
        self.json_apply.setVisible(False)
        outer.addWidget(self.json_box)

        self._since_refresh = clock.Stopwatch(start=False)
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.timeout.connect(self._refresh)
        document.changed.connect(self._on_document)
        selection.changed.connect(self._on_selection)
        self._on_selection()
        click_focus_only(self)
        self._ahead = IdleJob(self._make_pages_ahead)
        self._ahead.start()

    # -- what is shown -------------------------------------------------------------------------
    def target(self) -> tuple[str, str] | None:
        return self._target

    def _on_selection(self) -> None:
        enc = self.document.encounter
        ids = self.selection.ids
        if len(ids) == 1 and edits.kind_of(enc, ids[0]):
            target = (edits.kind_of(enc, ids[0]), ids[0])
        elif len(ids) > 1:
            target = ("many", "")
        else:
            target = ("encounter", "")
        if target != self._target:
            if target[0] != (self._target or ("",))[0]:
                # a field being typed in ends here, for the object it was typed for (its page
                # is kept, hidden: hiding would end it later, for the new object)
                focused = QApplication.focusWidget()
                if focused is not None and self._form_host.isAncestorOf(focused):
                    focused.clearFocus()
            self._target = target
            self._build()
        self._show_error(None)
        self._refresh()

    def _on_document(self, change: DocumentChange) -> None:
        if self._target and self._target[0] in ("token", "obstacle", "zone"):
            if edits.kind_of(self.document.encounter, self._target[1]) is None:
                self._on_selection()
                return
        if change.changes is not None and not self._named(change.changes):
            return  # a rule outcome that left what is shown alone (it says what it changed)
        if change.preview:
            # (a dock tabbed behind another stays "visible" to Qt, with nothing of it on screen)
            hidden = not self.isVisible() or self.visibleRegion().isEmpty()
            if hidden or (change.diff.only_token_positions and self._target[0] != "token"):
                self._stale = True
                return
            # during a drag, follow at most every PREVIEW_REFRESH_MS (the map follows every move)
            if self._since_refresh.elapsed() * 1e3 < self.PREVIEW_REFRESH_MS:
                if not self._later.isActive():
                    self._later.start(self.PREVIEW_REFRESH_MS)
                return
        self._refresh()

    def _named(self, changes) -> bool:
        """Whether a rule outcome's ``changes`` (``engine.rules.Changes``) name what is shown."""
        kind, ident = self._target or ("", "")
        if kind == "encounter":
            return changes.map
        if kind == "many":
            return bool(set(self.selection.ids) & (changes.tokens | changes.obstacles | changes.zones))
        return ident in {"token": changes.tokens, "obstacle": changes.obstacles, "zone": changes.zones}.get(kind, ())

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        self.refresh_if_stale()

    def refresh_if_stale(self) -> None:
        """Show the current values if a drag changed them while the panel was out of sight
        (its dock hidden, or a tab behind another)."""
        if getattr(self, "_stale", False):
            self._stale = False
            self._refresh()

    def _new_page(self) -> tuple[QWidget, QFormLayout]:
        host = QWidget()
        form = QFormLayout(host)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # a field too narrow beside its label goes below it: the page never scrolls sideways
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        return host, form

    def _page(self, kind: str) -> tuple[QWidget, dict, dict]:
        """The page of fields for a kind of target (made on first use)."""
        page = self._pages.get(kind)
        if page is None:
            host, form = self._new_page()
            shown = (self.widgets, self._setters, self.form)
            self._setters, self.widgets = {}, {}  # (what _make_field fills)
            specs = {"token": TOKEN_FIELDS, "obstacle": OBSTACLE_FIELDS, "zone": ZONE_FIELDS,
                     "encounter": ENCOUNTER_FIELDS}.get(kind, ())
            for name, label, ftype in specs:
                w = self._make_field(name, ftype)
                self.widgets[name] = w
                if ftype in WIDE_FIELDS:
                    # the table and the notes across the whole column, their label above
                    # (beside the labels a weapon's name was cut at 1366: issue 30 item 8)
                    form.addRow(QLabel(label))
                    form.addRow(w)
                else:
                    form.addRow(label, w)
            if kind == "many":
                self._many_label = QLabel()
                form.addRow(self._many_label)
            page = self._pages[kind] = (host, self.widgets, self._setters)
            self.widgets, self._setters, self.form = shown
            click_focus_only(host)
        return page

    def _make_pages_ahead(self) -> None:
        """Make one page not made yet (a turn each, after the window opened), so the first
        click on a token or an obstacle only fills its fields."""
        for kind in ("token", "obstacle", "zone"):
            if kind not in self._pages:
                self._page(kind)
                self._ahead.start()
                return

    def _build(self) -> None:
        kind, ident = self._target
        host, self.widgets, self._setters = self._page(kind)
        self.form = host.layout()
        if self.scroll.widget() is not host:
            self.scroll.takeWidget()  # (kept in self._pages)
            self.scroll.setWidget(host)
        self._form_host = host
        self.json_box.setVisible(kind in ("token", "obstacle", "zone"))

    def _refresh(self) -> None:
        self._later.stop()
        self._since_refresh.restart()
        kind, ident = self._target
        if kind not in ("encounter", "many") and edits.kind_of(self.document.encounter, ident) is None:
            return
        enc = self.document.encounter
        if kind == "encounter":
            self.heading.setText("Encounter and map")
            values = {"name": enc.name, "ruleset": enc.ruleset, "map.width": enc.map.width,
                      "map.height": enc.map.height, "map.grid": enc.map.grid}
        elif kind == "many":
            self.heading.setText("Several objects")
            self._many_label.setText(f"{len(self.selection.ids)} objects selected.\n"
                                     "Drag to move them together; Delete removes them; Ctrl+D duplicates.")
            values = {}
        else:
            item = edits.find(enc, ident)
            self.heading.setText(f"{kind.capitalize()}: {display_name(item, enc)}" if hasattr(item, "name") else kind)
            values = {name: getattr(item, name, None) for name in self.widgets}
            if self.json_box.isChecked() and not self.json_edit.hasFocus():
                self.json_edit.setPlainText(json.dumps(item.model_dump(mode="json", exclude_none=True), indent=2, ensure_ascii=False))
        for name, value in values.items():
            setter = self._setters.get(name)
            if setter is not None:
                setter(value)

    # -- building fields --------------------------------------------------------------------------
    def _make_field(self, name: str, ftype: str) -> QWidget:
        if ftype in ("text", "float", "optfloat", "optint"):
            w = QLineEdit()
            w.setObjectName(f"field_{name}")

            def set_(v, w=w):
                if not w.hasFocus() or w.text() == "":
                    w.blockSignals(True)
                    w.setText(_fmt(v))
                    w.blockSignals(False)

            w.editingFinished.connect(lambda n=name, t=ftype, w=w: self._commit_text(n, t, w.text()))
            self._setters[name] = set_
            return w
        if ftype == "bool":
            w = QCheckBox()
            w.setObjectName(f"field_{name}")

            def set_(v, w=w):
                w.blockSignals(True)
                w.setChecked(bool(v))
                w.blockSignals(False)

            w.toggled.connect(lambda on, n=name: self.apply({n: bool(on)}))
            self._setters[name] = set_
            return w
        if ftype in ("stance", "zonekind", "choke", "ruleset", "side", "owner", "zoneweapon"):
            w = QComboBox()
            w.setObjectName(f"field_{name}")
            editable = ftype in ("side", "zoneweapon")
            w.setEditable(editable)
            fixed = {"stance": STANCES, "zonekind": ZONE_KINDS, "choke": CHOKES, "ruleset": rulesets()}.get(ftype)

            def set_(v, w=w, fixed=fixed, ftype=ftype):
                w.blockSignals(True)
                w.clear()
                enc = self.document.encounter
                if fixed is not None:
                    w.addItems(list(fixed))
                elif ftype == "side":
                    sides = list(dict.fromkeys(["runner", "ganger", "neutral"] + [t.side for t in enc.tokens]))
                    w.addItems(sides)
                elif ftype == "owner":
                    w.addItem("(none)", None)
                    for t in enc.tokens:
                        w.addItem(f"{token_name(t)} [{t.id}]", t.id)
                elif ftype == "zoneweapon":
                    w.addItem("", None)
                    z = edits.find(enc, self._target[1]) if self._target[0] == "zone" else None
                    if z is not None and z.owner:
                        for wp in enc.token(z.owner).weapons:
                            w.addItem(wp.name, wp.name)
                if ftype == "owner":
                    i = w.findData(v)
                    w.setCurrentIndex(max(0, i))
                else:
                    text = _fmt(v)
                    i = w.findText(text)
                    if i < 0 and text:
                        w.addItem(text)
                        i = w.findText(text)
                    w.setCurrentIndex(max(0, i))
                w.blockSignals(False)

            if ftype == "owner":
                w.activated.connect(lambda i, n=name, w=w: self.apply({n: w.itemData(i)}))
            elif editable:
                w.lineEdit().editingFinished.connect(lambda n=name, w=w: self.apply({n: w.currentText().strip() or None} if n == "weapon" else {n: w.currentText().strip()}))
                w.activated.connect(lambda i, n=name, w=w: self.apply({n: w.itemText(i) or None} if n == "weapon" else {n: w.itemText(i)}))
            else:
                w.activated.connect(lambda i, n=name, w=w: self.apply({n: w.itemText(i) or None}))
            self._setters[name] = set_
            return w
        if ftype == "colour":
            box = QWidget()
            lay = QHBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            edit = QLineEdit()
            edit.setObjectName(f"field_{name}")
            pick = QToolButton()
            pick.setText("\u2026")
            lay.addWidget(edit, 1)
            lay.addWidget(pick)

            def set_(v, edit=edit, pick=pick):
                edit.blockSignals(True)
                edit.setText(v or "")
                edit.blockSignals(False)
                pick.setStyleSheet(f"background: {v};" if v else "")

            edit.editingFinished.connect(lambda n=name, e=edit: self.apply({n: e.text().strip() or None}))

            def choose(n=name, e=edit):
                c = QColorDialog.getColor(QColor(e.text() or "#ff7043"), self, "Zone colour")
                if c.isValid():
                    self.apply({n: c.name()})

            pick.clicked.connect(choose)
            self._setters[name] = set_
            return box
        if ftype == "longtext":
            w = _LongText()
            w.setObjectName(f"field_{name}")
            w.setMaximumHeight(70)

            def set_(v, w=w):
                if not w.hasFocus():
                    w.setPlainText(v or "")
                    w.document().setModified(False)

            w.editingFinished.connect(lambda n=name, w=w: self.apply({n: w.toPlainText()}))
            self._setters[name] = set_
            return w
        if ftype == "polygon":
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            w = QPlainTextEdit()
            w.setObjectName(f"field_{name}")
            w.setMaximumHeight(110)
            btn = QPushButton("Apply corners")
            lay.addWidget(w)
            lay.addWidget(btn)

            def set_(v, w=w):
                if not w.hasFocus():
                    w.setPlainText("\n".join(f"{x:g}, {y:g}" for x, y in v or ()))

            btn.clicked.connect(lambda _=False, n=name, w=w: self._commit_polygon(n, w.toPlainText()))
            self._setters[name] = set_
            return box
        if ftype == "weapons":
            return self._weapons_field(name)
        raise ValueError(f"unknown field type {ftype}")

    def _weapons_field(self, name: str) -> QWidget:
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        table = QTableWidget(0, 2)
        table.setObjectName(f"field_{name}")
        table.setHorizontalHeaderLabels(["Name", "Range table"])
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        table.verticalHeader().setVisible(False)
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.setWordWrap(True)
        table.setTextElideMode(Qt.TextElideMode.ElideNone)
        table.setMaximumHeight(130)
        lay.addWidget(table)
        row = QHBoxLayout()
        add = QPushButton("Add weapon")
        rem = QPushButton("Remove")
        row.addWidget(add)
        row.addWidget(rem)
        lay.addLayout(row)
        cats = [""] + sorted(CATEGORIES)

        def set_(v, table=table):
            table.blockSignals(True)
            table.setRowCount(0)
            for wp in v or ():
                r = table.rowCount()
                table.insertRow(r)
                table.setItem(r, 0, QTableWidgetItem(wp.name))
                combo = QComboBox()
                combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
                combo.addItems(cats)
                if wp.ranges and not wp.category:
                    combo.addItem("(own ranges)")
                    combo.setCurrentText("(own ranges)")
                else:
                    combo.setCurrentText(wp.category or "")
                combo.activated.connect(lambda i, r=r, c=combo: self._weapon_change(r, category=c.currentText()))
                table.setCellWidget(r, 1, combo)
            table.resizeRowsToContents()  # (a long name wraps)
            table.blockSignals(False)

        table.itemChanged.connect(lambda it: self._weapon_change(it.row(), name=it.text()))
        add.clicked.connect(self._weapon_add)
        rem.clicked.connect(lambda: self._weapon_remove(table.currentRow()))
        self._setters[name] = set_
        return box

    # -- applying ---------------------------------------------------------------------------------
    def apply(self, fields: dict) -> bool:
        """Apply field values to the shown object through the engine's checks; one undo step.
        Returns False and shows the engine's message when it refuses."""
        kind, ident = self._target
        enc = self.document.committed
        try:
            if kind == "encounter":
                new = edits.apply_encounter_fields(enc, fields)
                label = "encounter"
            elif kind in ("token", "obstacle", "zone"):
                new = edits.apply_fields(enc, ident, fields)
                item = edits.find(enc, ident)
                label = display_name(item, enc)
            else:
                return False
        except CoverfireError as exc:
            self._show_error(str(exc))
            return False
        self._show_error(None)
        field_names = ", ".join(k.split(".")[-1] for k in fields)
        new_id = str(fields["id"]) if "id" in fields else ident
        self._commit(new, f"Edit {label}: {field_names}", ident, new_id)
        return True

    def _commit(self, new: Encounter, text: str, old_id: str, new_id: str) -> None:
        """Commit an edit; a renamed object stays selected under its new id."""
        if new_id == old_id:
            self.document.commit(new, text)
            return
        self._target = (self._target[0], new_id)
        self.selection.blockSignals(True)
        try:
            self.selection.rename(old_id, new_id)
            self.document.commit(new, text)
        finally:
            self.selection.blockSignals(False)
        self.selection.changed.emit()

    def _commit_text(self, name: str, ftype: str, text: str) -> None:
        text = text.strip()
        if ftype == "text":
            value: object = text
        elif text == "" and ftype in ("optfloat", "optint"):
            value = None
        else:
            try:
                value = int(text) if ftype == "optint" else float(text.replace(",", "."))
            except ValueError:
                self._show_error(f"{name}: {text!r} is not a number")
                return
        kind, ident = self._target
        current = self._current_value(name)
        if current == value:
            return
        self.apply({name: value})

    def _current_value(self, name: str):
        kind, ident = self._target
        enc = self.document.committed
        if kind == "encounter":
            if name.startswith("map."):
                return getattr(enc.map, name[4:])
            return getattr(enc, name)
        try:
            return getattr(edits.find(enc, ident), name, None)
        except CoverfireError:
            return None

    def _commit_polygon(self, name: str, text: str) -> None:
        pts = []
        for n, line in enumerate(text.splitlines(), 1):
            line = line.strip().strip("()[]")
            if not line:
                continue
            try:
                x, y = (float(v) for v in line.replace(";", ",").split(","))
            except ValueError:
                self._show_error(f"corner line {n}: {line!r} is not 'x, y'")
                return
            pts.append((x, y))
        self.apply({name: tuple(pts)})

    def _weapons(self):
        return list(edits.find(self.document.committed, self._target[1]).weapons)

    def _weapon_change(self, row: int, *, name: str | None = None, category: str | None = None) -> None:
        ws = self._weapons()
        if not 0 <= row < len(ws):
            return
        data = ws[row].model_dump(mode="python", round_trip=True)
        if name is not None:
            data["name"] = name
        if category is not None and category != "(own ranges)":
            data["category"] = category or None
        ws[row] = data
        self.apply({"weapons": tuple(w if isinstance(w, dict) else w.model_dump(mode="python", round_trip=True) for w in ws)})

    def _weapon_add(self) -> None:
        ws = [w.model_dump(mode="python", round_trip=True) for w in self._weapons()]
        ws.append({"name": f"Weapon {len(ws) + 1}", "category": "heavy_pistol"})
        self.apply({"weapons": tuple(ws)})

    def _weapon_remove(self, row: int) -> None:
        ws = [w.model_dump(mode="python", round_trip=True) for w in self._weapons()]
        if 0 <= row < len(ws):
            del ws[row]
            self.apply({"weapons": tuple(ws)})

    def _apply_json(self) -> None:
        kind, ident = self._target
        if kind not in ("token", "obstacle", "zone"):
            return
        try:
            data = json.loads(self.json_edit.toPlainText())
            if not isinstance(data, dict):
                raise ValueError("the JSON must be one object { ... }")
        except ValueError as exc:
            self._show_error(f"not valid JSON: {exc}")
            return
        except RecursionError:
            self._show_error("not valid JSON: it is nested too deeply")
            return
        try:
            new = edits.replace_from_data(self.document.committed, ident, data)
        except CoverfireError as exc:
            self._show_error(str(exc))
            return
        self._show_error(None)
        item = edits.find(self.document.committed, ident)
        self._commit(new, f"Edit {display_name(item, self.document.committed)} (JSON)", ident, str(data.get("id", ident)))
        self._refresh()

    def _json_toggled(self, on: bool) -> None:
        self.json_edit.setVisible(on)
        self.json_apply.setVisible(on)
        if on:
            self._refresh()

    def _show_error(self, text: str | None) -> None:
        self.error = text
        self.error_label.setText(text or "")
        self.error_label.setVisible(bool(text))
