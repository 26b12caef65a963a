"""Saved graphs: ``save(obj, path, signatures=None)`` and ``load(path)`` (SPEC section 10),
and the same format in memory: ``serialize``/``deserialize`` (an object's functions) and
``serialize_concrete``/``deserialize_concrete`` (one trace), a JSON text plus arrays.

See docs/saved_model.md for the format and what loading validates.
"""

from graphc.saved_model.load import load
from graphc.saved_model.memory import (
    deserialize,
    deserialize_concrete,
    serialize,
    serialize_concrete,
)
from graphc.saved_model.save import save

__all__ = ["deserialize", "deserialize_concrete", "load", "save", "serialize",
           "serialize_concrete"]
