"""Directed problems as the tree-search kernel reads them: node pairs with oriented labels.

The kernel (:mod:`gedkit._kernels.tree_search`) prices the edges between node pairs: mapping
``u → v`` with an anchor ``a → b`` adds the cost of the edge ``(u, a)`` against ``(v, b)``.
For a directed pair, what lies between two nodes ``i`` and ``j`` is the oriented pair
``(label of i→j, label of j→i)`` (either may be "no arc"), and mapping ``i → k``, ``j → l``
prices ``(i→j against k→l) + (j→i against l→k)``: that is the same kernel on an adjacency
that holds, at ``[i, j]``, the id of the pair oriented from ``i`` (and at ``[j, i]`` the id
of its reverse), with a cost matrix over those ids. Nothing in the kernel assumes a symmetric
adjacency where it prices a map: :func:`_assign_delta` reads ``adj[u, a]`` and ``adj[v, b]``,
both oriented from the node being mapped.

The kernel's lower bounds match *multisets* of edge labels, where the orientation an edge will
be laid in is not known yet: they read the edge lists and neighbour lists, which hold the
*bound* id of each pair instead, priced at the cheaper of its two orientations against the
other pair (never above what any node map pays for it, so the bounds stay admissible), and the
same deletion and insertion costs (so that a complete map is still priced exactly). Both id
ranges live in one matrix: exact ids ``0..K-1``, bound ids ``K..2K-1``, ε last.

Where a pair read from a list meets one read from the adjacency (the branch bound pricing the
pairs between a node and the anchors, and the cost of a complete map, in
:mod:`gedkit._kernels.branch`), both are oriented from the nodes being matched, so that block
of the matrix holds the exact costs. Self-loops need nothing here: they are priced with their
nodes (:class:`~gedkit.problem.LoopCosts`). The label-counting path of the kernel assumes
label-equality costs, which oriented pairs never have, and is not used on directed problems.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gedkit.problem import Problem

__all__ = ["ArcView", "arc_view", "bound_adjacency", "twin_classes"]


class ArcView(NamedTuple):
    """What the kernel reads in place of the problem's edge arrays (see the module
    docstring): ``adj1``/``adj2`` exact pair ids, ``edges1``/``labels1`` (and for g2) one row
    per node pair holding an arc with its bound id, ``matrix`` the costs over both id ranges,
    ``swap`` the id of each exact id's reverse pair."""

    adj1: np.ndarray
    adj2: np.ndarray
    edges1: np.ndarray
    labels1: np.ndarray
    edges2: np.ndarray
    labels2: np.ndarray
    matrix: np.ndarray
    swap: np.ndarray


def arc_view(p: Problem) -> ArcView:
    """The oriented-pair view of the directed problem ``p`` (module docstring).

    >>> from gedkit import Graph, costs
    >>> g1 = Graph({0: "A", 1: "B"}, [(0, 1, "x")], directed=True)
    >>> g2 = Graph({0: "A", 1: "B"}, [(1, 0, "x")], directed=True)
    >>> v = arc_view(costs.uniform().compile(g1, g2))
    >>> k = v.adj1[0, 1]                            # (x, none) seen from node 0
    >>> float(v.matrix[k, v.adj2[0, 1]])            # 0 -> 0, 1 -> 1: the arc reversed
    2.0
    >>> float(v.matrix[v.labels1[0], v.labels2[0]])  # what a bound may assume: no cost
    0.0
    """
    E = np.asarray(p.edge_label_matrix, dtype=np.float64)
    none = E.shape[0] - 1
    ids: dict[tuple[int, int], int] = {}
    sides = []
    for adj in (p.adj1, p.adj2):
        arc = adj >= 0
        rows, cols = np.nonzero(np.triu(arc | arc.T, 1))
        fwd = np.where(adj[rows, cols] >= 0, adj[rows, cols], none).tolist()
        bwd = np.where(adj[cols, rows] >= 0, adj[cols, rows], none).tolist()
        there = [ids.setdefault(key, len(ids)) for key in zip(fwd, bwd, strict=True)]
        back = [ids.setdefault(key, len(ids)) for key in zip(bwd, fwd, strict=True)]
        sides.append((rows, cols, np.array(there, dtype=np.int32),
                      np.array(back, dtype=np.int32)))
    k = len(ids)
    pairs = np.array(list(ids), dtype=np.int64).reshape(-1, 2)
    swap = np.array([ids[(b, a)] for a, b in ids], dtype=np.int32)
    x, y = pairs[:, 0], pairs[:, 1]
    exact = E[np.ix_(x, x)] + E[np.ix_(y, y)]  # i→j against k→l, and j→i against l→k
    dele = E[x, none] + E[y, none]
    ins = E[none, x] + E[none, y]
    bound = np.minimum(exact, exact[:, swap])  # the cheaper orientation
    matrix = np.zeros((2 * k + 1, 2 * k + 1))
    matrix[:k, :k] = exact
    matrix[k:2 * k, k:2 * k] = bound
    # a pair read by its bound id against one read by its exact id: both orientations are
    # known (where the branch bound prices a pair to an anchor, and a complete map's cost)
    matrix[:k, k:2 * k] = matrix[k:2 * k, :k] = exact
    matrix[:2 * k, 2 * k] = np.tile(dele, 2)
    matrix[2 * k, :2 * k] = np.tile(ins, 2)
    out = []
    for adj, (rows, cols, there, back) in zip((p.adj1, p.adj2), sides, strict=True):
        pair_adj = np.full(adj.shape, -1, dtype=np.int32)
        pair_adj[rows, cols] = there
        pair_adj[cols, rows] = back
        edges = np.ascontiguousarray(np.column_stack([rows, cols]), dtype=np.int32)
        out += [pair_adj, edges, (there + k).astype(np.int32)]
    return ArcView(out[0], out[3], out[1], out[2], out[4], out[5], matrix, swap)


def bound_adjacency(adj: np.ndarray, k: int) -> np.ndarray:
    """``adj`` (exact pair ids) with bound ids instead: what neighbour lists are built from.

    >>> bound_adjacency(np.array([[-1, 0], [1, -1]], dtype=np.int32), 2).tolist()
    [[-1, 2], [3, -1]]
    """
    return np.where(adj >= 0, adj + k, -1).astype(np.int32)


def twin_classes(view: ArcView, labels2: np.ndarray) -> np.ndarray:
    """Twin classes of g2's nodes for a directed problem: those of
    :func:`gedkit._kernels.order.twin_classes` on the pair adjacency (equal rows there mean
    equal arcs both ways to every other node), less the twins joined by arcs that differ
    either way, whose swap would reverse them."""
    from gedkit._kernels.order import twin_classes as undirected_twins

    cls = np.array(undirected_twins(view.adj2, labels2))
    for z in np.flatnonzero(cls != np.arange(len(cls))):
        between = view.adj2[cls[z], z]
        if between >= 0 and view.swap[between] != between:
            cls[z] = z
    return cls
