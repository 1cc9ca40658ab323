"""Rows of compressed-row arrays (a pointer array ``ptr`` over one array of values: row ``i``
is ``values[ptr[i]:ptr[i + 1]]``) taken out together."""

from __future__ import annotations

import numpy as np

__all__ = ["row_starts", "take_rows"]


def row_starts(sizes: np.ndarray) -> np.ndarray:
    """The pointer array of consecutive rows of ``sizes`` values: where each starts, and the
    end (one more entry).

    >>> row_starts(np.array([2, 0, 3])).tolist()
    [0, 2, 2, 5]
    """
    ptr = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    return ptr


def take_rows(ptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pointer array of ``rows`` (an index array, in that order) and where their values
    are: ``values[index]`` holds them, row after row.

    >>> ptr, index = take_rows(np.array([0, 2, 3, 6]), np.array([2, 0]))
    >>> ptr.tolist(), index.tolist()
    ([0, 3, 5], [3, 4, 5, 0, 1])
    """
    starts = ptr[rows]
    sizes = ptr[rows + 1] - starts
    out = row_starts(sizes)
    return out, np.repeat(starts - out[:-1], sizes) + np.arange(out[-1])
