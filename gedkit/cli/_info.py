"""``gedkit methods`` and ``gedkit costs``: what can be asked for."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

# What each question's methods are for, and how their options are given on the command line.
_QUESTIONS = (
    ("ged", "GED methods (gedkit ged, gedkit pairwise: --method NAME)",
     "--KEY VALUE or -o KEY=VALUE"),
    ("mces", "MCES methods (gedkit mces, gedkit search --similarity: --method NAME)",
     "--KEY VALUE or -o KEY=VALUE"),
)


def register(subparsers: Any) -> None:
    methods = subparsers.add_parser(
        "methods", help="list the GED and MCES methods",
        description="The registered methods of both questions, graph edit distance (GED) and "
        "maximum common edge subgraph (MCES), each with its options and their defaults.",
        allow_abbrev=False,
    )
    methods.add_argument("--json", action="store_true", help="print JSON for programs")
    methods.set_defaults(run=run_methods, command_parser=methods)

    models = subparsers.add_parser(
        "costs", help="list the cost models", description="The built-in cost-model names.",
        allow_abbrev=False,
    )
    models.add_argument("--json", action="store_true", help="print JSON for programs")
    models.set_defaults(run=run_costs, command_parser=models)


def registered() -> dict[str, dict[str, Any]]:
    """``{"ged": {name: class}, "mces": {name: class}}``: every registered method.

    >>> found = registered()
    >>> "astar" in found["ged"], "ga" in found["mces"]
    (True, True)
    """
    from gedkit.solvers import available as ged_methods

    # importing the package registers the MCES methods
    mces_methods = importlib.import_module("gedkit.mces").base.available
    return {"ged": ged_methods(), "mces": mces_methods()}


def listing() -> dict[str, list[dict[str, Any]]]:
    """Every method of both questions as plain data: name, exact, summary and options (each
    ``[key, the default as the command line spells it, the default as JSON, its one line of
    documentation]``).

    Built from :func:`registered`, which imports every solver module (numpy, numba's
    wrappers: half a second), so the listing is kept in a small cache file beside the kernel
    markers, stamped with every package source file's size and mtime: a later ``gedkit
    methods`` reads it without importing any of them, and an edited or upgraded package
    rebuilds it.

    >>> names = [m["name"] for m in listing()["mces"]]
    >>> "exact" in names and "rascal" in names
    True
    """
    path = _listing_file()
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        pass
    found = registered()
    data = {
        question: [
            {"name": name, "exact": cls.exact, "summary": cls.summary,
             "directed": bool(getattr(cls, "directed", False)),
             "options": [[key, _spelled(opt.default),
                          json.loads(json.dumps(opt.default, default=repr)), opt.doc]
                         for key, opt in cls.options.items()]}
            for name, cls in found[question].items()
        ]
        for question, _, _ in _QUESTIONS
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_text(json.dumps(data))
        scratch.replace(path)  # atomic: a concurrent reader sees the old file or the new one
        for stale in path.parent.glob("methods-*.json"):
            if stale != path:
                stale.unlink(missing_ok=True)  # listings of older sources
    except OSError:
        pass  # a read-only install: list without the cache
    return data


def _spelled(value: Any) -> str:
    """A default as it is typed after ``--KEY``."""
    if value is None or isinstance(value, bool):
        return str(value).lower()
    return value if isinstance(value, str) else repr(value)


def _listing_file() -> Path:
    from gedkit._kernels.warm import files_stamp, marker_dir

    package = Path(__file__).resolve().parents[1]
    stamp = files_stamp(sorted(package.rglob("*.py")), sys.version)
    return marker_dir().parent / f"methods-{stamp}.json"


def run_methods(args: argparse.Namespace) -> int:
    found = listing()
    if args.json:
        print(json.dumps(
            {question: [{"name": m["name"], "exact": m["exact"], "summary": m["summary"],
                         "directed": m["directed"],
                         "options": {key: {"default": value, "doc": doc}
                                     for key, _, value, doc in m["options"]}}
                        for m in found[question]]
             for question, _, _ in _QUESTIONS},
        ))
        return 0
    width = max(len(m["name"]) for methods in found.values() for m in methods)
    blocks = []
    for question, title, spelling in _QUESTIONS:
        lines = [f"{title}; options as {spelling}"]
        for m in found[question]:
            kind = "exact " if m["exact"] else "approx"
            lines.append(f"  {m['name']:<{width}}  {kind}  {m['summary']}")
            indent = " " * (width + 12)
            shown = [f"--{key.replace('_', '-')} {text}" for key, text, _, _ in m["options"]]
            column = max(map(len, shown), default=0) + 2
            for flag, (_, _, _, doc) in zip(shown, m["options"], strict=True):
                lines.append(textwrap.fill(
                    f"{flag:<{column}}{doc}", 100, initial_indent=indent,
                    subsequent_indent=indent + " " * column))
        arcs = [m["name"] for m in found[question] if m["directed"]]
        lines.append("  directed graphs: " + (", ".join(arcs) + "; the other methods refuse them"
                                               if arcs else "none (every method refuses them)"))
        blocks.append("\n".join(lines))
    print("\n\n".join(blocks))
    return 0


def run_costs(args: argparse.Namespace) -> int:
    from gedkit import costs

    names = costs.available()
    if args.json:
        print(json.dumps(names))
        return 0
    width = max(map(len, names)) + 2
    for name in names:
        text = costs.about(name)
        print(textwrap.fill(text, width=100, initial_indent=f"{name:<{width}}",
                            subsequent_indent=" " * width) if text else name)
    print("\nNAME:KEY=VALUE,... sets a model's constants (its function's arguments), e.g. "
          "constant:node_sub=2\n(the six constants node_sub, node_del, node_ins, edge_sub, "
          "edge_del, edge_ins; 1 each by default)\nor letter:alpha=0.5")
    return 0
