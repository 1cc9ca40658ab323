"""The label ordinals of a search's queries in a collection's vocabularies, coded once.

A search over label-equality costs reads every label of every query twice: to tell the
user about labels the collection lacks (:mod:`gedkit.search.unseen`) and to build the
queries' signatures (:func:`gedkit.search.filters.query_signatures`). For a hundred fresh
molecule queries each reading was ~0.1 ms, as much as a filter pass; a :class:`QueryBatch`
(the search's list of queries) keeps what the first reading coded for the second.
"""

from __future__ import annotations

from itertools import chain, repeat
from typing import NamedTuple

import numpy as np

from gedkit.compressed_rows import row_starts
from gedkit.graph import Graph, label_key
from gedkit.search.signatures import LABELS, Vocabulary

__all__ = ["QueryBatch", "QueryLabels", "query_labels"]


class QueryLabels(NamedTuple):
    """Every node's and edge's label ordinal, graph after graph: graph ``q``'s nodes are
    ``node_ords[node_ptr[q]:node_ptr[q + 1]]`` (edges likewise); a label the collection
    lacks is numbered after the vocabulary's, per graph in order of first appearance, as an
    overlay of it numbers them; ``own[kind][q]``: whether graph ``q`` has such a label of
    that kind."""

    sizes: np.ndarray  # (graphs, 2): nodes, edges
    node_ptr: np.ndarray
    edge_ptr: np.ndarray
    node_ords: np.ndarray
    edge_ords: np.ndarray
    own: dict[str, np.ndarray]


class QueryBatch(list):
    """A search's queries (a list of graphs) with their :class:`QueryLabels`, kept for the
    vocabularies they were coded in."""

    __slots__ = ("coded",)

    def __init__(self, graphs=()):
        super().__init__(graphs)
        self.coded: tuple[tuple, QueryLabels] | None = None


def query_labels(graphs: list[Graph], vocab: dict[str, Vocabulary]) -> QueryLabels:
    """The :class:`QueryLabels` of ``graphs`` in ``vocab``: those a :class:`QueryBatch`
    keeps where they were coded in these vocabularies as they are, else coded now (and
    kept). Each label is looked up as it is, one lookup in C for all graphs' labels (~25 ns
    a label); only one not found so (a label the collection lacks; a dict or a list, found
    by its :func:`~gedkit.graph.label_key`) takes Python.

    >>> from gedkit.search.signatures import KINDS, signature_of
    >>> vocab = {k: Vocabulary() for k in KINDS}
    >>> _ = signature_of(Graph({0: "C", 1: "O"}, [(0, 1, 2)]), vocab)
    >>> coded = query_labels([Graph({0: "O", 1: "N", 2: "N"}), Graph({0: "C"})], vocab)
    >>> coded.node_ords.tolist(), coded.own["node"].tolist()
    ([1, 2, 2, 0], [True, False])
    """
    key = tuple((id(vocab[kind].index), len(vocab[kind])) for kind in LABELS)
    kept = getattr(graphs, "coded", None)
    if kept is not None and kept[0] == key:
        return kept[1]
    sizes = np.fromiter(chain.from_iterable([(len(g.node_labels), len(g.edge_labels))
                                             for g in graphs]), np.int64,
                        2 * len(graphs)).reshape(-1, 2)
    ptrs = row_starts(sizes[:, 0]), row_starts(sizes[:, 1])
    ordinals, own = [], {}
    for (kind, attribute), ptr in zip(LABELS.items(), ptrs, strict=True):
        index = vocab[kind].index
        try:
            found = _looked_up(graphs, attribute, index, ptr[-1])
        except TypeError:  # an unhashable label: by the keys (hashable, made for it)
            attribute = f"{kind}_keys"
            found = _looked_up(graphs, attribute, index, ptr[-1])
        mine_of = own[kind] = np.zeros(len(graphs), dtype=bool)
        unknown = np.flatnonzero(found < 0).tolist()
        last, mine = -1, {}  # the graph at hand, its own labels' ordinals
        for at, q in zip(unknown, (np.searchsorted(ptr, unknown, side="right") - 1).tolist(),
                         strict=True):
            if q != last:
                last, mine = q, {}
            label_at = label_key(getattr(graphs[q], attribute)[at - ptr[q]])
            o = index.get(label_at)  # a label not its own key, found by it
            if o is None:
                mine_of[q] = True
                o = mine.setdefault(label_at, len(index) + len(mine))
            found[at] = o
        ordinals.append(found)
    coded = QueryLabels(sizes, *ptrs, *ordinals, own)
    if isinstance(graphs, QueryBatch):
        graphs.coded = key, coded
    return coded


def _looked_up(graphs: list[Graph], attribute: str, index: dict, size: int) -> np.ndarray:
    """``index``'s value of every item of every graph's ``attribute`` in turn (-1 where it
    has none): ``size`` of them, in C."""
    return np.fromiter(map(index.get, chain.from_iterable([getattr(g, attribute)
                                                          for g in graphs]), repeat(-1)),
                       np.int64, size)

