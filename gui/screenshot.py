"""Render the main window on the demo to a PNG, offscreen, as the README shows it.

``python -m gui.screenshot [OUT.png] [--size 1920x1080] [--attacker sam] [--hover ganger-6]
[--panels targets,inspector]`` (``--panels all`` keeps every panel open, rule systems' too)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path


def render(out: str | Path, size: tuple[int, int] = (1920, 1080), attacker: str | None = "sam",
           hover: str | None = "ganger-6", file: str | Path | None = None,
           panels: tuple[str, ...] | None = ("targets", "inspector")) -> Path:
    """Open ``file`` (default: the demo) in a main window of ``size`` pixels with only the
    named panels open (None: all), select the attacker, hover a target, let the charge
    column fill, and save the window as PNG."""
    if "QT_QPA_PLATFORM" not in os.environ:  # an offscreen screen of that size: the window fits it
        import json

        cfg = Path(tempfile.mkdtemp(prefix="cf-screen-")) / "screens.json"
        cfg.write_text(json.dumps({"screens": [{"name": "shot", "x": 0, "y": 0, "width": size[0], "height": size[1],
                                                "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
        os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={cfg}"
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from engine.files import load_encounter
    from gui.app import make_app
    from gui.main_window import MainWindow, demo_file

    make_app()
    path = Path(file) if file else demo_file()
    tmp = Path(tempfile.mkdtemp(prefix="cf-shot-"))
    settings = QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(load_encounter(path), path, settings=settings, autosave_folder=tmp / "autosave",
                     autosave_interval_ms=10_000_000)
    win.fill_screen()
    win.show()
    QApplication.processEvents()
    if panels is not None:
        for name, dock in win.docks.items():
            dock.setVisible(name in panels)
        if panels and panels[0] in win.docks:
            win.docks[panels[0]].raise_()
    QApplication.processEvents()
    win.map_view.fit_map()
    if attacker:
        win.selection.select([attacker], win.document.encounter)
        win.answers.finish_charges()
        win.targets.model.update_charges()
    if hover:
        win.map_view.set_hover(hover)
    QApplication.processEvents()
    out = Path(out)
    win.grab().save(str(out))
    win.document.undo_stack.setClean()
    win.close()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Render the Coverfire window to a PNG (offscreen).")
    ap.add_argument("out", nargs="?", default="docs/screenshot.png")
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--attacker", default="sam")
    ap.add_argument("--hover", default="ganger-6")
    ap.add_argument("--file")
    ap.add_argument("--panels", default="targets,inspector", help="panels to keep open, or 'all'")
    a = ap.parse_args(argv)
    w, h = (int(v) for v in a.size.lower().split("x"))
    panels = None if a.panels == "all" else tuple(p for p in a.panels.split(",") if p)
    print(render(a.out, (w, h), a.attacker or None, a.hover or None, a.file, panels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
