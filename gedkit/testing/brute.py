"""Answers by exhaustion on tiny graphs, independent of every solver."""

from __future__ import annotations

import itertools

import numpy as np

from gedkit.graph import Graph, label_key
from gedkit.problem import Problem

__all__ = ["brute_force_ged", "brute_force_mces", "brute_force_optimal_maps", "direct_count"]


def brute_force_ged(problem: Problem) -> float:
    """The minimum of :meth:`Problem.cost` over every node map (tiny graphs only: the maps
    number about ``(n1 + n2)! / n2!``). On a problem with fixed or forbidden pairs, the
    minimum over the maps that keep them, each priced by the unconstrained problem.

    >>> from gedkit import Graph, costs
    >>> p = costs.uniform().compile(Graph({0: "C"}, []), Graph({0: "N", 1: "C"}, [(0, 1)]))
    >>> brute_force_ged(p)
    2.0
    >>> brute_force_ged(p.constrained(fixed=[(0, 0)]))   # C -> N: relabel, insert C and edge
    3.0
    """
    return brute_force_optimal_maps(problem)[0]


def brute_force_optimal_maps(problem: Problem, tol: float = 1e-9) -> tuple[float, list]:
    """The distance (as :func:`brute_force_ged`) and every node map that reaches it (as
    tuples of ``forward``), in the order enumerated.

    >>> from gedkit import Graph, costs
    >>> path = Graph({0: "C", 1: "C"}, [(0, 1)])
    >>> brute_force_optimal_maps(costs.uniform().compile(path, path))
    (0.0, [(0, 1), (1, 0)])
    """
    from gedkit.constraints import satisfies

    n1, n2 = problem.n1, problem.n2
    base = problem.unconstrained
    best, maps = np.inf, []
    seen = set()
    for perm in itertools.permutations(list(range(n2)) + [-1] * n1, n1):
        if perm in seen:
            continue
        seen.add(perm)
        forward = np.array(perm, dtype=np.int64)
        if not satisfies(problem.allowed, forward):
            continue
        cost = base.cost(forward)
        if cost < best - tol * max(1.0, abs(best) if best < np.inf else 1.0):
            best, maps = cost, [perm]
        elif cost <= best + tol * max(1.0, abs(best)):
            maps.append(perm)
    return best, maps


def direct_count(g1: Graph, g2: Graph, pairs: dict) -> int:
    """Common edges of the caller-id map ``pairs``, from the graphs alone (not through
    :class:`~gedkit.mces.problem.MCESProblem`)."""
    e2 = {
        frozenset((g2.ids[a], g2.ids[b])): label_key(lab)
        for (a, b), lab in zip(g2.edges.tolist(), g2.edge_labels, strict=True)
    }
    kept = 0
    missing = object()
    for (a, b), lab in zip(g1.edges.tolist(), g1.edge_labels, strict=True):
        u, v = g1.ids[a], g1.ids[b]
        if u in pairs and v in pairs and e2.get(frozenset((pairs[u], pairs[v])),
                                                missing) == label_key(lab):
            kept += 1
    return kept


def brute_force_mces(g1: Graph, g2: Graph) -> int:
    """The largest common edge count over every injective, label-preserving partial map.

    >>> from gedkit import Graph
    >>> path = Graph({0: "C", 1: "C", 2: "O"}, [(0, 1), (1, 2)])
    >>> brute_force_mces(path, Graph({0: "O", 1: "C"}, [(0, 1)]))
    1
    """
    keys1 = dict(zip(g1.ids, g1.node_keys, strict=True))
    keys2 = dict(zip(g2.ids, g2.node_keys, strict=True))
    best = 0

    def extend(k: int, pairs: dict, used: set) -> None:
        nonlocal best
        if k == g1.n:
            best = max(best, direct_count(g1, g2, pairs))
            return
        u = g1.ids[k]
        extend(k + 1, pairs, used)
        for v in g2.ids:
            if v not in used and keys1[u] == keys2[v]:
                pairs[u] = v
                used.add(v)
                extend(k + 1, pairs, used)
                del pairs[u]
                used.discard(v)

    extend(0, {}, set())
    return best
