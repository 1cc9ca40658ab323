"""Learned GED solvers: Gelato, an autoregressive graph neural network that builds a node map
one decision at a time (Pellizzoni, Schulz and Borgwardt, ICLR 2026), extended with deletion
and insertion actions and cost features so it works under non-uniform costs.

- :mod:`~gedkit.learned.features`: decoding states as joint graphs (NumPy).
- :mod:`~gedkit.learned.data`: optimal maps from the exact solver, labelled states (NumPy).
- :mod:`~gedkit.learned.model`: the network (PyTorch).
- :mod:`~gedkit.learned.train`: training with validation and checkpoints (PyTorch).
- :mod:`~gedkit.learned.decode`: branch, beam and sampling decoders (PyTorch).
- :mod:`~gedkit.learned.solver`: the ``gelato`` method of :func:`gedkit.ged`.
- :mod:`~gedkit.learned.sizing`: what the network's steps cost, so that they start only what
  the budget can pay for (NumPy).

What Gelato shares with NGA (the MCES method) lives in :mod:`gedkit.nn`.

Importing gedkit never imports torch: only solving with ``gelato`` and training do, and
without torch they raise :class:`~gedkit.errors.MissingDependencyError` saying how to
install it (``pip install 'gedkit[learn]'``).
"""

from __future__ import annotations

__all__ = ["DECODINGS", "FORMAT"]

#: decoding strategies of the ``gelato`` method (see :mod:`gedkit.learned.decode`)
DECODINGS = ("branches", "beam", "sampling")

#: what a Gelato weights file says it holds (here, not in the model: checked without torch)
FORMAT = "gedkit-gelato/1"
