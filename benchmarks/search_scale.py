"""How a collection scales: MOSES molecules from 10 k to 1.58 M (issue 13).

For each size: build a collection file from the first N molecules of
``shared/data/MOSES/train.csv.gz`` (atom symbol, bond order kekulized, as the search benchmark
against the C++ peer), its file size, the time to open it and load its signatures (a fresh
process), the first filter stage's throughput (graphs screened per second, one core: the size
index and the label bounds of the graphs whose sizes fit τ; and, for reference, the label bound of
every graph without a threshold), and range
queries at τ = 3 with the 100 AIDS queries of ``shared/data/Chang-AIDS-query100`` (time per
query, candidates, matches). Usage::

    python benchmarks/search_scale.py [--sizes 10000,100000,1584663] [--queries 100] \\
        [--folder /tmp/gedkit-scale] [--keep]

Prints Markdown (paste it into benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _iam import DEFAULT_DATA

import gedkit

OPEN_CHILD = """
import json, sys, time
t = time.perf_counter()
import gedkit
coll = gedkit.Collection.open(sys.argv[1])
n = len(coll)
print(json.dumps({"open": time.perf_counter() - t, "graphs": n}))
"""


def molecules(data: Path, count: int):
    """The first ``count`` MOSES molecules RDKit parses, kekulized (skipped ones counted)."""
    from rdkit import Chem, rdBase

    from gedkit.io.chem import from_rdkit

    skipped = 0
    made = 0
    with gzip.open(data / "MOSES" / "train.csv.gz", "rt") as f:
        next(f)
        with rdBase.BlockLogs():
            for k, line in enumerate(f):
                if made == count:
                    break
                mol = Chem.MolFromSmiles(line.strip())
                if mol is None:
                    skipped += 1
                    continue
                made += 1
                yield from_rdkit(mol, edge_label="kekule", name=f"moses{k}")
    if skipped:
        print(f"{skipped} molecules RDKit could not read were skipped", file=sys.stderr)


def moses_file(data: Path, size: int, folder: Path, rebuild: bool = False) -> Path:
    """The collection file of the first ``size`` MOSES molecules (:func:`molecules`) in
    ``folder``, built when it is not there or ``rebuild`` (the one this script, and
    ``search_cluster.py`` and ``search_query_timeout.py``, search)."""
    path = folder / f"moses-{size}.gdb"
    if rebuild or not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        # the labels recorded, so that a SMILES query is read kekulized too
        with gedkit.Collection.create(path, node_label="atom", edge_label="kekule",
                                      overwrite=True) as coll:
            coll.add(molecules(data, size))
    return path


def chang_queries(data: Path, count: int) -> list:
    """The first ``count`` of the 100 AIDS query graphs of Chang et al."""
    return gedkit.read_all(data / "Chang-AIDS-query100" / "AIDS_query100.txt")[:count]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--sizes", default="10000,100000,1584663")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--tau", type=float, default=3.0)
    ap.add_argument("--folder", type=Path, default=Path("/tmp/gedkit-scale"))
    ap.add_argument("--reuse", action="store_true", help="reuse collection files already built")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    queries = chang_queries(args.data, args.queries)
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        rebuild = not (args.reuse and (args.folder / f"moses-{size}.gdb").exists())
        t = time.perf_counter()
        path = moses_file(args.data, size, args.folder, rebuild=rebuild)
        build = time.perf_counter() - t if rebuild else None
        opened = [json.loads(subprocess.run([sys.executable, "-c", OPEN_CHILD, str(path)],
                                            capture_output=True, text=True, check=True
                                            ).stdout) for _ in range(3)]
        coll = gedkit.Collection.open(path)
        coll.range(queries[0], args.tau, progress=False)  # kernels loaded
        from gedkit.search.filters import GedFilter

        sig = coll._signatures_by_size()
        stage, every = [], []
        for q in queries[:20]:
            filt = GedFilter(gedkit.costs.uniform(), q, coll._store.vocab)
            t = time.perf_counter()
            filt.within(sig, args.tau)  # the first stage: the size index, then the window
            stage.append(time.perf_counter() - t)
            t = time.perf_counter()
            filt.stages[0][1](sig, None)  # the label bound of every graph, no threshold
            every.append(time.perf_counter() - t)
        per_query, candidates, matches = [], 0, 0
        t_all = time.perf_counter()
        for q in queries:
            t = time.perf_counter()
            r = coll.range(q, args.tau, progress=False)
            per_query.append(time.perf_counter() - t)
            candidates += r.stats["verified"]
            matches += len(r.hits)
        total = time.perf_counter() - t_all
        rows.append({
            "graphs": len(coll), "build_s": build, "file_mb": path.stat().st_size / 2**20,
            "open_s": statistics.median(o["open"] for o in opened),
            "stage1_graphs_per_s": len(sig) / statistics.median(stage),
            "labels_graphs_per_s": len(sig) / statistics.median(every),
            "query_median_s": statistics.median(per_query), "queries_total_s": total,
            "candidates": candidates, "matches": matches,
        })
        coll.close()
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(f"\nMOSES collections, τ = {args.tau:g}, {len(queries)} AIDS queries, unit costs\n")
    print("| graphs | build (s) | build (µs/graph) | file (MB) | open (s) | stage 1 "
          "(M graphs/s) | label bound, every graph (M graphs/s) | query median (ms) | "
          "all queries (s) | candidates | matches |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        build = "reused" if r["build_s"] is None else f"{r['build_s']:.1f}"
        per = "" if r["build_s"] is None else f"{1e6 * r['build_s'] / r['graphs']:.0f}"
        print(f"| {r['graphs']:,} | {build} | {per} | {r['file_mb']:.0f} | {r['open_s']:.2f} | "
              f"{r['stage1_graphs_per_s'] / 1e6:.1f} | {r['labels_graphs_per_s'] / 1e6:.1f} | "
              f"{1e3 * r['query_median_s']:.1f} | "
              f"{r['queries_total_s']:.2f} | {r['candidates']:,} | {r['matches']:,} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
