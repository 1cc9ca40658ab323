"""An amortised initialisation for NGA: one set of weights optimised across many pairs.

The per-pair method optimises the network from scratch for every pair. Pretraining runs the
same unsupervised objective (the relaxed common-edge count over the upper bound, so large and
small pairs weigh alike) over a collection of pairs, one Adam step per pair per epoch, so the
weights it ends with already give good soft assignments on pairs it never saw; ``nga`` then
only fine-tunes them. No labels are needed. The shipped ``weights/molecules.pt`` was made by
``benchmarks/nga_pretrain.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from gedkit.errors import OptionError
from gedkit.mces.bounds import upper_bound
from gedkit.mces.problem import MCESProblem
from gedkit.nn import require_torch

__all__ = ["pretrain"]


def pretrain(
    problems: Sequence[MCESProblem],
    *,
    epochs: int = 3,
    samples: int = 8,
    lr: float = 0.005,
    seed: int = 0,
    log: Callable[[str], None] | None = None,
):
    """Weights optimised across ``problems``; returns the network (an ``NGANet``).

    Pairs whose graphs cannot share an edge teach nothing and are skipped; at least one must
    remain.
    """
    torch = require_torch("pretraining NGA")
    from gedkit.mces.nga.method import prepare
    from gedkit.mces.nga.model import NGANet, gumbel, objective

    if epochs < 1 or samples < 1 or not lr > 0:
        raise OptionError("epochs and samples must be at least 1, lr positive")
    pairs = []
    for p in problems:
        tensors, _ = prepare(p)
        if tensors is not None:
            pairs.append((tensors, max(upper_bound(p), 1)))
    if not pairs:
        raise OptionError("no pretraining pair has two graphs that can share an edge")
    torch.manual_seed(seed)
    net = NGANet()
    optimiser = torch.optim.Adam(net.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        t0, total = time.perf_counter(), 0.0
        for k in rng.permutation(len(pairs)):
            tensors, ceiling = pairs[k]
            soft = net(tensors, gumbel((len(tensors), samples), generator))
            loss = -objective(soft, tensors).mean() / ceiling
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item()
        if log is not None:
            log(f"epoch {epoch + 1}: relaxed edges / bound {-total / len(pairs):.3f}, "
                f"{time.perf_counter() - t0:.1f} s")
    net.eval()
    return net
