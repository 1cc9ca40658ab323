"""How the commands read their graphs, and what they say about it in command-line words.

A graph argument is a file, one graph of a collection file as ``FILE#ID`` (by name, or by
number from 0) or a molecule as ``smiles:SMILES``. Graphs whose attributes are left out
because no label was named get one ``gedkit: note:`` line per command on stderr, and reading
errors advise flags (``--directed ignore``), not keyword arguments.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from gedkit.errors import GedkitError, OptionError

if TYPE_CHECKING:  # readers load when a command reads, not when the parser is built
    from gedkit.graph import Graph
    from gedkit.io.common import Unlabelled

__all__ = ["add_input_arguments", "label_spec", "read_file", "read_options", "read_pair"]

_SMILES = "smiles:"
# gedkit.io.common.DIRECTED_POLICIES, spelled here so that building the parser imports no
# reader (a test keeps the two equal)
DIRECTED_POLICIES = ("error", "keep", "ignore")


def add_pair_arguments(parser: argparse.ArgumentParser) -> None:
    """The two graphs ``A B`` of ``gedkit ged`` and ``gedkit mces``."""
    for name, which in (("a", "first"), ("b", "second")):
        parser.add_argument(name, metavar=name.upper(),
                            help=f"the {which} graph: a file, FILE#ID or SMILES")


def add_input_arguments(parser: argparse.ArgumentParser, collection: bool = False,
                        undirected: str | None = None) -> None:
    """How graphs are read: ``--node-label``, ``--edge-label``, ``--no-node-label``,
    ``--no-edge-label``, ``--format``, ``--directed``, ``--graph-dir``. For a
    ``collection``: ``--directed`` is error or ignore, no keep (it holds undirected graphs
    only), and no ``--no-*-label`` (it records its label attributes, the format's own when
    none is named); ``undirected``: the same ``--directed`` for a command comparing
    undirected graphs only, saying why."""
    group = parser.add_argument_group(
        "reading graphs",
        "A graph argument is a file, FILE#ID for one graph of a collection file (by name, or "
        "by number from 0), or a molecule as SMILES (smiles:SMILES, or the SMILES alone when "
        "no such file exists and no --format is given).",
    )
    group.add_argument(
        "--node-label", action="append", metavar="ATTR",
        help="node attribute(s) that form the label: repeat or give a comma list; "
        "'*' = all attributes (default: the format's own labels)",
    )
    group.add_argument(
        "--edge-label", action="append", metavar="ATTR",
        help="edge attribute(s) that form the label, as --node-label (molecules: bond, "
        "aromatic bonds 1.5, or kekule, aromatic bonds as alternating 1 and 2)",
    )
    for side in () if collection else ("node", "edge"):
        group.add_argument(
            f"--no-{side}-label", action="store_true",
            help=f"read the {side}s unlabelled, whatever the format's own labels (SMILES, "
            "SDF: element, bond order)")
    group.add_argument("--format", help="file format (default: from the file name)")
    why = "a collection holds undirected graphs only" if collection else undirected
    add_directed_argument(group, directed_too=why is None, why=why or "")
    group.add_argument(
        "--graph-dir", metavar="DIR",
        help="CXL collections: the folder holding the listed GXL files (default: the CXL "
        "file's folder)",
    )


def add_directed_argument(group: Any, directed_too: bool = True,
                          why: str = "a collection holds undirected graphs only") -> None:
    """``--directed``: what a graph its file says is directed becomes (``directed_too``:
    kept directed is one of the choices; else not, for the reason ``why``)."""
    if directed_too:
        group.add_argument(
            "--directed", choices=DIRECTED_POLICIES,
            help="a directed graph is an error (default), is read as directed (keep: compared "
            "arc by arc), or is read without edge directions (ignore: opposite edges become "
            "one, labelled by the first in the file)",
        )
    else:
        group.add_argument(
            "--directed", choices=("error", "ignore"),
            help=f"a directed graph is an error (default: {why}) or is read without edge "
            "directions (ignore: opposite edges become one, labelled by the first in the file)",
        )


def label_spec(values: list[str] | None) -> str | list[str] | None:
    """``--node-label`` values to a label spec: None, one name, several names, or ``"*"``.

    >>> label_spec(["atom"]), label_spec(["atom,charge", "iso"]), label_spec(["*"])
    ('atom', ['atom', 'charge', 'iso'], '*')
    """
    if not values:
        return None
    names = [name.strip() for value in values for name in value.split(",") if name.strip()]
    if "*" in names:
        if len(names) > 1:
            raise OptionError("'*' (all attributes) cannot be combined with attribute names")
        return "*"
    if not names:
        raise OptionError("a label option needs at least one attribute name")
    return names[0] if len(names) == 1 else names


def read_options(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for :func:`gedkit.io.read` / ``read_all``; what is not given is left
    to the reader (each format has its own default labels)."""
    given = {
        "node_label": args.node_label and label_spec(args.node_label),
        "edge_label": args.edge_label and label_spec(args.edge_label),
        "format": args.format,
        "directed": args.directed,
        "graph_dir": args.graph_dir,
    }
    out = {key: value for key, value in given.items() if value is not None}
    for side in ("node", "edge"):
        if getattr(args, f"no_{side}_label", False):
            if f"{side}_label" in out:
                raise OptionError(f"--no-{side}-label and --{side}-label contradict each other")
            out[f"{side}_label"] = None  # named: unlabelled (left out: the format's own)
    return out


def check_graph_dir(texts: list[str], args: argparse.Namespace) -> None:
    """A one-line error when ``--graph-dir`` is given and none of the inputs ``texts`` is a
    CXL collection (it is left out for the others: see :func:`_options_for`)."""
    from gedkit.io import format_takes

    if getattr(args, "graph_dir", None) is not None and not any(
            format_takes(text, "graph_dir", args.format) for text in texts):
        raise OptionError("--graph-dir DIR applies to CXL collections only, and no input is "
                          "one")


def _options_for(text: str, args: argparse.Namespace) -> dict[str, Any]:
    """:func:`read_options` for the file ``text``: ``--graph-dir`` names where CXL
    collections' graphs are, and a plain graph file beside a CXL one is read without it (a
    CXL graph and a GXL file could not be compared: "applies to CXL collections only")."""
    from gedkit.io import format_takes

    options = read_options(args)
    if "graph_dir" in options and not format_takes(text, "graph_dir", args.format):
        del options["graph_dir"]
    return own_labels(text, options, args)


def own_labels(text: str, options: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """``options`` to read the file ``text`` with, without the labels named where its format's
    labels have no names (t/v/e: its one label column is its labels, whatever is named for
    the other files of the command: a molecule's --edge-label kekule refused the t/v/e file
    beside it), said once per command."""
    from gedkit.io import unnamed_labels

    named = [f"{side}_label" for side in ("node", "edge")
             if options.get(f"{side}_label") not in (None, "label")]
    if not named or not unnamed_labels(text, args.format):
        return options
    if not getattr(args, "unnamed_noted", False):
        args.unnamed_noted = True
        flags = " and ".join(f"--{o.replace('_', '-')}" for o in named)
        print(f"gedkit: note: {text.split('#')[0]}: a t/v/e file's one label column is read as "
              f"its labels; {flags} appl{'y' if len(named) > 1 else 'ies'} to the other "
              "formats", file=sys.stderr)
    return {key: value for key, value in options.items() if key not in named}


def left_after_reading(args: argparse.Namespace, started: float) -> tuple[float, float | None]:
    """The seconds since ``started`` (reading the two graphs, and for the ``gedkit`` process
    itself its start and imports: :mod:`gedkit.cli._clock`) and ``--timeout`` less them, at
    least a millisecond (None without a limit): a limit covers the whole command, as
    ``gedkit.ged``'s covers its reading."""
    reading = time.perf_counter() - started
    if args.timeout is None or not args.timeout > 0:  # (a bad one: the solve says so)
        return reading, args.timeout
    return reading, max(args.timeout - reading, 1e-3)


def read_pair(args: argparse.Namespace) -> tuple[Graph, Graph]:
    """The two graphs of ``gedkit ged|mces A B``, read with the label options given (a bad
    ``--timeout`` said first: it was said after a note on the files' labels)."""
    from gedkit.budget import check_number
    from gedkit.io import read_one

    with _cli_words():
        check_number(args.timeout, "timeout", none=True)
        check_graph_dir([args.a, args.b], args)
        pair = tuple(
            _molecule(text, args) if _is_smiles(text, args)
            else read_one(text, _notice(args), **_options_for(text, args))
            for text in (args.a, args.b)
        )
    _note(args)
    return pair


def read_file(text: str, args: argparse.Namespace, skipped: list | None = None
              ) -> list[Graph]:
    """Every graph that the argument ``text`` names (a file, ``FILE#ID`` or ``smiles:...``),
    read with the label options given; ``skipped`` as :func:`gedkit.io.read_graphs` takes
    it."""
    from gedkit.io import read_graphs

    with _cli_words():
        graphs = ([_molecule(text, args)] if _is_smiles(text, args)
                  else list(read_graphs(text, _notice(args), skipped=skipped,
                                        **_options_for(text, args))))
    _note(args)
    return graphs


def add_strict_argument(parser: argparse.ArgumentParser) -> None:
    """``--strict``: stop at the first record RDKit cannot read instead of leaving it out."""
    parser.add_argument(
        "--strict", action="store_true",
        help="stop at the first molecule RDKit cannot read (default: leave it out and say how "
        "many were left out)",
    )


#: unreadable records named on stderr at most (the rest counted)
NAMED_SKIPS = 3


def no_graph(what: str, skipped: list[str] | None) -> GedkitError:
    """The error of inputs ``what`` that gave no graph: empty, or every record unreadable
    (then how many and the first reason: "the file holds no graph" was said of a file of
    two SMILES RDKit rejects)."""
    unique = list(dict.fromkeys(skipped or ()))
    if not unique:
        return GedkitError(f"no graphs in {what}")
    if len(unique) == 1:
        return GedkitError(f"no graphs in {what}: its one record could not be read "
                           f"({unique[0]})")
    return GedkitError(f"no graphs in {what}: all {len(unique)} records could not be read "
                       f"(the first: {unique[0]})")


def tell_skipped(skipped: list[str], pairs_fail: bool = False) -> None:
    """Say on stderr how many records were left out as unreadable (``pairs_fail``: kept in
    their places, their pairs failing), and the first reasons."""
    if skipped:
        # a file read twice (names first) reports each record twice: counted once
        unique = list(dict.fromkeys(skipped))
        one = len(unique) == 1
        which = f"{len(unique)} record{'' if one else 's'} could not be read" + (
            (": its pairs fail" if one else ": their pairs fail") if pairs_fail else
            (" and was left out" if one else " and were left out"))
        named = unique[:NAMED_SKIPS]
        whose = ("" if len(unique) == len(named) else f"; the first {len(named)}")
        print(f"gedkit: note: {which} (--strict stops at the first){whose}: "
              f"{'; '.join(named)}", file=sys.stderr)


def _is_smiles(text: str, args: argparse.Namespace) -> bool:
    """Whether the argument ``text`` is a molecule: ``smiles:...``, or (as in Python's
    :func:`gedkit.inputs.as_graph`) a string that names no existing file when no --format
    says it is one; a mistyped file name then gets the error naming both readings."""
    from gedkit.inputs import is_file_reference

    given = getattr(args, "format", None)
    return text.startswith(_SMILES) or (given is None and not is_file_reference(text))


def _molecule(text: str, args: argparse.Namespace) -> Graph:
    from gedkit.inputs import DEFAULT, as_graph_read

    options = read_options(args)  # (None: --no-node-label; left out: the format's own)
    return as_graph_read(text, options.get("node_label", DEFAULT),
                         options.get("edge_label", DEFAULT))


def _notice(args: argparse.Namespace) -> Unlabelled:
    """The command's one notice: all its files share the choice of obvious labels (so that
    they are compared alike) and the note of attributes left out."""
    if not hasattr(args, "input_notice"):
        from gedkit.io.common import Unlabelled

        args.input_notice = Unlabelled()
    return args.input_notice


def _note(args: argparse.Namespace) -> None:
    """Print the note of attributes left out, once per command."""
    warning = _notice(args).warning(getattr(args, "searched", None))
    if warning is not None and not getattr(args, "unlabelled_noted", False):
        args.unlabelled_noted = True
        print(f"gedkit: note: {warning.render(cli=True)}", file=sys.stderr)


@contextmanager
def _cli_words() -> Iterator[None]:
    """Errors raised inside reword their advice for the command line (``--directed ignore``
    instead of ``directed='ignore'``) before ``gedkit.cli.main`` prints them."""
    try:
        yield
    except GedkitError as err:
        err.args = (err.render(cli=True),)
        raise

