"""``gedkit mces A B``: the maximum common edge subgraph of two graph files."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from gedkit.cli._args import (
    COMMAND_TIMEOUT,
    add_solver_arguments,
    parse_options,
    print_result,
    why_short,
)
from gedkit.cli._clock import command_started
from gedkit.cli._ged import (
    LISTED,
    _columns,
    _duration,
    _more,
    _show,
    add_draw_arguments,
    check_draw,
    finish,
    shown_then_drawn,
)
from gedkit.cli._inputs import (
    _cli_words,
    add_input_arguments,
    add_pair_arguments,
    left_after_reading,
    read_pair,
)

if TYPE_CHECKING:  # the methods load when the command runs, not when the parser is built
    from gedkit.mces.result import MCESResult


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mces",
        help="maximum common edge subgraph of two graphs",
        description="Maximum common edge subgraph of graphs A and B: labels must "
        "be equal to match, the common subgraph may be disconnected. Prints the common edge "
        "count with a proven upper bound, the Johnson similarity, the node map and the "
        "common edges.",
        epilog="Exit status: 0 when answered (proven or not: the output says), 2 for bad "
        "input, 130 after Ctrl-C or SIGTERM (the best bounds found so far are printed).",
        allow_abbrev=False,
    )
    add_pair_arguments(parser)
    add_input_arguments(parser, undirected="MCES compares undirected graphs only")
    group = add_solver_arguments(parser, timeout=COMMAND_TIMEOUT, method=False)
    # not "method": the GED commands' --KEY option spelling looks methods up by that name
    group.add_argument(
        "--method", dest="mces_method", default="auto",
        help="MCES method: auto, exact, ga, nga or rascal (see 'gedkit methods')",
    )
    group.add_argument("--ring-matches-ring-only", action="store_true",
                       help="a ring bond matches only a ring bond, a chain bond only a chain "
                       "bond (RDKit's ringMatchesRingOnly), for every method")
    parser.add_argument("--json", action="store_true", help="print JSON for programs")
    parser.add_argument("--no-map", action="store_true", help="leave out node map and edges")
    add_draw_arguments(parser, "the common edges on both graphs")
    parser.set_defaults(run=run, command_parser=parser)


def run(args: argparse.Namespace) -> int:
    from gedkit.budget import answer_first
    from gedkit.cli._args import parse_size
    from gedkit.mces.api import mces

    options = parse_options(args.options)
    if args.ring_matches_ring_only:
        options["ring_matches_ring_only"] = True
    if args.memory is not None:
        options["memory"] = parse_size(args.memory)
    check_draw(args)
    started = command_started()  # (the process's start, for the gedkit command)
    from gedkit.io.common import undirected_only

    with _cli_words(), undirected_only("MCES"):  # (--directed keep is no way out here)
        g1, g2 = read_pair(args)
    reading, timeout = left_after_reading(args, started)
    with answer_first():  # (Ctrl-C twice in quick succession: the answer so far printed)
        result = mces(g1, g2, args.mces_method, timeout=timeout, **options)
    result.time += reading  # what the command spent, its reading included
    drop = ("node_map", "edges", "fragments") if args.no_map else ()
    text = "" if args.json else report(result, mapping=not args.no_map)
    shown_then_drawn(args, lambda: print_result(result, args.json, drop, text), result.draw)
    return finish(result, args)


def report(result: MCESResult, *, mapping: bool = True) -> str:
    """The result as aligned lines for people."""
    verdict = "optimal" if result.optimal else f"at most {result.upper_bound}, not proven"
    rows = [
        ("common edges", f"{result.num_edges} ({verdict})"),
        ("lower bound", str(result.lower_bound)),
        ("upper bound", str(result.upper_bound)),
        ("optimal", "yes" if result.optimal else "no"),
        ("similarity", f"{result.similarity:.4f} (Johnson)"),
        ("method", result.method),
        ("time", _duration(result.time)),
    ]
    rows += why_short(result)
    width = max(len(key) for key, _ in rows) + 2
    lines = [f"{key:<{width}}{value}" for key, value in rows]
    if mapping:
        pairs, edges = result.node_map, result.edges
        lines += ["", f"node map ({len(pairs)} nodes)"]
        lines += _columns([(_show(u), "->", _show(v)) for u, v in pairs[:LISTED]])
        lines += _more(len(pairs), "pair")
        lines += ["", f"common edges ({result.num_edges})"]
        g1 = result.problem.g1
        lines += _columns([(_show(e1), "->", _show(e2), _edge_label(g1, e1))
                           for e1, e2 in edges[:LISTED]])
        lines += _more(len(edges), "edge")
    return "\n".join(lines)


def _edge_label(g: Any, edge: tuple) -> str:
    """The common edge's label (equal on both sides), empty when unlabelled."""
    from gedkit.text import label_text

    text = label_text(g.edge_label(*edge))
    return f"({text})" if text else ""
