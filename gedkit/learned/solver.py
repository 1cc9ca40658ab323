"""``gelato``: the learned autoregressive solver as a gedkit method.

The network proposes node maps (see :mod:`gedkit.learned.decode`); the ``polish`` cheapest of
them are then improved by IPFP and REFINE (:func:`gedkit.solvers.heuristics.polish.polish`,
within the budget; 0 turns it off: the published method). The answer is the best map met and
BRANCH's, so it is never worse than BRANCH, and its lower bound is BRANCH's.
When BRANCH already proves its map optimal, the network is not run. Torch is imported only
when a problem is solved.

Models: ``model=None`` takes the shipped weights for the kind of problem (``chem_2`` for the
CHEM_2 cost model, ``unlabelled`` when no graph has a label, ``molecules`` otherwise) when the
package holds them, else an untrained network (with a warning): its maps are valid, so the
bounds are too, but no better than BRANCH's. ``model`` may also name shipped weights, be the
path of a weights file written by ``gedkit train gelato``, ``"untrained"``, or a network
object. ``device`` says where the network runs (``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"``
or ``"auto"``: a GPU when torch sees one); by default the CPU, or wherever a given network
object is (one on another device than the option names is copied there).
``directions=2`` also decodes the instance seen from g2 (deletions and insertions swapped,
the same distance) with ``k`` more branches and keeps the best maps of both: twice the time,
and more distinct maps than ``k`` doubled (benchmarks/RESULTS.md, session 4).
"""

from __future__ import annotations

import copy
import os
import sys
import time
import warnings
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from gedkit.configurable import check_choice, check_number
from gedkit.errors import OptionError
from gedkit.learned import DECODINGS, require_torch
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.registry import get_solver, register

__all__ = ["GelatoSolver", "default_model", "shipped_models"]

UNTRAINED = "untrained"


def shipped_models() -> dict[str, Any]:
    """Name → weights file (a :mod:`importlib.resources` traversable) of the models shipped in
    ``gedkit/learned/weights``.

    >>> isinstance(shipped_models(), dict)
    True
    """
    folder = resources.files("gedkit.learned").joinpath("weights")
    if not folder.is_dir():
        return {}
    return {f.name[:-3]: f for f in sorted(folder.iterdir(), key=lambda f: f.name)
            if f.name.endswith(".pt")}


def default_model(problem: Problem) -> str | None:
    """The shipped model suited to ``problem``, or None if it is not shipped."""
    if getattr(problem.cost_model, "name", "") == "chem_2":
        kind = "chem_2"
    elif all(lab is None for g in (problem.g1, problem.g2)
             for lab in (*g.node_labels, *g.edge_labels)):
        kind = "unlabelled"
    else:
        kind = "molecules"
    return kind if kind in shipped_models() else None


@register
class GelatoSolver(Solver):
    name = "gelato"
    summary = ("learned autoregressive GNN (Gelato): best of k decoded maps and BRANCH's; "
               "BRANCH bound; needs torch")
    options: ClassVar[dict] = {"k": 32, "decoding": "branches", "model": None, "seed": 0,
                               "polish": 32, "device": None, "directions": 1}

    def validate(self) -> None:
        check_number(self.config, "k", integer=True, minimum=1, strict=False)
        check_number(self.config, "polish", integer=True, strict=False)
        check_choice(self.config, "decoding", DECODINGS)
        check_choice(self.config, "directions", (1, 2))
        check_number(self.config, "seed", integer=True, strict=False)
        _check_model(self.config["model"])
        if not isinstance(self.config["device"], (str, type(None))):
            raise OptionError(f"option device must be a string such as 'cpu' or 'cuda', got "
                              f"{self.config['device']!r}")

    def solve(self, problem: Problem, budget: Budget) -> Result:
        require_torch()
        from gedkit.learned.decode import decode
        from gedkit.solvers.heuristics.polish import polish

        t0 = time.perf_counter()
        bound = get_solver("branch").solve(problem, budget)
        stats: dict = {"branch_cost": bound.upper_bound}
        best = bound.assignment
        if not bound.optimal:
            net, stats["model"] = _network(self.config["model"], problem, self.config["seed"],
                                           self.config["device"])
            maps: dict[bytes, np.ndarray] = {}
            stats.update(branches=0, network_calls=0, cut_short=False)
            for seen_from in (problem, problem.transposed())[: self.config["directions"]]:
                out = decode(seen_from, net, k=self.config["k"],
                             strategy=self.config["decoding"], seed=self.config["seed"],
                             budget=budget)
                for f in out.ranked:
                    # a map of the transposed instance, inverted, costs the same here
                    f = f if seen_from is problem else seen_from.inverse(f)
                    maps.setdefault(f.tobytes(), f)
                stats["branches"] += out.branches
                stats["network_calls"] += out.network_calls
                stats["cut_short"] |= out.completed_greedily
            ranked = sorted(maps.values(), key=problem.cost)
            forward, cost = ranked[0], problem.cost(ranked[0])
            stats["decoded_cost"] = cost
            if self.config["polish"]:
                forward, cost = polish(problem, ranked[: self.config["polish"]], budget)
                stats["polished_cost"] = cost
            if cost < bound.upper_bound:
                best = forward
        return Result.from_assignment(problem, best, bound.lower_bound, self.name,
                                      time=time.perf_counter() - t0, stats=stats)


def _is_network(value: Any) -> bool:
    # a network object implies torch is loaded; without it no object can be one
    if "torch" not in sys.modules:
        return False
    from gedkit.learned.model import GelatoNet

    return isinstance(value, GelatoNet)


def _check_model(value: Any) -> None:
    if value is None or _is_network(value):
        return
    if isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
        if text == UNTRAINED or text in shipped_models() or Path(text).is_file():
            return
    names = ", ".join(shipped_models()) or "none shipped yet"
    raise OptionError(
        f"option model must name shipped weights ({names}), be {UNTRAINED!r}, or the path of a "
        f"weights file written by 'gedkit train gelato'; got {value!r}"
    )


def _network(model: Any, problem: Problem, seed: int,
             device: str | None = None) -> tuple[Any, str]:
    """(network, how the stats name it) for the ``model`` option, on ``device``."""
    from gedkit.learned.model import resolve_device

    where = resolve_device(device or "cpu")
    if _is_network(model):
        if device is None or model.device == where:
            return model, "given network"
        return copy.deepcopy(model).to(where).eval(), "given network"
    if model is None:
        model = default_model(problem)
        if model is None:
            warnings.warn(
                "gelato: no trained weights are shipped for this kind of problem yet; using an "
                "untrained network (valid maps and bounds, no better than BRANCH). Train one "
                "with 'gedkit train gelato' and pass model=PATH.",
                UserWarning, stacklevel=3,
            )
            model = UNTRAINED
    text = os.fspath(model)
    if text == UNTRAINED:
        return _untrained(seed, str(where)), UNTRAINED
    if text in shipped_models():
        with resources.as_file(shipped_models()[text]) as path:
            return _load(str(path), path.stat().st_mtime_ns, str(where)), text
    path = Path(text).resolve()
    return _load(str(path), path.stat().st_mtime_ns, str(where)), str(path)


@lru_cache(maxsize=8)
def _load(path: str, mtime: int, device: str) -> Any:
    """Weights loaded once per file version (the modification time is part of the key) and
    device."""
    from gedkit.learned.model import load

    return load(path).to(device)


@lru_cache(maxsize=4)
def _untrained(seed: int, device: str) -> Any:
    from gedkit.learned.model import GelatoNet

    return GelatoNet.untrained(seed=seed).to(device)
