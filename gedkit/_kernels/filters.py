"""Lower bounds on GED(query, graph) over a whole collection's signatures, rows a block at a
time.

Label-equality costs only (:mod:`gedkit.search.filters` explains the bounds and handles other
models). The size, label and branch formulas are plain functions, so the filters' numpy
fallback (used until the kernels are compiled) computes the same values on arrays; only the
kernels add the degree sequences' part of the edge bound.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gedkit._kernels.bundles import (
    BranchTable,
    QueryBatch,
    QueryCounts,
    Signatures,
    SizeIndex,
    WindowOut,
)
from gedkit._kernels.lsap import lsap_min
from gedkit._kernels.signatures import _sort
from gedkit._kernels.transport import max_savings, transport_work

_BIG = 1e15  # a forbidden cell of the assignment

__all__ = ["branch_bound", "class_bounds", "equality_bounds", "labelset_bounds", "pair_cost",
           "window_bounds"]


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


# Rows are bounded a block at a time, each part of the bound over the whole block in one
# call: the same arithmetic as a per-row helper taking the signature arrays, which numba
# books a reference count in and out for on every array at every row (about 400 ns a row on
# IAM Mutagenicity, against about 50 ns by blocks).
BLOCK = 256


@njit(cache=True, nogil=True)
def _overlaps(ptr, ids, counts, dense, rows, count, out):
    """``out[i]``: the multiset overlap of row ``rows[i]`` (``i < count``) with the query's
    ``dense`` counts (an id beyond ``dense`` is a label the query lacks)."""
    size = dense.shape[0]
    for i in range(count):
        r = rows[i]
        total = 0
        for e in range(ptr[r], ptr[r + 1]):
            k = ids[e]
            if k < size:
                q = dense[k]
                c = counts[e]
                total += c if c < q else q
        out[i] = total


@njit(cache=True, nogil=True)
def _degree_excesses(ptr, degrees, counts, query_at_least, rows, count, lost, gained):
    """Over the two degree sequences sorted and padded with zeros, paired in order: the
    query's degree in excess of row ``rows[i]``'s summed (``lost[i]``), and the row's in
    excess of the query's (``gained[i]``), as sums over t >= 1 of the differences in nodes
    of degree >= t (a row's degrees are its multiset entries, increasing). No pairing of
    the nodes has less of either, so an edit path deletes at least half the first in edges
    and inserts at least half the second."""
    for i in range(count):
        r = rows[i]
        start = ptr[r]
        e = ptr[r + 1] - 1
        top = query_at_least.shape[0] - 1
        if e >= start:
            top = max(top, degrees[e])
        mine = 0
        less = 0
        more = 0
        for t in range(top, 0, -1):
            while e >= start and degrees[e] >= t:
                mine += counts[e]
                e -= 1
            theirs = query_at_least[t] if t < query_at_least.shape[0] else 0
            if theirs > mine:
                less += theirs - mine
            else:
                more += mine - theirs
        lost[i] = less
        gained[i] = more


@njit(cache=True, nogil=True, inline="always")
def _edge_bound(qm, m, common, lost, gained, ins, dele, sub):
    """Cheapest edge edits given that at least ``ceil(lost / 2)`` edges are deleted and
    ``ceil(gained / 2)`` inserted (:func:`_degree_excesses`), that insertions minus deletions
    is ``m - qm``, and that at most ``common`` kept edges keep their label: over the number
    of deletions ``d`` (the rest follows: ``d + m - qm`` insertions, ``qm - d - common``
    substitutions at least), the cost grows with ``d`` (``sub`` is capped at ``ins + dele``),
    so the fewest deletions allowed is cheapest."""
    d = max(max(np.ceil(lost / 2), np.ceil(gained / 2) - (m - qm)), max(qm - m, 0))
    return dele * d + ins * (d + m - qm) + sub * max(qm - d - common, 0)


@njit(cache=True, nogil=True)
def _block_work():
    """Scratch for :func:`_block_bounds`: per row with a label bound its place and parts, the
    rows handed to each part's pass (eight integer arrays), then the block's label and branch
    bounds and the parts the branch bound reads (four float arrays)."""
    i, f = np.int64, np.float64
    return (np.empty(BLOCK, i), np.empty(BLOCK, i), np.empty(BLOCK, i), np.empty(BLOCK, i),
            np.empty(BLOCK, i), np.empty(BLOCK, i), np.empty(BLOCK, i), np.empty(BLOCK, i),
            np.empty(BLOCK, f), np.empty(BLOCK, f), np.empty(BLOCK, f), np.empty(BLOCK, f))


@njit(cache=True, nogil=True)
def _block_bounds(rows, first, last, sig, query, costs, branches, integral, limit, work):
    """The bounds of rows ``rows[first:last]`` (at most :data:`BLOCK` of them): their label
    bound in ``work[8][j - first]`` and (with ``branches``, else the label bound again) their
    branch bound in ``work[9][j - first]``. A row priced beyond ``limit`` by its sizes alone,
    or by its node labels and edge count, gets that weaker bound (still valid) for both,
    without the rest being read: most rows, under a small threshold.
    ``sig``, ``query``: :class:`~gedkit._kernels.bundles.Signatures` and
    :class:`~gedkit._kernels.bundles.QueryCounts`; ``costs`` = (node ins, del, capped sub,
    edge ins, del, capped sub); ``work`` from :func:`_block_work`."""
    n, m, nptr, nids, ncounts, eptr, eids, ecounts, bptr, bids, bcounts, dptr, dids, dcounts = (
        Signatures(*sig))
    qn, qm, qnodes, qedges, qbranches, qdegrees = QueryCounts(*query)
    picked, slot, node_ov, edge_ov, lost, gained, branch_rows, branch_of = work[:8]
    labels, both, nodes_of, edges_of = work[8:]
    cn = min(costs[0], min(costs[1], costs[2]))
    ce = min(costs[3], min(costs[4], costs[5]))
    count = 0
    for j in range(first, last):
        r = rows[j]
        sizes = (_pair_cost(qn, n[r], min(qn, n[r]), costs[0], costs[1], costs[2])
                 + _pair_cost(qm, m[r], min(qm, m[r]), costs[3], costs[4], costs[5]))
        labels[j - first] = sizes
        both[j - first] = sizes
        if sizes <= limit:
            picked[count] = r
            slot[count] = j - first
            count += 1
    # the node labels first: with the edge counts alone they price most rows beyond a
    # small limit, whose edges are then not read
    _overlaps(nptr, nids, ncounts, qnodes, picked, count, node_ov)
    kept = 0
    for i in range(count):
        r = picked[i]
        nodes = _pair_cost(qn, n[r], node_ov[i], costs[0], costs[1], costs[2])
        partial = nodes + _pair_cost(qm, m[r], min(qm, m[r]), costs[3], costs[4], costs[5])
        if partial > limit:
            labels[slot[i]] = partial
            both[slot[i]] = partial
            continue
        picked[kept], slot[kept], nodes_of[kept] = r, slot[i], nodes
        kept += 1
    count = kept
    _overlaps(eptr, eids, ecounts, qedges, picked, count, edge_ov)
    _degree_excesses(dptr, dids, dcounts, qdegrees, picked, count, lost, gained)
    to_branch = 0
    for i in range(count):
        r = picked[i]
        nodes = nodes_of[i]
        edges = _pair_cost(qm, m[r], edge_ov[i], costs[3], costs[4], costs[5])
        edges = max(edges, _edge_bound(qm, m[r], edge_ov[i], lost[i], gained[i], costs[3],
                                       costs[4], costs[5]))
        bound = nodes + edges
        labels[slot[i]] = bound
        both[slot[i]] = bound
        if branches and cn > 0 and ce > 0 and bound <= limit:
            # in place: entry to_branch <= i of nodes_of is read already
            nodes_of[to_branch], edges_of[to_branch] = nodes, edges
            branch_rows[to_branch] = r
            branch_of[to_branch] = slot[i]
            to_branch += 1
    _overlaps(bptr, bids, bcounts, qbranches, branch_rows, to_branch, node_ov)
    for b in range(to_branch):
        differing = max(qn, n[branch_rows[b]]) - node_ov[b]
        both[branch_of[b]] = _branch_bound(nodes_of[b], edges_of[b], differing, cn, ce)
    if integral:
        for i in range(count):
            labels[slot[i]] = np.ceil(labels[slot[i]] - 1e-9)
            both[slot[i]] = np.ceil(both[slot[i]] - 1e-9)


@njit(cache=True, nogil=True)
def equality_bounds(sig, query, costs, branches, integral, limit, rows, every, out):
    """``out[i]``: the bound of row ``rows[i]`` (of row ``i`` when ``every``): labels, and
    with ``branches`` the branch bound too (see :func:`_block_bounds`). ``sig`` and
    ``query``: plain tuples in the field order of :class:`~gedkit._kernels.bundles.Signatures`
    and :class:`~gedkit._kernels.bundles.QueryCounts`."""
    if every:
        rows = np.arange(sig[0].shape[0])
    work = _block_work()
    for first in range(0, rows.shape[0], BLOCK):
        last = min(rows.shape[0], first + BLOCK)
        _block_bounds(rows, first, last, sig, query, costs, branches, integral, limit, work)
        out[first:last] = work[9][:last - first]


@njit(cache=True, nogil=True, inline="always")
def _reach(limit, query, ins, dele, top):
    """The sizes ``lo..hi`` (clipped to ``0..top``) a graph may have for its size difference
    to ``query`` alone to cost at most ``limit`` (insertions ``ins``, deletions ``dele``)."""
    lo = 0 if dele <= 0 else max(0, query - int(np.floor(limit / dele + 1e-9)))
    hi = top if ins <= 0 else min(top, query + int(np.floor(limit / ins + 1e-9)))
    return lo, hi


@njit(cache=True, nogil=True, inline="always")
def _window(size, limit, qn, qm, costs, n_start, sorted_m):
    """The first and last position (in the size index) of the rows with ``size`` nodes whose
    edge count leaves their size difference to the query within ``limit``, or (0, 0)."""
    start, stop = n_start[size], n_start[size + 1]
    if start == stop:
        return 0, 0
    left = limit - _pair_cost(qn, size, min(qn, size), costs[0], costs[1], costs[2])
    if left < 0:
        return 0, 0
    m_lo, m_hi = _reach(left, qm, costs[3], costs[4], sorted_m[stop - 1])
    first = start + np.searchsorted(sorted_m[start:stop], m_lo)
    last = start + np.searchsorted(sorted_m[start:stop], m_hi, side="right")
    return first, last


@njit(cache=True, nogil=True, inline="always")
def _common_at_most(dense, r, query_top, query_other, n_r):
    """An upper bound on the node labels row ``r`` (``n_r`` nodes) shares with the query,
    from its counts of the collection's most frequent labels (``dense[r]``, 255 for 255 or
    more: then the query's count) and the query's (``query_top``), the other labels on
    either side counted as one."""
    seen = 0
    common = 0
    for t in range(dense.shape[1]):
        g = np.int64(dense[r, t])
        seen += g
        q = query_top[t]
        common += q if g >= 255 or g > q else g
    # (a count clipped at 255 makes the rest look larger: still an upper bound)
    return common + min(query_other, n_r - seen)


@njit(cache=True, nogil=True)
def _query_classes(records, at):
    """The branch classes of the query whose record (:func:`gedkit.search.signatures.record`)
    starts at ``records[at]``: per class its node label, its edges' labels (increasing, a
    row of a 2-D array, the first ``degree`` entries), its degree and how many nodes it
    has; returns ``(classes, labels, edges, degrees, counts)``."""
    n, m = records[at], records[at + 1]
    nodes, ends, labels = at + 2, at + 2 + n, at + 2 + n + 2 * m
    start = np.zeros(n + 1, dtype=np.int64)
    for e in range(2 * m):
        start[records[ends + e] + 1] += 1
    widest = 0
    for v in range(n):
        widest = max(widest, start[v + 1])
        start[v + 1] += start[v]
    fill = start[:n].copy()
    incident = np.empty(2 * m, dtype=np.int64)
    for e in range(m):
        for side in range(2):
            v = records[ends + 2 * e + side]
            incident[fill[v]] = records[labels + e]
            fill[v] += 1
    c_label = np.empty(n, dtype=np.int64)
    c_edges = np.empty((n, max(widest, 1)), dtype=np.int64)
    c_degree = np.empty(n, dtype=np.int64)
    c_count = np.zeros(n, dtype=np.float64)
    classes = 0
    for v in range(n):
        lo, hi = start[v], start[v + 1]
        _sort(incident, lo, hi)
        found = -1
        for k in range(classes):
            if c_label[k] == records[nodes + v] and c_degree[k] == hi - lo:
                same = True
                for t in range(hi - lo):
                    if c_edges[k, t] != incident[lo + t]:
                        same = False
                        break
                if same:
                    found = k
                    break
        if found < 0:
            found = classes
            classes += 1
            c_label[found], c_degree[found] = records[nodes + v], hi - lo
            for t in range(hi - lo):
                c_edges[found, t] = incident[lo + t]
        c_count[found] += 1.0
    return classes, c_label, c_edges, c_degree, c_count


@njit(cache=True, nogil=True, inline="always")
def _common(a, a_len, edges, lo, hi):
    """How many entries two increasing lists share: ``a[:a_len]`` and ``edges[lo:hi]``."""
    i, j, common = 0, lo, 0
    while i < a_len and j < hi:
        if a[i] == edges[j]:
            common += 1
            i += 1
            j += 1
        elif a[i] < edges[j]:
            i += 1
        else:
            j += 1
    return common


@njit(cache=True, nogil=True)
def _class_scratch(ordinals, classes, cols):
    """Scratch for :func:`_class_bound` on queries of up to ``classes`` branch classes and
    rows of up to ``cols``: the savings matrix, the row's class counts, the
    transportation's work, and per branch ordinal (``ordinals``) its column of savings
    against the query's classes with the query it was priced for."""
    return (np.empty((classes, cols)), np.empty(cols), transport_work(classes, cols),
            np.empty((ordinals, classes)), np.full(ordinals, -1, dtype=np.int64))


@njit(cache=True, nogil=True)
def _class_bound(query, stamp, r, bptr, bids, bcounts, table, costs, target, scratch):
    """BRANCH's lower bound on GED(query, row ``r``) under label-equality ``costs`` (as
    :func:`window_bounds` takes them): the cheapest assignment of the two graphs' nodes, ε
    included, each pair priced by its labels and half the cheapest edit of the labels of the
    edges at the two nodes (every edge edit is then counted at most once, half at either
    end). Nodes of one branch class are alike,
    so the assignment is a transportation between the classes
    (:mod:`gedkit._kernels.transport`), solved only as far as telling its bound from
    ``target``: returns a bound above ``target`` where the bound is, else 0.

    ``query``: :func:`_query_classes`, ``stamp`` a number no other query of the call has
    (its savings against a branch ordinal are priced once); ``table``:
    :class:`~gedkit._kernels.bundles.BranchTable`; ``scratch``: :func:`_class_scratch`,
    large enough."""
    classes, q_label, q_edges, q_degree, q_count = query
    label, ptr, edges = BranchTable(*table)
    s, b, work, priced, priced_for = scratch
    r_classes = bptr[r + 1] - bptr[r]
    # (the node substitution as it is: deletion and insertion are the assignment's options)
    n_ins, n_del, n_sub, e_ins, e_del, e_sub = (costs[0], costs[1], costs[6], costs[3],
                                                costs[4], costs[5])
    fixed = 0.0  # every node deleted and inserted
    for i in range(classes):
        fixed += q_count[i] * (n_del + 0.5 * e_del * q_degree[i])
    for j in range(r_classes):
        o = bids[bptr[r] + j]
        b[j] = bcounts[bptr[r] + j]
        lo, hi = ptr[o], ptr[o + 1]
        inserted = n_ins + 0.5 * e_ins * (hi - lo)
        fixed += b[j] * inserted
        if priced_for[o] != stamp:
            priced_for[o] = stamp
            for i in range(classes):
                d = q_degree[i]
                common = _common(q_edges[i], d, edges, lo, hi)
                pair = (n_sub if q_label[i] != label[o] else 0.0) + 0.5 * _pair_cost(
                    d, hi - lo, common, e_ins, e_del, e_sub)
                priced[o, i] = n_del + 0.5 * e_del * d + inserted - pair
        for i in range(classes):
            s[i, j] = priced[o, i]
    # the bound exceeds ``target`` exactly when the savings stay below fixed - target
    savings, upper = max_savings(classes, r_classes, q_count, b, s, fixed - target, work)
    return fixed - savings if upper and fixed - savings > target else 0.0


@njit(cache=True, nogil=True, inline="always")
def _beyond(limit, integral):
    """The value a BRANCH bound must exceed to put a graph beyond ``limit`` (a bound of
    integer costs rounds up; never a graph at the limit, whatever the rounding)."""
    target = np.floor(limit + 1e-9) if integral else limit
    return target + 1e-9 * max(1.0, abs(target))


@njit(cache=True, nogil=True)
def class_bounds(record, table, bptr, bids, bcounts, costs, integral, limit, rows, out):
    """``out[i]``: BRANCH's bound on GED(query, row ``rows[i]``) where it is beyond
    ``limit`` (rounded up for integer costs), else 0 (:func:`_class_bound`): a kNN scan's
    graphs, each as it is reached. ``record``: the query's
    (:func:`gedkit.search.signatures.record`); ``costs`` as :func:`window_bounds` takes
    them."""
    query = _query_classes(record, 0)
    widest = 1
    for i in range(rows.shape[0]):
        widest = max(widest, bptr[rows[i] + 1] - bptr[rows[i]])
    scratch = _class_scratch(table[0].shape[0], max(1, query[0]), widest)
    target = _beyond(limit, integral)
    for i in range(rows.shape[0]):
        bound = _class_bound(query, 0, rows[i], bptr, bids, bcounts, table, costs, target,
                             scratch)
        out[i] = np.ceil(bound - 1e-9) if integral else bound


@njit(cache=True, nogil=True)
def window_bounds(index, sig, batch, costs, integral, limit, first_query, out, frequent,
                  branches):
    """Range filtering for queries ``first_query..`` of ``batch`` at once: for each query
    ``q``, the rows whose bound is at most ``limit`` in ``out.rows[out.ptr[q']:out.ptr[q' +
    1]]`` (``q'`` = q - first_query) with their bounds in ``out.lb``, reading only the rows
    whose sizes allow it: the size index gives them as one block of edge counts per node
    count. ``out.counts[q']`` = rows in that window, within ``limit`` by labels, by branches
    too. Returns the first query not done: the next one's window might not fit in the space
    left.

    ``index``, ``sig``, ``batch``, ``out``: plain tuples in the field order of
    :class:`~gedkit._kernels.bundles.SizeIndex`, :class:`~gedkit._kernels.bundles.Signatures`,
    :class:`~gedkit._kernels.bundles.QueryBatch` (a query ordinal beyond ``dims`` is a label
    no graph has) and :class:`~gedkit._kernels.bundles.WindowOut`; ``costs``: as
    :func:`_block_bounds` takes them, then the node substitution uncapped; ``frequent``: the
    place of each node ordinal among the collection's most frequent and every row's counts of
    those (:meth:`gedkit.search.signatures.Signatures.top_nodes`), by which a row in the window
    whose node labels and sizes alone price it beyond ``limit`` is counted and left (most
    rows at a small threshold: ~5 ns a row, where its multisets cost ~20); ``branches``:
    the :class:`~gedkit._kernels.bundles.BranchTable` of the collection's branch ordinals,
    by which a row the other bounds leave gets BRANCH's bound (:func:`_class_bound`) too,
    counted with the branch stage (none where the table is empty)."""
    index = SizeIndex(*index)
    batch, out = QueryBatch(*batch), WindowOut(*out)
    order, sorted_m, n_start = index.order, index.sorted_m, index.n_start
    rank, dense = frequent
    n, m = sig[0], sig[1]
    query_top = np.zeros(dense.shape[1], dtype=np.int64)
    q_sizes, q_ptr, q_ids, q_counts, dims = (batch.sizes, batch.ptr, batch.ids, batch.counts,
                                             batch.dims)
    out_rows, out_lb, out_ptr, counts = out.rows, out.lb, out.ptr, out.counts
    queries = q_sizes.shape[0]
    tops = n_start.shape[0] - 2
    dense_q = (np.zeros(dims[0], dtype=np.int32), np.zeros(dims[1], dtype=np.int32),
               np.zeros(dims[2], dtype=np.int32))
    work = _block_work()
    labels, both = work[8], work[9]
    gathered = np.empty(BLOCK, dtype=np.int64)  # a query's rows in its windows
    records, record_ptr = batch.records, batch.record_ptr
    bptr, bids, bcounts = sig[8], sig[9], sig[10]
    by_classes = branches[0].shape[0] >= dims[2] and dims[2] > 0
    target = _beyond(limit, integral)
    widest, most = 1, 1  # the most branch classes of a row, of a query (its nodes at most)
    if by_classes:
        for r in range(n.shape[0]):
            widest = max(widest, bptr[r + 1] - bptr[r])
        for q in range(first_query, q_sizes.shape[0]):
            most = max(most, q_sizes[q, 0])
    scratch = _class_scratch(branches[0].shape[0] if by_classes else 0, most, widest)
    query_classes = _query_classes(np.zeros(2, dtype=records.dtype), 0)
    k = 0
    out_ptr[0] = 0
    for q in range(first_query, queries):
        qn, qm = q_sizes[q, 0], q_sizes[q, 1]
        n_lo, n_hi = _reach(limit, qn, costs[0], costs[1], tops)
        need = 0
        for size in range(n_lo, n_hi + 1):
            first, last = _window(size, limit, qn, qm, costs, n_start, sorted_m)
            need += last - first
        if k + need > out_rows.shape[0]:
            return q
        # the query's multisets as dense counts, and its nodes of degree >= t
        for kind in range(3):
            for e in range(q_ptr[q, kind], q_ptr[q, kind + 1]):
                if q_ids[e] < dims[kind]:
                    dense_q[kind][q_ids[e]] = q_counts[e]
        top = 0
        for e in range(q_ptr[q, 3], q_ptr[q, 4]):
            top = max(top, q_ids[e])
        at_least = np.zeros(top + 1, dtype=np.int64)
        for e in range(q_ptr[q, 3], q_ptr[q, 4]):
            at_least[q_ids[e]] += q_counts[e]
        for t in range(top - 1, -1, -1):
            at_least[t] += at_least[t + 1]
        query_top[:] = 0
        for e in range(q_ptr[q, 0], q_ptr[q, 1]):
            if q_ids[e] < rank.shape[0] and rank[q_ids[e]] >= 0:
                query_top[rank[q_ids[e]]] += q_counts[e]
        query_other = qn - query_top.sum()
        c = q - first_query
        query = (qn, qm, dense_q[0], dense_q[1], dense_q[2], at_least)
        # the rows of every size's window that the most frequent node labels leave, in one
        # list, bounded in full blocks: a window of a few rows per size (~10 at τ = 1) a
        # block each paid the block's set-up per row several times over
        if need > gathered.shape[0]:
            gathered = np.empty(max(need, 2 * gathered.shape[0]), dtype=np.int64)
        count = 0
        for size in range(n_lo, n_hi + 1):
            first, last = _window(size, limit, qn, qm, costs, n_start, sorted_m)
            counts[c, 0] += last - first
            for j in range(first, last):
                r = order[j]
                common = _common_at_most(dense, r, query_top, query_other, n[r])
                if (_pair_cost(qn, n[r], common, costs[0], costs[1], costs[2])
                        + _pair_cost(qm, m[r], min(qm, m[r]), costs[3], costs[4], costs[5])
                        > limit):
                    continue  # (its label bound is at least this)
                gathered[count] = r
                count += 1
        classes_made = False
        for start in range(0, count, BLOCK):
            stop = min(count, start + BLOCK)
            _block_bounds(gathered, start, stop, sig, query, costs, True, integral, limit,
                          work)
            for j in range(start, stop):
                if labels[j - start] <= limit:
                    counts[c, 1] += 1
                    if both[j - start] <= limit:
                        if by_classes:
                            if not classes_made:
                                query_classes = _query_classes(records, record_ptr[q])
                                classes_made = True
                            if _class_bound(query_classes, q, gathered[j], bptr, bids,
                                            bcounts, branches, costs, target, scratch) > 0:
                                continue
                        counts[c, 2] += 1
                        out_rows[k] = gathered[j]
                        out_lb[k] = both[j - start]
                        k += 1
        out_ptr[c + 1] = k
        for kind in range(3):
            for e in range(q_ptr[q, kind], q_ptr[q, kind + 1]):
                if q_ids[e] < dims[kind]:
                    dense_q[kind][q_ids[e]] = 0
    return queries


@njit(cache=True, nogil=True)
def labelset_bounds(q_labels, sub, delete, insert, ptr, ids, counts, rows, out):
    """``out[i]``: the cheapest edit of the query's label multiset into row ``rows[i]``'s,
    by substitutions, deletions and insertions (an assignment with ε on both sides): a lower
    bound on what that kind of element costs in any edit path, whatever the costs.

    ``q_labels`` lists the query's labels as positions into ``sub`` (query labels × vocabulary
    labels) and ``delete``; ``insert`` prices each vocabulary label's insertion; a row's
    multiset is ``ids``/``counts`` between ``ptr[r]`` and ``ptr[r + 1]``."""
    na = q_labels.shape[0]
    widest = 0
    for i in range(rows.shape[0]):
        r = rows[i]
        nb = 0
        for e in range(ptr[r], ptr[r + 1]):
            nb += counts[e]
        widest = max(widest, na + nb)
    c = np.empty((widest, widest))
    u, v, minv = np.empty(widest + 1), np.empty(widest + 1), np.empty(widest + 1)
    p, way = np.empty(widest + 1, dtype=np.int64), np.empty(widest + 1, dtype=np.int64)
    used = np.empty(widest + 1, dtype=np.bool_)
    graph = np.empty(max(widest, 1), dtype=np.int64)
    for i in range(rows.shape[0]):
        r = rows[i]
        nb = 0
        for e in range(ptr[r], ptr[r + 1]):
            for _ in range(counts[e]):
                graph[nb] = ids[e]
                nb += 1
        if na == 0 or nb == 0:
            total = 0.0
            for a in range(na):
                total += delete[q_labels[a]]
            for b in range(nb):
                total += insert[graph[b]]
            out[i] = total
            continue
        n = na + nb
        for a in range(na):
            for b in range(nb):
                c[a, b] = sub[q_labels[a], graph[b]]
            for b in range(na):
                c[a, nb + b] = delete[q_labels[a]] if a == b else _BIG
        for a in range(nb):
            for b in range(nb):
                c[na + a, b] = insert[graph[b]] if a == b else _BIG
            for b in range(na):
                c[na + a, nb + b] = 0.0
        out[i] = lsap_min(c, n, u, v, p, way, minv, used)
