"""Building node maps with a trained network, one decision at a time.

Every strategy runs the network again after each decision (the state graph changes) and
evaluates all its live states as one batch:

- ``branches`` (the published decoder): the ``k`` best first actions each seed one branch, and
  every branch then takes its best-scored action at each step. First actions that
  Weisfeiler–Leman colouring cannot tell apart (a symmetric atom, say) would mostly lead to the
  same map up to symmetry, so the best action of each colour class comes first and the others
  only fill the ``k`` branches when there are fewer classes.
- ``beam``: beam search of width ``k`` on the summed log-probabilities of the actions (a softmax
  over each state's candidates); identical partial maps reached in different orders are kept
  once.
- ``sampling``: ``k`` branches that draw each action from the softmax of the scores; the first
  branch always takes the best-scored action, so sampling never loses the greedy map.

The answer is the complete map with the lowest :meth:`~gedkit.problem.Problem.cost`. When the
budget runs out, every unfinished state is completed at once by the cheapest next action (node
cost plus the edge costs it fixes), without the network, so a complete map always comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from gedkit.errors import OptionError
from gedkit.learned import DECODINGS
from gedkit.learned.data import wl_colours
from gedkit.learned.features import Instance, States, encode
from gedkit.learned.model import GelatoNet, evaluating, to_tensors
from gedkit.problem import Problem
from gedkit.solvers.base import Budget

__all__ = ["Decoded", "decode"]


@dataclass
class Decoded:
    """The best map found, its cost, and what it took; ``ranked``: every distinct decoded map,
    cheapest first (``ranked[0]`` is ``forward``)."""

    forward: np.ndarray
    cost: float
    branches: int
    network_calls: int
    completed_greedily: bool
    ranked: list[np.ndarray]


def decode(problem: Problem, net: GelatoNet, *, k: int = 32, strategy: str = "branches",
           seed: int = 0, budget: Budget | None = None) -> Decoded:
    """The best complete node map ``strategy`` finds with ``net`` (see the module docstring).

    Examples
    --------
    >>> from gedkit import Graph, costs
    >>> from gedkit.learned.model import GelatoNet
    >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({0: "O", 1: "C"}))
    >>> out = decode(p, GelatoNet.untrained(), k=4)
    >>> out.cost == p.cost(out.forward)
    True
    """
    run = _Run(Instance(problem, net.vocab), net, budget or Budget())
    with evaluating(net):
        if strategy == "branches":
            finals = run.branches(k)
        elif strategy == "beam":
            finals = run.beam(k)
        elif strategy == "sampling":
            finals = run.sampling(k, seed)
        else:
            raise OptionError(f"decoding must be one of {', '.join(DECODINGS)}, got {strategy!r}")
    forwards = finals.forwards()
    costs = np.array([problem.cost(f) for f in forwards])
    order = np.argsort(costs, kind="stable")
    distinct: dict[bytes, np.ndarray] = {}  # insertion order: cheapest first
    for i in order:
        distinct.setdefault(forwards[i].tobytes(), forwards[i])
    ranked = list(distinct.values())
    best = int(order[0])
    return Decoded(forwards[best], float(costs[best]), len(forwards), run.calls, run.cut_short,
                   ranked)


Chooser = Callable[[torch.Tensor, np.ndarray], torch.Tensor]


class _Run:
    """One decoding: the network calls and the budget checks the strategies share."""

    def __init__(self, inst: Instance, net: GelatoNet, budget: Budget):
        self.inst, self.net, self.budget = inst, net, budget
        self.calls = 0
        self.cut_short = False

    def scores(self, states: States, rows: np.ndarray) -> tuple[torch.Tensor, np.ndarray]:
        """Logits of the candidates of ``states[rows]``, one row per state padded with -inf,
        and the actions ((u, v), -1 for ε) in the same layout."""
        enc = encode(states, rows)
        logits = self.net(to_tensors(enc, self.net.device)).float().cpu()
        self.calls += 1
        counts = np.bincount(enc.cand_graph, minlength=enc.n_graphs)
        pos = np.arange(enc.n_candidates) - (np.cumsum(counts) - counts)[enc.cand_graph]
        padded = torch.full((enc.n_graphs, int(counts.max())), -torch.inf)
        padded[torch.from_numpy(enc.cand_graph), torch.from_numpy(pos)] = logits
        actions = np.zeros((enc.n_graphs, int(counts.max()), 2), dtype=np.int64)
        actions[enc.cand_graph, pos] = enc.action
        return padded, actions

    def out_of_time(self, states: States, live: np.ndarray) -> bool:
        """When the budget is spent: complete ``states[live]`` without the network."""
        if not self.budget.expired():
            return False
        self.cut_short = True
        while live.size:
            cost = np.where(states.candidates()[live], states.action_costs()[live], np.inf)
            flat = cost.reshape(len(live), -1).argmin(1)
            u, v = np.unravel_index(flat, cost.shape[1:])
            states.apply(live, _eps(u, self.inst.n1), _eps(v, self.inst.n2))
            live = live[~states.terminal()[live]]
        return True

    def follow(self, states: States, choose: Chooser, merge: bool) -> States:
        """Advance every live state by the action ``choose`` picks until all are complete.

        ``merge``: ``choose`` is deterministic, so branches that reach the same partial map
        (the same decisions in another order) would go on identically; only the first goes
        on."""
        while True:
            if merge:
                states = states.take(_first_distinct(states.keys(), len(states)))
            live = np.flatnonzero(~states.terminal())
            if not live.size or self.out_of_time(states, live):
                return states
            padded, actions = self.scores(states, live)
            pick = choose(padded, live).numpy()
            chosen = actions[np.arange(len(live)), pick]
            states.apply(live, chosen[:, 0], chosen[:, 1])

    def first_choices(self, k: int) -> States:
        """One state per best first action, one per colour class first (at most ``k``); the
        empty state itself when it is already complete."""
        root = States.empty(self.inst)
        if root.terminal()[0] or self.out_of_time(root, np.array([0])):
            return root
        padded, actions = self.scores(root, np.array([0]))
        order = torch.argsort(padded[0], descending=True).numpy()
        order = order[np.isfinite(padded[0, order].numpy())]
        top = _symmetry_first(order, actions[0], self.inst.n1, wl_colours(encode(root)))[:k]
        states = root.take(np.zeros(len(top), dtype=np.int64))
        states.apply(np.arange(len(top)), actions[0, top, 0], actions[0, top, 1])
        return states

    def branches(self, k: int) -> States:
        return self.follow(self.first_choices(k), _greedy, merge=True)

    def sampling(self, k: int, seed: int) -> States:
        generator = torch.Generator().manual_seed(seed)

        def draw(padded: torch.Tensor, live: np.ndarray) -> torch.Tensor:
            pick = torch.multinomial(torch.softmax(padded, 1), 1, generator=generator)[:, 0]
            greedy = torch.from_numpy(live == 0)
            return torch.where(greedy, padded.argmax(1), pick)

        return self.follow(States.empty(self.inst, k), draw, merge=False)

    def beam(self, width: int) -> States:
        beams = States.empty(self.inst)
        if beams.terminal()[0]:
            return beams
        score = np.zeros(1)
        done: States | None = None
        while len(beams):
            live = np.arange(len(beams))
            if self.out_of_time(beams, live):
                done = beams if done is None else done.extend(beams)
                break
            padded, actions = self.scores(beams, live)
            total = (torch.log_softmax(padded, 1).numpy() + score[:, None]).ravel()
            order = np.argsort(-total, kind="stable")
            order = order[np.isfinite(total[order])][: 4 * width]
            rows, cols = np.divmod(order, padded.shape[1])
            children = beams.take(rows)
            children.apply(np.arange(len(rows)), actions[rows, cols, 0], actions[rows, cols, 1])
            keep = _first_distinct(children.keys(), width)
            children, child_score = children.take(keep), total[order][keep]
            over = children.terminal()
            finished = children.take(np.flatnonzero(over))
            done = finished if done is None else done.extend(finished)
            beams, score = children.take(np.flatnonzero(~over)), child_score[~over]
        assert done is not None
        return done


def _first_distinct(keys: list[bytes], limit: int) -> np.ndarray:
    """Positions of the first ``limit`` distinct keys, in order."""
    seen: set[bytes] = set()
    out = []
    for i, key in enumerate(keys):
        if key not in seen:
            seen.add(key)
            out.append(i)
            if len(out) == limit:
                break
    return np.array(out, dtype=np.int64)


def _symmetry_first(order: np.ndarray, actions: np.ndarray, n1: int,
                    colour: np.ndarray) -> np.ndarray:
    """``order`` (candidate positions, best first) with the first of each class of actions
    whose ends have the same colours (``colour`` of the root state's nodes: g1 then g2) moved
    ahead of the rest, otherwise in the same order."""
    u, v = actions[order, 0], actions[order, 1]
    keys = np.stack([np.where(u >= 0, colour[np.maximum(u, 0)], -1),
                     np.where(v >= 0, colour[n1 + np.maximum(v, 0)], -1)], axis=1)
    _, first = np.unique(keys, axis=0, return_index=True)
    leads = np.zeros(len(order), dtype=bool)
    leads[first] = True
    return np.concatenate([order[leads], order[~leads]])


def _greedy(padded: torch.Tensor, live: np.ndarray) -> torch.Tensor:
    return padded.argmax(1)


def _eps(index: np.ndarray, n: int) -> np.ndarray:
    """Action index ``n`` (the ε row or column) as -1."""
    return np.where(index < n, index, -1)
