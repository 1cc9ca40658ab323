"""The exact MCES kernel: depth-first branch and bound over node maps, compiled with numba.

The search maps the nodes of g1 in a fixed order, each onto an unused node of g2 with the same
label or onto nothing. ``g`` counts the common edges among the nodes already decided; a child's
``f = g + h`` adds an upper bound ``h`` on the edges still to come, made of two parts that
cannot share an edge:

- *inner*: edges of g1 between undecided nodes can only land on edges of g2 between unused
  nodes; per edge class, at most the smaller count;
- *anchored*: an edge from a decided node ``a → b`` to an undecided node can only land on an
  edge from ``b`` to an unused node; per anchor and class, at most the smaller count.

Both parts are counted once per expansion; each child then only corrects them for the edges of
its own image ``v`` (O(deg v)). Children are tried best ``f`` first; a child whose ``f`` does
not beat the incumbent is dropped.

The kernel is resumable: its whole state lives in arrays the caller owns, and each call runs
at most ``max_steps`` expansions, so the driver reads the clock between calls.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["DEPTH", "DONE", "EXPANDED", "FRESH", "INCUMBENT", "PAUSED", "open_bound", "search"]

DONE = 0  # search space exhausted: the incumbent is optimal
PAUSED = 1  # max_steps reached: call again

# ctl slots
DEPTH, FRESH, INCUMBENT, EXPANDED = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def _expand(
    d, order, cadj2, ptr1, nbr1, cls1, ptr2, nbr2, cls2, cand_ptr, cand_list,
    e1, ec1, e2, ec2, fwd, used2, assigned1, gval, cand, cf, cg, ncand, pos, incumbent,
    inner1, inner2, anc1, anc2, anchor_of, own1, own1w,
):
    """Children of the state at depth ``d`` whose f beats ``incumbent``, best first."""
    u = order[d]
    g = gval[d]
    assigned1[u] = True
    # inner part
    for e in range(e1.shape[0]):
        if not assigned1[e1[e, 0]] and not assigned1[e1[e, 1]]:
            inner1[ec1[e]] += 1
    for e in range(e2.shape[0]):
        if not used2[e2[e, 0]] and not used2[e2[e, 1]]:
            inner2[ec2[e]] += 1
    base = 0
    for c in range(inner1.shape[0]):
        base += min(inner1[c], inner2[c])
    # anchored part, one row per decided node with an image
    for t in range(d):
        a = order[t]
        b = fwd[a]
        if b < 0:
            continue
        anchor_of[b] = t
        for k in range(ptr1[a], ptr1[a + 1]):
            if not assigned1[nbr1[k]]:
                anc1[t, cls1[k]] += 1
        for k in range(ptr2[b], ptr2[b + 1]):
            if not used2[nbr2[k]]:
                anc2[t, cls2[k]] += 1
        for k in range(ptr2[b], ptr2[b + 1]):
            c = cls2[k]
            if not used2[nbr2[k]] and anc2[t, c] > 0:
                base += min(anc1[t, c], anc2[t, c])
                anc2[t, c] = -anc2[t, c]  # counted: flip sign so each class counts once
        for k in range(ptr2[b], ptr2[b + 1]):
            c = cls2[k]
            if anc2[t, c] < 0:
                anc2[t, c] = -anc2[t, c]
    # u's edges into the undecided part: the g1 side of u's own anchor row
    for k in range(ptr1[u], ptr1[u + 1]):
        if not assigned1[nbr1[k]]:
            own1[cls1[k]] += 1
            own1w[cls1[k]] += 1

    n = 0
    # u left unmapped: its edges are lost
    if g + base > incumbent:
        cand[d, n] = -1
        cg[d, n] = g
        cf[d, n] = g + base
        n += 1
    for j in range(cand_ptr[u], cand_ptr[u + 1]):
        v = cand_list[j]
        if used2[v]:
            continue
        gain = 0
        for k in range(ptr1[u], ptr1[u + 1]):
            a = nbr1[k]
            if assigned1[a] and a != u and fwd[a] >= 0 and cadj2[v, fwd[a]] == cls1[k]:
                gain += 1
        h = base
        for k in range(ptr2[v], ptr2[v + 1]):
            y = nbr2[k]
            c = cls2[k]
            if not used2[y]:
                # edge (v, y) leaves the inner part and may join u's own row
                if inner2[c] <= inner1[c]:
                    h -= 1
                inner2[c] -= 1
                if own1w[c] > 0:
                    h += 1
                    own1w[c] -= 1
            else:
                t = anchor_of[y]
                if t >= 0 and anc2[t, c] <= anc1[t, c]:
                    h -= 1
        for k in range(ptr2[v], ptr2[v + 1]):
            if not used2[nbr2[k]]:
                c = cls2[k]
                inner2[c] += 1
                own1w[c] = own1[c]
        f = g + gain + h
        if f > incumbent:
            cand[d, n] = v
            cg[d, n] = g + gain
            cf[d, n] = f
            n += 1
    # best first (insertion sort: a few dozen children at most in practice)
    for i in range(1, n):
        vf, vg, vv = cf[d, i], cg[d, i], cand[d, i]
        j = i - 1
        while j >= 0 and (cf[d, j] < vf or (cf[d, j] == vf and cg[d, j] < vg)):
            cf[d, j + 1], cg[d, j + 1], cand[d, j + 1] = cf[d, j], cg[d, j], cand[d, j]
            j -= 1
        cf[d, j + 1], cg[d, j + 1], cand[d, j + 1] = vf, vg, vv
    ncand[d] = n
    pos[d] = 0

    # clear the work arrays for the next expansion
    inner1[:] = 0
    inner2[:] = 0
    for k in range(ptr1[u], ptr1[u + 1]):
        own1[cls1[k]] = 0
        own1w[cls1[k]] = 0
    for t in range(d):
        a = order[t]
        b = fwd[a]
        if b < 0:
            continue
        anchor_of[b] = -1
        for k in range(ptr1[a], ptr1[a + 1]):
            anc1[t, cls1[k]] = 0
        for k in range(ptr2[b], ptr2[b + 1]):
            anc2[t, cls2[k]] = 0
    assigned1[u] = False


@njit(cache=True, nogil=True)
def search(
    order, cadj2, ptr1, nbr1, cls1, ptr2, nbr2, cls2, cand_ptr, cand_list,
    e1, ec1, e2, ec2, n_classes, fwd, used2, assigned1, gval, cand, cf, cg, ncand, pos,
    ctl, best_map, upper, max_steps,
):
    """Run up to ``max_steps`` expansions; return DONE or PAUSED.

    ``ctl[INCUMBENT]``/``best_map`` hold the best map so far (seed them with a heuristic's);
    only strictly better maps replace it. The search stops early once the incumbent reaches
    ``upper``, a bound proven elsewhere.
    """
    N = order.shape[0]
    n2 = used2.shape[0]
    inner1 = np.zeros(n_classes, dtype=np.int64)
    inner2 = np.zeros(n_classes, dtype=np.int64)
    anc1 = np.zeros((max(N, 1), n_classes), dtype=np.int64)
    anc2 = np.zeros((max(N, 1), n_classes), dtype=np.int64)
    anchor_of = np.full(n2, -1, dtype=np.int64)
    own1 = np.zeros(n_classes, dtype=np.int64)
    own1w = np.zeros(n_classes, dtype=np.int64)
    steps = 0
    while steps < max_steps:
        d = ctl[DEPTH]
        if d < 0 or ctl[INCUMBENT] >= upper:
            return DONE
        if ctl[FRESH] == 1:
            ctl[FRESH] = 0
            if d == N:
                if gval[N] > ctl[INCUMBENT]:
                    ctl[INCUMBENT] = gval[N]
                    best_map[:] = fwd
                _retreat(d, order, fwd, used2, assigned1, ctl)
                continue
            _expand(
                d, order, cadj2, ptr1, nbr1, cls1, ptr2, nbr2, cls2,
                cand_ptr, cand_list, e1, ec1, e2, ec2, fwd, used2, assigned1, gval,
                cand, cf, cg, ncand, pos, ctl[INCUMBENT],
                inner1, inner2, anc1, anc2, anchor_of, own1, own1w,
            )
            steps += 1
            ctl[EXPANDED] += 1
            continue
        p = pos[d]
        if p < ncand[d] and cf[d, p] > ctl[INCUMBENT]:
            v = cand[d, p]
            pos[d] = p + 1
            u = order[d]
            fwd[u] = v
            if v >= 0:
                used2[v] = True
            assigned1[u] = True
            gval[d + 1] = cg[d, p]
            ctl[DEPTH] = d + 1
            ctl[FRESH] = 1
        else:
            pos[d] = ncand[d]
            _retreat(d, order, fwd, used2, assigned1, ctl)
    return PAUSED


@njit(cache=True, nogil=True)
def _retreat(d, order, fwd, used2, assigned1, ctl):
    """Back from depth ``d`` to its parent, undoing the parent's choice."""
    ctl[DEPTH] = d - 1
    if d >= 1:
        u = order[d - 1]
        if fwd[u] >= 0:
            used2[fwd[u]] = False
        fwd[u] = -1
        assigned1[u] = False


@njit(cache=True, nogil=True)
def open_bound(cf, ncand, pos, ctl, root):
    """Largest f of any state not yet explored (the incumbent aside): a proven upper bound
    on every map the paused search has not looked at."""
    d = ctl[DEPTH]
    if d < 0:
        return -1
    if ctl[FRESH] == 1 and d == 0:
        return root
    best = -1
    levels = d + 1
    if ctl[FRESH] == 1:
        best = cf[d - 1, pos[d - 1] - 1]  # the state about to be expanded
        levels = d  # level d holds no children of it yet
    for t in range(levels):
        if pos[t] < ncand[t]:
            best = max(best, cf[t, pos[t]])
    return best
