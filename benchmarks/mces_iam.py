"""MCES methods side by side on IAM AIDS molecules with more than 30 atoms.

Atoms are labelled by element symbol, bonds by valence. Half the pairs are random, half
similar (each drawn molecule with the other one of closest atom-label histogram). Every method
runs on every pair at every budget; a pair's *best known* edge count is the largest any run
reached (exact when some run proved it). Per method and budget it prints the mean edge count
as a percentage of the best known, the share of pairs at the best known, the share proven
optimal and the mean time per pair. Usage::

    python benchmarks/mces_iam.py [--data ../shared/data] [--pairs 40] [--budgets 0.1,1,10]
        [--methods exact,ga,rascal,auto] [--min-atoms 31] [--seed 0]

Prints a Markdown table (paste it into benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
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


def run(graphs, pairs, methods, budgets) -> dict:
    """``rows[(method, budget)]`` = one dict per pair."""
    rows = {(m, b): [] for m in methods for b in budgets}
    for i, j, kind in pairs:
        problem = MCESProblem(graphs[i], graphs[j])
        for m in methods:
            solver = get_method(m)
            for b in budgets:
                t0 = time.perf_counter()
                r = solver.solve(problem, Budget(timeout=b))
                rows[m, b].append(dict(
                    kind=kind, edges=r.num_edges, upper=r.upper_bound, optimal=r.optimal,
                    time=time.perf_counter() - t0, stats=r.stats,
                ))
    return rows


def summarise(rows, pairs, methods, budgets) -> None:
    n = len(pairs)
    best = np.zeros(n, dtype=int)
    upper = np.full(n, np.iinfo(np.int64).max)
    for r in rows.values():
        best = np.maximum(best, [x["edges"] for x in r])
        upper = np.minimum(upper, [x["upper"] for x in r])
    proven = int((best == upper).sum())
    print(f"{n} pairs ({sum(k == 'similar' for *_, k in pairs)} similar); best known proven "
          f"optimal on {proven}\n")
    print("| method | budget (s) | mean % of best known | % at best | % proven | ms per pair |")
    print("|---|---|---|---|---|---|")
    for m in methods:
        for b in budgets:
            r = rows[m, b]
            edges = np.array([x["edges"] for x in r])
            share = np.where(best > 0, edges / np.maximum(best, 1), 1.0)
            notes = sum(bool(x["stats"].get("bond_pair_limit_exceeded")) for x in r)
            tag = f" ({notes} over RASCAL's bond-pair limit)" if notes else ""
            print(f"| {m}{tag} | {b:g} | {100 * share.mean():.1f} | "
                  f"{100 * np.mean(edges == best):.0f} | "
                  f"{100 * np.mean([x['optimal'] for x in r]):.0f} | "
                  f"{1000 * np.mean([x['time'] for x in r]):.0f} |")
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--budgets", default="0.1,1,10", help="seconds per pair, comma-separated")
    ap.add_argument("--methods", default="exact,ga,rascal,auto")
    ap.add_argument("--min-atoms", type=int, default=31)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    budgets = [float(b) for b in args.budgets.split(",")]
    for m in methods:
        get_method(m)  # fail on a typo before loading anything
    graphs = load_molecules(Path(args.data), args.min_atoms)
    rng = np.random.default_rng(args.seed)
    pairs = choose_pairs(graphs, args.pairs, rng)
    # compile the kernels once, outside the timings
    small = gedkit.Graph({0: "C", 1: "C"}, [(0, 1, 1)])
    for m in methods:
        gedkit.mces(small, small, m)
    print(f"### MCES on IAM AIDS, {len(graphs)} molecules with >= {args.min_atoms} atoms\n")
    summarise(run(graphs, pairs, methods, budgets), pairs, methods, budgets)


if __name__ == "__main__":
    main()
