"""What the learned methods share, Gelato (GED, :mod:`gedkit.learned`) and NGA (MCES,
:mod:`gedkit.mces.nga`): torch on demand, checked weight files, the costs of importing torch and of
network steps (:mod:`~gedkit.nn.budgeting`), the canonical form labels meet a vocabulary in
(:mod:`~gedkit.nn.labels`), and the message-passing layer (:mod:`~gedkit.nn.layers`).

Importing this package does not import torch; :mod:`~gedkit.nn.layers` does.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickletools
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from gedkit.errors import FormatError

__all__ = ["check_weights_file", "load_checked", "replacing", "require_torch",
           "with_weights", "write_atomically"]


def require_torch(feature: str = "the learned solver gelato") -> ModuleType:
    """The ``torch`` module, or a :class:`MissingDependencyError` naming ``feature``; an
    import made here is timed for :mod:`gedkit.nn.budgeting`."""
    from gedkit.nn.budgeting import import_torch

    return import_torch(feature)


def _looks_like(path: str | os.PathLike) -> str:
    """What a file that is not a weights file looks like, from its first bytes."""
    try:
        with open(path, "rb") as f:
            head = f.read(64).lstrip()
    except (OSError, TypeError):  # (a resource inside an archive: no file to open)
        head = b""
    if head.startswith((b"{", b"[")):
        # (NGA's weights are shipped, not trained by 'gedkit train': name no command)
        return "a JSON file, such as a model card: the weights are the .pt file of that name"
    if head.startswith(b"PK"):
        if _damaged(path):
            return ("damaged or cut short: its writing was interrupted, or it was copied "
                    "in part")
        return "a PyTorch file that holds more than tensors and plain values"
    return "unreadable as a PyTorch file: truncated, or another kind of file"


def _damaged(path: str | os.PathLike) -> bool:
    """Whether the zip archive at ``path`` (what ``torch.save`` writes) is unreadable or
    fails its checksums: a file cut short by an interrupted save, not a foreign one."""
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.testzip() is not None
    except (OSError, zipfile.BadZipFile, EOFError, ValueError):
        return True


def _saved_format(data: bytes) -> str | None:
    """The value saved under the key ``"format"`` of the pickle ``data`` (torch's
    ``data.pkl``), read opcode by opcode: nothing in it is run."""
    key = False
    try:
        for _op, arg, _ in pickletools.genops(data):
            if isinstance(arg, str):
                if key:
                    return arg
                key = arg == "format"
    except (ValueError, EOFError):  # (a pickle cut short)
        return None
    return None


def check_weights_file(path: str | os.PathLike, fmt: str, what: str) -> None:
    """A :class:`~gedkit.errors.FormatError` unless ``path`` is a whole ``torch.save`` archive
    that says it holds ``fmt``: the check of a weights option when it is read, without
    importing torch (seconds) or building a network. The archive's checksums are verified,
    so a file cut short or damaged is caught here too, not when the network first runs."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise FormatError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    # once per version of the file: the check reads all of it, and a loop of calls naming the
    # same weights checks them at every call
    _check_archive(os.path.realpath(path), st.st_size, st.st_mtime_ns, os.fspath(path), fmt,
                   what)


@functools.lru_cache(maxsize=64)
def _check_archive(real: str, size: int, mtime: int, path: str, fmt: str, what: str) -> None:
    """:func:`check_weights_file` of the file at ``real`` as it is (``size``, ``mtime``);
    only a file that passes is remembered (an error is raised again at every call)."""
    try:
        with zipfile.ZipFile(real) as archive:
            pickles = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == "data.pkl"]
            if archive.testzip() is not None or not pickles:
                raise zipfile.BadZipFile
            found = _saved_format(archive.read(pickles[0]))
    except OSError as exc:
        raise FormatError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except (zipfile.BadZipFile, EOFError, ValueError):
        raise FormatError(f"{path}: not {what} ({_looks_like(path)})") from None
    if found != fmt:
        holds = f"; it holds {found!r}" if found else ""
        raise FormatError(f"{path}: not {what} (expected format {fmt!r}{holds})")


def with_weights(make: Callable[[], Any], saved: dict, path: str | os.PathLike,
                 what: str) -> Any:
    """The network ``make()`` builds (from ``saved``'s configuration) with the weights of
    ``saved["state_dict"]`` (a :func:`load_checked` dict): a configuration or weights that do
    not fit it, or weights that are not all finite numbers, are a
    :class:`~gedkit.errors.FormatError` naming the file (a file of the right format but
    damaged contents was a traceback: torch's size mismatch, a missing key, NaN weights
    failing in the decoder)."""
    torch = require_torch(f"reading {what}")
    try:
        net = make()
        net.load_state_dict(saved["state_dict"])
    except KeyError as exc:
        raise FormatError(f"{path}: {what} lack their {exc.args[0]!r} entry") from None
    except (TypeError, RuntimeError, ValueError) as exc:
        # (torch's first line only heads the list: "Error(s) in loading state_dict for ...")
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        detail = next((line for line in lines if not line.endswith(":")), type(exc).__name__)
        raise FormatError(f"{path}: {what} do not fit the network ({detail})") from None
    if not all(bool(torch.isfinite(v).all()) for v in net.state_dict().values()
               if v.is_floating_point()):
        raise FormatError(f"{path}: {what} hold values that are not finite numbers (NaN "
                          "or infinite): the file is damaged")
    return net


def load_checked(path: str | os.PathLike, fmt: str, what: str) -> dict:
    """The dict saved at ``path`` by ``torch.save``, read without running code (weights
    only); a file that is unreadable as such, or that does not say it holds ``fmt``, raises a
    :class:`~gedkit.errors.FormatError` naming the file and ``what`` was expected."""
    torch = require_torch(f"reading {what}s")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except OSError:
        raise
    except Exception:  # a truncated or foreign file: say which file and what it looks like
        # (not PyTorch's own text, which advises loading with weights_only=False: running
        # whatever code the file holds)
        raise FormatError(f"{path}: not {what} ({_looks_like(path)})") from None
    if not isinstance(saved, dict) or saved.get("format") != fmt:
        raise FormatError(f"{path}: not {what} (expected format {fmt!r})")
    return saved


def write_atomically(path: str | os.PathLike, write: Callable[[Path], None]) -> None:
    """``write(tmp)`` to a temporary file beside ``path``, then moved onto ``path`` in one
    step: a Ctrl-C or a full disk during the writing leaves the previous file whole (a
    checkpoint cut short would lose the training it holds) and no temporary file behind."""
    with replacing(path) as tmp:
        write(tmp)


@contextlib.contextmanager
def replacing(path: str | os.PathLike, keep_mode: bool = False) -> Iterator[Path]:
    """A temporary file beside ``path`` for the block to write, moved onto ``path`` in one
    step when the block ends, removed when it raises (see :func:`write_atomically`); with
    ``keep_mode`` an existing ``path``'s permissions stay, else the umask's."""
    path = Path(path)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if keep_mode and path.exists():
            shutil.copymode(path, tmp)
        else:
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's file is private; a saved one is not
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _umask() -> int:
    mask = os.umask(0o022)  # reading the mask means setting it: set it back at once
    os.umask(mask)
    return mask
