"""Local search on a node map: move one node, or swap two, while that keeps more edges.

Graduated assignment ends in a map that a few single moves often improve (nodes left
unmapped next to mapped neighbours, symmetric parts decoded inconsistently). Two moves are
tried, first improvement taken, until none helps:

- *move*: map node ``i`` of g1 onto an unused node of g2 with its label (or onto nothing);
- *swap*: exchange the images of two nodes of g1 with the same label.

Every move keeps the map valid, and the count only rises, so the result is never worse than
the input.

:func:`kick` goes further (an iterated local search): it repeatedly unmaps the nodes of g1
within a small radius of a random mapped node, re-maps them greedily in random order (each
onto the free node of g2 that keeps the most edges, ties broken at random), runs the local
search again, and keeps the result when it has at least as many edges (equal counts move on,
so plateaus are crossed). The best map seen is returned: never worse than the input either.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gedkit.mces.problem import MCESProblem
from gedkit.solvers.base import Budget

__all__ = ["kick", "refine"]

_KICK_CHUNK = 100  # kicks between two looks at the clock


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
    ptr, nbr, lab = problem.neighbours1
    _local_search(f, problem.node_labels1, problem.node_labels2, ptr, nbr, lab,
                  problem.adj2, max_sweeps)
    return f


def kick(problem: MCESProblem, forward: np.ndarray, kicks: int, seed: int = 0,
         radius: int = 2, budget: Budget | None = None) -> np.ndarray:
    """The best map of an iterated local search of ``kicks`` perturbations from ``forward``
    (left unchanged); with a ``budget``, the clock is read every hundred kicks and the search
    stops when it runs out.

    >>> from gedkit import Graph
    >>> cycle = Graph({k: "C" for k in range(6)}, [(k, (k + 1) % 6) for k in range(6)])
    >>> p = MCESProblem(cycle, cycle)
    >>> p.count(kick(p, np.array([0, 1, 2, 4, 3, 5]), kicks=50))
    6
    """
    f = refine(problem, forward)
    ptr, nbr, lab = problem.neighbours1
    for start in range(0, kicks, _KICK_CHUNK):
        if budget is not None and budget.expired():
            break
        f = _iterated(f, problem.node_labels1, problem.node_labels2, ptr, nbr, lab,
                      problem.adj2, min(_KICK_CHUNK, kicks - start), radius, seed + start)
    return f


@njit(cache=True, nogil=True)
def _count(f, ptr, nbr, lab, adj2):
    kept = 0
    for i in range(ptr.shape[0] - 1):
        if f[i] < 0:
            continue
        for k in range(ptr[i], ptr[i + 1]):
            a = nbr[k]
            if a > i and f[a] >= 0 and adj2[f[i], f[a]] == lab[k]:
                kept += 1
    return kept


@njit(cache=True, nogil=True)
def _iterated(f, nl1, nl2, ptr, nbr, lab, adj2, kicks, radius, seed):
    np.random.seed(seed)
    n1 = nl1.shape[0]
    n2 = nl2.shape[0]
    best = f.copy()
    best_count = _count(best, ptr, nbr, lab, adj2)
    current = f.copy()
    current_count = best_count
    mapped = np.empty(n1, dtype=np.int64)
    ball = np.empty(n1, dtype=np.int64)
    depth = np.empty(n1, dtype=np.int64)
    in_ball = np.zeros(n1, dtype=np.bool_)
    used = np.zeros(n2, dtype=np.bool_)
    for _ in range(kicks):
        g = current.copy()
        m = 0
        for i in range(n1):
            if g[i] >= 0 and ptr[i] < ptr[i + 1]:
                mapped[m] = i
                m += 1
        if m == 0:  # nothing mapped yet: start from any node with an edge
            for i in range(n1):
                if ptr[i] < ptr[i + 1]:
                    mapped[m] = i
                    m += 1
        if m == 0:
            break
        # the ball: breadth-first from a random mapped node, up to a random radius
        size = 1
        ball[0] = mapped[np.random.randint(m)]
        depth[0] = 0
        in_ball[ball[0]] = True
        reach = 1 + np.random.randint(radius)
        head = 0
        while head < size:
            u = ball[head]
            if depth[head] < reach:
                for k in range(ptr[u], ptr[u + 1]):
                    a = nbr[k]
                    if not in_ball[a]:
                        in_ball[a] = True
                        ball[size] = a
                        depth[size] = depth[head] + 1
                        size += 1
            head += 1
        for t in range(size):
            g[ball[t]] = -1
            in_ball[ball[t]] = False
        used[:] = False
        for i in range(n1):
            if g[i] >= 0:
                used[g[i]] = True
        # greedy re-mapping in random order, ties broken at random
        for t in range(size - 1, 0, -1):
            r = np.random.randint(t + 1)
            ball[t], ball[r] = ball[r], ball[t]
        for t in range(size):
            u = ball[t]
            # a node that keeps no edge yet is still mapped (onto a random free node): that
            # costs nothing and lets the nodes after it in the ball attach to it
            top, choice, ties = -1, -1, 0
            for v in range(n2):
                if used[v] or nl2[v] != nl1[u]:
                    continue
                gain = _gain(u, v, -1, g, ptr, nbr, lab, adj2)
                if gain > top:
                    top, choice, ties = gain, v, 1
                elif gain == top:
                    ties += 1
                    if np.random.randint(ties) == 0:
                        choice = v
            if choice >= 0:
                g[u] = choice
                used[choice] = True
        _local_search(g, nl1, nl2, ptr, nbr, lab, adj2, 50)
        count = _count(g, ptr, nbr, lab, adj2)
        if count >= current_count:
            current, current_count = g, count
            if count > best_count:
                best, best_count = g.copy(), count
    return best


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
