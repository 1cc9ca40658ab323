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

Every limit holds from the first call: the network's work is sized to the time and memory
left (:func:`plan`; estimates in :mod:`gedkit.nn.budgeting`). The answer starts as the
greedy map of :func:`gedkit.mces.cheap.greedy_map` under :func:`~gedkit.mces.bounds.upper_bound`
(the class count alone when the assignment bound does not fit). Optimisation steps run when
torch's import, the association graph and its tensors, torch's first optimiser, and two steps
with their autograd graphs fit, with as many of ``samples`` as fit; else one forward pass
without gradients (the pretrained initialisation's maps: ~128 bytes per sample and cell of
the (n1+1) x (n2+1) Sinkhorn array, against ~1,600 with gradients); else no network at all.
The cheap fallback is then the local searches (:func:`~gedkit.mces.refine.refine` and
:func:`~gedkit.mces.refine.kick`) from the greedy map, within the budget. The plan is made
again after the set-up, with the time it really took. ``stats`` say which (``network``:
``"train"``, ``"infer"`` or ``"not run"``; ``samples``) and what was cut and why (``cut``).
Labels are hashed in their canonical form (:mod:`gedkit.mces.nga.features`), so ``1``,
``1.0`` and ``"1"`` give one bucket.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from gedkit.budget import MEMORY_CAP, TIME_LIMIT, Cut
from gedkit.configurable import Option, number
from gedkit.errors import MissingDependencyError, OptionError
from gedkit.mces.base import Budget, Method, register
from gedkit.mces.ga import SEARCH_OPTIONS
from gedkit.mces.nga import FORMAT
from gedkit.mces.problem import MCESProblem
from gedkit.mces.result import MCESResult
from gedkit.nn import check_weights_file
from gedkit.nn.budgeting import (
    Allowance,
    entry_seconds,
    how_many,
    import_torch,
    network_threads,
    optimiser_cost,
    torch_import_cost,
    torch_installed,
    warm_optimiser,
)

__all__ = ["NGA", "neural_graduated_assignment", "plan", "shipped_initialisation"]

INITS = ("pretrained", "random")

# What a step costs, per entry (one sample x one cell of the (n1+1) x (n2+1) Sinkhorn array),
# measured on a loaded 2-core machine whose NumPy probe reads _PROBE_HERE, and scaled by the
# probe elsewhere: an optimisation step (forward and backward) and its autograd memory, a
# forward pass without gradients and its memory.
_PROBE_HERE = 3e-10
_TRAIN_SECONDS, _TRAIN_BYTES = 3e-6, 1600
_INFER_SECONDS, _INFER_BYTES = 1e-6, 128
_FORWARD_SECONDS = 0.02  # fixed part of a forward pass
# per entry of the association graph: building it (scipy, ~100 bytes), then its tensors
# (a sparse adjacency, coalesced: ~40 bytes, ~150 ns)
_ASSOCIATION_BYTES = 140
_TENSOR_SECONDS = 1.5e-7
_LOAD_SECONDS = 0.1  # gedkit's network code and the shipped weights, torch imported
#: a limit's cause as the plan's cuts say it ("no optimisation steps (time)")
_WORD = {TIME_LIMIT: "time", MEMORY_CAP: "memory"}
_MARGIN = 1.5  # on the passes' estimates: a loaded machine is slower than the probe says
# the LP bound: HiGHS's import, and per nonzero of the program (as gedkit.solvers.exact.mip)
_HIGHS_BYTES, _PROGRAM_BYTES = 40 << 20, 400


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
    from gedkit.mces.ga import association_graph
    from gedkit.mces.nga.features import graph_arrays
    from gedkit.mces.nga.model import PairTensors

    assoc = association_graph(problem)
    if len(assoc) == 0:
        return None, assoc
    return PairTensors(graph_arrays(problem.g1), graph_arrays(problem.g2), assoc), assoc


def plan(problem: MCESProblem, seconds: float, memory: float, samples: int,
         probe: float | None = None, ready: bool = False) -> tuple[str | None, int, Cut]:
    """How the network can run on ``problem`` within ``seconds`` and ``memory`` bytes:
    ``("train", s, why)`` for optimisation steps of ``s`` samples (time for two at least),
    ``("infer", s, why)`` for one forward pass of ``s`` samples without gradients (the
    pretrained initialisation's maps), or ``(None, 0, why)`` when neither fits; ``s`` is at
    most ``samples``, and ``why`` says what was cut (empty when nothing was). Counted: the
    torch import (unless done), the association graph and its tensors (unless ``ready``: made
    already), torch's first optimiser for steps, and per sample the pass, the Hungarian
    decoding and a sweep of the local search.
    ``probe``: NumPy's seconds per entry (:func:`~gedkit.nn.budgeting.entry_seconds`;
    measured when not given).

    >>> from gedkit import Graph
    >>> ring = Graph({i: "C" for i in range(6)}, [(i, (i + 1) % 6) for i in range(6)])
    >>> plan(MCESProblem(ring, ring), seconds=1e-3, memory=1e9, samples=8)[:2]
    (None, 0)
    """
    from gedkit.mces.ga import association_entries
    from gedkit.mces.refine import sweep_seconds
    from gedkit.solvers.heuristics.assignment import lsape_seconds

    scale = _MARGIN * min(10.0, max(0.3, (probe or entry_seconds()) / _PROBE_HERE))
    cells = (problem.n1 + 1) * (problem.n2 + 1)
    setup, held = _FORWARD_SECONDS, 0.0
    if not ready:
        entries = association_entries(problem)
        import_seconds, import_bytes = torch_import_cost()
        setup += import_seconds + _LOAD_SECONDS + _TENSOR_SECONDS * entries
        held += import_bytes + _ASSOCIATION_BYTES * entries
    after = lsape_seconds(problem.n1, problem.n2) + sweep_seconds(problem)
    shortfall, lacking = "", TIME_LIMIT
    optimiser_seconds, optimiser_bytes = optimiser_cost()
    for mode, per_second, per_byte, passes in (
            ("train", _TRAIN_SECONDS, _TRAIN_BYTES, 2), ("infer", _INFER_SECONDS, _INFER_BYTES, 1)):
        each = passes * (scale * per_second * cells + after)
        first = (optimiser_seconds, optimiser_bytes) if mode == "train" else (0.0, 0.0)
        by_time = how_many(seconds - setup - first[0], each, samples)
        by_memory = how_many(memory - held - first[1], per_byte * cells, samples)
        fitted = min(samples, by_time, by_memory)
        if fitted >= 1:
            cut, cause = [], lacking  # (the first part's cause is the cut's)
            if fitted < samples:
                cut.append(f"{fitted} of {samples} samples")
                cause = TIME_LIMIT if by_time <= by_memory else MEMORY_CAP
            if shortfall:
                cut.append(shortfall)
            return mode, fitted, Cut("; ".join(cut), cause)
        lacking = TIME_LIMIT if by_time < 1 else MEMORY_CAP
        shortfall = shortfall or f"no optimisation steps ({_WORD[lacking]})"
    need = setup + _INFER_SECONDS * scale * cells + after
    what = "one pass" if ready else "the torch import, the association graph and one pass"
    return None, 0, Cut(f"network not run: {what} need ~{need:.1f} s and "
                        f"~{(held + _INFER_BYTES * cells) / 2**20:.0f} MiB", lacking)


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
    best count after each step in ``trace``, the proven ``upper_bound``, the ``network``
    mode and its ``samples``, and ``cut``: what the budget cut short).

    Sized to the budget (see :func:`plan`): optimisation steps when two fit the time and
    their autograd graph the memory, with as many of the ``samples`` as fit; else one forward
    pass without gradients; else no network at all. Without the network (and before it), the
    answer comes from gedkit's local searches: the greedy map of
    :func:`gedkit.mces.cheap.greedy_map`, improved by :func:`gedkit.mces.refine.refine` and
    :func:`gedkit.mces.refine.kick` within the budget.
    """
    from gedkit.mces.bounds import upper_bound
    from gedkit.mces.cheap import greedy_map
    from gedkit.mces.refine import kick
    from gedkit.mces.refine import refine as local_search

    if not torch_installed():
        raise MissingDependencyError("torch", "the MCES method nga", "learn")
    allowance = Allowance(budget)
    ceiling = upper_bound(problem, budget)
    best = greedy_map(problem)
    stats: dict[str, Any] = {"steps": 0, "best_step": None, "upper_bound": ceiling, "cut": []}
    if refine and problem.count(best) < ceiling:
        # a better start, and the search's compiled code loaded before the network is sized
        best = local_search(problem, best, budget=budget)
    best_count = problem.count(best)
    mode, samples, why = plan(problem, budget.remaining(), allowance.left(), samples)
    stats.update(network=mode or "not run", samples=samples)
    if why:
        stats["cut"].append(why)
    if mode is not None and best_count < ceiling:
        best, ceiling = _network_steps(problem, budget, allowance, mode == "train", init,
                                       samples, steps, lr, refine, kicks, lp_bound, seed,
                                       ceiling, best, stats)
    elif best_count < ceiling:
        # no network: the local searches from the greedy map, as far as the budget goes
        if lp_bound:
            ceiling = _tightened(problem, ceiling, budget, allowance, stats)
        if kicks and best_count < ceiling:
            best = kick(problem, best, kicks, seed=seed or 0, budget=budget, ceiling=ceiling)
    stats["upper_bound"] = ceiling
    if not stats["cut"]:
        del stats["cut"]
    return best, stats


def _tightened(problem: MCESProblem, ceiling: int, budget: Budget, allowance: Allowance,
               stats: dict) -> int:
    """``ceiling`` tightened by the LP relaxation (:func:`gedkit.mces.bounds.tightened`) when
    its program and HiGHS fit the memory left, as they fit the time there."""
    from gedkit.mces.bounds import relaxation_nonzeros, tightened

    need = _HIGHS_BYTES + _PROGRAM_BYTES * relaxation_nonzeros(problem)
    if need > allowance.left():
        stats["cut"].append(Cut(f"LP bound not run (needs ~{need / 2**20:.0f} MiB)", MEMORY_CAP))
        return ceiling
    return tightened(problem, ceiling, budget.remaining())


def _network_steps(problem: MCESProblem, budget: Budget, allowance: Allowance, train: bool,
                   init: str, samples: int, steps: int, lr: float, refine: bool, kicks: int,
                   lp_bound: bool, seed: int | None, ceiling: int, start: np.ndarray,
                   stats: dict) -> tuple[np.ndarray, int]:
    """The network's part of :func:`neural_graduated_assignment`: the best map of its steps
    and ``start`` (when no two nodes can share an edge, ``start``), and the upper bound,
    tightened or not."""
    torch = import_torch("the MCES method nga")
    from gedkit.mces.nga.model import NGAConfig, NGANet

    pair, assoc = prepare(problem)
    if pair is None:
        return start, ceiling
    # the import and the tensors took what they took: size the passes to the time left now
    mode, fitted, why = plan(problem, budget.remaining(), allowance.left(), samples, ready=True)
    if mode is None or (train and mode != "train") or fitted < samples:
        stats["cut"].append(why.after("after the set-up: ") if why
                            else Cut("after the set-up", TIME_LIMIT))
        stats.update(network=mode or "not run", samples=fitted)
        if mode is None:
            return start, ceiling
        train, samples = mode == "train", fitted
    state = _initial_state(init)
    stats["init"] = "random" if state is None else init
    generator = torch.Generator().manual_seed(0 if seed is None else seed)
    with torch.random.fork_rng():
        torch.manual_seed(0 if seed is None else seed)
        net = NGANet(NGAConfig(**state[0])) if state is not None else NGANet()
    if state is not None:
        net.load_state_dict(state[1])
    optimiser = None
    if train:
        warm_optimiser()
        optimiser = torch.optim.Adam(net.parameters(), lr=lr)
    with network_threads():
        return _optimise(problem, budget, allowance, net, pair, assoc, optimiser, generator,
                         train, samples, steps, refine, kicks, lp_bound, ceiling, start, stats)


def _optimise(problem, budget, allowance, net, pair, assoc, optimiser, generator, train,
              samples, steps, refine, kicks, lp_bound, ceiling, start, stats):
    """The steps of :func:`_network_steps` (same answer)."""
    import torch

    from gedkit.mces.ga import decode
    from gedkit.mces.nga.model import gumbel, objective
    from gedkit.mces.refine import kick, sweep_seconds
    from gedkit.mces.refine import refine as local_search
    from gedkit.solvers.heuristics.assignment import lsape_seconds

    per_sample = lsape_seconds(problem.n1, problem.n2) + sweep_seconds(problem)
    best, best_count, trace = start, problem.count(start), []
    step_seconds = 0.0
    for step in range(steps if train else 1):
        # a step cannot be interrupted: do not start one the budget cannot pay for
        if step and budget.remaining() < step_seconds:
            stats["cut"].append(Cut(f"optimisation stopped after {step} steps (time)",
                                    TIME_LIMIT))
            break
        tick = time.perf_counter()
        with contextlib.nullcontext() if train else torch.no_grad():
            soft = net(pair, gumbel((len(pair), samples), generator))
        stats["steps"] = step + 1
        chosen, chosen_count = None, -1
        for column, values in enumerate(soft.detach().numpy().T):
            if column and budget.remaining() < per_sample:
                stats["cut"].append(Cut(f"step {step + 1}: {column} of {samples} samples "
                                        "decoded", TIME_LIMIT))
                break
            forward = decode(assoc, values, problem.n1, problem.n2)
            if refine:
                forward = local_search(problem, forward, budget=budget)
            count = problem.count(forward)
            if count > chosen_count:
                chosen, chosen_count = forward, count
        if step == 0 and lp_bound and chosen_count < ceiling:
            ceiling = _tightened(problem, ceiling, budget, allowance, stats)
        # the step's best sample seeds an iterated local search when it is close to the best
        # so far: the samples give it ever new starting points
        if kicks and chosen_count < ceiling and chosen_count >= best_count - 2:
            chosen = kick(problem, chosen, kicks, seed=step, budget=budget, ceiling=ceiling)
            chosen_count = problem.count(chosen)
        if chosen_count > best_count:
            best, best_count, stats["best_step"] = chosen, chosen_count, step
        trace.append(best_count)
        if best_count >= ceiling or budget.expired() or not train:
            break
        loss = -objective(soft, pair).mean() / max(ceiling, 1)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        step_seconds = time.perf_counter() - tick
    stats["trace"] = trace
    return best, ceiling


def check_nga_options(config: dict) -> None:
    init = config["init"]
    if isinstance(init, str) and init in INITS:
        return
    if isinstance(init, str) and Path(init).is_file():
        # a bad file is refused here, once, not by each pair that gets to the network (nor
        # passed over unnoticed on a pair solved before it)
        check_weights_file(init, FORMAT, "an NGA weights file")
        return
    if isinstance(init, str) and init in _gelato_names():
        raise OptionError(
            f"option init: {init!r} is a Gelato (GED) model; NGA starts from "
            f"{', '.join(INITS)} or the path of an NGA weights file")
    missing = f"{init}: no such file; " if isinstance(init, str) else ""
    raise OptionError(
        f"option init: {missing}must be one of {', '.join(INITS)} or the path of an NGA "
        f"weights file, got {init!r}"
    )


def _gelato_names() -> set[str]:
    """The shipped Gelato models' names, which ``--model`` takes but NGA cannot use."""
    from gedkit.learned.solver import shipped_models

    return set(shipped_models())


@register
class NGA(Method):
    name = "nga"
    summary = "neural graduated assignment: learned temperatures, Gumbel samples (torch)"
    options: ClassVar[dict[str, Option]] = {
        "init": Option("pretrained", "starting parameters: " + ", ".join(INITS)
                       + ", or an NGA weights file"),
        "samples": Option(8, "Gumbel samples per step", number(integer=True)),
        "steps": Option(1000, "optimisation steps at most", number(integer=True)),
        "lr": Option(0.01, "learning rate", number()),
        **SEARCH_OPTIONS,
        "kicks": replace(SEARCH_OPTIONS["kicks"], default=5000),
    }

    def validate(self) -> None:
        check_nga_options(self.config)

    def solve(self, problem: MCESProblem, budget: Budget) -> MCESResult:
        forward, stats = neural_graduated_assignment(problem, budget, **self.config)
        return MCESResult.from_map(problem, forward, stats["upper_bound"], self.name,
                                   time=budget.elapsed(), stats=stats)
