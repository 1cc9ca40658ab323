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
import warnings
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
from gedkit.cli._inputs import add_directed_argument, add_strict_argument
from gedkit.cli._search_queries import QuerySource, label_text, read_queries
from gedkit.errors import ClusterError, ClusterLost, GedkitError, OptionError, counted

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
        "Ctrl-C or SIGTERM (the queries answered are printed).",
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
            recorded = "the format's own" if stored is None else label_text(stored)
            raise OptionError(f"{flag}: search reads its queries with the labels {args.lib} "
                              f"records ({recorded}); leave {flag} out")
    if args.scheduler is not None and args.jobs != 1:
        raise OptionError("--jobs (local processes) and --scheduler (a Dask cluster) cannot "
                          "be combined")
    source = read_queries(args.query, coll, args)
    from gedkit.cluster import on_scheduler

    tally = _Tally()
    kept = _Kept() if args.draw else None
    failed: GedkitError | None = None
    # the answers are written as each query's comes (a batch of slow queries showed nothing
    # for many minutes, and a kill lost them all), into --csv FILE too (put in place at the
    # end, or after Ctrl-C with what was answered)
    with on_scheduler(args.scheduler) as client, _Answers(args) as answers:
        if client is not None:
            kwargs["client"] = client
        began = time.perf_counter()
        if source.batch:
            try:
                _search_batches(source, getattr(coll, kind), value, kwargs, answers, tally,
                                kept)
            except GedkitError as err:  # a query further on is unreadable, or the cluster
                # lost: what was answered before is kept, then the error is said
                if not tally.queries and not isinstance(err, ClusterError):
                    raise  # (--csv FILE then left as it was)
                failed = err
        else:
            name, graph = source.first
            result = getattr(coll, kind)(graph, value, **kwargs)
            result.query = name
            answers.write(result)
            tally.add([result])
            if kept is not None:
                kept.add(0, [result], [graph])
        # the summary's time: the wall clock's (with --jobs the queries' own times add up
        # to more, as they run side by side)
        seconds = time.perf_counter() - began
        if failed is None:
            answers.finish(tally, source.batch, seconds)
    source.told()
    if failed is not None:
        if isinstance(failed, ClusterError):  # (its words say how many were answered)
            raise type(failed)(failed.render(cli=True), "; what was found so far is "
                               f"{_where(args)}" if tally.queries else "")
        answered = (f"; the answers to the {counted(tally.queries, 'query', 'queries')} "
                    f"before it are {_where(args)}" if tally.queries else "")
        raise GedkitError(f"{failed}{answered}")
    if kept is not None and kept.results:  # nothing answered (Ctrl-C at once): no picture
        write_picture(args, lambda out: _draw_grid(out, kept, coll))
    _tell_limits(tally, args)
    if tally.interrupted:
        asked = tally.queries + tally.unreached
        rest = ("" if source.total == asked else f", of {source.total:,}"
                if source.total is not None else
                ", the queries after them not searched" if tally.stopped_early else "")
        print(f"gedkit: interrupted: {tally.answered:,} of {counted(asked, 'query', 'queries')} "
              f"answered in full{rest}; what was found so far is {_where(args)}",
              file=sys.stderr)
        return 130
    return 0


def _search_batches(source: QuerySource, search, value: float | int, kwargs: dict,
                    answers: _Answers, tally: _Tally, kept: _Kept | None) -> None:
    """Search the queries of ``source`` a batch at a time (:attr:`QuerySource.size`), each answer
    written by ``answers`` as it comes, counted in ``tally`` (and a few ``kept`` for the
    picture); then the next batch is read. Ctrl-C stops the search under way, and reading:
    the queries of the batch that were not started are written as such."""
    from gedkit.budget import interrupted, interruptible
    from gedkit.errors import UnseenLabelWarning
    from gedkit.search.progress import Progress

    batches = source.batches()
    batch = next(batches)  # (Ctrl-C while the first is read: nothing was searched)
    shown = Progress(None, source.total)  # one count over every batch
    notes = _UnseenNotes()
    try:
        with interruptible():  # Ctrl-C between batches (reading one) stops as in a search
            while batch:
                names = [name for name, _ in batch]
                graphs = [graph for _, graph in batch]
                lost = None  # the cluster, lost with some queries answered
                with warnings.catch_warnings():
                    warnings.showwarning = notes.show  # (the note as it comes, once)
                    warnings.simplefilter("always", UnseenLabelWarning)
                    try:
                        results = search(
                            None, value, queries=graphs, **{**kwargs, "progress": shown},
                            each=lambda position, result, names=names: answers.write(
                                _named(result, names[position])))
                    except ClusterError as err:
                        if err.result is None:
                            raise
                        lost, results = err, err.result
                # the queries Ctrl-C stopped before they began have empty stats: on a
                # cluster, between answered ones too (its answers come back in any order)
                begun = [i for i, r in enumerate(results) if r.stats]
                started = [results[i] for i in begun]
                if kept is not None:
                    kept.add(tally.queries, started, [graphs[i] for i in begun])
                tally.add(started)
                # ... and keep their line in JSON and CSV, marked interrupted: a reader of
                # the file must tell "no hit" from "not searched"
                unreached = [_named(r, name) for r, name in zip(results, names, strict=True)
                             if not r.stats]
                if lost is None or isinstance(lost, ClusterLost):  # (a cluster that cannot
                    # run the search did not stop these queries as Ctrl-C does: its error says
                    # so, and their lines, "interrupted", would not)
                    answers.not_started(unreached)
                    tally.unreached += len(unreached)
                if lost is not None:
                    raise lost
                if interrupted():  # (also once every query of the batch was answered)
                    tally.stopped_early = True
                if tally.interrupted:
                    break
                try:
                    batch = next(batches, None)
                except KeyboardInterrupt:  # (raised by the reading itself)
                    tally.stopped_early = True
                    break
                if interrupted():  # Ctrl-C while the next batch was read: it is not
                    # searched (nor listed, as the queries not read are not)
                    tally.stopped_early = True
                    break
    finally:
        shown.close()
    notes.close(source.size)


class _UnseenNotes:
    """The note on labels the collection lacks, for a search a batch of queries at a time:
    said as it comes (before the batch's answers: at its end, a search of 10,000 slow
    queries read with the wrong labels told it hours late), again for a later batch only
    where it names other labels, and one line at the end for the others."""

    def __init__(self) -> None:
        self.said: set[frozenset] = set()  # the labels of the notes said
        self.again = 0  # later batches whose labels were named before
        self.show_next = warnings.showwarning

    def show(self, message, category, filename, lineno, file=None, line=None) -> None:
        labels = getattr(message, "labels", None)  # (a collection's UnseenLabelWarning)
        if labels is not None:
            if labels in self.said:
                self.again += 1
                return
            self.said.add(labels)
        self.show_next(message, category, filename, lineno, file, line)

    def close(self, size: int) -> None:
        if self.again:
            print(f"gedkit: note: queries of {self.again:,} later "
                  f"{'batch' if self.again == 1 else 'batches'} of {size:,} have such labels "
                  "too", file=sys.stderr)


def _where(args: argparse.Namespace) -> str:
    """Where the answers went, for the last line on stderr."""
    return f"in {args.csv}" if args.csv and args.csv != "-" else "printed above"


class _Kept:
    """The answers a ``--draw`` picture may show (a grid holds 8: the first queries that
    found a graph, then the first of those that found none), with their query graphs, kept
    as the batches go."""

    def __init__(self) -> None:
        self.results: list[tuple[int, SearchResult, Graph]] = []  # position, answer, query
        self.found = self.none = self.total = 0

    def add(self, first: int, results: list[SearchResult], graphs: list[Graph]) -> None:
        """The answers ``results`` of the queries ``graphs`` from position ``first`` on."""
        from gedkit.draw.grid import MAX_QUERIES

        for k, result in enumerate(results):
            self.total += 1
            found = bool(result.hits or result.undecided)
            if (self.found if found else self.none) < MAX_QUERIES:
                self.results.append((first + k, result, graphs[k]))
                if found:
                    self.found += 1
                else:
                    self.none += 1


def _draw_grid(out: str, kept: _Kept, coll: Collection) -> None:
    """``--draw``: the grid of the queries (a grid holds 8: the first that found a graph,
    then the first that found none, in the queries' order) and their hits."""
    from gedkit.draw import MAX_HITS
    from gedkit.draw.grid import MAX_QUERIES, draw_hits
    from gedkit.draw.output import save

    picked = kept.results
    if kept.total > MAX_QUERIES:
        # (eight panels of "no hit" left out the one query with hits)
        finding = [entry for entry in picked if entry[1].hits or entry[1].undecided]
        others = [entry for entry in picked if not (entry[1].hits or entry[1].undecided)]
        chosen = {position for position, _, _ in (finding + others)[:MAX_QUERIES]}
        which = (f"the first {MAX_QUERIES}" if chosen == set(range(MAX_QUERIES)) else
                 "those that found a graph first, then the first of the others"
                 if len(finding) < MAX_QUERIES else f"the first {MAX_QUERIES} that found a "
                 "graph")
        picked = [entry for entry in picked if entry[0] in chosen]
        print(f"gedkit: note: the picture shows {MAX_QUERIES} of {kept.total:,} queries: "
              f"{which}", file=sys.stderr)
    shown = [result for _, result, _ in picked]
    found = [len(r.hits) + len(r.undecided) for r in shown]
    if max(found) > MAX_HITS:  # (its title said "75 hits" over 12 panels, and nothing else)
        what = (f"the first {MAX_HITS} of {found[0]:,} graphs found" if len(shown) == 1 else
                f"at most {MAX_HITS} graphs a query ({sum(f > MAX_HITS for f in found)} of "
                f"{len(shown)} found more)")
        print(f"gedkit: note: the picture shows {what}", file=sys.stderr)
    save(draw_hits(shown, coll, query=[graph for _, _, graph in picked], max_hits=MAX_HITS),
         out)


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
        # (not a number at all was told "a similarity is between 0 and 1")
        raise OptionError(f"{flag} {text!r}: " + (
            "give a number >= 0" if kind != "mces_range" else
            "give a similarity, a number between 0 and 1" if math.isnan(number) else
            "a similarity is between 0 and 1"))
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


# -- output -------------------------------------------------------------------------------------

def _named(result: SearchResult, name: Any) -> SearchResult:
    result.query = name
    return result


class _Answers:
    """Where the answers go, each as it comes (:meth:`write`): the text reports, JSON lines
    or CSV rows on stdout, or the rows into ``--csv FILE`` (written beside it and put in
    place at the end, also after Ctrl-C, with what was answered)."""

    def __init__(self, args: argparse.Namespace):
        self.args, self.count, self.rows = args, 0, 0
        self.out: Any = None  # the --csv FILE open
        self._file: Any = None

    def __enter__(self) -> _Answers:
        if self.args.csv not in (None, "-"):
            self._file = written(self.args.csv)
            self.out = self._file.__enter__()
        return self

    def __exit__(self, *exc: object) -> bool | None:
        return None if self._file is None else self._file.__exit__(*exc)

    def write(self, result: SearchResult) -> None:
        """One query's answer."""
        try:
            self._write([result], header=not self.count)
        except BrokenPipeError:
            if not self.args.draw:
                raise
            # the reader of the answers went away (`| head`): the picture is still asked
            # for (it was skipped, without a word, exit status 0)
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        self.count += 1

    def _write(self, results: list[SearchResult], header: bool) -> None:
        args = self.args
        if args.json:
            for result in results:
                print(json.dumps(result.to_dict(), default=str), flush=True)
        elif args.csv == "-":
            _write_csv(sys.stdout, results, args.node_map, header=header)
            sys.stdout.flush()
        elif self.out is not None:
            self.rows += _write_csv(self.out, results, args.node_map, header=header)
            # on disk at once: a process killed outright (kill -9, out of memory) leaves the
            # rows so far in the file beside FILE, not in a buffer (it was empty, 0 bytes)
            self.out.flush()
        else:
            for k, result in enumerate(results):
                print(f"{chr(10) if self.count + k else ''}{report(result)}", flush=True)

    def not_started(self, results: list[SearchResult]) -> None:
        """Queries Ctrl-C stopped before their search began: a line each in JSON and CSV
        (a reader of the file must tell "no hit" from "not searched"; the text output
        counts them at the end)."""
        if results and (self.args.json or self.args.csv):
            self._write(results, header=not self.count)
            self.count += len(results)

    def finish(self, tally: _Tally, batch: bool, seconds: float) -> None:
        """The lines after the answers: the batch's summary, the queries not started."""
        args = self.args
        if args.json:
            return
        if args.csv == "-":
            print(f"gedkit: {_summary(tally, seconds)}", file=sys.stderr)
        elif args.csv:
            print(f"wrote {counted(self.rows, 'row')} to {args.csv}: {_summary(tally, seconds)}")
        else:
            if tally.queries and batch:
                print(f"\n{_summary(tally, seconds)}")
            if tally.unreached:  # (else a reader of the text sees no trace of them)
                print(f"{chr(10) if tally.queries else ''}{_not_started(tally.unreached)}")


class _Tally:
    """What the summary line and the notes after it count, added up batch after batch
    (the answers themselves are not kept)."""

    def __init__(self) -> None:
        self.queries = self.hits = self.undecided = self.certified = self.answered = 0
        self.stopped = 0  # hits and undecided of queries Ctrl-C stopped
        self.unreached = 0  # queries Ctrl-C stopped before they began
        self.stopped_early = False  # Ctrl-C while the queries were read
        self.late, self.late_unreached, self.late_kind = 0, 0, ""  # queries out of time
        self.unproven = 0  # verifications that stopped before deciding, in whole answers
        self.cold = False  # some because the kernels were not compiled yet
        self.reasons: dict[str, int] = {}  # why they stopped, as the verifications said

    @classmethod
    def of(cls, results: list[SearchResult]) -> _Tally:
        tally = cls()
        tally.add(results)
        return tally

    @property
    def interrupted(self) -> bool:
        return self.stopped_early or self.unreached > 0 or self.answered < self.queries

    def add(self, results: list[SearchResult]) -> None:
        """Count the answers ``results`` (their searches started)."""
        for r in results:
            self.queries += 1
            self.hits += len(r.hits)
            self.undecided += len(r.undecided)
            self.certified += r.certified
            for reason, count in (r.stats.get("stopped") or {}).items():
                self.cold = self.cold or reason == KERNELS_NOT_READY
                self.reasons[reason] = self.reasons.get(reason, 0) + count
            if r.timed_out and not r.certified:
                self.late += 1
                self.late_unreached += r.stats.get("unreached", 0)
                self.late_kind = r.kind
            if r.interrupted:
                # (their CSV rows say "interrupted", not "hit" or "undecided")
                self.stopped += len(r.hits) + len(r.undecided)
            else:
                self.answered += 1
                if not r.timed_out:
                    self.unproven += len(r.undecided) + sum(not h.optimal for h in r.hits)


def _not_started(count: int) -> str:
    """The note on the queries Ctrl-C left without an answer: their search not begun, or,
    on worker processes, not back in time after a second Ctrl-C (said alike: "not started"
    was wrong for those)."""
    many = count != 1
    return (f"{counted(count, 'query', 'queries')} not answered (Ctrl-C came before "
            f"{'their answers' if many else 'its answer'})")


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


def _summary(tally: _Tally, seconds: float) -> str:
    """The batch's counts and ``seconds`` of the wall clock (not the queries' own times
    added up: more than the wall clock's when they ran side by side), the queries Ctrl-C
    stopped before their search began counted apart (the line said "1 query" of 3)."""
    parts = [counted(tally.queries, "query", "queries"), counted(tally.hits, "hit")]
    if tally.unreached:
        parts[0] += f" ({tally.unreached:,} more not answered)"
    if tally.undecided:
        parts.append(f"{tally.undecided:,} undecided")
    if tally.stopped:  # (of both: "5,148 undecided (5,188 of them ...)" counted the hits too)
        of = "the hits and undecided" if tally.undecided else "them"
        parts.append(f"{tally.stopped:,} of {of} from queries Ctrl-C stopped")
    parts.append(f"{tally.certified:,} of {tally.queries:,} certified")
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
    # the shards of a query searched side by side (--jobs, --scheduler): their times added,
    # said so (a query's 10 s of two shards' work in 7 s of wall clock read as a limit of 5
    # s per query broken)
    shards = result.stats.get("shards", 1)
    work = f" ({shards} shards' time added)" if shards > 1 else ""
    lines = [f"{result.query}: {counted(hits, 'hit')} {asked}, {verdict}, "
             f"{_duration(_seconds(result))}{work}"]
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
        said = [f"{stage} {count:,}" for stage, count in shown.items()]
        unreached = stats.get("unreached", 0)
        stages = list(shown)
        if unreached and stages[-1] == "pairs" and len(stages) > 1:
            # an MCES range search's pair bounds run on the graphs its verification reaches
            # ("pairs 403" read as if they had ruled out 57,745 the time limit left unread)
            said[-1] += f" (of the {shown[stages[-2]] - unreached:,} reached)"
        parts.append("left after " + ", ".join(said))
    verified = stats.get("verified", 0)
    if "scanned" not in stats:
        parts.append(f"verified {verified:,}")
    elif verified >= stats["scanned"]:  # GED kNN: a graph set aside is verified again as
        # the k-th distance falls
        again = verified - stats["scanned"]
        parts.append(f"verified {stats['scanned']:,} in bound order"
                     # (the same graphs again: "10 again" of a 3-graph collection read as
                     # an error)
                     + (f" ({again:,} more tries of graphs set aside, as the k-th distance "
                        "fell)" if again > 0 else ""))
    else:  # MCES kNN: graphs reached in bound order, some ruled out by their pair bounds
        # ("left after pairs 7; verified 34" was said of 34 graphs reached, 7 verified)
        parts.append(f"{stats['scanned']:,} in bound order, of which {verified:,} verified "
                     "(the others ruled out by their pair bounds)")
    return "; ".join(parts)


def _seconds(result: SearchResult) -> float:
    return float(sum((result.stats.get("seconds") or {}).values()))


def _tell_limits(tally: _Tally, args: argparse.Namespace) -> None:
    """A note when verifications left graphs undecided or values unproven: the time limit,
    or (a verification's ``stats["stopped"]`` says so) compiled kernels not ready yet, when
    verifications answer with the cheap bounds they have at once rather than wait for a
    compile longer than their limit."""
    if tally.late:
        default = " (the default)" if args.query_timeout == COMMAND_TIMEOUT else ""
        found = ("the k best found by then" if tally.late_kind.endswith("knn") else
                 f"{counted(tally.late_unreached, 'candidate')} not verified, undecided")
        print(f"gedkit: note: {counted(tally.late, 'query', 'queries')} reached the time limit "
              f"of {args.query_timeout:g} s per query{default}: {found}, not certified; "
              "--query-timeout S (or none) searches longer", file=sys.stderr)
    stopped = tally.unproven
    if stopped and tally.cold:
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
        for reason, count in tally.reasons.items():
            if reason.startswith("time limit: "):
                reason = reason[len("time limit: "):]
                reasons[reason] = reasons.get(reason, 0) + count
            elif reason != "time limit":
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
