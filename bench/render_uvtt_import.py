"""Draw an imported Universal VTT map's walls over its background, to check they line up.

    python bench/render_uvtt_import.py MAP.dd2vtt OUT.png [--cell-size 1.5] [--scale 0.5]

Walls red, closed doors green, open doors cyan, low cover blue, lights yellow. Offscreen Qt;
a development aid, not part of the program.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPointF, QRectF  # noqa: E402
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QImage, QPainter, QPen, QPolygonF  # noqa: E402

from engine.importers.images import decode_data_uri  # noqa: E402
from engine.importers.uvtt import import_uvtt  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("map")
    ap.add_argument("out")
    ap.add_argument("--cell-size", type=float, default=1.5)
    ap.add_argument("--scale", type=float, default=0.5, help="image pixels per source pixel")
    a = ap.parse_args()
    _app = QGuiApplication([])
    enc, report = import_uvtt(a.map, a.cell_size)
    ppg = enc.imported.get("pixels_per_grid") or 50
    ppm = ppg / enc.map.grid * a.scale
    img = QImage(int(enc.map.width * ppm), int(enc.map.height * ppm), QImage.Format.Format_ARGB32)
    img.fill(QColor("white"))
    p = QPainter(img)
    if enc.map.background is not None and enc.map.background.image.startswith("data:"):
        data, _fmt = decode_data_uri(enc.map.background.image)
        p.drawImage(QRectF(0, 0, img.width(), img.height()), QImage.fromData(data))
    for o in enc.obstacles:
        if o.door:
            col = QColor(0, 200, 255, 200) if o.open else QColor(0, 200, 0, 200)
        elif o.height < 2:
            col = QColor(0, 0, 255, 120)
        else:
            col = QColor(255, 0, 0, 150)
        p.setBrush(QBrush(col))
        p.setPen(QPen(QColor(0, 0, 0, 200), 1))
        p.drawPolygon(QPolygonF([QPointF(x * ppm, y * ppm) for x, y in o.polygon]))
    for light in enc.lights:
        p.setBrush(QBrush(QColor(255, 255, 0, 220)))
        p.drawEllipse(QPointF(light["x"] * ppm, light["y"] * ppm), 6, 6)
    p.end()
    img.save(a.out)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
