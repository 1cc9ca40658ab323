"""Bounds on the MCES that need no compiled kernel and little time at any size: what a method
answers while its kernels compile (see :mod:`gedkit._kernels.warm`) or when its first real step
cannot fit the budget.

The map pairs equal labels greedily, preferring the node of g2 that keeps the most edges to
nodes already mapped (one pass in a breadth-first order of g1); the upper bound is the class
count (:func:`gedkit.mces.bounds.class_count_bound`).
"""

from __future__ import annotations

import numpy as np

from gedkit.budget import Budget
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult
from gedkit.pair import breadth_first

__all__ = ["cheap_bounds", "greedy_map"]


def greedy_map(problem: MCESProblem) -> np.ndarray:
    """A valid node map grown in one breadth-first pass over g1: each node takes the free
    node of g2 with its label that keeps the most edges to the nodes mapped before it (ties:
    the node sharing the most of its colour-refinement colours, then the closest degree).

    >>> from gedkit import Graph
    >>> path = Graph({0: "C", 1: "C", 2: "O"}, [(0, 1), (1, 2)])
    >>> p = MCESProblem(path, path)
    >>> p.count(greedy_map(p))
    2
    """
    n1, n2 = problem.n1, problem.n2
    forward = np.full(n1, -1, dtype=np.int64)
    used = np.zeros(n2, dtype=bool)
    adj1, adj2 = problem.adj1, problem.adj2
    nbrs1 = [np.flatnonzero(row >= 0) for row in adj1]
    degree1, degree2 = problem.g1.degrees(), problem.g2.degrees()
    colours1, colours2 = problem.refinement_colours()
    for u in breadth_first(adj1):
        free = np.flatnonzero(~used & (problem.node_labels2 == problem.node_labels1[u]))
        if len(free) == 0:
            continue
        mapped = nbrs1[u][forward[nbrs1[u]] >= 0]
        # edges to already mapped neighbours that the candidate would keep
        if len(mapped):
            kept = (adj2[np.ix_(free, forward[mapped])] == adj1[u, mapped]).sum(axis=1)
            free = free[kept == kept.max()]
        if len(free) > 1:
            shared = (colours2[free] == colours1[u]).sum(axis=1)
            free = free[shared == shared.max()]
        v = free[np.argmin(np.abs(degree2[free] - degree1[u]))]
        forward[u] = v
        used[v] = True
    return forward


def cheap_bounds(problem: MCESProblem, budget: Budget, method: str, *,
                 connected: bool = False) -> MCESResult:
    """The greedy map's common edges (its largest fragment when ``connected``) and the
    class-count bound (which bounds the connected answer as well).

    >>> from gedkit import Graph
    >>> two = Graph({0: "C", 1: "O", 2: "N", 3: "S"}, [(0, 1), (2, 3)])
    >>> p = MCESProblem(two, two)
    >>> r = cheap_bounds(p, Budget(), "auto", connected=True)
    >>> r.num_edges, r.upper_bound, r.optimal
    (1, 2, False)
    """
    from gedkit.mces.bounds import class_count_bound

    forward = greedy_map(problem)
    if connected:
        forward = problem.largest_fragment(forward)
    return MCESResult.from_map(problem, forward, class_count_bound(problem), method,
                               stats={"fallback": "cheap bounds"})
