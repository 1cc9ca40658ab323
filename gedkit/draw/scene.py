"""What to draw: each node and edge of a picture with its role, its operation and its note.

A :class:`Panel` is one graph as drawn: plain arrays of nodes and edges plus, per element, the
role it plays (kept, relabelled, deleted, inserted; common or not for MCES), the index of the
edit operation it shows and a short note (``C→N``). Building panels needs no matplotlib and no
RDKit; the renderers read them and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gedkit.graph import Graph, components
from gedkit.text import clipped, relabel_texts

__all__ = ["NAME_CHARS", "Panel", "ged_panels", "kept_anchors", "mces_panels", "name_part",
           "plain_panel"]


@dataclass
class Panel:
    """One graph as drawn.

    Attributes
    ----------
    ids, labels : tuple
        Node ids and labels, in drawing order.
    edges : ndarray of int, shape (m, 2)
        Node indices of each edge.
    edge_labels : tuple
        The label of each edge.
    node_roles, edge_roles : list of str
        A key of :data:`gedkit.draw.style.ROLES` per node and per edge.
    node_ops, edge_ops : list of int or None
        The index (in the edit path) of the operation each element shows.
    node_notes, edge_notes : list of str or None
        Text drawn next to an element: the relabelling (``C→N``).
    title : str
        What the panel is (``g1: caffeine``).
    side : str
        ``"g1"`` or ``"g2"``: the SVG ids of a g2 element end in ``-g2`` so that each operation
        has exactly one element called ``op-K``.
    directed : bool
        Edges ``(a, b)`` are arcs from ``a`` to ``b``: drawn with an arrowhead at ``b``.
    """

    ids: tuple
    labels: tuple
    edges: np.ndarray
    edge_labels: tuple
    node_roles: list[str]
    edge_roles: list[str]
    node_ops: list[int | None]
    edge_ops: list[int | None]
    node_notes: list[str | None] = field(default_factory=list)
    edge_notes: list[str | None] = field(default_factory=list)
    title: str = ""
    side: str = "g1"
    directed: bool = False  # edges (a, b) are arcs a -> b, drawn with arrowheads

    @property
    def n(self) -> int:
        return len(self.ids)

    @property
    def m(self) -> int:
        return len(self.edges)


def plain_panel(g: Graph, title: str = "", role: str = "kept", side: str = "g1") -> Panel:
    """A panel of ``g`` with every element in one role.

    >>> p = plain_panel(Graph({0: "C", 1: "O"}, [(0, 1)]))
    >>> p.node_roles, p.edge_roles
    (['kept', 'kept'], ['kept'])
    """
    edges = np.asarray(g.edges, dtype=np.int64).reshape(-1, 2)
    labels = g.edge_labels
    if g.loops:  # self-loops drawn as edges (a, a), after the others (see _edge_index)
        edges = np.vstack([edges, [(a, a) for a in g.loops]])
        labels = (*labels, *g.loops.values())
    m = len(edges)
    return Panel(
        ids=g.ids, labels=g.node_labels, edges=edges,
        edge_labels=labels, node_roles=[role] * g.n, edge_roles=[role] * m,
        node_ops=[None] * g.n, edge_ops=[None] * m, node_notes=[None] * g.n,
        edge_notes=[None] * m, title=title, side=side, directed=g.directed,
    )


def note(a: Any, b: Any) -> str:
    """The relabelling text ``a→b`` (labels that read alike as Python writes them: "1→1"
    said nothing of int 1 and str "1").

    >>> note("C", "N"), note(1, 1.5), note(1, "1")
    ('C→N', '1→1.5', "1→'1'")
    """
    ta, tb = relabel_texts(a, b, 10)
    return f"{ta or '∅'}→{tb or '∅'}"


def ged_panels(result: Any) -> tuple[Panel, Panel]:
    """The two panels of a GED result: each operation of ``result.edit_path`` marks the
    elements it edits (a substitution marks both sides, with the same operation index).

    >>> import gedkit
    >>> r = gedkit.ged(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({0: "C", 1: "N"}, [(0, 1)]))
    >>> p1, p2 = ged_panels(r)
    >>> p1.node_roles, p1.node_notes[1], p2.node_roles
    (['kept', 'relabelled'], 'O→N', ['kept', 'relabelled'])
    """
    g1, g2 = result.problem.g1, result.problem.g2
    p1 = plain_panel(g1, _title("g1", g1), side="g1")
    p2 = plain_panel(g2, _title("g2", g2), side="g2")
    for k, op in enumerate(result.edit_path):
        if op.kind == "node_sub":
            i, j = g1.index(op.source), g2.index(op.target)
            _mark(p1, "node", i, "relabelled", k, note(op.source_label, op.target_label))
            _mark(p2, "node", j, "relabelled", k, None)
        elif op.kind == "node_del":
            _mark(p1, "node", g1.index(op.source), "deleted", k)
        elif op.kind == "node_ins":
            _mark(p2, "node", g2.index(op.target), "inserted", k)
        elif op.kind == "edge_sub":
            text = note(op.source_label, op.target_label)
            _mark(p1, "edge", _edge_index(g1, op.source), "relabelled", k, text)
            _mark(p2, "edge", _edge_index(g2, op.target), "relabelled", k, None)
        elif op.kind == "edge_del":
            _mark(p1, "edge", _edge_index(g1, op.source), "deleted", k)
        elif op.kind == "edge_ins":
            _mark(p2, "edge", _edge_index(g2, op.target), "inserted", k)
    return p1, p2


def mces_panels(result: Any) -> tuple[Panel, Panel]:
    """The two panels of an MCES result: common edges (and the nodes they touch) in role
    ``common``, the rest ``other``; common edge ``K`` is ``op-K`` on g1 and ``op-K-g2`` on g2.
    """
    g1, g2 = result.problem.g1, result.problem.g2
    p1 = plain_panel(g1, _title("g1", g1), role="other", side="g1")
    p2 = plain_panel(g2, _title("g2", g2), role="other", side="g2")
    for k, ((a, b), (c, d)) in enumerate(result.edges):
        _mark(p1, "edge", _edge_index(g1, (a, b)), "common", k)
        _mark(p2, "edge", _edge_index(g2, (c, d)), "common", k)
        for u, v in ((a, c), (b, d)):
            p1.node_roles[g1.index(u)] = "common"
            p2.node_roles[g2.index(v)] = "common"
    return p1, p2


def kept_anchors(g1: Graph, g2: Graph, forward: np.ndarray) -> np.ndarray:
    """The nodes of g1 whose place in g2's picture is pinned to their place in g1's: in each
    connected part of g2, the largest connected piece of the kept edges (edges of g1 whose
    ends map onto an edge of g2) that lies there, and mapped nodes without an edge in either
    graph. Pinning only those keeps the common part's shape without dragging g2's other nodes
    to where a poor map, or a small kept piece far from the main one, would put them (bonds
    stretched across the picture); a piece alone in its part of g2 drags nothing (pinning one
    piece in all, a second fragment of a common subgraph was drawn elsewhere in g2).

    >>> g = Graph(range(3), [(0, 1)])
    >>> kept_anchors(g, g, np.array([0, 1, 2])).tolist()
    [True, True, True]
    >>> kept_anchors(g, Graph(range(3), [(1, 2)]), np.array([0, 1, 2])).tolist()
    [False, False, False]
    >>> two = Graph(range(5), [(0, 1), (1, 2), (3, 4)])
    >>> kept_anchors(two, two, np.arange(5)).tolist()
    [True, True, True, True, True]
    >>> joined = Graph(range(5), [(0, 1), (1, 2), (2, 3), (3, 4)])  # one part: the larger
    >>> kept_anchors(two, joined, np.arange(5)).tolist()
    [True, True, True, False, False]
    """
    forward = np.asarray(forward, dtype=np.int64)
    anchored = np.zeros(g1.n, dtype=bool)
    if g1.n == 0:
        return anchored
    adj2 = g2.adjacency
    kept = [(a, b) for a, b in g1.edges.tolist()
            if forward[a] >= 0 and forward[b] >= 0 and adj2[forward[a], forward[b]] >= 0]
    if kept:
        label = components(g1.n, kept)
        part = components(g2.n, g2.edges.tolist())  # (a piece's image lies in one part)
        sizes: dict[int, int] = {}
        where: dict[int, int] = {}  # piece -> the part of g2 its image lies in
        for a, _ in kept:
            sizes[label[a]] = sizes.get(label[a], 0) + 1
            where.setdefault(label[a], part[forward[a]])
        # in each part of g2 the piece with most kept edges; ties go to the one met first
        best: dict[int, int] = {}
        for r in sizes:
            if where[r] not in best or sizes[r] > sizes[best[where[r]]]:
                best[where[r]] = r
        chosen = set(best.values())
        for a, b in kept:
            if label[a] in chosen:
                anchored[a] = anchored[b] = True
    deg1, deg2 = g1.degrees(), g2.degrees()
    for i in np.flatnonzero((forward >= 0) & (deg1 == 0)).tolist():
        if deg2[forward[i]] == 0:
            anchored[i] = True
    return anchored


def _title(side: str, g: Graph) -> str:
    return f"{side}{name_part(g)}  ({g.n} nodes, {g.m} edges)"


#: characters of a graph's name a panel's title shows: two titles side by side (a SMILES of 45
#: atoms each) ran into each other and off the picture
NAME_CHARS = 32


def name_part(g: Graph) -> str:
    """``": NAME"`` for a panel's title, the name on one line (a tab or newline in a SMILES
    file's title has no glyph) and cut to :data:`NAME_CHARS` with "…"; "" without one."""
    if not g.name:
        return ""
    name = " ".join(str(g.name).split())
    return ": " + clipped(name, NAME_CHARS)


def _mark(panel: Panel, what: str, index: int, role: str, op: int,
          text: str | None = None) -> None:
    roles = panel.node_roles if what == "node" else panel.edge_roles
    ops = panel.node_ops if what == "node" else panel.edge_ops
    notes = panel.node_notes if what == "node" else panel.edge_notes
    roles[index], ops[index], notes[index] = role, op, text


def _edge_index(g: Graph, pair: tuple) -> int:
    a, b = g.index(pair[0]), g.index(pair[1])
    if a == b:  # a self-loop: the panel lists them after the other edges, in node order
        return g.m + list(g.loops).index(a)
    return int(g.adjacency[a, b])
