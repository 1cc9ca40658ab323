"""``gelato``: the learned autoregressive solver as a gedkit method.

The network proposes node maps (see :mod:`gedkit.learned.decode`); the ``polish`` cheapest of
them are then improved by IPFP and REFINE (:func:`gedkit.solvers.heuristics.polish.polish`,
within the budget; 0 turns it off: the published method). The answer is the best map met and
BRANCH's, so it is never worse than BRANCH, and its lower bound is BRANCH's.
When BRANCH already proves its map optimal, the network is not run. Torch is imported only
when a problem is solved.

Every limit holds from the first call (see :mod:`gedkit.nn.budgeting` and
:mod:`gedkit.learned.sizing` for the estimates). BRANCH comes first: its bound and map are
the answer should nothing else fit. The network runs only when importing torch (unless done),
loading the weights, its first call and the greedy completion of one branch fit the time and
memory left, less the first step of the polish when that is a small share of the time; the
decoder then keeps as many branches as it can decode to the end, or, when not even one fits,
as many as it can complete greedily after the network's first choice, and stops the network
whenever the next call and the completion after it would not fit
(:func:`~gedkit.learned.decode.decode`). When the network does not fit, the decoder's greedy
completion of the empty state runs alone (no torch: the cheapest next action, one decision at
a time), when that fits; the polish runs when its first step fits. ``stats["cut"]`` lists
what was cut short and why; ``stats["decoded_by"]`` says whether the maps came from the
network or the greedy completion. :func:`fits` answers, cheaply, whether the network would
run in a given time and memory (a portfolio asks it before giving gelato a share of its
budget).

Labels meet a model's vocabulary in a canonical form (:mod:`gedkit.nn.labels`: ``1``,
``1.0`` and ``"1"`` are one label); labels the model was trained without are said once per
solve (:class:`~gedkit.errors.UnseenLabelWarning`).

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

import contextlib
import contextvars
import copy
import os
import sys
import time
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from gedkit.budget import MEMORY_CAP, TIME_LIMIT, Cut
from gedkit.configurable import Option, choice, number
from gedkit.errors import MissingDependencyError, OptionError, UnseenLabelWarning, counted, warn
from gedkit.learned import DECODINGS, FORMAT
from gedkit.learned.features import greedy_completion, needs_epsilon
from gedkit.learned.sizing import (
    CANDIDATE_BYTES,
    SLICE_BYTES,
    Rates,
    candidates,
    instance_bytes,
    mean_degrees,
    state_bytes,
)
from gedkit.nn import check_weights_file
from gedkit.nn.budgeting import (
    DEFAULT_MEMORY,
    Allowance,
    entry_seconds,
    import_torch,
    network_threads,
    torch_import_cost,
    torch_installed,
)
from gedkit.nn.labels import describe_unseen
from gedkit.problem import Problem
from gedkit.result import Result
from gedkit.solvers.base import Budget, Solver
from gedkit.solvers.heuristics.assignment import lsape_seconds
from gedkit.solvers.registry import get_solver, register

__all__ = ["GelatoSolver", "default_model", "fits", "shipped_models"]

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
    options: ClassVar[dict[str, Option]] = {
        "k": Option(32, "node maps decoded (beam width or branches)",
                    number(integer=True, minimum=1, strict=False)),
        "decoding": Option("branches", "how maps are decoded: " + ", ".join(DECODINGS),
                           choice(*DECODINGS)),
        "model": Option(None, "shipped model name or weights file (None: chosen by costs)"),
        "seed": Option(0, "seed of sampled decoding", number(integer=True, strict=False)),
        "polish": Option(32, "best decoded maps improved by IPFP and local search (0: none)",
                         number(integer=True, strict=False)),
        "device": Option(None, "torch device, e.g. 'cpu' or 'cuda' (None: cpu)"),
        "directions": Option(1, "orientations decoded: 1 (g1 -> g2) or 2 (both)",
                             choice(1, 2)),
    }
    kernels = ("assignment", "ipfp", "local_search")  # BRANCH, then the polish

    def validate(self) -> None:
        _check_model(self.config["model"])
        if not isinstance(self.config["device"], (str, type(None))):
            raise OptionError(f"option device must be a string such as 'cpu' or 'cuda', got "
                              f"{self.config['device']!r}")

    def solve(self, problem: Problem, budget: Budget) -> Result:
        if not torch_installed():
            raise MissingDependencyError("torch", "the learned solver gelato", "learn")
        if self.config["device"] not in (None, "cpu"):
            # an unusable device is refused whatever the pair (a small pair whose network
            # never ran answered with --device cuda on a CPU-only torch, a larger one not)
            from gedkit.learned.model import resolve_device

            import_torch()
            resolve_device(self.config["device"])
        allowance = Allowance(budget)
        bound = get_solver("branch").solve(problem, budget)
        stats: dict = {"branch_cost": bound.upper_bound, "cut": []}
        best = bound.assignment
        if not bound.optimal:
            rates = Rates(entry_seconds())
            assignment_seconds = lsape_seconds(problem.n1, problem.n2)
            polishing = self.config["polish"] > 0
            # the decoding leaves the polish its first step when that is a small share of the
            # time left; otherwise the decoding comes first and the polish takes what is left
            reserve = POLISH_ASSIGNMENTS * assignment_seconds if polishing else 0.0
            if reserve > _POLISH_SHARE * budget.remaining():
                reserve = 0.0
            ranked = self._decode(problem, budget, allowance, rates, reserve, stats)
            forward, cost = best, bound.upper_bound
            if ranked:
                forward, cost = ranked[0], problem.cost(ranked[0])
                stats["decoded_cost"] = cost
            if polishing:
                # nothing decoded (neither the network nor a greedy completion fits, as on
                # dense 2,000-node graphs): BRANCH's map polished in the time left, not
                # answered after a tenth of it
                forward, cost = _polish(problem, ranked[: self.config["polish"]] or [best],
                                        budget, allowance, assignment_seconds, stats)
            if cost < bound.upper_bound:
                best = forward
        if not stats["cut"]:
            del stats["cut"]
        return Result.from_assignment(problem, best, bound.lower_bound, self.name,
                                      time=budget.elapsed(), stats=stats)

    def _decode(self, problem: Problem, budget: Budget, allowance: Allowance, rates: Rates,
                reserve: float, stats: dict) -> list[np.ndarray]:
        """Decoded maps, cheapest first: the network's when it fits the budget, else a greedy
        completion's (no torch), else none; ``stats`` say which and why."""
        cut = stats["cut"]
        spare = budget.remaining() - reserve
        why = _network_shortfall(problem, spare, allowance.left(), rates)
        if why is not None:
            cut.append(why.after("network not run: "))
            return _greedy_maps(problem, spare, allowance.left(), rates, stats)
        import_torch()
        from gedkit.learned.decode import decode

        net, stats["model"] = _network(self.config["model"], problem, self.config["seed"],
                                       self.config["device"])
        _warn_unseen(net, problem, stats["model"])
        maps: dict[bytes, np.ndarray] = {}
        stats.update(decoded_by="network", branches=0, network_calls=0, cut_short=False)
        views = (problem, problem.transposed())[: self.config["directions"]]
        for turn, seen_from in enumerate(views):
            # the first direction leaves the second half of the time left
            later = 0.0
            if turn + 1 < len(views) and budget.timeout is not None:
                later = max(0.0, budget.remaining() - reserve) / 2
            with network_threads():
                out = decode(seen_from, net, k=self.config["k"],
                             strategy=self.config["decoding"], seed=self.config["seed"],
                             budget=budget, reserve=reserve + later, allowance=allowance,
                             rates=rates)
            for f in out.ranked:
                # a map of the transposed instance, inverted, costs the same here
                f = f if seen_from is problem else seen_from.inverse(f)
                maps.setdefault(f.tobytes(), f)
            stats["branches"] += out.branches
            stats["network_calls"] += out.network_calls
            stats["cut_short"] |= out.completed_greedily
            if out.trimmed:
                cut.append(out.trimmed.after("decoding: "))
            if out.stopped:
                cut.append(Cut(f"network stopped ({out.stopped}) after {out.network_calls} "
                               "calls" + ("" if out.stopped == "interrupted"
                                          else "; unfinished states completed greedily"),
                               out.stopped.cause))
        return sorted(maps.values(), key=problem.cost)


# polishing costs at least one IPFP step and its final rounding, an assignment each, and
# REFINE's pass: about three assignments
POLISH_ASSIGNMENTS = 3.0
_POLISH_SHARE = 0.25
_LOAD_SECONDS = 0.2  # reading a weights file and building the network (torch imported)


def fits(problem: Problem, seconds: float, memory: float | None = None, *,
         model: Any = None) -> bool:
    """Whether ``gelato`` can run its network on ``problem`` within ``seconds`` and ``memory``
    bytes (growth of the process; default
    :data:`~gedkit.nn.budgeting.DEFAULT_MEMORY`): torch installed, trained weights for
    this kind of problem (``model=None``: shipped ones), and time and memory for importing
    torch (unless already imported), loading the weights, the first network call and
    completing a branch from it. Cheap (no torch import, a millisecond's probe of this
    machine's speed): a portfolio asks it before it gives gelato a share of its budget.

    >>> from gedkit import Graph, costs
    >>> ring = Graph({i: "C" for i in range(6)}, [(i, (i + 1) % 6) for i in range(6)])
    >>> fits(costs.uniform().compile(ring, ring), seconds=1e-4)
    False
    """
    if not torch_installed() or (model is None and default_model(problem) is None):
        return False
    left = DEFAULT_MEMORY if memory is None else memory
    return _network_shortfall(problem, seconds, left, Rates(entry_seconds())) is None


def _network_shortfall(problem: Problem, seconds: float, memory: float,
                       rates: Rates) -> Cut | None:
    """Why the network cannot start on ``problem`` in ``seconds`` and ``memory`` bytes, or
    None when it can (see :func:`fits`)."""
    n1, n2 = problem.n1, problem.n2
    first = candidates(n1, n2, needs_epsilon(problem))
    import_seconds, import_bytes = torch_import_cost()
    need = (import_seconds + (_LOAD_SECONDS if import_seconds else 0.0)
            + rates.network(first, n1 + n2) + rates.greedy(n1 - 1, n2 - 1,
                                                             *mean_degrees(problem)))
    if need > seconds:
        what = f"torch import ~{import_seconds:.1f} s + " if import_seconds else ""
        return Cut(f"{what}first network call and a greedy completion "
                   f"~{need - import_seconds:.1f} s > {max(seconds, 0.0):.1f} s left", TIME_LIMIT)
    held = (import_bytes + first * CANDIDATE_BYTES + SLICE_BYTES + instance_bytes(n1, n2)
            + 2 * state_bytes(n1, n2))
    if held > memory:
        return Cut(f"needs ~{held / 2**20:.0f} MiB, {max(memory, 0.0) / 2**20:.0f} MiB left",
                   MEMORY_CAP)
    return None


def greedy_cost(problem: Problem, rates: Rates) -> tuple[float, float]:
    """Seconds and bytes :func:`~gedkit.learned.features.greedy_completion` takes on
    ``problem`` at ``rates``."""
    n1, n2 = problem.n1, problem.n2
    return (rates.greedy(n1, n2, *mean_degrees(problem)),
            instance_bytes(n1, n2) + state_bytes(n1, n2))


def _greedy_maps(problem: Problem, seconds: float, memory: float, rates: Rates,
                 stats: dict) -> list[np.ndarray]:
    """The greedy completion of the empty state (the decoder's completion, no network), when
    it fits; else nothing (the answer stays BRANCH's)."""
    need, held = greedy_cost(problem, rates)
    if need > seconds or held > memory:
        stats["cut"].append(Cut(f"greedy completion not run (needs ~{need:.1f} s and "
                                f"~{held / 2**20:.0f} MiB): BRANCH's map",
                                TIME_LIMIT if need > seconds else MEMORY_CAP))
        return []
    # held to its time too: the estimate counts the matrix, not the edges a decision
    # settles (14 s of a 5 s limit on a dense 2,000-node pair)
    forward = greedy_completion(problem, time.perf_counter() + seconds)
    if forward is None:
        stats["cut"].append(Cut(f"greedy completion stopped at its {seconds:.1f} s: BRANCH's "
                                "map", TIME_LIMIT))
        return []
    stats["decoded_by"] = "greedy"
    return [forward]


def _polish(problem: Problem, forwards: list[np.ndarray], budget: Budget,
            allowance: Allowance, assignment_seconds: float,
            stats: dict) -> tuple[np.ndarray, float]:
    """:func:`~gedkit.solvers.heuristics.polish.polish` when its first step and its rounding
    fit the time left and its assignments the memory; the best map as it is otherwise."""
    from gedkit.pacing import start_up_seconds
    from gedkit.solvers.heuristics.polish import polish

    best = forwards[0]
    # (and numba's start-up where no kernel has run yet in this process: polishing a 0.1 s
    # call's map loaded them for 0.6 s)
    need = POLISH_ASSIGNMENTS * assignment_seconds + start_up_seconds(kernels=True, scipy=True)
    held = _ASSIGNMENT_BYTES * (problem.n1 + problem.n2) ** 2
    if need > budget.remaining() or held > allowance.left():
        from gedkit.budget import interrupted

        stats["cut"].append(Cut(
            "polish not run (interrupted)" if interrupted() else
            f"polish not run (needs ~{need:.2f} s and ~{held / 2**20:.0f} MiB, "
            f"{max(budget.remaining(), 0.0):.2f} s left)",
            TIME_LIMIT if need > budget.remaining() else MEMORY_CAP))
        return best, problem.cost(best)
    # IPFP checks the clock between its steps; its last rounding must fit after the last one
    end = (budget.part(max(1e-3, budget.remaining() - assignment_seconds))
           if budget.timeout is not None else budget)
    forward, cost = polish(problem, forwards, end)
    stats["polished_cost"] = cost
    return forward, cost


# an assignment on (n1 + n2) rows holds about three float64 copies of its matrix
_ASSIGNMENT_BYTES = 24


#: whether this thread's solves leave out the warning on labels the model never saw (a
#: ContextVar: warnings.catch_warnings around auto's learned stage, in four threads at once,
#: left an "ignore" filter in the process's warnings for good)
_QUIET_UNSEEN: contextvars.ContextVar[bool] = contextvars.ContextVar("gedkit_quiet_unseen",
                                                                     default=False)


@contextlib.contextmanager
def quiet_unseen() -> Iterator[None]:
    """Solves in the block (in this thread) say nothing of labels the model never saw:
    ``auto``'s learned stage, whose map is kept only where it is better."""
    token = _QUIET_UNSEEN.set(True)
    try:
        yield
    finally:
        _QUIET_UNSEEN.reset(token)


def _warn_unseen(net: Any, problem: Problem, name: str) -> None:
    """One warning when ``problem`` has labels the trained ``net`` has no channel for."""
    if net.meta.get("trained") is False or _QUIET_UNSEEN.get():
        return
    nodes, edges = net.vocab.unseen([problem.g1, problem.g2])
    if not nodes and not edges:
        return
    parts = [f"{counted(len(found), what + ' label')} ({describe_unseen(found)})"
             for what, found in (("node", nodes), ("edge", edges)) if found]
    # aromatic bonds (1.5: SMILES read as they are) against a model trained on kekulized
    # molecules: the reading is the cure, not a new model
    kekule = (" (aromatic bonds, 1.5: read the molecules with edge_label='kekule', "
              "--edge-label kekule, and they are its 1 and 2)"
              if 1.5 in edges and {1, 2} <= set(net.vocab.edges) else "")
    warn(UnseenLabelWarning(
        f"gelato: model {name!r} was trained without {' and '.join(parts)} of this pair: "
        "they share its 'other' channel, so the network cannot tell them apart (the bounds "
        "stay valid, the maps may be worse). Labels are matched in a canonical form (1, 1.0 "
        "and '1' are one label); train a model on such labels with 'gedkit train gelato'"
        f"{kekule}."))


def _is_network(value: Any) -> bool:
    # a network object implies torch is loaded; without it no object can be one
    if "torch" not in sys.modules:
        return False
    from gedkit.learned.model import GelatoNet

    return isinstance(value, GelatoNet)


def _check_model(value: Any) -> None:
    if value is None or _is_network(value):
        return
    names = ", ".join(shipped_models()) or "none shipped yet"
    if isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
        if text == UNTRAINED or text in shipped_models():
            return
        if Path(text).is_file():
            # a bad file is refused here, once, not by every pair the network runs on
            # (nor passed over unnoticed when the search proves a pair without it)
            check_weights_file(text, FORMAT, "a Gelato weights file")
            return
        what = "is a folder, not a file" if Path(text).is_dir() else "no such file"
        raise OptionError(
            f"option model: {text}: {what}; name shipped weights ({names}), "
            f"{UNTRAINED!r}, or a weights file written by 'gedkit train gelato'")
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
            warn(UserWarning(
                "gelato: no trained weights are shipped for this kind of problem yet; using an "
                "untrained network (valid maps and bounds, no better than BRANCH). Train one "
                "with 'gedkit train gelato' and pass model=PATH."))
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
