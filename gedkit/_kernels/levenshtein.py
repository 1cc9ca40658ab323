"""Levenshtein distances between many strings at once (the PROTEIN cost model's node costs)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["levenshtein_matrix"]


@njit(cache=True, nogil=True)
def levenshtein_matrix(chars, starts, needed):
    """Unit-cost edit distances between the strings ``chars[starts[i]:starts[i + 1]]``, for
    the pairs where ``needed`` (0 elsewhere)."""
    k = len(starts) - 1
    out = np.zeros((k, k))
    longest = 0
    for i in range(k):
        longest = max(longest, starts[i + 1] - starts[i])
    prev = np.empty(longest + 1)
    cur = np.empty(longest + 1)
    for i in range(k):
        s0, n = starts[i], starts[i + 1] - starts[i]
        for j in range(i + 1, k):
            if not (needed[i, j] or needed[j, i]):
                continue
            t0, m = starts[j], starts[j + 1] - starts[j]
            for y in range(m + 1):
                prev[y] = y
            for x in range(1, n + 1):
                cur[0] = x
                for y in range(1, m + 1):
                    change = 0.0 if chars[s0 + x - 1] == chars[t0 + y - 1] else 1.0
                    cur[y] = min(prev[y - 1] + change, prev[y] + 1, cur[y - 1] + 1)
                prev, cur = cur, prev
            out[i, j] = out[j, i] = prev[m]
    return out
