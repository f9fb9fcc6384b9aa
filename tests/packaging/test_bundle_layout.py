"""The bundle's names and macOS metadata on each platform (packaging/bundle_layout.py, issue 29
item 2; only the Linux bundle is built here, so these are read from the platforms' rules)."""

from __future__ import annotations

import importlib.util
import plistlib
from pathlib import Path, PureWindowsPath

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bundle_layout", ROOT / "packaging" / "bundle_layout.py")
bl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bl)


def test_windows_executables_are_distinct_on_a_case_insensitive_file_system():
    names = bl.file_names("win32")
    assert names == ["coverfire-cli.exe", "Coverfire.exe"]
    assert len({PureWindowsPath(n).name.casefold() for n in names}) == len(names)
    assert dict(bl.executables("win32")) == {"coverfire-cli": True, "Coverfire": False}  # (the window: no console)
    for platform in ("darwin", "linux"):
        assert len({n.casefold() for n in bl.file_names(platform)}) == len(bl.file_names(platform))


def test_the_command_line_of_each_platform():
    d = Path("dist")
    assert bl.command_line(d, "win32") == d / "coverfire" / "coverfire-cli.exe"
    assert bl.command_line(d, "darwin") == d / "Coverfire.app" / "Contents" / "MacOS" / "coverfire"
    assert bl.command_line(d, "linux") == d / "coverfire" / "coverfire"


def test_the_icons_the_bundle_needs_are_committed_in_their_formats():
    icons = ROOT / "assets" / "icons"
    ico, icns = bl.icon(icons, "win32"), bl.icon(icons, "darwin")
    data = ico.read_bytes()
    assert data[:4] == b"\x00\x00\x01\x00"  # ICO header: reserved 0, type 1 (icon)
    count = int.from_bytes(data[4:6], "little")
    sizes = {(data[6 + 16 * i] or 256) for i in range(count)}
    assert {16, 32, 48, 256} <= sizes
    data = icns.read_bytes()
    assert data[:4] == b"icns" and int.from_bytes(data[4:8], "big") == len(data)
    assert bl.icon(icons, "linux") is None


def test_info_plist_declares_the_documents_finder_opens():
    keys = bl.info_plist("0.1.0")
    plistlib.dumps(keys)  # (a valid property list)
    kinds = {t["CFBundleTypeName"]: t for t in keys["CFBundleDocumentTypes"]}
    assert set(kinds) == {"Coverfire encounter", "Universal VTT map", "Chummer5a character"}
    assert kinds["Coverfire encounter"]["LSItemContentTypes"] == ["public.json"]
    exts = {e for t in keys["UTExportedTypeDeclarations"] for e in t["UTTypeTagSpecification"]["public.filename-extension"]}
    assert exts == {"dd2vtt", "uvtt", "df2vtt", "chum5", "chum5lz"}
    declared = {t["UTTypeIdentifier"] for t in keys["UTExportedTypeDeclarations"]}
    used = {u for t in keys["CFBundleDocumentTypes"] for u in t["LSItemContentTypes"] if not u.startswith("public.")}
    assert used <= declared
    assert keys["CFBundleShortVersionString"] == "0.1.0"
