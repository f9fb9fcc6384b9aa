"""``coverfire --install-desktop``: the menu entry, icons and file types, in a temporary
``$XDG_DATA_HOME``, checked with the desktop's own tools where this machine has them."""

from __future__ import annotations

import configparser
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from engine.errors import CoverfireError
from gui import desktop_entry as de
from gui.cli import main

NS = "{http://www.freedesktop.org/standards/shared-mime-info}"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


@pytest.fixture
def xdg(tmp_path, monkeypatch) -> Path:
    base = tmp_path / "data home"
    monkeypatch.setenv("XDG_DATA_HOME", str(base))
    return base


def _entry(path: Path) -> dict[str, str]:
    cp = configparser.RawConfigParser(delimiters=("=",), interpolation=None)
    cp.optionxform = str
    cp.read(path, encoding="utf-8")
    return dict(cp["Desktop Entry"])


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", data[16:24])


def test_install_desktop_writes_the_entry_icons_and_mime_types_under_xdg_data_home(xdg, capsys):
    assert main(["--install-desktop"]) == 0
    out = capsys.readouterr().out
    desktop = xdg / "applications" / "coverfire.desktop"
    assert f"wrote {desktop}" in out
    keys = _entry(desktop)
    assert keys["Type"] == "Application" and keys["Name"] == "Coverfire"
    assert keys["Icon"] == "coverfire" and keys["Terminal"] == "false"
    assert keys["Exec"].endswith(" %f")
    assert keys["MimeType"] == ("application/x-coverfire-encounter;application/x-uvtt;application/x-chummer5;"
                                "application/x-chummer5-compressed;")
    assert "Game" in keys["Categories"].split(";")
    for n in SIZES:
        png = xdg / "icons" / "hicolor" / f"{n}x{n}" / "apps" / "coverfire.png"
        assert _png_size(png) == (n, n)
        assert f"wrote {png}" in out
    svg = xdg / "icons" / "hicolor" / "scalable" / "apps" / "coverfire.svg"
    assert ET.parse(svg).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    assert (xdg / "mime" / "packages" / "coverfire.xml").is_file()


def test_the_entry_passes_desktop_file_validate(xdg):
    exe = shutil.which("desktop-file-validate")
    if exe is None:
        pytest.skip("desktop-file-validate is not installed (apt-get install desktop-file-utils)")
    de.install(xdg, ["/opt/Cover Fire/coverfire"])
    res = subprocess.run([exe, str(xdg / "applications" / "coverfire.desktop")], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == "", res.stdout + res.stderr


def test_exec_quotes_a_path_with_spaces_and_escapes_reserved_characters():
    assert de.quote_exec_arg("/usr/bin/coverfire") == "/usr/bin/coverfire"
    assert de.quote_exec_arg("/opt/Cover Fire/coverfire") == '"/opt/Cover Fire/coverfire"'
    # a $ inside quotes is escaped with a backslash, which the string escaping doubles
    assert de.quote_exec_arg("/h/a$b c") == '"/h/a\\\\$b c"'
    assert de.quote_exec_arg("/h/100%") == "/h/100%%"
    text = de.desktop_entry(["/opt/Cover Fire/bin/python", "-m", "gui.cli"])
    assert 'Exec="/opt/Cover Fire/bin/python" -m gui.cli %f\n' in text
    assert "TryExec=/opt/Cover Fire/bin/python\n" in text


def test_the_mime_xml_names_the_globs_and_the_format_field():
    root = ET.fromstring(de.mime_xml())
    types = {t.get("type"): t for t in root.findall(f"{NS}mime-type")}
    assert set(types) == {"application/x-coverfire-encounter", "application/x-uvtt", "application/x-chummer5",
                          "application/x-chummer5-compressed"}
    globs = {name: [g.get("pattern") for g in t.findall(f"{NS}glob")] for name, t in types.items()}
    assert globs == {"application/x-coverfire-encounter": ["*.coverfire.json"],
                     "application/x-uvtt": ["*.dd2vtt", "*.uvtt", "*.df2vtt"],
                     "application/x-chummer5": ["*.chum5"],
                     "application/x-chummer5-compressed": ["*.chum5lz"]}
    enc = types["application/x-coverfire-encounter"]
    assert enc.find(f"{NS}sub-class-of").get("type") == "application/json"
    matches = [m.get("value") for m in enc.iter(f"{NS}match")]
    assert matches == ['"format": "coverfire.encounter"', '"format":"coverfire.encounter"']
    assert types["application/x-chummer5"].find(f"{NS}sub-class-of").get("type") == "application/xml"


def test_update_mime_database_compiles_the_types(xdg):
    if shutil.which("update-mime-database") is None:
        pytest.skip("update-mime-database is not installed (shared-mime-info)")
    lines = de.install(xdg, ["/usr/bin/coverfire"])
    assert "update-mime-database: ok" in lines
    globs2 = (xdg / "mime" / "globs2").read_text()
    for line in ("application/x-coverfire-encounter:*.coverfire.json", "application/x-uvtt:*.dd2vtt",
                 "application/x-chummer5-compressed:*.chum5lz",
                 "application/x-uvtt:*.uvtt", "application/x-uvtt:*.df2vtt", "application/x-chummer5:*.chum5"):
        assert line in globs2
    assert "application/x-coverfire-encounter application/json" in (xdg / "mime" / "subclasses").read_text()
    if shutil.which("update-desktop-database"):
        cache = (xdg / "applications" / "mimeinfo.cache").read_text()
        assert "application/x-uvtt=coverfire.desktop;" in cache


def test_the_desktop_recognises_each_file_type(xdg, tmp_path, demo_path, monkeypatch):
    """GIO (what GNOME's file manager asks) names the types from the installed database: by
    extension, and by the "format" field for an encounter without a known extension."""
    gio = shutil.which("gio")
    if gio is None or shutil.which("update-mime-database") is None:
        pytest.skip("gio or update-mime-database is not installed")
    de.install(xdg, ["/usr/bin/coverfire"])
    files = tmp_path / "files"
    files.mkdir()
    text = demo_path.read_text()
    (files / "ambush.coverfire.json").write_text(text)
    (files / "ambush").write_text(text)
    (files / "hall.dd2vtt").write_text('{"format": 0.3}')
    (files / "hall.df2vtt").write_text('{"format": 0.3}')
    (files / "sam.chum5").write_text("<?xml version='1.0'?><character/>")
    (files / "plain.json").write_text('{"a": 1}')
    (files / "sam.chum5lz").write_bytes(b"]\x00\x00\x80\x00" + bytes(40))
    want = {"ambush.coverfire.json": "application/x-coverfire-encounter",
            "ambush": "application/x-coverfire-encounter", "hall.dd2vtt": "application/x-uvtt",
            "hall.df2vtt": "application/x-uvtt", "sam.chum5": "application/x-chummer5",
            "plain.json": "application/json", "sam.chum5lz": "application/x-chummer5-compressed"}
    for name, mime in want.items():
        res = subprocess.run([gio, "info", "-a", "standard::content-type", str(files / name)],
                             capture_output=True, text=True, timeout=30)
        assert f"standard::content-type: {mime}" in res.stdout, (name, res.stdout, res.stderr)


def test_uninstall_removes_exactly_what_install_wrote(xdg, capsys):
    other = xdg / "applications" / "other.desktop"
    other.parent.mkdir(parents=True)
    other.write_text("[Desktop Entry]\n")
    de.install(xdg, ["/usr/bin/coverfire"])
    assert main(["--uninstall-desktop"]) == 0
    out = capsys.readouterr().out
    assert all(not p.exists() for p in de.written_paths(xdg))
    assert out.count("removed /") == len(de.written_paths(xdg)) == 1 + 8 + 1 + 1
    assert other.exists()
    assert not (xdg / "icons").exists()  # (the 9 size folders, their apps/, hicolor/, icons/: all empty, all gone)
    assert out.count("removed empty folder ") == 2 * 9 + 2
    assert main(["--uninstall-desktop"]) == 0
    assert "nothing to remove" in capsys.readouterr().out


def test_uninstall_keeps_icon_folders_that_hold_something_else(xdg, capsys):
    de.install(xdg, ["/usr/bin/coverfire"])
    theirs = xdg / "icons" / "hicolor" / "48x48" / "apps" / "other.png"
    theirs.write_bytes(b"x")
    lines = de.uninstall(xdg)
    assert theirs.exists()
    assert not (xdg / "icons" / "hicolor" / "16x16").exists()
    assert f"removed empty folder {xdg / 'icons' / 'hicolor' / '48x48' / 'apps'}" not in lines


def test_the_icon_cache_is_refreshed_only_where_one_exists(xdg, monkeypatch):
    theme = xdg / "icons" / "hicolor"
    monkeypatch.setattr(de.shutil, "which", lambda tool: f"/usr/bin/{tool}" if tool != "xdg-icon-resource" else None)
    assert de._icon_cache_run(xdg)[2] == f"no icon cache under {theme} to refresh (none needed)"
    theme.mkdir(parents=True)
    (theme / "icon-theme.cache").write_bytes(b"")
    assert de._icon_cache_run(xdg) == ("gtk-update-icon-cache", ["-f", "-t", "-q", str(theme)], None)
    monkeypatch.setattr(de.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    assert de._icon_cache_run(xdg) == ("xdg-icon-resource", ["forceupdate", "--mode", "user"], None)


def test_the_launch_command_is_the_running_coverfire_script(monkeypatch, tmp_path):
    script = tmp_path / "bin" / "coverfire"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(script), "--install-desktop"])
    assert de.launch_command() == [str(script)]
    monkeypatch.setattr(sys, "argv", ["/somewhere/pytest"])
    assert de.launch_command()[1:] == ["-m", "gui.cli"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert de.launch_command() == [sys.executable]


def test_xdg_data_home_falls_back_to_local_share_when_unset_or_relative():
    assert de.data_home({"HOME": "/home/gm"}) == Path("/home/gm/.local/share")
    assert de.data_home({"HOME": "/home/gm", "XDG_DATA_HOME": "rel/dir"}) == Path("/home/gm/.local/share")
    assert de.data_home({"HOME": "/home/gm", "XDG_DATA_HOME": "/x/y"}) == Path("/x/y")


def test_an_unwritable_data_folder_is_one_clear_line_and_exit_2(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    assert main(["--install-desktop"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"coverfire: cannot write the desktop entry under {blocker}")
    assert "Traceback" not in err


def test_on_windows_and_macos_it_points_to_the_bundle(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "platform", "win32")
    with pytest.raises(CoverfireError, match="Linux desktops"):
        de.install(tmp_path)
    assert not list(tmp_path.iterdir())


def test_every_icon_the_entry_needs_is_shipped_at_its_size():
    from assets import ICONS

    for n in SIZES:
        assert _png_size(ICONS / f"coverfire-{n}.png") == (n, n)
