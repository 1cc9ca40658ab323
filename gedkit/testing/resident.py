"""How much a process grows inside a block: what a memory cap is checked against.

A cap (``memory=``) bounds a call's growth of the process's resident size; its peak can fall
between two samples of a slow poll, so it is read every 2 ms in a thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from gedkit.budget import resident

__all__ = ["peak_growth"]


@contextmanager
def peak_growth(every: float = 0.002) -> Iterator[list[int]]:
    """Within it, the process's resident size is read every ``every`` seconds; on leaving,
    the one-item list it gives holds the peak's growth over the size at entry, in bytes.

    (What else the process frees meanwhile counts against it: measure in a process of its
    own, as ``benchmarks/pairwise_memory.py`` and the tests of the caps do.)

    >>> import numpy as np
    >>> with peak_growth() as grown:
    ...     block = np.ones(40 << 20, dtype=np.uint8)
    >>> isinstance(grown[0], int)
    True
    """
    base = resident()
    peak = [base]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], resident())
            time.sleep(every)

    watcher = threading.Thread(target=watch, name="gedkit-peak-growth", daemon=True)
    watcher.start()
    grown = [0]
    try:
        yield grown
    finally:
        done.set()
        watcher.join()
        grown[0] = max(peak[0], resident()) - base
