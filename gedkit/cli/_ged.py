"""``gedkit ged A B``: the edit distance between two graph files."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from gedkit.cli._args import COMMAND_TIMEOUT, add_solver_arguments, print_result, solve_options
from gedkit.cli._inputs import add_input_arguments, read_pair
from gedkit.errors import OptionError

if TYPE_CHECKING:  # the solvers load when a command runs, not when the parser is built
    from gedkit.result import Result

_OPERATIONS = {
    "node_sub": "substitute node",
    "node_del": "delete node",
    "node_ins": "insert node",
    "edge_sub": "substitute edge",
    "edge_del": "delete edge",
    "edge_ins": "insert edge",
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ged",
        help="graph edit distance between two graphs",
        description="Graph edit distance between the graphs in files A and B, with proven "
        "bounds, the node map and the edit path that realise it.",
        allow_abbrev=False,
    )
    parser.add_argument("a", metavar="A", help="file holding the first graph")
    parser.add_argument("b", metavar="B", help="file holding the second graph")
    add_input_arguments(parser)
    add_solver_arguments(parser, timeout=COMMAND_TIMEOUT)
    parser.add_argument(
        "--threshold", type=float, metavar="T",
        help="only decide whether the distance is at most T (may stop early)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON for programs")
    parser.add_argument("--no-path", action="store_true", help="leave out node map and edit path")
    add_draw_arguments(parser, "the edit path on both graphs")
    parser.add_argument("--steps", action="store_true",
                        help="with --draw: a strip g1 -> ... -> g2, one operation per panel "
                        "(paths of up to 12 operations)")
    parser.set_defaults(run=run, command_parser=parser)


def add_draw_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """``--draw OUT``: write a picture of the result (needs gedkit[draw])."""
    parser.add_argument("--draw", metavar="OUT",
                        help=f"also write a picture of {what} to OUT (.svg, .png or .pdf; "
                        "needs matplotlib: pip install 'gedkit[draw]')")


def check_draw(args: argparse.Namespace) -> None:
    """Fail before any solving when ``--draw`` cannot be honoured (bad file name, no
    matplotlib), so that a long solve is not lost to it."""
    if getattr(args, "draw", None) is None:
        return
    from gedkit.draw.output import check_path, require_matplotlib

    check_path(args.draw)
    require_matplotlib()


def write_picture(args: argparse.Namespace, picture: Any) -> None:
    """Call ``picture(path)`` for ``--draw`` and say on stderr where it went."""
    import sys

    if getattr(args, "draw", None) is None:
        return
    picture(args.draw)
    print(f"gedkit: picture written to {args.draw}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from gedkit.api import ged

    options = solve_options(args, "memory", "threshold")
    if args.steps and args.draw is None:
        raise OptionError("--steps draws the edit path step by step: give --draw OUT too")
    check_draw(args)
    g1, g2 = read_pair(args)
    result = ged(g1, g2, costs=args.costs, method=args.method, timeout=args.timeout,
                 **options)
    drop = ("node_map", "edit_path") if args.no_path else ()
    text = "" if args.json else report(result, args.threshold, path=not args.no_path)
    print_result(result, args.json, drop, text)
    write_picture(args, lambda out: result.draw(out, steps=args.steps))
    return finish(result, args)


def finish(result: Any, args: argparse.Namespace) -> int:
    """The exit status of a solving command, after saying on stderr what stopped an
    unproven answer: 130 after Ctrl-C, else 0."""
    import sys

    stopped = result.stats.get("stopped", "")
    if stopped == "interrupted":
        print("gedkit: interrupted: the best bounds found so far are printed above",
              file=sys.stderr)
        return 130
    if not result.optimal and args.timeout is not None and result.time >= 0.9 * args.timeout:
        default = " (the default)" if args.timeout == COMMAND_TIMEOUT else ""
        print(f"gedkit: note: the time limit of {args.timeout:g} s{default} was reached "
              "before the answer was proven; --timeout none searches until it is",
              file=sys.stderr)
    return 0


def report(result: Result, threshold: float | None, *, path: bool = True) -> str:
    """The result as aligned lines for people."""
    verdict = "optimal" if result.optimal else "upper bound, not proven optimal"
    rows = [
        ("distance", f"{result.distance:g} ({verdict})"),
        ("lower bound", f"{result.lower_bound:g}"),
        ("upper bound", f"{result.upper_bound:g}"),
        ("optimal", "yes" if result.optimal else f"no (gap {result.gap:.1%})"),
        ("method", result.method),
        ("time", _duration(result.time)),
    ]
    if not result.optimal and result.stats.get("stopped"):
        rows.append(("stopped by", result.stats["stopped"]))
    if threshold is not None:
        answer = {True: "yes", False: "no", None: "undecided"}[result.within_threshold]
        rows.append((f"distance <= {threshold:g}", answer))
    width = max(len(key) for key, _ in rows) + 2
    lines = [f"{key:<{width}}{value}" for key, value in rows]
    if path:
        lines += ["", "node map (- = none)"]
        lines += _columns([(_show(u), "->", _show(v)) for u, v in result.node_map])
        ops = result.edit_path
        noun = "operation" if len(ops) == 1 else "operations"
        lines += ["", f"edit path ({len(ops)} {noun}, cost {result.upper_bound:g})"]
        lines += _columns(
            [(_OPERATIONS[op.kind], _show(op.source), "->", _show(op.target), _labels(op),
              f"{op.cost:g}") for op in ops]
        )
    return "\n".join(lines)


def _labels(op: Any) -> str:
    """What the operation does to labels: ``C -> N`` for a substitution, the label deleted
    or inserted otherwise (empty for unlabelled graphs)."""
    from gedkit.problem import label_text

    a, b = label_text(op.source_label), label_text(op.target_label)
    if op.kind.endswith("_sub"):
        return f"{a or '-'} -> {b or '-'}" if a or b else ""
    return f"({a or b})" if a or b else ""


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows of cells, left-aligned in columns, indented by two spaces."""
    if not rows:
        return ["  (none)"]
    widths = [max(len(cell) for cell in column) for column in zip(*rows, strict=True)]
    return [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _show(item: Any) -> str:
    if item is None:
        return "-"
    if isinstance(item, tuple):
        return "(" + ", ".join(map(str, item)) + ")"
    return str(item)


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"
