"""Exact solvers: tree search (A*, depth-first branch and bound) and integer programming."""
