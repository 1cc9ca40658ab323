"""Moves on a complete node map and what they change in its cost, compiled.

A map is ``f`` (g1 → g2, -1 = deleted) with its inverse ``inv`` (g2 → g1, -1 = inserted). The
one move is "row i takes target t, row j (if any) takes i's old target". Its cost change is
read off the few nodes it touches: only their node terms and the edges at them can change, so a
move costs O(degree) to price instead of O(n + m) for a full :func:`~gedkit._kernels.cost.map_cost`.
Graphs come as CSR neighbour lists (:func:`gedkit._kernels.order.neighbour_lists`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["beam_level", "move_delta", "refine_pass"]


@njit(cache=True, nogil=True)
def _local_cost(f, inv, r0, r1, c0, c1, node_costs, adj1, adj2, emat,
                ptr1, nbr1, lab1, ptr2, nbr2, lab2):
    """The part of the map cost that depends on rows r0, r1 of g1 and columns c0, c1 of g2
    (-1 = none; r0 ≠ r1 and c0 ≠ c1 unless -1): their node terms, the edges of g1 at the rows
    and the insertions among the edges of g2 at the columns. Exact as long as every column
    whose preimage differs between the two maps compared is among c0, c1."""
    n1 = f.shape[0]
    n2 = inv.shape[0]
    K = emat.shape[0] - 1
    total = 0.0
    for r, other in ((r0, r1), (r1, r0)):
        if r < 0:
            continue
        a = f[r]
        total += node_costs[r, a] if a >= 0 else node_costs[r, n2]
        for t in range(ptr1[r], ptr1[r + 1]):
            b = nbr1[t]
            if b == other and r > other:
                continue  # the edge between the two rows is priced once
            fb = f[b]
            lb = adj2[a, fb] if (a >= 0 and fb >= 0) else -1
            total += emat[lab1[t], lb] if lb >= 0 else emat[lab1[t], K]
    for c, other in ((c0, c1), (c1, c0)):
        if c < 0:
            continue
        pc = inv[c]
        if pc < 0:
            total += node_costs[n1, c]
        for u in range(ptr2[c], ptr2[c + 1]):
            d = nbr2[u]
            if d == other and c > other:
                continue
            pd = inv[d]
            if pc < 0 or pd < 0 or adj1[pc, pd] < 0:
                total += emat[K, lab2[u]]
    return total


@njit(cache=True, nogil=True)
def _assign(f, inv, i, ti, j, tj):
    """Row i takes ti and, if j ≥ 0, row j takes tj (targets may be -1)."""
    if f[i] >= 0:
        inv[f[i]] = -1
    if j >= 0 and f[j] >= 0:
        inv[f[j]] = -1
    f[i] = ti
    if ti >= 0:
        inv[ti] = i
    if j >= 0:
        f[j] = tj
        if tj >= 0:
            inv[tj] = j


@njit(cache=True, nogil=True)
def move_delta(f, inv, i, j, t, node_costs, adj1, adj2, emat,
               ptr1, nbr1, lab1, ptr2, nbr2, lab2):
    """Cost change of "row i takes t, row j takes i's old target" (j = -1: nobody does; then
    t must be free or -1; otherwise t must be ``f[j]``). Leaves f and inv as they were."""
    old = f[i]
    c0 = old
    c1 = t if t != old else -1
    before = _local_cost(f, inv, i, j, c0, c1, node_costs, adj1, adj2, emat,
                         ptr1, nbr1, lab1, ptr2, nbr2, lab2)
    _assign(f, inv, i, t, j, old)
    after = _local_cost(f, inv, i, j, c0, c1, node_costs, adj1, adj2, emat,
                        ptr1, nbr1, lab1, ptr2, nbr2, lab2)
    _assign(f, inv, i, old, j, t)
    return after - before


@njit(cache=True, nogil=True)
def refine_pass(f, inv, tol, first, last, node_costs, adj1, adj2, emat,
                ptr1, nbr1, lab1, ptr2, nbr2, lab2):
    """One first-improvement sweep over all moves of rows ``first`` to ``last - 1``: swap
    targets with another row, take a free node of g2, be deleted. Applies each improving move
    at once; returns the total cost change (≤ 0)."""
    n1 = f.shape[0]
    n2 = inv.shape[0]
    gain = 0.0
    for i in range(first, last):
        for t in range(-1, n2):
            if t == f[i]:
                continue
            j = inv[t] if t >= 0 else -1
            d = move_delta(f, inv, i, j, t, node_costs, adj1, adj2, emat,
                           ptr1, nbr1, lab1, ptr2, nbr2, lab2)
            if d < -tol:
                _assign(f, inv, i, t, j, f[i])
                gain += d
        # swaps with deleted rows: i is deleted, j takes i's target
        for j in range(n1):
            if f[i] < 0:
                break
            if j == i or f[j] >= 0:
                continue
            d = move_delta(f, inv, i, j, -1, node_costs, adj1, adj2, emat,
                           ptr1, nbr1, lab1, ptr2, nbr2, lab2)
            if d < -tol:
                _assign(f, inv, i, -1, j, f[i])
                gain += d
    return gain


@njit(cache=True, nogil=True)
def beam_level(fs, invs, costs, q, width, tol, node_costs, adj1, adj2, emat,
               ptr1, nbr1, lab1, ptr2, nbr2, lab2):
    """One level of BP-Beam (Riesen, Fischer and Bunke, 2014): every map in the beam (rows of
    ``fs``/``invs``, costs in ``costs``) either keeps row q's target or exchanges it with a
    later row, a node of g2 the map inserts, or deletion; the ``width`` cheapest distinct
    children form the next beam, returned as (fs, invs, costs)."""
    beam = fs.shape[0]
    n1 = fs.shape[1]
    n2 = invs.shape[1]
    per = 2 + n1 + n2
    parent = np.empty(beam * per, dtype=np.int64)
    jrow = np.empty(beam * per, dtype=np.int64)
    target = np.empty(beam * per, dtype=np.int64)
    cost = np.empty(beam * per)
    m = 0
    for s in range(beam):
        f = fs[s]
        inv = invs[s]
        parent[m], jrow[m], target[m], cost[m] = s, -1, f[q], costs[s]
        m += 1
        for j in range(q + 1, n1):
            if f[j] < 0 and f[q] < 0:
                continue
            parent[m], jrow[m], target[m] = s, j, f[j]
            cost[m] = costs[s] + move_delta(f, inv, q, j, f[j], node_costs, adj1, adj2, emat,
                                            ptr1, nbr1, lab1, ptr2, nbr2, lab2)
            m += 1
        for t in range(-1, n2):
            if t == f[q] or (t >= 0 and inv[t] >= 0):
                continue
            parent[m], jrow[m], target[m] = s, -1, t
            cost[m] = costs[s] + move_delta(f, inv, q, -1, t, node_costs, adj1, adj2, emat,
                                            ptr1, nbr1, lab1, ptr2, nbr2, lab2)
            m += 1
    order = np.argsort(cost[:m], kind="mergesort")
    out_f = np.empty((min(width, m), n1), dtype=fs.dtype)
    out_inv = np.empty((min(width, m), n2), dtype=invs.dtype)
    out_c = np.empty(min(width, m))
    kept = 0
    for x in order:
        if kept == out_c.shape[0]:
            break
        s = parent[x]
        out_f[kept] = fs[s]
        out_inv[kept] = invs[s]
        if jrow[x] >= 0 or target[x] != fs[s, q]:
            _assign(out_f[kept], out_inv[kept], q, target[x], jrow[x], fs[s, q])
        duplicate = False
        for y in range(kept):
            if abs(out_c[y] - cost[x]) <= tol and np.array_equal(out_f[y], out_f[kept]):
                duplicate = True
                break
        if not duplicate:
            out_c[kept] = cost[x]
            kept += 1
    return out_f[:kept], out_inv[:kept], out_c[:kept]
