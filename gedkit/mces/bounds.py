"""Upper bounds on the number of common edges, valid for every node map.

Two bounds, each cheap and neither always the tighter one, so :func:`upper_bound` takes the
smaller:

- *class counting*: an edge is only ever common with an edge of its class (edge label and the
  two end labels), so each class contributes at most the smaller of its two counts;
- *assignment*: a node ``u`` mapped onto ``v`` keeps at most ``w(u, v)`` of its edges, the size
  of the multiset intersection of their edge classes. Every common edge is kept at both of its
  ends, so twice the edge count is at most the weight of the node map, hence at most half the
  maximum-weight assignment.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from gedkit.mces.problem import MCESProblem

__all__ = ["assignment_bound", "class_count_bound", "class_degrees", "upper_bound"]

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
    k = problem.n_classes
    c1 = np.bincount(problem.edge_classes1, minlength=k)
    c2 = np.bincount(problem.edge_classes2, minlength=k)
    return int(np.minimum(c1, c2).sum())


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
    r, c = linear_sum_assignment(weights, maximize=True)
    return int(weights[r, c].sum()) // 2


def upper_bound(problem: MCESProblem) -> int:
    """The smaller of :func:`class_count_bound` and :func:`assignment_bound`."""
    return min(class_count_bound(problem), assignment_bound(problem))
