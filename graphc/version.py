"""graphc's version: one source of truth (``gc.__version__``, the compile cache's tag)."""

__version__ = "0.1.0"
