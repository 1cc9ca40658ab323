"""Self-loops (issue 16 item 2): a loop is an edge of its own that maps with its node, priced by
the cost model's edge costs; multigraphs stay refused, in one line that says it is by design.

The reference distances here never go through :class:`gedkit.Problem`: ``direct_ged`` prices
each node map edge by edge from the labels and the cost model's six functions."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import gedkit
from gedkit import Graph, GraphError, costs
from gedkit.solvers import Budget, available, get_solver
from gedkit.testing.brute import brute_force_ged, direct_ged, direct_ged_cost
from gedkit.testing.generate import random_constraints, random_costs, random_graph

TOL = 1e-9


def looped_pairs(seed: int, count: int, most: int = 5):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        g1, g2 = (random_graph(rng, int(rng.integers(0, most + 1)), loops=0.5,
                               name=f"g{side}") for side in (1, 2))
        model = random_costs(rng) if trial % 2 else costs.uniform()
        yield trial, g1, g2, model


# -- the graph --------------------------------------------------------------------------------
def test_a_loop_is_kept_apart_from_the_edges():
    g = Graph({"a": "C", "b": "O", "c": "N"}, [("a", "b", 1), ("c", "c", "x"), ("a", "a", 0)],
              name="g")
    assert g.m == 1 and g.edges.tolist() == [[0, 1]]
    assert g.loops == {0: 0, 2: "x"}  # in node order, whatever order they came in
    assert g.edge_label("c", "c") == "x" and g.edge_label("a", "a") == 0
    assert g.degrees().tolist() == [1, 1, 0]
    assert repr(g) == "<Graph 'g' n=3 m=1 loops=2>"
    with pytest.raises(GraphError, match="no self-loop on 'b'"):
        g.edge_label("b", "b")
    # equality, permutation and NetworkX see the loops
    assert g != Graph({"a": "C", "b": "O", "c": "N"}, [("a", "b", 1), ("c", "c", "x")])
    assert g.permuted([2, 0, 1]) == g and g.permuted([2, 0, 1]).loops == {0: "x", 1: 0}
    h = g.to_networkx()
    assert nx.number_of_selfloops(h) == 2 and h.edges["c", "c"] == {"label": "x"}
    assert Graph.from_networkx(h, node_label="label", edge_label="label") == g


@pytest.mark.parametrize("make", [
    lambda: Graph([1], [(1, 1), (1, 1)], name="bad"),
    lambda: Graph([1, 2], [(1, 2), (2, 1)], name="bad"),
    lambda: Graph.from_networkx(nx.MultiGraph([(1, 2), (1, 2)], name="bad")),
    lambda: gedkit.ged(nx.MultiGraph([(1, 1), (1, 1)]), nx.Graph([(1, 2)])),
])
def test_multigraphs_stay_one_line_errors_that_say_why(make):
    with pytest.raises(GraphError) as info:
        make()
    text = str(info.value)
    assert "\n" not in text
    assert "does not take multigraphs (parallel edges), by design" in text
    assert "README" in text


# -- distances ---------------------------------------------------------------------------------
def test_loops_fold_into_the_node_costs():
    g1 = Graph({0: "C", 1: "O"}, [(0, 1), (0, 0, "a")])
    g2 = Graph({0: "C", 1: "O"}, [(0, 1), (1, 1, "a")])
    p = costs.uniform().compile(g1, g2)
    assert p.loops is not None
    assert p.constant_costs is None  # node costs no longer depend on label equality alone
    # C keeps C but loses its loop; O keeps O and gains one
    assert p.cost([0, 1]) == 2.0 and p.node_costs[0, 0] == 1.0 and p.node_costs[1, 1] == 1.0
    assert p.node_costs[0, 2] == 2.0  # deleting C deletes its loop
    # node labels are interned as (label, loop label): equal pairs, equal ids
    assert len(set(p.node_labels1.tolist()) | set(p.node_labels2.tolist())) == 4
    plain = costs.uniform().compile(Graph({0: "C"}), Graph({0: "O"}))
    assert plain.loops is None and plain.constant_costs == costs.uniform().equality_costs
    t = p.transposed()
    assert t.cost([0, 1]) == 2.0 and t.loops.loop1.tolist() == p.loops.loop2.tolist()


@pytest.mark.parametrize("name", sorted(available()))
def test_every_method_brackets_the_loop_aware_brute_force(name):
    solver = get_solver(name)
    for trial, g1, g2, model in looped_pairs(seed=11, count=10, most=4):
        problem = model.compile(g1, g2)
        result = solver.solve(problem, Budget(timeout=30))
        exact = direct_ged(g1, g2, model)
        where = f"{name}, pair {trial}: {g1.loops} / {g2.loops}"
        assert brute_force_ged(problem) == pytest.approx(exact, abs=1e-9), where
        assert result.lower_bound <= exact + TOL <= result.upper_bound + 2 * TOL, where
        assert result.upper_bound == pytest.approx(
            direct_ged_cost(g1, g2, model, result.assignment), abs=1e-9), where
        assert sum(op.cost for op in result.edit_path) == pytest.approx(result.upper_bound), where
        if solver.exact:
            assert result.optimal and result.distance == pytest.approx(exact), where


def test_exact_search_stays_exact_on_bigger_looped_pairs():
    rng = np.random.default_rng(5)
    for _ in range(4):
        g1, g2 = (random_graph(rng, 6, loops=0.4) for _ in range(2))
        model = random_costs(rng)
        want = direct_ged(g1, g2, model)
        for method in ("exact", "astar", "dfs", "mip", "auto"):
            r = gedkit.ged(g1, g2, costs=model, method=method, timeout=60)
            assert r.optimal and r.distance == pytest.approx(want), method


def test_fixed_pairs_and_loops_together():
    for trial, g1, g2, model in looped_pairs(seed=23, count=12, most=4):
        fixed, forbidden = random_constraints(np.random.default_rng(trial), g1, g2)
        p = model.compile(g1, g2).constrained(fixed=fixed, forbidden=forbidden)
        r = get_solver("exact").solve(p, Budget(timeout=30))
        assert r.optimal and p.satisfies(r.assignment)
        assert r.distance == pytest.approx(brute_force_ged(p))


def test_symmetric_costs_give_one_distance_both_ways():
    rng = np.random.default_rng(8)
    for _ in range(8):
        g1, g2 = (random_graph(rng, int(rng.integers(1, 5)), loops=0.5) for _ in range(2))
        model = random_costs(rng, symmetric=True)
        assert gedkit.ged(g1, g2, costs=model).distance == pytest.approx(
            gedkit.ged(g2, g1, costs=model).distance)


def test_networkx_self_loop_expectations():
    # NetworkX's own test_similarity.py::test_selfloops, facts ported
    g0 = nx.Graph()
    g1 = nx.Graph([("A", "A"), ("A", "B")])
    g2 = nx.Graph([("A", "B"), ("B", "B")])
    g3 = nx.Graph([("A", "A"), ("A", "B"), ("B", "B")])
    want = {(0, 0): 0, (0, 1): 4, (0, 2): 4, (0, 3): 5, (1, 1): 0, (1, 2): 0, (1, 3): 1,
            (2, 2): 0, (2, 3): 1, (3, 3): 0}
    graphs = (g0, g1, g2, g3)
    for (a, b), d in want.items():
        for x, y in ((a, b), (b, a)):
            r = gedkit.ged(graphs[x], graphs[y], method="exact")
            assert r.optimal and r.distance == d, (x, y)


def _bare(g: Graph) -> nx.Graph:
    """``g`` as a NetworkX graph without attributes."""
    h = nx.Graph()
    h.add_nodes_from(g.ids)
    h.add_edges_from(g.to_networkx().edges())
    return h


def _consistent(path: tuple) -> bool:
    """Whether one of NetworkX's edit paths lays every edge on the edge its ends map to."""
    nodes, edges = path
    image = dict(nodes)
    for e1, e2 in edges:
        if e1 is not None and e2 is not None and {image[e1[0]], image[e1[1]]} != set(e2):
            return False
    return True


def test_networkx_graph_edit_distance_on_random_looped_graphs():
    """Uniform costs, unlabelled: gedkit equals NetworkX's exact answer, except where
    NetworkX's best path lays an edge on a self-loop its ends do not map to (what NetworkX
    3.x does on some pairs: it then answers below every real edit path), where gedkit
    equals the brute force instead."""
    rng = np.random.default_rng(1)
    disagreed = 0
    for _ in range(30):
        g1, g2 = (random_graph(rng, int(rng.integers(0, 5)), n_labels=1, e_labels=1,
                               loops=0.5) for _ in range(2))
        h1, h2 = _bare(g1), _bare(g2)
        ours = gedkit.ged(h1, h2, method="exact")
        assert ours.optimal
        assert ours.distance == direct_ged(g1, g2, costs.uniform())
        theirs = nx.graph_edit_distance(h1, h2)
        if ours.distance != theirs:
            disagreed += 1
            paths, cost = nx.optimal_edit_paths(h1, h2)
            assert cost == theirs < ours.distance
            assert not any(_consistent(p) for p in paths)
    assert disagreed < 10


# -- edit paths -------------------------------------------------------------------------------
def test_the_edit_path_lists_loop_edits():
    g1 = Graph({1: "C", 2: "O", 3: "C"}, [(1, 2), (2, 3), (1, 1, "a"), (3, 3, "z")])
    g2 = Graph({1: "C", 2: "O"}, [(1, 2), (2, 2, "b"), (1, 1, "c")])
    r = gedkit.ged(g1, g2, method="exact")
    assert r.optimal and r.distance == 5
    text = [str(op) for op in r.edit_path]
    assert "relabel edge 1–1: a → c" in text
    assert "insert edge 2–2 (b)" in text
    assert "delete edge 3–3 (z)" in text
    assert sum(op.cost for op in r.edit_path) == r.distance
    loops = [op for op in r.edit_path if op.kind.startswith("edge")
             and (op.source or op.target)[0] == (op.source or op.target)[1]]
    assert {op.kind for op in loops} == {"edge_sub", "edge_ins", "edge_del"}
    # NetworkX-style edge pairs carry the loops too
    paths = gedkit.optimal_edit_paths(g1, g2, limit=5)
    for edges in (edge for _, edge in paths.networkx()[0]):
        assert ((1, 1), (1, 1)) in edges or ((1, 1), None) in edges


def test_a_substitution_dearer_than_delete_plus_insert_is_split():
    model = costs.custom(node_sub=lambda a, b: 0.0 if a == b else 1.0, node_del=lambda a: 1.0,
                         node_ins=lambda b: 1.0, edge_sub=lambda a, b: 0.0 if a == b else 5.0,
                         edge_del=lambda a: 1.0, edge_ins=lambda b: 1.0)
    g1, g2 = Graph({0: "C"}, [(0, 0, "a")]), Graph({0: "C"}, [(0, 0, "b")])
    r = gedkit.ged(g1, g2, costs=model, method="exact")
    assert r.distance == 2.0
    assert [op.kind for op in r.edit_path] == ["edge_del", "edge_ins"]


# -- readers and writers ----------------------------------------------------------------------
LOOPED = Graph({0: "C", 1: "O", 2: "N"}, [(0, 1, 1), (1, 2, 2), (0, 0, 3), (2, 2, 4)],
               name="looped")


@pytest.mark.parametrize("suffix", [".json", ".txt"])
def test_written_files_read_back_with_their_loops(tmp_path, suffix):
    path = tmp_path / f"g{suffix}"
    gedkit.write(LOOPED, path)
    back = gedkit.read(path)
    assert back == LOOPED and back.loops == {0: 3, 2: 4}


@pytest.mark.parametrize("writer, suffix", [(nx.write_graphml, ".graphml"),
                                            (nx.write_gexf, ".gexf")])
def test_networkx_files_keep_loops(tmp_path, writer, suffix):
    path = tmp_path / f"g{suffix}"
    writer(LOOPED.to_networkx(), path)
    back = gedkit.read(path, node_label="label", edge_label="label")
    assert sorted(back.loops) == [0, 2] and back.m == 2


def test_gxl_and_tve_fixtures_with_a_loop():
    from pathlib import Path

    here = Path(__file__).resolve().parent / "data" / "io"
    assert gedkit.read(here / "selfloop.gxl").loops == {1: None}
    g = gedkit.read(here / "selfloop.txt")
    assert g.loops == {0: None} and g.m == 0


def test_tve_refuses_a_second_loop_on_a_node(tmp_path):
    path = tmp_path / "two.txt"
    path.write_text("t # 0\nv 0 C\ne 0 0 1\ne 0 0 2\n")
    with pytest.raises(GraphError, match=r"two\.txt:4: second self-loop on 0 .*multigraphs"):
        gedkit.read(path)


def test_pyg_round_trip_keeps_loops():
    pytest.importorskip("torch_geometric")
    back = Graph.from_pyg(LOOPED.to_pyg())
    assert back.loops == {0: 3, 2: 4} and back.m == 2


def test_smiles_never_makes_loops():
    pytest.importorskip("rdkit")
    assert gedkit.io.from_smiles("C1CC1").loops == {}


# -- where loops are refused ------------------------------------------------------------------
def test_mces_refuses_loops_in_one_line():
    for method in ("exact", "auto"):
        with pytest.raises(GraphError, match=r"^graph 'looped' has a self-loop \(on 0\): MCES "
                                             "does not count self-loops") as info:
            gedkit.mces(LOOPED, LOOPED, method=method)
        assert "\n" not in str(info.value)


def test_collections_refuse_loops_and_keep_what_they_had(tmp_path):
    c = gedkit.Collection.create(tmp_path / "c.db")
    with pytest.raises(GraphError, match=r"self-loop .*collections do not hold"):
        c.add([Graph({0: "C"}), LOOPED])
    assert len(c) == 0
    # an unnamed graph is "a graph", not "graph None"
    with pytest.raises(GraphError, match=r"^a graph has a self-loop \(on node 0\)"):
        c.add([Graph({0: "C"}, [(0, 0)])])
    c.add([Graph({0: "C", 1: "O"}, [(0, 1)])])
    with pytest.raises(GraphError, match="query 'looped' has a self-loop"):
        c.range(LOOPED, 2)
    with pytest.raises(GraphError, match="self-loop"):
        c.knn(LOOPED, 1)


def test_pairwise_prices_loops():
    graphs = [LOOPED, LOOPED.permuted([2, 1, 0]), Graph({0: "C", 1: "O"}, [(0, 1, 1)])]
    m = gedkit.pairwise(graphs, method="exact", timeout=30, progress=False, n_jobs=1)
    assert m.distance[0, 1] == 0
    assert m.distance[0, 2] == direct_ged(LOOPED, graphs[2], costs.uniform())


# -- pictures ---------------------------------------------------------------------------------
def test_drawing_a_pair_with_loops(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    g2 = Graph({0: "C", 1: "O"}, [(0, 1, 1), (1, 1, "b"), (0, 0, "c")])
    r = gedkit.ged(LOOPED, g2, method="exact")
    gedkit.draw(r, tmp_path / "pair.svg")
    gedkit.draw.draw_steps(r, tmp_path / "steps.svg")
    svg = (tmp_path / "pair.svg").read_text()
    ops = [k for k, op in enumerate(r.edit_path) if op.kind.startswith("edge")]
    assert all(f'id="op-{k}' in svg for k in ops)  # every loop edit has its element
