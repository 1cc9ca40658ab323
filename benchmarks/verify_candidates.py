"""The range search's verification kernel alone, this checkout against another, taking turns.

A range search spends its time from τ = 5 on in :func:`gedkit._kernels.batch.verify_many`;
whole-search timings move by ±20% on a shared machine, more than a kernel change does. This
captures, once, every (query, candidate) pair that the range search of the 100 Chang-AIDS
queries sends to the kernel (collections as ``search_peer.py`` builds them: NCI 5K, IAM AIDS,
IAM Mutagenicity, kekulized molecules, unit costs), then replays them through ``verify_many``
alone, in one call per τ with no share limit (every pair searched to the end), in a fresh
process per side and round, the two sides taking turns. It reports per τ the median seconds of
each side, their ratio, the search work (the kernel's operation estimate: equal work means the
same search, faster or slower), and whether every pair got the same verdict (within τ or
beyond it; the bounds themselves may differ, as a pair stops at its first map within τ).
Usage::

    python benchmarks/verify_candidates.py [--baseline DIR] [--collections nci]
        [--taus 5,7] [--rounds 3] [--data ../shared/data]

``DIR`` is another checkout (``git worktree add DIR COMMIT``) whose ``verify_many`` takes the
same arguments. Without it, only this checkout is timed. Each side compiles into its own
numba cache (its ``__pycache__`` folders) on its first run, outside the timings.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _iam import DEFAULT_DATA

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def capture(collection: str, tau: float, data: Path, queries: list) -> dict:
    """The pairs ``coll.range(queries=..., tau=tau)`` verifies in the batch kernel, with the
    cost arrays and settings of its first call."""
    from search_peer import load_collection

    import gedkit
    import gedkit._kernels.batch as kernel

    graphs, _ = load_collection(collection, data, 100_000)
    coll = gedkit.Collection()
    coll.add(graphs, progress=False)
    pairs: list = []
    settings: list = []
    real = kernel.verify_many

    def spy(queries_, query_at, flat, offsets, first, last, costs, step, buffers, out):
        for c in range(first, last):
            q, o = query_at[c], offsets[c]
            pairs.append((queries_[q:q + 2 + queries_[q] + 3 * queries_[q + 1]].copy(),
                          flat[o:o + 2 + flat[o] + 3 * flat[o + 1]].copy()))
        if not settings:  # by field name: checkouts' BatchSettings differ in fields
            from gedkit._kernels.bundles import BatchSettings

            settings.append((tuple(np.asarray(a).copy() for a in costs),
                             dict(zip(BatchSettings._fields, step, strict=True))))
        return real(queries_, query_at, flat, offsets, first, last, costs, step, buffers, out)

    kernel.verify_many = spy
    try:
        coll.range(queries=queries, tau=tau, progress=False, timeout=None)
    finally:
        kernel.verify_many = real
    costs, step = settings[0] if settings else (None, None)
    return {"pairs": pairs, "costs": costs, "settings": step}


def replay(path: str) -> None:
    """One side, one round: every captured pair of each τ in one kernel call (after one
    untimed call that loads the kernels); prints JSON per τ."""
    from gedkit._kernels.batch import verify_many
    from gedkit._kernels.bundles import BatchSettings
    from gedkit.search.batch import _frontier

    with open(path, "rb") as f:
        captured = pickle.load(f)
    report = {}
    for key, run in captured.items():
        if not run["pairs"]:
            continue
        q_records, at, query_at = [], {}, []
        for q, _ in run["pairs"]:
            k = q.tobytes()
            if k not in at:
                at[k] = sum(len(r) for r in q_records)
                q_records.append(q)
            query_at.append(at[k])
        queries = np.concatenate(q_records).astype(np.int32)
        query_at = np.array(query_at, dtype=np.int64)
        records = [g for _, g in run["pairs"]]
        offsets = np.zeros(len(records), dtype=np.int64)
        np.cumsum([len(r) for r in records[:-1]], out=offsets[1:])
        flat = np.concatenate(records).astype(np.int32)
        n = len(records)
        given = {"depth_first": False, **run["settings"]}  # (a field since session 25)
        step = BatchSettings(**{f: given[f] for f in BatchSettings._fields})
        step = step._replace(max_ops=1e15, skip_ops=1e15)
        largest = max(int(q[0]) for q in q_records)
        frontier = tuple(_frontier(max(largest, max(int(r[0]) for r in records))))
        times, ops = [], 0.0
        for timed in (False, True):
            lower, upper = np.zeros(n), np.full(n, np.inf)
            status = np.zeros(n, dtype=np.int8)
            tick = time.perf_counter()
            ops = verify_many(queries, query_at, flat, offsets, 0, n, run["costs"],
                              tuple(step), frontier, (lower, upper, status))
            if timed:
                times.append(time.perf_counter() - tick)
        # the decision per pair (a map within τ, proven beyond τ, undecided): the bounds
        # themselves may differ, as a pair stops at its first map within τ
        within = upper <= step.cutoff + step.tol
        beyond = lower > step.cutoff + step.tol
        verdicts = np.where(within, 1, np.where(beyond, 0, 2))
        report[key] = {"seconds": times[0], "ops": float(ops), "pairs": n,
                       "verdicts": verdicts.tolist()}
    print(json.dumps(report))


def side(checkout: Path, path: str) -> dict:
    env = {**os.environ, "PYTHONPATH": f"{checkout}{os.pathsep}{HERE}"}
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--replay", path],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="another checkout, timed in turns")
    ap.add_argument("--collections", default="nci", help="nci, aids, mutagenicity")
    ap.add_argument("--taus", default="5,7")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--replay", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.replay:
        replay(args.replay)
        return
    sys.path.insert(0, str(HERE))
    from search_peer import QUERY_FILE, normalised

    import gedkit

    raw = gedkit.read_all(args.data / QUERY_FILE)[: args.queries]
    queries = [normalised(q, q.name or str(k)) for k, q in enumerate(raw)]
    captured = {f"{c} τ={t}": capture(c, float(t), args.data, queries)
                for c in args.collections.split(",") for t in args.taus.split(",")}
    sides = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    with tempfile.NamedTemporaryFile(suffix=".pkl", delete=False) as f:
        pickle.dump(captured, f)
    try:
        for where in sides.values():
            side(where, f.name)  # compile or load the kernels, untimed
        rounds = []
        for r in range(args.rounds):
            order = list(sides.items()) if r % 2 == 0 else list(sides.items())[::-1]
            rounds.append({name: side(where, f.name) for name, where in order})
    finally:
        os.unlink(f.name)
    baseline = f" --baseline {args.baseline}" if args.baseline else ""
    print(f"`python benchmarks/verify_candidates.py{baseline} --collections {args.collections} "
          f"--taus {args.taus} --rounds {args.rounds}`\n")
    names = list(sides)
    head = " | ".join(f"{n}: median s" for n in names)
    print(f"| candidates | pairs | {head} | " + ("this / baseline | work this / baseline | same "
                                                 "verdicts |" if len(names) > 1 else ""))
    print("|---|---:|" + "---:|" * len(names) + ("---:|---:|:---:|" if len(names) > 1 else ""))
    for key in captured:
        if not captured[key]["pairs"]:
            continue
        med = {n: statistics.median(r[n][key]["seconds"] for r in rounds) for n in names}
        cells = " | ".join(f"{med[n]:.3f}" for n in names)
        line = f"| {key} | {rounds[0][names[0]][key]['pairs']:,} | {cells} |"
        if len(names) > 1:
            ops = rounds[0]["this"][key]["ops"] / max(rounds[0]["baseline"][key]["ops"], 1.0)
            same = rounds[0]["this"][key]["verdicts"] == rounds[0]["baseline"][key]["verdicts"]
            ratio = med["this"] / med["baseline"]
            line += f" {ratio:.2f} | {ops:.3f} | {'yes' if same else 'NO'} |"
        print(line)


if __name__ == "__main__":
    main()
