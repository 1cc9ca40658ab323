"""kNN and range search with a time limit per query (``query_timeout=``) on hard jobs.

100 AIDS queries (``shared/data/Chang-AIDS-query100``) against the first 100,000 MOSES
molecules (unit costs, atom symbol and bond order kekulized, the collection of
``search_cluster.py``, reused from ``--folder``), k nearest, each query in turn in this
process with the default time limit per verified pair (1 s). The queries are larger than
most MOSES molecules: their nearest graphs lie 10-25 edits away, where a proof needs most of
the collection verified. For each limit of ``--limits``: the job's total time, the median
and largest time per query, how many queries ran out of time and how many answers are
certified; then the distances of the queries certified under two limits are compared, and
``--unbounded N`` of the queries that ran out of time run with a limit of ``--cap`` seconds
(a stand-in for none: said when that ran out too).

Range: the first ``--range-queries`` molecules of the collection itself as queries (the
AIDS queries have few MOSES molecules within 7 edits) at ``τ = --range-tau`` (7: tens of
thousands of candidates a query, up to minutes each), each without a limit and under each limit of
``--limits``, taking turns: seconds, candidates left unverified (undecided), and whether every
hit found under the limit is a hit of the unlimited search with the same distance; with
``--range-batch N``, N of them in one call too (their candidates verified in shared batches,
each query held to its own limit). Usage::

    python benchmarks/search_query_timeout.py [--size 100000] [--k 3] [--limits 2,10] \\
        [--unbounded 3] [--cap 600] [--folder /tmp/gedkit-scale] [--range-tau 7] \\
        [--range-queries 3] [--range-batch 0] [--no-knn]

Prints Markdown (paste it into benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from _iam import DEFAULT_DATA
from search_scale import chang_queries, moses_file

import gedkit
from gedkit.search.collection import SORT_FOR_RANGES_FROM


def run(coll, queries: list, k: int, limit: float) -> list[tuple]:
    """Per query: (name, seconds, timed out, certified, verified, distances)."""
    rows = []
    for q in queries:
        t = time.perf_counter()
        r = coll.knn(q, k, progress=False, query_timeout=limit)
        rows.append((q.name, time.perf_counter() - t, r.timed_out, r.certified,
                     r.stats.get("verified", 0), [h.distance for h in r.hits]))
    return rows


def range_rows(coll, queries: list, tau: float, limits: list[float]) -> None:
    """Each query without a limit, then under each of ``limits``; a Markdown row each."""
    print(f"\nRange at τ = {tau:g}, {len(queries)} queries, 1 s per verified pair:\n")
    print("| query | query_timeout | seconds | timed out | hits | undecided (not reached) | "
          "hits agree |")
    print("|---|---:|---:|:---:|---:|---:|:---:|")
    for q in queries:
        whole = None
        for limit in [None, *limits]:
            t = time.perf_counter()
            r = coll.range(q, tau, progress=False, query_timeout=limit)
            seconds = time.perf_counter() - t
            if whole is None:
                whole = {h.id: h.distance for h in r.hits}
            agree = all(whole.get(h.id) == h.distance for h in r.hits)
            print(f"| {q.name or q.n} | {'none' if limit is None else f'{limit:g} s'} | "
                  f"{seconds:.1f} | {'yes' if r.timed_out else 'no'} | {len(r.hits):,} | "
                  f"{len(r.undecided):,} ({r.stats.get('unreached', 0):,}) | "
                  f"{'yes' if agree else 'NO'} |", flush=True)


def range_batch(coll, queries: list, tau: float, limits: list[float]) -> None:
    """The ``queries`` answered in one call (their candidates verified in shared batches),
    without a limit and under each of ``limits``: the call's seconds against the queries'
    limits summed, and per query its hits, undecided graphs and its own seconds."""
    print(f"\nRange at τ = {tau:g}, {len(queries)} queries in one call:\n")
    print("| query_timeout | call s | limit x queries | hits | undecided | queries timed out | "
          "largest s of a query | hits agree |")
    print("|---:|---:|---:|---:|---:|---:|---:|:---:|")
    whole = None
    for limit in [None, *limits]:
        t = time.perf_counter()
        rs = coll.range(queries=queries, tau=tau, progress=False, query_timeout=limit)
        seconds = time.perf_counter() - t
        if whole is None:
            whole = [{h.id: h.distance for h in r.hits} for r in rs]
        agree = all(w.get(h.id) == h.distance for w, r in zip(whole, rs, strict=True)
                    for h in r.hits)
        own = max(sum(r.stats["seconds"].values()) for r in rs)
        print(f"| {'none' if limit is None else f'{limit:g} s'} | {seconds:.2f} | "
              f"{'' if limit is None else f'{limit * len(queries):g}'} | "
              f"{sum(len(r.hits) for r in rs):,} | {sum(len(r.undecided) for r in rs):,} | "
              f"{sum(r.timed_out for r in rs)} | {own:.2f} | {'yes' if agree else 'NO'} |",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--limits", default="2,10", help="seconds per query, comma-separated")
    ap.add_argument("--unbounded", type=int, default=3,
                    help="queries out of time under the first limit to run with --cap")
    ap.add_argument("--cap", type=float, default=600.0)
    ap.add_argument("--folder", type=Path, default=Path("/tmp/gedkit-scale"))
    ap.add_argument("--range-tau", type=float, default=7.0)
    ap.add_argument("--range-queries", type=int, default=3, help="0: no range part")
    ap.add_argument("--no-knn", action="store_true", help="the range part only")
    ap.add_argument("--range-batch", type=int, default=0,
                    help="also that many of the collection's molecules as queries of one call")
    args = ap.parse_args()

    queries = chang_queries(args.data, args.queries)
    coll = gedkit.Collection.open(moses_file(args.data, args.size, args.folder))
    # signatures read, kernels loaded, rows sorted by size (as for a search of many queries)
    coll.range(queries=queries[:1] * SORT_FOR_RANGES_FROM, tau=0, progress=False)
    limits = [float(x) for x in args.limits.split(",")]
    if args.range_queries:
        own = [coll.get(i) for i in coll.ids[:args.range_queries]]
        range_rows(coll, own, args.range_tau, limits)
    if args.range_batch:
        batch = [coll.get(i) for i in coll.ids[:args.range_batch]]
        range_batch(coll, batch, args.range_tau, limits)
    if args.no_knn:
        return
    runs = {}
    print(f"{len(queries)} AIDS queries, k = {args.k}, {len(coll):,} MOSES molecules, "
          "1 s per verified pair\n")
    print("| query_timeout | total s | median s per query | largest s | out of time | "
          "certified | median verified |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for limit in limits:
        rows = runs[limit] = run(coll, queries, args.k, limit)
        print(f"| {limit:g} s | {sum(r[1] for r in rows):.1f} | "
              f"{statistics.median(r[1] for r in rows):.3f} | {max(r[1] for r in rows):.2f} | "
              f"{sum(r[2] for r in rows)} | {sum(r[3] for r in rows)} | "
              f"{statistics.median(r[4] for r in rows):.0f} |", flush=True)
    if len(limits) > 1:
        a, b = runs[limits[0]], runs[limits[-1]]
        both = [(x, y) for x, y in zip(a, b, strict=True) if x[3] and y[3]]
        same = sum(x[5] == y[5] for x, y in both)
        print(f"\ncertified under {limits[0]:g} s and {limits[-1]:g} s: {len(both)} queries, "
              f"same distances: {same}")
    late = [q for q, r in zip(queries, runs[limits[0]], strict=True) if r[2]][: args.unbounded]
    if late:
        print(f"\n{len(late)} of the queries out of time at {limits[0]:g} s, with "
              f"{args.cap:g} s:\n")
        print("| query | seconds | out of time | certified | verified | distances "
              f"(at {limits[0]:g} s) |")
        print("|---|---:|:---:|:---:|---:|---|")
        first = {r[0]: r for r in runs[limits[0]]}
        for name, seconds, out, certified, verified, dist in run(coll, late, args.k, args.cap):
            print(f"| {name} | {seconds:.1f} | {'yes' if out else 'no'} | "
                  f"{'yes' if certified else 'no'} | {verified:,} | {dist} "
                  f"({first[name][5]}) |", flush=True)


if __name__ == "__main__":
    main()
