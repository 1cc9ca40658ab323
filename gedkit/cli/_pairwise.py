"""``gedkit pairwise FILES...``: a distance matrix over graph files and collections."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gedkit.budget import PAIR_TIMEOUT as DEFAULT_TIMEOUT
from gedkit.cli._args import add_solver_arguments, check_output, solve_options, written
from gedkit.cli._inputs import (
    _cli_words,
    add_input_arguments,
    add_strict_argument,
    check_graph_dir,
    no_graph,
    read_file,
    tell_skipped,
)
from gedkit.errors import ClusterLost, GedkitError, OptionError, counted

if TYPE_CHECKING:  # numpy and the solvers load when the command runs
    from gedkit.graph import Graph
    from gedkit.pairwise import PairwiseResult

CSV_COLUMNS = ("row", "column", "distance", "lower_bound", "upper_bound", "optimal", "time",
               "status", "error")
_MAX_FAILURES_SHOWN = 10


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "pairwise",
        help="distance matrix between graphs",
        description="Graph edit distances between all graphs in FILES (each file may hold a "
        "collection), or between those and the graphs of --against. Every pair is bounded by "
        f"a time limit ({DEFAULT_TIMEOUT:g} s unless --timeout says otherwise); a pair that "
        "cannot be solved is reported as failed while the others go on.",
        epilog="Exit status: 0 when every pair was done, 1 when some failed (the reasons on "
        "stderr), 2 for bad input, 130 after Ctrl-C or SIGTERM (the pairs done are still "
        "written).",
        allow_abbrev=False,
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="graph or collection files")
    parser.add_argument(
        "--against", nargs="+", metavar="FILE",
        help="column graphs (default: FILES against themselves)",
    )
    add_input_arguments(parser)
    add_strict_argument(parser)
    add_solver_arguments(parser, timeout=DEFAULT_TIMEOUT)
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="N",
        help="worker processes (-1 = all cores; default 1: this process)"
    )
    scale = parser.add_argument_group("long jobs")
    scale.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="run on the Dask cluster of this scheduler (tcp://host:8786; needs gedkit[dask]) "
        "instead of local processes",
    )
    scale.add_argument(
        "--out", metavar="FILE",
        help="write every pair to this SQLite file as it is done; the same command run again "
        "resumes, solving only the pairs not in it",
    )
    scale.add_argument(
        "--export", nargs=2, metavar=("pyg", "DIR"),
        help="also write the matrix as torch_geometric.datasets.GEDDataset's raw files in DIR "
        "(with bounds, optimal flags and node maps in DIR/gedkit; needs gedkit[pyg])",
    )
    scale.add_argument(
        "--pyg-name", metavar="NAME", default=None,
        help="GEDDataset name for --export: AIDS700nef (molecules, by default when the labels "
        "are atom symbols) or LINUX, IMDBMulti, ALKANE (structure only)",
    )
    scale.add_argument(
        "--pyg-test", metavar="N", type=_count_or_fraction, default=None,
        help="without --against: how many of the graphs (or which fraction) form --export's "
        "test split (default 0.2); with --against the columns do",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON for programs")
    output.add_argument(
        "--csv", metavar="OUT",
        help=f"write one CSV row per pair to OUT ('-' = stdout): {', '.join(CSV_COLUMNS)}",
    )
    parser.set_defaults(run=run, command_parser=parser)


def _count_or_fraction(text: str) -> int | float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    return int(value) if value >= 1 and value.is_integer() else value


def run(args: argparse.Namespace) -> int:
    from gedkit.pairwise import check_directions, lost_cluster, pairwise

    options = {
        **solve_options(args, "memory"), "costs": args.costs, "method": args.method,
        "timeout": args.timeout, "n_jobs": args.jobs,
    }
    pairwise([], progress=False, **options)  # every option checked before any file is read
    check_output(args.csv, "--csv", args)
    _check_out(args)
    if args.export is not None:
        _check_export(args)
    elif args.pyg_name is not None or args.pyg_test is not None:
        flag = "--pyg-name" if args.pyg_name is not None else "--pyg-test"
        raise OptionError(f"{flag} says how --export pyg DIR writes the dataset: give --export "
                          "too, or leave it out")
    rows, row_names, row_refs = _load(args.files, args)
    cols, col_names, col_refs = (_load(args.against, args) if args.against else
                                 (None, row_names, row_refs))
    # a directed graph against an undirected one (--directed keep): one line naming their
    # files, status 2, before any solve (every such pair failed, status 1)
    check_directions(rows, cols, named=lambda side, k: (row_refs, col_refs)[side][k])
    if args.export is not None:  # labels the dataset cannot hold, a test split that does
        # not fit: said before any solve
        from gedkit.io.pyg import dataset_name, held_out

        dataset_name([g for g in rows + (cols or []) if g is not None], args.pyg_name)
        if cols is None:
            with _cli_words():
                held_out(0.2 if args.pyg_test is None else args.pyg_test, len(rows))
    from gedkit.cluster import on_scheduler

    lost: ClusterLost | None = None  # the scheduler, lost mid-job: the pairs done are
    with on_scheduler(args.scheduler) as client:  # written all the same, then the error
        try:
            result = pairwise(rows, cols, client=client, out=args.out,
                              node_maps=args.export is not None, **options)
        except ClusterLost as err:
            if err.result is None:
                raise
            result, lost = err.result, err
    if result.resumed:
        print(f"gedkit: resumed {result.resumed:,} pairs from {args.out}; solved "
              f"{len(result.pairs) - result.resumed - result.counts()['pending']:,}",
              file=sys.stderr)
    summary = result.summary()
    if args.json:
        result.write_json(sys.stdout, row_names, col_names)
    elif args.csv == "-":
        _write_csv(sys.stdout, result, row_names, col_names)
        if not result.interrupted:  # (else the line below says it, once)
            print(f"gedkit: {summary}", file=sys.stderr)
    elif args.csv and result.interrupted and os.path.exists(args.csv) and _none_solved(result):
        # stopped before any pair: an earlier run's file is worth more than a table of
        # pending pairs
        print(f"gedkit: interrupted before any pair was done; {args.csv} left as it was",
              file=sys.stderr)
    elif args.csv:
        pending = result.counts()["pending"]
        # (after Ctrl-C "wrote 45,150 pairs" named the pending rows as pairs written; the
        # summary counts the pairs: "wrote 210 pairs to p.csv: 210 pairs, ..." said it twice)
        what = ("" if not pending else
                f" ({len(result.pairs) - pending:,} pairs done, "
                f"{counted(pending, 'pending row')})")
        try:
            with written(args.csv, quiet=result.interrupted) as out:
                _write_csv(out, result, row_names, col_names)
        except KeyboardInterrupt:
            if not result.interrupted:
                raise
            # a second Ctrl-C while the rows were written (4.45 million pending rows of a
            # job stopped early took 14 s, and the second Ctrl-C lost every pair done): the
            # pairs done alone, at once
            with written(args.csv) as out:
                _write_csv(out, result, row_names, col_names, done_only=True)
            what = (f" ({len(result.pairs) - pending:,} pairs done; the pending rows left "
                    "out after a second Ctrl-C)")
        print(f"wrote {args.csv}{what}: {summary}")
    else:
        print(_table(result, row_names, col_names))
    _tell_failures(result, row_names, col_names)
    pending = result.counts()["pending"]
    if args.export is not None and pending:
        # Ctrl-C left pairs unsolved: a dataset with them would train on inf targets (it
        # was written, 739 of 820 pairs inf, with the usual line)
        again = (f"the same command again continues from {args.out} and writes it"
                 if args.out else "run it again with --out FILE, which keeps the pairs done "
                 "for the next run")
        print(f"gedkit: note: --export not written: {pending:,} of "
              f"{counted(len(result.pairs), 'pair')} not solved; {again}", file=sys.stderr)
    elif args.export is not None:
        from gedkit.io.pyg import write_geddataset

        root = write_geddataset(args.export[1], result, rows, cols, name=args.pyg_name,
                                test=0.2 if args.pyg_test is None else args.pyg_test,
                                names=(row_names, col_names))
        name = json.loads((root / "gedkit" / "meta.json").read_text())["name"]
        print(f"gedkit: wrote GEDDataset files to {root} (load them with "
              f"torch_geometric.datasets.GEDDataset({str(root)!r}, {name!r}))", file=sys.stderr)
        if cols is not None:
            print("gedkit: note: with --against only train x test pairs are computed; the "
                  "train x train and test x test pairs are inf in the export (leave --against "
                  "out to compute every pair)", file=sys.stderr)
    if lost is not None:
        where = (f"written to {args.csv}" if args.csv not in (None, "-") else
                 "printed above")
        kept = (f"; the same command again continues from {args.out}" if args.out else
                "; --out FILE keeps the pairs done for the same command to continue")
        what = lost_cluster(lost.workers, f" at {args.scheduler}")
        raise ClusterLost(f"{what}: {len(result.pairs) - result.counts()['pending']:,} of "
                          f"{counted(len(result.pairs), 'pair')} done, {where}{kept}")
    if result.interrupted:
        print(f"gedkit: interrupted; the pairs done are kept ({summary})", file=sys.stderr)
        return 130
    return 1 if result.counts()["failed"] else 0


def _none_solved(result: PairwiseResult) -> bool:
    """Whether every pair is pending but the diagonal done without a solve (in no time)."""
    return all(result.status[i, j] == "pending" or (i == j and result.time[i, j] == 0)
               for i, j in result.pairs.tolist())


def _check_out(args: argparse.Namespace) -> None:
    """A bad --out is an error before any pair is solved: an input file, or the file --csv
    writes (which would overwrite every finished pair with the table)."""
    if args.out is None:
        return
    if not args.out:  # Path("") is the current folder: the error named "."
        raise OptionError("--out needs a file name, got ''")
    check_output(args.out, "--out", args)
    if args.csv not in (None, "-") and _same_file(args.csv, args.out):
        raise OptionError(f"--csv {args.csv}: is the --out results file; give another file name")


def _same_file(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` name one file (by any path; one not there yet too)."""
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _check_export(args: argparse.Namespace) -> None:
    """A bad --export is an error before any pair is solved."""
    kind, directory = args.export
    if kind != "pyg":
        raise GedkitError(f"--export knows one format, pyg; got {kind!r}")
    from gedkit.io.pyg import GEDDATASET_NAMES, check_dataset_root, require_pyg

    require_pyg("--export pyg")
    if args.pyg_name is not None and args.pyg_name not in GEDDATASET_NAMES:
        raise GedkitError(f"--pyg-name must be one of {', '.join(GEDDATASET_NAMES)}; got "
                          f"{args.pyg_name!r}")
    check_dataset_root(directory)


def _load(files: list[str], args: argparse.Namespace
          ) -> tuple[list[Graph], list[str], list[str]]:
    """The graphs of ``files``, their names in the output and their references (FILE, or
    FILE#K in a file of several). A graph's name is its own, or its file's; a name that
    graphs read from different references share (x.gxl in two folders) becomes each one's
    reference, so that no two rows of a table or CSV read alike; a graph read again (a file
    given twice) keeps its name, the second ``NAME (2)``, as it reads given once."""
    from gedkit.io.common import KeptInPlace, Unreadable

    check_graph_dir(files, args)
    graphs, names, refs = [], [], []
    # a molecule RDKit cannot read stays in its place: its pairs fail, the others are solved
    # (not in a dataset --export writes, whose graphs are all written)
    unreadable = None if args.strict or args.export is not None else KeptInPlace()
    for file in files:
        found = read_file(file, args, unreadable)
        graphs += found
        stem = Path(file).stem
        for k, g in enumerate(found):
            names.append(getattr(g, "name", None)
                         or (stem if len(found) == 1 else f"{stem}[{k}]"))
            refs.append(file if len(found) == 1 else f"{file}#{k}")
    if all(isinstance(g, Unreadable) for g in graphs):
        raise no_graph(", ".join(files), unreadable)
    tell_skipped(unreadable or [], pairs_fail=True)
    read_from: dict[str, set[str]] = {}
    for name, ref in zip(names, refs, strict=True):
        read_from.setdefault(name, set()).add(ref)
    return graphs, _distinct([ref if len(read_from[name]) > 1 else name
                              for name, ref in zip(names, refs, strict=True)]), refs


def _distinct(names: list[str]) -> list[str]:
    """``names`` with each repeat (the same file given twice) numbered, ``NAME (2)``: not
    ``NAME#2``, which reads as graph 2 of a collection file.

    >>> _distinct(["a.gxl", "b.gxl", "a.gxl"])
    ['a.gxl', 'b.gxl', 'a.gxl (2)']
    """
    seen: Counter[str] = Counter()
    out = []
    for name in names:
        seen[name] += 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def _write_csv(out: Any, result: PairwiseResult, rows: list[str], cols: list[str],
               done_only: bool = False) -> None:
    """One row per pair computed (each unordered pair once in a symmetric matrix); with
    ``done_only``, the pending pairs left out."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    pairs = result.pairs.reshape(-1, 2)
    if done_only:
        pairs = pairs[result.status[tuple(pairs.T)] != "pending"]
    errors = result.errors
    distance, optimal = result.distance, result.optimal  # (computed matrices: once)
    # each column read out of its matrix a block at a time (read pair by pair, ``optimal``
    # compared the whole matrix at every row: 418,627 pairs took 5 minutes to write; all at
    # once, 4.5 million pairs' columns as Python lists took 1.3 GB more)
    for start in range(0, len(pairs), _CSV_BLOCK):
        at = tuple(pairs[start:start + _CSV_BLOCK].T)
        columns = (distance[at].tolist(), result.lower_bound[at].tolist(),
                   result.upper_bound[at].tolist(), optimal[at].tolist(),
                   result.time[at].tolist(), result.status[at].tolist())
        writer.writerows(
            [rows[i], cols[j], d, lo, up, "true" if ok else "false", f"{t:.6g}", status,
             errors.get((i, j), "")]
            for i, j, d, lo, up, ok, t, status in zip(at[0].tolist(), at[1].tolist(),
                                                      *columns, strict=True))


_CSV_BLOCK = 65536  # pairs whose rows are made at a time


def _tell_failures(result: PairwiseResult, rows: list[str], cols: list[str]) -> None:
    failed = result.failed_pairs()
    for i, j in failed[:_MAX_FAILURES_SHOWN]:
        print(f"gedkit: pair {rows[i]} vs {cols[j]} failed: {result.errors[i, j]}",
              file=sys.stderr)
    if len(failed) > _MAX_FAILURES_SHOWN:
        print(f"gedkit: ... and {len(failed) - _MAX_FAILURES_SHOWN} more failed pairs "
              "(--json or --csv lists them all)", file=sys.stderr)


def _table(result: PairwiseResult, rows: list[str], cols: list[str]) -> str:
    """The matrix for people; ``*`` marks distances not proven optimal, ``x`` failed pairs and
    ``?`` those not done; then the summary."""
    cells = [[_cell(d, s) for d, s in zip(drow, srow, strict=True)]
             for drow, srow in zip(result.distance.tolist(), result.status.tolist(), strict=True)]
    first = max(len(name) for name in rows)
    widths = [max(len(cols[j]), *(len(row[j]) for row in cells)) for j in range(len(cols))]
    lines = ["  ".join([" " * first, *(c.rjust(w) for c, w in zip(cols, widths, strict=True))])]
    for name, row in zip(rows, cells, strict=True):
        lines.append(
            "  ".join([name.ljust(first), *(c.rjust(w) for c, w in zip(row, widths, strict=True))])
        )
    counts = result.counts()
    # every unproven pair stopped by something the line below names (a heuristic that
    # ended, the memory cap): more time is no advice
    other = sum(result.stopped.values()) >= counts["bounded"]
    memory = any("memory" in reason for reason in result.stopped)
    for status, note in _NOTES.items():
        if counts[status]:
            lines.append(_NO_TIME_LIMIT_NOTE.format(
                memory="; --memory M proves more" if memory else "")
                if status == "bounded" and (result.timeout is None or other) else note)
    lines.append(result.summary())
    return "\n".join(lines)


_MARKS = {"optimal": "", "bounded": "*"}
_NOTES = {
    "bounded": "* upper bound, not proven optimal (--timeout S or --memory M proves more, as "
    "the line below says; --json or --csv give the lower bounds)",
    "failed": "x failed (the reasons are on stderr)",
    "pending": "? not done (interrupted)",
}
# with no time limit, or each unproven pair stopped by another cause, more time proves
# nothing more: the line below says what stopped them
_NO_TIME_LIMIT_NOTE = ("* upper bound, not proven optimal (the line below says what stopped "
                       "them{memory}; --json or --csv give the lower bounds)")


def _cell(distance: float, status: str) -> str:
    if status == "failed":
        return "x"
    if status == "pending":
        return "?"
    return f"{distance:g}{_MARKS[status]}"
