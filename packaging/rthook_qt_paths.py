"""The bundle's runtime hook for Qt, in place of PyInstaller's ``pyi_rth_pyside6``
(packaging/bundle_filter.py, :data:`DROP_RUNTIME_HOOKS`): it tells Qt where the bundle's
plugins are, as PyInstaller's does, but does not import ``PySide6.QtCore`` to do it.

PyInstaller's hook imports QtCore in every start of the bundle (to register a ``qt.conf``
when the bindings have not: PySide6's PyPI wheels always have, so with them that step does
nothing), which cost ``coverfire --version`` and each child process (the file reader, the
charge planner, the SVG drawer) Qt's import, about half of their start-up CPU, for nothing.
The window imports QtCore itself, when it needs it.

Run by the bundle's bootloader before the program (``Analysis(runtime_hooks=...)`` in
packaging/coverfire.spec); :func:`qt_environment` is what it sets, tested on each platform's
layout.
"""

import os
import sys


def qt_environment(meipass: str, platform: str) -> dict[str, str]:
    """The variables PyInstaller's PySide6 hook sets, for a bundle whose files are under
    ``meipass`` on ``platform`` (``sys.platform``): Qt's plugin folder and QML import path
    (the Windows wheel keeps Qt straight under ``PySide6/``, the others under ``PySide6/Qt/``).
    (Its other settings put the bundle's folder on the search path of OpenSSL's libraries,
    which the bundle does not carry: packaging/bundle_filter.py.)"""
    if platform.startswith("win"):
        qt = os.path.join(meipass, "PySide6")
    else:
        qt = os.path.join(meipass, "PySide6", "Qt")
    return {"QT_PLUGIN_PATH": os.path.join(qt, "plugins"), "QML2_IMPORT_PATH": os.path.join(qt, "qml")}


def _install() -> None:
    meipass = getattr(sys, "_MEIPASS", None)
    if meipass:
        os.environ.update(qt_environment(os.path.normpath(meipass), sys.platform))


if getattr(sys, "frozen", False):
    _install()
