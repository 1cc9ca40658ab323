"""Decoding states as joint graphs: what the Gelato network sees (NumPy only, no torch).

A state is a partial node map. Its graph holds g1 and g2 side by side (g2's nodes numbered after
g1's), the edges of both graphs, and one *matching edge* between every matched pair, so the
history of choices lives in the graph itself.

- Node features: label one-hot over the model's vocabulary (last channel: any other label;
  labels meet the vocabulary in their canonical form,
  :func:`~gedkit.nn.labels.canonical_label`, so ``1``, ``1.0`` and ``"1"`` are one
  label), side (g1, g2), status (matched, matched to ε), and the node's deletion (g1) or
  insertion (g2) cost.
- Edge features: label one-hot (last channel: other), an "is matching edge" channel, and a
  cost channel (edge deletion or insertion cost; substitution cost of the pair on a matching
  edge).
- Nodes that can no longer change any cost are reduced away with their edges: a matched pair
  whose neighbours on both sides are all decided, and a deleted (inserted) node whose
  neighbours are all decided.

Candidate actions of a state, each one row of candidate features: pair an undecided node u of
g1 with an undecided node v of g2; and, where the costs make them worth considering (see
:func:`needs_epsilon`), delete u or insert v. Candidate features: node substitution cost,
deletion cost of u, insertion cost of v, the edge cost the action adds given the decisions
already made, and the action type. Every cost is divided by the pair's cost scale (the mean
node deletion/insertion cost), so the features do not depend on the unit of the costs.

A state is terminal once one side has no undecided node: the rest is forced (remaining g1
nodes deleted, remaining g2 nodes inserted).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gedkit.graph import Graph, label_key
from gedkit.nn.labels import canonical_label
from gedkit.numeric import TOL
from gedkit.problem import Problem

__all__ = [
    "CANDIDATE_FEATURES",
    "EPSILON",
    "UNDECIDED",
    "Encoded",
    "Instance",
    "States",
    "Vocabulary",
    "concat",
    "encode",
    "greedy_completion",
    "needs_epsilon",
]

UNDECIDED = -2
EPSILON = -1  # matched to ε: deleted (g1 node) or inserted (g2 node)
CANDIDATE_FEATURES = 7  # sub, del(u), ins(v), added edge cost, is pair, is deletion, is insertion


@dataclass(frozen=True)
class Vocabulary:
    """Which node and edge labels get a channel of their own; all others share the last one.

    ``node_attr`` / ``edge_attr``: when a label is an attribute dict holding this attribute,
    the attribute alone is the label (graphs read with ``node_label="*"`` then match a model
    trained on the atom symbol). Labels are held and matched in their canonical form
    (:func:`~gedkit.nn.labels.canonical_label`): ``1``, ``1.0`` and ``"1"`` share a
    channel.

    >>> v = Vocabulary.fit([Graph({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 2)])])
    >>> v.nodes, v.edges
    (('C', 'O'), (1, 2))
    >>> v.node_ids(Graph({0: "N", 1: "O"})).tolist()   # N is unknown: the "other" channel
    [2, 1]
    >>> v.edge_ids(Graph({0: "C", 1: "C", 2: "O"}, [(0, 1, "2"), (1, 2, 1.0)])).tolist()
    [1, 0]
    """

    nodes: tuple = ()
    edges: tuple = ()
    node_attr: str | None = None
    edge_attr: str | None = None

    @classmethod
    def fit(cls, graphs: Iterable[Graph], max_node_labels: int = 48, max_edge_labels: int = 8,
            node_attr: str | None = None, edge_attr: str | None = None) -> Vocabulary:
        """The most frequent labels of ``graphs`` (ties: first seen first)."""
        nodes: Counter = Counter()
        edges: Counter = Counter()
        for g in graphs:
            nodes.update(_keys(g.node_labels, node_attr))
            edges.update(_keys(g.edge_labels, edge_attr))
        return cls(
            tuple(k for k, _ in nodes.most_common(max_node_labels)),
            tuple(k for k, _ in edges.most_common(max_edge_labels)),
            node_attr, edge_attr,
        )

    @property
    def node_features(self) -> int:
        """Node feature width: label channels and other, side x2, status x2, cost."""
        return len(self.nodes) + 6

    @property
    def edge_features(self) -> int:
        """Edge feature width: label channels and other, matching, cost."""
        return len(self.edges) + 3

    def node_ids(self, g: Graph) -> np.ndarray:
        """Channel of every node of ``g`` (``len(nodes)`` = other)."""
        return _ids(_keys(g.node_labels, self.node_attr), self.nodes)

    def edge_ids(self, g: Graph) -> np.ndarray:
        """Channel of every edge of ``g`` (``len(edges)`` = other)."""
        return _ids(_keys(g.edge_labels, self.edge_attr), self.edges)

    def to_dict(self) -> dict:
        return {"nodes": list(self.nodes), "edges": list(self.edges),
                "node_attr": self.node_attr, "edge_attr": self.edge_attr}

    @classmethod
    def from_dict(cls, data: Mapping) -> Vocabulary:
        # canonical forms also turn lists back into tuples (JSON and some serialisers turn
        # tuples into lists) and make vocabularies saved before canonical forms existed match
        return cls(tuple(canonical_label(k) for k in data["nodes"]),
                   tuple(canonical_label(k) for k in data["edges"]),
                   data.get("node_attr"), data.get("edge_attr"))

    def unseen(self, graphs: Iterable[Graph]) -> tuple[list[Hashable], list[Hashable]]:
        """The distinct node labels and edge labels of ``graphs`` (canonical forms, in order of
        appearance) that have no channel of their own.

        >>> v = Vocabulary(("C", "O"), (1, 2))
        >>> v.unseen([Graph({0: "C", 1: "Xx"}, [(0, 1, "1")]), Graph({0: "Yy"})])
        (['Xx', 'Yy'], [])
        """
        known_nodes, known_edges = set(self.nodes), set(self.edges)
        nodes: dict[Hashable, None] = {}
        edges: dict[Hashable, None] = {}
        for g in graphs:
            nodes.update(dict.fromkeys(k for k in _keys(g.node_labels, self.node_attr)
                                       if k not in known_nodes))
            edges.update(dict.fromkeys(k for k in _keys(g.edge_labels, self.edge_attr)
                                       if k not in known_edges))
        return list(nodes), list(edges)


def _keys(labels: Sequence[Any], attr: str | None) -> list[Hashable]:
    out = []
    for lab in labels:
        if attr is not None and isinstance(lab, Mapping) and attr in lab:
            lab = lab[attr]
        out.append(canonical_label(label_key(lab)))
    return out


def _ids(keys: list[Hashable], vocab: tuple) -> np.ndarray:
    index = {k: i for i, k in enumerate(vocab)}
    return np.array([index.get(k, len(vocab)) for k in keys], dtype=np.int64)


def needs_epsilon(problem: Problem) -> bool:
    """Whether deletion/insertion actions are needed while both sides have undecided nodes.

    When no node substitution costs more than deleting one node and inserting the other, a map
    that deletes u and inserts v is never better than one that substitutes u by v (edge
    substitutions are already capped at deletion + insertion), so some optimal map matches as
    many nodes as it can and the actions may be pairs only, as in the published model."""
    nc = problem.node_costs
    n1, n2 = problem.n1, problem.n2
    return bool(np.any(nc[:n1, :n2] > nc[:n1, n2:] + nc[n1:, :n2] + TOL))


def cost_scale(problem: Problem) -> float:
    """The unit costs are measured in: the mean node deletion/insertion cost (or, failing that,
    the mean edge one, or 1)."""
    nc = problem.node_costs
    node = np.concatenate([nc[:-1, -1], nc[-1, :-1]])
    em = problem.edge_label_matrix
    edge = np.concatenate([em[:-1, -1], em[-1, :-1]])
    for values in (node, edge):
        if values.size and values.mean() > TOL:
            return float(values.mean())
    return 1.0


class Instance:
    """What every state of one problem shares: static features and cost tables.

    Parameters
    ----------
    problem : Problem
    vocab : Vocabulary
        The model's label channels.
    epsilon : bool, optional
        Allow deletion/insertion actions; default :func:`needs_epsilon`.
    """

    def __init__(self, problem: Problem, vocab: Vocabulary, epsilon: bool | None = None):
        p = problem
        self.problem = p
        self.vocab = vocab
        n1, n2 = self.n1, self.n2 = p.n1, p.n2
        self.epsilon = needs_epsilon(p) if epsilon is None else epsilon
        self.scale = cost_scale(p)
        self.node_costs = p.node_costs / self.scale  # (n1+1, n2+1), ε last
        self.edge_costs = p.edge_label_matrix / self.scale
        K = p.edge_label_matrix.shape[0] - 1
        # label-id adjacency with K for "no edge" and one extra row/column standing for ε
        self.adj1 = np.full((n1 + 1, n1 + 1), K, dtype=np.int64)
        self.adj1[:n1, :n1] = np.where(p.adj1 >= 0, p.adj1, K)
        self.adj2 = np.full((n2 + 1, n2 + 1), K, dtype=np.int64)
        self.adj2[:n2, :n2] = np.where(p.adj2 >= 0, p.adj2, K)
        self.nbr1 = (p.adj1 >= 0).astype(np.float32)
        self.nbr2 = (p.adj2 >= 0).astype(np.float32)

        vn = len(vocab.nodes) + 1  # label channels, "other" last
        x = np.zeros((n1 + n2, vocab.node_features), dtype=np.float32)
        x[np.arange(n1), vocab.node_ids(p.g1)] = 1
        x[n1 + np.arange(n2), vocab.node_ids(p.g2)] = 1
        x[:n1, vn] = 1
        x[n1:, vn + 1] = 1
        x[:n1, -1] = self.node_costs[:n1, n2]
        x[n1:, -1] = self.node_costs[n1, :n2]
        self.static_x = x
        self.status_cols = (vn + 2, vn + 3)  # matched, matched to ε

        e1, e2 = p.g1.edges.astype(np.int64), p.g2.edges.astype(np.int64) + n1
        ends = np.concatenate([e1, e2])
        self.edge_src = np.concatenate([ends[:, 0], ends[:, 1]])
        self.edge_dst = np.concatenate([ends[:, 1], ends[:, 0]])
        attr = np.zeros((len(ends), vocab.edge_features), dtype=np.float32)
        attr[np.arange(len(ends)), np.concatenate([vocab.edge_ids(p.g1), vocab.edge_ids(p.g2)])] = 1
        attr[: len(e1), -1] = self.edge_costs[p.edge_labels1, K]
        attr[len(e1):, -1] = self.edge_costs[K, p.edge_labels2]
        self.edge_attr = np.concatenate([attr, attr])


class States:
    """A batch of partial node maps of one :class:`Instance`, with the edge cost each action
    would add (kept up to date as decisions are applied).

    ``fw[b, u]`` is the g2 node u maps to, :data:`EPSILON` (deleted) or :data:`UNDECIDED`;
    ``bw[b, v]`` likewise for g2. ``added[b, u, v]`` is the edge cost of action (u, v) given the
    decisions of state b, index ``n1`` (row) or ``n2`` (column) standing for ε; it is divided by
    the cost scale like every feature.
    """

    def __init__(self, inst: Instance, fw: np.ndarray, bw: np.ndarray, added: np.ndarray):
        self.inst, self.fw, self.bw, self.added = inst, fw, bw, added

    @classmethod
    def empty(cls, inst: Instance, count: int = 1) -> States:
        return cls(
            inst,
            np.full((count, inst.n1), UNDECIDED, dtype=np.int64),
            np.full((count, inst.n2), UNDECIDED, dtype=np.int64),
            np.zeros((count, inst.n1 + 1, inst.n2 + 1)),
        )

    @classmethod
    def from_decisions(cls, inst: Instance, decisions: Iterable[tuple[int, int]]) -> States:
        """One state with ``decisions`` ((u, v) pairs, -1 for ε) applied."""
        s = cls.empty(inst)
        made = np.array(list(decisions), dtype=np.int64).reshape(-1, 2)
        s._record(np.zeros(len(made), dtype=np.int64), made[:, 0], made[:, 1])
        s.added[0] = _edge_costs_fixed_by(inst, made[:, 0], made[:, 1]).sum(0)
        return s

    def __len__(self) -> int:
        return len(self.fw)

    def take(self, rows: np.ndarray) -> States:
        """The states at ``rows`` (copies; rows may repeat)."""
        return States(self.inst, self.fw[rows], self.bw[rows], self.added[rows])

    def extend(self, other: States) -> States:
        return States(self.inst, np.concatenate([self.fw, other.fw]),
                      np.concatenate([self.bw, other.bw]),
                      np.concatenate([self.added, other.added]))

    def apply(self, rows: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
        """Decide (u[i], v[i]) in state rows[i] (u or v = -1: ε); rows must be distinct."""
        u, v = np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64)
        self._record(rows, u, v)
        self.added[rows] += _edge_costs_fixed_by(self.inst, u, v)

    def _record(self, rows: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
        real_u, real_v = u >= 0, v >= 0
        self.fw[rows[real_u], u[real_u]] = np.where(real_v, v, EPSILON)[real_u]
        self.bw[rows[real_v], v[real_v]] = np.where(real_u, u, EPSILON)[real_v]

    def terminal(self) -> np.ndarray:
        """(B,) True where one side has no undecided node left."""
        return ~((self.fw == UNDECIDED).any(1) & (self.bw == UNDECIDED).any(1))

    def candidates(self) -> np.ndarray:
        """(B, n1+1, n2+1) mask of the allowed actions (index n1 / n2 = ε); empty for terminal
        states."""
        return _candidates(self.inst, self.fw, self.bw)

    def action_costs(self) -> np.ndarray:
        """(B, n1+1, n2+1) scaled cost each action adds (node plus edges to decided nodes)."""
        return self.inst.node_costs[None] + self.added

    def complete_greedily(self, rows: Iterable[int], deadline: float = math.inf) -> bool:
        """Complete the states at ``rows`` without the network: each takes, one decision at a
        time, the cheapest next action (:meth:`action_costs`; ties: the first in row-major
        order, ε last), until it is terminal, or until ``time.perf_counter()`` passes
        ``deadline`` (its decisions per step grow with the nodes' degrees: a dense 2,000-node
        pair's completion took 14 s of a 5 s limit); whether every one was completed.

        Each step is one ``argmin`` over the undecided rows and columns only, and a decision
        updates the costs of the actions next to it alone, so completing a state of ``n``
        undecided nodes per side costs about n³/2 comparisons, not n⁴.

        >>> from gedkit import costs
        >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({0: "O", 1: "C"}))
        >>> s = States.empty(Instance(p, Vocabulary()))
        >>> s.complete_greedily([0])
        True
        >>> s.forwards().tolist()
        [[1, 0]]
        """
        return all(_Greedy(self, int(b)).run(deadline) for b in rows)

    def forwards(self) -> np.ndarray:
        """(B, n1) complete node maps: undecided g1 nodes are deleted, g2 nodes inserted."""
        return np.where(self.fw == UNDECIDED, -1, self.fw)

    def keys(self) -> list[bytes]:
        """One key per state; equal keys, equal partial maps."""
        return [f.tobytes() + b.tobytes() for f, b in zip(self.fw, self.bw, strict=True)]


def greedy_completion(problem: Problem, deadline: float = math.inf) -> np.ndarray | None:
    """The node map of :meth:`States.complete_greedily` from the empty state: the decoder's
    completion without the network (no torch), in milliseconds on molecules; None when
    ``time.perf_counter()`` passes ``deadline`` first.

    >>> from gedkit import costs
    >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({0: "O", 1: "C"}))
    >>> greedy_completion(p).tolist(), greedy_completion(p, deadline=0.0)
    ([1, 0], None)
    """
    states = States.empty(Instance(problem, Vocabulary()))
    return states.forwards()[0] if states.complete_greedily([0], deadline) else None


class _Greedy:
    """One state's greedy completion (:meth:`States.complete_greedily`) on a compacted cost
    matrix: the undecided rows and columns, ε last; decided ones are set to infinity and
    dropped once they are half of the matrix."""

    def __init__(self, states: States, b: int):
        inst = self.inst = states.inst
        self.states, self.b = states, b
        self.rows = np.append(np.flatnonzero(states.fw[b] == UNDECIDED), inst.n1)
        self.cols = np.append(np.flatnonzero(states.bw[b] == UNDECIDED), inst.n2)
        index = np.ix_(self.rows, self.cols)
        self.total = inst.node_costs[index] + states.added[b][index]
        self.total[-1, -1] = np.inf  # ε to ε is no action
        if not inst.epsilon:
            self.total[-1, :] = self.total[:, -1] = np.inf
        self.open = [len(self.rows) - 1, len(self.cols) - 1]
        self.dead = [0, 0]
        # the edge cost of an action next to no decided edge: "no edge" kept as "no edge"
        self.background = float(inst.edge_costs[-1, -1])

    def run(self, deadline: float = math.inf) -> bool:
        """Decide until the state is terminal (True) or the clock passes ``deadline``
        (False, the state left part decided; the clock read before every 8th decision, the
        first included)."""
        steps = 0
        while self.open[0] and self.open[1]:
            if not steps % 8 and time.perf_counter() > deadline:
                return False
            steps += 1
            i, j = divmod(int(np.argmin(self.total)), self.total.shape[1])
            self.decide(i, j)
            if 2 * self.dead[0] > len(self.rows) or 2 * self.dead[1] > len(self.cols):
                self.compact()
        return True

    def decide(self, i: int, j: int) -> None:
        inst, states, b = self.inst, self.states, self.b
        u, v = int(self.rows[i]), int(self.cols[j])
        real_u, real_v = u < inst.n1, v < inst.n2
        if real_u:
            states.fw[b, u] = v if real_v else EPSILON
        if real_v:
            states.bw[b, v] = u if real_u else EPSILON
        # the edge between every action's ends and (u, v) is now settled: only rows next to u
        # and columns next to v see an edge there; every other action pays the background
        a = inst.adj1[self.rows, u]
        e = inst.adj2[self.cols, v]
        no_edge = inst.edge_costs.shape[0] - 1
        near_u = np.flatnonzero(a != no_edge)
        near_v = np.flatnonzero(e != no_edge)
        far_u = np.flatnonzero(a == no_edge)
        added = states.added[b]
        if self.background:
            self.total += self.background
            added[np.ix_(self.rows, self.cols)] += self.background
        for ri, ci in ((near_u, np.arange(len(self.cols))), (far_u, near_v)):
            if len(ri) and len(ci):
                inc = inst.edge_costs[a[ri][:, None], e[ci][None, :]] - self.background
                self.total[np.ix_(ri, ci)] += inc
                added[np.ix_(self.rows[ri], self.cols[ci])] += inc
        if real_u:
            self.total[i, :] = np.inf
            self.open[0] -= 1
            self.dead[0] += 1
        if real_v:
            self.total[:, j] = np.inf
            self.open[1] -= 1
            self.dead[1] += 1

    def compact(self) -> None:
        keep_r = np.append(self.states.fw[self.b, self.rows[:-1]] == UNDECIDED, True)
        keep_c = np.append(self.states.bw[self.b, self.cols[:-1]] == UNDECIDED, True)
        self.total = self.total[np.ix_(keep_r, keep_c)]
        self.rows, self.cols = self.rows[keep_r], self.cols[keep_c]
        self.dead = [0, 0]


def _edge_costs_fixed_by(inst: Instance, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """(D, n1+1, n2+1): for each decision (u[d], v[d]) (-1 = ε), the cost of the edges between
    the decided nodes and the ends of every action, whose fate that decision settles."""
    iu = np.where(u >= 0, u, inst.n1)
    iv = np.where(v >= 0, v, inst.n2)
    return inst.edge_costs[inst.adj1[:, iu].T[:, :, None], inst.adj2[:, iv].T[:, None, :]]


def _candidates(inst: Instance, fw: np.ndarray, bw: np.ndarray) -> np.ndarray:
    open1, open2 = fw == UNDECIDED, bw == UNDECIDED
    live = (open1.any(1) & open2.any(1))[:, None]
    open1, open2 = open1 & live, open2 & live
    mask = np.zeros((len(fw), inst.n1 + 1, inst.n2 + 1), dtype=bool)
    mask[:, :-1, :-1] = open1[:, :, None] & open2[:, None, :]
    if inst.epsilon:
        mask[:, :-1, -1] = open1
        mask[:, -1, :-1] = open2
    return mask


@dataclass
class Encoded:
    """A batch of state graphs as flat arrays, ready for the network.

    ``cand_u`` / ``cand_v``: node row of each candidate's g1 / g2 end, -1 for ε.
    ``action``: (C, 2) the candidate in problem numbering ((u, v), -1 for ε). ``node_graph``
    and ``cand_graph`` give the graph (state) of each node and candidate, ``0..n_graphs-1`` in
    the order the states were given; candidates come grouped by graph.
    """

    x: np.ndarray
    edge_index: np.ndarray
    edge_attr: np.ndarray
    node_graph: np.ndarray
    cand_u: np.ndarray
    cand_v: np.ndarray
    cand_feat: np.ndarray
    cand_graph: np.ndarray
    action: np.ndarray
    n_graphs: int

    @property
    def n_candidates(self) -> int:
        return len(self.cand_u)


def encode(states: States, rows: np.ndarray | None = None) -> Encoded:
    """The graphs of ``states`` (those at ``rows``, default all) as one batch; see the module
    docstring for the features."""
    inst = states.inst
    n1, n2 = inst.n1, inst.n2
    rows = np.arange(len(states)) if rows is None else np.asarray(rows, dtype=np.int64)
    fw, bw = states.fw[rows], states.bw[rows]
    B = len(rows)
    done1, done2 = fw != UNDECIDED, bw != UNDECIDED
    # a node with no undecided neighbour left (an extra True column stands for ε)
    full1 = np.ones((B, n1 + 1), dtype=bool)
    full2 = np.ones((B, n2 + 1), dtype=bool)
    full1[:, :n1] = (~done1).astype(np.float32) @ inst.nbr1 == 0
    full2[:, :n2] = (~done2).astype(np.float32) @ inst.nbr2 == 0
    partner1 = np.take_along_axis(full2, np.where(fw >= 0, fw, n2), 1)
    partner2 = np.take_along_axis(full1, np.where(bw >= 0, bw, n1), 1)
    gone1 = done1 & full1[:, :n1] & partner1
    gone2 = done2 & full2[:, :n2] & partner2
    present = ~np.concatenate([gone1, gone2], axis=1)  # (B, n1+n2)
    new_index = np.cumsum(present.ravel()).reshape(present.shape) - 1

    x = np.broadcast_to(inst.static_x, (B, *inst.static_x.shape)).copy()
    matched_col, eps_col = inst.status_cols
    x[:, :, matched_col] = np.concatenate([fw >= 0, bw >= 0], axis=1)
    x[:, :, eps_col] = np.concatenate([fw == EPSILON, bw == EPSILON], axis=1)
    node_graph = np.repeat(np.arange(B), present.sum(1))
    x = x[present]

    keep = present[:, inst.edge_src] & present[:, inst.edge_dst]  # (B, E)
    b_edge, e_idx = np.nonzero(keep)
    src = new_index[b_edge, inst.edge_src[e_idx]]
    dst = new_index[b_edge, inst.edge_dst[e_idx]]
    attr = inst.edge_attr[e_idx]
    # matching edges of pairs still in the graph (a pair is reduced as a whole)
    b_match, u_match = np.nonzero((fw >= 0) & present[:, :n1])
    v_match = fw[b_match, u_match]
    mu, mv = new_index[b_match, u_match], new_index[b_match, n1 + v_match]
    mattr = np.zeros((len(mu), inst.vocab.edge_features), dtype=np.float32)
    mattr[:, -2] = 1
    mattr[:, -1] = inst.node_costs[u_match, v_match]
    edge_index = np.stack([np.concatenate([src, mu, mv]), np.concatenate([dst, mv, mu])])
    edge_attr = np.concatenate([attr, mattr, mattr])

    cb, cu, cv = np.nonzero(_candidates(inst, fw, bw))
    real_u, real_v = cu < n1, cv < n2
    cand_u = np.where(real_u, new_index[cb, np.where(real_u, cu, 0)], -1)
    cand_v = np.where(real_v, new_index[cb, n1 + np.where(real_v, cv, 0)], -1)
    nc = inst.node_costs
    feat = np.zeros((len(cb), CANDIDATE_FEATURES), dtype=np.float32)
    feat[:, 0] = nc[cu, cv]
    feat[:, 1] = np.where(real_u, nc[cu, n2], 0.0)
    feat[:, 2] = np.where(real_v, nc[n1, cv], 0.0)
    feat[:, 3] = states.added[rows[cb], cu, cv]
    feat[:, 4] = real_u & real_v
    feat[:, 5] = ~real_v
    feat[:, 6] = ~real_u
    action = np.stack([np.where(real_u, cu, -1), np.where(real_v, cv, -1)], axis=1)
    return Encoded(x, edge_index, edge_attr, node_graph, cand_u, cand_v, feat, cb, action, B)


def concat(parts: Sequence[Encoded]) -> Encoded:
    """One batch of several (possibly from different problems), graphs numbered in order."""
    node_off = np.cumsum([0] + [len(p.x) for p in parts[:-1]])
    graph_off = np.cumsum([0] + [p.n_graphs for p in parts[:-1]])

    def shift(a: np.ndarray, off: int) -> np.ndarray:
        return np.where(a >= 0, a + off, -1)

    return Encoded(
        np.concatenate([p.x for p in parts]),
        np.concatenate([p.edge_index + o for p, o in zip(parts, node_off, strict=True)], axis=1),
        np.concatenate([p.edge_attr for p in parts]),
        np.concatenate([p.node_graph + o for p, o in zip(parts, graph_off, strict=True)]),
        np.concatenate([shift(p.cand_u, o) for p, o in zip(parts, node_off, strict=True)]),
        np.concatenate([shift(p.cand_v, o) for p, o in zip(parts, node_off, strict=True)]),
        np.concatenate([p.cand_feat for p in parts]),
        np.concatenate([p.cand_graph + o for p, o in zip(parts, graph_off, strict=True)]),
        np.concatenate([p.action for p in parts]),
        int(sum(p.n_graphs for p in parts)),
    )
