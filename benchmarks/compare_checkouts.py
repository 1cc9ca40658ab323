"""This checkout against another one, side by side: exact GED and exact MCES per pair.

For a change that must not slow the kernels (e.g. a refactoring), both checkouts solve the
same AIDS700nef test×train pairs in two worker processes (each importing its own checkout,
kernels compiled and loaded before anything is timed) that take turns block by block, the
order within each block alternating, so that the machine's drift falls on both alike. Reports
per question the median time per pair on each side and the median of the per-pair ratios,
and checks that both sides give the same answers. With ``--collection`` (a stored
collection, e.g. ``search_scale.py``'s MOSES files), also the search filters over it: per
Chang-AIDS query, the first stage at τ = 3 (``filter``) and the label bound of every graph
(``labels``). Usage::

    python benchmarks/compare_checkouts.py --baseline DIR [--pairs 3000] [--mces-pairs 1000]
        [--collection LIB.gdb] [--block 100] [--data ../shared/data]

``DIR`` is another checkout (e.g. ``git worktree add DIR COMMIT`` or a ``git archive``);
each side gets its own numba cache folder under ``--cache`` (compiled once, reused).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _iam import DEFAULT_DATA

HERE = Path(__file__).resolve().parents[1]


def worker() -> None:
    """One side: reads ``[question, [pair indices]]`` lines, answers each with the per-pair
    seconds and answers (GED distance or MCES edge count)."""
    import warnings

    import gedkit
    from gedkit.datasets import load_benchmark

    warnings.simplefilter("ignore")
    data = Path(sys.argv[2])
    bench = load_benchmark("AIDS700nef", data)
    pairs = bench.pairs("test", "train")
    graphs = bench.graphs
    for q in ("ged", "mces"):  # compile / load the kernels before timing
        for i, j in pairs[:20]:
            _solve(gedkit, q, graphs[i], graphs[j])
    filters = _Filters(gedkit, data, Path(sys.argv[3])) if len(sys.argv) > 3 else None
    print(json.dumps({"ready": str(Path(gedkit.__file__).parents[1])}), flush=True)
    for line in sys.stdin:
        question, block = json.loads(line)
        times, answers = [], []
        for k in block:
            t = time.perf_counter()
            if question in ("filter", "labels"):
                answers.append(filters.run(question, k))
            else:
                i, j = pairs[k]
                answers.append(_solve(gedkit, question, graphs[i], graphs[j]))
            times.append(time.perf_counter() - t)
        print(json.dumps([times, answers]), flush=True)


class _Filters:
    """The search filters of one stored collection against the Chang-AIDS queries."""

    def __init__(self, gedkit, data: Path, path: Path):
        from gedkit.search.filters import GedFilter

        self.filter_class, self.model = GedFilter, gedkit.costs.uniform()
        self.queries = gedkit.read_all(data / "Chang-AIDS-query100" / "AIDS_query100.txt")
        self.coll = gedkit.Collection.open(path)
        self.coll.range(self.queries[0], 3, progress=False)  # kernels loaded, file read
        self.sig = self.coll._signatures_by_size()

    def run(self, stage: str, k: int) -> int:
        """Graphs left by the stage for query ``k``; the caller's clock also counts making
        the query's filter (its signature), on both sides alike."""
        filt = self.filter_class(self.model, self.queries[k % len(self.queries)],
                                 self.coll._store.vocab)
        if stage == "filter":
            return len(filt.within(self.sig, 3.0)[0])
        return int((filt.stages[0][1](self.sig, None) <= 3).sum())


def _solve(gedkit, question: str, g1, g2) -> float:
    if question == "ged":
        return gedkit.ged(g1, g2, method="exact").upper_bound
    return gedkit.mces(g1, g2, method="exact").num_edges


def _start(checkout: Path, data: Path, cache: Path, collection: Path | None) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(checkout), NUMBA_CACHE_DIR=str(cache))
    extra = [str(collection)] if collection else []
    proc = subprocess.Popen([sys.executable, __file__, "--worker", str(data), *extra], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=checkout)
    ready = json.loads(proc.stdout.readline())
    if Path(ready["ready"]).resolve() != checkout.resolve():
        raise SystemExit(f"{checkout}: the worker imported gedkit from {ready['ready']}")
    return proc


def _ask(proc: subprocess.Popen, question: str, block: list[int]) -> tuple[list, list]:
    proc.stdin.write(json.dumps([question, block]) + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        worker()
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, required=True, help="the other checkout")
    ap.add_argument("--pairs", type=int, default=3000, help="GED pairs (the first N)")
    ap.add_argument("--mces-pairs", type=int, default=1000, help="MCES pairs (the first N)")
    ap.add_argument("--collection", type=Path, help="a stored collection to filter")
    ap.add_argument("--filter-queries", type=int, default=40, help="queries per filter stage")
    ap.add_argument("--block", type=int, default=100, help="pairs (queries) per turn")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/gedkit-compare-cache"))
    args = ap.parse_args()
    sides = {"this": HERE, "baseline": args.baseline.resolve()}
    collection = args.collection.resolve() if args.collection else None
    procs = {name: _start(path, args.data.resolve(), args.cache / name, collection)
             for name, path in sides.items()}
    print(f"`python benchmarks/compare_checkouts.py {' '.join(sys.argv[1:])}`; load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    print("\n| question | pairs (queries) | this: median ms each | baseline: median ms each | "
          "median ratio this / baseline | total this / baseline | slowest this / baseline (ms) "
          "| same answers |")
    print("|---|---:|---:|---:|---:|---:|---:|:---:|")
    questions = [("ged", args.pairs), ("mces", args.mces_pairs)]
    if collection:
        questions += [("filter", args.filter_queries), ("labels", args.filter_queries)]
    for question, count in questions:
        if count <= 0:
            continue
        times = {name: [] for name in sides}
        answers = {name: [] for name in sides}
        step = args.block if question in ("ged", "mces") else 5
        for b, first in enumerate(range(0, count, step)):
            block = list(range(first, min(count, first + step)))
            order = list(sides) if b % 2 == 0 else list(reversed(sides))
            for name in order:
                t, a = _ask(procs[name], question, block)
                times[name] += t
                answers[name] += a
        ratios = [a / b for a, b in zip(times["this"], times["baseline"], strict=True) if b > 0]
        same = answers["this"] == answers["baseline"]
        print(f"| {question} | {count} | {1e3 * statistics.median(times['this']):.3f} | "
              f"{1e3 * statistics.median(times['baseline']):.3f} | "
              f"{statistics.median(ratios):.3f} | "
              f"{sum(times['this']) / sum(times['baseline']):.3f} | "
              f"{1e3 * max(times['this']):.1f} / {1e3 * max(times['baseline']):.1f} | "
              f"{'yes' if same else 'NO'} |")
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    for proc in procs.values():
        proc.stdin.close()
        proc.wait()


if __name__ == "__main__":
    main()
