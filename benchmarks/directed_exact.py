"""Exact GED on random directed graphs: gedkit's exact methods against NetworkX's exact
``graph_edit_distance`` on the same ``DiGraph`` pairs (unit costs, labels matched).

Usage::

    python benchmarks/directed_exact.py [--pairs 20] [--nodes 7] [--seed 0]

Prints one Markdown table row per method: pairs, answers equal to NetworkX's, median and
total time.
"""

from __future__ import annotations

import argparse
import time

import networkx as nx
import numpy as np

import gedkit
from gedkit.testing.generate import random_graph


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--nodes", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    pairs = [tuple(random_graph(rng, args.nodes, p=0.3, directed=True, node_values="AB",
                                edge_values="xy").to_networkx() for _ in range(2))
             for _ in range(args.pairs)]
    gedkit.ged(*pairs[0], method="exact", node_label="label", edge_label="label")  # warm

    def same(a, b) -> bool:
        return a.get("label") == b.get("label")

    answers, times = {}, {}
    t0 = time.perf_counter()
    for name in ("networkx", "exact", "dfs", "mip", "auto"):
        answers[name], times[name] = [], []
        for g1, g2 in pairs:
            t = time.perf_counter()
            if name == "networkx":
                value = nx.graph_edit_distance(g1, g2, node_match=same, edge_match=same)
            else:
                r = gedkit.ged(g1, g2, method=name, node_label="label", edge_label="label")
                assert r.optimal
                value = r.distance
            times[name].append(time.perf_counter() - t)
            answers[name].append(value)
    print(f"{args.pairs} random directed pairs of {args.nodes} nodes (arc probability 0.3, "
          f"2 node and 2 arc labels, unit costs), {time.perf_counter() - t0:.0f} s in all\n")
    print("| method | equal to NetworkX | median time | total |")
    print("|---|---|---|---|")
    for name in answers:
        equal = sum(a == b for a, b in zip(answers[name], answers["networkx"], strict=True))
        print(f"| {name} | {equal}/{args.pairs} | {np.median(times[name]) * 1e3:.1f} ms "
              f"| {sum(times[name]):.2f} s |")


if __name__ == "__main__":
    main()
