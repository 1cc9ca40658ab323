"""Local search on a node map: move one node, or swap two, while that keeps more edges.

Graduated assignment ends in a map that a few single moves often improve (nodes left
unmapped next to mapped neighbours, symmetric parts decoded inconsistently). Two moves are
tried, first improvement taken, until none helps:

- *move*: map node ``i`` of g1 onto an unused node of g2 with its label (or onto nothing);
- *swap*: exchange the images of two nodes of g1 with the same label.

Every move keeps the map valid, and the count only rises, so the result is never worse than
the input.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gedkit._kernels.order import neighbour_lists
from gedkit.mces.problem import MCESProblem

__all__ = ["refine"]


def refine(problem: MCESProblem, forward: np.ndarray, max_sweeps: int = 50) -> np.ndarray:
    """A locally optimal map reached from ``forward`` (which is left unchanged).

    >>> from gedkit import Graph
    >>> path = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2)])
    >>> p = MCESProblem(path, path)
    >>> better = refine(p, np.array([0, -1, -1]))
    >>> p.count(better)
    2
    """
    f = np.array(problem.check_map(forward), dtype=np.int64)
    ptr, nbr, lab = neighbour_lists(problem.adj1)
    _local_search(f, problem.node_labels1, problem.node_labels2, ptr, nbr, lab,
                  problem.adj2, max_sweeps)
    return f


@njit(cache=True, nogil=True)
def _gain(i, v, skip, f, ptr, nbr, lab, adj2):
    """Edges of node ``i`` kept if ``i`` maps onto ``v``, ignoring neighbour ``skip``."""
    kept = 0
    for k in range(ptr[i], ptr[i + 1]):
        a = nbr[k]
        if a != skip and f[a] >= 0 and adj2[v, f[a]] == lab[k]:
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def _local_search(f, nl1, nl2, ptr, nbr, lab, adj2, max_sweeps):
    n1 = nl1.shape[0]
    n2 = nl2.shape[0]
    owner = np.full(n2, -1, dtype=np.int64)
    for i in range(n1):
        if f[i] >= 0:
            owner[f[i]] = i
    for _ in range(max_sweeps):
        improved = False
        for i in range(n1):
            if ptr[i] == ptr[i + 1]:
                continue
            now = _gain(i, f[i], -1, f, ptr, nbr, lab, adj2) if f[i] >= 0 else 0
            for v in range(n2):
                if v == f[i] or nl2[v] != nl1[i]:
                    continue
                j = owner[v]
                if j < 0:
                    if _gain(i, v, -1, f, ptr, nbr, lab, adj2) > now:
                        if f[i] >= 0:
                            owner[f[i]] = -1
                        f[i] = v
                        owner[v] = i
                        improved = True
                        now = _gain(i, v, -1, f, ptr, nbr, lab, adj2)
                    continue
                # swap the images of i and j (an edge between them is kept either way)
                before = _gain(j, v, i, f, ptr, nbr, lab, adj2)
                if f[i] >= 0:
                    before += _gain(i, f[i], j, f, ptr, nbr, lab, adj2)
                after = _gain(i, v, j, f, ptr, nbr, lab, adj2)
                if f[i] >= 0:
                    after += _gain(j, f[i], i, f, ptr, nbr, lab, adj2)
                if after > before:
                    w = f[i]
                    f[i] = v
                    owner[v] = i
                    f[j] = w
                    if w >= 0:
                        owner[w] = j
                    improved = True
                    now = _gain(i, v, -1, f, ptr, nbr, lab, adj2)
        if not improved:
            break
