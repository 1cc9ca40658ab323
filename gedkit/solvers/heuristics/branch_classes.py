"""BRANCH's assignment and bound on large pairs, solved over classes of alike nodes instead of
nodes.

BRANCH prices a node pair by the two nodes' labels and the labels of the edges at them
(:func:`~gedkit.solvers.heuristics.lsape.branch_assignment`), so nodes with the same label and
the same multiset of incident edge labels (a *branch*) have equal rows, or columns, in its
``(n1+1) × (n2+1)`` matrix. Its assignment's value is then the value of a transportation problem
between the branch classes of the two graphs (each class supplying, or asking for, as many units
as it has nodes; ε on each side for the deletions and insertions): an assignment is a
transportation plan, and a plan of integers, which the transportation polytope's vertices are,
splits back into an assignment of the same cost. Molecules and labelled random graphs of
2,000 nodes have 50-150 branches each, so the bound takes a linear program of a few thousand
variables (tens of milliseconds) where the assignment over nodes takes most of a second.

The bound is read from the program's dual, made feasible (each class's price the least over
the other side's), so that no rounding in the solver can overstate it. The program's plan,
split class by class, is an optimal assignment of BRANCH's matrix (and, with the edges counted
in full, of the bipartite heuristic's): ``branch``, ``branch_fast`` and ``bipartite`` take
their maps and bounds from it on pairs of
:data:`~gedkit.solvers.heuristics.lsape.CLASSES_FROM_NODES` nodes and more (among the many
optimal maps, one that keeps neighbours next to each other's images: 15-27% cheaper than the
assignment over nodes' on the 1,000- and 2,000-node limits pairs), and ``auto`` its lower
bound on pairs of 1,000 nodes and more.
"""

from __future__ import annotations

import math
import time
import weakref

import numpy as np

from gedkit.compressed_rows import take_rows
from gedkit.problem import Problem

__all__ = ["CLASS_CELLS", "BranchClasses"]

#: largest ``(classes of g1 + 1) × (classes of g2 + 1)`` the bound is solved for (larger: None)
CLASS_CELLS = 40_000
#: seconds per cell of the program, on the slow side (139 x 141 classes: 20-40 ms), and what
#: HiGHS's import and a first solve add
_SECONDS_PER_CELL = 5e-6
_START_SECONDS = 0.15


class BranchClasses:
    """A pair's branch classes and BRANCH's prices between them: :meth:`of` finds them (a few
    milliseconds at 2,000 nodes), :meth:`bound` solves the program.

    Examples
    --------
    >>> import gedkit
    >>> from gedkit.solvers.heuristics.lsape import branch_assignment
    >>> p = gedkit.costs.get("uniform").compile(gedkit.Graph({0: "C", 1: "O", 2: "C"},
    ...     [(0, 1), (1, 2)]), gedkit.Graph({0: "C", 1: "N"}, [(0, 1)]))
    >>> BranchClasses.of(p).bound() == branch_assignment(p)[1]
    True
    """

    def __init__(self, problem: Problem, reps: tuple[np.ndarray, np.ndarray],
                 counts: tuple[np.ndarray, np.ndarray], which: tuple[np.ndarray, np.ndarray]):
        # the problem by a weak reference: kept on the problem (memo), a strong one made a
        # reference cycle, and a 2,000-node pair's arrays waited for the garbage collector
        # (a kNN search held nine such pairs, 360 MB past its per-pair memory cap)
        self._problem = weakref.ref(problem)
        self.reps, self.counts, self.which = reps, counts, which

    @property
    def problem(self) -> Problem:
        """The problem whose classes these are (alive while they are used: they are kept
        on it)."""
        problem = self._problem()
        assert problem is not None, "branch classes outlived their problem"
        return problem

    @classmethod
    def of(cls, problem: Problem) -> BranchClasses | None:
        """The classes of ``problem`` (found once per problem); None where the bound does not
        apply (fixed or forbidden pairs, directed graphs) or the classes are more than
        :data:`CLASS_CELLS` allows."""
        from gedkit.solvers.heuristics.lsape import memo

        return memo(problem, "branch classes", lambda: cls._find(problem))

    @classmethod
    def _find(cls, problem: Problem) -> BranchClasses | None:
        from gedkit.solvers.heuristics.lsape import neighbours

        if problem.allowed is not None or problem.directed:
            return None
        nb = neighbours(problem)
        reps1, counts1, which1 = _classes(problem.node_labels1, nb.ptr1, nb.lab1)
        reps2, counts2, which2 = _classes(problem.node_labels2, nb.ptr2, nb.lab2)
        if (len(reps1) + 1) * (len(reps2) + 1) > CLASS_CELLS:
            return None
        return cls(problem, (reps1, reps2), (counts1, counts2), (which1, which2))

    def seconds(self) -> float:
        """What :meth:`bound` and :meth:`assignment` may take, on the slow side (the program's
        cells; HiGHS's import and a first call's start-up)."""
        cells = (len(self.reps[0]) + 1) * (len(self.reps[1]) + 1)
        return _SECONDS_PER_CELL * cells + _START_SECONDS

    def bound(self, seconds: float = math.inf, fast: bool = False) -> float | None:
        """BRANCH's lower bound (BRANCH_FAST's with ``fast``), its program solved within
        ``seconds`` (None if it does not finish)."""
        from gedkit.solvers.heuristics.lsape import round_up

        solved = self._solve(seconds, fast, 0.5)
        return None if solved is None else round_up(self.problem, solved[1])

    def assignment(self, seconds: float = math.inf, fast: bool = False,
                   edge_weight: float = 0.5) -> tuple[np.ndarray, float] | None:
        """An optimal assignment of the matrix of node costs plus ``edge_weight`` times the
        incident edges' (BRANCH's with ½, BRANCH_FAST's with ``fast``, the bipartite
        heuristic's with 1), split from the program's plan (:meth:`_split`), and the value its
        dual proves (unrounded: BRANCH's bound with ½, twice a bound with 1); None if the
        program does not finish within ``seconds`` or its plan is not whole (then the
        assignment over nodes stands in)."""
        solved = self._solve(seconds, fast, edge_weight)
        if solved is None:
            return None
        plan, value = solved
        k2 = len(self.reps[1]) + 1
        flows = np.rint(plan).astype(np.int64).reshape(-1, k2)
        if np.abs(flows - plan.reshape(-1, k2)).max(initial=0.0) > 1e-6 or not (
                np.array_equal(flows[:-1].sum(axis=1), self.counts[0])
                and np.array_equal(flows[:, :-1].sum(axis=0), self.counts[1])):
            return None
        return self._split(flows[:-1, :-1]), value

    def _split(self, flows: np.ndarray) -> np.ndarray:
        """A node map that sends ``flows[a, b]`` nodes of class ``a`` to class ``b`` (the
        others of ``a`` deleted), chosen to keep edges: g1's nodes in breadth-first order, each
        mapped next to the image of a neighbour mapped before it where its class may go there,
        else to the first free node of a class it may go to. (Any such map is an optimal
        assignment of BRANCH's matrix; taking the nodes in index order instead cost the
        2,000-node random pair's map 7% against the assignment over nodes'.)"""
        from gedkit.solvers.heuristics.lsape import neighbours

        nb = neighbours(self.problem)
        ptr1, nbr1, ptr2, nbr2 = (a.tolist() for a in (nb.ptr1, nb.nbr1, nb.ptr2, nb.nbr2))
        which1, which2 = (w.tolist() for w in self.which)
        left = flows.tolist()
        free: list[list[int]] = [[] for _ in range(len(self.counts[1]))]
        for z in range(len(which2) - 1, -1, -1):  # each class's nodes, the first one last
            free[which2[z]].append(z)
        used = [False] * len(which2)
        forward = [-1] * len(which1)
        for u in _breadth_first(ptr1, nbr1):
            a = which1[u]
            row = left[a]
            chosen = -1
            for w in nbr1[ptr1[u]:ptr1[u + 1]]:
                y = forward[w]
                if y >= 0:
                    chosen = next((z for z in nbr2[ptr2[y]:ptr2[y + 1]]
                                   if not used[z] and row[which2[z]] > 0), -1)
                    if chosen >= 0:
                        break
            if chosen < 0:
                b = next((b for b, f in enumerate(row) if f > 0), -1)
                if b < 0:
                    continue  # class a's share of deletions
                while used[free[b][-1]]:
                    free[b].pop()
                chosen = free[b][-1]
            used[chosen] = True
            row[which2[chosen]] -= 1
            forward[u] = chosen
        return np.array(forward, dtype=np.int64)

    def _solve(self, seconds: float, fast: bool, edge_weight: float
               ) -> tuple[np.ndarray, float] | None:
        """The program's plan (its cells' flows, row by row) and the value its dual proves
        (see the module's text)."""
        from gedkit._kernels.lsape_costs import incident_edge_costs, incident_edge_costs_fast
        from gedkit.solvers.heuristics.lsape import edge_constants, neighbours

        p, (reps1, reps2) = self.problem, self.reps
        nb = neighbours(p)
        rows1, rows2 = _rows(nb.ptr1, nb.lab1, reps1), _rows(nb.ptr2, nb.lab2, reps2)
        edges = (incident_edge_costs_fast(*rows1, *rows2, p.edge_label_matrix) if fast else
                 incident_edge_costs(*rows1, *rows2, p.edge_label_matrix, edge_constants(p)))
        eps = p.node_label_matrix.shape[0] - 1
        node = p.node_label_matrix[np.ix_(np.append(p.node_labels1[reps1], eps),
                                          np.append(p.node_labels2[reps2], eps))]
        costs = node + edge_weight * edges
        costs[-1, -1] = 0.0  # ε to ε
        # ε supplies one unit per node of g2 (its insertions), and asks one per node of g1
        supply = np.append(self.counts[0], p.n2).astype(float)
        demand = np.append(self.counts[1], p.n1).astype(float)
        solved = _transport(costs, supply, demand, seconds)
        if solved is None:
            return None
        plan, prices = solved
        rows = (costs - prices).min(axis=1)  # the feasible row prices for these column prices
        return plan, max(0.0, float(supply @ rows + demand @ prices))


def _classes(labels: np.ndarray, ptr: np.ndarray, lab: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A representative node of each branch class (label, sorted incident edge labels), the
    class's size, and each node's class."""
    rows = np.repeat(np.arange(len(labels)), np.diff(ptr))
    ordered = lab[np.lexsort((lab, rows))].tolist()  # each node's edge labels, sorted
    bounds = ptr.tolist()
    first: dict[tuple, int] = {}
    sizes: dict[tuple, int] = {}
    which = np.empty(len(labels), dtype=np.int64)
    for i, label in enumerate(labels.tolist()):
        key = (label, *ordered[bounds[i]:bounds[i + 1]])
        which[i] = first.setdefault(key, len(first))
        sizes[key] = sizes.get(key, 0) + 1
    reps = np.empty(len(first), dtype=np.int64)
    reps[which[::-1]] = np.arange(len(labels))[::-1]  # each class's first node
    return reps, np.fromiter(sizes.values(), np.int64, len(sizes)), which


def _breadth_first(ptr: list[int], nbr: list[int]) -> list[int]:
    """The nodes in breadth-first order, component by component (each from its first node)."""
    seen = [False] * (len(ptr) - 1)
    order: list[int] = []
    for root in range(len(seen)):
        if seen[root]:
            continue
        seen[root] = True
        order.append(root)
        at = len(order) - 1
        while at < len(order):
            v = order[at]
            at += 1
            for w in nbr[ptr[v]:ptr[v + 1]]:
                if not seen[w]:
                    seen[w] = True
                    order.append(w)
    return order


def _rows(ptr: np.ndarray, lab: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The neighbour lists' pointers and edge labels of ``nodes`` alone."""
    sub, index = take_rows(ptr, nodes)
    return sub, lab[index]


def _transport(costs: np.ndarray, supply: np.ndarray, demand: np.ndarray, seconds: float
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """The transportation problem's optimal plan (cells row by row) and the demand side's
    dual prices, by HiGHS's simplex within ``seconds`` (None if it does not finish)."""
    import highspy

    from gedkit.programs import new_highs, run_within

    k1, k2 = costs.shape
    cells = np.arange(k1 * k2)
    # one equality per supplying row (its cells sum to its supply) and per asking column:
    # cell (i, j) is column i * k2 + j, with a 1 in rows i and k1 + j (column-wise, as HiGHS
    # reads it)
    rows = np.stack([cells // k2, k1 + cells % k2], axis=1).ravel()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = k1 * k2, k1 + k2
    lp.col_cost_ = costs.ravel()
    lp.col_lower_ = np.zeros(k1 * k2)
    lp.col_upper_ = np.full(k1 * k2, highspy.kHighsInf)
    lp.row_lower_ = lp.row_upper_ = np.concatenate([supply, demand])
    a = lp.a_matrix_
    a.format_ = highspy.MatrixFormat.kColwise
    a.num_col_, a.num_row_ = k1 * k2, k1 + k2
    a.start_ = np.arange(0, 2 * k1 * k2 + 1, 2)
    a.index_ = rows
    a.value_ = np.ones(2 * k1 * k2)
    h = new_highs()
    h.setOptionValue("threads", 1)  # as the programs run: no pool of HiGHS threads left behind
    # HiGHS's presolve took 0.9 s of a 1 s solve on 139 x 141 classes (without: 0.02 s)
    h.setOptionValue("presolve", "off")
    h.setOptionValue("time_limit", max(0.01, seconds))
    h.passModel(lp)
    if not run_within(h, time.perf_counter() + seconds):
        return None
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    solution = h.getSolution()
    return (np.asarray(solution.col_value, dtype=float),
            np.asarray(solution.row_dual[k1:], dtype=float))
