"""Saved graphs without a directory: a JSON text plus a dict of arrays.

The same document ``save`` writes to ``graph.json`` and the same arrays it writes to
``constants.npz`` (keys ``c0``, ``c1``, ...) and ``variables.npz`` (``v0``, ...), in one
dict. Deserializing checks everything ``load`` checks (the text by the same schema, each
array's type, dtype and key), so a graph can travel over any channel that carries a string
and plain arrays (Dask ships graphs to workers this way).
"""

from __future__ import annotations

import re

import numpy as np

from graphc.errors import SavedModelError
from graphc.functions.concrete import ConcreteFunction
from graphc.saved_model import schema
from graphc.saved_model.load import MAX_JSON_BYTES, from_parts
from graphc.saved_model.save import document, to_json

_KEY = re.compile(r"^[cv][A-Za-z0-9_]{0,63}$")


def serialize(obj, signatures=None) -> tuple[str, dict]:
    """``(json_text, {name: ndarray})`` for what :func:`gc.saved_model.save` would save.

    >>> text, arrays = gc.saved_model.serialize(f)         # doctest: +SKIP
    >>> m = gc.saved_model.deserialize(text, arrays)       # doctest: +SKIP
    """
    doc, constants, variables = document(obj, signatures)
    return to_json(doc), {**constants, **variables}


def deserialize(text, arrays):
    """The object :func:`gc.saved_model.load` would return for ``serialize``'s output;
    raises ``SavedModelError`` for anything malformed (nothing is evaluated)."""
    if isinstance(text, str):
        text = text.encode("utf-8")
    if not isinstance(text, bytes) or len(text) > MAX_JSON_BYTES:
        raise SavedModelError(f"serialized graph: a str or bytes of at most "
                              f"{MAX_JSON_BYTES} bytes expected")
    if type(arrays) is not dict:
        raise SavedModelError("serialized arrays: a dict name -> numpy array expected, "
                              f"got {type(arrays).__name__}")
    constants, values = {}, {}
    for key, a in arrays.items():
        if type(key) is not str or not _KEY.match(key):
            raise SavedModelError(f"serialized arrays: bad name {key!r:.80} (c<n> for "
                                  "constants, v<n> for variable values)")
        if type(a) is not np.ndarray or a.dtype.name not in schema.DTYPES \
                or a.dtype.hasobject or a.dtype.fields is not None \
                or a.ndim > schema.MAX_RANK:
            raise SavedModelError(f"serialized arrays: {key} is not a plain numeric array "
                                  f"of a saveable dtype ({type(a).__name__}"
                                  f"{'' if type(a) is not np.ndarray else ' ' + str(a.dtype)})")
        (constants if key[0] == "c" else values)[key] = np.array(a, order="C")
    return from_parts(text, constants, values, name="serialized graph")


def serialize_concrete(cf: ConcreteFunction) -> tuple[str, dict]:
    """One concrete function (one trace) as ``(json_text, {name: ndarray})``."""
    if not isinstance(cf, ConcreteFunction):
        raise TypeError(f"serialize_concrete: a ConcreteFunction expected, got "
                        f"{type(cf).__name__} (use f.get_concrete_function(...))")
    return serialize(cf)


def deserialize_concrete(text, arrays) -> ConcreteFunction:
    """The ``ConcreteFunction`` of :func:`serialize_concrete`'s output."""
    loaded = deserialize(text, arrays)
    if len(loaded.signatures) != 1:
        raise SavedModelError(f"serialized graph: holds {len(loaded.signatures)} "
                              "signatures, deserialize_concrete needs exactly one")
    (cf,) = loaded.signatures.values()
    return cf
