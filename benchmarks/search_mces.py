"""MCES similarity range search on the NCI molecules shipped with RDKit: gedkit's
``Collection.mces_range`` against RDKit's RASCAL run pair by pair, side by side in one run.

The collection is the 4,999 molecules of ``rdkit.RDConfig.RDDataDir + "/NCI/first_5K.smi"``
(those RDKit parses: 4,991), the queries ``--queries`` of them drawn with ``--seed``, the
question "every molecule whose Johnson similarity to the query is at least ``--threshold``"
(default 0.7). Both sides get the same RDKit molecule objects:

- gedkit: ``gedkit.Collection`` built once (timed apart), then
  ``coll.mces_range(query, threshold, method=..., timeout=...)`` per query: vectorised
  similarity bounds over the whole collection, pair bounds on the survivors, then the MCES
  method on what is left;
- RASCAL: ``rdRascalMCES.FindMCES(query, mol, opts)`` for every molecule, with
  ``opts.similarityThreshold = threshold`` (its own tier 1 / tier 2 screen, then its clique
  search with the threshold) and the options gedkit's ``rascal`` adapter uses to ask for a
  plain MCES (no aromatic ring completion, rings may match chains, several fragments), atoms
  matched by element as gedkit's ``atom`` label does; ``returnEmptyMCES`` so that its screen
  estimates come back, which tells the pairs it screened out from those it searched. A hit is
  a result with bonds and ``similarity >= threshold``.

For each query both run back to back (gedkit first), so a busy machine slows both alike.
Hit sets are compared per query; every molecule found by one side only is solved again
without a threshold by both (gedkit ``exact``, RASCAL threshold 0) to say why: the same edge
count with a different number of atoms touched (two maximum common subgraphs, and the
similarity counts atoms: a tie either may break), or one side's common subgraph is smaller.

Usage::

    python benchmarks/search_mces.py [--queries 50] [--seed 0] [--threshold 0.7]
        [--method exact] [--timeout 1.0] [--rascal-timeout 60] [--json out.json]

Prints a Markdown summary. Kernels are compiled (or loaded from numba's cache) before the
timed loop; RDKit and gedkit imports and parsing are not timed.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import gedkit
from gedkit.budget import PAIR_TIMEOUT


def _rdkit():
    from rdkit import Chem, RDConfig, rdBase
    from rdkit.Chem import rdRascalMCES

    return Chem, RDConfig, rdBase, rdRascalMCES


def load_molecules() -> tuple[list, int]:
    """The NCI molecules RDKit parses, and how many it could not."""
    Chem, RDConfig, rdBase, _ = _rdkit()
    path = Path(RDConfig.RDDataDir) / "NCI" / "first_5K.smi"
    mols, skipped = [], 0
    with rdBase.BlockLogs():
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            mol = Chem.MolFromSmiles(line.split()[0])
            if mol is None:
                skipped += 1
            else:
                mols.append(mol)
    return mols, skipped


def rascal_options(threshold: float, timeout: int) -> Any:
    _, _, _, rdRascalMCES = _rdkit()
    opts = rdRascalMCES.RascalOptions()
    settings = {
        "similarityThreshold": threshold,
        "completeAromaticRings": False,
        "completeSmallestRings": False,
        "ringMatchesRingOnly": False,
        "singleLargestFrag": False,
        "returnEmptyMCES": True,
        "maxBondMatchPairs": 20000,
        "timeout": timeout,
    }
    for key, value in settings.items():
        if hasattr(opts, key):  # completeSmallestRings is missing from older releases
            setattr(opts, key, value)
    return opts


def rascal_query(query, mols: list, threshold: float, opts) -> dict:
    """RASCAL on the query against every molecule: hits, pairs past its screen, time."""
    _, _, rdBase, rdRascalMCES = _rdkit()
    hits, searched, timed_out = {}, 0, 0
    t0, c0 = time.perf_counter(), time.process_time()
    with rdBase.BlockLogs():
        for i, mol in enumerate(mols):
            found = rdRascalMCES.FindMCES(query, mol, opts)
            if not found:
                continue
            best = found[0]
            if best.tier1Sim >= threshold and best.tier2Sim >= threshold:
                searched += 1
            timed_out += bool(best.timedOut)
            if best.bondMatches() and best.similarity >= threshold - 1e-9:
                hits[i] = best.similarity
    return {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0,
            "hits": hits, "searched": searched, "timed_out": timed_out}


def gedkit_query(coll, query, threshold: float, method: str, timeout: float) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    res = coll.mces_range(query, threshold, method=method, timeout=timeout, progress=False)
    return {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0,
            "hits": {h.id: h.distance for h in res.hits},
            "undecided": [h.id for h in res.undecided], "certified": res.certified,
            "candidates": res.stats["candidates"], "verified": res.stats["verified"],
            "stage_seconds": res.stats["seconds"]}


def explain(query, mol, method: str) -> dict:
    """Both sides' maximum common subgraphs of one pair, without a threshold."""
    _, _, rdBase, rdRascalMCES = _rdkit()
    r = gedkit.mces(query, mol, method="exact", timeout=60)
    opts = rascal_options(0.0, 60)
    with rdBase.BlockLogs():
        found = rdRascalMCES.FindMCES(query, mol, opts)
    best = found[0] if found else None
    return {"gedkit_edges": r.num_edges, "gedkit_optimal": r.optimal,
            "gedkit_atoms": len(r.node_map), "gedkit_similarity": r.similarity,
            "rascal_bonds": len(best.bondMatches()) if best else 0,
            "rascal_atoms": len(best.atomMatches()) if best else 0,
            "rascal_similarity": float(best.similarity) if best else 0.0}


def _cause(info: dict) -> str:
    if info["gedkit_edges"] == info["rascal_bonds"]:
        return "tie"  # equally many common edges, a different number of atoms touched
    return "rascal smaller" if info["gedkit_edges"] > info["rascal_bonds"] else "gedkit smaller"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threshold", type=float, default=0.7)
    parser.add_argument("--method", default="exact", help="gedkit's MCES method")
    parser.add_argument("--timeout", type=float, default=PAIR_TIMEOUT,
                        help="gedkit's seconds per verified pair")
    parser.add_argument("--rascal-timeout", type=int, default=60,
                        help="RASCAL's own limit per pair (whole seconds)")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args(argv)

    mols, skipped = load_molecules()
    t0 = time.perf_counter()
    coll = gedkit.Collection()
    coll.add(mols, progress=False)
    build = time.perf_counter() - t0
    gedkit.mces("CC(=O)O", "CCO", method=args.method)  # compile or load the kernels
    picked = random.Random(args.seed).sample(range(len(mols)), args.queries)
    opts = rascal_options(args.threshold, args.rascal_timeout)

    rows = []
    for n, qi in enumerate(picked, 1):
        g = gedkit_query(coll, mols[qi], args.threshold, args.method, args.timeout)
        r = rascal_query(mols[qi], mols, args.threshold, opts)
        mine, theirs = set(g["hits"]), set(r["hits"])
        diffs = {}
        for i in sorted(mine ^ theirs):
            info = explain(mols[qi], mols[i], args.method)
            info["side"] = "gedkit only" if i in mine else "rascal only"
            info["undecided_in_gedkit"] = i in g["undecided"]
            info["cause"] = _cause(info)
            diffs[i] = info
        rows.append({"query": qi, "gedkit": g, "rascal": r, "differences": diffs})
        print(f"query {n}/{len(picked)} (molecule {qi}): gedkit {g['seconds']:.2f} s, "
              f"{len(mine)} hits, {g['verified']} verified; RASCAL {r['seconds']:.2f} s, "
              f"{len(theirs)} hits, {r['searched']} searched; {len(mine ^ theirs)} differ",
              file=sys.stderr, flush=True)

    summary = _summary(rows, args, len(mols), skipped, build)
    print(summary["markdown"])
    if args.json:
        args.json.write_text(json.dumps({"settings": vars(args) | {"json": str(args.json)},
                                         "summary": {k: v for k, v in summary.items()
                                                     if k != "markdown"},
                                         "queries": rows}, default=str, indent=1))
    return summary


def _summary(rows: list[dict], args, n_mols: int, skipped: int, build: float) -> dict:
    g_sec = [row["gedkit"]["seconds"] for row in rows]
    r_sec = [row["rascal"]["seconds"] for row in rows]
    g_cpu = sum(row["gedkit"]["cpu"] for row in rows)
    r_cpu = sum(row["rascal"]["cpu"] for row in rows)
    ratios = [a / b for a, b in zip(g_sec, r_sec, strict=True) if b > 0]
    same = sum(not row["differences"] for row in rows)
    both = sum(len(set(row["gedkit"]["hits"]) & set(row["rascal"]["hits"])) for row in rows)
    diffs = [d for row in rows for d in row["differences"].values()]
    causes: dict[str, int] = {}
    for d in diffs:
        key = f"{d['side']}, {d['cause']}" + (", undecided" if d["undecided_in_gedkit"] else "")
        causes[key] = causes.get(key, 0) + 1
    stages: dict[str, int] = {}
    for row in rows:
        for stage, count in row["gedkit"]["candidates"].items():
            stages[stage] = stages.get(stage, 0) + count
    g_hits = sum(len(row["gedkit"]["hits"]) for row in rows)
    r_hits = sum(len(row["rascal"]["hits"]) for row in rows)
    g_ver = [row["gedkit"]["verified"] for row in rows]
    r_ver = [row["rascal"]["searched"] for row in rows]
    undecided = sum(len(row["gedkit"]["undecided"]) for row in rows)
    pairs = len(rows) * n_mols
    med = statistics.median
    lines = [
        f"MCES range search, NCI {n_mols} molecules ({skipped} RDKit cannot parse left out), "
        f"{len(rows)} queries (seed {args.seed}), similarity >= {args.threshold:g}; gedkit "
        f"method {args.method!r}, {args.timeout:g} s per pair; RASCAL timeout "
        f"{args.rascal_timeout} s; {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}, gedkit collection built in {build:.1f} s.",
        "",
        "| | gedkit `mces_range` | RASCAL pair by pair |",
        "|---|---|---|",
        f"| total wall s | {sum(g_sec):.1f} | {sum(r_sec):.1f} |",
        f"| total CPU s | {g_cpu:.1f} | {r_cpu:.1f} |",
        f"| median s per query | {med(g_sec):.3f} | {med(r_sec):.3f} |",
        f"| pairs solved (of {pairs:,}) | {sum(g_ver):,} | {sum(r_ver):,} (past its screen) |",
        f"| median pairs solved per query | {med(g_ver):g} | {med(r_ver):g} |",
        f"| hits | {g_hits} (+{undecided} undecided) | {r_hits} |",
        "",
        f"gedkit / RASCAL wall time: {sum(g_sec) / max(sum(r_sec), 1e-12):.2f} in total, "
        f"median per query {med(ratios):.2f}. gedkit's candidates per stage (summed over "
        f"queries): " + ", ".join(f"{k} {v:,}" for k, v in stages.items()) + ".",
        f"Identical hit sets in {same} of {len(rows)} queries; {both} hits found by both; "
        f"differences: " + ("; ".join(f"{v} × ({k})" for k, v in sorted(causes.items()))
                            or "none") + ".",
    ]
    return {"markdown": "\n".join(lines), "gedkit_seconds": sum(g_sec),
            "rascal_seconds": sum(r_sec), "gedkit_median": med(g_sec),
            "rascal_median": med(r_sec), "ratio_total": sum(g_sec) / max(sum(r_sec), 1e-12),
            "ratio_median": med(ratios), "gedkit_solved": sum(g_ver),
            "rascal_searched": sum(r_ver), "same_sets": same, "both": both,
            "gedkit_hits": g_hits, "rascal_hits": r_hits, "undecided": undecided,
            "causes": causes, "stages": stages, "gedkit_cpu": g_cpu, "rascal_cpu": r_cpu}


if __name__ == "__main__":
    main()
