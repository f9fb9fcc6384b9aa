"""``coverfire --reset-settings``: forget the window's remembered choices.

Coverfire keeps its settings with ``QSettings("Coverfire", "Coverfire")``, in the platform's
config place (Linux ``~/.config/Coverfire/Coverfire.conf``, Windows the registry key
``HKEY_CURRENT_USER\\Software\\Coverfire\\Coverfire``, macOS
``~/Library/Preferences/com.coverfire.Coverfire.plist``): recent files, window and dock layout,
player-view choices (and the players' window's size, screen, full screen and stay-on-top), import
folders and scales. Resetting removes all of them and says which;
it asks nothing. Autosaves (the platform's data folder, see :mod:`gui.autosave`) are work, not
settings: they stay unless ``delete_autosaves`` is given, and even then an autosave of a
Coverfire that is still running is kept.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSettings

from engine.errors import CoverfireError
from gui.app import APP_NAME


def _name_app() -> None:
    """Name the application as the window does, so QSettings and QStandardPaths find the
    same places without a QApplication."""
    QCoreApplication.setOrganizationName(APP_NAME)
    QCoreApplication.setApplicationName(APP_NAME)


def default_settings() -> QSettings:
    """The settings store the main window uses."""
    _name_app()
    return QSettings(APP_NAME, APP_NAME)


def reset_settings(settings: QSettings | None = None) -> list[str]:
    """Remove every key of ``settings`` (default: Coverfire's own). Returns the report lines:
    where, and each key removed."""
    s = default_settings() if settings is None else settings
    where = s.fileName()
    keys = sorted(s.allKeys())
    if not keys:
        return [f"no settings to remove ({where})"]
    s.clear()
    s.sync()
    if s.status() != QSettings.Status.NoError:
        raise CoverfireError(f"{where}: could not write the cleared settings ({s.status().name})")
    return [f"removed {len(keys)} setting{'s' if len(keys) != 1 else ''} from {where}:"] + [f"  {k}" for k in keys]


def reset_autosaves(folder: Path | None = None) -> list[str]:
    """Delete the autosaves left by Coverfires that are no longer running, and the damaged
    ones set aside, in ``folder`` (default: the autosave folder). Returns the report lines."""
    _name_app()
    from gui.autosave import default_folder, scan_autosaves

    folder = default_folder() if folder is None else Path(folder)
    recoveries, damaged = scan_autosaves(folder)
    files = [r.file for r in recoveries] + list(damaged) + sorted(folder.glob("autosave-*.damaged"))
    lines = []
    for f in dict.fromkeys(files):
        try:
            f.unlink()
            lines.append(f"removed autosave {f}")
        except FileNotFoundError:
            continue
        except OSError as exc:
            lines.append(f"could not remove autosave {f}: {exc}")
    return lines or [f"no autosaves to remove ({folder})"]


def kept_autosaves_line(folder: Path | None = None) -> str:
    """Says where the autosaves stay and how to remove them too."""
    _name_app()
    from gui.autosave import default_folder

    folder = default_folder() if folder is None else Path(folder)
    n = len(list(folder.glob("autosave-*"))) if folder.is_dir() else 0
    return (f"kept {n} autosave file{'s' if n != 1 else ''} in {folder} "
            "(--reset-settings --delete-autosaves removes them too)")


def run(delete_autosaves: bool = False) -> int:
    """The CLI's ``--reset-settings [--delete-autosaves]``: print what was removed."""
    lines = reset_settings()
    lines += reset_autosaves() if delete_autosaves else [kept_autosaves_line()]
    for line in lines:
        print(line)
    return 0
