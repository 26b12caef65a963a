"""``graphc.scipy``: SciPy-named functions over graphc ops, as ``jax.scipy`` (so far
``graphc.scipy.special``; ``gc.scipy`` loads on first use)."""

from graphc.scipy import special  # noqa: F401
