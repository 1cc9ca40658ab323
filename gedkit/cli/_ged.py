"""``gedkit ged A B``: the edit distance between two graph files."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gedkit.cli._args import (
    COMMAND_TIMEOUT,
    add_solver_arguments,
    check_output,
    parse_threshold,
    print_result,
    solve_options,
    why_short,
)
from gedkit.cli._clock import command_started
from gedkit.cli._inputs import (
    add_input_arguments,
    add_pair_arguments,
    left_after_reading,
    read_pair,
)
from gedkit.draw import MAX_STEPS
from gedkit.errors import OptionError, counted
from gedkit.text import MESSAGE_WIDTH, clipped

if TYPE_CHECKING:  # the solvers load when a command runs, not when the parser is built
    from gedkit.result import Result

_OPERATIONS = {
    "node_sub": "relabel node",
    "node_del": "delete node",
    "node_ins": "insert node",
    "edge_sub": "relabel edge",
    "edge_del": "delete edge",
    "edge_ins": "insert edge",
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ged",
        help="graph edit distance between two graphs",
        description="Graph edit distance between graphs A and B, with proven "
        "bounds, the node map and the edit path that realise it.",
        epilog="Exit status: 0 when answered (proven or not: the output says), 2 for bad "
        "input, 130 after Ctrl-C or SIGTERM (the best bounds found so far are printed).",
        allow_abbrev=False,
    )
    add_pair_arguments(parser)
    add_input_arguments(parser)
    add_solver_arguments(parser, timeout=COMMAND_TIMEOUT)
    parser.add_argument(
        "--threshold", type=parse_threshold, metavar="T",
        help="only decide whether the distance is at most T (may stop early)",
    )
    parser.add_argument(
        "--fixed", action="append", default=[], metavar="U:V",
        help="every edit path substitutes node U of A by node V of B (repeatable); U: "
        "deletes U, :V inserts V (NetworkX's roots=(U, V))",
    )
    parser.add_argument(
        "--forbidden", action="append", default=[], metavar="U:V",
        help="no edit path substitutes U by V (repeatable); U: keeps U from deletion, :V "
        "keeps V from insertion",
    )
    parser.add_argument("--json", action="store_true", help="print JSON for programs")
    parser.add_argument("--no-path", action="store_true", help="leave out node map and edit path")
    add_draw_arguments(parser, "the edit path on both graphs")
    parser.add_argument("--steps", action="store_true",
                        help="with --draw: a strip g1 -> ... -> g2, one operation per panel "
                        f"(paths of up to {MAX_STEPS} operations; a longer one is drawn in "
                        "one picture)")
    parser.set_defaults(run=run, command_parser=parser)


def add_draw_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """``--draw OUT``: write a picture of the result (needs gedkit[draw])."""
    parser.add_argument("--draw", metavar="OUT",
                        help=f"also write a picture of {what} to OUT (.svg, .png or .pdf; "
                        "needs matplotlib: pip install 'gedkit[draw]'), drawn once the "
                        "answer is printed, after --timeout: the picture takes its own time")


def check_draw(args: argparse.Namespace) -> None:
    """Fail before any solving when ``--draw`` cannot be honoured (bad file name, no
    matplotlib), so that a long solve is not lost to it."""
    if getattr(args, "draw", None) is None:
        return
    from gedkit.draw.output import check_path, require_matplotlib

    check_path(args.draw)
    check_output(args.draw, "--draw", args)
    require_matplotlib()


def shown_then_drawn(args: argparse.Namespace, show: Callable[[], None],
                     picture: Any) -> None:
    """``show()`` (the printed answer), then :func:`write_picture`; the picture also when
    the reader of stdout went away first (``gedkit ged A B --draw p.png | head -1`` left no
    picture and exited 0)."""
    try:
        show()
    except BrokenPipeError:
        write_picture(args, picture)
        raise
    write_picture(args, picture)


def write_picture(args: argparse.Namespace, picture: Any) -> None:
    """Call ``picture(path)`` for ``--draw`` and say on stderr where it went."""
    import sys

    if getattr(args, "draw", None) is None:
        return
    picture(args.draw)
    print(f"gedkit: picture written to {args.draw}", file=sys.stderr)


def _draw_pair(result: Any, out: str, steps: bool) -> None:
    """The picture of ``--draw``: with ``--steps`` one panel per operation, as many as the
    path has up to the strip's most; a longer path in one picture, said on stderr (the
    answer is printed already: failing here lost the picture for nothing)."""
    import sys

    count = len(result.edit_path) if steps else 0
    if count > MAX_STEPS:
        print(f"gedkit: note: the edit path has {count} operations, more than a step strip "
              f"shows ({MAX_STEPS}); drawn in one picture", file=sys.stderr)
        steps = False
    result.draw(out, steps=steps)


def run(args: argparse.Namespace) -> int:
    from gedkit.api import ged
    from gedkit.budget import answer_first

    options = solve_options(args, "memory", "threshold")
    if args.steps and args.draw is None:
        raise OptionError("--steps draws the edit path step by step: give --draw OUT too")
    check_draw(args)
    started = command_started()  # (the process's start, for the gedkit command)
    g1, g2 = read_pair(args)
    fixed = [node_pair(text, g1, g2, "--fixed") for text in args.fixed]
    forbidden = [node_pair(text, g1, g2, "--forbidden") for text in args.forbidden]
    reading, timeout = left_after_reading(args, started)
    with answer_first():  # (Ctrl-C twice in quick succession: the answer so far printed)
        result = ged(g1, g2, costs=args.costs, method=args.method, timeout=timeout,
                     fixed=fixed, forbidden=forbidden, **options)
    result.time += reading  # what the command spent, its reading included
    drop = ("node_map", "edit_path") if args.no_path else ()
    text = "" if args.json else report(result, args.threshold, path=not args.no_path)
    shown_then_drawn(args, lambda: print_result(result, args.json, drop, text),
                     lambda out: _draw_pair(result, out, args.steps))
    return finish(result, args)


def node_pair(text: str, g1: Any, g2: Any, flag: str) -> tuple[Any, Any]:
    """``U:V`` of ``--fixed``/``--forbidden`` as node ids of A and B (an empty side is None:
    deletion or insertion); a node is named by its id as printed. Of the ``:`` in ``text``,
    the one that splits it into two nodes (or a node and nothing) counts.

    >>> from gedkit import Graph
    >>> g1, g2 = Graph({0: "C", "x:1": "O"}, []), Graph({"a": "C"}, [])
    >>> node_pair("0:a", g1, g2, "--fixed"), node_pair("x:1:", g1, g2, "--fixed")
    ((0, 'a'), ('x:1', None))
    >>> node_pair("7:a", g1, g2, "--fixed")
    Traceback (most recent call last):
    ...
    gedkit.errors.OptionError: --fixed 7:a: 7 is not a node of A (nodes: 0, x:1)
    """
    def node(g: Any, side: str) -> Any:
        if side == "":
            return None
        return next((x for x in g.ids if str(x) == side), _MISSING)

    splits = [k for k, ch in enumerate(text) if ch == ":"]
    if not splits:
        raise OptionError(f"{flag} takes U:V (a node of A, a node of B); got {text!r}")
    for k in splits:
        u, v = node(g1, text[:k]), node(g2, text[k + 1:])
        if u is not _MISSING and v is not _MISSING:
            if u is None and v is None:
                raise OptionError(f"{flag} {text}: names no node")
            return u, v
    k = splits[0]
    side, g, name = (text[:k], g1, "A") if node(g1, text[:k]) is _MISSING else (
        text[k + 1:], g2, "B")
    shown = ", ".join(clipped(str(x), MESSAGE_WIDTH) for x in g.ids[:8]) + (
        ", ..." if g.n > 8 else "")
    raise OptionError(f"{flag} {text}: {side} is not a node of {name} (nodes: {shown})")


_MISSING = object()


def finish(result: Any, args: argparse.Namespace) -> int:
    """The exit status of a solving command, after saying on stderr what stopped an
    unproven answer: 130 after Ctrl-C, else 0."""
    import sys

    stopped = result.stats.get("stopped", "")
    if stopped == "interrupted":
        print("gedkit: interrupted: the best bounds found so far are printed above",
              file=sys.stderr)
        return 130
    # (or sooner, where the limit left its next step out: "time limit: one expansion of the
    # search does not fit" at 1.78 s of 2 said nothing)
    reached = result.time >= 0.9 * (args.timeout or 0)
    limited = reached or str(stopped).startswith("time limit")
    if not result.optimal and args.timeout is not None and limited:
        default = " (the default)" if args.timeout == COMMAND_TIMEOUT else ""
        # (a proof can take far longer than the limit: a 30-atom pair left at 29-31 after
        # 400 s; the note said only that --timeout none searches until it is proven)
        # a step the time left did not fit ended the run early: said as it is (a 2,000-node
        # pair's search stopped at 1.3 s of 10 heard that the limit "was reached")
        step = result.stats.get("expansion_seconds")
        if step is not None and not reached:
            # (a 2,000-node pair's exact search at --timeout 20 stopped at 0.8 s saying a
            # longer limit "may close the gap": one step of it needed 27 s)
            print(f"gedkit: note: the search could not take a step within the {args.timeout:g} "
                  f"s limit{default}: one expansion of it on this pair takes about {step:g} s; "
                  "the answer is an assignment's map, polished in the time left (--method "
                  "auto tries more)", file=sys.stderr)
            return 0
        what = (f"the time limit of {args.timeout:g} s{default} was reached before the "
                "answer was proven" if reached else
                f"the solve stopped at {result.time:.1f} s of the {args.timeout:g} s "
                f"limit{default} before the answer was proven: its next step did not fit the "
                "time left")
        print(f"gedkit: note: {what}; a longer --timeout may "
              "close the gap, and --timeout none searches until it is proven, which on some "
              "pairs of a few dozen nodes takes far longer than the limit", file=sys.stderr)
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
    rows += why_short(result)
    if threshold is not None:
        answer = {True: "yes", False: "no", None: "undecided"}[result.within_threshold]
        rows.append((f"distance <= {threshold:g}", answer))
    width = max(len(key) for key, _ in rows) + 2
    lines = [f"{key:<{width}}{value}" for key, value in rows]
    if path:
        pairs = result.node_map
        lines += ["", "node map (- = none)"]
        lines += _columns([(_show(u), "->", _show(v)) for u, v in pairs[:LISTED]])
        lines += _more(len(pairs), "pair")
        ops, total = result.edit_path_head(LISTED)
        size = (f"{counted(total, 'operation')}, " if total is not None
                else f"the first {LISTED} of its operations, ")
        lines += ["", f"edit path ({size}cost {result.upper_bound:g})"]
        lines += _columns(
            [(_OPERATIONS[op.kind], _show(op.source), "->", _show(op.target), _labels(op),
              f"{op.cost:g}") for op in ops]
        )
        # (a path made already, whole, is counted: its rows past LISTED said so too)
        lines += ["  ... (--json lists them all)"] if total is None else _more(total,
                                                                              "operation")
    return "\n".join(lines)


#: rows of the node map and of the edit path the text report lists (--json lists all: a
#: 2,000-node pair's report was 192,000 lines, 2 s of a command limited to 1 s)
LISTED = 200


def _more(total: int, what: str) -> list[str]:
    """The line after a list cut at :data:`LISTED` rows, saying how many more it has."""
    if total <= LISTED:
        return []
    return [f"  ... {counted(total - LISTED, f'more {what}')} (--json lists them all)"]


def _labels(op: Any) -> str:
    """What the operation does to labels: ``C -> N`` for a substitution, the label deleted
    or inserted otherwise (empty for unlabelled graphs)."""
    from gedkit.text import label_text

    a, b = label_text(op.source_label), label_text(op.target_label)
    if op.kind.endswith("_sub"):
        # (not "-": the node map's "no node")
        return f"{a or '(unlabelled)'} -> {b or '(unlabelled)'}" if a or b else ""
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
