"""Training Gelato: class-balanced binary cross-entropy on labelled states, AdamW, validation
by decoding held-out pairs, and a checkpoint after every epoch to resume from.

Training can start from a trained network (``start``: fine-tuning on more or other pairs), and
the learning rate can stay constant or follow a cosine from ``lr`` down to a twentieth of it
over the epochs (``lr_schedule="cosine"``): small steps at the end settle the weights that the
validation picks.

The positives of a state are the decisions of an optimal map not yet made; the negatives are
the other candidates (minus their Weisfeiler–Leman twins, see :mod:`gedkit.learned.data`).
A state has many more negatives than positives, so each batch's loss is the mean of the two
classes' mean losses. The weights kept are those of the epoch with the best validation
(exact hits first, then nMAE).

Going beyond the paper, ``ranking`` adds a listwise term: minus the log of the softmax mass
that each state's candidates put on its positives (and their twins). Cross-entropy judges every
candidate on its own, but the decoder only ever takes a state's best-scored candidate; the
ranking term trains exactly that choice, across the hundreds of candidates a larger state has.
Fine-tuning ``molecules`` once more on 13–16-atom pairs with ``ranking=1`` took its exact
hits on 123 unseen 17–30-atom development pairs from 71.5% to 83.7%; the same fine-tuning
without the term reached 74.0% (benchmarks/RESULTS.md, session 5).
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional

from gedkit.errors import OptionError, counted, warn
from gedkit.learned.data import LabelledPair, TrainingState, training_states
from gedkit.learned.decode import decode
from gedkit.learned.features import Instance, States, Vocabulary, concat, encode
from gedkit.learned.model import GelatoNet, resolve_device, to_tensors
from gedkit.nn import load_checked, write_atomically
from gedkit.numeric import tolerance

__all__ = ["LR_SCHEDULES", "TrainConfig", "Trained", "evaluate", "train", "write_model"]

_CHECKPOINT = "gedkit-gelato-checkpoint/1"
LR_SCHEDULES = ("constant", "cosine")
_COSINE_FLOOR = 0.05  # the cosine schedule ends at this fraction of the learning rate


@dataclass
class TrainConfig:
    """Hyper-parameters (defaults: the published model's sizes)."""

    epochs: int = 30
    batch_size: int = 64  # states per step
    lr: float = 1e-3
    weight_decay: float = 1e-4
    width: int = 128
    layers: int = 5
    states_per_pair: int = 40
    val_k: int = 8  # decoding branches during validation
    seed: int = 0
    lr_schedule: str = "constant"  # or "cosine"
    ranking: float = 0.0  # weight of the listwise ranking term (0: the published loss)
    device: str = "cpu"  # see gedkit.learned.model.resolve_device


@dataclass
class Trained:
    """The trained network (best validation epoch), the per-epoch history and its summary."""

    net: GelatoNet
    history: list[dict] = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    seconds: float = 0.0
    n_states: int = 0
    best_epoch: int | None = None
    #: Ctrl-C stopped the training after ``len(history)`` epochs: the net is the best of them
    interrupted: bool = False


def evaluate(net: GelatoNet, pairs: Sequence[LabelledPair], k: int = 8,
             strategy: str = "branches") -> dict:
    """Decode ``pairs`` and compare with their labels (only proven-optimal labels count).

    Returns ``exact_hit`` (share decoded at the optimal cost), ``nmae`` (mean of
    |decoded - optimal| / max(1, optimal)), ``ms_per_pair`` and ``pairs``.
    """
    hits, errors, seconds = [], [], 0.0
    for lp in pairs:
        if not lp.optimal:
            continue
        t0 = time.perf_counter()
        out = decode(lp.problem, net, k=k, strategy=strategy)
        seconds += time.perf_counter() - t0
        hits.append(out.cost <= lp.cost + tolerance(lp.cost))
        errors.append(abs(out.cost - lp.cost) / max(1.0, lp.cost))
    n = len(hits)
    return {"pairs": n, "exact_hit": float(np.mean(hits)) if n else None,
            "nmae": float(np.mean(errors)) if n else None,
            "ms_per_pair": 1000 * seconds / n if n else None}


def train(
    train_pairs: Sequence[LabelledPair],
    val_pairs: Sequence[LabelledPair],
    vocab: Vocabulary,
    config: TrainConfig | None = None,
    *,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    start: GelatoNet | None = None,
    data: dict[str, Any] | None = None,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
) -> Trained:
    """Train a network on ``train_pairs``, validating on ``val_pairs`` after each epoch.

    Parameters
    ----------
    train_pairs, val_pairs : sequence of LabelledPair
        Problems with their (optimal) maps; unproven labels train as they are.
    vocab : Vocabulary
        The label channels (fit on the training graphs).
    config : TrainConfig, optional
    checkpoint : path, optional
        Written after every epoch; with ``resume``, training continues from it.
    start : GelatoNet, optional
        A trained network to start from (its labels, width and layers replace ``vocab`` and
        the config's); by default a fresh one.
    data : dict, optional
        What the training and validation pairs were drawn and labelled from, as option →
        value (``gedkit train``: its flags); kept in the checkpoint, and a resume with
        another value of one is refused (its best epoch would be picked across different
        validation sets).
    progress : bool
        Show a progress bar on stderr when it is a terminal.
    log : callable, optional
        Receives one line per epoch.

    Ctrl-C once an epoch has finished returns the best epoch so far (``interrupted``); before,
    it raises :class:`KeyboardInterrupt` as usual.
    """
    config = config or TrainConfig()
    if config.lr_schedule not in LR_SCHEDULES:
        raise OptionError(f"lr_schedule must be one of {', '.join(LR_SCHEDULES)}, got "
                          f"{config.lr_schedule!r}")
    if not 0 <= config.ranking < math.inf:
        raise OptionError(f"ranking must be a finite weight of at least 0, got {config.ranking}")
    t_start = time.perf_counter()
    torch.manual_seed(config.seed)
    vocab, config = _shaped(vocab, config, start)
    net = GelatoNet(vocab, width=config.width, layers=config.layers)
    if start is not None:
        net.load_state_dict(start.state_dict())
    net.to(resolve_device(config.device))
    optimiser = torch.optim.AdamW(net.parameters(), lr=config.lr,
                                  weight_decay=config.weight_decay)
    instances, states = training_states(train_pairs, vocab, per_pair=config.states_per_pair,
                                        seed=config.seed)
    if not states:
        raise OptionError("the training pairs give no decision to learn (every map is forced: "
                          "one graph of each pair is empty)")
    history: list[dict] = []
    best: dict = {}
    spent = 0.0
    path = Path(checkpoint) if checkpoint is not None else None
    if resume and path is None:
        raise OptionError("resume=True needs the checkpoint= to go on from")
    if resume and not path.exists():  # (a mistyped path would silently train afresh)
        warn(UserWarning(f"no checkpoint at {path}: training from epoch 1"))
    elif resume:
        saved = _load_checkpoint(path, net, config, data)
        net.load_state_dict(saved["state_dict"])
        optimiser.load_state_dict(saved["optimizer"])
        history, best, spent = saved["history"], saved["best"], saved["seconds"]
        if len(history) > config.epochs:  # its model would be one of more epochs than asked
            raise OptionError(
                f"{path} has {len(history)} epochs done, more than the {config.epochs} asked "
                f"for; ask for more than {len(history)} to train on from it ({len(history)} "
                "writes its best model as it is), or train afresh")

    steps_per_epoch = -(-len(states) // config.batch_size)
    bar = _bar(progress, (config.epochs - len(history)) * steps_per_epoch)
    interrupted = False
    try:
        for epoch in range(len(history), config.epochs):
            t0 = time.perf_counter()
            net.train()
            order = np.random.default_rng([config.seed, epoch]).permutation(len(states))
            losses = []
            for step, first in enumerate(range(0, len(order), config.batch_size)):
                chunk = [states[i] for i in order[first:first + config.batch_size]]
                for group in optimiser.param_groups:
                    group["lr"] = learning_rate(config, epoch * steps_per_epoch + step,
                                                config.epochs * steps_per_epoch)
                loss = _loss(net, instances, chunk, config.ranking)
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                losses.append(loss.item())
                bar.update(1)
                bar.set_postfix(epoch=epoch + 1, loss=f"{losses[-1]:.4f}")
            row = {"epoch": epoch + 1, "loss": float(np.mean(losses)) if losses else None,
                   **{f"val_{k}": v for k, v in evaluate(net, val_pairs, config.val_k).items()},
                   "seconds": time.perf_counter() - t0}
            history.append(row)
            if not best or _better(row, best["metrics"]):
                best = {"epoch": epoch + 1, "metrics": row,
                        "state_dict": {k: v.clone() for k, v in net.state_dict().items()}}
            if log is not None:
                log(_describe(row))
            if path is not None:
                saved = {"format": _CHECKPOINT, "config": asdict(config), "net": net.config(),
                         "state_dict": net.state_dict(), "optimizer": optimiser.state_dict(),
                         "history": history, "best": best, "data": data,
                         "seconds": spent + time.perf_counter() - t_start}
                # a Ctrl-C during the save keeps the previous epoch's checkpoint whole
                write_atomically(path, lambda tmp, saved=saved: torch.save(saved, tmp))
    except KeyboardInterrupt:
        # the best finished epoch is an answer; before any, there is none to give
        if not best:
            raise
        interrupted = True
    bar.close()
    if best:
        net.load_state_dict(best["state_dict"])
    net.eval()
    metrics = {k: v for k, v in best.get("metrics", {}).items() if k != "seconds"}
    return Trained(net, history, metrics, spent + time.perf_counter() - t_start, len(states),
                   best.get("epoch"), interrupted)


def _loss(net: GelatoNet, instances: Sequence[Instance], chunk: Sequence[TrainingState],
          ranking: float = 0.0) -> torch.Tensor:
    """Mean of the positives' and the negatives' mean binary cross-entropy, plus ``ranking``
    times the states' mean listwise term (see the module docstring)."""
    enc = concat([encode(States.from_decisions(instances[s.pair], s.decisions)) for s in chunk])
    logits = net(to_tensors(enc, net.device))
    target = torch.from_numpy(np.concatenate([s.target for s in chunk])).to(net.device)
    terms = []
    for cls in (1, 0):
        chosen = logits[target == cls]
        if len(chosen):
            terms.append(functional.binary_cross_entropy_with_logits(
                chosen, torch.full_like(chosen, float(cls))))
    loss = torch.stack(terms).mean()
    if ranking:
        graph = torch.from_numpy(enc.cand_graph).to(net.device)
        good = torch.where(target != 0, logits, -torch.inf)  # positives and their twins
        missed = (_group_logsumexp(logits, graph, enc.n_graphs)
                  - _group_logsumexp(good, graph, enc.n_graphs))
        scored = torch.zeros(enc.n_graphs, dtype=torch.bool, device=net.device)
        scored[graph[target == 1]] = True
        loss = loss + ranking * missed[scored].mean()
    return loss


def _group_logsumexp(x: torch.Tensor, group: torch.Tensor, groups: int) -> torch.Tensor:
    """log Σ exp(x) over each group (-inf for a group of only -inf)."""
    top = torch.full((groups,), -torch.inf, dtype=x.dtype, device=x.device)
    top = top.scatter_reduce(0, group, x, "amax").detach()
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    total = torch.zeros(groups, dtype=x.dtype, device=x.device).index_add(
        0, group, torch.exp(x - top[group]))
    return torch.log(total) + top


def learning_rate(config: TrainConfig, step: int, steps: int) -> float:
    """The learning rate of batch ``step`` of ``steps`` under ``config.lr_schedule``.

    >>> c = TrainConfig(lr=1.0, lr_schedule="cosine")
    >>> learning_rate(c, 0, 100), round(learning_rate(c, 50, 100), 3), learning_rate(c, 100, 100)
    (1.0, 0.525, 0.05)
    """
    if config.lr_schedule == "constant" or steps <= 0:
        return config.lr
    done = min(step / steps, 1.0)
    return config.lr * (_COSINE_FLOOR + (1 - _COSINE_FLOOR) * 0.5 * (1 + math.cos(math.pi * done)))


def _better(row: dict, than: dict) -> bool:
    def key(r: dict) -> tuple:
        hit, nmae = r.get("val_exact_hit"), r.get("val_nmae")
        if hit is None:  # no validation pairs: the lowest training loss
            return (0.0, 0.0, -(r["loss"] or 0.0))
        return (hit, -nmae, 0.0)

    return key(row) > key(than) or (key(row) == key(than) and row["epoch"] > than["epoch"])


def _describe(row: dict) -> str:
    text = f"epoch {row['epoch']}: loss {row['loss']:.4f}"
    if row.get("val_exact_hit") is not None:
        text += (f", validation exact hits {100 * row['val_exact_hit']:.1f}%, "
                 f"nMAE {100 * row['val_nmae']:.2f}% ({counted(row['val_pairs'], 'pair')})")
    return text + f", {row['seconds']:.1f} s"


def check_checkpoint(path: str | Path, vocab: Vocabulary, config: TrainConfig,
                     start: GelatoNet | None = None, data: dict[str, Any] | None = None) -> None:
    """A one-line error unless the checkpoint ``path`` was made with the network
    :func:`train` would make of ``vocab``, ``config`` and ``start``, and from the same
    ``data`` (see :func:`train`): asked before the labelling, whose cache a refused resume
    had replaced."""
    vocab, config = _shaped(vocab, config, start)
    _load_checkpoint(Path(path), GelatoNet(vocab, width=config.width, layers=config.layers),
                     config, data)


def _shaped(vocab: Vocabulary, config: TrainConfig, start: GelatoNet | None
            ) -> tuple[Vocabulary, TrainConfig]:
    """The labels and config of the network :func:`train` makes: a ``start`` network's own
    labels, width and layers replace ``vocab`` and the config's."""
    if start is None:
        return vocab, config
    return start.vocab, replace(config, width=start.width, layers=start.n_layers)


def _load_checkpoint(path: Path, net: GelatoNet, config: TrainConfig,
                     data: dict[str, Any] | None = None) -> dict:
    saved = load_checked(path, _CHECKPOINT, "a Gelato checkpoint")
    made, asked = saved["net"], net.config()
    # which: a user who changed only --data was told of "labels, width or layers"
    differ = [what for key, what in (("width", "width"), ("layers", "layers"),
                                     ("vocab", "labels (the training data's)"))
              if _canonical(made.get(key)) != _canonical(asked.get(key))]
    if differ[:1] in (["width"], ["layers"]):
        _refuse_network(path, differ)
    # other data before other labels: the option that changed them is named (a changed
    # --seed drew other training graphs, whose labels then "differed")
    _check_data(path, saved.get("data"), data)
    if differ or _canonical(made) != _canonical(asked):
        _refuse_network(path, differ)
    return saved


def _refuse_network(path: Path, differ: list[str]) -> None:
    """The one-line error of a checkpoint made with another network (``differ``: in what)."""
    raise OptionError(
        f"{path} was made with another network (different "
        f"{', '.join(differ) or 'settings'}); train without resuming, or with the data "
        "and settings it was made with"
    )


def _check_data(path: Path, made: dict[str, Any] | None, asked: dict[str, Any] | None) -> None:
    """A one-line error naming the first option of ``asked`` (what the pairs are drawn
    from now) whose value differs from ``made``'s (the checkpoint's); nothing where either
    is unknown (a checkpoint written before they were kept, a call that gives none)."""
    if made is None or asked is None:
        return
    for option, value in asked.items():
        before = made.get(option)
        if _canonical(before) != _canonical(value):
            was, now = _option_value(before), _option_value(value)
            raise OptionError(
                f"{path} was trained with {option} {was}, not {now} (another training or "
                f"validation set); resume {_as_before(option, before)}, or train afresh "
                "without resuming")


def _as_before(option: str, value: Any) -> str:
    """How a resume gives ``option`` its checkpoint's ``value`` back, in the command's words
    ("with --max-nodes none" named a value the flag refuses).

    >>> _as_before("--pairs", 30), _as_before("--max-nodes", None)
    ('with --pairs 30', 'without --max-nodes')
    >>> _as_before("--keep-unproven", False), _as_before("--data (file sizes)", [3, 4])
    ('without --keep-unproven', 'with the --data files as they were')
    """
    if " (" in option:  # (a fact of the option's files, not a value it takes)
        return f"with the {option.split(' (')[0]} files as they were"
    if value is None or value is False or value == []:
        return f"without {option}"
    return "with " + option + ("" if value is True else f" {_option_value(value)}")


def _option_value(value: Any) -> str:
    """An option's value as a command line spells it.

    >>> _option_value(["a.smi", "b.smi"]), _option_value(None), _option_value(True)
    ('a.smi b.smi', 'none', 'on')
    """
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value)) or "none"
    return str(value)


def _canonical(config: dict) -> str:
    return json.dumps(config, sort_keys=True, default=str)  # tuples and lists alike


def _bar(progress: bool, total: int):
    """A progress bar on stderr, shown on terminals only (tqdm's ``disable=None``)."""
    from tqdm import tqdm

    return tqdm(total=total, unit="batch", desc="training", file=sys.stderr,
                disable=None if progress else True)


def write_model(net: GelatoNet, path: str | Path, card: dict) -> Path:
    """Write the weights to ``path`` and the model card next to it (``.json``); returns the
    card's path."""
    path = Path(path)
    card = json.loads(json.dumps(card, default=str))  # plain data: loads weights-only
    net.meta = {**net.meta, "trained": True, "card": card}
    net.save(path)
    card_path = path.with_suffix(".json")
    text = json.dumps(card, indent=2) + "\n"
    write_atomically(card_path, lambda tmp: tmp.write_text(text))
    return card_path
