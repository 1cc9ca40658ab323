"""NGA (neural graduated assignment): valid maps, honest bounds, pretraining, weights files."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import gedkit
from gedkit.errors import FormatError, MissingDependencyError, OptionError
from gedkit.mces import MCESProblem
from gedkit.mces.bounds import upper_bound
from gedkit.mces.nga.features import FEATURES, graph_arrays
from tests.helpers import random_graph
from tests.test_mces import assert_valid, brute_force, small_pairs

torch = pytest.importorskip("torch")

FAST = {"steps": 5, "samples": 4}
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_maps_are_valid_and_bounded_by_brute_force():
    for g1, g2 in small_pairs(20, seed=31):
        r = gedkit.mces(g1, g2, "nga", init="random", **FAST)
        assert_valid(r, g1, g2)
        assert r.lower_bound <= brute_force(g1, g2) <= r.upper_bound
        assert r.method == "nga"


def test_symmetric_molecules_reach_the_optimum():
    caffeine, theobromine = (gedkit.read(EXAMPLES / f"{name}.json", node_label="atom",
                                         edge_label="bond")
                             for name in ("caffeine", "theobromine"))
    exact = gedkit.mces(caffeine, theobromine, "exact")
    nga = gedkit.mces(caffeine, theobromine, "nga", init="random", steps=50)
    assert nga.num_edges == exact.num_edges
    assert nga.optimal  # it met the proven upper bound and stopped there
    assert nga.stats["steps"] <= 50


def test_more_steps_never_lose():
    rng = np.random.default_rng(32)
    g1 = random_graph(rng, 14, p=0.3, n_labels=2, e_labels=2)
    g2 = random_graph(rng, 14, p=0.3, n_labels=2, e_labels=2)
    short = gedkit.mces(g1, g2, "nga", init="random", steps=2, seed=1)
    long = gedkit.mces(g1, g2, "nga", init="random", steps=12, seed=1)
    assert long.num_edges >= short.num_edges
    trace = long.stats["trace"]
    assert trace == sorted(trace) and trace[-1] == long.num_edges


def test_node_order_does_not_change_validity():
    rng = np.random.default_rng(33)
    g1 = random_graph(rng, 10, p=0.3, n_labels=2)
    g2 = random_graph(rng, 10, p=0.3, n_labels=2)
    perm = rng.permutation(g2.n)
    shuffled = g2.permuted(perm)
    for h in (g2, shuffled):
        r = gedkit.mces(g1, h, "nga", init="random", **FAST)
        assert_valid(r, g1, h)
        # the counting bound, tightened by the LP relaxation: still above the optimum
        assert gedkit.mces(g1, h, "exact").num_edges <= r.upper_bound
        assert r.upper_bound <= upper_bound(MCESProblem(g1, h))


def test_timeout_and_nothing_to_share():
    rng = np.random.default_rng(34)
    g1 = random_graph(rng, 25, p=0.2, n_labels=1)
    g2 = random_graph(rng, 25, p=0.2, n_labels=1)
    r = gedkit.mces(g1, g2, "nga", init="random", timeout=0.01)
    assert_valid(r, g1, g2)
    # no network step fits 10 ms (torch's import alone does not): the local searches answer,
    # and the stats say what was cut (or that the kernels were still compiling)
    assert r.stats.get("steps", 0) == 0
    assert r.stats.get("cut") or r.stats.get("fallback")
    lone = gedkit.Graph({0: "C", 1: "C"}, [(0, 1, 1)])
    other = gedkit.Graph({0: "N", 1: "N"}, [(0, 1, 1)])
    assert gedkit.mces(lone, other, "nga").num_edges == 0


@pytest.mark.parametrize("options, fragment", [
    ({"init": "nonsense"}, "init"),
    ({"samples": 0}, "samples"),
    ({"lr": -1.0}, "lr"),
    ({"refine": "yes"}, "refine"),
])
def test_bad_options(options, fragment):
    g = gedkit.Graph({0: "C", 1: "C"}, [(0, 1)])
    with pytest.raises(OptionError, match=fragment):
        gedkit.mces(g, g, "nga", **options)


def test_clear_error_without_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    g = gedkit.Graph({0: "C", 1: "C"}, [(0, 1)])
    with pytest.raises(MissingDependencyError, match="torch"):
        gedkit.mces(g, g, "nga")


def test_features_are_label_agnostic_and_stable():
    a = graph_arrays(gedkit.Graph({0: "C", 1: "O", 2: "C"}, [(0, 1, 2), (1, 2, 1)]))
    b = graph_arrays(gedkit.Graph({0: "C", 1: "O", 2: "C"}, [(0, 1, 2), (1, 2, 1)]))
    assert a.x.shape == (3, FEATURES)
    assert np.array_equal(a.x, b.x)
    assert np.array_equal(a.x[0, :16], a.x[2, :16])  # same label, same bucket
    assert a.edge_index.shape == (2, 4)


def test_pretraining_learns_and_weights_round_trip(tmp_path):
    from gedkit.mces.nga.model import load
    from gedkit.mces.nga.pretrain import pretrain

    rng = np.random.default_rng(35)
    problems = [MCESProblem(random_graph(rng, 10, p=0.3, n_labels=2, e_labels=2),
                            random_graph(rng, 10, p=0.3, n_labels=2, e_labels=2))
                for _ in range(6)]
    lines: list[str] = []
    net = pretrain(problems, epochs=6, samples=4, lr=0.02, log=lines.append)
    ratios = [float(line.split("bound ")[1].split(",")[0]) for line in lines]
    assert len(ratios) == 6
    assert max(ratios[-2:]) > ratios[0]  # the relaxed objective rose
    path = tmp_path / "init.pt"
    net.save(path, {"note": "test"})
    again = load(path)
    for key, value in net.state_dict().items():
        assert torch.equal(value, again.state_dict()[key])
    assert again.card == {"note": "test"}
    g1, g2 = problems[0].g1, problems[0].g2
    r = gedkit.mces(g1, g2, "nga", init=str(path), **FAST)
    assert r.stats["init"] == str(path)
    assert_valid(r, g1, g2)


def test_bad_weights_file(tmp_path):
    from gedkit.mces.nga.model import load

    path = tmp_path / "bad.pt"
    path.write_bytes(b"not a weights file")
    with pytest.raises(FormatError, match="NGA weights"):
        load(path)
    torch.save({"format": "something else"}, path)
    with pytest.raises(FormatError, match="NGA weights"):
        load(path)


def test_shipped_initialisation_loads():
    from gedkit.mces.nga.method import shipped_initialisation
    from gedkit.mces.nga.model import load

    source = shipped_initialisation()
    if source is None:
        pytest.skip("no shipped NGA initialisation in this checkout")
    net = load(source)
    assert net.card.get("training")


def test_a_bad_init_file_is_refused_when_the_options_are_read(tmp_path, capsys):
    """Even on a pair solved before the network would run."""
    from gedkit.cli import main

    text, card = tmp_path / "notw.pt", tmp_path / "w.json"
    text.write_text("hello\n")
    card.write_text('{"model": "nga"}')
    g = gedkit.Graph({0: "C", 1: "C"}, [(0, 1)])
    for bad, says in ((text, "unreadable as a PyTorch file"), (card, "a JSON file")):
        with pytest.raises(FormatError, match=says) as caught:
            gedkit.mces(g, g, "nga", init=str(bad))
        assert "gedkit train" not in str(caught.value)  # it cannot make NGA weights
        assert main(["mces", "CCO", "CCO", "--method", "nga", "--init", str(bad)]) != 0
        assert says in capsys.readouterr().err
    with pytest.raises(OptionError, match="'molecules' is a Gelato"):
        gedkit.mces(g, g, "nga", init="molecules")
    with pytest.raises(OptionError, match="no such file"):
        gedkit.mces(g, g, "nga", init=str(tmp_path / "nosuch.pt"))
