"""``coverfire --reset-settings``: every remembered choice goes, autosaves stay unless asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QSettings

from gui.settings_reset import reset_autosaves, reset_settings

ROOT = Path(__file__).resolve().parents[2]


def test_reset_removes_every_key_and_names_them(tmp_path):
    s = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    s.setValue("recent", ["/a.json", "/b.json"])
    s.setValue("window/state", b"\x00\x01")
    s.setValue("import/cell", 1.5)
    s.sync()
    lines = reset_settings(s)
    assert lines[0] == f"removed 3 settings from {tmp_path / 's.ini'}:"
    assert lines[1:] == ["  import/cell", "  recent", "  window/state"]
    fresh = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    assert fresh.allKeys() == []
    assert reset_settings(fresh) == [f"no settings to remove ({tmp_path / 's.ini'})"]


def _autosave(folder: Path, name: str, pid: int, demo: dict) -> Path:
    f = folder / f"autosave-{name}.json"
    f.write_text(json.dumps({"format": "coverfire.autosave", "pid": pid, "saved": 1.0e9,
                             "source": None, "encounter": demo}))
    return f


def _home(tmp_path) -> dict[str, str]:
    home = tmp_path / "home"
    return {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"), "QT_QPA_PLATFORM": "offscreen"}


def _run(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gui.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=60)


WRITE_SETTINGS = ("from PySide6.QtCore import QSettings, QCoreApplication, QStandardPaths as P;"
                  "QCoreApplication.setOrganizationName('Coverfire');QCoreApplication.setApplicationName('Coverfire');"
                  "s=QSettings('Coverfire','Coverfire');s.setValue('recentFiles',['/x.json']);"
                  "s.setValue('player/zoom',2);s.sync();print(s.fileName());"
                  "print(P.writableLocation(P.StandardLocation.AppDataLocation))")


def test_the_command_clears_the_windows_own_settings_in_the_config_folder_and_keeps_autosaves(
        tmp_path, demo_path, dead_pid):
    env = _home(tmp_path)
    made = subprocess.run([sys.executable, "-c", WRITE_SETTINGS], capture_output=True, text=True,
                          env=env, timeout=60)
    conf, data = made.stdout.split("\n")[:2]
    assert conf == str(tmp_path / "home" / ".config" / "Coverfire" / "Coverfire.conf")
    assert data == str(tmp_path / "home" / ".local" / "share" / "Coverfire" / "Coverfire")
    folder = Path(data) / "autosave"
    folder.mkdir(parents=True)
    demo = json.loads(demo_path.read_text())
    crashed = _autosave(folder, "crashed", dead_pid, demo)

    res = _run(env, "--reset-settings")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        f"removed 2 settings from {conf}:", "  player/zoom", "  recentFiles",
        f"kept 1 autosave file in {folder} (--reset-settings --delete-autosaves removes them too)"]
    assert crashed.exists()
    again = subprocess.run([sys.executable, "-c", WRITE_SETTINGS.split("s.setValue")[0] + "print(s.allKeys())"],
                           capture_output=True, text=True, env=env, timeout=60)
    assert again.stdout.strip() == "[]"


def test_delete_autosaves_removes_crashed_and_damaged_ones_but_not_a_running_sessions(tmp_path, demo_path, dead_pid):
    folder = tmp_path / "autosave"
    folder.mkdir()
    demo = json.loads(demo_path.read_text())
    crashed = _autosave(folder, "crashed", dead_pid, demo)
    running = _autosave(folder, "running", os.getpid(), demo)
    broken = folder / "autosave-broken.json"
    broken.write_text("{not json")
    aside = folder / "autosave-old.json.damaged"
    aside.write_text("x")
    mine = folder / "notes.txt"
    mine.write_text("the GM's own file")
    lines = reset_autosaves(folder)
    assert sorted(lines) == sorted(f"removed autosave {p}" for p in (crashed, broken, aside))
    assert running.exists() and mine.exists()
    assert not crashed.exists() and not broken.exists() and not aside.exists()
    assert reset_autosaves(folder) == [f"no autosaves to remove ({folder})"]


def test_delete_autosaves_alone_is_refused(tmp_path):
    res = _run(_home(tmp_path), "--delete-autosaves")
    assert res.returncode == 2
    assert res.stderr == "coverfire: --delete-autosaves goes with --reset-settings\n"
