"""When a command's time limit starts counting: for the ``gedkit`` process itself, at the
process's start, so that the interpreter's start and the imports before the command runs
are inside ``--timeout`` too (a 2,000-node pair at ``--timeout 1`` ended 1.7-2.3 s after
the command was typed, its reported time 1.0-1.2 s)."""

from __future__ import annotations

import os
import time

__all__ = ["command_started", "start_ticks", "start_with_process"]

_started: float | None = None  # perf_counter's reading at the process's start, once known


#: at most this long of a process's life before the command's main counts (the interpreter's
#: start and imports take 0.1-0.3 s): the system's start time is the fork's, and a process
#: exec'd by another (``bash -c "... && gedkit ged ..."`` execs its last command) counted
#: the other's life (52.7 s for a 14-atom pair after ``gedkit warmup`` in the README's first
#: command)
BEFORE_MAIN = 0.5


def start_with_process() -> None:
    """Count this process's commands from the process's start, at most :data:`BEFORE_MAIN`
    before now (the ``gedkit`` command; a caller of :func:`gedkit.cli.main` in a process of
    its own counts from each call)."""
    global _started
    _started = time.perf_counter() - min(since_process_start(), BEFORE_MAIN)


def command_started() -> float:
    """perf_counter's reading a command's limit counts from: the process's start where
    :func:`start_with_process` was called, else now."""
    return time.perf_counter() if _started is None else _started


def since_process_start() -> float:
    """Seconds since this process started, where the system says (Linux's ``/proc``); else
    0. (Clock ticks since boot, 10 ms each: far below what is measured here.)

    >>> 0 <= since_process_start() < 24 * 3600 * 365
    True
    """
    ticks = start_ticks("self")
    if ticks is None:
        return 0.0
    try:
        started = ticks / os.sysconf("SC_CLK_TCK")
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, AttributeError):
        return 0.0


def start_ticks(pid: int | str) -> int | None:
    """When process ``pid`` (or ``"self"``) started, in clock ticks since boot (Linux's
    ``/proc``), or None where that is unknown or no such process runs."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # (a name may hold ')')
        return int(fields[19])  # field 22: start time
    except (OSError, ValueError, IndexError):
        return None
