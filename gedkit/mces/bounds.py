"""Upper bounds on the number of common edges, valid for every node map.

Two bounds, each cheap and neither always the tighter one, so :func:`upper_bound` takes the
smaller:

- *class counting*: an edge is only ever common with an edge of its class (edge label and the
  two end labels), so each class contributes at most the smaller of its two counts;
- *assignment*: a node ``u`` mapped onto ``v`` keeps at most ``w(u, v)`` of its edges, the size
  of the multiset intersection of their edge classes. Every common edge is kept at both of its
  ends, so twice the edge count is at most the weight of the node map, hence at most half the
  maximum-weight assignment.

A third, much tighter on molecules but costlier, solves a linear program
(:func:`linear_relaxation`): variables ``x[u, v]`` (node ``u`` onto ``v``) and ``y`` (an edge
of g1 onto an edge of g2 of its class, in one of the orientations the end labels allow),
maximise the sum of ``y`` subject to

- each node mapped at most once, on either side: ``sum_v x[u, v] <= 1``, ``sum_u x[u, v] <= 1``;
- at each end, an edge lands on at most one edge there, on either side: for an edge ``a``
  of g1 with end ``u`` and a node ``v``, the ``y`` that carry ``a`` with ``u → v`` sum to at
  most ``x[u, v]``; likewise for an edge of g2 with end ``v`` and a node ``u``.

Every node map with its common edges is a 0/1 solution, so the optimum bounds the MCES. The
dual solution then bounds restricted problems too (any duals do, by Lagrangian duality), which
the exact search uses at every state: see :class:`LinearRelaxation`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gedkit.budget import Budget
from gedkit.mces.problem import MCESProblem
from gedkit.pacing import OPS_PER_SECOND
from gedkit.programs import MatchingProgram, assemble, program_fits, solve_program
from gedkit.solvers.heuristics.assignment import lsape_fits

__all__ = [
    "LinearRelaxation", "assignment_bound", "class_count_bound", "class_degrees",
    "linear_relaxation", "lp_bound", "relaxation_fits", "relaxation_model", "relaxation_nonzeros",
    "tightened", "upper_bound",
]

# entries of the per-label-group broadcast computed at once (bounds memory)
_CHUNK = 1 << 22


def class_count_bound(problem: MCESProblem) -> int:
    """Sum over edge classes of the smaller of the two class counts.

    >>> from gedkit import Graph
    >>> tri = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2), (0, 2)])
    >>> path = Graph({0: "C", 1: "C", 2: "C", 3: "C"}, [(0, 1), (1, 2), (2, 3)])
    >>> class_count_bound(MCESProblem(tri, path))
    3
    """
    sizes1, sizes2 = problem.class_sizes
    return sum(min(size, sizes2[c]) for c, size in sizes1.items() if c in sizes2)


def class_degrees(problem: MCESProblem) -> tuple[np.ndarray, np.ndarray]:
    """Per node, how many of its edges fall in each class (classes shared by both graphs
    only): ``(n1 × K, n2 × K)`` int arrays, K the number of shared classes."""
    shared, index = np.unique(
        problem.edge_classes1[problem.useful1], return_inverse=True
    )
    d1 = np.zeros((problem.n1, len(shared)), dtype=np.int64)
    e1 = problem.g1.edges[problem.useful1]
    for end in (0, 1):
        np.add.at(d1, (e1[:, end], index), 1)
    d2 = np.zeros((problem.n2, len(shared)), dtype=np.int64)
    e2 = problem.g2.edges[problem.useful2]
    index2 = np.searchsorted(shared, problem.edge_classes2[problem.useful2])
    for end in (0, 1):
        np.add.at(d2, (e2[:, end], index2), 1)
    return d1, d2


def assignment_bound(problem: MCESProblem) -> int:
    """Half the maximum-weight node assignment, ``w(u, v)`` = shared edge classes at u and v.

    >>> from gedkit import Graph
    >>> tri = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2), (0, 2)])
    >>> path = Graph({0: "C", 1: "C", 2: "C", 3: "C"}, [(0, 1), (1, 2), (2, 3)])
    >>> assignment_bound(MCESProblem(tri, path))   # best weights 2 + 2 + 1, halved, rounded down
    2
    """
    if problem.n1 == 0 or problem.n2 == 0:
        return 0
    d1, d2 = class_degrees(problem)
    weights = np.zeros((problem.n1, problem.n2))
    for label in np.intersect1d(problem.node_labels1, problem.node_labels2):
        rows = np.flatnonzero(problem.node_labels1 == label)
        cols = np.flatnonzero(problem.node_labels2 == label)
        step = max(1, _CHUNK // max(1, len(cols) * d1.shape[1]))
        for start in range(0, len(rows), step):
            part = rows[start : start + step]
            block = np.minimum(d1[part, None, :], d2[None, cols, :]).sum(axis=2)
            weights[np.ix_(part, cols)] = block
    from gedkit.solvers.heuristics.assignment import linear_sum_assignment

    r, c = linear_sum_assignment(weights, maximize=True)
    return int(weights[r, c].sum()) // 2


def upper_bound(problem: MCESProblem, budget: Budget | None = None) -> int:
    """The smaller of :func:`class_count_bound` and :func:`assignment_bound`; the class
    count alone when the assignment does not fit ``budget``."""
    count = class_count_bound(problem)
    # the weights take a multiset intersection over the classes per node pair
    weights = problem.n1 * problem.n2 * max(1, problem.n_classes) / OPS_PER_SECOND
    if budget is not None and not lsape_fits(problem.n1, problem.n2, budget, before=weights):
        return count
    return min(count, assignment_bound(problem))


def relaxation_nonzeros(problem: MCESProblem) -> int:
    """An upper estimate of the nonzeros of :func:`relaxation_model`'s matrix: two per
    ``x``, and for each ``y`` (an edge of g1 onto an edge of g2 of its class, either way) four
    plus up to four linking entries."""
    k = problem.n_classes
    c1 = np.bincount(problem.edge_classes1, minlength=k)
    c2 = np.bincount(problem.edge_classes2, minlength=k)
    return 2 * problem.n1 * problem.n2 + 16 * int(c1 @ c2)


def relaxation_fits(problem: MCESProblem, budget: Budget) -> bool:
    """Whether the linear relaxation can be built and solved within ``budget``."""
    return program_fits(relaxation_nonzeros(problem), budget)


@dataclass(frozen=True)
class LinearRelaxation:
    """The linear program of the module docstring, solved, seen through its duals.

    With duals ``λ >= 0`` and reduced costs ``r = c - Aᵀλ``, any problem restricted by
    fixing variables is bounded by ``λᵀb + Σ_j max r_j x_j`` over the values ``x_j`` may
    still take. The attributes say what each restriction removes from :attr:`bound`:

    Attributes
    ----------
    bound : float
        ``λᵀb + Σ_j max(0, r_j)``: an upper bound on the common edges, valid for any duals
        (so rounding in the solver can only loosen it).
    x : ndarray, n1 × n2
        The LP values of the node pairs (0 for pairs without a variable).
    loss_forbid : ndarray, n1 × n2
        Removed when the pair ``(u, v)`` can no longer be used: ``max(0, r)`` of ``x[u, v]``
        plus half of ``max(0, r)`` of every ``y`` with an end ``u → v`` (half, because a
        ``y`` has two ends that may both be forbidden).
    loss_force : ndarray, n1 × n2
        Removed when ``u → v`` is forced: ``max(0, -r)`` of ``x[u, v]``.
    loss_unmapped : ndarray, n1
        Removed when node ``u`` of g1 is left unmapped (its row's right-hand side drops to
        0): its dual.
    """

    bound: float
    x: np.ndarray
    loss_forbid: np.ndarray
    loss_force: np.ndarray
    loss_unmapped: np.ndarray


def relaxation_model(problem: MCESProblem) -> MatchingProgram:
    """The program of the module docstring in the container the GED program uses (columns
    ``x`` row-major over every node pair, then ``y``; minimise ``-sum y``), so that HiGHS is
    driven the same way for both: :func:`gedkit.programs.solve_program`. Pairs with
    different labels carry no ``y``; their ``x`` can only fill an assignment row.

    >>> from gedkit import Graph
    >>> g = Graph({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 2)])
    >>> m = relaxation_model(MCESProblem(g, g))
    >>> m.matrix.shape    # 6 assignment + 2 x 6 linking rows; 9 x + 3 y (C-C both ways)
    (18, 12)
    >>> -m.objective(m.point(np.array([0, 1, 2])))
    2.0
    """
    n1, n2 = problem.n1, problem.n2
    a, b, s, t, x1, x2 = _edge_pairs(problem)
    cost = np.concatenate([np.zeros(n1 * n2), -np.ones(len(a))])
    return assemble(n1, n2, a, b, np.concatenate([s, t]), np.concatenate([x1, x2]), cost, 0.0,
                    np.column_stack([s, t, x1, x2]))


def linear_relaxation(
    problem: MCESProblem, time_limit: float = math.inf, model: MatchingProgram | None = None
) -> LinearRelaxation | None:
    """Solve the linear program of the module docstring with HiGHS; None if it does not
    finish within ``time_limit`` seconds. ``model``: :func:`relaxation_model` of ``problem``,
    if already built.

    >>> from gedkit import Graph
    >>> tri = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2), (0, 2)])
    >>> path = Graph({0: "C", 1: "C", 2: "C", 3: "C"}, [(0, 1), (1, 2), (2, 3)])
    >>> round(linear_relaxation(MCESProblem(tri, path)).bound, 6)   # the MCES has 2 edges
    2.25
    """
    n1, n2 = problem.n1, problem.n2
    model = relaxation_model(problem) if model is None else model
    if len(model.y_ends) == 0:  # no edge can be common (HiGHS calls such models empty)
        zeros = np.zeros((n1, n2))
        return LinearRelaxation(0.0, zeros, zeros, zeros, np.zeros(n1))
    import highspy

    h, values = solve_program(model, integer=False, time_limit=time_limit)
    if values is None or h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    # HiGHS minimises -sum y: its row duals are <= 0 on these <= rows
    duals = np.maximum(-np.asarray(h.getSolution().row_dual), 0.0)
    gain = -model.cost - model.matrix.T @ duals  # reduced costs of the maximisation
    positive = np.maximum(gain, 0.0)
    bound = float(duals @ model.row_upper + positive.sum())
    nx = n1 * n2
    compatible = problem.node_labels1[:, None] == problem.node_labels2[None, :]
    x = np.where(compatible, model.x(values), 0.0)
    loss_forbid = positive[:nx].reshape(n1, n2).copy()
    ends = model.y_ends
    for i, k in ((0, 2), (1, 3)):  # half of every y to each of its two ends
        np.add.at(loss_forbid, (ends[:, i], ends[:, k]), 0.5 * positive[nx:])
    loss_force = np.maximum(-gain[:nx], 0.0).reshape(n1, n2)
    return LinearRelaxation(bound, x, loss_forbid, loss_force, duals[:n1].copy())


def lp_bound(problem: MCESProblem, time_limit: float = math.inf) -> int:
    """The optimum of :func:`linear_relaxation`, rounded down (edge counts are integers);
    :func:`upper_bound` when the program does not finish in time.

    >>> from gedkit import Graph
    >>> path = Graph({i: "C" for i in range(5)}, [(i, i + 1) for i in range(4)])
    >>> tri = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2), (0, 2)])
    >>> p = MCESProblem(path, tri)     # a path keeps 2 edges of a triangle
    >>> upper_bound(p), lp_bound(p)
    (3, 2)
    """
    relaxation = linear_relaxation(problem, time_limit)
    if relaxation is None:
        return upper_bound(problem)
    return int(np.floor(relaxation.bound + 1e-6))


def tightened(problem: MCESProblem, bound: int, remaining: float, share: float = 0.5,
              memory: int | None = None) -> int:
    """``bound`` tightened by :func:`lp_bound` given ``share`` of the ``remaining`` seconds
    (the heuristics call it when their first maps fall short of the counting bound: the
    relaxation is usually tight on molecules, so they can then stop at a proven optimum); not
    tried when the program does not fit that time or ``memory`` bytes.

    >>> from gedkit import Graph
    >>> path = Graph({i: "C" for i in range(5)}, [(i, i + 1) for i in range(4)])
    >>> tri = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2), (0, 2)])
    >>> tightened(MCESProblem(path, tri), 3, math.inf)
    2
    """
    stage = Budget(timeout=share * remaining, memory=memory) if share * remaining > 0 else None
    if stage is None or not relaxation_fits(problem, stage):
        return bound
    return min(bound, lp_bound(problem, time_limit=share * remaining))


def _edge_pairs(problem: MCESProblem) -> tuple[np.ndarray, ...]:
    """Every ``y`` variable: edge ``a`` of g1 (ends ``s``, ``t``) onto edge ``b`` of g2 with
    ``s → x1`` and ``t → x2``, for edges of one class and end labels that agree."""
    nl1, nl2 = problem.node_labels1, problem.node_labels2
    ia = np.flatnonzero(problem.useful1)
    ib = np.flatnonzero(problem.useful2)
    e1, e2 = problem.g1.edges.astype(np.int64), problem.g2.edges.astype(np.int64)
    # both orientations of each edge of g2
    ob = np.concatenate([ib, ib])
    o1 = np.concatenate([e2[ib, 0], e2[ib, 1]])
    o2 = np.concatenate([e2[ib, 1], e2[ib, 0]])
    oclass = problem.edge_classes2[ob]
    out = []
    for cls in np.unique(problem.edge_classes1[ia]):
        aa = ia[problem.edge_classes1[ia] == cls]
        kk = np.flatnonzero(oclass == cls)
        A, K = np.meshgrid(aa, kk, indexing="ij")
        A, K = A.ravel(), K.ravel()
        s, t = e1[A, 0], e1[A, 1]
        ok = (nl1[s] == nl2[o1[K]]) & (nl1[t] == nl2[o2[K]])
        A, K = A[ok], K[ok]
        out.append((A, ob[K], e1[A, 0], e1[A, 1], o1[K], o2[K]))
    if not out:
        return tuple(np.zeros(0, dtype=np.int64) for _ in range(6))
    return tuple(np.concatenate(col) for col in zip(*out, strict=True))
