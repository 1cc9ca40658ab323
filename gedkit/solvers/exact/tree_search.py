"""Exact GED by tree search: best-first (``astar``) and depth-first branch and bound (``dfs``).

Both drive the one compiled kernel in :mod:`gedkit._kernels.tree_search`. A* keeps its frontier
within a memory cap; when the cap is reached it does not fail but turns its frontier into a
depth-first stack, which needs almost no further memory, and goes on proving.

Directed problems run the same kernel on node pairs with oriented labels
(:mod:`gedkit.solvers.exact.arcs`).
"""

from __future__ import annotations

import math
import time
from typing import ClassVar

import numpy as np

from gedkit._kernels.bundles import WARM_ENTRIES, Frontier, ged_pair, search_settings
from gedkit.anytime import listening, report
from gedkit.configurable import Option, choice, number
from gedkit.numeric import tolerance
from gedkit.pacing import (
    OPS_PER_SECOND,
    affordable,
    expansion_ops,
    first_chunk,
    next_chunk,
    start_up_seconds,
)
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.exact.arcs import arc_view, bound_adjacency
from gedkit.solvers.exact.arcs import twin_classes as directed_twins
from gedkit.solvers.registry import register

__all__ = ["AStar", "DepthFirst", "TreeSearch", "search"]

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
    """Exact search on ``problem`` within ``budget``; see :class:`TreeSearch`."""
    # (the memory the call has left: its imports and problem count, and given the whole
    # cap the frontier grew a 256 MiB call by 425 MiB)
    run = TreeSearch(problem, depth_first=depth_first, method=method, counting=counting,
                     bound=bound, memory=budget.cap_left(), threshold=budget.threshold,
                     decide=budget.decide)
    run.offer(incumbent, lower_bound)
    return run.run(budget)


class TreeSearch:
    """One exact search that can be continued: :meth:`run` searches within a budget and
    returns the bounds so far, a later :meth:`run` goes on from the same frontier, and
    :meth:`offer` hands it a map or a lower bound found elsewhere in between.

    ``counting`` (default: whenever costs depend on label equality alone) selects the
    incremental bound; forcing it off gives the same search, slower (tests compare both).
    ``bound`` is ``"branch"`` (the default: one anchor-aware assignment per expanded state on
    top of the per-child label-set bound; stronger, and an upper bound at every step) or
    ``"labelset"`` (the per-child bound alone). ``memory`` caps the frontier and the kernel's
    work arrays (default :data:`DEFAULT_MEMORY`); ``threshold`` prunes what exceeds it and
    stops at the first map within it, or with ``decide=False`` goes on to the best map within
    it (what a similarity search needs: the exact distance of every graph within reach).
    """

    def __init__(self, problem: Problem, *, depth_first: bool, method: str,
                 counting: bool | None = None, bound: str = "branch",
                 memory: int | None = None, threshold: float | None = None,
                 decide: bool = True):
        self.problem, self.method = problem, method
        self.swap = problem.n1 > problem.n2
        p = self.p = problem.transposed() if self.swap else problem
        n1 = p.n1
        self.depth_first = depth_first
        self.stats = {"expanded": 0, "generated": 0, "peak_states": 0, "peak_bytes": 0}
        # node labels as the search reads them (refined by fixed and forbidden pairs, if any)
        const = p.constant_costs if p.search_labels.constant is not None else None
        if counting is None or const is None:
            counting = const is not None
        # arcs: oriented node pairs, whose costs are never label-equality costs
        self.arcs = arc_view(p) if p.directed else None
        if self.arcs is not None:
            counting = False
        self.counting, self.branch = counting, bound == "branch"
        self.row_bytes = 4 * n1 + 36
        memory = memory if memory is not None else DEFAULT_MEMORY
        self.ops = expansion_ops(p.n1, p.n2, p.g1.m, p.g2.m, counting, self.branch)
        edge_ids = (p.edge_label_matrix if self.arcs is None else self.arcs.matrix).shape[0]
        self.workspace = _workspace_bytes(p, self.branch, edge_ids)
        # growing copies the arrays: old and new together stay within the cap
        self.rows = int((memory - self.workspace) // self.row_bytes)
        self.max_capacity = 2 * self.rows // 3
        # always a float: an int threshold would compile another specialisation of the kernel
        self.cutoff = self.stop_at = math.inf if threshold is None else float(threshold)
        if threshold is None or not decide:
            self.stop_at = -math.inf
        self.tol = tolerance(p.largest_cost)
        self.fctl = np.array([math.inf, 0.0, math.inf])  # UB, LB, PRUNED (see the kernel)
        self.best_map = np.full(n1, -1, dtype=np.int64)
        self.status: int | None = None  # last kernel status; None: not started
        self.reason = "optimal"

    def offer(self, forward: np.ndarray | None, lower_bound: float = 0.0) -> None:
        """A node map of the problem (None: none) and a lower bound proven elsewhere; the
        search keeps whichever map is cheaper and the larger bound."""
        self.fctl[1] = max(self.fctl[1], float(lower_bound))
        if forward is not None:
            seed = np.asarray(forward, dtype=np.int64)
            seed = self.problem.inverse(seed) if self.swap else seed
            cost = self.p.cost(seed)
            if cost < self.fctl[0]:
                self.fctl[0] = cost
                self.best_map[:] = seed
        if self.status is not None and not self.depth_first:
            self._floor(float(lower_bound))

    def _floor(self, lower: float) -> None:
        """Raise the open states' bounds to ``lower``, a bound proven elsewhere (no map costs
        less, so it bounds every state), and reorder the heap. The states below it then tie,
        and among equals the deepest goes first: the search dives to maps at once instead of
        first going through every state under the bound level by level. On a 21/27-atom pair
        whose program proved 26 (A* itself at 24), the continued A* found 27 in 0.1 s, not
        the 1 s it took to get there unfloored (benchmarks/RESULTS.md, "Session 43")."""
        kernel = self.kernel
        size = int(self.ctl[kernel.HEAP])
        f, depth = self.frontier.f, self.frontier.depth
        live = self.frontier.heap[:size]
        if size == 0 or f[live].min() >= lower:
            return
        f[live] = np.maximum(f[live], lower)
        # an array sorted by the heap's order (smaller bound, then deeper) is a valid heap
        live[:] = live[np.lexsort((-depth[live], f[live]))]

    def _start(self) -> None:
        from gedkit._kernels import tree_search as kernel
        from gedkit._kernels.order import neighbour_lists, rarity_order, twin_classes

        p, n1, n2 = self.p, self.p.n1, self.p.n2
        const = p.constant_costs
        labels = p.search_labels
        nconst = _label_costs(labels.constant)
        arcs = self.arcs
        if arcs is None:
            econst = _label_costs(None if const is None else const[3:])
            adj1, adj2, emat = p.adj1, p.adj2, p.edge_label_matrix
            edges = (p.g1.edges, p.edge_labels1, p.g2.edges, p.edge_labels2)
            ptr1, nbr1, lab1 = neighbour_lists(adj1)
            ptr2, nbr2, lab2 = neighbour_lists(adj2)
            twins = twin_classes(adj2, labels.labels2)
        else:
            econst = _label_costs(None)
            adj1, adj2, emat = arcs.adj1, arcs.adj2, arcs.matrix
            edges = (arcs.edges1, arcs.labels1, arcs.edges2, arcs.labels2)
            k = len(arcs.swap)
            ptr1, nbr1, lab1 = neighbour_lists(bound_adjacency(adj1, k))
            ptr2, nbr2, lab2 = neighbour_lists(bound_adjacency(adj2, k))
            twins = directed_twins(arcs, labels.labels2)
        order = rarity_order(ptr1, nbr1, lab1, labels.labels1, labels.labels2, lab2)
        self.kernel = kernel
        self.pair = tuple(ged_pair(
            p.node_costs, adj1, adj2, emat, labels.matrix,
            labels.labels1, labels.labels2, nconst, econst, *edges,
            ptr1, nbr1, lab1, ptr2, nbr2, lab2, order, twins,
        ))
        self.capacity = min(max(_FIRST_CAPACITY, 4 * (n2 + 1)), self.max_capacity)
        self.ctl = np.zeros(6, dtype=np.int64)
        self.frontier = _allocate(self.capacity, n1, self.ctl, self.fctl, self.best_map)
        g, f, depth, heap = (self.frontier.g, self.frontier.f, self.frontier.depth,
                             self.frontier.heap)
        # the root: nothing assigned
        g[0] = f[0] = 0.0
        depth[0] = 0
        heap[0] = 0
        self.ctl[kernel.HEAP] = 1
        self.ctl[kernel.POOL] = 1
        self.chunk = first_chunk(self.ops)
        self.status = kernel.STATUS_BUDGET

    def run(self, budget: Budget) -> Result:
        """Search on within ``budget``; the bounds so far (optimal once the search is done)."""
        t0 = time.perf_counter()
        p, n1, n2 = self.p, self.p.n1, self.p.n2
        if n1 == 0:
            forward = np.empty(0, dtype=np.int64)
            return self._finish(forward, math.inf, t0, "optimal")
        if self.status is None:
            fits = self.max_capacity >= n2 + 2
            start_up = start_up_seconds(kernels=True)
            if not fits or not affordable(self.ops / OPS_PER_SECOND + start_up, budget):
                # not one expansion fits the memory or the time left: cheaper bounds instead
                why = "time limit" if fits else "memory cap"
                # (or the process's start of its compiled kernels: a search's pair in a
                # process that had not started them blamed the expansion)
                step = self.ops / OPS_PER_SECOND
                numba = fits and start_up and affordable(step, budget)
                what = ("numba's start in this process (the kernels' first use)" if numba
                        else "one expansion of the search")
                self.stats["stopped"] = f"{why}: {what} does not fit"
                if fits and not numba:  # (the note says how far from fitting)
                    self.stats["expansion_seconds"] = round(step, 2)
                return self._cheap(budget, t0)
            self._start()
            from gedkit.solvers.heuristics.lsape import CLASSES_FROM_NODES, branch_bounds

            if max(n1, n2) >= CLASSES_FROM_NODES and self.fctl[0] == math.inf:
                # a large pair's search reaches few leaves in any limit: it starts from
                # BRANCH's map, which its fall-back answers (a 2,000-node pair searched for
                # 30 s ended at 8,027 where that map costs 7,282 after 0.8 s: given more
                # time than a first expansion needs, the answer was worse)
                first = branch_bounds(self.problem, budget, self.method)
                self.offer(first.assignment, first.lower_bound)
        kernel = self.kernel
        finished = (kernel.STATUS_DONE, kernel.STATUS_STOP)
        # best-first keeps room for a full depth-first dive (n1 levels of at most n2 + 1
        # children), so that turning depth-first at the cap stays exact; beyond half the cap
        # that room cannot be had, and a full stack gives up its least promising states
        dive = min((n1 + 1) * (n2 + 1), self.max_capacity // 2)
        while self.status not in finished:
            reserve = n2 + 1 if self.depth_first else max(n2 + 1, dive)
            tick = time.perf_counter()
            settings = search_settings(
                self.depth_first, self.counting, self.branch, p.integral_costs, reserve,
                self.chunk, self.cutoff, self.stop_at, self.tol,
            )
            # plain tuples: numba's fast argument path (see the kernel)
            self.status = kernel.tree_search(self.pair, tuple(self.frontier), tuple(settings))
            if self.status in finished:
                break
            if listening():
                self._report()
            if self.status == kernel.STATUS_FULL:
                self._full(budget)
            if budget.expired():
                self.reason = "time limit"
                break
            self.chunk = next_chunk(self.chunk, time.perf_counter() - tick, budget.remaining())
        return self._result(budget, t0)

    def _report(self) -> None:
        """Tell an anytime listener the search's bounds so far (its best map once it has
        one, and the least bound of the frontier and of what was pruned)."""
        if self.fctl[self.kernel.UB] == math.inf:
            return
        forward = self.p.inverse(self.best_map) if self.swap else self.best_map
        report(forward, self._lower_bound(), self.method)

    def _lower_bound(self) -> float:
        """The search's lower bound so far: the least bound of the open frontier and of what
        was pruned (once done, of what was pruned), never above the incumbent."""
        return float(self.kernel.frontier_bound(self.status, self.frontier.f,
                                                self.frontier.heap, self.ctl, self.fctl))

    def _full(self, budget: Budget) -> None:
        """No room for another expansion: grow (within the memory ``budget`` has left: a
        search continued after other stages, auto's, grew by its own cap on top of
        theirs), turn depth-first, or drop states."""
        kernel, ctl = self.kernel, self.ctl
        f, heap = self.frontier.f, self.frontier.heap
        # (old and new arrays together within the cap: doubling from past a third of it to
        # the most the cap holds took up to 4/3 of it, a 1 GiB dfs grew by 1.1 GiB)
        grown = min(2 * self.capacity, self.max_capacity, self.rows - self.capacity)
        if budget.memory is not None:
            # (the kernel's work arrays come on top at each call)
            grown = min(grown, int((budget.memory_left() - self.workspace) // self.row_bytes))
        if grown <= self.capacity:
            self.max_capacity = self.capacity  # (no room to grow: at the cap)
        if self.capacity < self.max_capacity:
            self.capacity = grown
            self.frontier = _grow(self.frontier, self.capacity)
        elif not self.depth_first:
            # memory cap reached: the frontier becomes a depth-first stack, best on top
            live = heap[: ctl[kernel.HEAP]]
            heap[: len(live)] = live[np.argsort(-f[live], kind="stable")]
            self.depth_first = True
            self.reason = "memory cap: continued depth-first"
            self.stats["memory_cap_hit"] = True
        else:
            # even the stack is full: give up the states at its bottom (the least promising
            # of the old frontier); their least bound caps the lower bound
            dropped = _drop_bottom(heap, self.frontier.free, f, ctl, self.fctl, kernel,
                                   self.p.n2 + 1)
            self.stats["dropped_states"] = self.stats.get("dropped_states", 0) + dropped

    def _result(self, budget: Budget, t0: float) -> Result:
        kernel, ctl, fctl, stats = self.kernel, self.ctl, self.fctl, self.stats
        stats["expanded"] = int(ctl[kernel.EXPANDED])
        stats["generated"] = int(ctl[kernel.GENERATED])
        stats["peak_states"] = int(ctl[kernel.PEAK])
        stats["peak_bytes"] = int(self.capacity * self.row_bytes + self.workspace)
        ub, lb = fctl[kernel.UB], self._lower_bound()
        reason = "threshold reached" if self.status == kernel.STATUS_STOP else self.reason
        if ub == math.inf:
            # no complete map reached in time: the cheap bounds' map, with the search's bound
            stats["stopped"] = reason
            return self._cheap(budget, t0, lb)
        return self._finish(self.best_map, lb, t0, reason)

    def _cheap(self, budget: Budget, t0: float, lower_bound: float | None = None) -> Result:
        """The cheap bounds with BRANCH's where its assignment fits
        (:func:`~gedkit.solvers.heuristics.lsape.branch_bounds`), or the search's map if
        better, with the larger of the two lower bounds."""
        from gedkit.solvers.heuristics.lsape import branch_bounds

        base = branch_bounds(self.problem, budget, self.method)
        forward = base.assignment
        if self.fctl[0] < base.upper_bound:
            forward = self.best_map
            forward = self.p.inverse(forward) if self.swap else forward
        lower = max(self.fctl[1] if lower_bound is None else lower_bound, base.lower_bound)
        self.stats.setdefault("stopped", "no complete map found in time")
        return Result.from_assignment(self.problem, forward, lower, self.method,
                                      time=time.perf_counter() - t0, stats=dict(self.stats))

    def _finish(self, forward: np.ndarray, lb: float, t0: float, reason: str) -> Result:
        if self.swap:
            forward = self.p.inverse(np.asarray(forward, dtype=np.int64))
        self.stats["stopped"] = reason
        return Result.from_assignment(self.problem, forward, lb, self.method,
                                      time=time.perf_counter() - t0, stats=dict(self.stats))


def _workspace_bytes(p: Problem, branch: bool, ke: int) -> int:
    """What the kernel allocates besides the frontier (its work arrays, per call), with
    ``ke`` edge-label ids."""
    n1, n2 = p.n1, p.n2
    size = max(n1, n2, p.g1.m, p.g2.m) + 1
    kn = p.search_labels.matrix.shape[0]
    degree = int(p.g2.degrees().max(initial=0))
    words = (2 * n1 * ke + (n2 + 1) * (ke + degree + 16) + 12 * (n1 + n2) + 4 * size
             + 4 * (kn + ke))
    if p.constant_costs is None or p.search_labels.constant is None or p.directed:
        words += (2 * size + 1) ** 2 + 12 * size  # matchings of label multisets
    if branch:
        words += 2 * n2 * n2
        if n1 * (n1 + n2) <= WARM_ENTRIES:  # the warm starts' duals and maps per depth
            words += n1 * (n1 + n2 + 1)
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


def _allocate(capacity: int, n1: int, ctl: np.ndarray, fctl: np.ndarray,
              best_map: np.ndarray) -> Frontier:
    """A frontier of ``capacity`` state slots around the search's counters and best map."""
    return Frontier(
        maps=np.empty((capacity, n1), dtype=np.int32),
        g=np.empty(capacity),
        f=np.empty(capacity),
        depth=np.empty(capacity, dtype=np.int32),
        heap=np.empty(capacity, dtype=np.int64),
        free=np.empty(capacity, dtype=np.int64),
        ctl=ctl, fctl=fctl, best_map=best_map,
    )


_SLOTTED = ("maps", "g", "f", "depth", "heap", "free")  # the fields sized by the capacity


def _grow(frontier: Frontier, capacity: int) -> Frontier:
    grown = _allocate(capacity, frontier.maps.shape[1], frontier.ctl, frontier.fctl,
                      frontier.best_map)
    for name in _SLOTTED:
        old = getattr(frontier, name)
        getattr(grown, name)[: len(old)] = old
    return grown


class _TreeSearch(Solver):
    exact = True
    directed = True
    #: gedkit.ged keeps a share of a large pair's limit to polish its map (see the API)
    tree_search = True
    kernels = ("tree_search",)
    options: ClassVar[dict[str, Option]] = {
        "memory": Option(None, "bytes for the frontier and work arrays (None: 768 MiB)",
                         number(none=True)),
        "bound": Option("branch", "lower bound of each state: " + ", ".join(BOUNDS),
                        choice(*BOUNDS)),
    }
    depth_first: bool

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
