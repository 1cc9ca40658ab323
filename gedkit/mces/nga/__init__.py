"""Neural Graduated Assignment (NGA) for MCES: Ying, Ruan, Chen, Wang and Yu, "Neural
Graduated Assignment for Maximum Common Edge Subgraphs", ICLR 2026, written for gedkit.

- :mod:`~gedkit.mces.nga.features`: label-agnostic node features (NumPy).
- :mod:`~gedkit.mces.nga.model`: encoder, Gumbel–Sinkhorn start, learned-temperature layers
  (PyTorch).
- :mod:`~gedkit.mces.nga.method`: the ``nga`` method: per-pair optimisation under a budget.
- :mod:`~gedkit.mces.nga.pretrain`: the amortised initialisation shipped in ``weights/``.

Importing this package does not import torch.
"""

__all__ = ["FORMAT"]

#: what an NGA weights file says it holds (here, not in the model: checked without torch)
FORMAT = "gedkit-nga/1"
