"""Compiled (numba) kernels on plain arrays. Nothing here knows about graphs or labels."""
