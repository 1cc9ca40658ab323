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

The answer is the complete map with the lowest :meth:`~gedkit.problem.Problem.cost`.

Decoding is sized to the budget (see :mod:`gedkit.nn.budgeting`): a step's states are
scored in groups of a bounded number of candidates, and a group's candidates slice by slice,
so a network call's memory stays bounded and the decoder can stop between slices. Before each
step and each slice it checks that what it starts, *and* the greedy completion of its states
after it, still fit the time left (less ``reserve``, the time the caller keeps for after the
decoding). When the network cannot go on (out of time, or a state too large for the memory
left), every unfinished state is completed by the cheapest next action (node cost plus the
edge costs it fixes) without the network
(:meth:`~gedkit.learned.features.States.complete_greedily`), as many as fit; a state left
over ends as its partial map, the rest deleted and inserted. So a complete map always comes
back, and :attr:`Decoded.stopped` says why the network stopped early. The first step keeps
no more branches (beams, samples) than the time and memory can complete greedily.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from gedkit.budget import MEMORY_CAP, TIME_LIMIT, Cut, interrupted
from gedkit.errors import OptionError
from gedkit.learned import DECODINGS
from gedkit.learned.data import wl_colours
from gedkit.learned.features import UNDECIDED, Encoded, Instance, States, encode
from gedkit.learned.model import GelatoNet, evaluating, to_tensors
from gedkit.learned.sizing import (
    CALL_SECONDS,
    CANDIDATE_BYTES,
    GROUP_CANDIDATES,
    SLICE,
    SLICE_BYTES,
    Rates,
    candidates,
    mean_degrees,
    state_bytes,
)
from gedkit.nn.budgeting import Allowance, entry_seconds, how_many
from gedkit.problem import Problem
from gedkit.solvers.base import Budget

__all__ = ["Decoded", "decode"]

#: seconds the best unfinished state may take to complete greedily after Ctrl-C: its map
#: beats the start's (a 300-node pair interrupted after 60 network calls answered BRANCH's
#: map, 1,181, its states all partial; one completes in ~0.08 s)
_GRACE = 0.2


@dataclass
class Decoded:
    """The best map found, its cost, and what it took; ``ranked``: every distinct decoded map,
    cheapest first (``ranked[0]`` is ``forward``). ``completed_greedily``: some states were
    completed without the network; ``stopped``: why the network stopped before every state was
    complete; ``trimmed``: how many fewer branches (beams, samples) than asked were decoded,
    and why (each None when it did not happen)."""

    forward: np.ndarray
    cost: float
    branches: int
    network_calls: int
    completed_greedily: bool
    ranked: list[np.ndarray]
    stopped: str | None = None
    trimmed: str | None = None


def decode(problem: Problem, net: GelatoNet, *, k: int = 32, strategy: str = "branches",
           seed: int = 0, budget: Budget | None = None, reserve: float = 0.0,
           allowance: Allowance | None = None, rates: Rates | None = None) -> Decoded:
    """The best complete node map ``strategy`` finds with ``net`` (see the module docstring).

    Parameters
    ----------
    problem : Problem
    net : GelatoNet
    k : int
        Branches, beam width or samples (fewer when the budget cannot pay for ``k``).
    strategy : str
        One of :data:`~gedkit.learned.DECODINGS`.
    seed : int
        Seeds the sampling strategy.
    budget : Budget, optional
        Time and memory limits (none by default).
    reserve : float
        Seconds of the budget to leave for after the decoding.
    allowance : Allowance, optional
        The memory left to the caller's solve (default: from ``budget``, from now).
    rates : Rates, optional
        This machine's speed (default: measured now); refined in place as the network runs.

    Examples
    --------
    >>> from gedkit import Graph, costs
    >>> from gedkit.learned.model import GelatoNet
    >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({0: "O", 1: "C"}))
    >>> out = decode(p, GelatoNet.untrained(), k=4)
    >>> out.cost == p.cost(out.forward), out.stopped
    (True, None)
    """
    run = _Run(Instance(problem, net.vocab), net, budget or Budget(), reserve, allowance, rates)
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
                   ranked, run.stopped, run.trimmed)


Chooser = Callable[[torch.Tensor, np.ndarray], torch.Tensor]


class _Run:
    """One decoding: the network calls, and the time and memory checks the strategies share."""

    def __init__(self, inst: Instance, net: GelatoNet, budget: Budget, reserve: float = 0.0,
                 allowance: Allowance | None = None, rates: Rates | None = None):
        self.inst, self.net, self.budget, self.reserve = inst, net, budget, reserve
        self.allowance = allowance or Allowance(budget)
        self.rates = rates or Rates(entry_seconds())
        self.degrees = mean_degrees(inst.problem)  # (a greedy completion's edge updates)
        self.calls = 0
        self.cut_short = False
        self.stopped: Cut | None = None
        self.trimmed: Cut | None = None

    # -- what the work left costs ---------------------------------------------------------------

    def spare(self) -> float:
        """Seconds the decoding may still spend."""
        return self.budget.remaining() - self.reserve

    def undecided(self, states: States, rows: np.ndarray) -> list[tuple[int, int]]:
        a = (states.fw[rows] == UNDECIDED).sum(1).tolist()
        b = (states.bw[rows] == UNDECIDED).sum(1).tolist()
        return list(zip(a, b, strict=True))

    def greedy_seconds(self, states: States, rows: np.ndarray) -> float:
        return sum(self.rates.greedy(a, b, *self.degrees)
                   for a, b in self.undecided(states, rows))

    def call_seconds(self, states: States, rows: np.ndarray) -> float:
        """A network call on ``states[rows]``."""
        n = sum(candidates(a, b, self.inst.epsilon) for a, b in self.undecided(states, rows))
        return self.rates.network(n, len(rows) * (self.inst.n1 + self.inst.n2))

    def affordable(self, k: int, states: States, what: str = "branches", copies: int = 1) -> int:
        """How many of ``k`` branches like ``states[0]`` to keep (at least one): all that can
        be decoded to the end with the network when at least one can, else all that can be
        completed greedily; no more than the memory holds (``copies`` states each). Fewer
        than ``k`` is noted in :attr:`trimmed`."""
        inst = self.inst
        (a, b), = self.undecided(states, np.array([0]))
        per_branch = sum(self.rates.network(candidates(a - s, b - s, inst.epsilon),
                                            inst.n1 + inst.n2) - CALL_SECONDS
                         for s in range(min(a, b)))
        by_time = how_many(self.spare() - CALL_SECONDS * min(a, b), per_branch, k)
        if by_time < 1:
            by_time = how_many(self.spare(), self.rates.greedy(a, b, *self.degrees), k)
        # the states, beside one state's encoding and the scoring slice of a step
        step = SLICE_BYTES + candidates(a, b, inst.epsilon) * CANDIDATE_BYTES
        by_memory = int((self.allowance.left() - step)
                        // (copies * state_bytes(inst.n1, inst.n2)))
        kept = max(1, min(k, by_time, by_memory))
        if kept < k:
            why = "time" if by_time <= by_memory else "memory"
            if why == "time" and interrupted():
                why = "interrupted"
            self.trimmed = Cut(f"{kept} of {k} {what} ({why})",
                               MEMORY_CAP if why == "memory" else TIME_LIMIT)
        return kept

    # -- the network ----------------------------------------------------------------------------

    def stop(self, why: str, cause: str = TIME_LIMIT) -> None:
        """Stop the network (the first reason given stands): ``why``, for ``cause``."""
        # (Ctrl-C ends a budget as its time limit does: said as what it is)
        self.stopped = self.stopped or Cut("interrupted" if why == "time" and interrupted()
                                           else why, cause)

    def scores(self, states: States, rows: np.ndarray,
               encoded: Encoded | None = None) -> tuple[torch.Tensor, np.ndarray] | None:
        """Logits of the candidates of ``states[rows]``, one row per state padded with -inf,
        and the actions ((u, v), -1 for ε) in the same layout; None when the network had to
        stop first (:attr:`stopped` says why). ``encoded``: ``encode(states, rows)``, if
        already made."""
        inst = self.inst
        per_state = np.array([candidates(a, b, inst.epsilon)
                              for a, b in self.undecided(states, rows)])
        room = (self.allowance.left() - SLICE_BYTES) / CANDIDATE_BYTES
        if per_state.max() > room:
            self.stop(f"memory: a state of {int(per_state.max()):,} candidates needs "
                      f"{int(per_state.max()) * CANDIDATE_BYTES / 2**20:.0f} MiB", MEMORY_CAP)
            return None
        after = self.greedy_seconds(states, rows)  # completing these states, should time run out
        parts = []
        for group in _groups(per_state, min(GROUP_CANDIDATES, room)):
            n = int(per_state[group].sum())
            nodes = len(group) * (inst.n1 + inst.n2)
            if self.rates.network(n, nodes) + after > self.spare():
                self.stop("time")
                return None
            tick = time.perf_counter()
            enc = encoded if encoded is not None and len(group) == len(rows) else encode(
                states, rows[group])
            batch = to_tensors(enc, self.net.device)
            embedded = self.net.embed_nodes(batch)
            logits = []
            for start in range(0, enc.n_candidates, SLICE):
                if start and self.rates.candidate * SLICE + after > self.spare():
                    self.stop("time")
                    return None
                logits.append(self.net.score(embedded, batch, slice(start, start + SLICE)))
            self.calls += 1
            self.rates.measured(time.perf_counter() - tick - CALL_SECONDS, n)
            parts.append((group[0], enc, torch.cat(logits).float().cpu()))
        cand_graph = np.concatenate([first + enc.cand_graph for first, enc, _ in parts])
        action = np.concatenate([enc.action for _, enc, _ in parts])
        logits = torch.cat([lg for _, _, lg in parts])
        counts = np.bincount(cand_graph, minlength=len(rows))
        pos = np.arange(len(cand_graph)) - (np.cumsum(counts) - counts)[cand_graph]
        padded = torch.full((len(rows), int(counts.max())), -torch.inf)
        padded[torch.from_numpy(cand_graph), torch.from_numpy(pos)] = logits
        actions = np.zeros((len(rows), int(counts.max()), 2), dtype=np.int64)
        actions[cand_graph, pos] = action
        return padded, actions

    def network_fits(self, states: States, live: np.ndarray) -> bool:
        """Whether a network call on ``states[live]`` and their greedy completion after it fit
        the time left; says so when not."""
        if self.call_seconds(states, live) + self.greedy_seconds(states, live) <= self.spare():
            return True
        self.stop("time")
        return False

    def finish(self, states: States, live: np.ndarray) -> States:
        """Complete ``states[live]`` without the network, each while its greedy completion fits
        the time left (the first may use the reserve; after Ctrl-C, :data:`_GRACE`): the
        others keep their partial maps."""
        self.cut_short = True
        done = 0
        for row, (a, b) in zip(live.tolist(), self.undecided(states, live), strict=True):
            left = self.budget.remaining() - (self.reserve if done else 0.0)
            if not done and interrupted():
                left = max(left, _GRACE)
            if self.rates.greedy(a, b, *self.degrees) <= left:
                states.complete_greedily([row])
                done += 1
        return states

    # -- the strategies -------------------------------------------------------------------------

    def follow(self, states: States, choose: Chooser, merge: bool) -> States:
        """Advance every live state by the action ``choose`` picks until all are complete.

        ``merge``: ``choose`` is deterministic, so branches that reach the same partial map
        (the same decisions in another order) would go on identically; only the first goes
        on."""
        while True:
            if merge:
                states = states.take(_first_distinct(states.keys(), len(states)))
            live = np.flatnonzero(~states.terminal())
            if not live.size:
                return states
            scored = self.scores(states, live) if self.network_fits(states, live) else None
            if scored is None:
                return self.finish(states, live)
            padded, actions = scored
            pick = choose(padded, live).numpy()
            chosen = actions[np.arange(len(live)), pick]
            states.apply(live, chosen[:, 0], chosen[:, 1])

    def first_choices(self, k: int) -> States:
        """One state per best first action, one per colour class first (as many of ``k`` as
        :meth:`affordable`); the empty state itself when it is already complete, or completed
        greedily when the network cannot score it."""
        root = States.empty(self.inst)
        only = np.array([0])
        if root.terminal()[0]:
            return root
        scored = None
        if self.network_fits(root, only) and self.memory_fits(root):
            encoded = encode(root)
            scored = self.scores(root, only, encoded)
        if scored is None:
            return self.finish(root, only)
        padded, actions = scored
        order = torch.argsort(padded[0], descending=True).numpy()
        order = order[np.isfinite(padded[0, order].numpy())]
        top = _symmetry_first(order, actions[0], self.inst.n1, wl_colours(encoded))
        # (as many as there are first actions at most: k = 100,000 of 65 said "58,257 of
        # 100,000 branches (time)" though all 65 fitted)
        top = top[: self.affordable(min(k, len(top)), root)]
        states = root.take(np.zeros(len(top), dtype=np.int64))
        states.apply(np.arange(len(top)), actions[0, top, 0], actions[0, top, 1])
        return states

    def memory_fits(self, states: States) -> bool:
        """Whether the memory left can encode ``states[0]`` at once; says so when not."""
        (a, b), = self.undecided(states, np.array([0]))
        need = candidates(a, b, self.inst.epsilon) * CANDIDATE_BYTES + SLICE_BYTES
        if need <= self.allowance.left():
            return True
        self.stop(f"memory: the first state needs {need / 2**20:.0f} MiB", MEMORY_CAP)
        return False

    def branches(self, k: int) -> States:
        return self.follow(self.first_choices(k), _greedy, merge=True)

    def sampling(self, k: int, seed: int) -> States:
        generator = torch.Generator().manual_seed(seed)

        def draw(padded: torch.Tensor, live: np.ndarray) -> torch.Tensor:
            pick = torch.multinomial(torch.softmax(padded, 1), 1, generator=generator)[:, 0]
            greedy = torch.from_numpy(live == 0)
            return torch.where(greedy, padded.argmax(1), pick)

        k = self.affordable(k, States.empty(self.inst), "samples")
        return self.follow(States.empty(self.inst, k), draw, merge=False)

    def beam(self, width: int) -> States:
        beams = States.empty(self.inst)
        if beams.terminal()[0]:
            return beams
        # up to four children per beam are copies of it
        width = self.affordable(width, beams, "beams", copies=4)
        score = np.zeros(1)
        done: States | None = None
        while len(beams):
            live = np.arange(len(beams))
            scored = self.scores(beams, live) if self.network_fits(beams, live) else None
            if scored is None:
                finished = self.finish(beams, live)
                done = finished if done is None else done.extend(finished)
                break
            padded, actions = scored
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


def _groups(per_state: np.ndarray, limit: float) -> list[np.ndarray]:
    """Consecutive positions of ``per_state`` (candidates per state) in groups of at most
    ``limit`` candidates (a state above it alone).

    >>> [g.tolist() for g in _groups(np.array([3, 3, 5, 1, 9]), 6)]
    [[0, 1], [2, 3], [4]]
    """
    groups, current, size = [], [], 0
    for i, n in enumerate(per_state.tolist()):
        if current and size + n > limit:
            groups.append(np.array(current))
            current, size = [], 0
        current.append(i)
        size += n
    groups.append(np.array(current))
    return groups


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
