"""The exact tree-search kernel: best-first (A*) or depth-first branch and bound.

One kernel, parameterised by the frontier discipline. The search assigns the nodes of g1 in a
fixed order, each to an unused node of g2 or to deletion; whatever is left of g2 at the end is
inserted. A state stores its partial map; ``g`` is the exact cost of everything the partial map
decides, ``h`` an admissible estimate of the rest (:func:`remaining_bound`).

The kernel is resumable: all state lives in arrays owned by the caller, and each call runs at
most ``max_expansions`` expansions, so the Python driver can check the clock and memory between
calls without the kernel ever reading a clock.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from gedkit._kernels.branch import BranchWork, branch_bound
from gedkit._kernels.bundles import WARM_ENTRIES, Frontier, GedPair, SearchSettings
from gedkit._kernels.multiset import count_cost, multiset_cost
from gedkit._kernels.raw import alias, part

__all__ = ["STATUS_BUDGET", "STATUS_DONE", "STATUS_FULL", "STATUS_STOP", "frontier_bound",
           "tree_search"]

STATUS_DONE = 0  # frontier exhausted (or best f >= ub): ub is optimal
STATUS_BUDGET = 1  # max_expansions reached: call again
STATUS_FULL = 2  # no room for another expansion: grow the arrays or change discipline
STATUS_STOP = 3  # an upper bound <= stop_at was found

# ctl (int64) slots
HEAP, POOL, FREE, EXPANDED, GENERATED, PEAK = 0, 1, 2, 3, 4, 5
# fctl (float64) slots
UB, LB, PRUNED = 0, 1, 2


class _Counts(NamedTuple):
    """Work arrays of the counting bound (:func:`_children_counting`), one set per call."""

    node_a: np.ndarray  # node label counts of g1's rest
    node_b: np.ndarray  # ... of g2's unused nodes
    inner_a: np.ndarray  # edge label counts inside g1's rest
    inner_b: np.ndarray  # ... inside g2's unused nodes
    anc_a_cnt: np.ndarray  # (anchor, edge label) counts of edges into g1's rest
    anc_b_cnt: np.ndarray  # ... into g2's unused nodes
    anc_p: np.ndarray  # per anchor: edges on the g1 side
    anc_q: np.ndarray  # ... on the g2 side
    anc_c: np.ndarray  # ... that can match
    anc_cost: np.ndarray  # ... their cheapest cost
    anchor_of: np.ndarray  # per node of g2: its anchor, -1 none
    u_cnt: np.ndarray  # edge label counts from the node being assigned into g1's rest
    v_cnt: np.ndarray  # ... from a candidate image into g2's unused nodes


@njit(cache=True, nogil=True)
def remaining_bound(in_rest1, used2, anc_a, anc_b, n_anc, pair, bufa, bufb, nhist, ehist, ws):
    """Lower bound on the cost of completing a partial map.

    Three independent parts, each an exact multiset matching, so their sum is admissible:
    labels of the unassigned nodes of g1 vs the unused nodes of g2; labels of the edges inside
    those two node sets; and for every assigned node a → b, the edges from a into the
    unassigned part of g1 vs the edges from b into the unused part of g2 (an edge (a, x) can
    only land on an edge (b, y)). With nothing left in g1 the bound is the exact remaining cost.
    """
    nl1, nl2, nmat, nconst = pair.nl1, pair.nl2, pair.nmat, pair.nconst
    e1, el1, e2, el2 = pair.e1, pair.el1, pair.e2, pair.el2
    ptr1, nbr1, lab1, ptr2, nbr2, lab2 = (pair.ptr1, pair.nbr1, pair.lab1, pair.ptr2,
                                          pair.nbr2, pair.lab2)
    emat, econst = pair.emat, pair.econst
    n1 = nl1.shape[0]
    n2 = nl2.shape[0]
    # nodes
    na = 0
    for x in range(n1):
        if in_rest1[x]:
            bufa[na] = nl1[x]
            na += 1
    nb = 0
    for y in range(n2):
        if not used2[y]:
            bufb[nb] = nl2[y]
            nb += 1
    h = multiset_cost(bufa, na, bufb, nb, nconst[3], nconst[0], nconst[1], nconst[2],
                       nmat, nhist, ws)
    # edges inside the unassigned / unused parts
    na = 0
    for e in range(e1.shape[0]):
        if in_rest1[e1[e, 0]] and in_rest1[e1[e, 1]]:
            bufa[na] = el1[e]
            na += 1
    nb = 0
    for e in range(e2.shape[0]):
        if not used2[e2[e, 0]] and not used2[e2[e, 1]]:
            bufb[nb] = el2[e]
            nb += 1
    h += multiset_cost(bufa, na, bufb, nb, econst[3], econst[0], econst[1], econst[2],
                        emat, ehist, ws)
    # edges from each assigned node into the rest
    for t in range(n_anc):
        a = anc_a[t]
        b = anc_b[t]
        na = 0
        for k in range(ptr1[a], ptr1[a + 1]):
            if in_rest1[nbr1[k]]:
                bufa[na] = lab1[k]
                na += 1
        nb = 0
        if b >= 0:
            for k in range(ptr2[b], ptr2[b + 1]):
                if not used2[nbr2[k]]:
                    bufb[nb] = lab2[k]
                    nb += 1
        if na + nb > 0:
            h += multiset_cost(bufa, na, bufb, nb, econst[3], econst[0], econst[1],
                                econst[2], emat, ehist, ws)
    return h


# inlined, as _children_counting below: called per child and per expansion, a separate
# compiled function booked a reference count in and out on every array it was handed (13% of
# a range search's verification time in NRT_incref/decref, by perf); inlined, 15-40% less
# time per candidate on the peer benchmark's IAM AIDS candidates at τ = 3
@njit(cache=True, nogil=True, inline="always")
def _assign_delta(u, v, anc_a, anc_b, n_anc, node_costs, adj1, adj2, emat):
    """Exact cost added by mapping u → v (v = -1: delete) given the anchors so far."""
    n2 = adj2.shape[0]
    K = emat.shape[0] - 1
    d = node_costs[u, v] if v >= 0 else node_costs[u, n2]
    for t in range(n_anc):
        a = anc_a[t]
        b = anc_b[t]
        l1 = adj1[u, a]
        if v >= 0 and b >= 0:
            l2 = adj2[v, b]
            if l1 >= 0:
                d += emat[l1, l2] if l2 >= 0 else emat[l1, K]
            elif l2 >= 0:
                d += emat[K, l2]
        elif l1 >= 0:
            d += emat[l1, K]
    return d


@njit(cache=True, nogil=True, inline="always")
def _children_counting(k, u, maps_row, used2, in_rest1, pair, counts, cand, child_h):
    """:func:`remaining_bound` for every child of one state at once, label-equality costs.

    The three multiset parts are counted once for the parent; a child u → v only removes v
    (its label, its edges) from the g2 side, so each child costs O(deg v) instead of O(n + m).
    Returns the number of candidates written to ``cand``/``child_h`` (v = -1: deletion).
    """
    order, nl1, nl2, nconst, econst = pair.order, pair.nl1, pair.nl2, pair.nconst, pair.econst
    e1, el1, e2, el2 = pair.e1, pair.el1, pair.e2, pair.el2
    ptr1, nbr1, lab1, ptr2, nbr2, lab2 = (pair.ptr1, pair.nbr1, pair.lab1, pair.ptr2,
                                          pair.nbr2, pair.lab2)
    node_a, node_b, inner_a, inner_b = counts.node_a, counts.node_b, counts.inner_a, counts.inner_b
    anc_a_cnt, anc_b_cnt = counts.anc_a_cnt, counts.anc_b_cnt
    anc_p, anc_q, anc_c, anc_cost = counts.anc_p, counts.anc_q, counts.anc_c, counts.anc_cost
    anchor_of, u_cnt, v_cnt = counts.anchor_of, counts.u_cnt, counts.v_cnt
    n1 = nl1.shape[0]
    n2 = nl2.shape[0]
    # nodes
    node_a[:] = 0
    node_b[:] = 0
    pn = n1 - k - 1
    for t in range(k + 1, n1):
        node_a[nl1[order[t]]] += 1
    qn = 0
    for y in range(n2):
        if not used2[y]:
            node_b[nl2[y]] += 1
            qn += 1
    cn = 0
    for lab in range(node_a.shape[0]):
        cn += min(node_a[lab], node_b[lab])
    # edges inside the rest
    inner_a[:] = 0
    inner_b[:] = 0
    pi = 0
    for e in range(e1.shape[0]):
        if in_rest1[e1[e, 0]] and in_rest1[e1[e, 1]]:
            inner_a[el1[e]] += 1
            pi += 1
    qi = 0
    for e in range(e2.shape[0]):
        if not used2[e2[e, 0]] and not used2[e2[e, 1]]:
            inner_b[el2[e]] += 1
            qi += 1
    ci = 0
    for lab in range(inner_a.shape[0]):
        ci += min(inner_a[lab], inner_b[lab])
    # edges from the parent's anchors into the rest
    base = 0.0
    for t in range(k):
        a = order[t]
        b = maps_row[t]
        anc_a_cnt[t, :] = 0
        anc_b_cnt[t, :] = 0
        p = 0
        for j in range(ptr1[a], ptr1[a + 1]):
            if in_rest1[nbr1[j]]:
                anc_a_cnt[t, lab1[j]] += 1
                p += 1
        q = 0
        if b >= 0:
            anchor_of[b] = t
            for j in range(ptr2[b], ptr2[b + 1]):
                if not used2[nbr2[j]]:
                    anc_b_cnt[t, lab2[j]] += 1
                    q += 1
        c = 0
        for lab in range(anc_a_cnt.shape[1]):
            c += min(anc_a_cnt[t, lab], anc_b_cnt[t, lab])
        anc_p[t] = p
        anc_q[t] = q
        anc_c[t] = c
        anc_cost[t] = count_cost(p, q, c, econst)
        base += anc_cost[t]
    # edges from u into the rest: the new anchor's g1 side
    u_cnt[:] = 0
    pu = 0
    for j in range(ptr1[u], ptr1[u + 1]):
        if in_rest1[nbr1[j]]:
            u_cnt[lab1[j]] += 1
            pu += 1

    n_cand = 0
    cand[n_cand] = -1
    child_h[n_cand] = (
        count_cost(pn, qn, cn, nconst) + count_cost(pi, qi, ci, econst) + base
        + pu * econst[1]
    )
    n_cand += 1
    for v in range(n2):
        if used2[v]:
            continue
        lv = nl2[v]
        h = count_cost(pn, qn - 1, cn - (1 if node_b[lv] <= node_a[lv] else 0), nconst)
        q_in = qi
        c_in = ci
        q_u = 0
        c_u = 0
        anchors = 0.0
        for j in range(ptr2[v], ptr2[v + 1]):
            w = nbr2[j]
            lab = lab2[j]
            if not used2[w]:
                # edge (v, w) leaves the inner part and joins the new anchor's g2 side
                if inner_b[lab] <= inner_a[lab]:
                    c_in -= 1
                inner_b[lab] -= 1
                q_in -= 1
                v_cnt[lab] += 1
                q_u += 1
            else:
                t = anchor_of[w]
                if t >= 0:
                    c = anc_c[t] - (1 if anc_b_cnt[t, lab] <= anc_a_cnt[t, lab] else 0)
                    anchors += count_cost(anc_p[t], anc_q[t] - 1, c, econst) - anc_cost[t]
        for j in range(ptr2[v], ptr2[v + 1]):
            if not used2[nbr2[j]]:
                lab = lab2[j]
                inner_b[lab] += 1
                if v_cnt[lab] > 0:
                    c_u += min(u_cnt[lab], v_cnt[lab])
                    v_cnt[lab] = 0
        h += count_cost(pi, q_in, c_in, econst) + base + anchors
        h += count_cost(pu, q_u, c_u, econst)
        cand[n_cand] = v
        child_h[n_cand] = h
        n_cand += 1
    for t in range(k):
        if maps_row[t] >= 0:
            anchor_of[maps_row[t]] = -1
    return n_cand


@njit(cache=True, nogil=True)
def _before(s, t, f, depth, tol):
    # heap order: smaller f first, deeper state first among equals (reaches goals sooner)
    if f[s] < f[t] - tol:
        return True
    if f[s] > f[t] + tol:
        return False
    return depth[s] > depth[t]


@njit(cache=True, nogil=True)
def _heap_push(heap, size, s, f, depth, tol):
    i = size
    heap[i] = s
    while i > 0:
        parent = (i - 1) >> 1
        if _before(heap[i], heap[parent], f, depth, tol):
            heap[i], heap[parent] = heap[parent], heap[i]
            i = parent
        else:
            break


@njit(cache=True, nogil=True)
def _heap_pop(heap, size, f, depth, tol):
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        best = left
        if left + 1 < size and _before(heap[left + 1], heap[left], f, depth, tol):
            best = left + 1
        if _before(heap[best], heap[i], f, depth, tol):
            heap[i], heap[best] = heap[best], heap[i]
            i = best
        else:
            break
    return top


@njit(cache=True, nogil=True)
def _new_slot(ctl, free):
    if ctl[FREE] > 0:
        ctl[FREE] -= 1
        return free[ctl[FREE]]
    s = ctl[POOL]
    ctl[POOL] += 1
    return s


@njit(cache=True, nogil=True, inline="always")
def _cut(buf, start, size):
    """The ``size`` elements of ``buf`` from ``start`` as an array, and the next free one
    (a position kept in a local, not an array: no store per cut). The array holds no
    reference to ``buf`` (which must outlive it: see :mod:`gedkit._kernels.raw`)."""
    return part(buf, start, size), start + size


@njit(cache=True, nogil=True)
def _held(ints, floats, bools):
    """Nothing: a use of the work buffers after the search, which keeps them until then."""


@njit(cache=True, nogil=True)
def frontier_bound(status, f, heap, ctl, fctl):
    """The lower bound a search proves after a call that returned ``status``: what it pruned
    and its incumbent bound every completion, and until it is done so does each state left
    open, best-first or depth-first (a depth-first stack's least bound is its proof); never
    above the incumbent. ``f``, ``heap``, ``ctl``, ``fctl`` are the frontier's arrays."""
    least = min(fctl[UB], fctl[PRUNED])
    if status != STATUS_DONE:
        for t in range(ctl[HEAP]):
            least = min(least, f[heap[t]])
    return max(fctl[LB], least)


@njit(cache=True, nogil=True)
def tree_search(pair, frontier, settings):
    """Run up to ``settings.max_expansions`` expansions on ``pair`` from ``frontier``
    (updated in place) under ``settings``; return a STATUS_* code.

    The three arguments are plain tuples in the field order of
    :class:`~gedkit._kernels.bundles.GedPair`, :class:`~gedkit._kernels.bundles.Frontier` and
    :class:`~gedkit._kernels.bundles.SearchSettings` (``tuple(bundle)``), named here on entry:
    numba types a plain tuple argument in C, a named one in Python, 10-15 µs more per call
    on these (measured), which is a tenth of a small pair's search. The names below are the
    bundles' fields.

    ``maps[s, t]`` is the image of ``order[t]`` in state s (-1 = deleted); ``heap`` is the
    frontier (a binary heap, or a stack when ``depth_first``). ``fctl[UB]``/``best_map`` hold
    the best complete map; children whose f exceeds ``cutoff`` are dropped, the least such f
    kept in ``fctl[PRUNED]`` so that the lower bound stays valid. The kernel reports
    STATUS_FULL while fewer than ``reserve`` state slots are free. ``counting`` selects the
    incremental bound for label-equality costs; it computes the same values as the general
    one, only faster. ``branch`` adds the anchor-aware assignment bound of
    :mod:`gedkit._kernels.branch` (one assignment per expansion, also an upper bound; a state
    whose parent's assignment was the last one solved at the parent's depth in this call
    starts its own from the parent's duals);
    ``integral`` rounds bounds up, valid when every cost is an integer. ``twin2`` holds the
    twin class of each node of g2 (:func:`~gedkit._kernels.order.twin_classes`): of several
    unused interchangeable nodes only the first is tried, since the others lead to mirror
    images of the same subtree.
    """
    pair, frontier, settings = GedPair(*pair), Frontier(*frontier), SearchSettings(*settings)
    # the pair's arrays without references (the caller's tuple holds them, see
    # gedkit._kernels.raw): the counting bound, inlined into the loop, takes a dozen of them
    # out of the pair each expansion
    pair = GedPair(alias(pair.node_costs), alias(pair.adj1), alias(pair.adj2), alias(pair.emat),
                   alias(pair.nmat), alias(pair.nl1), alias(pair.nl2), alias(pair.nconst),
                   alias(pair.econst), alias(pair.e1), alias(pair.el1), alias(pair.e2),
                   alias(pair.el2), alias(pair.ptr1), alias(pair.nbr1), alias(pair.lab1),
                   alias(pair.ptr2), alias(pair.nbr2), alias(pair.lab2), alias(pair.order),
                   alias(pair.twin2))
    node_costs, adj1, adj2, emat, nmat = (pair.node_costs, pair.adj1, pair.adj2, pair.emat,
                                          pair.nmat)
    nconst, econst, e1, e2, ptr2, order, twin2 = (pair.nconst, pair.econst, pair.e1, pair.e2,
                                                  pair.ptr2, pair.order, pair.twin2)
    maps, g, f, depth, heap = frontier.maps, frontier.g, frontier.f, frontier.depth, frontier.heap
    free, ctl, fctl, best_map = frontier.free, frontier.ctl, frontier.fctl, frontier.best_map
    depth_first, counting, branch = settings.depth_first, settings.counting, settings.branch
    integral, reserve, max_expansions = settings.integral, settings.reserve, settings.max_expansions
    cutoff, stop_at, tol = settings.cutoff, settings.stop_at, settings.tol
    n1 = adj1.shape[0]
    n2 = adj2.shape[0]
    cap = maps.shape[0]
    kn = nmat.shape[0]
    ke = emat.shape[0]
    bsize = max(n1, n2, e1.shape[0], e2.shape[0]) + 1
    # matchings of label multisets are only needed when costs are not label equality
    wn = 2 * bsize + 1 if nconst[3] == 0 or econst[3] == 0 else 1
    nn = n1 + n2 + 1
    max_deg2 = 1
    for y in range(n2):
        max_deg2 = max(max_deg2, ptr2[y + 1] - ptr2[y])
    sq = n2 * n2 if branch else 1
    # warm starts keep a row of duals and a partial map per depth: on graphs small enough
    # for that to stay a few MB, in calls that expand more than the root
    levels = n1 if branch and max_expansions > 1 and n1 * (n1 + n2) <= WARM_ENTRIES else 0
    # the work arrays, carved from one zeroed buffer per element type (_cut): three
    # allocations instead of some forty, which took as long as a small candidate's first
    # expansion
    ints = np.zeros(3 * kn + 5 * ke + 6 * bsize + 2 * (wn + 1) + 8 * n1 + 2 + 2 * n1 * ke
                    + 3 * (n2 + 1) + 4 * n2 + 2 * (nn + 1) + (n2 + 1) * (max_deg2 + 1 + ke)
                    + levels * (n1 + 1) + 1,
                    dtype=np.int64)
    floats = np.zeros(wn * wn + 3 * (wn + 1) + 5 * (n2 + 1) + n1 + levels * n2 + 1 + 2 * sq
                      + 3 * (nn + 1))
    bools = np.zeros(n1 + n2 + (wn + 1) + (nn + 1), dtype=np.bool_)
    i = f_ = b_ = 0  # the first free element of ints, floats, bools
    nhist, i = _cut(ints, i, kn)
    ehist, i = _cut(ints, i, ke)
    bufa, i = _cut(ints, i, bsize)
    bufb, i = _cut(ints, i, bsize)
    # multiset matching work (``multiset.multiset_cost``)
    ws_cost, f_ = _cut(floats, f_, wn * wn)
    ws_u, f_ = _cut(floats, f_, wn + 1)
    ws_v, f_ = _cut(floats, f_, wn + 1)
    ws_p, i = _cut(ints, i, wn + 1)
    ws_way, i = _cut(ints, i, wn + 1)
    ws_min, f_ = _cut(floats, f_, wn + 1)
    ws_used, b_ = _cut(bools, b_, wn + 1)
    ws = (ws_cost, ws_u, ws_v, ws_p, ws_way, ws_min, ws_used)
    in_rest1, b_ = _cut(bools, b_, n1)
    used2, b_ = _cut(bools, b_, n2)
    anc_a, i = _cut(ints, i, n1 + 1)
    anc_b, i = _cut(ints, i, n1 + 1)
    child_v, i = _cut(ints, i, n2 + 1)
    child_rank, i = _cut(ints, i, n2 + 1)
    cand, i = _cut(ints, i, n2 + 1)
    child_g, f_ = _cut(floats, f_, n2 + 1)
    child_f, f_ = _cut(floats, f_, n2 + 1)
    child_h, f_ = _cut(floats, f_, n2 + 1)
    # the counting bound's
    node_a, i = _cut(ints, i, kn)
    node_b, i = _cut(ints, i, kn)
    inner_a, i = _cut(ints, i, ke)
    inner_b, i = _cut(ints, i, ke)
    anc_a_cnt, i = _cut(ints, i, n1 * ke)
    anc_b_cnt, i = _cut(ints, i, n1 * ke)
    anc_p, i = _cut(ints, i, n1)
    anc_q, i = _cut(ints, i, n1)
    anc_c, i = _cut(ints, i, n1)
    anc_cost, f_ = _cut(floats, f_, n1)
    anchor_of, i = _cut(ints, i, n2)
    anchor_of[:] = -1
    u_cnt, i = _cut(ints, i, ke)
    v_cnt, i = _cut(ints, i, ke)
    counts = _Counts(node_a, node_b, inner_a, inner_b, anc_a_cnt.reshape((n1, ke)),
                     anc_b_cnt.reshape((n1, ke)), anc_p, anc_q, anc_c, anc_cost, anchor_of,
                     u_cnt, v_cnt)
    # the branch bound's (``BranchWork``: the assignment's, per column, per row)
    mat, f_ = _cut(floats, f_, sq)
    subst, f_ = _cut(floats, f_, sq)
    alpha, f_ = _cut(floats, f_, nn + 1)
    beta, f_ = _cut(floats, f_, nn + 1)
    match, i = _cut(ints, i, nn + 1)
    way, i = _cut(ints, i, nn + 1)
    minv, f_ = _cut(floats, f_, nn + 1)
    seen, b_ = _cut(bools, b_, nn + 1)
    image, i = _cut(ints, i, n1)
    ins_cross, f_ = _cut(floats, f_, n2 + 1)
    ylab, i = _cut(ints, i, (n2 + 1) * max_deg2)
    ylen, i = _cut(ints, i, n2 + 1)
    ycnt, i = _cut(ints, i, (n2 + 1) * ke)
    distinct, i = _cut(ints, i, bsize)
    row_counts, i = _cut(ints, i, bsize)
    anchor_at, i = _cut(ints, i, bsize)
    anchor_label, i = _cut(ints, i, bsize)
    reduced, f_ = _cut(floats, f_, n2 + 1)
    fwd, i = _cut(ints, i, n1)
    duals, f_ = _cut(floats, f_, levels * n2 + 1)
    bw = BranchWork(mat, subst, bufa, ehist, ws,
                    (alpha, beta, match, way, minv, seen),
                    (image, ins_cross, ylab.reshape((n2 + 1, max_deg2)), ylen,
                     ycnt.reshape((n2 + 1, ke))),
                    (distinct, row_counts, anchor_at, anchor_label), reduced, fwd,
                    duals[:levels * n2].reshape((levels, n2)))
    # per depth, the partial map of the last state whose assignment was solved there (its
    # duals are in ``duals``), in a row whose last entry is 1 once written: a child of that
    # state popped later starts its assignment from them
    solved_at, i = _cut(ints, i, levels * (n1 + 1) + 1)
    solved = solved_at[:levels * (n1 + 1)].reshape((levels, n1 + 1))
    rows, i = _cut(ints, i, n1)
    cols, i = _cut(ints, i, n2)
    col_of, i = _cut(ints, i, n2)
    twin_seen, i = _cut(ints, i, n2)
    twin_seen[:] = -1
    if i != ints.shape[0] or f_ != floats.shape[0] or b_ != bools.shape[0]:
        # (a slice past a buffer's end would come out short, not raise)
        raise RuntimeError("tree_search: work buffers carved wrongly")
    stamp = 0
    status = STATUS_BUDGET

    for _ in range(max_expansions):
        if ctl[HEAP] == 0:
            fctl[LB] = max(fctl[LB], min(fctl[UB], fctl[PRUNED]))
            status = STATUS_DONE
            break
        if fctl[UB] <= stop_at:
            status = STATUS_STOP
            break
        if ctl[FREE] + (cap - ctl[POOL]) < reserve:
            status = STATUS_FULL
            break
        if depth_first:
            ctl[HEAP] -= 1
            s = heap[ctl[HEAP]]
        else:
            s = _heap_pop(heap, ctl[HEAP], f, depth, tol)
            ctl[HEAP] -= 1
            if f[s] >= fctl[UB] - tol:
                # best-first: nothing left can beat the incumbent
                free[ctl[FREE]] = s
                ctl[FREE] += 1
                fctl[LB] = max(fctl[LB], min(fctl[UB], fctl[PRUNED]))
                status = STATUS_DONE
                break
            fctl[LB] = max(fctl[LB], f[s])
        if f[s] >= fctl[UB] - tol:
            free[ctl[FREE]] = s
            ctl[FREE] += 1
            continue

        k = depth[s]
        u = order[k]
        for y in range(n2):
            used2[y] = False
        for t in range(k):
            anc_a[t] = order[t]
            anc_b[t] = maps[s, t]
            if maps[s, t] >= 0:
                used2[maps[s, t]] = True
        for x in range(n1):
            in_rest1[x] = False
        for t in range(k + 1, n1):
            in_rest1[order[t]] = True
        anc_a[k] = u
        complete = k + 1 == n1

        base = -np.inf
        if branch:
            in_rest1[u] = True
            rows[0] = u
            p = 1
            for t in range(k + 1, n1):
                rows[p] = order[t]
                p += 1
            q = 0
            for y in range(n2):
                if not used2[y]:
                    col_of[y] = q
                    cols[q] = y
                    q += 1
            for t in range(k):
                fwd[order[t]] = maps[s, t]
            # a state whose bound reaches the incumbent or passes the cutoff is pruned: its
            # assignment need not be finished, nor its map priced
            worth = min(fctl[UB] - tol, cutoff + tol)
            warm = 0 < k <= levels and solved[k - 1, n1] == 1
            for t in range(k - 1):
                if not warm:
                    break
                warm = maps[s, t] == solved[k - 1, t]
            lb_s, ub_s = branch_bound(u, rows, p, cols, q, anc_a, anc_b, k, in_rest1, used2,
                                      pair, bw, worth - g[s], warm)
            if ub_s < np.inf and k < levels:  # solved: its duals are in ``duals[k]``
                for t in range(k):
                    solved[k, t] = maps[s, t]
                solved[k, n1] = 1
            in_rest1[u] = False
            if ub_s < fctl[UB] - tol:
                fctl[UB] = ub_s
                for x in range(n1):
                    best_map[x] = fwd[x]
            base = g[s] + lb_s
            refreshed = np.ceil(base - 1e-7) if integral else base
            if refreshed >= fctl[UB] - tol or refreshed > cutoff:
                if refreshed < fctl[UB] - tol:
                    fctl[PRUNED] = min(fctl[PRUNED], refreshed)
                free[ctl[FREE]] = s
                ctl[FREE] += 1
                continue
            if not depth_first and refreshed > f[s] + tol:
                f[s] = refreshed
                if ctl[HEAP] > 0 and refreshed > f[heap[0]] + tol:
                    # the state's own bound beats the one it was queued with, and another
                    # state now comes first: queue it again
                    _heap_push(heap, ctl[HEAP], s, f, depth, tol)
                    ctl[HEAP] += 1
                    continue
                # still the best state: expand it now rather than pop it again
                fctl[LB] = max(fctl[LB], refreshed)

        if counting:
            n_cand = _children_counting(k, u, maps[s], used2, in_rest1, pair, counts, cand,
                                        child_h)
        else:
            n_cand = 0
            for v in range(-1, n2):
                if v >= 0 and used2[v]:
                    continue
                anc_b[k] = v
                if v >= 0:
                    used2[v] = True
                child_h[n_cand] = remaining_bound(in_rest1, used2, anc_a, anc_b, k + 1, pair,
                                                  bufa, bufb, nhist, ehist, ws)
                if v >= 0:
                    used2[v] = False
                cand[n_cand] = v
                n_cand += 1

        n_child = 0
        stamp += 1
        for i in range(n_cand):
            v = cand[i]
            if v >= 0:
                # candidates come in increasing order: the first unused twin stands for all
                if twin_seen[twin2[v]] == stamp:
                    continue
                twin_seen[twin2[v]] = stamp
            gc = g[s] + _assign_delta(u, v, anc_a, anc_b, k, node_costs, adj1, adj2, emat)
            fc = gc + child_h[i]
            if branch:
                fc = max(fc, base + max(0.0, reduced[col_of[v]] if v >= 0 else reduced[q]))
            if integral:
                fc = np.ceil(fc - 1e-7)
            ctl[GENERATED] += 1
            if complete:
                # the bound is exact on a complete map
                if fc < fctl[UB] - tol:
                    fctl[UB] = fc
                    for t in range(k):
                        best_map[order[t]] = maps[s, t]
                    best_map[u] = v
                continue
            if fc >= fctl[UB] - tol:
                continue
            if fc > cutoff:
                fctl[PRUNED] = min(fctl[PRUNED], fc)
                continue
            child_v[n_child] = v
            child_g[n_child] = gc
            child_f[n_child] = fc
            n_child += 1
        ctl[EXPANDED] += 1
        free[ctl[FREE]] = s
        ctl[FREE] += 1

        if depth_first:
            # push the most promising child last so it is popped first: decreasing f, ties
            # in candidate order (an insertion sort: a handful of children, no allocation)
            for i in range(n_child):
                j = i
                while j > 0 and child_f[child_rank[j - 1]] < child_f[i]:
                    child_rank[j] = child_rank[j - 1]
                    j -= 1
                child_rank[j] = i
        else:
            for i in range(n_child):
                child_rank[i] = i
        for i in range(n_child):
            c = child_rank[i]
            t_slot = _new_slot(ctl, free)
            # the parent's slot may be reused by its first child: copy from a saved row
            if t_slot != s:
                for t in range(k):
                    maps[t_slot, t] = maps[s, t]
            maps[t_slot, k] = child_v[c]
            g[t_slot] = child_g[c]
            f[t_slot] = child_f[c]
            depth[t_slot] = k + 1
            if depth_first:
                heap[ctl[HEAP]] = t_slot
            else:
                _heap_push(heap, ctl[HEAP], t_slot, f, depth, tol)
            ctl[HEAP] += 1
        live = ctl[HEAP]
        if live > ctl[PEAK]:
            ctl[PEAK] = live
    # the work arrays hold no references into these three buffers (see _cut): used here,
    # they live until the search ends
    _held(ints, floats, bools)
    return status
