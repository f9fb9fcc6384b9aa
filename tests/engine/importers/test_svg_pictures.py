"""Issue 25 items 1 and 4 (engine side): SVG pictures are checked before anything draws
them (:func:`engine.importers.images.clean_svg`): reference bombs, entity bombs, cycles and
deep nesting are refused naming the bound; references outside the picture are left out."""

from __future__ import annotations

import pytest

from engine.importers.images import MAX_SVG_ELEMENTS, clean_svg, looks_like_svg, svg_size

NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def use_bomb(levels: int = 9, fan: int = 10) -> bytes:
    """Nested ``<use>``: ``fan ** levels`` rectangles in a few KB (the issue's 2.4 KB file)."""
    parts = [f'<svg {NS} width="64" height="64"><defs><rect id="a0" width="1" height="1"/>']
    for i in range(1, levels + 1):
        parts.append(f'<g id="a{i}">' + f'<use xlink:href="#a{i - 1}"/>' * fan + "</g>")
    parts.append(f'</defs><use xlink:href="#a{levels}"/></svg>')
    return "".join(parts).encode()


def test_a_use_bomb_is_refused_naming_the_bound():
    data = use_bomb()
    assert len(data) < 2600 and looks_like_svg(data)
    clean, why, _ = clean_svg(data)
    assert clean is None and f"{MAX_SVG_ELEMENTS:,}" in why and "<use>" in why


def test_url_references_count_too():
    defs = '<linearGradient id="g0"/>' + "".join(
        f'<g id="g{i}">' + f'<rect fill="url(#g{i - 1})"/>' * 10 + "</g>" for i in range(1, 7))
    data = f'<svg {NS}><defs>{defs}</defs><rect fill="url(#g6)"/></svg>'.encode()
    assert clean_svg(data)[1] is not None


def test_a_small_nested_use_is_drawn():
    clean, why, dropped = clean_svg(use_bomb(levels=3))
    assert why is None and dropped == [] and clean.startswith(b"<?xml")


@pytest.mark.parametrize("data, words", [
    (b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
     b'<svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>', "DTD"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></svg>',
     "cycle"),
    (b'<svg xmlns="http://www.w3.org/2000/svg">' + b"<g>" * 200 + b"</g>" * 200 + b"</svg>", "deep"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>', "not well-formed"),
    (b'<svg xmlns="http://www.w3.org/2000/svg">' + b"<rect/>" * (MAX_SVG_ELEMENTS + 1) + b"</svg>",
     f"{MAX_SVG_ELEMENTS:,}"),
])
def test_hostile_svgs_are_refused_with_the_reason(data, words):
    clean, why, _ = clean_svg(data)
    assert clean is None and words in why


def test_the_standard_doctype_is_fine():
    data = (b'<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
            b'"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg xmlns="http://www.w3.org/2000/svg" '
            b'width="10" height="20"><rect width="5" height="5"/></svg>')
    clean, why, _ = clean_svg(data)
    assert why is None and svg_size(clean) == (10.0, 20.0)


@pytest.mark.parametrize("ref", ["../x.png", "/etc/hostname", "file:///home/gm/secret.png", "http://example.com/a.png",
                                 "x.svg#frag"])
def test_references_outside_the_picture_are_left_out_and_said(ref):
    data = (f'<svg {NS} width="10" height="10"><image xlink:href="{ref}" width="10" height="10"/>'
            f'<use href="{ref}"/><rect style="fill:url({ref})"/></svg>').encode()
    clean, why, dropped = clean_svg(data)
    assert why is None and ref.encode() not in clean
    assert any(ref in d for d in dropped)


def test_an_embedded_png_stays_unless_it_is_too_big():
    import base64

    from tests.fuzz.mutate import png

    ok = base64.b64encode(png(4, 4)).decode()
    big = base64.b64encode(png(4, 4)[:16] + (100_000).to_bytes(4, "big") * 2 + png(4, 4)[24:]).decode()
    data = (f'<svg {NS}><image xlink:href="data:image/png;base64,{ok}"/>'
            f'<image href="data:image/png;base64,{big}"/></svg>').encode()
    clean, why, dropped = clean_svg(data)
    assert why is None and ok.encode() in clean and big.encode() not in clean
    assert len(dropped) == 1 and "megapixels" in dropped[0]


def test_filters_are_left_out():
    data = (f'<svg {NS}><filter id="f"><feGaussianBlur stdDeviation="500"/></filter>'
            f'<rect filter="url(#f)" style="filter:url(#f);fill:red"/></svg>').encode()
    clean, why, dropped = clean_svg(data)
    assert why is None and b"filter" not in clean and b"fill:red" in clean and dropped == ["a filter effect"]


def test_a_gzip_bomb_is_refused():
    import gzip

    data = gzip.compress(b'<svg xmlns="http://www.w3.org/2000/svg">' + b" " * (20 * 2 ** 20) + b"</svg>")
    assert looks_like_svg(data)
    assert "unpacks to more than" in clean_svg(data)[1]
