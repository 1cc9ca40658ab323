"""The compiled :func:`gedkit._kernels.cost.map_cost` (its source stays numba-free)."""

from __future__ import annotations

from numba import njit

from gedkit._kernels.cost import map_cost as _source

__all__ = ["map_cost"]

map_cost = njit(cache=True, nogil=True)(_source)
