"""Seeded mutations of parsed JSON, XML trees and image bytes.

Every function takes a :class:`random.Random`, so a case is reproduced from its seed alone.
JSON mutations work on the parsed value and return the file's *text*, because some faults
cannot be held in a Python dict (a duplicated key, nesting deeper than the encoder's
recursion, NaN) and are spliced into the text through placeholder strings.
"""

from __future__ import annotations

import copy
import json
import math
import random
import struct
import zlib
from functools import lru_cache
from typing import Any
from xml.etree import ElementTree as ET

_MARK = "\u0000FUZZ"  # placeholders: json.dumps writes them as "\\u0000FUZZ..."
_ESCAPED = json.dumps(_MARK)[1:-1]

HUGE_NUMBERS: tuple[Any, ...] = (1e308, -1e308, 1.7976931348623157e308, 1e300, 1e19, 2 ** 64, -2 ** 63,
                                 10 ** 400, 1e16, 123456789012.5)
TINY_NUMBERS: tuple[Any, ...] = (5e-324, 1e-300, 1e-12, 1e-7, 0, 0.0, -0.0)
NEGATIVE_NUMBERS: tuple[Any, ...] = (-1, -0.5, -5, -1e6, -1000.0)
NON_FINITE = ("NaN", "Infinity", "-Infinity")


def _nodes(value: Any, loc: tuple = ()) -> list[tuple[tuple, Any]]:
    """Every (path, value) of a parsed JSON value, depth-first (long strings included once)."""
    out = [(loc, value)]
    stack = [(loc, value)]
    while stack:
        at, v = stack.pop()
        items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
        for k, child in items:
            out.append((at + (k,), child))
            if isinstance(child, (dict, list)):
                stack.append((at + (k,), child))
    return out


def _set(root: Any, loc: tuple, value: Any) -> Any:
    if not loc:
        return value
    parent = root
    for k in loc[:-1]:
        parent = parent[k]
    parent[loc[-1]] = value
    return root


def _get(root: Any, loc: tuple) -> Any:
    for k in loc:
        root = root[k]
    return root


class JsonMutator:
    """Mutations of one parsed JSON document; :meth:`text` gives the mutated file text."""

    def __init__(self, data: Any, rng: random.Random):
        self.data = copy.deepcopy(data)
        self.rng = rng
        self.splices: dict[str, str] = {}
        self.applied: list[str] = []

    # -- helpers ---------------------------------------------------------------------------
    def _placeholder(self, text: str) -> str:
        key = f"{_MARK}{len(self.splices)}"
        self.splices[key] = text
        return key

    def _pick(self, want=None) -> tuple[tuple, Any] | None:
        nodes = _nodes(self.data)
        if want is not None:
            nodes = [n for n in nodes if want(n[1])]
        # weight toward the model's own fields: skip inside a background image string
        return self.rng.choice(nodes) if nodes else None

    def _pick_loc(self) -> tuple:
        picked = self._pick()
        return picked[0] if picked else ()

    # -- mutations -------------------------------------------------------------------------
    def flip_type(self) -> None:
        loc, v = self._pick() or ((), None)
        choices = [str(v)[:50], 0, -1, 1.5, None, True, False, [], {}, [v], {"v": v}, "text", ""]
        new = self.rng.choice(choices)
        self.data = _set(self.data, loc, new)
        self.applied.append(f"flip {loc} -> {type(new).__name__}")

    def drop(self) -> None:
        picked = self._pick(lambda v: isinstance(v, (dict, list)) and len(v) > 0)
        if picked is None:
            return
        loc, v = picked
        if isinstance(v, dict):
            k = self.rng.choice(list(v))
            del v[k]
        else:
            k = self.rng.randrange(len(v))
            del v[k]
        self.applied.append(f"drop {loc + (k,)}")

    def duplicate_key(self) -> None:
        picked = self._pick(lambda v: isinstance(v, dict) and len(v) > 0)
        if picked is None:
            return
        loc, v = picked
        k = self.rng.choice(list(v))
        other = self.rng.choice([v[k], None, "dup", 7, [], {"x": 1}])
        v[self._placeholder(json.dumps(k))] = other
        self.applied.append(f"duplicate key {loc + (k,)}")

    def duplicate_item(self) -> None:
        picked = self._pick(lambda v: isinstance(v, list) and len(v) > 0)
        if picked is None:
            return
        loc, v = picked
        item = v[self.rng.randrange(len(v))]
        n = self.rng.choice([1, 2, 10, 100, 1000, 6000])
        size = len(json.dumps(item, default=str))
        n = min(n, max(1, 50_000_000 // max(size, 1)))  # (a case of gigabytes tests the fuzzer, not Coverfire)
        unique = self.rng.random() < 0.5 and isinstance(item, dict) and "id" in item
        for i in range(n):
            c = copy.deepcopy(item)
            if unique:
                c["id"] = f"{c['id']}-fz{i}"
            v.append(c)
        self.applied.append(f"duplicate item of {loc} x{n}")

    def number(self) -> None:
        picked = self._pick(lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)) or self._pick()
        loc, _ = picked
        pool = self.rng.choice([HUGE_NUMBERS, TINY_NUMBERS, NEGATIVE_NUMBERS, NON_FINITE])
        new = self.rng.choice(pool)
        if isinstance(new, str):  # NaN / Infinity as JSON text
            new = self._placeholder(new)
        self.data = _set(self.data, loc, new)
        self.applied.append(f"number {loc} = {new if not isinstance(new, str) else self.splices[new]}")

    def long_string(self) -> None:
        picked = self._pick(lambda v: isinstance(v, str)) or self._pick()
        loc, _ = picked
        n = self.rng.choice([241, 300, 1001, 100_001, 1_000_000, 6_000_000])
        self.data = _set(self.data, loc, self.rng.choice("xé\u6f22") * n)
        self.applied.append(f"long string {loc} x{n}")

    def surrogate(self) -> None:
        picked = self._pick(lambda v: isinstance(v, str)) or self._pick()
        loc, v = picked
        s = self.rng.choice(["\ud83d", "\ude00", "ok \ud83d", "\udc00\ud800"])
        if self.rng.random() < 0.3 and isinstance(_get(self.data, loc[:-1]) if loc else None, dict):
            parent = _get(self.data, loc[:-1])  # a key holding it
            parent["k" + s] = 1
        else:
            self.data = _set(self.data, loc, (v if isinstance(v, str) else "") + s)
        self.applied.append(f"lone surrogate at {loc}")

    def deep(self) -> None:
        loc = self._pick_loc()
        n = self.rng.choice([50, 99, 100, 101, 500, 5000, 100_000])
        opener, closer = self.rng.choice([("[", "]"), ('{"a":', "}")])
        self.data = _set(self.data, loc, self._placeholder(opener * n + "1" + closer * n))
        self.applied.append(f"nest {loc} x{n}")

    def detailed_polygon(self, key: str = "polygon") -> None:
        picked = self._pick(lambda v: isinstance(v, dict) and isinstance(v.get(key), list))
        n = self.rng.choice([65, 1000, 10_000, 50_000, 100_001, 200_000])
        shape = self.rng.choice(["circle", "zigzag", "spikes"])
        cx, cy, r = self.rng.uniform(2, 30), self.rng.uniform(2, 30), self.rng.choice([0.5, 1.0, 5.0, 40.0])
        pts = []
        for i in range(n):
            a = 2 * math.pi * i / n
            rr = r if shape == "circle" else r * (1.0 if i % 2 else 0.6) if shape == "zigzag" else r * self.rng.uniform(0.5, 1)
            pts.append([round(cx + rr * math.cos(a), 6), round(cy + rr * math.sin(a), 6)])
        if picked is None:
            return
        loc, v = picked
        v[key] = pts
        self.applied.append(f"{shape} {key} of {n} points at {loc}")

    def unicode_junk(self) -> None:
        picked = self._pick(lambda v: isinstance(v, str)) or self._pick()
        loc, _ = picked
        new = self.rng.choice(["\u202e\u0000", "\ufeff", "<script>", "../../etc/passwd", "%s%n", "\U0001f600" * 50,
                               "a\nb\r\nc\t", "\x7f\x1b[31m"])
        self.data = _set(self.data, loc, new)
        self.applied.append(f"junk text at {loc}")

    OPS = ("flip_type", "drop", "duplicate_key", "duplicate_item", "number", "number", "long_string",
           "surrogate", "deep", "detailed_polygon", "unicode_junk", "flip_type", "drop")

    def mutate(self, n: int | None = None, ops: tuple[str, ...] | None = None) -> "JsonMutator":
        for _ in range(n if n is not None else self.rng.choice([1, 1, 1, 2, 3])):
            getattr(self, self.rng.choice(ops or self.OPS))()
        return self

    def text(self) -> str:
        """The mutated document as JSON text (placeholders spliced in)."""
        text = json.dumps(self.data, ensure_ascii=self.rng.random() < 0.5, allow_nan=True)
        for key, raw in self.splices.items():
            text = text.replace(json.dumps(key), raw)
        return text


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """Byte-level damage of a file: cut short, bytes flipped, a BOM, another encoding."""
    op = rng.choice(["truncate", "flip", "bom", "utf16", "nul", "none", "none", "none"])
    if op == "truncate" and data:
        return data[: rng.randrange(len(data))]
    if op == "flip" and data:
        b = bytearray(data)
        for _ in range(rng.choice([1, 3, 20])):
            i = rng.randrange(len(b))
            b[i] = rng.randrange(256)
        return bytes(b)
    if op == "bom":
        return b"\xef\xbb\xbf" + data
    if op == "utf16":
        try:
            return data.decode("utf-8").encode("utf-16")
        except UnicodeDecodeError:
            return data
    if op == "nul":
        return data + b"\x00" * rng.choice([1, 100])
    return data


# -- XML (Chummer saves) ---------------------------------------------------------------------
XML_VALUES = ("", "-1", "0", "1.5.2", "NaN", "Infinity", "-Infinity", "1e308", "99999999999999999999999",
              "1001", "-5", "abc", "\u202e", "x" * 100_000, "1,5", "  7  ", "0x10", "True")


def mutate_xml(root: ET.Element, rng: random.Random) -> tuple[bytes, list[str]]:
    """A mutated Chummer save (bytes) and what was done to it."""
    root = copy.deepcopy(root)
    applied: list[str] = []
    elements = list(root.iter())
    for _ in range(rng.choice([1, 1, 2, 3])):
        op = rng.choice(["text", "text", "text", "drop", "dup", "deep", "entity", "utf16", "late_entity", "rename"])
        el = rng.choice(elements)
        if op == "text":
            # numbers that matter more often than not
            named = [e for e in elements if e.tag in ("rangemultiply", "walk", "run", "sprint", "totalvalue", "base",
                                                        "rating", "damage", "ap", "accuracy", "rc", "ammo", "armor",
                                                        "value", "karma", "metatype", "name", "qty", "mode")]
            if named and rng.random() < 0.7:
                el = rng.choice(named)
            el.text = rng.choice(XML_VALUES)
            applied.append(f"text <{el.tag}> = {el.text[:20]!r}")
        elif op == "drop":
            parents = [p for p in elements if len(p)]
            p = rng.choice(parents)
            c = rng.choice(list(p))
            p.remove(c)
            applied.append(f"drop <{c.tag}>")
        elif op == "dup":
            parents = [p for p in elements if len(p)]
            p = rng.choice(parents)
            c = rng.choice(list(p))
            for _ in range(rng.choice([1, 10, 1000])):
                p.append(copy.deepcopy(c))
            applied.append(f"duplicate <{c.tag}>")
        elif op == "deep":
            n = rng.choice([100, 600, 5000])
            ET.SubElement(el, "fuzzdeep", n=str(n))  # spliced as text below (ET recurses)
            applied.append(f"nest {n} gear in <{el.tag}>")
        elif op == "rename":
            el.tag = rng.choice(["x", "weapon", "gear", "character"])
            applied.append("rename a tag")
        else:
            applied.append(op)
    body = ET.tostring(root, encoding="unicode")
    for n in (100, 600, 5000):
        body = body.replace(f'<fuzzdeep n="{n}" />', "<gear><children>" * n + "<name>deep</name>" + "</children></gear>" * n)
    applied_ops = " ".join(applied)
    if "late_entity" in applied_ops:
        body = ('<?xml version="1.0"?>' + "<!-- " + "p" * 70_000 + " -->"
                + '<!DOCTYPE character [<!ENTITY e "' + "lol" * 10 + '">]>' + body.replace("</name>", "&e;</name>", 1))
    elif "entity" in applied_ops:
        body = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">'
                '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;">]>' + body.replace("</name>", "&lol3;</name>", 1))
    raw = body.encode("utf-16") if "utf16" in applied_ops else body.encode("utf-8")
    return raw, applied


# -- images ----------------------------------------------------------------------------------
def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width: int, height: int, rows: bytes | None = None) -> bytes:
    """A grey PNG of ``width`` x ``height`` (or the given raw scanlines)."""
    if rows is None:
        rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + _png_chunk(b"IDAT", zlib.compress(rows)) + _png_chunk(b"IEND", b""))


@lru_cache(maxsize=None)
def _bomb(w: int) -> bytes:
    """A PNG of ``w`` x ``w`` grey pixels, all zero: a few hundred KB that decode to w² bytes
    (the rows after the first 4,000 are left out: a truncated bomb, made in a second)."""
    comp = zlib.compressobj(9)
    row = b"\x00" * (w + 1)
    data = b"".join(comp.compress(row) for _ in range(4_000)) + comp.flush()
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, w, 8, 0, 0, 0, 0))
            + _png_chunk(b"IDAT", data) + _png_chunk(b"IEND", b""))


def mutate_image(base: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A damaged or hostile image and what it is."""
    op = rng.choice(["bytes", "bytes", "bomb", "huge_header", "zero", "junk", "fine", "ihdr_crc", "jpeg_header"])
    if op == "bytes":
        return mutate_bytes(base, rng) if rng.random() < 0.5 else mutate_bytes(base, rng)[:rng.randrange(8, 200)], "damaged bytes"
    if op == "bomb":  # a small file that decodes to a huge bitmap
        w = rng.choice([20_000, 50_000, 65_535])
        return _bomb(w), f"bomb {w}x{w}"
    if op == "huge_header":
        w, h = rng.choice([(2 ** 31 - 1, 2 ** 31 - 1), (100_000, 100_000), (0, 10), (1, 2 ** 30)])
        return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + _png_chunk(b"IDAT", zlib.compress(b"\x00" * 100)) + _png_chunk(b"IEND", b"")), f"header {w}x{h}"
    if op == "zero":
        return b"", "empty"
    if op == "junk":
        return bytes(rng.randrange(256) for _ in range(rng.choice([10, 1000]))), "junk"
    if op == "ihdr_crc":
        b = bytearray(base)
        b[29] ^= 0xFF  # the IHDR CRC
        return bytes(b), "bad CRC"
    if op == "jpeg_header":
        w, h = rng.choice([(65_535, 65_535), (0, 0), (30_000, 30_000)])
        sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, h, w, 1) + b"\x01\x11\x00"
        return b"\xff\xd8" + sof + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00" + b"\x00" * 100 + b"\xff\xd9", f"jpeg {w}x{h}"
    return base, "fine"


# -- issue 25: pictures, tiny and huge maps, coercions, attributes, bombs under the caps ------
def red_png(width: int = 8, height: int = 8) -> bytes:
    """A pure red RGB PNG: the "secret" local picture no file from elsewhere may pull in."""
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + _png_chunk(b"IDAT", zlib.compress(rows)) + _png_chunk(b"IEND", b""))


def local_refs(secret: str, rng: random.Random) -> str:
    """A reference to the local file ``secret`` (an absolute path) as a hostile file would
    write it: ``../``, absolute, ``file://``, backslashes, ``./../``."""
    from pathlib import Path

    p = Path(secret)
    d, n = p.parent.name, p.name
    return rng.choice([f"../{d}/{n}", str(p), f"file://{p}", f"..\\{d}\\{n}", f"./../{d}/{n}", f"sub/../../{d}/{n}",
                       f"FILE://{p}", f"file://localhost{p}", f"%2E%2E/{d}/{n}", f"..%2F{d}%2F{n}", f"..%5C{d}%5C{n}",
                       # (relative to a folder above the input's: found by walking up)
                       f"{d}/{n}", f"/{d}/{n}", f"{d}%2F{n}", f"{d}\\{n}", f"C:\\{d}\\{n}",
                       str(p).replace("/", "\\"), f"~/{d}/{n}", f"{p}?v=1", f"{p}#x"])


_SVG_NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def svg_picture(rng: random.Random, secret: str | None = None) -> tuple[bytes, str]:
    """A hostile or harmless SVG picture and what it is: nested ``<use>`` and ``url(#)``
    bombs, entity bombs, reference cycles, deep nesting, a gzip bomb, ``<image href>`` to a
    local file (``secret``), huge declared sizes, and fine pictures (blue, never red)."""
    op = rng.choice(["use_bomb", "use_bomb", "url_bomb", "entity", "cycle", "deep", "gzip", "href_local",
                     "href_local", "huge_size", "fine", "fine_use"])
    if op in ("use_bomb", "fine_use"):
        levels = rng.choice([3, 4]) if op == "fine_use" else rng.choice([5, 6, 7, 9, 12])
        fan = rng.choice([5, 10])
        parts = [f'<svg {_SVG_NS} width="64" height="64"><defs><rect id="a0" width="1" height="1" fill="blue"/>']
        for i in range(1, levels + 1):
            parts.append(f'<g id="a{i}">' + f'<use xlink:href="#a{i - 1}"/>' * fan + "</g>")
        parts.append(f'</defs><use xlink:href="#a{levels}"/></svg>')
        return "".join(parts).encode(), f"svg {op} {fan}^{levels}"
    if op == "url_bomb":
        defs = '<linearGradient id="g0"/>' + "".join(
            f'<g id="g{i}">' + f'<rect fill="url(#g{i - 1})" width="1" height="1"/>' * 10 + "</g>" for i in range(1, 8))
        return f'<svg {_SVG_NS}><defs>{defs}</defs><rect fill="url(#g7)"/></svg>'.encode(), "svg url(#) bomb"
    if op == "entity":
        ents = '<!ENTITY l0 "lol">' + "".join(f'<!ENTITY l{i} "{("&l%d;" % (i - 1)) * 10}">' for i in range(1, 9))
        return (f'<?xml version="1.0"?><!DOCTYPE svg [{ents}]><svg {_SVG_NS}><text>&l8;</text></svg>').encode(), \
            "svg entity bomb"
    if op == "cycle":
        return (f'<svg {_SVG_NS}><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></svg>').encode(), \
            "svg reference cycle"
    if op == "deep":
        n = rng.choice([200, 5000])
        return (f'<svg {_SVG_NS}>' + "<g>" * n + "</g>" * n + "</svg>").encode(), f"svg nested {n}"
    if op == "gzip":
        import gzip

        return gzip.compress(f"<svg {_SVG_NS}>".encode() + b" " * (17 << 20) + b"</svg>", 1), "svgz gzip bomb"
    if op == "href_local" and secret:
        ref = local_refs(secret, rng)
        attr = rng.choice(["xlink:href", "href"])
        return (f'<svg {_SVG_NS} width="16" height="16"><rect width="16" height="16" fill="blue"/>'
                f'<image {attr}="{ref}" width="16" height="16"/>'
                f'<rect width="4" height="4" style="fill:url({ref})"/></svg>').encode(), f"svg <image {attr}={ref}>"
    if op == "huge_size":
        w, h = rng.choice([(1e6, 1e6), (100_000, 3), (1e-9, 1e-9), (40_000, 40_000)])
        return (f'<svg {_SVG_NS} width="{w}" height="{h}"><rect width="10" height="10" fill="blue"/></svg>').encode(), \
            f"svg {w}x{h}"
    return (f'<svg {_SVG_NS} width="32" height="24"><rect width="32" height="24" fill="blue"/></svg>').encode(), \
        "svg fine"


TINY_MAP = (1e-9, 1e-6, 1e-3, 0.01, 0.099, 0.1, 0.5)
HUGE_MAP = (99_999.0, 100_000.0, 100_001.0, 1e9)


def map_size(data: dict, rng: random.Random) -> str:
    """Make the map of an encounter (parsed JSON) tiny or huge, maybe with the biggest
    tokens on it; what was done."""
    m = data.setdefault("map", {})
    w = rng.choice(TINY_MAP + HUGE_MAP)
    h = w if rng.random() < 0.7 else rng.choice(TINY_MAP + HUGE_MAP)
    m["width"], m["height"] = w, h
    if w < 1 and rng.random() < 0.7:
        m["grid"] = 0.01
    what = f"map {w:g} x {h:g}"
    if rng.random() < 0.5:
        for t in data.get("tokens", []):
            t["radius"] = rng.choice([0.05, 0.4, 50])
            t["x"], t["y"] = w / 2, h / 2
        what += ", tokens moved onto it"
    return what


#: Values a lax model would coerce: bool -> these, number -> these, whole number -> these.
COERCE_BOOL = (1, 0, "true", "false", "yes", 1.0)
COERCE_NUMBER = ("10", "0.5", True, False, "1e3", " 7 ")
COERCE_INT = (5.0, True, False, "3", 2.0)


def coerce(data: Any, rng: random.Random, fields: dict[str, str]) -> list[tuple[tuple, Any, Any]]:
    """Replace one to three values of parsed JSON whose key is a known field (``fields``:
    key -> ``bool``, ``float`` or ``int``) by a value a lax model would coerce into that
    type; [(path, old value, new value)]."""
    nodes = [(loc, v) for loc, v in _nodes(data) if loc and isinstance(loc[-1], str) and loc[-1] in fields
             and not isinstance(v, (dict, list))]
    done = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        if not nodes:
            break
        loc, v = rng.choice(nodes)
        kind = fields[loc[-1]]
        new = rng.choice(COERCE_BOOL if kind == "bool" else COERCE_INT if kind == "int" else COERCE_NUMBER)
        _set(data, loc, new)
        done.append((loc, v, new))
    return done


def attribute_out_of_range(root: ET.Element, rng: random.Random) -> list[tuple[str, int]]:
    """Set one or two of a Chummer save's attribute ``totalvalue`` outside 0-50:
    [(abbreviation, value)]."""
    attrs = [a for a in root.findall("attributes/attribute")
             if a.findtext("name") in ("BOD", "AGI", "REA", "STR", "WIL", "LOG", "INT", "CHA", "EDG")
             and a.find("totalvalue") is not None]
    done = []
    for a in rng.sample(attrs, min(len(attrs), rng.choice([1, 2]))):
        v = rng.choice([-1, -5, 51, 60, 99, 1_000_000])
        a.find("totalvalue").text = str(v)
        done.append((a.findtext("name"), v))
    return done


def chummer_bomb(rng: random.Random, max_elements: int) -> tuple[bytes, str]:
    """A small ``.chum5lz`` whose XML unpacks under the size cap into many elements or
    attributes (past the parse bounds or just under them)."""
    import lzma

    n = rng.choice([max_elements + 1, 2 * max_elements, max_elements // 2])
    if rng.random() < 0.7:
        body, what = b"<gear/>" * n, f"{n:,} elements"
    else:
        attrs = b" ".join(b'a%d="1"' % i for i in range(1000))
        k = rng.choice([1100, 2000, 300])
        body, what = (b"<gear " + attrs + b"/>") * k, f"{k * 1000:,} attributes"
    xml = b'<?xml version="1.0" encoding="utf-8"?><character><name>Bomb</name>' + body + b"</character>"
    return lzma.compress(xml, format=lzma.FORMAT_ALONE, preset=1), f"chum5lz of {what}"


def values_bomb(text: str, rng: random.Random, max_items: int, key: str = "fuzz_other_tool") -> tuple[str, str]:
    """JSON object text with one more field holding a long list of pairs (just under or
    past ``max_items`` values), spliced as text: it costs the fuzzer no Python objects."""
    n = rng.choice([max_items // 3 + 10, max_items // 2, max_items // 4, max_items // 10])
    body = text.rstrip()
    assert body.endswith("}")
    pair = rng.choice(["[0,0]", "[1.5,-2.25]", "{}", "[]"])
    return body[:-1] + f', "{key}": [' + (pair + ",") * n + pair + "]}", f"{n:,} x {pair} under {key!r}"
