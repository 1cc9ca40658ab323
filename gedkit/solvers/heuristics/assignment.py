"""Node maps from a linear sum assignment with ε (LSAPE), solved by scipy."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = ["lsape_map"]

_BIG = 1e12


def lsape_map(costs: np.ndarray) -> np.ndarray:
    """Cheapest node map for an ``(n1+1) × (n2+1)`` matrix of per-node costs (last column
    deletion, last row insertion), as a forward map with -1 for deletion.

    >>> lsape_map(np.array([[5.0, 0.0, 9.0], [0.0, 5.0, 9.0], [1.0, 1.0, 0.0]])).tolist()
    [1, 0]
    """
    n1, n2 = costs.shape[0] - 1, costs.shape[1] - 1
    square = np.zeros((n1 + n2, n1 + n2))
    square[:n1, :n2] = costs[:n1, :n2]
    square[:n1, n2:] = _BIG
    square[np.arange(n1), n2 + np.arange(n1)] = costs[:n1, n2]
    square[n1:, :n2] = _BIG
    square[n1 + np.arange(n2), np.arange(n2)] = costs[n1, :n2]
    rows, cols = linear_sum_assignment(square)
    forward = np.full(n1, -1, dtype=np.int64)
    keep = (rows < n1) & (cols < n2)
    forward[rows[keep]] = cols[keep]
    return forward
