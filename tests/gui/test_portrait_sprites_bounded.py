"""A token's portrait sprite keeps the function that drew it (to replay it on an SVG or PDF
page), and that function holds the whole portrait (up to 1,024 px a side, 4 MiB): the sprite
cache's bound in bytes counts the picture it holds, once however many sprites share it. Only
its small pixmap counted, the fuzz campaign's picture worker (seed 2901, a new portrait a
case) kept every portrait alive, 502 -> 887 MB of address space in 3,600 cases, until Qt
said "QImage: out of memory"; a GM changing token pictures in a long session did the same."""

from PySide6.QtGui import QColor, QImage


def _picture(i: int) -> QImage:
    img = QImage(512, 512, QImage.Format.Format_ARGB32_Premultiplied)  # 1 MiB of pixels
    img.fill(QColor(i, 0, 0))
    return img


def test_portraits_held_by_sprites_count_toward_the_bound(qapp, monkeypatch):
    from gui.layers import paint, tokens

    cache = paint._SpriteCache()
    monkeypatch.setattr(cache, "LIMIT_BYTES", 8 * 1024 * 1024)
    monkeypatch.setattr(tokens, "SPRITES", cache)
    for i in range(20):  # 20 portraits of 1 MiB, each in a 20 px disc (a 44 x 44 sprite)
        tokens._portrait_sprite(_picture(i), QColor("#3070ff"), False, "", 20.0, 1.0, 1.0)
    # (each sprite: 44*44*4 bytes of pixmap + 1 MiB of picture held: 7 fit in 8 MiB, not 20)
    per = 44 * 44 * 4 + 512 * 512 * 4
    assert len(cache._cache) == 7
    assert cache.nbytes == 7 * per
    held = {d.__closure__[[c for c in d.__code__.co_freevars].index("image")].cell_contents.cacheKey()
            for d in (paint._DRAWS[pm.cacheKey()] for pm in cache._cache.values())}
    assert len(held) == 7


def test_one_portrait_shared_by_many_sprites_counts_once(qapp, monkeypatch):
    from gui.layers import paint, tokens

    cache = paint._SpriteCache()
    monkeypatch.setattr(cache, "LIMIT_BYTES", 8 * 1024 * 1024)
    monkeypatch.setattr(tokens, "SPRITES", cache)
    img = _picture(1)
    for r in range(10, 30):  # the same picture at 20 zooms: one picture held, 20 sprites
        tokens._portrait_sprite(img, QColor("#3070ff"), False, "", float(r), 1.0, 1.0)
    assert len(cache._cache) == 20
    assert cache.nbytes == sum((2 * r + 4) ** 2 * 4 for r in range(10, 30)) + 512 * 512 * 4
    cache.clear()  # (the last sprite holding it gone: its picture is no longer counted)
    assert cache.nbytes == 0 and not cache._held
