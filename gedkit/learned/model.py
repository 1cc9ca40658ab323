"""The Gelato network: GINE layers on the joint state graph and a scorer for every action.

Written in plain PyTorch (edge-indexed gathers and ``index_add_``); importing this module
imports torch, so only the learned solver and the training code do, and only when used.

- ``embed``: a linear map of the node features to the hidden width.
- ``layers``: GINE convolutions (Hu et al., 2020): a node adds ReLU(h_j + W e_ij) over its
  neighbours j to (1 + eps) h_i and passes the sum through a two-layer MLP; each layer is
  residual with BatchNorm.
- The scorer: an MLP on [h_u ‖ h_v ‖ mean of the state's nodes ‖ candidate features] for a
  pair; a deletion takes a learned ε-embedding in place of h_v, an insertion one in place of
  h_u, so deletions and insertions compete with pairs under any cost model. Its first layer is
  applied to each part separately and summed (the same map as one layer on the
  concatenation), so the per-candidate work is a sum and a ReLU: a state has O(n²) candidates
  but only O(n) nodes. The node part is computed once per batch (:meth:`GelatoNet.embed_nodes`)
  and the candidates can then be scored slice by slice (:meth:`GelatoNet.score`), which bounds
  a network call's memory and lets a decoder stop between slices.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import nn

from gedkit.errors import Option, OptionError
from gedkit.learned import FORMAT
from gedkit.learned.features import CANDIDATE_FEATURES, Encoded, Vocabulary
from gedkit.nn import load_checked, with_weights, write_atomically
from gedkit.nn.layers import GINELayer

__all__ = ["FORMAT", "Embedded", "GelatoNet", "evaluating", "load", "resolve_device",
           "to_tensors"]



class Embedded(NamedTuple):
    """What :meth:`GelatoNet.embed_nodes` computes once per batch: the first scorer layer's
    g1-end rows ``pu`` and g2-end rows ``pv`` (one per node, the ε-embedding's last), and the
    per-state ``context``."""

    pu: torch.Tensor
    pv: torch.Tensor
    context: torch.Tensor


class GelatoNet(nn.Module):
    """Scores every candidate action of a batch of states (higher = better).

    Parameters
    ----------
    vocab : Vocabulary
        Label channels; fixes the input sizes.
    width, layers : int
        Hidden width and number of GINE layers (published model: 128 and 5).
    meta : dict, optional
        Free-form description (cost model, data, metrics) saved with the weights.
    """

    def __init__(self, vocab: Vocabulary, width: int = 128, layers: int = 5,
                 meta: Mapping[str, Any] | None = None):
        super().__init__()
        self.vocab = vocab
        self.width, self.n_layers = width, layers
        self.meta = dict(meta or {})
        self.embed = nn.Linear(vocab.node_features, width)
        self.layers = nn.ModuleList(GINELayer(width, vocab.edge_features) for _ in range(layers))
        self.eps_g1 = nn.Parameter(0.1 * torch.randn(width))  # ε in g1: the action inserts
        self.eps_g2 = nn.Parameter(0.1 * torch.randn(width))  # ε in g2: the action deletes
        # first scorer layer, one block per part of [h_u ‖ h_v ‖ context ‖ features]
        self.from_u = nn.Linear(width, width)
        self.from_v = nn.Linear(width, width, bias=False)
        self.from_context = nn.Linear(width, width, bias=False)
        self.from_features = nn.Linear(CANDIDATE_FEATURES, width, bias=False)
        self.scorer = nn.Sequential(nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                    nn.Linear(width, 1))

    def forward(self, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
        """(C,) logits, one per candidate of ``batch`` (see :func:`to_tensors`)."""
        return self.score(self.embed_nodes(batch), batch)

    def embed_nodes(self, batch: Mapping[str, torch.Tensor]) -> Embedded:
        """The per-node and per-state parts of the scorer's first layer: O(nodes) work that
        every candidate of the batch shares."""
        h = self.embed(batch["x"])
        for layer in self.layers:
            h = layer(h, batch["edge_index"], batch["edge_attr"])
        graphs = int(batch["n_graphs"])
        pooled = torch.zeros(graphs, self.width, device=h.device, dtype=h.dtype).index_add_(
            0, batch["node_graph"], h)
        counts = torch.bincount(batch["node_graph"], minlength=graphs).clamp(min=1)
        context = self.from_context(pooled / counts[:, None])
        # row N of each projection is the ε-embedding's
        pu = self.from_u(torch.cat([h, self.eps_g1[None]]))
        pv = self.from_v(torch.cat([h, self.eps_g2[None]]))
        return Embedded(pu, pv, context)

    def score(self, parts: Embedded, batch: Mapping[str, torch.Tensor],
              candidates: slice = slice(None)) -> torch.Tensor:
        """Logits of the ``candidates`` of ``batch`` (a slice; default all), from
        :meth:`embed_nodes`. Scoring a large batch slice by slice bounds the memory by the
        slice: each candidate costs a few hidden-width vectors."""
        eps = len(parts.pu) - 1
        cu, cv = batch["cand_u"][candidates], batch["cand_v"][candidates]
        z = (parts.pu[torch.where(cu >= 0, cu, eps)] + parts.pv[torch.where(cv >= 0, cv, eps)]
             + parts.context[batch["cand_graph"][candidates]]
             + self.from_features(batch["cand_feat"][candidates]))
        return self.scorer(z).squeeze(1)

    @property
    def device(self) -> torch.device:
        """Where the weights are (and where batches must go)."""
        return self.embed.weight.device

    @property
    def size(self) -> int:
        """Number of trainable parameters."""
        return sum(p.numel() for p in self.parameters())

    def config(self) -> dict:
        return {"width": self.width, "layers": self.n_layers, "vocab": self.vocab.to_dict()}

    def save(self, path: str | Path) -> None:
        """Write the weights with everything needed to rebuild the network (no pickled code:
        the file loads with ``torch.load(weights_only=True)``)."""
        weights = {k: v.cpu() for k, v in self.state_dict().items()}  # loads without a GPU
        saved = {"format": FORMAT, "config": self.config(), "meta": self.meta,
                 "state_dict": weights}
        write_atomically(path, lambda tmp: torch.save(saved, tmp))

    @classmethod
    def untrained(cls, vocab: Vocabulary | None = None, seed: int = 0, **sizes: int) -> GelatoNet:
        """A randomly initialised network, the same for the same ``seed`` (the global torch
        random state is left as it was)."""
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            net = cls(vocab or Vocabulary(), **sizes)
        net.meta["trained"] = False
        return net.eval()


def load(path: str | Path) -> GelatoNet:
    """A network saved by :meth:`GelatoNet.save`, in evaluation mode."""
    data = load_checked(path, FORMAT, "a Gelato weights file")

    def make() -> GelatoNet:
        config = data["config"]
        return GelatoNet(Vocabulary.from_dict(config["vocab"]), width=config["width"],
                         layers=config["layers"], meta=data.get("meta"))

    return with_weights(make, data, path, "Gelato weights").eval()


def to_tensors(enc: Encoded, device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
    """The arrays of an :class:`~gedkit.learned.features.Encoded` batch as torch tensors on
    ``device``."""
    def t(a: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(a)).to(device=device, dtype=dtype)

    return {
        "x": t(enc.x, torch.float32),
        "edge_index": t(enc.edge_index, torch.long),
        "edge_attr": t(enc.edge_attr, torch.float32),
        "node_graph": t(enc.node_graph, torch.long),
        "cand_u": t(enc.cand_u, torch.long),
        "cand_v": t(enc.cand_v, torch.long),
        "cand_feat": t(enc.cand_feat, torch.float32),
        "cand_graph": t(enc.cand_graph, torch.long),
        "n_graphs": enc.n_graphs,
    }


def resolve_device(spec: str) -> torch.device:
    """The torch device for ``spec``: ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"``, or
    ``"auto"`` (the first GPU if torch sees one, else the CPU); an :class:`OptionError` names
    a device this torch cannot use.

    >>> resolve_device("cpu")
    device(type='cpu')
    """
    if spec == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(spec)
    except (RuntimeError, TypeError):
        raise OptionError(f"device must be cpu, cuda, cuda:N, mps or auto, got {spec!r}") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise OptionError(f"device {spec!r}: this PyTorch ({torch.__version__}) sees no CUDA "
                              "GPU; use ", Option("device", "cpu"))
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise OptionError(f"device {spec!r}: only {torch.cuda.device_count()} CUDA GPU(s)")
    elif device.type == "mps":
        if not torch.backends.mps.is_available():
            raise OptionError(f"device {spec!r}: this PyTorch sees no Apple GPU; use ",
                              Option("device", "cpu"))
    elif device.type != "cpu":
        raise OptionError(f"device must be cpu, cuda, cuda:N, mps or auto, got {spec!r}")
    return device


@contextlib.contextmanager
def evaluating(net: GelatoNet):
    """Evaluation mode and no autograd for the duration; the previous mode is restored."""
    was_training = net.training
    net.eval()
    try:
        with torch.inference_mode():
            yield
    finally:
        net.train(was_training)
