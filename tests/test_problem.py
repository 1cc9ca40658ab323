import numpy as np
import pytest
from helpers import random_costs, random_graph

from gedkit import CostModelError, GedkitError, Graph, costs


def _random_map(rng, n1, n2):
    targets = list(rng.permutation(n2)) + [-1] * n1
    return np.array(rng.permutation(targets)[:n1] if n1 else [], dtype=np.int64)


@pytest.mark.parametrize("seed", range(20))
def test_edit_path_sums_to_cost_and_transposition_preserves_it(seed):
    rng = np.random.default_rng(seed)
    g1, g2 = random_graph(rng, int(rng.integers(0, 7))), random_graph(rng, int(rng.integers(0, 7)))
    model = random_costs(rng) if seed % 2 else costs.uniform()
    p = model.compile(g1, g2)
    for _ in range(5):
        f = _random_map(rng, p.n1, p.n2)
        total = p.cost(f)
        assert sum(op.cost for op in p.edit_path(f)) == pytest.approx(total)
        t = p.transposed()
        assert t.cost(p.inverse(f)) == pytest.approx(total)


def test_cost_by_hand():
    g1 = Graph({0: "C", 1: "O", 2: "N"}, [(0, 1), (1, 2)])
    g2 = Graph({"a": "C", "b": "O"}, [("a", "b")])
    p = costs.constant(node_ins=2, node_del=3, node_sub=5, edge_ins=7, edge_del=11).compile(g1, g2)
    # keep C->a, O->b, delete N (3) and edge (1,2) (11)
    assert p.cost([0, 1, -1]) == 14
    # swap: C->b (5), O->a (5); edge (0,1) lands on (b,a): kept; N deleted 3, edge 11
    assert p.cost([1, 0, -1]) == 24
    # delete everything: 3*3 + 2*11, insert both nodes 2*2 and the edge 7
    assert p.cost([-1, -1, -1]) == 9 + 22 + 4 + 7
    kinds = [op.kind for op in p.edit_path([1, 0, -1])]
    assert kinds.count("node_sub") == 2 and "edge_del" in kinds


def test_expensive_edge_substitution_becomes_delete_plus_insert():
    g1 = Graph(range(2), [(0, 1, "single")])
    g2 = Graph(range(2), [(0, 1, "double")])
    model = costs.constant(edge_sub=10, edge_ins=1, edge_del=1)
    p = model.compile(g1, g2)
    assert p.cost([0, 1]) == 2
    assert [op.kind for op in p.edit_path([0, 1])] == ["edge_del", "edge_ins"]


@pytest.mark.parametrize("bad", [[0, 0], [0], [2, 0], [-2, 0]])
def test_invalid_node_maps_are_rejected(bad):
    p = costs.uniform().compile(Graph(range(2)), Graph(range(2)))
    with pytest.raises(GedkitError):
        p.cost(bad)


def test_caller_ids_survive_into_node_map():
    p = costs.uniform().compile(Graph({"x": 1, "y": 2}), Graph({"p": 1, "q": 3, "r": 4}))
    pairs = p.node_map_pairs([0, -1])
    assert pairs == [("x", "p"), ("y", None), (None, "q"), (None, "r")]
    assert p.forward_from_pairs(pairs).tolist() == [0, -1]


def test_constant_structure_detected_for_custom_models():
    model = costs.custom(node_sub=2, node_del=1, node_ins=1, edge_sub=1, edge_del=3, edge_ins=3)
    p = model.compile(Graph({0: "a", 1: "b"}, [(0, 1, 1)]), Graph({0: "a", 1: "c"}, [(0, 1, 2)]))
    assert p.constant_costs == (1.0, 1.0, 2.0, 3.0, 3.0, 1.0)
    rng = np.random.default_rng(0)
    p = random_costs(rng).compile(random_graph(rng, 4), random_graph(rng, 4))
    assert p.constant_costs is None


def test_bad_cost_values_are_rejected():
    with pytest.raises(CostModelError, match="non-negative"):
        costs.constant(node_ins=-1)
    model = costs.custom(node_sub=lambda a, b: float("nan"))
    with pytest.raises(CostModelError, match="non-finite"):
        model.compile(Graph({0: "a"}), Graph({0: "b"}))
    with pytest.raises(CostModelError, match="unknown cost model"):
        costs.get("nope")


def test_json_of_an_edit_path_and_an_mces_carries_what_the_text_shows():
    """An edit operation's JSON had no labels (the text showed "O -> N"), and an MCES
    result's had no fragments, which its docstring's "keys are the attribute names" named."""
    import json

    import gedkit

    (op,) = gedkit.ged("CCO", "CCN").to_dict()["edit_path"]
    assert op == {"op": "node_sub", "source": 2, "target": 2, "cost": 1.0,
                  "source_label": "O", "target_label": "N"}
    r = gedkit.mces("CCOC", "CCNCC")
    d = json.loads(json.dumps(r.to_dict()))
    assert d["fragments"] == [[[list(a), list(b)] for a, b in piece] for piece in r.fragments]
