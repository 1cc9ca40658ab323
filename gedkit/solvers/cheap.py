"""Bounds that need no compiled kernel and little time at any size.

What a solver answers while its kernels compile (see :mod:`gedkit._kernels.warm`), and what a
solver whose first real step cannot fit the budget (an assignment on 2 × 2,000 nodes under a
short time limit, say) falls back on:

- lower bound: under label-equality costs the label-set bound (nodes and edges, by counting);
  under other costs the value of the ``node`` assignment when it fits the budget, else the
  larger of the row and column minima of the node costs (every node of g1 is substituted or
  deleted, every node of g2 substituted or inserted, and edge costs are never negative);
- upper bound: the cost of the cheapest of a greedy map (equal labels first, then cheapest
  substitutions), a map grown edge-aware in breadth-first order (graphs up to ~200 nodes: alike
  graphs map onto each other) and the ``node`` assignment's map when it fits the budget;
- both, for pairs of a few nodes: a plain-Python depth-first search from that map
  (:func:`small_search`), which proves the distance when it finishes in its share of the time
  (a fresh process's first call under a 1 s limit, whose numba start-up does not fit, left
  ``ged("CCO", "CC(=O)O")`` at 3, unproven, against 2).
"""

from __future__ import annotations

import numpy as np

from gedkit.budget import Budget
from gedkit.pacing import affordable
from gedkit.pair import breadth_first
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.heuristics.assignment import lsape_fits

__all__ = ["cheap_bounds", "greedy_map", "grown_map", "labelset_bound", "small_search"]


def labelset_bound(problem: Problem) -> float:
    """The label-set lower bound under label-equality costs (``problem.constant_costs``).

    >>> from gedkit import Graph, costs
    >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({0: "C"}))
    >>> labelset_bound(p)   # one node and one edge too many
    2.0
    """
    ins, dele, sub, eins, edel, esub = problem.constant_costs
    return (_multiset_cost(problem.node_labels1, problem.node_labels2, ins, dele, sub)
            + _multiset_cost(problem.edge_labels1, problem.edge_labels2, eins, edel, esub))


def _multiset_cost(a: np.ndarray, b: np.ndarray, ins: float, dele: float, sub: float) -> float:
    k = int(max(a.max(initial=-1), b.max(initial=-1))) + 1
    common = int(np.minimum(np.bincount(a, minlength=k), np.bincount(b, minlength=k)).sum())
    return _unmatched_cost(common, len(a), len(b), ins, dele, min(sub, ins + dele))


def _unmatched_cost(common: int, size_a: int, size_b: int, ins: float, dele: float,
                    sub: float) -> float:
    """The least cost of turning a multiset of ``size_a`` labels into one of ``size_b``
    sharing ``common`` of them: the others substituted (``sub``, at most deletion +
    insertion) as far as both sides have them, the rest deleted or inserted."""
    low = min(size_a, size_b)
    return float((low - common) * sub + (size_a - low) * dele + (size_b - low) * ins)


def greedy_map(problem: Problem) -> np.ndarray:
    """A node map built in one pass: each node of g1 takes an unused node of g2 with its
    label, else the cheapest unused node of g2 if substituting costs less than deleting and
    inserting, else deletion."""
    n1, n2 = problem.n1, problem.n2
    costs = problem.node_costs
    forward = np.full(n1, -1, dtype=np.int64)
    free: dict[int, list[int]] = {}
    for j in range(n2 - 1, -1, -1):
        free.setdefault(int(problem.node_labels2[j]), []).append(j)
    used = np.zeros(n2, dtype=bool)
    for i in range(n1):
        same = free.get(int(problem.node_labels1[i]))
        while same and used[same[-1]]:
            same.pop()
        if same and costs[i, same[-1]] <= costs[i, n2] + costs[n1, same[-1]]:
            forward[i] = same.pop()
            used[forward[i]] = True
    for i in np.flatnonzero(forward < 0):
        gain = np.where(used, np.inf, costs[i, :n2] - costs[i, n2] - costs[n1, :n2])
        j = int(np.argmin(gain)) if n2 else -1
        if j >= 0 and gain[j] < 0:
            forward[i] = j
            used[j] = True
    return forward


# a map grown edge-aware costs about n1 * n2 * n1 / 2 gathers, and per node numpy's call
# overheads and the colour refinement's Python (measured: 8 ms for two 50-node graphs, 53 ms
# for two of 200, 2 ms for two molecules); beyond ~200 nodes the label greedy map alone answers
_GROWN_UP_TO = 1e7
_GROWN_SECONDS_PER_GATHER = 5e-9
_GROWN_SECONDS_PER_NODE = 1.5e-4


def grown_map(problem: Problem) -> np.ndarray:
    """A node map grown in one breadth-first pass over g1: each node takes the free node of g2
    (or deletion) that adds least to the cost of the nodes placed before it, its edges to them
    included (ties: the node whose surroundings are most alike, by colour refinement), so that
    alike graphs map onto each other whatever their node order.

    >>> from gedkit import Graph, costs
    >>> chain = Graph({0: "C", 1: "C", 2: "O"}, [(0, 1), (1, 2)])
    >>> turned = Graph({0: "O", 1: "C", 2: "C"}, [(0, 1), (1, 2)])
    >>> p = costs.uniform().compile(chain, turned)
    >>> p.cost(grown_map(p)), p.cost(greedy_map(p))
    (0.0, 2.0)
    """
    n1, n2 = problem.n1, problem.n2
    costs, edge_costs = problem.node_costs, problem.edge_label_matrix
    none = edge_costs.shape[0] - 1  # the edge-label id of "no edge"
    adj1 = np.where(problem.adj1 < 0, none, problem.adj1)
    # g2's adjacency with a last row and column for "deleted": no edge to it
    adj2 = np.full((n2 + 1, n2 + 1), none, dtype=adj1.dtype)
    adj2[:n2, :n2] = np.where(problem.adj2 < 0, none, problem.adj2)
    near1, near2 = problem.refinement_colours()
    free = np.ones(n2 + 1, dtype=bool)  # the last entry, deletion, stays free
    placed = np.empty(n1, dtype=np.int64)
    images = np.empty(n1, dtype=np.int64)
    forward = np.full(n1, -1, dtype=np.int64)
    for k, u in enumerate(breadth_first(problem.adj1)):
        options = np.flatnonzero(free)
        before, onto = placed[:k], images[:k]
        added = costs[u, options] + edge_costs[adj1[u, before], adj2[np.ix_(options, onto)]].sum(1)
        if problem.directed:  # the arcs from earlier nodes into u as well
            added += edge_costs[adj1[before, u], adj2[np.ix_(onto, options)].T].sum(1)
        # ties (a first node, or several alike images) go to the node sharing the most of u's
        # refinement colours, so that symmetric choices early do not mislead later ones
        tied = options[added <= added.min() + 1e-9]
        v = int(tied[np.argmax((near1[u] == near2[tied]).sum(1))])
        placed[k], images[k] = u, v
        if v < n2:
            forward[u] = v
            free[v] = False
    return forward


#: largest graphs (nodes, each side) :func:`small_search` runs on
SMALL_NODES = 12


def small_search(problem: Problem, forward: np.ndarray, budget: Budget
                 ) -> tuple[np.ndarray, bool]:
    """A node map at least as cheap as ``forward``, and whether it is optimal: a depth-first
    search in plain Python over g1's nodes in breadth-first order, each onto a free node of
    g2 or deletion (cheapest first), pruned by the cost so far plus each remaining node's
    cheapest option against the best complete map's cost. It stops, unproven, by its
    :class:`~gedkit.budget.StepClock` (30% of the time left, at most 0.25 s, or Ctrl-C).
    For pairs of a few nodes (:data:`SMALL_NODES`), when compiled kernels are not at hand.

    >>> from gedkit import Graph, costs
    >>> ethanol = Graph({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 1)])
    >>> acid = Graph({0: "C", 1: "C", 2: "O", 3: "O"}, [(0, 1, 1), (1, 2, 2), (1, 3, 1)])
    >>> p = costs.uniform().compile(ethanol, acid)
    >>> better, optimal = small_search(p, np.array([0, 1, 2]), Budget())
    >>> p.cost([0, 1, 2]), p.cost(better), optimal
    (3.0, 2.0, True)
    """
    from gedkit.budget import StepClock

    n1, n2 = problem.n1, problem.n2
    costs = problem.node_costs.tolist()
    edges = problem.edge_label_matrix.tolist()
    none = len(edges) - 1  # the edge-label id of "no edge"
    adj1 = [[none if x < 0 else x for x in row] for row in problem.adj1.tolist()]
    # g2's adjacency with a last row and column for "deleted": no edge to it
    adj2 = [[none if x < 0 else x for x in row] + [none] for row in problem.adj2.tolist()]
    adj2.append([none] * (n2 + 1))
    directed = problem.directed
    order = breadth_first(problem.adj1)
    # the cheapest option of each node of g1 (free or not), summed over those after the k-th
    cheapest = [min(costs[u]) for u in order]
    rest = [0.0] * (n1 + 1)
    for k in range(n1 - 1, -1, -1):
        rest[k] = rest[k + 1] + cheapest[k]
    inserted = [costs[n1][j] for j in range(n2)]
    g2_edges = [(int(a), int(b), none if lab < 0 else int(lab)) for (a, b), lab in
                zip(problem.g2.edges.tolist(), problem.edge_labels2.tolist(), strict=True)]
    best, best_map = problem.cost(forward), np.array(forward, dtype=np.int64)
    tol = 1e-9 * max(1.0, best)
    images = [0] * n1  # by position in order; n2 = deleted
    used = [False] * n2
    clock = StepClock(budget)
    left = _Left(problem, order) if problem.constant_costs is not None else None

    def completed(so_far: float) -> float:
        """The cost of the map in ``images``: g2's nodes and edges not reached, inserted."""
        total = so_far + sum(c for j, c in enumerate(inserted) if not used[j])
        for a, b, lab in g2_edges:
            if not (used[a] and used[b]):
                total += edges[none][lab]
        return total

    def dive(k: int, so_far: float) -> None:
        nonlocal best, best_map
        if k == n1:
            total = completed(so_far)
            if total < best - tol:
                best = total
                mapped = np.full(n1, -1, dtype=np.int64)
                for at, v in enumerate(images):
                    if v < n2:
                        mapped[order[at]] = v
                best_map = mapped
            return
        if clock.step() or (left is not None and so_far + left.bound() >= best - tol):
            return
        u = order[k]
        row, out = costs[u], adj1[u]
        if left is not None:
            left.place(k)
        options = []
        for v in range(n2 + 1):
            if v < n2 and used[v]:
                continue
            add = row[v]
            into = adj2[v]
            for at in range(k):
                w, x = order[at], images[at]
                a, b = out[w], into[x]
                if a != none or b != none:
                    add += edges[a][b]
                if directed:
                    a, b = adj1[w][u], adj2[x][v]
                    if a != none or b != none:
                        add += edges[a][b]
            options.append((add, v))
        options.sort()
        for add, v in options:
            if so_far + add + rest[k + 1] >= best - tol:
                break  # (sorted: every later option costs as much)
            images[k] = v
            if v < n2:
                used[v] = True
                if left is not None:
                    left.use(v, used)
            dive(k + 1, so_far + add)
            if v < n2:
                used[v] = False
                if left is not None:
                    left.free(v, used)
            if clock.stopped:
                break
        if left is not None:
            left.unplace(k)

    dive(0, 0.0)
    return best_map, not clock.stopped


class _Left:
    """What a partial map of :func:`small_search` leaves to price, under label-equality
    costs, as label counts: g1's nodes not placed and g2's free ones, g1's edges with an
    end not placed and g2's with an end free. Those edges can only map onto each other, so
    the label-set bound of both pairs of multisets bounds the rest of the cost (the search
    ordered by node costs alone proved 1 of 200 random pairs of molecules of at most 12
    atoms in its time)."""

    def __init__(self, problem: Problem, order: list[int]):
        ins, dele, sub, eins, edel, esub = problem.constant_costs
        self.node_costs = (ins, dele, min(sub, ins + dele))
        self.edge_costs = (eins, edel, min(esub, eins + edel))
        self.labels1 = problem.node_labels1.tolist()
        self.labels2 = problem.node_labels2.tolist()
        top = max(self.labels1 + self.labels2, default=-1) + 1
        self.nodes1, self.nodes2 = [0] * top, [0] * top
        for label in self.labels1:
            self.nodes1[label] += 1
        for label in self.labels2:
            self.nodes2[label] += 1
        at = {u: k for k, u in enumerate(order)}
        kinds = int(max(problem.edge_labels1.max(initial=-1),
                        problem.edge_labels2.max(initial=-1))) + 1
        self.edges1, self.edges2 = [0] * kinds, [0] * kinds
        self.closing: list[list[int]] = [[] for _ in order]  # g1's edges decided at k
        for (a, b), label in zip(problem.g1.edges.tolist(), problem.edge_labels1.tolist(),
                                 strict=True):
            self.edges1[label] += 1
            self.closing[max(at[a], at[b])].append(label)
        self.touching: list[list[tuple[int, int]]] = [[] for _ in range(problem.n2)]
        for (a, b), label in zip(problem.g2.edges.tolist(), problem.edge_labels2.tolist(),
                                 strict=True):
            self.edges2[label] += 1
            self.touching[a].append((b, label))
            self.touching[b].append((a, label))
        self.order = order

    def bound(self) -> float:
        return (_multiset_counts(self.nodes1, self.nodes2, *self.node_costs)
                + _multiset_counts(self.edges1, self.edges2, *self.edge_costs))

    def place(self, k: int) -> None:
        """g1's node at position ``k`` placed: it and the edges it closes leave the rest."""
        self.nodes1[self.labels1[self.order[k]]] -= 1
        for label in self.closing[k]:
            self.edges1[label] -= 1

    def unplace(self, k: int) -> None:
        self.nodes1[self.labels1[self.order[k]]] += 1
        for label in self.closing[k]:
            self.edges1[label] += 1

    def use(self, v: int, used: list[bool]) -> None:
        """g2's node ``v`` taken (``used[v]`` set): it and its edges to taken nodes leave."""
        self.nodes2[self.labels2[v]] -= 1
        for x, label in self.touching[v]:
            if used[x] and x != v:
                self.edges2[label] -= 1

    def free(self, v: int, used: list[bool]) -> None:
        """g2's node ``v`` given back (``used[v]`` cleared)."""
        self.nodes2[self.labels2[v]] += 1
        for x, label in self.touching[v]:
            if used[x] and x != v:
                self.edges2[label] += 1


def _multiset_counts(a: list[int], b: list[int], ins: float, dele: float, sub: float) -> float:
    """:func:`_multiset_cost` of two multisets given as counts per label (substitution
    already at most deletion + insertion)."""
    common = sum(min(x, y) for x, y in zip(a, b, strict=True))
    return _unmatched_cost(common, sum(a), sum(b), ins, dele, sub)


def cheap_bounds(problem: Problem, budget: Budget, method: str, search: bool = True) -> Result:
    """Bounds and a map from the cheapest means that fit ``budget`` (module docstring);
    without ``search``, no :func:`small_search` (a first map at once, for an anytime
    stream)."""
    from gedkit.solvers.heuristics.assignment import lsape
    from gedkit.solvers.heuristics.lsape import round_up

    maps = [greedy_map(problem)]
    gathers = problem.n1 * problem.n2 * problem.n1
    seconds = gathers * _GROWN_SECONDS_PER_GATHER + problem.n1 * _GROWN_SECONDS_PER_NODE
    if gathers <= _GROWN_UP_TO and affordable(seconds, budget):
        maps.append(grown_map(problem))
    lower = 0.0
    if problem.constant_costs is not None:
        lower = labelset_bound(problem)
    elif problem.n1 and problem.n2:
        c = problem.node_costs
        lower = float(max(c[:-1].min(axis=1).sum(), c[:, :-1].min(axis=0).sum()))
    if lsape_fits(problem.n1, problem.n2, budget):
        assigned, value = lsape(problem.node_costs)
        lower = max(lower, value)
        maps.append(assigned)
    # each map's cost once; ties keep the earlier map
    forward = maps[0] if len(maps) == 1 else min(maps, key=problem.cost)
    if search and max(problem.n1, problem.n2) <= SMALL_NODES and problem.cost(forward) > lower:
        forward, optimal = small_search(problem, forward, budget)
        if optimal:
            lower = problem.cost(forward)
    return Result.from_assignment(problem, forward, round_up(problem, lower), method,
                                  stats={"fallback": "cheap bounds"})
