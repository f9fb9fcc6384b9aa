"""The ``coverfire`` command.

``coverfire [FILE]`` opens the map window (on the bundled demo without FILE; FILE ``demo``,
``demo-d100`` or ``demo-static-veil`` names a bundled demo here and for ``analyze`` and
``export``). The
sub-commands run headless and never load Qt unless they draw (``export``):

    coverfire analyze FILE [--attacker ID] [--weapon NAME] [--json]
    coverfire export FILE -o OUT.png|.svg|.pdf [--view player|gm] [--attacker ID] [--scale N]
    coverfire import-map MAP.dd2vtt|SCENE.json|scenes.db -o ENCOUNTER.json [--cell-size METRES]
                         [--window-sill METRES] [--scene NAME]
    coverfire import-character FILE.chum5|.chum5lz --into ENCOUNTER.json [--side SIDE] [--at X Y]

and, for installing it like a desktop program (docs/packaging.md):

    coverfire --version
    coverfire --install-desktop | --uninstall-desktop      (Linux menu entry, icons, file types)
    coverfire --reset-settings [--delete-autosaves]

A user's mistake (a bad file, an unknown id) prints one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from engine.errors import CoverfireError

EXIT_USAGE = 2


def _demo_path() -> str:
    from assets import demo_encounter_path

    return str(demo_encounter_path())


def _add_analyze(sub) -> None:
    p = sub.add_parser("analyze", help="report range, cover, zones and charges for an encounter")
    p.add_argument("file", help="encounter file (.json)")
    p.add_argument("--attacker", help="token id of the attacker (default: each token in turn)")
    p.add_argument("--weapon", help="weapon name (default: the weapon the attacker has ready)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(run=lambda a: _lazy("engine.report", "run_analyze")(a))


def _add_export(sub) -> None:
    p = sub.add_parser("export", help="render the map to PNG, SVG or PDF without a screen")
    p.add_argument("file", help="encounter file (.json)")
    p.add_argument("-o", "--output", required=True, help="output file: .png, .svg or .pdf")
    p.add_argument("--view", choices=("player", "gm"), default="player")
    p.add_argument("--attacker", help="token id whose targets table goes under the map")
    p.add_argument("--scale", type=float, default=1.0, help="PNG scale, 1 to 4 (default 1)")
    p.add_argument("--title", help="title printed above the map")
    p.set_defaults(run=lambda a: _lazy("gui.export", "run_export")(a))


def _add_import_map(sub) -> None:
    p = sub.add_parser("import-map", help="make an encounter from a Universal VTT map or a Foundry VTT scene")
    p.add_argument("file", help="map file: .dd2vtt, .uvtt, .df2vtt, a Foundry scene .json or a world's scenes.db")
    p.add_argument("-o", "--output", required=True, help="encounter file to write (.json)")
    p.add_argument("--cell-size", type=float, default=None,
                   help="metres per grid cell (default 1.5; a Foundry scene's own units win)")
    p.add_argument("--window-sill", type=float, default=None, help="window sill height in metres (default 1.0)")
    p.add_argument("--scene", default=None, help="which scene of a scenes.db: its name or 0-based index (default the first)")
    p.set_defaults(run=lambda a: _lazy("engine.importers.detect", "run_import_map")(a))


def _add_import_character(sub) -> None:
    p = sub.add_parser("import-character", help="add a Chummer character to an encounter")
    p.add_argument("file", help="Chummer save (.chum5 or .chum5lz)")
    p.add_argument("--into", required=True, help="encounter file to add the token to")
    p.add_argument("--side", default="runner")
    p.add_argument("--at", nargs=2, type=float, metavar=("X", "Y"))
    p.set_defaults(run=lambda a: _lazy("engine.importers.detect", "run_import_character")(a))


def _add_report(sub) -> None:
    p = sub.add_parser("report", help="write the after-action report of an encounter's recorded fight (PDF or HTML)")
    p.add_argument("file", help="encounter file (.json) with a recorded fight")
    p.add_argument("-o", "--output", "--out", dest="output", required=True, help="output file: .pdf or .html")
    p.add_argument("--players", action="store_true",
                   help="the players' version: their view and fog, no hidden token, no GM note")
    p.add_argument("--per", choices=("round", "action"), default="round", help="one page per round (default) or per action")
    p.set_defaults(run=lambda a: _lazy("gui.fight_report", "run_report")(a))


SUBCOMMANDS = {
    "analyze": _add_analyze,
    "export": _add_export,
    "report": _add_report,
    "import-map": _add_import_map,
    "import-character": _add_import_character,
}


def _lazy(module: str, name: str) -> Callable[[argparse.Namespace], int | None]:
    import importlib

    return getattr(importlib.import_module(module), name)


def _run_gui(args: argparse.Namespace) -> int:
    from gui.app import run_app

    return run_app(args.file or _demo_path())


def _bundled_by_name(args: argparse.Namespace) -> None:
    """``demo`` (or ``demo-d100``, ``demo-static-veil``) as the FILE of the window, ``analyze``
    or ``export`` names a bundled demo when no such file exists here, so an installed
    Coverfire can be tried without knowing where its demos were installed."""
    from pathlib import Path

    from assets import ENCOUNTERS

    name = getattr(args, "file", None)
    if not name or getattr(args, "command", None) not in (None, "analyze", "export"):
        return
    bundled = ENCOUNTERS / f"{name}.json"
    if Path(name).name == name and not Path(name).exists() and bundled.is_file():
        args.file = str(bundled)


def _refuse_bundled_targets(args: argparse.Namespace) -> None:
    """The bundled demos are read-only: a sub-command that would write an encounter into
    ``assets/encounters`` is refused (the window likewise saves them only under a new name)."""
    from pathlib import Path

    from assets import ENCOUNTERS

    for attr in ("into", "output"):
        target = getattr(args, attr, None)
        if not target:
            continue
        try:
            inside = Path(target).resolve().parent == ENCOUNTERS.resolve()
        except OSError:
            continue
        if inside and Path(target).suffix.lower() == ".json":
            raise CoverfireError(
                f"{target}: this is a bundled demo encounter, kept as it ships; "
                "copy it somewhere else first and write to the copy"
            )


def _refuse_odd_targets(args: argparse.Namespace) -> None:
    """An output (``-o``, ``--into``) that is a pipe, a device or a folder, or a link to one,
    is refused before any work, as the write itself would refuse it
    (:func:`engine.files.writable_target`: nothing is opened, so a FIFO cannot block)."""
    for attr in ("into", "output"):
        target = getattr(args, attr, None)
        if target:
            # (imported here: engine.files loads pydantic, numpy and Shapely, which the
            # window's start, with no output, must not wait for before its first paint)
            from engine.files import writable_target

            writable_target(target)


class _VersionAction(argparse.Action):
    """``--version``: prints the version and exits, as argparse's own ``version`` action, but
    looks it up only when asked (the package metadata's search of ``sys.path`` is not made on
    every start of the window)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):  # noqa: A002
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help=help or "show program's version number and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from gui.version import version

        print(version())
        parser.exit()


def _add_program_options(parser: argparse.ArgumentParser) -> None:
    """``--version`` and the install-like-a-program options (docs/packaging.md)."""
    parser.add_argument("--version", action=_VersionAction)
    once = parser.add_mutually_exclusive_group()
    once.add_argument("--install-desktop", action="store_true",
                      help="add Coverfire to the Linux desktop: menu entry, icons, file types (under $XDG_DATA_HOME)")
    once.add_argument("--uninstall-desktop", action="store_true", help="remove what --install-desktop wrote")
    once.add_argument("--reset-settings", action="store_true",
                      help="forget recent files, window layout and other remembered choices (asks nothing)")
    parser.add_argument("--delete-autosaves", action="store_true",
                        help="with --reset-settings: delete the crash-recovery autosaves too (kept otherwise)")
    # (CI and the benches: the window's longest event-loop turn while it opens FILE, gui/open_stall.py)
    once.add_argument("--measure-open", metavar="FILE", help=argparse.SUPPRESS)


def _program_option(args: argparse.Namespace) -> Callable[[argparse.Namespace], int | None] | None:
    """The run function of the program option given, if one was."""
    if args.install_desktop or args.uninstall_desktop:
        return lambda a: _lazy("gui.desktop_entry", "run")(a.uninstall_desktop)
    if args.reset_settings:
        return lambda a: _lazy("gui.settings_reset", "run")(a.delete_autosaves)
    if getattr(args, "measure_open", None):
        return lambda a: _lazy("gui.open_stall", "run")(a.measure_open)
    if args.delete_autosaves:
        raise CoverfireError("--delete-autosaves goes with --reset-settings")
    return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="coverfire",
        description="Coverfire battle map. Without a sub-command, opens FILE (or the demo).",
    )
    _add_program_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in SUBCOMMANDS.values():
        add(sub)
    return parser


def _printable_streams() -> None:
    """A file name that is not valid UTF-8 (``-o $'\\xff.json'``) or text the terminal
    cannot show is printed with backslash escapes instead of ending in a traceback after the
    work is done."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from engine.child import is_child_start

    if is_child_start(argv):  # the frozen bundle started as one of its own child processes
        from engine.child import run as run_child

        return run_child(argv[1:])
    _printable_streams()
    if argv and argv[0] in SUBCOMMANDS or (argv and argv[0] in ("-h", "--help")):
        args = build_parser().parse_args(argv)
    else:
        gp = argparse.ArgumentParser(prog="coverfire", description="Open the Coverfire map window.")
        gp.add_argument("file", nargs="?", help="encounter file (default: the bundled demo)")
        _add_program_options(gp)
        args = gp.parse_args(argv)
        args.run = _run_gui
    try:
        if args.run is _run_gui:
            args.run = _program_option(args) or _run_gui
        _bundled_by_name(args)
        _refuse_bundled_targets(args)
        _refuse_odd_targets(args)
        code = args.run(args)
    except CoverfireError as exc:
        print(f"coverfire: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `coverfire import-map ... | head`: the reader left; say nothing more
        _quiet_stdout()
        return 0
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
    return int(code or 0)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush of a closed pipe raises nothing."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
