"""GED range search against Chang et al.'s C++ peer (A*-BMao), side by side in one run.

For each collection and threshold τ, the 100 AIDS query graphs of Chang et al.'s experiments
(``shared/data/Chang-AIDS-query100``) are run as range queries "every graph within GED τ" under
unit costs (node relabel / insert / delete 1, edge relabel / insert / delete 1), labels = atom
symbol and bond order 1/2/3 (molecules kekulized: aromatic bonds as alternating 1/2, as in the
query file), by both

- the peer: github.com/LijunChang/Graph_Edit_Distance (ICDE 2020, TKDE 2022), built by hand,
  ``g++ -O3 -std=c++11 main.cpp Application.cpp -o ged``, run as
  ``ged -d DB -q QUERIES -m search -p astar -l BMao -t TAU``; its binary is taken from the
  environment variable ``GEDKIT_CHANG_GED`` (its column is left out when that is unset);
- gedkit: ``gedkit.Collection`` built once per collection, then ``coll.range(queries=...,
  tau=tau)`` answering all of them in one call (the timed part; ``--one-by-one``: one call
  per query; building, and the kernels' first compile / load on a small collection of the
  queries, are timed apart).

Both sides get exactly the same graphs: every graph is normalised once (node label = stripped
atom symbol string, edge label = integer bond order, nodes numbered 0..n-1) and that one object
is both added to the collection and written to the peer's ``t/v/e`` file.

Collections: ``nci`` (the 4,999 NCI molecules shipped with RDKit, ``NCI/first_5K.smi``), ``aids``
(IAM AIDS, 2,000 graphs, node attribute ``symbol``), ``mutagenicity`` (IAM Mutagenicity, 4,337
graphs, node attribute ``chem``; explicit hydrogens, unlike the queries), ``moses`` (the first
100,000 molecules of MOSES ``train.csv.gz``). Molecules RDKit cannot parse or kekulize are
skipped and counted. Usage::

    GEDKIT_CHANG_GED=/tmp/chang/ged python benchmarks/search_peer.py [--data ../shared/data]
        [--collections nci,aids,mutagenicity,moses] [--taus 1,3,5,7] [--queries 100]
        [--peer-only | --gedkit-only] [--peer-timeout 1800] [--gedkit-timeout 1800]
        [--pair-timeout S] [--one-by-one] [--fresh-queries] [--peer-per-query] [--repeat N]
        [--json out.json]
        [--keep DIR]

Prints a Markdown summary (paste it into benchmarks/RESULTS.md). The peer's own "Total time"
(filtering + verification over all query x graph pairs, file reading excluded) is the peer
figure; gedkit's is the wall time of its search call (the benchmark's own reading of the
answers after it is not timed). "ditto, CPU" divides gedkit's CPU time by
the peer process's (its file reading included), steadier on a busy machine. ``--json`` keeps
every figure: process wall times, per-stage candidates and seconds, per-query match counts.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import math
import os
import platform
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from _iam import DEFAULT_DATA, load_iam

import gedkit
import gedkit.errors
from gedkit.search.collection import SORT_FOR_RANGES_FROM

Skipped = dict[str, list[str]]  # reason -> names of the molecules skipped for it
PEER_ENV = "GEDKIT_CHANG_GED"
QUERY_FILE = Path("Chang-AIDS-query100") / "AIDS_query100.txt"
COLLECTIONS = ("nci", "aids", "mutagenicity", "moses")
IAM_LABELS = {"aids": ("AIDS", "symbol"), "mutagenicity": ("Mutagenicity", "chem")}
TITLES = {"nci": "NCI 5K (RDKit)", "aids": "IAM AIDS", "mutagenicity": "IAM Mutagenicity",
          "moses": "MOSES"}
PEER_OUT = re.compile(
    r"Total time: ([0-9,]+) \(microseconds\), total search space: (-?[0-9]+)\s*"
    r"#candidates: ([0-9]+), #matches: ([0-9]+)"
)


# -- the graphs both sides see ---------------------------------------------------------------

def normalised(g: gedkit.Graph, name: str) -> gedkit.Graph:
    """``g`` with nodes 0..n-1, stripped string node labels and integer edge labels."""
    nodes = {}
    for i, label in enumerate(g.node_labels):
        text = str(label).strip()
        if not text or any(c.isspace() for c in text):
            raise ValueError(f"{name}: node label {label!r} is empty or has inner whitespace")
        nodes[i] = text
    edges = []
    for (a, b), label in zip(g.edges.tolist(), g.edge_labels, strict=True):
        value = float(str(label).strip())
        if not value.is_integer():
            raise ValueError(f"{name}: edge label {label!r} is not an integer bond order")
        edges.append((a, b, int(value)))
    return gedkit.Graph(nodes, edges, name=name)


def molecules(smiles: list[str], names: list[str]) -> tuple[list[gedkit.Graph], Skipped]:
    """Kekulized RDKit molecules as graphs (atom symbol, bond order); skipped ones named."""
    from rdkit import Chem, rdBase

    from gedkit.io.chem import from_rdkit

    graphs: list[gedkit.Graph] = []
    skipped: Skipped = defaultdict(list)
    with rdBase.BlockLogs():
        for smi, name in zip(smiles, names, strict=True):
            mol = Chem.MolFromSmiles(smi)
            if mol is None:
                skipped["RDKit cannot parse"].append(name)
                continue
            try:
                Chem.Kekulize(mol, clearAromaticFlags=True)
            except Exception:  # RDKit raises KekulizeException (a ValueError) or others
                skipped["RDKit cannot kekulize"].append(name)
                continue
            if mol.GetNumAtoms() == 0:
                skipped["no atoms"].append(name)
                continue
            try:
                g = from_rdkit(mol, node_label="atom", edge_label="bond", name=name)
                graphs.append(normalised(g, name))
            except (gedkit.errors.GedkitError, ValueError) as e:
                skipped[f"not convertible ({type(e).__name__})"].append(name)
    return graphs, skipped


def load_collection(key: str, data: Path, moses_n: int) -> tuple[list[gedkit.Graph], Skipped]:
    if key == "nci":
        from rdkit import RDConfig

        path = Path(RDConfig.RDDataDir) / "NCI" / "first_5K.smi"
        rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
        return molecules([r[0] for r in rows], [r[1] if len(r) > 1 else str(k)
                                                  for k, r in enumerate(rows)])
    if key == "moses":
        with gzip.open(data / "MOSES" / "train.csv.gz", "rt") as f:
            header = f.readline().strip()
            if header != "SMILES":
                raise SystemExit(f"MOSES train.csv.gz: unexpected header {header!r}")
            smiles = []
            for line in f:
                if len(smiles) == moses_n:
                    break
                smiles.append(line.strip())
        return molecules(smiles, [str(k) for k in range(len(smiles))])
    name, attr = IAM_LABELS[key]
    raw = load_iam(data, name, node_label=attr, edge_label="valence")
    return [normalised(g, g.name or str(k)) for k, g in enumerate(raw)], {}


def connected(g: gedkit.Graph) -> bool:
    parent = list(range(g.n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in g.edges.tolist():
        parent[find(a)] = find(b)
    return len({find(x) for x in range(g.n)}) <= 1


def describe(graphs: list[gedkit.Graph], skipped: Skipped) -> dict[str, Any]:
    n = [g.n for g in graphs]
    m = [g.m for g in graphs]
    return {
        "graphs": len(graphs),
        "skipped": {reason: len(names) for reason, names in skipped.items()},
        "skipped_ids": {reason: names[:100] for reason, names in skipped.items()},
        "mean_nodes": sum(n) / len(n), "mean_edges": sum(m) / len(m),
        "max_nodes": max(n), "min_nodes": min(n), "max_edges": max(m),
        "disconnected": sum(not connected(g) for g in graphs),
        "node_labels": len({lab for g in graphs for lab in g.node_labels}),
        "edge_labels": dict(sorted(Counter(lab for g in graphs for lab in g.edge_labels).items())),
    }


def write_tve(graphs: list[gedkit.Graph], path: Path) -> None:
    """The peer's format: ``t # ID``, ``v I LABEL`` (I = 0..n-1 in order), ``e U V LABEL``.

    The peer checks nothing (its asserts are compiled out): ids must be consecutive from 0,
    each edge written once, labels one whitespace-free token, no blank lines, no end marker.
    """
    with open(path, "w") as f:
        for k, g in enumerate(graphs):
            f.write(f"t # {k}\n")
            f.writelines(f"v {i} {lab}\n" for i, lab in enumerate(g.node_labels))
            f.writelines(f"e {a} {b} {lab}\n"
                         for (a, b), lab in zip(g.edges.tolist(), g.edge_labels, strict=True))


# -- the two sides ---------------------------------------------------------------------------

def run_peer(binary: str, db: Path, queries: Path, tau: int, timeout: float,
             per_query: int = 0) -> dict[str, Any]:
    """One peer process: all queries against all graphs at threshold ``tau``.

    With ``per_query`` (the number of queries), ``-g`` makes the peer print, per query, the
    verified distance (or a value above ``tau``) of every candidate: that gives per-query match
    counts, at the price of the printing inside its timer.
    """
    cmd = [binary, "-d", str(db), "-q", str(queries), "-m", "search", "-p", "astar",
           "-l", "BMao", "-t", str(tau)] + (["-g"] if per_query else [])
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "timeout_s": timeout, "command": shlex.join(cmd)}
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    found = PEER_OUT.search(done.stdout)
    if done.returncode != 0 or found is None:
        return {"status": f"failed (exit {done.returncode})", "wall_s": wall,
                "stdout_tail": done.stdout[-2000:], "command": shlex.join(cmd)}
    out = {
        "status": "ok",
        "seconds": int(found[1].replace(",", "")) / 1e6,
        "search_space": int(found[2]),
        "candidates": int(found[3]),
        "matches": int(found[4]),
        "wall_s": wall,
        "cpu_s": cpu,  # the whole process, reading its files included
        "command": shlex.join(cmd),
    }
    if per_query:
        rows = done.stdout.split("*** GEDs ***")[1].split("\n")[1: 1 + per_query]
        out["per_query_matches"] = [sum(int(x) <= tau for x in row.split()) for row in rows]
    return out


def build_gedkit(graphs: list[gedkit.Graph]) -> tuple[Any, float]:
    """The collection, and the seconds to add the graphs and answer a trivial query (τ = 0,
    one of its own graphs, four times): that loads the stored signatures and sorts them by
    size, which the first query would otherwise pay for inside the timed loop."""
    coll = gedkit.Collection()
    t0 = time.perf_counter()
    coll.add(graphs, progress=False)
    # (as many queries as make the collection sort its rows by size for range searches, as
    # the timed many-query calls need)
    coll.range(queries=[graphs[0]] * SORT_FOR_RANGES_FROM, tau=0, progress=False)
    return coll, time.perf_counter() - t0


def warm_up(queries: list[gedkit.Graph]) -> float:
    """Load gedkit's compiled kernels outside the timing: a few queries against the query set
    itself at τ = 5 (real verifications, on a small collection of its own)."""
    t0 = time.perf_counter()
    small = gedkit.Collection()
    small.add(queries[:30])
    small.range(queries=queries[:3], tau=5, progress=False)
    return time.perf_counter() - t0


def run_gedkit(coll: Any, queries: list[gedkit.Graph], tau: int, timeout: float,
               pair_timeout: float | None, one_by_one: bool = False) -> dict[str, Any]:
    """``coll.range(queries=queries, tau=tau)``: every query in one call in this process (the
    peer is single-threaded and reads its query file at once too); with ``one_by_one``,
    ``coll.range(q, tau)`` for each query in turn, each verified pair then running for the
    loop's remaining time (or ``pair_timeout`` if smaller). Exact, like the peer, unless a
    pair runs out of time (``pair_timeout``, else ``timeout``)."""
    matches, verified, screened, undecided, unproven = [], 0, 0, 0, 0
    stages: Counter = Counter()
    seconds: Counter = Counter()
    t0, cpu0 = time.perf_counter(), time.process_time()
    per_pair = timeout if pair_timeout is None else min(timeout, pair_timeout)
    answers = list(coll.range(queries=queries, tau=tau, timeout=per_pair, progress=False)
                   if not one_by_one else _one_by_one(coll, queries, tau, timeout, pair_timeout))
    # the benchmark's own bookkeeping below is not timed (the peer's timer covers its search
    # loop only): ~0.5 ms for 100 answers, a tenth of a whole search at tau = 1
    total, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    for res in answers:
        matches.append(len(res.hits))
        undecided += len(res.undecided)
        unproven += sum(not h.optimal for h in res.hits)
        stats = res.stats
        verified += stats.get("verified", 0)
        screened += stats.get("screened", 0)
        stages.update(stats.get("candidates", {}))
        seconds.update(stats.get("seconds", {}))
    out = {
        "status": "ok" if len(matches) == len(queries) else
        f"timeout after {len(matches)} of {len(queries)} queries",
        "seconds": total,
        "cpu_s": cpu,
        "candidates": verified,
        "matches": sum(matches),
        "screened": screened,
        "undecided": undecided,
        "hits_not_proven_optimal": unproven,
        "stage_candidates": dict(stages),
        "stage_seconds": dict(seconds),
        "per_query_matches": matches,
    }
    return out


def _one_by_one(coll: Any, queries: list[gedkit.Graph], tau: int, timeout: float,
                pair_timeout: float | None):
    t0 = time.perf_counter()
    for q in queries:
        left = max(timeout - (time.perf_counter() - t0), 0.01)
        yield coll.range(q, tau, timeout=left if pair_timeout is None else
                         min(left, pair_timeout), progress=False)
        if time.perf_counter() - t0 > timeout:
            break


def query_differences(run: dict[str, Any]) -> list[dict[str, int]] | None:
    """Queries whose match counts differ, when both sides gave them query by query."""
    peer, ours = run.get("peer") or {}, run.get("gedkit") or {}
    if "per_query_matches" not in peer or "per_query_matches" not in ours:
        return None
    return [{"query": k, "peer": a, "gedkit": b}
            for k, (a, b) in enumerate(zip(peer["per_query_matches"],
                                           ours["per_query_matches"], strict=False)) if a != b]


# -- reporting -------------------------------------------------------------------------------

def fmt_s(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:.4f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.0f}"


def cell(side: dict | None, field: str) -> str:
    if side is None:
        return "—"
    if side["status"] != "ok":
        return side["status"] if field == "seconds" else "—"
    value = side[field]
    return fmt_s(value) if field == "seconds" else f"{value:,}"


def markdown(report: dict[str, Any]) -> str:
    lines = ["| collection | graphs | skipped | mean nodes | mean edges | max nodes | "
             "disconnected |", "|---|---:|---:|---:|---:|---:|---:|"]
    for key, info in report["collections"].items():
        d = info["data"]
        skipped = sum(d["skipped"].values())
        lines.append(f"| {TITLES[key]} | {d['graphs']:,} | {skipped:,} | {d['mean_nodes']:.1f} | "
                     f"{d['mean_edges']:.1f} | {d['max_nodes']} | {d['disconnected']:,} |")
    lines += ["", "| collection | τ | peer s | peer cand. | peer matches | gedkit s | "
              "gedkit cand. | gedkit matches | gedkit/peer | ditto, CPU | matches agree |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|"]
    for key, info in report["collections"].items():
        for run in info["runs"]:
            peer, ours = run.get("peer"), run.get("gedkit")
            ratio = cpu_ratio = agree = "—"
            if peer and ours and peer["status"] == "ok" and ours["status"] == "ok":
                ratio = f"{ours['seconds'] / peer['seconds']:.2f}" if peer["seconds"] else "—"
                if peer.get("cpu_s"):
                    cpu_ratio = f"{ours['cpu_s'] / peer['cpu_s']:.2f}"
                agree = "yes" if peer["matches"] == ours["matches"] else "**no**"
            lines.append(
                f"| {TITLES[key]} | {run['tau']} | {cell(peer, 'seconds')} | "
                f"{cell(peer, 'candidates')} | {cell(peer, 'matches')} | "
                f"{cell(ours, 'seconds')} | {cell(ours, 'candidates')} | "
                f"{cell(ours, 'matches')} | {ratio} | {cpu_ratio} | {agree} |")
    notes = []
    for key, info in report["collections"].items():
        if info.get("gedkit_build_s") is not None:
            notes.append(f"{TITLES[key]}: gedkit build {fmt_s(info['gedkit_build_s'])} s")
        for run in info["runs"]:
            ours = run.get("gedkit") or {}
            if ours.get("undecided"):
                notes.append(f"{TITLES[key]} τ={run['tau']}: gedkit left {ours['undecided']} "
                             "pairs undecided")
            if run.get("queries_differing"):
                notes.append(f"{TITLES[key]} τ={run['tau']}: match counts differ on queries "
                             + ", ".join(str(d["query"]) for d in run["queries_differing"]))
        if info["data"]["skipped"]:
            notes.append(f"{TITLES[key]} skipped: " + ", ".join(
                f"{v} {k}" for k, v in info["data"]["skipped"].items()))
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    return "\n".join(lines)


def environment() -> dict[str, Any]:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=Path(__file__).parent, check=False).stdout.strip()
    cpu = platform.processor()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"gedkit_commit": commit, "cpu": cpu, "cores": os.cpu_count(),
            "python": platform.python_version()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--collections", default=",".join(COLLECTIONS),
                    help=f"comma-separated, from {', '.join(COLLECTIONS)}")
    ap.add_argument("--taus", default="1,3,5,7")
    ap.add_argument("--queries", type=int, default=100, help="the first N query graphs")
    ap.add_argument("--moses-n", type=int, default=100_000, help="first N MOSES molecules")
    side = ap.add_mutually_exclusive_group()
    side.add_argument("--peer-only", action="store_true")
    side.add_argument("--gedkit-only", action="store_true")
    ap.add_argument("--peer-timeout", type=float, default=1800, help="seconds per peer run")
    ap.add_argument("--gedkit-timeout", type=float, default=1800,
                    help="gedkit's time limit per verified pair at most (with --one-by-one:"
                    " per query loop, checked between queries)")
    ap.add_argument("--one-by-one", action="store_true",
                    help="gedkit answers the queries one call each instead of all in one")
    ap.add_argument("--fresh-queries", action="store_true",
                    help="each gedkit run reads the queries from the peer's query file "
                    "(gedkit.read_all) just before its timer, as the peer reads that file "
                    "just before its own: without it every run searches the same query "
                    "objects, and the runs after the first reuse what the first computed "
                    "and kept on them")
    ap.add_argument("--pair-timeout", type=float, default=None,
                    help="gedkit's time limit per verified pair (default: none, exact like "
                    "the peer; a pair left open is counted as undecided)")
    ap.add_argument("--json", type=Path, help="write every figure here (rewritten after each run)")
    ap.add_argument("--peer-per-query", action="store_true",
                    help="run the peer with -g to compare match counts query by query "
                    "(its timer then includes printing every candidate's distance)")
    ap.add_argument("--keep", type=Path, help="keep the peer's input files in this folder")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each side per cell, taking turns; the median-time run is "
                    "reported (times of all in the JSON)")
    args = ap.parse_args()

    keys = [k.strip().lower() for k in args.collections.split(",") if k.strip()]
    for k in keys:
        if k not in COLLECTIONS:
            ap.error(f"unknown collection {k!r}; choose from {', '.join(COLLECTIONS)}")
    taus = [int(t) for t in args.taus.split(",")]
    peer = None if args.gedkit_only else os.environ.get(PEER_ENV)
    if args.peer_only and not peer:
        ap.error(f"--peer-only needs the peer binary in ${PEER_ENV}")
    use_gedkit = not args.peer_only
    if use_gedkit and not hasattr(gedkit, "Collection"):
        ap.error("this gedkit has no gedkit.Collection yet; run with --peer-only")

    raw_queries = gedkit.read_all(args.data / QUERY_FILE)[: args.queries]
    queries = [normalised(q, q.name or str(k)) for k, q in enumerate(raw_queries)]
    report: dict[str, Any] = {
        "environment": environment(),
        "peer": peer, "queries": len(queries), "taus": taus,
        "query_data": describe(queries, {}),
        "collections": {},
    }

    def save() -> None:
        if args.json:
            args.json.write_text(json.dumps(report, indent=1))

    with tempfile.TemporaryDirectory(prefix="search_peer_") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        query_path = folder / "queries.txt"
        write_tve(queries, query_path)
        warmed = False
        for key in keys:
            t0 = time.perf_counter()
            graphs, skipped = load_collection(key, args.data, args.moses_n)
            info: dict[str, Any] = {"data": describe(graphs, skipped),
                                    "convert_s": time.perf_counter() - t0, "runs": []}
            report["collections"][key] = info
            print(f"[{key}] {len(graphs):,} graphs ({sum(map(len, skipped.values()))} skipped) in "
                  f"{info['convert_s']:.1f} s", file=sys.stderr, flush=True)
            db_path = folder / f"{key}.txt"
            if peer:
                write_tve(graphs, db_path)
            coll = None
            if use_gedkit:
                if not warmed:
                    info["gedkit_warmup_s"] = warm_up(queries)
                    warmed = True
                coll, info["gedkit_build_s"] = build_gedkit(graphs)
            for tau in taus:
                run: dict[str, Any] = {"tau": tau, "load_average": os.getloadavg()[0]}
                info["runs"].append(run)
                tries: dict[str, list] = {"peer": [], "gedkit": []}
                for _ in range(args.repeat):  # the two sides take turns
                    if peer:
                        tries["peer"].append(run_peer(
                            peer, db_path, query_path, tau, args.peer_timeout,
                            len(queries) if args.peer_per_query else 0))
                    if coll is not None:
                        asked = (gedkit.read_all(query_path) if args.fresh_queries
                                 else queries)
                        tries["gedkit"].append(run_gedkit(
                            coll, asked, tau, args.gedkit_timeout, args.pair_timeout,
                            args.one_by_one))
                for side, done in tries.items():
                    if done:  # the run of median time, with every time beside it
                        timed = sorted(done, key=lambda r: r.get("seconds", math.inf))
                        run[side] = timed[len(done) // 2]
                        run[side]["seconds_all"] = [r.get("seconds") for r in done]
                save()
                if peer:
                    print(f"[{key} τ={tau}] peer {run['peer']}", file=sys.stderr, flush=True)
                if coll is not None:
                    brief = {k: v for k, v in run["gedkit"].items() if k != "per_query_matches"}
                    differ = query_differences(run)
                    if differ is not None:
                        run["queries_differing"] = differ
                    print(f"[{key} τ={tau}] gedkit {brief}", file=sys.stderr, flush=True)
            del coll
            if peer and args.keep is None:
                db_path.unlink()
    save()
    print(f"`{PEER_ENV}={peer or ''} python benchmarks/search_peer.py "
          f"{shlex.join(sys.argv[1:])}`\n")
    print(markdown(report))


if __name__ == "__main__":
    main()
