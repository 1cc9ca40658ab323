"""Dask distributed, optional: the one place gedkit reaches it (``pip install 'gedkit[dask]'``).

:func:`as_client` checks what a caller passed as ``client=``, :func:`connect` opens a client on
a scheduler's address (the command line's ``--scheduler ADDRESS``); neither imports Dask until
it is asked for.
"""

from __future__ import annotations

from typing import Any

from gedkit.errors import GedkitError, MissingDependencyError, OptionError

__all__ = ["as_client", "connect", "distributed", "parallelism"]

#: seconds the command line waits for a scheduler before giving up
CONNECT_TIMEOUT = 30


def distributed(feature: str) -> Any:
    """The ``distributed`` module, or a one-line :class:`MissingDependencyError` naming
    ``feature`` and the extra that installs it."""
    try:
        import distributed as module
    except ImportError:
        raise MissingDependencyError("distributed", feature, "dask") from None
    return module


def as_client(client: Any, feature: str = "pairwise(client=...)") -> Any:
    """``client`` if it is a running ``dask.distributed.Client``; else a one-line error (without
    Dask installed: how to install it).

    >>> from gedkit.errors import GedkitError
    >>> try:
    ...     as_client(42)
    ... except GedkitError as err:  # OptionError, or MissingDependencyError without Dask
    ...     print("got int" in str(err) or "pip install 'gedkit[dask]'" in str(err))
    True
    """
    module = distributed(feature)
    if not isinstance(client, module.Client):
        raise OptionError(f"client= must be a dask.distributed.Client, got {type(client).__name__}")
    if client.status not in ("running", "connecting", "newly-created"):
        raise OptionError(f"client= is a Dask client that is {client.status}, not running")
    return client


def connect(address: str) -> Any:
    """A client on the Dask scheduler at ``address`` (``tcp://host:8786``...); a scheduler
    that cannot be reached is a one-line error."""
    module = distributed("--scheduler")
    try:
        return module.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise GedkitError(f"cannot reach the Dask scheduler at {address}: {text}") from None


def parallelism(client: Any) -> int:
    """How many tasks the cluster runs at once (its workers' threads; at least 1)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:  # a scheduler that does not say: plan for one
        return 1
