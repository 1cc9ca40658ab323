"""The anchor-aware branch bound of one search state, with what its assignment also gives.

For a state with unassigned nodes U of g1 (the node about to be assigned first) and unused
nodes V of g2, every x ∈ U ∪ {ε} and y ∈ V ∪ {ε} get a branch cost: the node cost, the exact
cost of the edges between x and the already-assigned nodes (they are fixed once x → y), and half
the cheapest matching of the edges between x and the rest of U with those between y and the rest
of V (each such edge is seen from both ends). The assignment of least total branch cost bounds
the cost of completing the state from below.

One assignment per expanded state serves all its children: with the optimal duals (α, β), any
completion that maps u → v costs at least ``bound + c(u, v) − α_u − β_v``. The assignment itself
is a complete node map, i.e. an upper bound for free.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gedkit._kernels.cost import map_cost
from gedkit._kernels.lsap import lsap_min
from gedkit._kernels.multiset import multiset_cost

__all__ = ["branch_bound"]

@njit(cache=True, nogil=True)
def _cross(x, y, anc_a, anc_b, n_anc, adj1, adj2, emat):
    """Exact cost of the edges between x (or ε, x = -1) / y (or ε) and the anchors."""
    K = emat.shape[0] - 1
    c = 0.0
    for t in range(n_anc):
        b = anc_b[t]
        l1 = adj1[x, anc_a[t]] if x >= 0 else -1
        l2 = adj2[y, b] if (y >= 0 and b >= 0) else -1
        if l1 >= 0:
            c += emat[l1, l2] if l2 >= 0 else emat[l1, K]
        elif l2 >= 0:
            c += emat[K, l2]
    return c


@njit(cache=True, nogil=True)
def branch_bound(
    u, rows, p, cols, q, anc_a, anc_b, n_anc, in_rest1, used2,
    node_costs, adj1, adj2, emat, econst, e1, el1, e2, el2,
    ptr1, nbr1, lab1, ptr2, nbr2, lab2,
    mat, subst, bufa, bufb, ehist, ws, lw, reduced, forward,
):
    """Bound of completing the state whose unassigned g1 nodes are ``rows[:p]`` (``rows[0]``
    = u) and unused g2 nodes ``cols[:q]`` (q ≥ p always holds: the search runs on the smaller
    graph); ``in_rest1``/``used2`` describe the same sets.

    With q ≥ p the assignment with ε shrinks to a q × q one: every column's insertion is paid
    up front, and row x on column y costs min(c(x, y) − c(ε, y), c(x, ε)) — the second term
    meaning "delete x, insert y" (enough columns are always free for that).

    Writes ``reduced[j]``, a lower bound on the extra cost of forcing u → cols[j] (j < q) or
    u → ε (j = q), and the assignment's complete node map into ``forward`` (anchors must
    already be there). Returns (bound, cost of that node map).
    """
    n1 = adj1.shape[0]
    n2 = adj2.shape[0]
    K = emat.shape[0] - 1
    m = mat[: q * q].reshape((q, q))
    sub = subst[: q * q].reshape((q, q))
    inserted = 0.0
    for j in range(q):
        y = cols[j]
        ins = 0.0
        for k in range(ptr2[y], ptr2[y + 1]):
            if not used2[nbr2[k]]:
                ins += emat[K, lab2[k]]
        reduced[j] = (node_costs[n1, y] + _cross(-1, y, anc_a, anc_b, n_anc, adj1, adj2, emat)
                      + 0.5 * ins)
        inserted += reduced[j]
        for i in range(p, q):
            m[i, j] = 0.0
    dele_u = 0.0
    for i in range(p):
        x = rows[i]
        na = 0
        for k in range(ptr1[x], ptr1[x + 1]):
            if in_rest1[nbr1[k]]:
                bufa[na] = lab1[k]
                na += 1
        dele = 0.0
        for k in range(na):
            dele += emat[bufa[k], K]
        dele = (node_costs[x, n2] + _cross(x, -1, anc_a, anc_b, n_anc, adj1, adj2, emat)
                + 0.5 * dele)
        if i == 0:
            dele_u = dele
        for j in range(q):
            y = cols[j]
            nb = 0
            for k in range(ptr2[y], ptr2[y + 1]):
                if not used2[nbr2[k]]:
                    bufb[nb] = lab2[k]
                    nb += 1
            inner = multiset_cost(bufa, na, bufb, nb, econst[3], econst[0], econst[1],
                                  econst[2], emat, ehist, ws)
            c = (node_costs[x, y] + _cross(x, y, anc_a, anc_b, n_anc, adj1, adj2, emat)
                 + 0.5 * inner - reduced[j])
            sub[i, j] = c
            m[i, j] = min(c, dele)
    alpha, beta, match, way, minv, seen = lw
    bound = inserted + lsap_min(m, q, alpha, beta, match, way, minv, seen)
    # forcing u onto a column costs at least its reduced cost, plus what the min() hid
    best_del = np.inf
    for j in range(q):
        rc = max(0.0, m[0, j] - alpha[1] - beta[j + 1])
        best_del = min(best_del, rc + dele_u - m[0, j])
        reduced[j] = rc + sub[0, j] - m[0, j]
    reduced[q] = best_del
    # the assignment completes the state: read it as a node map
    for j in range(q):
        r = match[j + 1] - 1
        if r < p:
            forward[rows[r]] = cols[j] if sub[r, j] <= m[r, j] else -1
    return bound, map_cost(forward, node_costs, adj1, adj2, emat, e1, el1, e2, el2)
