"""The learned solver Gelato: state graphs, training data, tiny-model training, decoding, the
solver, weights files and ``gedkit train gelato``.

Tests needing torch skip without it; the state-graph and data tests do not need it.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import brute_force, random_costs, random_graph

import gedkit
from gedkit import Graph, MissingDependencyError, OptionError, costs
from gedkit.budget import MEMORY_CAP, Cut
from gedkit.cli import main
from gedkit.errors import UnseenLabelWarning
from gedkit.learned.data import decisions, distinct_graphs, label, label_pairs, training_states
from gedkit.learned.features import EPSILON, Instance, States, Vocabulary, encode
from gedkit.solvers import Budget, get_solver

AIDS_SAMPLE = Path(__file__).resolve().parent / "data" / "aids700_sample.txt"
DELETIONS = costs.constant(node_sub=3, node_del=1, node_ins=1, edge_sub=3)  # sub > del + ins
TINY = {"width": 32, "layers": 3}


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    return torch


def one(x):
    return np.array([x])


def triangle(label="C"):
    return Graph({0: label, 1: label, 2: label}, [(0, 1), (1, 2), (0, 2)])


def path3(labels="CCC"):
    return Graph(dict(enumerate(labels)), [(0, 1), (1, 2)])


def small_pairs(seed, count, model=None, sizes=(5, 9)):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        g1 = random_graph(rng, int(rng.integers(*sizes)))
        g2 = random_graph(rng, int(rng.integers(*sizes)))
        yield (model or costs.uniform()).compile(g1, g2)


# -- state graphs ---------------------------------------------------------------------------------


def test_state_features_have_the_documented_channels():
    g1 = Graph({0: "C", 1: "O"}, [(0, 1, 1)])
    g2 = Graph({0: "C", 1: "N", 2: "C"}, [(0, 1, 2), (1, 2, 1)])
    vocab = Vocabulary.fit([g1, g2])
    assert vocab.nodes == ("C", "O", "N") and vocab.edges == (1, 2)
    inst = Instance(costs.uniform().compile(g1, g2), vocab)
    assert not inst.epsilon  # unit costs: pairs only
    enc = encode(States.empty(inst))
    assert enc.x.shape == (5, 3 + 1 + 5)  # 3 labels + other, side x2, status x2, cost
    assert enc.x[:, :4].tolist() == [[1, 0, 0, 0], [0, 1, 0, 0],
                                     [1, 0, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0]]
    assert enc.x[:, 4:6].tolist() == [[1, 0]] * 2 + [[0, 1]] * 3  # side tag
    assert not enc.x[:, 6:8].any()  # nothing matched yet
    assert enc.x[:, 8].tolist() == [1.0] * 5  # deletion / insertion cost
    assert enc.edge_index.shape == (2, 6) and enc.edge_attr.shape == (6, 2 + 1 + 2)
    assert not enc.edge_attr[:, 3].any()  # no matching edge yet
    assert enc.n_candidates == 6 and enc.cand_feat.shape == (6, 7)
    assert (enc.cand_feat[:, 4] == 1).all()  # all pairs
    # the substitution cost of each pair; nothing decided, so no edge cost added yet
    subs = {tuple(a): f[0] for a, f in zip(enc.action.tolist(), enc.cand_feat, strict=True)}
    assert subs[(0, 0)] == 0 and subs[(0, 1)] == 1 and subs[(1, 1)] == 1
    assert not enc.cand_feat[:, 3].any()

    s = States.from_decisions(inst, [(0, 1)])  # C -> N
    enc = encode(s)
    matched = enc.x[:, 6].tolist()
    assert matched == [1, 0, 0, 1, 0]
    assert enc.edge_attr[:, 3].sum() == 2  # the matching edge, both directions
    assert enc.edge_attr[enc.edge_attr[:, 3] == 1, 4].tolist() == [1.0, 1.0]  # its cost
    assert enc.action.tolist() == [[1, 0], [1, 2]]
    # O -> 0 maps bond 0-1 (label 1) onto 1-0 (label 2): one substitution; O -> 2 onto 1-2
    # (label 1): free
    assert enc.cand_feat[:, 3].tolist() == [1.0, 0.0]


def test_deletion_actions_come_with_costs_that_need_them():
    p = DELETIONS.compile(path3("CO"[:1] * 3), path3("NNN"))
    inst = Instance(p, Vocabulary())
    assert inst.epsilon
    enc = encode(States.empty(inst))
    assert enc.n_candidates == 9 + 3 + 3
    eps = enc.action == EPSILON
    assert eps.any(1).sum() == 6 and not eps.all(1).any()
    assert ((enc.cand_u < 0) == eps[:, 0]).all() and ((enc.cand_v < 0) == eps[:, 1]).all()


def test_fully_matched_pairs_are_reduced_away():
    inst = Instance(costs.uniform().compile(path3(), path3()), Vocabulary())
    enc = encode(States.from_decisions(inst, [(0, 0)]))
    assert len(enc.x) == 6  # node 1 is undecided: nothing goes
    enc = encode(States.from_decisions(inst, [(0, 0), (1, 1)]))
    # the pair (0, 0) has all its neighbours decided on both sides: gone with its edges
    assert len(enc.x) == 4
    assert enc.edge_index.shape[1] == 2 * 3  # 1-2 in each graph and the matching edge 1-1
    assert enc.x[:, inst.status_cols[0]].sum() == 2  # the pair (1, 1) stays: 2 is undecided


def test_action_costs_add_up_to_the_problem_cost():
    rng = np.random.default_rng(3)
    for trial in range(60):
        model = random_costs(rng) if trial % 2 else costs.uniform()
        p = model.compile(*(random_graph(rng, int(rng.integers(0, 6))) for _ in "12"))
        inst = Instance(p, Vocabulary(), epsilon=True)
        s, total, made = States.empty(inst), 0.0, []
        while (s.fw == -2).any() or (s.bw == -2).any():
            mask = s.candidates()[0]
            if not mask.any():  # terminal: force the rest
                mask[:-1, -1] = s.fw[0] == -2
                mask[-1, :-1] = s.bw[0] == -2
            u, v = np.argwhere(mask)[rng.integers(mask.sum())]
            total += s.action_costs()[0, u, v]
            made.append((u if u < p.n1 else -1, v if v < p.n2 else -1))
            s.apply(one(0), one(made[-1][0]), one(made[-1][1]))
            if len(made) == 2:  # the same state, built in one go
                again = States.from_decisions(inst, made)
                assert np.allclose(again.added, s.added) and (again.fw == s.fw).all()
        assert total * inst.scale == pytest.approx(p.cost(s.forwards()[0]))


def test_decisions_pair_deleted_with_inserted_nodes_under_unit_costs():
    p = costs.uniform().compile(path3(), path3("CCO"))
    inst = Instance(p, Vocabulary())
    forward = np.array([0, 1, -1])  # deletes node 2 and inserts the O
    moves = decisions(inst, forward)
    assert moves == [(0, 0), (1, 1), (2, 2)]
    assert p.cost([0, 1, 2]) <= p.cost(forward)
    inst = Instance(DELETIONS.compile(path3(), path3("CCO")), Vocabulary())
    assert decisions(inst, forward) == [(0, 0), (1, 1), (2, -1), (-1, 2)]


# -- training data ---------------------------------------------------------------------------------


def test_symmetric_pair_has_no_negatives():
    lp = label(costs.uniform().compile(triangle(), triangle()))
    _, states = training_states([lp], Vocabulary(), per_pair=10)
    empty = [s for s in states if not s.decisions]
    assert empty  # 10 draws from 3 sizes: the empty state is among them
    assert (empty[0].target == 1).sum() == 3
    assert (empty[0].target == 0).sum() == 0  # every other first choice is a WL twin
    assert (empty[0].target == -1).sum() == 6


def test_distinguishable_candidates_are_negatives():
    lp = label(costs.uniform().compile(path3("CON"), path3("CON")))
    _, states = training_states([lp], Vocabulary.fit([path3("CON")]), per_pair=10)
    empty = next(s for s in states if not s.decisions)
    assert (empty.target == 1).sum() == 3 and (empty.target == 0).sum() == 6


def test_auto_quiets_its_learned_stage_in_its_own_thread_only():
    """auto's learned stage says nothing of unseen labels, for its own solves only: a
    warnings filter set around it (not thread-safe) was left in the process's warnings by
    four threads at once, and another thread's gelato call lost its warning."""
    import threading

    from gedkit.learned.solver import _QUIET_UNSEEN, quiet_unseen

    inside, other = threading.Event(), []
    filters = list(warnings.filters)

    def quiet():
        with quiet_unseen():
            inside.set()
            time.sleep(0.2)
            other.append(("quiet", _QUIET_UNSEEN.get()))

    thread = threading.Thread(target=quiet)
    thread.start()
    inside.wait(10)
    other.append(("loud", _QUIET_UNSEEN.get()))
    thread.join(10)
    assert sorted(other) == [("loud", False), ("quiet", True)]
    assert not _QUIET_UNSEEN.get() and warnings.filters == filters


def test_labelling_pays_the_start_ups_once_before_the_pairs_limits(monkeypatch):
    """The labeller pays numba's start-up once, before the pairs' limits (a crowded machine
    afforded it under no 1 s limit: 8 of 12 labels came out unproven), and not when every
    pair is labelled already."""
    from gedkit import pacing

    paid = []
    monkeypatch.setattr(pacing, "pay_start_ups",
                        lambda method, timeout, solve: paid.append((method.name, timeout)))
    problems = list(small_pairs(0, 2, sizes=(3, 5)))
    labelled = label_pairs(problems, [[0, 1], [1, 2]], timeout=1.0)
    assert paid == [("exact", 1.0)] and all(lp.optimal for lp in labelled)


def test_label_cache_resumes_and_restarts_on_other_settings(tmp_path):
    problems = list(small_pairs(0, 3, sizes=(3, 5)))
    keys = [[i, i + 1] for i in range(3)]
    cache = tmp_path / "labels.jsonl"
    first = label_pairs(problems[:2], keys[:2], timeout=5, cache=cache, header={"a": 1})
    assert len(cache.read_text().splitlines()) == 3
    calls, told = [], []
    again = label_pairs(problems, keys, timeout=5, cache=cache, header={"a": 1},
                        progress=lambda todo: calls.append(list(todo)) or todo,
                        note=told.append)
    assert calls == [[2]]  # only the new pair is labelled
    # and said so (a rerun after Ctrl-C labelled for a minute without a word)
    assert told == [f"{cache}: 2 of 3 pairs labelled before; labelling the other 1"]
    assert [lp.cost for lp in again[:2]] == [lp.cost for lp in first]
    assert all(lp.optimal for lp in again)
    notes = []
    label_pairs(problems[:1], keys[:1], timeout=5, cache=cache, header={"a": 2},
                note=notes.append)
    assert len(cache.read_text().splitlines()) == 2  # another header: a fresh cache
    assert notes == [f"{cache}: 3 cached labels made with other settings set aside; the file "
                     "as it was is labels.jsonl.old (rename it back to use them with those "
                     "settings)"]
    # ... kept beside it: renamed back, the first settings find their labels again
    (tmp_path / "labels.jsonl.old").replace(cache)
    calls.clear()
    label_pairs(problems, keys, timeout=5, cache=cache, header={"a": 1},
                progress=lambda todo: calls.append(list(todo)) or todo)
    assert calls == [[]]


def test_label_cache_keeps_proven_labels_under_another_time_limit(tmp_path):
    problems = list(small_pairs(0, 3, sizes=(3, 5)))
    keys = [[i, i + 1] for i in range(3)]
    cache = tmp_path / "labels.jsonl"
    label_pairs(problems, keys, timeout=5, cache=cache, header={"a": 1, "exact_timeout": 5})
    rows = cache.read_text().splitlines()
    unproven = json.loads(rows[3]) | {"optimal": False}  # as if the time had run out
    cache.write_text("\n".join([*rows[:3], json.dumps(unproven)]) + "\n")
    calls, notes = [], []
    again = label_pairs(problems, keys, timeout=9, cache=cache,
                        header={"a": 1, "exact_timeout": 9}, note=notes.append,
                        progress=lambda todo: calls.append(list(todo)) or todo)
    assert calls == [[2]]  # only the unproven label is made again
    assert notes == [f"{cache}: 1 cached label made with other settings set aside (2 "
                     "proven-optimal ones kept); the file as it was is labels.jsonl.old (rename "
                     "it back to use them with those settings)",
                     f"{cache}: 2 of 3 pairs labelled before; labelling the other 1"]
    assert all(lp.optimal for lp in again)
    assert json.loads(cache.read_text().splitlines()[0])["exact_timeout"] == 9
    notes.clear()
    label_pairs(problems, keys, timeout=9, cache=cache, header={"a": 1, "exact_timeout": 9},
                note=notes.append)
    assert notes == []  # all valid now


def test_distinct_graphs_drops_isomorphic_copies_and_excluded_graphs():
    a, b = path3("CON"), Graph({"x": "N", "y": "O", "z": "C"}, [("x", "y"), ("y", "z")])
    c = triangle()
    assert distinct_graphs([a, b, c]) == [0, 2]  # b is a relabelled copy of a
    assert distinct_graphs([a, c], exclude=[triangle()]) == [0]


# -- torch: missing -------------------------------------------------------------------------------


def test_importing_gedkit_does_not_import_torch():
    code = ("import sys, gedkit; gedkit.methods(); import gedkit.cli; "
            "assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_clear_error_without_torch(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    p = costs.uniform().compile(path3(), triangle())
    with pytest.raises(MissingDependencyError, match=r"pip install 'gedkit\[learn\]'"):
        get_solver("gelato").solve(p, Budget())
    code = main(["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(tmp_path / "m.pt")])
    err = capsys.readouterr().err
    assert code == 2 and "torch" in err and "gedkit[learn]" in err


def test_too_few_graphs_to_train_says_how_many_this_training_needs(torch, tmp_path, capsys):
    """Two distinct graphs with validation pairs on (the default): the error says three are
    needed and how to leave validation out (it said "at least two (three with validation
    pairs)" of two); without validation two go on."""
    two = tmp_path / "two.smi"
    two.write_text("CCO\nCCN\nCCO\n")
    argv = ["train", "gelato", "--data", str(two), "--out", str(tmp_path / "m.pt"),
            "--pairs", "4", "--epochs", "1", "--width", "16", "--layers", "2"]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and "only 2 distinct graphs remain" in err
    assert ("needs at least three: two to train on and one for the validation pairs "
            "(--val-pairs 0 leaves those out)") in err.replace("\n", " ")


def test_train_out_that_cannot_be_written_is_told_before_the_labelling(torch, tmp_path, capsys):
    """--out a folder (a torch traceback after the whole training) or in a missing folder
    (named by an internal cache file): one line, before any pair is labelled."""
    for out, says in ((tmp_path, "is a folder"), (tmp_path / "none" / "m.pt", "does not exist"),
                      # the model card is OUT with .json: it replaced the weights, exit 0
                      (tmp_path / "w.json", "give --out w.pt")):
        code = main(["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(out),
                     "--pairs", "4", "--epochs", "1"])
        err = capsys.readouterr().err
        assert code == 2 and f"--out {out}: " in err and says in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())  # no pairs cache written
    # a directed input: the way out training has (--directed ignore; it has no 'keep')
    arcs = tmp_path / "arcs.json"
    gedkit.write(Graph({0: "C", 1: "O"}, [(0, 1)], directed=True, name="d"), arcs)
    code = main(["train", "gelato", "--data", str(arcs), str(AIDS_SAMPLE), "--out",
                 str(tmp_path / "m.pt"), "--pairs", "4", "--epochs", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "training takes undirected graphs only" in err
    assert "--directed ignore" in err and "keep" not in err


# -- torch: network, training, decoding -----------------------------------------------------------


@pytest.fixture(scope="module")
def trained(torch):
    from gedkit.learned.train import TrainConfig, train

    pairs = [label(p, timeout=10) for p in small_pairs(1, 20)]
    vocab = Vocabulary.fit([g for lp in pairs for g in (lp.problem.g1, lp.problem.g2)])
    config = TrainConfig(epochs=8, batch_size=32, lr=3e-3, states_per_pair=20, val_k=4, **TINY)
    return pairs, train(pairs, pairs[:3], vocab, config)


def test_tiny_training_learns(trained):
    from gedkit.learned.decode import decode

    pairs, result = trained
    losses = [row["loss"] for row in result.history]
    assert losses[-1] < losses[0]
    hits = [decode(lp.problem, result.net, k=32).cost == lp.cost for lp in pairs[:5]]
    assert sum(hits) >= 3
    assert result.metrics["val_pairs"] == 3 and result.best_epoch is not None


def test_ranking_term_trains_the_best_choice(torch):
    from gedkit.learned.decode import decode
    from gedkit.learned.model import GelatoNet
    from gedkit.learned.train import TrainConfig, _loss, train

    pairs = [label(p, timeout=10) for p in small_pairs(1, 20)]
    vocab = Vocabulary.fit([g for lp in pairs for g in (lp.problem.g1, lp.problem.g2)])
    net = GelatoNet.untrained(vocab, **TINY).train()
    instances, states = training_states(pairs[:4], vocab, per_pair=5)
    plain, ranked = _loss(net, instances, states), _loss(net, instances, states, ranking=1.0)
    # the listwise term is -log of a probability below 1: positive, finite, with gradients
    assert torch.isfinite(ranked) and ranked > plain
    ranked.backward()
    assert all(torch.isfinite(p.grad).all() for p in net.parameters() if p.grad is not None)

    config = TrainConfig(epochs=8, batch_size=32, lr=3e-3, states_per_pair=20, val_k=4,
                         ranking=1.0, **TINY)
    result = train(pairs, pairs[:3], vocab, config)
    losses = [row["loss"] for row in result.history]
    assert losses[-1] < losses[0]
    assert sum(decode(lp.problem, result.net, k=32).cost == lp.cost for lp in pairs[:5]) >= 3
    with pytest.raises(OptionError, match="ranking"):
        train(pairs, [], vocab, TrainConfig(epochs=1, ranking=-1.0, **TINY))


@pytest.mark.parametrize("model", [costs.uniform(), DELETIONS], ids=["uniform", "deletions"])
@pytest.mark.parametrize("strategy", ["branches", "beam", "sampling"])
def test_decoding_returns_complete_valid_maps(torch, model, strategy):
    from gedkit.learned.decode import decode
    from gedkit.learned.model import GelatoNet

    net = GelatoNet.untrained(Vocabulary.fit([triangle("C"), triangle("O")]), **TINY)
    rng = np.random.default_rng(5)
    for n1, n2 in [(0, 3), (3, 0), (1, 1), (4, 2), (2, 5), (5, 5)]:
        p = model.compile(random_graph(rng, n1), random_graph(rng, n2))
        out = decode(p, net, k=4, strategy=strategy, seed=1)
        assert len(out.forward) == p.n1
        p.check_map(out.forward)
        assert out.cost == p.cost(out.forward)
        assert out.cost >= brute_force(p) - 1e-9
        cut = decode(p, net, k=4, strategy=strategy, budget=Budget(timeout=1e-9))
        assert cut.cost == p.cost(cut.forward)


def test_branches_start_from_first_actions_symmetry_cannot_merge(torch):
    from gedkit.learned.decode import _Run
    from gedkit.learned.model import GelatoNet, evaluating

    # a star's three leaves are interchangeable: with two branches, the second must not start
    # by mapping another leaf to the same node as the first did (the same map up to symmetry)
    star = Graph({0: "C", 1: "O", 2: "O", 3: "O"}, [(0, 1), (0, 2), (0, 3)])
    other = Graph({0: "C", 1: "O", 2: "N", 3: "O"}, [(0, 1), (1, 2), (2, 3)])
    p = costs.uniform().compile(star, other)
    net = GelatoNet.untrained(Vocabulary.fit([star, other]), **TINY)
    inst = Instance(p, net.vocab)
    classes = {0: "centre", 1: "leaf", 2: "leaf", 3: "leaf"}
    for k in (2, 4, 16):
        with evaluating(net):
            first = _Run(inst, net, Budget()).first_choices(k)
        starts = [(classes[int(u)], int(fw[u])) for fw in first.fw
                  for u in np.flatnonzero(fw >= 0)]
        assert len(starts) == min(k, 16)
        distinct = min(k, len(set(starts)))
        # all 16 actions fall into 2 x 4 classes; those come first
        assert len(set(starts[:distinct])) == distinct == min(k, 8)


def test_solver_results_and_options(torch, trained, tmp_path):
    pairs, result = trained
    path = tmp_path / "tiny.pt"
    result.net.save(path)
    for p in [*(lp.problem for lp in pairs[:3]), *small_pairs(9, 3, DELETIONS)]:
        for decoding in ("branches", "beam"):
            r = get_solver("gelato", model=str(path), k=4, decoding=decoding).solve(p, Budget())
            assert r.upper_bound == p.cost(r.assignment)
            assert r.lower_bound <= r.upper_bound
            assert r.upper_bound <= get_solver("branch").solve(p, Budget()).upper_bound
    r = gedkit.ged(path3(), triangle(), method="gelato", model=result.net, k=2)
    assert r.method == "gelato" and r.distance == 1
    with pytest.raises(OptionError, match="decoding must be one of"):
        get_solver("gelato", decoding="greedy")
    with pytest.raises(OptionError, match="option model"):
        get_solver("gelato", model="no-such-model")


def test_decoding_from_both_sides_gives_maps_of_the_original_pair(torch, trained):
    net = trained[1].net
    rng = np.random.default_rng(4)
    # asymmetric costs: a map of the transposed instance must be inverted and re-priced
    for p in [*small_pairs(31, 3), *small_pairs(32, 3, random_costs(rng))]:
        one = get_solver("gelato", model=net, k=2, polish=0).solve(p, Budget())
        both = get_solver("gelato", model=net, k=2, polish=0, directions=2).solve(p, Budget())
        assert both.upper_bound == p.cost(both.assignment) and len(both.assignment) == p.n1
        if "decoded_cost" in both.stats:
            assert both.stats["decoded_cost"] <= one.stats["decoded_cost"]
            assert both.stats["network_calls"] > one.stats["network_calls"]
    with pytest.raises(OptionError, match="directions"):
        get_solver("gelato", directions=3)


def test_polishing_never_makes_the_answer_worse(torch):
    from gedkit.learned.model import GelatoNet

    # an untrained network decodes poor maps: IPFP and REFINE then have work to do
    net = GelatoNet.untrained(Vocabulary.fit([triangle("C"), triangle("O")]), **TINY)
    gained = 0
    for p in [*small_pairs(21, 6), *small_pairs(22, 4, DELETIONS)]:
        plain = get_solver("gelato", model=net, k=2, polish=0).solve(p, Budget())
        polished = get_solver("gelato", model=net, k=2, polish=2).solve(p, Budget())
        assert polished.upper_bound == p.cost(polished.assignment)
        assert polished.upper_bound <= plain.upper_bound
        assert polished.lower_bound == plain.lower_bound
        if "polished_cost" in polished.stats:
            assert polished.stats["polished_cost"] <= polished.stats["decoded_cost"]
            gained += polished.stats["polished_cost"] < polished.stats["decoded_cost"]
    assert gained > 0
    with pytest.raises(OptionError, match="polish"):
        get_solver("gelato", polish=-1)


def test_weights_round_trip(torch, trained, tmp_path):
    from gedkit.learned.model import load, to_tensors

    net = trained[1].net
    net.meta["note"] = "round trip"
    net.save(tmp_path / "w.pt")
    back = load(tmp_path / "w.pt")
    assert back.vocab == net.vocab and back.meta["note"] == "round trip"
    lp = trained[0][0]
    inst = Instance(lp.problem, net.vocab)
    batch = to_tensors(encode(States.from_decisions(inst, decisions(inst, lp.forward)[:2])))
    with torch.no_grad():
        assert torch.equal(net.eval()(batch), back(batch))
    (tmp_path / "junk.pt").write_bytes(b"not weights")
    with pytest.raises(gedkit.FormatError, match=r"junk\.pt: not a Gelato weights file "
                                                 r"\(unreadable as a PyTorch file"):
        load(tmp_path / "junk.pt")
    # the model card given for the weights: said so, not PyTorch's advice to load the file
    # with weights_only=False (running what it holds)
    (tmp_path / "w.json").write_text('{"format": "card"}')
    with pytest.raises(gedkit.FormatError, match=r"a JSON file, such as a model card") as card:
        load(tmp_path / "w.json")
    assert "weights_only" not in str(card.value)


def test_a_bad_model_file_is_refused_when_the_options_are_read(torch, trained, tmp_path,
                                                               capsys):
    """Not when the network first runs: a pair proven without it (CCO against itself) would
    pass a text file over unnoticed, and pairwise would fail pair after pair."""
    good = tmp_path / "m.pt"
    trained[1].net.save(good)
    text, cut, checkpoint = tmp_path / "notw.pt", tmp_path / "cut.pt", tmp_path / "m.pt.ckpt"
    text.write_text("hello\n")
    cut.write_bytes(good.read_bytes()[:665])  # a save interrupted by Ctrl-C
    torch.save({"format": "gedkit-gelato-checkpoint/1", "state_dict": {}}, checkpoint)
    for bad, says in ((text, "unreadable as a PyTorch file"), (cut, "damaged or cut short"),
                      (checkpoint, "it holds 'gedkit-gelato-checkpoint/1'")):
        with pytest.raises(gedkit.FormatError, match=says):
            get_solver("gelato", model=str(bad))
        with pytest.raises(gedkit.FormatError, match=says):
            gedkit.pairwise(["CCO", "CCC"], method="gelato", model=str(bad))
        capsys.readouterr()
        assert main(["ged", "CCO", "CCO", "--method", "gelato", "--model", str(bad)]) != 0
        err = capsys.readouterr().err
        assert says in err and len(err.splitlines()) == 1
    get_solver("gelato", model=str(good))
    with pytest.raises(OptionError, match=r"nosuch\.pt: no such file"):
        get_solver("gelato", model=str(tmp_path / "nosuch.pt"))
    with pytest.raises(OptionError, match=r": is a folder, not a file; name shipped"):
        get_solver("gelato", model=str(tmp_path))  # (it said "no such file")


def test_model_card_is_written(torch, trained, tmp_path):
    from gedkit.learned.model import load
    from gedkit.learned.train import write_model

    card_path = write_model(trained[1].net, tmp_path / "m.pt", {"costs": "uniform", "x": 1.5})
    assert card_path == tmp_path / "m.json"
    assert json.loads(card_path.read_text()) == {"costs": "uniform", "x": 1.5}
    assert load(tmp_path / "m.pt").meta["card"]["x"] == 1.5


def test_cli_trains_resumes_and_reuses_labels(torch, tmp_path, capsys):
    out = tmp_path / "model.pt"
    argv = ["train", "gelato", "--data", str(AIDS_SAMPLE), "--costs", "uniform",
            "--out", str(out), "--pairs", "8", "--val-pairs", "2", "--width", "16",
            "--layers", "2", "--states-per-pair", "5", "--val-k", "2", "--max-nodes", "12"]
    assert main([*argv, "--epochs", "1"]) == 0
    assert "wrote" in capsys.readouterr().out
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["costs"] == "uniform" and card["data"]["train_pairs"] == 8
    assert card["data"]["val_pairs"] == 2 and card["network"]["parameters"] > 0
    assert {"wall_seconds", "peak_memory_mb"} <= set(card["training"])
    assert card["metrics"]["val_pairs"] == 2 and len(card["history"]) == 1
    labels = tmp_path / "model.pt.pairs.jsonl"
    cached = labels.read_text()
    assert len(cached.splitlines()) == 1 + 10

    assert main([*argv, "--epochs", "2", "--resume"]) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    assert [row["epoch"] for row in card["history"]] == [1, 2]
    assert labels.read_text() == cached  # nothing labelled again
    # fewer epochs than the checkpoint has done: refused, the model left as it was
    weights = out.read_bytes()
    capsys.readouterr()
    assert main([*argv, "--epochs", "1", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "2 epochs done, more than the 1 asked for" in err and len(err.splitlines()) == 1
    assert "ask for more than 2 to train on from it" in err  # ("2 or more": 2 trains nothing)
    assert out.read_bytes() == weights
    r = gedkit.ged(path3(), triangle(), method="gelato", model=str(out), k=2)
    assert r.upper_bound == r.problem.cost(r.assignment)
    # a resume the checkpoint refuses (another width; another --data alike) is refused before
    # the labelling: the label cache is not replaced (72 labels were lost so)
    capsys.readouterr()
    other = [a if a != "16" else "8" for a in argv] + ["--max-nodes", "11"]
    assert main([*other, "--epochs", "3", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "made with another network (different width)" in err and "set aside" not in err
    assert labels.read_text() == cached


def test_cli_resume_refuses_other_training_pairs(torch, tmp_path, capsys):
    """A resume that would draw other training or validation pairs is refused in one line
    naming the option and both values (a changed --pairs was accepted, and the best epoch
    then picked across different validation sets); the label cache is left as it was."""
    out = tmp_path / "model.pt"
    argv = ["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(out), "--width", "8",
            "--layers", "1", "--states-per-pair", "3", "--val-k", "1", "--max-nodes", "10"]
    assert main([*argv, "--pairs", "6", "--epochs", "1"]) == 0
    labels = tmp_path / "model.pt.pairs.jsonl"
    cached = labels.read_text()
    capsys.readouterr()
    for extra, option, was, now in ((["--pairs", "7"], "--pairs", "6", "7"),
                                    (["--pairs", "6", "--seed", "3"], "--seed", "0", "3"),
                                    (["--pairs", "6", "--keep-unproven"], "--keep-unproven",
                                     "off", "on")):
        assert main([*argv, *extra, "--epochs", "2", "--resume"]) == 2
        err = capsys.readouterr().err
        assert f"trained with {option} {was}, not {now}" in err, err
        assert len(err.splitlines()) == 1 and labels.read_text() == cached
    assert main([*argv, "--pairs", "6", "--epochs", "2", "--resume"]) == 0  # the same: on


def test_cli_ctrl_c_says_what_is_kept(torch, tmp_path, capsys, monkeypatch):
    """Ctrl-C while labelling says how many labelled pairs the cache keeps (the same command
    goes on from them); while training, which checkpoint --resume goes on from. Exit 130."""
    import gedkit.learned.data as data
    import gedkit.learned.train as training

    out = tmp_path / "model.pt"
    argv = ["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(out), "--pairs", "4",
            "--val-pairs", "1", "--width", "8", "--layers", "1", "--states-per-pair", "2",
            "--epochs", "1"]
    real_label = data.label_pairs

    def label_then_stop(problems, keys, **kw):  # two pairs labelled, then Ctrl-C
        real_label(problems[:2], keys[:2], **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(data, "label_pairs", label_then_stop)
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "interrupted while labelling; 2 labelled pairs kept in" in err
    assert str(out) + ".pairs.jsonl" in err

    monkeypatch.setattr(data, "label_pairs", real_label)
    real_loss, calls, stop_after = training._loss, [], [0]

    def loss_then_stop(*args, **kw):  # Ctrl-C once ``stop_after`` steps have run
        calls.append(1)
        if len(calls) > stop_after[0]:
            raise KeyboardInterrupt
        return real_loss(*args, **kw)

    monkeypatch.setattr(training, "_loss", loss_then_stop)
    # Ctrl-C in the first epoch: nothing to write
    assert main([*argv[:-1], "3"]) == 130
    err = capsys.readouterr().err
    assert "interrupted while training; no epoch was finished" in err and not out.exists()
    # ... in the second: the best epoch so far is written (a checkpoint alone was kept, which
    # the solver refuses as weights)
    stop_after[0] = 10**9
    calls.clear()
    assert main(argv) == 0  # one epoch: its steps counted
    capsys.readouterr()
    out.unlink()
    stop_after[0], calls[:] = len(calls), []
    assert main([*argv[:-1], "3", "--overwrite"]) == 130  # (the one-epoch run's checkpoint)
    err = capsys.readouterr().err
    assert "interrupted after epoch 1 of 3" in err and "holds the best of them" in err
    assert "--resume" in err and out.exists()
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["training"]["interrupted_after_epoch"] == 1
    gedkit.ged("CCO", "CCN", method="gelato", model=str(out))  # usable


def test_ctrl_c_while_saving_keeps_the_previous_checkpoint(torch, tmp_path, capsys,
                                                           monkeypatch):
    """The checkpoint is written beside and moved into place: a Ctrl-C during the save
    leaves the previous epoch's whole, which --resume then goes on from."""
    out = tmp_path / "model.pt"
    checkpoint = tmp_path / "model.pt.ckpt"
    argv = ["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(out), "--pairs", "4",
            "--val-pairs", "1", "--width", "8", "--layers", "1", "--states-per-pair", "2"]
    assert main([*argv, "--epochs", "1"]) == 0
    before = checkpoint.read_bytes()
    real_save = torch.save

    def cut_short(obj, f, *args, **kw):  # what Ctrl-C in the middle of a save leaves
        if isinstance(obj, dict) and obj.get("format") == "gedkit-gelato-checkpoint/1":
            Path(f).write_bytes(before[:665])
            raise KeyboardInterrupt
        return real_save(obj, f, *args, **kw)

    monkeypatch.setattr(torch, "save", cut_short)
    capsys.readouterr()
    assert main([*argv, "--epochs", "2", "--resume"]) == 130
    assert "--resume" in capsys.readouterr().err
    assert checkpoint.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "model.json", "model.pt", "model.pt.ckpt", "model.pt.pairs.jsonl"]  # nothing left over
    monkeypatch.setattr(torch, "save", real_save)
    assert main([*argv, "--epochs", "2", "--resume"]) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    assert [row["epoch"] for row in card["history"]] == [1, 2]


def test_a_checkpoint_cut_short_is_said_to_be_damaged(torch, tmp_path):
    from gedkit.learned.train import _load_checkpoint

    path = tmp_path / "m.pt.ckpt"
    torch.save({"format": "gedkit-gelato-checkpoint/1", "x": torch.zeros(1000)}, path)
    path.write_bytes(path.read_bytes()[:665])
    with pytest.raises(gedkit.FormatError, match="damaged or cut short") as caught:
        _load_checkpoint(path, None, None)
    assert "more than tensors" not in str(caught.value)


def test_cli_refuses_to_replace_a_trained_model_unasked(torch, tmp_path, capsys):
    out, checkpoint = tmp_path / "model.pt", tmp_path / "model.pt.ckpt"
    argv = ["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(out), "--pairs", "4",
            "--val-pairs", "1", "--width", "8", "--layers", "1", "--states-per-pair", "2"]
    # --resume with nothing to resume from: said, and trained from epoch 1
    assert main([*argv, "--epochs", "2", "--resume"]) == 0
    assert f"no checkpoint at {checkpoint}: starting from epoch 1" in capsys.readouterr().err
    weights, saved = out.read_bytes(), checkpoint.read_bytes()
    # the same again without --resume: refused in one line, nothing replaced
    assert main([*argv, "--epochs", "1"]) == 2
    err = capsys.readouterr().err
    assert "--resume" in err and "--overwrite" in err and len(err.splitlines()) == 1
    assert out.read_bytes() == weights and checkpoint.read_bytes() == saved
    checkpoint.unlink()
    for extra in ([], ["--resume"]):  # the weights alone: --resume has nothing to go on from
        assert main([*argv, "--epochs", "1", *extra]) == 2
        err = capsys.readouterr().err
        assert f"{out} exists" in err and "--overwrite" in err and len(err.splitlines()) == 1
        assert out.read_bytes() == weights
    assert main([*argv, "--epochs", "1", "--overwrite"]) == 0
    assert len(json.loads(out.with_suffix(".json").read_text())["history"]) == 1


def test_cli_checks_every_output_and_init_before_the_labelling(torch, tmp_path, capsys):
    argv = ["train", "gelato", "--data", str(AIDS_SAMPLE), "--pairs", "4", "--val-pairs", "1",
            "--width", "8", "--layers", "1", "--states-per-pair", "2", "--epochs", "1"]
    notw = tmp_path / "notw.pt"
    notw.write_text("hello\n")
    for sibling in ("m.pt.ckpt", "m.json", "m.pt.pairs.jsonl"):
        (tmp_path / sibling).mkdir()
        assert main([*argv, "--out", str(tmp_path / "m.pt")]) == 2
        assert f"{tmp_path / sibling} is a folder" in capsys.readouterr().err
        (tmp_path / sibling).rmdir()
    for init, says in (("nosuch", "--init nosuch: no such file; name shipped weights"),
                       (str(notw), "not a Gelato weights file")):
        assert main([*argv, "--out", str(tmp_path / "m.pt"), "--init", init]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notw.pt"]  # nothing labelled
    if Path("/proc").is_dir():
        assert main([*argv, "--out", "/proc/x.pt"]) == 2
        assert "cannot create files in '/proc'" in capsys.readouterr().err
    # a shipped model's name, as --model takes it; its width and layers are kept, and
    # others given are said to be left aside (they were, without a word)
    assert main([*argv, "--out", str(tmp_path / "m.pt"), "--init", "molecules"]) == 0
    card = json.loads((tmp_path / "m.json").read_text())
    assert card["training"]["init"] == "molecules" and card["network"]["width"] == 128
    assert ("--width 8 --layers 1 left aside: the --init network's width 128 and"
            in capsys.readouterr().err)


def test_cli_says_how_the_labelling_goes_and_what_it_left_out(torch, tmp_path, capsys,
                                                              monkeypatch):
    """Into a file (not a terminal) the labelling says how far it is every few seconds (a
    run labelled for 104 s in silence), and the training pairs left out for want of a
    proven label are counted (said only in the model card)."""
    from gedkit.search import progress

    monkeypatch.setattr(progress, "_LINE_EVERY", 0.0)
    out = tmp_path / "m.pt"
    assert main(["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(out), "--pairs",
                 "12", "--val-pairs", "1", "--width", "8", "--layers", "1",
                 "--states-per-pair", "2", "--epochs", "1", "--exact-timeout", "0.002"]) == 0
    err = capsys.readouterr().err
    assert "gedkit: labelling: 1/13 pairs, " in err and "gedkit: labelling: 12/13 pairs" in err
    card = json.loads(out.with_suffix(".json").read_text())
    dropped = card["data"]["labels_unproven"]
    if dropped:  # (on a fast machine 2 ms may prove them all)
        assert "of 12 training pairs left out: not proven optimal by --label-method exact" in err


def test_cli_says_once_that_unproven_validation_labels_validate_nothing(torch, tmp_path,
                                                                        capsys):
    out = tmp_path / "m.pt"
    assert main(["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(out), "--pairs",
                 "4", "--val-pairs", "1", "--width", "8", "--layers", "1",
                 "--states-per-pair", "2", "--epochs", "2", "--label-method", "ipfp",
                 "--keep-unproven"]) == 0
    err = capsys.readouterr().err
    assert err.count("no validation") == 1 and "lowest training loss" in err
    # without --keep-unproven: the way out a heuristic has (not a longer --exact-timeout)
    assert main(["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(out),
                 "--overwrite", "--pairs", "4", "--val-pairs", "1", "--width", "8", "--layers",
                 "1", "--epochs", "1", "--label-method", "ipfp"]) == 2
    err = capsys.readouterr().err
    assert "--label-method ipfp proved no training pair's label optimal" in err
    assert "--keep-unproven" in err and "--exact-timeout" not in err


def test_cli_keeps_graphs_within_the_size_range(torch, tmp_path, capsys):
    out = tmp_path / "model.pt"
    argv = ["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(out), "--pairs", "4",
            "--val-pairs", "0", "--width", "8", "--layers", "1", "--states-per-pair", "2",
            "--epochs", "1", "--min-nodes", "8", "--max-nodes", "10"]
    assert main(argv) == 0
    card = json.loads(out.with_suffix(".json").read_text())["data"]
    graphs = gedkit.read_all(AIDS_SAMPLE)
    assert card["min_nodes"] == 8 and card["max_nodes"] == 10
    assert card["graphs_within_min_nodes"] == sum(8 <= g.n <= 10 for g in graphs)
    labelled = [json.loads(line) for line in
                (tmp_path / "model.pt.pairs.jsonl").read_text().splitlines()[1:]]
    assert json.loads((tmp_path / "model.pt.pairs.jsonl").read_text().splitlines()[0])[
        "min_nodes"] == 8
    assert all(8 <= len(row["map"]) <= 10 for row in labelled)  # the map has a row per g1 node
    capsys.readouterr()
    assert main([*argv[:-4], "--min-nodes", "11", "--max-nodes", "10"]) == 2
    assert "--min-nodes must not exceed --max-nodes" in capsys.readouterr().err


def test_weights_of_the_right_format_but_damaged_are_refused_in_one_line(torch, trained,
                                                                           tmp_path):
    """A weights file that says it holds Gelato weights but whose contents do not fit the
    network (a tensor of another shape, no configuration) or are not finite numbers is a
    FormatError naming the file (torch's size mismatch, a KeyError, and the decoder's
    IndexError on NaN scores were tracebacks); NGA's files likewise."""
    from gedkit.learned.model import load

    net = trained[1].net
    net.save(tmp_path / "good.pt")
    saved = torch.load(tmp_path / "good.pt", weights_only=True)
    first = next(iter(saved["state_dict"]))
    cases = {
        "shape": ({**saved, "state_dict": {**saved["state_dict"], first: torch.zeros(3)}},
                  r"Gelato weights do not fit the network \(size mismatch for "),
        "config": ({k: v for k, v in saved.items() if k != "config"},
                   r"Gelato weights lack their 'config' entry"),
        "nan": ({**saved, "state_dict": {k: v.float() * float("nan") for k, v in
                                         saved["state_dict"].items()}},
                r"Gelato weights hold values that are not finite numbers"),
    }
    for name, (data, message) in cases.items():
        torch.save(data, tmp_path / f"{name}.pt")
        with pytest.raises(gedkit.FormatError, match=message):
            load(tmp_path / f"{name}.pt")
    from gedkit.mces.nga.model import NGAConfig, NGANet
    from gedkit.mces.nga.model import load as load_nga

    NGANet(NGAConfig()).save(tmp_path / "nga.pt")
    nga = torch.load(tmp_path / "nga.pt", weights_only=True)
    torch.save({**nga, "state_dict": {k: v.float() * float("nan") for k, v in
                                      nga["state_dict"].items()}}, tmp_path / "nga_nan.pt")
    with pytest.raises(gedkit.FormatError, match="NGA weights hold values that are not finite"):
        load_nga(tmp_path / "nga_nan.pt")


def test_fine_tuning_starts_from_the_given_weights(torch, trained, tmp_path, capsys):
    from gedkit.learned.model import load
    from gedkit.learned.train import TrainConfig, learning_rate, train

    pairs, result = trained
    start = load_copy(result.net, tmp_path / "start.pt")
    # zero epochs: the network comes back as it was given, labels and sizes included
    same = train(pairs, pairs[:3], Vocabulary(), TrainConfig(epochs=0), start=start)
    assert same.net.vocab == start.vocab and same.net.width == start.width
    weights = start.state_dict()
    assert all(torch.equal(v, weights[k]) for k, v in same.net.state_dict().items())
    config = TrainConfig(epochs=2, batch_size=32, lr=1e-3, states_per_pair=5, val_k=2,
                         lr_schedule="cosine")
    tuned = train(pairs, pairs[:3], Vocabulary(), config, start=start)
    assert tuned.history[0]["val_exact_hit"] >= 0.5  # trained weights from the first epoch
    steps = [learning_rate(config, k, 10) for k in range(11)]
    assert steps[0] == 1e-3 and steps[-1] == pytest.approx(5e-5)
    assert all(a > b for a, b in itertools.pairwise(steps))
    with pytest.raises(OptionError, match="lr_schedule must be one of"):
        train(pairs, pairs[:3], Vocabulary(), TrainConfig(lr_schedule="step"), start=start)

    out = tmp_path / "tuned.pt"
    argv = ["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(out), "--pairs", "4",
            "--val-pairs", "1", "--states-per-pair", "3", "--val-k", "2", "--max-nodes", "12",
            "--epochs", "1", "--init", str(tmp_path / "start.pt"), "--lr-schedule", "cosine"]
    assert main(argv) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["training"]["init"] == str(tmp_path / "start.pt")
    assert card["network"]["width"] == start.width
    assert card["training"]["lr_schedule"] == "cosine"
    assert load(out).vocab == start.vocab
    capsys.readouterr()


def load_copy(net, path):
    from gedkit.learned.model import load

    net.save(path)
    return load(path)


def test_devices_are_checked_and_the_cpu_works(torch, trained, tmp_path, capsys):
    from gedkit.learned.model import resolve_device

    net = trained[1].net
    p = trained[0][0].problem
    on_cpu = get_solver("gelato", model=net, k=2, device="cpu").solve(p, Budget())
    anywhere = get_solver("gelato", model=net, k=2, device="auto").solve(p, Budget())
    assert on_cpu.upper_bound == anywhere.upper_bound == p.cost(on_cpu.assignment)
    assert resolve_device("auto").type in ("cpu", "cuda")
    with pytest.raises(OptionError, match="device must be"):
        resolve_device("tpu")
    with pytest.raises(OptionError, match="option device"):
        get_solver("gelato", device=0)
    if not torch.cuda.is_available():
        with pytest.raises(OptionError, match="sees no CUDA GPU"):
            get_solver("gelato", model=net, device="cuda").solve(p, Budget())
        # whatever the pair: one whose network never runs answered all the same
        with pytest.raises(OptionError, match="sees no CUDA GPU"):
            gedkit.ged("CCOC", "CCNC", method="gelato", device="cuda")
        assert main(["ged", "CCOC", "CCNC", "--method", "gelato", "--device", "cuda"]) == 2
        assert "use --device cpu" in capsys.readouterr().err
        # training asks for the device before labelling anything
        code = main(["train", "gelato", "--data", str(AIDS_SAMPLE), "--out",
                     str(tmp_path / "m.pt"), "--device", "cuda"])
        assert code == 2 and "sees no CUDA GPU" in capsys.readouterr().err
        assert not (tmp_path / "m.pt.pairs.jsonl").exists()


def test_cli_says_when_the_data_gives_fewer_pairs_than_asked(torch, tmp_path, capsys):
    # (10,000 asked of 12 graphs trained on 110, without a word)
    code = main(["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(tmp_path / "m.pt"),
                 "--max-nodes", "6", "--pairs", "1000", "--val-pairs", "1", "--epochs", "1",
                 "--width", "8", "--layers", "1", "--states-per-pair", "2"])
    err = capsys.readouterr().err
    assert code == 0 and "note: --pairs 1,000: the graphs give 2 training pairs only" in err
    assert "--val-pairs" not in err


def test_cli_rejects_too_little_data(torch, tmp_path, capsys):
    code = main(["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(tmp_path / "m.pt"),
                 "--max-nodes", "3"])
    err = capsys.readouterr().err
    assert code == 2 and "distinct graphs remain" in err


def test_cli_rejects_an_unknown_label_method(tmp_path, capsys):
    code = main(["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(tmp_path / "m.pt"),
                 "--label-method", "oracle"])
    assert code == 2 and "--label-method" in capsys.readouterr().err
    code = main(["train", "gelato", "--data", str(AIDS_SAMPLE), "--out", str(tmp_path / "m.pt"),
                 "--ranking", "-1"])
    assert code == 2 and "--ranking" in capsys.readouterr().err


def test_heuristic_labels_are_valid_and_cached_apart(tmp_path):
    rng = np.random.default_rng(40)
    problems = [costs.uniform().compile(random_graph(rng, 7, p=0.4, n_labels=2),
                                        random_graph(rng, 7, p=0.4, n_labels=2))
                for _ in range(4)]
    keys = [[k] for k in range(4)]
    cache = tmp_path / "labels.jsonl"
    noisy = label_pairs(problems, keys, timeout=None, method="ipfp", cache=cache)
    for lp in noisy:
        assert lp.cost == lp.problem.cost(lp.forward)
        assert lp.cost >= brute_force(lp.problem)
    exact = label_pairs(problems, keys, timeout=None, cache=cache)  # other labels: relabelled
    assert all(lp.optimal and lp.cost == brute_force(lp.problem) for lp in exact)


def test_shipped_models_load_with_cards_and_beat_branch_on_molecules(torch):
    from gedkit.learned.model import load
    from gedkit.learned.solver import default_model, shipped_models

    shipped = shipped_models()
    if not shipped:
        pytest.skip("no shipped Gelato weights in this checkout")
    for source in shipped.values():
        net = load(source)
        card = json.loads(source.with_suffix(".json").read_text())
        assert card["model"] == "gelato" and card["training"]["wall_seconds"] > 0
        assert net.meta["card"]["costs"] == card["costs"]
    if "molecules" not in shipped:
        return
    examples = Path(__file__).resolve().parents[1] / "examples"
    g1, g2 = (gedkit.read(examples / f"{m}.json", node_label="atom", edge_label="bond")
              for m in ("caffeine", "theobromine"))
    problem = costs.uniform().compile(g1, g2)
    assert default_model(problem) == "molecules"
    with pytest.warns(UnseenLabelWarning, match=r"1 edge label \(1\.5\)"):  # aromatic bonds
        r = gedkit.ged(g1, g2, method="gelato")
    assert r.stats["model"] == "molecules"
    assert r.upper_bound == problem.cost(r.assignment)
    assert r.upper_bound <= r.stats["branch_cost"]
    assert r.upper_bound == gedkit.ged(g1, g2, method="exact").distance


def test_train_resume_without_a_checkpoint_says_so(torch, tmp_path):
    """resume=True with no checkpoint file trains afresh with a warning (a mistyped path
    silently threw the resume away); with no checkpoint path at all it is refused."""
    from gedkit.learned.train import TrainConfig, train

    pairs = [label(p, timeout=10) for p in small_pairs(1, 4)]
    vocab = Vocabulary.fit([g for lp in pairs for g in (lp.problem.g1, lp.problem.g2)])
    config = TrainConfig(epochs=1, states_per_pair=3, **TINY)
    with pytest.warns(UserWarning, match="no checkpoint at .*typo.ckpt: training from epoch 1"):
        result = train(pairs, [], vocab, config, checkpoint=tmp_path / "typo.ckpt",
                       resume=True)
    assert len(result.history) == 1
    with pytest.raises(OptionError, match="resume=True needs the checkpoint"):
        train(pairs, [], vocab, config, resume=True)


def test_a_measured_network_rate_is_the_next_decodings_first_guess(monkeypatch, tmp_path):
    """Sampling and beam decodings size their width before any network call: from the
    default first guess (1e-5 s a candidate, ~7x the rate measured here) they kept 1 of 32
    samples at 5 s and stopped after 0.3 s. A large call's measured rate, with a margin,
    is now the next decodings' first guess; small calls (their fixed part large) are not
    kept."""
    from gedkit.learned import sizing

    monkeypatch.setattr(sizing, "_MEASURED", [None])
    monkeypatch.setattr(sizing, "_SAVED_READ", [False])
    monkeypatch.setattr(sizing, "_rate_file", lambda: tmp_path / "rate.gelato")
    assert sizing.Rates(entry=1e-9).candidate == sizing.CANDIDATE_SECONDS
    rates = sizing.Rates(entry=1e-9)
    rates.measured(0.001, 100)  # small: not kept
    assert sizing.Rates(entry=1e-9).candidate == sizing.CANDIDATE_SECONDS
    rates.measured(0.015, 10_000)  # 1.5e-6 a candidate
    assert sizing.Rates(entry=1e-9).candidate == pytest.approx(2 * 1.5e-6)
    # a later process starts from it too (a fresh one sized its first decoding by 1e-5)
    monkeypatch.setattr(sizing, "_MEASURED", [None])
    monkeypatch.setattr(sizing, "_SAVED_READ", [False])
    assert sizing.Rates(entry=1e-9).candidate == pytest.approx(2 * 1.5e-6)
    (tmp_path / "rate.gelato").write_text("garbage")  # unreadable: the default again
    monkeypatch.setattr(sizing, "_MEASURED", [None])
    monkeypatch.setattr(sizing, "_SAVED_READ", [False])
    assert sizing.Rates(entry=1e-9).candidate == sizing.CANDIDATE_SECONDS


def test_with_nothing_decoded_branchs_map_is_polished_in_the_time_left(torch, monkeypatch):
    """Neither the network nor a greedy completion fits (dense 2,000-node graphs: the
    completion's edge updates took 14 s of a 5 s limit): BRANCH's map is polished in the
    time left rather than answered after a tenth of it."""
    import networkx as nx

    from gedkit.learned import solver

    monkeypatch.setattr(solver, "_network_shortfall",
                        lambda *a: Cut("too large (test)", MEMORY_CAP))
    monkeypatch.setattr(solver, "_greedy_maps", lambda *a: [])
    g1 = gedkit.Graph.from_networkx(nx.gnp_random_graph(40, 0.3, seed=1))
    g2 = gedkit.Graph.from_networkx(nx.gnp_random_graph(40, 0.3, seed=2))
    r = gedkit.ged(g1, g2, method="gelato", timeout=5)
    assert r.stats["cut"][0].startswith("network not run: too large (test)")
    assert "decoded_cost" not in r.stats and r.stats["polished_cost"] == r.upper_bound
    assert r.upper_bound < r.stats["branch_cost"]


def test_a_greedy_completion_stops_at_its_deadline():
    """The greedy completion reads the clock as it decides (its estimate counted the cost
    matrix, not the edges each decision settles): past its deadline it gives no map."""
    import networkx as nx

    from gedkit.learned.features import greedy_completion

    g = gedkit.Graph.from_networkx(nx.gnp_random_graph(60, 0.5, seed=3))
    p = gedkit.costs.uniform().compile(g, g)
    assert greedy_completion(p, deadline=time.perf_counter() - 1) is None
    assert sorted(greedy_completion(p).tolist()) == list(range(60))
