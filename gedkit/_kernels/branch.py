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

from typing import NamedTuple

import numpy as np
from numba import njit

from gedkit._kernels.cost_kernel import map_cost
from gedkit._kernels.lsap import lsap_min
from gedkit._kernels.multiset import count_cost, multiset_cost

__all__ = ["BranchWork", "branch_bound"]


class BranchWork(NamedTuple):
    """Work arrays of :func:`branch_bound`, allocated once per search, and what it writes."""

    mat: np.ndarray  # room for the q × q assignment costs
    subst: np.ndarray  # ... and for its substitution part
    bufa: np.ndarray  # edge labels of one row's node into the rest
    ehist: np.ndarray  # edge label histogram (zero between uses)
    ws: tuple  # multiset matching work arrays (``multiset.multiset_cost``)
    lw: tuple  # assignment work arrays (``lsap.lsap_min``)
    cw: tuple  # per column: image, edges to anchors, labels, label count, label histogram
    rw: tuple  # per row: its distinct rest-edge labels, their counts; its anchors' images, labels
    reduced: np.ndarray  # out: least extra cost of forcing u onto each column (ε last)
    forward: np.ndarray  # out: the assignment's complete node map (anchors set by the caller)
    duals: np.ndarray  # (depth, node of g2): column duals of the last state solved at a depth


@njit(cache=True, nogil=True)
def branch_bound(u, rows, p, cols, q, anc_a, anc_b, n_anc, in_rest1, used2, pair, work,
                 worth=np.inf, warm=False):
    """Bound of completing the state whose unassigned g1 nodes are ``rows[:p]`` (``rows[0]``
    = u) and unused g2 nodes ``cols[:q]`` (q ≥ p always holds: the search runs on the smaller
    graph); ``in_rest1``/``used2`` describe the same sets.

    With q ≥ p the assignment with ε shrinks to a q × q one: every column's insertion is paid
    up front, and row x on column y costs min(c(x, y) − c(ε, y), c(x, ε)) — the second term
    meaning "delete x, insert y" (enough columns are always free for that).

    ``pair`` is the search's :class:`~gedkit._kernels.bundles.GedPair`, ``work`` a
    :class:`BranchWork`. Writes ``work.reduced[j]``, a lower bound on the extra cost of
    forcing u → cols[j] (j < q) or u → ε (j = q), and the assignment's complete node map into
    ``work.forward`` (anchors must already be there). Returns (bound, cost of that node map);
    the assignment is solved, the map read and priced only while the bound is below ``worth``
    (the map costs at least the bound: a search whose incumbent or cutoff the bound already
    reaches prunes the state); at or above it the bound may be any value up to the true one
    that reaches ``worth``, with inf for the map's cost and ``reduced`` not written.

    Once solved, the assignment's column duals are kept in ``work.duals[n_anc]`` (by node of
    g2); ``warm`` starts the assignment from ``work.duals[n_anc - 1]``, which the caller knows
    to be the state's parent's: its matrix differs from this one only where the new anchor's
    edges are, so few rows need augmenting.
    """
    node_costs, adj1, adj2, emat, econst = (pair.node_costs, pair.adj1, pair.adj2, pair.emat,
                                            pair.econst)
    e1, el1, e2, el2 = pair.e1, pair.el1, pair.e2, pair.el2
    ptr1, nbr1, lab1, ptr2, nbr2, lab2 = (pair.ptr1, pair.nbr1, pair.lab1, pair.ptr2,
                                          pair.nbr2, pair.lab2)
    mat, subst, bufa, ehist, ws = work.mat, work.subst, work.bufa, work.ehist, work.ws
    lw, cw, reduced, forward, duals = work.lw, work.cw, work.reduced, work.forward, work.duals
    distinct, counts, anchor_at, anchor_label = work.rw
    n1 = adj1.shape[0]
    n2 = adj2.shape[0]
    K = emat.shape[0] - 1
    m = mat[: q * q].reshape((q, q))
    sub = subst[: q * q].reshape((q, q))
    image, ins_cross, ylab, ylen, ycnt = cw
    counting = econst[3] > 0
    for x in range(n1):
        image[x] = -2  # not assigned
    for t in range(n_anc):
        image[anc_a[t]] = anc_b[t]
    # columns: insertion (node, edges to anchors' images, half the edges into the rest)
    inserted = 0.0
    for j in range(q):
        y = cols[j]
        ins = 0.0
        cross = 0.0
        nb = 0
        for k in range(ptr2[y], ptr2[y + 1]):
            if used2[nbr2[k]]:
                cross += emat[K, lab2[k]]
            else:
                ins += emat[K, lab2[k]]
                ylab[j, nb] = lab2[k]
                nb += 1
        ylen[j] = nb
        if counting:
            for t in range(ycnt.shape[1]):
                ycnt[j, t] = 0
            for t in range(nb):
                ycnt[j, ylab[j, t]] += 1
        ins_cross[j] = cross
        reduced[j] = node_costs[n1, y] + cross + 0.5 * ins
        inserted += reduced[j]
        for i in range(p, q):
            m[i, j] = 0.0
    dele_u = 0.0
    for i in range(p):
        x = rows[i]
        # x's edges into the rest (their labels, and under label-equality costs the distinct
        # labels with their counts) and its edges to anchors (image, label): each cell below
        # reads only these
        na = 0
        nd = 0
        nanc = 0
        dele = 0.0
        cross_del = 0.0
        for k in range(ptr1[x], ptr1[x + 1]):
            w = nbr1[k]
            lab = lab1[k]
            if in_rest1[w]:
                bufa[na] = lab
                na += 1
                dele += emat[lab, K]
                if counting:
                    if ehist[lab] == 0:
                        distinct[nd] = lab
                        nd += 1
                    ehist[lab] += 1
            elif image[w] != -2:
                cross_del += emat[lab, K]
                if image[w] >= 0:
                    anchor_at[nanc] = image[w]
                    anchor_label[nanc] = lab
                    nanc += 1
        dele = node_costs[x, n2] + cross_del + 0.5 * dele
        if counting:
            for t in range(nd):
                counts[t] = ehist[distinct[t]]
                ehist[distinct[t]] = 0
        if i == 0:
            dele_u = dele
        for j in range(q):
            y = cols[j]
            if counting:
                # label-equality costs: the matching is a count of shared labels
                common = 0
                for t in range(nd):
                    common += min(counts[t], ycnt[j, distinct[t]])
                inner = count_cost(na, ylen[j], common, econst)
            else:
                inner = multiset_cost(bufa, na, ylab[j], ylen[j], False, econst[0], econst[1],
                                      econst[2], emat, ehist, ws)
            # edges to anchors: all deleted / inserted, except those that land on each other
            cross = cross_del + ins_cross[j]
            for t in range(nanc):
                l2 = adj2[y, anchor_at[t]]
                if l2 >= 0:
                    l1 = anchor_label[t]
                    cross += emat[l1, l2] - emat[l1, K] - emat[K, l2]
            c = node_costs[x, y] + cross + 0.5 * inner - reduced[j]
            sub[i, j] = c
            m[i, j] = min(c, dele)
    alpha, beta, match, way, minv, seen = lw
    if warm:
        for j in range(q):
            beta[j + 1] = duals[n_anc - 1, cols[j]]
    bound = inserted + lsap_min(m, q, alpha, beta, match, way, minv, seen, worth - inserted,
                                warm)
    if bound >= worth:  # (the assignment may have stopped there: its duals are not final)
        return bound, np.inf
    if n_anc < duals.shape[0]:
        for j in range(q):
            duals[n_anc, cols[j]] = beta[j + 1]
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
