"""Exact GED by tree search: best-first (``astar``) and depth-first branch and bound (``dfs``).

Both drive the one compiled kernel in :mod:`gedkit._kernels.tree_search`. A* keeps its frontier
within a memory cap; when the cap is reached it does not fail but turns its frontier into a
depth-first stack, which needs almost no further memory, and goes on proving.
"""

from __future__ import annotations

import math
import time
from typing import ClassVar

import numpy as np

from gedkit._kernels import tree_search as kernel
from gedkit._kernels.order import matching_order, neighbour_lists, twin_classes
from gedkit.configurable import check_choice, check_number
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.chunks import first_chunk, next_chunk
from gedkit.solvers.heuristics.assignment import lsape_map
from gedkit.solvers.registry import register

__all__ = ["AStar", "DepthFirst", "search"]

DEFAULT_MEMORY = 1 << 30  # bytes for the A* frontier
BOUNDS = ("branch", "labelset")
_FIRST_CAPACITY = 1024


def _label_costs(const: tuple | None) -> np.ndarray:
    """(ins, del, capped sub, flag) as the kernel reads them; all zero (flag off) when the
    costs are not label-equality costs."""
    if const is None:
        return np.zeros(4)
    ins, dele, sub = const
    return np.array([ins, dele, min(sub, ins + dele), 1.0])


def search(
    problem: Problem,
    budget: Budget,
    *,
    depth_first: bool,
    method: str,
    counting: bool | None = None,
    bound: str = "branch",
    incumbent: np.ndarray | None = None,
    lower_bound: float = 0.0,
) -> Result:
    """Exact search on ``problem``; see the module docstring.

    ``counting`` (default: whenever costs depend on label equality alone) selects the
    incremental bound; forcing it off gives the same search, slower (tests compare both).
    ``bound`` is ``"branch"`` (the default: one anchor-aware assignment per expanded state on
    top of the per-child label-set bound; stronger, and an upper bound at every step) or
    ``"labelset"`` (the per-child bound alone). ``incumbent`` (a node map found elsewhere)
    and ``lower_bound`` (proven elsewhere) seed the search.
    """
    t0 = time.perf_counter()
    swap = problem.n1 > problem.n2
    p = problem.transposed() if swap else problem
    n1, n2 = p.n1, p.n2
    stats = {"expanded": 0, "generated": 0, "peak_states": 0, "peak_bytes": 0}

    if n1 == 0:
        forward = np.empty(0, dtype=np.int64)
        return _finish(problem, p, swap, forward, math.inf, method, t0, stats, "optimal")

    const = p.constant_costs
    if counting is None or const is None:
        counting = const is not None
    nconst = _label_costs(None if const is None else const[:3])
    econst = _label_costs(None if const is None else const[3:])
    ptr1, nbr1, lab1 = neighbour_lists(p.adj1)
    ptr2, nbr2, lab2 = neighbour_lists(p.adj2)
    order = matching_order(p.adj1, p.node_labels1, p.node_labels2)
    branch = bound == "branch"
    integral = p.integral_costs
    args = (
        p.node_costs, p.adj1, p.adj2, p.edge_label_matrix, p.node_label_matrix,
        p.node_labels1, p.node_labels2, nconst, econst,
        p.g1.edges, p.edge_labels1, p.g2.edges, p.edge_labels2,
        ptr1, nbr1, lab1, ptr2, nbr2, lab2, order,
        twin_classes(p.adj2, p.node_labels2),
    )

    row_bytes = 4 * n1 + 36
    memory = budget.memory if budget.memory is not None else DEFAULT_MEMORY
    max_capacity = max(int(memory // row_bytes), 4 * (n1 + 1) * (n2 + 1))
    capacity = min(max(_FIRST_CAPACITY, 2 * (n1 + 1) * (n2 + 1)), max_capacity)
    arrays = _allocate(capacity, n1)
    maps, g, f, depth, heap, free = arrays
    ctl = np.zeros(6, dtype=np.int64)
    fctl = np.array([math.inf, float(lower_bound), math.inf])
    best_map = np.full(n1, -1, dtype=np.int64)
    if incumbent is not None:
        seed = np.asarray(incumbent, dtype=np.int64)
        best_map[:] = problem.inverse(seed) if swap else seed
        fctl[kernel.UB] = p.cost(best_map)
    # the root: nothing assigned
    g[0] = f[0] = 0.0
    depth[0] = 0
    heap[0] = 0
    ctl[kernel.HEAP] = 1
    ctl[kernel.POOL] = 1

    cutoff = math.inf
    stop_at = -math.inf
    if budget.threshold is not None:
        # "is GED <= threshold?": prune what exceeds it, stop once a map within it is found
        cutoff = stop_at = budget.threshold
    tol = 1e-9 * max(1.0, p.largest_cost)
    # an expansion costs about one n2 × n2 assignment plus a bound per child; far more with
    # costs that need matchings instead of counts
    chunk = first_chunk((n2**3 + 10 * n1 * n2) * (1 if counting else 20))
    reason = "optimal"
    while True:
        reserve = (n2 + 1) if depth_first else (n1 + 1) * (n2 + 1)
        tick = time.perf_counter()
        status = kernel.tree_search(
            *args, maps, g, f, depth, heap, free, ctl, fctl, best_map,
            depth_first, counting, branch, integral, reserve, chunk, cutoff, stop_at, tol,
        )
        if status in (kernel.STATUS_DONE, kernel.STATUS_STOP):
            break
        if status == kernel.STATUS_FULL:
            if capacity < max_capacity:
                capacity = min(2 * capacity, max_capacity)
                maps, g, f, depth, heap, free = arrays = _grow(arrays, capacity)
            else:
                # memory cap reached: the frontier becomes a depth-first stack, best on top
                live = heap[: ctl[kernel.HEAP]]
                heap[: len(live)] = live[np.argsort(-f[live], kind="stable")]
                depth_first = True
                reason = "memory cap: continued depth-first"
                stats["memory_cap_hit"] = True
        if budget.expired():
            reason = "timeout"
            break
        chunk = next_chunk(chunk, time.perf_counter() - tick, budget.remaining())

    stats["expanded"] = int(ctl[kernel.EXPANDED])
    stats["generated"] = int(ctl[kernel.GENERATED])
    stats["peak_states"] = int(ctl[kernel.PEAK])
    stats["peak_bytes"] = int(capacity * row_bytes)
    ub, lb = fctl[kernel.UB], fctl[kernel.LB]
    if status not in (kernel.STATUS_DONE,):
        live = heap[: ctl[kernel.HEAP]]
        open_min = float(f[live].min()) if len(live) else math.inf
        lb = max(lb, min(open_min, fctl[kernel.PRUNED], ub))
    else:
        lb = max(lb, min(ub, fctl[kernel.PRUNED]))
    if status == kernel.STATUS_STOP:
        reason = "threshold reached"
    if ub == math.inf:
        # no complete map reached in time: fall back to an assignment on node costs
        best_map = lsape_map(p.node_costs)
    return _finish(problem, p, swap, best_map, lb, method, t0, stats, reason)


def _finish(problem, p, swap, forward, lb, method, t0, stats, reason) -> Result:
    if swap:
        forward = p.inverse(np.asarray(forward, dtype=np.int64))
    stats["stopped"] = reason
    return Result.from_assignment(
        problem, forward, lb, method, time=time.perf_counter() - t0, stats=stats
    )


def _allocate(capacity: int, n1: int):
    return (
        np.empty((capacity, n1), dtype=np.int32),
        np.empty(capacity),
        np.empty(capacity),
        np.empty(capacity, dtype=np.int32),
        np.empty(capacity, dtype=np.int64),
        np.empty(capacity, dtype=np.int64),
    )


def _grow(arrays, capacity: int):
    grown = _allocate(capacity, arrays[0].shape[1])
    for old, new in zip(arrays, grown, strict=True):
        new[: len(old)] = old
    return grown


class _TreeSearch(Solver):
    exact = True
    options: ClassVar[dict] = {"memory": None, "bound": "branch"}
    depth_first: bool

    def validate(self) -> None:
        check_number(self.config, "memory", none=True)
        check_choice(self.config, "bound", BOUNDS)

    def solve(self, problem: Problem, budget: Budget) -> Result:
        if self.config["memory"] is not None and budget.memory is None:
            budget.memory = int(self.config["memory"])
        return search(
            problem, budget, depth_first=self.depth_first, method=self.name,
            bound=self.config["bound"],
        )


@register
class AStar(_TreeSearch):
    name = "astar"
    summary = "exact best-first search (A*) with anchor-aware assignment bounds; memory-capped"
    depth_first = False


@register
class DepthFirst(_TreeSearch):
    name = "dfs"
    summary = "exact depth-first branch and bound; anytime upper bound, tiny memory"
    depth_first = True


@register
class Exact(AStar):
    name = "exact"
    summary = "the recommended exact method (A*, turning depth-first at the memory cap)"
