"""Arrays over part of another array's memory that hold no reference to it.

A numba view of an array takes a reference to its base: an atomic increment when made and a
decrement when dropped, through a call each. In the batch verifier's inner loops (dozens of
work arrays and record views per candidate pair of ~12 atoms) those two instructions were
18% of the time. These arrays skip them; whoever makes one keeps the base in use until the
array is no longer read.
"""

from __future__ import annotations

from numba import carray, njit, types
from numba.extending import intrinsic

__all__ = ["alias", "part"]


@intrinsic
def _address(typingctx, buf, start):
    """A pointer to ``buf[start]``."""
    sig = types.CPointer(buf.dtype)(buf, types.intp)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, value=args[0])
        return builder.gep(array.data, [args[1]])

    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def part(buf, start, size):
    """``buf[start:start + size]`` (``buf`` one-dimensional, contiguous) as an array that holds
    no reference to ``buf``, which must outlive it."""
    return carray(_address(buf, start), size)


@njit(cache=True, nogil=True, inline="always")
def alias(arr):
    """All of ``arr`` (contiguous) as an array that holds no reference to it, which must
    outlive it."""
    if not arr.flags.c_contiguous:  # (a strided array read as contiguous: other values)
        raise ValueError("alias: the array is not contiguous")
    return carray(_address(arr, 0), arr.shape)
