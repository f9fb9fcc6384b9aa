"""Pictures are decoded in worker threads (gui/picture_loader.py) and must never hand Qt a
device made in Python: Qt reads an image device while holding its image plugins' lock, and a
Python-made QBuffer asks for the GIL on every read, while the GUI thread, holding the GIL,
can wait on that same lock (an icon for the menus): the window and the suite deadlocked so,
once, with no timeout able to fire. This reads the decoding modules' code for such devices
and decodes in a thread beside a GUI thread loading icons."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

from PySide6.QtWidgets import QApplication, QStyle

ROOT = Path(__file__).resolve().parents[2]
DEVICES = {"QBuffer", "QFile", "QIODevice", "QTemporaryFile", "QSaveFile"}


def test_the_decoders_make_no_qt_device():
    for name in ("gui/pictures.py", "gui/picture_loader.py"):
        tree = ast.parse((ROOT / name).read_text(encoding="utf-8"))
        made = sorted({n.func.id for n in ast.walk(tree)
                       if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in DEVICES})
        assert made == [], f"{name} makes {made}"


def test_decoding_in_threads_beside_icon_loading_finishes(qapp, tmp_path):
    from PySide6.QtGui import QImage

    from gui.pictures import decode_picture

    png = sorted((ROOT / "assets" / "icons").glob("*.png"))[0]
    QImage(str(png)).save(str(tmp_path / "icon.bmp"))  # a format the header reader does not know
    pictures = [png.read_bytes(), (tmp_path / "icon.bmp").read_bytes()]
    done = []

    def work():
        for i in range(40):
            img, why = decode_picture(pictures[i % 2])
            done.append(img is not None and why is None and img.width() > 8)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    style = QApplication.style()
    while any(t.is_alive() for t in threads):
        for icon in (QStyle.StandardPixmap.SP_TitleBarMenuButton, QStyle.StandardPixmap.SP_FileIcon,
                     QStyle.StandardPixmap.SP_DialogOkButton):
            style.standardIcon(icon)
        for t in threads:
            t.join(0.001)
    assert done == [True] * 80
