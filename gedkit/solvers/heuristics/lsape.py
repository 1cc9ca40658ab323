"""Bounds from one linear sum assignment with ε (LSAPE) between the nodes of the two graphs.

Each method prices every pair (node of g1 or ε, node of g2 or ε) and solves one LSAPE. The
assignment is a complete node map, so its true cost (:meth:`Problem.cost`) is an upper bound;
where the prices never overestimate what a node pair costs in any edit path, the assignment's
value is a lower bound too.

- ``node``: node costs alone; lower bound: that value plus the cheapest edit of all edge labels
  of g1 into those of g2 (the label-set bound).
- ``bipartite`` (Riesen and Bunke, 2009): node cost plus the cheapest edit of the edges at the
  two nodes, counted in full. Halving the value gives a (weak) lower bound.
- ``branch`` (Blumenthal and Gamper, 2018): the same with edge costs halved, since every edge
  has two ends: the value is a lower bound.
- ``branch_fast``: ``branch`` with a cheaper estimate of the edge edit that never exceeds it.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from gedkit.numeric import tolerance
from gedkit.pacing import OPS_PER_SECOND, affordable, start_up_seconds
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.cheap import cheap_bounds
from gedkit.solvers.heuristics.assignment import NO_ASSIGNMENT, lsape, lsape_fits
from gedkit.solvers.registry import register

__all__ = [
    "Neighbours",
    "assignment_fits",
    "bipartite_assignment",
    "branch_assignment",
    "branch_bounds",
    "branch_known",
    "edge_constants",
    "edge_costs",
    "edge_costs_seconds",
    "labelset_edge_cost",
    "memo",
    "neighbours",
    "node_assignment",
    "round_up",
]



class Neighbours(NamedTuple):
    """CSR neighbour lists (pointers, neighbours, edge-label ids) of both graphs."""

    ptr1: np.ndarray
    nbr1: np.ndarray
    lab1: np.ndarray
    ptr2: np.ndarray
    nbr2: np.ndarray
    lab2: np.ndarray


def memo(problem: Problem, key: Any, compute: Callable[[], Any]) -> Any:
    """``compute()``, once per problem: the heuristics of one solve (``auto``'s stages, IPFP's
    and REFINE's starts) share their neighbour lists, edge costs and assignments instead of
    computing them again."""
    store = problem.__dict__.setdefault("_heuristics", {})
    if key not in store:
        store[key] = compute()
    return store[key]


def neighbours(problem: Problem) -> Neighbours:
    """The neighbour lists the compiled kernels read (on arcs: each node's out-arcs): made
    compiled once numba has started in this process (30x faster on 2,000 nodes), else
    without it (:func:`~gedkit.compressed_rows.dense_rows`), whose start a solve pays only
    where its limit affords it."""
    from gedkit._kernels import warm

    if warm.started():
        from gedkit._kernels.order import neighbour_lists as rows
    else:
        from gedkit.compressed_rows import dense_rows as rows
    return memo(problem, "neighbours", lambda: Neighbours(*rows(problem.adj1),
                                                          *rows(problem.adj2)))


def edge_constants(problem: Problem) -> np.ndarray:
    """``(ins, del, capped sub, flag)`` for label-equality edge costs, flag 0 otherwise."""
    const = problem.constant_costs
    if const is None:
        return np.zeros(4)
    ins, dele, sub = const[3:]
    return np.array([ins, dele, min(sub, ins + dele), 1.0])


def edge_costs(problem: Problem, nb: Neighbours | None = None, fast: bool = False) -> np.ndarray:
    """``(n1+1) × (n2+1)`` matrix: the cheapest edit of the edges at node i of g1 into those at
    node k of g2 (deleting all at i in the last column, inserting all at k in the last row).
    ``fast`` takes the BRANCH_FAST estimate instead, never larger.

    On arcs: the out-arcs of i against those of k plus the in-arcs of i against those of k
    (every arc has one end of each kind, so half of it is BRANCH's share, as for edges). On
    the pair problem of a directed pair (:func:`gedkit.solvers.exact.arcs.pair_problem`):
    the node pairs at i against those at k, both orientations of a pair together, where that
    matching is cheap (:func:`_arcs_of`); else the arcs' costs, never larger."""
    arcs = _arcs_of(problem)
    if arcs is not None:
        return edge_costs(arcs, fast=fast)
    nb = nb or neighbours(problem)
    if problem.directed:
        def both_ends():
            from gedkit._kernels.order import neighbour_lists

            into = Neighbours(*neighbour_lists(np.ascontiguousarray(problem.adj1.T)),
                              *neighbour_lists(np.ascontiguousarray(problem.adj2.T)))
            return _incident(problem, nb, fast) + _incident(problem, into, fast)

        return memo(problem, ("edge_costs", fast), both_ends)
    return memo(problem, ("edge_costs", fast), lambda: _incident(problem, nb, fast))


def _incident(problem: Problem, nb: Neighbours, fast: bool) -> np.ndarray:
    from gedkit._kernels.lsape_costs import incident_edge_costs, incident_edge_costs_fast

    emat = problem.edge_label_matrix
    if fast:
        return incident_edge_costs_fast(nb.ptr1, nb.lab1, nb.ptr2, nb.lab2, emat)
    return incident_edge_costs(nb.ptr1, nb.lab1, nb.ptr2, nb.lab2, emat,
                               edge_constants(problem))


def edge_costs_seconds(problem: Problem, fast: bool = False) -> float:
    """What :func:`edge_costs` may take: a count per node pair under label-equality costs
    (and for ``fast``), else a matching of the two nodes' edge labels."""
    arcs = _arcs_of(problem)
    if arcs is not None:
        return edge_costs_seconds(arcs, fast)
    return _edge_seconds(problem, counted=fast or problem.constant_costs is not None)


def _edge_seconds(problem: Problem, counted: bool) -> float:
    """Edge costs for every node pair: a count (``counted``) or a matching of the two nodes'
    edge labels each."""
    d1 = int(problem.g1.degrees().max(initial=0))
    d2 = int(problem.g2.degrees().max(initial=0))
    per_pair = d1 + d2 + 1 if counted else (d1 + d2 + 2) ** 3
    return (problem.n1 + 1) * (problem.n2 + 1) * per_pair / OPS_PER_SECOND


#: a pair problem's edges are matched as pairs (both orientations together: a stronger
#: bound) where that is estimated to take at most this long; the estimate runs ~30 times
#: over the time taken (300 nodes of ~12 pairs each: 1.1 s taken, 31 s estimated)
PAIR_MATCHING_SECONDS = 0.5


def _arcs_of(problem: Problem) -> Problem | None:
    """The directed problem whose edge costs stand for the pair problem ``problem``'s, when
    matching its pairs is not cheap (:data:`PAIR_MATCHING_SECONDS`); else None."""
    arcs = problem.__dict__.get("pair_of")
    if arcs is None or _edge_seconds(problem, counted=False) <= PAIR_MATCHING_SECONDS:
        return None
    return arcs


def branch_known(problem: Problem) -> bool:
    """Whether BRANCH's assignment for ``problem`` is computed already (kept: free again)."""
    return ("branch", False) in problem.__dict__.get("_heuristics", {})


def assignment_fits(problem: Problem, budget: Budget, count: int = 1) -> bool:
    """Whether :func:`edge_costs` and then ``count`` assignments fit what ``budget`` has
    left (BRANCH's, when already computed for this problem, is free)."""
    if count == 1 and branch_known(problem):
        return True
    return lsape_fits(problem.n1, problem.n2, budget, count, edge_costs_seconds(problem),
                      kernels=True)


def labelset_edge_cost(problem: Problem) -> float:
    """The cheapest edit of the multiset of edge labels of g1 into that of g2: what the edges
    cost at least, whatever the node map."""
    K = problem.edge_label_matrix.shape[0] - 1
    el1, el2 = problem.edge_labels1, problem.edge_labels2
    c = edge_constants(problem)
    if c[3]:
        common = np.minimum(np.bincount(el1, minlength=K), np.bincount(el2, minlength=K)).sum()
        m1, m2 = len(el1), len(el2)
        low = min(m1, m2)
        return float((low - common) * c[2] + (m1 - low) * c[1] + (m2 - low) * c[0])
    rows, cols = np.append(el1, K), np.append(el2, K)
    return lsape(problem.edge_label_matrix[np.ix_(rows, cols)])[1]


def round_up(problem: Problem, lower: float) -> float:
    """With integer costs the distance is an integer: a lower bound may round up. (Read
    from the problem's cached answer: rounding its cost matrix again at every call took a
    copy of it, 32 MB at 2,000 nodes, which put auto under memory=256M over its cap.)"""
    if problem.integral_costs:
        return float(np.ceil(lower - tolerance(lower)))
    return lower


def node_assignment(problem: Problem) -> tuple[np.ndarray, float]:
    """The ``node`` method: (node map, lower bound)."""
    forward, value = lsape(problem.node_costs)
    return forward, round_up(problem, value + labelset_edge_cost(problem))


def bipartite_assignment(
    problem: Problem, edges: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """The ``bipartite`` method: (node map, lower bound). ``edges``: :func:`edge_costs`, if
    already computed.

    The value with full edge costs is at most twice the ``branch`` value (node costs are
    non-negative), so half of it is a lower bound.
    """
    if edges is None and (found := _by_classes(problem, "bipartite")) is not None:
        forward, value = found
    else:
        edges = edge_costs(problem) if edges is None else edges
        forward, value = memo(problem, "bipartite", lambda: lsape(problem.node_costs + edges))
    return forward, round_up(problem, value / 2)


#: pairs with at least this many nodes in the larger graph take BRANCH's (and the bipartite
#: heuristic's) assignment from the program over their branch classes where it applies
#: (:mod:`gedkit.solvers.heuristics.branch_classes`): at 2,000 nodes 20-40 ms against the
#: assignment over nodes' 0.6 s; below, the assignment is a few milliseconds anyway and
#: keeps its own maps
CLASSES_FROM_NODES = 500


def branch_assignment(
    problem: Problem, edges: np.ndarray | None = None, fast: bool = False
) -> tuple[np.ndarray, float]:
    """The ``branch`` (or ``branch_fast``) method: (node map, lower bound)."""
    if edges is None and (found := _by_classes(problem, ("branch", fast))) is not None:
        return found[0], round_up(problem, found[1])
    edges = edge_costs(problem, fast=fast) if edges is None else edges
    forward, value = memo(problem, ("branch", fast),
                          lambda: lsape(problem.node_costs + 0.5 * edges))
    return forward, round_up(problem, value)


def classes_of(problem: Problem):
    """The branch classes BRANCH's assignment is taken from on ``problem``, if it is."""
    from gedkit.solvers.heuristics.branch_classes import BranchClasses

    if max(problem.n1, problem.n2) < CLASSES_FROM_NODES:
        return None
    return BranchClasses.of(problem)


#: the assignments taken over classes, by the key their assignment over nodes is kept under:
#: whether the edges are priced by BRANCH_FAST's estimate, and their weight
_CLASS_PROGRAMS = {("branch", False): (False, 0.5), ("branch", True): (True, 0.5),
                   "bipartite": (False, 1.0)}


def classes_fit(classes, budget: Budget, count: int = 1) -> bool:
    """Whether ``count`` assignments over the branch ``classes`` (of :func:`classes_of`) fit
    what ``budget`` has left, a first call's start-up included."""
    return affordable(count * classes.seconds() + start_up_seconds(kernels=True), budget)


def _by_classes(problem: Problem, key) -> tuple[np.ndarray, float] | None:
    """The assignment of ``key`` (one of :data:`_CLASS_PROGRAMS`) and its value from the
    program over the branch classes, kept as the assignment over nodes is (under the same
    key); None where that does not apply."""
    classes = classes_of(problem)
    if classes is None:
        return None
    store = problem.__dict__.setdefault("_heuristics", {})
    if key not in store:
        fast, weight = _CLASS_PROGRAMS[key]
        found = classes.assignment(fast=fast, edge_weight=weight)
        if found is None:  # (a plan not whole, or HiGHS failing: the nodes' assignment)
            return None
        store[key] = found
    return store[key]


class _Assignment(Solver):
    """One LSAPE: the map gives the upper bound, the value (if valid) the lower bound."""

    # on arcs the edge costs match out-arcs and in-arcs apart (edge_costs): every arc has
    # one end of each kind, so the halved costs bound as the edges' do
    directed = True

    @abstractmethod
    def assign(self, problem: Problem) -> tuple[np.ndarray, float]:
        """(node map, lower bound)."""

    def fits(self, problem: Problem, budget: Budget) -> bool:
        """Whether :meth:`assign` fits the budget (it cannot be stopped half-way)."""
        return assignment_fits(problem, budget)

    def solve(self, problem: Problem, budget: Budget) -> Result:
        t0 = time.perf_counter()
        if not self.fits(problem, budget):
            result = cheap_bounds(problem, budget, self.name)
            result.stats["stopped"] = NO_ASSIGNMENT
            return result
        forward, lower = self.assign(problem)
        return Result.from_assignment(
            problem, forward, lower, self.name, time=time.perf_counter() - t0
        )


@register
class NodeAssignment(_Assignment):
    name = "node"
    summary = "LSAPE on node costs (upper bound) with the label-set lower bound"

    kernels = ()  # SciPy's assignment only

    def fits(self, problem, budget):
        return lsape_fits(problem.n1, problem.n2, budget) and (
            problem.constant_costs is not None
            or lsape_fits(problem.g1.m + 1, problem.g2.m + 1, budget))

    def assign(self, problem):
        return node_assignment(problem)


class _ClassAssignment(_Assignment):
    """An assignment over the branch classes on large pairs where they apply (see
    :func:`branch_assignment`), whose time it estimates by theirs."""

    kernels = ("assignment",)

    def fits(self, problem, budget):
        classes = classes_of(problem)
        if classes is None:
            return assignment_fits(problem, budget)
        return classes_fit(classes, budget)


@register
class Bipartite(_ClassAssignment):
    name = "bipartite"
    summary = "Riesen-Bunke bipartite heuristic: LSAPE on node plus incident-edge costs"

    def assign(self, problem):
        return bipartite_assignment(problem)


@register
class Branch(_ClassAssignment):
    name = "branch"
    summary = "BRANCH (Blumenthal-Gamper): LSAPE lower bound with halved edge costs, and its map"

    def assign(self, problem):
        return branch_assignment(problem)


@register
class BranchFast(_ClassAssignment):
    name = "branch_fast"
    summary = "BRANCH_FAST: BRANCH with a cheaper, still valid, estimate of the edge edit"

    def assign(self, problem):
        return branch_assignment(problem, fast=True)


def branch_bounds(problem: Problem, budget: Budget, method: str) -> Result:
    """The cheap bounds, with BRANCH's bound and map where its assignment fits: what a
    method that could not run (a program too large, a search whose first expansion does not
    fit) answers, never worse than the other methods' fall-backs (a 300-node pair's program
    answered the cheap bounds' 8 where BRANCH proves 41 in a tenth of a second; a 2,000-node
    pair's exact search 45 where BRANCH proves 128 in 0.8 s)."""
    from gedkit._kernels import warm
    from gedkit.budget import kernels_fit

    base = cheap_bounds(problem, budget, method)
    branch = Branch()
    # (over branch classes on large pairs, as it runs); its kernels compiled, as every
    # method's fall-back needs them: called directly, BRANCH compiled them in the
    # foreground, 2-3 s past a 1 s limit on a fresh install; the memory first: BRANCH's
    # sizing loads numba, whose start-up is what must fit
    if (not kernels_fit(budget, problem) or not branch.fits(problem, budget)
            or not all(map(warm.ready, branch.kernels))):
        return base
    forward, lower = branch.assign(problem)
    if problem.cost(forward) >= problem.cost(base.assignment):
        forward = base.assignment
    return Result.from_assignment(problem, forward, max(base.lower_bound, lower), method,
                                  stats=base.stats)
