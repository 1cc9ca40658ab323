"""Exact GED on every AIDS700nef test×train pair, against the ground truth and NetworkX.

Side by side in one run: gedkit's exact solver on all 78,400 pairs (one process, then
``gedkit.pairwise`` on every core), and NetworkX's exact ``graph_edit_distance`` on a random
sample of the same pairs. Usage::

    python benchmarks/aids700_exact.py [--data ../shared/data] [--nx-pairs 30] [--jobs 2]

Prints a Markdown summary (paste it into benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import networkx as nx
import numpy as np

import gedkit
from gedkit.datasets import load_benchmark
from gedkit.solvers import Budget, get_solver

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--nx-pairs", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--limit", type=int, default=None, help="only the first N pairs (smoke run)")
    args = ap.parse_args()

    bench = load_benchmark("AIDS700nef", args.data)
    pairs = bench.pairs("test", "train")
    if args.limit:
        pairs = pairs[: args.limit]
    model = gedkit.costs.uniform()
    solver = get_solver("exact")
    # warm up the compiled kernels (cached on disk, loaded once per process)
    solver.solve(model.compile(bench.graphs[0], bench.graphs[1]), Budget())

    solve_t = np.empty(len(pairs))
    total_t = np.empty(len(pairs))
    dist = np.empty(len(pairs))
    wrong = 0
    start = time.perf_counter()
    for k, (i, j) in enumerate(pairs):
        t0 = time.perf_counter()
        problem = model.compile(bench.graphs[i], bench.graphs[j])
        t1 = time.perf_counter()
        r = solver.solve(problem, Budget())
        t2 = time.perf_counter()
        solve_t[k], total_t[k], dist[k] = t2 - t1, t2 - t0, r.distance
        wrong += (not r.optimal) or r.distance != bench.ged[i, j]
    serial_wall = time.perf_counter() - start

    test_idx = np.flatnonzero(bench.splits == "test")
    train_idx = np.flatnonzero(bench.splits == "train")
    start = time.perf_counter()
    matrix = gedkit.pairwise(
        [bench.graphs[i] for i in test_idx], [bench.graphs[j] for j in train_idx],
        n_jobs=args.jobs, progress=False,
    )
    parallel_wall = time.perf_counter() - start
    parallel_wrong = int(np.sum(matrix.distance != bench.ged[np.ix_(test_idx, train_idx)]))

    rng = np.random.default_rng(0)
    sample = pairs[rng.choice(len(pairs), size=min(args.nx_pairs, len(pairs)), replace=False)]
    nx_t, ours_t, nx_wrong = [], [], 0
    for i, j in sample:
        g1 = bench.graphs[i].to_networkx(node_label="type")
        g2 = bench.graphs[j].to_networkx(node_label="type")
        t0 = time.perf_counter()
        d = nx.graph_edit_distance(g1, g2, node_match=lambda a, b: a["type"] == b["type"])
        nx_t.append(time.perf_counter() - t0)
        nx_wrong += d != bench.ged[i, j]
        repeats = []
        for _ in range(5):  # warm: the median of a few repeats, compilation included
            t0 = time.perf_counter()
            solver.solve(model.compile(bench.graphs[i], bench.graphs[j]), Budget())
            repeats.append(time.perf_counter() - t0)
        ours_t.append(np.median(repeats))
    nx_t, ours_t = np.array(nx_t), np.array(ours_t)

    ms = 1e3
    print(f"## AIDS700nef exact GED, {len(pairs):,} test×train pairs\n")
    print("| measure | value |\n|---|---|")
    print(f"| agreement with ground truth (1 process) | {len(pairs) - wrong:,}/{len(pairs):,} |")
    print(f"| agreement with ground truth (pairwise, {args.jobs} jobs) | "
          f"{matrix.distance.size - parallel_wrong:,}/{matrix.distance.size:,} |")
    print(f"| solve time per pair: median / mean / p99 / max (ms) | {np.median(solve_t) * ms:.3f}"
          f" / {solve_t.mean() * ms:.3f} / {np.percentile(solve_t, 99) * ms:.2f}"
          f" / {solve_t.max() * ms:.1f} |")
    print(f"| with cost compilation, median / mean (ms) | {np.median(total_t) * ms:.3f} / "
          f"{total_t.mean() * ms:.3f} |")
    rate = len(pairs) / serial_wall
    print(f"| 1 process: wall time, pairs/s | {serial_wall:.1f} s, {rate:,.0f} |")
    print(f"| pairwise, {args.jobs} jobs: wall time, pairs/s | {parallel_wall:.1f} s, "
          f"{matrix.distance.size / parallel_wall:,.0f} |")
    print(f"\n### NetworkX `graph_edit_distance`, same {len(sample)} random pairs, same run\n")
    print("| measure | NetworkX | gedkit | ratio |\n|---|---|---|---|")
    print(f"| median time per pair | {np.median(nx_t):.3f} s | {np.median(ours_t) * ms:.3f} ms | "
          f"{np.median(nx_t) / np.median(ours_t):,.0f}× |")
    print(f"| mean time per pair | {nx_t.mean():.3f} s | {ours_t.mean() * ms:.3f} ms | "
          f"{nx_t.mean() / ours_t.mean():,.0f}× |")
    print(f"| wrong distances | {nx_wrong} | 0 | |")


if __name__ == "__main__":
    main()
