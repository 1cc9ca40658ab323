"""``gedkit methods`` and ``gedkit costs``: what can be asked for."""

from __future__ import annotations

import argparse
import importlib
import json
import textwrap
from typing import Any

# What each question's methods are for, and how their options are given on the command line.
_QUESTIONS = (
    ("ged", "GED methods (gedkit ged, gedkit pairwise: --method NAME)",
     "--KEY VALUE or -o KEY=VALUE"),
    ("mces", "MCES methods (gedkit mces: --method NAME)", "-o KEY=VALUE"),
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


def run_methods(args: argparse.Namespace) -> int:
    found = registered()
    if args.json:
        print(json.dumps(
            {question: [{"name": name, "exact": cls.exact, "summary": cls.summary,
                         "options": cls.options} for name, cls in found[question].items()]
             for question, _, _ in _QUESTIONS},
            default=repr,
        ))
        return 0
    width = max(len(name) for methods in found.values() for name in methods)
    blocks = []
    for question, title, spelling in _QUESTIONS:
        lines = [f"{title}; options as {spelling}"]
        for name, cls in found[question].items():
            kind = "exact " if cls.exact else "approx"
            lines.append(f"  {name:<{width}}  {kind}  {cls.summary}")
            if cls.options:
                shown = ", ".join(f"{key}={value!r}" for key, value in cls.options.items())
                indent = " " * (width + 12)
                lines.append(textwrap.fill(f"options: {shown}", 100, initial_indent=indent,
                                           subsequent_indent=indent + "  "))
        blocks.append("\n".join(lines))
    print("\n\n".join(blocks))
    return 0


def run_costs(args: argparse.Namespace) -> int:
    from gedkit import costs

    names = costs.available()
    print(json.dumps(names) if args.json else "\n".join(names))
    return 0
