"""Linear sum assignment in numba, for small matrices inside hot loops.

scipy's ``linear_sum_assignment`` is the right tool from Python; this one exists because the
search kernels need assignments thousands of times per second without leaving compiled code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["lsap_min", "lsape_multiset"]

_BIG = 1e15


@njit(cache=True, nogil=True)
def lsap_min(cost, n, u, v, p, way, minv, used, enough=np.inf, warm=False):
    """Minimum total of a perfect matching on the top-left ``n × n`` block of ``cost``.

    Shortest augmenting paths with potentials, O(n³). Work arrays (length ≥ n+1) are passed
    in so the hot loop allocates little. On return ``p[j]`` (1-based) is the row matched to
    column j, and ``u``, ``v`` (1-based) are optimal potentials: ``cost - u - v >= 0``,
    zero on the matching.

    ``enough``: stop as soon as the potentials prove the minimum at least that (their sum,
    a lower bound between augmentations, is returned then; matching and potentials are not
    optimal): a search that prunes at that value needs no more.

    ``warm``: start from the column potentials already in ``v[1..n]`` (any values: the row
    potentials are then made feasible against them) instead of zeros; the optimal duals of a
    neighbouring problem leave few rows to augment.
    """
    for i in range(n + 1):
        u[i] = 0.0
        if not warm:
            v[i] = 0.0
        p[i] = 0
        way[i] = 0
    v[0] = 0.0
    # start from each row's minimum as its potential and the row matched to the first free
    # column reaching it: the searches' matrices are full of ties, so most rows need no
    # augmenting path at all (4-5x faster on the branch bound's matrices). An augmenting path
    # never unmatches a row, so only the rows left over are augmented.
    todo = np.empty(n, dtype=np.int64)
    left = 0
    for i in range(1, n + 1):
        least = np.inf
        for j in range(1, n + 1):
            if cost[i - 1, j - 1] - v[j] < least:
                least = cost[i - 1, j - 1] - v[j]
        u[i] = least
        matched = False
        for j in range(1, n + 1):
            if p[j] == 0 and cost[i - 1, j - 1] - v[j] == least:
                p[j] = i
                matched = True
                break
        if not matched:
            todo[left] = i
            left += 1
    proven = 0.0
    for i in range(1, n + 1):
        proven += u[i] + v[i]
    for t in range(left):
        if proven >= enough:
            return proven
        i = todo[t]
        p[0] = i
        j0 = 0
        for j in range(n + 1):
            minv[j] = np.inf
            used[j] = False
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = np.inf
            j1 = 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = cost[i0 - 1, j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
        if enough < np.inf:
            proven = 0.0
            for j in range(1, n + 1):
                proven += u[j] + v[j]
    total = 0.0
    for j in range(1, n + 1):
        total += cost[p[j] - 1, j - 1]
    return total


@njit(cache=True, nogil=True)
def lsape_multiset(a, na, b, nb, mat, work, u, v, p, way, minv, used):
    """Cheapest way to turn label multiset ``a[:na]`` into ``b[:nb]`` by substitutions,
    deletions and insertions priced by ``mat`` (last row insertion, last column deletion).

    This is an assignment with ε on both sides, solved as a square problem of size na+nb.
    ``work`` must hold at least (na+nb)² entries.
    """
    k = mat.shape[0] - 1
    if na == 0:
        s = 0.0
        for j in range(nb):
            s += mat[k, b[j]]
        return s
    if nb == 0:
        s = 0.0
        for i in range(na):
            s += mat[a[i], k]
        return s
    n = na + nb
    c = work[: n * n].reshape((n, n))
    for i in range(na):
        for j in range(nb):
            c[i, j] = mat[a[i], b[j]]
        for j in range(na):
            c[i, nb + j] = mat[a[i], k] if i == j else _BIG
    for i in range(nb):
        for j in range(nb):
            c[na + i, j] = mat[k, b[j]] if i == j else _BIG
        for j in range(na):
            c[na + i, nb + j] = 0.0
    return lsap_min(c, n, u, v, p, way, minv, used)
