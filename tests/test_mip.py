"""The integer program on HiGHS (method "mip") and its LP relaxation."""

import subprocess
import sys

import numpy as np
import pytest
from helpers import brute_force, random_costs, random_graph

import gedkit
from gedkit import Graph, OptionError, costs
from gedkit.programs import solve_program
from gedkit.solvers import Budget, get_solver
from gedkit.solvers.exact.mip import build_model


def _pairs(seed, trials=24, max_n=6):
    """Tiny random pairs under uniform and random non-symmetric costs."""
    rng = np.random.default_rng(seed)
    for trial in range(trials):
        g1 = random_graph(rng, int(rng.integers(1, max_n)), p=0.5)
        g2 = random_graph(rng, int(rng.integers(1, max_n)), p=0.5)
        model = random_costs(rng) if trial % 2 else costs.uniform()
        yield model.compile(g1, g2)


def _random_map(rng, n1, n2):
    targets = np.concatenate([rng.permutation(n2), np.full(n1, -1)])
    return rng.permutation(targets)[:n1].astype(np.int64)


def test_exact_distance_equals_brute_force_and_astar():
    mip, astar = get_solver("mip"), get_solver("astar")
    for p in _pairs(seed=1):
        exact = brute_force(p)
        r = mip.solve(p, Budget())
        assert r.optimal
        assert r.upper_bound == pytest.approx(exact, abs=1e-9)
        assert r.upper_bound == pytest.approx(astar.solve(p, Budget()).upper_bound, abs=1e-9)
        assert p.cost(r.assignment) == r.upper_bound
        if "objective" in r.stats:  # the branch and bound ran: its objective is the map's cost
            assert r.stats["objective"] == pytest.approx(r.upper_bound, abs=1e-6)


def test_an_incumbent_given_stands_unless_the_program_beats_it():
    # auto hands the program its best map: the answer is never worse than it, whatever map
    # the branch and bound itself starts from (the rounded relaxation) and however short the
    # time (too short for the program to be built at all)
    from gedkit.solvers.exact.mip import integer_program

    for p in _pairs(seed=5, trials=16):
        best = get_solver("astar").solve(p, Budget())
        given = integer_program(p, Budget(), incumbent=best.assignment)
        assert given.optimal and given.upper_bound == pytest.approx(best.upper_bound, abs=1e-9)
        assert p.cost(given.assignment) == given.upper_bound
        cut = integer_program(p, Budget(timeout=1e-4), incumbent=best.assignment)
        assert cut.upper_bound <= best.upper_bound + 1e-9
        assert p.cost(cut.assignment) == cut.upper_bound


def test_highs_objective_equals_the_cost_of_its_node_map():
    # the integer program alone, without the LP shortcut of the solver
    for p in _pairs(seed=2, trials=12):
        model = build_model(p)
        h, values = solve_program(model, integer=True)
        forward = model.node_map(values)
        assert h.getInfo().objective_function_value == pytest.approx(p.cost(forward), abs=1e-6)
        assert p.cost(forward) == pytest.approx(brute_force(p), abs=1e-9)


def test_every_node_map_is_a_feasible_point_of_its_cost():
    # the model prices any map exactly like Problem.cost, both edge orientations included
    rng = np.random.default_rng(3)
    for p in _pairs(seed=3, trials=16):
        model = build_model(p)
        for _ in range(10):
            forward = _random_map(rng, p.n1, p.n2)
            point = model.point(forward)
            assert np.all(model.matrix @ point <= model.row_upper + 1e-12)
            assert model.objective(point) == pytest.approx(p.cost(forward), abs=1e-9)
            assert np.array_equal(model.node_map(point), forward)


def test_reversed_edge_is_matched_in_either_orientation():
    g1 = Graph({0: "A", 1: "B"}, [(0, 1, "x")])
    g2 = Graph({0: "B", 1: "A"}, [(0, 1, "x")])  # same graph, nodes listed the other way
    r = gedkit.ged(g1, g2, method="mip")
    assert r.distance == 0.0 and r.optimal
    assert r.node_map == [(0, 1), (1, 0)]


def test_lp_relaxation_is_a_lower_bound_with_a_realised_upper_bound():
    lp = get_solver("mip", relaxation=True)
    for p in _pairs(seed=4):
        exact = brute_force(p)
        r = lp.solve(p, Budget())
        assert r.lower_bound <= exact + 1e-7
        assert exact <= r.upper_bound + 1e-9
        assert p.cost(r.assignment) == r.upper_bound
        assert r.stats["nodes"] == 0


def test_tiny_timeout_returns_valid_bounds_without_raising():
    rng = np.random.default_rng(5)
    g1, g2 = random_graph(rng, 12, p=0.4), random_graph(rng, 12, p=0.4)
    for model in (costs.uniform(), random_costs(rng)):
        p = model.compile(g1, g2)
        for relaxation in (False, True):
            r = get_solver("mip", relaxation=relaxation).solve(p, Budget(timeout=1e-3))
            assert 0.0 <= r.lower_bound <= r.upper_bound
            p.check_map(r.assignment)
            assert p.cost(r.assignment) == r.upper_bound


@pytest.mark.parametrize(("n1", "n2"), [(0, 0), (0, 3), (3, 0)])
def test_empty_graphs(n1, n2):
    rng = np.random.default_rng(6)
    for model in (costs.uniform(), random_costs(rng)):
        p = model.compile(random_graph(rng, n1, p=0.6), random_graph(rng, n2, p=0.6))
        for relaxation in (False, True):
            r = get_solver("mip", relaxation=relaxation).solve(p, Budget())
            assert r.optimal
            assert r.upper_bound == pytest.approx(brute_force(p))
            assert p.cost(r.assignment) == r.upper_bound


def test_threshold_answers_the_range_question():
    for p in _pairs(seed=7, trials=12):
        exact = brute_force(p)
        for threshold in (exact - 0.5, exact, exact + 0.5):
            budget = Budget(threshold=threshold)
            r = get_solver("mip").solve(p, budget)
            assert r.lower_bound <= exact + 1e-9 <= r.upper_bound + 2e-9
            if exact <= threshold:
                assert r.upper_bound <= threshold + 1e-9
            else:
                assert r.lower_bound > threshold


def test_through_the_public_api():
    g1 = Graph({1: "C", 2: "O"}, [(1, 2)])
    g2 = Graph({"a": "C", "b": "N", "c": "H"}, [("a", "b"), ("a", "c")])
    assert gedkit.ged(g1, g2, method="mip").distance == 3.0
    assert gedkit.ged(g1, g2, method="mip", threshold=2).within_threshold is False


@pytest.mark.parametrize("options", [{"relaxation": "yes"}, {"threads": 0}, {"threads": 1.5}])
def test_bad_options_are_rejected(options):
    with pytest.raises(OptionError):
        get_solver("mip", **options)


def test_highs_prints_nothing():
    # HiGHS announces itself on stdout the first time a process uses it; that would corrupt
    # machine-readable output, so a fresh interpreter must stay silent
    code = (
        "import gedkit; from gedkit import Graph;"
        "gedkit.ged(Graph({0: 'a'}, []), Graph({0: 'b'}, []), method='mip')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == ""


def test_a_solve_that_ignores_its_cancel_is_left_running_with_what_it_found(monkeypatch):
    """HiGHS's root cut separation neither reads its clock nor a cancel (0.6-0.8 s past the
    limit on a 21/27-atom pair): a solve still running shortly after its deadline is left to
    stop on its own, and the call answers on time with the best map the branch and bound
    reported, its upper bound that map's cost."""
    import threading

    from gedkit import programs
    from gedkit.solvers.exact.mip import integer_program

    rng = np.random.default_rng(8)
    p = costs.uniform().compile(random_graph(rng, 12, p=0.3, n_labels=3),
                                random_graph(rng, 13, p=0.3, n_labels=3))
    released = threading.Event()
    real = programs._solve

    def stalled(h):  # the real solve, then a stretch that hears no cancel
        real(h)
        released.wait(5)

    monkeypatch.setattr(programs, "_solve", stalled)
    h, values = solve_program(build_model(p), integer=True, time_limit=0.3)
    assert isinstance(h, programs._Found) and programs._DRAINING[-1][1].is_alive()
    assert h.getModelStatus() != h.getModelStatus().kOptimal
    if values is not None:  # the branch and bound's last better solution, in model columns
        assert h.objective == pytest.approx(p.cost(build_model(p).node_map(values)))
    r = integer_program(p, Budget(timeout=0.5))
    assert p.cost(r.assignment) == r.upper_bound and r.lower_bound <= r.upper_bound
    assert r.stats["status"].startswith("Interrupted (left running")
    released.set()
    programs.drain()
    assert not any(t.is_alive() for _, t in programs._DRAINING)


def test_the_command_line_does_not_wait_for_a_solve_left_running(tmp_path):
    # the answer is printed on time; the process must not then sit at exit until HiGHS's
    # cut round ends (up to ~1 s), nor may ending early cut its output short
    waited = tmp_path / "waited"
    script = (
        "import sys, threading, time\n"
        "from gedkit import programs\n"
        "def stopping():\n"
        "    time.sleep(3)\n"
        f"    open({str(waited)!r}, 'w').close()\n"
        "thread = threading.Thread(target=stopping, daemon=True)\n"
        "thread.start()\n"
        "programs._DRAINING.append((None, thread))\n"
        "sys.argv = ['gedkit', 'methods']\n"
        "from gedkit.cli import main\n"
        "sys.exit(main())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and "mip" in out.stdout and out.stderr == ""
    assert not waited.exists()


def test_a_program_that_does_not_fit_answers_at_least_branchs_bounds(monkeypatch):
    """Where the program does not fit (a 300-node pair at 5 s, or its relaxation unfinished
    in 30 s) the answer was the cheap bounds' (lower bound 8) where BRANCH proves 41 in a
    tenth of a second, as the other methods' fall-backs answer: BRANCH's bound and map now
    come first."""
    from gedkit.solvers.exact import mip

    rng = np.random.default_rng(5)
    g1, g2 = random_graph(rng, 25, 0.3), random_graph(rng, 28, 0.3)
    branch = gedkit.ged(g1, g2, method="branch")
    monkeypatch.setattr(mip, "program_fits", lambda *a: False)
    r = gedkit.ged(g1, g2, method="mip", timeout=5)
    assert r.lower_bound >= branch.lower_bound > 0
    assert r.upper_bound <= branch.upper_bound
    assert "does not fit" in r.stats["stopped"]


def test_the_starting_bounds_wait_for_no_compilation(monkeypatch):
    """The program's starting bounds take BRANCH's assignment only where its kernels are
    compiled (called directly, it compiled them in the foreground: 3.3 s under a 1 s limit
    on a fresh install); else the cheap bounds."""
    from gedkit._kernels import warm
    from gedkit.solvers.heuristics import lsape

    def compiling(*args, **kwargs):
        raise AssertionError("BRANCH's assignment run while its kernels compile")

    monkeypatch.setattr(warm, "ready", lambda family: family != "assignment")
    monkeypatch.setattr(lsape.Branch, "assign", compiling)
    problem = gedkit.costs.uniform().compile(gedkit.from_smiles("CC(=O)Nc1ccc(O)cc1"),
                                             gedkit.from_smiles("CCOc1ccc(NC(C)=O)cc1"))
    base = lsape.branch_bounds(problem, Budget(timeout=1), "mip")
    assert base.lower_bound <= 4 <= base.upper_bound


def test_a_program_stopped_by_its_time_limit_says_so():
    """HiGHS stops a little before the budget's end, where the budget's expiry does not yet
    say it: ``stats["stopped"]`` was left unset, and the command line printed no reason."""
    import networkx as nx

    def labelled(seed):
        g = nx.gnm_random_graph(30, 60, seed=seed)
        nx.set_node_attributes(g, {v: "CNO"[v % 3] for v in g}, "type")
        return g

    r = gedkit.ged(labelled(1), labelled(2), node_label="type", method="mip", timeout=1)
    assert not r.optimal and r.stats["stopped"] == "time limit"
