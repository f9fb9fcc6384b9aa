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
