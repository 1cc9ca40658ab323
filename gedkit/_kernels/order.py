"""The order in which tree search assigns the nodes of g1."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["matching_order"]


@njit(cache=True, nogil=True)
def matching_order(adj1, nl1, nl2):
    """Nodes of g1, most constrained first.

    Start from the node whose label is rarest in g2 (then: highest degree); then keep taking
    the node with the most edges to nodes already placed, so the bound sees anchored edges as
    early as possible (ties: rarer label, higher degree).
    """
    n1 = adj1.shape[0]
    kmax = 0
    for x in nl1:
        kmax = max(kmax, x + 1)
    for x in nl2:
        kmax = max(kmax, x + 1)
    count2 = np.zeros(kmax, dtype=np.int64)
    for y in nl2:
        count2[y] += 1
    degree = np.zeros(n1, dtype=np.int64)
    for a in range(n1):
        for b in range(n1):
            if adj1[a, b] >= 0:
                degree[a] += 1
    links = np.zeros(n1, dtype=np.int64)
    placed = np.zeros(n1, dtype=np.bool_)
    order = np.empty(n1, dtype=np.int64)
    for pos in range(n1):
        best = -1
        for x in range(n1):
            if placed[x]:
                continue
            if best < 0:
                best = x
                continue
            if links[x] != links[best]:
                better = links[x] > links[best]
            elif count2[nl1[x]] != count2[nl1[best]]:
                better = count2[nl1[x]] < count2[nl1[best]]
            else:
                better = degree[x] > degree[best]
            if better:
                best = x
        order[pos] = best
        placed[best] = True
        for y in range(n1):
            if adj1[best, y] >= 0:
                links[y] += 1
    return order


@njit(cache=True, nogil=True)
def neighbour_lists(adj):
    """CSR neighbour lists (pointers, neighbours, edge-label ids) of a label adjacency matrix."""
    n = adj.shape[0]
    ptr = np.zeros(n + 1, dtype=np.int64)
    for a in range(n):
        c = 0
        for b in range(n):
            if adj[a, b] >= 0:
                c += 1
        ptr[a + 1] = ptr[a] + c
    nbr = np.empty(ptr[n], dtype=np.int64)
    lab = np.empty(ptr[n], dtype=np.int64)
    for a in range(n):
        k = ptr[a]
        for b in range(n):
            if adj[a, b] >= 0:
                nbr[k] = b
                lab[k] = adj[a, b]
                k += 1
    return ptr, nbr, lab


@njit(cache=True, nogil=True)
def twin_classes(adj, labels):
    """Classes of interchangeable nodes: y and z share a class when swapping them is an
    automorphism (same label, same edge label to every other node). Swapping is transitive
    (conjugating one swap by another gives the third), so these are equivalence classes.
    Returns each node's class id, the smallest member's index."""
    n = adj.shape[0]
    cls = np.arange(n)
    for y in range(n):
        if cls[y] != y:
            continue
        for z in range(y + 1, n):
            if cls[z] != z or labels[z] != labels[y]:
                continue
            same = True
            for w in range(n):
                if w != y and w != z and adj[y, w] != adj[z, w]:
                    same = False
                    break
            if same:
                cls[z] = y
    return cls
