"""Silencing libraries that write to the process's stdout/stderr from C or C++ (HiGHS's
banner, RDKit's RASCAL), which Python's own redirection cannot catch and which would corrupt
``--json`` output."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["silenced"]

_LOCK = threading.Lock()  # file descriptors are process-wide: one silencer at a time


@contextmanager
def silenced(stderr: bool = True) -> Iterator[None]:
    """Point file descriptor 1 (and 2, with ``stderr``) at the null device for the block.

    >>> with silenced():  # as C code writes: straight to the file descriptor
    ...     written = os.write(1, b"not shown")
    """
    fds = (1, 2) if stderr else (1,)
    with _LOCK:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(fd) for fd in fds]
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            for fd in fds:
                os.dup2(null, fd)
            yield
        finally:
            for fd, copy in zip(fds, saved, strict=True):
                os.dup2(copy, fd)
            for fd in [*saved, null]:
                os.close(fd)
