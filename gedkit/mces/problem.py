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

from gedkit._kernels.mces_count import common_edges as common_edges_source
from gedkit.errors import GedkitError, GraphError, Words
from gedkit.graph import Graph, local_codes, refuse_directed
from gedkit.pair import GraphPair, label_adjacency
from gedkit.text import quoted

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
    class_sizes : (dict, dict)
        Per graph, its number of edges of each class id it has.

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
                    f"graph {quoted(g.name) + ' ' if g.name else ''}has a self-loop (on "
                    f"{quoted(g.ids[next(iter(g.loops))])}): MCES does not count self-loops (GED "
                    "prices them); remove them first",
                    Words(", e.g. networkx's g.remove_edges_from(nx.selfloop_edges(g))",
                          " from the file (gedkit ged compares graphs with loops)"))
        self.g1, self.g2 = g1, g2
        self.ring_matches_ring_only = ring_matches_ring_only
        node_ids: dict = {}
        nodes1, nodes2 = g1.label_codes("node"), g2.label_codes("node")
        table1, table2 = _joint(nodes1, node_ids), _joint(nodes2, node_ids)
        self.node_labels1, self.node_labels2 = table1[nodes1[0]], table2[nodes2[0]]
        edge_ids: dict = {}
        edges1 = _edge_codes(g1, ring_matches_ring_only)
        edges2 = _edge_codes(g2, ring_matches_ring_only)
        etable1, etable2 = _joint(edges1, edge_ids), _joint(edges2, edge_ids)
        self.edge_labels1, self.edge_labels2 = etable1[edges1[0]], etable2[edges2[0]]
        # classes from each graph's own (cached) classes: only their few distinct ones are
        # hashed here, numbered in order of first appearance over g1's edges, then g2's
        class_ids: dict = {}
        local1 = _local_classes(g1, ring_matches_ring_only)
        local2 = _local_classes(g2, ring_matches_ring_only)
        ids1 = _joint_classes(local1, table1, etable1, class_ids)
        ids2 = _joint_classes(local2, table2, etable2, class_ids)
        self.edge_classes1 = np.array(ids1, dtype=np.int64)[local1[0]]
        self.edge_classes2 = np.array(ids2, dtype=np.int64)[local2[0]]
        self.n_classes = len(class_ids)
        # (distinct local classes have distinct joint ids: a graph's own sizes carry over)
        self.class_sizes = (dict(zip(ids1, _class_sizes(g1, ring_matches_ring_only), strict=True)),
                            dict(zip(ids2, _class_sizes(g2, ring_matches_ring_only), strict=True)))

    def transposed(self) -> MCESProblem:
        """The same instance seen from g2 (a map and its inverse keep the same edges)."""
        p = MCESProblem.__new__(MCESProblem)
        p.g1, p.g2 = self.g2, self.g1
        p.ring_matches_ring_only = self.ring_matches_ring_only
        p.node_labels1, p.node_labels2 = self.node_labels2, self.node_labels1
        p.edge_labels1, p.edge_labels2 = self.edge_labels2, self.edge_labels1
        for mine, theirs in (("adj1", "adj2"), ("adj2", "adj1")):
            if theirs in self.__dict__:  # built already: shared, not built again
                p.__dict__[mine] = self.__dict__[theirs]
        p.edge_classes1, p.edge_classes2 = self.edge_classes2, self.edge_classes1
        p.n_classes = self.n_classes
        p.class_sizes = self.class_sizes[::-1]
        return p

    @cached_property
    def adj1(self) -> np.ndarray:
        """Dense adjacency of g1 with each edge's label id, -1 for no edge (built on first
        use: the connected search of a small pair never reads it)."""
        return label_adjacency(self.g1, self.edge_labels1)

    @cached_property
    def adj2(self) -> np.ndarray:
        """Dense adjacency of g2, as :attr:`adj1`."""
        return label_adjacency(self.g2, self.edge_labels2)

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
                f"node map sends node {quoted(self.g1.ids[i])} onto node "
                f"{quoted(self.g2.ids[f[i]])}, whose label differs"
            )
        return f

    def common(self, forward: Any) -> np.ndarray:
        """Mask over the edges of g1 that ``forward`` keeps: THE definition every solver's
        edge count goes through (read-only; the last map's is kept, since a solve's answer is
        counted by the search, by its result and by whoever reads it)."""
        return self._counted(forward)[0]

    def count(self, forward: Any) -> int:
        """Number of common edges under ``forward`` (validated)."""
        return self._counted(forward)[1]

    def _counted(self, forward: Any) -> tuple[np.ndarray, int]:
        """:meth:`common`'s mask and its number of edges, for the last map asked about."""
        f = np.ascontiguousarray(forward, dtype=np.int64)
        key = f.tobytes() if f.ndim == 1 else None
        last = self.__dict__.get("_last_common")
        if last is not None and last[0] == key:  # that map was checked then
            return last[1]
        if f.shape != (self.n1,):
            self.check_map(f)  # raises with the precise reason
        keep = np.zeros(self.g1.m, dtype=bool)
        found = _common_edges()(f, np.zeros(self.n2, dtype=bool), self.node_labels1,
                                self.node_labels2, self.g1.edges, self.edge_labels1,
                                self.g2.adjacency, self.edge_labels2, keep)
        if found < 0:
            self.check_map(f)  # raises with the precise reason
        keep.setflags(write=False)
        self._last_common = (key, (keep, int(found)))
        return keep, int(found)

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


def _joint(codes: tuple[np.ndarray, tuple], ids: dict) -> np.ndarray:
    """Per local code of ``codes`` (a :func:`~gedkit.graph.local_codes` answer), the id of
    its key in ``ids``, numbered jointly over several graphs (equal keys, equal ids)."""
    return np.array([ids.setdefault(k, len(ids)) for k in codes[1]], dtype=np.int64)


def _edge_codes(g: Graph, ring_only: bool) -> tuple[np.ndarray, tuple]:
    """``g``'s edge label codes; with ``ring_only``, of its labels paired with whether the
    edge lies on a cycle (a ring edge and a chain edge never have one label)."""
    if not ring_only:
        return g.label_codes("edge")
    return g.cached(("ring edge codes",), lambda g: local_codes(
        zip(g.edge_keys, ring_edges(g).tolist(), strict=True)))


def _local_classes(g: Graph, ring_only: bool) -> tuple[np.ndarray, tuple]:
    """Each edge's class in ``g`` alone, as local codes of (edge code, the smaller and the
    larger of its ends' node codes), computed once per graph."""

    def compute(g: Graph) -> tuple[np.ndarray, tuple]:
        nodes = g.label_codes("node")[0]
        edges = _edge_codes(g, ring_only)[0]
        a, b = nodes[g.edges[:, 0]], nodes[g.edges[:, 1]]
        return local_codes(zip(edges.tolist(), np.minimum(a, b).tolist(),
                               np.maximum(a, b).tolist(), strict=True))

    return g.cached(("mces classes", ring_only), compute)


def _class_sizes(g: Graph, ring_only: bool) -> list[int]:
    """How many edges of ``g`` each of its local classes (:func:`_local_classes`) has."""
    return g.cached(("mces class sizes", ring_only), lambda g: np.bincount(
        _local_classes(g, ring_only)[0], minlength=len(_local_classes(g, ring_only)[1])
    ).tolist())


def _joint_classes(local: tuple[np.ndarray, tuple], nodes: np.ndarray, edges: np.ndarray,
                   ids: dict) -> list[int]:
    """Per local class of a graph (``local``), its class id (``ids``: shared by both
    graphs): its label and its ends' labels, the smaller first, from the joint ids of the
    graph's local node (``nodes``) and edge (``edges``) codes."""
    _, triples = local
    nodes, edges = nodes.tolist(), edges.tolist()  # (Python ints: no numpy scalar per read)
    table = []
    for e, a, b in triples:
        lo, hi = nodes[a], nodes[b]
        key = (edges[e], lo, hi) if lo <= hi else (edges[e], hi, lo)
        table.append(ids.setdefault(key, len(ids)))
    return table


_COMPILED: list = []  # the compiled common_edges, once kernels run in this process


def _common_edges():
    """The compiled :func:`~gedkit._kernels.mces_count.common_edges` once compiled kernels
    run in this process; until then its plain-Python source, which gives the same edges, so
    that no count waits for a compiler, numba's import or its start-up."""
    if _COMPILED:
        return _COMPILED[0]
    from gedkit._kernels import warm

    if warm.started() and warm.ready("mces"):
        from gedkit._kernels.mces_search import common_edges

        _COMPILED.append(common_edges)
        return common_edges
    return common_edges_source
