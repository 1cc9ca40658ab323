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

from gedkit.graph import Graph
from gedkit.problem import Problem

__all__ = ["ArcView", "arc_view", "bound_adjacency", "pair_problem", "twin_classes"]


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


def pair_problem(p: Problem) -> Problem:
    """The undirected problem on the node pairs of the directed problem ``p`` in which every
    node map costs what it costs in ``p``: what the heuristics that price complete maps and
    moves (REFINE, IPFP, BP-BEAM, STAR) solve in place of ``p`` (once per problem).

    Each pair of nodes joined by an arc either way is one edge, whose label as read from a
    node (``adj[i, j]``) is the pair oriented from that node, and an edge substitution costs
    both orientations' arc costs (``i→j`` against ``k→l`` and ``j→i`` against ``l→k``). The
    kernels read an edge's label from the node being mapped, against the label of the
    image's edge read from the image, so the orientations always correspond; a pair's two
    readings cost the same against the reverse readings, so every cost stays symmetric as
    the undirected formulas assume. BRANCH and STAR on it bound ``p`` from below: each node's
    incident pairs are matched against its image's, oriented from both. What an edge
    *multiset* bound would compare (the label-set bound) is not valid on it: the pair's
    orientation in a map is not known there (no heuristic reports that bound from here).

    >>> from gedkit import Graph, costs
    >>> g1 = Graph({0: "A", 1: "B"}, [(0, 1, "x")], directed=True)
    >>> g2 = Graph({0: "A", 1: "B"}, [(1, 0, "x")], directed=True)
    >>> p = costs.uniform().compile(g1, g2)
    >>> q = pair_problem(p)
    >>> q.directed, q.cost([0, 1]) == p.cost([0, 1]) == 2.0, q.cost([1, 0]) == p.cost([1, 0])
    (False, True, True)
    """
    from gedkit.solvers.heuristics.lsape import memo

    return memo(p, "pair_problem", lambda: _pair_problem(p))


def _pair_problem(p: Problem) -> Problem:
    view = arc_view(p)
    k = len(view.swap)
    m = view.matrix
    costs = np.zeros((k + 1, k + 1))
    costs[:k, :k] = m[:k, :k]
    costs[:k, k] = m[:k, 2 * k]
    costs[k, :k] = m[2 * k, :k]
    q = Problem.__new__(Problem)
    q.__dict__.update({key: value for key, value in p.__dict__.items()
                       if key not in ("_heuristics", "constant_costs", "integral_costs",
                                      "search_labels")})
    q.__dict__["constant_costs"] = None  # pair costs never depend on label equality alone
    q.g1, q.g2 = _pairs_graph(p.g1, view.edges1), _pairs_graph(p.g2, view.edges2)
    q.adj1, q.adj2 = view.adj1, view.adj2
    q.edge_labels1, q.edge_labels2 = view.labels1 - k, view.labels2 - k
    # a pair substitution never costs more than deleting and inserting both orientations
    q.edge_label_matrix, q._edge_split = costs, np.zeros(costs.shape, dtype=bool)
    q.pair_swap = view.swap
    q.pair_of = p  # whose arcs' edge costs BRANCH falls back on (lsape.edge_costs)
    if p.allowed is not None:
        q._base = pair_problem(p.unconstrained)
    return q


def _pairs_graph(g: Graph, edges: np.ndarray) -> Graph:
    """``g``'s nodes with one undirected edge per row of ``edges`` (node indices), unlabelled:
    the labels live in the pair problem's arrays."""
    out = Graph(dict(zip(g.ids, g.node_labels, strict=True)), name=g.name)
    out.edges = np.ascontiguousarray(edges, dtype=np.int32)
    out.edges.setflags(write=False)
    out.edge_labels = (None,) * len(edges)
    return out
