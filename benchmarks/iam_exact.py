"""Exact GED on IAM AIDS molecules of 11–20 and 21–30 atoms, within a time limit per pair.

Uniform costs on atom symbol and bond valence. Half of each bin's pairs are random (mostly
dissimilar molecules), half are similar (each drawn graph paired with the bin's graph of the
closest atom-label histogram and size). For every pair: proven optimal or not, time, bounds.
Then the hardest pairs again under a memory cap, to show what the cap does. Usage::

    python benchmarks/iam_exact.py [--data ../shared/data] [--pairs 100] [--timeout 10]
        [--plot benchmarks/iam_exact.png]

Prints a Markdown summary (paste it into benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import resource
import time
from collections import Counter
from pathlib import Path

import numpy as np
from _iam import DEFAULT_DATA, load_iam

import gedkit
from gedkit.solvers import Budget, get_solver

BINS = ((11, 20), (21, 30))


def choose_pairs(graphs, lo, hi, count, rng) -> list[tuple[int, int, str]]:
    idx = [i for i, g in enumerate(graphs) if lo <= g.n <= hi]
    hist = [Counter(graphs[i].node_labels) for i in idx]
    pairs = []
    for k in range(count):
        a = int(rng.integers(len(idx)))
        if k % 2 == 0:
            b = int(rng.integers(len(idx) - 1))
            b += b >= a
            pairs.append((idx[a], idx[b], "random"))
        else:
            # the most similar other graph by label histogram and size: a cheap proxy for GED
            dist = [
                sum(((hist[a] - hist[c]) + (hist[c] - hist[a])).values()) if c != a else 10**9
                for c in range(len(idx))
            ]
            pairs.append((idx[a], idx[int(np.argmin(dist))], "similar"))
    return pairs


def run_bin(graphs, pairs, timeout):
    model = gedkit.costs.uniform()
    solver = get_solver("exact")
    rows = []
    for i, j, kind in pairs:
        problem = model.compile(graphs[i], graphs[j])
        t0 = time.perf_counter()
        r = solver.solve(problem, Budget(timeout=timeout))
        rows.append(dict(
            n1=graphs[i].n, n2=graphs[j].n, kind=kind, time=time.perf_counter() - t0,
            lb=r.lower_bound, ub=r.upper_bound, optimal=r.optimal,
            peak=r.stats["peak_bytes"], expanded=r.stats["expanded"], i=i, j=j,
        ))
    return rows


def summarise(label, rows, timeout):
    opt = np.array([r["optimal"] for r in rows])
    times = np.array([r["time"] for r in rows])
    print(f"### {label} atoms: {len(rows)} pairs, {timeout:g} s each\n")
    print("| pairs | proven optimal | median time (s) | mean certified gap |")
    print("|---|---|---|---|")
    for kind in ("all", "random", "similar"):
        sel = np.array([kind in ("all", r["kind"]) for r in rows])
        gaps = [(r["ub"] - r["lb"]) / r["ub"] for r, s in zip(rows, sel, strict=True)
                if s and r["ub"] > 0]
        print(f"| {kind} | {opt[sel].mean():.0%} ({opt[sel].sum()}/{sel.sum()}) | "
              f"{np.median(times[sel]):.3f} | {np.mean(gaps):.1%} |")
    print("\nBy exact distance (proven pairs) and by size n1+n2 (all pairs):\n")
    print("| bucket | pairs | proven | median time (s) |\n|---|---|---|---|")
    for lo, top in ((0, 5), (6, 10), (11, 15), (16, 20), (21, 99)):
        sel = [r for r in rows if r["optimal"] and lo <= r["ub"] <= top]
        if sel:
            print(f"| GED {lo}–{top} | {len(sel)} | {len(sel)} | "
                  f"{np.median([r['time'] for r in sel]):.3f} |")
    for lo in range(20, 62, 8):
        sel = [r for r in rows if lo <= r["n1"] + r["n2"] < lo + 8]
        if sel:
            print(f"| size {lo}–{lo + 7} | {len(sel)} | {sum(r['optimal'] for r in sel)} | "
                  f"{np.median([r['time'] for r in sel]):.3f} |")
    print()


def memory_report(graphs, rows, timeout, hardest=5):
    """The hardest pairs again: default cap, a 64 MiB cap, and depth-first search."""
    model = gedkit.costs.uniform()
    worst = sorted(rows, key=lambda r: (r["optimal"], -r["time"]))[:hardest]
    print(f"### Memory on the {hardest} hardest pairs ({timeout:g} s each)\n")
    print("| pair (n1, n2) | method | frontier peak | proven | lower–upper |")
    print("|---|---|---|---|---|")
    for r in worst:
        problem = model.compile(graphs[r["i"]], graphs[r["j"]])
        for name, opts in (("astar", {}), ("astar", {"memory": 64 << 20}), ("dfs", {})):
            res = get_solver(name, **opts).solve(problem, Budget(timeout=timeout))
            tag = name + (" (64 MiB cap)" if opts else "")
            if res.stats.get("memory_cap_hit"):
                tag += ", cap hit → depth-first"
            print(f"| ({r['n1']}, {r['n2']}) | {tag} | {res.stats['peak_bytes'] / 2**20:.1f} MiB | "
                  f"{'yes' if res.optimal else 'no'} | {res.lower_bound:g}–{res.upper_bound:g} |")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nPeak resident memory of the whole benchmark process: {rss:.0f} MiB\n")


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for k, rows in enumerate(results.values()):
        d = [r["ub"] for r in rows]
        t = [r["time"] for r in rows]
        s = [r["n1"] + r["n2"] for r in rows]
        mark = ["o" if r["optimal"] else "x" for r in rows]
        for x, y, z, m in zip(d, t, s, mark, strict=True):
            axes[0].scatter(x, y, marker=m, c=f"C{k}", s=18)
            axes[1].scatter(z, y, marker=m, c=f"C{k}", s=18)
    for ax, xl in zip(axes, ("GED (upper bound; x = not proven)", "n1 + n2"), strict=True):
        ax.set_yscale("log")
        ax.set_xlabel(xl)
        ax.set_ylabel("seconds")
    axes[0].set_title("time vs distance (blue 11–20, orange 21–30 atoms)")
    axes[1].set_title("time vs size")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--plot", type=Path, default=None)
    args = ap.parse_args()

    graphs = load_iam(args.data, "AIDS", node_label="symbol", edge_label="valence")
    rng = np.random.default_rng(0)
    get_solver("exact").solve(gedkit.costs.uniform().compile(graphs[0], graphs[1]), Budget())
    results = {}
    print("## IAM AIDS, exact GED (uniform costs on atom symbol and bond valence)\n")
    for lo, hi in BINS:
        pairs = choose_pairs(graphs, lo, hi, args.pairs, rng)
        results[lo, hi] = run_bin(graphs, pairs, args.timeout)
        summarise(f"{lo}–{hi}", results[lo, hi], args.timeout)
    memory_report(graphs, results[BINS[-1]], args.timeout)
    if args.plot:
        plot(results, args.plot)
        print(f"Plot: `{args.plot}`")


if __name__ == "__main__":
    main()
