"""What a call answers before compiled kernels run: the cheap bounds (issue 12).

A fresh install without ``gedkit warmup`` (kernels compile in the background), and a fresh
process whose time limit is shorter than numba's start-up, answer with the bounds of
``gedkit.solvers.cheap`` (GED) and ``gedkit.mces.cheap`` (MCES). Measured here, in one run:

- each of N NCI molecules (RDKit's ``first_5K.smi``, 3+ atoms) against a randomised SMILES of
  itself (same molecule, another node order): how many the cheap bounds prove (GED 0, MCES all
  bonds), with GED's label greedy map alone and with the cheapest of it and the map grown
  edge-aware (``grown_map``);
- random pairs of those molecules: the mean cost of both GED maps and the milliseconds per
  map, and the MCES greedy map's common edges;
- random pairs of the small ones (at most ``SMALL_NODES`` atoms): how many the cheap bounds
  prove without and with their plain-Python search (``small_search``), and what a call of
  them takes with that search under a 1 s limit;
- in fresh processes: ``gedkit.ged("CCO", "CCN")`` on an empty numba cache, without a time
  limit (it used to wait for the whole compile), and ``gedkit.ged("CCO", "OCC",
  timeout=0.5)`` with the cache warm (numba's start-up does not fit 0.5 s).

    python benchmarks/first_answers.py [--molecules 300] [--pairs 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

import gedkit
from gedkit import costs
from gedkit.budget import Budget
from gedkit.errors import GedkitError
from gedkit.mces import cheap as mces_cheap
from gedkit.mces.problem import MCESProblem
from gedkit.solvers.cheap import cheap_bounds, greedy_map, grown_map


def molecules(count: int, rng) -> list[tuple[gedkit.Graph, gedkit.Graph]]:
    """(molecule, the same molecule from a randomised SMILES) for ``count`` NCI molecules."""
    from rdkit import Chem, RDConfig, rdBase

    block = rdBase.BlockLogs()  # noqa: F841  (RDKit's complaints about the few it rejects)
    path = os.path.join(RDConfig.RDDataDir, "NCI", "first_5K.smi")
    with open(path) as f:
        smiles = [line.split()[0] for line in f if line.strip()]
    out = []
    for k in rng.permutation(len(smiles)).tolist():
        mol = Chem.MolFromSmiles(smiles[k])
        if mol is None or mol.GetNumAtoms() < 3:
            continue
        try:
            g = gedkit.from_smiles(smiles[k])
            h = gedkit.from_smiles(Chem.MolToSmiles(mol, doRandom=True, canonical=False))
        except GedkitError:
            continue
        out.append((g, h))
        if len(out) == count:
            break
    return out


def fresh(code: str, env: dict | None = None) -> dict:
    """Run ``code`` in a fresh Python; it prints one JSON line."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--molecules", type=int, default=300)
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    pairs = molecules(args.molecules, rng)
    uniform = costs.uniform()

    label_only = grown = mces_proven = 0
    for g, h in pairs:
        p = uniform.compile(g, h)
        label_only += p.cost(greedy_map(p)) == 0
        grown += cheap_bounds(p, Budget(), "cheap").upper_bound == 0
        mces_proven += mces_cheap.cheap_bounds(MCESProblem(g, h), Budget(), "cheap").optimal

    graphs = [g for g, _ in pairs]
    costs_greedy, costs_grown, t_greedy, t_grown, common, t_common = [], [], 0.0, 0.0, [], 0.0
    for _ in range(args.pairs):
        a, b = rng.choice(len(graphs), 2, replace=False)
        p = uniform.compile(graphs[a], graphs[b])
        tick = time.perf_counter()
        costs_greedy.append(p.cost(greedy_map(p)))
        t_greedy += time.perf_counter() - tick
        tick = time.perf_counter()
        costs_grown.append(p.cost(grown_map(p)))
        t_grown += time.perf_counter() - tick
        q = MCESProblem(graphs[a], graphs[b])
        tick = time.perf_counter()
        common.append(q.count(mces_cheap.greedy_map(q)))
        t_common += time.perf_counter() - tick
    best = np.minimum(costs_greedy, costs_grown)

    small = _small_pairs(graphs, args.pairs, rng)

    with tempfile.TemporaryDirectory() as cold:
        first = fresh("""
            import json, time, gedkit
            from gedkit._kernels import warm
            t = time.perf_counter()
            r = gedkit.ged("CCO", "CCN")
            print(json.dumps([time.perf_counter() - t, r.distance, r.optimal]))
            if warm._BACKGROUND is not None:
                warm._BACKGROUND.kill()
        """, {"NUMBA_CACHE_DIR": cold})
    short = fresh("""
        import json, gedkit
        r = gedkit.ged("CCO", "OCC", timeout=0.5)
        print(json.dumps([r.distance, r.optimal, r.time]))
    """)

    n, m = len(pairs), args.pairs
    print(f"""
`python benchmarks/first_answers.py --molecules {args.molecules} --pairs {m} --seed {args.seed}`

| NCI molecules against a randomised SMILES of themselves ({n}) | proven by the cheap bounds |
|---|---:|
| GED, the label greedy map alone | {label_only} |
| GED, the cheaper of it and the map grown edge-aware (what `cheap_bounds` answers) | {grown} |
| MCES, the greedy map (ties to the most alike surroundings) and the class-count bound | \
{mces_proven} |

| {m} random pairs of them | mean | ms per map |
|---|---:|---:|
| GED cost, label greedy map | {np.mean(costs_greedy):.2f} | {1e3 * t_greedy / m:.2f} |
| GED cost, grown map | {np.mean(costs_grown):.2f} | {1e3 * t_grown / m:.2f} |
| GED cost, the cheaper of the two | {np.mean(best):.2f} | - |
| MCES common edges, greedy map | {np.mean(common):.2f} | {1e3 * t_common / m:.2f} |

{small}
- Fresh process, empty numba cache, `gedkit.ged("CCO", "CCN")` without a time limit:
  distance {first[1]:g} ({'optimal' if first[2] else 'not proven'}) in {first[0]:.2f} s.
- Fresh process, warm cache, `gedkit.ged("CCO", "OCC", timeout=0.5)`: distance {short[0]:g}
  ({'optimal' if short[1] else 'not proven'}), `result.time` {short[2]:.3f} s.
""")


def _small_pairs(graphs: list[gedkit.Graph], count: int, rng) -> str:
    """The markdown table of the small pairs' proofs (see the module docstring)."""
    from gedkit.mces.bounds import class_count_bound
    from gedkit.solvers.cheap import SMALL_NODES, labelset_bound

    small = [g for g in graphs if g.n <= SMALL_NODES]
    rows = []
    for question in ("GED", "MCES"):
        before = after = 0
        seconds = []
        for _ in range(count):
            a, b = rng.choice(len(small), 2, replace=False)
            if question == "GED":
                p = costs.uniform().compile(small[a], small[b])
                upper = min(p.cost(greedy_map(p)), p.cost(grown_map(p)))
                before += upper <= labelset_bound(p)
                tick = time.perf_counter()
                after += cheap_bounds(p, Budget(timeout=1), "cheap").optimal
            else:
                q = MCESProblem(small[a], small[b])
                before += q.count(mces_cheap.greedy_map(q)) >= class_count_bound(q)
                tick = time.perf_counter()
                after += mces_cheap.cheap_bounds(q, Budget(timeout=1), "cheap").optimal
            seconds.append(time.perf_counter() - tick)
        rows.append(f"| {question} | {before} | {after} | {1e3 * np.median(seconds):.1f} | "
                    f"{1e3 * max(seconds):.0f} |")
    return (f"| {count} random pairs of the molecules of at most {SMALL_NODES} atoms "
            "| proven: greedy maps and bound | with the small search | ms per call, median "
            "| ms, most |\n|---|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
