"""Pairwise at scale (issue 17): all pairs of N IAM AIDS molecules, ``auto`` with a per-pair
timeout, in one process, on the local process pool and on a Dask ``LocalCluster`` with as many
workers, in one run (speed-up per worker against the one process); then the same job killed
halfway (SIGKILL, after half the pairs are in its ``out=`` file) and resumed, against the
uninterrupted job; then the client-side cost of gathering one pair (matrices + results file),
and a paper estimate for a 50-million-pair matrix on 64 workers.

    python benchmarks/pairwise_scale.py [--n 2000] [--timeout 0.02] [--workers 2]
        [--costs chem_2] [--data ../shared/data] [--seed 0] [--single-sample K] [--no-resume]
        [--resume-only]

The issue's job is N = 2,000 (2 million pairs); on a small shared machine run a reduced N, or
shorten the full one: ``--single-sample K`` runs the one process on all pairs of K of the N
molecules (a uniform sample of the pairs) and scales its wall time by the pair count,
``--no-resume`` leaves out the killed-and-resumed pair of runs, ``--resume-only`` runs only
those (and the uninterrupted job they are measured against). The molecules keep what CHEM_2
reads (``chem`` atoms, ``valence`` bonds). Prints a Markdown section for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _iam import DEFAULT_DATA, load_iam

import gedkit


def sample(data: Path, n: int, seed: int) -> list:
    graphs = load_iam(data, "AIDS", node_label="chem", edge_label="valence")
    if n >= len(graphs):
        return graphs
    pick = np.sort(np.random.default_rng(seed).choice(len(graphs), n, replace=False))
    return [graphs[k] for k in pick]


def child(args: argparse.Namespace) -> None:
    """A job in its own process (the CLI's situation): reads the graphs, runs, reports."""
    start = time.perf_counter()
    with open(args.graphs, "rb") as f:
        graphs = pickle.load(f)
    m = gedkit.pairwise(graphs, costs=args.costs, timeout=args.timeout, n_jobs=args.workers,
                        out=args.out, progress=False)
    print(f"{time.perf_counter() - start:.3f} {m.resumed} {len(m.pairs)}", flush=True)


def run_child(args: argparse.Namespace, graphs_file: str, out: str,
              kill_at: int | None = None) -> tuple[float, int]:
    """Wall seconds of a child job (process start included) and how many pairs the file held
    when it ended or was killed."""
    command = [sys.executable, __file__, "--child", "--graphs", graphs_file, "--out", out,
               "--costs", args.costs, "--timeout", str(args.timeout), "--workers",
               str(args.workers)]
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if kill_at is not None:
        while proc.poll() is None and rows(out) < kill_at:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    return time.perf_counter() - start, rows(out)


def rows(path: str) -> int:
    if not os.path.exists(path):
        return 0
    try:
        with sqlite3.connect(path, timeout=10) as db:
            return db.execute("SELECT COUNT(*) FROM pairs").fetchone()[0]
    except sqlite3.Error:
        return 0


def gather_cost(n_pairs: int) -> float:
    """Seconds the client spends per pair taking results in (matrices and the results file)."""
    from gedkit.pairwise import STATUSES, PairwiseResult, _Entry, _Gather, _packed
    from gedkit.pairwise_store import PairStore

    side = int(np.ceil(np.sqrt(2 * n_pairs)))
    shape = (side, side)
    result = PairwiseResult(np.zeros(shape), np.full(shape, np.inf), np.zeros(shape),
                            np.full(shape, "pending", dtype=f"<U{max(map(len, STATUSES))}"),
                            "auto", np.zeros((0, 2), int), 0.02)
    entry = _Entry(3.0, 4.0, 0.01, "bounded", node_map=_packed(np.arange(12)))
    with tempfile.TemporaryDirectory() as tmp:
        store = PairStore(Path(tmp) / "g.sqlite", {"format": "bench"})
        gather = _Gather(result, True, store, "auto")
        start = time.perf_counter()
        k = 0
        for i in range(side):
            for j in range(i, side):
                gather.pair(i, j, entry)
                k += 1
                if k % 256 == 0:
                    gather.chunk_done()
        store.close()
        return (time.perf_counter() - start) / k


def resume_lines(args: argparse.Namespace, graphs: list, n_pairs: int) -> str:
    """The job in fresh processes, once whole and once killed halfway and resumed (in the
    opposite order with ``--reverse``): the report's lines on it."""
    with tempfile.TemporaryDirectory() as tmp:
        graphs_file = os.path.join(tmp, "graphs.pkl")
        with open(graphs_file, "wb") as f:
            pickle.dump(graphs, f)
        cut = os.path.join(tmp, "cut.sqlite")
        if not args.reverse:
            full_wall, _ = run_child(args, graphs_file, os.path.join(tmp, "full.sqlite"))
        cut_wall, kept = run_child(args, graphs_file, cut, kill_at=n_pairs // 2)
        resume_wall, done = run_child(args, graphs_file, cut)
        if args.reverse:
            full_wall, _ = run_child(args, graphs_file, os.path.join(tmp, "full.sqlite"))
    print(f"resume: {full_wall:.1f} vs {cut_wall:.1f} + {resume_wall:.1f} s", file=sys.stderr)
    return f"""- Killed halfway and resumed (each a fresh process, `n_jobs={args.workers}`, \
`out=`): uninterrupted
  {full_wall:.1f} s; killed (SIGKILL) at {kept:,} of {n_pairs:,} pairs after {cut_wall:.1f} s,
  resumed in {resume_wall:.1f} s ({done:,} pairs in the file): total
  {cut_wall + resume_wall:.1f} s = **{(cut_wall + resume_wall) / full_wall:.3f}x** the
  uninterrupted run.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="molecules (default 2000)")
    parser.add_argument("--timeout", type=float, default=0.02, help="seconds per pair")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--costs", default="chem_2")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reverse", action="store_true",
                        help="run Dask before the pool and the killed job before the whole one "
                        "(the machine's load drifts: both orders show how much)")
    parser.add_argument("--single-sample", type=int, default=None, metavar="K",
                        help="the one process on all pairs of K random molecules of the N, "
                        "its wall time scaled to the N's pairs (an estimate)")
    parser.add_argument("--no-resume", action="store_true",
                        help="leave out the killed-and-resumed runs")
    parser.add_argument("--resume-only", action="store_true",
                        help="only the uninterrupted job and the killed-and-resumed one")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--graphs", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    from distributed import Client, LocalCluster

    graphs = sample(args.data, args.n, args.seed)
    job = {"costs": args.costs, "timeout": args.timeout, "progress": False}
    gedkit.pairwise(graphs[:6], **job)  # kernels loaded in this process
    print(f"{len(graphs)} molecules ({np.median([g.n for g in graphs]):.0f} atoms median), "
          f"{args.costs}, auto, {args.timeout:g} s per pair, {args.workers} workers",
          file=sys.stderr)

    if args.resume_only:
        n_pairs = len(graphs) * (len(graphs) + 1) // 2
        print(f"\nCommand: `python benchmarks/pairwise_scale.py --n {args.n} --timeout "
              f"{args.timeout:g} --workers {args.workers} --costs {args.costs} --resume-only"
              f"{' --reverse' if args.reverse else ''}`\n\n{resume_lines(args, graphs, n_pairs)}")
        return

    def run_single():
        """The one process's result and wall time (with --single-sample, the sample's; the
        whole job's time is estimated from it once the pool has said how many pairs)."""
        mine = graphs
        if args.single_sample and args.single_sample < len(graphs):
            pick = np.random.default_rng(args.seed + 1).choice(len(graphs), args.single_sample,
                                                               replace=False)
            mine = [graphs[k] for k in np.sort(pick)]
        start = time.perf_counter()
        result = gedkit.pairwise(mine, n_jobs=1, **job)
        wall = time.perf_counter() - start
        print(f"one process: {wall:.1f} s ({len(result.pairs):,} pairs)", file=sys.stderr)
        return result, wall

    def run_pool():
        start = time.perf_counter()
        result = gedkit.pairwise(graphs, n_jobs=args.workers, **job)
        print(f"pool: {time.perf_counter() - start:.1f} s", file=sys.stderr)
        return result, time.perf_counter() - start

    def run_dask():
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        gedkit.pairwise(graphs[:8], client=client, chunk_size=1, **job)  # workers import gedkit
        start = time.perf_counter()
        result = gedkit.pairwise(graphs, client=client, **job)
        wall = time.perf_counter() - start
        client.close()
        cluster.close()
        print(f"dask: {wall:.1f} s", file=sys.stderr)
        return result, wall

    single, single_wall = run_single()
    if args.reverse:
        dask, dask_wall = run_dask()
        pool, pool_wall = run_pool()
    else:
        pool, pool_wall = run_pool()
        dask, dask_wall = run_dask()
    times = pool.time[tuple(pool.pairs.T)]
    dask_times = dask.time[tuple(dask.pairs.T)]
    n_pairs = len(pool.pairs)
    single_wall *= n_pairs / len(single.pairs)  # 1 unless --single-sample
    chunk = max(1, min(256, n_pairs // (4 * args.workers)))
    tasks = -(-n_pairs // chunk)
    overhead = max(0.0, args.workers * dask_wall - dask_times.sum()) / tasks

    resumed = "" if args.no_resume else resume_lines(args, graphs, n_pairs)
    per_gather = gather_cost(min(n_pairs, 200_000))

    mean = float(times.mean())
    big = 50_000_000
    compute = big * mean / 64
    tasks_big = big / 256
    flag = " --reverse" if args.reverse else ""
    flag += f" --single-sample {args.single_sample}" if args.single_sample else ""
    flag += " --no-resume" if args.no_resume else ""
    sampled = (f", estimated: all {len(single.pairs):,} pairs of {args.single_sample} of the "
               f"molecules, wall scaled by the pair count" if args.single_sample else "")
    print(f"""
Command: `python benchmarks/pairwise_scale.py --n {args.n} --timeout {args.timeout:g} \
--workers {args.workers} --costs {args.costs}{flag}` ({len(graphs)} IAM AIDS molecules, seed
{args.seed}: {n_pairs:,} pairs with the diagonal; `auto`, {args.costs.upper()}, {args.timeout:g} s
per pair; {args.workers} workers; {os.cpu_count()} cores shared with other jobs).

| run | wall | pairs/s | speed-up | optimal | median pair | mean pair |
|---|---|---|---|---|---|---|
| one process (`n_jobs=1`){sampled} | {single_wall:.1f} s | {n_pairs / single_wall:.0f} | 1 | \
{single.counts()['optimal']:,} | {1000 * np.median(single.time[tuple(single.pairs.T)]):.2f} ms | \
{1000 * single.time[tuple(single.pairs.T)].mean():.2f} ms |
| local pool (`n_jobs={args.workers}`) | {pool_wall:.1f} s | {n_pairs / pool_wall:.0f} | \
{single_wall / pool_wall:.2f}x | {pool.counts()['optimal']:,} | \
{1000 * np.median(times):.2f} ms | {1000 * mean:.2f} ms |
| `LocalCluster`, {args.workers} workers (`client=`) | {dask_wall:.1f} s | \
{n_pairs / dask_wall:.0f} | {single_wall / dask_wall:.2f}x | {dask.counts()['optimal']:,} | \
{1000 * np.median(dask_times):.2f} ms \
| {1000 * dask_times.mean():.2f} ms |

- Dask / pool wall time: **{dask_wall / pool_wall:.2f}** ({tasks:,} tasks of {chunk} pairs);
  busy fraction of the workers: pool {times.sum() / (args.workers * pool_wall):.0%}, Dask
  {dask_times.sum() / (args.workers * dask_wall):.0%} (sum of pair times / workers x wall);
  overhead per Dask task (workers x wall - pair times, per task): {1000 * overhead:.1f} ms.
{resumed}- Client-side cost per pair gathered (matrices + SQLite row, committed per 256): \
{1e6 * per_gather:.1f} µs.

On paper, a 50-million-pair matrix (10,000 molecules) on 64 workers, with this mean pair time
({1000 * mean:.2f} ms at {args.timeout:g} s per pair): {big * mean:,.0f} s of solving, so
**{compute / 3600:.1f} h** on 64 workers if they stay busy; in 256-pair chunks that is
{tasks_big:,.0f} tasks, {tasks_big * overhead / 64:,.0f} s of task overhead per worker at the
overhead measured here, and the client takes results in at {1e6 * per_gather:.1f} µs a pair
({big * per_gather / 3600:.2f} h for all of them, in parallel with the solving: it stops scaling
where {big * per_gather:,.0f} s of gathering reaches the solving time, at about
{big * mean / (big * per_gather):,.0f} workers). The dense result matrices of 10,000 x 10,000
take {1e8 * (8 * 3 + 32) / 2**30:.1f} GiB in the client (float bounds and times, status
strings), the results file about {50e6 * 80 / 2**30:.1f} GiB.
""")


if __name__ == "__main__":
    main()
