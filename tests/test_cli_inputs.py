"""How the command line reads graphs: smiles:..., FILE#ID, --directed, one note for attributes
left out, errors that advise flags, and malformed files as one ``gedkit: error:`` line."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_malformed import CASES

from gedkit.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2 and out == ""
    assert err.startswith("gedkit: error: ") and err.count("\n") == 1, err
    return err


def write_molecules(tmp_path, count: int, **extra) -> list[str]:
    """``count`` node-link files of C-C-O chains whose nodes carry ``atom`` (and ``extra``)."""
    paths = []
    for k in range(count):
        nodes = [{"id": i, "atom": a, **extra} for i, a in enumerate("CCO")]
        links = [{"source": 0, "target": 1, "bond": 1}, {"source": 1, "target": 2, "bond": 1}]
        path = tmp_path / f"m{k}.json"
        path.write_text(json.dumps({"nodes": nodes, "links": links}))
        paths.append(str(path))
    return paths


def test_smiles_arguments(capsys):
    pytest.importorskip("rdkit")
    code, out, err = run(capsys, "ged", "smiles:CCO", "smiles:CCN", "--json")
    assert code == 0 and err == "" and json.loads(out)["distance"] == 1
    code, out, _ = run(capsys, "mces", "smiles:CCO", "smiles:OCC", "--json")
    assert code == 0 and json.loads(out)["num_edges"] == 2
    code, out, _ = run(capsys, "pairwise", "smiles:CCO", "smiles:CCN", "smiles:CC", "--json")
    assert code == 0 and json.loads(out)["rows"] == ["CCO", "CCN", "CC"]
    err = one_line_error(*run(capsys, "ged", "smiles:C(((", "smiles:C"))
    assert "RDKit cannot parse the SMILES 'C((('" in err


def test_a_molecule_rdkit_cannot_read_fails_its_pairs_and_the_others_are_solved(capsys,
                                                                                tmp_path):
    """As in Python, where a graph that cannot be read fails its entries: the command refused
    the whole file (RDKit's own NCI file has eight such records); ``--strict`` and
    ``--export`` (a dataset of every graph) still stop at the first."""
    pytest.importorskip("rdkit")
    smi = tmp_path / "b.smi"
    smi.write_text("CCO ethanol\nC1CC bad\nCCN amine\n")
    code, out, err = run(capsys, "pairwise", str(smi), "--json")
    data = json.loads(out)
    # named by its title, as read it would have been; its reason in the file's words
    assert code == 1 and data["rows"] == ["ethanol", "bad", "amine"]
    assert data["distance"][0][2] == 1 and data["counts"]["failed"] == 3
    assert {(e["row"], e["column"]) for e in data["errors"]} == {
        ("ethanol", "bad"), ("bad", "bad"), ("bad", "amine")}
    assert all(e["error"].endswith("b.smi:2: RDKit cannot parse the SMILES 'C1CC'")
               and "graphs_a" not in e["error"] for e in data["errors"])
    assert err.startswith("gedkit: note: 1 record could not be read: its pairs fail "
                          "(--strict stops at the first)")
    err = one_line_error(*run(capsys, "pairwise", str(smi), "--strict"))
    assert "b.smi:2: RDKit cannot parse the SMILES 'C1CC'" in err
    untitled = tmp_path / "u.smi.gz"  # untitled, named as the readable ones are
    with gzip.open(untitled, "wt") as f:
        f.write("CCO\nC1CC\n")
    data = json.loads(run(capsys, "pairwise", str(untitled), "--json")[1])
    assert data["rows"] == ["u[0]", "u[1]"]
    from rdkit import Chem

    atoms = "".join(f"    {k:.4f}    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
                    for k in range(6))
    bonds = "".join(f"  1  {k}  1  0\n" for k in range(2, 7))
    counts = "  6  5  0  0  0  0  0  0  0  0999 V2000\n"
    pentavalent = f"pentaC\n  manual\n\n{counts}{atoms}{bonds}M  END\n"
    sdf = tmp_path / "mix.sdf"
    propane = Chem.MolFromSmiles("CCC")
    propane.SetProp("_Name", "propane")
    # a damaged record takes the next one's lines as RDKit reads it: that one was lost
    # without a word
    sdf.write_text(f"{Chem.MolToMolBlock(Chem.MolFromSmiles('CCO'))}$$$$\n{pentavalent}$$$$\n"
                   f"garbage\nnot a molblock\n$$$$\n{Chem.MolToMolBlock(propane)}$$$$\n")
    code, out, err = run(capsys, "pairwise", str(sdf), "--json")
    data = json.loads(out)
    assert data["rows"] == ["mix[0]", "pentaC", "garbage", "propane"]
    assert data["counts"]["failed"] == 9 and "3 records could not be read" in err
    assert any("record number 4 (#3) (titled 'propane') was not read: RDKit read 3 of the "
               "file's 4 records" in e["error"] for e in data["errors"])
    smi.write_text("C1CC\nC(C\n")
    err = one_line_error(*run(capsys, "pairwise", str(smi)))
    assert "no graphs in" in err and "all 2 records could not be read" in err


def test_no_label_flags_read_the_format_labels_away(capsys):
    # SMILES are labelled by element and bond order: --no-edge-label compares the bonds
    # unlabelled (CC=O against CCO: the same), --no-node-label the atoms (CCO against CCN)
    pytest.importorskip("rdkit")
    for flag, a, b in (("--no-edge-label", "CC=O", "CCO"), ("--no-node-label", "CCO", "CCN")):
        code, out, _ = run(capsys, "ged", "smiles:" + a, "smiles:" + b, "--json")
        assert code == 0 and json.loads(out)["distance"] == 1
        code, out, _ = run(capsys, "ged", "smiles:" + a, "smiles:" + b, flag, "--json")
        assert code == 0 and json.loads(out)["distance"] == 0
    err = one_line_error(*run(capsys, "ged", "smiles:C", "smiles:C", "--no-edge-label",
                              "--edge-label", "bond"))
    assert "--no-edge-label and --edge-label contradict each other" in err
    # a collection records the labels it is built with, the format's own when none is named:
    # no unlabelled build (the flag was taken and the bonds kept their labels)
    assert main(["collection", "build", "x.gdb", "smiles:CCO", "--no-edge-label"]) == 2
    assert "unrecognized arguments: --no-edge-label" in capsys.readouterr().err


def test_bare_smiles_arguments_as_in_python(capsys, tmp_path):
    # a string naming no file is SMILES, as gedkit.ged("CCO", "CCN") reads it
    pytest.importorskip("rdkit")
    code, out, _ = run(capsys, "ged", "CCO", "CCN", "--json")
    assert code == 0 and json.loads(out)["distance"] == 1
    code, out, _ = run(capsys, "mces", "c1ccccc1O", "c1ccccc1N", "--json")
    assert code == 0 and json.loads(out)["num_edges"] == 6
    code, out, _ = run(capsys, "pairwise", "CCO", "CCN", "--json")
    assert code == 0 and json.loads(out)["rows"] == ["CCO", "CCN"]
    # a mistyped file name: one error naming both readings; --format says "a file"
    err = one_line_error(*run(capsys, "ged", str(tmp_path / "nofile.json"), "CCO"))
    assert "neither an existing file nor a SMILES string" in err
    err = one_line_error(*run(capsys, "ged", str(tmp_path / "x.json"), "CCO", "--format",
                              "json"))
    assert "no such file" in err


def test_one_graph_of_a_collection(capsys, tmp_path):
    path = tmp_path / "two.txt"
    path.write_text("t # first\nv 0 C\nv 1 O\ne 0 1\nt # second\nv 0 C\nv 1 N\ne 0 1\n")
    code, out, _ = run(capsys, "ged", f"{path}#first", f"{path}#1", "--json")
    assert code == 0 and json.loads(out)["distance"] == 1
    code, out, _ = run(capsys, "pairwise", f"{path}#second", path, "--json")
    # a name two rows share: each row named by the reference that reads it back
    assert code == 0 and json.loads(out)["rows"] == [f"{path}#second", "first", f"{path}#1"]
    err = one_line_error(*run(capsys, "ged", path, f"{path}#0"))
    assert f"holds several graphs and one is wanted here; pick one as '{path}#ID'" in err
    assert "read_all" not in err


def test_ids_holding_a_hash_and_long_smiles(capsys, tmp_path):
    path = tmp_path / "h#.txt"
    path.write_text("t # cmpd#1\nv 0 C\nv 1 O\ne 0 1\nt # cmpd#2\nv 0 C\nv 1 N\ne 0 1\n")
    code, out, _ = run(capsys, "ged", f"{path}#cmpd#1", f"{path}#cmpd#2", "--json")
    assert code == 0 and json.loads(out)["distance"] == 1
    pytest.importorskip("rdkit")
    # over 255 characters: no file name (the system refuses to look), so a SMILES string
    code, out, err = run(capsys, "ged", "C" * 300, "CCC", "--json")
    assert code == 0 and json.loads(out)["distance"] == 594, err


def test_search_for_a_collection_graph_whose_id_holds_a_hash(capsys, tmp_path):
    pytest.importorskip("rdkit")
    smi = tmp_path / "h.smi"
    smi.write_text("CCO cmpd#1\nCCN cmpd#2\n")
    lib = tmp_path / "plain.gdb"
    assert run(capsys, "collection", "build", lib, smi)[0] == 0
    code, out, err = run(capsys, "search", lib, f"{lib}#cmpd#2", "--nearest", "1", "--json")
    assert code == 0, err
    assert "cmpd#2" in out


def test_one_note_per_command_in_cli_words(capsys, tmp_path):
    paths = write_molecules(tmp_path, 3, x=0.5)
    code, _, err = run(capsys, "pairwise", *paths, "--json")
    assert code == 0
    notes = [line for line in err.splitlines() if line.startswith("gedkit: note: ")]
    assert len(notes) == 1, err
    assert "nodes compared unlabelled" in notes[0] and "'atom', 'x'" in notes[0]
    assert "choose the labels with --node-label atom" in notes[0]
    assert "node_label=" not in notes[0] and "UnlabelledWarning" not in err
    code, _, err = run(capsys, "ged", paths[0], paths[1], "--node-label", "atom")
    assert code == 0  # naming one label: the edges' lone attribute is not taken unasked
    assert err.startswith("gedkit: note: ") and err.count("\n") == 1
    assert "edges compared unlabelled, as no edge label was named" in err
    assert "choose the labels with --edge-label bond" in err
    code, _, err = run(capsys, "ged", paths[0], paths[1], "--node-label", "atom",
                       "--edge-label", "bond")
    assert code == 0 and err == ""


def test_a_lone_attribute_needs_no_flag(capsys, tmp_path):
    a, b = write_molecules(tmp_path, 2)
    code, out, err = run(capsys, "ged", a, b, "--json")
    assert code == 0 and err == "" and json.loads(out)["distance"] == 0


def test_directed_flag_and_advice_in_cli_words(capsys, tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"directed": True, "nodes": [{"id": 0}, {"id": 1}],
                                "links": [{"source": 0, "target": 1}]}))
    err = one_line_error(*run(capsys, "ged", path, path))
    assert "pass --directed ignore to read each edge" in err and "directed=" not in err
    code, out, _ = run(capsys, "ged", path, path, "--directed", "ignore", "--json")
    assert code == 0 and json.loads(out)["distance"] == 0
    (tmp_path / "g.xyz").write_text("")
    err = one_line_error(*run(capsys, "ged", tmp_path / "g.xyz", path))
    assert "pass --format FORMAT with one of" in err


@pytest.mark.parametrize(("name", "content", "error", "fragment"), CASES,
                         ids=[case[0] for case in CASES])
def test_malformed_files_end_as_one_error_line(capsys, tmp_path, name, content, error, fragment):
    path = tmp_path / name
    path.write_text(content)
    labels = [] if name.endswith(".txt") else ["--node-label", "*", "--edge-label", "*"]
    err = one_line_error(*run(capsys, "ged", path, path, *labels))
    assert fragment in err


def test_malformed_file_in_a_fresh_process(tmp_path):
    """As a user sees it: exit status 2 and one line on stderr, even written to a file."""
    name, content, _, fragment = CASES[1]  # JSON nested 2,000 deep
    path = tmp_path / name
    path.write_text(content)
    with open(tmp_path / "stderr.txt", "w") as err:
        code = subprocess.run([sys.executable, "-m", "gedkit.cli", "ged", str(path), str(path)],
                              stdout=subprocess.DEVNULL, stderr=err, timeout=120).returncode
    text = (tmp_path / "stderr.txt").read_text()
    assert code == 2 and text == f"gedkit: error: {path}: JSON {fragment} to read\n"


def test_the_files_of_a_command_share_their_labels(capsys, tmp_path):
    plain = write_molecules(tmp_path, 1)[0]
    other = tmp_path / "n.json"  # atoms C, C, N carrying one more attribute
    data = json.loads(Path(plain).read_text())
    for node in data["nodes"]:
        node["x"] = 1
    data["nodes"][2]["atom"] = "N"
    other.write_text(json.dumps(data))
    code, out, err = run(capsys, "pairwise", plain, other, "--json")
    assert code == 0 and json.loads(out)["distance"][0][1] == 1  # both labelled by atom
    assert err.count("gedkit: note: ") == 1 and "by their attribute 'atom'" in err
    assert "leaving out 'x'" in err


def test_a_tve_file_beside_molecules_is_read_with_its_own_labels(capsys, tmp_path):
    """Labels named for molecules (--edge-label kekule) leave a t/v/e file beside them its
    one label column, said once (they refused it: "t/v/e files have one unnamed label
    column"), in gedkit ged and in a collection's build alike."""
    pytest.importorskip("rdkit")
    benzene = tmp_path / "benzene.txt"
    benzene.write_text("t # benzene\n" + "".join(f"v {i} C\n" for i in range(6))
                       + "".join(f"e {i} {(i + 1) % 6} {1 + i % 2}\n" for i in range(6)))
    code, out, err = run(capsys, "ged", benzene, "c1ccccc1", "--edge-label", "kekule",
                         "--json")
    assert code == 0 and json.loads(out)["distance"] == 0
    assert err == (f"gedkit: note: {benzene}: a t/v/e file's one label column is read as its "
                   "labels; --edge-label applies to the other formats\n")
    smiles = tmp_path / "lib.smi"
    smiles.write_text("c1ccccc1 benzene\nCCO ethanol\n")
    lib = tmp_path / "k.gdb"
    code, _, err = run(capsys, "collection", "build", lib, smiles, benzene, "--node-label",
                       "atom", "--edge-label", "kekule")
    assert code == 0 and "--node-label and --edge-label apply to the other formats" in err
    code, out, _ = run(capsys, "search", lib, benzene, "--within", "0", "--json")
    assert code == 0 and len(json.loads(out)["hits"]) == 2  # the molecule and the t/v/e file
