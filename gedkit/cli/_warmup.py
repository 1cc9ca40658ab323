"""``gedkit warmup``: compile every kernel once, ahead of the first solve."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "warmup",
        help="compile gedkit's kernels ahead of the first solve",
        description="Compile every numba kernel family into numba's cache (one to three "
        "minutes on a fresh 2-core install, seconds when already cached), so that the first "
        "solve of any method in any later process starts at once. Without it, a first solve "
        "with a time limit answers with cheaper bounds while the kernels compile in the "
        "background.",
        allow_abbrev=False,
    )
    parser.add_argument(
        "--jobs", type=int, metavar="N",
        help="compiling processes (default 2, or 1 on one core; -1 = one per core)"
    )
    parser.set_defaults(run=run, command_parser=parser)


def run(args: argparse.Namespace) -> int:
    from gedkit._kernels.warm import FAMILIES, marker_dir, warm_up
    from gedkit.cli._info import listing
    from gedkit.errors import counted
    from gedkit.workers import cores, resolve_jobs

    tick = time.perf_counter()
    # (--jobs checked as everywhere: 0 or fewer than the cores' negative is an error)
    jobs = min(2, cores()) if args.jobs is None else resolve_jobs(args.jobs)
    try:
        spent = warm_up(jobs=jobs)
    except KeyboardInterrupt:
        print("gedkit: interrupted; the kernel families compiled so far are kept, 'gedkit "
              "warmup' compiles the rest", file=sys.stderr)
        return 130
    listing()  # cached, so that `gedkit methods` imports no solver module
    # (each family's own time: they compile side by side, so they add up to more than the
    # whole, which read as wrong)
    print(f"compiled in {counted(jobs, 'process', 'processes')} at once, each family:")
    for family in FAMILIES:
        print(f"  {family:<14}{spent.get(family, 0.0):6.1f} s")
    print(f"kernels ready in {time.perf_counter() - tick:.1f} s (cache: {marker_dir().parent})")
    return 0
