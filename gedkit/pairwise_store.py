"""The file a long :func:`gedkit.pairwise` job writes as it goes (``out=``), and resumes from.

One SQLite file (stdlib :mod:`sqlite3`, write-ahead log) with two tables:

- ``job``: one header row identifying the job: a fingerprint of the row and column graphs,
  the cost model, the method with its options, the time and memory limits per pair and the
  matrix's shape. Resuming with inputs that differ is refused, naming what differs.
- ``pairs``: one row per pair done, keyed by ``(i, j)``: ``lower``, ``upper``, ``status``
  (``optimal``, ``bounded`` or ``failed``), ``optimal`` (0/1), ``time``, ``error``, ``node_map``
  (the node map as little-endian int32 indices into ``graphs_b[j]``, -1 for a deletion) and
  ``method``.

Rows are committed once per chunk of pairs, so a killed process loses at most the chunks in
flight; a resumed job skips every optimal or bounded pair and solves the others again (failed
ones included: what failed may have been a lost worker).

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

import hashlib
import json
import re
import sqlite3
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gedkit.errors import GedkitError, Words
from gedkit.graph import label_key

_ANOTHER = Words("give another out= path", "give another --out file")

__all__ = ["FORMAT", "PairStore", "fingerprint", "job_header"]

FORMAT = "gedkit-pairwise/1"
DONE = ("optimal", "bounded")  # a pair with one of these statuses is not solved again

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
            self.db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        except sqlite3.Error as exc:
            raise GedkitError(f"cannot open pairwise results file {self.path}: {exc}") from None
        try:
            self._open(header)
        except sqlite3.DatabaseError as exc:
            self.db.close()
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
            row = db.execute("SELECT header FROM job").fetchone()
            if row is None:
                db.execute("INSERT INTO job (id, header) VALUES (0, ?)",
                           (json.dumps(header, sort_keys=True),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if row is not None:
            stored, wanted = json.loads(row[0]), json.loads(json.dumps(header))
            differ = [key for key in sorted({*stored, *wanted})
                      if stored.get(key) != wanted.get(key)]
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
        """``(i, j, lower, upper, time, status, node_map)`` of every pair not to solve again."""
        yield from self.db.execute(
            "SELECT i, j, lower, upper, time, status, node_map FROM pairs "
            f"WHERE status IN ({', '.join('?' * len(DONE))}) ORDER BY i, j", DONE
        )

    def add(self, i: int, j: int, lower: float, upper: float, time: float, status: str,
            error: str | None, node_map: bytes | None, method: str) -> None:
        """Queue one pair; it is written by the next :meth:`commit`."""
        self._rows.append((int(i), int(j), float(lower), float(upper), status,
                           int(status == "optimal"), float(time), error, node_map, method))

    def commit(self) -> None:
        """Write the queued pairs in one transaction."""
        if not self._rows:
            return
        rows, self._rows = self._rows, []
        with self.db:  # BEGIN ... COMMIT (rolled back on error)
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR REPLACE INTO pairs "
                "(i, j, lower, upper, status, optimal, time, error, node_map, method) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
            )

    def close(self) -> None:
        """Commit what is queued and close the file."""
        try:
            self.commit()
        finally:
            self.db.close()


def _describe(model: Any) -> str:
    """The cost model in words that change when it does: its repr, and for the functions a
    custom model holds, their names, compiled code and the values they close over."""
    parts = [repr(model)]
    values = getattr(model, "__dict__", {})
    for key in sorted(values):
        value = values[key]
        items = sorted(value.items()) if isinstance(value, dict) else [("", value)]
        for name, item in items:
            if isinstance(item, types.FunctionType):
                parts.append(f"{key}{'.' + name if name else ''}={_function(item)}")
    return " ".join(parts)


def _function(f: types.FunctionType) -> str:
    code = f.__code__
    cells = [c.cell_contents for c in f.__closure__ or () if _has_contents(c)]
    closed = [_function(c) if isinstance(c, types.FunctionType) else repr(c) for c in cells]
    text = re.sub(r" at 0x[0-9a-f]+", "", repr((code.co_consts, closed)))
    digest = hashlib.sha256(code.co_code + text.encode()).hexdigest()
    return f"{f.__qualname__}:{digest[:12]}"


def _has_contents(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:  # an empty cell
        return False
    return True
