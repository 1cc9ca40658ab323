"""A compiled MCES instance: the one place that knows how many edges a node map keeps.

A node map is an int array ``forward`` of length ``n1``: ``forward[i] = j`` maps node ``i`` of
g1 onto node ``j`` of g2, ``-1`` leaves it unmapped. A map is valid when it is injective and
maps nodes onto nodes with an equal label. An edge of g1 is *common* when both its ends are
mapped and their images are joined in g2 by an edge with an equal label. The maximum common
edge subgraph (MCES) is a valid map with the most common edges; the common subgraph may be
disconnected.

Labels are compared through :func:`gedkit.graph.label_key`, so attribute dicts work as labels.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from gedkit.errors import GedkitError, GraphError
from gedkit.graph import Graph, intern, refuse_directed
from gedkit.pair import GraphPair, label_adjacency

__all__ = ["MCESProblem", "johnson_similarity", "ring_edges"]


def ring_edges(g: Graph) -> np.ndarray:
    """Mask over the edges of ``g`` that lie on a cycle (ring bonds): those that are not
    bridges.

    >>> g = Graph({i: "C" for i in range(4)}, [(0, 1), (1, 2), (2, 0), (2, 3)])
    >>> ring_edges(g).tolist()
    [True, True, True, False]
    """
    import networkx as nx

    h = nx.Graph()
    h.add_nodes_from(range(g.n))
    edges = g.edges.tolist()
    h.add_edges_from(map(tuple, edges))
    bridges = {frozenset(e) for e in nx.bridges(h)}
    return np.array([frozenset(e) not in bridges for e in edges], dtype=bool)


def johnson_similarity(common_nodes: int, common_edges: int, g1: Graph, g2: Graph) -> float:
    """Johnson similarity ``(Vc + Ec)² / ((V1 + E1)(V2 + E2))``, as RDKit's RASCAL reports it.

    ``Vc`` is the number of nodes the common edges touch (RASCAL counts the atoms of its
    matched bonds, not every mapped atom), ``Ec`` the number of common edges. It is 0 when
    either graph is empty (nothing to share).

    >>> g = Graph({0: "C", 1: "O"}, [(0, 1)])
    >>> johnson_similarity(2, 1, g, g)
    1.0
    """
    size = (g1.n + g1.m) * (g2.n + g2.m)
    return 0.0 if size == 0 else (common_nodes + common_edges) ** 2 / size


class MCESProblem(GraphPair):
    """Both graphs as label-id arrays, plus the edge classes the bounds work on.

    With ``ring_matches_ring_only``, an edge on a cycle (a ring bond) only matches an edge on a
    cycle, and an edge on none only one on none (RASCAL's and FindMCS's
    ``ringMatchesRingOnly``); ring membership is read from the graphs themselves
    (:func:`ring_edges`), so every graph has it.

    Attributes
    ----------
    node_labels1, node_labels2 : ndarray of int64
        Jointly interned node-label ids (equal labels, equal ids).
    adj1, adj2 : ndarray of int32
        Dense adjacency holding each edge's jointly interned label id, -1 for no edge.
    edge_classes1, edge_classes2 : ndarray of int64
        Per edge, the id of its *class*: edge label plus the unordered pair of end labels. An
        edge can only be common with an edge of the same class, so classes are what bounds
        count. Classes present in one graph only get ids too; they never match.
    n_classes : int
        Number of class ids.

    Examples
    --------
    >>> g1 = Graph({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 2)])
    >>> g2 = Graph({"a": "C", "b": "O", "c": "C"}, [("a", "b", 2), ("a", "c", 1)])
    >>> p = MCESProblem(g1, g2)
    >>> p.count([2, 0, 1])        # 0->c, 1->a, 2->b keeps both edges
    2
    >>> p.count([0, 2, -1])       # 0->a, 1->c keeps the C-C bond only
    1
    """

    def __init__(self, g1: Graph, g2: Graph, *, ring_matches_ring_only: bool = False):
        for g in (g1, g2):
            refuse_directed(g, "MCES")
            if g.loops:  # common edges are counted over node pairs' edges: no loop kind
                raise GraphError(
                    f"graph {repr(g.name) + ' ' if g.name else ''}has a self-loop (on "
                    f"{g.ids[next(iter(g.loops))]!r}): MCES does not count self-loops (GED "
                    "prices them); remove them first, e.g. networkx's "
                    "g.remove_edges_from(nx.selfloop_edges(g))")
        self.g1, self.g2 = g1, g2
        self.ring_matches_ring_only = ring_matches_ring_only
        node_ids: dict = {}
        self.node_labels1 = intern(g1.node_keys, node_ids)
        self.node_labels2 = intern(g2.node_keys, node_ids)
        edge_ids: dict = {}
        keys1, keys2 = g1.edge_keys, g2.edge_keys
        if ring_matches_ring_only:  # a ring edge and a chain edge never have one label
            keys1 = list(zip(keys1, ring_edges(g1).tolist(), strict=True))
            keys2 = list(zip(keys2, ring_edges(g2).tolist(), strict=True))
        self.edge_labels1 = intern(keys1, edge_ids)
        self.edge_labels2 = intern(keys2, edge_ids)
        self.adj1 = label_adjacency(g1, self.edge_labels1)
        self.adj2 = label_adjacency(g2, self.edge_labels2)
        class_ids: dict = {}
        self.edge_classes1 = _classes(g1, self.node_labels1, self.edge_labels1, class_ids)
        self.edge_classes2 = _classes(g2, self.node_labels2, self.edge_labels2, class_ids)
        self.n_classes = len(class_ids)

    def transposed(self) -> MCESProblem:
        """The same instance seen from g2 (a map and its inverse keep the same edges)."""
        p = MCESProblem.__new__(MCESProblem)
        p.g1, p.g2 = self.g2, self.g1
        p.ring_matches_ring_only = self.ring_matches_ring_only
        p.node_labels1, p.node_labels2 = self.node_labels2, self.node_labels1
        p.edge_labels1, p.edge_labels2 = self.edge_labels2, self.edge_labels1
        p.adj1, p.adj2 = self.adj2, self.adj1
        p.edge_classes1, p.edge_classes2 = self.edge_classes2, self.edge_classes1
        p.n_classes = self.n_classes
        return p

    @cached_property
    def neighbours1(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CSR neighbour lists of g1 (pointers, neighbours, edge-label ids), built once for
        the local searches that run many times per problem."""
        from gedkit._kernels.order import neighbour_lists

        return neighbour_lists(self.adj1)

    @cached_property
    def neighbours2(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CSR neighbour lists of g2, as :attr:`neighbours1`."""
        from gedkit._kernels.order import neighbour_lists

        return neighbour_lists(self.adj2)

    @cached_property
    def useful1(self) -> np.ndarray:
        """Mask over the edges of g1 whose class occurs in g2 (the only ones that can be
        common)."""
        return np.isin(self.edge_classes1, self.edge_classes2)

    @cached_property
    def useful2(self) -> np.ndarray:
        """Mask over the edges of g2 whose class occurs in g1."""
        return np.isin(self.edge_classes2, self.edge_classes1)

    # -- node maps -----------------------------------------------------------------------------
    def check_map(self, forward: Any) -> np.ndarray:
        """Validate a node map (also: only equal labels match) and return it as int64."""
        f = super().check_map(forward)
        mapped = np.flatnonzero(f >= 0)
        bad = mapped[self.node_labels1[mapped] != self.node_labels2[f[mapped]]]
        if len(bad):
            i = int(bad[0])
            raise GedkitError(
                f"node map sends node {self.g1.ids[i]!r} onto node "
                f"{self.g2.ids[f[i]]!r}, whose label differs"
            )
        return f

    def common(self, forward: Any) -> np.ndarray:
        """Mask over the edges of g1 that ``forward`` keeps: THE definition every solver's
        edge count goes through (read-only; the last map's is kept, since a solve's answer is
        counted by the search, by its result and by whoever reads it)."""
        f = np.asarray(forward, dtype=np.int64)
        key = f.tobytes() if f.ndim == 1 else None
        last = self.__dict__.get("_last_common")
        if last is not None and last[0] == key:  # that map was checked then
            return last[1]
        f = self.check_map(f)
        keep = np.zeros(self.g1.m, dtype=bool)
        if self.g1.m:
            a = f[self.g1.edges[:, 0]]
            b = f[self.g1.edges[:, 1]]
            both = (a >= 0) & (b >= 0)
            keep[both] = self.adj2[a[both], b[both]] == self.edge_labels1[both]
        keep.setflags(write=False)
        self._last_common = (key, keep)
        return keep

    def count(self, forward: Any) -> int:
        """Number of common edges under ``forward`` (validated)."""
        return int(self.common(forward).sum())

    def fragments(self, forward: Any) -> list[np.ndarray]:
        """The connected pieces of the common subgraph under ``forward``: per piece, the
        indices of its edges in g1 (sorted), largest piece first (ties: lowest first edge).

        >>> g = Graph({i: "C" for i in range(5)}, [(0, 1), (1, 2), (3, 4)])
        >>> [e.tolist() for e in MCESProblem(g, g).fragments(list(range(5)))]
        [[0, 1], [2]]
        """
        keep = np.flatnonzero(self.common(forward))
        if len(keep) == 0:
            return []
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        ends = self.g1.edges[keep]
        graph = coo_matrix((np.ones(len(keep)), (ends[:, 0], ends[:, 1])),
                           shape=(self.n1, self.n1))
        _, piece = connected_components(graph, directed=False)
        of_edge = piece[ends[:, 0]]
        pieces = [keep[of_edge == c] for c in np.unique(of_edge)]
        return sorted(pieces, key=lambda e: (-len(e), int(e[0])))

    def largest_fragment(self, forward: Any) -> np.ndarray:
        """``forward`` restricted to the nodes of its largest fragment (see
        :meth:`fragments`): a map whose common subgraph is connected.

        >>> g = Graph({i: "C" for i in range(5)}, [(0, 1), (1, 2), (3, 4)])
        >>> MCESProblem(g, g).largest_fragment(list(range(5))).tolist()
        [0, 1, 2, -1, -1]
        """
        f = self.check_map(forward)
        out = np.full(self.n1, -1, dtype=np.int64)
        pieces = self.fragments(f)
        if pieces:
            nodes = np.unique(self.g1.edges[pieces[0]])
            out[nodes] = f[nodes]
        return out

    def __repr__(self) -> str:
        return f"<MCESProblem n1={self.n1} n2={self.n2} classes={self.n_classes}>"


def _classes(g: Graph, node_labels: np.ndarray, edge_labels: np.ndarray, ids: dict) -> np.ndarray:
    """Each edge's class id (``ids``: shared by both graphs): its label and its ends' labels,
    the smaller first."""
    ends = node_labels[g.edges]
    ends.sort(axis=1)
    return intern(zip(edge_labels.tolist(), ends[:, 0].tolist(), ends[:, 1].tolist(),
                      strict=True), ids)
