"""Where labels go on the map, in pixels: a greedy overlap-free placement of label blocks
that keeps clear of each other and of fixed rects (token discs, badges). No Qt: plain
numbers in, offsets out, so it is tested and reused without a screen."""

from __future__ import annotations

import math
from collections.abc import Sequence


def place_labels(blocks: Sequence[tuple[float, float, float, float, float]], gap: float = 2.0,
                 cell: float = 96.0, fixed: Sequence[tuple[float, float, float, float]] = (),
                 sides: bool = False) -> list[tuple[float, float]]:
    """Greedy overlap-free placement of label blocks, in pixels. Each block is
    ``(cx, cy, r, top, w, h)``: a token centre (cx, cy), its disc radius r, the block's
    default top ``top`` pixels below the centre (past the disc's rim) and its size
    ``w`` x ``h``, centred under the disc. Answers the (dx, dy) pixel offset of each block from its default place.

    Blocks are placed in order of y then x; the first keeps its place. A block that would
    overlap an already placed one (with ``gap`` pixels of air) tries, in turn: below the
    disc (the default), above it, each of those nudged sideways just clear of what it hit,
    and last stacked below what it hit. Placed blocks sit in a grid of ``cell`` pixel
    squares, so a block is only checked against its neighbours. ``fixed``: (left, top,
    right, bottom) pixel rects drawn by others (badges on a disc's rim) that blocks keep
    clear of as if placed first. ``sides``: before any sideways nudge, also try right
    then left of the disc, level with its centre (a name nudged clear of a neighbour's
    badge ended up nearer the neighbour than its own token: "Sam" beside Nyx's disc)."""
    n = len(blocks)
    out = [(0.0, 0.0)] * n
    grid: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def put(rect: tuple[float, float, float, float]) -> None:
        for gx in range(int(math.floor(rect[0] / cell)), int(math.floor(rect[2] / cell)) + 1):
            for gy in range(int(math.floor(rect[1] / cell)), int(math.floor(rect[3] / cell)) + 1):
                grid.setdefault((gx, gy), []).append(rect)

    for rect in fixed:
        put(tuple(rect))

    def hits(l: float, t: float, r: float, b: float) -> list[tuple[float, float, float, float]]:
        found = []
        for gx in range(int(math.floor(l / cell)), int(math.floor(r / cell)) + 1):
            for gy in range(int(math.floor(t / cell)), int(math.floor(b / cell)) + 1):
                for q in grid.get((gx, gy), ()):
                    if q[0] < r + gap and l < q[2] + gap and q[1] < b + gap and t < q[3] + gap and q not in found:
                        found.append(q)
        return found

    centres: dict[tuple[int, int], list[tuple[int, float, float]]] = {}
    if sides:
        for j, b in enumerate(blocks):
            centres.setdefault((int(math.floor(b[0] / cell)), int(math.floor(b[1] / cell))), []).append((j, b[0], b[1]))
    order = sorted(range(n), key=lambda i: (blocks[i][1], blocks[i][0]))
    for i in order:
        cx, cy, top, w, h = blocks[i]
        l0, t0 = cx - w / 2, cy + top
        above = cy - top - h  # mirror of the default: same air between disc and block
        place = (l0, t0)
        hit = hits(l0, t0, l0 + w, t0 + h)
        if hit:
            place = None
            tries = [t0, above]
            for t in tries:
                if not hits(l0, t, l0 + w, t + h):
                    place = (l0, t)
                    break
            if place is None and sides:
                place = _nearest_free(i, blocks, hits, gap, centres)
            if place is None:
                for t in tries:
                    shifts = []
                    for q in hits(l0, t, l0 + w, t + h):
                        shifts += [q[2] + gap - l0, q[0] - gap - w - l0]
                    for dx in sorted(shifts, key=abs):
                        if not hits(l0 + dx, t, l0 + dx + w, t + h):
                            place = (l0 + dx, t)
                            break
                    if place is not None:
                        break
            if place is None:  # stack under whatever it hits (bounded: every block and fixed rect)
                t = t0
                for _ in range(n + len(fixed) + 1):
                    hit = hits(l0, t, l0 + w, t + h)
                    if not hit:
                        break
                    t = max(q[3] for q in hit) + gap
                place = (l0, t)
        l, t = place
        put((l, t, l + w, t + h))
        out[i] = (l - l0, t - t0)
    return out


def _gap_to(l: float, t: float, w: float, h: float, x: float, y: float) -> float:
    """Pixels from point (x, y) to the rect (l, t, w, h) (0 inside)."""
    return math.hypot(max(l - x, 0.0, x - l - w), max(t - y, 0.0, y - t - h))


def _nearest_free(i, blocks, hits, gap, centres, cell: float = 96.0):
    """Where block ``i`` goes when its place below and above the disc are taken: of the
    free candidates (beside the disc, right then left, level with its centre or hanging
    from it; below or above nudged just clear of what they hit), the one nearest its own
    disc among those nearer its own disc than any other token's centre, else None."""
    cx, cy, top, w, h = blocks[i]
    l0, t0 = cx - w / 2, cy + top
    above = cy - top - h
    cands = [(cx + top, cy - h / 2), (cx - top - w, cy - h / 2), (cx + top, cy - 4.0), (cx - top - w, cy - 4.0)]
    for t in (t0, above):
        for q in hits(l0, t, l0 + w, t + h):
            cands += [(q[2] + gap, t), (q[0] - gap - w, t)]
    best, best_key = None, None
    for k, (l, t) in enumerate(cands):
        if hits(l, t, l + w, t + h):
            continue
        own = _gap_to(l, t, w, h, cx, cy)
        nearer_other = False
        gx, gy = int(math.floor(cx / cell)), int(math.floor(cy / cell))
        for ax in (gx - 1, gx, gx + 1):
            for ay in (gy - 1, gy, gy + 1):
                for j, x, y in centres.get((ax, ay), ()):
                    if j != i and _gap_to(l, t, w, h, x, y) < own:
                        nearer_other = True
                        break
                if nearer_other:
                    break
            if nearer_other:
                break
        key = (nearer_other, round(own, 3), k)
        if best_key is None or key < best_key:
            best, best_key = (l, t), key
    return best


def disc_rects(xs: Sequence[float], ys: Sequence[float], rs: Sequence[float],
               pad: float = 0.0) -> list[tuple[float, float, float, float]]:
    """The (left, top, right, bottom) pixel squares round discs of centres (xs, ys) and
    radii rs, ``pad`` pixels wider: what labels keep clear of so none hides a token."""
    return [(x - r - pad, y - r - pad, x + r + pad, y + r + pad) for x, y, r in zip(xs, ys, rs)]


def overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Whether two (left, top, right, bottom) rects share any area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
