"""Named bundles of the arrays the large kernels take, instead of dozens of arguments.

Inside compiled code a named tuple of arrays costs what the arrays cost (its fields are read by
name at compile time), and one type serves a bundle made in Python and one made inside a
kernel (:mod:`gedkit._kernels.batch`). Arrays and scalars are coerced to one type per field
wherever a bundle is made (:func:`ged_pair`, :func:`search_settings`), so that every caller
hits the same compiled specialisation.

- :class:`GedPair`, :class:`Frontier`, :class:`SearchSettings`: the GED tree search
  (:mod:`gedkit._kernels.tree_search`);
- :class:`QueryCosts`, :class:`BatchSettings`, :class:`StateBuffers`, :class:`Verdicts`: many
  candidates against one query (:mod:`gedkit._kernels.batch`);
- :class:`Signatures`, :class:`QueryCounts`, :class:`SizeIndex`, :class:`QueryBatch`,
  :class:`BranchTable`, :class:`WindowOut`: the search filters over a collection
  (:mod:`gedkit._kernels.filters`);
- :class:`MCESPair`, :class:`Relaxation`, :class:`MCESState`: the MCES search
  (:mod:`gedkit._kernels.mces_search`).

Kernels called from Python take plain tuples in a bundle's field order (``tuple(bundle)``) and
name them on entry: numba types a plain tuple argument in C, a named one in Python, 10-15 µs
more per call on the large bundles (measured), a tenth of a small pair's search.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = [
    "WARM_ENTRIES", "BatchSettings", "BranchTable", "Frontier", "GedPair", "MCESPair",
    "MCESState", "QueryBatch", "QueryCosts", "QueryCounts", "Relaxation", "SearchSettings",
    "Signatures", "SizeIndex", "StateBuffers", "Verdicts", "WindowOut", "ged_pair", "query_costs",
    "search_settings",
]


class GedPair(NamedTuple):
    """One GED pair, read-only: costs, adjacency, edge lists and neighbour lists.

    Labels are ordinals into the cost matrices, whose last row and column are ε; ``nconst``
    and ``econst`` describe label-equality costs (see ``solvers.exact.tree_search``)."""

    node_costs: np.ndarray  # (n1 + 1, n2 + 1) substitution, deletion (last column), insertion
    adj1: np.ndarray  # (n1, n1) edge label ordinal, -1 where no edge
    adj2: np.ndarray  # (n2, n2) likewise
    emat: np.ndarray  # edge label costs, ε last
    nmat: np.ndarray  # node label costs, ε last
    nl1: np.ndarray  # node label ordinals of g1
    nl2: np.ndarray  # ... of g2
    nconst: np.ndarray  # node costs as (substitute, delete, insert, label-equality flag)
    econst: np.ndarray  # edge costs likewise
    e1: np.ndarray  # (m1, 2) edge ends of g1
    el1: np.ndarray  # (m1,) their label ordinals
    e2: np.ndarray  # (m2, 2) edge ends of g2
    el2: np.ndarray  # (m2,) their label ordinals
    ptr1: np.ndarray  # neighbour lists of g1: node x's are nbr1[ptr1[x]:ptr1[x + 1]]
    nbr1: np.ndarray
    lab1: np.ndarray  # the label of each of those edges
    ptr2: np.ndarray  # ... of g2
    nbr2: np.ndarray
    lab2: np.ndarray
    order: np.ndarray  # the order g1's nodes are assigned in
    twin2: np.ndarray  # twin class of each node of g2


# the one array type of each GedPair field (kernels building theirs produce the same)
_GED_PAIR_DTYPES = {
    "node_costs": np.float64, "adj1": np.int32, "adj2": np.int32, "emat": np.float64,
    "nmat": np.float64, "nl1": np.int32, "nl2": np.int32, "nconst": np.float64,
    "econst": np.float64, "e1": np.int32, "el1": np.int32, "e2": np.int32, "el2": np.int32,
    "ptr1": np.int64, "nbr1": np.int64, "lab1": np.int64, "ptr2": np.int64, "nbr2": np.int64,
    "lab2": np.int64, "order": np.int64, "twin2": np.int64,
}
_GED_PAIR_TYPES = tuple(np.dtype(_GED_PAIR_DTYPES[name]) for name in GedPair._fields)


def ged_pair(*arrays: np.ndarray) -> GedPair:
    """:class:`GedPair` of ``arrays`` (in field order), each as the one type the kernels are
    compiled for: its dtype, C order, writable (a copy only where an array is not already so:
    a transposed cost matrix or a graph's read-only edge list would otherwise compile the
    search, and the kernels it calls, once more)."""
    out = list(arrays)
    for k, dtype in enumerate(_GED_PAIR_TYPES):
        # the checks np.require makes, inline at a fraction of its cost (this runs per pair
        # solved: 8 µs for the 21 arrays, np.require 59 µs)
        a = out[k]
        flags = a.flags
        if not ((a.dtype is dtype or a.dtype == dtype) and flags.c_contiguous
                and flags.writeable):
            out[k] = np.array(a, dtype=dtype, order="C")
    return GedPair._make(out)


#: most entries the tree search's warm starts (per depth, the duals and partial map of the last
#: state whose assignment was solved there) may take, 2 MB each; above, they are off. Here, not
#: in the kernel's module, so that the drivers' memory estimates read it without importing numba
WARM_ENTRIES = 1 << 18


class Frontier(NamedTuple):
    """The search state the caller owns between calls (the kernel is resumable)."""

    maps: np.ndarray  # (capacity, n1) image of order[t] in each state slot, -1 deleted
    g: np.ndarray  # exact cost of each state's partial map
    f: np.ndarray  # its lower bound on a completion
    depth: np.ndarray  # nodes assigned
    heap: np.ndarray  # the open states: a binary heap on f, or a stack (depth-first)
    free: np.ndarray  # slots given back
    ctl: np.ndarray  # int64 counters (tree_search.HEAP, POOL, FREE, ...)
    fctl: np.ndarray  # float64 bounds (tree_search.UB, LB, PRUNED)
    best_map: np.ndarray  # the best complete map found


class SearchSettings(NamedTuple):
    """What one call of the GED tree search may do (made by :func:`search_settings`)."""

    depth_first: bool  # a stack instead of a heap
    counting: bool  # the incremental bound for label-equality costs
    branch: bool  # the anchor-aware assignment bound at every expansion
    integral: bool  # every cost is an integer: bounds round up
    reserve: int  # report STATUS_FULL while fewer state slots are free
    max_expansions: int  # then return STATUS_BUDGET
    cutoff: float  # children whose bound exceeds it are dropped (their least bound kept)
    stop_at: float  # STATUS_STOP once a map costs no more
    tol: float  # float tolerance of comparisons


def search_settings(depth_first, counting, branch, integral, reserve, max_expansions,
                    cutoff, stop_at, tol) -> SearchSettings:
    """:class:`SearchSettings` with each field of its one type, so that every Python caller
    hits one compiled specialisation (kernels making theirs coerce the same way)."""
    return SearchSettings(bool(depth_first), bool(counting), bool(branch), bool(integral),
                          int(reserve), int(max_expansions), float(cutoff), float(stop_at),
                          float(tol))


class MCESPair(NamedTuple):
    """One MCES pair, read-only (edges whose class the other graph lacks left out)."""

    rank: np.ndarray  # place of each node of g1 in the static matching order, -1: not branched
    cadj2: np.ndarray  # (n2, n2) edge class, -1 where no edge
    ptr1: np.ndarray  # neighbour lists of g1 with the edges' classes
    nbr1: np.ndarray
    cls1: np.ndarray
    ptr2: np.ndarray  # ... of g2
    nbr2: np.ndarray
    cls2: np.ndarray
    cand_ptr: np.ndarray  # the nodes of g2 each node of g1 may map onto (same label)
    cand_list: np.ndarray
    e1: np.ndarray  # (m1, 2) edge ends of g1
    ec1: np.ndarray  # their classes, 0..n_classes-1
    e2: np.ndarray  # ... of g2
    ec2: np.ndarray
    n_classes: int
    twin2: np.ndarray  # twin class of each node of g2
    # first decisions (nothing mapped yet; see gedkit._kernels.symmetry): which nodes of g1
    # need one, and per node of g2 its class among first images (twin classes unless orbits
    # were found)
    seed1: np.ndarray
    seed2: np.ndarray
    labels2: np.ndarray  # node label of each node of g2
    # second decisions (one node of g2 used, v0): row v0 holds each node's orbit with v0
    # fixed, filled by the search when it first needs it (-2: not yet); (0, 0): not used
    fixed2: np.ndarray


class Relaxation(NamedTuple):
    """The linear relaxation's losses in fixed point (see ``gedkit.mces.exact``)."""

    forbid: np.ndarray  # (n1, n2) bound lost when u → v is ruled out
    force: np.ndarray  # (n1, n2) ... when u → v is forced
    unmapped: np.ndarray  # (n1,) ... when u is left unmapped
    scale: int  # the fixed-point scale; 1: no relaxation (the losses are zero)


class MCESState(NamedTuple):
    """The MCES search's state the caller owns between calls, per node or per depth."""

    fwd: np.ndarray  # image of each node of g1, -1 none
    used2: np.ndarray  # nodes of g2 taken
    assigned1: np.ndarray  # nodes of g1 decided
    kept: np.ndarray  # common edges each mapped node of g1 keeps
    gval: np.ndarray  # common edges at each depth
    lval: np.ndarray  # the Lagrangian bound at each depth (fixed point)
    rowfree: np.ndarray  # row sums of the forbid losses still available
    colund: np.ndarray  # column sums likewise
    cand: np.ndarray  # (depth, width) children of each depth's state, best first
    cf: np.ndarray  # their bounds
    cg: np.ndarray  # their common edges
    cl: np.ndarray  # their Lagrangian bounds
    ncand: np.ndarray  # children per depth
    pos: np.ndarray  # the next child to try per depth
    deferred: np.ndarray  # per node of g1, the depth of its last deferral (-1 none)
    when1: np.ndarray  # depth each node's map was decided at
    isdefer: np.ndarray  # per depth, whether its decision deferred its node
    undefer: np.ndarray  # per depth, the deferral that decision replaced


class QueryCosts(NamedTuple):
    """A collection's label cost matrices for one query (:mod:`gedkit._kernels.batch`), and
    their transposes for the pairs searched the other way round (candidate smaller)."""

    nmat: np.ndarray  # node label costs over the collection's vocabulary, ε last
    emat: np.ndarray  # edge label costs likewise
    nconst: np.ndarray  # label-equality node costs (see GedPair)
    econst: np.ndarray  # ... edge costs
    nmat_t: np.ndarray  # transposes: deletions and insertions swapped
    emat_t: np.ndarray
    nconst_t: np.ndarray
    econst_t: np.ndarray


def query_costs(nmat: np.ndarray, emat: np.ndarray, nconst: np.ndarray, econst: np.ndarray,
                nconst_t: np.ndarray, econst_t: np.ndarray) -> QueryCosts:
    """:class:`QueryCosts` with the matrices' transposes, every array of the one type the
    kernel is compiled for (float64, C order, writable; see :func:`ged_pair`). Once per
    query, so np.require's cost does not count here."""
    nmat, emat, nconst, econst, nconst_t, econst_t = (
        np.require(a, dtype=np.float64, requirements=("C", "W"))
        for a in (nmat, emat, nconst, econst, nconst_t, econst_t))
    return QueryCosts(nmat, emat, nconst, econst, np.ascontiguousarray(nmat.T),
                      np.ascontiguousarray(emat.T), nconst_t, econst_t)


class BatchSettings(NamedTuple):
    """What one call of :func:`gedkit._kernels.batch.verify_many` may do."""

    counting: bool  # label-equality costs: the counting bound
    branch: bool  # the anchor-aware assignment bound
    root_branch: bool  # that bound at the root at least (rules out candidates at once)
    integral: bool  # every cost an integer
    tol: float  # float tolerance
    cutoff: float  # prune above it (the search's threshold)
    stop_at: float  # a candidate is done at its first map within it
    max_ops: float  # simple operations per candidate, at most (by the kernel's estimate)
    skip_ops: float  # a candidate one of whose expansions costs more is not started
    chunk: int  # expansions per tree-search call
    depth_first: bool  # a stack instead of a heap (bounds of a pair not finished: weaker)


class StateBuffers(NamedTuple):
    """Reusable frontier arrays for :func:`gedkit._kernels.batch.verify_many`."""

    maps: np.ndarray  # flat: room for len(g) rows of the smaller graph's size
    g: np.ndarray
    f: np.ndarray
    depth: np.ndarray
    heap: np.ndarray
    free: np.ndarray


class Verdicts(NamedTuple):
    """What :func:`gedkit._kernels.batch.verify_many` writes per candidate."""

    lower: np.ndarray  # lower bound
    upper: np.ndarray  # upper bound
    status: np.ndarray  # batch.FINISHED or batch.GAVE_UP


class Signatures(NamedTuple):
    """A collection's filter signatures as :mod:`gedkit._kernels.filters` reads them: sizes
    per graph, and four multisets per graph in compressed rows (graph ``r``'s entries are
    ``ids[ptr[r]:ptr[r + 1]]`` with their ``counts``)."""

    n: np.ndarray  # nodes per graph
    m: np.ndarray  # edges per graph
    nptr: np.ndarray  # node labels
    nids: np.ndarray
    ncounts: np.ndarray
    eptr: np.ndarray  # edge labels
    eids: np.ndarray
    ecounts: np.ndarray
    bptr: np.ndarray  # branches (a node's label with its edges' labels)
    bids: np.ndarray
    bcounts: np.ndarray
    dptr: np.ndarray  # degrees
    dids: np.ndarray
    dcounts: np.ndarray


class QueryCounts(NamedTuple):
    """One query's side of the label-equality filter bounds."""

    qn: int  # nodes
    qm: int  # edges
    qnodes: np.ndarray  # node label counts, dense over the collection's vocabulary
    qedges: np.ndarray  # edge label counts likewise
    qbranches: np.ndarray  # branch counts likewise
    qdegrees: np.ndarray  # qdegrees[t]: the query's nodes of degree >= t


class SizeIndex(NamedTuple):
    """Rows by node count, then edge count: those with ``n`` nodes are
    ``order[n_start[n]:n_start[n + 1]]``, their edge counts ``sorted_m`` there (ascending)."""

    order: np.ndarray
    sorted_m: np.ndarray
    n_start: np.ndarray


class QueryBatch(NamedTuple):
    """Many queries' signatures for :func:`gedkit._kernels.filters.window_bounds`."""

    sizes: np.ndarray  # (queries, 2): nodes, edges
    ptr: np.ndarray  # (queries, 5): kind k of query q is ids/counts[ptr[q, k]:ptr[q, k + 1]]
    ids: np.ndarray
    counts: np.ndarray
    dims: np.ndarray  # the vocabulary sizes of node labels, edge labels, branches
    records: np.ndarray  # each query's record (gedkit.search.signatures.record), one after
    record_ptr: np.ndarray  # another: query q's starts at record_ptr[q]


class BranchTable(NamedTuple):
    """What each branch ordinal of a collection's vocabulary stands for: a node label and the
    labels of the edges at it."""

    label: np.ndarray  # node label ordinal of branch o
    ptr: np.ndarray  # its edges' label ordinals are edges[ptr[o]:ptr[o + 1]], increasing
    edges: np.ndarray


class WindowOut(NamedTuple):
    """What :func:`gedkit._kernels.filters.window_bounds` writes."""

    rows: np.ndarray  # the rows within the limit, query after query
    lb: np.ndarray  # their bounds
    ptr: np.ndarray  # query q's are rows[ptr[q]:ptr[q + 1]]
    counts: np.ndarray  # (queries, 3): rows in the size window, within by labels, by branches
