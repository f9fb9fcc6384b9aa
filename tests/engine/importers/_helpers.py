"""Small image files the importer tests make themselves."""

from __future__ import annotations

import struct
import zlib


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png_bytes(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    """A whole, valid RGB PNG of ``width`` x ``height`` pixels in one colour."""
    row = b"\x00" + bytes(rgb) * width
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", ihdr)
        + _chunk(b"IDAT", zlib.compress(row * height))
        + _chunk(b"IEND", b"")
    )


def huge_png_header(width: int = 100_000, height: int = 100_000) -> bytes:
    """The first bytes of a PNG claiming an enormous size, followed by junk (never decodable)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + b"\x00" * 5000


class UvttWork:
    """What a Universal VTT import did, counted instead of timed (DESIGN.md "Time in tests"):
    the polylines and points handed to :func:`engine.importers.walls.merge`, the points read
    one by one (:func:`engine.importers.uvtt._xy`) and the pieces and points made thick
    (:func:`engine.importers.walls.thin_polygons`, the costly part: GEOS buffers)."""

    def __init__(self, monkeypatch) -> None:
        import shapely

        from engine.importers import uvtt

        self.merged_lines = self.merged_points = self.points_read_one_by_one = 0
        self.thickened = self.thickened_points = self.largest_thickened = 0
        merge, xy, thin = uvtt.merge, uvtt._xy, uvtt.thin_polygons

        def counted_merge(lines):
            self.merged_lines += len(lines)
            self.merged_points += sum(len(a) for a in lines)
            return merge(lines)

        def counted_xy(value, where):
            self.points_read_one_by_one += 1
            return xy(value, where)

        def counted_thin(line, half, *a, **k):
            pieces = line if isinstance(line, list) else [line]
            self.thickened += len(pieces)
            sizes = [int(shapely.get_num_coordinates(p)) for p in pieces]
            self.thickened_points += sum(sizes)
            self.largest_thickened = max([self.largest_thickened, *sizes])
            return thin(line, half, *a, **k)

        monkeypatch.setattr(uvtt, "merge", counted_merge)
        monkeypatch.setattr(uvtt, "_xy", counted_xy)
        monkeypatch.setattr(uvtt, "thin_polygons", counted_thin)

    def reset(self) -> None:
        self.merged_lines = self.merged_points = self.points_read_one_by_one = 0
        self.thickened = self.thickened_points = self.largest_thickened = 0
