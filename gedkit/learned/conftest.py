"""pytest collects doctests from every module; those of the torch modules need torch."""

try:
    import torch  # noqa: F401
except ImportError:
    collect_ignore = ["decode.py", "model.py", "train.py"]
