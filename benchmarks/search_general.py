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
        [--queries 50] [--which 0-49] [--brute 2] [--full AIDS] [--sample 200]
        [--timeout 1] [--processes 1] [--records OLD.err ...] [--json out.json]

Each query's figures are also written to stderr as one JSON line as soon as it is done, so a
long run can be split over several (``--which 0-24``, then ``--which 25-49``, same
``--queries``: the same draw) and summed by passing the earlier runs' stderr files with
``--records`` (``--which none`` sums those alone). Prints Markdown (paste it into
benchmarks/RESULTS.md).
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


def _set_up(data: Path, name: str, n_queries: int):
    """The set's queries (random members, seed 0), the rest as a collection, its build time."""
    graphs = load_iam(data, name, *LABELS.get(name, ("*", "*")))
    rng = np.random.default_rng(0)
    picked = set(rng.choice(len(graphs), size=min(n_queries, len(graphs) // 2),
                            replace=False).tolist())
    queries = [g for i, g in enumerate(graphs) if i in picked]
    rest = [g for i, g in enumerate(graphs) if i not in picked]
    t = time.perf_counter()
    node_label, edge_label = LABELS.get(name, ("*", "*"))
    coll = gedkit.Collection(node_label=node_label, edge_label=edge_label)
    coll.add(rest, progress=False)
    return queries, rest, coll, time.perf_counter() - t


def run_queries(data: Path, name: str, n_queries: int, which: list[int], n_brute: int,
                timeout: float, full: bool, sample: int) -> tuple[list[dict], int, float]:
    """Queries ``which`` of the set, each searched and (the first ``n_brute``) brute-forced
    in this process, one after the other: a record per query, the collection's size and its
    build time."""
    queries, rest, coll, build = _set_up(data, name, n_queries)
    model = COSTS[name]
    coll.knn(queries[0], 1, costs=model, timeout=timeout, progress=False)  # kernels loaded
    records = []
    for qi in (i for i in which if i < len(queries)):
        q = queries[qi]
        rng = np.random.default_rng([1, qi])  # the brute force's sample
        rec: dict = {"query": qi, "seconds": {}, "certified": {}, "verified": {}}
        answers = {}
        for k in KS:
            t = time.perf_counter()
            r = coll.knn(q, k, costs=model, timeout=timeout, progress=False)
            rec["seconds"][f"knn{k}"] = time.perf_counter() - t
            rec["certified"][f"knn{k}"] = r.certified
            rec["verified"][f"knn{k}"] = r.stats["verified"]
            answers[k] = r
        tau = answers[10].hits[-1].distance if answers[10].hits else 0.0
        t = time.perf_counter()
        r = coll.range(q, tau, costs=model, timeout=timeout, progress=False)
        rec["seconds"]["range"] = time.perf_counter() - t
        rec["certified"]["range"] = r.certified
        rec["verified"]["range"] = r.stats["verified"]
        rec["compared"] = rec["same"] = 0
        if qi < n_brute and not full:
            picked_rest = rng.choice(len(rest), size=min(sample, len(rest)), replace=False)
            _, _, spent = brute_force(q, [rest[i] for i in picked_rest], model, timeout)
            rec["brute_s"] = spent * len(rest) / len(picked_rest)
        elif qi < n_brute:
            lower, upper, rec["brute_s"] = brute_force(q, rest, model, timeout)
            for k in KS:
                truth = certified_top(lower, upper, k)
                if truth is not None and answers[k].certified:
                    rec["compared"] += 1
                    rec["same"] += bool(np.allclose([h.distance for h in answers[k].hits],
                                                    truth))
        print(json.dumps({"set": name, **rec}), file=sys.stderr, flush=True)
        records.append(rec)
    return records, len(rest), build


def run_set(data: Path, name: str, n_queries: int, which: list[int], n_brute: int,
            timeout: float, full: bool, sample: int, processes: int = 1,
            earlier: list[dict] | None = None) -> dict | None:
    """The set's figures over its queries ``which`` and the ``earlier`` records (of other
    runs; a query run again here replaces its earlier record); with ``processes`` > 1 the
    queries are dealt out to that many processes, each timing the search and the brute force
    of its own queries (so every speed-up is still measured side by side, under the same
    load). None when there is no record at all."""
    records, graphs, build = [], None, None
    if which and processes <= 1:
        records, graphs, build = run_queries(data, name, n_queries, which, n_brute, timeout,
                                             full, sample)
    elif which:
        import multiprocessing

        parts = [which[i::processes] for i in range(processes)]
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            done = pool.starmap(run_queries, [(data, name, n_queries, part, n_brute, timeout,
                                               full, sample) for part in parts if part])
        records = [r for part in done for r in part[0]]
        graphs, build = done[0][1], done[0][2]
    fresh = {r["query"] for r in records}
    records += [r for r in earlier or () if r["query"] not in fresh]
    records.sort(key=lambda r: r["query"])
    if not records:
        return None
    if graphs is None:  # only earlier records: the collection's size from the draw
        everything = len(load_iam(data, name, *LABELS.get(name, ("*", "*"))))
        graphs = everything - min(n_queries, everything // 2)
    keys = [f"knn{k}" for k in KS] + ["range"]
    brute = [r for r in records if "brute_s" in r]
    brute_s = [r["brute_s"] for r in brute]
    return {
        "set": name, "costs": COSTS[name], "graphs": graphs, "queries": len(records),
        "build_s": build, "processes": processes,
        "median_s": {k: statistics.median(r["seconds"][k] for r in records) for k in keys},
        "certified": {k: sum(r["certified"][k] for r in records) / len(records) for k in keys},
        "verified_median": {k: statistics.median(r["verified"][k] for r in records)
                            for k in keys},
        "brute_queries": len(brute),
        "brute_median_s": statistics.median(brute_s) if brute else math.nan,
        # the speed-up on the same queries: brute force against kNN(10) of those queries
        "speedup_knn10": (sum(brute_s) / sum(r["seconds"]["knn10"] for r in brute))
        if brute else math.nan,
        # ... and query by query (a sum is the hardest query's figure)
        "speedup_per_query": sorted(r["brute_s"] / r["seconds"]["knn10"] for r in brute),
        "per_query": records,
        "identical": (f"{sum(r['same'] for r in records)}/"
                      f"{sum(r['compared'] for r in records)}") if full else "n/a (sampled)",
    }


def query_indices(text: str | None, n_queries: int) -> list[int]:
    """``--which``: a comma-separated list of query indices and ranges ``a-b`` (inclusive);
    every query of the draw when None, no query for ``none``."""
    if text is None:
        return list(range(n_queries))
    picked: set[int] = set()
    for part in filter(None, (p.strip() for p in text.split(","))):
        if part == "none":
            continue
        a, _, b = part.partition("-")
        picked.update(range(int(a), int(b or a) + 1))
    return sorted(i for i in picked if i < n_queries)


def earlier_records(paths: list[Path]) -> dict[str, list[dict]]:
    """The per-query records of earlier runs (their stderr: one JSON object per line; other
    lines skipped), by set; a query recorded twice keeps its last record."""
    by_set: dict[str, dict[int, dict]] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if not line.startswith("{"):
                continue
            rec = json.loads(line)
            if "set" in rec and "query" in rec:
                by_set.setdefault(rec.pop("set"), {})[rec["query"]] = rec
    return {name: list(recs.values()) for name, recs in by_set.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--sets", default="AIDS,Mutagenicity,Protein,GREC")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--brute", type=int, default=2)
    ap.add_argument("--full", default="AIDS", help="sets whose brute force covers everything")
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--timeout", type=float, default=1.0)
    ap.add_argument("--processes", type=int, default=1,
                    help="deal each set's queries out to this many processes (each times "
                         "both sides of its own queries)")
    ap.add_argument("--which", default=None,
                    help="the queries of the draw to run, e.g. 0-24 or 3,7,9 (default: all "
                         "of --queries; 'none': only sum --records)")
    ap.add_argument("--records", type=Path, nargs="*", default=[],
                    help="stderr files of earlier runs of the same draw: their per-query "
                         "records are summed with this run's")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    full = set(args.full.split(","))
    which = query_indices(args.which, args.queries)
    earlier = earlier_records(args.records)
    rows = [run_set(args.data, name, args.queries, which, args.brute, args.timeout,
                    name in full, args.sample, args.processes, earlier.get(name))
            for name in args.sets.split(",")]
    rows = [r for r in rows if r is not None]
    print(f"\nGeneral cost models, {args.queries} queries per set, per-pair time limit "
          f"{args.timeout:g} s, method astar\n")
    print("| set (costs) | graphs | median per query: k=1 / 5 / 10 / range (ms) | certified "
          "k=1 / 5 / 10 / range | pairs verified (median, k=10) | brute force per query (s) | "
          "speed-up at k=10 (sum) | per query: least / median | identical where both "
          "certified |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        med = " / ".join(f"{1e3 * r['median_s'][k]:.0f}" for k in ("knn1", "knn5", "knn10",
                                                                     "range"))
        cert = " / ".join(f"{100 * r['certified'][k]:.0f}%" for k in ("knn1", "knn5", "knn10",
                                                                       "range"))
        each = r["speedup_per_query"]
        per = f"{each[0]:,.0f}× / {statistics.median(each):,.0f}×" if each else "n/a"
        print(f"| {r['set']} ({r['costs']}) | {r['graphs']:,} | {med} | {cert} | "
              f"{r['verified_median']['knn10']:.0f} | {r['brute_median_s']:.1f} "
              f"({r['brute_queries']} queries) | {r['speedup_knn10']:.0f}× | {per} | "
              f"{r['identical']} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
