"""Saved graphs: ``save(obj, path, signatures=None)`` and ``load(path)`` (SPEC section 10).

See docs/saved_model.md for the format and what loading validates.
"""

from graphc.saved_model.load import load
from graphc.saved_model.save import save

__all__ = ["load", "save"]
