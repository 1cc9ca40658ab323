"""Rows of compressed-row arrays (a pointer array ``ptr`` over one array of values: row ``i``
is ``values[ptr[i]:ptr[i + 1]]``) taken out together."""

from __future__ import annotations

import numpy as np

__all__ = ["dense_rows", "row_starts", "take_rows"]


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


def dense_rows(adj: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of a label adjacency matrix (-1: no edge) as compressed rows: pointers, each
    row's columns with an edge in increasing order, and their labels; what
    :func:`gedkit._kernels.order.neighbour_lists` computes inside compiled code, here without
    numba (a first solve whose limit does not afford numba's start reads them: computing them
    compiled paid that start anyway, 3-8 s past a 1 s limit on a busy machine).

    >>> ptr, nbr, lab = dense_rows(np.array([[-1, 2, 0], [2, -1, -1], [0, -1, -1]]))
    >>> ptr.tolist(), nbr.tolist(), lab.tolist()
    ([0, 2, 3, 4], [1, 2, 0, 0], [2, 0, 2, 0])
    """
    rows, cols = np.nonzero(adj >= 0)  # (row-major: each row's columns in order)
    ptr = row_starts(np.bincount(rows, minlength=adj.shape[0]))
    return ptr, cols.astype(np.int64), adj[rows, cols].astype(np.int64)
