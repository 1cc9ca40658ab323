"""Exact MCES by depth-first branch and bound (``exact``), driving :mod:`gedkit.mces._kernel`.

The search branches over the nodes of the smaller graph. Edges whose class the other graph
lacks can never be common and are dropped first, and so are the nodes left without edges: they
cannot change the count. The proven upper bound is the smaller of the global bounds of
:mod:`gedkit.mces.bounds` and, when time runs out, the best ``f`` of any state the search has
not explored yet.
"""

from __future__ import annotations

import time

import numpy as np

from gedkit._kernels.order import matching_order, neighbour_lists
from gedkit.mces import _kernel as kernel
from gedkit.mces.base import Budget, Method, register
from gedkit.mces.bounds import upper_bound
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult
from gedkit.solvers.chunks import FIRST_CHUNK, next_chunk

__all__ = ["Exact", "branch_and_bound"]

_FIRST_CHUNK = 256


def branch_and_bound(
    problem: MCESProblem,
    budget: Budget,
    *,
    incumbent: np.ndarray | None = None,
    method: str = "exact",
    stats: dict | None = None,
) -> MCESResult:
    """The exact search; ``incumbent`` (a node map of ``problem``) seeds it, so a timeout
    returns at least that map."""
    t0 = time.perf_counter()
    stats = dict(stats or {})
    root = upper_bound(problem)
    swap = problem.n1 > problem.n2
    p = problem.transposed() if swap else problem

    seed = np.full(p.n1, -1, dtype=np.int64)
    if incumbent is not None:
        seed = np.asarray(incumbent, dtype=np.int64)
        seed = problem.inverse(seed) if swap else seed.copy()
    best = p.count(seed)

    arrays = _search_arrays(p)
    order, cand_ptr = arrays[0], arrays[8]
    N = len(order)
    width = int(np.diff(cand_ptr).max(initial=0)) + 1
    fwd = np.full(p.n1, -1, dtype=np.int64)
    used2 = np.zeros(p.n2, dtype=np.bool_)
    assigned1 = np.zeros(p.n1, dtype=np.bool_)
    gval = np.zeros(N + 1, dtype=np.int64)
    cand = np.zeros((max(N, 1), width), dtype=np.int64)
    cf = np.zeros((max(N, 1), width), dtype=np.int64)
    cg = np.zeros((max(N, 1), width), dtype=np.int64)
    ncand = np.zeros(max(N, 1), dtype=np.int64)
    pos = np.zeros(max(N, 1), dtype=np.int64)
    ctl = np.zeros(4, dtype=np.int64)
    ctl[kernel.FRESH] = 1
    ctl[kernel.INCUMBENT] = best
    best_map = seed

    chunk = FIRST_CHUNK
    status = kernel.PAUSED
    reason = "optimal"
    while True:
        tick = time.perf_counter()
        status = kernel.search(
            *arrays, fwd, used2, assigned1, gval, cand, cf, cg, ncand, pos,
            ctl, best_map, root, chunk,
        )
        if status == kernel.DONE:
            break
        if budget.expired():
            reason = "timeout"
            break
        chunk = next_chunk(chunk, time.perf_counter() - tick, budget.remaining())

    found = int(ctl[kernel.INCUMBENT])
    if status == kernel.DONE:
        upper = found
    else:
        upper = min(root, max(found, int(kernel.open_bound(cf, ncand, pos, ctl, root))))
    stats.update(
        expanded=int(ctl[kernel.EXPANDED]), root_bound=root, stopped=reason,
    )
    forward = p.inverse(best_map) if swap else best_map
    return MCESResult.from_map(
        problem, forward, upper, method, time=time.perf_counter() - t0, stats=stats
    )


def _search_arrays(p: MCESProblem) -> tuple:
    """The read-only kernel inputs, in :func:`kernel.search` argument order up to
    ``n_classes``: edges whose class the other graph lacks are left out, class ids are
    renumbered ``0..K-1`` over the shared classes, and only nodes of g1 with an edge left are
    branched on."""
    shared = np.intersect1d(p.edge_classes1, p.edge_classes2)
    e1 = np.ascontiguousarray(p.g1.edges[p.useful1], dtype=np.int64).reshape(-1, 2)
    e2 = np.ascontiguousarray(p.g2.edges[p.useful2], dtype=np.int64).reshape(-1, 2)
    ec1 = np.searchsorted(shared, p.edge_classes1[p.useful1]).astype(np.int64)
    ec2 = np.searchsorted(shared, p.edge_classes2[p.useful2]).astype(np.int64)
    cadj1 = _class_adjacency(p.n1, e1, ec1)
    cadj2 = _class_adjacency(p.n2, e2, ec2)
    ptr1, nbr1, cls1 = neighbour_lists(cadj1)
    ptr2, nbr2, cls2 = neighbour_lists(cadj2)
    deg1, deg2 = np.diff(ptr1), np.diff(ptr2)
    order = matching_order(cadj1, p.node_labels1, p.node_labels2)
    order = np.ascontiguousarray(order[deg1[order] > 0])
    # candidates of u: nodes of g2 with u's label and an edge left
    cand_ptr = np.zeros(p.n1 + 1, dtype=np.int64)
    lists = []
    for u in range(p.n1):
        vs = np.flatnonzero((p.node_labels2 == p.node_labels1[u]) & (deg2 > 0)) if deg1[u] else []
        lists.append(np.asarray(vs, dtype=np.int64))
        cand_ptr[u + 1] = cand_ptr[u] + len(vs)
    cand_list = np.concatenate(lists) if lists else np.zeros(0, dtype=np.int64)
    return (order, cadj2, ptr1, nbr1, cls1, ptr2, nbr2, cls2, cand_ptr, cand_list,
            e1, ec1, e2, ec2, max(len(shared), 1))


def _class_adjacency(n: int, edges: np.ndarray, classes: np.ndarray) -> np.ndarray:
    adj = np.full((n, n), -1, dtype=np.int64)
    adj[edges[:, 0], edges[:, 1]] = classes
    adj[edges[:, 1], edges[:, 0]] = classes
    return adj


@register
class Exact(Method):
    name = "exact"
    summary = "exact depth-first branch and bound with class-counting bounds (numba)"
    exact = True

    def solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        return branch_and_bound(problem, budget)
