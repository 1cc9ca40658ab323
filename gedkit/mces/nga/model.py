"""The NGA network: a graph encoder, a Gumbel–Sinkhorn start, and graduated-assignment layers
whose temperatures are learned (PyTorch).

Written in plain PyTorch over the sparse association graph of
:func:`gedkit.mces.ga.association_graph` (pairs as rows, never a dense (n1·n2)² matrix):

- ``encoder``: GIN layers (residual, edge-label buckets added to the messages) embed the
  nodes of each graph from :mod:`gedkit.mces.nga.features`; a pair's start score is the
  scaled cosine of its two embeddings.
- start: each of ``B`` samples adds Gumbel noise to the start scores and normalises them
  with Sinkhorn (log domain, a slack row and column so nodes may stay unmatched, as in
  :mod:`gedkit.mces.ga`).
- layers: each propagates the soft assignment through the association graph (``q = A s``,
  the gradient of the common-edge count) and re-exponentiates it with a *vector* of inverse
  temperatures, ``log Σ_j exp(β_j q) − log d``, where ``β = u ⊙ w`` is the elementwise
  product of two learned vectors (entries may turn negative), then applies Sinkhorn again.
  With ``d = 1`` and fixed, increasing ``β`` this is classical graduated assignment; learning
  the over-parameterised temperatures is what makes it *neural*.

The objective is the relaxed common-edge count ``½ sᵀ A s`` of each sample; solving a pair
maximises it over the network's parameters (see :mod:`gedkit.mces.nga.method`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from gedkit.mces.ga import AssociationGraph
from gedkit.mces.nga import FORMAT
from gedkit.mces.nga.features import EDGE_BUCKETS, FEATURES, GraphArrays
from gedkit.nn import load_checked, with_weights, write_atomically
from gedkit.nn.layers import GINELayer

__all__ = [
    "FORMAT", "NGAConfig", "NGANet", "PairTensors", "gumbel", "load", "objective", "sinkhorn",
]



@dataclass(frozen=True)
class NGAConfig:
    """Sizes of the network (defaults: small enough for ~50 optimisation steps a second on
    a pair of 40-atom molecules on one CPU thread)."""

    width: int = 32
    encoder_layers: int = 3
    layers: int = 8
    temperature_dim: int = 8
    sinkhorn_iterations: int = 10
    beta_first: float = 0.5  # initial inverse temperatures of the first and last layers
    beta_last: float = 30.0


class PairTensors:
    """One MCES instance as tensors: both graphs, the association pairs and their adjacency."""

    def __init__(self, a1: GraphArrays, a2: GraphArrays, assoc: AssociationGraph):
        self.graphs = [
            (torch.from_numpy(a.x), torch.from_numpy(a.edge_index),
             torch.from_numpy(a.edge_bucket)) for a in (a1, a2)
        ]
        self.n1, self.n2 = len(a1.x), len(a2.x)
        self.rows = torch.from_numpy(np.asarray(assoc.rows, dtype=np.int64))
        self.cols = torch.from_numpy(np.asarray(assoc.cols, dtype=np.int64))
        self._flat: dict[int, tuple] = {}
        w = assoc.weights.tocoo()
        index = torch.from_numpy(np.vstack([w.row, w.col]).astype(np.int64))
        self.adjacency = torch.sparse_coo_tensor(
            index, torch.ones(w.nnz), (len(assoc), len(assoc)), check_invariants=False
        ).coalesce()

    def __len__(self) -> int:
        return len(self.rows)

    def flat_index(self, samples: int) -> tuple[torch.Tensor, ...]:
        """(sample, row, column) of every pair of every sample, sample-major (cached)."""
        if samples not in self._flat:
            self._flat[samples] = (
                torch.arange(samples).repeat_interleave(len(self.rows)),
                self.rows.repeat(samples), self.cols.repeat(samples),
            )
        return self._flat[samples]


class Encoder(nn.Module):
    """Residual GIN layers over one graph (no batch statistics: a graph is its own batch)."""

    def __init__(self, width: int, layers: int):
        super().__init__()
        self.embed = nn.Linear(FEATURES, width)
        self.edge = nn.Embedding(EDGE_BUCKETS, width)  # one edge embedding for every layer
        self.layers = nn.ModuleList(
            GINELayer(width, learn_eps=False, batch_norm=False) for _ in range(layers)
        )
        # weights saved before the layers were shared with Gelato name them mlps.<i>
        self._register_load_state_dict_pre_hook(_renamed_layers)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor,
                edge_bucket: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        edges = self.edge(edge_bucket)
        for layer in self.layers:
            h = layer(h, edge_index, edges)
        return functional.normalize(h, dim=1)


def _renamed_layers(state_dict: dict, prefix: str, *args: object) -> None:
    """``<prefix>mlps.<i>.<rest>`` (the shipped weights' names) as ``layers.<i>.mlp.<rest>``."""
    old = prefix + "mlps."
    for key in [k for k in state_dict if k.startswith(old)]:
        index, _, rest = key[len(old):].partition(".")
        state_dict[f"{prefix}layers.{index}.mlp.{rest}"] = state_dict.pop(key)


class NGANet(nn.Module):
    """Soft assignments of ``samples`` Gumbel-perturbed runs, shape (pairs, samples)."""

    def __init__(self, config: NGAConfig | None = None):
        super().__init__()
        self.settings = config or NGAConfig()
        c = self.settings
        self.encoder = Encoder(c.width, c.encoder_layers)
        self.start_scale = nn.Parameter(torch.tensor(3.0))
        # graduated assignment's schedule as the starting point: β grows geometrically over
        # the layers (by default 0.5 → 30, as gedkit's ga), spread ±50% across the
        # temperature vector so the dimensions differ from the first step
        base = (np.geomspace(c.beta_first, c.beta_last, c.layers)[:, None]
                * np.linspace(0.5, 1.5, c.temperature_dim))
        root = torch.tensor(np.sqrt(base), dtype=torch.float32)
        self.u = nn.Parameter(root.clone())
        self.w = nn.Parameter(root.clone())

    def config(self) -> dict:
        return asdict(self.settings)

    def start_scores(self, pair: PairTensors) -> torch.Tensor:
        h1 = self.encoder(*pair.graphs[0])
        h2 = self.encoder(*pair.graphs[1])
        return self.start_scale * (h1[pair.rows] * h2[pair.cols]).sum(dim=1)

    def forward(self, pair: PairTensors, gumbel: torch.Tensor) -> torch.Tensor:
        """``gumbel``: (pairs, samples) noise; returns the last layer's soft assignments."""
        c = self.settings
        scores = self.start_scores(pair)[:, None] + gumbel
        s = sinkhorn(scores, pair, c.sinkhorn_iterations)
        beta = self.u * self.w  # (layers, temperature_dim)
        log_d = math.log(c.temperature_dim)
        for layer in range(c.layers):
            q = pair.adjacency @ s
            lifted = q[:, :, None] * beta[layer]  # (pairs, samples, d)
            s = sinkhorn(torch.logsumexp(lifted, dim=2) - log_d, pair, c.sinkhorn_iterations)
        return s

    def save(self, path: str | Path, card: dict | None = None) -> None:
        saved = {"format": FORMAT, "config": self.config(), "state_dict": self.state_dict(),
                 "card": card or {}}
        write_atomically(path, lambda tmp: torch.save(saved, tmp))


def gumbel(shape: tuple[int, int], generator: torch.Generator) -> torch.Tensor:
    """Standard Gumbel noise (the start's sampling perturbation)."""
    u = torch.rand(shape, generator=generator).clamp_(1e-9, 1 - 1e-9)
    return -torch.log(-torch.log(u))


def objective(s: torch.Tensor, pair: PairTensors) -> torch.Tensor:
    """Relaxed common-edge count ``½ sᵀ A s`` per sample (shape (samples,))."""
    return 0.5 * (s * (pair.adjacency @ s)).sum(dim=0)


def sinkhorn(scores: torch.Tensor, pair: PairTensors, iterations: int) -> torch.Tensor:
    """Row and column normalisation, each row and column with a slack entry of score 0;
    returns the soft assignment of the pairs, shape (pairs, samples).

    The pairs' scores are laid out in a dense (samples, n1 + 1, n2 + 1) array (pairs that
    cannot share an edge get 0): a handful of whole-array operations per iteration instead
    of per-group scatters, and only n1·n2 entries per sample, never (n1·n2)². Each real row
    is first divided by its largest entry (slack included), so nothing overflows; the first
    row normalisation undoes that scaling exactly, so the result and its gradient are those
    of the unscaled problem. (Entries far below their row's maximum underflow to 0: such a
    pair is not chosen anyway.)
    """
    samples = scores.shape[1]
    z = scores.new_full((samples, pair.n1 + 1, pair.n2 + 1), -math.inf)
    z[:, pair.n1, : pair.n2] = 0.0
    z[:, : pair.n1, pair.n2] = 0.0
    z = z.index_put(pair.flat_index(samples), scores.T.reshape(-1))
    one = scores.new_ones((samples, 1, 1))
    top = z[:, : pair.n1].amax(dim=2, keepdim=True).detach()
    k = torch.exp(z - torch.cat([top, one - 1], dim=1))
    for _ in range(iterations):
        # normalise the real rows (the slack row is left alone), then the real columns
        k = k / torch.cat([k[:, : pair.n1].sum(dim=2, keepdim=True), one], dim=1)
        k = k / torch.cat([k[:, :, : pair.n2].sum(dim=1, keepdim=True), one], dim=2)
    return k[:, pair.rows, pair.cols].T


def load(path: str | Path) -> NGANet:
    """A network from a weights file written by :meth:`NGANet.save`."""
    saved = load_checked(path, FORMAT, "an NGA weights file")
    net = with_weights(lambda: NGANet(NGAConfig(**saved["config"])), saved, path,
                       "NGA weights")
    net.card = saved.get("card", {})
    return net
