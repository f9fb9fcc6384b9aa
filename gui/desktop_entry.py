"""Linux desktop integration: ``coverfire --install-desktop`` and ``--uninstall-desktop``.

Writes, under ``$XDG_DATA_HOME`` (default ``~/.local/share``), the three things a freedesktop
desktop (GNOME, KDE, Xfce, Cinnamon…) reads to list a program and open files with it:

* ``applications/coverfire.desktop``: the menu entry, starting this very ``coverfire``;
* ``icons/hicolor/<N>x<N>/apps/coverfire.png`` for N in :data:`ICON_SIZES`, and
  ``icons/hicolor/scalable/apps/coverfire.svg``;
* ``mime/packages/coverfire.xml``: the file types Coverfire opens (:data:`MIME_TYPES`).

An encounter is recognised by its extension ``.coverfire.json`` and by its content, the
``"format": "coverfire.encounter"`` field near the start of the file; it is a sub-class of
``application/json``. File managers (GIO and Qt alike) decide by a matching glob before they
read content, so the content rule names encounters whose name has no known extension; a
plain ``name.json`` stays JSON. Universal VTT maps and Chummer saves (``.chum5`` and the
compressed ``.chum5lz``) go by extension. Then ``update-mime-database`` and
``update-desktop-database`` are run when the system has them. Nothing here needs Qt.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from assets import ICONS
from engine.errors import CoverfireError

APP_ID = "coverfire"
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256)
ENCOUNTER_FORMAT = "coverfire.encounter"
#: The name ending that makes a file an encounter to the desktop (the glob registered below);
#: the window's Save As proposes and keeps it (gui/saving.py).
ENCOUNTER_SUFFIX = ".coverfire.json"


@dataclass(frozen=True)
class MimeType:
    """One file type Coverfire opens: its name, what a file manager calls it, the globs, the
    type it refines, and strings whose presence in the first ``magic_range`` bytes names it."""

    name: str
    comment: str
    globs: tuple[str, ...]
    sub_class_of: str | None = None
    magic: tuple[str, ...] = ()
    magic_range: int = 0
    icon: str | None = None


MIME_TYPES: tuple[MimeType, ...] = (
    MimeType(
        "application/x-coverfire-encounter", "Coverfire encounter", (f"*{ENCOUNTER_SUFFIX}",),
        "application/json",
        magic=(f'"format": "{ENCOUNTER_FORMAT}"', f'"format":"{ENCOUNTER_FORMAT}"'),
        magic_range=4096, icon=APP_ID,
    ),
    MimeType("application/x-uvtt", "Universal VTT map", ("*.dd2vtt", "*.uvtt", "*.df2vtt"),
             "application/json"),
    MimeType("application/x-chummer5", "Chummer5 character", ("*.chum5",), "application/xml"),
    # Chummer's compressed save: the same XML through the 7-Zip SDK's LZMA
    MimeType("application/x-chummer5-compressed", "Chummer5 character (compressed)", ("*.chum5lz",)),
)

DESKTOP_KEYS = {
    "Type": "Application",
    "Version": "1.4",
    "Name": "Coverfire",
    "GenericName": "Battle Map",
    "Comment": "Cover, zones, ranges and charges for gun fights at the table",
    "Icon": APP_ID,
    "Terminal": "false",
    "Categories": "Game;RolePlaying;",
    "Keywords": "battle map;VTT;tabletop;RPG;Shadowrun;cover;",
    "StartupNotify": "true",
    "StartupWMClass": "Coverfire",
}


def data_home(env: dict[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share`` when it is unset or not absolute (as the
    XDG Base Directory spec says)."""
    env = os.environ if env is None else env
    value = env.get("XDG_DATA_HOME", "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path(env.get("HOME") or Path.home()) / ".local" / "share"


def launch_command() -> list[str]:
    """How the menu entry starts this Coverfire: the bundle's executable, the ``coverfire``
    script that is running (pipx's, a venv's), or this Python running ``gui.cli``."""
    if getattr(sys, "frozen", False):
        return [os.path.abspath(sys.executable)]
    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).name == APP_ID and os.path.isfile(argv0):
        return [os.path.abspath(argv0)]
    return [os.path.abspath(sys.executable), "-m", "gui.cli"]


_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def quote_exec_arg(arg: str) -> str:
    """One argument of a desktop entry's ``Exec`` key: double-quoted (with ``"`` `` ` `` ``$``
    ``\\`` escaped) when it holds a reserved character, ``%`` doubled, then backslashes
    doubled once more for the key's string escaping (Desktop Entry spec, "The Exec key")."""
    arg = arg.replace("%", "%%")
    if any(c in _RESERVED for c in arg):
        arg = '"' + "".join("\\" + c if c in '"`$\\' else c for c in arg) + '"'
    return arg.replace("\\", "\\\\")


def desktop_entry(command: Sequence[str]) -> str:
    """The text of ``coverfire.desktop`` for a program started by ``command``."""
    keys = dict(DESKTOP_KEYS)
    keys["Exec"] = " ".join(quote_exec_arg(a) for a in command) + " %f"
    keys["TryExec"] = command[0].replace("\\", "\\\\")
    keys["MimeType"] = "".join(m.name + ";" for m in MIME_TYPES)
    lines = ["[Desktop Entry]"] + [f"{k}={v}" for k, v in keys.items() if v]
    return "\n".join(lines) + "\n"


def mime_xml() -> str:
    """The shared-mime-info package ``coverfire.xml`` declaring :data:`MIME_TYPES`."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">']
    for m in MIME_TYPES:
        out.append(f"  <mime-type type={quoteattr(m.name)}>")
        out.append(f"    <comment>{escape(m.comment)}</comment>")
        if m.sub_class_of:
            out.append(f"    <sub-class-of type={quoteattr(m.sub_class_of)}/>")
        if m.icon:
            out.append(f"    <icon name={quoteattr(m.icon)}/>")
        for g in m.globs:
            out.append(f"    <glob pattern={quoteattr(g)}/>")
        if m.magic:
            out.append('    <magic priority="60">')
            for s in m.magic:
                out.append(f'      <match type="string" offset="0:{m.magic_range}" value={quoteattr(s)}/>')
            out.append("    </magic>")
        out.append("  </mime-type>")
    out.append("</mime-info>")
    return "\n".join(out) + "\n"


def _icon_files() -> list[tuple[Path, Path]]:
    """(shipped icon, place under ``icons/hicolor``) for every size and the SVG."""
    pairs = [(ICONS / f"coverfire-{n}.png", Path(f"{n}x{n}") / "apps" / f"{APP_ID}.png") for n in ICON_SIZES]
    pairs.append((ICONS / "coverfire.svg", Path("scalable") / "apps" / f"{APP_ID}.svg"))
    return pairs


def written_paths(base: Path) -> list[Path]:
    """Every file :func:`install` writes under the data folder ``base``."""
    return ([base / "applications" / f"{APP_ID}.desktop"]
            + [base / "icons" / "hicolor" / rel for _, rel in _icon_files()]
            + [base / "mime" / "packages" / f"{APP_ID}.xml"])


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it (never half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def _icon_cache_run(base: Path) -> tuple[str, list[str], str | None]:
    """How to refresh the icon theme's cache under ``base``: ``(tool, args, why not)``.
    ``xdg-icon-resource forceupdate`` where the system has it (it touches the theme and
    rebuilds a cache that exists); else ``gtk-update-icon-cache``, but only on a cache that
    is already there (a user-level cache nobody else keeps up to date would hide the icons
    other programs install later; without one GTK reads the folders themselves)."""
    theme = base / "icons" / "hicolor"
    if shutil.which("xdg-icon-resource"):
        return "xdg-icon-resource", ["forceupdate", "--mode", "user"], None
    if not (theme / "icon-theme.cache").is_file():
        return "gtk-update-icon-cache", [], f"no icon cache under {theme} to refresh (none needed)"
    return "gtk-update-icon-cache", ["-f", "-t", "-q", str(theme)], None


def _refresh(base: Path) -> list[str]:
    """Run the desktop's cache tools that exist here; what each did, one line each."""
    icon_tool, icon_args, icon_skip = _icon_cache_run(base)
    runs = [
        ("update-mime-database", [str(base / "mime")], None),
        ("update-desktop-database", ["-q", str(base / "applications")], None),
        (icon_tool, icon_args, icon_skip),
    ]
    theme = base / "icons" / "hicolor"
    if theme.is_dir():  # (GTK rereads a theme whose folder's time changed)
        try:
            os.utime(theme)
        except OSError:
            pass
    said = []
    for tool, args, skip in runs:
        exe = shutil.which(tool)
        if exe is None:
            said.append(f"{tool}: not on this system, skipped")
            continue
        if skip is not None:
            said.append(f"{tool}: {skip}")
            continue
        try:
            res = subprocess.run([exe, *args], capture_output=True, text=True, timeout=60,
                                 env=dict(os.environ, XDG_DATA_HOME=str(base)))
        except (OSError, subprocess.TimeoutExpired) as exc:
            said.append(f"{tool}: could not run ({exc})")
            continue
        said.append(f"{tool}: {'ok' if res.returncode == 0 else 'failed: ' + (res.stderr.strip() or str(res.returncode))}")
    return said


def _check_platform() -> None:
    if sys.platform in ("win32", "darwin"):
        raise CoverfireError("--install-desktop is for Linux desktops; on Windows and macOS "
                             "use the bundle (see docs/packaging.md)")


def install(base: Path | None = None, command: Sequence[str] | None = None) -> list[str]:
    """Write the desktop entry, icons and MIME types under ``base`` (default
    :func:`data_home`) and refresh the desktop's caches. Returns the report lines."""
    _check_platform()
    base = data_home() if base is None else Path(base)
    command = list(command or launch_command())
    icons = base / "icons" / "hicolor"
    try:
        for src, rel in _icon_files():
            _write(icons / rel, src.read_bytes())
        _write(base / "mime" / "packages" / f"{APP_ID}.xml", mime_xml().encode())
        _write(base / "applications" / f"{APP_ID}.desktop", desktop_entry(command).encode())
    except OSError as exc:
        raise CoverfireError(f"cannot write the desktop entry under {base}: {exc}") from None
    lines = [f"wrote {p}" for p in written_paths(base)]
    lines.append(f"menu entry starts: {' '.join(command)}")
    lines.append("file types: " + "; ".join(f"{m.name} ({', '.join(m.globs)}"
                                             + (", or a \"format\" field naming it" if m.magic else "") + ")"
                                             for m in MIME_TYPES))
    return lines + _refresh(base)


def uninstall(base: Path | None = None) -> list[str]:
    """Remove what :func:`install` wrote under ``base`` and refresh the caches."""
    _check_platform()
    base = data_home() if base is None else Path(base)
    lines = []
    for p in written_paths(base):
        try:
            p.unlink()
            lines.append(f"removed {p}")
        except FileNotFoundError:
            continue
        except OSError as exc:
            lines.append(f"could not remove {p}: {exc}")
    if not lines:
        return [f"nothing to remove: no Coverfire desktop entry under {base}"]
    return lines + [f"removed empty folder {d}" for d in _remove_empty_icon_folders(base)] + _refresh(base)


def _remove_empty_icon_folders(base: Path) -> list[Path]:
    """The icon folders :func:`install` makes (``icons/hicolor/<N>x<N>/apps``, the size
    folder, ``hicolor``, ``icons``) that are empty now, removed, deepest first; a folder with
    anything else in it stays."""
    icons = base / "icons"
    folders: set[Path] = set()
    for _src, rel in _icon_files():
        folder = (icons / "hicolor" / rel).parent
        while folder != base:
            folders.add(folder)
            folder = folder.parent
    removed = []
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()  # (only an empty folder)
        except OSError:
            continue
        removed.append(folder)
    return removed


def run(uninstall_it: bool = False) -> int:
    """The CLI's ``--install-desktop`` / ``--uninstall-desktop``: print what was done."""
    for line in (uninstall() if uninstall_it else install()):
        print(line)
    return 0
