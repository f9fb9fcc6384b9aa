"""What the one-folder bundle leaves out (packaging/coverfire.spec applies it).

PyInstaller takes every Qt plugin and translation the imported Qt modules could load, and
the system libraries those plugins link. Coverfire draws with QtGui/QtWidgets (pyqtgraph
also imports QtOpenGL, QtOpenGLWidgets, QtSvg and QtTest), reads PNG/JPEG/WebP/GIF
backgrounds and SVG icons, talks to no network, and shows English text; so these go:

* Qt's translations (7 MB: the strings of Qt's own dialogs in other languages);
* platform plugins for kiosks and test rigs (eglfs, linuxfb, vnc, minimal, vkkhrdisplay) and
  the eglfs device integrations; kept: xcb (X11), wayland, offscreen, cocoa (macOS), windows;
* the GTK3 platform theme, which pulls GTK, cairo and pango of the build machine into the
  bundle (the xdg-desktop-portal theme still gives native file dialogs);
* image formats nobody uses for a battle map (TIFF, TGA, WBMP, ICNS);
* GNU readline (GPL-3.0: only Python's interactive prompt uses it) and OpenSSL's libcrypto
  (hashlib's OpenSSL back-end: Python's own hashes do what Coverfire needs);
* network TLS back-ends, network-information plugins and the TUIO touch-over-network
  plugin, and with them QtNetwork, Kerberos and OpenSSL (Python's ``ssl`` too: Coverfire
  opens no connection);
* Python modules of the build environment the program never imports (test runners, other Qt
  bindings, pyqtgraph's OpenGL, Jupyter and example code, Pillow: a build tool for the icons).

The same rules hold on Linux, macOS and Windows (PyInstaller's paths of each: see
:func:`qt_path` and :func:`plugin_name`).
"""

from __future__ import annotations

EXCLUDE_MODULES = [
    "tkinter", "_tkinter", "PyQt5", "PyQt6", "PySide2", "IPython", "matplotlib", "scipy",
    "pytest", "_pytest", "pytestqt", "hypothesis", "importlinter", "grimp", "jsonschema",
    "PyInstaller", "setuptools", "pip", "build", "ssl", "_ssl",
    # GNU readline (GPL-3.0, with libncurses/libtinfo): only the interactive prompt uses it
    "readline", "rlcompleter",
    # OpenSSL's libcrypto: hashlib's OpenSSL back-end; hashlib and hmac fall back to Python's
    # own md5/sha1/sha2/sha3/blake2 (the planner's connection handshake needs only hmac)
    "_hashlib",
    "PIL", "psutil.tests",
    "PySide6.QtNetwork", "PySide6.QtDBus", "PySide6.QtQml", "PySide6.QtQuick",
    "PySide6.QtQuickWidgets", "PySide6.QtSql", "PySide6.QtXml", "PySide6.QtConcurrent",
    "PySide6.QtHelp", "PySide6.QtDesigner", "PySide6.QtUiTools", "PySide6.QtPrintSupport",
    "pyqtgraph.opengl", "pyqtgraph.examples", "pyqtgraph.jupyter",
]

# Paths inside the bundle differ per platform: Linux and macOS wheels of PySide6 keep Qt under
# PySide6/Qt/ (plugins/, lib/, translations/); the Windows wheel keeps plugins/ and
# translations/ straight under PySide6/ and the Qt DLLs beside the bindings. A path is
# matched on what follows the Qt folder (:func:`qt_path`), and a plugin on its name without
# the platform's "lib" prefix and .so/.dylib/.dll suffix (:func:`plugin_name`).
_DROP_QT = (
    "translations/",
    "plugins/egldeviceintegrations/",
    "plugins/tls/",
    "plugins/networkinformation/",
    "lib/libQt6EglFs",
    "lib/libQt6EglFS",
)
#: Plugins dropped by name (in their folder).
_DROP_PLUGINS = {
    "platformthemes": ("qgtk3",),
    "generic": ("qtuiotouchplugin",),
    "imageformats": ("qtiff", "qtga", "qwbmp", "qicns"),
}
#: Platform plugins kept: X11, Wayland, offscreen (export, --check), macOS, Windows.
_KEEP_PLATFORMS = ("qxcb", "qwayland", "qwayland-egl", "qwayland-generic", "qoffscreen", "qcocoa", "qwindows")


def qt_path(dest: str) -> str | None:
    """``dest`` (a path in the bundle, either slash) relative to Qt's folder
    (``plugins/platforms/libqxcb.so``), or None for a file that is not Qt's."""
    dest = dest.replace("\\", "/")
    for root in ("PySide6/Qt/", "PySide6/"):
        if dest.startswith(root):
            rest = dest[len(root):]
            if root == "PySide6/" and not rest.startswith(("plugins/", "translations/")):
                return None
            return rest
    return None


def plugin_name(file: str) -> str:
    """A plugin's name on every platform: ``libqxcb.so``, ``libqcocoa.dylib``, ``qwindows.dll``
    -> ``qxcb``, ``qcocoa``, ``qwindows`` (a Windows debug build's ``qwindowsd.dll`` too)."""
    name = file.rsplit("/", 1)[-1]
    for ext in (".so", ".dylib", ".dll"):
        if name.endswith(ext):
            name = name[: -len(ext)]
            break
    if name.startswith("lib"):
        name = name[3:]
    return name


def keep(dest: str) -> bool:
    """Whether a file the analysis collected (its path inside the bundle) stays in it."""
    rel = qt_path(dest)
    if rel is None:
        return True
    if rel.startswith(_DROP_QT):
        return False
    parts = rel.split("/")
    if len(parts) == 3 and parts[0] == "plugins":
        folder, name = parts[1], plugin_name(parts[2])
        if folder == "platforms":
            return name in _KEEP_PLATFORMS or (name.endswith("d") and name[:-1] in _KEEP_PLATFORMS
                                                and parts[2].endswith(".dll"))
        return name not in _DROP_PLUGINS.get(folder, ())
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


#: PyInstaller's runtime hooks the bundle runs without, and why; each is run by the bootloader
#: before the program, in every start of the bundle (the window, ``--version``, each child).
DROP_RUNTIME_HOOKS = {
    # imports PySide6.QtCore to register a qt.conf the PyPI wheels register themselves:
    # packaging/rthook_qt_paths.py sets the same plugin path without the import
    "pyi_rth_pyside6": "packaging/rthook_qt_paths.py",
}


def runtime_scripts(scripts):
    """PyInstaller's ``Analysis.scripts`` (``(name, path, kind)``: the runtime hooks, then the
    program) without the hooks of :data:`DROP_RUNTIME_HOOKS`."""
    return [s for s in scripts if s[0] not in DROP_RUNTIME_HOOKS]
