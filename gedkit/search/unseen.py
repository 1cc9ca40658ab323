"""Labels of a search's queries that no graph of the collection has.

Under costs that compare labels only for equality (``uniform``, constant costs; MCES always)
such a label matches nothing in the collection: each node or edge carrying it costs a
substitution at least. Queries read with other labels than the collection's (aromatic bonds
against kekulized molecules, another attribute) therefore find nothing near, without any
error; a search says so once (:class:`~gedkit.errors.UnseenLabelWarning`).
"""

from __future__ import annotations

import numpy as np

from gedkit.errors import UnseenLabelWarning, counted
from gedkit.graph import Graph, label_key
from gedkit.nn.labels import describe_unseen
from gedkit.search.query_labels import query_labels
from gedkit.search.signatures import LABELS, Vocabulary
from gedkit.text import quoted

__all__ = ["unseen_labels", "unseen_note"]


def unseen_labels(queries: list[Graph], vocab: dict[str, Vocabulary],
                  free: frozenset[str] = frozenset(),
                  present: dict[str, np.ndarray] | None = None) -> tuple[dict[str, list], int]:
    """The node and edge labels of ``queries`` that the collection's vocabularies lack (per
    kind, in order of first appearance) and how many queries have any; none of the kinds
    ``free`` (see :func:`unseen_note`); ``present``: which ordinals of each kind some graph
    has (:meth:`~gedkit.search.signatures.Signatures.present`), the others lacking too
    (labels of graphs removed since).

    >>> from gedkit.search.signatures import KINDS, signature_of
    >>> vocab = {k: Vocabulary() for k in KINDS}
    >>> _ = signature_of(Graph({0: "C", 1: "O"}, [(0, 1, 2)]), vocab)
    >>> unseen_labels([Graph({0: "C", 1: "N"}, [(0, 1, 1.5)]), Graph({0: "C"})], vocab)
    ({'node': ['N'], 'edge': [1.5]}, 1)
    """
    found: dict[str, dict] = {kind: {} for kind in LABELS}
    # every label looked up in C once (and kept for the filters): those the collection lacks
    # have ordinals past its vocabulary's, read back here label by label
    coded = query_labels(queries, vocab)
    lacking = np.zeros(len(queries), dtype=bool)
    for kind, attribute in LABELS.items():
        if kind in free:
            continue
        if not coded.own[kind].any() and (present is None or present[kind].all()):
            continue  # (every label one the vocabulary has, of a graph still there)
        ordinals, ptr = ((coded.node_ords, coded.node_ptr) if kind == "node"
                         else (coded.edge_ords, coded.edge_ptr))
        beyond = ordinals >= len(vocab[kind].index)
        if present is not None and not present[kind].all():  # (labels of removed graphs)
            # (an ordinal past the vocabulary is clamped: it is beyond already)
            beyond |= ~present[kind][np.minimum(ordinals, len(present[kind]) - 1)]
        unknown = np.flatnonzero(beyond)
        where = np.searchsorted(ptr, unknown, side="right") - 1
        lacking[where] = True
        for at, q in zip(unknown.tolist(), where.tolist(), strict=True):
            label = getattr(queries[q], attribute)[at - ptr[q]]
            found[kind].setdefault(label_key(label), label)
    having = int(lacking.sum())
    return {kind: list(labels.values()) for kind, labels in found.items()}, having


def unseen_note(queries: list[Graph], vocab: dict[str, Vocabulary], many: bool,
                free: frozenset[str] = frozenset(),
                present: dict[str, np.ndarray] | None = None) -> UnseenLabelWarning | None:
    """The warning when ``queries`` have labels the collection lacks (and it is not empty),
    with those labels (``labels``: ``(kind, label key)`` pairs), else None; ``many``: the
    search was given a list of queries (else one query);
    ``free``: the kinds (``"node"``, ``"edge"``) whose labels the costs let change for
    nothing (constant costs with a zero substitution), whose unseen labels are no concern;
    ``present``: as :func:`unseen_labels` takes it.

    >>> from gedkit.search.signatures import KINDS, signature_of
    >>> vocab = {k: Vocabulary() for k in KINDS}
    >>> _ = signature_of(Graph({0: "C", 1: "C"}, [(0, 1, 2)]), vocab)
    >>> print(unseen_note([Graph({0: "C", 1: "C"}, [(0, 1, 1.5)], name="q")], vocab, False))
    ... # doctest: +NORMALIZE_WHITESPACE
    query 'q' has edge label 1.5, which no graph of the collection has: such nodes and edges
    match no label there (queries read with other labels than the collection's, e.g. aromatic
    bonds against kekulized molecules, find nothing near)
    """
    if not len(vocab["node"]):
        return None  # an empty collection: nothing is near, for every query alike
    found, having = unseen_labels(queries, vocab, free, present)
    if not having:
        return None
    parts = []
    for what, labels in found.items():
        named = [label for label in labels if label is not None]
        if len(named) < len(labels):  # ("node label None" was said of unlabelled nodes)
            parts.append(f"unlabelled {what}s")
        if named:
            parts.append(f"{what} label{'s' if len(named) > 1 else ''} "
                         f"{describe_unseen(named)}")
    if many:
        subject = (f"{having} of {counted(len(queries), 'query', 'queries')} "
                   f"{'has' if having == 1 else 'have'}")
    else:
        subject = f"query {quoted(queries[0].name)} has" if queries[0].name else "the query has"
    warning = UnseenLabelWarning(
        f"{subject} {' and '.join(parts)}, which no graph of the collection has: such nodes "
        "and edges match no label there (queries read with other labels than the "
        "collection's, e.g. aromatic bonds against kekulized molecules, find nothing near)")
    warning.labels = frozenset((kind, label_key(label)) for kind, labels in found.items()
                               for label in labels)
    return warning
