"""GED heuristics, bounds and the ``auto`` portfolio side by side on IAM graph sets.

Datasets and cost models: AIDS and Mutagenicity (CHEM_2), Protein (PROTEIN), GREC (GREC_2).
Pairs are binned by size (both graphs' node counts in 1–10, 11–20, ..., 91–100), ``--pairs``
random distinct pairs per bin (fixed seed). On every pair run every registered heuristic / bound
method (IPFP with 10 starts), ``auto`` within ``--budget`` seconds and exact A* within
``--exact-timeout`` seconds; exact A* is skipped in the larger bins of a dataset once it proved
fewer than half the pairs of a bin. A pair's distance counts as *known* when the best lower bound
of any method meets the best upper bound (always so when exact search finished).

NetworkX's anytime exact search (``optimize_edit_paths``, the generator behind
``optimize_graph_edit_distance``) runs on the first ``--nx-pairs`` pairs of the bins up to
``--nx-max-nodes`` nodes, with auto's budget as its timeout and exactly gedkit's costs (read from
the compiled Problem); every networkx answer is checked against ``Problem.cost``. Usage::

    python benchmarks/heuristics_iam.py [--data ../shared/data]
        [--datasets AIDS Mutagenicity Protein GREC] [--pairs 10] [--budget 1]
        [--exact-timeout 10] [--nx-pairs 5] [--nx-max-nodes 20] [--plot-dir benchmarks/figures]

Prints Markdown (paste it into benchmarks/RESULTS.md), progress on stderr, and saves one plot
per dataset: mean certified gap against mean time per method.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import numpy as np
from _iam import DEFAULT_DATA, load_iam

import gedkit
from gedkit.problem import Problem
from gedkit.solvers import Budget, available, get_solver

COSTS = {"AIDS": "chem_2", "Mutagenicity": "chem_2", "Protein": "protein", "GREC": "grec_2"}
# Molecules keep only what CHEM_2 reads: with AIDS's coordinates and charges in the labels every
# atom would be a label of its own, hiding that the costs depend on label equality alone (same
# distances, but the solvers' label-counting shortcuts would be lost). The other sets' models
# read (nearly) every attribute, and their edges have optional ones (type1), so they keep all.
LABELS = {"AIDS": ("chem", "valence"), "Mutagenicity": ("chem", "valence")}
EXACT_MIN_SHARE = 0.5  # exact search goes on to the next bin while it proves this share
OVERRUN = 1.1  # a run "overran" its time limit beyond this factor
BIN_WIDTH, MAX_NODES = 10, 100
LARGE_FROM = 31  # "large" pairs: both graphs with at least this many nodes
OPTIONS = {"ipfp": {"starts": 10}}
SEED = 0
TOL = 1e-9

HEURISTICS = [name for name, cls in available().items() if not cls.exact]
METHODS = [*HEURISTICS, "auto", "exact"]


@dataclass
class Run:
    lower: float
    upper: float
    time: float


@dataclass
class NxRun:
    first: float | None  # first answer and when it came (s)
    first_time: float | None
    best: float | None
    time: float  # whole call, set-up included
    proved: bool  # the generator ended before its timeout: its last answer is optimal
    checked: int  # answers compared with Problem.cost
    mismatches: int


@dataclass
class Pair:
    bin: tuple[int, int]
    runs: dict[str, Run] = field(default_factory=dict)
    nx: NxRun | None = None

    @property
    def known(self) -> float | None:
        """The exact distance when some lower bound meets the best upper bound."""
        upper = min(r.upper for r in self.runs.values())
        lower = max(r.lower for r in self.runs.values())
        return upper if lower >= upper - TOL * max(1.0, upper) else None

    @property
    def large(self) -> bool:
        return self.bin[0] >= LARGE_FROM


# -- pairs ---------------------------------------------------------------------------------------
def size_bins(graphs: list) -> list[tuple[tuple[int, int], list[int]]]:
    """``((lo, hi), graph indices)`` for every bin holding at least two graphs."""
    out = []
    for lo in range(1, MAX_NODES + 1, BIN_WIDTH):
        hi = lo + BIN_WIDTH - 1
        idx = [i for i, g in enumerate(graphs) if lo <= g.n <= hi]
        if len(idx) >= 2:
            out.append(((lo, hi), idx))
    return out


def choose_pairs(idx: list[int], count: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """``count`` distinct unordered pairs of ``idx`` (all of them if there are fewer)."""
    k = len(idx)
    if k * (k - 1) // 2 <= count:
        return [(idx[a], idx[b]) for a in range(k) for b in range(a + 1, k)]
    seen: set[tuple[int, int]] = set()
    pairs = []
    while len(pairs) < count:
        a, b = (int(x) for x in rng.choice(k, size=2, replace=False))
        if (min(a, b), max(a, b)) not in seen:
            seen.add((min(a, b), max(a, b)))
            pairs.append((idx[a], idx[b]))
    return pairs


# -- gedkit --------------------------------------------------------------------------------------
def timed(method: str, problem: Problem, timeout: float | None) -> Run:
    solver = get_solver(method, **OPTIONS.get(method, {}))
    t0 = time.perf_counter()
    r = solver.solve(problem, Budget(timeout=timeout))
    return Run(r.lower_bound, r.upper_bound, time.perf_counter() - t0)


def warm_up(model: gedkit.costs.CostModel, graphs: list) -> None:
    """Compile (or load) every method's numba kernels before anything is timed: on a small
    pair and a pair of more than 12 nodes (where auto runs its heuristics), each both ways
    round (a larger first graph takes other code paths)."""
    order = sorted(range(len(graphs)), key=lambda i: graphs[i].n)
    sizes = [graphs[i].n for i in order]
    for lo in (sizes[0], min(13, sizes[-1])):
        a = order[np.searchsorted(sizes, lo)]
        b = order[min(np.searchsorted(sizes, graphs[a].n, side="right"), len(order) - 1)]
        for g1, g2 in ((graphs[a], graphs[b]), (graphs[b], graphs[a])):
            problem = model.compile(g1, g2)
            for method in METHODS:
                timed(method, problem, 0.2 if method in ("auto", "exact") else None)


# -- networkx ------------------------------------------------------------------------------------
def nx_graphs(problem: Problem) -> tuple[nx.Graph, nx.Graph]:
    """Both graphs with each node's position (``i``) and each edge's label id (``l``)."""
    out = []
    for g, adj in ((problem.g1, problem.adj1), (problem.g2, problem.adj2)):
        h = nx.Graph()
        h.add_nodes_from((i, {"i": i}) for i in range(g.n))
        h.add_edges_from((int(a), int(b), {"l": int(adj[a, b])}) for a, b in g.edges)
        out.append(h)
    return out[0], out[1]


def nx_costs(problem: Problem) -> dict:
    """networkx cost callables reading the Problem's arrays: the very same objective."""
    node = problem.node_costs.tolist()
    edge = problem.edge_label_matrix.tolist()
    return dict(
        node_subst_cost=lambda a, b: node[a["i"]][b["i"]],
        node_del_cost=lambda a: node[a["i"]][-1],
        node_ins_cost=lambda b: node[-1][b["i"]],
        edge_subst_cost=lambda a, b: edge[a["l"]][b["l"]],
        edge_del_cost=lambda a: edge[a["l"]][-1],
        edge_ins_cost=lambda b: edge[-1][b["l"]],
    )


def run_networkx(problem: Problem, budget: float) -> NxRun:
    """networkx's anytime search with ``budget`` as its own timeout (it checks the clock
    between steps, so it may overrun a little; set-up before its clock starts is counted)."""
    h1, h2 = nx_graphs(problem)
    first = first_time = best = None
    checked = mismatches = 0
    t0 = time.perf_counter()
    for path, _, cost in nx.optimize_edit_paths(h1, h2, **nx_costs(problem), timeout=budget):
        if first is None:
            first, first_time = cost, time.perf_counter() - t0
        best = cost
        forward = np.full(problem.n1, -1)
        for u, v in path:
            if u is not None and v is not None:
                forward[u] = v
        checked += 1
        mismatches += abs(problem.cost(forward) - cost) > 1e-6 * max(1.0, cost)
    elapsed = time.perf_counter() - t0
    return NxRun(first, first_time, best, elapsed, elapsed < budget, checked, mismatches)


# -- one dataset ---------------------------------------------------------------------------------
def run_dataset(name: str, args: argparse.Namespace) -> list[Pair]:
    graphs = load_iam(args.data, name, *LABELS.get(name, ("*", "*")))
    model = gedkit.costs.get(COSTS[name])
    bins = size_bins(graphs)
    warm_up(model, graphs)
    pairs: list[Pair] = []
    exact_on = True
    for (lo, hi), idx in bins:
        t_bin = time.perf_counter()
        rng = np.random.default_rng([SEED, zlib.crc32(name.encode()), lo])
        chosen = choose_pairs(idx, args.pairs, rng)
        proved = 0
        for k, (i, j) in enumerate(chosen):
            problem = model.compile(graphs[i], graphs[j])
            pair = Pair((lo, hi))
            for method in HEURISTICS:
                pair.runs[method] = timed(method, problem, None)
            pair.runs["auto"] = timed("auto", problem, args.budget)
            if exact_on:
                pair.runs["exact"] = timed("exact", problem, args.exact_timeout)
                proved += pair.runs["exact"].lower >= pair.runs["exact"].upper
            if hi <= args.nx_max_nodes and k < args.nx_pairs:
                pair.nx = run_networkx(problem, args.budget)
            pairs.append(pair)
        exact_note = f"proved {proved}" if exact_on else "skipped"
        print(f"{name} {lo}–{hi}: {len(chosen)} pairs, exact {exact_note}, "
              f"{time.perf_counter() - t_bin:.1f} s", file=sys.stderr, flush=True)
        exact_on = exact_on and proved >= EXACT_MIN_SHARE * len(chosen)
    return pairs


# -- reporting -----------------------------------------------------------------------------------
def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def gap(run: Run) -> float:
    return (run.upper - run.lower) / run.upper if run.upper > 0 else 0.0


def rel_error(run: Run, exact: float) -> float | None:
    return (run.upper - exact) / exact if exact > 0 else None


def hits(run: Run, exact: float) -> bool:
    return run.upper <= exact + TOL * max(1.0, exact)


def fmt(x: float | None, spec: str = ".1f") -> str:
    return "—" if x is None else format(x, spec)


def fmt_ms(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    ms = 1000 * seconds
    return f"{ms:.2f}" if ms < 10 else f"{ms:.0f}"


def pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def table(header: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def report_dataset(name: str, pairs: list[Pair]) -> None:
    bins = sorted({p.bin for p in pairs})
    by_bin = {b: [p for p in pairs if p.bin == b] for b in bins}
    known = sum(p.known is not None for p in pairs)
    print(f"### {name} ({COSTS[name]}): {len(pairs)} pairs, distance known for {known}\n")
    head = ["method"] + [f"{lo}–{hi} ({len(by_bin[lo, hi])})" for lo, hi in bins]

    def cells(stat) -> list[list[str]]:
        return [[m] + [stat(m, by_bin[b]) for b in bins] for m in METHODS]

    def runs(m, ps):
        return [p.runs[m] for p in ps if m in p.runs]

    print("Mean upper bound, by size bin (pairs):\n")
    table(head, cells(lambda m, ps: fmt(mean(r.upper for r in runs(m, ps)))))
    print("Mean lower bound:\n")
    table(head, cells(lambda m, ps: fmt(mean(r.lower for r in runs(m, ps)))))
    print("Mean time (ms):\n")
    table(head, cells(lambda m, ps: fmt_ms(mean(r.time for r in runs(m, ps)))))

    def vs_exact(m, ps):
        ps = [p for p in ps if m in p.runs and p.known is not None]
        if not ps:
            return "—"
        err = mean(rel_error(p.runs[m], p.known) for p in ps)
        return f"{pct(err)} · {pct(mean(hits(p.runs[m], p.known) for p in ps))}"

    known_head = ["method"] + [
        f"{lo}–{hi} ({sum(p.known is not None for p in by_bin[lo, hi])})" for lo, hi in bins
    ]
    print("Where the distance is known (pairs): mean relative error of the upper bound "
          "· share of pairs where it is exact:\n")
    table(known_head, cells(vs_exact))


def overran(times: list[float], limit: float) -> str:
    """How many runs took longer than their time limit allows, and the longest."""
    if not times:
        return "—"
    return f"{sum(t > OVERRUN * limit for t in times)}/{len(times)} (max {max(times):.2f} s)"


def report_auto(results: dict[str, list[Pair]], budget: float, exact_timeout: float) -> None:
    print(f"### auto within {budget:g} s\n")
    rows = []
    for name, pairs in results.items():
        known = [p for p in pairs if p.known is not None]
        large = [p for p in pairs if p.large]
        auto = [p.runs["auto"] for p in large]
        rows.append([
            name, str(len(known)),
            pct(mean(rel_error(p.runs["auto"], p.known) for p in known)),
            pct(mean(hits(p.runs["auto"], p.known) for p in known)),
            str(len(large)), pct(mean(gap(r) for r in auto)),
            pct(mean(r.lower >= r.upper for r in auto)),
            fmt_ms(mean(r.time for r in auto)),
            overran([p.runs["auto"].time for p in pairs], budget),
            overran([p.runs["exact"].time for p in pairs if "exact" in p.runs], exact_timeout),
        ])
    print(f"Distance known: mean relative error of auto's upper bound and share of pairs where "
          f"it is exact. Pairs ≥ {LARGE_FROM} nodes: auto's certified gap, proven optimal, time. "
          f"Over limit: runs longer than {OVERRUN:g} × their limit (all pairs), longest run.\n")
    table(["dataset", "pairs, distance known", "mean rel. error", "exact",
           f"pairs ≥ {LARGE_FROM} nodes", "mean certified gap", "proven optimal",
           "mean time (ms)", "auto over budget", "exact over timeout"], rows)

    large = {name: [p for p in pairs if p.large] for name, pairs in results.items()}
    large = {name: ps for name, ps in large.items() if ps}
    if not large:
        return
    print(f"Mean upper bound on the pairs of {LARGE_FROM}–{MAX_NODES} nodes "
          "(share of pairs where auto's is at most as large):\n")
    rows = []
    for m in [*HEURISTICS, "auto"]:
        row = [m]
        for ps in large.values():
            ub = mean(p.runs[m].upper for p in ps)
            share = mean(p.runs["auto"].upper <= p.runs[m].upper + TOL for p in ps)
            row.append(fmt(ub) if m == "auto" else f"{fmt(ub)} ({pct(share)})")
        rows.append(row)
    verdict = ["auto below every heuristic on average"]
    for ps in large.values():
        auto = mean(p.runs["auto"].upper for p in ps)
        verdict.append("yes" if all(auto < mean(p.runs[m].upper for p in ps) - TOL
                                    for m in HEURISTICS) else "**no**")
    rows.append(verdict)
    table(["method"] + [f"{name} ({len(ps)})" for name, ps in large.items()], rows)


def report_networkx(results: dict[str, list[Pair]], budget: float) -> None:
    rows = []
    checked = mismatches = 0
    for name, pairs in results.items():
        for b in sorted({p.bin for p in pairs if p.nx is not None}):
            ps = [p for p in pairs if p.bin == b and p.nx is not None]
            auto = [p.runs["auto"] for p in ps]

            def ratio(value, ub):
                if value is None:
                    return None
                return value / ub if ub > 0 else (1.0 if value == 0 else None)

            rows.append([
                name, f"{b[0]}–{b[1]}", str(len(ps)),
                fmt_ms(mean(p.nx.first_time for p in ps)),
                fmt(mean(ratio(p.nx.first, a.upper) for p, a in zip(ps, auto, strict=True)), ".3f"),
                fmt(mean(ratio(p.nx.best, a.upper) for p, a in zip(ps, auto, strict=True)), ".3f"),
                f"{sum(p.nx.proved for p in ps)}/{len(ps)}",
                f"{sum(a.lower >= a.upper for a in auto)}/{len(ps)}",
                fmt(mean(p.nx.time for p in ps), ".2f"), fmt_ms(mean(a.time for a in auto)),
                fmt(mean(p.nx.time / a.time for p, a in zip(ps, auto, strict=True)), ".0f"),
                overran([p.nx.time for p in ps], budget),
                str(sum(p.nx.first is None for p in ps)),
            ])
            checked += sum(p.nx.checked for p in ps)
            mismatches += sum(p.nx.mismatches for p in ps)
    if not rows:
        return
    print(f"### NetworkX `optimize_edit_paths` with the same costs and a {budget:g} s timeout\n")
    print("Ratios are networkx / gedkit auto (upper bounds; times), averaged over pairs. "
          f"Over budget: runs longer than {OVERRUN:g} × the budget, longest run.\n")
    table(["dataset", "nodes", "pairs", "nx first answer (ms)", "nx first / auto",
           "nx best / auto", "nx proved", "auto proved", "nx time (s)", "auto time (ms)",
           "time ratio", "nx over budget", "nx no answer"], rows)
    verdict = ("equal to `Problem.cost` for all" if mismatches == 0
               else f"**{mismatches} differ from `Problem.cost`** among")
    print(f"Cost check: networkx's path cost, recomputed by gedkit from its node map, is "
          f"{verdict} {checked} networkx answers.\n")


def plot(name: str, pairs: list[Pair], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = [(f"1–{LARGE_FROM - 1} nodes", [p for p in pairs if not p.large]),
              (f"{LARGE_FROM}–{MAX_NODES} nodes", [p for p in pairs if p.large])]
    groups = [(title, ps) for title, ps in groups if ps]
    fig, axes = plt.subplots(1, len(groups), figsize=(6 * len(groups), 4.5), squeeze=False)
    for ax, (title, ps) in zip(axes[0], groups, strict=True):
        for k, m in enumerate(METHODS):
            runs = [p.runs[m] for p in ps if m in p.runs]
            if not runs:
                continue
            x = 1000 * mean(r.time for r in runs)
            y = 100 * mean(gap(r) for r in runs)
            ax.scatter(x, y, c=f"C{k % 10}", marker="s" if m in ("auto", "exact") else "o")
            ax.annotate(m, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.set_xscale("log")
        ax.set_xlabel("mean time per pair (ms, log)")
        ax.set_ylabel("mean certified gap (upper − lower) / upper (%)")
        ax.set_title(f"{name} ({COSTS[name]}), {title}, {len(ps)} pairs")
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--datasets", nargs="+", choices=list(COSTS), default=list(COSTS))
    ap.add_argument("--pairs", type=int, default=10, help="random pairs per size bin")
    ap.add_argument("--budget", type=float, default=1.0, help="auto's (and networkx's) seconds")
    ap.add_argument("--exact-timeout", type=float, default=10.0)
    ap.add_argument("--nx-pairs", type=int, default=5, help="networkx pairs per bin")
    ap.add_argument("--nx-max-nodes", type=int, default=20, help="networkx on bins up to this")
    ap.add_argument("--plot-dir", type=Path, default=Path("benchmarks/figures"))
    args = ap.parse_args()

    t0 = time.perf_counter()
    print("## GED heuristics, bounds and auto on IAM graphs\n")
    print(f"`python benchmarks/heuristics_iam.py {shlex.join(sys.argv[1:])}`\n")
    print(f"gedkit {gedkit.__version__}, networkx {nx.__version__}, numpy {np.__version__}, "
          f"Python {platform.python_version()}. Methods: {', '.join(HEURISTICS)} (IPFP with "
          f"{OPTIONS['ipfp']['starts']} starts), auto ({args.budget:g} s), exact A* "
          f"({args.exact_timeout:g} s; skipped in a dataset's larger bins once it proved "
          f"fewer than {EXACT_MIN_SHARE:.0%} of a bin's pairs). Times are wall-clock per pair, "
          "single-threaded.\n")
    results = {name: run_dataset(name, args) for name in args.datasets}
    for name, pairs in results.items():
        report_dataset(name, pairs)
    report_auto(results, args.budget, args.exact_timeout)
    report_networkx(results, args.budget)
    args.plot_dir.mkdir(parents=True, exist_ok=True)
    for name, pairs in results.items():
        path = args.plot_dir / f"heuristics_{name}.png"
        plot(name, pairs, path)
        print(f"Plot: `{path}`\n")
    print(f"Total benchmark time: {time.perf_counter() - t0:.0f} s\n")


if __name__ == "__main__":
    main()
