"""Render ``assets/icons/coverfire.svg`` to the PNG sizes a Linux desktop asks for.

    python packaging/render_icons.py

Writes ``assets/icons/coverfire-<N>.png`` for each size in ``gui.desktop_entry.ICON_SIZES``,
and with Pillow (the ``bundle`` extra) ``coverfire.ico`` (16 to 256 px, the Windows bundle's
executables) and ``coverfire.icns`` (16 to 1024 px, the macOS app). Run it after editing the
SVG and commit what it wrote: the PNGs ship in the wheel, so installing the desktop entry
needs neither QtSvg nor a display; the .ico and .icns are read by packaging/coverfire.spec.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QRectF, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

from gui.desktop_entry import ICON_SIZES  # noqa: E402

ICONS = ROOT / "assets" / "icons"


def render(svg: Path, size: int) -> QImage:
    """``svg`` drawn antialiased on a transparent ``size`` x ``size`` image."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    img = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(p, QRectF(0, 0, size, size))
    p.end()
    return img


def main() -> int:
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    svg = ICONS / "coverfire.svg"
    for n in ICON_SIZES:
        out = ICONS / f"coverfire-{n}.png"
        if not render(svg, n).save(str(out), "PNG"):
            raise SystemExit(f"could not write {out}")
        print(f"wrote {out.relative_to(ROOT)}")
    for out in write_platform_icons(svg):
        print(f"wrote {out.relative_to(ROOT)}")
    return 0


#: Sizes in the Windows .ico (what Explorer and the task bar ask for) and the macOS .icns.
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICNS_SIZES = (16, 32, 64, 128, 256, 512, 1024)


def _pil(img: QImage):
    from PIL import Image

    img = img.convertToFormat(QImage.Format.Format_RGBA8888)
    return Image.frombuffer("RGBA", (img.width(), img.height()), bytes(img.constBits()), "raw", "RGBA",
                            img.bytesPerLine(), 1).copy()


def write_platform_icons(svg: Path) -> list[Path]:
    """``coverfire.ico`` and ``coverfire.icns`` beside the PNGs, each size rendered from the
    SVG (not scaled down from one picture)."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise SystemExit('the .ico and .icns need Pillow: python -m pip install ".[bundle]"') from None
    ico = ICONS / "coverfire.ico"
    big = _pil(render(svg, 256))
    big.save(ico, format="ICO", sizes=[(n, n) for n in ICO_SIZES],
             append_images=[_pil(render(svg, n)) for n in ICO_SIZES if n != 256])
    icns = ICONS / "coverfire.icns"
    _pil(render(svg, 1024)).save(icns, format="ICNS",
                                 append_images=[_pil(render(svg, n)) for n in ICNS_SIZES if n != 1024])
    return [ico, icns]


if __name__ == "__main__":
    sys.exit(main())
