"""What the filters know about each graph of a collection, as plain arrays.

A graph's signature is its size (nodes, edges) and three multisets over collection-wide
vocabularies: its node labels, its edge labels, and its *branches* (a node's label with the
sorted labels of its incident edges), and its degree sequence as a multiset of degrees. Each
multiset is stored in compressed-row form: for graph
``r`` the entries ``ptr[r]:ptr[r+1]`` of ``ids`` (vocabulary ordinals, increasing) and
``counts``. Filtering a whole collection is then a few numpy passes over these arrays; no graph
is ever parsed for it.
"""

from __future__ import annotations

import io
import zipfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from gedkit.compressed_rows import row_starts, take_rows
from gedkit.graph import Graph

__all__ = ["KINDS", "LABELS", "SETS", "TOP_NODE_LABELS", "Multisets", "Signatures",
           "Vocabulary", "signature_of"]

KINDS = ("node", "edge", "branch")  # multisets over a vocabulary
SETS = (*KINDS, "degree")  # and the degree sequence, as a multiset of degree values


class Vocabulary:
    """Ordinals for the distinct keys of one kind, in order of first appearance, with the
    value each key stands for (a label as first seen; for branches the key itself)."""

    def __init__(self) -> None:
        self.keys: list = []
        self.values: list = []
        self.index: dict = {}

    def __len__(self) -> int:
        return len(self.keys)

    def ordinal(self, key, value=None, new: list | None = None) -> int:
        """The ordinal of ``key``, added (and appended to ``new``) when unseen."""
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self)  # an overlay's ordinals come after its base's
            self.keys.append(key)
            self.values.append(key if value is None else value)
            if new is not None:
                new.append(i)
        return i

    def lookup(self, key) -> int:
        """The ordinal of ``key``, -1 when the collection has none."""
        return self.index.get(key, -1)

    def value(self, i: int):
        """The value of ordinal ``i``."""
        return self.values[i]

    def all_values(self) -> list:
        """Every value, in ordinal order."""
        return self.values

    def overlay(self) -> Vocabulary:
        """A view that finds this vocabulary's keys and gives unseen ones (a query's)
        ordinals after them, leaving this vocabulary as it is."""
        return _Overlay(self)

    def forget(self, size: int) -> None:
        """Drop every key from ordinal ``size`` on (a batch that did not commit)."""
        for key in self.keys[size:]:
            del self.index[key]
        del self.keys[size:], self.values[size:]
        # the branch codes and table of gedkit.search.filters
        self.__dict__.pop("_codes", None)
        self.__dict__.pop("_table", None)


class _Overlay(Vocabulary):
    """A vocabulary read through to ``base``, whose own new keys come after base's."""

    def __init__(self, base: Vocabulary):
        super().__init__()
        self.base = base

    def __len__(self) -> int:
        return len(self.base) + len(self.keys)

    def ordinal(self, key, value=None, new: list | None = None) -> int:
        i = self.base.index.get(key)
        return super().ordinal(key, value, new) if i is None else i

    def lookup(self, key) -> int:
        i = self.base.index.get(key)
        return self.index.get(key, -1) if i is None else i

    def value(self, i: int):
        n = len(self.base)
        return self.base.values[i] if i < n else self.values[i - n]

    def all_values(self) -> list:
        return self.base.values + self.values


#: the attribute of a graph holding each kind's labels
LABELS = {"node": "node_labels", "edge": "edge_labels"}


def _multiset(ordinals: list[int]) -> tuple[np.ndarray, np.ndarray]:
    # a Counter beats np.unique by far on the few dozen entries of one graph
    counted = Counter(ordinals)
    keys = sorted(counted)
    return (np.array(keys, dtype=np.int32),
            np.array([counted[k] for k in keys], dtype=np.int32))


def _ordinals(keys: tuple, labels: tuple, vocab: Vocabulary, new: list) -> list[int]:
    """Vocabulary ordinals of the labels whose label_keys are ``keys``."""
    # most keys are known: one dict lookup each, the vocabulary's own method for the others
    known = (vocab.base if isinstance(vocab, _Overlay) else vocab).index.get
    out = [known(key) for key in keys]
    if None in out:
        out = [vocab.ordinal(key, lab, new) if o is None else o
               for key, lab, o in zip(keys, labels, out, strict=True)]
    return out


def _incident(g: Graph, edge_ords: list[int]) -> list[list[int]]:
    """Each node's incident edge label ordinals."""
    incident: list[list[int]] = [[] for _ in range(g.n)]
    for (a, b), e in zip(g.edges.tolist(), edge_ords, strict=True):
        incident[a].append(e)
        incident[b].append(e)
    return incident


def branch_keys(g: Graph, node_ords: list[int], edge_ords: list[int],
                incident: list[list[int]] | None = None) -> list[tuple]:
    """Each node's branch as ``(node label ordinal, sorted incident edge label ordinals)``
    (``incident``: :func:`_incident`'s lists, when already built)."""
    incident = _incident(g, edge_ords) if incident is None else incident
    return [(u, tuple(sorted(i))) for u, i in zip(node_ords, incident, strict=True)]


def signature_of(g: Graph, vocab: dict[str, Vocabulary], new: dict[str, list] | None = None):
    """``g``'s signature over ``vocab`` (extended with unseen keys, reported in ``new``):
    ``(n, m, {kind: (ids, counts)})``, and ``g`` as a :func:`record`; a query's signature uses
    the same function."""
    new = new if new is not None else {k: [] for k in KINDS}
    nodes = _ordinals(g.node_keys, g.node_labels, vocab["node"], new["node"])
    edges = _ordinals(g.edge_keys, g.edge_labels, vocab["edge"], new["edge"])
    incident = _incident(g, edges)
    keys = branch_keys(g, nodes, edges, incident)
    branches = _ordinals(keys, keys, vocab["branch"], new["branch"])
    signature = (g.n, g.m, {"node": _multiset(nodes), "edge": _multiset(edges),
                            "branch": _multiset(branches),
                            "degree": _multiset([len(i) for i in incident])})
    return signature, record(g, nodes, edges)


def record(g: Graph, nodes: list[int], edges: list[int]) -> np.ndarray:
    """``g`` as one int32 array ``[n, m, node ordinals, edge ends (2m), edge ordinals]``: what
    batched verification reads (:mod:`gedkit._kernels.batch`) instead of a graph object."""
    out = np.empty(2 + g.n + 3 * g.m, dtype=np.int32)
    out[0], out[1] = g.n, g.m
    out[2:2 + g.n] = nodes
    out[2 + g.n:2 + g.n + 2 * g.m] = g.edges.ravel()
    out[2 + g.n + 2 * g.m:] = edges
    return out


@dataclass
class Multisets:
    """Multisets of many graphs in compressed-row form (see the module docstring)."""

    ptr: np.ndarray  # int64, len rows + 1
    ids: np.ndarray  # int32
    counts: np.ndarray  # int32

    @classmethod
    def build(cls, pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> Multisets:
        ptr = row_starts(np.fromiter((len(ids) for ids, _ in pairs), dtype=np.int64,
                                     count=len(pairs)))
        ids = (np.concatenate([p[0] for p in pairs]) if pairs else np.empty(0, np.int32))
        counts = (np.concatenate([p[1] for p in pairs]) if pairs else np.empty(0, np.int32))
        return cls(ptr, ids.astype(np.int32), counts.astype(np.int32))

    def take(self, rows: np.ndarray) -> Multisets:
        """The multisets of ``rows`` (an index array), in that order."""
        ptr, index = take_rows(self.ptr, rows)
        return Multisets(ptr, self.ids[index], self.counts[index])

    def overlap(self, query: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """For every row (or each of ``rows``), the size of its multiset's intersection with
        ``query`` (dense counts per ordinal; ordinals beyond it count 0)."""
        sets = self if rows is None else self.take(rows)
        q = np.zeros(max(len(query), int(sets.ids.max(initial=-1)) + 1), dtype=np.int32)
        q[: len(query)] = query
        common = np.minimum(sets.counts, q[sets.ids])
        return _row_sums(common, sets.ptr)

    def weighted(self, weights: np.ndarray) -> np.ndarray:
        """For every row, the sum of ``count * weights[ordinal]``."""
        return _row_sums(self.counts * weights[self.ids], self.ptr)


def _check_kinds(names: Iterable[str]) -> None:
    """Raise KeyError naming the multiset kinds a signatures archive with arrays ``names``
    lacks (one an earlier gedkit wrote)."""
    names = set(names)
    missing = [k for k in SETS if f"{k}_ptr" not in names]
    if missing:
        raise KeyError(f"the {' and '.join(missing)} multisets")


def _length(archive: zipfile.ZipFile, name: str) -> int:
    """The first dimension of the array ``name`` of an ``np.savez`` archive, from its header."""
    with archive.open(f"{name}.npy") as f:
        version = np.lib.format.read_magic(f)
        read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                else np.lib.format.read_array_header_2_0)
        shape = read(f)[0]
    if len(shape) != 1:
        raise ValueError(f"the {name} array is not one-dimensional")
    return int(shape[0])


def _row_sums(values: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Per-row sums of ``values`` split at ``ptr`` (empty rows sum to 0)."""
    sums = np.zeros(len(values) + 1, dtype=np.result_type(values.dtype, np.int64))
    if len(values):
        np.cumsum(values, out=sums[1:])
    return sums[ptr[1:]] - sums[ptr[:-1]]


#: node labels whose counts :meth:`Signatures.top_nodes` keeps for every row
TOP_NODE_LABELS = 8


@dataclass
class Signatures:
    """Signatures of many graphs: sizes and the three multisets, row ``r`` = graph ``r``."""

    rowids: np.ndarray  # int64: the graphs' keys in the collection file
    n: np.ndarray  # int32
    m: np.ndarray  # int32
    sets: dict[str, Multisets]

    def __len__(self) -> int:
        return len(self.rowids)

    @classmethod
    def build(cls, rowids: Sequence[int], signatures: Sequence) -> Signatures:
        return cls(
            np.asarray(rowids, dtype=np.int64),
            np.array([s[0] for s in signatures], dtype=np.int32),
            np.array([s[1] for s in signatures], dtype=np.int32),
            {k: Multisets.build([s[2][k] for s in signatures]) for k in SETS},
        )

    def by_size(self) -> Signatures:
        """These signatures with their rows sorted by node count, then edge count (itself when
        they are), knowing their :meth:`size_index` at once: a range query reads the rows whose
        sizes fit its threshold, and read in sequence they cost a fraction of the same rows
        scattered over the arrays (a cache miss per array per row). Row order means nothing
        else: a row's graph is found by its ``rowids`` entry."""
        if self.__dict__.get("_by_size"):
            return self
        order, sorted_m, n_start = self.size_index()
        ordered = self if np.all(order[1:] > order[:-1]) else self.take(order)
        # the same index, read from rows now in its order
        ordered.__dict__["_size_index"] = (np.arange(len(order), dtype=np.int64), sorted_m,
                                           n_start)
        ordered.__dict__["_by_size"] = True
        return ordered

    def size_index(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rows by size, built once: ``order`` (rows sorted by node count, then edge
        count), the edge counts in that order, and ``n_start`` (rows with ``v`` nodes are
        ``order[n_start[v]:n_start[v + 1]]``). A range query reads only the rows whose sizes
        fit its threshold."""
        index = self.__dict__.get("_size_index")
        if index is None:
            order = np.lexsort((self.m, self.n)).astype(np.int64)
            sorted_n = self.n[order]
            top = int(sorted_n[-1]) if len(order) else -1
            n_start = np.searchsorted(sorted_n, np.arange(top + 2)).astype(np.int64)
            index = self.__dict__["_size_index"] = (
                order, np.ascontiguousarray(self.m[order]), n_start)
        return index

    def present(self, sizes: dict[str, int]) -> dict[str, np.ndarray]:
        """For the ordinals of each kind (node and edge labels, branches) below
        ``sizes[kind]``, whether some graph here has one (a vocabulary keeps those of graphs
        removed since), built once for these sizes."""
        kept = self.__dict__.get("_present")
        if kept is None or kept[0] != sizes:
            masks = {kind: np.bincount(self.sets[kind].ids, minlength=size)[:size] > 0
                     for kind, size in sizes.items()}
            kept = self.__dict__["_present"] = (dict(sizes), masks)
        return kept[1]

    def top_nodes(self) -> tuple[np.ndarray, np.ndarray]:
        """Each node ordinal's place among the collection's :data:`TOP_NODE_LABELS` most
        frequent node labels (-1: not among them), and every row's counts of those, eight
        bytes a row (a count of 255 stands for 255 or more), built once: the window filter's
        first test reads a row's node labels there, in sequence, before its multiset."""
        kept = self.__dict__.get("_top_nodes")
        if kept is None:
            sets = self.sets["node"]
            totals = np.bincount(sets.ids, weights=sets.counts, minlength=1)
            top = np.argsort(-totals, kind="stable")[:TOP_NODE_LABELS]
            top = top[totals[top] > 0]
            rank = np.full(len(totals), -1, dtype=np.int64)
            rank[top] = np.arange(len(top))
            dense = np.zeros((len(self), TOP_NODE_LABELS), dtype=np.uint8)
            places = rank[sets.ids]
            held = places >= 0
            rows = np.repeat(np.arange(len(self)), np.diff(sets.ptr))
            dense[rows[held], places[held]] = np.minimum(sets.counts[held], 255)
            kept = self.__dict__["_top_nodes"] = (rank, dense)
        return kept

    def take(self, rows: np.ndarray) -> Signatures:
        rows = np.asarray(rows, dtype=np.int64)
        return Signatures(self.rowids[rows], self.n[rows], self.m[rows],
                          {k: s.take(rows) for k, s in self.sets.items()})

    def to_bytes(self) -> bytes:
        arrays = {"rowids": self.rowids, "n": self.n, "m": self.m}
        for kind, s in self.sets.items():
            arrays.update({f"{kind}_ptr": s.ptr, f"{kind}_ids": s.ids,
                           f"{kind}_counts": s.counts})
        out = io.BytesIO()
        np.savez(out, **arrays)
        return out.getvalue()

    @classmethod
    def from_bytes(cls, blob: bytes) -> Signatures:
        with np.load(io.BytesIO(blob), allow_pickle=False) as z:
            _check_kinds(z.files)
            sets = {k: Multisets(z[f"{k}_ptr"], z[f"{k}_ids"], z[f"{k}_counts"])
                    for k in SETS}
            return cls(z["rowids"], z["n"], z["m"], sets)

    @staticmethod
    def sizes_of(blob: bytes) -> tuple[int, dict[str, int]]:
        """The rows of :meth:`from_bytes`'s signatures and each kind's multiset entries,
        read from the archive's array headers alone."""
        with zipfile.ZipFile(io.BytesIO(blob)) as z:
            _check_kinds([name.removesuffix(".npy") for name in z.namelist()])
            return _length(z, "rowids"), {k: _length(z, f"{k}_ids") for k in SETS}

    @classmethod
    def gather(cls, blobs: Iterable[bytes], rows: int, entries: dict[str, int]) -> Signatures:
        """The signatures of ``blobs`` (:meth:`to_bytes`) one after the other, ``rows`` rows
        and ``entries`` multiset entries per kind in all (:meth:`sizes_of`), decoded one block
        at a time into arrays of those sizes: reading every block before joining them peaked
        at twice the 1.58 M MOSES molecules' 310 MB of signatures. Blocks larger or smaller
        than said raise ValueError."""
        out = cls(np.empty(rows, np.int64), np.empty(rows, np.int32), np.empty(rows, np.int32),
                  {k: Multisets(np.zeros(rows + 1, np.int64), np.empty(entries[k], np.int32),
                                np.empty(entries[k], np.int32)) for k in SETS})
        at, filled = 0, dict.fromkeys(SETS, 0)  # the rows and entries written so far
        for blob in blobs:
            part = cls.from_bytes(blob)
            end = at + len(part)
            if end > rows:
                raise ValueError("a block holds more rows than its header says")
            out.rowids[at:end], out.n[at:end], out.m[at:end] = part.rowids, part.n, part.m
            for kind, sets in part.sets.items():
                first, last = filled[kind], filled[kind] + len(sets.ids)
                if last > entries[kind] or len(sets.ptr) != end - at + 1:
                    raise ValueError(f"a block's {kind} multisets are not as its header says")
                target = out.sets[kind]
                target.ids[first:last], target.counts[first:last] = sets.ids, sets.counts
                target.ptr[at + 1:end + 1] = sets.ptr[1:] + first
                filled[kind] = last
            at = end
        if at != rows or filled != entries:
            raise ValueError("the blocks hold fewer rows than their headers say")
        return out
