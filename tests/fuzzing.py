"""Mutated graph files for the readers: every read must return graphs or raise a GedkitError.

tests/test_malformed.py runs a short seeded round; a longer campaign runs from the command line
and prints what it found per format::

    python tests/fuzzing.py --files 3000 --seed 1
"""

from __future__ import annotations

import argparse
import shutil
import sys
import traceback
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

import gedkit
from gedkit.errors import GedkitError

FIXTURES = Path(__file__).resolve().parent / "data" / "io"

# one valid fixture per format; a CXL needs the GXL files it lists beside it
SEEDS = {
    "gxl": "small.gxl",
    "cxl": "collection.cxl",
    "gexf": "small.gexf",
    "graphml": "small.graphml",
    "json": "small.json",
    "tve": "graphs.txt",
    "smiles": "molecules.smi",
    "csv": "molecules.csv",
    "gzip": "molecules.smi.gz",
    "sdf": "caffeine.sdf",
    "mol": "caffeine.mol",
}
_BESIDE = {"cxl": ("small.gxl", "second.gxl")}

# fragments that have broken readers before, or could
_TOKENS = [
    b"9" * 5000, b"-" + b"7" * 4400, b"1e999", b"NaN", b"-Infinity", b"null", b"true", b"[]",
    b"{}", b"\"\"", b"\x00", b"\xff\xfe", b"\xc3\x28", b"&foo;", b"&amp;", b"&#0;", b"&#x10FFFF;",
    b"<!DOCTYPE x SYSTEM \"x.dtd\">", b"<![CDATA[<]]>", b"<node id=\"0\"/>",
    b"<edge source=\"0\" target=\"99\"/>", b"<edge from=\"_1\" to=\"_9\"/>", b"t # -1\n",
    b"v 0 C\n", b"e 0 0\n", b"e 0 9\n", b"M  END\n", b"$$$$\n", b"99", b"  8", b" -1 ",
    b"\"id\": null", b"\"source\": \"zz\"", b"#", b"%", b"\n\n\n",
]


def _truncate(rng: np.random.Generator, data: bytes) -> bytes:
    return data[: int(rng.integers(0, len(data) + 1))]


def _flip(rng: np.random.Generator, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(int(rng.integers(1, 6))):
        if out:
            out[int(rng.integers(len(out)))] = int(rng.integers(256))
    return bytes(out)


def _insert(rng: np.random.Generator, data: bytes) -> bytes:
    at = int(rng.integers(0, len(data) + 1))
    return data[:at] + _TOKENS[int(rng.integers(len(_TOKENS)))] + data[at:]


def _huge_number(rng: np.random.Generator, data: bytes) -> bytes:
    digits = [k for k, c in enumerate(data) if 48 <= c <= 57]
    if not digits:
        return _insert(rng, data)
    at = digits[int(rng.integers(len(digits)))]
    return data[:at] + b"9" * int(rng.choice([4301, 5000, 20])) + data[at + 1:]


def _nest(rng: np.random.Generator, data: bytes) -> bytes:
    depth = int(rng.choice([70, 900, 1100, 5000]))
    at = int(rng.integers(0, len(data) + 1))
    if data.lstrip().startswith((b"{", b"[")):
        # a deep list in place of a JSON value
        return data[:at] + b"[" * depth + b"]" * depth + data[at:]
    if data.lstrip().startswith(b"<"):
        return data[:at] + b"<a>" * depth + b"</a>" * depth + data[at:]
    return data[:at] + b"(" * depth + b"C" + b")" * depth + data[at:]


def _lines(rng: np.random.Generator, data: bytes) -> bytes:
    """Duplicate, drop or swap lines: repeated ids, edges to missing nodes, bad order."""
    lines = data.split(b"\n")
    i, j = (int(k) for k in rng.integers(0, len(lines), size=2))
    choice = int(rng.integers(3))
    if choice == 0:
        lines.insert(j, lines[i])
    elif choice == 1:
        del lines[i]
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def _replace_number(rng: np.random.Generator, data: bytes) -> bytes:
    """A small number swapped for another: ids that collide or name nothing, odd types."""
    digits = [k for k, c in enumerate(data) if 48 <= c <= 57]
    if not digits:
        return _flip(rng, data)
    at = digits[int(rng.integers(len(digits)))]
    return data[:at] + str(int(rng.choice([0, 1, 2, 7, 9, 99, 255]))).encode() + data[at + 1:]


MUTATIONS: dict[str, Callable[[np.random.Generator, bytes], bytes]] = {
    "truncate": _truncate, "flip": _flip, "insert": _insert, "huge number": _huge_number,
    "deep nesting": _nest, "lines": _lines, "number": _replace_number,
}


def mutated(rng: np.random.Generator, data: bytes) -> tuple[str, bytes]:
    """One mutation of ``data`` (half the time), or two or three; named by the first."""
    names = list(MUTATIONS)
    first = names[int(rng.integers(len(names)))]
    data = MUTATIONS[first](rng, data)
    for _ in range(int(rng.choice([0, 0, 0, 1, 2]))):
        data = MUTATIONS[names[int(rng.integers(len(names)))]](rng, data)
    return first, data


def read_mutant(fmt: str, data: bytes, folder: Path) -> str:
    """Read ``data`` as a ``fmt`` file in ``folder``: ``"graphs"``, ``"error"`` (a GedkitError)
    or raise whatever else escaped. The graphs' labels are used, as a solve would."""
    for name in _BESIDE.get(fmt, ()):
        shutil.copy(FIXTURES / name, folder / name)
    path = folder / SEEDS[fmt]
    path.write_bytes(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a warning of a library, printed, is no error line
            warnings.simplefilter("ignore", gedkit.errors.UnlabelledWarning)
            graphs = gedkit.read_all(path)
            if fmt != "tve":  # t/v/e has no attribute names
                graphs += gedkit.read_all(path, node_label="*", edge_label="*")
    except GedkitError:
        return "error"
    for g in graphs:
        assert isinstance(g, gedkit.Graph)
        g.node_keys, g.edge_keys  # noqa: B018 (labels must be usable, as cost models use them)
        assert g == g
    return "graphs"


def campaign(files: int, seed: int, folder: Path) -> tuple[Counter, list[str]]:
    """Read ``files`` mutants spread over every format; count the outcomes and collect what
    escaped (format, mutation, exception, a file kept for each)."""
    rng = np.random.default_rng(seed)
    counts: Counter = Counter()
    escaped: list[str] = []
    formats = list(SEEDS)
    for k in range(files):
        fmt = formats[k % len(formats)]
        mutation, data = mutated(rng, (FIXTURES / SEEDS[fmt]).read_bytes())
        work = folder / "current"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        try:
            counts[fmt, read_mutant(fmt, data, work)] += 1
        except Exception as exc:
            counts[fmt, "escaped"] += 1
            kept = folder / f"escaped_{k}_{SEEDS[fmt]}"
            kept.write_bytes(data)
            where = traceback.extract_tb(exc.__traceback__)[-1]
            escaped.append(f"{fmt} {mutation}: {type(exc).__name__}: {exc!s:.200} "
                           f"({where.filename}:{where.lineno}) -> {kept}")
    return counts, escaped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", default="/tmp/gedkit-fuzz", help="folder for the mutants")
    args = parser.parse_args(argv)
    counts, escaped = campaign(args.files, args.seed, Path(args.keep))
    for fmt in SEEDS:
        row = {outcome: counts[fmt, outcome] for outcome in ("graphs", "error", "escaped")}
        print(f"{fmt:8} " + "  ".join(f"{k} {v}" for k, v in row.items()))
    print("\n".join(escaped) or "nothing escaped")
    return 1 if escaped else 0


if __name__ == "__main__":
    sys.exit(main())
