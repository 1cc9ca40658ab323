"""Lower bounds on GED(query, graph) over a whole collection's signatures, one pass per graph.

Label-equality costs only (:mod:`gedkit.search.filters` explains the bounds and handles other
models). The formulas are plain functions, so the filters' numpy fallback (used until the
kernels are compiled) computes exactly the same values on arrays.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["branch_bound", "equality_bounds", "pair_cost"]


def pair_cost(n1, n2, common, ins, dele, sub):
    """Cheapest edits between two multisets of sizes ``n1``, ``n2`` sharing ``common``
    elements under label-equality costs (``sub`` already capped at ``ins + dele``): substitute
    as many as possible, the equal ones for free."""
    s = np.minimum(n1, n2)
    return sub * (s - common) + dele * (n1 - s) + ins * (n2 - s)


def branch_bound(nodes, edges, differing, cn, ce):
    """With ``differing`` nodes whose branch differs from its image's, each touched by a node
    edit (cost >= ``cn``, one node) or an edge edit (cost >= ``ce``, two nodes): the cheapest
    node and edge costs, each at least its label bound, that cover them all."""
    by_edges = nodes + np.maximum(edges, ce * (differing - nodes / cn) / 2)
    by_nodes = edges + np.maximum(nodes, cn * (differing - 2 * edges / ce))
    return np.maximum(nodes + edges, np.minimum(by_edges, by_nodes))


_pair_cost = njit(cache=True, nogil=True)(pair_cost)
_branch_bound = njit(cache=True, nogil=True)(branch_bound)


@njit(cache=True, nogil=True, inline="always")
def _overlap(ptr, ids, counts, dense, r):
    size = dense.shape[0]
    total = 0
    for e in range(ptr[r], ptr[r + 1]):
        k = ids[e]
        if k < size:
            q = dense[k]
            c = counts[e]
            total += c if c < q else q
    return total


@njit(cache=True, nogil=True, inline="always")
def _degree_distance(ptr, degrees, counts, query_at_least, r):
    """Sum of |a_i - b_i| over the two degree sequences sorted and padded with zeros, as
    the sum over t >= 1 of |#nodes of degree >= t| differences (row ``r``'s degrees are its
    multiset entries, increasing)."""
    start = ptr[r]
    e = ptr[r + 1] - 1
    top = query_at_least.shape[0] - 1
    if e >= start:
        top = max(top, degrees[e])
    mine = 0
    total = 0
    for t in range(top, 0, -1):
        while e >= start and degrees[e] >= t:
            mine += counts[e]
            e -= 1
        theirs = query_at_least[t] if t < query_at_least.shape[0] else 0
        total += abs(mine - theirs)
    return total


@njit(cache=True, nogil=True)
def equality_bounds(
    n, m, nptr, nids, ncounts, eptr, eids, ecounts, bptr, bids, bcounts, dptr, dids, dcounts,
    qn, qm, qnodes, qedges, qbranches, qdegrees, costs, branches, integral, limit, rows, every,
    out,
):
    """``out[i]``: the bound of row ``rows[i]`` (of row ``i`` when ``every``): labels, and
    with ``branches`` the branch bound too. ``costs`` = (node ins, del, capped sub, edge ins,
    del, capped sub); ``qdegrees[t]`` = the query's nodes of degree >= t. A row whose sizes
    alone price it beyond ``limit`` gets that (weaker, still valid) bound without its labels
    being read: most rows, under a small threshold."""
    count = n.shape[0] if every else rows.shape[0]
    cn = min(costs[0], min(costs[1], costs[2]))
    ce = min(costs[3], min(costs[4], costs[5]))
    ce_add = min(costs[3], costs[4])  # what an edge insertion or deletion costs at least
    for i in range(count):
        r = i if every else rows[i]
        sizes = (_pair_cost(qn, n[r], min(qn, n[r]), costs[0], costs[1], costs[2])
                 + _pair_cost(qm, m[r], min(qm, m[r]), costs[3], costs[4], costs[5]))
        if sizes > limit:
            out[i] = sizes
            continue
        nodes = _pair_cost(qn, n[r], _overlap(nptr, nids, ncounts, qnodes, r),
                           costs[0], costs[1], costs[2])
        edges = _pair_cost(qm, m[r], _overlap(eptr, eids, ecounts, qedges, r),
                           costs[3], costs[4], costs[5])
        edges = max(edges, ce_add * np.ceil(_degree_distance(dptr, dids, dcounts, qdegrees, r)
                                            / 2))
        lb = nodes + edges
        if branches and cn > 0 and ce > 0:
            differing = max(qn, n[r]) - _overlap(bptr, bids, bcounts, qbranches, r)
            lb = _branch_bound(nodes, edges, differing, cn, ce)
        if integral:
            lb = np.ceil(lb - 1e-9)
        out[i] = lb
