"""BRANCH's lower bound on large pairs, solved over classes of alike nodes instead of nodes.

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
the other side's), so that no rounding in the solver can overstate it.
"""

from __future__ import annotations

import math
import time

import numpy as np

from gedkit.problem import Problem

__all__ = ["CLASS_CELLS", "BranchClasses", "branch_classes_bound"]

#: largest ``(classes of g1 + 1) × (classes of g2 + 1)`` the bound is solved for (larger: None)
CLASS_CELLS = 40_000


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
                 counts: tuple[np.ndarray, np.ndarray]):
        self.problem, self.reps, self.counts = problem, reps, counts

    @classmethod
    def of(cls, problem: Problem) -> BranchClasses | None:
        """The classes of ``problem``; None where the bound does not apply (fixed or forbidden
        pairs, directed graphs) or the classes are more than :data:`CLASS_CELLS` allows."""
        from gedkit.solvers.heuristics.lsape import neighbours

        if problem.allowed is not None or problem.directed:
            return None
        nb = neighbours(problem)
        reps1, counts1 = _classes(problem.node_labels1, nb.ptr1, nb.lab1)
        reps2, counts2 = _classes(problem.node_labels2, nb.ptr2, nb.lab2)
        if (len(reps1) + 1) * (len(reps2) + 1) > CLASS_CELLS:
            return None
        return cls(problem, (reps1, reps2), (counts1, counts2))

    def bound(self, seconds: float = math.inf) -> float | None:
        """BRANCH's lower bound, its program solved within ``seconds`` (None if it does not
        finish)."""
        from gedkit._kernels.lsape_costs import incident_edge_costs
        from gedkit.solvers.heuristics.lsape import edge_constants, neighbours, round_up

        p, (reps1, reps2) = self.problem, self.reps
        nb = neighbours(p)
        edges = incident_edge_costs(*_rows(nb.ptr1, nb.lab1, reps1),
                                    *_rows(nb.ptr2, nb.lab2, reps2), p.edge_label_matrix,
                                    edge_constants(p))
        eps = p.node_label_matrix.shape[0] - 1
        node = p.node_label_matrix[np.ix_(np.append(p.node_labels1[reps1], eps),
                                          np.append(p.node_labels2[reps2], eps))]
        costs = node + 0.5 * edges
        costs[-1, -1] = 0.0  # ε to ε
        # ε supplies one unit per node of g2 (its insertions), and asks one per node of g1
        supply = np.append(self.counts[0], p.n2).astype(float)
        demand = np.append(self.counts[1], p.n1).astype(float)
        prices = _column_prices(costs, supply, demand, seconds)
        if prices is None:
            return None
        rows = (costs - prices).min(axis=1)  # the feasible row prices for these column prices
        return round_up(p, max(0.0, float(supply @ rows + demand @ prices)))


def branch_classes_bound(problem: Problem, seconds: float = math.inf) -> float | None:
    """BRANCH's lower bound on ``problem`` by its branch classes (see the module's text), its
    program solved within ``seconds``; None where :meth:`BranchClasses.of` finds none or the
    program does not finish in time."""
    classes = BranchClasses.of(problem)
    return None if classes is None else classes.bound(seconds)


def _classes(labels: np.ndarray, ptr: np.ndarray, lab: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """A representative node of each branch class (label, sorted incident edge labels) and the
    class's size."""
    rows = np.repeat(np.arange(len(labels)), np.diff(ptr))
    ordered = lab[np.lexsort((lab, rows))].tolist()  # each node's edge labels, sorted
    bounds = ptr.tolist()
    first: dict[tuple, int] = {}
    sizes: dict[tuple, int] = {}
    for i, label in enumerate(labels.tolist()):
        key = (label, *ordered[bounds[i]:bounds[i + 1]])
        first.setdefault(key, i)
        sizes[key] = sizes.get(key, 0) + 1
    return (np.fromiter(first.values(), np.int64, len(first)),
            np.fromiter(sizes.values(), np.int64, len(sizes)))


def _rows(ptr: np.ndarray, lab: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The neighbour lists' pointers and edge labels of ``nodes`` alone."""
    lengths = ptr[nodes + 1] - ptr[nodes]
    sub = np.zeros(len(nodes) + 1, dtype=ptr.dtype)
    np.cumsum(lengths, out=sub[1:])
    picks = np.concatenate([np.arange(ptr[v], ptr[v + 1]) for v in nodes.tolist()]
                           + [np.zeros(0, dtype=np.int64)])
    return sub, np.ascontiguousarray(lab[picks])


def _column_prices(costs: np.ndarray, supply: np.ndarray, demand: np.ndarray,
                   seconds: float) -> np.ndarray | None:
    """The demand side's dual prices of the transportation problem, by HiGHS's simplex within
    ``seconds`` (None if it does not finish)."""
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
    return np.asarray(h.getSolution().row_dual[k1:], dtype=float)
