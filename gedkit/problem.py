"""A compiled GED instance: the one place that knows what a node map costs.

A node map is an int array ``forward`` of length ``n1``: ``forward[i] = j`` substitutes node
``i`` of g1 by node ``j`` of g2, ``forward[i] = -1`` deletes node ``i``; nodes of g2 that no node
maps to are inserted. Edges follow the nodes: an edge of g1 whose two ends land on an edge of g2
is substituted by it, every other edge of g1 is deleted, every other edge of g2 inserted.
Directed (both graphs directed), the same holds for arcs, ordered pairs: the arc (i, j) of g1
lands on the arc (f(i), f(j)) of g2 if there is one, so an arc mapped against the reversed arc
is deleted and the other inserted. A self-loop maps with its node: substituted by the loop of
the node it maps to, deleted when there is none (or the node is deleted), inserted likewise; so
its cost depends on the node pair alone and is part of ``node_costs`` (see :class:`LoopCosts`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from gedkit.graph import Graph
from gedkit.numeric import TOL, all_integers
from gedkit.pair import GraphPair, label_adjacency
from gedkit.text import label_text, relabel_texts

__all__ = ["EditOperation", "LoopCosts", "Problem", "SearchLabels"]



@dataclass(frozen=True)
class EditOperation:
    """One edit: ``kind`` is ``node_sub``, ``node_del``, ``node_ins``, ``edge_sub``,
    ``edge_del`` or ``edge_ins``; ``source``/``target`` are caller ids (a node id, or a pair of
    node ids for an edge; ``None`` on the side that does not exist).

    ``source_label``/``target_label`` are the labels of what is edited, when known (a
    :class:`~gedkit.result.Result`'s edit path knows them); they take no part in equality,
    nor does ``arc`` (the edge is an arc, from its first node to its second: ``a→b``).
    ``str(op)`` (:meth:`describe`) speaks ids and labels, ``repr(op)`` adds the cost.

    Examples
    --------
    >>> op = EditOperation("node_sub", 3, 3, 1.0, "C", "N")
    >>> print(op)
    relabel node 3: C → N
    >>> op
    <EditOperation relabel node 3: C → N, cost 1>
    >>> print(EditOperation("edge_del", (1, 2), None, 1.0, 2))
    delete edge 1–2 (2)
    >>> op == EditOperation("node_sub", 3, 3, 1.0)
    True
    >>> print(EditOperation("edge_ins", None, (2, 1), 1.0, arc=True))
    insert edge 2→1
    """

    kind: str
    source: Any
    target: Any
    cost: float
    source_label: Any = field(default=None, compare=False)
    target_label: Any = field(default=None, compare=False)
    arc: bool = field(default=False, compare=False)

    def to_dict(self) -> dict:
        """JSON-ready: ``op`` (the kind), ``source``, ``target``, ``cost``, and the labels
        edited when known (``source_label``, ``target_label``: the text output showed them,
        the JSON did not).

        >>> d = EditOperation("node_sub", 3, 3, 1.0, "C", "N").to_dict()
        >>> d["op"], d["source_label"], d["target_label"]
        ('node_sub', 'C', 'N')
        """
        out = {"op": self.kind, "source": self.source, "target": self.target, "cost": self.cost}
        if self.source_label is not None:
            out["source_label"] = self.source_label
        if self.target_label is not None:
            out["target_label"] = self.target_label
        return out

    def with_labels(self, g1: Graph, g2: Graph) -> EditOperation:
        """The same operation carrying the labels it edits, looked up in ``g1`` and ``g2``."""
        edge = self.kind.startswith("edge")
        return replace(self, source_label=_label_of(g1, self.source, edge),
                       target_label=_label_of(g2, self.target, edge))

    def describe(self, *, cost: bool = False) -> str:
        """The operation in words, with ids and labels: ``delete node 9 (O)``,
        ``relabel node 3: C → N``, ``insert edge a–c (1)``; ``cost=True`` appends the cost.

        >>> EditOperation("node_ins", None, "c", 1.0, None, "H").describe(cost=True)
        'insert node c (H), cost 1'
        >>> EditOperation("node_sub", 1, "b", 2.0, "C", "N").describe()
        'relabel node 1 → b: C → N'
        >>> EditOperation("node_sub", 0, 0, 1.0, 1, "1").describe()  # labels that read alike
        "relabel node 0: 1 → '1'"
        """
        element = self.kind[:4]
        edge = element == "edge"
        join = "→" if self.arc else "–"
        if self.kind.endswith("_del"):
            text = (f"delete {element} {_id_text(self.source, edge, join)}"
                    f"{_paren(self.source_label)}")
        elif self.kind.endswith("_ins"):
            text = (f"insert {element} {_id_text(self.target, edge, join)}"
                    f"{_paren(self.target_label)}")
        else:
            where = _id_text(self.source, edge, join)
            if not _same_id(self.source, self.target):
                where += f" → {_id_text(self.target, edge, join)}"
            a, b = relabel_texts(self.source_label, self.target_label)
            text = f"relabel {element} {where}: {a or '-'} → {b or '-'}"
        return f"{text}, cost {self.cost:g}" if cost else text

    def __str__(self) -> str:
        return self.describe()

    def __repr__(self) -> str:
        return f"<EditOperation {self.describe(cost=True)}>"


def _label_of(g: Graph, item: Any, edge: bool) -> Any:
    if item is None:
        return None
    return g.edge_label(*item) if edge else g.node_label(item)


def _id_text(item: Any, edge: bool, join: str = "–") -> str:
    if edge:
        return f"{item[0]}{join}{item[1]}"
    return str(item)


def _same_id(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # ids whose == is not a plain bool (arrays...): say both
        return False


def _paren(label: Any) -> str:
    text = label_text(label)
    return f" ({text})" if text else ""


class Problem(GraphPair):
    """All costs of one graph pair as arrays.

    Built by :meth:`gedkit.costs.CostModel.compile`; solvers read the arrays and nothing else.

    Attributes
    ----------
    node_costs : ndarray, shape (n1+1, n2+1)
        Substitution costs, last column deletion, last row insertion.
    adj1, adj2 : ndarray of int32
        Dense adjacency holding the edge-label id of each edge, -1 for no edge.
    edge_label_matrix : ndarray, shape (K+1, K+1)
        Edge costs between the K distinct edge labels of both graphs (last column deletion, last
        row insertion). Substitutions are capped at deletion + insertion, since the edit path may
        always take that route.
    node_labels1, node_labels2 : ndarray of int32
        Jointly interned node-label ids (equal labels, equal ids). With self-loops, the label
        of a node is the pair (its label, its loop's label or none), and
        ``node_label_matrix`` prices those pairs, loops included (see :class:`LoopCosts`).
    loops : LoopCosts or None
        How self-loops were folded into the node costs; None when neither graph has one.
    allowed : ndarray of bool, shape (n1+1, n2+1), or None
        Fixed and forbidden node pairs (see :mod:`gedkit.constraints` and
        :meth:`constrained`): what is not allowed costs :attr:`big_m` in ``node_costs``.
        None (the default): unconstrained.
    """

    allowed: np.ndarray | None = None
    big_m: float | None = None
    loops: LoopCosts | None = None

    def __init__(
        self,
        g1: Graph,
        g2: Graph,
        *,
        node_label_matrix: np.ndarray,
        node_labels1: np.ndarray,
        node_labels2: np.ndarray,
        edge_label_matrix: np.ndarray,
        edge_labels1: np.ndarray,
        edge_labels2: np.ndarray,
        cost_model: Any = None,
        loops: LoopCosts | None = None,
    ):
        self.g1, self.g2 = g1, g2
        if loops is not None:
            self.loops = loops
        self.cost_model = cost_model
        self.node_label_matrix = node_label_matrix
        self.node_labels1 = np.ascontiguousarray(node_labels1, dtype=np.int32)
        self.node_labels2 = np.ascontiguousarray(node_labels2, dtype=np.int32)
        self.edge_labels1 = np.ascontiguousarray(edge_labels1, dtype=np.int32)
        self.edge_labels2 = np.ascontiguousarray(edge_labels2, dtype=np.int32)
        k = node_label_matrix.shape[0] - 1
        rows = np.append(self.node_labels1, k)
        cols = np.append(self.node_labels2, k)
        self.node_costs = np.ascontiguousarray(node_label_matrix[np.ix_(rows, cols)])

        # Edge substitution above deletion + insertion would make the node-map cost exceed the
        # true edit cost; the path takes the cheaper route instead (reported by edit_path).
        self.edge_label_matrix, self._edge_split = capped_edge_costs(edge_label_matrix)
        self.adj1 = label_adjacency(g1, self.edge_labels1)
        self.adj2 = label_adjacency(g2, self.edge_labels2)

    @property
    def directed(self) -> bool:
        """Whether both graphs are directed (their edges are arcs; ``adj1``/``adj2`` are
        then not symmetric: ``adj[i, j]`` is the arc from i to j)."""
        return self.g1.directed

    # -- fixed and forbidden pairs --------------------------------------------------------------
    def constrained(self, fixed: Any = None, forbidden: Any = None) -> Problem:
        """This problem with fixed and forbidden node pairs (caller ids; ``None`` on one side
        is ε, see :mod:`gedkit.constraints`): every solver's map keeps them, and its bounds
        bound the constrained distance. Returns ``self`` when both are empty.

        >>> from gedkit import Graph, costs
        >>> g = Graph({0: "C", 1: "O"}, [(0, 1)])
        >>> p = costs.uniform().compile(g, g).constrained(fixed=[(0, 1)])
        >>> p.cost([1, 0]), p.satisfies([1, 0]), p.satisfies([0, 1])
        (2.0, True, False)
        """
        from gedkit.constraints import allowed_matrix

        allowed = allowed_matrix(self, fixed, forbidden)
        return self if allowed is None else self.with_allowed(allowed)

    def with_allowed(self, allowed: np.ndarray) -> Problem:
        """This problem restricted further to the ``(n1+1) × (n2+1)`` boolean matrix
        ``allowed`` (node-index level; :meth:`constrained` speaks caller ids)."""
        from gedkit.constraints import big_m

        base = self.unconstrained
        allowed = np.array(allowed, dtype=bool)
        if self.allowed is not None:
            allowed &= self.allowed
        allowed[-1, -1] = True
        p = Problem.__new__(Problem)
        p.__dict__.update(base.__dict__)
        for key in ("_heuristics", "integral_costs", "search_labels"):
            p.__dict__.pop(key, None)
        p.largest_cost = base.largest_cost  # the scale of the real costs
        p.big_m = big_m(base)
        p.allowed = allowed
        p._base = base
        p.node_costs = np.ascontiguousarray(np.where(allowed, base.node_costs, p.big_m))
        return p

    @property
    def unconstrained(self) -> Problem:
        """The same problem without fixed and forbidden pairs (itself when it has none)."""
        return self.__dict__.get("_base", self)

    def satisfies(self, forward: Any) -> bool:
        """Whether the node map ``forward`` keeps the fixed and forbidden pairs."""
        from gedkit.constraints import satisfies

        return satisfies(self.allowed, self.check_map(forward))

    @cached_property
    def search_labels(self) -> SearchLabels:
        """Node labels and label costs as exact tree search reads them.

        Unconstrained: the problem's own. With fixed or forbidden pairs, nodes whose allowed
        entries differ get labels of their own (so that no two nodes the constraints tell
        apart look interchangeable), priced like the label they refine, at :attr:`big_m`
        where the constraints forbid every pair of two labels; the costs then no longer
        depend on label equality alone (``constant`` is None)."""
        const = self.constant_costs
        if self.allowed is None:
            return SearchLabels(self.node_label_matrix, self.node_labels1, self.node_labels2,
                                None if const is None else const[:3])
        return _refined_labels(self)

    @cached_property
    def constant_costs(self) -> tuple[float, float, float, float, float, float] | None:
        """``(node_ins, node_del, node_sub, edge_ins, edge_del, edge_sub)`` when every cost
        of the cost model depends on label equality alone (substitution capped at deletion +
        insertion), else ``None``. Solvers use it to replace matchings by counting. Fixed
        and forbidden pairs (:attr:`allowed`) come on top, in ``node_costs`` only: what
        counts labels is a lower bound then, never a map's cost."""
        declared = getattr(self.cost_model, "equality_costs", None)
        if declared is not None and self.loops is None:  # loops price node pairs otherwise
            return tuple(declared)
        node = _constant_structure(self.node_label_matrix)
        edge = _constant_structure(self.edge_label_matrix)
        if node is None or edge is None:
            return None
        return node + edge

    @cached_property
    def integral_costs(self) -> bool:
        """True when every cost is an integer, so bounds may be rounded up."""
        if self.constant_costs is not None:
            return all_integers(self.constant_costs)
        return all_integers(self.node_costs, self.edge_label_matrix)

    @cached_property
    def largest_cost(self) -> float:
        """The largest single cost (sets the scale of rounding tolerances)."""
        if self.constant_costs is not None:
            return max(self.constant_costs, default=0.0)
        return float(max(self.node_costs.max(initial=0.0), self.edge_label_matrix.max(initial=0.0)))

    def transposed(self) -> Problem:
        """The same instance seen from g2: deletions become insertions and vice versa."""
        p = Problem.__new__(Problem)
        p.g1, p.g2, p.cost_model = self.g2, self.g1, self.cost_model
        p.node_label_matrix = self.node_label_matrix.T
        p.node_labels1, p.node_labels2 = self.node_labels2, self.node_labels1
        p.edge_labels1, p.edge_labels2 = self.edge_labels2, self.edge_labels1
        p.node_costs = np.ascontiguousarray(self.node_costs.T)
        p.edge_label_matrix = np.ascontiguousarray(self.edge_label_matrix.T)
        p._edge_split = self._edge_split.T
        p.adj1, p.adj2 = self.adj2, self.adj1
        if self.loops is not None:
            p.loops = self.loops.transposed()
        c = self.constant_costs
        p.__dict__["constant_costs"] = None if c is None else (c[1], c[0], c[2], c[4], c[3], c[5])
        if self.allowed is not None:
            p.allowed = np.ascontiguousarray(self.allowed.T)
            p.big_m = self.big_m
            p._base = self._base.transposed()
            p.largest_cost = self.largest_cost
        return p

    # -- node maps -----------------------------------------------------------------------------
    def cost(self, forward: Any) -> float:
        """Exact cost of a complete node map, recomputed from scratch.

        Every solver's upper bound is this value for the map it returns.

        >>> from gedkit import Graph, costs
        >>> p = costs.uniform().compile(Graph({0: "C", 1: "O"}, [(0, 1)]), Graph({0: "C"}))
        >>> p.cost([0, -1])   # keep C, delete O and the bond
        2.0
        """
        from gedkit._kernels import warm
        from gedkit._kernels.cost import INVALID, map_cost

        f = np.ascontiguousarray(forward, dtype=np.int64)
        # until compiled kernels run in this process, the kernel's plain-Python source gives
        # the same sum: no call waits for a compiler, numba's import or its start-up
        if warm.started() and warm.ready("cost"):
            from gedkit._kernels.cost_kernel import map_cost
        value = map_cost(
            f, self.node_costs, self.adj1, self.adj2, self.edge_label_matrix,
            self.g1.edges, self.edge_labels1, self.g2.edges, self.edge_labels2,
        )
        if value == INVALID:
            self.check_map(f)  # raises with the precise reason
        return float(value)

    def edit_path(self, forward: Any) -> list[EditOperation]:
        """The edit operations a node map implies, each with its cost; their costs sum to
        :meth:`cost`. Substitutions between equal labels (free, no edit) are left out."""
        return list(self.edit_operations(forward))

    def edit_operations(self, forward: Any) -> Iterator[EditOperation]:
        """:meth:`edit_path` one operation at a time, made as they are asked for (a report
        shows the first of a 2,000-node pair's 190,000)."""
        f = self.check_map(forward)
        inv = self.inverse(f)
        ids1, ids2 = self.g1.ids, self.g2.ids
        arc = self.directed

        def op(kind: str, source: Any, target: Any, cost: Any) -> EditOperation:
            return EditOperation(kind, source, target, float(cost),
                                 arc=arc and kind.startswith("edge"))

        loops = self.loops
        if loops is not None:  # the node's own part of each cost; its loop's comes below
            lab1, lab2, nmat = loops.node_labels1, loops.node_labels2, loops.node_matrix
            kn = nmat.shape[0] - 1
            dels = nmat[lab1, kn]
            inss = nmat[kn, lab2]
        else:
            lab1, lab2 = self.node_labels1, self.node_labels2
            dels, inss = self.node_costs[:-1, -1], self.node_costs[-1, :-1]
        for i in range(self.n1):
            j = int(f[i])
            if j < 0:
                yield op("node_del", ids1[i], None, dels[i])
                continue
            sub = self.node_costs[i, j] if loops is None else nmat[lab1[i], lab2[j]]
            if lab1[i] != lab2[j] or sub != 0:
                yield op("node_sub", ids1[i], ids2[j], sub)
        for j in np.flatnonzero(inv < 0):
            yield op("node_ins", None, ids2[j], inss[j])
        if loops is not None:
            for o in loops.edits(f, inv, ids1, ids2):
                yield op(o.kind, o.source, o.target, o.cost)

        K = self.edge_label_matrix.shape[0] - 1
        raw_del = self.edge_label_matrix[:, K]
        raw_ins = self.edge_label_matrix[K, :]
        for (a, b), la in zip(self.g1.edges.tolist(), self.edge_labels1.tolist(), strict=True):
            src = (ids1[a], ids1[b])
            fa, fb = int(f[a]), int(f[b])
            lb = self.adj2[fa, fb] if fa >= 0 and fb >= 0 else -1
            if lb < 0:
                yield op("edge_del", src, None, raw_del[la])
                continue
            dst = (ids2[fa], ids2[fb])
            if self._edge_split[la, lb]:
                yield op("edge_del", src, None, raw_del[la])
                yield op("edge_ins", None, dst, raw_ins[lb])
            elif la != lb or self.edge_label_matrix[la, lb] != 0:
                yield op("edge_sub", src, dst, self.edge_label_matrix[la, lb])
        for (c, d), lb in zip(self.g2.edges.tolist(), self.edge_labels2.tolist(), strict=True):
            ia, ib = int(inv[c]), int(inv[d])
            if ia < 0 or ib < 0 or self.adj1[ia, ib] < 0:
                yield op("edge_ins", None, (ids2[c], ids2[d]), raw_ins[lb])

    def node_map_pairs(self, forward: Any) -> list[tuple[Any, Any]]:
        """The node map in caller ids: ``(u, v)`` substitutions, ``(u, None)`` deletions,
        ``(None, v)`` insertions."""
        f = self.check_map(forward)
        inv = self.inverse(f)
        ids1, ids2 = self.g1.ids, self.g2.ids
        pairs = [(ids1[i], ids2[j] if j >= 0 else None) for i, j in enumerate(f.tolist())]
        pairs += [(None, ids2[j]) for j in np.flatnonzero(inv < 0).tolist()]
        return pairs

    def __repr__(self) -> str:
        return f"<Problem n1={self.n1} n2={self.n2} costs={getattr(self.cost_model, 'name', '?')}>"


class LoopCosts(NamedTuple):
    """How a problem's self-loops were priced into its node costs (by
    :meth:`gedkit.costs.CostModel.compile`): what the edit path needs to tell a node's edit
    from its loop's.

    ``node_matrix`` and ``node_labels1``/``node_labels2`` are the node costs and label ids
    before the fold; ``raw`` is the edge-cost matrix over the loops' distinct labels (last
    row insertion, last column deletion), ``capped`` the same with substitutions capped at
    deletion + insertion, ``split`` where that cap applied; ``loop1``/``loop2`` the loop label
    id of each node, ``len(raw) - 1`` for a node without a loop. The problem's
    ``node_label_matrix[c1, c2]`` is ``node_matrix[a1, a2] + capped[l1, l2]`` for the pairs
    ``c = (a, l)``.
    """

    node_matrix: np.ndarray
    node_labels1: np.ndarray
    node_labels2: np.ndarray
    raw: np.ndarray
    capped: np.ndarray
    split: np.ndarray
    loop1: np.ndarray
    loop2: np.ndarray

    def transposed(self) -> LoopCosts:
        return LoopCosts(self.node_matrix.T, self.node_labels2, self.node_labels1, self.raw.T,
                         self.capped.T, self.split.T, self.loop2, self.loop1)

    def edits(self, f: np.ndarray, inv: np.ndarray, ids1: tuple, ids2: tuple
              ) -> list[EditOperation]:
        """The loop operations of the node map ``f`` (``inv`` its inverse)."""
        none = self.raw.shape[0] - 1
        ops: list[EditOperation] = []
        for i, la in enumerate(self.loop1.tolist()):
            j = int(f[i])
            lb = int(self.loop2[j]) if j >= 0 else none
            src = (ids1[i], ids1[i])
            if la == none:
                if lb != none:
                    ops.append(EditOperation("edge_ins", None, (ids2[j], ids2[j]),
                                             self.raw[none, lb]))
            elif lb == none:
                ops.append(EditOperation("edge_del", src, None, self.raw[la, none]))
            elif self.split[la, lb]:
                ops.append(EditOperation("edge_del", src, None, self.raw[la, none]))
                ops.append(EditOperation("edge_ins", None, (ids2[j], ids2[j]),
                                         self.raw[none, lb]))
            elif la != lb or self.capped[la, lb] != 0:
                ops.append(EditOperation("edge_sub", src, (ids2[j], ids2[j]),
                                         self.capped[la, lb]))
        for j in np.flatnonzero(inv < 0).tolist():
            lb = int(self.loop2[j])
            if lb != none:
                ops.append(EditOperation("edge_ins", None, (ids2[j], ids2[j]),
                                         self.raw[none, lb]))
        return ops


class SearchLabels(NamedTuple):
    """What tree search reads as node labels: the label-cost matrix, both graphs' label ids,
    and ``(ins, del, sub)`` when node costs depend on label equality alone, else None."""

    matrix: np.ndarray
    labels1: np.ndarray
    labels2: np.ndarray
    constant: tuple[float, float, float] | None


def _refined_labels(p: Problem) -> SearchLabels:
    """:attr:`Problem.search_labels` of a constrained problem: each node gets the label id of
    (its label, its row or column of ``allowed``); nodes whose row or column allows all keep
    their label's id."""
    allowed, n1, n2 = p.allowed, p.n1, p.n2
    k = p.node_label_matrix.shape[0] - 1
    source: list[int] = list(range(k))  # new id -> the label id it refines
    fresh: dict[tuple, int] = {}

    def refine(labels: np.ndarray, patterns: np.ndarray, side: int) -> np.ndarray:
        out = labels.astype(np.int64).copy()
        for x in np.flatnonzero(~patterns.all(axis=1)):
            key = (side, int(labels[x]), patterns[x].tobytes())
            if key not in fresh:
                fresh[key] = len(source)
                source.append(int(labels[x]))
            out[x] = fresh[key]
        return out

    nl1 = refine(p.node_labels1, allowed[:n1, :], 1)
    nl2 = refine(p.node_labels2, allowed[:, :n2].T, 2)
    kk = len(source)
    index = np.append(np.array(source, dtype=np.int64), k)
    matrix = np.array(p.node_label_matrix, dtype=np.float64)[np.ix_(index, index)]
    # where no node of label a may take any node of label b (or ε), their cost is big_m
    one1 = np.zeros((n1 + 1, kk + 1))
    one1[np.arange(n1), nl1] = 1.0
    one1[n1, kk] = 1.0
    one2 = np.zeros((n2 + 1, kk + 1))
    one2[np.arange(n2), nl2] = 1.0
    one2[n2, kk] = 1.0
    pairs = one1.T @ allowed.astype(np.float64) @ one2
    present = np.outer(one1.sum(axis=0) > 0, one2.sum(axis=0) > 0)
    matrix[present & (pairs < 0.5)] = p.big_m
    matrix[kk, kk] = 0.0
    return SearchLabels(np.ascontiguousarray(matrix), nl1.astype(np.int32), nl2.astype(np.int32),
                        None)


def capped_edge_costs(edge_label_matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Edge costs as node maps pay them: a substitution dearer than deleting one edge and
    inserting the other costs that instead. Returns the capped matrix and where it was capped
    (those substitutions are a deletion and an insertion in the edit path)."""
    raw = np.asarray(edge_label_matrix, dtype=np.float64)
    K = raw.shape[0] - 1
    split = raw[:K, :K] > raw[:K, K : K + 1] + raw[K : K + 1, :K] + TOL
    eff = raw.copy()
    eff[:K, :K] = np.where(split, raw[:K, K : K + 1] + raw[K : K + 1, :K], raw[:K, :K])
    return eff, split


def _constant_structure(mat: np.ndarray) -> tuple[float, float, float] | None:
    """``(ins, del, sub)`` if ``mat`` is free on the diagonal, ``sub`` elsewhere, constant
    deletion and insertion; else None."""
    k = mat.shape[0] - 1
    dels, ins = mat[:k, k], mat[k, :k]
    if k == 0:
        return (0.0, 0.0, 0.0)
    if np.ptp(dels) > TOL or np.ptp(ins) > TOL:
        return None
    sub = mat[:k, :k]
    if np.any(np.abs(np.diag(sub)) > TOL):
        return None
    off = sub[~np.eye(k, dtype=bool)]
    if off.size and np.ptp(off) > TOL:
        return None
    return (float(ins[0]), float(dels[0]), float(off[0]) if off.size else 0.0)
