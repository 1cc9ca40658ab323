"""Directed graphs (issue 16 item 1): arcs are ordered pairs, priced arc by arc.

The reference distances never go through :class:`gedkit.Problem`: ``direct_ged`` prices each
node map arc by arc from the labels and the cost model's six functions. NetworkX's expected
directed distances (its ``test_similarity.py``) are ported as facts: the graphs and the
numbers.
"""

from __future__ import annotations

import itertools
import json
import pickle

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gedkit
from gedkit import Graph, GraphError, costs
from gedkit._kernels.quadratic import quadratic_product
from gedkit.cli import main
from gedkit.solvers import Budget, available, get_solver
from gedkit.solvers.exact.arcs import pair_problem
from gedkit.solvers.heuristics import lsape
from gedkit.solvers.heuristics.ipfp import assignment_matrix, map_product
from gedkit.solvers.heuristics.lsape import neighbours
from gedkit.solvers.registry import directed_methods
from gedkit.testing.brute import brute_force_ged, direct_ged, direct_ged_cost
from gedkit.testing.generate import random_constraints, random_costs, random_graph

TOL = 1e-9
METHODS = directed_methods()


def directed_pairs(seed: int, count: int, most: int = 4):
    """Random directed pairs (self-loops on some), alternately under random non-symmetric
    costs and unit costs."""
    rng = np.random.default_rng(seed)
    for trial in range(count):
        g1, g2 = (random_graph(rng, int(rng.integers(0, most + 1)), p=0.35, directed=True,
                               loops=0.3 if trial % 3 == 0 else 0.0, name=f"g{side}")
                  for side in (1, 2))
        model = random_costs(rng) if trial % 2 else costs.uniform()
        yield trial, g1, g2, model


def reversed_graph(g: Graph) -> Graph:
    """``g`` with every arc turned around (loops stay)."""
    arcs = [(g.ids[b], g.ids[a], lab)
            for (a, b), lab in zip(g.edges.tolist(), g.edge_labels, strict=True)]
    arcs += [(g.ids[a], g.ids[a], lab) for a, lab in g.loops.items()]
    return Graph(dict(zip(g.ids, g.node_labels, strict=True)), arcs, directed=True)


def both_ways(g: Graph) -> Graph:
    """The directed graph with two opposite arcs, labelled alike, for each edge of ``g``."""
    arcs = [(g.ids[x], g.ids[y], lab)
            for (a, b), lab in zip(g.edges.tolist(), g.edge_labels, strict=True)
            for x, y in ((a, b), (b, a))]
    return Graph(dict(zip(g.ids, g.node_labels, strict=True)), arcs, directed=True)


def doubled_edges(model) -> costs.CostModel:
    """``model`` with every edge cost twice as high, node costs as they are."""
    return costs.custom(
        node_sub=model.node_sub, node_del=model.node_del, node_ins=model.node_ins,
        edge_sub=lambda a, b: 2 * model.edge_sub(a, b), edge_del=lambda a: 2 * model.edge_del(a),
        edge_ins=lambda b: 2 * model.edge_ins(b))


def exact(g1, g2, model) -> float:
    r = gedkit.ged(g1, g2, costs=model, method="exact")
    assert r.optimal
    return r.distance


# -- the graph --------------------------------------------------------------------------------
def test_arcs_are_ordered_pairs_with_their_own_labels():
    g = Graph({"a": "C", "b": "O"}, [("a", "b", 1), ("b", "a", 2), ("b", "b", "x")],
              directed=True, name="d")
    assert g.directed and g.m == 2 and g.loops == {1: "x"}
    assert g.edges.tolist() == [[0, 1], [1, 0]]  # as given, tail first
    assert g.edge_label("a", "b") == 1 and g.edge_label("b", "a") == 2
    assert g.adjacency.tolist() == [[-1, 0], [1, -1]]
    assert g.degrees().tolist() == [2, 2]
    assert repr(g) == "<Graph 'd' n=2 m=2 loops=1 directed>"
    one = Graph({"a": "C", "b": "O"}, [("a", "b")], directed=True)
    with pytest.raises(GraphError, match="no arc from 'b' to 'a'"):
        one.edge_label("b", "a")
    # equality sees the direction, and permuting keeps it
    assert one != Graph({"a": "C", "b": "O"}, [("b", "a")], directed=True)
    assert one != Graph({"a": "C", "b": "O"}, [("a", "b")])
    assert g.permuted([1, 0]) == g and g.permuted([1, 0]).directed
    assert pickle.loads(pickle.dumps(g)) == g


def test_networkx_digraphs_in_and_out():
    h = nx.DiGraph(name="h")
    h.add_node(1, atom="C")
    h.add_node(2, atom="N")
    h.add_edge(1, 2, bond=1)
    h.add_edge(2, 1, bond=2)
    h.add_edge(2, 2, bond=3)
    g = Graph.from_networkx(h, node_label="atom", edge_label="bond")
    assert g.directed and g.m == 2 and g.loops == {1: 3}
    back = g.to_networkx(node_label="atom", edge_label="bond")
    assert isinstance(back, nx.DiGraph) and nx.utils.graphs_equal(back, h)
    # and gedkit.ged takes DiGraphs as they are
    bare = nx.DiGraph(list(h.edges))
    assert gedkit.ged(bare, nx.DiGraph([(1, 2)])).distance == 2  # delete 2→1 and the loop


def test_a_repeated_arc_is_a_multigraph_and_refused():
    with pytest.raises(GraphError, match=r"two arcs from 1 to 2.*multigraphs"):
        Graph([1, 2], [(1, 2), (1, 2)], directed=True)
    with pytest.raises(GraphError, match="multigraph"):
        Graph.from_networkx(nx.MultiDiGraph([(1, 2), (1, 2)]))
    with pytest.raises(GraphError, match="directed must be True or False"):
        Graph([1], directed="yes")


# -- what a node map costs --------------------------------------------------------------------
def test_a_reversed_arc_is_deleted_and_inserted_unless_the_pair_has_both():
    forward = Graph({0: "A", 1: "B"}, [(0, 1, "x")], directed=True)
    backward = Graph({0: "A", 1: "B"}, [(1, 0, "x")], directed=True)
    both = Graph({0: "A", 1: "B"}, [(0, 1, "y"), (1, 0, "x")], directed=True)
    p = costs.uniform().compile(forward, backward)
    assert p.cost([0, 1]) == 2.0  # delete 0→1, insert 1→0
    assert [op.kind for op in p.edit_path([0, 1])] == ["edge_del", "edge_ins"]
    p = costs.uniform().compile(forward, both)
    assert p.cost([0, 1]) == 2.0  # 0→1 relabelled x → y, 1→0 inserted
    assert sorted(op.kind for op in p.edit_path([0, 1])) == ["edge_ins", "edge_sub"]
    assert [str(op) for op in gedkit.ged(forward, both).edit_path] == [
        "relabel edge 0→1: x → y", "insert edge 1→0 (x)"]  # arcs read tail→head
    assert gedkit.ged(forward, backward).distance == 2.0
    assert gedkit.ged(forward, backward, costs=costs.constant(node_sub=0)).distance == 0.0


def test_problem_cost_is_priced_arc_by_arc():
    rng = np.random.default_rng(3)
    for _, g1, g2, model in directed_pairs(1, 40):
        p = model.compile(g1, g2)
        for _ in range(5):
            forward = rng.permutation(np.arange(-g1.n, g2.n))[: g1.n]
            forward[forward < 0] = -1
            assert p.cost(forward) == pytest.approx(direct_ged_cost(g1, g2, model, forward))
            assert sum(op.cost for op in p.edit_path(forward)) == pytest.approx(p.cost(forward))


# -- every method that takes arcs, against the brute force -------------------------------------
def test_the_methods_that_take_arcs():
    assert {"astar", "auto", "dfs", "exact", "mip", "node", "bipartite", "branch",
            "branch_fast", "bp_beam", "ipfp", "refine", "star"} <= set(METHODS)
    assert all(available()[name].directed for name in METHODS)


@pytest.mark.parametrize("method", METHODS)
def test_every_directed_method_against_the_brute_force(method):
    for trial, g1, g2, model in directed_pairs(7, 30):
        truth = direct_ged(g1, g2, model)
        r = gedkit.ged(g1, g2, costs=model, method=method)
        assert r.lower_bound <= truth + TOL and truth <= r.upper_bound + TOL, (trial, method)
        assert r.upper_bound == pytest.approx(r.problem.cost(r.assignment)), (trial, method)
        if available()[method].exact:
            assert r.optimal and r.distance == pytest.approx(truth), (trial, method)


@pytest.mark.parametrize("bound", ["branch", "labelset"])
def test_exact_search_with_either_bound(bound):
    for trial, g1, g2, model in directed_pairs(13, 25, most=5):
        p = model.compile(g1, g2)
        for method in ("astar", "dfs"):
            r = get_solver(method, bound=bound).solve(p, Budget())
            assert r.optimal and r.distance == pytest.approx(brute_force_ged(p)), (trial, method)


def test_nodes_joined_by_one_arc_are_not_twins():
    # 1 and 2 relate alike to 0, but the arc 1→2 tells them apart: exact search must try
    # both for a node (undirected twins are tried once), in every node order
    g = Graph({0: "B", 1: "A", 2: "A"}, [(0, 1), (0, 2), (1, 2)], directed=True)
    for o1 in itertools.permutations(range(3)):
        for o2 in itertools.permutations(range(3)):
            for method in ("astar", "dfs"):
                assert gedkit.ged(g.permuted(o1), g.permuted(o2), method=method).distance == 0


@pytest.mark.parametrize("method", METHODS)
def test_directed_methods_keep_fixed_and_forbidden_pairs(method):
    rng = np.random.default_rng(5)
    for trial, g1, g2, model in directed_pairs(11, 20):
        fixed, forbidden = random_constraints(rng, g1, g2)
        p = model.compile(g1, g2).constrained(fixed, forbidden)
        truth = brute_force_ged(p)
        r = get_solver(method).solve(p, Budget())
        assert p.satisfies(r.assignment), trial
        assert r.lower_bound <= truth + TOL and truth <= r.upper_bound + TOL, trial
        assert r.upper_bound == pytest.approx(p.cost(r.assignment)), trial
        if available()[method].exact:
            assert r.optimal and r.distance == pytest.approx(truth), trial


# the methods that solve a directed pair as its undirected pair problem
PAIR_METHODS = [name for name in METHODS if available()[name].pairs_for_arcs]


@pytest.mark.parametrize("pairs_matched", [True, False])
@pytest.mark.parametrize("method", PAIR_METHODS)
def test_pair_problem_heuristics_bracket_the_exact_distance(method, pairs_matched, monkeypatch):
    # pairs of 6-9 nodes (past the brute force's reach), dense enough that most node pairs
    # carry an arc one way, the other or both: exact search gives the truth. Either edge
    # costs of the pair problem: its pairs matched, or (on larger pairs) the arcs'
    if not pairs_matched:
        monkeypatch.setattr(lsape, "PAIR_MATCHING_SECONDS", 0.0)
    rng = np.random.default_rng(17)
    for trial in range(12):
        g1, g2 = (random_graph(rng, int(rng.integers(6, 10)), p=0.4, n_labels=2,
                               directed=True) for _ in range(2))
        model = costs.uniform() if trial % 2 else random_costs(rng, n_labels=2)
        p = model.compile(g1, g2)
        truth = get_solver("astar").solve(p, Budget()).distance
        r = get_solver(method).solve(p, Budget())
        assert r.lower_bound <= truth + TOL <= r.upper_bound + 2 * TOL, (trial, method)
        assert r.upper_bound == pytest.approx(p.cost(r.assignment)), (trial, method)
        q = pair_problem(p)
        nb = neighbours(q)
        for _ in range(5):  # every map costs the same in the pair problem
            forward = rng.permutation(np.arange(-g1.n, g2.n))[: g1.n]
            forward[forward < 0] = -1
            assert q.cost(forward) == pytest.approx(p.cost(forward)), trial
            # IPFP's product of a map, read from the map's edges, is the quadratic form's
            np.testing.assert_allclose(map_product(q, nb, forward), quadratic_product(
                assignment_matrix(q, forward), q.edge_label_matrix, *nb))


def test_larger_directed_pairs_agree_between_search_and_program():
    rng = np.random.default_rng(2)
    for _ in range(6):
        g1, g2 = (random_graph(rng, 7, p=0.3, directed=True) for _ in range(2))
        model = random_costs(rng)
        a = gedkit.ged(g1, g2, costs=model, method="astar")
        d = gedkit.ged(g1, g2, costs=model, method="dfs")
        m = gedkit.ged(g1, g2, costs=model, method="mip")
        assert a.optimal and d.optimal and m.optimal
        assert a.distance == pytest.approx(d.distance) == pytest.approx(m.distance)


def test_auto_runs_its_portfolio_on_directed_pairs():
    # past IPFP's threshold (20 nodes): BRANCH, REFINE and IPFP on the pair problem, then
    # exact search and the program; every stage's bounds hold on the arcs
    rng = np.random.default_rng(4)
    for trial in range(2):
        g1, g2 = (random_graph(rng, int(rng.integers(21, 25)), p=0.12, directed=True)
                  for _ in range(2))
        model = random_costs(rng) if trial % 2 else costs.uniform()
        r = gedkit.ged(g1, g2, costs=model, method="auto", timeout=1)
        stages = [s["method"] for s in r.stats["stages"]]
        assert stages[:3] == ["branch", "refine", "ipfp"], (trial, stages)
        assert r.upper_bound == pytest.approx(r.problem.cost(r.assignment))
        other = gedkit.ged(g1, g2, costs=model, method="mip", timeout=2)
        assert r.lower_bound <= other.upper_bound + TOL, trial
        assert other.lower_bound <= r.upper_bound + TOL, trial
    # and small enough to prove: the exact distance
    for trial in range(3):
        g1, g2 = (random_graph(rng, 13, p=0.1, directed=True) for _ in range(2))
        r = gedkit.ged(g1, g2, method="auto", timeout=20)
        truth = gedkit.ged(g1, g2, method="astar", timeout=20)
        assert r.optimal and truth.optimal and r.distance == truth.distance, trial
        assert [s["method"] for s in r.stats["stages"]][:2] == ["branch", "refine"]


# -- properties -------------------------------------------------------------------------------
@st.composite
def directed_graphs(draw, most: int = 4, loops: bool = True):
    n = draw(st.integers(0, most))
    labels = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    pairs = [(i, j) for i in range(n) for j in range(n) if loops or i != j]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))
                  if pairs else st.just([]))
    arcs = [(i, j, draw(st.integers(0, 1))) for i, j in chosen]
    return Graph(dict(enumerate(labels)), arcs, directed=True)


MODEL = random_costs(np.random.default_rng(0))
PROPERTY = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(directed_graphs(), directed_graphs())
def test_reversing_every_arc_of_both_graphs_keeps_the_distance(g1, g2):
    assert exact(reversed_graph(g1), reversed_graph(g2), MODEL) == pytest.approx(
        exact(g1, g2, MODEL))


@PROPERTY
@given(directed_graphs(), directed_graphs(), st.randoms(use_true_random=False))
def test_node_order_does_not_change_the_distance(g1, g2, rnd):
    o1, o2 = list(range(g1.n)), list(range(g2.n))
    rnd.shuffle(o1)
    rnd.shuffle(o2)
    assert exact(g1.permuted(o1), g2.permuted(o2), MODEL) == pytest.approx(exact(g1, g2, MODEL))


@PROPERTY
@given(directed_graphs(loops=False), directed_graphs(loops=False))
def test_the_distance_is_the_brute_force_one(g1, g2):
    assert exact(g1, g2, MODEL) == pytest.approx(direct_ged(g1, g2, MODEL))


def test_opposite_arcs_alike_are_an_undirected_edge_at_twice_its_cost():
    """The relation implemented: for graphs without self-loops, turning each edge into two
    opposite arcs labelled alike doubles what every edge edit costs (each edit of the edge is
    one edit of each of its two arcs) and leaves node edits as they are, so
    ``ged(both_ways(g1), both_ways(g2), c) == ged(g1, g2, c with edge costs doubled)``. Under
    the same costs, therefore, the directed distance lies between the undirected one and
    twice it."""
    rng = np.random.default_rng(4)
    for trial in range(30):
        g1, g2 = (random_graph(rng, int(rng.integers(0, 5)), p=0.5) for _ in range(2))
        model = random_costs(rng) if trial % 2 else costs.uniform()
        directed = exact(both_ways(g1), both_ways(g2), model)
        assert directed == pytest.approx(exact(g1, g2, doubled_edges(model))), trial
        undirected = exact(g1, g2, model)
        assert undirected - TOL <= directed <= 2 * undirected + TOL, trial


# -- NetworkX's own expectations ----------------------------------------------------------------
def test_networkx_digraph_expectations():
    # test_similarity.py, test_digraph: a 4-cycle, the cycle with one arc reversed, and a
    # diamond (two paths A→D)
    g0 = nx.DiGraph()
    g1 = nx.DiGraph([("A", "B"), ("B", "C"), ("C", "D"), ("D", "A")])
    g2 = nx.DiGraph([("A", "B"), ("B", "C"), ("C", "D"), ("A", "D")])
    g3 = nx.DiGraph([("A", "B"), ("A", "C"), ("B", "D"), ("C", "D")])
    expected = {(0, 0): 0, (0, 1): 8, (0, 2): 8, (0, 3): 8, (1, 1): 0, (1, 2): 2, (1, 3): 4,
                (2, 2): 0, (2, 3): 2, (3, 3): 0}
    graphs = [g0, g1, g2, g3]
    for (a, b), distance in expected.items():
        for x, y in ((a, b), (b, a)):
            r = gedkit.ged(graphs[x], graphs[y])
            assert r.optimal and r.distance == distance, (x, y)
    # test_one_node_one_loop_and_empty_graph, test_two_directed_loops
    assert gedkit.ged(nx.DiGraph([(0, 0)]), nx.DiGraph()).distance == 2
    assert gedkit.ged(nx.DiGraph([(0, 0), (1, 1)]), nx.DiGraph()).distance == 4


def test_networkx_graph_edit_distance_on_small_digraphs():
    rng = np.random.default_rng(9)
    for trial in range(12):
        graphs = []
        for _ in range(2):
            g = random_graph(rng, int(rng.integers(1, 5)), p=0.4, directed=True,
                             node_values="AB", edge_values="xy")
            graphs.append(g.to_networkx())
        theirs = nx.graph_edit_distance(
            *graphs, node_match=lambda a, b: a.get("label") == b.get("label"),
            edge_match=lambda a, b: a.get("label") == b.get("label"))
        ours = gedkit.ged(*graphs, node_label="label", edge_label="label")
        assert ours.optimal and ours.distance == theirs, trial


# -- readers and writers ------------------------------------------------------------------------
DIRECTED = Graph({"a": "C", "b": "O", "c": "N"},
                 [("a", "b", "x"), ("b", "a", "y"), ("b", "c", "x"), ("c", "c", "z")],
                 directed=True, name="d")


def test_json_round_trip_and_the_default_policy(tmp_path):
    path = tmp_path / "d.json"
    gedkit.write(DIRECTED, path)
    assert json.loads(path.read_text())["directed"] is True
    assert gedkit.read(path, directed="keep") == DIRECTED
    with pytest.raises(GraphError) as info:
        gedkit.read(path)  # refused unless asked: "error" stays the default
    assert "directed='keep'" in str(info.value) and "\n" not in str(info.value)
    ignored = gedkit.read(path, directed="ignore")
    assert not ignored.directed and ignored.m == 2  # a→b and b→a became one edge


@pytest.mark.parametrize("suffix,writer", [(".graphml", nx.write_graphml),
                                          (".gexf", nx.write_gexf)])
def test_graphml_and_gexf_round_trip(tmp_path, suffix, writer):
    path = tmp_path / f"d{suffix}"
    writer(DIRECTED.to_networkx(), path)
    assert gedkit.read(path, node_label="label", edge_label="label", directed="keep") == DIRECTED


def test_gxl_edgemodes(tmp_path):
    path = tmp_path / "d.gxl"
    path.write_text(
        '<gxl><graph id="d" edgemode="defaultdirected">'
        '<node id="1"/><node id="2"/><node id="3"/>'
        '<edge from="1" to="2"/><edge from="2" to="3" isdirected="false"/></graph></gxl>')
    g = gedkit.read(path, directed="keep")
    assert g.directed and sorted(map(tuple, g.edges.tolist())) == [(0, 1), (1, 2), (2, 1)]
    assert not gedkit.read(path, directed="ignore").directed
    path.write_text('<gxl><graph id="u" edgemode="undirected"><node id="1"/><node id="2"/>'
                    '<edge from="1" to="2"/></graph></gxl>')
    assert not gedkit.read(path, directed="keep").directed  # keep keeps what the file says


def test_formats_without_direction_refuse_directed_graphs(tmp_path):
    with pytest.raises(GraphError, match="directed: the t/v/e format takes undirected"):
        gedkit.write(DIRECTED, tmp_path / "d.txt")


# -- one-line errors ----------------------------------------------------------------------------
def one_line(make) -> str:
    with pytest.raises(GraphError) as info:
        make()
    text = str(info.value)
    assert "\n" not in text
    return text


def test_one_line_errors():
    undirected = Graph({"a": "C"}, name="u")
    text = one_line(lambda: gedkit.ged(DIRECTED, undirected))
    assert "'d' is directed and graph 'u' is not" in text
    # the learned one (its model knows undirected molecules), before any model is loaded
    text = one_line(lambda: gedkit.ged(DIRECTED, DIRECTED, method="gelato"))
    assert "method 'gelato' does not take directed graphs" in text
    assert ", ".join(METHODS) in text
    assert set(available()) - set(METHODS) == {"gelato"}
    assert "MCES takes undirected graphs only" in one_line(lambda: gedkit.mces(DIRECTED,
                                                                                DIRECTED))
    from gedkit.search.codec import encode_graph

    assert "a collection takes undirected" in one_line(lambda: encode_graph(DIRECTED))


def test_pairwise_takes_directed_graphs():
    graphs = [Graph({0: "a", 1: "b"}, arcs, directed=True)
              for arcs in ([(0, 1)], [(1, 0)], [(0, 1), (1, 0)])]
    assert gedkit.pairwise(graphs, n_jobs=1).distance.tolist() == [[0, 2, 1], [2, 0, 1],
                                                                   [1, 1, 0]]


def test_pairwise_refuses_a_directed_graph_against_an_undirected_one_at_once():
    """A directed graph that would meet an undirected one: one error naming the two, before
    any pair (each such pair failed, one by one, and the command line exited 1)."""
    d = Graph({0: "a", 1: "b"}, [(0, 1)], directed=True, name="d")
    u = Graph({0: "a", 1: "b"}, [(0, 1)], name="u")
    with pytest.raises(GraphError, match=r"^graphs_a\[0\] \('d'\) is directed and "
                                         r"graphs_a\[1\] \('u'\) is not: compare two"):
        gedkit.pairwise([d, u])
    with pytest.raises(GraphError, match=r"^graphs_b\[1\] \('d'\) is directed and "
                                         r"graphs_a\[0\] \('u'\) is not"):
        gedkit.pairwise([u], [u, d])
    with pytest.raises(GraphError, match=r"^graphs_a\[0\] \('d'\) is directed and "
                                         r"graphs_b\[0\] \('u'\) is not"):
        gedkit.pairwise([d, u], [u])
    # directed against directed, undirected against undirected: solved
    assert gedkit.pairwise([d], [d, d]).counts()["optimal"] == 2
    assert gedkit.pairwise([u, u]).counts()["failed"] == 0


# -- the command line ---------------------------------------------------------------------------
def test_cli_ged_on_two_directed_graphml_files(tmp_path, capsys):
    a, b = tmp_path / "a.graphml", tmp_path / "b.graphml"
    nx.write_graphml(nx.DiGraph([(1, 2), (2, 3), (3, 1)]), a)
    nx.write_graphml(nx.DiGraph([(2, 1), (3, 2), (1, 3), (1, 4)]), b)
    code = main(["ged", str(a), str(b), "--directed", "keep", "--json"])
    out, _ = capsys.readouterr()
    assert code == 0
    result = json.loads(out)
    assert result["distance"] == 2 and result["optimal"]  # a reversed cycle, one node more
    code = main(["ged", str(a), str(b)])
    out, err = capsys.readouterr()
    assert code == 2 and "--directed keep" in err and err.count("\n") == 1


def test_pairwise_refuses_directed_graphs_for_a_method_without_arcs_at_once():
    """``pairwise`` of directed graphs with a method that does not take them: one error
    before any pair (every pair but the diagonal failed, one by one, exit status 1)."""
    arcs = [gedkit.Graph({0: "a", 1: "b"}, [(0, 1)], directed=True),
            gedkit.Graph({0: "a", 1: "b"}, [(1, 0)], directed=True)]
    with pytest.raises(gedkit.GraphError, match="method 'gelato' does not take directed"):
        gedkit.pairwise(arcs, method="gelato")
    assert gedkit.pairwise(arcs, method="astar").upper_bound[0, 1] == 2


def test_cli_pairwise_refuses_a_directed_file_against_an_undirected_one(tmp_path, capsys):
    """``--directed keep`` with a directed file and an undirected one: the README's one-line
    error naming the two files, status 2, before any pair (a failed pair, status 1)."""
    arcs, edges = tmp_path / "arcs.json", tmp_path / "edges.json"
    for path, directed in ((arcs, True), (edges, False)):
        path.write_text(json.dumps({"directed": directed, "multigraph": False, "graph": {},
                                    "nodes": [{"id": 0}, {"id": 1}],
                                    "links": [{"source": 0, "target": 1}]}))
    for argv in ([arcs, edges], [edges, "--against", arcs], [arcs, arcs, edges]):
        code = main(["pairwise", *map(str, argv), "--directed", "keep"])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith(f"gedkit: error: {arcs} is directed and {edges} is not: compare "
                              "two directed or two undirected graphs (--directed ignore reads "
                              "arcs as edges)")
    assert main(["pairwise", str(arcs), "--against", str(arcs), "--directed", "keep"]) == 0
    assert main(["pairwise", str(arcs), str(edges), "--directed", "ignore"]) == 0
