"""Progress of a search on stderr: a bar on a terminal once it has run a couple of seconds,
a plain line every 10 s elsewhere (a file, a notebook's log), nothing with ``progress=False``."""

from __future__ import annotations

import sys
import time
from typing import Any

from gedkit.errors import counted, pace

__all__ = ["GraphCounter", "Progress"]

_DELAY = 2.0  # seconds before a bar appears
_LINE_EVERY = 10.0


class Progress:
    """Counts queries answered and pairs verified: ``queries`` of them (None: not known
    yet, as while a large query file is read batch by batch)."""

    @classmethod
    def of(cls, progress: bool | Progress | None, queries: int) -> Progress:
        """A search's progress: ``progress`` itself when it is one already (shared by the
        calls that search a large batch of queries a part at a time, which its owner
        closes), else a new one for ``queries`` queries."""
        return progress if isinstance(progress, Progress) else cls(progress, queries)

    def __init__(self, progress: bool | None, queries: int | None):
        self.queries, self.answered, self.pairs = queries, 0, 0
        self.expected = 0  # the pairs a one-query range search has to verify, once known
        self.start = time.perf_counter()
        self.next_line = self.start + _LINE_EVERY
        self.printed: tuple[int, int] | None = None  # the counts of the last line printed
        self.workers = 0  # worker processes answering (their counts come with their answers)
        self.next_refresh = self.start
        self.active = progress is not False
        self.bar: Any = None
        self.lines = self.active and progress is None and not _is_terminal(sys.stderr)
        if self.active and not self.lines:
            from tqdm import tqdm

            many = queries is None or queries > 1
            self.bar = tqdm(total=queries if many else None, unit="query" if many else "pair",
                            desc="search", file=sys.stderr, delay=0 if progress else _DELAY)
            self.bar.monitor_interval = 0
            self.many = many

    def step(self) -> None:
        """One pair verified."""
        self.pairs += 1
        if self.bar is not None and not self.many:
            self.bar.update(1)
        self._line()

    def verified(self, count: int) -> None:
        """``count`` more pairs verified (elsewhere: a shard on a Dask worker)."""
        self.pairs += count
        if self.bar is not None and not self.many:
            self.bar.update(count)
        self._line()

    def expect(self, count: int) -> None:
        """``count`` more candidates to verify: a one-query search's bar and lines then say
        how far it is (a range query at τ = 8 over 100,000 molecules verifies 73,000)."""
        self.expected += count
        if self.bar is not None and not self.many:
            self.bar.total = self.expected  # shown from its next update (after its delay)

    def on_workers(self, count: int) -> None:
        """The queries are answered by ``count`` worker processes: the pairs they verify
        are counted as they go, their queries as their answers come back (a range search's,
        split by shards, at the end), so the line says they are at work while that count
        stands still."""
        self.workers = count
        if self.bar is not None:
            self.bar.set_postfix_str(f"{count} workers", refresh=False)

    def tick(self) -> None:
        """Time passed with nothing counted (waiting for workers): the line every 10 s,
        the bar's clock every second, all the same."""
        if self.bar is not None and time.perf_counter() >= self.next_refresh:
            self.bar.refresh()
            self.next_refresh = time.perf_counter() + 1.0
        self._line()

    def settle(self, answered: int) -> None:
        """The queries answered in full, at the end: an answer Ctrl-C cut short came back
        and was counted, but it is not an answer (the last line agrees with the summary)."""
        if answered != self.answered and self.bar is not None and self.many:
            self.bar.n = answered
        self.answered = answered

    def query_done(self, count: int = 1) -> None:
        self.answered += count
        if self.bar is not None and self.many:
            self.bar.update(count)
        if self.lines:  # (a call saved a query otherwise: most searches print no lines)
            self._line()

    def _line(self, last: bool = False) -> None:
        if self.lines and (last or time.perf_counter() >= self.next_line):
            done = (f"{self.pairs:,} of {counted(self.expected, 'candidate')}"
                    if self.queries == 1 and self.expected else counted(self.pairs, "pair"))
            busy = f" ({self.workers} worker processes at work; queries counted as their " \
                "answers come back)" if self.workers and not last else ""
            spent = time.perf_counter() - self.start
            # (the pace and time left of a batch: 50 slow queries ran toward an hour told
            # only the queries done)
            ahead = ("" if self.queries is None else
                     pace(self.answered, self.queries, spent, "query", "queries"))
            count = (counted(self.answered, "query", "queries") if self.queries is None
                     else f"{self.answered:,}/{self.queries:,} queries")
            print(f"gedkit: search: {count}, {done} "
                  f"verified, {spent:.0f} s{ahead}{busy}", file=sys.stderr, flush=True)
            self.next_line = time.perf_counter() + _LINE_EVERY
            self.printed = (self.answered, self.pairs)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.printed not in (None, (self.answered, self.pairs)):
            self._line(last=True)  # the count at the end, unless the last line said it


class GraphCounter:
    """Graphs (or other units) read or added so far, of ``total`` when it is known: a
    bar on a terminal, a line every 10 s elsewhere (with the pace and the time left)."""

    def __init__(self, progress: bool | None, what: str, unit: str = "graph",
                 total: int | None = None):
        self.active = progress is not False
        self.what, self.unit, self.total = what, unit, total
        self.start = time.perf_counter()
        self.next_line = self.start + _LINE_EVERY
        self.bar: Any = None
        if self.active and _is_terminal(sys.stderr):
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=unit, desc=what, file=sys.stderr,
                            delay=0 if progress else _DELAY)
        self.count = 0

    def update(self, count: int) -> None:
        """``count`` so far."""
        if self.bar is not None:
            self.bar.update(count - self.count)
        elif self.active and time.perf_counter() >= self.next_line:
            spent = time.perf_counter() - self.start
            done = (counted(count, self.unit) if self.total is None else
                    f"{count:,}/{self.total:,} {self.unit}s")
            ahead = "" if self.total is None else pace(count, self.total, spent, self.unit)
            print(f"gedkit: {self.what}: {done}, {spent:.0f} s{ahead}", file=sys.stderr,
                  flush=True)
            self.next_line = time.perf_counter() + _LINE_EVERY
        self.count = count

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _is_terminal(stream: Any) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
