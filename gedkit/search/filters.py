"""Lower bounds on GED(query, graph) for every graph of a collection at once, from signatures.

Which bounds apply depends on the cost model:

- **label-equality costs** (``uniform``, ``constant``, any model with ``equality_costs``, and
  any model whose costs over the labels present — the collection's and the query's — turn out
  to depend on label equality alone, as CHEM_2 on element symbols does):
  stage ``labels`` prices the node-label and edge-label multisets against the query's (the
  cheapest edits that turn one multiset into the other, substitutions capped at deletion plus
  insertion) and the degree sequences against the query's (paired in sorted order, the
  query's degrees in excess of the graph's, halved, count edge deletions at least, and the
  graph's in excess, halved, insertions; with the edge counts and the edge labels the two
  have in common, the fewest deletions these allow prices the edges); stage ``branches``
  adds that every node whose branch (label and incident edge labels) differs from its
  image's must be touched by an edit, a node edit touching one node and an edge edit two,
  and, in a range search, BRANCH's bound for the graphs still within the threshold: the
  cheapest assignment of the nodes, each pair priced by its labels and half the edits of the
  labels of its edges, solved over the two graphs' branch classes (a transportation between
  a few classes, ~1.5 µs a graph, :mod:`gedkit._kernels.transport`). On IAM AIDS it rules
  out half the graphs the other bounds leave at τ = 3 and 5. (The degree and BRANCH parts
  need the compiled kernel; until it is compiled the filters compute the rest with numpy.)
- **any other model** (the literature models, custom callables): stage ``labels`` is the
  half-sum bound: every node of either graph pays at least half its cheapest option (deletion,
  insertion, or substitution by a label the other graph has), edges likewise; stage
  ``labelsets`` the label-set bound: the cheapest edit of the query's node-label multiset into
  the graph's, by an assignment with ε on both sides, plus the same for edge labels (``O((n1 +
  n2)³)`` a graph, so kNN applies it only to the graphs its scan reaches).

Every bound is a true lower bound for its model, so no filter ever prunes a graph whose
distance is within the threshold (tests/test_search.py checks this against brute force).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from functools import cached_property, lru_cache
from itertools import chain

import numpy as np

from gedkit.compressed_rows import row_starts
from gedkit.costs.base import CostModel
from gedkit.graph import Graph
from gedkit.numeric import TOL, all_integers, round_up
from gedkit.search.query_labels import query_labels
from gedkit.search.signatures import (
    KINDS,
    LABELS,
    SETS,
    Multisets,
    Signatures,
    Vocabulary,
    _ordinals,
    branch_keys,
    signature_of,
)

__all__ = ["GedFilter"]

# vocabulary labels per cost call of the general bound (CostModel.costs_between): many for
# models that price the rectangle alone; for the others a call prices every pair of the
# query's labels and these, so chunks about the query's size keep the work near query x
# vocabulary
_RECTANGLE_CHUNK, _MIN_CHUNK = 1024, 32
_GRAPH_CHUNK = 65536  # graphs per pass of the general bound (bounds its temporary arrays)


class GedFilter:
    """The filter stages for one query under one cost model over one collection's
    vocabularies: ``stages`` is a list of ``(name, bound)``, each ``bound(signatures)`` an
    array of lower bounds, every stage at least as strong as the one before."""

    def __init__(self, model: CostModel, query: Graph, vocab: dict[str, Vocabulary],
                 prepared: tuple | None = None):
        # ``prepared``: what query_signature gave for this query, if it was computed already
        self.signature, self.views = prepared or query_signature(query, vocab)
        (self.qn, self.qm, _), self.record = self.signature
        self._known: bool | None = None  # whether the query's labels are all the collection's
        self._set_up(model, query, vocab)

    @classmethod
    def of_batch(cls, model: CostModel, query: Graph, vocab: dict[str, Vocabulary],
                 batch: QuerySignatures, i: int) -> GedFilter:
        """The filter of query ``i`` of ``batch`` (``query``), its signature and views made
        from the batch's arrays when first read: a range search's batched verification
        reads only its size, its record and the collection's cost matrices (making them
        took 10 µs a query, a third of a search's time beside the kernels at τ = 3)."""
        filt = cls.__new__(cls)
        filt._batch, filt._position = batch, i
        filt.qn, filt.qm = batch.sizes[i].tolist()
        filt.record, filt._known = batch.record(i)
        filt._set_up(model, query, vocab)
        return filt

    def _set_up(self, model: CostModel, query: Graph, vocab: dict[str, Vocabulary]) -> None:
        self.model = model
        self.vocab = vocab
        const = model.equality_costs
        if const is None and self.matrices() is not None:
            const = self.matrices()[2]  # a model whose costs happen to depend on equality only
        self._by_equality = const is not None
        if const is not None:
            self.node_costs, self.edge_costs, self.integral, self.node_sub = (
                equality_terms(const))
        else:
            self._general_tables(query, self.signature[0][2], self.views)
        # stages too costly for every graph of a large collection: kNN applies them only to
        # the graphs its scan reaches
        self.lazy = {"labelsets", "branch classes"}

    @property
    def stages(self) -> list[tuple[str, Callable[..., np.ndarray]]]:
        """``(name, bound)`` of each stage, weakest first (made on each read: kept on the
        filter, its bound methods would make it a reference cycle, which holds a search's
        queries until the garbage collector runs)."""
        if self._by_equality:
            return [("labels", self._labels), ("branches", self._branches),
                    ("branch classes", self._branch_classes)]
        return [("labels", self._half_sum), ("labelsets", self._labelsets)]

    @cached_property
    def signature(self) -> tuple:
        """The query's signature and record (see :func:`query_signature`)."""
        return self._batch[self._position][0]

    @cached_property
    def views(self) -> dict[str, Vocabulary]:
        """Overlays of the collection's vocabularies with the labels only the query has."""
        return self._batch[self._position][1]

    @property
    def collection_labels(self) -> bool:
        """Whether every label of the query is one of the collection's (its cost matrices
        are then the collection's, shared by every such query)."""
        if self._known is None:
            self._known = all(len(self.views[k]) == len(self.vocab[k]) for k in LABELS)
        return self._known

    @cached_property
    def dense(self) -> dict[str, np.ndarray]:
        """The query's multisets as dense counts over its views' ordinals (built on first
        use: a range search's verification needs none of it)."""
        out = {}
        for kind in KINDS:
            ids, counts = self.signature[0][2][kind]
            dense = np.zeros(len(self.views[kind]), dtype=np.int32)
            dense[ids] = counts
            out[kind] = dense
        return out

    @cached_property
    def at_least(self) -> np.ndarray:
        """The query's nodes of degree >= t, for t = 0 .. its largest degree."""
        degrees, counts = self.signature[0][2]["degree"]
        at_least = np.zeros(int(degrees.max(initial=0)) + 1, dtype=np.int64)
        np.add.at(at_least, degrees, counts)
        return np.cumsum(at_least[::-1])[::-1].copy()

    def matrices(self) -> tuple[np.ndarray, np.ndarray, tuple | None] | None:
        """Costs over the whole vocabulary (the collection's labels and the query's): the node
        matrix, the edge matrix with substitutions capped at deletion + insertion, and the
        label-equality costs they amount to (None if they do not); None when the vocabulary is
        too large for full matrices."""
        if not hasattr(self, "_matrices"):
            base = self.vocab["node"], self.vocab["edge"]
            own = self.collection_labels
            # the collection's own labels (no new one in the query): the same matrices for
            # every query of a batch, kept on its vocabulary while the model lives
            cache = base[0].__dict__.setdefault("_matrices", {}) if own else {}
            key = (id(self.model), len(base[0]), len(base[1]))
            hit = cache.get(key)
            if hit is None or hit[0] is not self.model:
                hit = cache[key] = (self.model, _vocabulary_matrices(
                    self.model, self.vocab if own else self.views))
            self._matrices = hit[1]
        return self._matrices

    def within(self, sig: Signatures, limit: float, compiled: bool | None = None
               ) -> tuple[np.ndarray, np.ndarray, dict[str, int]] | None:
        """Every stage at once for a range query: the rows whose bound is at most ``limit``,
        their bounds, and the rows left after each stage (``sizes``: those whose sizes alone
        fit, found through :meth:`Signatures.size_index` without reading the others). None
        where this does not apply: general costs, an infinite limit, kernels not compiled
        (unless ``compiled``)."""
        from gedkit._kernels import warm

        if not hasattr(self, "node_costs") or not math.isfinite(limit) or not len(sig) \
                or not (compiled or warm.ready("search")):
            return None
        terms = self.node_costs, self.edge_costs, self.integral, self.node_sub
        batch = QuerySignatures.pack([(self.signature, self.views)])
        return next(within_many(sig, batch, self.vocab, terms, limit))[:3]

    # -- label-equality costs ----------------------------------------------------------------
    def _labels(self, sig: Signatures, rows=None, limit: float = math.inf) -> np.ndarray:
        return self._equality(sig, rows, branches=False, limit=limit)

    def _branches(self, sig: Signatures, rows=None, limit: float = math.inf) -> np.ndarray:
        return self._equality(sig, rows, branches=True, limit=limit)

    def _equality(self, sig: Signatures, rows, branches: bool, limit: float = math.inf,
                  compiled: bool | None = None) -> np.ndarray:
        """The bounds, by the compiled kernel when it is ready (or ``compiled``), else by the
        same formulas in numpy."""
        from gedkit._kernels import warm

        costs = (*self.node_costs, *self.edge_costs)
        if rows is not None and len(rows) == 0:
            return np.zeros(0)
        if compiled or (compiled is None and warm.ready("search")):
            from gedkit._kernels.filters import equality_bounds

            sets = [sig.sets[k] for k in SETS]
            every = rows is None
            picked = np.zeros(1, dtype=np.int64) if every else rows.astype(np.int64, copy=False)
            out = np.empty(len(sig) if every else len(rows))
            signatures = (sig.n, sig.m, *(a for s in sets for a in (s.ptr, s.ids, s.counts)))
            query = (self.qn, self.qm, *(self.dense[k] for k in KINDS), self.at_least)
            equality_bounds(signatures, query, np.array(costs), branches, self.integral,
                            float(limit), picked, every, out)
            return out
        from gedkit._kernels.filters import branch_bound, pair_cost

        n, m = (sig.n, sig.m) if rows is None else (sig.n[rows], sig.m[rows])
        nodes = pair_cost(self.qn, n, sig.sets["node"].overlap(self.dense["node"], rows),
                          *self.node_costs)
        edges = pair_cost(self.qm, m, sig.sets["edge"].overlap(self.dense["edge"], rows),
                          *self.edge_costs)
        lb = nodes + edges
        cn, ce = min(self.node_costs), min(self.edge_costs)
        if branches and cn > 0 and ce > 0:
            differing = np.maximum(self.qn, n) - sig.sets["branch"].overlap(
                self.dense["branch"], rows)
            lb = branch_bound(nodes, edges, differing, cn, ce)
        if self.integral:
            lb = round_up(lb)
        return lb

    def _branch_classes(self, sig: Signatures, rows=None, limit: float = math.inf,
                        compiled: bool | None = None) -> np.ndarray:
        """BRANCH's bound where it puts a graph beyond ``limit``, else 0 (what a range
        search's window filter adds, for the graphs a kNN scan reaches: its assignment over
        the two graphs' branch classes, ~1.5 µs a graph). Without the compiled kernel, or
        without a finite limit: zeros."""
        from gedkit._kernels import warm

        picked = np.arange(len(sig)) if rows is None else np.asarray(rows, dtype=np.int64)
        out = np.zeros(len(picked))
        if not len(picked) or not math.isfinite(limit) or not (
                compiled or warm.ready("search")):
            return out
        from gedkit._kernels.filters import class_bounds

        sets = sig.sets["branch"]
        costs = np.array((*self.node_costs, *self.edge_costs, self.node_sub))
        class_bounds(self.record, branch_table(self.vocab), sets.ptr, sets.ids, sets.counts,
                     costs, self.integral, float(limit), picked, out)
        return out

    # -- general costs -----------------------------------------------------------------------
    def _general_tables(self, query: Graph, qsets, views: dict[str, Vocabulary]) -> None:
        """Per kind: the query's distinct labels (ordinals, counts), the substitution costs
        between them and every vocabulary label, their deletion costs, and for every
        vocabulary label its cheapest option against the query."""
        self.tables = {}
        for kind in ("node", "edge"):
            q_ids, q_counts = qsets[kind]
            view = views[kind]
            q_labels = [view.value(i) for i in q_ids.tolist()]
            size, nq = len(view), len(q_labels)
            sub = np.empty((nq, size))
            insert = np.empty(size)
            delete = self.model.costs_between(kind, q_labels, [])[1]
            chunk = _RECTANGLE_CHUNK if self.model.rectangular else max(_MIN_CHUNK, 2 * nq)
            for start in range(0, size, chunk):
                labels = _chunk(view, start, min(size, start + chunk))
                block, _, ins = self.model.costs_between(kind, q_labels, labels)
                sub[:, start:start + len(labels)] = block
                insert[start:start + len(labels)] = ins
            # the cheapest option of a collection label: insertion, or substitution by a
            # label the query has
            best_in = insert if nq == 0 else np.minimum(insert, sub.min(axis=0))
            self.tables[kind] = (q_counts.astype(np.float64), sub, delete, best_in, insert)

    def _half_part(self, sets: Multisets, kind: str) -> np.ndarray:
        q_counts, sub, delete, best_in, _ = self.tables[kind]
        total = sets.weighted(best_in)
        if len(q_counts):
            # the cheapest option of each query label against each graph: deletion, or
            # substitution by a label that graph has
            rows = len(sets.ptr) - 1
            out = np.empty(rows)
            for start in range(0, rows, _GRAPH_CHUNK):
                stop = min(rows, start + _GRAPH_CHUNK)
                lo, hi = sets.ptr[start], sets.ptr[stop]
                ptr = sets.ptr[start:stop + 1] - lo
                cols = sub[:, sets.ids[lo:hi]]
                best = np.repeat(delete[:, None], stop - start, axis=1)
                filled = np.flatnonzero(ptr[1:] > ptr[:-1])
                if len(filled):
                    mins = np.minimum.reduceat(cols, ptr[filled], axis=1)
                    best[:, filled] = np.minimum(best[:, filled], mins)
                out[start:stop] = q_counts @ best
            total = total + out
        return total / 2

    def _half_sum(self, sig: Signatures, rows=None, limit: float = math.inf) -> np.ndarray:
        if rows is not None:
            sig = sig.take(rows)
        return self._half_part(sig.sets["node"], "node") + self._half_part(sig.sets["edge"],
                                                                          "edge")

    def _labelsets(self, sig: Signatures, rows=None, limit: float = math.inf,
                   compiled: bool | None = None) -> np.ndarray:
        """The label-set bound: the cheapest edit of the query's node-label multiset into each
        graph's plus that of its edge-label multiset (two assignments with ε, ``O((n1 + n2)³)``
        per graph), never below the half-sum bound. Without the compiled kernel: the
        half-sum bound alone."""
        from gedkit._kernels import warm

        half = self._half_sum(sig, rows)
        if not (compiled or warm.ready("search")):
            return half
        from gedkit._kernels.filters import labelset_bounds

        picked = np.arange(len(sig)) if rows is None else np.asarray(rows, dtype=np.int64)
        total = np.zeros(len(picked))
        for kind in ("node", "edge"):
            q_counts, sub, delete, _, insert = self.tables[kind]
            q_labels = np.repeat(np.arange(len(q_counts)), q_counts.astype(np.int64))
            sets = sig.sets[kind]
            out = np.empty(len(picked))
            labelset_bounds(q_labels.astype(np.int64), sub, delete, insert, sets.ptr,
                            sets.ids, sets.counts, picked, out)
            total += out
        return np.maximum(half, total - TOL * np.maximum(1.0, total))


def query_signature(query: Graph, vocab: dict[str, Vocabulary]) -> tuple[tuple, dict]:
    """The query's signature and record (:func:`signature_of`) over overlays of the
    collection's vocabularies, and those overlays (which hold the labels only it has)."""
    views = {k: v.overlay() for k, v in vocab.items()}
    return signature_of(query, views), views


class QuerySignatures:
    """The signatures of many queries over one collection's vocabularies, packed as the
    many-queries kernel reads them (:class:`~gedkit._kernels.bundles.QueryBatch`: ``sizes``,
    ``ptr``, ``ids``, ``counts``); ``self[i]`` is query ``i``'s :func:`query_signature`,
    built when first asked for (a range search asks only for the queries with candidates)."""

    def __init__(self, sizes: np.ndarray, ptr: np.ndarray, ids: np.ndarray,
                 counts: np.ndarray, records: np.ndarray, record_ptr: np.ndarray,
                 make: Callable[[int], tuple],
                 light: Callable[[int], tuple[np.ndarray, bool] | None] | None = None):
        self.sizes, self.ptr, self.ids, self.counts = sizes, ptr, ids, counts
        self.records, self.record_ptr = records, record_ptr  # query q's at record_ptr[q]
        self._make = make
        self._light = light
        self._made: dict[int, tuple] = {}

    def record(self, i: int) -> tuple[np.ndarray, bool | None]:
        """Query ``i``'s record, and whether its labels are all the collection's (None: not
        known without its views), without making its signature where the arrays give them."""
        light = None if self._light is None or i in self._made else self._light(i)
        return light if light is not None else (self[i][0][1], None)

    def __len__(self) -> int:
        return len(self.sizes)

    def __getitem__(self, i: int) -> tuple:
        if i not in self._made:
            self._made[i] = self._make(i)
        return self._made[i]

    @classmethod
    def pack(cls, prepared: list[tuple]) -> QuerySignatures:
        """The batch of these :func:`query_signature` results."""
        signatures = [p[0][0] for p in prepared]
        sizes = np.array([(s[0], s[1]) for s in signatures], dtype=np.int64).reshape(-1, 2)
        # query q's kind k is row q * 4 + k of one compressed-row set
        packed = Multisets.build([s[2][k] for s in signatures for k in SETS])
        records = [p[0][1] for p in prepared]
        record_ptr = row_starts(np.array([len(r) for r in records], dtype=np.int64))
        return cls(sizes, _query_rows(packed.ptr), packed.ids, packed.counts,
                   np.concatenate([np.zeros(0, np.int32), *records]), record_ptr,
                   prepared.__getitem__)


def _query_rows(ptr: np.ndarray) -> np.ndarray:
    """``(queries, 5)`` bounds of each query's four multisets in a compressed-row set whose
    row ``q * 4 + k`` is query ``q``'s kind ``k``."""
    queries = (len(ptr) - 1) // len(SETS)
    return ptr[np.arange(0, queries * len(SETS), len(SETS))[:, None] + _ROW_SPAN]


_ROW_SPAN = np.arange(len(SETS) + 1)


def query_signatures(queries: list[Graph], vocab: dict[str, Vocabulary]) -> QuerySignatures:
    """:func:`query_signature` of each query, the same values, by one compiled pass
    (:mod:`gedkit._kernels.signatures`; it must be compiled); a directed query, one with
    self-loops or one with a branch too long for one integer code, the Python way."""
    from gedkit._kernels.signatures import query_signatures as kernel

    python: dict[int, tuple] = {}
    # not what collection searches compare (told elsewhere): the Python way, and empty
    # graphs in the kernel
    for i in [i for i, g in enumerate(queries) if g.directed or g.loops]:
        python[i] = query_signature(queries[i], vocab)
    graphs = [_EMPTY if i in python else g for i, g in enumerate(queries)] if python else queries
    coded = query_labels(graphs, vocab)
    sizes, node_ptr, edge_ptr = coded.sizes, coded.node_ptr, coded.edge_ptr
    node_ords, edge_ords = coded.node_ords, coded.edge_ords
    own = coded.own["node"] | coded.own["edge"]
    ends = np.concatenate([_NO_ENDS] + [g.edges for g in graphs]).ravel()
    n, m = sizes[:, 0], sizes[:, 1]
    codes, code_ords = _branch_codes(vocab, len(vocab["edge"]) + 1)
    record_ptr = row_starts(2 + n + 3 * m)
    set_ptr = np.zeros(4 * len(n) + 1, np.int64)
    ids = np.empty(3 * node_ptr[-1] + edge_ptr[-1], np.int32)
    counts = np.empty_like(ids)
    branch_ords = np.empty(node_ptr[-1], np.int64)
    records = np.empty(record_ptr[-1], np.int32)
    overflow = np.zeros(len(n), np.bool_)
    n_branches = len(vocab["branch"])
    kernel(node_ords, edge_ords, ends, node_ptr, edge_ptr, len(vocab["edge"]) + 1, codes,
           code_ords, n_branches, set_ptr, ids, counts, branch_ords, record_ptr, records,
           overflow)
    for i in np.flatnonzero(overflow).tolist():
        python[i] = query_signature(queries[i], vocab)
    # the queries with branches the collection lacks (looked for once, not query by query)
    strange = set((np.searchsorted(node_ptr, np.flatnonzero(branch_ords >= n_branches),
                                   side="right") - 1).tolist())

    def make(i: int) -> tuple:
        """Query ``i``'s signature and record from the kernel's arrays, with its views."""
        if i in python:
            return python[i]
        g = queries[i]
        rows = set_ptr[4 * i:4 * i + 5].tolist()
        sets = {kind: (ids[a:b], counts[a:b])
                for kind, a, b in zip(SETS, rows, rows[1:], strict=False)}
        views = {k: v.overlay() for k, v in vocab.items()}
        if own[i]:
            # its own labels enter its views in order of first appearance, the ordinals
            # _label_ordinals gave them
            _ordinals(g.node_keys, g.node_labels, views["node"], [])
            _ordinals(g.edge_keys, g.edge_labels, views["edge"], [])
        if i in strange:  # branches only it has: named in its view
            keys = branch_keys(g, node_ords[node_ptr[i]:node_ptr[i + 1]].tolist(),
                               edge_ords[edge_ptr[i]:edge_ptr[i + 1]].tolist())
            mine = branch_ords[node_ptr[i]:node_ptr[i + 1]]
            for key, o in zip(keys, mine.tolist(), strict=True):
                if o >= n_branches:
                    views["branch"].ordinal(key)
        record = records[record_ptr[i]:record_ptr[i + 1]]
        return ((g.n, g.m, sets), record), views

    def light(i: int) -> tuple[np.ndarray, bool] | None:
        """Query ``i``'s record and whether its labels are all the collection's."""
        return None if i in python else (records[record_ptr[i]:record_ptr[i + 1]], not own[i])

    if python:  # their multisets packed with the others'
        return QuerySignatures.pack([make(i) for i in range(len(queries))])
    return QuerySignatures(sizes, _query_rows(set_ptr), ids, counts, records, record_ptr, make,
                           light)


_EMPTY = Graph({})  # in the kernel's arrays, in place of a query signed the Python way
_NO_ENDS = np.zeros((0, 2), dtype=np.int32)


def _branch_codes(vocab: dict[str, Vocabulary], radix: int) -> tuple[np.ndarray, np.ndarray]:
    """The collection's branch keys as sorted integer codes (:mod:`gedkit._kernels.signatures`)
    and their ordinals, kept on the branch vocabulary until it changes."""
    branches = vocab["branch"]
    state = (len(branches), radix)
    kept = branches.__dict__.get("_codes")
    if kept is not None and kept[0] == state:
        return kept[1]
    from gedkit._kernels.signatures import branch_code

    codes, ords = [], []
    for o, (u, edges) in enumerate(branches.keys):
        code = branch_code(u, edges, radix)
        if code >= 0:  # one without a code matches no query's code
            codes.append(code)
            ords.append(o)
    codes_a = np.array(codes, dtype=np.int64)
    order = np.argsort(codes_a, kind="stable")
    found = (codes_a[order], np.array(ords, dtype=np.int64)[order])
    branches.__dict__["_codes"] = (state, found)
    return found


def branch_table(vocab: dict[str, Vocabulary]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The :class:`~gedkit._kernels.bundles.BranchTable` of the collection's branch
    ordinals (each a node label ordinal and its edges' label ordinals, increasing), kept on
    the branch vocabulary until it changes."""
    branches = vocab["branch"]
    kept = branches.__dict__.get("_table")
    if kept is not None and kept[0] == len(branches):
        return kept[1]
    keys = branches.keys
    label = np.fromiter((u for u, _ in keys), np.int64, len(keys))
    ptr = row_starts(np.fromiter((len(e) for _, e in keys), np.int64, len(keys)))
    edges = np.fromiter(chain.from_iterable(e for _, e in keys), np.int64, int(ptr[-1]))
    table = (label, ptr, edges)
    branches.__dict__["_table"] = (len(keys), table)
    return table


def _chunk(view: Vocabulary, start: int, stop: int) -> list:
    """The values of ordinals ``start..stop-1``: for a chunk of the collection's own labels
    the same list object every query, so that cost models can keep what they read from it
    (:func:`gedkit.costs.attributes.remembered`)."""
    base = getattr(view, "base", view)
    if stop > len(base):
        return [view.value(i) for i in range(start, stop)]
    chunks = base.__dict__.setdefault("_chunks", {})
    key = (start, stop, len(base))
    if key not in chunks:
        chunks[key] = base.values[start:stop]
    return chunks[key]


def equality_terms(const) -> tuple[tuple, tuple, bool, float]:
    """Label-equality costs ``(node ins, del, sub, edge ins, del, sub)`` as the bounds use
    them: node and edge costs with substitution capped at deletion plus insertion, whether
    all are integers, and the node substitution as it is (BRANCH's bound prices a pair of
    nodes at it, deletion and insertion being the assignment's other options)."""
    return _equality_terms(tuple(map(float, const)))


@lru_cache(maxsize=64)  # asked for by every query of a search
def _equality_terms(const: tuple) -> tuple[tuple, tuple, bool, float]:
    n_ins, n_del, n_sub, e_ins, e_del, e_sub = const
    return ((n_ins, n_del, min(n_sub, n_ins + n_del)), (e_ins, e_del, min(e_sub, e_ins + e_del)),
            all_integers(const), n_sub)


_NO_ROWS, _NO_BOUNDS = np.zeros(0, dtype=np.int64), np.zeros(0)
_NO_ROWS.setflags(write=False)
_NO_BOUNDS.setflags(write=False)

#: queries per call of the many-queries range kernel (bounds its output between yields; a
#: second call for the 100 Chang queries cost ~4% of the search at τ = 1 on IAM AIDS)
_QUERY_CHUNK = 128


def within_many(sig: Signatures, queries: QuerySignatures, vocab: dict[str, Vocabulary],
                terms: tuple, limit: float
                ) -> Iterator[tuple[np.ndarray, np.ndarray, dict[str, int], float]]:
    """:meth:`GedFilter.within` for many queries under one label-equality model (``terms``
    from :func:`equality_terms`), by one compiled pass per chunk of queries: for each query
    of the batch in turn, its rows, their bounds and the rows left after each stage. The
    kernel must be compiled. Each query's share of the kernel's time comes fourth."""
    for _, ends, lefts, rows, lb, seconds in window_passes(sig, queries, vocab, terms, limit):
        ends = ends.tolist()
        for a, b, left in zip(ends, ends[1:], lefts, strict=False):
            if a == b:  # most queries of a range search at a small threshold
                yield _NO_ROWS, _NO_BOUNDS, left, seconds
            else:
                yield rows[a:b].copy(), lb[a:b].copy(), left, seconds


def window_passes(sig: Signatures, queries: QuerySignatures, vocab: dict[str, Vocabulary],
                  terms: tuple, limit: float
                  ) -> Iterator[tuple[int, np.ndarray, list[dict[str, int]], np.ndarray,
                                      np.ndarray, float]]:
    """:func:`within_many` a kernel call at a time: the first query the call answered, where
    each of its queries' rows start and end in ``rows`` (an array, one more entry than
    queries), the rows left after each stage per query (stage -> count), the rows and their
    bounds (a buffer the next call overwrites), and each query's share of the kernel's
    time."""
    from gedkit._kernels.filters import window_bounds

    # a query ordinal beyond its vocabulary's size is a label no graph of the collection has
    dims = np.array([len(vocab[k]) for k in KINDS], dtype=np.int64)
    node_costs, edge_costs, integral, node_sub = terms
    costs = np.array((*node_costs, *edge_costs, node_sub))
    order, sorted_m, n_start = sig.size_index()
    # Signatures and SizeIndex fields (plain tuples: see gedkit._kernels.bundles)
    collection = (sig.n, sig.m, *(a for k in SETS
                                  for a in (sig.sets[k].ptr, sig.sets[k].ids, sig.sets[k].counts)))
    index = (order, sorted_m, n_start)
    top = sig.top_nodes()
    capacity = max(len(sig), 1 << 16)
    rows, lb = np.empty(capacity, dtype=np.int64), np.empty(capacity)
    table = branch_table(vocab)
    for start in range(0, len(queries), _QUERY_CHUNK):
        stop = min(len(queries), start + _QUERY_CHUNK)
        count = stop - start
        sizes, q_ptr = queries.sizes[start:stop], queries.ptr[start:stop]
        q_ids, q_counts = queries.ids, queries.counts
        batch = (sizes, q_ptr, q_ids, q_counts, dims, queries.records,
                 queries.record_ptr[start:stop])
        done = 0
        while done < count:
            out_ptr = np.zeros(count - done + 1, dtype=np.int64)
            counts = np.zeros((count - done, 3), dtype=np.int64)
            tick = time.perf_counter()
            upto = window_bounds(index, collection, batch, costs, integral, float(limit), done,
                                 (rows, lb, out_ptr, counts), top, table)
            seconds = (time.perf_counter() - tick) / max(upto - done, 1)
            yield (start + done, out_ptr[:upto - done + 1], _lefts(counts[:upto - done]), rows,
                   lb, seconds)
            done = upto


def _lefts(counts: np.ndarray) -> list[dict[str, int]]:
    """The kernel's counts of rows left, a row per query, as stage -> count: the stages
    :func:`within_many` reports, in the kernel's order (a dict display a query: 4x faster
    than ``dict(zip(...))``, which cost a range search of 100 queries 0.03 ms)."""
    return [{"sizes": sizes, "labels": labels, "branches": branches}
            for sizes, labels, branches in counts.tolist()]


#: nodes and edges of a query and a graph together the scale of a search's costs is checked
#: for (:func:`gedkit.costs.base._check_scale`)
_SEARCH_ITEMS = 100_000
#: largest vocabulary (distinct node or edge labels) full cost matrices are built for
MAX_VOCABULARY = 1024


def _vocabulary_matrices(model: CostModel, views: dict[str, Vocabulary]):
    from gedkit.costs.base import _check_scale, _checked, _largest
    from gedkit.problem import _constant_structure, capped_edge_costs

    nk, ek = len(views["node"]), len(views["edge"])
    if max(nk, ek) > MAX_VOCABULARY:
        return None
    nmat = np.asarray(model.node_matrix(views["node"].all_values()), dtype=np.float64)
    emat = np.asarray(model.edge_matrix(views["edge"].all_values()), dtype=np.float64)
    if not model.trusted_matrices:  # checked as CostModel.compile checks them
        nmat = _checked(nmat, nk, model, "node")
        emat = _checked(emat, ek, model, "edge")
    # (as CostModel.compile refuses them, for pairs of up to _SEARCH_ITEMS nodes and edges)
    _check_scale(model, _largest(nmat, emat), _SEARCH_ITEMS)
    capped = capped_edge_costs(emat)[0]  # as Problem prices them
    const = model.equality_costs
    if const is None:
        node, edge = _constant_structure(nmat), _constant_structure(capped)
        const = None if node is None or edge is None else node + edge
    return np.ascontiguousarray(nmat), np.ascontiguousarray(capped), const
