"""Range search on a Dask cluster against one process and the local pool (issue 17).

100 AIDS queries (``shared/data/Chang-AIDS-query100``) at τ = 3 over the first 100,000 MOSES
molecules (unit costs, atom symbol and bond order kekulized, as ``search_scale.py`` builds
them; the collection is reused from ``--folder`` when it is there), in one run: one process
(``n_jobs=1``), the local pool (``n_jobs=2``: a first run that starts its worker processes,
then the ones the collection keeps), a ``LocalCluster`` of 2 worker processes of one
thread (``client=``, default shards, a first run that opens the shards on the workers and a
second one that finds them open), and the cost per task (the same search in many more
shards: from the tasks' count, :func:`gedkit.search.parallel.range_batches` on each
shard). Every answer is checked against the one-process one. Usage::

    python benchmarks/search_cluster.py [--size 100000] [--queries 100] [--tau 3] \\
        [--folder /tmp/gedkit-scale] [--shards default,32] [--rounds 0]

``--rounds R`` then runs the one process, the pool and the cluster (default shards, warm) R
more times, taking turns, and reports each one's median and the median of the per-round
speed-ups (this machine's speed drifts by more than the differences looked for).

Prints Markdown with the load average beside every figure (paste it into
benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from pathlib import Path

from _iam import DEFAULT_DATA
from search_scale import chang_queries, moses_file

import gedkit
from gedkit.search.collection import SORT_FOR_RANGES_FROM


def answers(results) -> list:
    return [([(h.id, h.distance) for h in r.hits], len(r.undecided)) for r in results]


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def timed(label: str, rows: list, call, reference=None):
    before = load()
    t = time.perf_counter()
    results = call()
    seconds = time.perf_counter() - t
    same = "" if reference is None else ("yes" if answers(results) == answers(reference)
                                         else "NO")
    rows.append((label, seconds, before, load(), same))
    print(f"{label}: {seconds:.2f} s (load {before} -> {load()}) same={same}", flush=True)
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--tau", type=float, default=3.0)
    ap.add_argument("--folder", type=Path, default=Path("/tmp/gedkit-scale"))
    ap.add_argument("--shards", default="default,32",
                    help="shards, then many more (the cost per task); 'default': the search's "
                         "own choice")
    ap.add_argument("--rounds", type=int, default=0, help="rounds taking turns, after")
    args = ap.parse_args()
    import distributed

    queries = chang_queries(args.data, args.queries)
    coll = gedkit.Collection.open(moses_file(args.data, args.size, args.folder))
    options = {"queries": queries, "tau": args.tau, "progress": False}
    # kernels and signatures loaded, rows sorted by size (as for a search of many queries)
    coll.range(queries=queries[:1] * SORT_FOR_RANGES_FROM, tau=args.tau, progress=False)
    rows: list = []
    one = timed("one process", rows, lambda: coll.range(**options))
    timed("local pool, 2 processes, first (starts them)", rows,
          lambda: coll.range(n_jobs=2, **options), one)
    timed("local pool, 2 processes, again (kept)", rows,
          lambda: coll.range(n_jobs=2, **options), one)
    from gedkit.search.distributed import default_shards
    from gedkit.search.parallel import range_batches

    first, many = args.shards.split(",")
    few = default_shards(len(coll), len(queries), 2) if first == "default" else int(first)
    many = int(many)

    def tasks(shards: int) -> int:
        return shards * len(range_batches(len(queries), 2, shards, len(coll)))

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=logging.CRITICAL
                                  ) as cluster, distributed.Client(cluster) as client:
        client.run(lambda: __import__("gedkit.search.ged_search"))  # imports, not timed
        timed(f"LocalCluster 2x1, {few} shards, first (opens them)", rows,
              lambda: coll.range(client=client, shards=few, **options), one)
        timed(f"LocalCluster 2x1, {few} shards, again", rows,
              lambda: coll.range(client=client, shards=few, **options), one)
        timed(f"LocalCluster 2x1, {many} shards, first", rows,
              lambda: coll.range(client=client, shards=many, **options), one)
        timed(f"LocalCluster 2x1, {many} shards, again", rows,
              lambda: coll.range(client=client, shards=many, **options), one)
        turns: list = []
        for r in range(args.rounds):
            row: list = []
            timed(f"round {r + 1}: one process", row, lambda: coll.range(**options), one)
            timed(f"round {r + 1}: local pool", row,
                  lambda: coll.range(n_jobs=2, **options), one)
            timed(f"round {r + 1}: LocalCluster 2x1, {few} shards", row,
                  lambda: coll.range(client=client, shards=few, **options), one)
            turns.append([s for _, s, *_ in row])
    matches = sum(len(r.hits) for r in one)
    print(f"\n{len(queries)} AIDS queries, τ = {args.tau:g}, {len(coll):,} MOSES molecules "
          f"({matches} matches), unit costs\n")
    print("| run | seconds | speed-up vs one process | load before / after | same answers |")
    print("|---|---|---|---|---|")
    base = rows[0][1]
    for label, seconds, before, after, same in rows:
        print(f"| {label} | {seconds:.2f} | {base / seconds:.2f}x | {before} / {after} | "
              f"{same or 'reference'} |")
    again = {label: s for label, s, *_ in rows}
    per_task = (again[f"LocalCluster 2x1, {many} shards, again"]
                - again[f"LocalCluster 2x1, {few} shards, again"]) / (tasks(many) - tasks(few))
    print(f"\ncost per task (warm, 2 workers): {many} shards in {tasks(many)} tasks against "
          f"{few} in {tasks(few)} -> {1e3 * per_task:.1f} ms of wall time per extra task")
    if turns:
        import statistics

        print(f"\n{len(turns)} rounds taking turns (one process, pool, cluster with {few} "
              "shards, warm):\n")
        print("| run | median seconds | median speed-up vs one process (per round) | range |")
        print("|---|---|---|---|")
        for k, label in enumerate(("one process", "local pool, 2 processes, kept",
                                   f"LocalCluster 2x1, {few} shards")):
            ups = [t[0] / t[k] for t in turns]
            print(f"| {label} | {statistics.median(t[k] for t in turns):.2f} | "
                  f"{statistics.median(ups):.2f}x | {min(ups):.2f}-{max(ups):.2f}x |")


if __name__ == "__main__":
    main()
