"""Exact verification of many candidate graphs against one query in one compiled call.

A similarity search verifies thousands of small pairs per query; building a
:class:`~gedkit.problem.Problem` and a search driver in Python for each costs several times the
search itself. This kernel builds each pair's arrays from flat records and runs the one
tree-search kernel (:func:`gedkit._kernels.tree_search.tree_search`) on it, with the threshold
as cutoff, for a bounded number of expansions; a pair it cannot finish within them is tried
again with a larger share, then goes back to the Python driver, which has the time limits and
the memory cap.

A graph record is an int32 array ``[n, m, node labels (n), edge ends (2m), edge labels (m)]``,
labels being the collection's vocabulary ordinals, so that label-matrix lookups use one global
node matrix and one global edge matrix.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gedkit import pacing
from gedkit._kernels.bundles import BatchSettings, QueryCosts, StateBuffers, Verdicts
from gedkit._kernels.order import edge_neighbour_lists, rarity_order, twin_classes
from gedkit._kernels.raw import part
from gedkit._kernels.tree_search import (
    STATUS_BUDGET,
    STATUS_DONE,
    STATUS_STOP,
    frontier_bound,
    tree_search,
)

__all__ = ["FINISHED", "GAVE_UP", "TOO_LARGE", "verify_many"]

FINISHED = 0  # bounds final: optimal within the cutoff, or proven beyond it
GAVE_UP = 1  # the expansion cap or the state capacity was reached
TOO_LARGE = 2  # not started: one expansion alone exceeds the pair's share


@njit(cache=True, nogil=True)
def _unpack(rec, o):
    # (arrays without references to the records, which outlive the call)
    n = np.int64(rec[o])
    m = np.int64(rec[o + 1])
    labels = part(rec, o + 2, n)
    ends = part(rec, o + 2 + n, 2 * m).reshape((m, 2))
    elabels = part(rec, o + 2 + n + 2 * m, m)
    return n, m, labels, ends, elabels


@njit(cache=True, nogil=True)
def _adjacency(n, ends, elabels):
    adj = np.full((n, n), -1, dtype=np.int32)
    for e in range(ends.shape[0]):
        adj[ends[e, 0], ends[e, 1]] = elabels[e]
        adj[ends[e, 1], ends[e, 0]] = elabels[e]
    return adj


@njit(cache=True, nogil=True)
def _node_costs(nmat, l1, l2):
    n1 = l1.shape[0]
    n2 = l2.shape[0]
    k = nmat.shape[0] - 1
    out = np.empty((n1 + 1, n2 + 1))
    for i in range(n1):
        for j in range(n2):
            out[i, j] = nmat[l1[i], l2[j]]
        out[i, n2] = nmat[l1[i], k]
    for j in range(n2):
        out[n1, j] = nmat[k, l2[j]]
    out[n1, n2] = 0.0
    return out


#: :func:`gedkit.pacing.expansion_ops`, compiled: the batch's estimate is the per-pair driver's
expansion_ops = njit(cache=True, nogil=True)(pacing.expansion_ops)
#: :func:`gedkit.pacing.set_up_ops`, compiled
set_up_ops = njit(cache=True, nogil=True)(pacing.set_up_ops)


@njit(cache=True, nogil=True)
def _identity_cost(node_costs, adj1, adj2, em, ed1, lab1, ed2, lab2):
    """The cost of the map taking node ``i`` of the smaller graph to node ``i`` of the other
    (the rest inserted): O(n + m), exact where a candidate is its query stored in the same
    order (a query drawn from the collection, a duplicate), which the search would otherwise
    prove level by level (~30 µs on a 31-atom molecule)."""
    n1 = adj1.shape[0]
    n2 = adj2.shape[0]
    k = em.shape[0] - 1
    cost = 0.0
    for i in range(n1):
        cost += node_costs[i, i]
    for j in range(n1, n2):
        cost += node_costs[n1, j]
    for e in range(ed1.shape[0]):
        w = adj2[ed1[e, 0], ed1[e, 1]]
        cost += em[lab1[e], k] if w < 0 else em[lab1[e], w]
    for e in range(ed2.shape[0]):
        a, b = ed2[e, 0], ed2[e, 1]
        if a >= n1 or b >= n1 or adj1[a, b] < 0:
            cost += em[k, lab2[e]]
    return cost


@njit(cache=True, nogil=True)
def verify_many(queries, query_at, records, offsets, first, last, costs, settings, buffers,
                out):
    """Verify the candidates ``first..last-1`` (records at ``offsets``), candidate ``c``
    against the query whose record starts at ``queries[query_at[c]]``, under ``costs`` (one
    cost model over one vocabulary, so many queries share a call): exact search pruned at
    ``settings.cutoff`` (and stopped at the first map within ``stop_at``), at most about
    ``max_ops`` simple operations each (:func:`set_up_ops`, then :func:`expansion_ops` per
    expansion: the kernel reads no clock; a pair one of whose expansions alone exceeds
    ``skip_ops`` is not started), in the frontier arrays of ``buffers`` (reused). Writes
    each candidate's bounds and FINISHED, GAVE_UP or TOO_LARGE into ``out``; returns the
    operations spent (by the same estimate), from which the caller learns the estimate's
    real pace. ``costs``, ``settings``, ``buffers`` and ``out`` are plain tuples in the
    field order of
    :class:`~gedkit._kernels.bundles.QueryCosts`,
    :class:`~gedkit._kernels.bundles.BatchSettings`,
    :class:`~gedkit._kernels.bundles.StateBuffers` and
    :class:`~gedkit._kernels.bundles.Verdicts`, named on entry (see
    :func:`~gedkit._kernels.tree_search.tree_search`)."""
    costs, settings = QueryCosts(*costs), BatchSettings(*settings)
    buffers, out = StateBuffers(*buffers), Verdicts(*out)
    nmat, nmat_t, emat, emat_t = costs.nmat, costs.nmat_t, costs.emat, costs.emat_t
    nconst, econst, nconst_t, econst_t = costs.nconst, costs.econst, costs.nconst_t, costs.econst_t
    counting, branch, integral, tol = (settings.counting, settings.branch, settings.integral,
                                       settings.tol)
    root_branch, depth_first = settings.root_branch, settings.depth_first
    cutoff, stop_at, max_ops = settings.cutoff, settings.stop_at, settings.max_ops
    skip_ops, chunk = settings.skip_ops, settings.chunk
    maps_buf, g, f, depth, heap, free = (buffers.maps, buffers.g, buffers.f, buffers.depth,
                                         buffers.heap, buffers.free)
    out_lower, out_upper, out_status = out.lower, out.upper, out.status
    cap = g.shape[0]
    ctl = np.zeros(6, dtype=np.int64)
    fctl = np.empty(3)
    total = 0.0
    for c in range(first, last):
        nq, _, lq, eq, elq = _unpack(queries, query_at[c])
        nc, _, lc, ec, elc = _unpack(records, offsets[c])
        # (the records read in place: nothing writes into them)
        swap = nq > nc
        if swap:
            nl1, ed1, lab1, nl2, ed2, lab2 = lc, ec, elc, lq, eq, elq
            nm, em, ncst, ecst = nmat_t, emat_t, nconst_t, econst_t
        else:
            nl1, ed1, lab1, nl2, ed2, lab2 = lq, eq, elq, lc, ec, elc
            nm, em, ncst, ecst = nmat, emat, nconst, econst
        n1 = nl1.shape[0]
        n2 = nl2.shape[0]
        per = expansion_ops(n1, n2, ed1.shape[0], ed2.shape[0], counting, branch)
        if n1 > 0 and per > skip_ops:
            # not one expansion fits this pair's share even at the estimate's best pace (large
            # graphs): the per-pair driver, which sizes its work to the time limit, takes it
            # without any work spent here
            out_lower[c] = 0.0
            out_upper[c] = np.inf
            out_status[c] = TOO_LARGE
            continue
        adj1 = _adjacency(n1, ed1, lab1)
        adj2 = _adjacency(n2, ed2, lab2)
        node_costs = _node_costs(nm, nl1, nl2)
        best_map = np.full(n1, -1, dtype=np.int64)
        if n1 == 0:
            cost = 0.0
            for j in range(n2):
                cost += node_costs[0, j]
            for e in range(ed2.shape[0]):
                cost += em[em.shape[0] - 1, lab2[e]]
            out_lower[c] = cost
            out_upper[c] = cost
            out_status[c] = FINISHED
            continue
        maps = maps_buf[:cap * n1].reshape((cap, n1))
        ptr1, nbr1, nlab1 = edge_neighbour_lists(n1, ed1, lab1)
        ptr2, nbr2, nlab2 = edge_neighbour_lists(n2, ed2, lab2)
        order = rarity_order(ptr1, nbr1, nlab1, nl1, nl2, nlab2)
        twins = twin_classes(adj2, nl2)
        g[0] = 0.0
        f[0] = 0.0
        depth[0] = 0
        heap[0] = 0
        ctl[:] = 0
        ctl[0] = 1  # HEAP
        ctl[1] = 1  # POOL
        # UB: the identity map's cost to start with (a duplicate ends at its root)
        fctl[0] = _identity_cost(node_costs, adj1, adj2, em, ed1, lab1, ed2, lab2)
        for x in range(n1):
            best_map[x] = x
        fctl[1] = 0.0  # LB
        fctl[2] = np.inf  # PRUNED
        set_up = set_up_ops(n1, n2)
        max_expansions = max(1, int((max_ops - set_up) / per))
        # GedPair and Frontier fields, as plain tuples (see tree_search)
        pair = (node_costs, adj1, adj2, em, nm, nl1, nl2, ncst, ecst,
                ed1, lab1, ed2, lab2, ptr1, nbr1, nlab1, ptr2, nbr2, nlab2, order, twins)
        frontier = (maps, g, f, depth, heap, free, ctl, fctl, best_map)
        reserve = max(n2 + 1, min((n1 + 1) * (n2 + 1), cap // 2))
        spent = 0
        status = -1
        while spent < max_expansions:
            before = ctl[3]
            # the root expanded with the assignment bound (root_branch): one assignment rules
            # out most candidates (70% of a range search's at τ = 5 on MOSES) that the
            # counting bound lets into a search, and it gives the root's children their
            # bounds by its duals
            root = spent == 0 and not branch and root_branch
            # the field types of bundles.search_settings: one specialisation for all callers
            step = (bool(depth_first), bool(counting), bool(branch or root), bool(integral),
                    int(reserve),
                    int(1 if root else min(chunk, max_expansions - spent)), float(cutoff),
                    float(stop_at), float(tol))  # SearchSettings fields
            status = tree_search(pair, frontier, step)
            spent += max(ctl[3] - before, 1)
            if status in (STATUS_DONE, STATUS_STOP):
                break
            if status != STATUS_BUDGET:  # the frontier is full: the Python driver grows it
                break
        total += set_up + spent * per
        out_status[c] = FINISHED if status in (STATUS_DONE, STATUS_STOP) else GAVE_UP
        out_lower[c] = frontier_bound(status, f, heap, ctl, fctl)
        out_upper[c] = fctl[0]
    return total
