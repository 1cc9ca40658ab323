"""Two graphs and the node maps between them: what GED and MCES problems share.

A node map is an int array ``forward`` of length ``n1``: ``forward[i] = j`` matches node ``i``
of g1 with node ``j`` of g2, ``-1`` leaves node ``i`` without a counterpart.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gedkit.errors import GedkitError
from gedkit.graph import Graph

__all__ = ["UNMATCHED", "GraphPair", "breadth_first", "label_adjacency"]

UNMATCHED = -1


class GraphPair:
    """Base of :class:`~gedkit.problem.Problem` and :class:`~gedkit.mces.problem.MCESProblem`."""

    g1: Graph
    g2: Graph

    @property
    def n1(self) -> int:
        return self.g1.n

    @property
    def n2(self) -> int:
        return self.g2.n

    def check_map(self, forward: Any) -> np.ndarray:
        """Validate a node map and return it as an int64 array (raises on a bad map)."""
        f = np.asarray(forward, dtype=np.int64)
        if f.shape != (self.n1,):
            raise GedkitError(f"a node map needs {self.n1} entries, got shape {f.shape}")
        if f.size and (f.min() < UNMATCHED or f.max() >= self.n2):
            raise GedkitError("node map entries must be -1 (no counterpart) or a node of g2")
        real = f[f >= 0]
        if len(np.unique(real)) != len(real):
            raise GedkitError("node map is not injective: two nodes map to one")
        return f

    def inverse(self, forward: np.ndarray) -> np.ndarray:
        """``inverse[j] = i`` if node ``i`` of g1 maps to ``j``, else -1."""
        # one slot past g2's nodes takes the writes of unmapped nodes (index -1): no mask
        inv = np.empty(self.n2 + 1, dtype=np.int64)
        inv.fill(UNMATCHED)
        inv[forward] = np.arange(len(forward))
        inv[-1] = UNMATCHED
        return inv[:-1]

    def refinement_colours(self, rounds: int = 3) -> tuple[np.ndarray, np.ndarray]:
        """Per node of each graph, its colour after each of ``rounds`` rounds of colour
        refinement run on both graphs together (first its label, then its colour with the
        multiset of its edges' labels and neighbours' colours), and a last row of -1 in the
        second (no node): alike nodes share colours for as many rounds as their surroundings
        agree, which is what greedy maps break ties by.

        A multiset is summarised by a sum of random 64-bit words, one per (edge labels,
        neighbour colour), so a round is a few array operations (two 2,000-node graphs:
        milliseconds); two different multisets share a sum with probability ~2^-64, which
        would only merge two colours of a tie-break.

        >>> from gedkit import costs
        >>> path = Graph({0: "C", 1: "C", 2: "C"}, [(0, 1), (1, 2)])
        >>> first, second = costs.uniform().compile(path, path).refinement_colours(2)
        >>> (first == second[:-1]).all(), first[0, 1] == first[2, 1] != first[1, 1]
        (np.True_, np.True_)
        >>> second[-1].tolist()
        [-1, -1]
        """
        n1, n2 = self.n1, self.n2
        colours = np.concatenate([self.node_labels1, self.node_labels2]).astype(np.int64)
        ends, kinds = [], []  # per arc read both ways: its tail, head, and both labels' code
        width = int(max(self.adj1.max(initial=-1), self.adj2.max(initial=-1))) + 2
        for offset, g, adj in ((0, self.g1, self.adj1), (n1, self.g2, self.adj2)):
            linked = np.unique(np.sort(g.edges, axis=1), axis=0) if g.directed else g.edges
            tail = np.concatenate([linked[:, 0], linked[:, 1]])
            head = np.concatenate([linked[:, 1], linked[:, 0]])
            ends.append(np.stack([tail + offset, head + offset]))
            kinds.append((adj[tail, head].astype(np.int64) + 1) * width + adj[head, tail] + 1)
        tail, head = np.concatenate(ends, axis=1)
        kind = np.concatenate(kinds) * (n1 + n2 + 1)
        words = np.random.default_rng(0)  # fixed: the same colours on every call
        table = np.full((n1 + n2 + 1, rounds), -1, dtype=np.int64)
        for r in range(rounds):
            keys, seen = np.unique(kind + colours[head], return_inverse=True)
            word = words.integers(0, 2**63, size=len(keys) + 1, dtype=np.uint64)
            total = word[-1] * colours.astype(np.uint64)  # the node's own colour
            np.add.at(total, tail, word[seen])
            _, colours = np.unique(total, return_inverse=True)
            table[: n1 + n2, r] = colours
        return table[:n1], table[n1:]

    def forward_from_pairs(self, pairs: Any) -> np.ndarray:
        """A node map from caller-id pairs ``(u, v)`` or a dict ``{u: v}`` (validated);
        pairs with ``None`` on one side are skipped."""
        items = pairs.items() if isinstance(pairs, dict) else pairs
        f = np.full(self.n1, UNMATCHED, dtype=np.int64)
        for u, v in items:
            if u is not None and v is not None:
                f[self.g1.index(u)] = self.g2.index(v)
        return self.check_map(f)


def label_adjacency(g: Graph, edge_label_ids: np.ndarray) -> np.ndarray:
    """Dense ``n × n`` int32 matrix of edge-label ids, -1 where there is no edge (directed:
    ``[tail, head]`` holds the arc's)."""
    # read through the graph's cached edge-index matrix: one gather instead of filling a
    # fresh matrix (a third of a small molecule pair's problem set-up)
    table = np.empty(g.m + 1, dtype=np.int32)
    table[:-1] = edge_label_ids
    table[-1] = -1  # the matrix's -1 (no edge) picks it
    return table[g.adjacency]


def breadth_first(adj: np.ndarray) -> list[int]:
    """The nodes of a graph (dense adjacency, -1 for none; arcs read both ways) in
    breadth-first order, each component from its node of highest degree.

    >>> star = np.array([[-1, 0, -1], [0, -1, 0], [-1, 0, -1]])
    >>> breadth_first(star)
    [1, 0, 2]
    """
    linked = (adj >= 0) | (adj.T >= 0)
    seen = np.zeros(len(adj), dtype=bool)
    order: list[int] = []
    for root in np.argsort(-linked.sum(axis=1), kind="stable"):
        if seen[root]:
            continue
        seen[root] = True
        layer = [int(root)]
        while layer:
            order += layer
            reached = np.flatnonzero(linked[layer].any(axis=0) & ~seen)
            seen[reached] = True
            layer = reached.tolist()
    return order
