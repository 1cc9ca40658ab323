"""Two graphs and the node maps between them: what GED and MCES problems share.

A node map is an int array ``forward`` of length ``n1``: ``forward[i] = j`` matches node ``i``
of g1 with node ``j`` of g2, ``-1`` leaves node ``i`` without a counterpart.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gedkit.errors import GedkitError
from gedkit.graph import Graph

__all__ = ["UNMATCHED", "GraphPair", "label_adjacency"]

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
        inv = np.full(self.n2, UNMATCHED, dtype=np.int64)
        mapped = np.flatnonzero(forward >= 0)
        inv[forward[mapped]] = mapped
        return inv

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
