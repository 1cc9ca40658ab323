"""Answers by exhaustion on tiny graphs, independent of every solver."""

from __future__ import annotations

import itertools

import numpy as np

from gedkit.graph import Graph, label_key
from gedkit.problem import Problem

__all__ = ["brute_force_ged", "brute_force_mces", "brute_force_optimal_maps", "direct_count",
           "direct_ged", "direct_ged_cost"]


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


def direct_ged_cost(g1: Graph, g2: Graph, model, forward) -> float:
    """The cost of the node map ``forward`` (internal indices, -1: deleted) priced from the
    graphs and the cost model's six per-label functions alone, edge by edge, self-loops
    included (a loop goes with its node): not through :class:`Problem` and its arrays. An
    edge substitution costs at most a deletion plus an insertion, the route an edit path can
    always take. Directed graphs are priced arc by arc: the arc (i, j) lands on the arc
    (f(i), f(j)) or is deleted.

    >>> from gedkit import Graph, costs
    >>> g = Graph({0: "C", 1: "O"}, [(0, 1), (0, 0, "x")])
    >>> direct_ged_cost(g, Graph({0: "C"}), costs.uniform(), [0, -1])  # O, its bond, C's loop
    3.0
    >>> a = Graph({0: "C", 1: "O"}, [(0, 1)], directed=True)
    >>> direct_ged_cost(a, Graph({0: "C", 1: "O"}, [(1, 0)], directed=True), costs.uniform(),
    ...                 [0, 1])   # the arc reversed: deleted and inserted
    2.0
    """
    if g1.directed != g2.directed:
        raise ValueError("one graph is directed and the other is not")
    forward = [int(x) for x in forward]
    mapped = {j for j in forward if j >= 0}
    total = 0.0
    for i, j in enumerate(forward):
        a = g1.node_labels[i]
        total += model.node_del(a) if j < 0 else model.node_sub(a, g2.node_labels[j])
    for j in range(g2.n):
        if j not in mapped:
            total += model.node_ins(g2.node_labels[j])

    def edge_sub(a, b) -> float:
        return min(model.edge_sub(a, b), model.edge_del(a) + model.edge_ins(b))

    # every edge of each graph as {its ends: label}, loops with one end; the ends are a
    # set, or for arcs the ordered pair (tail, head)
    ends_of = tuple if g1.directed else frozenset
    e1 = {ends_of((int(a), int(b))): lab
          for (a, b), lab in zip(g1.edges.tolist(), g1.edge_labels, strict=True)}
    e1.update({ends_of((a,)): lab for a, lab in g1.loops.items()})
    e2 = {ends_of((int(a), int(b))): lab
          for (a, b), lab in zip(g2.edges.tolist(), g2.edge_labels, strict=True)}
    e2.update({ends_of((a,)): lab for a, lab in g2.loops.items()})
    hit = set()
    for ends, lab in e1.items():
        image = ends_of(forward[x] for x in ends)
        if -1 not in image and image in e2:
            hit.add(image)
            total += edge_sub(lab, e2[image])
        else:
            total += model.edge_del(lab)
    for ends, lab in e2.items():
        if ends not in hit:
            total += model.edge_ins(lab)
    return float(total)


def direct_ged(g1: Graph, g2: Graph, model) -> float:
    """The minimum of :func:`direct_ged_cost` over every node map (tiny graphs only): a
    reference distance that shares no code with the solvers nor with :class:`Problem`."""
    best = np.inf
    for perm in set(itertools.permutations(list(range(g2.n)) + [-1] * g1.n, g1.n)):
        best = min(best, direct_ged_cost(g1, g2, model, perm))
    return float(best)


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
