"""``gedkit methods`` and ``gedkit costs``: what can be asked for."""

from __future__ import annotations

import argparse
import json
from typing import Any

from gedkit import costs
from gedkit.solvers import available


def register(subparsers: Any) -> None:
    methods = subparsers.add_parser(
        "methods", help="list the GED methods", description="The registered GED methods.",
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


def run_methods(args: argparse.Namespace) -> int:
    solvers = available()
    if args.json:
        print(json.dumps(
            [{"name": name, "exact": cls.exact, "summary": cls.summary, "options": cls.options}
             for name, cls in solvers.items()],
            default=str,
        ))
        return 0
    width = max(map(len, solvers))
    for name, cls in solvers.items():
        kind = "exact " if cls.exact else "approx"
        print(f"{name:<{width}}  {kind}  {cls.summary}")
        if cls.options:
            shown = ", ".join(f"--{key.replace('_', '-')} ({value!r})"
                              for key, value in cls.options.items())
            print(f"{'':<{width}}  {'':6}  options: {shown}")
    return 0


def run_costs(args: argparse.Namespace) -> int:
    names = costs.available()
    print(json.dumps(names) if args.json else "\n".join(names))
    return 0
