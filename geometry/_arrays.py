"""Small numpy helpers the geometry modules share (no shapes, no units)."""

from __future__ import annotations

import numpy as np


def ragged_arange(counts: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(c)`` for every c in ``counts`` (int64): each item's rank within
    its run when runs of these lengths are laid end to end. ``np.repeat(starts, counts) +
    ragged_arange(counts)`` are the indices of runs starting at ``starts``."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.cumsum(counts) - counts
    return np.arange(total, dtype=np.int64) - np.repeat(starts, counts)
