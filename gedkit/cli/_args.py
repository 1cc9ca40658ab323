"""Arguments several commands share, and the parsing of their values."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gedkit.budget import COMMAND_TIMEOUT
from gedkit.errors import OptionError

__all__ = [
    "COMMAND_TIMEOUT",
    "add_solver_arguments",
    "check_output",
    "input_at",
    "parse_seconds",
    "parse_size",
    "parse_value",
    "solve_options",
    "translate_method_flags",
    "why_short",
    "written",
]

_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE = re.compile(r"\s*((?:\d+(?:\.\d*)?|\.\d+)(?:e\+?\d+)?)\s*([kmgt]?)(?:i?b)?\s*",
                   re.IGNORECASE)


def add_solver_arguments(parser: argparse.ArgumentParser, timeout: float,
                         method: bool = True) -> argparse._ArgumentGroup:
    """What is computed and within which limits: costs and method (``method``), the budget
    (``--timeout`` defaults to ``timeout`` seconds per pair: no command runs unbounded
    unless asked to with ``--timeout none``), method options. Returns the group, for
    a command's own solving flags."""
    group = parser.add_argument_group("solving")
    if method:
        group.add_argument("--costs", default="uniform", help="cost model (see 'gedkit costs')")
        group.add_argument("--method", default="auto", help="GED method (see 'gedkit methods')")
    group.add_argument(
        "--timeout", type=parse_seconds, default=timeout, metavar="S",
        help=f"seconds per pair (default {timeout:g}); 'none' runs to the proof, however long",
    )
    group.add_argument(
        "--memory", metavar="BYTES",
        help="memory cap per pair, in bytes or like 512M, 2G (none: the default cap)"
    )
    group.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE", dest="options",
        help="an option of the method (repeatable); options the method declares may also be "
        "given as --KEY VALUE",
    )
    return group


#: the arguments of the commands that name input files (graphs, collections, training data)
_INPUTS = ("a", "b", "files", "against", "lib", "query", "data")


def check_output(path: str | None, option: str, args: argparse.Namespace | None = None) -> None:
    """A one-line error unless ``path`` (an option's output file; None or ``-``: none, or
    stdout) can be written and is none of the command's input files (in ``args``): checked
    before any work, so a typo in it loses no result and no input."""
    if path is None or path == "-":
        return
    p = Path(path)
    folder = p.parent
    if p.is_dir():
        raise OptionError(f"{option} {path}: is a folder; give a file name")
    if args is not None and (same := input_at(p, _inputs(args))) is not None:
        raise OptionError(f"{option} {path}: is the input {same}; give another file name")
    if folder.exists() and not folder.is_dir():
        raise OptionError(f"{option} {path}: {str(folder)!r} is a file, not a folder")
    if not folder.is_dir():
        raise OptionError(f"{option} {path}: folder {str(folder)!r} does not exist")
    if not os.access(p if p.exists() else folder, os.W_OK):
        raise OptionError(f"{option} {path}: not allowed to write there")


@contextlib.contextmanager
def written(path: str, quiet: bool = False) -> Iterator[Any]:
    """``path`` open for writing text (a CSV: no newline translation), an error while
    writing it naming it (a full disk said "[Errno 28] No space left on device" alone). A
    file (or a new name) is written beside it and put in its place once whole: a second
    Ctrl-C while 20,101 rows were written left 62 of them, in a file that looked complete;
    then it is left as it was, and stderr says so (unless ``quiet``: the caller says what
    it does instead). (A device, a pipe or a link is written as it is.)"""
    from gedkit.nn import replacing

    target = Path(path)
    # (a link is written through, not replaced by a file)
    whole = not target.is_symlink() and (not target.exists() or target.is_file())
    try:
        with contextlib.ExitStack() as stack:
            into = stack.enter_context(replacing(target, keep_mode=True)) if whole else target
            with open(into, "w", newline="", encoding="utf-8") as out:
                yield out
    except KeyboardInterrupt:
        if whole and not quiet:
            print(f"gedkit: interrupted while writing {path}: left as it was",
                  file=sys.stderr)
        raise
    except OSError as err:
        # (named by the file meant, not the one written beside it)
        if err.strerror and (err.filename is None
                             or Path(err.filename).name.startswith(f".{target.name}.")):
            raise OSError(err.errno, err.strerror, path) from None
        raise


def _inputs(args: argparse.Namespace) -> list[str]:
    """The input arguments of ``args`` (graph, collection and data files)."""
    texts: list[str] = []
    for name in _INPUTS:
        given = getattr(args, name, None)
        texts += [given] if isinstance(given, str) else given or []
    return texts


def input_at(path: Path, texts: list[str]) -> str | None:
    """The one of the input arguments ``texts`` that names the file ``path`` is, if any
    (``FILE#ID`` names FILE; the same file by another path too)."""
    if not path.is_file():
        return None
    for text in texts:
        for candidate in {text, text.rpartition("#")[0] or text}:
            with contextlib.suppress(OSError):
                if Path(candidate).is_file() and os.path.samefile(candidate, path):
                    return text
    return None


def parse_seconds(text: str) -> float | None:
    """``--timeout`` values: seconds, or ``none`` for no limit.

    >>> parse_seconds("2.5"), parse_seconds("none")
    (2.5, None)
    """
    return _number_or_none(text, "a number of seconds")


def parse_threshold(text: str) -> float | None:
    """``--threshold`` values: a distance, or ``none`` for none (as its error says).

    >>> parse_threshold("3"), parse_threshold("none")
    (3.0, None)
    >>> parse_threshold("-0")  # (as 0: "distance <= -0" read oddly)
    0.0
    """
    value = _number_or_none(text, "a number")
    return None if value is None else value + 0.0


def _number_or_none(text: str, what: str) -> float | None:
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what} or 'none'") from None


def print_result(result: Any, as_json: bool, drop: tuple[str, ...], text: str) -> None:
    """Print ``result`` as JSON (without the keys in ``drop``) or as the ``text`` report."""
    if as_json:
        data = json.loads(result.to_json())  # to_json knows how to make ids JSON-ready
        for key in drop:
            del data[key]
        print(json.dumps(data, indent=2))
    else:
        print(text)


def parse_size(text: str) -> int | None:
    """Bytes from ``"1000"``, ``"512M"``, ``"2G"``, ``"1.5GiB"``, ``"1e9"``... (binary units);
    None from ``"none"``: the default cap (as ``gedkit methods`` shows the option's default).

    >>> parse_size("512M"), parse_size("2g"), parse_size("1000"), parse_size("1e3")
    (536870912, 2147483648, 1000, 1000)
    >>> parse_size("none") is None
    True
    """
    if text.strip().lower() == "none":
        return None
    match = _SIZE.fullmatch(text)
    value = int(float(match[1]) * _UNITS[match[2].lower()]) if match else 0
    if value <= 0:
        raise OptionError(
            f"--memory {text!r} is not a positive size; give bytes or a size like 512M or 2G"
        )
    return value


def parse_value(text: str) -> Any:
    """An option value: bool, None, int, float, or else the string itself.

    >>> [parse_value(t) for t in ["10", "0.5", "true", "none", "greedy"]]
    [10, 0.5, True, None, 'greedy']
    """
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def parse_options(items: list[str]) -> dict[str, Any]:
    """``-o KEY=VALUE`` arguments as a dict of parsed values."""
    options = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise OptionError(f"--option {item!r} is not of the form KEY=VALUE")
        options[key.strip().replace("-", "_")] = parse_value(value)
    return options


def solve_options(args: argparse.Namespace, *budget: str) -> dict[str, Any]:
    """Method options (checked against the method) merged with the named budget arguments.

    A budget argument given on the command line wins over an option of the same name.
    """
    from gedkit.solvers import get_solver

    options = parse_options(args.options)
    get_solver(args.method, **options)  # reject unknown options and bad values now
    given = {
        name: parse_size(args.memory) if name == "memory" else getattr(args, name)
        for name in budget
        if getattr(args, name) is not None
    }
    return {**options, **given}


def method_class(args: argparse.Namespace) -> type | None:
    """The class of the method a command line chose (None for commands without one): an MCES
    method for ``gedkit mces`` and similarity searches, a GED solver otherwise."""
    if args.command == "mces":
        name, mces = args.mces_method, True
    elif args.command == "search":
        from gedkit.cli._search import DEFAULT_METHOD

        mces = args.similarity is not None or args.mces_nearest is not None
        name = args.search_method or DEFAULT_METHOD["mces" if mces else "ged"]
    elif hasattr(args, "method"):
        name, mces = args.method, False
    else:
        return None
    if mces:
        import gedkit.mces  # noqa: F401  (registers the MCES methods)
        from gedkit.mces.base import method_class as mces_class

        return mces_class(name)
    from gedkit.solvers import solver_class

    return solver_class(name)


def translate_method_flags(argv: list[str], args: argparse.Namespace) -> list[str]:
    """``argv`` with ``--key value`` rewritten as ``-o key=value`` for every option the chosen
    method declares that is not already a flag of the command (a boolean option may stand
    alone: ``--key`` = ``-o key=true``, ``--no-key`` = ``-o key=false``)."""
    chosen = method_class(args)
    declared = chosen.options if chosen is not None else {}
    known = args.command_parser._option_string_actions
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if token == "--":
            return out + argv[i - 1 :]
        flag, eq, value = token.partition("=")
        key = flag[2:].replace("-", "_")
        negated = key.startswith("no_") and not eq and isinstance(
            getattr(declared.get(key[3:]), "default", None), bool)
        if flag.startswith("--") and flag not in known and negated:
            out += ["-o", f"{key[3:]}=false"]  # --no-KEY for a boolean option
            continue
        if flag.startswith("--") and flag not in known and key not in declared:
            _owned_elsewhere(flag, key, args, chosen)
        if not flag.startswith("--") or flag in known or key not in declared:
            out.append(token)
            continue
        if not eq:
            if i < len(argv) and _is_value(argv[i]):
                value = argv[i]
                i += 1
            elif isinstance(declared[key].default, bool):
                value = "true"
            else:
                raise OptionError(f"{flag} needs a value{_other_meaning(flag, args)}")
        out += ["-o", f"{key}={value}"]
    return out


def _owned_elsewhere(flag: str, key: str, args: argparse.Namespace, chosen: type | None
                     ) -> None:
    """Raise when ``flag`` is an option of other methods than the chosen one: say which
    (argparse would say "unrecognized arguments" after the whole usage)."""
    if chosen is None:
        return
    if args.command == "mces" or chosen.__module__.startswith("gedkit.mces"):
        from gedkit.mces.base import available
    else:
        from gedkit.solvers import available
    owners = sorted(name for name, cls in available().items() if key in cls.options)
    if owners:
        raise OptionError(f"{flag} is an option of {' and '.join(owners)}, not of "
                          f"{chosen.name}: add --method {owners[0]}"
                          f"{_other_meaning(flag, args)}")


#: flags a method of one command declares that another command uses for something else
_ELSEWHERE = {("mces", "--steps"): "nga's optimisation steps; for step-by-step pictures use "
              "gedkit ged A B --draw FILE --steps: gedkit mces --draw draws one picture"}


def _other_meaning(flag: str, args: argparse.Namespace) -> str:
    """`` (...)`` saying what ``flag`` means here where another command gives it another
    meaning (``--steps``: nga's optimisation steps, ``gedkit ged``'s step pictures)."""
    text = _ELSEWHERE.get((args.command, flag))
    return f" ({text})" if text else ""


def _is_value(token: str) -> bool:
    if not token.startswith("-"):
        return True
    try:
        float(token)
    except ValueError:
        return False
    return True


def why_short(result: Any) -> list[tuple[str, str]]:
    """Rows of a GED or MCES answer's text for what ``--json`` alone said of one that stopped
    short: why it stopped (an MCES search whose start-up did not fit its limit answers with
    a greedy map in 0.2 s of 1 s), what a learned method cut (gelato's or nga's network not
    run: looser bounds), RASCAL's limit."""
    stats = result.stats
    rows = []
    if not result.optimal and stats.get("stopped"):
        rows.append(("stopped by", str(stats["stopped"])))
    if stats.get("cut"):
        rows.append(("cut short", "; ".join(map(str, stats["cut"]))))
    if stats.get("bond_pair_limit_exceeded"):
        rows.append(("note", "more compatible bond pairs than RASCAL accepts (max_bond_pairs):"
                     " it did not search"))
    return rows
