"""k-nearest-neighbour search by GED under unit costs, this checkout against another, side by side.

No peer answers kNN queries, so the yardstick is gedkit itself at another commit (``--baseline
DIR``: a checkout of it, e.g. made with ``git worktree add /tmp/base COMMIT``), run in a child
process on exactly the same collection and queries, the two taking the queries in turn (one
query on each, then the next) so that load on the machine hits both alike. Without
``--baseline`` only this checkout runs.

Collection: the NCI molecules shipped with RDKit (``NCI/first_5K.smi``) or IAM AIDS; queries:
the AIDS query graphs of Chang et al. (``shared/data/Chang-AIDS-query100``), as in
``search_peer.py`` (same normalisation). Per query: ``coll.knn(q, k)`` with the default time
limit per verified pair. Reported per k: median and total time per query, certified share,
graphs verified (median), and whether both sides give the same distances where both certify.
Usage::

    python benchmarks/search_knn.py [--collection nci|aids] [--queries 20] [--ks 1,10]
        [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _iam import DEFAULT_DATA
from search_peer import QUERY_FILE, load_collection, normalised

HERE = Path(__file__).resolve().parent


def _serve(collection: str, data: Path, n_queries: int) -> None:
    """Child mode: build the collection, then answer ``k index`` lines with one JSON line."""
    import gedkit

    graphs, _ = load_collection(collection, data, 0)
    raw = gedkit.read_all(data / QUERY_FILE)[:n_queries]
    queries = [normalised(q, q.name or str(k)) for k, q in enumerate(raw)]
    coll = gedkit.Collection()
    coll.add(graphs, progress=False)
    coll.knn(queries[0], 1, progress=False)  # kernels loaded, signatures read
    print(json.dumps({"ready": gedkit.__file__}), flush=True)
    for line in sys.stdin:
        k, i = map(int, line.split())
        t, cpu = time.perf_counter(), time.process_time()
        r = coll.knn(queries[i], k, progress=False)
        print(json.dumps({"seconds": time.perf_counter() - t, "cpu": time.process_time() - cpu,
                          "certified": r.certified, "verified": r.stats.get("verified", 0),
                          "distances": [h.distance for h in r.hits]}), flush=True)


def _start(root: Path, args) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(root))
    cmd = [sys.executable, str(HERE / "search_knn.py"), "--serve", "--collection",
           args.collection, "--data", str(args.data), "--queries", str(args.queries)]
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env=env, cwd=HERE)
    ready = json.loads(child.stdout.readline())
    print(f"side {root}: gedkit from {ready['ready']}", file=sys.stderr, flush=True)
    return child


def _ask(child: subprocess.Popen, k: int, i: int) -> dict:
    child.stdin.write(f"{k} {i}\n")
    child.stdin.flush()
    return json.loads(child.stdout.readline())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--collection", default="nci", choices=("nci", "aids"))
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--ks", default="1,10")
    ap.add_argument("--baseline", type=Path, help="another gedkit checkout to run beside")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        _serve(args.collection, args.data, args.queries)
        return
    sides = {"this": _start(HERE.parent, args)}
    if args.baseline:
        sides["baseline"] = _start(args.baseline.resolve(), args)
    ks = [int(k) for k in args.ks.split(",")]
    runs = {(side, k): [] for side in sides for k in ks}
    for k in ks:
        for i in range(args.queries):
            for side, child in sides.items():
                runs[side, k].append(_ask(child, k, i))
            print(f"k={k} query {i}: " + ", ".join(
                f"{s} {runs[s, k][-1]['seconds']:.2f}s" for s in sides), file=sys.stderr,
                flush=True)
    for child in sides.values():
        child.stdin.close()
        child.wait()
    print(f"Command: `python benchmarks/search_knn.py {shlex.join(sys.argv[1:])}`\n")
    print("| k | side | median s/query | total s | CPU s | certified | verified (median) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for k in ks:
        for side in sides:
            rs = runs[side, k]
            print(f"| {k} | {side} | {statistics.median(r['seconds'] for r in rs):.3f} | "
                  f"{sum(r['seconds'] for r in rs):.1f} | {sum(r['cpu'] for r in rs):.1f} | "
                  f"{sum(r['certified'] for r in rs)}/{len(rs)} | "
                  f"{statistics.median(r['verified'] for r in rs):.0f} |")
    if "baseline" in sides:
        for k in ks:
            pairs = list(zip(runs["this", k], runs["baseline", k], strict=True))
            both = [(a, b) for a, b in pairs if a["certified"] and b["certified"]]
            same = sum(a["distances"] == b["distances"] for a, b in both)
            ratio = [a["seconds"] / max(b["seconds"], 1e-9) for a, b in pairs]
            print(f"\nk={k}: time this/baseline per query, median {statistics.median(ratio):.2f}"
                  f" (range {min(ratio):.2f}-{max(ratio):.2f}); same distances on {same} of "
                  f"{len(both)} queries both certify")


if __name__ == "__main__":
    main()
