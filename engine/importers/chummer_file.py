"""Reading a Chummer5a save safely: ``.chum5`` (XML) and ``.chum5lz`` (the same XML,
LZMA-compressed), with DTDs and entities forbidden and the nesting bounded.

Chummer5a writes ``.chum5lz`` through its ``LzmaHelper.CompressToLzmaFile``: the 7-Zip SDK's
LZMA encoder in the "alone" layout (5 bytes of coder properties, an 8-byte size, -1 when the
stream ends with an end marker, then the stream) -- what Python's :mod:`lzma` reads as
``FORMAT_ALONE``. Its "None" preset copies the XML unchanged, so a ``.chum5lz`` that starts
like XML is read as XML.

The XML is parsed by :mod:`defusedxml` with DTDs, entity declarations and external references
forbidden, wherever they appear in the file and whatever its encoding (a declaration after
the first 64 KiB or in a UTF-16 save is found as well); elements nested deeper than
:data:`MAX_DEPTH` are refused while parsing, before anything walks the tree.
"""

from __future__ import annotations

import io
import lzma
import xml.etree.ElementTree as ET
from pathlib import Path

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from engine.errors import ImportFileError
from engine.files import read_user_file

#: Largest save read (compressed or not) and largest XML a ``.chum5lz`` may unpack to, bytes.
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
#: Deepest element nesting read (Chummer's saves nest gear in gear, about 12 levels at most).
MAX_DEPTH = 64
#: Most elements and attributes a save may hold (the largest real save seen has 13,209
#: elements). A 29 KB ``.chum5lz`` unpacked under the 256 MB cap into 52 million elements:
#: 164 s and 4.7 GB to parse.
MAX_ELEMENTS = 500_000
MAX_ATTRIBUTES = 1_000_000

_XML_STARTS = (b"<", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def unpack(raw: bytes, name: str) -> bytes:
    """The XML of a save: ``raw`` itself when it looks like XML, else ``raw`` unpacked as
    Chummer's LZMA; :class:`ImportFileError` when it is neither."""
    head = raw[:4].lstrip(b" \t\r\n")
    if not raw or head.startswith(_XML_STARTS):
        return raw
    dec = lzma.LZMADecompressor(format=lzma.FORMAT_ALONE, memlimit=512 * 1024 * 1024)
    try:
        out = dec.decompress(raw, max_length=MAX_UNPACKED_BYTES + 1)
    except lzma.LZMAError as exc:
        raise ImportFileError(
            f"not a Chummer save: neither XML nor Chummer's compressed .chum5lz ({exc})", file=name
        ) from None
    if len(out) > MAX_UNPACKED_BYTES:
        raise ImportFileError(
            f"the compressed save unpacks to more than {MAX_UNPACKED_BYTES // (1024 * 1024)} MB; refused", file=name
        )
    if not dec.eof and not out:
        raise ImportFileError("the compressed save is cut short: nothing could be unpacked", file=name)
    if not dec.eof:
        raise ImportFileError("the compressed save is cut short (the LZMA stream does not end)", file=name)
    return out


def parse_xml(raw: bytes, name: str) -> ET.Element:
    """The root element of the XML ``raw``; :class:`ImportFileError` for XML that does not
    parse (line and column), declares a DTD or entities, nests deeper than :data:`MAX_DEPTH`,
    or holds more than :data:`MAX_ELEMENTS` elements or :data:`MAX_ATTRIBUTES` attributes
    (elements counted by their start tags before parsing, and both while parsing: it stops
    there, before building more)."""
    starts = raw.count(b"<") - raw.count(b"</") - raw.count(b"<!") - raw.count(b"<?")
    if starts > MAX_ELEMENTS:  # (each element starts with a tag: counted without parsing, 500,000 took 1.8 s)
        raise ImportFileError(f"the XML holds more than {MAX_ELEMENTS:,} elements ({starts:,} start tags, counted "
                              "before parsing), the most Coverfire reads (a Chummer save holds a few thousand); refused",
                              file=name)
    depth = elements = attributes = 0
    root: ET.Element | None = None
    done = False
    try:
        for event, elem in iterparse(io.BytesIO(raw), events=("start", "end"),
                                     forbid_dtd=True, forbid_entities=True, forbid_external=True):
            if event == "start":
                depth += 1
                elements += 1
                attributes += len(elem.attrib)
                if elements > MAX_ELEMENTS or attributes > MAX_ATTRIBUTES:
                    raise ImportFileError(
                        (f"the XML holds more than {MAX_ELEMENTS:,} elements" if elements > MAX_ELEMENTS else
                         f"the XML holds more than {MAX_ATTRIBUTES:,} attributes")
                        + ", the most Coverfire reads (a Chummer save holds a few thousand); refused", file=name)
                if root is None:
                    root = elem
                if depth > MAX_DEPTH:
                    raise ImportFileError(
                        f"the XML nests elements more than {MAX_DEPTH} deep (at <{elem.tag[:40]}>), which a Chummer "
                        "save never does; refused", file=name)
            else:
                depth -= 1
        done = True
    except DefusedXmlException as exc:
        what = type(exc).__name__.replace("Forbidden", "")
        raise ImportFileError(
            f"the file declares {'a DTD (where XML entities are declared)' if what == 'DTD' else 'XML entities' if what == 'Entities' else 'an external reference'},"
            " which a Chummer save never does; refused (against entity-expansion attacks)", file=name) from None
    except ET.ParseError as exc:
        line, col = getattr(exc, "position", (None, None))
        where = f" at line {line}, column {col}" if line else ""
        msg = str(exc).split(":")[0] if str(exc) else "broken XML"
        raise ImportFileError(f"not readable XML{where}: {msg}", file=name) from None
    finally:
        if not done and root is not None:
            # Left before its end (a bound passed, broken XML): what was built goes now. The
            # parser (defusedxml's, Python's pure-Python XMLParser) and its expat parser refer
            # to each other until it is closed, so the elements its tree holds (500,000 of a
            # refused bomb, over 100 MB) waited for a full garbage collection, and the next file
            # was read on top of them (the fuzz campaign's workers: "memory from earlier cases").
            root.clear()
    if root is None:
        raise ImportFileError("not readable XML: the file is empty", file=name)
    return root


def read_chummer_xml(path: str | Path) -> ET.Element:
    """The ``<character>`` element of a ``.chum5`` or ``.chum5lz`` save; :class:`ImportFileError`
    (file, reason) when it is none."""
    name = str(Path(path))
    raw = read_user_file(path, error=ImportFileError, what="a Chummer save", max_bytes=MAX_FILE_BYTES)
    root = parse_xml(unpack(raw, name), name)
    if root.tag != "character":
        raise ImportFileError(
            f"not a Chummer character save: the XML root is <{root.tag[:40]}>, expected <character>",
            file=name, path=root.tag[:40],
        )
    return root
