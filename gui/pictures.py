"""Reading pictures (map backgrounds, token art) into ``QImage``, with bounds: nothing a
picture file holds can freeze the window or pull in another file.

Before Qt decodes anything, :func:`decode_picture` checks the bytes:

* an SVG is checked and cleaned by :func:`engine.importers.images.clean_svg` (no entity
  declarations, at most ``MAX_SVG_ELEMENTS`` elements once its ``<use>`` and ``url(#)``
  references are expanded, nothing outside the picture referenced, no filter effects) and
  drawn at most ``MAX_SVG_SIDE`` pixels a side, in a child process killed past its CPU
  and wall-time limits (:mod:`gui.svg_worker`);
* any other picture's pixel size is read from its header (our own reader for PNG, JPEG,
  WebP and GIF, Qt's ``QImageReader.size()`` for the rest) and refused past
  ``MAX_IMAGE_PIXELS`` and ``MAX_IMAGE_SIDE`` before it is decoded;
* files larger than :data:`MAX_PICTURE_BYTES`, and anything but a regular file (a FIFO
  would block), are refused unread.

The answer is ``(image, None)``, ``(None, why)``, or ``(image, note)`` for an SVG drawn
without what it referred to outside it: ``why`` and ``note`` end a sentence naming the file.

These functions block while they decode: the window never calls them on its own thread but
asks :mod:`gui.picture_loader`, which calls them in a worker thread within a time budget.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from PySide6.QtGui import QImage, QImageReader

from gui import svg_worker
from engine.importers.images import (MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, MAX_SVG_SIDE, ImageInfo, clean_svg,
                                     image_format, image_header, looks_like_svg, size_problem, svg_size)

NOT_READABLE = "is not a PNG or JPEG image Coverfire can read"

#: Largest picture file read, in bytes (a 64-megapixel PNG is rarely over 200 MB).
MAX_PICTURE_BYTES = 256 * 1024 * 1024


def read_picture_file(path: Path, seconds: float | None = None, wall: float | None = None,
                      max_side: int | None = None) -> tuple[QImage | None, str | None]:
    """The picture in the file ``path``: ``(image, None)`` or ``(None, why)``, ``why``
    being the end of a sentence that names the file (``is missing``, ``is an SVG picture
    that ...``). ``seconds``, ``wall``: the CPU and wall time an SVG may take to draw
    (:func:`gui.svg_worker.render`); ``max_side``: the longest side an SVG is drawn at, when
    less than ``MAX_SVG_SIDE`` (a token's picture: drawn at the size it is kept at).
    This blocks: the window asks :mod:`gui.picture_loader`, which calls it in a worker thread."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None, ("is a folder, not an image" if Path(path).is_dir() else "is missing")
    if stat.S_ISDIR(st.st_mode):
        return None, "is a folder, not an image"
    if not stat.S_ISREG(st.st_mode):
        return None, "is not a regular file (a pipe or a device), not an image"
    if st.st_size > MAX_PICTURE_BYTES:
        return None, f"is {st.st_size:,} bytes; a picture may have at most {MAX_PICTURE_BYTES // 2**20} MB"
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    return decode_picture(data, seconds, wall, max_side)


def decode_picture(data: bytes, seconds: float | None = None, wall: float | None = None,
                   max_side: int | None = None) -> tuple[QImage | None, str | None]:
    """Decode picture bytes within the bounds: ``(image, None)`` or ``(None, why)``
    (``why`` as the end of a sentence naming where the bytes came from). ``seconds``: as for
    :func:`read_picture_file`; this blocks too."""
    if len(data) > MAX_PICTURE_BYTES:
        return None, f"is {len(data):,} bytes; a picture may have at most {MAX_PICTURE_BYTES // 2**20} MB"
    if image_format(data) is None and looks_like_svg(data):
        return _decode_svg(data, seconds, wall, max_side)
    return _decode_raster(data)


def _reader(data: bytes) -> tuple[QImageReader, tempfile.TemporaryDirectory]:
    # A reader on a file Qt opens itself. Never a QBuffer made here: pictures are decoded in
    # worker threads, and Qt reads a device while holding its image plugins' lock; a device
    # made in Python asks for the GIL on each read (PySide checks for Python overrides), so a
    # GUI thread asking Qt for an icon (that lock) while holding the GIL deadlocked both.
    folder = tempfile.TemporaryDirectory(prefix="coverfire-picture-")
    path = os.path.join(folder.name, "picture")
    with open(path, "wb") as f:
        f.write(data)
    reader = QImageReader(path)
    reader.setDecideFormatFromContent(True)
    return reader, folder


def _decode_raster(data: bytes) -> tuple[QImage | None, str | None]:
    if image_format(data) is not None:
        info = image_header(data)
        if info.problem:
            return None, f"{NOT_READABLE} ({info.problem})"
        why = size_problem(info)
        if why:
            return None, f"is a picture Coverfire does not decode: {why}"
        img = QImage.fromData(data)  # (Qt's own buffer: see _reader)
    else:
        reader, folder = _reader(data)
        try:
            fmt = bytes(reader.format()).decode("ascii", "replace")
            if not fmt or fmt in ("svg", "svgz"):
                return None, NOT_READABLE
            s = reader.size()
            info = ImageInfo(fmt, max(0, s.width()), max(0, s.height()))
            why = size_problem(info)
            if why:
                return None, f"is a picture Coverfire does not decode: {why}"
            img = reader.read()
        finally:
            reader.setFileName("")  # (closes the file before its folder goes: Windows)
            folder.cleanup()
    if img.isNull():
        return None, NOT_READABLE
    if img.width() > MAX_IMAGE_SIDE or img.height() > MAX_IMAGE_SIDE or img.width() * img.height() > MAX_IMAGE_PIXELS:
        return None, f"is a picture Coverfire does not decode: {size_problem(ImageInfo(info.format, img.width(), img.height()))}"
    return img, None


def _decode_svg(data: bytes, seconds: float | None = None, wall: float | None = None,
                max_side: int | None = None) -> tuple[QImage | None, str | None]:
    clean, why, dropped = clean_svg(data)
    if why:
        return None, f"is an SVG picture Coverfire does not draw: {why}"
    size = svg_size(clean) or (512.0, 512.0)
    k = min(1.0, min(MAX_SVG_SIDE, max_side or MAX_SVG_SIDE) / max(size))
    w, h = max(1, round(size[0] * k)), max(1, round(size[1] * k))
    png, why = svg_worker.render(clean, w, h, seconds, wall)  # (in a child process, killed past its time)
    if png is None:
        return None, f"is an SVG picture Coverfire does not draw: {why}"
    img = QImage.fromData(png, "PNG")
    if img.isNull():
        return None, "is an SVG picture Qt cannot draw"
    if dropped:
        return img, "is an SVG picture drawn without " + ", ".join(dropped)
    return img, None


def svg_dropped(data: bytes) -> list[str]:
    """What drawing this SVG picture leaves out (references outside it, filter effects)."""
    if image_format(data) is not None or not looks_like_svg(data):
        return []
    return clean_svg(data)[2]


__all__ = ["MAX_PICTURE_BYTES", "NOT_READABLE", "decode_picture", "read_picture_file", "svg_dropped"]
