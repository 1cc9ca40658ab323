"""The ``gedkit`` command: text for people, ``--json`` for programs.

Each command lives in its own module whose ``register(subparsers)`` adds a subparser with a
``run(args) -> int`` default. Errors gedkit raises on purpose (bad input, unknown method, an
unreadable file) end as one line on stderr and exit status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import os
import signal
import sys
import warnings
from collections.abc import Sequence
from typing import NoReturn

from gedkit import __version__
from gedkit.errors import ClusterError, ClusterLost, GedkitError

__all__ = ["build_parser", "main"]

# One module per command, imported as the parser is built: inside main's handling of Ctrl-C
# (a Ctrl-C in the first 0.1 s of a process, while they were imported with this module,
# printed a traceback)
_COMMANDS = ("_ged", "_mces", "_pairwise", "_search", "_collection", "_info", "_train",
             "_warmup")


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its usage errors one line as gedkit's own errors are (argparse
    printed the command's whole usage first, 8 lines for ``gedkit ged``), naming where the
    usage is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}; see {self.prog} "
                     "--help\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gedkit",
        description="Graph edit distance between graphs and collections of graphs.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"gedkit {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in _COMMANDS:
        importlib.import_module(f"gedkit.cli.{name}").register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    if argv is None:  # the process's own command line
        from gedkit.cli._clock import start_with_process

        start_with_process()  # its --timeout counts from the process's start
        signal.signal(signal.SIGTERM, _terminate_as_interrupt)
        # ... not its workers': a pool ends them with SIGTERM
        os.register_at_fork(after_in_child=_default_terminate)
    status = _command(list(sys.argv[1:] if argv is None else argv))
    if argv is None:  # ... which ends here
        _exit_without_teardown(status)
    return status


def _terminate_as_interrupt(signum: int, frame: object) -> None:
    """SIGTERM (``timeout``, ``kill``, a job scheduler's stop) does what Ctrl-C does: the
    running solves stop and what was answered is written (a batch search's CSV or JSON,
    which is written at the end, would otherwise be lost whole); a second one stops at
    once."""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:  # Ctrl-C ignored (a background job of a script): SIGTERM must still end it
        raise KeyboardInterrupt


def _default_terminate() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _exit_without_teardown(status: int) -> None:
    """End the process once the command is done, without the interpreter's teardown.

    Freeing every module after a solve that imported PyTorch took 0.5-0.75 s after the
    answer was printed (``gedkit mces --method nga --timeout 3`` ended at 3.9-4.2 s), and a
    program solve left stopping in the background (HiGHS's root cut rounds ignore its clock
    and a cancel, :func:`gedkit.programs.still_running`) up to a second more. The exit
    callbacks still run (temporary files, a Dask client's close), all but the one that waits
    for such a solve; nothing of gedkit's is left to finish (files are closed, answers
    written). Where child processes run, the normal exit stops them first."""
    mp = sys.modules.get("multiprocessing")
    if mp is not None and mp.active_children():
        return
    programs = sys.modules.get("gedkit.programs")
    if programs is not None:
        atexit.unregister(programs.drain)
    for stream in (sys.stdout, sys.stderr):
        # a closed pipe: nothing to deliver; a stream closed before the start (``>&-``) is
        # None
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    run_exit_callbacks = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_callbacks is None:  # not CPython: its own exit
        return
    run_exit_callbacks()
    for stream in (sys.stdout, sys.stderr):  # what the callbacks printed
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    os._exit(status)


def _command(argv: list[str]) -> int:
    try:
        parser = build_parser()
        args = _parse(parser, argv)
        from gedkit.budget import InterruptedWarning

        with warnings.catch_warnings():
            warnings.showwarning = _note
            # every command says what Ctrl-C left in its own words (and exits with 130)
            warnings.simplefilter("ignore", InterruptedWarning)
            return args.run(args)
    except SystemExit as exc:  # argparse: --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else 2
    except BrokenPipeError:
        # the reader went away (`gedkit ... | head`): not an error of ours; keep Python from
        # complaining again when it flushes stdout at exit
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return 0
    except ClusterError as exc:  # (lost: the job's cluster failed, not its input: status 1)
        print(f"gedkit: error: {_one_line(exc)}", file=sys.stderr)
        return 1 if isinstance(exc, ClusterLost) else 2
    except (GedkitError, OSError) as exc:
        print(f"gedkit: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gedkit: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        sqlite3 = sys.modules.get("sqlite3")  # (not imported to start the command line)
        if sqlite3 is None or not isinstance(exc, sqlite3.Error):
            raise
        # a file SQLite reads (a collection, a pairwise --out store) found damaged as read
        print(f"gedkit: error: SQLite: {_one_line(exc)} (a damaged file?)", file=sys.stderr)
        return 2


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``, accepting ``--key value`` for the options the chosen method declares."""
    from gedkit.cli._args import translate_method_flags

    argv = _negative_values_joined(argv)
    args, unknown = parser.parse_known_args(argv)
    if unknown and any(hasattr(args, name) for name in ("method", "mces_method",
                                                        "search_method")):
        # The first pass may have taken an option's value for a positional argument; parse
        # again once the method's options are spelled as -o key=value.
        argv = translate_method_flags(argv, args)
        args, unknown = parser.parse_known_args(argv)
    if unknown:  # said by the command's own parser (its usage), with the nearest flag
        command = getattr(args, "command_parser", parser)
        command.error(f"unrecognized arguments: {' '.join(unknown)}{_nearest(unknown, args)}")
    return args


def _negative_values_joined(argv: list[str]) -> list[str]:
    """``--flag -5G`` as ``--flag=-5G``: argparse takes a value that starts with a minus
    sign, but is not a plain number, for an option, and said "expected one argument" of
    ``--memory -5G`` (or ``-1e3``, ``-inf``) instead of gedkit's own word on the value.

    >>> _negative_values_joined(["ged", "a", "b", "--memory", "-5G", "--timeout", "-inf"])
    ['ged', 'a', 'b', '--memory=-5G', '--timeout=-inf']
    """
    import re

    out: list[str] = []
    for token in argv:
        if (out and out[-1].startswith("--") and "=" not in out[-1]
                and re.match(r"-(\d|\.\d|inf|nan)", token, re.IGNORECASE)):
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def _nearest(unknown: list[str], args: argparse.Namespace) -> str:
    """``" (did you mean --x?)"`` for the first unknown flag close to one the command (or its
    chosen method, as --key) takes."""
    import difflib

    from gedkit.cli._args import method_class

    command = getattr(args, "command_parser", None)
    if command is None:
        return ""
    flags = [u.partition("=")[0] for u in unknown if u.startswith("--")]
    known = [f for f in command._option_string_actions if f.startswith("--")]
    with contextlib.suppress(Exception):  # (a method name that is not one: said elsewhere)
        chosen = method_class(args)
        known += [f"--{key.replace('_', '-')}" for key in (chosen.options if chosen else {})]
    for flag in flags:
        close = difflib.get_close_matches(flag, known, n=1, cutoff=0.75)
        if close:
            return f" (did you mean {close[0]}?)"
    return ""


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    text = exc.render(cli=True) if isinstance(exc, GedkitError) else str(exc)
    return " ".join(text.split()) or type(exc).__name__


def _note(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings printed as one ``gedkit: note:`` line each, in command-line words, instead
    of Python's two-line form naming a source file."""
    text = message.render(cli=True) if hasattr(message, "render") else str(message)
    print(f"gedkit: note: {' '.join(text.split())}", file=sys.stderr)
