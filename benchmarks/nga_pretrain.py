"""Pretrain NGA's shipped initialisation, then measure what it buys over a random start.

Pretraining pairs: IAM AIDS molecules of 15-30 atoms (half random pairs, half similar); the
evaluation pairs are molecules of more than 30 atoms, so no evaluation molecule is seen in
pretraining. For each evaluation pair, ``nga`` runs from the random and from the pretrained
start for a fixed number of optimisation steps (no time limit, same seed); the table gives the
best edge count after k steps as a mean percentage of the best count any run reached, and
the share of pairs at that best. Usage::

    python benchmarks/nga_pretrain.py [--data ../shared/data] [--pairs 400] [--epochs 3]
        [--eval-pairs 30] [--out WEIGHTS.pt] [--no-train]

Writes the weights (default: the shipped ``gedkit/mces/nga/weights/molecules.pt``) and a
model card (``.json``) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import datetime
import json
import resource
import time
from pathlib import Path

import numpy as np
import torch
from _iam import DEFAULT_DATA, load_iam
from mces_iam import choose_pairs

from gedkit.mces import MCESProblem
from gedkit.mces.base import Budget, get_method
from gedkit.mces.nga.pretrain import pretrain

CHECKPOINTS = (1, 5, 20, 50)
SHIPPED = Path(__file__).resolve().parents[1] / "gedkit/mces/nga/weights/molecules.pt"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--pairs", type=int, default=400, help="pretraining pairs")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--eval-pairs", type=int, default=30)
    ap.add_argument("--out", default=str(SHIPPED))
    ap.add_argument("--no-train", action="store_true", help="evaluate the existing --out")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)

    graphs = load_iam(Path(args.data), "AIDS", node_label="symbol", edge_label="valence")
    small = [g for g in graphs if 15 <= g.n <= 30]
    large = [g for g in graphs if g.n > 30]
    rng = np.random.default_rng(args.seed)
    out = Path(args.out)
    if not args.no_train:
        chosen = choose_pairs(small, args.pairs, rng)
        train = [MCESProblem(small[i], small[j]) for i, j, _ in chosen]
        t0 = time.perf_counter()
        net = pretrain(train, epochs=args.epochs, seed=args.seed, log=print)
        seconds = time.perf_counter() - t0
        card = {
            "model": "nga initialisation",
            "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "data": f"IAM AIDS, molecules of 15-30 atoms: {args.pairs} pairs (half similar)",
            "labels": {"node_label": "symbol", "edge_label": "valence"},
            "epochs": args.epochs, "network": net.config(),
            "training": {"wall_seconds": round(seconds, 1),
                         "peak_memory_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                         / 1024, "threads": 1},
        }
        net.save(out, card)
        out.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n")
        print(f"wrote {out} after {seconds:.0f} s\n")

    pairs = choose_pairs(large, args.eval_pairs, np.random.default_rng(args.seed + 1))
    problems = [MCESProblem(large[i], large[j]) for i, j, _ in pairs]
    traces = {init: [] for init in ("random", str(out))}
    seconds = {init: 0.0 for init in traces}
    steps = {init: 0 for init in traces}
    for p in problems:
        for init in traces:
            t0 = time.perf_counter()
            r = get_method("nga", init=init, steps=max(CHECKPOINTS)).solve(p, Budget())
            seconds[init] += time.perf_counter() - t0
            steps[init] += r.stats.get("steps", 0)
            trace = r.stats.get("trace") or [r.num_edges]
            traces[init].append([trace[min(k, len(trace)) - 1] for k in CHECKPOINTS])
    best = np.max([np.max(t, axis=1) for t in traces.values()], axis=0)
    print(f"### NGA: random vs pretrained start, {len(problems)} IAM AIDS pairs of > 30 atoms\n")
    print("| start | " + " | ".join(f"{k} step{'s' * (k > 1)}" for k in CHECKPOINTS)
          + " | ms per step |")
    print("|---|" + "---|" * (len(CHECKPOINTS) + 1))
    for init, rows in traces.items():
        rows = np.array(rows)
        share = rows / np.maximum(best, 1)[:, None]
        cells = [f"{100 * share[:, c].mean():.1f}% "
                 f"({100 * np.mean(rows[:, c] == best):.0f}% at best)"
                 for c in range(len(CHECKPOINTS))]
        name = "pretrained" if init != "random" else "random"
        ms = 1000 * seconds[init] / max(steps[init], 1)
        print(f"| {name} | " + " | ".join(cells) + f" | {ms:.0f} |")


if __name__ == "__main__":
    main()
