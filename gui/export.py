"""Exporting snapshots: the ``coverfire export`` command, File > Export Snapshot, Copy
Snapshot, and snapshot bundles. All of them draw with :class:`gui.snapshot.Snapshot`.

``coverfire export FILE -o OUT.png|.svg|.pdf [--view player|gm] [--attacker ID]
[--scale N] [--title T]`` renders without a screen (offscreen Qt). ``--scale`` (1-4)
multiplies the PNG's pixels; SVG and PDF are vector and ignore it. A bad file, an unknown
id, an unknown extension or a scale out of range prints one line and exits 2.

A snapshot bundle is the PNG plus the encounter file as it stood, side by side with the
same name (``fight-2031.png`` and ``fight-2031.json``); opening the JSON reopens the fight
exactly where it was (tokens, zones, rule state; a relative background image path is
rewritten to stay valid from the bundle's folder).
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path

from engine.errors import CoverfireError
from engine.model import Encounter
from engine.names import token_name
from gui import theme

EXIT_OK = 0
SETTINGS_GROUP = "snapshot"


# -- headless -------------------------------------------------------------------------------------
def ensure_app(offscreen: bool = False):
    """The running QApplication, or a new one (on the offscreen platform when ``offscreen``,
    so no screen is needed)."""
    if offscreen:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(["coverfire"])
    return app


def run_export(args: argparse.Namespace) -> int:
    """``coverfire export``: render FILE to OUT (PNG, SVG or PDF) and say what was written."""
    from gui.snapshot import SnapshotSpec, format_for

    out = Path(args.output)
    fmt = format_for(out)  # an unknown extension stops here, before any work
    spec = SnapshotSpec(view=getattr(args, "view", "player") or "player", title=getattr(args, "title", None),
                        attacker=getattr(args, "attacker", None), scale=float(getattr(args, "scale", 1.0) or 1.0))
    spec.check()
    if not out.parent.exists():
        raise CoverfireError(f"cannot write {out}: the folder {out.parent} does not exist")
    from engine.files import load_encounter

    encounter = load_encounter(args.file)
    if spec.attacker is not None:
        encounter.token(spec.attacker)  # an unknown id is named before Qt starts
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is None:
        ensure_app(offscreen=True)
    from gui.snapshot import Snapshot

    with Snapshot(encounter, spec, path=args.file) as snap:
        snap.write(out)
        size = snap.page_size()
        for warning in snap.warnings:
            print(f"coverfire: warning: {warning}", file=sys.stderr)
    if fmt == "PNG":
        detail = f"{round(size.width() * spec.scale)}\u00d7{round(size.height() * spec.scale)} px"
    else:
        detail = f"{round(size.width())}\u00d7{round(size.height())} px page, vector"
    print(f"wrote {out} ({fmt}, {detail}, {spec.view} view)")
    return EXIT_OK


# -- bundles ----------------------------------------------------------------------------------------
def bundle_paths(png_path: str | Path) -> tuple[Path, Path]:
    """The PNG and encounter file of a bundle named after ``png_path``."""
    p = Path(png_path)
    if p.suffix.lower() != ".png":
        p = p.with_name(p.name + ".png") if p.suffix.lower() not in (".json", ".svg", ".pdf") else p.with_suffix(".png")
    return p, p.with_suffix(".json")


def save_bundle(encounter: Encounter, png_path: str | Path, spec=None, *, source: str | Path | None = None,
                open_file: str | Path | None = None) -> tuple[Path, Path]:
    """Write a snapshot bundle: ``NAME.png`` (the snapshot) and ``NAME.json`` (the encounter
    as it stands), atomically each. ``source`` is where the encounter was loaded from (for
    its background image); ``open_file`` is the GM's open file, which a bundle never
    overwrites. Returns both paths."""
    from engine.files import save_encounter, writable_target
    from gui.edits import rebase_background
    from gui.snapshot import Snapshot, SnapshotSpec, write_bytes

    png, js = bundle_paths(png_path)
    if open_file is not None and js.resolve() == Path(open_file).resolve():
        raise CoverfireError(f"{js.name} is the encounter you have open; give the snapshot bundle another name")
    if not png.parent.is_dir():
        raise CoverfireError(f"cannot write {png}: the folder {png.parent} does not exist")
    for out in (png, js):  # a pipe, a device or a folder: refused before any work (nothing opened)
        writable_target(out)
    spec = spec or SnapshotSpec()
    with Snapshot(encounter, spec, path=source) as snap:
        data = snap.png()
    save_encounter(rebase_background(encounter, source, png.parent), js)
    write_bytes(png, data)
    return png, js


def default_bundle_name(encounter: Encounter, when: datetime | None = None) -> str:
    """``<encounter name>-<YYYY-MM-DD-HHMM>.png``, with characters unsafe in file names
    replaced."""
    when = when or datetime.now()
    stem = "".join(c if c.isalnum() or c in "-_ " else "-" for c in (encounter.name or "encounter")).strip()
    stem = "-".join(stem.split()) or "encounter"
    return f"{stem}-{when:%Y-%m-%d-%H%M}.png"


# -- the window's side --------------------------------------------------------------------------------
def _player_options(window):
    from gui.player_view import PlayerOptions

    ctl = getattr(window, "player_view", None)
    return ctl.options if ctl is not None else PlayerOptions.load(window.settings)


def window_spec(window, **changes):
    """A :class:`SnapshotSpec` for what the GM's window shows now: its attacker and weapon,
    the player view's options, the map view's width as 1x, then the choices saved by the
    Export Snapshot dialog, then ``changes``."""
    from gui.snapshot import SnapshotSpec

    saved = load_choices(window.settings)
    base = dict(
        view=saved.get("view", "player"),
        attacker=window.answers.attacker,
        weapon=window.selection.weapon if window.answers.attacker else None,
        map_width=max(400, min(4000, window.map_view.viewport().width() or 1280)),
        scale=saved.get("scale", 1.0),
        legend=saved.get("legend", True),
        table=saved.get("table", True),
        player=_player_options(window),
    )
    if saved.get("area") == "view":
        r = window.map_view.vb.viewRect()
        base["region"] = (r.x(), r.y(), r.width(), r.height())
    base.update(changes)
    return SnapshotSpec(**base)


def load_choices(settings) -> dict:
    """The Export Snapshot dialog's saved choices (format, view, area, scale, width, legend,
    table)."""
    out: dict = {}
    settings.beginGroup(SETTINGS_GROUP)
    try:
        for key, conv in (("format", str), ("view", str), ("area", str), ("size_mode", str),
                          ("scale", float), ("width", int), ("legend", "bool"), ("table", "bool")):
            v = settings.value(key)
            if v is None:
                continue
            try:
                out[key] = (v if isinstance(v, bool) else str(v).lower() in ("true", "1")) if conv == "bool" else conv(v)
            except (TypeError, ValueError):
                continue
    finally:
        settings.endGroup()
    if out.get("view") not in (None, "player", "gm"):
        out.pop("view")
    if "scale" in out and not 1.0 <= out["scale"] <= 4.0:
        out.pop("scale")
    return out


def save_choices(settings, choices: dict) -> None:
    settings.beginGroup(SETTINGS_GROUP)
    for k, v in choices.items():
        settings.setValue(k, v)
    settings.endGroup()


def snapshot_image(window, spec=None):
    """The snapshot of the window's document now, as a QImage."""
    from gui.snapshot import Snapshot

    spec = spec or window_spec(window)
    with Snapshot(window.document.encounter, spec, path=window.document.path) as snap:
        return snap.image()


def copy_snapshot(window, spec=None):
    """Put a snapshot (PNG image) on the clipboard, for pasting into a chat. Returns it."""
    from PySide6.QtGui import QGuiApplication

    try:
        img = snapshot_image(window, spec)
    except CoverfireError as exc:
        window.statusBar().showMessage(f"Cannot copy a snapshot: {exc}", 8000)
        return None
    QGuiApplication.clipboard().setImage(img)
    window.statusBar().showMessage(f"Snapshot copied ({img.width()}\u00d7{img.height()} px)", 4000)
    return img


def _make_dialog_class():
    from PySide6.QtWidgets import (
        QButtonGroup,
        QCheckBox,
        QComboBox,
        QDialog,
        QDialogButtonBox,
        QDoubleSpinBox,
        QFileDialog,
        QFormLayout,
        QHBoxLayout,
        QLabel,
        QLineEdit,
        QMessageBox,
        QPushButton,
        QRadioButton,
        QSpinBox,
        QVBoxLayout,
        QWidget,
    )

    from gui.snapshot import PAGE_MARGIN, Snapshot, round_text

    class ExportDialog(QDialog):
        """File > Export Snapshot: format, view, area, size, title, round line, legend,
        targets table; Save, Copy, Save bundle."""

        def __init__(self, window):
            super().__init__(window)
            self.window_ = window
            self.setWindowTitle("Export snapshot")
            enc = window.document.encounter
            saved = load_choices(window.settings)
            lay = QVBoxLayout(self)
            form = QFormLayout()
            self.format = QComboBox()
            self.format.addItems(["PNG", "SVG", "PDF"])
            self.format.setCurrentText(saved.get("format", "PNG"))
            form.addRow("Format", self.format)
            self.view = QComboBox()
            self.view.addItem("What the players see", "player")
            self.view.addItem("What the GM sees (hidden objects greyed)", "gm")
            self.view.setCurrentIndex(1 if saved.get("view") == "gm" else 0)
            form.addRow("View", self.view)
            self.area = QComboBox()
            self.area.addItem("The whole map", "map")
            self.area.addItem("What my view shows now", "view")
            self.area.setCurrentIndex(1 if saved.get("area") == "view" else 0)
            form.addRow("Area", self.area)
            size_row = QWidget()
            sl = QHBoxLayout(size_row)
            sl.setContentsMargins(0, 0, 0, 0)
            self.by_scale = QRadioButton("Scale")
            self.by_width = QRadioButton("Width")
            group = QButtonGroup(self)
            group.addButton(self.by_scale)
            group.addButton(self.by_width)
            self.scale = QDoubleSpinBox()
            self.scale.setRange(1.0, 4.0)
            self.scale.setSingleStep(0.5)
            self.scale.setSuffix(" \u00d7 the view")
            self.scale.setValue(saved.get("scale", 1.0))
            self.width_spin = QSpinBox()
            self.width_spin.setRange(400, 16000)
            self.width_spin.setSingleStep(100)
            self.width_spin.setSuffix(" px")
            self.width_spin.setValue(saved.get("width", 1920))
            (self.by_width if saved.get("size_mode") == "width" else self.by_scale).setChecked(True)
            for w in (self.by_scale, self.scale, self.by_width, self.width_spin):
                sl.addWidget(w)
            form.addRow("PNG size", size_row)
            self.title = QLineEdit(enc.name)
            form.addRow("Title", self.title)
            self.round = QLineEdit(round_text(enc) or "")
            self.round.setPlaceholderText("e.g. Combat Turn 2, pass 1")
            form.addRow("Round and pass", self.round)
            self.attacker = QComboBox()
            self.attacker.addItem("(no attacker)", None)
            for t in enc.tokens:
                self.attacker.addItem(f"{token_name(t)} ({t.side})" + (" [hidden]" if t.hidden else ""), t.id)
            i = self.attacker.findData(window.answers.attacker)
            self.attacker.setCurrentIndex(max(0, i))
            form.addRow("Attacker", self.attacker)
            lay.addLayout(form)
            self.legend = QCheckBox("Legend of obstacle heights, sides, zone colours and cover classes")
            self.legend.setChecked(saved.get("legend", True))
            self.table = QCheckBox("Table of the attacker's targets beneath the map")
            self.table.setChecked(saved.get("table", True))
            lay.addWidget(self.legend)
            lay.addWidget(self.table)
            self.size_label = QLabel()
            self.size_label.setStyleSheet(f"color: {theme.ink('dim')};")
            lay.addWidget(self.size_label)
            buttons = QDialogButtonBox()
            self.save_button = QPushButton("Save\u2026")
            self.copy_button = QPushButton("Copy")
            self.bundle_button = QPushButton("Save bundle\u2026")
            self.bundle_button.setToolTip("The PNG and the encounter file side by side, to reopen the fight")
            buttons.addButton(self.save_button, QDialogButtonBox.ButtonRole.ActionRole)
            buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
            buttons.addButton(self.bundle_button, QDialogButtonBox.ButtonRole.ActionRole)
            buttons.addButton(QDialogButtonBox.StandardButton.Close)
            buttons.rejected.connect(self.reject)
            self.save_button.clicked.connect(lambda: self.save())
            self.copy_button.clicked.connect(lambda: self.copy())
            self.bundle_button.clicked.connect(lambda: self.bundle())
            lay.addWidget(buttons)
            for sig in (self.format.currentIndexChanged, self.scale.valueChanged, self.width_spin.valueChanged,
                        self.by_scale.toggled, self.table.toggled, self.legend.toggled, self.attacker.currentIndexChanged,
                        self.area.currentIndexChanged):
                sig.connect(self._update_size)
            self._update_size()

        # -- the spec ---------------------------------------------------------------------
        def choices(self) -> dict:
            return {"format": self.format.currentText(), "view": self.view.currentData(),
                    "area": self.area.currentData(), "size_mode": "width" if self.by_width.isChecked() else "scale",
                    "scale": float(self.scale.value()), "width": int(self.width_spin.value()),
                    "legend": self.legend.isChecked(), "table": self.table.isChecked()}

        def spec(self):
            w = self.window_
            c = self.choices()
            attacker = self.attacker.currentData()
            base_width = max(400, min(4000, w.map_view.viewport().width() or 1280))
            region = None
            if c["area"] == "view":
                r = w.map_view.vb.viewRect()
                region = (r.x(), r.y(), r.width(), r.height())
            map_width, scale = base_width, c["scale"]
            if c["size_mode"] == "width":
                map_width, scale = size_for_width(c["width"], base_width)
            return window_spec(
                w, view=c["view"], region=region, map_width=map_width, scale=scale, legend=c["legend"],
                table=c["table"], attacker=attacker,
                weapon=w.selection.weapon if attacker == w.answers.attacker else None,
                title=self.title.text().strip(), round=self.round.text().strip(),
            )

        def _update_size(self, *_):
            try:
                spec = self.spec()
                spec.check()
            except CoverfireError as exc:
                self.size_label.setText(str(exc))
                return
            page_w = spec.map_width + 2 * PAGE_MARGIN
            if self.format.currentText() == "PNG":
                self.size_label.setText(f"About {round(page_w * spec.scale)} px wide")
            else:
                self.size_label.setText(f"A vector page {round(page_w)} px wide")

        # -- actions ------------------------------------------------------------------------
        def _remember(self):
            save_choices(self.window_.settings, self.choices())

        def _warn(self, title: str, exc: Exception) -> None:
            QMessageBox.warning(self, title, str(exc))

        def _start_folder(self) -> Path:
            p = self.window_.document.path
            from gui.main_window import demo_file

            if p is not None and p.resolve() != demo_file().resolve():
                return p.parent
            return Path.home()

        def save(self, path: str | Path | None = None) -> Path | None:
            """Write the snapshot to ``path`` (asked for when None); returns it, or None."""
            fmt = self.format.currentText()
            if path is None:
                start = self._start_folder() / default_bundle_name(self.window_.document.encounter)
                start = start.with_suffix("." + fmt.lower())
                path, _ = QFileDialog.getSaveFileName(self, "Export snapshot", str(start),
                                                      f"{fmt} (*.{fmt.lower()});;All files (*)")
                if not path:
                    return None
            path = Path(path)
            if path.suffix == "":
                path = path.with_suffix("." + fmt.lower())
            try:
                with Snapshot(self.window_.document.encounter, self.spec(), path=self.window_.document.path) as snap:
                    snap.write(path)
            except CoverfireError as exc:
                self._warn("Cannot export", exc)
                return None
            self._remember()
            self.window_.statusBar().showMessage(f"Snapshot written to {path}", 6000)
            return path

        def copy(self):
            """Copy the snapshot to the clipboard; returns the image, or None (the status bar
            says why, e.g. a width beyond 4x the view)."""
            try:
                spec = self.spec()
            except CoverfireError as exc:
                self.window_.statusBar().showMessage(f"Cannot copy a snapshot: {exc}", 8000)
                return None
            self._remember()
            return copy_snapshot(self.window_, spec)

        def bundle(self, path: str | Path | None = None) -> tuple[Path, Path] | None:
            """Save the PNG and the encounter file side by side; returns both paths."""
            doc = self.window_.document
            if path is None:
                start = self._start_folder() / default_bundle_name(doc.encounter)
                path, _ = QFileDialog.getSaveFileName(self, "Save snapshot bundle (PNG + encounter)", str(start),
                                                      "PNG image + encounter (*.png)")
                if not path:
                    return None
            try:
                out = save_bundle(doc.committed, path, self.spec(), source=doc.path, open_file=doc.path)
            except CoverfireError as exc:
                self._warn("Cannot save the bundle", exc)
                return None
            self._remember()
            self.window_.statusBar().showMessage(f"Bundle saved: {out[0].name} and {out[1].name}", 6000)
            return out

    return ExportDialog


_DIALOG_CLASS = None


def ExportDialog(window):  # noqa: N802 - a class made on first use (Qt imports stay lazy)
    """File > Export Snapshot's dialog for ``window``."""
    global _DIALOG_CLASS
    if _DIALOG_CLASS is None:
        _DIALOG_CLASS = _make_dialog_class()
    return _DIALOG_CLASS(window)


def size_for_width(width: int, base_map_width: int) -> tuple[int, float]:
    """(map width in logical pixels, PNG scale) giving a PNG ``width`` pixels wide: wider
    than the view's page, the view's page scaled up (labels grow with it, at most 4x);
    narrower, a narrower page at 1x."""
    from gui.snapshot import MAX_SCALE, PAGE_MARGIN

    page = base_map_width + 2 * PAGE_MARGIN
    if width >= page:
        scale = width / page
        if scale > MAX_SCALE:
            raise CoverfireError(f"{width} px is more than 4\u00d7 the view's {round(page)} px; zoom out or widen the window")
        return base_map_width, scale
    return max(200, int(width - 2 * PAGE_MARGIN)), 1.0


def _install(window) -> None:
    """Add File > Export Snapshot, Copy Snapshot and Save Snapshot Bundle."""
    def open_dialog():
        dlg = ExportDialog(window)
        window.export_dialog = dlg
        dlg.show()
        dlg.raise_()
        return dlg

    def bundle_now():
        dlg = ExportDialog(window)
        window.export_dialog = dlg
        return dlg.bundle()

    acts = [
        window.add_action("File", "Export &Snapshot\u2026", open_dialog, shortcut="Ctrl+E", name="export snapshot",
                          tip="Save the map as PNG, SVG or PDF, as the players or the GM see it"),
        window.add_action("File", "&Copy Snapshot", lambda: copy_snapshot(window), shortcut="Ctrl+Shift+C",
                          name="copy snapshot", tip="Copy the map as an image, for pasting into a chat"),
        window.add_action("File", "Save Snapshot &Bundle\u2026", bundle_now, name="save snapshot bundle",
                          tip="The PNG and the encounter file side by side, to reopen the fight where it was"),
    ]
    quit_act = window.actions.get("quit")
    menu = window.menus["File"]
    if quit_act is not None:
        for act in acts:
            menu.removeAction(act)
            menu.insertAction(quit_act, act)
        menu.insertSeparator(quit_act)


def _register() -> None:
    from gui.main_window import register_extension

    register_extension(_install)


_register()

__all__ = ["run_export", "ensure_app", "save_bundle", "bundle_paths", "default_bundle_name", "window_spec",
           "copy_snapshot", "snapshot_image", "ExportDialog", "size_for_width", "load_choices", "save_choices"]
