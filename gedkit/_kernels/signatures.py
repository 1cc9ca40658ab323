"""The signatures of many query graphs in one compiled pass (what a signature is:
:mod:`gedkit.search.signatures`).

A range search over a small collection spends most of its time on the queries' own signatures
when they are built in Python, one dict lookup and one tuple per node: ~90 µs a query against a
whole C++ query in ~30 µs. Here the node and edge labels come in as vocabulary ordinals and
every branch (a node's label with the sorted labels of its incident edges) is one integer code
(:func:`branch_code`), looked up in the collection's sorted branch codes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["CODE_LIMIT", "DEGREES", "branch_code", "code_of", "query_signatures"]

#: branch codes stay below this (a branch whose code would not is left to the Python path)
CODE_LIMIT = 1 << 62
#: the degree is the code's last digit, in this base (a node of larger degree: Python path)
DEGREES = 64


def code_of(node: int, values, lo: int, hi: int, radix: int) -> int:
    """:func:`branch_code` of ``(node, values[lo:hi])``, read in place (compiled as
    :func:`_code_of` for the queries' kernel)."""
    code = node
    for k in range(lo, hi):
        if code >= CODE_LIMIT // radix:
            return -1
        code = code * radix + values[k] + 1
    if code >= CODE_LIMIT // DEGREES or hi - lo >= DEGREES:
        return -1
    return code * DEGREES + (hi - lo)


_code_of = njit(cache=True, nogil=True, inline="always")(code_of)


def branch_code(node: int, edges, radix: int) -> int:
    """The code of the branch ``(node ordinal, sorted edge ordinals)``: the node ordinal,
    then each edge ordinal + 1 as a digit in base ``radix`` (the edge vocabulary's size + 1),
    then the degree as a digit in base :data:`DEGREES`, which says how many digits came
    before it, so no two branches share a code; -1 when it would reach :data:`CODE_LIMIT`."""
    return code_of(node, edges, 0, len(edges), radix)


@njit(cache=True, nogil=True, inline="always")
def _sort(values, lo, hi):
    """``values[lo:hi]`` sorted in place by insertion: a query's few dozen entries."""
    for i in range(lo + 1, hi):
        x = values[i]
        j = i - 1
        while j >= lo and values[j] > x:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = x


@njit(cache=True, nogil=True, inline="always")
def _runs(values, hi, tally, ids, counts, at):
    """The distinct values of ``values[:hi]`` and their counts, written from ``at`` in
    increasing order; returns the next free position. ``tally`` (zeros, longer than every
    value) counts them and is left zeroed: only the distinct values are sorted (a handful,
    where sorting all of a 25-node query's values four times was a twentieth of a range
    search at τ = 1)."""
    k = at
    for i in range(hi):
        v = values[i]
        if tally[v] == 0:
            ids[k] = v
            k += 1
        tally[v] += 1
    _sort(ids, at, k)
    for j in range(at, k):
        counts[j] = tally[ids[j]]
        tally[ids[j]] = 0
    return k


@njit(cache=True, nogil=True)
def query_signatures(node_ords, edge_ords, ends_of, node_ptr, edge_ptr, radix, codes, code_ords,
                     branch_size, set_ptr, ids, counts, branch_ords, record_ptr, records,
                     overflow):
    """For query ``q``: ``n = node_ptr[q+1] - node_ptr[q]`` nodes and ``m`` edges (by
    ``edge_ptr``): its nodes' label ordinals ``node_ords[node_ptr[q]:]``, its edges'
    ``edge_ords[edge_ptr[q]:]`` and their local end points ``ends_of[2 * edge_ptr[q]:]``.
    Edge ordinals from ``radix - 1`` on and node ordinals from the node vocabulary's size on
    are labels only the queries have. Writes its four multisets (node, edge, branch, degree)
    as rows ``4q .. 4q+3`` of ``set_ptr``/``ids``/``counts`` (compressed rows, ordinals
    increasing), each node's branch ordinal (``branch_size`` on for branches the collection
    lacks, numbered by first appearance) in ``branch_ords``, and its verification record
    ``[n, m, node ordinals, ends, edge ordinals]`` at ``record_ptr[q]`` of ``records``.
    ``overflow[q]`` is set where a branch has no code (then its outputs mean nothing).

    Every query works in the same scratch arrays, read by index ranges: a hundred small
    queries' own arrays and views cost more than their arithmetic."""
    wide = radix  # past every edge ordinal, the queries' own included
    top = branch_size  # past every node ordinal and the collection's branch ordinals
    for v in range(len(node_ords)):
        top = max(top, node_ords[v] + 1)
    for e in range(len(edge_ords)):
        wide = max(wide, edge_ords[e] + 2)
    n_max = 0
    m_max = 0
    for q in range(len(node_ptr) - 1):
        n_max = max(n_max, node_ptr[q + 1] - node_ptr[q])
        m_max = max(m_max, edge_ptr[q + 1] - edge_ptr[q])
    degree = np.empty(n_max, dtype=np.int64)
    start = np.empty(n_max + 1, dtype=np.int64)
    fill = np.empty(n_max, dtype=np.int64)
    incident = np.empty(2 * m_max, dtype=np.int64)
    unseen = np.empty(n_max, dtype=np.int64)  # codes of the branches the collection lacks
    scratch = np.empty(max(n_max, m_max), dtype=np.int64)
    # past every value _runs counts: ordinals, the queries' own branches (up to n_max
    # past the collection's), degrees
    tally = np.zeros(max(top, wide) + n_max + 1, dtype=np.int64)
    at = 0
    set_ptr[0] = 0
    for q in range(len(node_ptr) - 1):
        n0 = node_ptr[q]
        n = node_ptr[q + 1] - n0
        e0 = edge_ptr[q]
        m = edge_ptr[q + 1] - e0
        ends = ends_of[2 * e0:2 * (e0 + m)]
        for v in range(n):
            degree[v] = 0
        for e in range(2 * m):
            degree[ends[e]] += 1
        start[0] = 0
        for v in range(n):
            start[v + 1] = start[v] + degree[v]
            fill[v] = start[v]
        for e in range(m):
            a = ends[2 * e]
            incident[fill[a]] = edge_ords[e0 + e]
            fill[a] += 1
            b = ends[2 * e + 1]
            incident[fill[b]] = edge_ords[e0 + e]
            fill[b] += 1
        n_unseen = 0
        for v in range(n):
            lo = start[v]
            hi = start[v + 1]
            _sort(incident, lo, hi)
            known = True  # every incident edge label one the collection has
            for k in range(lo, hi):
                known = known and incident[k] + 1 < radix
            if known:
                code = _code_of(node_ords[n0 + v], incident, lo, hi, radix)
                i = np.searchsorted(codes, code)
                if code >= 0 and i < len(codes) and codes[i] == code:
                    branch_ords[n0 + v] = code_ords[i]
                    continue
            else:  # a branch no graph has: coded apart, below every collection code
                code = _code_of(node_ords[n0 + v], incident, lo, hi, wide)
                code = -2 - code if code >= 0 else -1
            if code == -1:
                overflow[q] = True
            found = -1
            for j in range(n_unseen):
                if unseen[j] == code:
                    found = j
                    break
            if found < 0:
                found = n_unseen
                unseen[n_unseen] = code
                n_unseen += 1
            branch_ords[n0 + v] = branch_size + found
        for v in range(n):
            scratch[v] = node_ords[n0 + v]
        at = _runs(scratch, n, tally, ids, counts, at)
        set_ptr[4 * q + 1] = at
        for e in range(m):
            scratch[e] = edge_ords[e0 + e]
        at = _runs(scratch, m, tally, ids, counts, at)
        set_ptr[4 * q + 2] = at
        for v in range(n):
            scratch[v] = branch_ords[n0 + v]
        at = _runs(scratch, n, tally, ids, counts, at)
        set_ptr[4 * q + 3] = at
        at = _runs(degree, n, tally, ids, counts, at)
        set_ptr[4 * q + 4] = at
        r = record_ptr[q]
        records[r] = n
        records[r + 1] = m
        for v in range(n):
            records[r + 2 + v] = node_ords[n0 + v]
        for e in range(2 * m):
            records[r + 2 + n + e] = ends[e]
        for e in range(m):
            records[r + 2 + n + 2 * m + e] = edge_ords[e0 + e]
