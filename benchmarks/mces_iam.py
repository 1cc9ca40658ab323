"""MCES methods side by side on IAM AIDS molecules with more than 30 atoms.

Atoms are labelled by element symbol, bonds by valence. Half the pairs are random, half
similar (each drawn molecule with the other one of closest atom-label histogram). Every method
runs on every pair at every budget of ``--budgets`` (the exact method also at the budgets of
``--exact-budgets``); a pair's *best known* edge count is the largest any run reached (exact
when some run proved it). Per method and budget it prints the mean edge count as a percentage
of the best known, the share of pairs at the best known, the share proven optimal, the mean
and median time per pair and the peak memory a solve added to the process (RSS sampled every
2 ms; RASCAL runs in a child process, whose own peak is reported separately). A second table
compares every method with RASCAL on the pairs where RASCAL timed out, at the same budget.
Usage::

    python benchmarks/mces_iam.py [--data ../shared/data] [--pairs 100] [--budgets 1,10]
        [--exact-budgets 60] [--methods exact,ga,nga,rascal] [--min-atoms 31] [--seed 0]
        [--json benchmarks/out/mces_iam.json] [--merge RUNS.json ...] [--pair-indices I,J,...]

Prints Markdown tables (paste them into benchmarks/RESULTS.md); ``--json`` keeps every run, and
``--merge`` summarises runs made separately on the same pairs (e.g. one method at a time).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
from _iam import DEFAULT_DATA, load_iam

import gedkit
from gedkit.mces import MCESProblem
from gedkit.mces.base import Budget, get_method


def load_molecules(data: Path, min_atoms: int) -> list[gedkit.Graph]:
    """The IAM AIDS molecules with at least ``min_atoms`` atoms."""
    graphs = load_iam(data, "AIDS", node_label="symbol", edge_label="valence")
    return [g for g in graphs if g.n >= min_atoms]


def choose_pairs(graphs, count, rng) -> list[tuple[int, int, str]]:
    hist = [Counter(g.node_labels) for g in graphs]
    pairs = []
    for k in range(count):
        a = int(rng.integers(len(graphs)))
        if k % 2 == 0:
            b = int(rng.integers(len(graphs) - 1))
            pairs.append((a, b + (b >= a), "random"))
        else:
            dist = [
                sum(((hist[a] - h) + (h - hist[a])).values()) + abs(graphs[a].n - graphs[c].n)
                if c != a else 10**9
                for c, h in enumerate(hist)
            ]
            pairs.append((a, int(np.argmin(dist)), "similar"))
    return pairs


class PeakMemory:
    """Peak resident memory added while the ``with`` block runs (sampled in a thread)."""

    def __init__(self, interval: float = 0.002):
        self.interval, self.peak_mib = interval, 0.0

    @staticmethod
    def _rss() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize()

    def _sample(self) -> None:
        while not self._done.wait(self.interval):
            self._top = max(self._top, self._rss())

    def __enter__(self) -> PeakMemory:
        self._base = self._top = self._rss()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()
        self._top = max(self._top, self._rss())
        self.peak_mib = (self._top - self._base) / 2**20


def run(graphs, pairs, plan) -> dict:
    """``rows[(method, budget)]`` = one dict per pair; ``plan`` = [(method, budget)]."""
    rows = {key: [] for key in plan}
    solvers = {m: get_method(m) for m, _ in plan}
    for k, (i, j, kind) in enumerate(pairs):
        problem = MCESProblem(graphs[i], graphs[j])
        for m, b in plan:
            with PeakMemory() as memory:
                t0 = time.perf_counter()
                r = solvers[m].solve(problem, Budget(timeout=b))
                seconds = time.perf_counter() - t0
            stats = {key: value for key, value in r.stats.items() if key != "trace"}
            rows[m, b].append(dict(
                pair=[int(i), int(j)], kind=kind, atoms=[graphs[i].n, graphs[j].n],
                edges=r.num_edges, upper=r.upper_bound, optimal=r.optimal, time=seconds,
                peak_mib=memory.peak_mib, stats=json.loads(json.dumps(stats, default=str)),
            ))
        done = {m: rows[m, b][-1]["edges"] for m, b in plan}
        print(f"pair {k + 1}/{len(pairs)} {kind} {graphs[i].n}x{graphs[j].n}: {done}",
              file=sys.stderr, flush=True)
    return rows


def summarise(rows, pairs, plan, children: bool = True) -> None:
    n = len(pairs)
    best = np.zeros(n, dtype=int)
    upper = np.full(n, np.iinfo(np.int64).max)
    for r in rows.values():
        best = np.maximum(best, [x["edges"] for x in r])
        upper = np.minimum(upper, [x["upper"] for x in r])
    proven = int((best == upper).sum())
    print(f"{n} pairs ({sum(k == 'similar' for *_, k in pairs)} similar); best known proven "
          f"optimal on {proven} ({100 * proven / n:.0f}%)\n")
    print("| method | budget (s) | mean % of best known | % at best | % proven | ms per pair "
          "(mean / median) | peak MiB (median / max) |")
    print("|---|---|---|---|---|---|---|")
    for m, b in plan:
        r = rows[m, b]
        edges = np.array([x["edges"] for x in r])
        share = np.where(best > 0, edges / np.maximum(best, 1), 1.0)
        notes = sum(bool(x["stats"].get("bond_pair_limit_exceeded")) for x in r)
        tag = f" ({notes} over RASCAL's bond-pair limit)" if notes else ""
        times = np.array([x["time"] for x in r])
        peaks = np.array([x["peak_mib"] for x in r])
        print(f"| {m}{tag} | {b:g} | {100 * share.mean():.1f} | "
              f"{100 * np.mean(edges == best):.0f} | "
              f"{100 * np.mean([x['optimal'] for x in r]):.0f} | "
              f"{1000 * times.mean():.0f} / {1000 * np.median(times):.0f} | "
              f"{np.median(peaks):.1f} / {peaks.max():.1f} |")
    if children and any(m == "rascal" for m, _ in plan):
        child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"\nRASCAL's child processes: peak RSS {child:.0f} MiB (largest of the run; "
              "counts pages shared with the parent)\n")
    _versus_rascal(rows, plan)


def _versus_rascal(rows, plan) -> None:
    """Every method against RASCAL on the pairs where RASCAL timed out, budget by budget."""
    budgets = sorted({b for m, b in plan if m == "rascal"})
    lines = []
    for b in budgets:
        hit = [k for k, x in enumerate(rows["rascal", b]) if x["stats"].get("timed_out")]
        if not hit:
            continue
        base = np.array([rows["rascal", b][k]["edges"] for k in hit])
        for m, mb in plan:
            if mb != b or m == "rascal":
                continue
            edges = np.array([rows[m, b][k]["edges"] for k in hit])
            lines.append(f"| {b:g} | {len(hit)} | {m} | {edges.mean():.1f} | {base.mean():.1f} | "
                         f"{int((edges > base).sum())} / {int((edges == base).sum())} / "
                         f"{int((edges < base).sum())} |")
    if lines:
        print("Pairs where RASCAL timed out, same budget:\n")
        print("| budget (s) | pairs | method | mean edges | RASCAL's mean edges | "
              "better / equal / worse than RASCAL |")
        print("|---|---|---|---|---|---|")
        print("\n".join(lines))
    print()


def use_torch_threads(n: int) -> None:
    """Run torch (NGA) on ``n`` threads, when torch is installed."""
    try:
        import torch
    except ImportError:  # nga then says how to install it
        return
    torch.set_num_threads(n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--budgets", default="1,10", help="seconds per pair, comma-separated")
    ap.add_argument("--exact-budgets", default="60",
                    help="further budgets for the exact method only ('' for none)")
    ap.add_argument("--methods", default="exact,ga,nga,rascal")
    ap.add_argument("--min-atoms", type=int, default=31)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="write every run to this file")
    ap.add_argument("--pair-indices", metavar="I,J,...",
                    help="run only these of the chosen pairs (0-based), e.g. the hard ones")
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="summarise runs kept by --json (same pairs) instead of running")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads for nga (default 1, like every other method)")
    args = ap.parse_args()
    use_torch_threads(args.threads)
    if args.merge:
        rows = {}
        for path in args.merge:
            for key, runs in json.loads(Path(path).read_text()).items():
                m, b = key.rsplit("@", 1)
                rows[m, float(b)] = runs
        first = next(iter(rows.values()))
        pairs = [(*x["pair"], x["kind"]) for x in first]
        print(f"`python benchmarks/mces_iam.py {' '.join(sys.argv[1:])}`\n")
        summarise(rows, pairs, list(rows), children=False)
        return

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    budgets = [float(b) for b in args.budgets.split(",") if b.strip()]
    extra = [float(b) for b in args.exact_budgets.split(",") if b.strip()]
    plan = [(m, b) for m in methods for b in budgets]
    plan += [("exact", b) for b in extra if "exact" in methods and b not in budgets]
    for m in methods:
        get_method(m)  # fail on a typo before loading anything
    graphs = load_molecules(Path(args.data), args.min_atoms)
    rng = np.random.default_rng(args.seed)
    pairs = choose_pairs(graphs, args.pairs, rng)
    if args.pair_indices:
        pairs = [pairs[int(k)] for k in args.pair_indices.split(",")]
    # compile the kernels (and load any weights) once, outside the timings
    small = gedkit.Graph({0: "C", 1: "C"}, [(0, 1, 1)])
    for m in methods:
        gedkit.mces(small, small, m)
    print(f"### MCES on IAM AIDS, {len(graphs)} molecules with >= {args.min_atoms} atoms\n")
    print(f"`python benchmarks/mces_iam.py {' '.join(sys.argv[1:])}`\n")
    rows = run(graphs, pairs, plan)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {f"{m}@{b:g}": r for (m, b), r in rows.items()}, indent=1))
    summarise(rows, pairs, plan)


if __name__ == "__main__":
    main()
