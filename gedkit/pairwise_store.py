"""The file a long :func:`gedkit.pairwise` job writes as it goes (``out=``), and resumes from.

One SQLite file (stdlib :mod:`sqlite3`, write-ahead log) with two tables:

- ``job``: one header row identifying the job: a fingerprint of the row and column graphs,
  the cost model, the method with its options, the time and memory limits per pair and the
  matrix's shape. Resuming with inputs that differ is refused, naming what differs.
- ``pairs``: one row per pair done, keyed by ``(i, j)``: ``lower``, ``upper``, ``status``
  (``optimal``, ``bounded`` or ``failed``), ``optimal`` (0/1), ``time``, ``error``, ``node_map``
  (the node map as little-endian int32 indices into ``graphs_b[j]``, -1 for a deletion),
  ``method`` and ``stopped`` (why a bounded pair's solve stopped, where not the time limit;
  NULL otherwise, and in files written before the column: added when such a file is opened).

Rows are committed once per chunk of pairs, so a killed process loses at most the chunks in
flight; a resumed job skips every optimal or bounded pair and solves the others again (failed
ones included: what failed may have been a lost worker; bounded ones that stopped because
gedkit's kernels were still compiling too).

>>> import os, sqlite3, tempfile, gedkit
>>> path = os.path.join(tempfile.mkdtemp(), "pairs.sqlite")
>>> graphs = [gedkit.Graph({0: "C"}), gedkit.Graph({0: "N"}), gedkit.Graph({0: "O"})]
>>> gedkit.pairwise(graphs, out=path).resumed
0
>>> sqlite3.connect(path).execute("SELECT i, j, upper, optimal FROM pairs").fetchall()[:3]
[(0, 0, 0.0, 1), (0, 1, 1.0, 1), (0, 2, 1.0, 1)]
>>> gedkit.pairwise(graphs, out=path).resumed      # run again: nothing left to solve
6
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
import sqlite3
import sys
import sysconfig
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gedkit.budget import KERNELS_NOT_READY
from gedkit.errors import GedkitError, Words
from gedkit.graph import label_key
from gedkit.workers import inside

_ANOTHER = Words("give another out= path", "give another --out file")

__all__ = ["FORMAT", "PairStore", "fingerprint", "job_header"]

FORMAT = "gedkit-pairwise/1"
DONE = ("optimal", "bounded")  # a pair with one of these statuses is not solved again
_READ_ROWS = 10_000  # pairs done read at a time from a file resumed

_SCHEMA = """
CREATE TABLE IF NOT EXISTS job (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    header TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS pairs (
    i INTEGER NOT NULL,
    j INTEGER NOT NULL,
    lower REAL NOT NULL,
    upper REAL NOT NULL,
    status TEXT NOT NULL,
    optimal INTEGER NOT NULL,
    time REAL NOT NULL,
    error TEXT,
    node_map BLOB,
    method TEXT NOT NULL,
    stopped TEXT,
    PRIMARY KEY (i, j)
) WITHOUT ROWID;
"""


def fingerprint(graphs: Sequence[Any]) -> str:
    """A digest of graphs, in order: ids, labels and edges (an unreadable graph, ``None``,
    counts as such).

    >>> import gedkit
    >>> a = fingerprint([gedkit.Graph({0: "C"}, name="x")])
    >>> a == fingerprint([gedkit.Graph({0: "C"}, name="y")]), a == fingerprint([gedkit.Graph([0])])
    (True, False)
    """
    digest = hashlib.sha256()
    for g in graphs:
        if g is None:
            text = "None"
        else:
            parts = (g.ids, g.node_keys, g.edges.tolist(), g.edge_keys)
            loops = getattr(g, "loops", None)  # self-loops, where graphs hold them
            if loops:
                parts += (sorted((a, repr(label_key(lab))) for a, lab in loops.items()),)
            if getattr(g, "directed", False):  # the same pairs as arcs are another graph
                parts += ("directed",)
            text = repr(parts)
        digest.update(text.encode("utf-8", "backslashreplace"))
        digest.update(b"\0")
    return f"{len(graphs)}:{digest.hexdigest()[:32]}"


def job_header(rows, cols, square: bool, model: Any, solver: Any, timeout: float | None,
               memory: int | None) -> dict[str, Any]:
    """What identifies a pairwise job: resuming is allowed when every value matches."""
    return {
        "format": FORMAT,
        "rows": fingerprint(rows),
        "columns": "rows" if square else fingerprint(cols),
        "costs": _describe(model),
        "method": solver.name,
        "options": json.loads(json.dumps(dict(getattr(solver, "config", {})), default=repr,
                                         sort_keys=True)),
        "timeout": timeout,
        "memory": memory,
    }


_WHAT = {"rows": "graphs", "columns": "column graphs", "costs": "cost model",
         "method": "method", "options": "method options", "timeout": "time limit per pair",
         "memory": "memory limit per pair", "format": "file format version"}


class PairStore:
    """An open results file: what was done, and where new pairs go (see the module notes).

    Parameters
    ----------
    path : str or Path
        The file; created with ``header`` when it does not exist.
    header : dict
        :func:`job_header` of the job; an existing file must hold the same.

    Raises
    ------
    GedkitError
        When the file is not a pairwise results file, or holds another job.
    """

    def __init__(self, path: str | Path, header: dict[str, Any]):
        self.path = Path(path)
        self._rows: list[tuple] = []
        try:
            with inside():
                self.db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        except sqlite3.Error as exc:
            raise GedkitError(f"cannot open pairwise results file {self.path}: {exc}") from None
        try:
            with inside():
                self._open(header)
        except sqlite3.DatabaseError as exc:
            self.db.close()
            if _cannot_write(exc):
                raise GedkitError(
                    f"cannot write {self.path} (read-only file or folder? {exc}); ", _ANOTHER
                ) from None
            raise GedkitError(
                f"{self.path} is not a gedkit pairwise results file ({exc}); ", _ANOTHER
            ) from None
        except BaseException:
            self.db.close()
            raise

    def _open(self, header: dict[str, Any]) -> None:
        db = self.db
        # what the file holds is read first: another program's database (a collection file
        # given as --out by mistake) is left exactly as it was, its journal mode too
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        if tables and not {"job", "pairs"} <= tables:
            raise GedkitError(
                f"{self.path} is not a gedkit pairwise results file (it holds other tables); ",
                _ANOTHER,
            )
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # with WAL: a killed process loses no commit
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            _add_stopped(db)
            row = db.execute("SELECT header FROM job").fetchone()
            if row is None:
                db.execute("INSERT INTO job (id, header) VALUES (0, ?)",
                           (json.dumps(header, sort_keys=True),))
            # a write, now: a file SQLite opened read-only (its permissions, its folder's) lets
            # BEGIN IMMEDIATE by, then fails the first chunk's commit, after the solving
            db.execute("UPDATE job SET header = header")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if row is not None:
            self._check_same_job(json.loads(row[0]), json.loads(json.dumps(header)))

    def _check_same_job(self, stored: dict[str, Any], wanted: dict[str, Any]) -> None:
        """Refuse to resume a file holding another job, or a job whose cost functions
        cannot be checked to be the same."""
        if UNCHECKED in str(wanted.get("costs")):
            raise GedkitError(
                f"{self.path} holds a pairwise job, but the cost function cannot be checked "
                "to be the same as the one that wrote it (it holds a value gedkit cannot "
                "compare), so it is not resumed; ", _ANOTHER,
            )
        if stored.get("costs") != wanted.get("costs") and not str(
                stored.get("costs")).startswith(_COSTS_VERSION):
            raise GedkitError(
                f"{self.path} was written by an older gedkit, whose record of the cost model "
                "cannot be checked against this one, so it is not resumed; ", _ANOTHER,
                ", or delete the file to start again",
            )
        differ = [key for key in sorted({*stored, *wanted}) if stored.get(key) != wanted.get(key)]
        if "method" in differ and "options" in differ:  # another method: other options
            differ.remove("options")
        if differ:
            what = ", ".join(_WHAT.get(key, key) for key in differ)
            raise GedkitError(
                f"{self.path} holds another pairwise job (not the same {what} as this "
                "one), so it cannot be resumed with these inputs; ", _ANOTHER,
                ", or delete the file to start again",
            )

    def done(self) -> Iterator[tuple]:
        """``(i, j, lower, upper, time, status, node_map, stopped)`` of every pair not to
        solve again: not a bounded pair whose solve stopped because the kernels were still
        compiling (a job run right after installing kept its cheap bounds for good)."""
        with inside():
            cursor = self.db.execute(
                "SELECT i, j, lower, upper, time, status, node_map, stopped FROM pairs "
                f"WHERE status IN ({', '.join('?' * len(DONE))}) "
                "AND (stopped IS NULL OR stopped != ?) ORDER BY i, j", (*DONE, KERNELS_NOT_READY)
            )
        while True:
            with inside():  # (not between reads: the caller may fork its workers then)
                rows = cursor.fetchmany(_READ_ROWS)
            if not rows:
                return
            yield from rows

    def add(self, i: int, j: int, lower: float, upper: float, time: float, status: str,
            error: str | None, node_map: bytes | None, method: str,
            stopped: str | None = None) -> None:
        """Queue one pair (``stopped``: why its solve stopped unproven, where not the time
        limit); it is written by the next :meth:`commit`."""
        self._rows.append((int(i), int(j), float(lower), float(upper), status,
                           int(status == "optimal"), float(time), error, node_map, method,
                           stopped))

    def commit(self) -> None:
        """Write the queued pairs in one transaction."""
        if not self._rows:
            return
        rows, self._rows = self._rows, []
        try:
            with inside(), self.db:  # BEGIN ... COMMIT (rolled back on error)
                self.db.execute("BEGIN")
                self.db.executemany(
                    "INSERT OR REPLACE INTO pairs "
                    "(i, j, lower, upper, status, optimal, time, error, node_map, method, "
                    "stopped) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
                )
        except sqlite3.Error as exc:  # a full disk, the file made read-only meanwhile
            raise GedkitError(f"cannot write pairwise results to {self.path} ({exc})") from None

    def close(self) -> None:
        """Commit what is queued and close the file."""
        try:
            self.commit()
        finally:
            with inside():
                self.db.close()


#: marks a cost model whose functions cannot be checked to be the same on resume
UNCHECKED = "<cannot be checked>"
#: tells a costs fingerprint of this gedkit (full precision, every callable) from an older one
_COSTS_VERSION = "costs/2"
#: module globals a function may read whose value is their whole meaning
_PLAIN = (int, float, complex, str, bytes, bool, type(None))


class _Unchecked(Exception):
    """A value the fingerprint cannot pin down (an open file, a random generator...)."""


def _describe(model: Any) -> str:
    """The cost model in words that change when it does: its class, and every value it holds
    at full precision (its repr rounds numbers to 6 digits: 1234567 and 1234568 read alike),
    the functions a custom model holds by their compiled code, what they close over, bind
    (``functools.partial``) or read from their module. A value that cannot be pinned down
    makes the description :data:`UNCHECKED`: such a job is never resumed.

    >>> from gedkit.costs import constant
    >>> _describe(constant(node_sub=1234567)) == _describe(constant(node_sub=1234568))
    False
    """
    kind = type(model)
    try:
        state = _value(getattr(model, "__dict__", {}), set())
    except (_Unchecked, RecursionError):
        state = UNCHECKED
    return f"{_COSTS_VERSION} {model!r} {kind.__module__}.{kind.__qualname__} {state}"


def _value(value: Any, seen: set[int]) -> str:
    """``value`` as text that tells apart values a cost function would tell apart; raises
    :class:`_Unchecked` for one it cannot."""
    if isinstance(value, float):  # repr: the shortest text that reads back as the same float
        return repr(value)
    if isinstance(value, _PLAIN):
        return repr(value)
    if id(value) in seen:  # a function reading itself (recursion), a cycle of objects
        return "<again>"
    seen = seen | {id(value)}
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}({', '.join(_value(v, seen) for v in value)})"
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}({sorted(_value(v, seen) for v in value)})"
    if isinstance(value, dict):
        items = sorted(f"{_value(k, seen)}: {_value(v, seen)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return _callable_or_data(value, seen)


def _callable_or_data(value: Any, seen: set[int]) -> str:
    """The values :func:`_value` does not spell out itself: arrays, functions, partials,
    methods, callable objects."""
    import numpy as np  # the fingerprint of a job always has it loaded

    if isinstance(value, np.ndarray):
        data = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()[:16]
        return f"array({value.dtype}, {value.shape}, {data})"
    if isinstance(value, np.generic):
        return repr(value.item())
    if isinstance(value, types.FunctionType):
        return _function(value, seen)
    if isinstance(value, functools.partial):
        return (f"partial({_value(value.func, seen)}, {_value(value.args, seen)}, "
                f"{_value(value.keywords, seen)})")
    if isinstance(value, types.MethodType):
        return f"method({_value(value.__func__, seen)}, {_value(value.__self__, seen)})"
    if isinstance(value, (types.BuiltinFunctionType, np.ufunc)):
        owner = getattr(value, "__self__", None)  # a builtin bound to an object has state
        if owner is not None and not isinstance(owner, types.ModuleType):
            raise _Unchecked(value)
        return f"builtin({getattr(value, '__module__', None)}.{value.__qualname__})"
    if isinstance(value, (type, types.ModuleType)):  # named: their code is not the job's
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', value)}"
    return _instance(value, seen)


def _instance(value: Any, seen: set[int]) -> str:
    """An object (a callable instance, a model's helper): its class's code and plain values,
    and its own state."""
    kind = type(value)
    if _library(kind) or (not hasattr(value, "__dict__") and not any(
            getattr(klass, "__slots__", None) for klass in kind.__mro__)):
        return _pickled(value)  # its state may be held in C, out of __dict__'s reach
    members = {}
    for klass in reversed(kind.__mro__[:-1]):  # the class's code: __call__ and what it uses
        if _library(klass):
            continue
        for name, member in vars(klass).items():
            if isinstance(member, (types.FunctionType, *_PLAIN, tuple, frozenset)):
                members[f"{klass.__qualname__}.{name}"] = member
    state = dict(getattr(value, "__dict__", {}))
    for klass in kind.__mro__:
        for name in getattr(klass, "__slots__", ()):
            if hasattr(value, name):
                state[name] = getattr(value, name)
    return f"{kind.__module__}.{kind.__qualname__}({_value(members, seen)}, {_value(state, seen)})"


def _library(thing: Any) -> bool:
    """Whether a function or class comes with Python or an installed package: its code and
    the globals it reads are that package's version's, not the job's (walking them would
    reach every module the package uses)."""
    module = sys.modules.get(getattr(thing, "__module__", None) or "")
    path = getattr(module, "__file__", None)
    if module is None or path is None:
        return module is not None  # built into the interpreter
    folders = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib",
                                                       "platlib")}
    return any(os.path.abspath(path).startswith(os.path.abspath(f) + os.sep) for f in folders)


def _pickled(value: Any) -> str:
    """An object whose state only pickling reaches (a random generator's, held in C)."""
    try:
        data = pickle.dumps(value, protocol=4)
    except Exception:  # whatever stops pickling, the object cannot be checked
        raise _Unchecked(value) from None
    return f"{type(value).__qualname__}:pickle:{hashlib.sha256(data).hexdigest()[:16]}"


def _function(f: types.FunctionType, seen: set[int]) -> str:
    """A function by its code (nested functions' included), the values it closes over, its
    defaults, and the module globals its code reads."""
    cells = [c.cell_contents for c in f.__closure__ or () if _has_contents(c)]
    globals_ = {} if _library(f) else {
        name: f.__globals__[name] for name in sorted(_names(f.__code__)) if name in f.__globals__
    }
    text = (f"{_code(f.__code__)} {_value(cells, seen)} {_value(f.__defaults__, seen)} "
            f"{_value(f.__kwdefaults__, seen)} {_value(globals_, seen)}")
    digest = hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()
    return f"{f.__qualname__}:{digest[:16]}"


def _code(code: types.CodeType) -> str:
    """Compiled code as text: its bytecode and constants, nested code objects included (a
    lambda inside a function is a constant of it: its repr is only its name and line)."""
    consts = [_code(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts]
    return f"{code.co_code.hex()}:{code.co_names}:{consts}"


def _names(code: types.CodeType) -> set[str]:
    """The global names ``code`` and the code nested in it may read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _add_stopped(db: sqlite3.Connection) -> None:
    """Give a file written before pairs had a ``stopped`` column one (NULL for its pairs:
    the reason was not kept), so that it resumes, and records the reason from then on."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(pairs)")}
    if "stopped" not in columns:
        db.execute("ALTER TABLE pairs ADD COLUMN stopped TEXT")


def _cannot_write(exc: sqlite3.Error) -> bool:
    """Whether SQLite failed for want of write access (a read-only file, or a folder where
    its journal cannot be made), not because the file is not a database."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM,
                                                 sqlite3.SQLITE_CANTOPEN)


def _has_contents(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:  # an empty cell
        return False
    return True
