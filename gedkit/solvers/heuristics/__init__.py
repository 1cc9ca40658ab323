"""Upper-bound heuristics."""
