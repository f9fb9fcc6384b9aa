"""What the one-folder bundle leaves out (packaging/coverfire.spec applies it).

PyInstaller takes every Qt plugin and translation the imported Qt modules could load, and
the system libraries those plugins link. Coverfire draws with QtGui/QtWidgets (pyqtgraph
also imports QtOpenGL, QtOpenGLWidgets, QtSvg and QtTest), reads PNG/JPEG/WebP/GIF
backgrounds and SVG icons, talks to no network, and shows English text; so these go:

* Qt's translations (7 MB: the strings of Qt's own dialogs in other languages);
* platform plugins for kiosks and test rigs (eglfs, linuxfb, vnc, minimal, vkkhrdisplay) and
  the eglfs device integrations; kept: xcb (X11), wayland, offscreen;
* the GTK3 platform theme, which pulls GTK, cairo and pango of the build machine into the
  bundle (the xdg-desktop-portal theme still gives native file dialogs);
* image formats nobody uses for a battle map (TIFF, TGA, WBMP, ICNS);
* network TLS back-ends, network-information plugins and the TUIO touch-over-network
  plugin, and with them QtNetwork, Kerberos and OpenSSL (Python's ``ssl`` too: Coverfire
  opens no connection);
* Python modules of the build environment the program never imports (test runners, other Qt
  bindings, pyqtgraph's OpenGL, Jupyter and example code).
"""

from __future__ import annotations

EXCLUDE_MODULES = [
    "tkinter", "_tkinter", "PyQt5", "PyQt6", "PySide2", "IPython", "matplotlib", "scipy",
    "pytest", "_pytest", "pytestqt", "hypothesis", "importlinter", "grimp", "jsonschema",
    "PyInstaller", "setuptools", "pip", "build", "ssl", "_ssl",
    "PySide6.QtNetwork", "PySide6.QtDBus", "PySide6.QtQml", "PySide6.QtQuick",
    "PySide6.QtQuickWidgets", "PySide6.QtSql", "PySide6.QtXml", "PySide6.QtConcurrent",
    "PySide6.QtHelp", "PySide6.QtDesigner", "PySide6.QtUiTools", "PySide6.QtPrintSupport",
    "pyqtgraph.opengl", "pyqtgraph.examples", "pyqtgraph.jupyter",
]

_DROP_PREFIXES = (
    "PySide6/Qt/translations/",
    "PySide6/Qt/plugins/egldeviceintegrations/",
    "PySide6/Qt/plugins/tls/",
    "PySide6/Qt/plugins/networkinformation/",
    "PySide6/Qt/plugins/platformthemes/libqgtk3",
    "PySide6/Qt/plugins/generic/libqtuiotouchplugin",
    "PySide6/Qt/lib/libQt6EglFs",
    "PySide6/Qt/lib/libQt6EglFS",
)
_KEEP_PLATFORMS = ("libqxcb.so", "libqwayland.so", "libqoffscreen.so", "libqcocoa.dylib")
_DROP_IMAGEFORMATS = ("libqtiff", "libqtga", "libqwbmp", "libqicns")


def keep(dest: str) -> bool:
    """Whether a file the analysis collected (its path inside the bundle) stays in it."""
    dest = dest.replace("\\", "/")
    if dest.startswith(_DROP_PREFIXES):
        return False
    if dest.startswith("PySide6/Qt/plugins/platforms/"):
        return dest.rsplit("/", 1)[1] in _KEEP_PLATFORMS
    if dest.startswith("PySide6/Qt/plugins/imageformats/"):
        return not dest.rsplit("/", 1)[1].startswith(_DROP_IMAGEFORMATS)
    return True


def _is_library(dest: str) -> bool:
    """A shared library kept only when something in the bundle links it (not a Python
    extension module or a Qt plugin, which Python or Qt load by name)."""
    dest = dest.replace("\\", "/")
    name = dest.rsplit("/", 1)[-1]
    if ".cpython-" in name or name.endswith((".abi3.so", ".pyd")) or "/plugins/" in dest:
        return False
    parent = dest.rsplit("/", 1)[0] if "/" in dest else ""
    return parent in ("", "PySide6/Qt/lib") or parent.endswith(".libs")


def prune_unlinked(binaries, imports_of):
    """``binaries`` (PyInstaller's ``(dest, src, kind)`` entries) without the libraries that
    no extension module or plugin left in the bundle links. ``imports_of(src)`` names the
    libraries a binary needs, transitively (PyInstaller's ``get_imports`` asks ``ldd``).
    What the dropped plugins alone needed (the GTK theme's GTK, cairo, pango) goes with them;
    ``libpython``, which the bootloader opens itself, stays."""
    needed: set[str] = set()
    for dest, src, _kind in binaries:
        if not _is_library(dest):
            needed |= set(imports_of(src))
    return [b for b in binaries
            if not _is_library(b[0]) or b[0].replace("\\", "/").rsplit("/", 1)[-1] in needed
            or b[0].rsplit("/", 1)[-1].startswith("libpython")]
