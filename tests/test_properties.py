"""Property tests: invariances every exact GED must satisfy."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import gedkit
from gedkit import Graph, costs


@st.composite
def graphs(draw, max_nodes=7, labels=3):
    n = draw(st.integers(0, max_nodes))
    node_labels = draw(st.lists(st.integers(0, labels - 1), min_size=n, max_size=n))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = []
    if pairs:
        chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    edges = [(i, j, draw(st.integers(0, 1))) for i, j in chosen]
    return Graph(dict(enumerate(node_labels)), edges)


@given(graphs(), graphs(), st.randoms(use_true_random=False))
def test_node_order_does_not_change_the_distance(g1, g2, rnd):
    base = gedkit.ged(g1, g2).distance
    order1 = list(range(g1.n))
    order2 = list(range(g2.n))
    rnd.shuffle(order1)
    rnd.shuffle(order2)
    assert gedkit.ged(g1.permuted(order1), g2.permuted(order2)).distance == base


@given(graphs(), graphs())
def test_symmetric_costs_give_a_symmetric_distance(g1, g2):
    model = costs.constant(node_ins=2, node_del=2, node_sub=3, edge_ins=1, edge_del=1, edge_sub=1)
    assert gedkit.ged(g1, g2, costs=model).distance == gedkit.ged(g2, g1, costs=model).distance


@given(graphs())
def test_self_distance_is_zero(g):
    r = gedkit.ged(g, g)
    assert r.distance == 0 and r.optimal


@given(graphs(), graphs())
def test_upper_bound_is_the_recomputed_cost_of_the_map(g1, g2):
    model = costs.constant(
        node_ins=1, node_del=2, node_sub=1.5, edge_ins=0.5, edge_del=1, edge_sub=2
    )
    for method in ("astar", "dfs"):
        r = gedkit.ged(g1, g2, costs=model, method=method)
        p = model.compile(g1, g2)
        assert p.cost(r.assignment) == r.upper_bound
        assert np.isclose(sum(op.cost for op in r.edit_path), r.upper_bound)


@given(graphs(max_nodes=5), graphs(max_nodes=5), graphs(max_nodes=5))
def test_triangle_inequality_for_metric_costs(a, b, c):
    ab = gedkit.ged(a, b).distance
    bc = gedkit.ged(b, c).distance
    ac = gedkit.ged(a, c).distance
    assert ac <= ab + bc + 1e-9
