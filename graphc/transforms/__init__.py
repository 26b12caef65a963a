"""Transforms from graphs to graphs driven by per-op rules: gradients (``tape``,
``autodiff``)."""
