"""The collection file: one SQLite database (stdlib ``sqlite3``, no server).

Tables
------
``meta``        key/value: the format tag, its version, the label attributes the graphs were
                read with, the next automatic id, and while a ``gedkit collection build`` is
                under way (or after one killed midway) what it builds.
``graphs``      one row per graph: ``id`` (JSON text, unique), ``data`` (:mod:`.codec` bytes),
                ``record`` (the graph as vocabulary ordinals, :func:`.signatures.record`).
``vocabulary``  ordinals of node labels, edge labels and branches (``kind``, ``ord``, ``key``).
``blocks``      signatures of the graphs one ``add`` transaction wrote, as one numpy archive;
                opening the file concatenates the blocks instead of parsing graphs.
``removed``     rowids of removed graphs (their graph rows are deleted; blocks are immutable
                and masked by this table when loaded).

Every ``add`` batch is one transaction (graph rows, new vocabulary, one block), so a crash or
Ctrl-C mid-add leaves every earlier batch intact and no half of a batch. Readers open the file
read-only and may be many at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from gedkit.errors import FormatError, GedkitError, OptionError
from gedkit.graph import Graph, label_key
from gedkit.search.codec import decode_graph, decode_value, encode_graph, encode_value
from gedkit.search.collector import gc_paused
from gedkit.search.signatures import KINDS, SETS, Signatures, Vocabulary, signature_of
from gedkit.text import quoted

__all__ = ["FORMAT", "IN_MEMORY", "Records", "Store"]

#: what a store held in memory gives as its ``where`` (its messages name it so)
IN_MEMORY = "in-memory collection"

FORMAT = "gedkit-collection"
VERSION = 1

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE graphs (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, data BLOB NOT NULL,
                     record BLOB NOT NULL);
CREATE TABLE vocabulary (kind TEXT NOT NULL, ord INTEGER NOT NULL, key TEXT NOT NULL,
                         PRIMARY KEY (kind, ord));
CREATE TABLE blocks (block INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE removed (rowid INTEGER PRIMARY KEY);
"""
#: the tables of _SCHEMA
_TABLES = frozenset(re.findall(r"CREATE TABLE (\w+)", _SCHEMA))
_BUILD = "unfinished_build"  # the meta key of Store.update_build


def _value_text(kind: str, value: Any) -> str:
    if kind == "branch":
        return json.dumps([value[0], list(value[1])])
    return json.dumps(encode_value(value), separators=(",", ":"))


def _key_value(kind: str, text: str) -> tuple[Any, Any]:
    """(key, value) of a stored vocabulary entry: labels are looked up by their label_key."""
    data = json.loads(text)
    if kind == "branch":
        key = (data[0], tuple(data[1]))
        return key, key
    value = decode_value(data)
    return label_key(value), value


def id_text(graph_id: Any) -> str:
    """A graph id as stored: ids are strings or integers."""
    if isinstance(graph_id, bool) or not isinstance(graph_id, str | int | np.integer):
        raise OptionError(f"graph ids must be strings or integers, got "
                          f"{type(graph_id).__name__} {quoted(graph_id)}")
    return json.dumps(graph_id if isinstance(graph_id, str) else int(graph_id))


def alike_texts(graph_id: Any) -> list[str]:
    """The stored texts of ``graph_id`` and of the id that prints like it (1 and "1": every
    output and ``FILE#1`` would show both alike), which a collection never holds both of.

    >>> alike_texts(1), alike_texts("1"), alike_texts("01"), alike_texts("a")
    (['1', '"1"'], ['"1"', '1'], ['"01"'], ['"a"'])
    """
    text = id_text(graph_id)
    if isinstance(graph_id, str):
        digits = graph_id.lstrip("-")
        if digits.isascii() and digits.isdigit() and str(int(graph_id)) == graph_id:
            return [text, id_text(int(graph_id))]
        return [text]
    return [text, id_text(str(int(graph_id)))]


def _id_of(text: str) -> Any:
    """The id :func:`id_text` stored as ``text``: a plain string or a whole number read
    directly (JSON's parser costs ~6 µs an id: a range answer under a time limit may list
    hundreds of thousands of undecided graphs), anything else by JSON.

    >>> [_id_of(id_text(i)) for i in ("a b", 12, -3, 'q"uote', "ü")]
    ['a b', 12, -3, 'q"uote', 'ü']
    """
    if text[0] == '"' and "\\" not in text:
        return text[1:-1]
    if text.isascii() and text.lstrip("-").isdigit():
        return int(text)
    return json.loads(text)


#: rowids from which :meth:`Store.ids` looks them up in a table of every id (see there)
_TABLE_FROM = 2048
#: largest rowid of a collection whose ids are all looked up in that table, however few are
#: wanted: reading it once costs less than a few searches' lookups in the file (each an SQL
#: statement, ~15 µs warm and several times that within a search, whose kernels have pushed
#: SQLite out of the processor's caches)
_SMALL_TABLE = 1 << 16


def _decoded(rows: list[tuple[int, str]], where: str) -> dict[int, Any]:
    """rowid -> id from ``(rowid, stored id)`` rows (of the file ``where``)."""
    if not rows:
        return {}
    found, texts = zip(*rows, strict=True)
    try:  # every id a whole number (stored as its digits): read at C speed
        values = list(map(int, texts))
    except (TypeError, ValueError):  # a string id (stored quoted) among them
        try:
            values = list(map(_id_of, texts))
        except (TypeError, ValueError, IndexError):
            raise FormatError(f"{where}: a stored graph id is damaged") from None
    return dict(zip(found, values, strict=True))


#: the file SQLite writes beside a collection while it commits (its rollback journal)
JOURNAL = "-journal"


def check_new_file(path: Path, shown: Path | None = None) -> None:
    """A one-line error unless a collection file can be made at ``path`` (named ``shown``
    to the user, when it is a temporary name beside it): its folder exists and may be
    written, and its name leaves room for SQLite's journal beside it (SQLite says only
    "unable to open database file" at the first commit otherwise)."""
    shown = path if shown is None else shown
    folder = path.parent
    if not folder.is_dir():
        raise OptionError(f"{shown}: folder {str(folder)!r} does not exist")
    _check_name_length(path, shown)  # (first: looking up a name past the limit fails)
    if path.exists() and not path.is_file():
        raise OptionError(f"{shown} is not a file (a collection is one file)")
    if not os.access(folder, os.W_OK):  # (SQLite writes its journal beside the file)
        raise OptionError(f"{shown}: not allowed to write in folder {str(folder)!r}")


def _check_name_length(path: Path, shown: Path) -> None:
    try:
        limit = os.pathconf(path.parent, "PC_NAME_MAX")
    except (OSError, ValueError):  # (a system that does not say)
        return
    longest = len(os.fsencode(path.name + JOURNAL))
    if longest > limit:
        room = limit - (longest - len(os.fsencode(shown.name)))
        raise OptionError(
            f"{shown}: the file name is too long: SQLite writes a file of its name plus "
            f"'{JOURNAL}' beside it, past the folder's limit of {limit} bytes a name; give a "
            f"name of at most {max(room, 0)} bytes")


def check_replaceable(path: Path) -> None:
    """A one-line error unless the existing file ``path`` is one that replacing it may
    delete: a collection, or an empty file (what a create that failed may leave), never
    another file that happens to be there."""
    if path.stat().st_size == 0:
        return
    try:
        Store.open(path, writable=False).close()
    except GedkitError as err:
        raise OptionError(f"{err}; overwrite replaces collection files only") from None


def _identity(where: str) -> tuple[int, int] | None:
    """The device and inode of the file ``where`` (None in memory, or where it is gone)."""
    if where == IN_MEMORY:
        return None
    try:
        st = os.stat(where)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class Store:
    """Low-level access to one collection file (see the module docstring)."""

    def __init__(self, conn: sqlite3.Connection, where: str, writable: bool):
        self.conn, self.where, self.writable = conn, where, writable
        self._identity = _identity(where)
        self._load()

    def check_same_file(self) -> None:
        """A one-line error if the path this store opened now names another file (one built
        again with ``--overwrite`` replaces it): this store still reads the one it opened,
        while Dask workers, which open the path, would read the new one and answer for
        another collection."""
        if self._identity is not None and _identity(self.where) != self._identity:
            raise GedkitError(f"{self.where} was replaced or removed since this collection "
                              "was opened (built again with --overwrite?); open it again to "
                              "search it on a Dask cluster, whose workers open its path")

    def _load(self) -> None:
        """Read the file's metadata and vocabularies (again)."""
        # the version first: a batch another process commits while these are read shows as a
        # change at the next look (read after them, it was taken for seen, its labels unread)
        version = self._data_version()
        self.meta = dict(self.conn.execute("SELECT key, value FROM meta"))
        if self.meta.get("format") != FORMAT:
            raise FormatError(f"{self.where} is an SQLite file but not a gedkit collection")
        tables = {name for (name,) in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables >= _TABLES:  # (info reads no graph: it would describe what is gone)
            raise FormatError(f"{self.where} is damaged (no table "
                              f"{', '.join(sorted(_TABLES - tables))}): build it again from "
                              "its sources")
        if int(self.meta.get("version", 0)) > VERSION:
            raise FormatError(f"{self.where} was written by a newer gedkit (collection format "
                              f"{self.meta['version']}); upgrade gedkit to read it")
        try:
            self._labels = tuple(decode_value(json.loads(self.meta[f"{k}_label"]))
                                 for k in ("node", "edge"))
        except (KeyError, TypeError, ValueError) as err:  # (JSON's errors are ValueErrors)
            raise FormatError(f"{self.where}: its record of the label attributes is damaged "
                              f"({type(err).__name__})") from None
        self.vocab = {k: Vocabulary() for k in KINDS}
        rows = self.conn.execute("SELECT kind, ord, key FROM vocabulary ORDER BY kind, ord")
        for kind, ordinal, key in rows:
            v = self.vocab.get(kind)
            if v is None or ordinal != len(v):
                raise FormatError(f"{self.where}: the label vocabulary is damaged")
            try:
                v.ordinal(*_key_value(kind, key))
            except (TypeError, ValueError, IndexError):
                raise FormatError(f"{self.where}: the label vocabulary is damaged") from None
        self._version = version
        self._numbered: tuple | bool | None = None  # see _id_table

    def _data_version(self) -> int:
        return self.conn.execute("PRAGMA data_version").fetchone()[0]

    def changed(self) -> bool:
        """Whether another connection (another process) committed to the file since it was
        read, by SQLite's ``data_version``; if so the metadata and vocabularies are read
        again, and what the caller derived from the file (signatures, records) is stale."""
        if self._data_version() == self._version:
            return False
        self._load()
        return True

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path | None, node_label: Any, edge_label: Any,
               overwrite: bool = False) -> Store:
        if path is not None and os.fspath(path) == ":memory:":
            # SQLite's name for a database in memory: made in memory, and said to be (it
            # was taken for a file where a search on a cluster sends its path)
            path = None
        where = IN_MEMORY if path is None else str(path)
        if path is not None:
            path = Path(path)
            check_new_file(path)
            if path.exists():
                if not overwrite:
                    raise FileExistsError(f"{path} exists already; open it with "
                                          "Collection.open(path, mode='a') to add to it")
                check_replaceable(path)
                path.unlink()
            try:  # claimed at once: of two processes making it together one gets it, and
                # neither removes the other's (both failed, and the file was gone)
                os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            except FileExistsError:
                raise FileExistsError(f"{path} exists already (made just now by another "
                                      "process); open it with Collection.open(path, mode='a') "
                                      "to add to it") from None
            except OSError as err:  # (a read-only mount, /sys: the folder's fault)
                raise GedkitError(f"cannot create {where}: the folder {str(path.parent)!r} "
                                  f"takes no new file ({err.strerror})") from None
        made = path is not None  # (what a failure may delete: the file it claimed)
        conn = None
        try:
            conn = _connect(":memory:" if path is None else str(path), where, readonly=False,
                            new=True)
            with conn:
                conn.executescript(_SCHEMA)
                conn.executemany("INSERT INTO meta VALUES (?, ?)", [
                    ("format", FORMAT), ("version", str(VERSION)),
                    ("node_label", json.dumps(encode_value(node_label))),
                    ("edge_label", json.dumps(encode_value(edge_label))),
                    ("next_id", "0"),
                    # (which collection a file holds: another made at the same path since a
                    # search is told apart from it, see Collection._identity)
                    ("made", uuid.uuid4().hex),
                ])
            return cls(conn, where, writable=True)
        except BaseException as err:
            # a failed create deletes the file it made (a 0-byte one would then read as
            # "exists already" and "not a collection"), never one it found there
            if conn is not None:
                conn.close()
            if made:
                with contextlib.suppress(OSError):
                    path.unlink()
            if isinstance(err, sqlite3.DatabaseError):
                raise FormatError(f"cannot create {where} ({err})") from None
            raise

    @classmethod
    def open(cls, path: str | Path, writable: bool) -> Store:
        path = Path(path)
        if path.is_dir():
            raise OptionError(f"{path} is a folder, not a collection file (a collection is "
                              "one file)")
        if not path.is_file():
            raise FileNotFoundError(f"no such collection file: {path}")
        for first in (True, False):
            conn = _connect(str(path), str(path), readonly=not writable)
            try:
                return cls(conn, str(path), writable)
            except sqlite3.DatabaseError as err:
                conn.close()
                journal = path.with_name(path.name + JOURNAL)
                if not (first and not writable and "readonly" in str(err) and journal.exists()):
                    if "malformed" in str(err):  # a collection cut short or overwritten
                        raise FormatError(f"{path} is damaged (SQLite: {err}): build it "
                                          "again from its sources") from None
                    if path.stat().st_size == 0:  # (SQLite said "no such table: meta")
                        raise FormatError(f"{path} is an empty file, not a gedkit "
                                          "collection") from None
                    if "no such table" in str(err):
                        raise FormatError(f"{path} is an SQLite file but not a gedkit "
                                          "collection") from None
                    raise FormatError(f"{path} is not a gedkit collection ({err})") from None
                # a writer stopped mid-commit left its journal: SQLite rolls it back on the
                # first open that may write, which a reader's is not
                _roll_back(path, journal)
        raise AssertionError("unreachable")  # (the second open returns or raises)

    def close(self) -> None:
        self.conn.close()

    # -- reading -----------------------------------------------------------------------------
    def labels(self) -> tuple[Any, Any]:
        return self._labels

    def record_labels(self, taken: tuple[Any, Any]) -> None:
        """Record as the collection's label attributes those ``taken`` (the lone attributes
        read as labels, none named) where it records none: a query is then read with them.
        (A collection of node-link files whose first graph had one node attribute, ``atom``,
        recorded none, and a query carrying ``atom`` and ``x`` was read unlabelled: its own
        graph not found.)"""
        labels = tuple(given if stored is None and given is not None else stored
                       for given, stored in zip(taken, self._labels, strict=True))
        if labels == self._labels:
            return
        self.check_writable()
        with self.conn:
            self.conn.executemany("UPDATE meta SET value = ? WHERE key = ?", [
                (json.dumps(encode_value(label)), f"{kind}_label")
                for kind, label in zip(("node", "edge"), labels, strict=True)])
        # (this connection's commit does not move data_version: another's since the file
        # was read is still seen as one, its labels read)
        for kind, label in zip(("node", "edge"), labels, strict=True):
            self.meta[f"{kind}_label"] = json.dumps(encode_value(label))
        self._labels = labels

    def unfinished_build(self) -> dict | None:
        """What :meth:`update_build` recorded of builds not finished (their input files, the
        graphs the collection had before them), or None."""
        text = self.meta.get(_BUILD)
        return None if text is None else json.loads(text)

    def update_build(self, change: Callable[[dict | None], dict | None]) -> None:
        """Replace the record of builds under way (see :meth:`unfinished_build`) by
        ``change(record)``, None for none, read and written under the file's write lock:
        builds appending at once each see the other's (read from memory, one build's end
        wrote back a record without the other's start, or with its own end undone). A build
        killed midway (no clean-up runs) leaves its part of it, so the next build adding
        the same files can tell."""
        self.check_writable()
        with self.conn:
            cur = self.conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            row = cur.execute("SELECT value FROM meta WHERE key = ?", (_BUILD,)).fetchone()
            build = change(None if row is None else json.loads(row[0]))
            if build is None:
                cur.execute("DELETE FROM meta WHERE key = ?", (_BUILD,))
            else:
                cur.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                            (_BUILD, json.dumps(build)))
        # (SQLite's data_version is not moved by this connection's own commits: left as it
        # is, another process's commit since the file was read is still seen as one)
        if build is None:
            self.meta.pop(_BUILD, None)
        else:
            self.meta[_BUILD] = json.dumps(build)

    def signatures(self) -> Signatures:
        """Every live graph's signature, in rowid order."""
        try:
            # the blocks' sizes first (their headers), then the blocks one at a time into
            # arrays of the whole's size; blocks are never changed once written, and a block
            # another writer adds in between is left to the next read (data_version)
            last, rows, entries = -1, 0, dict.fromkeys(SETS, 0)
            for block, blob in self.conn.execute("SELECT block, data FROM blocks ORDER BY "
                                                 "block"):
                count, sizes = Signatures.sizes_of(blob)
                last, rows = block, rows + count
                for kind, size in sizes.items():
                    entries[kind] += size
            blobs = (blob for (blob,) in self.conn.execute(
                "SELECT data FROM blocks WHERE block <= ? ORDER BY block", (last,)))
            sig = Signatures.gather(blobs, rows, entries)
        except KeyError as err:  # an array today's filters read is not there
            raise FormatError(
                f"{self.where}: its stored signatures lack {err.args[0]} (the file was written "
                "by an earlier gedkit); build the collection again from its graphs") from None
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as err:
            said = str(err) if str(err).isprintable() and len(str(err)) < 80 else \
                type(err).__name__  # (numpy's says the header's bytes)
            raise FormatError(f"{self.where}: the stored signatures are damaged ({said})"
                              ) from None
        if not rows and self.conn.execute("SELECT 1 FROM graphs LIMIT 1").fetchone():
            # (a file whose signature blocks were lost read as an empty collection, every
            # search certified with no hit)
            raise FormatError(f"{self.where} is damaged (its graphs have no stored "
                              "signatures): build it again from its sources")
        self._check_ordinals(sig)
        removed = np.fromiter((r for (r,) in self.conn.execute("SELECT rowid FROM removed")),
                              dtype=np.int64)
        if len(removed):
            sig = sig.take(np.flatnonzero(~np.isin(sig.rowids, removed)))
        return sig

    def check(self) -> None:
        """SQLite's quick check of every page, then every graph's record and stored bytes
        (a page SQLite reads may hold a damaged value: a record's label ordinals, a graph's
        compressed bytes, whose checksum its decompression checks); :class:`FormatError`
        naming the first problem."""
        found = [row[0] for row in self.conn.execute("PRAGMA quick_check(3)")]
        if found != ["ok"]:
            raise FormatError(f"{self.where} is damaged ({'; '.join(map(str, found))}): build "
                              "it again from its sources")
        last = -1
        while rows := self.conn.execute(
                "SELECT rowid, record, data FROM graphs WHERE rowid > ? ORDER BY rowid LIMIT "
                f"{_CHECK_BLOCK}", (last,)).fetchall():
            self._packed([record for _, record, _ in rows])
            for rowid, _, data in rows:
                try:
                    zlib.decompress(data)
                except (zlib.error, TypeError):
                    raise FormatError(
                        f"{self.where}: the stored graph {quoted(self.ids([rowid])[rowid])} is "
                        "damaged; build the collection again from its sources") from None
            last = rows[-1][0]

    def _check_ordinals(self, sig: Signatures) -> None:
        """That the vocabularies hold every label ordinal the signatures use: a file whose
        vocabulary rows were lost answered every query with no hit, certified (the
        queries' labels, unknown to it, matched nothing). A writer that added graphs and
        their labels since the vocabularies were read is no damage: they are read again."""
        for kind in KINDS:
            if int(sig.sets[kind].ids.max(initial=-1)) >= len(self.vocab[kind]):
                if self.changed():
                    return self._check_ordinals(sig)
                raise FormatError(f"{self.where} is damaged (its {kind} vocabulary lacks "
                                  "labels its graphs use): build it again from its sources")
        return None

    def _rows(self, columns: str, rowids: Iterable[int]) -> Iterator[tuple]:
        """``rowid, columns...`` of the graphs ``rowids``, fetched 500 at a time."""
        rowids = [int(r) for r in rowids]
        for start in range(0, len(rowids), 500):
            chunk = rowids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            # fetched whole: a generator left open by an error held a cursor, which its
            # clean-up, after the file was closed, met with a traceback
            yield from self.conn.execute(
                f"SELECT rowid, {columns} FROM graphs WHERE rowid IN ({marks})", chunk
            ).fetchall()

    def graphs(self, rowids: Iterable[int]) -> dict[int, Graph]:
        """The graphs of ``rowids``."""
        rowids = list(rowids)
        found = {r: decode_graph(data, self.where) for r, data in self._rows("data", rowids)}
        if len(found) < len(set(rowids)):
            raise self.gone()
        return found

    def each_graph(self, rowids: list[int], block: int) -> Iterator[Graph]:
        """The graphs of ``rowids`` in that order, read ``block`` at a time as they are
        reached: a loop a time limit or Ctrl-C stops early decodes no more than it uses."""
        for start in range(0, len(rowids), block):
            chunk = rowids[start:start + block]
            found = self.graphs(chunk)
            yield from (found[r] for r in chunk)

    def records(self, rowids: Iterable[int]) -> Records:
        """The :func:`~gedkit.search.signatures.record` arrays of ``rowids``, in that order."""
        rowids = list(rowids)
        found = dict(self._rows("record", rowids))
        if len(found) < len(set(rowids)):
            raise self.gone()
        return self._packed([found[r] for r in rowids])

    def _packed(self, blobs: list[bytes]) -> Records:
        """:meth:`Records.pack` of ``blobs`` against this file's vocabularies (read again
        first where another process has added labels since)."""
        try:
            return Records.pack(blobs, self.where, self.label_counts())
        except FormatError:
            if not self.changed():
                raise
            return Records.pack(blobs, self.where, self.label_counts())

    def label_counts(self) -> tuple[int, int]:
        """The sizes of the node and edge label vocabularies."""
        return len(self.vocab["node"]), len(self.vocab["edge"])

    def gone(self) -> GedkitError:
        """The error when graphs this reader knows of are not in the file: removed by
        another writer since it read the file, or, when nobody wrote to it since, lost
        from the file itself (rows deleted by hand), which searching again cannot mend."""
        if self._data_version() == self._version:
            return FormatError(f"{self.where} is damaged (graphs its signatures list are not "
                               "in it): build it again from its sources")
        return GedkitError(f"{self.where}: another process removed graphs from the file while "
                           "this one was reading them; search (or read) again, which sees the "
                           "file as it is then")

    def records_between(self, first: int, last: int) -> tuple[np.ndarray, Records]:
        """The rowid (increasing) and record of every graph whose rowid is from ``first`` to
        ``last``, in one read."""
        rows = self.conn.execute("SELECT rowid, record FROM graphs WHERE rowid BETWEEN ? AND ? "
                                 "ORDER BY rowid", (first, last)).fetchall()
        return (np.fromiter((r for r, _ in rows), dtype=np.int64, count=len(rows)),
                self._packed([b for _, b in rows]))

    def ids(self, rowids: Iterable[int] | None = None, strict: bool = True) -> dict[int, Any]:
        """rowid -> id, for ``rowids`` or for every graph; ``strict``: every one of
        ``rowids`` (a search naming its answers), else :meth:`gone` is raised (not
        ``strict``: those there). Many rowids of
        a collection numbered by whole numbers are looked up in a table of all its ids read
        once (a range answer under a time limit may name a third of 100,000 graphs: reading
        and parsing their ids took 3 s for 30 queries)."""
        with gc_paused():  # many rows, no cycles (see gc_paused)
            if rowids is None:
                return _decoded(self.conn.execute("SELECT rowid, id FROM graphs ORDER BY "
                                                  "rowid").fetchall(), self.where)
            wanted = np.fromiter(rowids, dtype=np.int64)
            table = self._id_table() if self._table_pays(len(wanted)) else None
            if table is not None:
                keys, values = table
                at = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
                there = keys[at] == wanted if len(keys) else np.zeros(len(wanted), bool)
                found = dict(zip(wanted[there].tolist(), values[at[there]].tolist(),
                                 strict=True))
            else:
                found = _decoded(list(self._rows("id", wanted.tolist())), self.where)
        if strict and len(found) < len(wanted) and len(found) < len(set(wanted.tolist())):
            raise self.gone()
        return found

    def _table_pays(self, wanted: int) -> bool:
        """Whether ``wanted`` ids are looked up in :meth:`_id_table`: it is read already, they
        are many, or the collection is small."""
        if self._numbered is not None or wanted >= _TABLE_FROM:
            return True
        largest = self.conn.execute("SELECT MAX(rowid) FROM graphs").fetchone()[0]
        return largest is not None and largest <= _SMALL_TABLE

    def _id_table(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Every graph's rowid (increasing) and id, when every id is a whole number that
        fits 64 bits; None otherwise. Read once, until the file changes."""
        if self._numbered is None:
            rows = self.conn.execute("SELECT rowid, id FROM graphs ORDER BY rowid").fetchall()
            keys = np.fromiter((r for r, _ in rows), dtype=np.int64, count=len(rows))
            try:
                values = np.array([int(t) for _, t in rows], dtype=np.int64)
            except (ValueError, OverflowError):  # a string id, or a number past 64 bits
                self._numbered = False
            else:
                self._numbered = (keys, values)
        return self._numbered or None

    def rowid(self, graph_id: Any) -> int | None:
        """The row of the graph with id ``graph_id``, or of the one whose id prints like it
        (``5`` and ``"5"``: a collection holds one of them, which :func:`alike_texts` finds;
        ``"5"`` did not find the graph added as 5, and ``FILE#5`` reads as either)."""
        for text in alike_texts(graph_id):
            row = self.conn.execute("SELECT rowid FROM graphs WHERE id = ?",
                                    (text,)).fetchone()
            if row is not None:
                return row[0]
        return None

    def count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM graphs").fetchone()[0]

    def iterate(self, block: int = 500) -> Iterator[tuple[Any, Graph]]:
        """``(id, graph)`` of every graph in rowid order, read ``block`` at a time: no read
        lock is held between blocks (a loop over the graphs that paused inside held one,
        and other processes' adds failed after SQLite's 5 s wait)."""
        last = 0
        while True:
            rows = self.conn.execute("SELECT rowid, id, data FROM graphs WHERE rowid > ? "
                                     "ORDER BY rowid LIMIT ?", (last, block)).fetchall()
            if not rows:
                return
            ids = _decoded([(r, text) for r, text, _ in rows], self.where)
            for rowid, _, data in rows:
                yield ids[rowid], decode_graph(data, self.where)
            last = rows[-1][0]

    # -- writing -----------------------------------------------------------------------------
    def check_writable(self) -> None:
        if not self.writable:
            raise OptionError(f"{self.where} is open read-only; open it with mode='a' to "
                              "change it")

    def names_ids(self) -> bool:
        """Whether a graph of the collection has a name (a string) for its id: its stored
        text starts with a quote (a range on the ids' index, not a scan)."""
        return self.conn.execute(
            "SELECT 1 FROM graphs WHERE id >= '\"' AND id < '#' LIMIT 1").fetchone() is not None

    def largest_number(self) -> int | None:
        """The largest id that is or reads as a whole number (``5065`` or ``"5065"``), or
        None (a scan of the ids' index: made only where automatic ids meet names)."""
        (largest,) = self.conn.execute(
            "SELECT MAX(CAST(TRIM(id, '\"') AS INTEGER)) FROM graphs "
            "WHERE TRIM(id, '\"') GLOB '[0-9]*' AND TRIM(id, '\"') NOT GLOB '*[^0-9]*'"
        ).fetchone()
        return None if largest is None else int(largest)

    def existing(self, texts: list[str]) -> list[str]:
        """Those of the id texts ``texts`` the collection has already."""
        found = []
        for start in range(0, len(texts), 500):
            chunk = texts[start:start + 500]
            marks = ",".join("?" * len(chunk))
            found += [t for (t,) in self.conn.execute(
                f"SELECT id FROM graphs WHERE id IN ({marks})", chunk)]
        return found

    def write_batch(self, graphs: list[Graph], choose: Callable[[int], tuple[list[str], int]]
                    ) -> None:
        """One transaction: the graphs, their new vocabulary and their signature block, with
        the ids ``choose(next_id)`` gives (the id texts and the next automatic id, from the
        file's own next automatic id), chosen under the file's write lock: several writers
        at once each wait their turn (SQLite's busy timeout) instead of taking the same
        ordinals or ids. On any error (or Ctrl-C) nothing of the batch stays, in the file or
        in memory."""
        self.check_writable()
        self._numbered = None
        sizes = {k: len(v) for k, v in self.vocab.items()}  # to forget a failed batch
        try:
            blobs = [encode_graph(g) for g in graphs]
            new, both = self._signed(graphs)
            with self.conn:
                cur = self.conn.cursor()
                cur.execute("BEGIN IMMEDIATE")  # the write lock, before reading what it decides
                if self.changed():  # another writer committed since: its labels, its ids
                    sizes = {k: len(v) for k, v in self.vocab.items()}
                    new, both = self._signed(graphs)
                id_texts, next_id = choose(int(self.meta["next_id"]))
                # rowids are never reused: SQLite would give a removed last graph's rowid to
                # the next one, which the ``removed`` table would then hide from every search
                (last,) = cur.execute(
                    "SELECT MAX(COALESCE((SELECT MAX(rowid) FROM graphs), 0), "
                    "COALESCE((SELECT MAX(rowid) FROM removed), 0))").fetchone()
                rowids = list(range(last + 1, last + 1 + len(blobs)))
                cur.executemany(
                    "INSERT INTO graphs (rowid, id, data, record) VALUES (?, ?, ?, ?)",
                    [(r, text, blob, rec.tobytes()) for r, text, blob, (_, rec)
                     in zip(rowids, id_texts, blobs, both, strict=True)])
                cur.executemany("INSERT INTO vocabulary VALUES (?, ?, ?)",
                                [(k, i, _value_text(k, self.vocab[k].values[i]))
                                 for k in KINDS for i in new[k]])
                block = Signatures.build(rowids, [s for s, _ in both])
                cur.execute("INSERT INTO blocks (data) VALUES (?)", (block.to_bytes(),))
                cur.execute("UPDATE meta SET value = ? WHERE key = 'next_id'", (str(next_id),))
                # read under the write lock: no other writer can commit before ours, and ours
                # does not change it (read after the commit, another process's batch
                # committed in between was taken for seen, its labels unread, and the next
                # batch gave their ordinals again: "UNIQUE constraint failed")
                version = self._data_version()
        except BaseException as err:
            for kind, v in self.vocab.items():
                v.forget(min(sizes[kind], len(v)))
            if isinstance(err, sqlite3.IntegrityError) and "graphs.id" in str(err):
                raise OptionError(f"{self.where}: a graph id of this batch is there already "
                                  "(ids must be unique)") from None
            if isinstance(err, sqlite3.DatabaseError):
                raise GedkitError(f"{self.where}: cannot write ({err})") from None
            raise
        self.meta["next_id"] = str(next_id)
        self._version = version  # its own commit is not another's

    def _signed(self, graphs: list[Graph]) -> tuple[dict[str, list], list]:
        """The labels ``graphs`` add to the vocabulary, and each graph's signature and
        record over it."""
        new: dict[str, list] = {k: [] for k in KINDS}
        return new, [signature_of(g, self.vocab, new) for g in graphs]

    def remove(self, rowids: list[int]) -> None:
        self.check_writable()
        self._numbered = None
        try:
            with self.conn:
                self.conn.executemany("DELETE FROM graphs WHERE rowid = ?",
                                      [(r,) for r in rowids])
                self.conn.executemany("INSERT INTO removed VALUES (?)", [(r,) for r in rowids])
        except sqlite3.OperationalError as err:  # (a read-only file or folder, a lock held)
            raise GedkitError(f"{self.where}: cannot write ({err})") from None


class Records(NamedTuple):
    """Graph records (:func:`~gedkit.search.signatures.record`) as the batch kernel reads
    them: one int32 array and where each record starts in it."""

    flat: np.ndarray
    offsets: np.ndarray

    @classmethod
    def pack(cls, blobs: list[bytes], where: str = "collection",
             labels: tuple[int, int] | None = None) -> Records:
        """The records ``blobs`` of the file ``where``, each checked to be as long as its
        ``n`` and ``m`` say and, given ``labels`` (the sizes of the node and edge
        vocabularies), to hold only label ordinals below them and edges ``a < b < n``: the
        kernel trusts every index, and a record damaged inside read and wrote past its
        arrays (a segmentation fault)."""
        sizes = np.fromiter((len(b) // 4 for b in blobs), dtype=np.int64, count=len(blobs))
        offsets = np.zeros(len(blobs), dtype=np.int64)
        np.cumsum(sizes[:-1], out=offsets[1:])
        joined = b"".join(blobs)
        whole = 4 * int(sizes.sum()) == len(joined)  # (no blob of a length past whole ints)
        flat = np.frombuffer(joined[:len(joined) // 4 * 4], dtype=np.int32)
        if len(blobs) and (
                not whole or sizes.min() < 2
                or (flat[offsets] < 0).any() or (flat[offsets + 1] < 0).any()
                or not np.array_equal(sizes, 2 + flat[offsets].astype(np.int64)
                                      + 3 * flat[offsets + 1].astype(np.int64))
                or (labels is not None and not _sound(flat, offsets, sizes, labels))):
            raise FormatError(f"{where}: a stored graph record is damaged; build the "
                              "collection again from its sources")
        return cls(flat, offsets)

    def take(self, positions: np.ndarray) -> Records:
        """The records at ``positions`` (the same array, other offsets: nothing copied)."""
        return Records(self.flat, self.offsets[positions])

    @property
    def count(self) -> int:
        return len(self.offsets)


#: graphs read per step of :meth:`Store.check`
_CHECK_BLOCK = 5000
#: record entries checked per step of :func:`_sound` (bounds its temporary arrays)
_SOUND_BLOCK = 1 << 20


def _sound(flat: np.ndarray, offsets: np.ndarray, sizes: np.ndarray,
           labels: tuple[int, int]) -> bool:
    """Whether every record (of the lengths their ``n`` and ``m`` say) holds node ordinals
    below ``labels[0]``, edges ``a < b < n`` and edge ordinals below ``labels[1]``."""
    first = 0
    while first < len(offsets):
        # records first..last-1: about _SOUND_BLOCK entries
        last = int(np.searchsorted(offsets, offsets[first] + _SOUND_BLOCK, side="right"))
        last = max(last, first + 1)
        start = int(offsets[first])
        part = flat[start:start + int(sizes[first:last].sum())].astype(np.int64)
        n = part[offsets[first:last] - start]
        m = part[offsets[first:last] - start + 1]
        owner = np.repeat(np.arange(last - first), sizes[first:last])
        at = np.arange(len(part)) - (offsets[first:last] - start)[owner]
        n_at, m_at = n[owner], m[owner]
        nodes = (at >= 2) & (at < 2 + n_at)
        ends = (at >= 2 + n_at) & (at < 2 + n_at + 2 * m_at)
        edge_labels = at >= 2 + n_at + 2 * m_at
        pairs = part[ends].reshape(-1, 2)  # each record's ends in order, two by two
        if ((part < 0) & (at >= 2)).any() \
                or (part[nodes] >= labels[0]).any() or (part[edge_labels] >= labels[1]).any() \
                or (part[ends] >= n_at[ends]).any() or (pairs[:, 0] >= pairs[:, 1]).any():
            return False
        first = last
    return True


def _roll_back(path: Path, journal: Path) -> None:
    """Roll back the unfinished write ``journal`` holds (an open that may write does it), or
    a one-line error saying how to."""
    try:
        fixer = _connect(str(path), str(path), readonly=False)
        fixer.execute("SELECT COUNT(*) FROM meta").fetchone()  # (the rollback)
        fixer.close()
    except (GedkitError, sqlite3.DatabaseError) as err:
        raise FormatError(f"{path} has an unfinished write (a writer stopped mid-commit left "
                          f"{journal.name}), which this process cannot roll back ({err}); "
                          "open it once where it may be written") from None


def _connect(target: str, where: str, readonly: bool, new: bool = False
             ) -> sqlite3.Connection:
    """A connection to the collection file ``target`` (``new``: one just claimed, empty)."""
    try:
        if readonly:
            uri = Path(target).resolve().as_uri() + "?mode=ro"
            conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        else:
            conn = sqlite3.connect(target, check_same_thread=False)
        conn.execute("PRAGMA foreign_keys = ON")
        if not readonly:
            # full synchronisation: a committed batch survives a power cut, not only a crash
            conn.execute("PRAGMA synchronous = FULL")
        return conn
    except sqlite3.DatabaseError as err:
        folder = Path(target).parent
        if not readonly and (new or not Path(target).exists()) and "unable to open" in str(err):
            # a new file SQLite could not make: the folder's fault, not a file's format
            raise GedkitError(f"cannot create {where}: the folder {str(folder)!r} takes no "
                              f"new file ({err})") from None
        raise FormatError(f"cannot open {where} as a collection ({err})") from None
