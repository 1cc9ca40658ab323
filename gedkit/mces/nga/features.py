"""Label-agnostic node features for NGA's graph encoder (NumPy, no torch).

The encoder must work on any label set, so that one pretrained initialisation serves every
molecule collection (and graphs that are not molecules): labels enter as hashed buckets, not
as a vocabulary. Which pairs may match at all is decided by the labels themselves, through the
association graph; the features only have to tell structurally different nodes apart.

Per node: a one-hot bucket of its label, its degree (one-hot, capped), and how many of its
edges fall in each edge-label bucket. Buckets come from CRC-32 of the label's canonical form
(:func:`gedkit.nn.labels.canonical_label`: ``1``, ``1.0`` and ``"1"`` share a bucket, as
they share a channel of a Gelato vocabulary), so they are the same in every process and on
every machine (Python's ``hash`` is salted).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from gedkit.graph import Graph
from gedkit.nn.labels import canonical_label

__all__ = ["FEATURES", "GraphArrays", "graph_arrays"]

NODE_BUCKETS = 16
EDGE_BUCKETS = 4
MAX_DEGREE = 6
#: length of a node's feature vector
FEATURES = NODE_BUCKETS + (MAX_DEGREE + 1) + EDGE_BUCKETS


@dataclass(frozen=True)
class GraphArrays:
    """One graph as the encoder reads it.

    Attributes
    ----------
    x : ndarray, float32, shape (n, FEATURES)
    edge_index : ndarray, int64, shape (2, 2m)
        Every edge in both directions (source row, target row).
    edge_bucket : ndarray, int64, shape (2m,)
    """

    x: np.ndarray
    edge_index: np.ndarray
    edge_bucket: np.ndarray


def _bucket(key: object, size: int) -> int:
    """The bucket of a label key.

    >>> len({_bucket(x, NODE_BUCKETS) for x in (1, 1.0, "1", " 1 ")})
    1
    """
    return zlib.crc32(repr(canonical_label(key)).encode()) % size


def graph_arrays(g: Graph) -> GraphArrays:
    """The encoder's view of ``g``.

    >>> from gedkit import Graph
    >>> a = graph_arrays(Graph({0: "C", 1: "O"}, [(0, 1, 2)]))
    >>> a.x.shape == (2, FEATURES), a.edge_index.shape
    (True, (2, 2))
    """
    x = np.zeros((g.n, FEATURES), dtype=np.float32)
    rows = np.arange(g.n)
    x[rows, [_bucket(k, NODE_BUCKETS) for k in g.node_keys]] = 1.0
    edges = g.edges.astype(np.int64).reshape(-1, 2)
    degree = np.bincount(edges.ravel(), minlength=g.n)
    x[rows, NODE_BUCKETS + np.minimum(degree, MAX_DEGREE)] = 1.0
    buckets = np.array([_bucket(k, EDGE_BUCKETS) for k in g.edge_keys], dtype=np.int64)
    for end in (0, 1):
        np.add.at(x, (edges[:, end], NODE_BUCKETS + MAX_DEGREE + 1 + buckets), 1.0)
    edge_index = np.concatenate([edges.T, edges[:, ::-1].T], axis=1)
    return GraphArrays(x, np.ascontiguousarray(edge_index), np.concatenate([buckets, buckets]))
