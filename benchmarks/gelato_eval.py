"""Gelato, gedkit's learned GED solver, against ground truth and against classical heuristics.

Two suites:

- ``benchmark``: AIDS700nef, LINUX and IMDBMulti (exact uniform-cost GED known for test x
  train pairs). ``--pairs`` seeded test x train pairs per set; gelato (``--k`` branches) next
  to BRANCH and IPFP (one start). Reports exact hits (cost equal to the ground truth), nMAE
  (mean |pred - true| / max(1, true)), ms per pair, and the leakage: how many test graphs are
  isomorphic (labels respected) to a training graph, with the hits on pairs whose test graph
  is not.
- ``generalise``: IAM AIDS and Mutagenicity molecules larger than the ones the molecule models
  were trained on (<= 16 atoms), in two bins, 17-30 and 31-60 atoms (both molecules of a pair
  in the bin; half the pairs from each set). On 17-30 the exact solver (``--exact-timeout``)
  gives the reference distance; only pairs it proves count for the hit rates. On every pair
  gelato runs first and its wall time t becomes the time limit of IPFP (restarting up to 1000
  times), BP-BEAM, REFINE, auto without its learned stage, and auto as it is: equal time per
  pair (BP-BEAM and REFINE stop when they converge, usually long before t). The contest
  (lowest upper bound) is gelato against the classical methods; auto runs gelato itself on
  pairs of 31 atoms or more.

- ``auto``: the 31-60-atom pairs of ``generalise`` under fixed time limits (``--budgets``):
  ``auto`` as it is (gelato stage included) against ``auto`` with ``learned=False``: mean
  upper and lower bounds, and on how many pairs each is better.

Usage::

    python benchmarks/gelato_eval.py benchmark [--data ../shared/data] [--pairs 500]
        [--datasets AIDS700nef LINUX IMDBMulti] [--model M | --model-aids700nef M
        --model-linux M --model-imdb M] [--k 32] [--decoding branches] [--compare-decodings]
        [--limit-time S] [--json OUT]
    python benchmarks/gelato_eval.py generalise [--data ../shared/data] [--pairs 50]
        [--costs uniform|chem_2|constant:KEY=VALUE,...] [--model M] [--exact-timeout 10] [--k 32]
        [--decoding branches] [--compare-decodings] [--polish 32] [--limit-time S] [--json OUT]
    python benchmarks/gelato_eval.py auto [--pairs 50] [--budgets 2 5] [--json OUT]

A model M is a weights file, the name of a shipped model, or NAME for ``--weights/NAME.pt``.
Defaults: aids700nef (AIDS700nef), unlabelled (LINUX, IMDBMulti), molecules or chem_2
(generalise, by ``--costs``). Prints Markdown (command line first), progress on stderr.
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import sys
import time
import zlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from _iam import DEFAULT_DATA, load_iam
from heuristics_iam import choose_pairs, fmt, fmt_ms, mean, pct, table
from tqdm import tqdm

import gedkit
from gedkit.datasets import load_benchmark
from gedkit.graph import Graph
from gedkit.learned import DECODINGS
from gedkit.learned.data import distinct_graphs
from gedkit.learned.solver import shipped_models
from gedkit.nn import require_torch
from gedkit.problem import Problem
from gedkit.solvers import Budget, get_solver

TOL = 1e-9
OVERRUN = 1.2  # a run "overran" its time limit beyond this factor (plus OVERRUN_S)
OVERRUN_S = 0.005
WARM_UP_PAIRS = 5

BENCHMARKS = {"AIDS700nef": "aids700nef", "LINUX": "unlabelled", "IMDBMulti": "unlabelled"}
MODEL_FLAGS = {"AIDS700nef": "model_aids700nef", "LINUX": "model_linux",
               "IMDBMulti": "model_imdb"}
REFERENCES = ("branch", "ipfp")  # benchmark suite: cheap references, default options

MOLECULES = {"AIDS": "symbol", "Mutagenicity": "chem"}  # node label attribute per IAM set
BINS = ((17, 30), (31, 60))
EXACT_BIN = (17, 30)  # the exact solver's reference distance only here
# the methods given gelato's time on each pair: row label -> (method, options). IPFP keeps
# restarting until the limit; "auto" is the default portfolio, which runs gelato itself from
# 31 atoms on, so the contest is against the others ("auto (no gelato)": learned=False)
EQUAL_TIME = {"ipfp": ("ipfp", {"starts": 1000}), "bp_beam": ("bp_beam", {}),
              "refine": ("refine", {}), "auto (no gelato)": ("auto", {"learned": False}),
              "auto": ("auto", {})}
CLASSICAL = ("ipfp", "bp_beam", "refine", "auto (no gelato)")
AUTO_VARIANTS = {"with gelato": {}, "learned=False": {"learned": False}}  # the auto suite


@dataclass
class Run:
    upper: float
    lower: float
    time: float
    timeout: float | None = None
    stats: dict = field(default_factory=dict)

    @property
    def overran(self) -> bool:
        return self.timeout is not None and self.time > OVERRUN * self.timeout + OVERRUN_S

    def gap(self) -> float:
        """Certified gap (upper - lower) / max(1, upper)."""
        return (self.upper - self.lower) / max(1.0, self.upper)


@dataclass
class Pair:
    dataset: str
    i: int
    j: int
    names: tuple[str, str]
    sizes: tuple[int, int]
    reference: float | None  # ground truth, or the exact solver's proven distance
    group: str = ""  # size bin (generalise)
    leaked: bool | None = None  # test graph isomorphic to a training graph (benchmark)
    runs: dict[str, Run] = field(default_factory=dict)


# -- running -------------------------------------------------------------------------------------
def timed(method: str, problem: Problem, timeout: float | None = None, **options: Any) -> Run:
    solver = get_solver(method, **options)
    t0 = time.perf_counter()
    r = solver.solve(problem, Budget(timeout=timeout))
    elapsed = time.perf_counter() - t0
    stats = {k: v for k, v in r.stats.items() if k in ("decoded_cost", "branch_cost",
                                                        "network_calls", "cut_short", "winner",
                                                        "polished_cost")}
    return Run(r.upper_bound, r.lower_bound, elapsed, timeout, stats)


def gelato_label(decoding: str) -> str:
    return f"gelato ({decoding})"


def decodings(args: argparse.Namespace) -> list[str]:
    """The decoding of the main gelato row first, then the others if compared."""
    rest = [d for d in DECODINGS if d != args.decoding] if args.compare_decodings else []
    return [args.decoding, *rest]


def run_gelato(problem: Problem, model: str, args: argparse.Namespace) -> dict[str, Run]:
    return {gelato_label(d): timed("gelato", problem, args.limit_time, k=args.k, decoding=d,
                                   model=model, seed=args.seed, polish=args.polish,
                                   directions=args.directions, device=args.device)
            for d in decodings(args)}


def warm_up(problems: Iterable[Problem], model: str, args: argparse.Namespace,
            methods: Iterable[str]) -> None:
    """Load the network and compile every kernel before anything is timed: gelato on pairs
    until the network has run once (BRANCH may settle a pair alone), the others (method
    names) on the first, 0.2 s each."""
    methods = list(methods)
    for k, problem in enumerate(problems):
        if k == 0:
            for m in methods:
                timed(m, problem, 0.2)
        ran = run_gelato(problem, model, args)
        if any("decoded_cost" in r.stats for r in ran.values()) or k + 1 >= WARM_UP_PAIRS:
            return


def resolve_model(spec: str, weights: Path) -> str:
    """A weights file path or a shipped model name for ``spec``."""
    if Path(spec).is_file():
        return str(Path(spec).resolve())
    if spec in shipped_models():
        return spec
    candidate = weights / f"{spec}.pt"
    if candidate.is_file():
        return str(candidate.resolve())
    raise SystemExit(f"no model {spec!r}: not a file, not shipped "
                     f"({', '.join(shipped_models()) or 'none shipped'}), and no {candidate}")


def model_card(model: str) -> dict:
    from gedkit.learned.model import load

    if model in shipped_models():
        with resources.as_file(shipped_models()[model]) as path:
            return load(path).meta.get("card", {})
    return load(model).meta.get("card", {})


def describe_model(model: str) -> str:
    card = model_card(model)
    if not card:
        return f"`{model}` (no model card: untrained?)"
    data, training = card.get("data", {}), card.get("training", {})
    metrics = card.get("metrics", {})
    exclude = data.get("exclude") or []
    return (
        f"`{model}`: costs {card.get('costs')}, node label {card['labels']['node_label']!r}, "
        f"edge label {card['labels']['edge_label']!r}; {data.get('graphs_used')} distinct "
        f"graphs (max {data.get('max_nodes')} nodes, {data.get('duplicates_or_excluded')} "
        f"duplicates/excluded, {len(exclude)} exclusion files), {data.get('train_pairs')} "
        f"training pairs, {data.get('val_pairs')} validation pairs, "
        f"{data.get('training_states')} states; {training.get('epochs')} epochs (best "
        f"{training.get('best_epoch')}), {fmt(training.get('wall_seconds'), '.0f')} s, peak "
        f"memory {fmt(training.get('peak_memory_mb'), '.0f')} MB; validation exact hits "
        f"{pct(metrics.get('val_exact_hit'))}, nMAE {pct(metrics.get('val_nmae'))}"
    )


def progress(items: list, desc: str) -> tqdm:
    return tqdm(items, desc=desc, unit="pair", file=sys.stderr, disable=None)


# -- benchmark suite -----------------------------------------------------------------------------
def leaked_tests(tests: list[Graph], train: list[Graph]) -> list[bool]:
    """Whether each test graph is isomorphic (labels respected) to some training graph; only
    training graphs of the same size can be."""
    by_size: dict[tuple[int, int], list[Graph]] = defaultdict(list)
    for g in train:
        by_size[g.n, g.m].append(g)
    return [not distinct_graphs([g], by_size[g.n, g.m]) for g in tests]


def run_benchmark(name: str, model: str, args: argparse.Namespace) -> tuple[list[Pair], dict]:
    bench = load_benchmark(name, args.data)
    known = bench.pairs("test", "train")
    rng = np.random.default_rng([args.seed, zlib.crc32(name.encode())])
    chosen = known[np.sort(rng.choice(len(known), size=min(args.pairs, len(known)),
                                      replace=False))]
    tests = np.unique(known[:, 0]).tolist()
    train = [bench.graphs[j] for j in np.flatnonzero(bench.splits == "train")]
    leaked = dict(zip(tests, leaked_tests([bench.graphs[i] for i in tests], train), strict=True))
    costs = gedkit.costs.get("uniform")
    problems = [costs.compile(bench.graphs[i], bench.graphs[j]) for i, j in chosen.tolist()]
    warm_up(problems, model, args, REFERENCES)
    pairs = []
    for (i, j), problem in zip(chosen.tolist(), progress(problems, name), strict=True):
        g1, g2 = bench.graphs[i], bench.graphs[j]
        pair = Pair(name, i, j, (g1.name, g2.name), (g1.n, g2.n), float(bench.ged[i, j]),
                    leaked=leaked[i])
        pair.runs = run_gelato(problem, model, args)
        for m in REFERENCES:
            pair.runs[m] = timed(m, problem)
        pairs.append(pair)
    info = {"test_graphs": len(tests), "leaked_test_graphs": sum(leaked.values()),
            "known_pairs": len(known)}
    return pairs, info


def hit(run: Run, reference: float) -> bool:
    return run.upper <= reference + TOL * max(1.0, reference)


def report_benchmark(name: str, model: str, pairs: list[Pair], info: dict) -> None:
    unseen = [p for p in pairs if not p.leaked]
    print(f"### {name}: {len(pairs)} test x train pairs (of {info['known_pairs']} with "
          "ground truth)\n")
    print(f"Model {describe_model(model)}.\n")
    print(f"Leakage: {info['leaked_test_graphs']} of {info['test_graphs']} test graphs (with "
          "ground truth) are isomorphic to a training graph of the benchmark; "
          f"{len(pairs) - len(unseen)} of the {len(pairs)} pairs have such a test graph.\n")
    rows = []
    for m in pairs[0].runs:
        runs = [p.runs[m] for p in pairs]
        times = [r.time for r in runs]
        rows.append([
            m,
            pct(mean(hit(p.runs[m], p.reference) for p in pairs)),
            pct(mean(abs(p.runs[m].upper - p.reference) / max(1.0, p.reference)
                     for p in pairs)),
            pct(mean(hit(p.runs[m], p.reference) for p in unseen)),
            str(sum(p.runs[m].upper < p.reference - TOL * max(1.0, p.reference)
                    for p in pairs)),
            fmt_ms(float(np.median(times))), fmt_ms(mean(times)),
        ])
    print("Exact hits: cost equal to the ground truth. nMAE: mean |pred - true| / max(1, true). "
          "Below ground truth: should be 0 (else the ground truth or the costs disagree).\n")
    table(["method", "exact hits", "nMAE", f"exact hits, test graph not in train "
           f"({len(unseen)})", "below ground truth", "ms/pair (median)", "ms/pair (mean)"], rows)
    report_network(pairs)


def report_network(pairs: list[Pair]) -> None:
    """How often the network itself ran and what it added to BRANCH's map."""
    for label in [m for m in pairs[0].runs if m.startswith("gelato")]:
        ran = [p for p in pairs if "decoded_cost" in p.runs[label].stats]
        stats = [p.runs[label].stats for p in ran]
        better = sum(s["decoded_cost"] < s["branch_cost"] - TOL for s in stats)
        cut = sum(bool(s["cut_short"]) for s in stats)
        line = f"{label}: the network ran on {len(ran)} of {len(pairs)} pairs"
        if len(ran) < len(pairs):
            line += " (BRANCH proved the others optimal alone)"
        line += f"; its map beat BRANCH's on {better}, the time limit cut {cut} short"
        scored = [p for p in ran if p.reference is not None]
        if scored:
            alone = mean(p.runs[label].stats["decoded_cost"]
                         <= p.reference + TOL * max(1.0, p.reference) for p in scored)
            line += f"; decoded maps alone exact on {pct(alone)} of {len(scored)} scored pairs"
        print(line + ".\n")


# -- generalise suite ----------------------------------------------------------------------------
def normalised(g: Graph) -> Graph:
    """``g`` with blanks stripped from string node labels (the vocabulary's "C", "O", ...)."""
    labels = [lab.strip() if isinstance(lab, str) else lab for lab in g.node_labels]
    edges = [(g.ids[a], g.ids[b], lab)
             for (a, b), lab in zip(g.edges.tolist(), g.edge_labels, strict=True)]
    return Graph(dict(zip(g.ids, labels, strict=True)), edges, name=g.name)


def load_molecules(data: Path) -> dict[str, list[Graph]]:
    return {name: [normalised(g) for g in load_iam(data, name, node_label=attr,
                                                   edge_label="valence")]
            for name, attr in MOLECULES.items()}


def molecule_pairs(sets: dict[str, list[Graph]], lo: int, hi: int, count: int,
                   seed: int) -> list[tuple[str, int, int]]:
    """``count`` pairs of molecules of ``lo``-``hi`` atoms, half (rounded up for the first
    set) from each set, both molecules from the same set."""
    out = []
    for k, (name, graphs) in enumerate(sets.items()):
        share = count // len(sets) + (k < count % len(sets))
        idx = [i for i, g in enumerate(graphs) if lo <= g.n <= hi]
        rng = np.random.default_rng([seed, zlib.crc32(name.encode()), lo])
        out += [(name, i, j) for i, j in choose_pairs(idx, share, rng)]
    return out


def run_generalise(model: str, args: argparse.Namespace) -> list[Pair]:
    sets = load_molecules(args.data)
    costs = gedkit.costs.get(args.costs)
    main = gelato_label(args.decoding)
    pairs = []
    for lo, hi in BINS:
        chosen = molecule_pairs(sets, lo, hi, args.pairs, args.seed)
        problems = [costs.compile(sets[name][i], sets[name][j]) for name, i, j in chosen]
        reference = (lo, hi) == EXACT_BIN
        warm_up(problems, model, args, [*dict.fromkeys(m for m, _ in EQUAL_TIME.values()),
                                        *(["exact"] if reference else [])])
        for (name, i, j), problem in zip(chosen, progress(problems, f"{lo}-{hi} atoms"),
                                         strict=True):
            g1, g2 = sets[name][i], sets[name][j]
            pair = Pair(name, i, j, (g1.name, g2.name), (g1.n, g2.n), None, f"{lo}-{hi}")
            if reference:
                exact = timed("exact", problem, args.exact_timeout)
                pair.runs["exact"] = exact
                pair.reference = exact.upper if exact.lower >= exact.upper - TOL else None
            pair.runs.update(run_gelato(problem, model, args))
            t = pair.runs[main].time
            if args.limit_time is not None:
                t = min(t, args.limit_time)
            for label, (m, options) in EQUAL_TIME.items():
                pair.runs[label] = timed(m, problem, t, **options)
            pairs.append(pair)
    return pairs


def report_generalise(pairs: list[Pair], model: str, args: argparse.Namespace) -> None:
    main = gelato_label(args.decoding)
    contest = [main, *CLASSICAL]  # the equal-time contest
    print(f"Model {describe_model(model)}.\n")
    print(f"Costs {args.costs}. Every method's lower bound is its own (BRANCH's for all but "
          "auto, which also runs A*). Lowest upper bound: share of pairs where the method's "
          f"is the lowest of {', '.join(contest)} (ties count for all); other decodings are "
          f"compared with that same field. Over time: runs longer than {OVERRUN:g} x their "
          f"limit + {1000 * OVERRUN_S:g} ms.\n")
    for group in dict.fromkeys(p.group for p in pairs):
        ps = [p for p in pairs if p.group == group]
        by_set = {name: sum(p.dataset == name for p in ps) for name in MOLECULES}
        print(f"### {group} atoms: {len(ps)} pairs ("
              + ", ".join(f"{n} {name}" for name, n in by_set.items()) + ")\n")
        proven = [p for p in ps if p.reference is not None]
        if "exact" in ps[0].runs:
            times = [p.runs["exact"].time for p in ps]
            print(f"Exact solver ({args.exact_timeout:g} s): proved {len(proven)} of {len(ps)} "
                  f"pairs, {fmt_ms(mean(times))} ms per pair on average.\n")
        best = [min(p.runs[m].upper for m in contest) for p in ps]
        rows = []
        for m in [m for m in ps[0].runs if m != "exact"]:
            runs = [p.runs[m] for p in ps]
            limits = [r.timeout for r in runs if r.timeout is not None]
            rows.append([
                m, fmt(mean(r.upper for r in runs), ".2f"), pct(mean(r.gap() for r in runs)),
                pct(mean(hit(p.runs[m], p.reference) for p in proven)) if proven else "—",
                pct(mean(r.upper <= b + TOL * max(1.0, b) for r, b in zip(runs, best,
                                                                            strict=True))),
                fmt_ms(mean(r.time for r in runs)), fmt_ms(float(np.median([r.time
                                                                           for r in runs]))),
                fmt_ms(mean(limits)) if limits else "—",
                f"{sum(r.overran for r in runs)}/{len(runs)}" if limits else "—",
            ])
        table(["method", "mean upper bound", "mean certified gap",
               f"exact hits ({len(proven)} proven)", "lowest upper bound", "ms/pair (mean)",
               "ms/pair (median)", "time limit (mean ms)", "over time"], rows)
        report_network(ps)


def run_auto(args: argparse.Namespace) -> list[Pair]:
    sets = load_molecules(args.data)
    costs = gedkit.costs.get(args.costs)
    lo, hi = BINS[-1]
    chosen = molecule_pairs(sets, lo, hi, args.pairs, args.seed)
    problems = [costs.compile(sets[name][i], sets[name][j]) for name, i, j in chosen]
    model = resolve_model("chem_2" if args.costs == "chem_2" else "molecules", args.weights)
    warm_up(problems, model, args, ["auto"])  # torch loaded: the learned stage may run
    pairs = []
    for (name, i, j), problem in zip(chosen, progress(problems, f"{lo}-{hi} atoms"),
                                     strict=True):
        g1, g2 = sets[name][i], sets[name][j]
        pair = Pair(name, i, j, (g1.name, g2.name), (g1.n, g2.n), None, f"{lo}-{hi}")
        for budget in args.budgets:
            for label, options in AUTO_VARIANTS.items():
                pair.runs[f"{label}, {budget:g} s"] = timed("auto", problem, budget, **options)
        pairs.append(pair)
    return pairs


def report_auto(pairs: list[Pair], args: argparse.Namespace) -> None:
    print(f"Costs {args.costs}; {len(pairs)} pairs of {pairs[0].group} atoms. Better / worse: "
          "pairs where this variant's upper bound is below / above the other's. Over time: "
          f"runs longer than {OVERRUN:g} x their limit + {1000 * OVERRUN_S:g} ms.\n")
    rows = []
    for budget in args.budgets:
        labels = [f"{label}, {budget:g} s" for label in AUTO_VARIANTS]
        for m, other in zip(labels, labels[::-1], strict=True):
            runs = [p.runs[m] for p in pairs]
            ups = [(p.runs[m].upper, p.runs[other].upper) for p in pairs]
            rows.append([m, fmt(mean(r.upper for r in runs), ".2f"),
                         fmt(mean(r.lower for r in runs), ".2f"),
                         pct(mean(r.gap() for r in runs)),
                         f"{sum(a < b for a, b in ups)} / {sum(a > b for a, b in ups)}",
                         str(sum(r.stats.get("winner") == "gelato" for r in runs)),
                         fmt_ms(mean(r.time for r in runs)),
                         f"{sum(r.overran for r in runs)}/{len(runs)}"])
    table(["auto", "mean upper bound", "mean lower bound", "mean certified gap",
           "better / worse", "gelato's map kept", "ms/pair (mean)", "over time"], rows)


# -- main ----------------------------------------------------------------------------------------
def plain(value: Any) -> Any:
    """JSON for numpy scalars and paths."""
    return value.item() if isinstance(value, np.generic) else str(value)


def dump(path: Path, args: argparse.Namespace, models: dict, pairs: list[Pair],
         extra: dict) -> None:
    settings = {k: v for k, v in vars(args).items() if k != "suite"}
    path.write_text(json.dumps({
        "command": ["benchmarks/gelato_eval.py", *sys.argv[1:]], "suite": args.suite,
        "settings": settings, "models": models, **extra,
        "pairs": [asdict(p) for p in pairs],
    }, default=plain) + "\n")


def parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="folder holding the benchmark sets and IAM/ (default: shared/data)")
    common.add_argument("--weights", type=Path, default=Path(__file__).parent / "out" / "weights",
                        help="where NAME.pt models not shipped with gedkit are looked for")
    common.add_argument("--k", type=int, default=32, help="gelato's branches / beam width")
    common.add_argument("--decoding", choices=DECODINGS, default="branches")
    common.add_argument("--polish", type=int, default=32,
                        help="decoded maps gelato improves with IPFP and REFINE (0: none)")
    common.add_argument("--directions", type=int, choices=[1, 2], default=1,
                        help="2: gelato also decodes each pair seen from its second graph")
    common.add_argument("--compare-decodings", action="store_true",
                        help="also run gelato with the other decodings")
    common.add_argument("--limit-time", type=float, metavar="S",
                        help="cap on the seconds per pair of gelato (and so of the others)")
    common.add_argument("--seed", type=int, default=0)
    common.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    common.add_argument("--device", default="cpu",
                        help="where gelato's network runs: cpu (default), cuda, mps or auto")
    common.add_argument("--json", type=Path, metavar="OUT", help="keep every run here")
    common.add_argument("--model", help="model for every set (see the usage above)")

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="suite", required=True)
    bench = sub.add_parser("benchmark", parents=[common],
                           help="AIDS700nef, LINUX, IMDBMulti against their ground truth")
    bench.add_argument("--pairs", type=int, default=500, help="test x train pairs per set")
    bench.add_argument("--datasets", nargs="+", choices=list(BENCHMARKS),
                       default=list(BENCHMARKS))
    for name, flag in MODEL_FLAGS.items():
        bench.add_argument("--" + flag.replace("_", "-"), dest=flag,
                           help=f"model for {name} (default {BENCHMARKS[name]})")
    gen = sub.add_parser("generalise", parents=[common],
                         help="larger IAM molecules at equal time with classical heuristics")
    gen.add_argument("--pairs", type=int, default=50, help="pairs per size bin")
    gen.add_argument("--costs", default="uniform",
                     help="uniform (default), chem_2, or constant:KEY=VALUE,... such as "
                     "constant:node_sub=3,edge_sub=3 (the molecules model unless --model)")
    gen.add_argument("--exact-timeout", type=float, default=10.0,
                     help="seconds of the exact solver per pair of 17-30 atoms")
    auto = sub.add_parser("auto", parents=[common],
                          help="auto with and without gelato on 31-60 atoms, fixed time limits")
    auto.add_argument("--pairs", type=int, default=50, help="pairs of 31-60 atoms")
    auto.add_argument("--budgets", type=float, nargs="+", default=[2.0, 5.0], metavar="S",
                      help="time limits in seconds (default 2 5)")
    auto.add_argument("--costs", default="uniform",
                      help="as for generalise; auto picks the shipped model for the problem")
    return ap


def main() -> None:
    args = parser().parse_args()
    if args.k < 1 or args.pairs < 1 or (args.limit_time is not None and args.limit_time <= 0):
        raise SystemExit("--k and --pairs must be at least 1, --limit-time positive")
    torch = require_torch("benchmarks/gelato_eval.py")
    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    title = {"benchmark": "Gelato against ground truth (AIDS700nef, LINUX, IMDBMulti)",
             "generalise": "Gelato on larger molecules (IAM AIDS, Mutagenicity) at equal time",
             "auto": "auto with and without its gelato stage (IAM AIDS, Mutagenicity)"}[args.suite]
    print(f"## {title}\n")
    print(f"`python benchmarks/gelato_eval.py {shlex.join(sys.argv[1:])}`\n")
    print(f"gedkit {gedkit.__version__}, torch {torch.__version__} ({args.threads} thread(s)), "
          f"numpy {np.__version__}, Python {platform.python_version()}, "
          f"{platform.machine()}. gelato k={args.k}, seed {args.seed}"
          + (f", at most {args.limit_time:g} s per pair" if args.limit_time else "")
          + ". Times are wall-clock per pair, after a warm-up (kernels compiled, network "
          "loaded).\n")
    if args.suite == "benchmark":
        models = {name: resolve_model(getattr(args, MODEL_FLAGS[name]) or args.model
                                      or BENCHMARKS[name], args.weights)
                  for name in args.datasets}
        pairs, infos = [], {}
        for name in args.datasets:
            ps, infos[name] = run_benchmark(name, models[name], args)
            report_benchmark(name, models[name], ps, infos[name])
            pairs += ps
        extra = {"leakage": infos}
    elif args.suite == "auto":
        models = {}
        pairs = run_auto(args)
        report_auto(pairs, args)
        extra = {}
    else:
        models = {"molecules": resolve_model(args.model or
                                             ("chem_2" if args.costs == "chem_2"
                                              else "molecules"), args.weights)}
        pairs = run_generalise(models["molecules"], args)
        report_generalise(pairs, models["molecules"], args)
        extra = {}
    if args.json is not None:
        dump(args.json, args, models, pairs, extra)
        print(f"Every run: `{args.json}`\n")
    print(f"Total time: {time.perf_counter() - t0:.0f} s\n")


if __name__ == "__main__":
    main()
