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

from gedkit.configurable import check_choice, check_number
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.chunks import OPS_PER_SECOND, affordable, first_chunk, next_chunk
from gedkit.solvers.registry import register

__all__ = ["AStar", "DepthFirst", "search"]

DEFAULT_MEMORY = 3 << 28  # bytes for the frontier and the kernel's work arrays (768 MiB)
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
    branch = bound == "branch"
    row_bytes = 4 * n1 + 36
    memory = budget.memory if budget.memory is not None else DEFAULT_MEMORY
    ops = _expansion_ops(p, counting, branch)
    workspace = _workspace_bytes(p, branch)
    # growing copies the arrays: old and new together stay within the cap
    max_capacity = int(2 * (memory - workspace) / 3 // row_bytes)
    if max_capacity < n2 + 2 or not affordable(ops / OPS_PER_SECOND, budget):
        # not one expansion fits the memory or the time left: cheaper bounds instead
        why = "memory cap" if max_capacity < n2 + 2 else "time limit"
        stats["stopped"] = f"{why}: one expansion of the search does not fit"
        return _cheap(problem, budget, method, incumbent, lower_bound, t0, stats)
    from gedkit._kernels import tree_search as kernel
    from gedkit._kernels.order import matching_order, neighbour_lists, twin_classes

    ptr1, nbr1, lab1 = neighbour_lists(p.adj1)
    ptr2, nbr2, lab2 = neighbour_lists(p.adj2)
    order = matching_order(p.adj1, p.node_labels1, p.node_labels2)
    integral = p.integral_costs
    args = (
        p.node_costs, p.adj1, p.adj2, p.edge_label_matrix, p.node_label_matrix,
        p.node_labels1, p.node_labels2, nconst, econst,
        p.g1.edges, p.edge_labels1, p.g2.edges, p.edge_labels2,
        ptr1, nbr1, lab1, ptr2, nbr2, lab2, order,
        twin_classes(p.adj2, p.node_labels2),
    )

    capacity = min(max(_FIRST_CAPACITY, 4 * (n2 + 1)), max_capacity)
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
    chunk = first_chunk(ops)
    reason = "optimal"
    # best-first keeps room for a full depth-first dive (n1 levels of at most n2 + 1
    # children), so that turning depth-first at the cap stays exact; beyond half the cap that
    # room cannot be had, and a full stack gives up its least promising states instead
    dive = min((n1 + 1) * (n2 + 1), max_capacity // 2)
    while True:
        reserve = n2 + 1 if depth_first else max(n2 + 1, dive)
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
            elif not depth_first:
                # memory cap reached: the frontier becomes a depth-first stack, best on top
                live = heap[: ctl[kernel.HEAP]]
                heap[: len(live)] = live[np.argsort(-f[live], kind="stable")]
                depth_first = True
                reason = "memory cap: continued depth-first"
                stats["memory_cap_hit"] = True
            else:
                # even the stack is full: give up the states at its bottom (the least
                # promising of the old frontier); their least bound caps the lower bound
                dropped = _drop_bottom(heap, free, f, ctl, fctl, kernel, n2 + 1)
                stats["dropped_states"] = stats.get("dropped_states", 0) + dropped
        if budget.expired():
            reason = "timeout"
            break
        chunk = next_chunk(chunk, time.perf_counter() - tick, budget.remaining())

    stats["expanded"] = int(ctl[kernel.EXPANDED])
    stats["generated"] = int(ctl[kernel.GENERATED])
    stats["peak_states"] = int(ctl[kernel.PEAK])
    stats["peak_bytes"] = int(capacity * row_bytes + workspace)
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
        # no complete map reached in time: the cheap bounds' map, with the search's bound
        stats["stopped"] = reason
        return _cheap(problem, budget, method, None, lb, t0, stats)
    return _finish(problem, p, swap, best_map, lb, method, t0, stats, reason)


def _expansion_ops(p: Problem, counting: bool, branch: bool) -> float:
    """Simple operations one expansion costs, roughly: a bound per child (a count, or a
    matching of the labels left when costs are not label equality), and with the branch
    bound one assignment on the unused nodes of g2."""
    n1, n2 = p.n1, p.n2
    size = max(n1, n2, p.g1.m, p.g2.m) + 1
    ops = (n2 + 1) * (10 * n1 + n2 + p.g1.m + p.g2.m)
    if not counting:
        ops += (n2 + 1) * size**3
    if branch:
        ops += n2**3 + n1 * n2 * 10
    return float(ops)


def _workspace_bytes(p: Problem, branch: bool) -> int:
    """What the kernel allocates besides the frontier (its work arrays, per call)."""
    n1, n2 = p.n1, p.n2
    size = max(n1, n2, p.g1.m, p.g2.m) + 1
    kn, ke = p.node_label_matrix.shape[0], p.edge_label_matrix.shape[0]
    degree = int(p.g2.degrees().max(initial=0))
    words = (2 * n1 * ke + (n2 + 1) * (ke + degree + 16) + 12 * (n1 + n2) + 4 * size
             + 4 * (kn + ke))
    if p.constant_costs is None:
        words += (2 * size + 1) ** 2 + 12 * size  # matchings of label multisets
    if branch:
        words += 2 * n2 * n2
    return 8 * words


def _drop_bottom(heap, free, f, ctl, fctl, kernel, need: int) -> int:
    """Free the bottom half of a full depth-first stack (at least ``need`` states), keeping
    the least bound among them in ``fctl[PRUNED]`` so the lower bound stays valid."""
    size = int(ctl[kernel.HEAP])
    k = min(size, max(need, size // 2))
    gone = heap[:k].copy()
    fctl[kernel.PRUNED] = min(fctl[kernel.PRUNED], float(f[gone].min(initial=math.inf)))
    nfree = int(ctl[kernel.FREE])
    free[nfree : nfree + k] = gone
    ctl[kernel.FREE] = nfree + k
    heap[: size - k] = heap[k:size].copy()
    ctl[kernel.HEAP] = size - k
    return k


def _cheap(problem, budget, method, incumbent, lower_bound, t0, stats) -> Result:
    """The cheap bounds (:mod:`gedkit.solvers.cheap`), or the given incumbent if better, with
    the larger of the two lower bounds."""
    from gedkit.solvers.cheap import cheap_bounds

    base = cheap_bounds(problem, budget, method)
    forward = base.assignment
    if incumbent is not None and problem.cost(incumbent) < base.upper_bound:
        forward = np.asarray(incumbent, dtype=np.int64)
    stats.setdefault("stopped", "no complete map found in time")
    return Result.from_assignment(problem, forward, max(lower_bound, base.lower_bound), method,
                                  time=time.perf_counter() - t0, stats=stats)


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
    kernels = ("tree_search",)
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
