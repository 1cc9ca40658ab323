"""The exact MCES search: both of its phases against brute force, the linear relaxation and
the Lagrangian bound it gives every state, proven bounds at any pause, incumbent seeding."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

import gedkit
from gedkit import Graph
from gedkit.mces import MCESProblem
from gedkit.mces import exact as exact_module
from gedkit.mces.base import Budget
from gedkit.mces.bounds import linear_relaxation, lp_bound, relaxation_model
from gedkit.mces.exact import branch_and_bound
from tests.helpers import random_graph

NO_PROBE, DEFAULT_PROBE = 0, 20_000
# (probe, search): combinatorial search only; relaxation first, then the Lagrangian search;
# relaxation first, then the integer program at once; the defaults
PHASES = [(10**9, 0), (NO_PROBE, 10**9), (NO_PROBE, 0), (DEFAULT_PROBE, 200_000)]


def brute_force(p: MCESProblem, fixed: dict | None = None) -> int:
    """Most common edges over every valid node map that agrees with ``fixed`` ({u: v or -1}),
    by enumeration; the best map is recounted by :meth:`MCESProblem.count`."""
    fixed = fixed or {}
    f = np.full(p.n1, -1, dtype=np.int64)
    used = np.zeros(p.n2, dtype=bool)
    best, best_map = -1, None

    def extend(u: int, count: int) -> None:
        nonlocal best, best_map
        if u == p.n1:
            if count > best:
                best, best_map = count, f.copy()
            return
        options = [fixed[u]] if u in fixed else [-1, *range(p.n2)]
        for v in options:
            if v >= 0 and (used[v] or p.node_labels1[u] != p.node_labels2[v]):
                continue
            gain = 0
            if v >= 0:
                for a in range(u):
                    if f[a] >= 0 and p.adj1[u, a] >= 0 and p.adj1[u, a] == p.adj2[v, f[a]]:
                        gain += 1
                used[v] = True
            f[u] = v
            extend(u + 1, count + gain)
            f[u] = -1
            if v >= 0:
                used[v] = False

    extend(0, 0)
    assert p.count(best_map) == best
    return best


def random_pairs(count: int, seed: int, max_nodes: int = 6):
    """Small labelled graphs; every fourth pair has a single node and edge label (many
    twins, many equivalent maps), a few are empty."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        plain = k % 4 == 0
        labels = {"n_labels": 1 if plain else int(rng.integers(1, 3)),
                  "e_labels": 1 if plain else int(rng.integers(1, 3))}
        low = 0 if k % 10 == 0 else 3
        g1 = random_graph(rng, int(rng.integers(low, max_nodes + 1)), p=0.5, **labels)
        g2 = random_graph(rng, int(rng.integers(low, max_nodes + 1)), p=0.5, **labels)
        yield MCESProblem(g1, g2)


def symmetric_pairs():
    """Stars, complete bipartite graphs and cycles: nodes of g2 with identical neighbours."""
    star = lambda k: Graph({i: "C" for i in range(k + 1)}, [(0, i) for i in range(1, k + 1)])  # noqa: E731
    k23 = Graph({i: "C" for i in range(5)}, [(a, b) for a in (0, 1) for b in (2, 3, 4)])
    cycle = Graph({i: "C" for i in range(6)}, [(i, (i + 1) % 6) for i in range(6)])
    pend = Graph({0: "S", 1: "O", 2: "O", 3: "C", 4: "C"},
                 [(0, 1, 2), (0, 2, 2), (0, 3, 1), (3, 4, 1)])
    pend2 = Graph({0: "C", 1: "S", 2: "O", 3: "O", 4: "O"},
                  [(0, 1, 1), (1, 2, 2), (1, 3, 2), (1, 4, 2)])
    for g1, g2 in ((star(3), star(5)), (k23, star(4)), (cycle, k23), (star(4), cycle),
                   (pend, pend2), (k23, k23)):
        yield MCESProblem(g1, g2)
        yield MCESProblem(g2, g1)


@dataclass
class Countdown(Budget):
    """A budget that runs out after ``checks`` calls of :meth:`expired`: pauses the search at
    many points without depending on the clock."""

    checks: int = 0

    def remaining(self) -> float:
        return math.inf if self.checks > 0 else 0.0

    def expired(self) -> bool:
        self.checks -= 1
        return self.checks < 0


# -- exactness -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("probe", "search"), PHASES)
def test_exact_matches_brute_force(probe, search):
    for p in [*random_pairs(60, seed=21), *symmetric_pairs()]:
        r = branch_and_bound(p, Budget(), probe=probe, search=search)
        assert r.optimal
        assert r.num_edges == brute_force(p)
        assert p.count(r.assignment) == r.num_edges


def test_phases_agree_on_larger_graphs():
    # where brute force is out of reach, every phase must find the same optimum
    rng = np.random.default_rng(22)
    for _ in range(6):
        g1 = random_graph(rng, 12, p=0.3, n_labels=2, e_labels=1)
        g2 = random_graph(rng, 14, p=0.3, n_labels=2, e_labels=1)
        p = MCESProblem(g1, g2)
        results = [branch_and_bound(p, Budget(), probe=a, search=b) for a, b in PHASES]
        assert all(r.optimal for r in results)
        assert len({r.num_edges for r in results}) == 1
        assert "lp_bound" in results[1].stats and "lp_bound" not in results[0].stats


# -- the linear relaxation -------------------------------------------------------------------------
def test_linear_relaxation_bounds_the_optimum():
    for p in random_pairs(40, seed=23):
        best = brute_force(p)
        r = linear_relaxation(p)
        assert r.bound >= best - 1e-9
        assert lp_bound(p) >= best
        for losses in (r.loss_forbid, r.loss_force, r.loss_unmapped):
            assert (losses >= 0).all()
        assert ((r.x >= -1e-9) & (r.x <= 1 + 1e-9)).all()


def lagrangian(r, p: MCESProblem, fixed: dict) -> float:
    """The relaxation's bound on the maps that agree with ``fixed``, as the kernel keeps it:
    minus every ruled-out pair once, every forced pair, every node left unmapped."""
    used = {v for v in fixed.values() if v >= 0}
    bound = r.bound
    for u in range(p.n1):
        for w in range(p.n2):
            if (u in fixed and fixed[u] != w) or (u not in fixed and w in used):
                bound -= r.loss_forbid[u, w]
    for u, v in fixed.items():
        bound -= r.loss_force[u, v] if v >= 0 else r.loss_unmapped[u]
    return bound


def test_lagrangian_bound_holds_on_every_restriction():
    rng = np.random.default_rng(24)
    checked = 0
    for p in random_pairs(40, seed=25):
        r = linear_relaxation(p)
        for _ in range(6):
            fixed, used = {}, set()
            for u in rng.permutation(p.n1)[: int(rng.integers(0, p.n1 + 1))].tolist():
                free = [v for v in range(p.n2)
                        if v not in used and p.node_labels1[u] == p.node_labels2[v]]
                v = int(rng.choice(free)) if free and rng.random() < 0.7 else -1
                fixed[u] = v
                used.add(v)
            assert brute_force(p, fixed) <= lagrangian(r, p, fixed) + 1e-9
            checked += 1
    assert checked == 240


def empty_start(p: MCESProblem):
    """What phases 2 and 3 start from, minus the rounded relaxation (which settles most small
    pairs before they run): no map, the relaxation's cap."""
    relaxation = linear_relaxation(p)
    cap = int(np.floor(relaxation.bound + 1e-7))
    return np.full(p.n1, -1, dtype=np.int64), cap, relaxation


@pytest.mark.parametrize("seed", [30, 31])
def test_lagrangian_search_and_integer_program_alone_are_exact(seed):
    for p in random_pairs(40, seed=seed):
        if p.n1 > p.n2:
            p = p.transposed()  # the search branches on the smaller graph
        best = brute_force(p)
        start, cap, relaxation = empty_start(p)
        pair = exact_module._search_pair(p)
        done, upper, found, _ = exact_module._down_search(
            pair, p, start, cap, relaxation, Budget(), 10**9)
        assert done and upper == best == p.count(found)
        done, upper, found = exact_module._integer_program(
            p, relaxation_model(p), start, cap, Budget(), {})
        assert done and upper == best == p.count(found)


def test_lagrangian_search_pauses_with_proven_caps(monkeypatch):
    monkeypatch.setattr(exact_module, "FIRST_CHUNK", 1)
    for p in random_pairs(20, seed=32):
        if p.n1 > p.n2:
            p = p.transposed()
        best = brute_force(p)
        start, cap, relaxation = empty_start(p)
        pair = exact_module._search_pair(p)
        for checks in range(0, 10, 3):
            for limit in (2, 10**9):
                _, upper, found, _ = exact_module._down_search(
                    pair, p, start, cap, relaxation, Countdown(checks=checks), limit)
                assert p.count(found) <= best <= upper


@pytest.mark.parametrize("connected", [False, True])
def test_the_first_search_resumed_is_one_search(connected):
    # small pairs start with one kernel call that keeps its state inside; when it pauses,
    # its state comes back packed and the search resumes where it stopped: the same
    # expansions, maps and bounds as one search from the start
    from gedkit._kernels import mces_search as kernel

    rng = np.random.default_rng(40)
    resumed = 0
    for _ in range(6):
        p = MCESProblem(molecule_like(rng, 14, 2), molecule_like(rng, 15, 2))
        start = np.full(p.n1, -1, dtype=np.int64)
        root = 10**6
        whole = exact_module._Search(exact_module._search_pair(p), p, start, root, None,
                                     connected=connected)
        assert whole.go(Budget(), None)
        for steps in (1, 7, 50):
            first = exact_module._first_search(p, start, root, connected, steps)
            if first.done:
                assert first.expanded == whole.expanded
                continue
            assert first.expanded == steps
            state = kernel.unpack_state(first.packed)
            assert [(a.dtype, a.shape) for a in state] == [
                (a.dtype, a.shape) for a in kernel.new_state(
                    whole._pair[0], whole._pair[8], len(whole._pair[10]), connected,
                    np.zeros((p.n1, p.n2), dtype=np.int64), root)[0]]
            run = exact_module._Search(exact_module._search_pair(p), p, first.best_map, root,
                                       None, connected=connected, resume=first)
            assert run.go(Budget(), None)
            assert run.expanded == whole.expanded and run.incumbent == whole.incumbent
            assert (run.best_map == whole.best_map).all()
            resumed += 1
    assert resumed >= 6


def test_the_warm_up_reaches_every_entry_point_of_the_search():
    # a kernel the warm-up never calls is compiled by the first solve that needs it, inside
    # that solve's time limit (a fresh process: only what the warm-up called has signatures)
    import subprocess
    import sys

    code = (
        "from gedkit._kernels import warm, mces_search as k, symmetry as s\n"
        "warm._warm_mces()\n"
        "for f in (k.first_search, k.unpack_state, k.new_state, k.search, k.search_inputs,\n"
        "          k.open_bound, k.common_edges, s.seed_classes):\n"
        "    print(f.__name__, len(f.signatures))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    counts = dict(zip(out[::2], map(int, out[1::2]), strict=True))
    assert len(counts) == 8 and all(counts.values()), counts


# -- time limits -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("probe", "search"), [(NO_PROBE, 10**9), (3, 10**9), (3, 2)])
def test_every_pause_gives_proven_bounds(monkeypatch, probe, search):
    monkeypatch.setattr(exact_module, "FIRST_CHUNK", 1)
    for p in random_pairs(12, seed=26, max_nodes=6):
        best = brute_force(p)
        for checks in range(0, 12, 2):
            r = branch_and_bound(p, Countdown(checks=checks), probe=probe, search=search)
            assert r.num_edges <= best <= r.upper_bound
            assert p.count(r.assignment) == r.num_edges


def molecule_like(rng: np.random.Generator, n: int, rings: int) -> Graph:
    """A random tree of mostly carbon atoms plus a few ring-closing bonds."""
    atoms = {i: str(rng.choice(["C", "C", "C", "N", "O"])) for i in range(n)}
    bonds = {(int(rng.integers(i)), i): int(rng.choice([1, 1, 2])) for i in range(1, n)}
    for _ in range(rings):
        a, b = sorted(rng.choice(n, 2, replace=False).tolist())
        bonds.setdefault((a, b), 1)
    return Graph(atoms, [(a, b, lab) for (a, b), lab in bonds.items()])


def test_pauses_on_molecule_like_graphs_keep_bounds(monkeypatch):
    monkeypatch.setattr(exact_module, "FIRST_CHUNK", 1)
    rng = np.random.default_rng(27)
    for _ in range(4):
        p = MCESProblem(molecule_like(rng, 16, 2), molecule_like(rng, 18, 2))
        full = branch_and_bound(p, Budget())
        assert full.optimal
        for checks in (1, 4, 16):
            for probe, search in PHASES:
                r = branch_and_bound(p, Countdown(checks=checks), probe=probe, search=search)
                assert r.num_edges <= full.num_edges <= r.upper_bound


# -- incumbents ------------------------------------------------------------------------------------
def test_incumbent_seeds_the_search():
    rng = np.random.default_rng(28)
    for p in random_pairs(30, seed=29):
        best = branch_and_bound(p, Budget())
        seeded = branch_and_bound(p, Budget(), incumbent=best.assignment)
        assert seeded.optimal and seeded.num_edges == best.num_edges
        # a random valid map: never lost, even when the search is stopped at once
        f = np.full(p.n1, -1)
        for u in rng.permutation(p.n1).tolist():
            free = [v for v in range(p.n2)
                    if v not in f and p.node_labels1[u] == p.node_labels2[v]]
            if free:
                f[u] = rng.choice(free)
        stopped = branch_and_bound(p, Countdown(checks=0), incumbent=f)
        assert stopped.num_edges >= p.count(f)
        assert branch_and_bound(p, Budget(), incumbent=f).num_edges == best.num_edges


def test_optimal_incumbent_on_the_larger_side_is_kept():
    # g1 larger than g2: the search runs on the transposed problem, the map is translated
    big = Graph({i: "C" for i in range(5)}, [(0, 1), (1, 2), (2, 3), (3, 4)])
    small = Graph({"a": "C", "b": "C", "c": "C"}, [("a", "b"), ("b", "c")])
    p = MCESProblem(big, small)
    seed = p.forward_from_pairs({1: "a", 2: "b", 3: "c"})
    r = branch_and_bound(p, Countdown(checks=0), incumbent=seed)
    assert r.num_edges == 2 and r.optimal
    assert r.node_map == [(1, "a"), (2, "b"), (3, "c")]


def test_invalid_incumbent_is_rejected():
    g = Graph({0: "C", 1: "O"}, [(0, 1)])
    with pytest.raises(gedkit.GedkitError, match="label differs"):
        branch_and_bound(MCESProblem(g, g), Budget(), incumbent=[1, 0])
