"""``gedkit collection build|info``: collection files for ``gedkit search``."""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import socket
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gedkit.cli._clock import start_ticks
from gedkit.cli._inputs import (
    _cli_words,
    _is_smiles,
    _note,
    _notice,
    add_input_arguments,
    add_strict_argument,
    label_spec,
    no_graph,
    own_labels,
    tell_skipped,
)
from gedkit.cli._inputs import read_options as _read_options
from gedkit.errors import GedkitError, OptionError, counted
from gedkit.text import MESSAGE_WIDTH, clipped, quoted

if TYPE_CHECKING:  # numpy and the readers load when the command runs
    from gedkit.graph import Graph
    from gedkit.search import Collection

#: graphs (and nodes plus edges) that the check of names keeps in memory, so that an input of
#: up to this size is read once; a larger one is read again to be added
BUFFER_GRAPHS = 50_000
BUFFER_ITEMS = 2_500_000

_SMILES = "smiles:"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "collection",
        help="build or describe a collection file for 'gedkit search'",
        description="A collection is one file (SQLite) holding graphs with ids and the "
        "signatures that let 'gedkit search' filter it without reading its graphs.",
        allow_abbrev=False,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    build = actions.add_parser(
        "build",
        help="make a collection file from graph files",
        description="Make the collection file LIB from the graphs of FILES (any format gedkit "
        "reads, gzipped text formats too; a file holding several graphs adds them all, a "
        "CSV/TSV table the molecules of its smiles column; smiles:SMILES adds one molecule). "
        "A graph's id is its name (the SMILES title column, the file name of a GXL graph...) "
        "when every name is unique, otherwise its number. Graphs are written in batches, "
        "each whole or not at all: Ctrl-C keeps every batch written (with --overwrite, the "
        "old collection as it was instead). --append adds graphs to an existing collection, "
        "skipping those it holds already (same id and graph): it continues an interrupted "
        "build.",
        epilog="Exit status: 0 when done, 2 for bad input (nothing written when it is found "
        "before writing starts), 130 after Ctrl-C or SIGTERM (the batches written are kept; "
        "with --overwrite the old file).",
        allow_abbrev=False,
    )
    build.add_argument("lib", metavar="LIB", help="the collection file to write (LIB.gdb)")
    build.add_argument("files", nargs="+", metavar="FILE", help="graph files")
    build.add_argument(
        "--ids", choices=("names", "numbers"),
        help="ids: the graphs' names (an error unless they are unique) or numbers from 0 "
        "(default: names when unique, else numbers). Names are checked before anything is "
        f"written, so inputs of over {BUFFER_GRAPHS:,} graphs are read twice; --ids numbers "
        "reads them once",
    )
    add_strict_argument(build)
    mode = build.add_mutually_exclusive_group()
    mode.add_argument("--append", action="store_true",
                      help="add to the existing collection LIB (read with its labels); a "
                      "graph named by an id LIB has, with the same graph, is skipped (and "
                      "counted), so the same command with --append continues an interrupted "
                      "build (graphs named, not numbered)")
    mode.add_argument("--overwrite", action="store_true",
                      help="replace LIB when it exists (only a collection file is replaced)")
    build.add_argument("--jobs", type=int, default=1, metavar="N",
                       help="worker processes that parse the molecules of SMILES files and "
                       "tables (-1 = all cores; default 1: this process); other formats are "
                       "read in this process")
    add_input_arguments(build, collection=True)
    build.set_defaults(run=run_build, command_parser=build)

    info = actions.add_parser(
        "info", help="what a collection file holds",
        description="Graphs, the label attributes they were read with, node and edge counts, "
        "label vocabularies and file size of the collection file LIB.",
        allow_abbrev=False,
    )
    info.add_argument("lib", metavar="LIB", help="a collection file")
    info.add_argument("--json", action="store_true", help="print JSON for programs")
    info.add_argument("--check", action="store_true",
                      help="also read every page of the file (SQLite's quick check, about 5 s "
                      "a GB): damage a search would meet only in the graphs it reads")
    info.set_defaults(run=run_info, command_parser=info)


# -- build --------------------------------------------------------------------------------------

def run_build(args: argparse.Namespace) -> int:
    from gedkit.search import Collection
    from gedkit.search.collection import BATCH, NUMBERED_AMONG_NAMES
    from gedkit.workers import resolve_jobs

    start = time.perf_counter()
    lib = Path(args.lib)
    node_label, edge_label = label_spec(args.node_label), label_spec(args.edge_label)
    _check_target(lib, args)
    _check_inputs(args.files, lib, args)
    existing: Collection | None = None
    if args.append:
        existing = Collection.open(lib, mode="a")
        node_label = _recorded(existing.node_label, node_label, "--node-label", lib)
        edge_label = _recorded(existing.edge_label, edge_label, "--edge-label", lib)
    options = {**_read_options(args), "node_label": node_label, "edge_label": edge_label}
    options = {key: value for key, value in options.items() if value is not None}
    options["jobs"] = resolve_jobs(args.jobs)
    if options["jobs"] > 1:  # (--jobs on an SDF file was silently one process)
        from gedkit.io import parses_in_parallel

        serial = [str(f) for f in args.files if not parses_in_parallel(f)]
        if serial:
            print(f"gedkit: note: --jobs parses SMILES files and tables; "
                  f"{', '.join(serial[:3])}{' ...' if len(serial) > 3 else ''} "
                  f"{'is' if len(serial) == 1 else 'are'} read in this process",
                  file=sys.stderr)
    skipped: list[str] = []
    if not args.strict:  # SMILES and SDF records RDKit rejects are left out, and counted
        options["skipped"] = skipped

    graphs: Any = None
    ids = None
    there: set = set()  # names of graphs LIB holds already, the same graph: not added again
    held = _ids_of(existing)  # (read once: a collection of millions has as many ids)
    try:
        if args.ids != "numbers":
            names = _record_names(args.files, args)
            if names and _naming_problem(names) is None and held.isdisjoint(names):
                ids = "names"  # SMILES records named apart: the molecules are read once
            else:
                names, buffer, there, other = _scan(args.files, options, args, existing,
                                                    held)
                if not names:
                    raise no_graph(", ".join(args.files), skipped)
                problem = _naming_problem(names) or (
                    None if other is None else f"{lib} has a graph with id {quoted(other)} already "
                    "(another graph)")
                if problem is not None and args.ids is None and held:
                    # numbered among LIB's named graphs: ids of two kinds, and the same
                    # command again would add them all again (it renumbered them silently)
                    raise OptionError(
                        f"{problem}: numbered, the new graphs would sit among {lib}'s named "
                        "ones, and the same --append again would add them again; name them "
                        "apart, or give --ids numbers to number them all the same")
                ids = _named_ids(names, problem, args.ids == "names")
                if ids is None:
                    there = set()  # (numbered graphs are not matched with LIB's)
                graphs = buffer
    except KeyboardInterrupt:
        print("gedkit: interrupted while reading the graphs; nothing was written",
              file=sys.stderr)
        return 130
    finally:
        _note(args)
    # --overwrite builds beside the old file and replaces it once done: an error or Ctrl-C
    # midway leaves the old collection as it was
    target = _building(lib) if args.overwrite else lib
    _remove_abandoned(lib)
    if args.overwrite and target.exists():
        # (a build of this process id that died midway; without --overwrite the target is
        # LIB itself, which another build may have made since it was checked: never removed)
        target.unlink()
    try:
        coll = existing if existing is not None else Collection.create(
            target, node_label=node_label, edge_label=edge_label)
    except FileExistsError:  # (another build made it since it was checked)
        raise OptionError(f"{lib} exists already (made just now by another process); "
                          "--append adds to it, --overwrite replaces it") from None
    if graphs is None:
        graphs = _stream(args.files, options, args)
    if there:  # the ids are the names of the graphs left
        graphs, ids = (g for g in graphs if g.name not in there), "names"
    sources = [_source(text) for text in args.files]
    if existing is not None:
        _check_unfinished(existing, sources, ids, lib)
    try:
        _begin_build(coll, sources, ids is None)
        with warnings.catch_warnings():
            if args.ids == "numbers":  # (asked for: the note that they are numbered is noise)
                warnings.filterwarnings("ignore", NUMBERED_AMONG_NAMES)
            added = coll.add(graphs, ids=ids)
        # (the labels the files' lone attributes gave, none named: queries read with them)
        coll._store.record_labels(_notice(args).taken())
        _end_build(coll, sources)
    except (KeyboardInterrupt, GedkitError, OSError) as err:
        # this command's batches (not len(coll) before and after: another writer's count)
        committed = coll._last_added
        stopped = isinstance(err, KeyboardInterrupt)
        if existing is None and (args.overwrite or not committed):
            coll.close()  # made by this command: nothing of it is kept
            target.unlink()
            if stopped:
                print(f"gedkit: interrupted: nothing was written"
                      f"{f'; {lib} is as it was' if args.overwrite else ''}", file=sys.stderr)
                return 130
            raise
        if stopped:
            print(f"gedkit: interrupted: {committed:,} graphs were committed to {lib} (whole "
                  f"batches of {BATCH:,}; nothing of the batch under way); "
                  f"{_how_to_continue(ids)}", file=sys.stderr)
            return 130
        if committed:
            print(f"gedkit: note: {committed:,} graphs were committed to {lib} before the error",
                  file=sys.stderr)
        raise
    finally:
        _note(args)
    total = len(coll)
    coll.close()
    if not added and existing is None:
        target.unlink()
        raise no_graph(", ".join(args.files), skipped)
    if target != lib:
        os.replace(target, lib)
    tell_skipped(skipped)
    what = "numbers" if ids is None else _shown_names(names, there)
    kept = f", {len(there):,} in {lib.name} already skipped" if there else ""
    print(f"{lib}: {counted(added, 'graph')} added ({total:,} in all; ids: {what}{kept}), "
          f"{_file_size(os.path.getsize(lib))}, {time.perf_counter() - start:.1f} s")
    return 0


def _source(text: str) -> str:
    """How a build's input is recorded (:func:`_begin_build`): a file by its absolute path, a
    SMILES given on the command line as it is."""
    path = Path(text)
    return str(path.resolve()) if path.exists() else text


def _begin_build(coll: Any, sources: list[str], numbered: bool) -> None:
    """Record in ``coll``, before a build adds its first graph, that a build of ``sources``
    (``numbered``: its graphs' ids numbers) is under way, beside the record of others not
    finished; :func:`_end_build` takes it off. A build killed midway (no clean-up runs)
    leaves it: the next one adding the same files is told (:func:`_check_unfinished`)."""
    before = len(coll)
    me = _this_process()

    def begun(build: dict | None) -> dict:
        build = build or {"files": [], "numbered": False, "before": before}
        build["files"] += [src for src in sources if src not in build["files"]]
        build["numbered"] = build["numbered"] or numbered
        # (who builds: collection info tells a build under way from one killed midway)
        build["processes"] = [*build.get("processes", []), me]
        return build

    coll._store.update_build(begun)


def _end_build(coll: Any, sources: list[str]) -> None:
    """Take the build of ``sources`` off ``coll``'s record (:func:`_begin_build`): all its
    graphs are in."""
    me = _this_process()

    def ended(build: dict | None) -> dict | None:
        if build is None:
            return None
        build["files"] = [src for src in build["files"] if src not in sources]
        build["processes"] = [p for p in build.get("processes", []) if p != me]
        return build if build["files"] else None

    coll._store.update_build(ended)


def _this_process() -> list:
    """This process as a build's record names it: host, process id and the system's start
    time of it (so that a later process given the same id is not taken for it)."""
    return [socket.gethostname(), os.getpid(), start_ticks(os.getpid())]


def _under_way(build: dict) -> list[int]:
    """The ids of the processes of this host still running a build recorded in ``build``."""
    host = socket.gethostname()
    return [pid for where, pid, ticks in build.get("processes", [])
            if where == host and ticks is not None and start_ticks(pid) == ticks]


def _check_unfinished(existing: Any, sources: list[str], ids: Any, lib: Path) -> None:
    """Refuse to add graphs of files an unfinished build of ``lib`` was adding (killed or
    interrupted after some batches) where either numbers them (``ids`` None: this one):
    numbered graphs cannot be told from those it committed, and every one would be added
    again (silently, after a kill -9). Named both times, those there already are skipped
    (by id and graph)."""
    build = existing._store.unfinished_build()
    if build is None or (ids is not None and not build["numbered"]):
        return
    again = [src for src in sources if src in build["files"]]
    if again:
        running = _under_way(build)
        how = (f"under way in process {', '.join(map(str, running))}" if running else
               "killed or interrupted midway")
        raise OptionError(
            f"{lib} holds graphs of an unfinished build of {_short(again[0])}"
            f"{f' and {len(again) - 1} more' if len(again) > 1 else ''} ({how}); numbered, "
            "they would all be added again: --overwrite builds the collection anew")


def _short(source: str) -> str:
    """A recorded source as a message names it: a file by its name, a SMILES as it is."""
    return Path(source).name if os.path.isabs(source) else clipped(source, MESSAGE_WIDTH)


def _shown_names(names: list, there: set) -> str:
    """The summary's word on named ids, with the first one added: a name a reader would
    not guess (a table without an id column names its rows 'moses30k[0]'...) is seen."""
    first = next((name for name in names if name not in there), None)
    return "names" if first is None else f"names such as {quoted(first)}"


def _how_to_continue(ids: Any) -> str:
    """What the interrupt message of a build advises to add the rest."""
    if ids is None:
        return ("the graphs are numbered, so --append would add them all again (it refuses "
                "to): --overwrite builds the collection anew")
    return ("the same command with --append (and without --overwrite) adds the rest: the "
            "graphs the collection has already, by id and graph, are skipped")


def _remove_abandoned(lib: Path) -> None:
    """Delete the ``--overwrite`` builds of ``lib`` left by processes that died midway (killed:
    no clean-up ran); a live process's is its own."""
    for left in lib.parent.glob(f".{glob.escape(lib.name)}.*.building"):
        pid = left.name[len(lib.name) + 2:-len(".building")]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except (ProcessLookupError, OverflowError):  # (no such process; none could be)
            with contextlib.suppress(OSError):
                left.unlink()
        except OSError:  # (alive, another user's)
            continue


def _building(lib: Path) -> Path:
    """The file an ``--overwrite`` build writes beside ``lib`` and then renames to it."""
    return lib.with_name(f".{lib.name}.{os.getpid()}.building")


def _check_target(lib: Path, args: argparse.Namespace) -> None:
    """A one-line error, before any input is read, unless ``lib`` can be written as asked."""
    from gedkit.search.store import check_new_file, check_replaceable

    if lib.exists() and not lib.is_file():
        raise OptionError(f"{lib} is not a file (a collection is one file)")
    if args.append:
        if not lib.exists():
            raise OptionError(f"{lib} does not exist; --append adds to an existing collection "
                              "(leave it out to make a new one)")
        return
    check_new_file(_building(lib) if args.overwrite else lib, shown=lib)
    if not lib.exists():
        return
    try:  # (an empty file, what a failed build may leave, is replaced too)
        check_replaceable(lib)
    except GedkitError:
        # said first: "exists already; --append adds to it, --overwrite replaces it" was
        # said of a SMILES file named as the collection, and both then failed
        raise OptionError(f"{lib} is not a gedkit collection (the first argument is the "
                          "collection file to build; --overwrite replaces collection files "
                          "only)") from None
    if not args.overwrite:
        raise OptionError(f"{lib} exists already; --append adds to it, --overwrite replaces it")


def _check_inputs(files: list[str], lib: Path, args: argparse.Namespace) -> None:
    """Every input there before anything is written (and LIB not among them); an argument
    that names no file is a SMILES (read as one, or said to be neither) unless --format
    says it is a file."""
    from gedkit.cli._args import input_at
    from gedkit.inputs import is_file_reference

    for text in files:
        if not _is_smiles(text, args) and not is_file_reference(text):
            raise FileNotFoundError(f"no such file: {text}")
    if (same := input_at(lib, files)) is not None:
        raise OptionError(f"{same} is the collection being written; a collection is not an "
                          "input of itself")


def _recorded(stored: Any, given: Any, flag: str, lib: Path) -> Any:
    """The label the graphs added to ``lib`` are read with: the one it records."""
    if given is not None and _spec(given) != _spec(stored):
        shown = f"no {flag} (the format's own labels)" if stored is None else \
            f"{flag} {_show_label(stored)}"
        raise OptionError(f"{lib} was built with {shown}; graphs read with {flag} "
                          f"{_show_label(given)} would not be comparable with its graphs")
    return stored


def _spec(value: Any) -> Any:
    return tuple(value) if isinstance(value, list | tuple) else value


def _stream(files: list[str], options: dict, args: argparse.Namespace) -> Iterator[Graph]:
    """The graphs of ``files`` one at a time, read with ``options``."""
    from gedkit.inputs import as_graph
    from gedkit.io import read_graphs
    from gedkit.io.common import undirected_only

    notice = _notice(args)
    with _cli_words(), undirected_only("a collection"):
        for text in files:
            if _is_smiles(text, args):
                yield as_graph(text, options.get("node_label"), options.get("edge_label"),
                               notice=notice)
            else:  # (the labels the collection records: a t/v/e file's are its own)
                yield from read_graphs(text, notice, **own_labels(text, options, args))


def _scan(files: list[str], options: dict, args: argparse.Namespace,
          existing: Collection | None, held: set) -> tuple[list, list[Graph] | None, set, Any]:
    """Every graph's name, the graphs themselves while they are few enough to keep, the
    names that are ids of ``existing`` (``held``, :func:`_ids_of`) with the same graph (an
    interrupted build's, added again) and the first that is the id of another graph there
    (or None)."""
    from gedkit.search.progress import GraphCounter

    names: list = []
    buffer: list[Graph] | None = []
    items = 0
    same, other = set(), None
    shown = GraphCounter(None, "reading")
    try:
        for g in _stream(files, options, args):
            names.append(g.name)
            if g.name in held:
                if existing.get(g.name) == g:
                    same.add(g.name)
                elif other is None:
                    other = g.name
            if buffer is not None:
                buffer.append(g)
                items += g.n + g.m
                if len(buffer) > BUFFER_GRAPHS or items > BUFFER_ITEMS:
                    buffer = None  # read again when adding
            shown.update(len(names))
    finally:
        shown.close()
    return names, buffer, same, other


def _ids_of(existing: Collection | None) -> set:
    """The string ids of ``existing`` (those a graph's name may be)."""
    if existing is None or not len(existing):
        return set()
    return {i for i in existing.ids if isinstance(i, str)}


def _record_names(files: list[str], args: argparse.Namespace) -> list | None:
    """The names of every record of ``files`` when they are all SMILES files or tables, read
    without parsing a molecule (rejected records' names included); None for other inputs, or
    where reading them fails (the reading of the graphs then says why)."""
    from gedkit.io import detect_format
    from gedkit.io.chem import record_names

    names: list = []
    try:
        for text in files:
            if text.startswith(_SMILES) or not Path(text).is_file():  # FILE#ID picks one
                return None
            fmt = detect_format(text, getattr(args, "format", None))
            if fmt not in ("smiles", "csv"):
                return None
            names += record_names(Path(text), table=fmt == "csv")
    except Exception:  # the graphs' own reading reports it
        return None
    return names


def _naming_problem(names: list) -> str | None:
    """Why ``names`` cannot be the ids (one missing, one twice), or None."""
    seen: dict = {}
    for k, name in enumerate(names):
        if not isinstance(name, str) or not name:
            return f"graph {k} has no name"
        if name in seen:
            return f"graphs {seen[name]} and {k} are both named {quoted(name)}"
        seen[name] = k
    return None


def _named_ids(names: list, problem: str | None, required: bool) -> list | None:
    """``names`` as the ids, unless there is a ``problem``; then None (numbers), with a note
    saying why, or an error with ``--ids names``."""
    if problem is None:
        return names
    if required:
        raise OptionError(f"--ids names: {problem}; --ids numbers numbers the graphs instead")
    print(f"gedkit: note: the graphs are numbered, not named: {problem}", file=sys.stderr)
    return None


# -- info ---------------------------------------------------------------------------------------

def run_info(args: argparse.Namespace) -> int:
    from gedkit.result_base import jsonable
    from gedkit.search import Collection

    with Collection.open(args.lib) as coll:
        data = describe(coll)
        if args.check:
            coll.check()  # (a damaged file: one line, exit status 2)
            data["check"] = "ok"
    if args.json:
        print(json.dumps(data, default=jsonable))  # labels of any type
        return 0
    vocab = data["vocabulary"]
    rows = [
        ("collection", data["path"]),
        ("graphs", f"{data['graphs']:,}"),
        ("node label", _show_label(data["node_label"], data["labels"]["node"])),
        ("edge label", _show_label(data["edge_label"], data["labels"]["edge"])),
        ("nodes", _show_counts(data["nodes"])),
        ("edges", _show_counts(data["edges"])),
        ("vocabulary", f"{counted(vocab['node'], 'node label')}, "
                       f"{counted(vocab['edge'], 'edge label')}, "
                       f"{counted(vocab['branch'], 'branch', 'branches')}"),
        ("node labels", _show_frequent(data["labels"]["node"], vocab["node"])),
        ("edge labels", _show_frequent(data["labels"]["edge"], vocab["edge"])),
        ("file size", _file_size(data["file_size"])),
        *([("unfinished", _show_unfinished(data["unfinished_build"]))]
          if data["unfinished_build"] else []),
        *([("check", "every page, record and graph read, no damage")] if "check" in data else []),
    ]
    width = max(len(key) for key, _ in rows) + 2
    print("\n".join(f"{key:<{width}}{value}" for key, value in rows))
    return 0


def _show_unfinished(build: dict) -> str:
    """The line of ``collection info`` on a build not finished (see :func:`_begin_build`):
    under way, where a process of this host that began it still runs, else killed or
    interrupted (a build 4 s into its run was said to be killed)."""
    files = build["files"]
    more = f" and {len(files) - 1} more" if len(files) > 1 else ""
    what = f"a build of {_short(files[0])}{more}"
    running = _under_way(build)
    if running:
        return (f"{what} is under way (process {', '.join(map(str, running))}; the "
                f"collection had {counted(build['before'], 'graph')} before it)")
    return (f"{what} did not finish (killed or interrupted midway; the collection had "
            f"{counted(build['before'], 'graph')} before it)")


def describe(coll: Collection) -> dict:
    """What ``gedkit collection info --json`` prints."""
    sig = coll._signatures
    vocab = coll._store.vocab
    return {
        "path": coll.path,
        "graphs": len(sig),
        "node_label": _plain(coll.node_label),
        "edge_label": _plain(coll.edge_label),
        "nodes": _counts(sig.n),
        "edges": _counts(sig.m),
        # the distinct labels and branches its graphs have (the vocabularies keep those of
        # graphs removed since)
        "vocabulary": {kind: int(mask.sum()) for kind, mask in sig.present(
            {kind: len(v) for kind, v in vocab.items()}).items()},
        "labels": {kind: _frequent(sig.sets[kind], coll._store.vocab[kind])
                   for kind in ("node", "edge")},
        "file_size": os.path.getsize(coll.path),
        # (a build killed or interrupted midway: what it was adding)
        "unfinished_build": coll._store.unfinished_build(),
    }


#: labels listed per kind by ``collection info`` (most frequent first): what a query's labels
#: must look like to match (1, 2 and 3 for kekulized bonds; 1.5 for aromatic ones)
_LISTED = 20
_SHOWN = 8  # of them in the text form


def _frequent(sets: Any, vocab: Any) -> list:
    """``[label, nodes or edges with it]`` for the :data:`_LISTED` most frequent labels."""
    import numpy as np

    totals = np.bincount(sets.ids, weights=sets.counts, minlength=len(vocab))
    top = np.argsort(-totals, kind="stable")[:_LISTED]
    return [[vocab.value(int(i)), int(totals[i])] for i in top if totals[i] > 0]


def _show_frequent(frequent: list, distinct: int) -> str:
    if not frequent:
        return "-"
    shown = ", ".join(f"{_show_value(label)} ({count:,})" for label, count in frequent[:_SHOWN])
    more = distinct - min(len(frequent), _SHOWN)
    return shown + (f" and {more:,} more" if more > 0 else "")


def _show_value(label: Any) -> str:
    if label is None:
        return "(no label)"
    return str(label) if isinstance(label, int | float) else repr(label)


def _counts(values: Any) -> dict | None:
    if not len(values):
        return None
    return {"min": int(values.min()), "mean": float(values.mean()), "max": int(values.max())}


def _show_counts(counts: dict | None) -> str:
    if counts is None:
        return "-"
    return f"min {counts['min']}, mean {counts['mean']:.1f}, max {counts['max']}"


def _plain(label: Any) -> Any:
    return list(label) if isinstance(label, tuple) else label


def _show_label(label: Any, stored: list | None = None) -> str:
    """The label attribute the collection was built with; with none named, whether the
    format's own labels were kept or the graphs are unlabelled (``stored``: the most frequent
    labels, as :func:`describe` gives them; a GEXF collection built with only a node label
    said "the format's own labels" of its unlabelled edges)."""
    if label is None and stored and all(value is None for value, _ in stored):
        return "(none: unlabelled)"  # (an empty collection's graphs may yet have labels)
    if label is None:
        return "(none named: the format's own labels)"
    if isinstance(label, list | tuple):
        return ",".join(map(str, label))
    return str(label)


def _file_size(size: float) -> str:
    if size < 1000:
        return f"{int(size)} bytes"
    for unit in ("kB", "MB", "GB", "TB"):
        size /= 1000
        if size < 1000 or unit == "TB":
            break
    return f"{size:.1f} {unit}"
