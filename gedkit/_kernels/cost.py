"""The cost of a complete node map, as plain Python that numba compiles
(:mod:`gedkit._kernels.cost_kernel`). Called only through ``Problem.cost``, which runs this
source as it is until compiled kernels run in the process, so that no answer ever waits for
numba (or its import).
"""

from __future__ import annotations

import numpy as np

__all__ = ["INVALID", "map_cost"]

INVALID = -1.0


def map_cost(forward, node_costs, adj1, adj2, emat, e1, el1, e2, el2):
    """Cost of ``forward`` (-1 = deleted), or INVALID if it is not an injective map into g2."""
    n1 = adj1.shape[0]
    n2 = adj2.shape[0]
    K = emat.shape[0] - 1
    if forward.shape[0] != n1:
        return INVALID
    inv = np.full(n2, -1, dtype=np.int64)
    total = 0.0
    for i in range(n1):
        j = forward[i]
        if j < -1 or j >= n2:
            return INVALID
        if j < 0:
            total += node_costs[i, n2]
        else:
            if inv[j] >= 0:
                return INVALID
            inv[j] = i
            total += node_costs[i, j]
    for j in range(n2):
        if inv[j] < 0:
            total += node_costs[n1, j]
    for e in range(e1.shape[0]):
        a = forward[e1[e, 0]]
        b = forward[e1[e, 1]]
        if a >= 0 and b >= 0 and adj2[a, b] >= 0:
            total += emat[el1[e], adj2[a, b]]
        else:
            total += emat[el1[e], K]
    for e in range(e2.shape[0]):
        a = inv[e2[e, 0]]
        b = inv[e2[e, 1]]
        if a < 0 or b < 0 or adj1[a, b] < 0:
            total += emat[K, el2[e]]
    return total
