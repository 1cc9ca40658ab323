"""Bounds on random directed pairs at equal time: every gedkit method that takes arcs against
NetworkX's ``graph_edit_distance`` with the same ``timeout`` (the one peer that takes
``DiGraph`` pairs; past a few dozen nodes it returns nothing within seconds).

Usage::

    python benchmarks/directed_heuristics.py [--sizes 20,50,100,300,1000] [--pairs 3]
        [--timeout 2] [--seed 0] [--networkx-up-to 50]

Each pair: two random directed graphs of n nodes (about 3 out-arcs a node, 2 node and 2 arc
labels, unit costs), each method given ``timeout`` seconds in this one warm process. Prints
one Markdown row per size and method: the median upper bound relative to the best any
method found on the pair, the median lower bound relative to the best lower bound, how many
pairs the method had the best upper bound on, and the largest wall time over the timeout.
"""

from __future__ import annotations

import argparse
import time

import networkx as nx
import numpy as np

import gedkit
from gedkit.testing.generate import random_graph

METHODS = ("node", "branch", "star", "bp_beam", "refine", "ipfp", "mip", "exact", "auto")


def networkx_ged(g1: gedkit.Graph, g2: gedkit.Graph, timeout: float) -> float:
    """NetworkX's best answer within ``timeout`` (inf when it has none)."""
    def same(a, b) -> bool:
        return a.get("label") == b.get("label")

    value = nx.graph_edit_distance(g1.to_networkx(), g2.to_networkx(), node_match=same,
                                   edge_match=same, timeout=timeout)
    return np.inf if value is None else float(value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20,50,100,300,1000")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--networkx-up-to", type=int, default=50)
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    warm = [random_graph(rng, 6, p=0.3, directed=True) for _ in range(2)]
    for name in METHODS:
        gedkit.ged(*warm, method=name, timeout=5)
    print(f"random directed pairs, unit costs, timeout {args.timeout:g} s per method and pair, "
          f"{args.pairs} pairs per size\n")
    print("| nodes | method | median upper / best | median lower / best lower | best upper "
          "| worst wall / timeout |")
    print("|---|---|---|---|---|---|")
    for n in map(int, args.sizes.split(",")):
        rows: dict[str, list] = {}
        for _ in range(args.pairs):
            g1, g2 = (random_graph(rng, n, p=min(0.3, 3 / n), n_labels=2, directed=True)
                      for _ in range(2))
            found = {}
            for name in METHODS:
                t = time.perf_counter()
                r = gedkit.ged(g1, g2, method=name, timeout=args.timeout)
                found[name] = (r.upper_bound, r.lower_bound, time.perf_counter() - t)
            if n <= args.networkx_up_to:
                t = time.perf_counter()
                found["networkx"] = (networkx_ged(g1, g2, args.timeout), 0.0,
                                     time.perf_counter() - t)
            best = min(v[0] for v in found.values())
            best_lower = max(v[1] for v in found.values())
            for name, (upper, lower, wall) in found.items():
                rows.setdefault(name, []).append(
                    (upper / best if best else 1.0, lower / best_lower if best_lower else 1.0,
                     upper <= best, wall / args.timeout))
        for name, values in rows.items():
            up, low, won, wall = zip(*values, strict=True)
            lower = "-" if name == "networkx" else f"{np.median(low):.3f}"
            print(f"| {n} | {name} | {np.median(up):.3f} | {lower} | {sum(won)}/{len(won)} "
                  f"| {max(wall):.2f} |")


if __name__ == "__main__":
    main()
