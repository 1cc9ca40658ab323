"""Bounds on the MCES that need no compiled kernel and little time at any size: what a method
answers while its kernels compile (see :mod:`gedkit._kernels.warm`) or when its first real step
cannot fit the budget.

The map pairs equal labels greedily, preferring the node of g2 that keeps the most edges to
nodes already mapped (one pass in a breadth-first order of g1); the upper bound is the class
count (:func:`gedkit.mces.bounds.class_count_bound`). Pairs of a few nodes are then searched
through in plain Python (:func:`small_search`), which proves the answer when it finishes in
its share of the time (a fresh process's ``mces("CCO", "CC(=O)O", timeout=1)``, whose numba
start-up does not fit, answered 1 common edge, unproven, against 2).
"""

from __future__ import annotations

import numpy as np

from gedkit.budget import Budget
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult
from gedkit.pair import breadth_first

__all__ = ["cheap_bounds", "greedy_map", "small_search"]


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


#: largest graphs (nodes, each side) :func:`small_search` runs on
SMALL_NODES = 16


def small_search(problem: MCESProblem, forward: np.ndarray, upper: int, budget: Budget
                 ) -> tuple[np.ndarray, bool]:
    """A node map keeping at least as many common edges as ``forward``, and whether it is a
    maximum one: a depth-first search in plain Python over g1's nodes in breadth-first order,
    each onto a free node of g2 with its label (the most edges kept first) or none, pruned by
    the edges kept so far plus those of g1 not decided yet against the best map's; it ends
    at once where a map reaches ``upper`` (a bound proven elsewhere), and stops, unproven,
    by its :class:`~gedkit.budget.StepClock` (30% of the time left, at most 0.25 s, or
    Ctrl-C). For pairs of a few nodes (:data:`SMALL_NODES`), when compiled kernels are not at
    hand.

    >>> from gedkit import Graph
    >>> ethanol = Graph({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 1)])
    >>> acid = Graph({0: "C", 1: "C", 2: "O", 3: "O"}, [(0, 1, 1), (1, 2, 2), (1, 3, 1)])
    >>> p = MCESProblem(ethanol, acid)
    >>> better, optimal = small_search(p, np.array([0, 1, 2]), 3, Budget())
    >>> p.count([0, 1, 2]), p.count(better), optimal
    (1, 2, True)
    """
    from gedkit.budget import StepClock

    n1, n2 = problem.n1, problem.n2
    labels1, labels2 = problem.node_labels1.tolist(), problem.node_labels2.tolist()
    adj1, adj2 = problem.adj1.tolist(), problem.adj2.tolist()
    order = breadth_first(problem.adj1)
    at = {u: k for k, u in enumerate(order)}
    # g1's edges decided from position k on (each at its later end's position)
    closing = [0] * (n1 + 1)
    for a, b in problem.g1.edges.tolist():
        closing[max(at[a], at[b])] += 1
    rest = [0] * (n1 + 1)
    for k in range(n1 - 1, -1, -1):
        rest[k] = rest[k + 1] + closing[k]
    earlier = [[w for w in range(n1) if adj1[u][w] >= 0 and at[w] < at[u]] for u in order]
    best, best_map = problem.count(forward), np.array(forward, dtype=np.int64)
    images = [-1] * n1  # by node of g1
    used = [False] * n2
    clock = StepClock(budget)

    def dive(k: int, kept: int) -> None:
        nonlocal best, best_map
        if k == n1:
            if kept > best:
                best, best_map = kept, np.array(images, dtype=np.int64)
            return
        if clock.step():
            return
        u = order[k]
        row = adj1[u]
        options = [(0, -1)]  # (edges kept, image): none keeps nothing
        for v in range(n2):
            if used[v] or labels2[v] != labels1[u]:
                continue
            into = adj2[v]
            gain = 0
            for w in earlier[k]:
                x = images[w]
                if x >= 0 and into[x] == row[w]:
                    gain += 1
            options.append((gain, v))
        options.sort(key=lambda o: -o[0])  # (stable: none last among those keeping nothing)
        for gain, v in options:
            if kept + gain + rest[k + 1] <= best or best >= upper:
                break  # (sorted: no later option keeps more)
            images[u] = v
            if v >= 0:
                used[v] = True
            dive(k + 1, kept + gain)
            if v >= 0:
                used[v] = False
            images[u] = -1
            if clock.stopped:
                return

    dive(0, 0)
    return best_map, not clock.stopped or best >= upper


def cheap_bounds(problem: MCESProblem, budget: Budget, method: str, *,
                 connected: bool = False) -> MCESResult:
    """The greedy map's common edges (its largest fragment when ``connected``), searched
    further on small pairs, and the class-count bound (which bounds the connected answer as
    well) or the search's proof (:func:`searched_map`).

    >>> from gedkit import Graph
    >>> two = Graph({0: "C", 1: "O", 2: "N", 3: "S"}, [(0, 1), (2, 3)])
    >>> p = MCESProblem(two, two)
    >>> r = cheap_bounds(p, Budget(), "auto", connected=True)
    >>> r.num_edges, r.upper_bound, r.optimal
    (1, 2, False)
    """

    forward, upper = searched_map(problem, budget, connected)
    return MCESResult.from_map(problem, forward, upper, method,
                               stats={"fallback": "cheap bounds"})


def searched_map(problem: MCESProblem, budget: Budget, connected: bool = False,
                 start: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """``start`` (else the greedy map), searched further on pairs of a few nodes
    (:func:`small_search`), its largest fragment when ``connected``, and the best upper
    bound known: the class count, or the map's own count where the search proved it (a
    maximum common subgraph that is connected is a maximum connected one too)."""
    from gedkit.mces.bounds import class_count_bound

    forward = greedy_map(problem) if start is None else start
    upper = class_count_bound(problem)
    if max(problem.n1, problem.n2) <= SMALL_NODES and problem.count(forward) < upper:
        forward, optimal = small_search(problem, forward, upper, budget)
        if optimal and (not connected or len(problem.fragments(forward)) <= 1):
            upper = problem.count(forward)
    if connected:
        forward = problem.largest_fragment(forward)
    return forward, upper
