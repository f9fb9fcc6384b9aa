"""Images inside imported files: check them cheaply, carry them, write them beside the encounter.

An importer never decodes pixels (no Qt, no Pillow in engine/). It reads the image's header
for its format and size, refuses sizes above :data:`MAX_IMAGE_PIXELS` *before* decoding the
rest of a base64 text, and checks that the file is whole (a PNG ends with ``IEND`` and every
chunk's CRC matches; a JPEG ends with ``EOI``; a WebP is as long as its RIFF header says).

In memory an imported image is a ``data:`` URI (so an unsaved encounter can show its map).
:func:`save_with_images` writes each such image beside the encounter file, atomically, and
stores a relative path instead, so the encounter JSON stays small:
``ambush.json`` gets ``ambush.map.png`` and ``ambush.<token-id>.portrait.jpg``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import os
import re
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from engine.errors import EncounterFileError

#: Largest image Coverfire takes as a background or portrait, in pixels (width x height).
#: 64 megapixels is 256 MB decoded as RGBA, Qt's default image allocation limit.
MAX_IMAGE_PIXELS = 64 * 1024 * 1024
#: Largest side in pixels (QImage and QPainter work in 16-bit signed device coordinates).
MAX_IMAGE_SIDE = 32767

MIME = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp", "gif": "image/gif"}
EXTENSION = {"png": "png", "jpeg": "jpg", "webp": "webp", "gif": "gif"}
_FORMAT_OF_MIME = {v: k for k, v in MIME.items()} | {"image/jpg": "jpeg"}

_PNG_SIG = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class ImageInfo:
    """What the header of an image says: ``format`` (png, jpeg, webp, gif), ``width`` and
    ``height`` in pixels (0 when unknown), and ``problem``: None for a whole, readable image,
    else why it cannot be used (cut short, corrupt, unknown format)."""

    format: str | None
    width: int = 0
    height: int = 0
    problem: str | None = None

    @property
    def pixels(self) -> int:
        return self.width * self.height


def size_problem(info: ImageInfo, max_pixels: int = MAX_IMAGE_PIXELS) -> str | None:
    """Why an image of this size is refused (None when its size is acceptable)."""
    if info.width <= 0 or info.height <= 0:
        return "its header gives no size"
    if info.width > MAX_IMAGE_SIDE or info.height > MAX_IMAGE_SIDE or info.pixels > max_pixels:
        return (
            f"it is {info.width} x {info.height} px ({info.pixels / 1e6:.0f} megapixels), "
            f"above the limit of {max_pixels / 1e6:.0f} megapixels and {MAX_IMAGE_SIDE} px a side"
        )
    return None


def image_format(data: bytes) -> str | None:
    """The format of image bytes from their magic number, or None."""
    if data.startswith(_PNG_SIG):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    return None


def image_header(data: bytes) -> ImageInfo:
    """Format and size from the first bytes only (a few hundred are enough for PNG, GIF and
    WebP; JPEG needs the bytes up to its frame header). Never checks completeness."""
    fmt = image_format(data)
    if fmt == "png":
        if len(data) < 24 or data[12:16] != b"IHDR":
            return ImageInfo(fmt, problem="the PNG header is cut short or has no IHDR chunk")
        w, h = struct.unpack(">II", data[16:24])
        return ImageInfo(fmt, w, h)
    if fmt == "gif":
        if len(data) < 10:
            return ImageInfo(fmt, problem="the GIF header is cut short")
        w, h = struct.unpack("<HH", data[6:10])
        return ImageInfo(fmt, w, h)
    if fmt == "webp":
        return _webp_header(data)
    if fmt == "jpeg":
        return _jpeg_header(data)
    return ImageInfo(None, problem="not a PNG, JPEG, WebP or GIF image")


def _webp_header(data: bytes) -> ImageInfo:
    chunk = data[12:16]
    try:
        if chunk == b"VP8X":
            w = int.from_bytes(data[24:27], "little") + 1
            h = int.from_bytes(data[27:30], "little") + 1
            if len(data) < 30:
                raise IndexError
            return ImageInfo("webp", w, h)
        if chunk == b"VP8L":
            if len(data) < 25 or data[20] != 0x2F:
                raise IndexError
            bits = int.from_bytes(data[21:25], "little")
            return ImageInfo("webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        if chunk == b"VP8 ":
            if len(data) < 30 or data[23:26] != b"\x9d\x01\x2a":
                raise IndexError
            w, h = struct.unpack("<HH", data[26:30])
            return ImageInfo("webp", w & 0x3FFF, h & 0x3FFF)
    except (IndexError, struct.error):
        return ImageInfo("webp", problem="the WebP header is cut short or damaged")
    return ImageInfo("webp", problem=f"unknown WebP chunk {chunk!r}")


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_header(data: bytes) -> ImageInfo:
    i = 2
    n = len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            return ImageInfo("jpeg", problem="the JPEG marker stream is damaged")
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker in _SOF:
            if i + 9 > n:
                break
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return ImageInfo("jpeg", w, h)
        if marker == 0xDA:  # start of scan before any frame header
            break
        i += 2 + length
    return ImageInfo("jpeg", problem="the JPEG has no frame header (cut short?)")


def check_image(data: bytes) -> ImageInfo:
    """Header plus completeness: a PNG's chunks all present with good CRCs up to ``IEND``,
    a JPEG ending with ``EOI``, a WebP as long as its RIFF size. ``problem`` says what is
    wrong; the size fields are filled whenever the header could be read."""
    info = image_header(data)
    if info.problem:
        return info
    problem = None
    if info.format == "png":
        problem = _png_problem(data)
    elif info.format == "jpeg":
        if not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
            problem = f"the JPEG is cut short ({len(data)} bytes, no end-of-image marker)"
    elif info.format == "webp":
        (riff,) = struct.unpack("<I", data[4:8])
        if len(data) < riff + 8:
            problem = f"the WebP is cut short ({len(data)} of {riff + 8} bytes)"
    elif info.format == "gif":
        if not data.rstrip(b"\x00").endswith(b";"):
            problem = "the GIF is cut short (no trailer)"
    if problem:
        return ImageInfo(info.format, info.width, info.height, problem)
    return info


def _png_problem(data: bytes) -> str | None:
    i = 8
    n = len(data)
    view = memoryview(data)
    while True:
        if i + 12 > n:
            return f"the PNG is cut short ({n} bytes, no IEND chunk)"
        (length,) = struct.unpack(">I", data[i : i + 4])
        ctype = data[i + 4 : i + 8]
        end = i + 12 + length
        if end > n:
            return f"the PNG is cut short inside its {ctype.decode('latin-1')} chunk ({n} bytes)"
        (crc,) = struct.unpack(">I", data[end - 4 : end])
        if zlib.crc32(view[i + 4 : end - 4]) != crc:
            return f"the PNG is damaged (bad checksum in its {ctype.decode('latin-1')} chunk at byte {i})"
        if ctype == b"IEND":
            return None
        i = end


# -- base64 and data URIs ---------------------------------------------------------------------


def split_data_uri(text: str) -> tuple[str | None, str]:
    """(``mime``, base64 payload) of a ``data:`` URI; (None, text) for plain base64."""
    if text.startswith("data:"):
        head, _, payload = text.partition(",")
        mime = head[5:].split(";")[0] or None
        return mime, payload
    return None, text


def b64_prefix(payload: str, n_bytes: int = 4096) -> bytes:
    """Decode only the start of a base64 text (enough for a header), ignoring bad tails."""
    chunk = "".join(payload[: (n_bytes * 4) // 3 + 8].split())
    chunk = chunk[: len(chunk) // 4 * 4]
    try:
        return base64.b64decode(chunk, validate=False)
    except (binascii.Error, ValueError):
        return b""


def b64_decode(payload: str) -> tuple[bytes, str | None]:
    """Decode base64 text as far as it goes: (bytes, problem). ``problem`` says when the text
    was cut short or held characters that are not base64; the bytes are what could be read."""
    text = "".join(payload.split())
    problem = None
    usable = len(text) // 4 * 4
    if usable != len(text):
        problem = f"the base64 text is cut short ({len(text)} characters, not a multiple of 4)"
        text = text[:usable]
    try:
        return base64.b64decode(text, validate=True), problem
    except (binascii.Error, ValueError):
        pass
    try:
        data = base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError) as exc:
        return b"", f"the base64 text cannot be decoded ({exc})"
    return data, problem or "the base64 text holds characters that are not base64 (skipped)"


def data_uri(data: bytes, fmt: str) -> str:
    """A ``data:`` URI holding image bytes of format ``fmt``."""
    return f"data:{MIME[fmt]};base64," + base64.b64encode(data).decode("ascii")


def data_uri_from_b64(payload: str, fmt: str) -> str:
    """A ``data:`` URI reusing an already valid base64 payload (no re-encoding)."""
    return f"data:{MIME[fmt]};base64," + "".join(payload.split())


def decode_data_uri(uri: str) -> tuple[bytes, str | None]:
    """(bytes, format) of an image ``data:`` URI."""
    mime, payload = split_data_uri(uri)
    data = base64.b64decode("".join(payload.split()))
    fmt = _FORMAT_OF_MIME.get(mime or "") or image_format(data)
    return data, fmt


# -- pictures an imported file names by path ----------------------------------------------------


def path_inside(text: str, base_dir: str | os.PathLike[str]) -> tuple[Path | None, str | None]:
    """Where a picture an imported file names by path (``maps/cellar.webp``) is, when it lies
    inside the imported file's own folder tree ``base_dir``: (path, None); else (None, why).
    A file from elsewhere never reads a local file the GM did not choose: refused are ``..``
    (``../x.png``), absolute paths outside the folder (``/home/gm/x.png``; one inside it is
    fine), ``file:`` and web addresses, ``~``, and NUL characters. Links inside the folder
    the GM made are followed."""
    t = text.strip().replace("\\", "/")
    if "\x00" in t:
        return None, "it holds a NUL character"
    if re.match(r"^[a-z][a-z0-9+.-]*:", t, re.IGNORECASE) and not re.match(r"^[a-z]:/", t, re.IGNORECASE):
        return None, "it is an address, not a path beside the file"
    if t.startswith("~"):
        return None, "it names a file in a home folder, outside the file's own folder"
    base = Path(os.path.abspath(base_dir))
    parts = [part for part in t.split("/") if part not in ("", ".")]
    if not parts:
        return None, "it is empty"
    if ".." in parts:
        return None, "it leads out of the file's own folder (..)"
    if t.startswith("/") or re.match(r"^[a-z]:/", t, re.IGNORECASE):
        absolute = Path(os.path.abspath(t))
        if not absolute.is_relative_to(base):
            return None, f"it is an absolute path outside the file's own folder ({base})"
        return absolute, None
    return base.joinpath(*parts), None


# -- writing images beside the encounter --------------------------------------------------------


def _atomic_write(path: Path, data: bytes) -> None:
    from engine.files import atomic_write_bytes

    try:
        atomic_write_bytes(path, data)
    except OSError as exc:
        raise EncounterFileError(f"cannot write the image: {exc.strerror or exc}", file=str(path)) from None


def _image_of(uri: str) -> tuple[bytes, str] | None:
    """(bytes, format) of a ``data:`` URI that holds an image; None when it does not decode
    to one (cut short, not base64, no image signature)."""
    try:
        data, _ = decode_data_uri(uri)
    except (binascii.Error, ValueError):
        return None
    fmt = image_format(data)
    return (data, fmt) if fmt is not None else None


def externalize_images(encounter, path: str | os.PathLike[str]):
    """Write every ``data:`` image of ``encounter`` (the map background, token portraits)
    beside the encounter file ``path``, atomically, and return (the encounter with relative
    image paths, the file names written). Images already given as paths are left alone, and
    so is a ``data:`` URI that holds no image (it stays in the file as it was: nothing of it
    is lost, and no empty image file is written)."""
    target = Path(path)
    folder = target.parent
    stem = _part(target.stem, 100)  # (a 240-character encounter name leaves no room for more)
    written: list[str] = []
    updates: dict = {}
    bg = encounter.map.background
    image = _image_of(bg.image) if bg is not None and bg.image.startswith("data:") else None
    if image is not None:
        data, fmt = image
        name = f"{stem}.map.{EXTENSION[fmt]}"
        _atomic_write(folder / name, data)
        written.append(name)
        updates["map"] = encounter.map.model_copy(
            update={"background": bg.model_copy(update={"image": name})}
        )
    tokens = list(encounter.tokens)
    changed = False
    for i, t in enumerate(tokens):
        portrait = getattr(t, "portrait", None)
        image = _image_of(portrait) if isinstance(portrait, str) and portrait.startswith("data:") else None
        if image is not None:
            data, fmt = image
            name = f"{stem}.{_part(_safe(t.id), 80)}.portrait.{EXTENSION[fmt]}"
            _atomic_write(folder / name, data)
            written.append(name)
            tokens[i] = t.model_copy(update={"portrait": name})
            changed = True
    if changed:
        updates["tokens"] = tuple(tokens)
    if updates:
        encounter = encounter.model_copy(update=updates)
    return encounter, written


def _part(text: str, limit: int) -> str:
    """``text`` for a file name, at most ``limit`` bytes of UTF-8: cut, with a hash of the
    whole so that two long names cut alike still differ."""
    raw = text.encode("utf-8", "surrogateescape")
    if len(raw) <= limit:
        return text
    digest = hashlib.sha1(raw).hexdigest()[:8]
    return raw[: limit - 9].decode("utf-8", "ignore") + "-" + digest


def _safe(ident: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in ident)


def save_with_images(encounter, path: str | os.PathLike[str]):
    """Save an encounter atomically, first writing its in-memory (``data:``) images beside it.
    Returns (the encounter as saved, with relative image paths; the image files written).
    Raises :class:`~engine.errors.EncounterFileError` when a file cannot be written."""
    from engine.files import save_encounter

    saved, written = externalize_images(encounter, path)
    save_encounter(saved, path)
    return saved, written


# -- SVG pictures: checked and cleaned before Qt draws them -----------------------------------

#: Largest SVG picture read, in bytes (a map drawn as an SVG is rarely above a few MB).
MAX_SVG_BYTES = 16 * 1024 * 1024
#: Most elements an SVG picture may draw, counted after expanding every reference (a
#: ``<use>`` or a ``url(#id)`` draws what it points at once more): ten nested levels of ten
#: ``<use>`` each are 2.4 KB that draw ten billion rectangles.
MAX_SVG_ELEMENTS = 50_000
#: Deepest nesting of SVG elements.
MAX_SVG_DEPTH = 100
#: Longest side an SVG picture is drawn at, in pixels (it is scaled down to fit).
MAX_SVG_SIDE = 4096

_URL_REF = re.compile(r"url\(\s*['\"]?\s*#([^'\")\s]+)")
_ANY_URL = re.compile(r"url\(\s*['\"]?\s*([^'\")\s]*)")
_HREF_KEYS = ("href", "xlink:href")
_RASTER_DATA = re.compile(r"^data:image/(png|jpeg|jpg|gif|webp)[;,]", re.I)


def looks_like_svg(data: bytes) -> bool:
    """Whether ``data`` is (probably) an SVG picture: XML text whose first element is
    ``<svg``, or gzip-compressed (an ``.svgz``)."""
    if data[:2] == b"\x1f\x8b":
        return True
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"<"):
        return False
    return re.search(rb"<(?:[A-Za-z_][\w.-]*:)?svg[\s>/]", data[:65536]) is not None


class _SvgTooBig(Exception):
    pass


def clean_svg(data: bytes) -> tuple[bytes | None, str | None, list[str]]:
    """Check an SVG picture before anything draws it, and clean it: (the SVG to draw, None,
    what was left out) or (None, why it is refused, []).

    Refused: more than :data:`MAX_SVG_BYTES` (unpacked, for an ``.svgz``), an entity
    declaration or an internal DTD subset (entities expand a few KB to gigabytes), nesting
    past :data:`MAX_SVG_DEPTH`, more than :data:`MAX_SVG_ELEMENTS` elements after expanding
    every ``<use>``/``href`` and ``url(#id)`` reference, a reference cycle, bad XML.
    Left out (said in the third item): every reference to something outside the picture
    (``<image href="../x.png">``, ``href="file:///..."``, ``http:`` links, ``url(other.svg)``;
    an embedded ``data:`` PNG, JPEG, GIF or WebP stays when its size is within bounds), and
    filter effects (``<filter>``, ``filter=``: their cost grows with the picture's pixels
    times the elements using them)."""
    import xml.parsers.expat as expat

    if data[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            data = d.decompress(data, MAX_SVG_BYTES + 1)
        except zlib.error as exc:
            return None, f"the compressed SVG picture is damaged ({exc})", []
        if len(data) > MAX_SVG_BYTES or d.unconsumed_tail:
            return None, f"the compressed SVG picture unpacks to more than {MAX_SVG_BYTES // 2**20} MB", []
    if len(data) > MAX_SVG_BYTES:
        return None, f"the SVG picture is {len(data):,} bytes; at most {MAX_SVG_BYTES // 2**20} MB", []

    # a light tree: tag, attributes, children, text
    tags: list[str] = []
    attrs: list[dict[str, str]] = []
    kids: list[list[int]] = []
    texts: list[list[str]] = []
    stack: list[int] = []
    dropped: list[str] = []
    problem: list[str] = []

    def refuse(why: str):
        problem.append(why)
        raise _SvgTooBig

    def start(name, a):
        if len(tags) >= MAX_SVG_ELEMENTS:
            refuse(f"the SVG picture has more than {MAX_SVG_ELEMENTS:,} elements; at most {MAX_SVG_ELEMENTS:,}")
        if len(stack) >= MAX_SVG_DEPTH:
            refuse(f"the SVG picture nests elements more than {MAX_SVG_DEPTH} deep")
        i = len(tags)
        tags.append(name)
        attrs.append(dict(a))
        kids.append([])
        texts.append([])
        if stack:
            kids[stack[-1]].append(i)
        stack.append(i)

    def end(name):
        stack.pop()

    def chars(text):
        if stack:
            texts[stack[-1]].append(text)

    def entity(*args):
        refuse("the SVG picture declares entities (a few KB of them can expand to gigabytes); "
               "Coverfire draws no SVG that does")

    def doctype(name, sysid, pubid, has_internal_subset):
        if has_internal_subset:
            refuse("the SVG picture has its own DTD (where entities that expand to gigabytes live); "
                   "Coverfire draws no SVG that does")

    p = expat.ParserCreate()
    p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = chars
    p.EntityDeclHandler = entity
    p.UnparsedEntityDeclHandler = entity
    p.StartDoctypeDeclHandler = doctype
    p.ExternalEntityRefHandler = lambda *a: entity() or 0
    p.SkippedEntityHandler = lambda *a: entity()
    p.DefaultHandler = lambda s: None
    try:
        p.Parse(data, True)
    except _SvgTooBig:
        return None, problem[0], []
    except expat.ExpatError as exc:
        return None, f"the SVG picture is not well-formed XML ({expat.ErrorString(exc.code)} at line {exc.lineno})", []
    if not tags or tags[0].rsplit(":", 1)[-1] != "svg":
        return None, "the picture is XML but not an SVG (its first element is not <svg>)", []

    # leave out what reaches outside, and filters
    removed = set()
    for i, a in enumerate(attrs):
        local = tags[i].rsplit(":", 1)[-1]
        if local == "filter":
            removed.add(i)
            dropped.append("a filter effect")
            continue
        for k in list(a):
            v = a[k]
            if k in _HREF_KEYS and not v.lstrip().startswith("#"):
                if local == "image" and _RASTER_DATA.match(v.strip()):
                    info = image_header(b64_prefix(v.split(",", 1)[1] if "," in v else ""))
                    why = info.problem or size_problem(info)
                    if why is None:
                        continue
                    dropped.append(f"an embedded image ({why})")
                else:
                    dropped.append(f"a reference to {excerpt_text(v)} outside the picture")
                del a[k]
            elif k == "filter":
                del a[k]
                dropped.append("a filter effect")
            elif "url(" in v:
                for target in _ANY_URL.findall(v):
                    if not target.startswith("#"):
                        dropped.append(f"a reference to {excerpt_text(target)} outside the picture")
                        a[k] = _ANY_URL.sub("url(#coverfire-removed", v)
                        break
            if k == "style" and k in a and "filter" in a[k]:
                a[k] = re.sub(r"filter\s*:[^;]*;?", "", a[k])
        if local == "style":
            css = "".join(texts[i])
            if "@import" in css or re.search(r"url\(\s*['\"]?\s*[^#'\"\s)]", css):
                texts[i] = [re.sub(r"@import[^;]*;?", "", _ANY_URL.sub(
                    lambda m: m.group(0) if m.group(1).startswith("#") else "url(#coverfire-removed", css))]
                dropped.append("a style sheet's reference outside the picture")

    # elements drawn after expanding every reference (memoised; cycles refused)
    ids = {a["id"]: i for i, a in enumerate(attrs) if "id" in a}
    cap = MAX_SVG_ELEMENTS + 1
    size: dict[int, int] = {}
    busy: set[int] = set()

    def refs(i: int) -> list[int]:
        out = []
        for k, v in attrs[i].items():
            if k in _HREF_KEYS and v.lstrip().startswith("#"):
                j = ids.get(v.strip()[1:])
                if j is not None:
                    out.append(j)
            elif "url(" in v:
                out.extend(ids[t] for t in _URL_REF.findall(v) if t in ids)
        return out

    def count(root: int) -> int:
        # iterative post-order walk of the element tree and its references
        work = [(root, False)]
        while work:
            i, done = work.pop()
            if i in size:
                continue
            nexts = kids[i] + refs(i)
            if done:
                busy.discard(i)
                size[i] = min(cap, 1 + sum(size[j] for j in nexts))
                continue
            if i in busy:
                continue
            busy.add(i)
            work.append((i, True))
            for j in nexts:
                if j in busy:
                    raise _SvgTooBig
                if j not in size:
                    work.append((j, False))
        return size[root]

    try:
        total = count(0)
    except _SvgTooBig:
        return None, "the SVG picture has a reference cycle (an element that draws itself)", []
    if total > MAX_SVG_ELEMENTS:
        return None, (f"the SVG picture draws more than {MAX_SVG_ELEMENTS:,} elements once its <use> and "
                      f"url(#) references are expanded ({len(tags):,} in the file); at most "
                      f"{MAX_SVG_ELEMENTS:,}"), []

    # written back as plain XML: elements, attributes and text only
    out: list[str] = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    walk = [(0, False)]
    while walk:
        i, closing = walk.pop()
        if closing:
            out.append(f"</{tags[i]}>")
            continue
        if i in removed:
            continue
        at = "".join(f' {k}="{_xml_attr(v)}"' for k, v in attrs[i].items())
        out.append(f"<{tags[i]}{at}>")
        out.append(_xml_text("".join(texts[i])))
        walk.append((i, True))
        walk.extend((j, False) for j in reversed(kids[i]))
    return "".join(out).encode("utf-8"), None, sorted(set(dropped))


def excerpt_text(text: str, n: int = 60) -> str:
    t = text.strip()
    return repr(t if len(t) <= n else t[: n - 1] + "…")


def _xml_attr(v: str) -> str:
    return (v.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
            .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))


def _xml_text(v: str) -> str:
    return v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg_size(data: bytes) -> tuple[float, float] | None:
    """The width and height an SVG picture declares (its ``width``/``height``, else its
    ``viewBox``), in its own units; None when it declares neither."""
    m = re.search(rb"<(?:[A-Za-z_][\w.-]*:)?svg\b([^>]*)>", data[:65536])
    if not m:
        return None
    head = m.group(1).decode("utf-8", "replace")

    def attr(name):
        a = re.search(rf'\b{name}\s*=\s*["\']([^"\']*)["\']', head)
        return a.group(1) if a else None

    def number(text):
        n = re.match(r"\s*([0-9.eE+-]+)\s*(px)?\s*$", text or "")
        try:
            return float(n.group(1)) if n else None
        except ValueError:
            return None

    w, h = number(attr("width")), number(attr("height"))
    if w and h and w > 0 and h > 0 and math.isfinite(w) and math.isfinite(h):
        return w, h
    vb = attr("viewBox")
    if vb:
        parts = re.split(r"[\s,]+", vb.strip())
        try:
            vw, vh = float(parts[2]), float(parts[3])
        except (IndexError, ValueError):
            return None
        if vw > 0 and vh > 0 and math.isfinite(vw) and math.isfinite(vh):
            return vw, vh
    return None
