"""What the standalone bundle leaves out (packaging/bundle_filter.py), on PyInstaller's own
paths; the bundle itself is built and started by .ci/check-bundle."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bundle_filter", ROOT / "packaging" / "bundle_filter.py")
bf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bf)


def test_platform_plugins_keep_x11_wayland_offscreen_and_cocoa_only():
    base = "PySide6/Qt/plugins/platforms/"
    kept = [n for n in ("libqxcb.so", "libqwayland.so", "libqoffscreen.so", "libqcocoa.dylib",
                        "libqeglfs.so", "libqvnc.so", "libqlinuxfb.so", "libqminimal.so")
            if bf.keep(base + n)]
    assert kept == ["libqxcb.so", "libqwayland.so", "libqoffscreen.so", "libqcocoa.dylib"]
    assert bf.keep("PySide6/plugins/platforms/qwindows.dll")


def test_map_backgrounds_keep_their_image_formats():
    base = "PySide6/Qt/plugins/imageformats/"
    assert [n for n in ("libqjpeg.so", "libqwebp.so", "libqgif.so", "libqsvg.so", "libqico.so",
                        "libqtiff.so", "libqtga.so", "libqwbmp.so", "libqicns.so") if bf.keep(base + n)] \
        == ["libqjpeg.so", "libqwebp.so", "libqgif.so", "libqsvg.so", "libqico.so"]


def test_translations_gtk_theme_and_network_plugins_go():
    for dest in ("PySide6/Qt/translations/qtbase_de.qm", "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
                 "PySide6/Qt/plugins/tls/libqopensslbackend.so", "PySide6/Qt/plugins/generic/libqtuiotouchplugin.so",
                 "PySide6/Qt/lib/libQt6EglFSDeviceIntegration.so.6"):
        assert not bf.keep(dest), dest
    for dest in ("PySide6/Qt/plugins/platformthemes/libqxdgdesktopportal.so", "PySide6/Qt/lib/libQt6Gui.so.6",
                 "assets/encounters/demo.json", "PySide6/QtGui.abi3.so"):
        assert bf.keep(dest), dest


def test_libraries_only_a_dropped_plugin_linked_go_with_it():
    binaries = [
        ("PySide6/QtGui.abi3.so", "/s/QtGui.abi3.so", "EXTENSION"),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", "/s/libqxcb.so", "BINARY"),
        ("PySide6/Qt/lib/libQt6Gui.so.6", "/s/libQt6Gui.so.6", "BINARY"),
        ("PySide6/Qt/lib/libQt6Network.so.6", "/s/libQt6Network.so.6", "BINARY"),
        ("libxcb-cursor.so.0", "/usr/lib/libxcb-cursor.so.0", "BINARY"),
        ("libcairo.so.2", "/usr/lib/libcairo.so.2", "BINARY"),
        ("numpy.libs/libscipy_openblas64_.so", "/s/openblas.so", "BINARY"),
        ("numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so", "/s/umath.so", "EXTENSION"),
        ("libpython3.11.so.1.0", "/usr/lib/libpython3.11.so.1.0", "BINARY"),
    ]
    links = {"/s/QtGui.abi3.so": {"libQt6Gui.so.6"}, "/s/libqxcb.so": {"libQt6Gui.so.6", "libxcb-cursor.so.0"},
             "/s/umath.so": {"libscipy_openblas64_.so"}}
    kept = [b[0] for b in bf.prune_unlinked(binaries, lambda src: links.get(src, set()))]
    assert kept == ["PySide6/QtGui.abi3.so", "PySide6/Qt/plugins/platforms/libqxcb.so",
                    "PySide6/Qt/lib/libQt6Gui.so.6", "libxcb-cursor.so.0", "numpy.libs/libscipy_openblas64_.so",
                    "numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so", "libpython3.11.so.1.0"]


def test_the_bundle_leaves_out_test_tools_and_other_qt_bindings():
    for mod in ("pytest", "hypothesis", "PyQt5", "PyQt6", "tkinter", "PySide6.QtNetwork", "ssl"):
        assert mod in bf.EXCLUDE_MODULES
    assert not {"PySide6.QtOpenGL", "PySide6.QtSvg", "PySide6.QtTest"} & set(bf.EXCLUDE_MODULES)


def test_macos_keeps_offscreen_and_cocoa_and_drops_what_linux_drops():
    """macOS wheels keep Qt under PySide6/Qt/ with .dylib plugins: export and --check need
    libqoffscreen.dylib (issue 29 item 2)."""
    base = "PySide6/Qt/plugins/platforms/"
    assert [n for n in ("libqcocoa.dylib", "libqoffscreen.dylib", "libqminimal.dylib") if bf.keep(base + n)] \
        == ["libqcocoa.dylib", "libqoffscreen.dylib"]
    assert not bf.keep("PySide6/Qt/plugins/imageformats/libqtiff.dylib")
    assert bf.keep("PySide6/Qt/plugins/imageformats/libqjpeg.dylib")
    assert not bf.keep("PySide6/Qt/translations/qtbase_fr.qm")
    assert not bf.keep("PySide6/Qt/plugins/tls/libqsecuretransportbackend.dylib")
    assert bf.keep("PySide6/Qt/lib/QtGui.framework/Versions/A/QtGui")


def test_windows_paths_are_filtered_too():
    """The Windows wheel keeps plugins and translations straight under PySide6\\, and
    PyInstaller there names them with backslashes."""
    win = "PySide6\\plugins\\"
    assert [n for n in ("qwindows.dll", "qoffscreen.dll", "qminimal.dll", "qdirect2d.dll")
            if bf.keep(win + "platforms\\" + n)] == ["qwindows.dll", "qoffscreen.dll"]
    assert not bf.keep(win + "imageformats\\qtiff.dll") and not bf.keep(win + "imageformats\\qwbmp.dll")
    assert bf.keep(win + "imageformats\\qjpeg.dll") and bf.keep(win + "imageformats\\qsvg.dll")
    assert not bf.keep(win + "tls\\qschannelbackend.dll")
    assert not bf.keep(win + "networkinformation\\qnetworklistmanager.dll")
    assert not bf.keep(win + "generic\\qtuiotouchplugin.dll")
    assert not bf.keep("PySide6\\translations\\qtbase_de.qm")
    assert bf.keep("PySide6\\Qt6Gui.dll") and bf.keep("PySide6\\QtGui.pyd")


def test_plugin_names_are_the_same_on_every_platform():
    assert {bf.plugin_name(n) for n in ("libqxcb.so", "libqcocoa.dylib", "qwindows.dll")} == {"qxcb", "qcocoa", "qwindows"}
    assert bf.qt_path("PySide6/QtGui.abi3.so") is None and bf.qt_path("numpy/x.so") is None


def test_readline_and_libcrypto_are_left_out():
    assert {"readline", "_hashlib", "_ssl"} <= set(bf.EXCLUDE_MODULES)


def test_pyside6_runtime_hook_is_replaced_and_the_others_stay():
    scripts = [("rthook_qt_paths", "/x/packaging/rthook_qt_paths.py", "PYSOURCE"),
               ("pyi_rth_inspect", "/p/pyi_rth_inspect.py", "PYSOURCE"),
               ("pyi_rth_pyside6", "/p/pyi_rth_pyside6.py", "PYSOURCE"),
               ("pyi_rth_pkgutil", "/p/pyi_rth_pkgutil.py", "PYSOURCE"),
               ("pyi_rth_multiprocessing", "/p/pyi_rth_multiprocessing.py", "PYSOURCE"),
               ("coverfire_entry", "/x/packaging/coverfire_entry.py", "PYSOURCE")]
    assert [s[0] for s in bf.runtime_scripts(scripts)] == [
        "rthook_qt_paths", "pyi_rth_inspect", "pyi_rth_pkgutil", "pyi_rth_multiprocessing", "coverfire_entry"]


def _rthook():
    spec = importlib.util.spec_from_file_location("rthook_qt_paths", ROOT / "packaging" / "rthook_qt_paths.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # (not frozen: it sets nothing)
    return mod


def test_qt_plugin_path_of_each_platforms_bundle_layout():
    import os

    env = _rthook().qt_environment(os.path.join("B", "_internal"), "linux")
    assert env == {"QT_PLUGIN_PATH": os.path.join("B", "_internal", "PySide6", "Qt", "plugins"),
                   "QML2_IMPORT_PATH": os.path.join("B", "_internal", "PySide6", "Qt", "qml")}
    assert _rthook().qt_environment("F", "darwin")["QT_PLUGIN_PATH"] == os.path.join("F", "PySide6", "Qt", "plugins")
    # the Windows wheel keeps plugins/ straight under PySide6/ (as bundle_filter.qt_path reads it)
    assert _rthook().qt_environment("F", "win32")["QT_PLUGIN_PATH"] == os.path.join("F", "PySide6", "plugins")


def test_the_qt_hook_imports_no_qt(tmp_path):
    """What it replaced imported PySide6.QtCore in every start of the bundle."""
    import subprocess
    import sys

    code = ("import sys; sys.frozen = True; sys._MEIPASS = sys.argv[1]; "
            f"exec(open({str(ROOT / 'packaging' / 'rthook_qt_paths.py')!r}).read()); import os; "
            "print(os.environ['QT_PLUGIN_PATH']); print(sorted(m for m in sys.modules if 'PySide6' in m or 'shiboken' in m))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [str(tmp_path / "PySide6" / "Qt" / "plugins"), "[]"]
