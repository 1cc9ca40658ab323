"""Exceptions and warnings raised by gedkit.

Every error a user can trigger with bad input derives from :class:`GedkitError`, so callers can
catch one type, and each also derives from the builtin it refines (``ValueError``,
``ImportError``) so generic handlers keep working.

A message that advises an option keeps that option as an :class:`Option` part instead of
spelling it, so that it reads in the caller's words: ``str(err)`` gives Python's
(``directed='ignore'``), ``err.render(cli=True)`` the command line's (``--directed ignore``).
"""

from __future__ import annotations

import os
import shlex
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gedkit.text import quoted

__all__ = [
    "ClusterError",
    "ClusterLost",
    "CostModelError",
    "FormatError",
    "GedkitError",
    "GraphError",
    "MissingDependencyError",
    "Note",
    "Option",
    "OptionError",
    "SkippedWarning",
    "UnlabelledWarning",
    "UnseenLabelWarning",
    "Words",
    "counted",
    "did_you_mean",
    "pace",
    "warn",
]

_PACKAGE = str(Path(__file__).resolve().parent) + os.sep


@dataclass(frozen=True)
class Option:
    """An option a message advises: a keyword argument in Python, a flag on the command line.

    ``value`` is the value to give, or ``...`` when the user has to choose one.

    >>> ignore = Option("directed", "ignore")
    >>> ignore.render(cli=False), ignore.render(cli=True)
    ("directed='ignore'", '--directed ignore')
    >>> Option("node_label", "*").render(cli=True), Option("format").render(cli=True)
    ("--node-label '*'", '--format FORMAT')
    """

    name: str
    value: Any = ...

    def render(self, cli: bool) -> str:
        if not cli:
            return f"{self.name}=..." if self.value is ... else f"{self.name}={self.value!r}"
        flag = "--" + self.name.replace("_", "-")
        if self.value is ...:
            return f"{flag} {self.name.upper()}"
        value = self.value
        if isinstance(value, list | tuple):  # several label attributes: a comma list
            value = ",".join(map(str, value))
        return f"{flag} {shlex.quote(str(value))}"


@dataclass(frozen=True)
class Words:
    """A part of a message worded differently for Python callers and on the command line."""

    python: str
    cli: str

    def render(self, cli: bool) -> str:
        return self.cli if cli else self.python


def render(parts: Sequence[Any], cli: bool = False) -> str:
    """The text of message ``parts``: strings, :class:`Option` and :class:`Words`."""
    return "".join(p.render(cli) if isinstance(p, Option | Words) else str(p) for p in parts)


class _Worded:
    """A message made of parts (see :func:`render`): worded for Python callers, or in the
    command line's words where it prints it."""

    args: tuple

    def render(self, cli: bool = False) -> str:
        """The message, in command-line words when ``cli``."""
        return render(self.args, cli)

    def __str__(self) -> str:
        return self.render()


class GedkitError(_Worded, Exception):
    """Base class of all errors raised on purpose by gedkit.

    The arguments are the parts of the message (see :func:`render`); most messages are one
    string.

    >>> err = GraphError("graph 'g' is directed; pass ", Option("directed", "ignore"))
    >>> str(err)
    "graph 'g' is directed; pass directed='ignore'"
    >>> err.render(cli=True)
    "graph 'g' is directed; pass --directed ignore"
    """


class GraphError(GedkitError, ValueError):
    """A graph gedkit cannot represent or a method cannot take: a multi-edge, an edge to an
    unknown node, a directed graph where the method (or MCES, or a collection) needs an
    undirected one, a self-loop in MCES..."""


class FormatError(GedkitError, ValueError):
    """A file that does not follow the format it claims to be in."""


class CostModelError(GedkitError, ValueError):
    """An unknown cost model, a bad cost value or a label a cost model cannot interpret."""


class OptionError(GedkitError, ValueError):
    """An unknown method or an invalid solver option."""


class ClusterError(GedkitError, RuntimeError):
    """A Dask cluster cannot run a job (a worker without gedkit, a collection file a worker
    cannot open: the command line exits with status 2, as for other errors), or lost it
    (:class:`ClusterLost`). ``result``: what the job had done by then, where it has something
    to give (:func:`gedkit.pairwise`: the pairs done, the others ``pending``), else None."""

    result: object = None


class ClusterLost(ClusterError):
    """The job's Dask scheduler, or every worker, was lost during it: the cluster failed, not
    the caller's input (the command line exits with status 1). ``workers``: whether what was
    lost is every worker (the scheduler left without one), not the scheduler."""

    workers: bool = False


class MissingDependencyError(GedkitError, ImportError):
    """An optional dependency (RDKit, PyTorch) is needed for the requested feature."""

    def __init__(self, package: str, feature: str, extra: str):
        super().__init__(
            f"{feature} needs the optional package '{package}', which is not installed; "
            f"install it with: pip install 'gedkit[{extra}]'"
        )
        self.package = package


class SkippedWarning(UserWarning):
    """Records that could not be read were left out (``errors="skip"`` of
    :func:`gedkit.read_all` and ``Collection.add``)."""


def skipped_note(skipped: list[str]) -> SkippedWarning:
    """The warning on the records ``skipped`` left out: how many, and the first one's
    reason.

    >>> print(skipped_note(["a.smi:2: RDKit cannot parse the SMILES 'C1CC'", "a.smi:5: ..."]))
    2 graphs could not be read and were left out; the first: a.smi:2: RDKit cannot parse ...
    """
    which = ("1 graph could not be read and was" if len(skipped) == 1 else
             f"{len(skipped):,} graphs could not be read and were")
    return SkippedWarning(f"{which} left out; the first: {skipped[0]}")


class UnseenLabelWarning(UserWarning):
    """Graphs have labels that what they are compared against never saw: a learned model's
    vocabulary (said once per solve) or a collection's graphs (said once per search).
    ``labels``: which, where the warning says (a collection search: ``(kind, label key)``
    pairs), else None."""

    labels: frozenset | None = None


class Note(_Worded, UserWarning):
    """A warning whose message parts (see :func:`render`) are worded for Python callers or,
    printed by the command line, in its words.

    >>> Note(Words("n_jobs=8", "--jobs 8"), ": more than the cores").render(cli=True)
    '--jobs 8: more than the cores'
    """


class UnlabelledWarning(UserWarning):
    """Graphs carry node or edge attributes, no label was named, so they are compared unlabelled.

    ``source`` says where the graphs come from (a file, "NetworkX graph"...);
    ``node_attributes`` and ``edge_attributes`` are the attribute names found, in the order
    first seen.

    >>> w = UnlabelledWarning("a.json", ["atom", "charge"], ["bond"])
    >>> print(w)  # doctest: +NORMALIZE_WHITESPACE
    a.json: nodes and edges compared unlabelled, as no label was named, although the nodes
    have attributes 'atom', 'charge' and the edges attribute 'bond'; name the labels with
    node_label='atom', edge_label='bond' (a list of names, or '*' for all of them), or filter
    gedkit.errors.UnlabelledWarning to compare unlabelled on purpose
    >>> print(w.render(cli=True))  # doctest: +NORMALIZE_WHITESPACE
    a.json: nodes and edges compared unlabelled, as no label was named, although the nodes
    have attributes 'atom', 'charge' and the edges attribute 'bond'; choose the labels with
    --node-label atom --edge-label bond (a comma list, or '*' for all of them)

    ``searched``: the collection the graphs are queries of, whose labels were chosen when it
    was built (a search refuses others):

    >>> print(UnlabelledWarning("q.gxl", ["symbol"], searched="lib.gdb").render(cli=True))
    ... # doctest: +NORMALIZE_WHITESPACE
    q.gxl: nodes compared unlabelled, as no node label was named, although the nodes have
    attribute 'symbol'; a search reads its queries with the labels lib.gdb was built with: to
    compare by these attributes, build it with --node-label symbol (a comma list, or '*' for
    all of them)
    """

    def __init__(self, source: str, node_attributes: Sequence[str] = (),
                 edge_attributes: Sequence[str] = (), node_label: str | None = None,
                 edge_label: str | None = None, searched: str | None = None):
        super().__init__(source, tuple(node_attributes), tuple(edge_attributes))
        # the collection whose labels the graphs were read with, as queries: the labels are
        # chosen when it is built, not when it is searched (a search refuses them)
        self.searched = searched
        self.source = source
        self.node_attributes = tuple(node_attributes)
        self.edge_attributes = tuple(edge_attributes)
        # the label taken where one was (the lone attribute of the first elements read),
        # the attributes above then left out beside it
        self.node_label, self.edge_label = node_label, edge_label

    def render(self, cli: bool = False) -> str:
        """The message, in command-line words when ``cli``."""
        taken = [(which, label) for which, label in (("node", self.node_label),
                                                    ("edge", self.edge_label)) if label]
        if taken:
            return self._render_taken(taken, cli)
        sides = [(which, names) for which, names in (("node", self.node_attributes),
                                                      ("edge", self.edge_attributes)) if names]
        have = [  # "the nodes have attributes 'x', 'y' and the edges attribute 'd'"
            f"the {which}s {'' if k else 'have '}attribute{'s' if len(names) > 1 else ''} "
            + ", ".join(map(quoted, names))
            for k, (which, names) in enumerate(sides)
        ]
        advice = [Option(f"{which}_label", _advised(names)) for which, names in sides]
        named = "" if len(sides) > 1 else f"{sides[0][0]} "
        parts: list[Any] = [
            f"{self.source}: {' and '.join(f'{which}s' for which, _ in sides)} compared "
            f"unlabelled, as no {named}label was named, although {' and '.join(have)}; ",
            self._advice(Words("name the labels with ", "choose the labels with ")),
        ]
        for k, option in enumerate(advice):
            parts += [Words(", ", " ") if k else "", option]
        if any(option.value == "*" for option in advice):
            parts.append(Words(" (all of them: the geometric cost models, costs='letter' and "
                               "others, read x and y)",
                               " (all of them: the geometric cost models, --costs letter and "
                               "others, read x and y)"))
        else:
            parts.append(Words(" (a list of names, or '*' for all of them)",
                               " (a comma list, or '*' for all of them)"))
        parts.append(Words(", or filter gedkit.errors.UnlabelledWarning to compare unlabelled "
                           "on purpose", ""))
        return render(parts, cli)

    def _render_taken(self, taken: list[tuple[str, str]], cli: bool) -> str:
        """The message where a side was compared by a label taken (a later graph's elements
        had more attributes than the first ones read: not compared unlabelled, as the note
        said, and the order of the files decides what is compared)."""
        parts: list[Any] = [f"{self.source}: "]
        for which in ("node", "edge"):
            label = dict(taken).get(which)
            left = self.node_attributes if which == "node" else self.edge_attributes
            if label is None and not left:
                continue
            parts.append("; " if len(parts) > 1 else "")
            parts.append(f"{which}s compared by their attribute {quoted(label)}, the only one of "
                         "the "
                         f"first {which}s read, leaving out " if label is not None else
                         f"{which}s compared unlabelled, although they have attributes ")
            parts.append(", ".join(map(quoted, left)))
        parts.append("; ")
        parts.append(self._advice(Words("name the labels to compare by them whatever the "
                                        "order of the graphs, e.g. ", "name the labels to "
                                        "compare by them whatever the order of the files, "
                                        "e.g. ")))
        for k, (which, label) in enumerate(taken):
            parts += [Words(", ", " ") if k else "", Option(f"{which}_label", label)]
        return render(parts, cli)

    def _advice(self, usual: Words) -> Words | str:
        """How the advice begins: ``usual``, or, for a search's queries, that the
        collection's labels are chosen when it is built."""
        if self.searched is None:
            return usual
        return (f"a search reads its queries with the labels {self.searched} was built with: "
                "to compare by these attributes, build it with ")

    def __str__(self) -> str:
        return self.render()


def _advised(names: Sequence[str]) -> str:
    """The label attribute an :class:`UnlabelledWarning` suggests of ``names``: ``label``,
    what gedkit.write and most tools store labels under; every attribute ('*') for points
    with coordinates alone (IAM Letter, Fingerprint: the geometric cost models read them
    all, and one coordinate alone compares nothing useful); else the first that is not a
    coordinate (IAM AIDS molecules: their symbol, not their drawing's x).

    >>> _advised(["atom", "charge"]), _advised(["x", "y"]), _advised(["type", "label"])
    ('atom', '*', 'label')
    >>> _advised(["x", "y", "symbol", "chem"])
    'symbol'
    """
    if "label" in names:
        return "label"
    other = [name for name in names if name not in _COORDINATES]
    return other[0] if other else "*" if len(names) > 1 else names[0]


_COORDINATES = frozenset({"x", "y", "z"})


def counted(n: int, one: str, many: str | None = None) -> str:
    """``n`` and its noun, singular for one.

    >>> counted(1, "pair"), counted(2000, "pair"), counted(1, "query", "queries")
    ('1 pair', '2,000 pairs', '1 query')
    """
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def pace(done: int, total: int, spent: float, one: str, many: str | None = None,
         most: float | None = None) -> str:
    """`` (15 pairs/s, about 48 min left)`` from the pace so far (a job of 45,000 pairs
    told only the pairs done, not that it had most of an hour to go; a batch of 50 slow
    queries likewise); empty before the pace means anything. ``most``: the seconds left at
    worst (every item left taking its whole time limit), said where the pace so far
    promises less (items growing larger as a job goes outrun the pace of its first).

    >>> pace(1846, 45150, 119.0, "pair"), pace(3, 10, 1.0, "pair")
    (' (16 pairs/s, about 47 min left)', '')
    >>> pace(12, 50, 700.0, "query", "queries"), pace(12, 50, 10.0, "query", "queries")
    (' (58 s a query, about 37 min left)', ' (1 query/s, about 32 s left)')
    >>> pace(100, 1000, 10.0, "pair", most=3600.0)
    ' (10 pairs/s, about 2 min left, at most 60 min)'
    """
    if done < 10 or spent < 5 or done >= total:
        return ""
    rate = done / spent
    left = (total - done) / rate
    shown = f"{rate:,.0f}"
    speed = (f"{shown} {one if shown == '1' else many or one + 's'}/s" if rate >= 1 else
             f"{1 / rate:.0f} s a {one}")
    worst = f", at most {_span(most)}" if most is not None and most > left else ""
    return f" ({speed}, about {_span(left)} left{worst})"


def _span(seconds: float) -> str:
    """A time span in the unit that reads best: ``32 s``, ``47 min``, ``3.1 h``."""
    return (f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"
            if seconds < 5400 else f"{seconds / 3600:.1f} h")


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` for the choice closest to a mistyped ``word``, or nothing when
    none is close.

    >>> did_you_mean("astr", ["astar", "auto", "dfs"]), did_you_mean("zzz", ["astar"])
    (" (did you mean 'astar'?)", '')
    """
    import difflib

    close = difflib.get_close_matches(str(word).lower(), list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def warn(warning: Warning) -> None:
    """Issue ``warning`` attributed to the first caller outside gedkit: the line the user wrote
    is the one to show, however deep inside gedkit the warning arises."""
    frame, level = sys._getframe(1), 2  # stacklevel 2 is warn's caller
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(warning, stacklevel=level)
