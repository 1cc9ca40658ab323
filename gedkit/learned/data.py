"""Training data for Gelato: optimal node maps, and the labelled decoding states they give.

1. :func:`label_pairs` runs gedkit's exact solver on each graph pair (with a time limit per
   pair; a map not proven optimal is kept with ``optimal=False``), caching every answer in a
   JSON-lines file so an interrupted run resumes where it stopped.
2. :func:`training_states` turns each labelled pair into about 40 partial states, each a random
   subset of the decisions of the optimal map. In a state, the remaining decisions of that map
   are the positives; every other candidate is a negative unless Weisfeiler–Leman colour
   refinement of the state graph cannot tell it from a positive (same colours at both ends, same
   candidate features): the network could not either, and the choice may well be optimal too
   (a symmetric twin), so such candidates are left out of the loss.

No torch here: the data can be built, inspected and cached without it.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gedkit.errors import FormatError, counted
from gedkit.graph import Graph, intern
from gedkit.learned.features import Encoded, Instance, States, Vocabulary, encode
from gedkit.problem import Problem
from gedkit.solvers import Budget, get_solver

__all__ = [
    "LabelledPair",
    "TrainingState",
    "decisions",
    "distinct_graphs",
    "label",
    "label_pairs",
    "label_targets",
    "training_states",
    "wl_colours",
]


@dataclass
class LabelledPair:
    """A problem with the node map a solver found for it."""

    problem: Problem
    forward: np.ndarray
    cost: float
    optimal: bool
    seconds: float = 0.0


@dataclass(frozen=True)
class TrainingState:
    """One partial state of pair ``pair``: the ``decisions`` made so far ((u, v), -1 for ε),
    and a target per candidate in :func:`~gedkit.learned.features.encode` order: 1 positive,
    0 negative, -1 left out."""

    pair: int
    decisions: tuple[tuple[int, int], ...]
    target: np.ndarray


def label(problem: Problem, timeout: float | None = None, method: str = "exact") -> LabelledPair:
    """The map ``method`` (by default the exact solver) finds for ``problem`` within
    ``timeout`` seconds; ``optimal`` when its bounds prove it. A heuristic ``method`` gives
    the cheap, noisy labels of the limited-supervision experiments."""
    t0 = time.perf_counter()
    r = get_solver(method).solve(problem, Budget(timeout=timeout))
    return LabelledPair(problem, r.assignment, r.upper_bound, r.optimal, time.perf_counter() - t0)


def label_pairs(
    problems: Sequence[Problem],
    keys: Sequence[Any],
    *,
    timeout: float | None,
    method: str = "exact",
    cache: str | Path | None = None,
    header: dict | None = None,
    progress: Callable[[Iterable], Iterable] | None = None,
    note: Callable[[str], None] | None = None,
) -> list[LabelledPair]:
    """Label every problem, reusing and extending the JSON-lines ``cache``.

    Parameters
    ----------
    problems : sequence of Problem
    keys : sequence
        One JSON-ready key per problem (e.g. its graph indices); the cache stores answers by key.
    timeout : float or None
        Seconds per pair for the labelling solver.
    method : str
        The labelling solver (default ``"exact"``); part of what the cache depends on.
    cache : path, optional
        The cache file. Its first line is ``header``; a cache written with another header (other
        data, costs or labelling method) is started afresh, the file as it was kept beside it
        (``.old``), except that under another time limit (header key ``exact_timeout``) the
        proven-optimal labels are kept: a proof holds whatever the time it took.
    header : dict, optional
        What the labels depend on.
    progress : callable, optional
        Wraps the iteration over the problems still to label (e.g. a progress bar).
    note : callable, optional
        Receives one line saying how many cached labels were set aside (made with other
        settings), if any.
    """
    header = {"gelato_labels": 1, **(header or {})}
    if method != "exact":  # caches written before the option existed stay valid
        header["label_method"] = method
    known: dict[str, dict] = {}
    path = Path(cache) if cache is not None else None
    if path is not None and path.exists():
        known, discarded = _read_cache(path, header)
        if discarded:
            # the file as it was kept beside it: a run that then failed (another label method,
            # a refused resume) had lost the labelling of the settings it was made with
            old = path.with_name(path.name + ".old")
            shutil.copyfile(path, old)
            _rewrite(path, header, known)  # the kept labels under the header they now fit
            if note is not None:
                kept = f" ({len(known)} proven-optimal ones kept)" if known else ""
                note(f"{path}: {counted(discarded, 'cached label')} made with other settings "
                     f"set aside{kept}; the file as it was is {old.name} (rename it back to "
                     "use them with those settings)")
    if path is not None and not known:
        path.write_text(json.dumps(header) + "\n")
    todo = [i for i, key in enumerate(keys) if _k(key) not in known]
    reused = len(keys) - len(todo)
    if note is not None and reused and todo:  # (a rerun after Ctrl-C said nothing for a minute)
        note(f"{path}: {reused} of {len(keys)} pairs labelled before; labelling the other "
             f"{len(todo)}")
    if todo:
        # the process's start-ups (numba's, kernels loaded) paid once, before the pairs'
        # limits: under load no 1 s limit afforded them, and 8 of 12 labels came out
        # unproven (each pair proven in a millisecond once they are paid)
        from gedkit.pacing import pay_start_ups

        solver = get_solver(method)
        pay_start_ups(solver, timeout, lambda limit: solver.solve(problems[todo[0]],
                                                                  Budget(timeout=limit)))
    for i in (progress or iter)(todo):
        lp = label(problems[i], timeout, method)
        row = {"key": keys[i], "map": lp.forward.tolist(), "cost": lp.cost,
               "optimal": lp.optimal, "seconds": lp.seconds}
        known[_k(keys[i])] = row
        if path is not None:
            with path.open("a") as fh:  # one line per pair: a crash loses at most one
                fh.write(json.dumps(row) + "\n")
    out = []
    for p, key in zip(problems, keys, strict=True):
        row = known[_k(key)]
        forward = np.array(row["map"], dtype=np.int64)
        if len(forward) != p.n1:
            raise FormatError(f"{path}: the cached map of pair {key} does not fit its graphs")
        out.append(LabelledPair(p, forward, float(row["cost"]), bool(row["optimal"]),
                                float(row["seconds"])))
    return out


def _k(key: Any) -> str:
    return json.dumps(key)


#: header keys that only limit the labelling's time: a label proven optimal under one holds
#: under any other
_TIME_KEYS = ("exact_timeout",)


def _read_cache(path: Path, header: dict) -> tuple[dict[str, dict], int]:
    """(labels of ``path`` valid under ``header``, how many others it holds)."""
    lines = path.read_text().splitlines()
    try:
        first = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        first = None
    header = json.loads(json.dumps(header))
    if first == header:
        return _rows(path, lines), 0
    rows = _rows(path, lines) if _only_time_differs(first, header) else {}
    proven = {k: row for k, row in rows.items() if row.get("optimal")}
    return proven, max(0, len(lines) - 1) - len(proven)


def _only_time_differs(first: Any, header: dict) -> bool:
    if not isinstance(first, dict):
        return False
    def rest(h: dict) -> dict:
        return {k: v for k, v in h.items() if k not in _TIME_KEYS}

    return rest(first) == rest(header)


def _rewrite(path: Path, header: dict, known: dict[str, dict]) -> None:
    from gedkit.nn import write_atomically  # (no torch)

    lines = [json.dumps(header), *(json.dumps(row) for row in known.values())]
    text = "".join(line + "\n" for line in lines)
    write_atomically(path, lambda tmp: tmp.write_text(text))  # a crash keeps the old labels


def _rows(path: Path, lines: list[str]) -> dict[str, dict]:
    known = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):  # a line cut short by a crash: label that pair again
                break
            raise FormatError(f"{path}, line {number}: not a JSON line") from None
        known[_k(row["key"])] = row
    return known


def decisions(inst: Instance, forward: np.ndarray) -> list[tuple[int, int]]:
    """The decoder's decisions that build ``forward`` ((u, v), -1 for ε).

    Without deletion/insertion actions (see
    :func:`~gedkit.learned.features.needs_epsilon`) deleted nodes of g1 are paired with inserted
    nodes of g2 first, which never costs more under such costs, and the forced deletions or
    insertions at the end are not decisions."""
    f = np.asarray(forward, dtype=np.int64).copy()
    inverse = inst.problem.inverse(f)
    deleted, inserted = np.flatnonzero(f < 0), np.flatnonzero(inverse < 0)
    if not inst.epsilon:
        k = min(len(deleted), len(inserted))
        f[deleted[:k]] = inserted[:k]
        return [(int(u), int(v)) for u, v in enumerate(f) if v >= 0]
    return ([(int(u), int(v)) for u, v in enumerate(f) if v >= 0]
            + [(int(u), -1) for u in deleted] + [(-1, int(v)) for v in inserted])


def training_states(
    pairs: Sequence[LabelledPair],
    vocab: Vocabulary,
    *,
    per_pair: int = 40,
    seed: int = 0,
) -> tuple[list[Instance], list[TrainingState]]:
    """The instances of ``pairs`` and up to ``per_pair`` distinct labelled states of each."""
    rng = np.random.default_rng(seed)
    instances = [Instance(lp.problem, vocab) for lp in pairs]
    states: list[TrainingState] = []
    for index, (inst, lp) in enumerate(zip(instances, pairs, strict=True)):
        moves = decisions(inst, lp.forward)
        seen: set[tuple[int, ...]] = set()
        for _ in range(per_pair if moves else 0):
            made = tuple(sorted(rng.choice(len(moves), rng.integers(len(moves)), replace=False)))
            if made in seen:
                continue
            seen.add(made)
            s = States.from_decisions(inst, (moves[i] for i in made))
            if s.terminal()[0]:
                continue
            remaining = {moves[i] for i in set(range(len(moves))) - set(made)}
            target = label_targets(encode(s), remaining)
            states.append(TrainingState(index, tuple(moves[i] for i in made), target))
    return instances, states


def label_targets(enc: Encoded, positives: set[tuple[int, int]]) -> np.ndarray:
    """Targets of the candidates of one encoded state: 1 for ``positives``, -1 for candidates
    Weisfeiler–Leman cannot tell from a positive, 0 for the rest."""
    colour = wl_colours(enc)
    ends = np.stack([np.where(enc.cand_u >= 0, colour[enc.cand_u], -1),
                     np.where(enc.cand_v >= 0, colour[enc.cand_v], -1)], axis=1)
    feats = np.round(enc.cand_feat, 6)
    keys = [(a, b, f.tobytes()) for (a, b), f in zip(ends.tolist(), feats, strict=True)]
    pos = np.array([tuple(a) in positives for a in enc.action.tolist()], dtype=bool)
    twins = {key for key, p in zip(keys, pos, strict=True) if p}
    out = np.zeros(len(keys), dtype=np.int8)
    out[[k in twins for k in keys]] = -1
    out[pos] = 1
    return out


def wl_colours(enc: Encoded) -> np.ndarray:
    """Stable Weisfeiler–Leman colours of the nodes of ``enc`` (one graph or a batch), starting
    from the node features and refining by (edge features, neighbour colour) multisets.

    >>> from gedkit import costs
    >>> from gedkit.learned.features import Instance, States, Vocabulary, encode
    >>> path = Graph(range(3), [(0, 1), (1, 2)])
    >>> inst = Instance(costs.uniform().compile(path, path), Vocabulary())
    >>> wl_colours(encode(States.empty(inst))).tolist()   # ends, middle; on both sides
    [0, 1, 0, 2, 3, 2]
    """
    colour = _intern(enc.x)
    edge = _intern(enc.edge_attr)
    src, dst = enc.edge_index
    for _ in range(len(colour)):
        # each node's sorted multiset of (edge colour, neighbour colour)
        order = np.lexsort((colour[src], edge, dst))
        nbrs: list[list[tuple[int, int]]] = [[] for _ in colour]
        for e in order.tolist():
            nbrs[dst[e]].append((int(edge[e]), int(colour[src[e]])))
        signatures = [(int(c), tuple(n)) for c, n in zip(colour, nbrs, strict=True)]
        refined = intern(signatures)
        if refined.max(initial=-1) == colour.max(initial=-1):
            break  # no class split: the colouring is stable
        colour = refined
    return colour


def _intern(rows: np.ndarray) -> np.ndarray:
    """One id per distinct row, numbered in order of first appearance."""
    return intern(r.tobytes() for r in np.ascontiguousarray(rows))


def distinct_graphs(graphs: Sequence[Graph], exclude: Sequence[Graph] = ()) -> list[int]:
    """Indices of ``graphs`` that are neither isomorphic (labels respected) to an earlier one
    nor to any graph of ``exclude``: training data free of duplicates and of test graphs."""
    import networkx as nx
    from networkx.algorithms.isomorphism import categorical_edge_match, categorical_node_match

    def as_nx(g: Graph) -> nx.Graph:
        h = nx.Graph()
        h.add_nodes_from((i, {"k": repr(k)}) for i, k in enumerate(g.node_keys))
        h.add_edges_from((int(a), int(b), {"k": repr(k)})
                         for (a, b), k in zip(g.edges.tolist(), g.edge_keys, strict=True))
        return h

    nm, em = categorical_node_match("k", None), categorical_edge_match("k", None)
    buckets: dict[str, list[nx.Graph]] = {}

    def seen_before(g: Graph) -> bool:
        """Whether ``g`` matches a graph met so far (and remember it if not)."""
        h = as_nx(g)
        key = nx.weisfeiler_lehman_graph_hash(h, node_attr="k", edge_attr="k")
        bucket = buckets.setdefault(key, [])
        if any(nx.is_isomorphic(h, o, node_match=nm, edge_match=em) for o in bucket):
            return True
        bucket.append(h)
        return False

    for g in exclude:
        seen_before(g)
    return [i for i, g in enumerate(graphs) if not seen_before(g)]

