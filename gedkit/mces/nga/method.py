"""``nga``: Neural Graduated Assignment as an MCES method.

Per pair, the network's parameters are optimised (Adam) to maximise the relaxed common-edge
count of its Gumbel-perturbed samples; after every step each sample's soft assignment is
decoded by the Hungarian method (as in ``ga``) and improved by the local search of
:mod:`gedkit.mces.refine`; the best map over all steps and samples is the answer. Stops at the
budget, after ``steps`` steps, or as soon as a map reaches the proven upper bound (then it is
optimal). The best sample of each step, when it is within two edges of the best map so far,
then seeds an iterated local search (:func:`gedkit.mces.refine.kick`) that runs until ``kicks``
kicks in a row find nothing better (0 turns it off): the network's samples supply ever new
starting points, the search exploits them. The upper bound is
:func:`gedkit.mces.bounds.upper_bound`, tightened by the LP relaxation after the first step
when that step falls short of it (option ``lp_bound``, as in ``ga``).

Where the paper leaves room, this implementation chose: the temperature of layer ``l`` is the
elementwise product of two learned vectors ``u_l ⊙ w_l`` and the layer's scores are
``log mean_j exp(β_j q)`` (see :mod:`gedkit.mces.nga.model`); node features are hashed labels
and degrees, so one initialisation serves every label set.

``init="pretrained"`` (default) starts from the shipped amortised initialisation (trained
across many molecule pairs by :mod:`gedkit.mces.nga.pretrain`), so a pair needs fewer steps;
``init="random"`` starts from the untrained network, as in the paper; a path loads weights
written by :func:`gedkit.mces.nga.pretrain.pretrain`. Torch is imported only when a problem
is solved; without it the method says how to install it.
"""

from __future__ import annotations

import time
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from gedkit.configurable import check_number
from gedkit.errors import OptionError
from gedkit.learned import require_torch
from gedkit.mces.base import Budget, Method, register
from gedkit.mces.bounds import tightened, upper_bound
from gedkit.mces.ga import association_graph, check_search_options, decode
from gedkit.mces.problem import MCESProblem
from gedkit.mces.refine import kick
from gedkit.mces.refine import refine as local_search
from gedkit.mces.result import MCESResult

__all__ = ["NGA", "neural_graduated_assignment", "shipped_initialisation"]

INITS = ("pretrained", "random")


def shipped_initialisation():
    """The shipped pretrained weights (an :mod:`importlib.resources` traversable), or None."""
    f = resources.files("gedkit.mces.nga").joinpath("weights", "molecules.pt")
    return f if f.is_file() else None


@lru_cache(maxsize=4)
def _initial_state(init: str) -> tuple[dict, dict] | None:
    """(network config, state dict) to start from; None = a fresh random network. Cached:
    every pair starts from the same weights, loaded once."""
    from gedkit.mces.nga.model import load

    if init == "random":
        return None
    source = shipped_initialisation() if init == "pretrained" else Path(init)
    if source is None:
        return None
    with resources.as_file(source) as path:
        net = load(path)
    return net.config(), {k: v.clone() for k, v in net.state_dict().items()}


def prepare(problem: MCESProblem):
    """The pair's tensors, or None when no pair of nodes can share an edge."""
    from gedkit.mces.nga.features import graph_arrays
    from gedkit.mces.nga.model import PairTensors

    assoc = association_graph(problem)
    if len(assoc) == 0:
        return None, assoc
    return PairTensors(graph_arrays(problem.g1), graph_arrays(problem.g2), assoc), assoc


def neural_graduated_assignment(
    problem: MCESProblem,
    budget: Budget,
    *,
    init: str = "pretrained",
    samples: int = 8,
    steps: int = 1000,
    lr: float = 0.01,
    refine: bool = True,
    kicks: int = 5000,
    lp_bound: bool = True,
    seed: int | None = 0,
) -> tuple[np.ndarray, dict]:
    """The best node map found, and statistics (steps run, step of the best map, init used,
    best count after each step in ``trace``, the proven ``upper_bound``)."""
    torch = require_torch("the MCES method nga")
    from gedkit.mces.nga.model import NGAConfig, NGANet, gumbel, objective

    best = np.full(problem.n1, -1, dtype=np.int64)
    stats: dict[str, Any] = {"steps": 0, "best_step": None, "upper_bound": 0}
    pair, assoc = prepare(problem)
    if pair is None:
        return best, stats
    ceiling = stats["upper_bound"] = upper_bound(problem)
    state = _initial_state(init)
    stats["init"] = "random" if state is None else init
    generator = torch.Generator().manual_seed(0 if seed is None else seed)
    with torch.random.fork_rng():
        torch.manual_seed(0 if seed is None else seed)
        net = NGANet(NGAConfig(**state[0])) if state is not None else NGANet()
    if state is not None:
        net.load_state_dict(state[1])
    optimiser = torch.optim.Adam(net.parameters(), lr=lr)
    best_count, trace = -1, []
    step_seconds = 0.0
    for step in range(steps):
        # a step cannot be interrupted: do not start one the budget cannot pay for
        if step and budget.remaining() < step_seconds:
            break
        tick = time.perf_counter()
        soft = net(pair, gumbel((len(pair), samples), generator))
        stats["steps"] = step + 1
        chosen, chosen_count = None, -1
        for column in soft.detach().numpy().T:
            forward = decode(assoc, column, problem.n1, problem.n2)
            if refine:
                forward = local_search(problem, forward)
            count = problem.count(forward)
            if count > chosen_count:
                chosen, chosen_count = forward, count
        if step == 0 and lp_bound and chosen_count < ceiling:
            ceiling = stats["upper_bound"] = tightened(problem, ceiling, budget.remaining())
        # the step's best sample seeds an iterated local search when it is close to the best
        # so far: the samples give it ever new starting points
        if kicks and chosen_count < ceiling and chosen_count >= best_count - 2:
            chosen = kick(problem, chosen, kicks, seed=step, budget=budget, ceiling=ceiling)
            chosen_count = problem.count(chosen)
        if chosen_count > best_count:
            best, best_count, stats["best_step"] = chosen, chosen_count, step
        trace.append(best_count)
        if best_count >= ceiling or budget.expired():
            break
        loss = -objective(soft, pair).mean() / max(ceiling, 1)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        step_seconds = time.perf_counter() - tick
    stats["trace"] = trace
    return best, stats


def check_nga_options(config: dict) -> None:
    init = config["init"]
    if not isinstance(init, str) or (init not in INITS and not Path(init).is_file()):
        raise OptionError(
            f"option init must be one of {', '.join(INITS)} or the path of an NGA weights "
            f"file, got {init!r}"
        )
    for key in ("samples", "steps"):
        check_number(config, key, integer=True)
    check_number(config, "lr")
    check_search_options(config)


@register
class NGA(Method):
    name = "nga"
    summary = "neural graduated assignment: learned temperatures, Gumbel samples (torch)"
    options: ClassVar[dict[str, Any]] = {
        "init": "pretrained", "samples": 8, "steps": 1000, "lr": 0.01, "refine": True,
        "kicks": 5000, "lp_bound": True, "seed": 0,
    }

    def validate(self) -> None:
        check_nga_options(self.config)

    def solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        t0 = time.perf_counter()
        forward, stats = neural_graduated_assignment(problem, budget, **self.config)
        return MCESResult.from_map(
            problem, forward, stats["upper_bound"], self.name,
            time=time.perf_counter() - t0, stats=stats,
        )
