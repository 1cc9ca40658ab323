"""Per-node-pair costs that LSAPE-based bounds and heuristics assign.

Every function fills an ``(n1+1) × (n2+1)`` matrix (last column: the node of g1 deleted, last
row: the node of g2 inserted) from CSR neighbour lists (see
:func:`gedkit._kernels.order.neighbour_lists`); the caller adds node costs and decides whether
edge terms count in full (an upper-bound heuristic) or half (a lower bound: every edge has two
ends).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gedkit._kernels.multiset import multiset_cost

__all__ = ["incident_edge_costs", "incident_edge_costs_fast", "star_costs"]


@njit(cache=True, nogil=True)
def _max_degree(ptr):
    d = 0
    for a in range(ptr.shape[0] - 1):
        d = max(d, ptr[a + 1] - ptr[a])
    return d


@njit(cache=True, nogil=True)
def _ends(ptr1, lab1, ptr2, lab2, emat, out):
    """Deleting a node deletes its edges, inserting one inserts its edges."""
    n1 = ptr1.shape[0] - 1
    n2 = ptr2.shape[0] - 1
    K = emat.shape[0] - 1
    for i in range(n1):
        s = 0.0
        for t in range(ptr1[i], ptr1[i + 1]):
            s += emat[lab1[t], K]
        out[i, n2] = s
    for k in range(n2):
        s = 0.0
        for t in range(ptr2[k], ptr2[k + 1]):
            s += emat[K, lab2[t]]
        out[n1, k] = s


@njit(cache=True, nogil=True)
def _common(a, a0, a1, b, b0, b1, hist):
    """Size of the intersection of multisets a[a0:a1] and b[b0:b1] (hist: zeros, restored)."""
    for t in range(a0, a1):
        hist[a[t]] += 1
    common = 0
    for u in range(b0, b1):
        if hist[b[u]] > 0:
            hist[b[u]] -= 1
            common += 1
    for t in range(a0, a1):
        hist[a[t]] = 0
    return common


@njit(cache=True, nogil=True)
def incident_edge_costs(ptr1, lab1, ptr2, lab2, emat, econst):
    """Cheapest edit of the labels of the edges at i into those at k, for every pair (i, k).

    An exact LSAPE between the two label multisets; with label-equality costs ``econst =
    (ins, del, capped sub, flag)`` (flag ≠ 0) it is a count.
    """
    n1 = ptr1.shape[0] - 1
    n2 = ptr2.shape[0] - 1
    out = np.zeros((n1 + 1, n2 + 1))
    _ends(ptr1, lab1, ptr2, lab2, emat, out)
    w = 2 * max(_max_degree(ptr1), _max_degree(ptr2)) + 2
    ws = (
        np.empty(w * w), np.empty(w), np.empty(w), np.empty(w, dtype=np.int64),
        np.empty(w, dtype=np.int64), np.empty(w), np.empty(w, dtype=np.bool_),
    )
    hist = np.zeros(emat.shape[0], dtype=np.int64)
    const = econst[3] != 0.0
    for i in range(n1):
        a = lab1[ptr1[i]:ptr1[i + 1]]
        for k in range(n2):
            b = lab2[ptr2[k]:ptr2[k + 1]]
            out[i, k] = multiset_cost(a, a.shape[0], b, b.shape[0], const, econst[0],
                                      econst[1], econst[2], emat, hist, ws)
    return out


@njit(cache=True, nogil=True)
def incident_edge_costs_fast(ptr1, lab1, ptr2, lab2, emat):
    """A cheaper lower bound on :func:`incident_edge_costs` (the BRANCH_FAST estimate).

    With ``d1 ≥ d2`` edges at the two ends (symmetrically otherwise), any edit deletes at least
    ``d1 - d2`` edges, each for at least the cheapest deletion among them, and at least
    ``d2 - I`` edges of the smaller side (``I`` = size of the label-multiset intersection) are
    either substituted by a different label or deleted and inserted, each for at least
    min(cheapest such substitution, cheapest deletion + cheapest insertion). Taking that
    minimum keeps the estimate valid even where a substitution costs more than the detour.
    """
    n1 = ptr1.shape[0] - 1
    n2 = ptr2.shape[0] - 1
    K = emat.shape[0] - 1
    out = np.zeros((n1 + 1, n2 + 1))
    _ends(ptr1, lab1, ptr2, lab2, emat, out)
    hist = np.zeros(emat.shape[0], dtype=np.int64)
    for i in range(n1):
        d1 = ptr1[i + 1] - ptr1[i]
        min_del = np.inf
        for t in range(ptr1[i], ptr1[i + 1]):
            min_del = min(min_del, emat[lab1[t], K])
        for k in range(n2):
            d2 = ptr2[k + 1] - ptr2[k]
            min_ins = np.inf
            for u in range(ptr2[k], ptr2[k + 1]):
                min_ins = min(min_ins, emat[K, lab2[u]])
            c = 0.0
            if d1 > d2:
                c += (d1 - d2) * min_del
            elif d2 > d1:
                c += (d2 - d1) * min_ins
            changed = min(d1, d2) - _common(lab1, ptr1[i], ptr1[i + 1], lab2, ptr2[k],
                                            ptr2[k + 1], hist)
            if changed > 0:
                min_sub = min_del + min_ins
                for t in range(ptr1[i], ptr1[i + 1]):
                    for u in range(ptr2[k], ptr2[k + 1]):
                        if lab1[t] != lab2[u]:
                            min_sub = min(min_sub, emat[lab1[t], lab2[u]])
                c += changed * min_sub
            out[i, k] = c
    return out


@njit(cache=True, nogil=True)
def star_costs(nl1, ptr1, leaf1, nl2, ptr2, leaf2, n_leaf_labels):
    """Star edit distances (Zeng et al., VLDB 2009) between the star of every node of g1 and
    of g2 under unit costs: root relabelling, plus the difference in leaf counts, plus the
    bag distance between the leaf multisets. ``leaf*`` hold one code per incident edge
    (edge label and neighbour label together); deleting or inserting a star of d leaves
    costs 1 + 2d.
    """
    n1 = ptr1.shape[0] - 1
    n2 = ptr2.shape[0] - 1
    out = np.zeros((n1 + 1, n2 + 1))
    hist = np.zeros(max(n_leaf_labels, 1), dtype=np.int64)
    for i in range(n1):
        out[i, n2] = 1 + 2 * (ptr1[i + 1] - ptr1[i])
    for k in range(n2):
        out[n1, k] = 1 + 2 * (ptr2[k + 1] - ptr2[k])
    for i in range(n1):
        d1 = ptr1[i + 1] - ptr1[i]
        for k in range(n2):
            d2 = ptr2[k + 1] - ptr2[k]
            common = _common(leaf1, ptr1[i], ptr1[i + 1], leaf2, ptr2[k], ptr2[k + 1], hist)
            root = 0.0 if nl1[i] == nl2[k] else 1.0
            out[i, k] = root + 2 * max(d1, d2) - min(d1, d2) - common
    return out
