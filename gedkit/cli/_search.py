"""``gedkit search LIB QUERY``: range and nearest-neighbour search of a collection file, by
graph edit distance or by MCES similarity."""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import math
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gedkit.budget import COMMAND_TIMEOUT, KERNELS_NOT_READY
from gedkit.budget import PAIR_TIMEOUT as DEFAULT_TIMEOUT
from gedkit.cli._args import (
    add_solver_arguments,
    check_output,
    parse_options,
    parse_seconds,
    parse_size,
    written,
)
from gedkit.cli._ged import _duration, _show, add_draw_arguments, check_draw, write_picture
from gedkit.cli._inputs import (
    _cli_words,
    _is_smiles,
    _note,
    _notice,
    add_directed_argument,
    add_strict_argument,
    tell_skipped,
)
from gedkit.errors import GedkitError, OptionError, counted

if TYPE_CHECKING:  # numpy and the solvers load when the command runs
    from gedkit.graph import Graph
    from gedkit.search import Collection, Hit, SearchResult

CSV_COLUMNS = ("query", "rank", "id", "distance", "lower_bound", "upper_bound", "optimal",
               "status")
#: what to find: flag -> (Collection method, whether its value is a count, question)
KINDS = {
    "--within": ("range", False, "ged"),
    "--nearest": ("knn", True, "ged"),
    "--similarity": ("mces_range", False, "mces"),
    "--mces-nearest": ("mces_knn", True, "mces"),
}
DEFAULT_METHOD = {"ged": "astar", "mces": "exact"}
_SQLITE = b"SQLite format 3\x00"
#: undecided graphs a query's text report lists (a range search's time limit may leave tens
#: of thousands, each in the JSON and CSV outputs)
SHOWN_UNDECIDED = 20
# keyword arguments of the search calls that a method option must not replace
_RESERVED = {"query", "queries", "tau", "k", "min_similarity", "costs", "method", "timeout",
             "memory", "node_map", "n_jobs", "progress", "node_label", "edge_label", "client",
             "shards", "query_timeout"}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "search",
        help="search a collection by GED or MCES similarity",
        description="Search the collection file LIB (see 'gedkit collection build') for the "
        "graphs near QUERY: within a GED threshold, the k nearest by GED, or by MCES "
        "similarity. QUERY is a graph file (every graph of a file holding several is a "
        "query), FILE#ID, a SMILES string, or a collection file (each of its graphs is a "
        "query). Filters on stored signatures rule out most graphs; the rest are verified "
        f"within {DEFAULT_TIMEOUT:g} s per pair unless --timeout says otherwise, and a graph "
        "still open then is reported as undecided, with its bounds.",
        epilog="Exit status: 0 when done (certified or not), 2 for bad input, 130 after "
        "Ctrl-C (the queries answered are printed).",
        allow_abbrev=False,
    )
    parser.add_argument("lib", metavar="LIB", help="a collection file")
    parser.add_argument("query", metavar="QUERY",
                        help="graph file, FILE#ID, SMILES, or collection file (batch)")
    what = parser.add_argument_group("what to find (give one)")
    what.add_argument("--within", metavar="T", help="every graph with GED <= T (T >= 0)")
    what.add_argument("--nearest", metavar="K", help="the K graphs nearest by GED")
    what.add_argument("--similarity", metavar="S",
                      help="every graph whose MCES similarity (Johnson) is >= S, in [0, 1]")
    what.add_argument("--mces-nearest", metavar="K", help="the K graphs most similar by MCES")
    group = add_solver_arguments(parser, timeout=DEFAULT_TIMEOUT, method=False)
    group.add_argument("--costs", metavar="NAME",
                       help="GED cost model (default uniform; see 'gedkit costs')")
    # not "method": the GED commands' --KEY option spelling looks GED methods up by that name
    group.add_argument(
        "--method", dest="search_method", metavar="M",
        help=f"the method verifying candidates (default: {DEFAULT_METHOD['ged']} for GED, "
        f"{DEFAULT_METHOD['mces']} for MCES; see 'gedkit methods'); its options as -o "
        "KEY=VALUE",
    )
    group.add_argument("--node-map", action="store_true", help="give each hit its node map")
    group.add_argument("--ring-matches-ring-only", action="store_true",
                       help="MCES searches: a ring bond matches only a ring bond, a chain bond "
                       "only a chain bond (RDKit's ringMatchesRingOnly)")
    group.add_argument(
        "--query-timeout", type=parse_seconds, default=COMMAND_TIMEOUT, metavar="S",
        help=f"seconds for each query's search (default {COMMAND_TIMEOUT:g}, as 'gedkit ged' per "
        "pair; 'none' searches until done); then a --nearest or --mces-nearest answer is the k "
        "best found so far (not certified unless that proves them), and a --within or "
        "--similarity answer lists the candidates not verified as undecided",
    )
    # queries are read with the labels LIB records: these say so instead of argparse's
    # "unrecognized arguments" when typed as for the other commands
    for flag in ("--node-label", "--edge-label"):
        parser.add_argument(flag, metavar="ATTR", help=argparse.SUPPRESS)
    parser.add_argument("--format", metavar="FMT",
                        help="the query file's format (default: from its name): gxl, cxl, "
                        "gexf, graphml, json, tve, smiles, csv, sdf or mol (e.g. smiles for "
                        "SMILES lines in a .txt file)")
    add_strict_argument(parser)
    add_directed_argument(parser, directed_too=False)
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="worker processes for many queries (-1 = all cores)")
    parser.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="search on the Dask cluster of this scheduler (tcp://host:8786; needs "
        "gedkit[dask]) instead of local processes: the collection in shards, each worker "
        "opening LIB at the same path",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="print one JSON object per query per line")
    output.add_argument(
        "--csv", metavar="OUT",
        help=f"write one CSV row per hit to OUT ('-' = stdout): {', '.join(CSV_COLUMNS)} "
             "(status: hit, uncertain for a k-nearest hit whose place is not proven, "
             "undecided, or interrupted for a query Ctrl-C stopped; a query with nothing to "
             "list has one row: none, timed out or interrupted; with --node-map, a node_map "
             "column)",
    )
    add_draw_arguments(parser, "each query and its hits with their distances (up to 8 "
                       "queries)")
    parser.set_defaults(run=run, command_parser=parser)


def run(args: argparse.Namespace) -> int:
    from gedkit.search import Collection

    flag, value = _what(args)
    kind, _, question = KINDS[flag]
    kwargs = _call_options(args, question)
    # (by default COMMAND_TIMEOUT: a kNN query far from every graph, or a large threshold
    # over a large collection, may run for hours)
    if args.query_timeout is not None:
        if not args.query_timeout > 0:
            raise OptionError(f"--query-timeout {args.query_timeout:g}: give seconds > 0")
        kwargs["query_timeout"] = args.query_timeout
    check_draw(args)
    check_output(args.csv, "--csv", args)
    coll = Collection.open(args.lib)
    for flag, given, stored in (("--node-label", args.node_label, coll.node_label),
                                ("--edge-label", args.edge_label, coll.edge_label)):
        if given is not None and given != stored:  # (the labels it records: as good as none)
            recorded = "the format's own" if stored is None else _label(stored)
            raise OptionError(f"{flag}: search reads its queries with the labels {args.lib} "
                              f"records ({recorded}); leave {flag} out")
    queries, labels, batch = read_queries(args.query, coll, args)
    search = getattr(coll, kind)
    if args.scheduler is not None and args.jobs != 1:
        raise OptionError("--jobs (local processes) and --scheduler (a Dask cluster) cannot "
                          "be combined")
    from gedkit.cluster import on_scheduler

    # answers on stdout are written as each query's comes (a batch of slow queries showed
    # nothing for many minutes, and a kill lost them all); into --csv FILE, and with
    # --draw (whose picture needs every answer, also after `| head` went away), at the end
    streamed = _Streamed(args, labels) if not (args.draw or args.csv not in (None, "-")) \
        else None
    with on_scheduler(args.scheduler) as client:
        if client is not None:
            kwargs["client"] = client
        if streamed is not None:
            kwargs["each"] = streamed.answer
        began = time.perf_counter()
        if batch:
            results = search(None, value, queries=queries, **kwargs)
        else:
            results = [search(queries[0], value, **kwargs)]
        # the summary's time: the wall clock's (with --jobs the queries' own times add up
        # to more, as they run side by side)
        seconds = time.perf_counter() - began
    for result, label in zip(results, labels, strict=True):
        result.query = label
    # the queries Ctrl-C stopped before they began (empty stats) keep their line in JSON
    # and CSV, marked interrupted: a reader of the file must tell "no hit" from "not searched"
    started = [r for r in results if r.stats]
    try:
        write(started, args, batch, results[len(started):], seconds, streamed)
    except BrokenPipeError:
        if not args.draw:
            raise
        # the reader of the answers went away (`| head`): the picture is still asked for
        # (it was skipped, without a word, exit status 0)
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115
    if started:  # nothing answered (Ctrl-C at once): no picture to draw
        write_picture(args, lambda out: _draw_grid(out, started, coll, queries))
    _tell_limits(started, args)
    if any(r.interrupted for r in results):
        answered = sum(not r.interrupted for r in results)
        print(f"gedkit: interrupted: {answered} of {counted(len(queries), 'query', 'queries')} "
              f"answered in full; what was found so far is {_where(args)}", file=sys.stderr)
        return 130
    return 0


def _where(args: argparse.Namespace) -> str:
    """Where the answers went, for the last line on stderr."""
    return f"in {args.csv}" if args.csv and args.csv != "-" else "printed above"


def _draw_grid(out: str, results: list, coll: Collection, queries: list) -> None:
    """``--draw``: the grid of the queries (a grid holds 8: the first that found a graph,
    then the first that found none, in the queries' order) and their hits."""
    from gedkit.draw import MAX_HITS
    from gedkit.draw.grid import MAX_QUERIES, draw_hits
    from gedkit.draw.output import save

    picked = list(range(len(results)))
    if len(results) > MAX_QUERIES:
        # (eight panels of "no hit" left out the one query with hits)
        found = [i for i in picked if results[i].hits or results[i].undecided]
        picked = sorted((found + [i for i in picked if i not in set(found)])[:MAX_QUERIES])
        which = ("the first" if picked == list(range(MAX_QUERIES)) else
                 "those that found a graph first, then the first of the others"
                 if len(found) < MAX_QUERIES else "the first that found a graph")
        print(f"gedkit: note: the picture shows {MAX_QUERIES} of {len(results):,} queries: "
              f"{which}", file=sys.stderr)
    shown = [results[i] for i in picked]
    found = [len(r.hits) + len(r.undecided) for r in shown]
    if max(found) > MAX_HITS:  # (its title said "75 hits" over 12 panels, and nothing else)
        what = (f"the first {MAX_HITS} of {found[0]:,} graphs found" if len(shown) == 1 else
                f"at most {MAX_HITS} graphs a query ({sum(f > MAX_HITS for f in found)} of "
                f"{len(shown)} found more)")
        print(f"gedkit: note: the picture shows {what}", file=sys.stderr)
    save(draw_hits(shown, coll, query=[queries[i] for i in picked], max_hits=MAX_HITS), out)


def _what(args: argparse.Namespace) -> tuple[str, float | int]:
    """The one search asked for, and its checked value."""
    given = [(flag, getattr(args, flag[2:].replace("-", "_"))) for flag in KINDS]
    given = [(flag, text) for flag, text in given if text is not None]
    if not given:
        raise OptionError("say what to find: --within T, --nearest K, --similarity S or "
                          "--mces-nearest K")
    if len(given) > 1:
        raise OptionError(f"{given[0][0]} and {given[1][0]} cannot be combined; give one of "
                          f"{', '.join(KINDS)}")
    flag, text = given[0]
    kind, count, _ = KINDS[flag]
    if count:
        try:
            k = int(text)
        except ValueError:
            k = 0
        if k < 1:
            raise OptionError(f"{flag} {text!r}: give a number of graphs as an integer, at "
                              "least 1")
        return flag, k
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not number >= 0:
        raise OptionError(f"{flag} {text!r}: " + ("a similarity is between 0 and 1"
                                                   if kind == "mces_range" else
                                                   "give a number >= 0"))
    if math.isinf(number):  # every graph: a distance matrix row, not a search
        raise OptionError(f"{flag} {text!r}: give a finite number (every graph with its "
                          "distance: gedkit pairwise QUERY --against LIB)")
    if kind == "mces_range" and number > 1:
        raise OptionError(f"{flag} {text!r}: a similarity is between 0 and 1")
    return flag, number


def _call_options(args: argparse.Namespace, question: str) -> dict[str, Any]:
    """Keyword arguments of the search call: method options (``-o``), then the flags."""
    options = parse_options(args.options)
    reserved = sorted(_RESERVED & options.keys())
    if reserved:
        raise OptionError(f"-o {reserved[0]}=... is not a method option; the command has a "
                          "flag for it (see 'gedkit search --help')")
    if args.timeout is not None and not args.timeout > 0:
        raise OptionError(f"--timeout {args.timeout:g}: give seconds > 0, or none")
    if args.jobs == 0:
        raise OptionError("--jobs 0: give a number of processes, or -1 for every core")
    kwargs = {
        **options,
        "method": args.search_method or DEFAULT_METHOD[question],
        "timeout": args.timeout,
        "memory": None if args.memory is None else parse_size(args.memory),
        "node_map": args.node_map,
        "n_jobs": args.jobs,
    }
    if question == "ged":
        if args.ring_matches_ring_only:
            raise OptionError("--ring-matches-ring-only applies to MCES searches "
                              "(--similarity, --mces-nearest)")
        kwargs["costs"] = args.costs or "uniform"
    else:
        if args.ring_matches_ring_only:
            kwargs["ring_matches_ring_only"] = True
        if args.costs is not None:
            raise OptionError("--costs applies to GED searches (--within, --nearest); MCES "
                              "similarity has no costs")
        if importlib.util.find_spec("gedkit.search.mces_search") is None:
            raise GedkitError("MCES search is not available in this gedkit "
                              "(gedkit.search.mces_search is missing)")
    return kwargs


# -- queries ------------------------------------------------------------------------------------

def read_queries(text: str, coll: Collection, args: argparse.Namespace
                 ) -> tuple[list[Graph], list[Any], bool]:
    """The query graphs ``text`` names, their names for the output, and whether they are a
    batch (a collection or a file of several graphs) rather than one query."""
    from gedkit.inputs import as_graph
    from gedkit.io import labels_for, read_graphs
    from gedkit.io.common import undirected_only
    from gedkit.search.collection import with_collection_labels

    labels = (coll.node_label, coll.edge_label)
    found = _collection_file(text)
    if found is not None:
        return _from_collection(*found, labels)
    notice = _notice(args)
    # a molecule of a query file RDKit cannot read is left out, as when building
    skipped: list[str] | None = None if args.strict else []
    with _cli_words(), undirected_only("a collection search"):
        try:
            if _is_smiles(text, args):
                graphs = [as_graph(text, *labels, notice=notice)]
            else:
                graphs = _read_shown(read_graphs(text, notice,
                                                 *labels_for(text, *labels, args.format),
                                                 format=args.format,
                                                 directed=args.directed or "error",
                                                 skipped=skipped))
        except GedkitError as err:
            raise with_collection_labels(err, labels) from None
    _note(args)
    tell_skipped(skipped or [])
    if not graphs:
        raise GedkitError(f"{text}: the file holds no graph")
    names = [g.name or (text if len(graphs) == 1 else f"{text}[{k}]")
             for k, g in enumerate(graphs)]
    return graphs, names, len(graphs) > 1


def _read_shown(graphs: Iterable[Graph]) -> list[Graph]:
    """``graphs`` read, counted on stderr as a build counts them (a file of 176,000 SMILES
    queries was read for 24 s without a word); Ctrl-C stops with a line saying nothing was
    searched."""
    from gedkit.search.progress import GraphCounter

    shown = GraphCounter(None, "reading the queries")
    read: list[Graph] = []
    try:
        for g in graphs:
            read.append(g)
            if len(read) % 256 == 0:
                shown.update(len(read))
    except KeyboardInterrupt:
        shown.close()
        print(f"gedkit: interrupted while reading the queries ({counted(len(read), 'graph')} "
              "read): nothing was searched", file=sys.stderr)
        raise SystemExit(130) from None
    shown.close()
    return read


def _collection_file(text: str) -> tuple[Path, str | None] | None:
    """(file, id) when ``text`` is a collection file or ``FILE#ID`` of one, else None."""
    from gedkit.io.common import path_is, split_reference

    head, selector = split_reference(text)  # an id may hold '#' (cmpd#2)
    path = Path(head)
    if not path_is(path, "is_file"):
        return None
    if path.suffix.lower() == ".gdb":
        return path, selector
    try:
        with open(path, "rb") as f:
            magic = f.read(len(_SQLITE))
    except OSError:
        return None
    return (path, selector) if magic == _SQLITE else None


def _from_collection(path: Path, selector: str | None, labels: tuple
                     ) -> tuple[list[Graph], list[Any], bool]:
    from gedkit.io.gdb import find_id, label_spec
    from gedkit.search import Collection

    with Collection.open(path) as source:
        for mine, theirs, flag in zip(labels, (source.node_label, source.edge_label),
                                      ("node", "edge"), strict=True):
            if (mine is not None and theirs is not None
                    and label_spec(mine) != label_spec(theirs)):
                raise OptionError(f"{path} was built with --{flag}-label {_label(theirs)} and "
                                  f"the library with --{flag}-label {_label(mine)}: their "
                                  "graphs are not comparable")
        if selector is not None:
            graph_id = find_id(source, selector, path)
            return [source.get(graph_id)], [graph_id], False
        items = list(source.items())
    if not items:
        raise GedkitError(f"{path}: the collection holds no graph")
    return [g for _, g in items], [i for i, _ in items], True


def _label(label: Any) -> str:
    return ",".join(map(str, label)) if isinstance(label, list | tuple) else str(label)


# -- output -------------------------------------------------------------------------------------

class _Streamed:
    """The answers written on stdout as the search gives them (``answer``, its ``each``):
    JSON lines, CSV rows (the header first) or the text reports, blank lines between."""

    def __init__(self, args: argparse.Namespace, labels: list[str]):
        self.args, self.labels, self.count = args, labels, 0

    def answer(self, position: int, result: SearchResult) -> None:
        result.query = self.labels[position]
        if self.args.json:
            print(json.dumps(result.to_dict(), default=str), flush=True)
        elif self.args.csv == "-":
            _write_csv(sys.stdout, [result], self.args.node_map, header=not self.count)
            sys.stdout.flush()
        else:
            print(f"{chr(10) if self.count else ''}{report(result)}", flush=True)
        self.count += 1


def write(results: list[SearchResult], args: argparse.Namespace, batch: bool,
          unreached: list[SearchResult], seconds: float,
          streamed: _Streamed | None = None) -> None:
    """The answers on stdout or into ``--csv``; ``unreached`` (queries Ctrl-C stopped before
    their search began) as interrupted answers in the machine-readable outputs, counted in
    one line of the text output. ``seconds``: the search's wall-clock time; ``streamed``:
    the answers it wrote already (then only what follows them)."""
    shown = [] if streamed is not None else results
    if args.json:
        for result in [*shown, *unreached]:
            print(json.dumps(result.to_dict(), default=str))
    elif args.csv == "-":
        _write_csv(sys.stdout, [*shown, *unreached], args.node_map,
                   header=streamed is None or not streamed.count)
        print(f"gedkit: {_summary(results, seconds, len(unreached))}", file=sys.stderr)
    elif args.csv:
        with written(args.csv) as out:
            rows = _write_csv(out, [*results, *unreached], args.node_map)
        print(f"wrote {counted(rows, 'row')} to {args.csv}: "
              f"{_summary(results, seconds, len(unreached))}")
    else:
        if shown:
            print("\n\n".join(report(result) for result in shown))
        if results and batch:
            print(f"\n{_summary(results, seconds)}")
        if unreached:  # (else a reader of the text sees no trace of them)
            print(f"{chr(10) if results else ''}{_not_started(len(unreached))}")


def _not_started(count: int) -> str:
    many = count != 1
    return (f"{counted(count, 'query', 'queries')} not started (Ctrl-C came before "
            f"{'their' if many else 'its'} search began)")


def _write_csv(out: Any, results: list[SearchResult], node_map: bool,
               header: bool = True) -> int:
    """One row per hit (``status`` hit, or uncertain for a kNN hit whose place is not
    proven: ``SearchResult.uncertain``) and per undecided graph (``status`` undecided, no
    rank); a ``node_map`` column (JSON) with ``--node-map``. Every row of a query that Ctrl-C
    stopped says ``interrupted`` instead: its hits so far are not its answer (a kNN query's
    list may lack true neighbours), and a reader of the file must be able to tell. A query
    with nothing to list gets one row of its own, with only its name and status: ``none``
    (no graph near), ``timed out`` (its time limit came first) or ``interrupted``."""
    writer = csv.writer(out, lineterminator="\n")
    if header:
        writer.writerow(CSV_COLUMNS + (("node_map",) if node_map else ()))
    rows = 0
    for result in results:
        doubted = set(result.uncertain)
        listed = [(rank, h, "uncertain" if h.id in doubted else "hit")
                  for rank, h in enumerate(result.hits, start=1)]
        listed += [("", h, "undecided") for h in result.undecided]
        if not listed:  # every query has a row: "none" (no graph near), or why none yet
            why = ("interrupted" if result.interrupted else
                   "timed out" if result.timed_out else "none")
            writer.writerow([result.query, *[""] * (len(CSV_COLUMNS) - 2), why,
                             *([""] if node_map else [])])
            rows += 1
        for rank, h, status in listed:
            row = [result.query, rank, h.id,
                   *(x + 0.0 for x in (h.distance, h.lower_bound, h.upper_bound)),  # no -0.0
                   "true" if h.optimal else "false",
                   "interrupted" if result.interrupted else status]
            if node_map:
                row.append("" if h.node_map is None else json.dumps(h.node_map, default=str))
            writer.writerow(row)
            rows += 1
    return rows


def _summary(results: list[SearchResult], seconds: float, unreached: int = 0) -> str:
    """The batch's counts and ``seconds`` of the wall clock (not the queries' own times
    added up: more than the wall clock's when they ran side by side); ``unreached``: the
    queries Ctrl-C stopped before their search began (the line said "1 query" of 3)."""
    hits = sum(len(r.hits) for r in results)
    undecided = sum(len(r.undecided) for r in results)
    certified = sum(r.certified for r in results)
    parts = [counted(len(results), "query", "queries"), counted(hits, "hit")]
    if unreached:
        parts[0] += f" ({unreached:,} more not started)"
    if undecided:
        parts.append(f"{undecided:,} undecided")
    # (their CSV rows say "interrupted", not "hit" or "undecided": told apart here too)
    stopped = sum(len(r.hits) + len(r.undecided) for r in results if r.interrupted)
    if stopped:  # (of both: "5,148 undecided (5,188 of them ...)" counted the hits too)
        parts.append(f"{stopped:,} of {'the hits and undecided' if undecided else 'them'} "
                     "from queries Ctrl-C stopped")
    parts.append(f"{certified:,} of {len(results):,} certified")
    return ", ".join(parts) + f", {_duration(seconds)}"


def report(result: SearchResult) -> str:
    """One query's answer for people: a header, one line per hit (and per undecided graph),
    the filter statistics."""
    mces = result.kind.startswith("mces")
    fmt = _similarity if mces else _distance
    asked = {
        "range": f"within GED {result.parameter:g}",
        "knn": "nearest by GED",
        "mces_range": f"with MCES similarity >= {result.parameter:g}",
        "mces_knn": "most similar by MCES",
    }[result.kind]
    hits = len(result.hits)
    verdict = "certified" if result.certified else f"not certified ({_why(result)})"
    lines = [f"{result.query}: {counted(hits, 'hit')} {asked}, {verdict}, "
             f"{_duration(_seconds(result))}"]
    column = "similarity" if mces else "distance"
    rows = [(str(rank), str(h.id), fmt(h.distance), _bounds(h, fmt))
            for rank, h in enumerate(result.hits, start=1)]
    if rows:
        table = _table([("rank", "id", column, "bounds"), *rows])
        lines.append(table[0])
        for line, h in zip(table[1:], result.hits, strict=True):
            lines.append(line)
            if h.node_map is not None:
                lines.append(f"        node map {_node_map(h.node_map)}")
    else:
        lines.append("  (no hits)")
    if result.undecided:
        unreached = result.stats.get("unreached", 0)
        why = ("verification stopped before deciding" if not unreached else
               f"{unreached:,} not verified before "
               + ("the search was interrupted" if result.interrupted
                  else "the query's time limit"))
        lines.append(f"  undecided: {len(result.undecided):,} ({why}; maybe in, maybe out)")
        shown = result.undecided[:SHOWN_UNDECIDED]
        width = max(len(str(h.id)) for h in shown)
        lines += [f"    {h.id!s:<{width}}  {_bounds(h, fmt, always=True)}" for h in shown]
        if len(result.undecided) > len(shown):
            lines.append(f"    ... and {len(result.undecided) - len(shown):,} more (--json or "
                         "--csv lists every one)")
    lines.append("  " + _stages(result.stats, ranked=result.kind.endswith("knn")))
    return "\n".join(lines)


def _why(result: SearchResult) -> str:
    if result.interrupted:
        return "interrupted"
    if result.timed_out:
        return "query time limit"
    reasons = []
    if result.undecided:
        reasons.append(f"{len(result.undecided):,} undecided")
    unproven = [h for h in result.hits if not h.optimal]
    if unproven:
        reasons.append(f"{counted(len(unproven), 'value')} not proven")
    if result.uncertain and not unproven:
        reasons.append(f"the places of {counted(len(result.uncertain), 'hit')} not proven")
    return "; ".join(reasons) or "not proven"


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    """Rank, id, value and bounds columns; the bounds column only when some hit has one."""
    if not any(row[3] for row in rows[1:]):
        rows = [row[:3] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [("  " + "  ".join(cell.ljust(w) if i in (1, 3) else cell.rjust(w)
                              for i, (cell, w) in enumerate(zip(row, widths, strict=True))))
            .rstrip() for row in rows]


def _node_map(pairs: list) -> str:
    """``query node->graph node`` pairs; a query node deleted ``u->del``, a graph node
    inserted ``ins->v`` (``-->0`` was hard to read)."""
    return " ".join(f"{'ins' if u is None else _show(u)}->{'del' if v is None else _show(v)}"
                    for u, v in pairs) or "(empty)"


def _bounds(h: Hit, fmt, always: bool = False) -> str:
    if h.optimal and not always:
        return ""
    return f"[{fmt(h.lower_bound)}, {fmt(h.upper_bound)}]"


def _distance(x: float) -> str:
    return f"{x + 0.0:g}"  # (+ 0.0: a bound of -0.0 prints as 0)


def _similarity(x: float) -> str:
    return f"{x + 0.0:.4g}"


def _stages(stats: dict, ranked: bool) -> str:
    """What the filters left and how many pairs were verified (nearest-neighbour searches
    rank every graph by its bound instead of leaving some out)."""
    parts = [f"screened {stats.get('screened', 0):,}"]
    candidates = stats.get("candidates") or {}
    screened = stats.get("screened", 0)
    # (an MCES kNN's "pairs" are those its pair bounds left to verify: said with them below)
    shown = {stage: count for stage, count in candidates.items()
             if not ranked or (count < screened and stage != "pairs")}
    if shown:
        parts.append("left after " + ", ".join(f"{stage} {count:,}"
                                               for stage, count in shown.items()))
    verified = stats.get("verified", 0)
    if "scanned" not in stats:
        parts.append(f"verified {verified:,}")
    elif verified >= stats["scanned"]:  # GED kNN: a graph set aside is verified again as
        # the k-th distance falls
        again = verified - stats["scanned"]
        parts.append(f"verified {stats['scanned']:,} in bound order"
                     + (f" ({again:,} again as the k-th distance fell)" if again > 0 else ""))
    else:  # MCES kNN: graphs reached in bound order, some ruled out by their pair bounds
        # ("left after pairs 7; verified 34" was said of 34 graphs reached, 7 verified)
        parts.append(f"{stats['scanned']:,} in bound order, of which {verified:,} verified "
                     "(the others ruled out by their pair bounds)")
    return "; ".join(parts)


def _seconds(result: SearchResult) -> float:
    return float(sum((result.stats.get("seconds") or {}).values()))


def _tell_limits(results: list[SearchResult], args: argparse.Namespace) -> None:
    """A note when verifications left graphs undecided or values unproven: the time limit,
    or (a result's ``stats["stopped"]`` says so) compiled kernels not ready yet, when
    verifications answer with the cheap bounds they have at once rather than wait for a
    compile longer than their limit."""
    late = [r for r in results if r.timed_out and not r.certified]
    if late:
        default = " (the default)" if args.query_timeout == COMMAND_TIMEOUT else ""
        found = ("the k best found by then" if late[0].kind.endswith("knn") else
                 f"{counted(sum(r.stats.get('unreached', 0) for r in late), 'candidate')} "
                 "not verified, undecided")
        print(f"gedkit: note: {counted(len(late), 'query', 'queries')} reached the time limit of "
              f"{args.query_timeout:g} s per query{default}: {found}, not certified; "
              "--query-timeout S (or none) searches longer", file=sys.stderr)
    stopped = sum(len(r.undecided) + sum(not h.optimal for h in r.hits) for r in results
                  if not r.interrupted and not r.timed_out)
    cold = any(KERNELS_NOT_READY in (r.stats.get("stopped") or {}) for r in results)
    if stopped and cold:
        print(f"gedkit: note: {counted(stopped, 'verification')} stopped before deciding: "
              "gedkit's compiled kernels are not ready yet (first use after installing: they are "
              "compiling in the background, or run `gedkit warmup`); run the search again "
              "to decide them", file=sys.stderr)
    elif stopped and args.timeout is not None:
        default = " (the default)" if args.timeout == DEFAULT_TIMEOUT else ""
        # why, where a verification said more than "time limit" (e.g. that one expansion of
        # the exact search does not fit it: graphs too large for an exact search), and the
        # stops the time limit did not make (an MCES search's state too large for the
        # memory: "514 verifications reached the time limit of 1 s" was said of searches
        # that stopped in a few milliseconds)
        reasons: dict[str, int] = {}
        other: dict[str, int] = {}
        for r in results:
            for reason, count in (r.stats.get("stopped") or {}).items():
                if reason.startswith("time limit: "):
                    reason = reason[len("time limit: "):]
                    reasons[reason] = reasons.get(reason, 0) + count
                elif reason not in ("time limit", "timeout"):
                    other[reason] = other.get(reason, 0) + count
        timed = max(stopped - sum(other.values()), 0)
        if timed:
            why = "".join(f"; {count:,} of them because {reason}"
                          for reason, count in sorted(reasons.items(), key=lambda x: -x[1]))
            print(f"gedkit: note: {counted(timed, 'verification')} reached the time limit of "
                  f"{args.timeout:g} s per pair{default}{why}; --timeout S (or none) decides "
                  "more", file=sys.stderr)
        if other:
            why = "; ".join(f"{count:,} because {reason}"
                            for reason, count in sorted(other.items(), key=lambda x: -x[1]))
            more = (" (--memory SIZE or --timeout S may decide more)"
                    if any("memory" in reason for reason in other) else "")
            print(f"gedkit: note: {counted(sum(other.values()), 'verification')} stopped "
                  f"before deciding: {why}{more}", file=sys.stderr)
