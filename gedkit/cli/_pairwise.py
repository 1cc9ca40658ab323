"""``gedkit pairwise FILES...``: a distance matrix over graph files and collections."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

from gedkit.cli._args import add_solver_arguments, solve_options
from gedkit.cli._inputs import add_input_arguments, read_file
from gedkit.errors import GedkitError
from gedkit.graph import Graph
from gedkit.pairwise import PairwiseResult, pairwise


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "pairwise",
        help="distance matrix between graphs",
        description="Graph edit distances between all graphs in FILES (each file may hold a "
        "collection), or between those and the graphs of --against.",
        allow_abbrev=False,
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="graph or collection files")
    parser.add_argument(
        "--against", nargs="+", metavar="FILE",
        help="column graphs (default: FILES against themselves)",
    )
    add_input_arguments(parser)
    add_solver_arguments(parser)
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="worker processes (-1 = all cores)"
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON for programs")
    output.add_argument(
        "--csv", metavar="OUT", help="write the distance matrix as CSV to OUT ('-' = stdout)"
    )
    parser.set_defaults(run=run, command_parser=parser)


def run(args: argparse.Namespace) -> int:
    options = solve_options(args, "timeout", "memory")
    rows, row_names = _load(args.files, args)
    cols, col_names = _load(args.against, args) if args.against else (None, row_names)
    result = pairwise(
        rows, cols, costs=args.costs, method=args.method, n_jobs=args.jobs, **options
    )
    if args.json:
        print(json.dumps(_as_dict(result, row_names, col_names)))
    elif args.csv == "-":
        _write_csv(sys.stdout, result, row_names, col_names)
    elif args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as out:
            _write_csv(out, result, row_names, col_names)
        print(f"wrote the {result.shape[0]}x{result.shape[1]} distance matrix to {args.csv}")
    else:
        print(_table(result, row_names, col_names))
    return 0


def _load(files: list[str], args: argparse.Namespace) -> tuple[list[Graph], list[str]]:
    graphs, names = [], []
    for file in files:
        found = read_file(file, args)
        graphs += found
        stem = Path(file).stem
        for k, g in enumerate(found):
            names.append(g.name or (stem if len(found) == 1 else f"{stem}[{k}]"))
    if not graphs:
        raise GedkitError(f"no graphs in {', '.join(files)}")
    return graphs, names


def _as_dict(result: PairwiseResult, rows: list[str], cols: list[str]) -> dict:
    return {
        "rows": rows,
        "columns": cols,
        "method": result.method,
        "distance": result.distance.tolist(),
        "lower_bound": result.lower_bound.tolist(),
        "upper_bound": result.upper_bound.tolist(),
        "optimal": result.optimal.tolist(),
        "time": result.time.tolist(),
    }


def _write_csv(out: Any, result: PairwiseResult, rows: list[str], cols: list[str]) -> None:
    writer = csv.writer(out)
    writer.writerow(["", *cols])
    for name, values in zip(rows, result.distance.tolist(), strict=True):
        writer.writerow([name, *values])


def _table(result: PairwiseResult, rows: list[str], cols: list[str]) -> str:
    """The matrix for people; ``*`` marks distances not proven optimal."""
    cells = [
        [f"{d:g}" + ("" if ok else "*") for d, ok in zip(drow, orow, strict=True)]
        for drow, orow in zip(result.distance.tolist(), result.optimal.tolist(), strict=True)
    ]
    first = max(len(name) for name in rows)
    widths = [max(len(cols[j]), *(len(row[j]) for row in cells)) for j in range(len(cols))]
    lines = ["  ".join([" " * first, *(c.rjust(w) for c, w in zip(cols, widths, strict=True))])]
    for name, row in zip(rows, cells, strict=True):
        lines.append(
            "  ".join([name.ljust(first), *(c.rjust(w) for c, w in zip(row, widths, strict=True))])
        )
    if not result.optimal.all():
        lines.append("* upper bound, not proven optimal (--json gives the lower bounds)")
    return "\n".join(lines)
