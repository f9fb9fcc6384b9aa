"""Qt's SVG made to look the same in every viewer (browsers, Inkscape, librsvg, ImageMagick).

``QSvgGenerator`` writes two things other renderers take differently from Qt's own:

* **Cosmetic pens** (a width in pixels whatever the zoom: grid lines, obstacle edges, zone
  outlines, drawn in map metres under a ``transform="matrix(20.5,0,0,20.5,...)"``) become
  ``vector-effect="non-scaling-stroke"``, which librsvg and older viewers ignore: a 1 px
  grid line is then drawn 20 px wide. Here each such stroke gets its width (and dash
  pattern) in the group's own units instead (the pixels divided by the group's scale), the
  same look with or without ``vector-effect``.
* **Pattern fills** (the GM's hatch of hidden obstacles) are tiled in the filled group's
  units: an 8 px hatch under that matrix came out 8 m wide. Each such group gets a copy of
  its pattern scaled back to pixels (``patternTransform``).
* **Font families**: Qt names its default font "Sans Serif", which no browser knows (most
  fall back to a serif face, and names overflow their pills). Here it becomes the face Qt
  measured the text with, then the CSS generic: ``"DejaVu Sans, sans-serif"``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
_MATRIX = re.compile(r"^\s*matrix\(([^)]*)\)\s*$")
_GENERIC = {"serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui"}


def _scale(transform: str | None) -> float | None:
    """The uniform scale of a ``matrix(a,0,0,d,e,f)`` transform with |a| = |d| (None for no
    transform, a rotation, a shear or unequal axes)."""
    if not transform:
        return None
    m = _MATRIX.match(transform)
    if m is None:
        return None
    try:
        a, b, c, d, _, _ = (float(v) for v in m.group(1).replace(" ", ",").split(",") if v)
    except ValueError:
        return None
    if b != 0.0 or c != 0.0 or a == 0.0 or abs(abs(a) - abs(d)) > 1e-9 * abs(a):
        return None
    return abs(a)


def _num(text: str) -> str:
    return f"{float(text):.6g}"


def _scaled_list(text: str, k: float) -> str:
    parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
    try:
        return ",".join(_num(str(float(p) / k)) for p in parts)
    except ValueError:
        return text


def real_font_family(family: str) -> str:
    """``family`` as a CSS list: the face Qt draws for it, then ``sans-serif``."""
    from PySide6.QtGui import QFont, QFontInfo

    names = [f.strip().strip("'\"") for f in family.split(",") if f.strip()]
    if not names or names[0].lower() in _GENERIC:
        return family
    real = QFontInfo(QFont(names[0])).family() or names[0]
    out = [real] + [n for n in names[1:] if n != real]
    if not any(n.lower() in _GENERIC for n in out):
        out.append("sans-serif")
    return ", ".join(out)


#: Characters XML 1.0 does not allow (C0 controls but tab, LF, CR), which Qt writes as given
#: from a token's name: the SVG would not parse.
_XML_INVALID = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def portable_svg(data: bytes) -> bytes:
    """``data`` (an SVG from ``QSvgGenerator``) with cosmetic strokes sized in their own
    units and font families a browser knows (see the module docstring). The picture Qt draws
    from it is unchanged."""
    ET.register_namespace("", SVG_NS)
    ET.register_namespace("xlink", XLINK_NS)
    root = ET.fromstring(_XML_INVALID.sub(b"", data))  # a name holding NUL or ESC (i15: fuzz 4019)
    fonts: dict[str, str] = {}
    for el in root.iter():
        family = el.get("font-family")
        if family is not None:
            if family not in fonts:
                fonts[family] = real_font_family(family)
            el.set("font-family", fonts[family])
    for g in root.iter(f"{{{SVG_NS}}}g"):
        k = _scale(g.get("transform"))
        if k is None or abs(k - 1.0) < 1e-12:
            continue
        width = g.get("stroke-width", "1")
        dash, offset = g.get("stroke-dasharray"), g.get("stroke-dashoffset")
        for child in g:
            if child.get("vector-effect") != "non-scaling-stroke":
                continue
            del child.attrib["vector-effect"]
            try:
                child.set("stroke-width", _num(str(float(width) / k)))
            except ValueError:
                continue
            if dash and dash != "none":
                child.set("stroke-dasharray", _scaled_list(dash, k))
            if offset:
                child.set("stroke-dashoffset", _scaled_list(offset, k))
    _pixel_patterns(root)
    body = ET.tostring(root, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + body + "\n").encode("utf-8")


_URL = re.compile(r"^\s*url\(#([^)]+)\)\s*$")


def _pixel_patterns(root: ET.Element) -> None:
    """Point each scaled group filled with a user-space pattern at a copy of it tiled in
    pixels (``patternTransform="scale(1/k)"``), made once per pattern and scale."""
    patterns = {el.get("id"): el for el in root.iter(f"{{{SVG_NS}}}pattern") if el.get("id")}
    if not patterns:
        return
    defs = root.find(f"{{{SVG_NS}}}defs")
    if defs is None:
        defs = ET.SubElement(root, f"{{{SVG_NS}}}defs")
    made: dict[tuple[str, str], str] = {}
    for g in root.iter(f"{{{SVG_NS}}}g"):
        m = _URL.match(g.get("fill", ""))
        k = _scale(g.get("transform"))
        if m is None or k is None or abs(k - 1.0) < 1e-12:
            continue
        pattern = patterns.get(m.group(1))
        if pattern is None or pattern.get("patternUnits", "objectBoundingBox") != "userSpaceOnUse" \
                or pattern.get("patternTransform"):
            continue
        key = (m.group(1), _num(str(k)))
        if key not in made:
            copy = ET.fromstring(ET.tostring(pattern))
            made[key] = f"{m.group(1)}-px{len(made)}"
            copy.set("id", made[key])
            copy.set("patternTransform", f"scale({_num(str(1.0 / k))})")
            defs.append(copy)
        g.set("fill", f"url(#{made[key]})")


__all__ = ["portable_svg", "real_font_family"]
