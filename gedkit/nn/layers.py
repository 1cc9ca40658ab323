"""The neural layers both learned methods build on (Gelato for GED, NGA for MCES).

Plain PyTorch (edge-indexed gathers and ``index_add_``); importing this module imports torch,
so only the learned methods and their training code do, and only when used.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["GINELayer"]


class GINELayer(nn.Module):
    """One residual GINE convolution (Hu et al., 2020):
    ``h + relu(norm(mlp((1 + eps) h + sum_j relu(h_j + e_ij))))``.

    Parameters
    ----------
    width : int
        Node feature width.
    edge_dim : int, optional
        Edge feature width, projected to ``width`` by the layer's own linear map; None when
        the edge features given are already ``width`` wide (an embedding shared by the layers).
    learn_eps : bool
        Learn ``eps`` (else 0: the node counts once).
    batch_norm : bool
        Batch normalisation of the update (off where one graph is its own batch).

    Examples
    --------
    >>> layer = GINELayer(4, edge_dim=2)
    >>> h = layer(torch.zeros(3, 4), torch.tensor([[0, 1], [1, 0]]), torch.ones(2, 2))
    >>> tuple(h.shape)
    (3, 4)
    """

    def __init__(self, width: int, edge_dim: int | None = None, *, learn_eps: bool = True,
                 batch_norm: bool = True):
        super().__init__()
        self.edge = nn.Linear(edge_dim, width) if edge_dim is not None else None
        self.mlp = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width))
        self.eps = nn.Parameter(torch.zeros(1)) if learn_eps else None
        self.norm = nn.BatchNorm1d(width) if batch_norm else None

    def forward(self, h: torch.Tensor, edge_index: torch.Tensor,
                edge_attr: torch.Tensor) -> torch.Tensor:
        src, dst = edge_index
        edges = self.edge(edge_attr) if self.edge is not None else edge_attr
        messages = torch.relu(h[src] + edges)
        total = torch.zeros_like(h).index_add_(0, dst, messages)
        update = self.mlp((h if self.eps is None else (1 + self.eps) * h) + total)
        if self.norm is not None:
            update = self.norm(update)
        return h + torch.relu(update)
