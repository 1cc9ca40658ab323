"""The immutable labelled graph every part of gedkit consumes.

A :class:`Graph` is undirected unless built with ``directed=True`` (then its edges are arcs,
ordered pairs ``(u, v)``, and ``(u, v)`` and ``(v, u)`` are two arcs with labels of their own),
with no parallel edges (multigraphs are refused, by design: see
the README's "Self-loops and multigraphs"). A self-loop is allowed, at most one per node: it is
kept apart from the other edges, in :attr:`Graph.loops`, so that ``edges`` holds only edges
between two distinct nodes. Nodes are stored in a fixed order (index ``0..n-1``)
next to the caller's own ids, so solvers work on plain arrays while results are reported in the
caller's ids. Labels are arbitrary values (hashable values or attribute dicts): only cost models
interpret them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

import numpy as np

from gedkit.errors import GraphError, Words
from gedkit.text import MESSAGE_WIDTH, clipped, quoted

__all__ = ["Graph", "Unnamed", "components", "dense_adjacency", "intern", "label_key",
           "local_codes", "mixed_directions", "refuse_directed"]

# Deeper labels are rejected: nothing real nests this deep, and label_key, hashing and cost
# models walk labels recursively.
MAX_LABEL_DEPTH = 64


def label_key(label: Any) -> Hashable:
    """A hashable stand-in for ``label`` (attribute dicts become sorted item tuples).

    Two labels that compare equal have the same key, which is what label interning and
    label-equality cost models need. So do a few that do not: a list and a tuple of equal
    items (a tuple written to JSON reads back as a list), and a dict and the tuple of its
    sorted ``(key, value)`` pairs.

    >>> label_key({"b": 2, "a": 1})
    (('a', 1), ('b', 2))
    >>> label_key("C"), label_key({2: "x", "a": [1]})
    ('C', ((2, 'x'), ('a', (1,))))
    """
    if isinstance(label, Mapping):
        items = [(k, label_key(v)) for k, v in label.items()]
        try:
            return tuple(sorted(items))
        except TypeError:  # keys of several types (2 and "a"): by type, then by text
            return tuple(sorted(items, key=lambda item: (type(item[0]).__name__,
                                                         repr(item[0]))))
    if isinstance(label, list | tuple):
        return tuple(label_key(v) for v in label)
    try:
        hash(label)
    except TypeError:
        raise GraphError(f"label {quoted(label)} is neither hashable nor a dict") from None
    return label


_PLAIN = frozenset((str, int, float, bool, type(None)))  # labels that are their own keys


def _keys(labels: tuple) -> tuple:
    """:func:`label_key` of each label (plain ones, most labels, without a call; labels all
    plain, the labels themselves: their types looked at in one pass in C, 0.5 µs for 25
    labels against 0.9 label by label)."""
    if set(map(type, labels)) <= _PLAIN:
        return labels if type(labels) is tuple else tuple(labels)
    return tuple(lab if type(lab) in _PLAIN else label_key(lab) for lab in labels)


class Graph:
    """A simple graph with node and edge labels, undirected unless ``directed=True``.

    Parameters
    ----------
    nodes : mapping or iterable
        Either a mapping ``{node_id: label}`` or an iterable of node ids (all labels ``None``).
        The iteration order fixes the internal node order.
    edges : mapping or iterable
        Either a mapping ``{(u, v): label}``, or an iterable of ``(u, v)`` pairs (label ``None``)
        or ``(u, v, label)`` triples. ``(u, u)`` is a self-loop (at most one per node), kept in
        :attr:`loops`; a repeated edge (a multigraph) is rejected.
    name : str, optional
        A name used in messages and reports.
    directed : bool
        False (the default): ``(u, v)`` and ``(v, u)`` are one edge, given once. True: each
        ``(u, v)`` is an arc from ``u`` to ``v``; the opposite arc ``(v, u)`` is another one,
        with its own label. A self-loop is one arc either way.

    Examples
    --------
    >>> g = Graph({"a": "C", "b": "O"}, [("a", "b", 2)], name="CO")
    >>> g.n, g.m
    (2, 1)
    >>> g.edge_label("b", "a")
    2
    >>> Graph(range(3), [(0, 1), (1, 2)]).degrees().tolist()
    [1, 2, 1]

    A self-loop is an edge of its own (priced by the cost model's edge costs), held apart:

    >>> h = Graph({"a": "C", "b": "O"}, [("a", "b"), ("b", "b", "x")])
    >>> h.m, h.loops, h.edge_label("b", "b")
    (1, {1: 'x'}, 'x')

    Directed, two opposite arcs are two edges:

    >>> d = Graph({"a": "C", "b": "O"}, [("a", "b", 1), ("b", "a", 2)], directed=True)
    >>> d.m, d.edge_label("a", "b"), d.edge_label("b", "a")
    (2, 1, 2)

    Attributes
    ----------
    edges : ndarray of int32, shape (m, 2)
        The edges between two distinct nodes (internal indices, smaller first; directed:
        each arc as (tail, head)); ``edge_labels`` their labels.
    directed : bool
        Whether the edges are arcs.
    loops : dict
        Self-loops: ``{node index: loop label}``, in node order (empty for most graphs);
        read-only by convention, like the rest of the graph.
    """

    __slots__ = (
        "_adjacency", "_edge_keys", "_index", "_loop_keys", "_memo", "_node_keys", "directed",
        "edge_labels", "edges", "ids", "loops", "name", "node_labels",
    )

    def __init__(
        self,
        nodes: Mapping[Hashable, Any] | Iterable[Hashable] = (),
        edges: Mapping[tuple[Hashable, Hashable], Any] | Iterable[tuple] = (),
        *,
        name: str | None = None,
        directed: bool = False,
    ):
        if not isinstance(directed, bool | np.bool_):
            raise GraphError(f"directed must be True or False, got {directed!r}{_in(name)}")
        directed = bool(directed)
        if isinstance(nodes, Mapping):
            ids, node_labels = tuple(nodes.keys()), tuple(nodes.values())
        else:
            try:
                ids = tuple(nodes)
            except TypeError:  # (Python's "'int' object is not iterable")
                raise GraphError(f"nodes must be a mapping {{id: label}} or ids, got "
                                 f"{type(nodes).__name__}{_in(name)}") from None
            node_labels = (None,) * len(ids)
        index: dict[Hashable, int] = {}
        for i, node in enumerate(ids):
            try:
                if node in index:
                    raise GraphError(f"node id {quoted(node)} appears twice{_in(name)}")
            except TypeError:
                raise GraphError(f"node id {quoted(node)} is not hashable{_in(name)}") from None
            if node is None:
                raise GraphError(f"node id None{_in(name)} is not allowed: node maps use None "
                                 "for 'no node'")
            if _is_nan(node):
                raise GraphError(f"node id NaN{_in(name)} is not allowed: NaN never equals "
                                 "itself")
            index[node] = i
        for node, label in zip(ids, node_labels, strict=True):
            if type(label) not in _NEVER_NAN:  # (its words made only where it is looked at)
                check_label(label, "node {}", name, node)

        if isinstance(edges, Mapping):
            triples = [(u, v, lab) for (u, v), lab in edges.items()]
        else:
            triples = []
            for e in edges:
                if len(e) == 2:
                    triples.append((e[0], e[1], None))
                elif len(e) == 3:
                    triples.append(tuple(e))
                else:
                    raise GraphError(f"edge {quoted(e)} is neither (u, v) nor (u, v, label)"
                                     f"{_in(name)}")

        pairs = _plain_pairs(triples, index, directed)
        loops: dict[int, Any] = {}
        if pairs is not None:  # every end known, no loop, no edge twice: the labels checked
            for u, v, lab in triples:
                if type(lab) not in _NEVER_NAN:
                    check_label(lab, "edge ({}, {})", name, u, v)
            triples_kept = triples
        else:  # edge by edge: self-loops kept apart, the first problem named
            pairs, loops, triples_kept = _checked_pairs(triples, index, directed, name)
        pairs.setflags(write=False)

        self.ids: tuple[Hashable, ...] = ids
        self.node_labels: tuple[Any, ...] = node_labels
        self.edges: np.ndarray = pairs
        self.edge_labels: tuple[Any, ...] = tuple(t[2] for t in triples_kept)
        self.loops: dict[int, Any] = loops
        self.name = name
        self.directed = directed
        self._index = index
        self._loop_keys: dict | None = None
        self._adjacency: np.ndarray | None = None
        self._node_keys: tuple | None = None
        self._edge_keys: tuple | None = None
        self._memo: dict | None = None

    @classmethod
    def _from_valid(cls, node_labels: tuple, edges: np.ndarray, edge_labels: tuple,
                    name: str | None = None) -> Graph:
        """The undirected graph on nodes ``0..n-1`` labelled ``node_labels`` with edges
        ``edges`` (int32, shape ``(m, 2)``, each pair once, smaller end first, no self-loop)
        labelled ``edge_labels``: what ``Graph(dict(enumerate(node_labels)), ...)`` builds,
        without its checks, for readers whose source guarantees them (RDKit's atoms and
        bonds, labels that are symbols and bond orders: the checks took a third of reading
        a molecule)."""
        g = cls.__new__(cls)
        n = len(node_labels)
        edges.setflags(write=False)
        g.ids = tuple(range(n))
        g.node_labels = node_labels
        g.edges = edges
        g.edge_labels = edge_labels
        g.loops = {}
        g.name = name
        g.directed = False
        g._index = {i: i for i in g.ids}
        g._loop_keys = g._adjacency = g._node_keys = g._edge_keys = g._memo = None
        return g

    def __setstate__(self, state: Any) -> None:
        # a graph pickled by an earlier gedkit has no self-loop slots (it had no loops) and
        # no direction slot (it was undirected)
        self.loops, self._loop_keys, self.directed, self._memo = {}, None, False, None
        slots = state[1] if isinstance(state, tuple) else state
        for key, value in (slots or {}).items():
            setattr(self, key, value)
        # pickle gives arrays back writable: read-only again, as built (the kernels are
        # compiled for read-only edge arrays; a writable one would compile them anew)
        self.edges.setflags(write=False)
        if self._adjacency is not None:
            self._adjacency.setflags(write=False)

    # -- size and lookup ---------------------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of nodes."""
        return len(self.ids)

    @property
    def m(self) -> int:
        """Number of edges between two distinct nodes (self-loops: ``len(g.loops)``)."""
        return len(self.edges)

    def __len__(self) -> int:
        return self.n

    def index(self, node: Hashable) -> int:
        """Internal index of the caller's node id ``node``."""
        try:
            return self._index[node]
        except KeyError:
            raise GraphError(f"no node {quoted(node)}{_in(self.name)}") from None

    @property
    def adjacency(self) -> np.ndarray:
        """Dense ``n × n`` int32 matrix: edge index, or -1 where there is no edge (read-only;
        directed: ``[u, v]`` is the arc from ``u`` to ``v``)."""
        if self._adjacency is None:
            adj = dense_adjacency(self.n, self.edges, np.arange(self.m, dtype=np.int32),
                                  directed=self.directed)
            adj.setflags(write=False)
            self._adjacency = adj
        return self._adjacency

    @property
    def node_keys(self) -> tuple:
        """Hashable stand-ins of the node labels (see :func:`label_key`), computed once."""
        if self._node_keys is None:
            self._node_keys = _keys(self.node_labels)
        return self._node_keys

    @property
    def edge_keys(self) -> tuple:
        """Hashable stand-ins of the edge labels, computed once."""
        if self._edge_keys is None:
            self._edge_keys = _keys(self.edge_labels)
        return self._edge_keys

    def cached(self, key: Hashable, compute: Callable[[Graph], Any]) -> Any:
        """``compute(self)``, computed once per ``key`` (a graph never changes): what the
        problems built from this graph again and again derive from it alone."""
        if self._memo is None:
            self._memo = {}
        if key not in self._memo:
            self._memo[key] = compute(self)
        return self._memo[key]

    def label_codes(self, kind: str) -> tuple[np.ndarray, tuple]:
        """The node (``kind="node"``) or edge (``"edge"``) label keys as :func:`local_codes`,
        computed once: pairs are built from them without hashing every label again."""
        return self.cached(("label codes", kind), lambda g: local_codes(
            g.node_keys if kind == "node" else g.edge_keys))

    @property
    def loop_keys(self) -> dict:
        """:attr:`loops` with :func:`label_key` stand-ins of their labels, computed once."""
        if self._loop_keys is None:
            self._loop_keys = {a: label_key(lab) for a, lab in self.loops.items()}
        return self._loop_keys

    def degrees(self) -> np.ndarray:
        """Degree of every node, in internal order (self-loops not counted; directed: in- plus
        out-degree)."""
        return np.bincount(self.edges.ravel(), minlength=self.n)

    def edge_label(self, u: Hashable, v: Hashable) -> Any:
        """Label of the edge between caller ids ``u`` and ``v`` (``u == v``: the self-loop;
        directed: the arc from ``u`` to ``v``)."""
        a, b = self.index(u), self.index(v)
        if a == b:
            if a not in self.loops:
                raise GraphError(f"no self-loop on {quoted(u)}{_in(self.name)}")
            return self.loops[a]
        k = self.adjacency[a, b]
        if k < 0:
            what = "arc from" if self.directed else "edge between"
            raise GraphError(f"no {what} {quoted(u)} {'to' if self.directed else 'and'} {quoted(v)}"
                             f"{_in(self.name)}")
        return self.edge_labels[k]

    def node_label(self, u: Hashable) -> Any:
        """Label of caller id ``u``."""
        return self.node_labels[self.index(u)]

    # -- conversions ---------------------------------------------------------------------------
    @classmethod
    def from_networkx(
        cls,
        g: Any,
        node_label: str | list[str] | tuple[str, ...] | None = None,
        edge_label: str | list[str] | tuple[str, ...] | None = None,
        *,
        name: str | None = None,
    ) -> Graph:
        """Build a graph from a NetworkX graph.

        Parameters
        ----------
        g : networkx.Graph or networkx.DiGraph
            Self-loops are kept (in :attr:`loops`); a ``DiGraph`` gives a directed graph.
            Multigraphs are rejected.
        node_label, edge_label : str, list of str, "*" or None
            Which attribute is the label: one name (its value is the label), several names
            (a dict of those attributes), ``"*"`` (a dict of all attributes) or ``None``
            (unlabelled). A node or edge lacking a named attribute is an error. With neither
            named, attributes the graph has are left out with one
            :class:`~gedkit.errors.UnlabelledWarning` naming them (``to_networkx``'s
            ``label`` attribute included: ``node_label="label"`` reads it back).

        Examples
        --------
        >>> import networkx as nx
        >>> h = nx.Graph()
        >>> h.add_node(1, atom="C"); h.add_node(2, atom="N"); h.add_edge(1, 2, bond=1)
        >>> Graph.from_networkx(h, node_label="atom", edge_label="bond").node_labels
        ('C', 'N')
        >>> Graph.from_networkx(nx.DiGraph([(1, 2), (2, 1)])).m
        2
        """
        from gedkit.io.common import check_label_spec

        if not (hasattr(g, "graph") and hasattr(g, "is_multigraph")):  # (AttributeError)
            raise GraphError(f"from_networkx takes a NetworkX graph, got {type(g).__name__}")
        check_label_spec(node_label, "node_label")
        check_label_spec(edge_label, "edge_label")
        name = name if name is not None else (g.graph.get("name") or None)
        if g.is_multigraph() and _parallel(g):  # (one without is the simple graph it is)
            raise GraphError(_multi(f"graph{_in(name)} is a multigraph with parallel edges",
                                    None))
        notice = None
        if node_label is None and edge_label is None:
            # neither named: the attributes left out are said (to_networkx's labels read
            # back as nothing, silently, and the round trip gave another graph)
            from gedkit.io.common import DEFAULT, Unlabelled

            notice = Unlabelled()
            node_label, edge_label = notice.specs(DEFAULT, DEFAULT, natural=False)
        node_items, edge_items = list(g.nodes(data=True)), list(g.edges(data=True))
        nodes = dict(zip(g.nodes, pick_labels([d for _, d in node_items], node_label,
                                             lambda k: f"node {quoted(node_items[k][0])}", name),
                         strict=True))
        edges = [(u, v, label) for (u, v, _), label in zip(
            edge_items, pick_labels([d for _, _, d in edge_items], edge_label,
                                    lambda k: "edge ({}, {})".format(
                                        *map(quoted, edge_items[k][:2])),
                                    name), strict=True)]
        graph = cls(nodes, edges, name=name, directed=g.is_directed())
        if notice is not None:
            notice.mark("Graph.from_networkx")
            notice.warn()
        return graph

    def to_networkx(self, node_label: str = "label", edge_label: str = "label") -> Any:
        """A ``networkx.Graph`` (``DiGraph`` when directed) with labels stored under the given
        attribute names."""
        import networkx as nx

        kind = nx.DiGraph if self.directed else nx.Graph
        h = kind(name=self.name) if self.name else kind()
        for node, lab in zip(self.ids, self.node_labels, strict=True):
            h.add_node(node, **({node_label: lab} if lab is not None else {}))
        for (a, b), lab in zip(self.edges.tolist(), self.edge_labels, strict=True):
            h.add_edge(self.ids[a], self.ids[b], **({edge_label: lab} if lab is not None else {}))
        for a, lab in self.loops.items():
            h.add_edge(self.ids[a], self.ids[a], **({edge_label: lab} if lab is not None else {}))
        return h

    @classmethod
    def from_pyg(cls, data: Any, *, node_vocabulary: Any = None, edge_vocabulary: Any = None,
                 name: str | None = None) -> Graph:
        """A graph from a ``torch_geometric.data.Data`` (needs ``gedkit[pyg]``); see
        :func:`gedkit.io.pyg.from_pyg` for how features become labels."""
        from gedkit.io.pyg import from_pyg

        return from_pyg(data, node_vocabulary=node_vocabulary,
                        edge_vocabulary=edge_vocabulary, name=name)

    def to_pyg(self, *, node_vocabulary: Any = None, edge_vocabulary: Any = None) -> Any:
        """A ``torch_geometric.data.Data`` of this graph (needs ``gedkit[pyg]``); see
        :func:`gedkit.io.pyg.to_pyg` for how labels become features."""
        from gedkit.io.pyg import to_pyg

        return to_pyg(self, node_vocabulary=node_vocabulary, edge_vocabulary=edge_vocabulary)

    def permuted(self, order: Iterable[int]) -> Graph:
        """The same graph with its nodes stored in another internal order (ids kept)."""
        order = list(order)
        if sorted(order) != list(range(self.n)):
            raise GraphError("permuted() needs a permutation of range(n)")
        nodes = {self.ids[i]: self.node_labels[i] for i in order}
        edges = [
            (self.ids[a], self.ids[b], lab)
            for (a, b), lab in zip(self.edges.tolist(), self.edge_labels, strict=True)
        ]
        edges += [(self.ids[a], self.ids[a], lab) for a, lab in self.loops.items()]
        return Graph(nodes, edges, name=self.name, directed=self.directed)

    # -- dunder --------------------------------------------------------------------------------
    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        loops = f" loops={len(self.loops)}" if self.loops else ""
        directed = " directed" if self.directed else ""
        return f"<Graph{label} n={self.n} m={self.m}{loops}{directed}>"

    def __eq__(self, other: object) -> bool:
        """Same direction, ids, labels and edge set (node order and edge order ignored)."""
        if not isinstance(other, Graph):
            return NotImplemented
        if self.directed != other.directed:
            return False
        if dict(zip(self.ids, self.node_keys, strict=True)) != dict(
            zip(other.ids, other.node_keys, strict=True)
        ):
            return False
        return _edge_dict(self) == _edge_dict(other)

    __hash__ = None  # type: ignore[assignment]


def intern(keys: Iterable[Hashable], ids: dict | None = None) -> np.ndarray:
    """One int64 id per distinct key, numbered in order of first appearance; pass the same
    ``ids`` dict to number several sequences jointly (equal keys, equal ids).

    >>> ids = {}
    >>> intern(["C", "O", "C"], ids).tolist(), intern(["N", "C"], ids).tolist()
    ([0, 1, 0], [2, 0])
    """
    ids = {} if ids is None else ids
    return np.array([ids.setdefault(k, len(ids)) for k in keys], dtype=np.int64)


def local_codes(keys: Iterable[Hashable]) -> tuple[np.ndarray, tuple]:
    """:func:`intern` of ``keys`` on their own (read-only), and the distinct keys in the
    order of their ids.

    >>> codes, distinct = local_codes(["C", "O", "C"])
    >>> codes.tolist(), distinct
    ([0, 1, 0], ('C', 'O'))
    """
    ids: dict = {}
    codes = intern(keys, ids)
    codes.setflags(write=False)
    return codes, tuple(ids)


def dense_adjacency(n: int, edges: np.ndarray, values: np.ndarray,
                    dtype: type = np.int32, *, directed: bool = False) -> np.ndarray:
    """The ``n × n`` matrix holding ``values[k]`` at both ends of edge ``k`` (``edges``: an
    ``m × 2`` array of node indices), -1 where there is no edge; ``directed``: at
    ``[tail, head]`` only.

    >>> dense_adjacency(3, np.array([[0, 2]]), np.array([7])).tolist()
    [[-1, -1, 7], [-1, -1, -1], [7, -1, -1]]
    >>> dense_adjacency(2, np.array([[1, 0]]), np.array([7]), directed=True).tolist()
    [[-1, -1], [7, -1]]
    """
    adj = np.full((n, n), -1, dtype=dtype)
    if len(edges):
        if not directed:
            adj[edges[:, 1], edges[:, 0]] = values
        adj[edges[:, 0], edges[:, 1]] = values
    return adj


def components(n: int, edges: Iterable[tuple[int, int]]) -> list[int]:
    """For nodes ``0..n-1`` joined by ``edges`` (index pairs), a component label per node:
    two nodes share one exactly when a path of ``edges`` joins them (union-find).

    >>> components(5, [(0, 1), (1, 2), (3, 4)])
    [2, 2, 2, 4, 4]
    """
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        parent[find(a)] = find(b)
    return [find(x) for x in range(n)]


def refuse_directed(g: Graph, what: str) -> None:
    """The one error of every part of gedkit that takes undirected graphs only: ``what``
    names that part (GED itself takes directed graphs, see the README).

    >>> refuse_directed(Graph([0, 1], [(0, 1)], directed=True, name="d"), "MCES")
    Traceback (most recent call last):
    ...
    gedkit.errors.GraphError: graph 'd' is directed: MCES takes undirected graphs only ...
    """
    if g.directed:
        raise GraphError(
            f"{f'graph {quoted(g.name)}' if g.name else 'a graph'} is directed: {what} takes "
            "undirected graphs only ",
            Words("(gedkit.ged and gedkit.pairwise compare directed graphs); convert with "
                  "networkx's g.to_undirected() or read with directed='ignore'",
                  "(gedkit ged and gedkit pairwise compare directed graphs); read with "
                  "--directed ignore"),
            " if direction does not matter")


def mixed_directions(directed: str, undirected: str) -> GraphError:
    """The one error where a directed graph meets an undirected one (:func:`gedkit.ged`,
    :func:`gedkit.pairwise`): ``directed`` and ``undirected`` name the two graphs.

    >>> print(mixed_directions("graph 'd'", "graph 'u'").render(cli=True))
    graph 'd' is directed and graph 'u' is not: compare two directed or two undirected graphs \
(--directed ignore reads arcs as edges)
    """
    return GraphError(f"{directed} is directed and {undirected} is not: compare two directed or "
                      "two undirected graphs ",
                      Words("(networkx: g.to_directed() or g.to_undirected())",
                            "(--directed ignore reads arcs as edges)"))


def _edge_dict(g: Graph) -> dict:
    out: dict = {}
    pair = tuple if g.directed else frozenset
    for (a, b), lab in zip(g.edges.tolist(), g.edge_labels, strict=True):
        out[pair((g.ids[a], g.ids[b]))] = label_key(lab)
    for a, key in g.loop_keys.items():
        out[frozenset((g.ids[a],))] = key
    return out


def check_label(label: Any, what: str, graph_name: str | None, *ids: Hashable) -> None:
    """Reject a label no cost model can compare: NaN anywhere in it, or nesting deeper than
    :data:`MAX_LABEL_DEPTH`. ``what`` names its node or edge, each ``{}`` in it filled by one
    of ``ids``, quoted (see :func:`~gedkit.text.quoted`) only where it is said.

    NaN never equals itself, so two identical graphs labelled NaN would differ.

    >>> check_label({"x": [1.0, float("nan")]}, "node 3", "g")
    Traceback (most recent call last):
    ...
    gedkit.errors.GraphError: node 3 in graph 'g' has a NaN label value ...
    """
    if type(label) in _NEVER_NAN:  # the common case, checked without the walk
        return
    stack = [(label, 1)]
    while stack:  # no recursion: the depth is what is being checked
        value, depth = stack.pop()
        if _is_nan(value):
            raise GraphError(
                f"{_element(what, ids)}{_in(graph_name)} has a NaN label value "
                f"({quoted(label)}): NaN never equals itself, so equal graphs would differ; "
                "replace it by a value or a string"
            )
        if isinstance(value, Mapping | list | tuple):
            if depth > MAX_LABEL_DEPTH:
                raise GraphError(f"the label of {_element(what, ids)}{_in(graph_name)} nests "
                                 f"deeper than {MAX_LABEL_DEPTH} levels")
            items = value.values() if isinstance(value, Mapping) else value
            stack.extend((item, depth + 1) for item in items)


def _element(what: str, ids: tuple) -> str:
    """:func:`check_label`'s ``what`` with its ``ids`` quoted into it."""
    return what.format(*map(quoted, ids)) if ids else what


#: label types that hold no NaN (not float: check_label looks at those)
_NEVER_NAN = frozenset((str, int, bool, type(None)))


def _is_nan(value: Any) -> bool:
    return isinstance(value, float | np.floating | complex) and value != value


class Unnamed:
    """The label spec of a caller who named no label.

    With ``natural``, the first elements (nodes, or edges) seen that have attributes decide:
    if each has the one same attribute, that attribute is the label, for them and for all
    elements after them (an element without any attribute is unlabelled, before or after);
    otherwise they are all unlabelled. Whatever attribute is left out is
    remembered, so that the caller can be told (see :class:`gedkit.errors.UnlabelledWarning`).

    >>> spec = Unnamed(natural=True)
    >>> spec.choose([{"atom": "C"}, {"atom": "O"}])
    >>> pick_label({"atom": "N"}, spec, "node 0", None), spec.attributes
    ('N', [])
    >>> pick_label({}, spec, "node 1", None)  # no attribute at all: unlabelled
    >>> spec = Unnamed(natural=True)
    >>> spec.choose([{"atom": "C", "x": 0.5}])
    >>> pick_label({"atom": "C", "x": 0.5}, spec, "node 0", None), spec.attributes
    (None, ['atom', 'x'])
    """

    __slots__ = ("_seen", "dropped", "echo", "label", "natural")

    def __init__(self, natural: bool = False) -> None:
        self.natural = natural
        self.label: str | None = None  # the natural label, once chosen
        # whether the nodes' "label" of GEXF and GraphML files merely repeats their ids (then
        # no label), decided by the first such file of the call (gedkit.io.nxfiles)
        self.echo: bool | None = None
        self._seen: dict[str, None] = {}  # attributes left out: an ordered set
        self.dropped = 0  # elements that had attributes left out
    def choose(self, attrs: list[Mapping]) -> None:
        """Let the attribute dicts of one graph's elements choose the natural label, if
        none was chosen yet and they are the first with attributes."""
        if not self.natural or not any(attrs):
            return
        self.natural = False  # chosen now, once for the whole call
        names = {tuple(a) for a in attrs}
        if len(names) == 1 and len(first := next(iter(names))) == 1:
            self.label = first[0]

    def pick(self, attrs: Mapping, what: str, graph_name: str | None) -> Any:
        """The label of an element with attributes ``attrs``."""
        if self.label is None:
            self._note(attrs)
            return None
        if not attrs:
            # an element without attributes is unlabelled, whichever graph chose the label
            # (read first, its edges were; read after one that chose, they were an error)
            return None
        if self.label not in attrs:
            have = clipped(", ".join(sorted(map(str, attrs))), MESSAGE_WIDTH) or "none"
            raise GraphError(
                f"{what}{_in(graph_name)} has no attribute {quoted(self.label)} (it has: {have}), "
                f"which the labels were taken from, being the only attribute of the first "
                "graph's elements; name the labels to read them otherwise"
            )
        self._note({k: v for k, v in attrs.items() if k != self.label})
        return attrs[self.label]

    def _note(self, attrs: Mapping) -> None:
        """Remember the attributes of ``attrs`` left out: those with a value (an attribute
        that is null is no label left out: gedkit.write gives every edge of a graph with
        unlabelled edges "label": null, which read back was "edges compared unlabelled ...
        although the edges have attribute 'label'")."""
        names = [k for k, v in attrs.items() if v is not None]
        if names:
            self._seen.update(dict.fromkeys(map(str, names)))
            self.dropped += 1

    @property
    def attributes(self) -> list[str]:
        """The attribute names left out, in the order first seen."""
        return list(self._seen)


def pick_label(attrs: Mapping, spec: str | list | tuple | Unnamed | None, what: str,
               graph_name) -> Any:
    """Extract a label from an attribute dict according to a ``node_label``/``edge_label`` spec."""
    if spec is None:
        return None
    if isinstance(spec, Unnamed):
        return spec.pick(attrs, what, graph_name)
    if spec == "*":
        return dict(attrs)
    names = [spec] if isinstance(spec, str) else list(spec)
    missing = [k for k in names if k not in attrs]
    if missing:
        have = clipped(", ".join(sorted(map(str, attrs))), MESSAGE_WIDTH) or "none"
        raise GraphError(
            f"{what}{_in(graph_name)} has no attribute {quoted(missing[0])} (it has: {have})"
        )
    if isinstance(spec, str):
        return attrs[spec]
    return {k: attrs[k] for k in names}


def pick_labels(items: list[Mapping], spec: str | list | tuple | Unnamed | None,
                what: Callable[[int], str], graph_name) -> list:
    """:func:`pick_label` of each attribute dict of ``items``, ``what(k)`` naming item ``k``
    where it has no label (made only then: the words of every edge of a 100,000-edge graph
    took a tenth of its reading).

    >>> pick_labels([{"atom": "C"}, {"atom": "O"}], "atom", lambda k: f"node {k}", None)
    ['C', 'O']
    >>> pick_labels([{"atom": "C"}, {}], "atom", lambda k: f"node {k}", "g")
    Traceback (most recent call last):
    ...
    gedkit.errors.GraphError: node 1 in graph 'g' has no attribute 'atom' (it has: none)
    """
    if spec is None:
        return [None] * len(items)
    if isinstance(spec, Unnamed) and spec.label is None:  # unlabelled: what is left out noted
        for attrs in items:
            if attrs:
                spec.pick(attrs, "", graph_name)
        return [None] * len(items)
    try:
        return [pick_label(attrs, spec, "", graph_name) for attrs in items]
    except GraphError:  # the first item without its label, named
        for k, attrs in enumerate(items):
            pick_label(attrs, spec, what(k), graph_name)
        raise


def _parallel(g: Any) -> bool:
    """Whether the NetworkX multigraph ``g`` has two edges between one pair of nodes."""
    pairs = ((u, v) if g.is_directed() else frozenset((u, v)) for u, v in g.edges())
    return len(set(pairs)) < g.number_of_edges()


def _plain_pairs(triples: list[tuple], index: dict, directed: bool) -> np.ndarray | None:
    """The ``(m, 2)`` node indices of the edges ``triples`` (smaller first unless
    ``directed``), in one pass over them, where every end is a node, no edge is a loop and
    none comes twice; else None (:func:`_checked_pairs` then names the first problem). Edge by
    edge, a 100,000-edge graph took 0.2 s to build."""
    try:
        a = np.array([index[t[0]] for t in triples], dtype=np.int64)
        b = np.array([index[t[1]] for t in triples], dtype=np.int64)
    except (KeyError, TypeError):  # an unknown (or unhashable) end
        return None
    if (a == b).any():
        return None
    if not directed:
        a, b = np.minimum(a, b), np.maximum(a, b)
    if len(np.unique(a * len(index) + b)) < len(a):
        return None
    return np.stack([a, b], axis=1).astype(np.int32).reshape(-1, 2)


def _checked_pairs(triples: list[tuple], index: dict, directed: bool, name: str | None
                   ) -> tuple[np.ndarray, dict[int, Any], list[tuple]]:
    """The edges' node indices, the self-loops' labels by node and the edges that are not
    loops, edge by edge: an unknown end, a second loop on a node or an edge twice raises,
    naming the first."""
    pairs = np.empty((len(triples), 2), dtype=np.int32)
    seen: set[tuple[int, int]] = set()
    loops: dict[int, Any] = {}
    k = 0
    for u, v, lab in triples:
        for end in (u, v):
            if end not in index:
                raise GraphError(f"edge ({quoted(u)}, {quoted(v)}) names unknown node "
                                 f"{quoted(end)}{_in(name)}")
        a, b = index[u], index[v]
        if a == b:
            if a in loops:
                raise GraphError(_multi(f"two self-loops on node {quoted(u)}", name))
            check_label(lab, "self-loop ({}, {})", name, u, u)
            loops[a] = lab
            continue
        if not directed:
            a, b = min(a, b), max(a, b)
        if (a, b) in seen:
            what = f"two arcs from {quoted(u)} to {quoted(v)}" if directed else (
                f"multi-edge between {quoted(u)} and {quoted(v)}")
            raise GraphError(_multi(what, name))
        seen.add((a, b))
        pairs[k] = (a, b)
        check_label(lab, "edge ({}, {})", name, u, v)
        k += 1
    if loops:
        pairs = pairs[:k].copy()
        triples = [t for t in triples if index[t[0]] != index[t[1]]]
        loops = dict(sorted(loops.items()))
    return pairs, loops, triples


def _multi(what: str, name: str | None) -> str:
    """The one message a multigraph gets: refused by design, and what to do instead."""
    return (f"{what}{_in(name)}: gedkit does not take multigraphs (parallel edges), by design "
            "(see the README, 'Self-loops and multigraphs'); keep one edge per node pair, e.g. "
            "networkx.Graph(g)")


def _in(name: str | None) -> str:
    return f" in graph {quoted(name)}" if name else ""
