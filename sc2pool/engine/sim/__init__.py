"""Vectorised simulation core: unit store (struct of arrays) and the per-loop rules."""
