"""The one way the program starts a child process of its own (the file reader
:mod:`gui.load_process`, the charge planner :mod:`gui.charge_process`, the SVG drawer
:mod:`gui.svg_worker`), from source and from the frozen bundle alike. No Qt here.

* From source (a checkout, a wheel): ``python -m engine.child MODULE ARGS...`` with the
  interpreter that runs the program (``sys.executable``) and the checkout on ``PYTHONPATH``.
* From the bundle (PyInstaller sets ``sys.frozen``; there is no ``python`` to start): the
  bundle's own executable, ``sys.executable``, with :data:`WORKER_ARG` first:
  ``coverfire --coverfire-child MODULE ARGS...``. The bundle's entry script
  (``packaging/coverfire_entry.py``) and :func:`gui.cli.main` hand such a start to :func:`run`
  before anything else is imported, so a child imports only what its module needs.

Either way the child runs :func:`run`, which imports ``MODULE`` (one of :data:`CHILDREN`) and
returns its ``child_main(args)``. ``multiprocessing``'s own start methods are not used: spawn
would import the program's main script again in the child, and fork copies a process with
Qt's threads in it.

A secret the child needs (the planner's connection key) goes in the environment
(:data:`KEY_ENV`), which only the same user can read, not in the arguments, which every user
of the machine can list.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

#: The first argument that makes the frozen bundle's executable run a child, not the program.
WORKER_ARG = "--coverfire-child"
#: The modules a child can run: each has ``child_main(args: list[str]) -> int``.
CHILDREN = ("gui.load_process", "gui.charge_process", "gui.svg_worker")
#: The environment variable that carries a child's secret (hex), read once by the child.
KEY_ENV = "COVERFIRE_CHILD_KEY"
#: Windows: start a console program without opening a console window (``CREATE_NO_WINDOW``).
CREATE_NO_WINDOW = 0x08000000
#: The folder that holds ``engine`` (a checkout, or site-packages).
ROOT = Path(__file__).resolve().parents[1]


def frozen() -> bool:
    """Whether this is the frozen bundle (PyInstaller's ``sys.frozen``)."""
    return bool(getattr(sys, "frozen", False))


def command(module: str, *args: str) -> list[str]:
    """The command line that starts a child running ``module`` with ``args``."""
    if module not in CHILDREN:
        raise ValueError(f"{module!r} is not one of the program's child processes {CHILDREN}")
    if frozen():
        return [sys.executable, WORKER_ARG, module, *map(str, args)]
    return [sys.executable, "-m", "engine.child", module, *map(str, args)]


def environment(base: dict[str, str] | None = None, key: bytes | None = None) -> dict[str, str]:
    """The child's environment: ``base`` (default this process's) with, from a checkout, the
    folder of ``engine`` first on ``PYTHONPATH`` (run without installing; an installed
    Coverfire's site-packages is not put there, where it would come before the standard
    library), and
    ``key`` in :data:`KEY_ENV` when given."""
    env = dict(os.environ if base is None else base)
    if not frozen() and ROOT.name not in ("site-packages", "dist-packages"):  # (installed: on the path already)
        rest = [p for p in [env.get("PYTHONPATH")] if p]
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *rest])
    if key is not None:
        env[KEY_ENV] = key.hex()
    else:
        env.pop(KEY_ENV, None)
    return env


def popen_options() -> dict:
    """Keyword arguments for :class:`subprocess.Popen`: the working folder, and on Windows no
    console window for a child of the windowed program."""
    options: dict = {"cwd": str(ROOT)}
    if sys.platform == "win32":
        options["creationflags"] = CREATE_NO_WINDOW
    return options


def take_key() -> bytes | None:
    """In the child: the secret its parent put in :data:`KEY_ENV` (then removed from the
    environment, so nothing this child starts inherits it), or None."""
    text = os.environ.pop(KEY_ENV, None)
    try:
        return bytes.fromhex(text) if text else None
    except ValueError:
        return None


def is_child_start(argv: Sequence[str]) -> bool:
    """Whether ``argv`` (without the program's name) starts a child (:data:`WORKER_ARG` first)."""
    return bool(argv) and argv[0] == WORKER_ARG


def run(args: Sequence[str]) -> int:
    """Run the child ``args[0]`` (one of :data:`CHILDREN`) with the rest of ``args``; its exit
    status. An unknown module is refused with a message on stderr and status 2."""
    args = list(args)
    if not args or args[0] not in CHILDREN:
        print(f"coverfire: {args[0] if args else '(nothing)'!r} is not a child process of Coverfire "
              f"(one of {', '.join(CHILDREN)})", file=sys.stderr)
        return 2
    module = importlib.import_module(args[0])
    return int(module.child_main(args[1:]) or 0)


def main(argv: Sequence[str] | None = None) -> int:  # pragma: no cover - runs in the child
    """``python -m engine.child MODULE ARGS...`` (and the bundle's ``--coverfire-child``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if is_child_start(argv):
        argv = argv[1:]
    return run(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
