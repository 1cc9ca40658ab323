"""PyTorch Geometric, against the real library: Graph.from_pyg / to_pyg round trips, and a
pairwise matrix exported as GEDDataset's raw files loads through GEDDataset offline with
gedkit's values, its optimal flags and node maps beside it."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from helpers import random_graph

import gedkit

torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric", reason="torch_geometric is not installed "
                          "(pip install 'gedkit[pyg]')")
from torch_geometric.data import Data  # noqa: E402
from torch_geometric.datasets import GEDDataset  # noqa: E402
from torch_geometric.utils import is_undirected  # noqa: E402

from gedkit.io.pyg import AIDS_TYPES, write_geddataset  # noqa: E402


@pytest.fixture(scope="module")
def molecules():
    rng = np.random.default_rng(3)
    return [random_graph(rng, int(n), node_values=("C", "N", "O", "Cl"), edge_values=(1, 2),
                         name=f"mol{k}") for k, n in enumerate(rng.integers(2, 8, size=8))]


@pytest.fixture(scope="module")
def atoms():
    """Molecules as GEDDataset's AIDS700nef holds them: atom types, no bond labels."""
    rng = np.random.default_rng(3)
    return [random_graph(rng, int(n), node_values=("C", "N", "O", "Cl"), edge_values=(None,),
                         name=f"mol{k}") for k, n in enumerate(rng.integers(2, 8, size=8))]


@pytest.fixture(scope="module")
def shapes():
    """Graphs as LINUX holds them: no labels."""
    rng = np.random.default_rng(4)
    return [random_graph(rng, int(n), node_values=(None,), edge_values=(None,))
            for n in rng.integers(2, 8, size=8)]


def test_graph_to_pyg_and_back(molecules):
    nodes, edges = ["C", "N", "O", "Cl"], [1, 2]
    for g in molecules:
        data = g.to_pyg(node_vocabulary=nodes, edge_vocabulary=edges)
        assert isinstance(data, Data) and data.num_nodes == g.n
        assert data.edge_index.shape == (2, 2 * g.m) and is_undirected(data.edge_index)
        assert data.x.shape == (g.n, 4) and data.edge_attr.shape == (2 * g.m, 2)
        back = gedkit.Graph.from_pyg(data, node_vocabulary=nodes, edge_vocabulary=edges)
        assert back == gedkit.Graph(dict(enumerate(g.node_labels)),
                                    [(int(u), int(v), lab) for (u, v), lab
                                     in zip(g.edges.tolist(), g.edge_labels, strict=True)])
        assert gedkit.ged(back, g).distance == 0


def test_a_graphs_own_vocabulary_travels_with_its_data():
    # without a vocabulary each graph's labels are one-hot over its own sorted ones: 'S' of
    # one graph and 'N' of another were both column 1, and read back as the same label
    # (GED 0 between graphs at 1); the vocabulary kept on the Data reads them back as they were
    pair = [gedkit.Graph({0: "C", 1: "S"}, [(0, 1, "s")]),
            gedkit.Graph({0: "C", 1: "N"}, [(0, 1, "d")])]
    data = [g.to_pyg() for g in pair]
    assert data[0].node_vocabulary == ["C", "S"] and data[1].edge_vocabulary == ["d"]
    back = [gedkit.Graph.from_pyg(d) for d in data]
    assert back == pair and gedkit.ged(*back).distance == gedkit.ged(*pair).distance == 2
    given = pair[0].to_pyg(node_vocabulary=["C", "N", "S"], edge_vocabulary=["d", "s"])
    assert "node_vocabulary" not in given and "edge_vocabulary" not in given


@pytest.mark.parametrize("label", [0.1, 2**24 + 1, (1, 0), 7, 2.5, (1.5, -3.0)])
def test_numbers_read_back_exactly_and_names_travel(label):
    """Numeric labels come back as they were (float32 features rounded 0.1 and 2**24 + 1,
    and a tuple that looked one-hot came back as an index), and the graph keeps its name."""
    g = gedkit.Graph({0: label, 1: label}, [(0, 1, label)], name="p")
    back = gedkit.Graph.from_pyg(g.to_pyg())
    assert back == g and back.name == "p" and gedkit.ged(g, back).distance == 0
    assert [gedkit.graph.label_key(x) for x in back.node_labels] == [
        gedkit.graph.label_key(label)] * 2


def test_pyg_data_to_graph_and_back():
    # a Data as PyG datasets give them: one-hot x, both directions, no edge features
    x = torch.eye(3)[torch.tensor([0, 2, 2, 1])]
    edge_index = torch.tensor([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])
    data = Data(x=x, edge_index=edge_index)
    g = gedkit.Graph.from_pyg(data, name="p")
    assert g.node_labels == (0, 2, 2, 1) and g.m == 3 and g.name == "p"
    again = g.to_pyg(node_vocabulary=[0, 1, 2])
    assert torch.equal(again.x, x) and torch.equal(again.edge_index, edge_index)
    assert getattr(again, "edge_attr", None) is None
    # numbers stay numbers; edges listed once also read
    data = Data(x=torch.tensor([[0.5], [2.0]]), edge_index=torch.tensor([[0], [1]]),
                edge_attr=torch.tensor([[1.0, 3.0]]))
    g = gedkit.Graph.from_pyg(data)
    assert g.node_labels == (0.5, 2) and g.edge_labels == ((1, 3),)
    assert torch.equal(g.to_pyg().x, torch.tensor([[0.5], [2.0]]))


@pytest.mark.parametrize(
    ("edge_index", "match"),
    [
        ([[0, 1, 1], [1, 0, 2]], "neither undirected"),
        ([[0, 5], [5, 0]], "outside"),
    ],
)
def test_bad_data_is_one_line_error(edge_index, match):
    data = Data(edge_index=torch.tensor(edge_index), num_nodes=3)
    with pytest.raises(gedkit.GraphError, match=match):
        gedkit.Graph.from_pyg(data)


def test_what_is_no_data_and_a_vocabulary_naming_a_label_twice_are_one_line_errors():
    # a dict raised AttributeError from inside; a vocabulary naming "C" twice made C's
    # first column never set, silently
    with pytest.raises(gedkit.GraphError, match=r"takes a torch_geometric\.data\.Data, got dict"):
        gedkit.Graph.from_pyg({})
    with pytest.raises(gedkit.OptionError, match="node_vocabulary names the label 'C' twice"):
        gedkit.Graph({0: "C", 1: "O"}, [(0, 1)]).to_pyg(node_vocabulary=["C", "O", "N", "C"])


def test_a_self_loop_is_one_entry():
    data = Data(edge_index=torch.tensor([[0, 0, 1], [0, 1, 0]]), num_nodes=2)
    if not hasattr(gedkit.Graph([0]), "loops"):  # graphs without self-loops: said so
        with pytest.raises(gedkit.GraphError, match="self-loop"):
            gedkit.Graph.from_pyg(data)
        return
    g = gedkit.Graph.from_pyg(data)
    assert g.m == 1 and g.loops == {0: None}
    assert torch.equal(g.to_pyg().edge_index, data.edge_index)


def test_export_loads_through_geddataset_with_gedkit_values(atoms, tmp_path):
    molecules = atoms
    m = gedkit.pairwise(molecules, costs="uniform", timeout=None, node_maps=True,
                        progress=False)
    root = write_geddataset(tmp_path / "ds", m, molecules, test=3)
    train = GEDDataset(str(root), "AIDS700nef")
    test = GEDDataset(str(root), "AIDS700nef", train=False)
    assert (len(train), len(test)) == (5, 3)
    graphs = list(train) + list(test)
    for data, g in zip(graphs, molecules, strict=True):
        assert data.num_nodes == g.n and data.edge_index.shape[1] == 2 * g.m
        assert [AIDS_TYPES[k] for k in data.x.argmax(dim=1).tolist()] == list(g.node_labels)
    ged = train.ged.numpy()
    for a in graphs:
        for b in graphs:
            assert ged[a.i, b.i] == m.distance[int(a.i), int(b.i)]
    bounds = np.load(root / "gedkit" / "bounds.npz")
    np.testing.assert_array_equal(bounds["optimal"], m.optimal)
    np.testing.assert_array_equal(bounds["upper"], m.upper_bound)
    maps = json.loads((root / "gedkit" / "node_maps.json").read_text())
    assert len(maps) == len(m.pairs)
    for key, forward in maps.items():
        i, j = map(int, key.split())
        problem = gedkit.costs.uniform().compile(molecules[i], molecules[j])
        assert problem.cost(np.array(forward)) == m.upper_bound[i, j]
    meta = json.loads((root / "gedkit" / "meta.json").read_text())
    assert meta["graphs"] == [g.name for g in molecules] and meta["test"] == 3


def test_export_rows_are_train_columns_test_and_unproven_pairs_are_flagged(shapes, tmp_path):
    m = gedkit.pairwise(shapes[:4], shapes[4:], method="bipartite", timeout=None,
                        progress=False)
    root = write_geddataset(tmp_path / "ds", m, shapes[:4], shapes[4:])  # LINUX by default
    train = GEDDataset(str(root), "LINUX")
    assert len(train) == 4 and getattr(train[0], "x", None) is None
    ged = train.ged.numpy()
    np.testing.assert_array_equal(ged[:4, 4:], m.upper_bound)
    assert np.isinf(ged[:4, :4]).all()  # train x train was not computed
    bounds = np.load(root / "gedkit" / "bounds.npz")
    np.testing.assert_array_equal(bounds["optimal"][:4, 4:], m.optimal)
    np.testing.assert_array_equal(bounds["lower"][:4, 4:], m.lower_bound)
    assert not bounds["optimal"].all()  # bipartite alone leaves some pairs unproven


def test_export_errors(atoms, molecules, shapes, tmp_path):
    # labels the dataset cannot hold: its graphs would not be the ones the distances are of
    for graphs, name, says in ((molecules[:3], None, "AIDS700nef has no edge labels"),
                               (atoms[:3], "LINUX", "LINUX holds the structure only"),
                               ([gedkit.Graph({0: "C", 1: "Na"}, [(0, 1)])] * 2, None,
                                "29 atom types, not 'Na'")):
        with pytest.raises(gedkit.OptionError, match=says):
            write_geddataset(tmp_path, gedkit.pairwise(graphs, progress=False), graphs,
                             name=name, test=1)
    assert not any(tmp_path.iterdir())
    assert gedkit.io.pyg.dataset_name(shapes) == "LINUX"
    molecules = atoms
    m = gedkit.pairwise(molecules[:3], progress=False)
    with pytest.raises(gedkit.OptionError, match="test must leave"):
        write_geddataset(tmp_path, m, molecules[:3], test=3)
    with pytest.raises(gedkit.OptionError, match="GEDDataset reads only"):
        write_geddataset(tmp_path, m, molecules[:3], name="MUTAG")
    letters = [gedkit.Graph({0: "Q"}), gedkit.Graph({0: "Z"})]
    with pytest.raises(gedkit.OptionError, match="not 'Q'"):
        write_geddataset(tmp_path, gedkit.pairwise(letters, progress=False), letters,
                         name="AIDS700nef", test=1)
    with pytest.raises(gedkit.OptionError, match="give the graphs it was computed on"):
        write_geddataset(tmp_path, m, molecules[:4])
    # a file, or a dataset gedkit did not write (a download): refused, nothing touched
    (tmp_path / "x.txt").write_text("mine")
    with pytest.raises(gedkit.OptionError, match="is not a folder"):
        write_geddataset(tmp_path / "x.txt", m, molecules[:3], test=1)
    assert (tmp_path / "x.txt").read_text() == "mine"
    (tmp_path / "dl" / "raw" / "AIDS700nef").mkdir(parents=True)
    (tmp_path / "dl" / "raw" / "AIDS700nef" / "ged.pickle").write_bytes(b"theirs")
    with pytest.raises(gedkit.OptionError, match="gedkit did not write"):
        write_geddataset(tmp_path / "dl", m, molecules[:3], test=1)
    assert (tmp_path / "dl" / "raw" / "AIDS700nef" / "ged.pickle").read_bytes() == b"theirs"
    # one it wrote is replaced (processed/ from loading it included)
    root = write_geddataset(tmp_path / "ours", m, molecules[:3], test=1)
    (root / "processed").mkdir()
    assert write_geddataset(root, m, molecules[:3], test=1) == root
    assert not (root / "processed").exists()


def test_cli_export(atoms, molecules, tmp_path, capsys):
    from gedkit.cli import main

    bonded = []
    for g in molecules[:5]:
        bonded.append(str(tmp_path / f"bonded-{g.name}.json"))
        gedkit.write(g, bonded[-1])
    root = tmp_path / "pyg"
    # bond labels AIDS700nef cannot hold: refused before any pair is solved (the table
    # would come first on stdout)
    assert main(["pairwise", *bonded, "--node-label", "label", "--edge-label", "label",
                 "--export", "pyg", str(root)]) == 2
    out, err = capsys.readouterr()
    assert "AIDS700nef has no edge labels" in err and not out and not root.exists()
    assert "--no-edge-label" in err  # the command line's way to compute them unlabelled
    # keeping the atoms means naming their attribute (with --no-edge-label alone, a file's
    # inferred node labels went too, and LINUX was exported)
    assert "atom symbols only: --node-label ATTRIBUTE --no-edge-label" in err
    # a test split that does not fit, and a folder that takes nothing: refused up front too
    # (a job's every pair was solved first)
    assert main(["pairwise", *bonded, "--node-label", "label", "--no-edge-label", "--export",
                 "pyg", str(root), "--pyg-test", "100"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("gedkit: error: --pyg-test must leave at least one graph in each "
                          "split of 5 graphs") and not out and not root.exists()
    # SMILES: labelled by element and bond order; --no-edge-label drops the bonds' labels
    smiles = tmp_path / "pw.smi"
    smiles.write_text("CCO a\nCCN b\nCC=O c\n")
    assert main(["pairwise", str(smiles), "--no-edge-label", "--export", "pyg",
                 str(tmp_path / "smiles"), "--csv", str(tmp_path / "pw.csv")]) == 0
    assert (tmp_path / "smiles" / "raw" / "AIDS700nef" / "ged.pickle").is_file()
    capsys.readouterr()
    molecules = atoms
    files = []
    for g in molecules[:5]:
        files.append(str(tmp_path / f"{g.name}.json"))
        gedkit.write(g, files[-1])
    assert main(["pairwise", *files, "--node-label", "label",
                 "--timeout", "none", "--export", "pyg", str(root), "--pyg-test", "2"]) == 0
    assert "GEDDataset(" in capsys.readouterr().err
    with open(root / "raw" / "AIDS700nef" / "ged.pickle", "rb") as f:
        values = pickle.load(f)
    expected = gedkit.pairwise(molecules[:5], timeout=None, progress=False)
    assert values == {(i, j): expected.distance[i, j] for i, j in expected.pairs.tolist()}
    assert len(GEDDataset(str(root), "AIDS700nef", train=False)) == 2
    assert main(["pairwise", *files, "--export", "csv", str(root)]) == 2
    assert "--export knows one format" in capsys.readouterr().err
    assert main(["pairwise", *files, "--pyg-name", "LINUX"]) == 2  # without --export
    assert "give --export too" in capsys.readouterr().err
    # a bad target is an error before any pair is solved (it was one after the whole job)
    # (the matrix's table would come first on stdout)
    assert main(["pairwise", *files, "--export", "pyg", files[0]]) == 2
    out, err = capsys.readouterr()
    assert "is not a folder" in err and err.count("\n") == 1 and not out


def test_cli_export_is_not_written_after_ctrl_c(tmp_path, capsys, monkeypatch):
    """Ctrl-C left pairs unsolved: no dataset of inf targets (it was written, 739 of 820
    pairs inf, with the usual line); a note says how to finish it."""
    import importlib

    from gedkit.cli import main

    pairwise_module = importlib.import_module("gedkit.pairwise")
    real = pairwise_module.pairwise

    def stopped(*args, **kwargs):  # the job as Ctrl-C leaves it: every pair pending
        result = real(*args, **kwargs)
        off = result.pairs[:, 0] != result.pairs[:, 1]
        result.status[tuple(result.pairs[off].T)] = "pending"
        result.interrupted = True
        return result

    monkeypatch.setattr(pairwise_module, "pairwise", stopped)
    smiles = tmp_path / "pw.smi"
    smiles.write_text("CCO a\nCCN b\nCC=O c\n")
    root = tmp_path / "pyg"
    code = main(["pairwise", str(smiles), "--no-edge-label", "--export", "pyg", str(root),
                 "--csv", str(tmp_path / "pw.csv")])
    err = capsys.readouterr().err
    assert code == 130 and not root.exists() and "GEDDataset(" not in err
    assert "--export not written: 3 of 6 pairs not solved; run it again with --out FILE" in err

