"""Similarity search under general cost models against brute force, side by side (issue 13).

No peer searches under these models, so the yardstick is what a user would otherwise write: the
query against every graph of the collection with ``gedkit.pairwise`` (same method, same time
limit per pair), then a sort. Sets and models: IAM AIDS and Mutagenicity under CHEM_2 (labels
``chem``/``valence``), Protein under PROTEIN and GREC under GREC_2 (every attribute). For each
set, ``--queries`` random graphs (fixed seed) are taken out of the set and searched against the
rest: kNN at k = 1, 5, 10, and a range query at τ = the query's 10th-nearest distance (about 10
hits). The brute force runs for the first ``--brute`` queries of each set, against the whole
collection on the sets of ``--full`` (answers compared), and elsewhere against ``--sample``
random graphs of it, its time scaled to the whole collection (a pair's time does not depend on
the others). Reported: time per query (median), the share of answers certified, the speed-up
over brute force at k = 10, and whether the answers are identical where both are certified.
Usage::

    python benchmarks/search_general.py [--sets AIDS,Mutagenicity,Protein,GREC]
        [--queries 50] [--brute 2] [--full AIDS] [--sample 200] [--timeout 1]

Prints Markdown (paste it into benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from _iam import DEFAULT_DATA, load_iam

import gedkit

COSTS = {"AIDS": "chem_2", "Mutagenicity": "chem_2", "Protein": "protein", "GREC": "grec_2"}
LABELS = {"AIDS": ("chem", "valence"), "Mutagenicity": ("chem", "valence")}
KS = (1, 5, 10)
TOL = 1e-9


def brute_force(query, graphs, model: str, timeout: float):
    """Bounds of the query against every graph (pairwise, one process) and the time."""
    t = time.perf_counter()
    m = gedkit.pairwise([query], graphs, costs=model, method="astar", timeout=timeout,
                        progress=False)
    return m.lower_bound[0], m.upper_bound[0], time.perf_counter() - t


def certified_top(lower, upper, k: int):
    """The brute force's k smallest distances, or None when they are not all proven."""
    order = np.argsort(upper, kind="stable")
    top = order[:k]
    kth = upper[top[-1]]
    proven = np.all(upper[top] - lower[top] <= TOL * np.maximum(1, upper[top]))
    rest = np.ones(len(upper), bool)
    rest[top] = False
    if not proven or np.any(lower[rest] < kth - TOL * max(1, kth)):
        return None
    return np.sort(upper[top])


def run_set(data: Path, name: str, n_queries: int, n_brute: int, timeout: float,
            full: bool, sample: int) -> dict:
    graphs = load_iam(data, name, *LABELS.get(name, ("*", "*")))
    rng = np.random.default_rng(0)
    picked = set(rng.choice(len(graphs), size=min(n_queries, len(graphs) // 2),
                            replace=False).tolist())
    queries = [g for i, g in enumerate(graphs) if i in picked]
    rest = [g for i, g in enumerate(graphs) if i not in picked]
    model = COSTS[name]
    t = time.perf_counter()
    node_label, edge_label = LABELS.get(name, ("*", "*"))
    coll = gedkit.Collection(node_label=node_label, edge_label=edge_label)
    coll.add(rest, progress=False)
    build = time.perf_counter() - t
    coll.knn(queries[0], 1, costs=model, timeout=timeout, progress=False)  # kernels loaded
    times: dict[str, list[float]] = {f"knn{k}": [] for k in KS}
    times["range"] = []
    certified: dict[str, int] = dict.fromkeys(times, 0)
    verified: dict[str, list[int]] = {key: [] for key in times}
    brute_times, same, compared = [], 0, 0
    for qi, q in enumerate(queries):
        answers = {}
        for k in KS:
            t = time.perf_counter()
            r = coll.knn(q, k, costs=model, timeout=timeout, progress=False)
            times[f"knn{k}"].append(time.perf_counter() - t)
            certified[f"knn{k}"] += r.certified
            verified[f"knn{k}"].append(r.stats["verified"])
            answers[k] = r
        tau = answers[10].hits[-1].distance if answers[10].hits else 0.0
        t = time.perf_counter()
        r = coll.range(q, tau, costs=model, timeout=timeout, progress=False)
        times["range"].append(time.perf_counter() - t)
        certified["range"] += r.certified
        verified["range"].append(r.stats["verified"])
        if qi < n_brute and not full:
            picked_rest = rng.choice(len(rest), size=min(sample, len(rest)), replace=False)
            _, _, spent = brute_force(q, [rest[i] for i in picked_rest], model, timeout)
            brute_times.append(spent * len(rest) / len(picked_rest))
        elif qi < n_brute:
            lower, upper, spent = brute_force(q, rest, model, timeout)
            brute_times.append(spent)
            for k in KS:
                truth = certified_top(lower, upper, k)
                if truth is not None and answers[k].certified:
                    compared += 1
                    same += bool(np.allclose([h.distance for h in answers[k].hits], truth))
        print(json.dumps({"set": name, "query": qi, **{k: v[-1] for k, v in times.items()}}),
              file=sys.stderr, flush=True)
    n_b = len(brute_times)
    return {
        "set": name, "costs": model, "graphs": len(rest), "queries": len(queries),
        "build_s": build,
        "median_s": {k: statistics.median(v) for k, v in times.items()},
        "certified": {k: v / len(queries) for k, v in certified.items()},
        "verified_median": {k: statistics.median(v) for k, v in verified.items()},
        "brute_queries": n_b,
        "brute_median_s": statistics.median(brute_times) if n_b else math.nan,
        # the speed-up on the same queries: brute force against kNN(10) of those queries
        "speedup_knn10": (sum(brute_times) / sum(times["knn10"][:n_b])) if n_b else math.nan,
        "identical": f"{same}/{compared}" if full else "n/a (sampled)",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--sets", default="AIDS,Mutagenicity,Protein,GREC")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--brute", type=int, default=2)
    ap.add_argument("--full", default="AIDS", help="sets whose brute force covers everything")
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--timeout", type=float, default=1.0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    full = set(args.full.split(","))
    rows = [run_set(args.data, name, args.queries, args.brute, args.timeout, name in full,
                    args.sample) for name in args.sets.split(",")]
    print(f"\nGeneral cost models, {args.queries} queries per set, per-pair time limit "
          f"{args.timeout:g} s, method astar\n")
    print("| set (costs) | graphs | median per query: k=1 / 5 / 10 / range (ms) | certified "
          "k=1 / 5 / 10 / range | pairs verified (median, k=10) | brute force per query (s) | "
          "speed-up at k=10 | identical where both certified |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        med = " / ".join(f"{1e3 * r['median_s'][k]:.0f}" for k in ("knn1", "knn5", "knn10",
                                                                     "range"))
        cert = " / ".join(f"{100 * r['certified'][k]:.0f}%" for k in ("knn1", "knn5", "knn10",
                                                                       "range"))
        print(f"| {r['set']} ({r['costs']}) | {r['graphs']:,} | {med} | {cert} | "
              f"{r['verified_median']['knn10']:.0f} | {r['brute_median_s']:.1f} "
              f"({r['brute_queries']} queries) | {r['speedup_knn10']:.0f}× | "
              f"{r['identical']} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
