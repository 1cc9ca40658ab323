"""A persistent collection of graphs, searchable by GED and by MCES similarity."""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from gedkit.budget import PAIR_TIMEOUT, InterruptedWarning, check_number, interruptible
from gedkit.errors import (
    ClusterError,
    CostModelError,
    FormatError,
    GedkitError,
    GraphError,
    Note,
    Option,
    OptionError,
    SkippedWarning,
    Words,
    skipped_note,
    warn,
)
from gedkit.graph import Graph, refuse_directed
from gedkit.search.collector import gc_paused, gc_resumed
from gedkit.search.progress import GraphCounter
from gedkit.search.query_labels import QueryBatch
from gedkit.search.result import SearchResult
from gedkit.search.signatures import Signatures
from gedkit.search.store import (
    IN_MEMORY,
    Records,
    Store,
    alike_texts,
    check_replaceable,
    id_text,
)
from gedkit.search.unseen import unseen_note
from gedkit.text import quoted
from gedkit.workers import inside, resolve_jobs

__all__ = ["Collection", "SkippedWarning"]


def _file_error(where: str, err: sqlite3.Error) -> GedkitError:
    """gedkit's one-line error for what SQLite said while reading or writing ``where``."""
    text = str(err)
    if isinstance(err, sqlite3.ProgrammingError) and "closed" in text:
        return GedkitError(f"{where}: the collection is closed")
    if isinstance(err, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return GedkitError(f"{where}: {text} (another process is writing to it); try again")
    if isinstance(err, sqlite3.OperationalError) and ("disk" in text or "full" in text):
        return GedkitError(f"{where}: {text}")
    return FormatError(f"{where} is damaged ({text}): build it again from its sources")


class _Access:
    """One :class:`Collection` object's calls from several threads: searches and reads
    share it, ``add`` and ``remove`` have it alone (they drop what the object read of the
    file: a search in another thread meanwhile searched part of the collection, or called
    the intact file damaged). A thread's calls inside its own call go through."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.readers = 0
        self.writer: int | None = None  # the thread changing the collection
        self.waiting = 0  # threads waiting to change it: new searches wait behind them (a
        # thread searching in a loop kept an add waiting for ever)
        self.mine = threading.local()  # this thread's calls open (reading)

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        depth = getattr(self.mine, "depth", 0)
        if depth or self.writer == threading.get_ident():
            self.mine.depth = depth + 1
            try:
                yield
            finally:
                self.mine.depth -= 1
            return
        with self.cond:
            while self.writer is not None or self.waiting:
                self.cond.wait()
            self.readers += 1
        self.mine.depth = 1
        try:
            yield
        finally:
            self.mine.depth = 0
            with self.cond:
                self.readers -= 1
                self.cond.notify_all()

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        me = threading.get_ident()
        if self.writer == me:
            yield
            return
        if getattr(self.mine, "depth", 0):  # (it would wait for itself)
            raise OptionError("a collection cannot be changed from inside its own search "
                              "(each=, a progress callback): change it once the search ends")
        with self.cond:
            self.waiting += 1
            while self.writer is not None or self.readers:
                self.cond.wait()
            self.waiting -= 1
            self.writer = me
        try:
            yield
        finally:
            with self.cond:
                self.writer = None
                self.cond.notify_all()


def _reads_file(method: Callable | None = None, *, writes: bool = False) -> Callable:
    """``method`` of :class:`Collection` with SQLite's errors (a damaged file found as it is
    read, a closed collection, a lock) as gedkit's one-line errors naming the file; a
    generator's errors too, raised while it is consumed. Calls share the object across
    threads, or with ``writes`` have it alone (:class:`_Access`; not a generator's: one
    left unfinished would hold it)."""
    if method is None:
        return functools.partial(_reads_file, writes=writes)
    if inspect.isgeneratorfunction(method):
        @functools.wraps(method)
        def reading(self, *args, **kwargs):
            try:
                yield from method(self, *args, **kwargs)
            except sqlite3.Error as err:
                raise _file_error(self._store.where, err) from None
        return reading

    @functools.wraps(method)
    def calling(self, *args, **kwargs):
        access = self._access.writing() if writes else self._access.reading()
        try:
            # (no other thread forks workers meanwhile: SQLite's locks)
            with access, inside():
                return method(self, *args, **kwargs)
        except sqlite3.Error as err:
            raise _file_error(self._store.where, err) from None
    return calling


#: graphs per transaction of :meth:`Collection.add`
BATCH = 5000
#: a collection whose graph records (what verification reads) take at most this many bytes
#: keeps them all in memory from its first verification on: one read of the file, then no
#: query per batch of candidates (~1.2 µs a candidate otherwise); larger ones read the
#: candidates' records batch by batch (MOSES 100k: 42 MB, held; the 1.58 M: 660 MB, read)
RECORDS_IN_MEMORY = 128 << 20
#: what ``queries=`` takes: graphs, or a file of them
Queries = Iterable | str | os.PathLike
#: range queries a collection answers over its rows as stored before it sorts them by size
#: (:meth:`Collection._range_signatures`): the sort took ~1 s on the 1.58 M MOSES molecules,
#: a query's filter over the rows as stored 26 / 72 / 190 ms more than over sorted ones at
#: τ 1 / 3 / 5 there, and a single query from the command line paid the sort in full
SORT_FOR_RANGES_FROM = 4
_MODES = ("r", "a")


class Collection:
    """Graphs with ids in one SQLite file (or in memory), with the signatures that let
    searches filter a whole collection without reading its graphs.

    ``Collection()`` is an empty collection in memory; :meth:`create` makes a file,
    :meth:`open` opens one (read-only by default, so many processes can read it at once).

    Parameters
    ----------
    node_label, edge_label : None, str, list of str or "*"
        The label attributes every graph is read with (files, NetworkX graphs, molecules; see
        :func:`gedkit.read`), recorded in the collection; queries read from files use them too.

    Examples
    --------
    >>> import gedkit
    >>> coll = gedkit.Collection()
    >>> coll.add(["CCO", "CCN", "CCCC", "c1ccccc1"], ids=["ethanol", "ethylamine", "butane",
    ...                                                 "benzene"])
    4
    >>> [(h.id, h.distance) for h in coll.range("CCO", 1).hits]
    [('ethanol', 0.0), ('ethylamine', 1.0)]
    >>> [h.id for h in coll.knn("CCCO", 2).hits]
    ['butane', 'ethanol']
    """

    def __init__(self, *, node_label: Any = None, edge_label: Any = None,
                 _store: Store | None = None):
        self._store = _store if _store is not None else Store.create(None, node_label,
                                                                      edge_label)
        self._sig = None
        self._held: tuple[np.ndarray, Records] | bool | None = None  # see _records
        self._ranged = 0  # range queries answered (see _range_signatures)
        self._kept = None  # worker processes kept for the next search (search.parallel)
        self._last_added = 0  # graphs the last add committed, also where it raised
        self._access = _Access()  # (calls from several threads)

    # -- files -------------------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, *, node_label: Any = None, edge_label: Any = None,
               overwrite: bool = False) -> Collection:
        """A new, empty collection file at ``path`` (open for adding)."""
        with inside():  # (SQLite's locks: see _reads_file)
            return cls(_store=Store.create(path, node_label, edge_label, overwrite))

    @classmethod
    def open(cls, path: str | Path, mode: str = "r") -> Collection:
        """An existing collection file: ``mode="r"`` read-only, ``"a"`` to add or remove."""
        if mode not in _MODES:
            raise OptionError(f"mode must be 'r' (read) or 'a' (add), got {mode!r}")
        # opening and closing hold SQLite's locks too: a worker another thread's search
        # forked meanwhile waited for one of them for ever (two threads, each opening a
        # collection and searching it with n_jobs=2, hung on a busy machine)
        with inside():
            return cls(_store=Store.open(path, writable=mode == "a"))

    def close(self) -> None:
        with inside():
            self._forget()
            self._store.close()

    def __enter__(self) -> Collection:
        return self

    def __reduce__(self):
        # (pickle and copy came to SQLite's connection: "cannot pickle 'sqlite3.Connection'")
        raise GedkitError(f"a Collection ({self._store.where}) cannot be pickled or copied: "
                          "pass its file's path and open it there (Collection.open)")

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def path(self) -> str | None:
        """The file, or None in memory."""
        where = self._store.where
        return None if where == IN_MEMORY else where

    def _identity(self) -> tuple:
        """Which collection this is, as a search result records it (a picture of the result
        drawn with another collection would show other graphs under its distances): the
        file as named (see :func:`same_collection`), or this collection in memory."""
        path = self.path
        return (("memory", id(self._store)) if path is None else
                ("file", path, self._store.meta.get("made")))

    @property
    @_reads_file
    def node_label(self) -> Any:
        return self._store.labels()[0]

    @property
    @_reads_file
    def edge_label(self) -> Any:
        return self._store.labels()[1]

    # -- contents ----------------------------------------------------------------------------
    @_reads_file
    def __len__(self) -> int:
        self._follow()
        return len(self._signatures)

    @_reads_file
    def __iter__(self) -> Iterator[Graph]:
        for _, g in self._store.iterate():
            yield g

    @_reads_file
    def items(self) -> Iterator[tuple[Any, Graph]]:
        """``(id, graph)`` pairs in insertion order."""
        yield from self._store.iterate()

    @property
    @_reads_file
    def ids(self) -> list:
        """Every graph's id, in insertion order."""
        return list(self._store.ids().values())

    @_reads_file
    def get(self, graph_id: Any) -> Graph:
        """The graph with id ``graph_id`` (KeyError when there is none)."""
        rowid = self._store.rowid(graph_id)
        if rowid is None:
            raise KeyError(f"no graph with id {quoted(graph_id)} in {self._store.where}")
        return self._store.graphs([rowid])[rowid]

    @_reads_file
    def __contains__(self, graph_id: Any) -> bool:
        try:
            return self._store.rowid(graph_id) is not None
        except OptionError:
            return False

    @_reads_file
    def __repr__(self) -> str:
        return f"<Collection {self._store.where}: {len(self)} graphs>"

    def _follow(self) -> None:
        """Forget what was read from the file if another process has written to it since
        (a reader then sees its adds and removes at its next search)."""
        if self._store.changed():
            self._forget()

    def _forget(self) -> None:
        """Forget what was read from the file (and end the worker processes that hold it)."""
        self._sig = self._held = None
        if self._kept is not None:
            from gedkit.search.parallel import release

            release(self)

    @property
    def _signatures(self) -> Signatures:
        if self._sig is None:
            try:
                self._sig = self._store.signatures()
            except sqlite3.Error as err:  # (read by methods _reads_file does not wrap too)
                raise _file_error(self._store.where, err) from None
        return self._sig

    @_reads_file
    def check(self) -> None:
        """Read every page of the file (SQLite's quick check, about 5 s a GB): damage that
        a search meets only in the graphs it reads, raised here as
        :class:`~gedkit.errors.FormatError`.

        >>> Collection().check()
        """
        self._store.check()

    def _records(self, rowids: np.ndarray) -> Records:
        """The records of the graphs ``rowids``, in that order: taken from every graph's,
        read once, when they fit :data:`RECORDS_IN_MEMORY`; else read from the file."""
        if self._held is None:
            sig = self._signatures
            size = 4 * int((2 + sig.n.astype(np.int64) + 3 * sig.m.astype(np.int64)).sum())
            # a shard (rows spread over the file, see search.shards) reads its own rows,
            # not every graph's: 32 shards of 100,000 molecules read the whole file 32 times
            # over on each worker (0.18 s a shard), and a 1.58 M file's shard, small enough
            # to hold, would have held all 1.58 M records
            if size > RECORDS_IN_MEMORY:
                self._held = False
            elif len(sig) and sig.rowids.max() - sig.rowids.min() + 1 == len(sig):
                self._held = self._store.records_between(int(sig.rowids.min()),
                                                         int(sig.rowids.max()))
            else:  # rows spread over the file (a shard), or some removed
                keys = np.sort(sig.rowids)
                self._held = keys, self._store.records(keys.tolist())
        if self._held is False:
            return self._store.records(rowids.tolist())
        keys, held = self._held
        at = np.minimum(np.searchsorted(keys, rowids), max(len(keys) - 1, 0))
        if len(rowids) and (not len(keys) or (keys[at] != rowids).any()):
            raise self._store.gone()
        return held.take(at)

    def _signatures_by_size(self) -> Signatures:
        """The signatures with their rows sorted by size (:meth:`Signatures.by_size`),
        rearranged once, when range searches first need them rather than when the file
        opens."""
        self._sig = self._signatures.by_size()
        return self._sig

    def _range_signatures(self, queries: int) -> Signatures:
        """The signatures a range search of ``queries`` queries filters: sorted by size once
        this collection's range queries, these counted, reach :data:`SORT_FOR_RANGES_FROM`
        (or sorted already), else as stored: a few queries read the rows their sizes fit,
        scattered, for less than the sort costs."""
        self._ranged += queries
        if self._ranged >= SORT_FOR_RANGES_FROM:
            return self._signatures_by_size()
        return self._signatures

    @_reads_file(writes=True)
    def add(self, graphs: Any, ids: Iterable[Any] | str | None = None, *,
            errors: str = "raise", progress: bool | None = None,
            n_jobs: int | None = None) -> int:
        """Add graphs; returns how many were added.

        ``graphs`` is one graph file (all its graphs: SMILES, SDF, CXL, t/v/e...), or an
        iterable of graphs, NetworkX graphs, molecules, SMILES strings or graph files (a file
        holding several graphs adds them all). ``ids`` (strings or integers, unique) default
        to consecutive integers; ``ids="names"`` makes each graph's name its id (a graph
        without a name, or with a name given before or already in the collection, raises when
        it is reached). Graphs are written in transactions of :data:`BATCH`: an error or
        Ctrl-C keeps every batch already written and nothing of the one under way.
        ``errors="skip"`` leaves out what cannot be read (a SMILES RDKit rejects, a molecule of
        an SDF file) and says how many in one warning; other readers' errors (a malformed GXL,
        a directed graph) always raise. ``n_jobs``: worker processes that parse the molecules
        of SMILES files and tables (-1: every core; default: this process; as with any worker
        processes, a script's own code must be under ``if __name__ == "__main__":``).
        """
        from gedkit.workers import resolve_jobs

        if errors not in ("raise", "skip"):
            raise OptionError(f"errors must be 'raise' or 'skip', got {errors!r}")
        self._follow()  # (another writer's graphs seen; a closed collection says so here)
        self._store.check_writable()
        named = isinstance(ids, str) and ids == "names"
        if isinstance(ids, str) and not named:
            raise OptionError(f"ids must be a list of ids or 'names', got {ids!r}")
        if errors == "skip" and ids is not None and not named:
            raise OptionError("errors='skip' and a list of ids do not go together: a graph "
                              "left out would shift every id after it (ids='names' goes with "
                              "it)")
        if named:
            ids = _Names()
        elif ids is not None:
            ids = list(ids)
            alike = [alike_texts(i) for i in ids]  # (1 and "1" print alike: one of them)
            seen: set[str] = set()
            for graph_id, texts in zip(ids, alike, strict=True):
                if isinstance(graph_id, str) and not graph_id.strip():
                    # (FILE#ID and every output's id column could not name it)
                    raise OptionError(f"graph id {quoted(graph_id)} is empty: give each graph an "
                                      "id with a character other than white space")
                if seen.intersection(texts):
                    raise OptionError(f"graph id {quoted(graph_id)} is given twice (1 and '1' are "
                                      "one id: they print alike)")
                seen.add(texts[0])
            clash = self._store.existing([t for texts in alike for t in texts])
            if clash:
                # the note only where the id held is the other spelling of the one given
                given = {t for texts in alike for t in texts[:1]}
                alias = "" if clash[0] in given else " (1 and '1' are one id: they print alike)"
                raise OptionError(f"the collection has a graph with id {clash[0]} already"
                                  + alias)
        # numbers among names, silently: the command line refuses it; here a note
        numbered_among_names = ids is None and self._store.names_ids()
        skipped: list | None = [] if errors == "skip" else None
        from gedkit.io.common import Unlabelled

        notice = Unlabelled()  # (the labels its files' lone attributes give, recorded)
        items = _items(graphs, *self._store.labels(), skipped, resolve_jobs(n_jobs), notice)
        added = self._last_added = 0  # (what an error or Ctrl-C midway leaves committed)
        batch: list[Graph] = []
        shown = GraphCounter(progress, "adding")
        next_id = int(self._store.meta["next_id"])
        try:
            for g in items:
                batch.append(g)
                if len(batch) == BATCH:
                    added, next_id = self._write(batch, ids, added, next_id)
                    shown.update(added)
                    batch = []
            if batch:
                added, next_id = self._write(batch, ids, added, next_id)
            shown.update(added)
        except FormatError as err:
            if not getattr(err, "skippable", False):
                raise
            # (RDKit's own NCI file has eight such records: the add stopped at the first
            # without a word of the option that leaves them out)
            # (the command line says what was committed in a note of its own)
            kept = (f" ({added:,} graphs before it were committed, whole batches of "
                    f"{BATCH:,}: added again, they would be there twice unless named)"
                    if added else "")
            raise FormatError(*err.args, "; ", Words(
                f"errors='skip' leaves out what cannot be read{kept}",
                "without --strict what cannot be read is left out")) from None
        finally:
            shown.close()
            self._forget()
            if self._last_added:
                self._store.record_labels(notice.taken())
        # (attributed to the line the user wrote: stacklevel 2 named the decorator around it)
        if skipped:
            warn(skipped_note(skipped))
        if numbered_among_names and added:
            warn(Note(f"{NUMBERED_AMONG_NAMES} ({added:,}, from {next_id - added:,} on) where "
                      "the collection's ids are names; ids='names' (or a list) names them"))
        if isinstance(ids, list) and added != len(ids):
            warn(UserWarning(f"{len(ids)} ids for {added} graphs: the ids past the last graph "
                             "were not used"))
        return added

    def _write(self, batch: list[Graph], ids, added: int, next_id: int) -> tuple[int, int]:
        """Write ``batch`` (graphs ``added..`` of this add), its ids chosen under the file's
        write lock (:meth:`Store.write_batch`); returns the graphs added and the next
        automatic id."""
        named = ids.of(batch) if isinstance(ids, _Names) else None  # checked once each
        if isinstance(ids, list) and len(ids) < added + len(batch):
            raise OptionError(f"more graphs than ids: {len(ids)} ids given")

        def choose(stored: int) -> tuple[list[str], int]:
            """The batch's id texts and the next automatic id, the file's next one
            ``stored`` (another writer may have taken ids since this one last read it)."""
            if named is not None:
                clash = self._store.existing([t for i in named for t in alike_texts(i)])
                if clash:
                    raise OptionError(
                        Words("ids='names': ", ""),
                        f"the collection has a graph with id {clash[0]} already",
                        Words("", " (the graphs are added under their names; --ids numbers "
                              "numbers them instead)"))
                return [id_text(i) for i in named], max(next_id, stored)
            if ids is not None:
                return [id_text(i) for i in ids[added:added + len(batch)]], max(next_id, stored)
            first = max(next_id, stored)
            chosen = list(range(first, first + len(batch)))
            # user ids in the way, as numbers or as the same digits in a string (graph 1 and
            # graph "1" would print alike in every output and FILE#1): on from the largest
            # of all (400 graphs added after names "1" to "200" were numbered 400 on, where
            # 201 on reads as what it is; past the clashes alone, three graphs added to NCI's
            # numbered names took ids in gaps between them, 534 among names to 5065)
            if self._store.existing([t for i in chosen for t in alike_texts(i)]):
                first = max(first, self._store.largest_number() + 1)
                chosen = list(range(first, first + len(batch)))
            return [id_text(i) for i in chosen], first + len(batch)

        self._store.write_batch(batch, choose)
        self._last_added = added + len(batch)
        return added + len(batch), int(self._store.meta["next_id"])

    @_reads_file(writes=True)
    def remove(self, ids: Iterable[Any]) -> None:
        """Remove the graphs with these ids (KeyError naming the first unknown one; then
        nothing is removed)."""
        rowids = []
        for graph_id in ([ids] if isinstance(ids, str | int) else list(ids)):
            rowid = self._store.rowid(graph_id)
            if rowid is None:
                raise KeyError(f"no graph with id {quoted(graph_id)} in {self._store.where}")
            rowids.append(rowid)
        self._store.remove(list(dict.fromkeys(rowids)))  # (an id listed twice goes once)
        self._forget()

    @_reads_file
    def split(self, parts: int, folder: str | Path, *, stem: str = "shard",
              overwrite: bool = False) -> list[Path]:
        """Write the collection as ``parts`` shard files ``folder/stem-K.gdb`` of consecutive
        graphs, each a collection of its own: search them independently (on several
        machines) and combine the answers with :func:`gedkit.search.merge`.

        A shard file already there (an earlier split's) is an error unless ``overwrite``;
        then the earlier split's shards beyond ``parts`` are removed too, so that every
        ``stem-*.gdb`` of the folder is one of this split's."""
        if not isinstance(parts, int) or isinstance(parts, bool) or parts < 1:
            raise OptionError(f"parts must be a positive integer, got {parts!r}")
        if parts > max(len(self), 1):  # (empty shards: files that hold nothing)
            raise OptionError(f"parts={parts} for {len(self)} graphs: at most one shard per "
                              "graph")
        folder = Path(folder)
        # an earlier split's shards: replaced only when asked (they were overwritten without
        # a word, and those beyond this split's count stayed beside its own)
        earlier = {int(found[1]): p for p in (folder.glob(f"{stem}-*.gdb") if folder.is_dir()
                                              else ())
                   if (found := re.fullmatch(rf"{re.escape(stem)}-(\d+)\.gdb", p.name))}
        if earlier and not overwrite:
            raise OptionError(f"{earlier[min(earlier)]} exists (an earlier split's shard?); "
                              "pass overwrite=True to replace the shards there, or another "
                              "folder or stem")
        for old in earlier.values():
            check_replaceable(old)  # a collection, never another file that happens to be there
        folder.mkdir(parents=True, exist_ok=True)
        for k, old in earlier.items():
            if k >= parts:
                old.unlink()
        node_label, edge_label = self._store.labels()
        rowids = np.sort(self._signatures.rowids)  # consecutive graphs, in the file's order
        paths = []
        for k, chunk in enumerate(np.array_split(rowids, parts)):
            path = folder / f"{stem}-{k}.gdb"
            shard = Collection.create(path, node_label=node_label, edge_label=edge_label,
                                      overwrite=True)
            for start in range(0, len(chunk), BATCH):
                part = chunk[start:start + BATCH].tolist()
                graphs = self._store.graphs(part)
                names = self._store.ids(part)
                shard.add([graphs[r] for r in part], ids=[names[r] for r in part],
                          progress=False)
            shard.close()
            paths.append(path)
        return paths

    # -- queries -----------------------------------------------------------------------------
    @_reads_file
    def range(self, query: Any = None, tau: float | None = None, *,
              queries: Queries | None = None, costs: Any = "uniform", method: str = "astar",
              timeout: float | None = PAIR_TIMEOUT, memory: int | None = None,
              node_map: bool = False, n_jobs: int = 1, progress: bool | None = None,
              node_label: Any = None, edge_label: Any = None, client: Any = None,
              shards: int | None = None, query_timeout: float | None = None,
              each: Callable[[int, SearchResult], Any] | None = None,
              **options: Any) -> SearchResult | list[SearchResult]:
        """Every graph within GED ``tau`` of ``query``, nearest first.

        Parameters
        ----------
        query : graph, molecule, SMILES string or file
            Read with the collection's label attributes (see :func:`gedkit.ged`).
        tau : float
            The threshold (>= 0).
        queries : iterable or path, optional
            Many queries at once (instead of ``query``), or a file of them (every graph of a
            graph file, read with the collection's labels; every graph of a collection
            file, named by its ids; ``FILE#ID``: that one): a list of results comes back
            (all of them held: search a very large batch in parts, with ``each`` writing
            the answers, as ``gedkit search`` does 10,000 queries at a time).
        costs, method, memory, **options
            As in :func:`gedkit.ged`; ``method`` verifies the candidates (default ``"astar"``,
            exact search pruned at ``tau``).
        timeout : float or None
            Seconds per verified pair (:data:`~gedkit.budget.PAIR_TIMEOUT` by default);
            a pair still open then is reported in ``undecided`` with its bounds.
        node_map : bool
            Give each hit its node map.
        n_jobs : int
            Processes for many queries (-1: every core).
        progress : bool, optional
            Progress on stderr (default None: on a terminal a bar after a few seconds,
            elsewhere, e.g. a log file, a line every ~10 s while pairs are verified; True: a
            bar at once; False: nothing).
        client : dask.distributed.Client, optional
            Search on this Dask cluster instead (needs ``gedkit[dask]``; instead of
            ``n_jobs``): the collection is cut into ``shards`` ranges of rows, each task one
            shard against many queries; each worker opens the file read-only (at the same
            path: a shared disk) and keeps its shards for the next tasks. The answers equal
            a search here, in the same order (see :mod:`gedkit.search.distributed`). A
            cluster lost mid-search (its scheduler, every worker) raises
            :class:`~gedkit.errors.ClusterLost`, a task failing there (or workers unable to
            run the job) :class:`~gedkit.errors.ClusterError`; either's ``result`` holds the
            answers so far as after Ctrl-C, the queries it stopped or never reached
            ``interrupted``.
        shards : int, optional
            With ``client``: how many shards, of at least 200 graphs each by default: for a
            range search one per worker thread; for kNN one, with the queries cut into
            batches (each shard more would find its own k nearest before the others' k-th
            distance bounds it: many more graphs verified).
        query_timeout : float, optional
            Seconds for each query's verifications in all, the call's first query paying
            what the call took before them too (a fresh process's start of the compiled
            kernels) (None, the default: only ``timeout`` per pair). A large threshold over
            a large collection leaves tens of
            thousands of candidates (τ = 7 over 100,000 molecules: a minute a query); once
            a query's time is up its answer is ``timed_out``, and the candidates it did not
            verify are in ``undecided`` with their filters' lower bounds and no upper bound
            (``stats["unreached"]`` counts them): never silently dropped. With ``n_jobs``
            it holds per shard of the collection (the shards searched at once), with
            ``client`` per query (a shard's task gets what its query has left), whatever
            the shards. (``gedkit search`` gives
            every query 60 s unless ``--query-timeout`` says otherwise.)
        each : callable, optional
            Called as ``each(position, result)`` with each query's answer as soon as it is
            final, in query order (before the call returns them all): a long batch's
            answers can be written as they come. With ``n_jobs`` or ``client`` it is called
            as the answers come back, which for range searches is at the end. A query
            Ctrl-C stopped before its search began is not handed on (its answer, in the
            list returned, is ``interrupted`` with empty ``stats``). An exception it raises
            stops the search.

        Returns
        -------
        SearchResult (or a list of them for ``queries``, one per query in order: after
        Ctrl-C, those it stopped say ``interrupted``, with no hit where their search had
        not begun)
        """
        _stand_in("tau", tau, options)
        check_number(tau, "tau", strict=False)
        check_number(query_timeout, "query_timeout", none=True)
        # (+ 0.0: a threshold of -0.0 is 0, and the answer says 0, not "-0")
        return self._run("range", query, queries, float(tau) + 0.0, costs, method, timeout,
                         memory, node_map, (n_jobs, client, shards), progress, node_label,
                         edge_label, options, query_timeout, each)

    @_reads_file
    def knn(self, query: Any = None, k: int | None = None, *, queries: Queries | None = None,
            costs: Any = "uniform", method: str = "astar",
            timeout: float | None = PAIR_TIMEOUT, memory: int | None = None,
            node_map: bool = False, n_jobs: int = 1, progress: bool | None = None,
            node_label: Any = None, edge_label: Any = None, client: Any = None,
            shards: int | None = None, query_timeout: float | None = None,
            each: Callable[[int, SearchResult], Any] | None = None,
            **options: Any) -> SearchResult | list[SearchResult]:
        """The ``k`` graphs nearest to ``query`` by GED, nearest first (parameters as in
        :meth:`range`). ``certified`` says whether they are proven the nearest; otherwise
        ``uncertain`` names the hits whose place is not proven.

        ``query_timeout``: seconds for each query's whole search, the call's first query
        paying what the call took before it too (None, the default: only ``timeout`` per
        verified pair). A query far from every graph may have to verify most
        of the collection to prove its k nearest (minutes over 100,000 molecules); once its
        time is up its answer is the k best found so far, ``timed_out``, with the hits a
        graph not reached could beat (its ``frontier`` bounds them) ``uncertain`` and the
        graphs verified in part ``undecided``; where fewer than k were
        verified, the first graphs by filter bound make up the number with the quick upper
        bound each got at its search's root (no node map; ``stats["stopped"]`` says so)
        rather than fewer hits than asked for (certified only when
        what it found proves the k nearest distances already; a graph it did not reach may
        then tie the k-th, which a whole search would have picked). It holds per query with
        ``n_jobs`` and ``client`` too (on a cluster from the query's first task on: its
        shards are scanned in waves, each given what the query has left).
        """
        _stand_in("k", k, options)
        _check_k(k)
        check_number(query_timeout, "query_timeout", none=True)
        return self._run("knn", query, queries, int(k), costs, method, timeout, memory,
                         node_map, (n_jobs, client, shards), progress, node_label, edge_label,
                         options, query_timeout, each)

    @_reads_file
    def mces_range(self, query: Any = None, min_similarity: float | None = None, *,
                   queries: Queries | None = None, method: str = "exact",
                   timeout: float | None = PAIR_TIMEOUT, memory: int | None = None,
                   node_map: bool = False, n_jobs: int = 1, progress: bool | None = None,
                   node_label: Any = None, edge_label: Any = None, client: Any = None,
                   shards: int | None = None, query_timeout: float | None = None,
                   each: Callable[[int, SearchResult], Any] | None = None,
                   **options: Any) -> SearchResult | list[SearchResult]:
        """Every graph whose maximum common edge subgraph with ``query`` has a Johnson
        similarity of at least ``min_similarity`` (in [0, 1]), most similar first.

        ``method`` is an MCES method (see :func:`gedkit.mces.methods`); the other parameters
        are as in :meth:`range` (a candidate ``query_timeout`` left unverified is undecided
        with similarity bounds 0 and its filters' upper bound), and
        ``ring_matches_ring_only=True`` as in :func:`gedkit.mces`. Hits carry the similarity as
        ``distance`` (its proven lower bound; exact when ``optimal``) with
        ``lower_bound``/``upper_bound`` on it.
        """
        _stand_in("min_similarity", min_similarity, options)
        check_number(min_similarity, "min_similarity", strict=False)
        check_number(query_timeout, "query_timeout", none=True)
        if min_similarity > 1:
            raise OptionError(f"min_similarity must be at most 1, got {min_similarity!r}")
        from gedkit.search import mces_search

        verify = mces_search.Verifier(method, options, timeout, memory, node_map,
                                      query_timeout=query_timeout)
        # (+ 0.0: -0.0 is 0, and the answer says 0, not "-0")
        return self._search(mces_search.range_query, query, queries,
                            float(min_similarity) + 0.0, None, verify, (n_jobs, client, shards),
                            progress, node_label, edge_label, each)

    @_reads_file
    def mces_knn(self, query: Any = None, k: int | None = None, *,
                 queries: Queries | None = None, method: str = "exact",
                 timeout: float | None = PAIR_TIMEOUT, memory: int | None = None,
                 node_map: bool = False, n_jobs: int = 1, progress: bool | None = None,
                 node_label: Any = None, edge_label: Any = None, client: Any = None,
                 shards: int | None = None, query_timeout: float | None = None,
                 each: Callable[[int, SearchResult], Any] | None = None,
                 **options: Any) -> SearchResult | list[SearchResult]:
        """The ``k`` graphs most similar to ``query`` by MCES (Johnson similarity), most
        similar first (parameters as in :meth:`mces_range`; ``query_timeout`` as in
        :meth:`knn`, a graph not verified then ranked by its filter's bound, similarity 0
        up to it)."""
        _stand_in("k", k, options)
        _check_k(k)
        check_number(query_timeout, "query_timeout", none=True)
        from gedkit.search import mces_search

        verify = mces_search.Verifier(method, options, timeout, memory, node_map,
                                      query_timeout=query_timeout)
        return self._search(mces_search.knn_query, query, queries, int(k), None, verify,
                            (n_jobs, client, shards), progress, node_label, edge_label, each)

    def _run(self, kind, query, queries, parameter, costs, method, timeout, memory, node_map,
             where, progress, node_label, edge_label, options, query_timeout=None, each=None):
        from gedkit.costs import get as get_costs
        from gedkit.search import ged_search
        from gedkit.solvers import get_solver

        model = get_costs(costs)
        solver = get_solver(method, **options)
        # as a Budget checks them (one made to check them read the process's size, 6 µs)
        check_number(timeout, "timeout", none=True)
        check_number(memory, "memory", none=True)
        verify = ged_search.Verifier(model, solver, timeout, memory, node_map, query_timeout)
        run = ged_search.range_query if kind == "range" else ged_search.knn_query
        return self._search(run, query, queries, parameter, model, verify, where, progress,
                            node_label, edge_label, each)

    def _search(self, run, query, queries, parameter, model, verify, where, progress,
                node_label, edge_label, each=None):
        """``run(collection, query graph, parameter, model, verify, progress)`` for one
        query or each of ``queries``, ``where`` = ``(n_jobs, client, shards)``, each answer
        handed to ``each`` once final (see :meth:`range`)."""
        n_jobs, client, shards = where
        if client is not None:
            from gedkit.cluster import as_client
            from gedkit.search.distributed import check_shards

            client = as_client(client, "Collection searches with client=...")
            if n_jobs != 1:
                raise OptionError("give n_jobs= (local processes) or client= (a Dask "
                                  "cluster), not both")
            check_shards(shards)
        elif shards is not None:
            raise OptionError("shards= cuts the collection for a Dask cluster: give client= "
                              "too")
        many = queries is not None
        if each is not None and not callable(each):
            raise OptionError(f"each must be a function of (position, result), got {each!r}")
        if isinstance(query, list | tuple):
            raise OptionError("a list of queries goes in queries=[...] (one result each); the "
                              "first argument is one query")
        if many == (query is not None):
            raise OptionError("give either one query or queries=[...], not both"
                              if many else "no query given")
        self._follow()
        if client is None:  # read before the note on the queries' labels, which trusts them:
            # a damaged file says so first (a cluster's workers read their own)
            self._signatures  # noqa: B018
        # in this process, the collector paused (see gedkit.search.collector)
        with gc_paused() if client is None else contextlib.nullcontext():
            return self._answered(run, query, queries, parameter, model, verify, client,
                                  (n_jobs, shards), progress, node_label, edge_label, each)

    def _answered(self, run, query, queries, parameter, model, verify, client, where,
                  progress, node_label, edge_label, each):
        """:meth:`_search`'s answers, its arguments checked; ``where`` = ``(n_jobs,
        shards)``."""
        many = queries is not None
        n_jobs, shards = where
        # (the queries' label ordinals, coded for the note below, kept for the filters)
        graphs = QueryBatch(self._queries(queries if many else [query], node_label,
                                          edge_label))
        if verify.memory is not None and client is None and len(self):
            # a cap no pair can be set up in is refused, as gedkit.ged and gedkit.mces
            # refuse it (each verification stopped at once, every graph undecided)
            from gedkit.budget import Budget, check_setup_fits

            check_setup_fits(max(g.n for g in graphs), int(self._signatures.n.max()),
                             Budget(memory=verify.memory), mces=model is None)
        if model is None or model.equality_costs is not None:  # MCES compares by equality
            const = model.equality_costs if model is not None else None
            free = frozenset() if const is None else frozenset(
                kind for kind, sub in (("node", const[2]), ("edge", const[5])) if sub <= 0)
            vocab = self._store.vocab
            # (the labels some graph has: a vocabulary keeps those of graphs removed since)
            present = None if client is not None else self._signatures.present(
                {kind: len(vocab[kind]) for kind in ("node", "edge")})
            note = unseen_note(graphs, vocab, many, free, present)
            if note is not None:
                warn(note)
        # what the distances mean, on every answer (those handed to ``each`` as they come
        # too): merge refuses answers of shards searched under other costs or options
        measure = verify.measure()
        if each is not None:
            each = functools.partial(_measured, measure, each)
        try:
            if client is not None:
                results = _run_on_cluster(self, run, graphs, parameter, model, verify, client,
                                          shards, progress, each)
            else:
                results = _run_queries(self, run, graphs, parameter, model, verify, n_jobs,
                                       progress, each)
        except ClusterError as err:  # its result: as this call's would have been
            for result in err.result or ():
                result.measure = measure
            if err.result is not None and not many:
                err.result = err.result[0]
            raise
        except CostModelError as err:
            if not hasattr(err, "needs"):
                raise
            # the labels are the collection's, read when it was built: build it again
            what, option = err.needs
            stored = getattr(self, option)
            read = (f"{option}={stored!r}" if stored is not None
                    else f"their format's own {option.split('_')[0]} labels")
            raise CostModelError(f"{what}; this collection's graphs were read with {read}: "
                                 "build it again with ", Option(option, "*"),
                                 " to keep all attributes") from None
        searched_in = self._identity()
        for result, graph in zip(results, graphs, strict=False):
            # (a reference: for a picture's check of its query and its collection)
            result.searched, result.searched_in = graph, searched_in
            result.measure = measure
        return results if many else results[0]

    def _queries(self, items: Iterable, node_label: Any, edge_label: Any) -> list[Graph]:
        from gedkit.inputs import as_graphs, is_file_reference, is_one_graph
        from gedkit.io.common import undirected_only

        mine = self._store.labels()
        for given, stored, what in ((node_label, mine[0], "node_label"),
                                    (edge_label, mine[1], "edge_label")):
            if given is not None and given != stored:
                raise OptionError(
                    f"the collection's graphs were read with {what}={stored!r}; a query read "
                    f"with {what}={given!r} would not be comparable")
        if isinstance(items, os.PathLike) or (isinstance(items, str)
                                              and is_file_reference(items)):
            items = self._file_queries(items, mine, self._store.where)
        if isinstance(items, Collection):
            _check_comparable(mine, items)
        if isinstance(items, str):  # (neither a file nor FILE#ID of one)
            raise OptionError("queries must be a list of graphs or a graph file; there is no "
                              f"file {quoted(items, end=True)} (for one query, pass it as the "
                              "first argument)")
        if is_one_graph(items):  # (a NetworkX graph iterates as its nodes)
            raise OptionError("queries must be a list of graphs (for one query, pass it as "
                              "the first argument)")
        try:
            items = list(items)
        except TypeError:
            raise OptionError(f"queries must be a list of graphs, got "
                              f"{type(items).__name__}") from None
        if mine != (None, None):
            items = [_unnamed_read(item) for item in items]
        with undirected_only("a collection search"):
            try:
                graphs = as_graphs(items, *mine)
            except GedkitError as err:
                # which of many queries (each converted again: only on this path)
                raise _placed(with_collection_labels(err, mine), _failing(items, mine),
                              len(items)) from None
        for i, g in enumerate(graphs):
            if not (g.directed or g.loops):
                continue  # (most queries: one test each)
            try:
                refuse_directed(g, "collection search")
                if g.loops:  # the filters and batch verification price edges between two nodes
                    raise GraphError(
                        f"query {quoted(g.name or 'graph')} has a self-loop (on "
                        f"{quoted(g.ids[next(iter(g.loops))])}), which collection searches do not "
                        "price: compare graphs with loops by gedkit.ged or gedkit.pairwise")
            except GraphError as err:
                raise _placed(err, i, len(graphs)) from None
        return graphs

    @staticmethod
    def _file_queries(path: str | os.PathLike, mine: tuple, searched: str) -> list[Graph]:
        """The graphs of the file ``path`` as queries (``queries="q.smi"``): a collection
        file's (``FILE#ID``: that one graph), named by their ids, its labels checked against
        ``mine`` (this collection's); another file's read with ``mine``, as the command line
        reads a query file; ``searched``: this collection, as a note on attributes left out
        names it."""
        from gedkit.io import labels_for, read_graphs
        from gedkit.io.common import Unlabelled, split_reference, undirected_only
        from gedkit.io.gdb import find_id, is_collection_file

        head, selector = split_reference(os.fspath(path))
        found: list[Graph] = []
        if is_collection_file(head):
            with Collection.open(head) as source:
                _check_comparable(mine, source)
                chosen = (source.items() if selector is None else
                          [(graph_id := find_id(source, selector, head), source.get(graph_id))])
                for graph_id, g in chosen:  # (graphs decoded for this call: renamed freely)
                    g.name = str(graph_id)
                    found.append(g)
            if not found:
                raise FormatError(f"{head}: the collection holds no graph")
            return found
        notice = Unlabelled()
        with undirected_only("a collection search"):
            try:
                found.extend(read_graphs(path, notice, *labels_for(path, *mine)))
            except GedkitError as err:
                err = with_collection_labels(err, mine)
                # (format= and errors= are read_all's, not a search's)
                raise type(err)(*err.args, "; to read the file otherwise (format=, "
                                "errors='skip'), pass gedkit.read_all(...)'s graphs as "
                                "queries=") from None
        if not found:  # (as gedkit search says it: not an empty answer)
            raise FormatError(f"{os.fspath(path)}: the file holds no graph")
        notice.warn(searched)
        return found


def _check_comparable(mine: tuple, source: Collection) -> None:
    """A one-line error unless the queries' collection ``source`` was built with the label
    attributes ``mine`` (this collection's)."""
    from gedkit.io.gdb import incomparable_labels

    differ = incomparable_labels(mine, (source.node_label, source.edge_label))
    if differ is not None:
        kind, a, b = differ
        raise OptionError(f"the queries' collection was built with {kind}_label={b!r} and "
                          f"this one with {kind}_label={a!r}: their graphs are not comparable")


#: how the note of :meth:`Collection.add` numbering graphs among named ones begins (the command
#: line, whose ``--ids numbers`` asks for numbers, leaves it out by it)
NUMBERED_AMONG_NAMES = "the graphs added were numbered"


def same_collection(a: tuple, b: tuple) -> bool:
    """Whether two :meth:`Collection._identity` values name one collection: the same one in
    memory, or one file however its paths were spelled (links resolved here, when a picture
    is drawn, not on each search's path), holding the collection made there then."""
    if a[0] == b[0] == "file":
        # (and the collection made there: another made at that path since is not it; files
        # made before this was recorded record none)
        made = {a[2], b[2]} - {None}
        return os.path.realpath(a[1]) == os.path.realpath(b[1]) and len(made) <= 1
    return a == b


def _failing(items: list, labels: tuple) -> int | None:
    """The position of the first of ``items`` that :func:`gedkit.inputs.as_graph` refuses
    (read with ``labels``), if one alone is refused."""
    from gedkit.inputs import as_graph
    from gedkit.io.common import Unlabelled

    for i, item in enumerate(items):
        try:
            as_graph(item, *labels, notice=Unlabelled())
        except GedkitError:
            return i
    return None


def with_collection_labels(err: GedkitError, labels: tuple) -> GedkitError:
    """``err``, where a query lacks the label attribute the collection was built with, with
    what the collection expects (a SMILES query of a collection of IAM GXL files was told
    only that it has no attribute 'symbol')."""
    if not isinstance(err, GraphError | FormatError) or "has no attribute" not in str(err):
        return err
    named = [Option(what, value) for what, value in zip(("node_label", "edge_label"), labels,
                                                         strict=True) if value is not None]
    said = [part for option in named for part in (option, " and ")][:-1]
    return type(err)(*err.args, "; this collection's graphs were read with ", *said,
                     ": a query needs those attributes (read from files of the kind the "
                     "collection was built from)")


def _placed(err: GedkitError, position: int | None, count: int) -> GedkitError:
    """``err`` about one of ``count`` queries, naming its position among them when there
    are several (a self-loop in one of 300 queries named only "query 'graph'")."""
    if count < 2 or position is None or not isinstance(err, GraphError | FormatError):
        return err
    return type(err)(f"queries[{position}] (of {count}): ", *err.args)


def _stand_in(name: str, value: Any, options: dict) -> None:
    """A one-line error where the search's own parameter ``name`` is missing and other
    keywords stand in its place (``mces_range(q, threshold=0.6)`` said "min_similarity must
    be a number, got None", and the method's options would refuse ``threshold`` after)."""
    if value is None and options:
        given = ", ".join(f"{key}=" for key in options)
        raise OptionError(f"{name} is missing: give {name}= ({given} is not a parameter of "
                          "this search)")


def _check_k(k: Any) -> None:
    if not isinstance(k, int | np.integer) or isinstance(k, bool) or k < 1:
        raise OptionError(f"k must be a positive integer, got {k!r}")


def _unnamed_read(item: Any) -> Any:
    """``item``, or the graph of the file it names when that file's labels have no names
    (t/v/e), read with them: they are the collection's, whatever it calls them."""
    from gedkit.inputs import as_graph, is_file_reference
    from gedkit.io import unnamed_labels

    is_file = isinstance(item, os.PathLike) or (isinstance(item, str)
                                                 and is_file_reference(item))
    return as_graph(item, None, None) if is_file and unnamed_labels(item) else item


def _items(graphs: Any, node_label: Any, edge_label: Any,
           skipped: list | None = None, jobs: int = 1, notice: Any = None) -> Iterator[Graph]:
    """Every graph ``graphs`` stands for (see :meth:`Collection.add`), read one at a time;
    with a ``skipped`` list, what cannot be read is told there and left out; ``jobs``: worker
    processes for the molecules of SMILES files and tables; ``notice``: the
    :class:`~gedkit.io.common.Unlabelled` of the labels the files' attributes give."""
    from gedkit.errors import GedkitError
    from gedkit.inputs import as_graph, is_file_reference, is_one_graph
    from gedkit.io import labels_for, read_graphs
    from gedkit.io.common import Unlabelled, undirected_only

    notice = Unlabelled() if notice is None else notice
    single = isinstance(graphs, os.PathLike) or (
        isinstance(graphs, str) and is_file_reference(graphs))
    if isinstance(graphs, str) and not single:
        # a file name mistyped, or run from another folder: said so, not "one graph"
        as_graph(graphs, node_label, edge_label)  # (neither a file nor SMILES: raises)
        raise OptionError(f"add takes an iterable of graphs or a graph file, got one SMILES "
                          f"string; pass [{quoted(graphs)}]")
    if not single and is_one_graph(graphs):  # (a NetworkX graph iterates as its nodes)
        raise OptionError("add takes an iterable of graphs or a graph file, got one graph; "
                          "pass [graph]")
    try:
        with undirected_only("a collection"):
            for item in [graphs] if single else graphs:
                if isinstance(item, os.PathLike) or (isinstance(item, str)
                                                     and is_file_reference(item)):
                    # (a file whose labels have no names, t/v/e: its own, as the collection's)
                    yield from read_graphs(item, notice,
                                           *labels_for(item, node_label, edge_label),
                                           skipped=skipped, jobs=jobs)
                    continue
                try:
                    g = as_graph(item, node_label, edge_label, notice=notice)
                except GedkitError as err:
                    if skipped is None:
                        raise
                    skipped.append(str(err))
                    continue
                yield g
    except TypeError as err:
        if "iterable" in str(err):
            raise OptionError(f"add takes an iterable of graphs or a graph file, got "
                              f"{type(graphs).__name__}") from None
        raise
    finally:
        notice.warn()


def _run_on_cluster(coll: Collection, run, graphs: list[Graph], parameter, model, verify,
                    client: Any, shards: int | None, progress: bool | None, each=None
                    ) -> list[SearchResult]:
    """One result per query, from the shards' answers on a Dask cluster; Ctrl-C keeps the
    queries answered before the first one left unfinished, the others answer as
    interrupted (:func:`_one_each`), with a warning; a cluster lost keeps them likewise, in
    its error's ``result``."""
    from gedkit.search import distributed
    from gedkit.search.progress import Progress
    from gedkit.search.shards import kind_of

    kind = kind_of(run)
    shown = Progress.of(progress, len(graphs))
    try:
        results = distributed.search(coll, kind, graphs, parameter, model, verify, client,
                                     shown, shards)
    except ClusterError as err:  # the answers so far go on, and with the error
        _hand_on(err.result, each)
        err.result = _one_each(err.result, graphs, kind, parameter)
        raise
    finally:
        if shown is not progress:
            shown.close()
    _hand_on(results, each)
    if len(results) < len(graphs):
        warn(InterruptedWarning(f"search interrupted: {len(results)} of {len(graphs)} "
                                "queries answered"))
    return _one_each(results, graphs, kind, parameter)


def _measured(measure: str, each: Callable[[int, SearchResult], Any], position: int,
              result: SearchResult) -> Any:
    """``each(position, result)``, ``result`` recording its ``measure`` first."""
    result.measure = measure
    return each(position, result)


def _hand_on(results: list[SearchResult], each) -> None:
    """``each(position, result)`` for ``results`` that came back together (from worker
    processes or a cluster: the answers a search here hands on one by one as it goes),
    but those of queries Ctrl-C stopped before they began (empty stats), which a search
    here does not hand on either (a cluster's answers come back in any order: the command
    line wrote such a query, handed on among the answers, twice)."""
    for position, result in enumerate(results) if each is not None else ():
        if result.stats:
            with gc_resumed():  # (the caller's code)
                each(position, result)


def _one_each(results: list[SearchResult], graphs: list[Graph], kind: str, parameter
              ) -> list[SearchResult]:
    """``results``, the answers of the first queries of ``graphs``, and for each query
    Ctrl-C (or a cluster's failure) stopped before its search began an interrupted answer
    with no hit and empty ``stats``: one result per query, in order, whatever stopped the
    search."""
    return results + [SearchResult(kind, g.name, parameter, certified=False, interrupted=True)
                      for g in graphs[len(results):]]


def _run_queries(coll: Collection, run, graphs: list[Graph], parameter, model, verify,
                 n_jobs: int, progress: bool | None, each=None) -> list[SearchResult]:
    """One result per query, here or in worker processes. Ctrl-C stops the verification
    under way (its result says ``interrupted``); the queries not started answer as
    interrupted, with no hit (:func:`_one_each`), and a warning says how many were."""
    from gedkit.search import parallel
    from gedkit.search.progress import Progress
    from gedkit.search.shards import kind_of

    jobs = resolve_jobs(n_jobs, len(graphs))
    shown = Progress.of(progress, len(graphs))
    before = shown.answered  # (a progress shared with earlier calls counted theirs)
    results: list[SearchResult] = []
    try:
        with interruptible():
            if jobs > 1 and parallel.can_fork():
                results = parallel.run(coll, run, graphs, parameter, model, verify, jobs,
                                       shown)
                _hand_on(results, each)
            else:
                for result in parallel.answers(coll, run, graphs, parameter, model, verify,
                                               shown):
                    results.append(result)
                    shown.query_done()
                    if each is not None:
                        with gc_resumed():  # (the caller's code)
                            each(len(results) - 1, result)
                    if result.interrupted:
                        break
    except KeyboardInterrupt:
        pass
    finally:
        # (an answer Ctrl-C cut short was counted as it came: it is no answer)
        answered = sum(not r.interrupted for r in results)
        shown.settle(before + answered)
        if shown is not progress:
            shown.close()
    if answered < len(graphs):  # some query not answered, or cut short
        # attributed to the user's line, however deep the search runs
        warn(InterruptedWarning(f"search interrupted: {answered} of {len(graphs)} queries "
                                "answered"))
    return _one_each(results, graphs, kind_of(run), parameter)


class _Names:
    """``ids="names"`` of :meth:`Collection.add`: each graph's name, checked as it comes."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def of(self, batch: list[Graph]) -> list[str]:
        """The ids of ``batch``: its graphs' names, none missing, none seen before."""
        for g in batch:
            if not isinstance(g.name, str) or not g.name:
                raise OptionError(f"ids='names': a graph has no name ({len(self.seen)} named "
                                  "before it)")
            if g.name in self.seen:
                raise OptionError(f"ids='names': two graphs are named {quoted(g.name)}")
            self.seen.add(g.name)
        return [g.name for g in batch]
