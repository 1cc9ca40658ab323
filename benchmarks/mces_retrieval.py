"""MCES similarity search on IAM AIDS molecules: approximate rankings against the exact one.

Draws ``--queries`` query molecules and a disjoint collection of ``--collection`` molecules
(atoms labelled by element, bonds by valence, sizes within ``--min-atoms``..``--max-atoms``)
and ranks the whole collection for every query by Johnson similarity, with each method
(:func:`gedkit.mces.rank`). The exact ranking is the ground truth: per query, the relevant
molecules are its exact top ``--relevant`` (ties at the last place included) and the best
match is the exact top one (ties included). Per method it prints MRR of the best match, MAP
and P@10 against the relevant set, the mean per-query rank correlation of the similarities
with the exact ones, the share of pairs at the exact similarity, and queries per second
(wall time to rank the whole collection, one process). Usage::

    python benchmarks/mces_retrieval.py [--data ../shared/data] [--queries 50]
        [--collection 1000] [--min-atoms 8] [--max-atoms 20] [--seed 0] [--relevant 10]
        [--exact-timeout 10] [--methods ga,nga] [--nga-options steps=3,samples=4]
        [--ga-options ...] [--approx-timeout SECONDS]

Exact similarities are cached per query in ``benchmarks/out/`` (keyed by the data settings
and the exact timeout), so another run with other approximate methods reuses them and an
interrupted run resumes. Prints a Markdown table (paste it into benchmarks/RESULTS.md);
progress goes to stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
import time
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from _iam import DEFAULT_DATA, load_iam
from mces_iam import use_torch_threads
from scipy import stats
from tqdm import tqdm

import gedkit
from gedkit.errors import GedkitError
from gedkit.mces import mean_average_precision, mrr, precision_at_k, rank
from gedkit.mces.base import get_method

OUT = Path(__file__).resolve().parent / "out"
TIE = 1e-9  # equal similarities computed from different graph sizes may differ in the last bit
P_AT = 10


def parse_options(text: str) -> dict[str, Any]:
    """``"steps=3,lr=0.1,refine=false,init=random"`` as keyword arguments, values coerced
    to bool, None, int or float where they read as one.

    >>> parse_options("steps=3, lr=0.1,refine=false,init=random,seed=none")
    {'steps': 3, 'lr': 0.1, 'refine': False, 'init': 'random', 'seed': None}
    """
    options = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, sep, value = (s.strip() for s in item.partition("="))
        if not sep or not key:
            raise SystemExit(f"bad method option {item!r}: write key=value pairs, e.g. steps=3")
        options[key] = _coerce(value)
    return options


def _coerce(value: str) -> Any:
    words = {"true": True, "false": False, "none": None}
    if value.lower() in words:
        return words[value.lower()]
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def draw(data: Path, args) -> tuple[list[gedkit.Graph], list[gedkit.Graph]]:
    """Queries and collection, disjoint, drawn from the molecules of allowed size."""
    graphs = load_iam(data, "AIDS", node_label="symbol", edge_label="valence")
    pool = [g for g in graphs if args.min_atoms <= g.n <= args.max_atoms]
    need = args.queries + args.collection
    if need > len(pool):
        raise SystemExit(f"only {len(pool)} molecules of {args.min_atoms}-{args.max_atoms} "
                         f"atoms, {need} needed")
    order = np.random.default_rng(args.seed).permutation(len(pool))[:need]
    chosen = [pool[i] for i in order]
    return chosen[:args.queries], chosen[args.queries:]


class ExactCache:
    """Per-query exact similarities in a JSON file named by a hash of what they depend on;
    saved after every query."""

    def __init__(self, settings: dict):
        key = hashlib.sha1(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
        self.path = OUT / f"mces_retrieval_exact_{key}.json"
        self.settings = settings
        self.queries: dict[str, dict] = {}
        if self.path.is_file():
            self.queries = json.loads(self.path.read_text())["queries"]

    def save(self) -> None:
        OUT.mkdir(exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"settings": self.settings, "queries": self.queries}))
        tmp.replace(self.path)  # an interrupted write never spoils the cache


def counting(items: Iterable, bar: tqdm) -> Iterator:
    """``items``, advancing ``bar`` as each is taken (rank consumes candidates lazily)."""
    for x in items:
        yield x
        bar.update()


def run_method(method, queries, collection, options, timeout, bar):
    """Per query: (similarities in collection order, proven optimal flags, wall seconds,
    count of the NGA init each pair used)."""
    out = []
    for query in queries:
        t0 = time.perf_counter()
        hits = rank(query, counting(collection, bar), method, timeout=timeout, **options)
        seconds = time.perf_counter() - t0
        sims, optimal = np.zeros(len(collection)), np.zeros(len(collection), dtype=bool)
        for h in hits:
            sims[h.index], optimal[h.index] = h.similarity, h.result.optimal
        out.append((sims, optimal, seconds, Counter(str(h.result.stats.get("init")) for h in hits)))
    return out


def exact_similarities(args, queries, collection, names_hash, bar_args) -> tuple[list, bool]:
    """Exact per-query results, from the cache where it has them; True if all were cached."""
    cache = ExactCache(dict(
        min_atoms=args.min_atoms, max_atoms=args.max_atoms, queries=args.queries,
        collection=args.collection, seed=args.seed, exact_timeout=args.exact_timeout,
        molecules=names_hash,
    ))
    done = {int(q): (np.array(v["similarity"]), np.array(v["optimal"], dtype=bool),
                     v["seconds"], Counter()) for q, v in cache.queries.items()}
    todo = [q for q in range(len(queries)) if q not in done]
    if not todo:
        return [done[q] for q in range(len(queries))], True
    print(f"exact: {len(done)} of {len(queries)} queries cached in {cache.path}", file=sys.stderr)
    warm_up({"exact": {}})
    with tqdm(desc="exact", initial=len(done) * len(collection), **bar_args) as bar:
        for q in todo:
            (sims, optimal, seconds, _), = run_method(
                "exact", [queries[q]], collection, {}, args.exact_timeout, bar)
            cache.queries[str(q)] = dict(similarity=sims.tolist(), optimal=optimal.tolist(),
                                         seconds=seconds)
            cache.save()
            done[q] = (sims, optimal, seconds, Counter())
    return [done[q] for q in range(len(queries))], False


def ranking(sims: np.ndarray) -> list[int]:
    """Collection positions, most similar first, ties in collection order (as rank does)."""
    return sorted(range(len(sims)), key=lambda i: (-sims[i], i))


def top(sims: np.ndarray, k: int) -> set[int]:
    """The top ``k`` positions, plus every one tied with the k-th."""
    threshold = np.sort(sims)[::-1][min(k, len(sims)) - 1]
    return set(np.flatnonzero(sims >= threshold - TIE).tolist())


def mean_correlation(fn, approx: list, exact: list) -> float:
    """Mean over queries of ``fn``'s coefficient; queries where it is undefined (a constant
    column) are left out."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on constant input, then returns nan
        values = [fn(a, e)[0] for a, e in zip(approx, exact, strict=True)]
    return float(np.nanmean(values)) if not np.all(np.isnan(values)) else float("nan")


def report_row(label, results, exact_sims, best, relevant) -> str:
    sims = [r[0] for r in results]
    rankings = [ranking(s) for s in sims]
    seconds = np.array([r[2] for r in results])
    at_exact = np.mean([np.mean(s >= e - TIE) for s, e in zip(sims, exact_sims, strict=True)])
    pairs = len(sims) * len(sims[0])
    return (f"| {label} | {mrr(rankings, best):.3f} | "
            f"{mean_average_precision(rankings, relevant):.3f} | "
            f"{precision_at_k(rankings, relevant, P_AT):.3f} | "
            f"{mean_correlation(stats.spearmanr, sims, exact_sims):.3f} | "
            f"{mean_correlation(stats.kendalltau, sims, exact_sims):.3f} | "
            f"{100 * at_exact:.1f} | {1000 * seconds.sum() / pairs:.2f} | "
            f"{len(seconds) / seconds.sum():.3g} |")


def warm_up(methods: dict[str, dict]) -> None:
    """Compile the kernels and load torch and the NGA weights outside the timings."""
    a = gedkit.Graph({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 2)])
    b = gedkit.Graph({0: "O", 1: "C", 2: "C", 3: "N"}, [(0, 1, 2), (1, 2, 1), (2, 3, 1)])
    for method, options in methods.items():
        gedkit.mces(a, b, method, **options)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--collection", type=int, default=1000)
    ap.add_argument("--min-atoms", type=int, default=8)
    ap.add_argument("--max-atoms", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--relevant", type=int, default=10,
                    help="relevant = the exact top k (ties at the k-th included)")
    ap.add_argument("--exact-timeout", type=float, default=10.0, help="seconds per pair")
    ap.add_argument("--methods", default="ga,nga", help="approximate methods, comma-separated")
    ap.add_argument("--nga-options", default="steps=3,samples=4",
                    help="k=v pairs, e.g. init=random,steps=3,samples=4,lr=0.01")
    ap.add_argument("--ga-options", default="", help="k=v pairs, e.g. restarts=2")
    ap.add_argument("--approx-timeout", type=float, default=None,
                    help="seconds per pair for the approximate methods (default: none)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads for nga (default 1, like every other method)")
    args = ap.parse_args()
    use_torch_threads(args.threads)
    if min(args.queries, args.collection, args.relevant) < 1:
        ap.error("--queries, --collection and --relevant must be positive")

    given = {"nga": parse_options(args.nga_options), "ga": parse_options(args.ga_options)}
    methods = {m: given.get(m, {}) for m in (s.strip() for s in args.methods.split(",")) if m}
    try:
        for m, options in methods.items():
            get_method(m, **options)  # fail on a typo before loading anything
    except GedkitError as e:
        ap.error(str(e))

    queries, collection = draw(Path(args.data), args)
    names = json.dumps([g.name for g in queries + collection])
    names_hash = hashlib.sha1(names.encode()).hexdigest()
    warm_up(methods)
    bar_args = dict(total=len(queries) * len(collection), unit="pair", file=sys.stderr,
                    smoothing=0.05)

    exact, cached = exact_similarities(args, queries, collection, names_hash, bar_args)
    exact_sims = [r[0] for r in exact]
    best = [top(s, 1) for s in exact_sims]
    relevant = [top(s, args.relevant) for s in exact_sims]
    rows = [report_row("exact" + (" (cached timings)" if cached else ""), exact, exact_sims,
                       best, relevant)]
    notes = []
    for m, options in methods.items():
        with tqdm(desc=m, **bar_args) as bar:
            results = run_method(m, queries, collection, options, args.approx_timeout, bar)
        label = m + (f" ({', '.join(f'{k}={v}' for k, v in options.items())})" if options else "")
        rows.append(report_row(label, results, exact_sims, best, relevant))
        inits = sum((r[3] for r in results), Counter())
        if m == "nga":
            notes.append("nga init used per pair: " + ", ".join(
                f"{k} {v:,}" for k, v in sorted(inits.items()) if k != "None")
                + " (the other pairs share no bond class, nothing to solve)")

    pairs = len(queries) * len(collection)
    unproven = sum(int((~r[1]).sum()) for r in exact)
    print(f"### MCES retrieval on IAM AIDS: {len(queries)} queries, {len(collection):,} "
          f"molecules\n")
    print(f"Command: `{shlex.join(['python', *sys.argv])}`\n")
    print(f"Molecules of {args.min_atoms}-{args.max_atoms} atoms (seed {args.seed}), queries "
          f"disjoint from the collection; similarity = Johnson. Relevant = exact top "
          f"{args.relevant} with ties (mean {np.mean([len(r) for r in relevant]):.1f} per "
          f"query); best match = exact top 1 with ties (mean "
          f"{np.mean([len(b) for b in best]):.2f}). Exact: {args.exact_timeout:g} s per pair, "
          f"{unproven:,} of {pairs:,} pairs not proven optimal (their exact similarity is a "
          f"lower bound).\n")
    print(f"| method | MRR (best match) | MAP (top {args.relevant}) | P@{P_AT} | Spearman ρ | "
          f"Kendall τ | % pairs at exact similarity | ms per pair | queries/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    for note in notes:
        print(f"- {note}")
    print("- Correlations: per query over the collection, with the exact similarities, "
          "averaged over queries. Queries/s: wall time to rank the whole collection, one "
          "process.")


if __name__ == "__main__":
    main()
