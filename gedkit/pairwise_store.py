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

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gedkit.budget import KERNELS_NOT_READY
from gedkit.costs.describe import COSTS_VERSION, UNCHECKED, describe
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
        "costs": describe(model),
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
                stored.get("costs")).startswith(COSTS_VERSION):
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
