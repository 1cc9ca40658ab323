"""The gedkit command line, run in-process through ``main`` (plus one run of the installed
entry point)."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from helpers import random_graph

import gedkit
from gedkit.cli import main
from gedkit.io import read, read_all
from gedkit.solvers.exact.tree_search import AStar

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LABELS = {"node_label": "atom", "edge_label": "bond"}
LABEL_ARGS = ["--node-label", "atom", "--edge-label", "bond"]


def node_link(nodes: dict, edges: list, name: str | None = None) -> dict:
    return {
        "directed": False,
        "multigraph": False,
        "graph": {"name": name} if name else {},
        "nodes": [{"id": u, "atom": a} for u, a in nodes.items()],
        "links": [{"source": u, "target": v, "bond": b} for u, v, b in edges],
    }


ETHANOL = node_link({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 1)], "ethanol")
ACETALDEHYDE = node_link({0: "C", 1: "C", 2: "O"}, [(0, 1, 1), (1, 2, 2)], "acetaldehyde")
METHYLAMINE = node_link({"a": "C", "b": "N"}, [("a", "b", 1)], "methylamine")


@pytest.fixture
def files(tmp_path):
    out = {}
    for key, data in [("a", ETHANOL), ("b", METHYLAMINE), ("c", ACETALDEHYDE)]:
        out[key] = tmp_path / f"{key}.json"
        out[key].write_text(json.dumps(data))
    out["both"] = tmp_path / "both.json"
    out["both"].write_text(json.dumps([ETHANOL, METHYLAMINE]))
    return {key: str(path) for key, path in out.items()}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, out: str, err: str, *fragments: str) -> None:
    assert code == 2
    assert out == ""
    assert err.startswith("gedkit: error: ") and err.endswith("\n")
    assert "\n" not in err[:-1] and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


# -- information --------------------------------------------------------------------------------

def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"gedkit {gedkit.__version__}"


def test_help_lists_commands(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for command in ("ged", "pairwise", "methods", "costs"):
        assert command in out


def test_methods(capsys):
    code, out, _ = run(capsys, "methods")
    assert code == 0
    for name, summary in gedkit.methods().items():
        assert any(line.startswith(name) and summary in line for line in out.splitlines())
    code, out, _ = run(capsys, "methods", "--json")
    listed = {m["name"]: m for m in json.loads(out)}
    assert listed.keys() == gedkit.methods().keys()
    assert listed["exact"]["exact"] is True
    assert "memory" in listed["astar"]["options"]


def test_costs(capsys):
    code, out, _ = run(capsys, "costs")
    assert code == 0 and out.split() == gedkit.costs.available()
    code, out, _ = run(capsys, "costs", "--json")
    assert json.loads(out) == gedkit.costs.available()


# -- ged ----------------------------------------------------------------------------------------

def test_ged_json_matches_api(capsys, files):
    code, out, err = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    expected = gedkit.ged(read(files["a"], **LABELS), read(files["b"], **LABELS))
    assert data["distance"] == expected.distance
    assert data["lower_bound"] == data["upper_bound"] == expected.distance
    assert data["optimal"] is True and data["method"] == "auto"
    assert len(data["node_map"]) == 3 and all(len(pair) == 2 for pair in data["node_map"])
    assert sum(op["cost"] for op in data["edit_path"]) == pytest.approx(data["distance"])
    assert {"time", "stats"} <= data.keys()


def test_ged_text_for_people(capsys, files):
    code, out, _ = run(capsys, "ged", files["a"], files["c"], *LABEL_ARGS, "--method", "dfs")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["distance", "1", "(optimal)"]
    assert "method" in out and "dfs" in out
    assert "node map" in out and "edit path (1 operations, cost 1)" in out
    assert any("substitute edge" in line and "(1, 2)" in line for line in lines)


def test_ged_no_path(capsys, files):
    _, out, _ = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--no-path")
    assert "node map" not in out and "edit path" not in out and "distance" in out
    _, out, _ = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--no-path", "--json")
    data = json.loads(out)
    assert "node_map" not in data and "edit_path" not in data and "distance" in data


def test_ged_labels_change_the_distance(capsys, files):
    _, out, _ = run(capsys, "ged", files["a"], files["c"], "--json", "--node-label", "atom")
    assert json.loads(out)["distance"] == 0  # bond orders ignored
    _, out, _ = run(capsys, "ged", files["a"], files["c"], "--json", "--node-label", "*",
                    "--edge-label", "bond")
    assert json.loads(out)["distance"] == 1


def test_ged_threshold(capsys, files):
    _, out, _ = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--threshold", "0.5",
                    "--json")
    assert json.loads(out)["within_threshold"] is False
    _, out, _ = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--threshold", "100")
    assert "distance <= 100" in out and "yes" in out


def test_ged_budget_and_options(capsys, files):
    for extra in (["--memory", "512M"], ["--memory", "2G"], ["-o", "memory=100000"],
                  ["--timeout", "30"], ["--costs", "constant"]):
        code, out, err = run(capsys, "ged", files["a"], files["b"], *LABEL_ARGS, "--json", *extra)
        assert code == 0, err
        assert json.loads(out)["optimal"] is True


@pytest.fixture
def restarts_method(monkeypatch):
    """A temporary method declaring extra options, recording the options it was given."""
    seen = []

    class Restarts(AStar):
        name = "restarts-test"
        summary = "A* that records its options"
        options: ClassVar[dict] = {
            **AStar.options, "starts": 1, "greedy": False, "mode": "x",
        }

        def solve(self, problem, budget):
            seen.append(dict(self.config))
            return super().solve(problem, budget)

    monkeypatch.setitem(gedkit.solvers.registry._SOLVERS._classes, Restarts.name, Restarts)
    return seen


def test_method_options_as_flags(capsys, files, restarts_method):
    # "--starts 5" sits between the positionals: it must not swallow B
    code, out, err = run(capsys, "ged", files["a"], "--starts", "5", files["b"], *LABEL_ARGS,
                         "--method", "restarts-test", "--greedy", "--mode=fast", "--json")
    assert code == 0, err
    assert restarts_method == [
        {**AStar.options, "starts": 5, "greedy": True, "mode": "fast"}
    ]
    assert json.loads(out)["method"] == "restarts-test"
    code, _, err = run(capsys, "ged", files["a"], files["b"], "--method", "restarts-test",
                       "-o", "starts=-2", "-o", "greedy=no")
    assert code == 0, err
    assert restarts_method[-1]["starts"] == -2 and restarts_method[-1]["greedy"] is False


def test_undeclared_flags_are_usage_errors(capsys, files):
    code, _, err = run(capsys, "ged", files["a"], files["b"], "--starts", "5")
    assert code == 2 and "unrecognized arguments: --starts 5" in err


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["ged", "{tmp}/missing.json", "{a}"], ["missing.json"]),
        (["ged", "{a}", "{b}", "--method", "nope"], ["unknown method 'nope'"]),
        (["ged", "{a}", "{b}", "--costs", "nope"], ["unknown cost model 'nope'"]),
        (["ged", "{a}", "{b}", "--memory", "lots"], ["--memory 'lots'"]),
        (["ged", "{a}", "{b}", "--memory", "0"], ["--memory '0'"]),
        (["ged", "{a}", "{b}", "-o", "starts=10"], ["no option(s) starts"]),
        (["ged", "{a}", "{b}", "-o", "starts"], ["KEY=VALUE"]),
        (["ged", "{a}", "{b}", "--timeout", "-1"], ["timeout"]),
        (["ged", "{a}", "{b}", "--node-label", "charge"], ["no attribute 'charge'"]),
        (["pairwise", "{a}", "--jobs", "0"], ["n_jobs"]),
        (["pairwise", "{a}", "--against", "{tmp}/missing.json"], ["missing.json"]),
        (["pairwise", "{a}", "{b}", "--method", "nope"], ["unknown method"]),
    ],
)
def test_errors_are_one_line(capsys, files, tmp_path, args, fragments):
    argv = [a.format(tmp=tmp_path, **files) for a in args]
    assert_one_line_error(*run(capsys, *argv), *fragments)


def test_bad_file_content_is_one_line(capsys, files, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert_one_line_error(*run(capsys, "ged", str(bad), files["a"]), "bad.json")


# -- pairwise -----------------------------------------------------------------------------------

def test_pairwise_json_matches_api(capsys, files):
    code, out, _ = run(capsys, "pairwise", files["both"], files["c"], *LABEL_ARGS, "--json")
    assert code == 0
    data = json.loads(out)
    graphs = read_all(files["both"], **LABELS) + read_all(files["c"], **LABELS)
    expected = gedkit.pairwise(graphs, progress=False)
    assert data["rows"] == data["columns"] == ["ethanol", "methylamine", "acetaldehyde"]
    np.testing.assert_array_equal(data["distance"], expected.distance)
    np.testing.assert_array_equal(data["lower_bound"], expected.lower_bound)
    assert np.all(data["optimal"]) and data["method"] == "auto"


def test_pairwise_against_with_jobs(capsys, files):
    code, out, _ = run(capsys, "pairwise", files["a"], "--against", files["b"], files["c"],
                       *LABEL_ARGS, "--jobs", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["rows"] == ["ethanol"] and data["columns"] == ["methylamine", "acetaldehyde"]
    a = read(files["a"], **LABELS)
    assert data["distance"][0] == [
        gedkit.ged(a, read(files[k], **LABELS)).distance for k in ("b", "c")
    ]


def test_pairwise_table(capsys, files):
    code, out, _ = run(capsys, "pairwise", files["a"], files["b"], *LABEL_ARGS)
    assert code == 0
    header, first, second = out.splitlines()
    assert header.split() == ["ethanol", "methylamine"]
    assert first.split() == ["ethanol", "0", "3"] and second.split() == ["methylamine", "3", "0"]


def test_pairwise_csv(capsys, files, tmp_path):
    target = tmp_path / "matrix.csv"
    code, out, _ = run(capsys, "pairwise", files["both"], *LABEL_ARGS, "--csv", target)
    assert code == 0 and str(target) in out
    rows = list(csv.reader(target.open()))
    assert rows == [["", "ethanol", "methylamine"],
                    ["ethanol", "0.0", "3.0"], ["methylamine", "3.0", "0.0"]]
    code, out, _ = run(capsys, "pairwise", files["both"], *LABEL_ARGS, "--csv", "-")
    assert list(csv.reader(out.splitlines())) == rows


@pytest.mark.skipif(not (EXAMPLES / "caffeine.json").exists(), reason="examples not bundled")
def test_bundled_examples(capsys):
    a, b = EXAMPLES / "caffeine.json", EXAMPLES / "theobromine.json"
    code, out, _ = run(capsys, "ged", a, b, *LABEL_ARGS, "--json", "--timeout", "60")
    assert code == 0
    assert json.loads(out)["distance"] == gedkit.ged(read(a, **LABELS), read(b, **LABELS),
                                                     timeout=60).distance


# -- the installed entry point ------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("gedkit") is None, reason="gedkit entry point not installed")
def test_installed_entry_point(files):
    done = subprocess.run(["gedkit", "ged", files["a"], files["b"], *LABEL_ARGS, "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["distance"] == 3
    done = subprocess.run(["gedkit", "ged", files["a"], "missing.json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.startswith("gedkit: error: ") and done.stderr.count("\n") == 1


def test_closed_pipe_is_not_an_error(tmp_path):
    # `gedkit ged A B --json | head -1` must end quietly with status 0: the edit path of two
    # 400-node graphs is far more than a pipe buffer, so gedkit is still writing when the
    # reader goes away
    rng = np.random.default_rng(0)
    paths = []
    for k in range(2):
        g = random_graph(rng, 400, p=0.02)
        paths.append(tmp_path / f"g{k}.json")
        gedkit.write(g, paths[-1])
    proc = subprocess.Popen(
        [sys.executable, "-m", "gedkit.cli", "ged", *map(str, paths), "--method", "node",
         "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert "error" not in err.lower() and "Traceback" not in err
