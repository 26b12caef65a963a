"""Which ops return views of their first operand in NumPy, and how a write through such a
view reaches its base (``OpDef.view`` / ``OpDef.unview``; the bookkeeping that uses them
is ``graphc.core.mutation``). Each rule writes the base's new value with ops:

* ``getitem`` with a basic key (ints, slices, ``...``, ``newaxis``, 0-d integer
  tensors): a view; written back with ``setitem`` at the same key. Advanced keys
  (arrays, masks) give copies.
* ``transpose``: a view; written back transposed by the inverse permutation.
* ``flip``: a view; written back flipped again.
* ``expand_dims``/``squeeze``: views (of known shapes); written back reshaped to the base.
* ``broadcast_to``: a read-only view (it follows its base; writing it raises, as NumPy).
* ``reshape``: a view or a copy by the memory layout (``"layout"``): it cannot be
  written while tracing, and a write into its base makes it stale. Eagerly NumPy's
  arrays say which it was, and a tape writes through a reshape that is a view by
  reshaping back.
"""

from __future__ import annotations

import numpy as np

from graphc.core.registry import bind
from graphc.ops import indexing, shape


def _getitem_view(x, *idx, key):
    for e in key:
        if e[0] == "bool":
            return False
        if e[0] == "array":
            a = idx[e[1]]
            if a.shape is None:
                return "layout"
            if a.dtype.kind == "b" or len(a.shape):
                return False
    return True


def _known(x, *rest, **attrs):
    return True if x.shape is not None and None not in x.shape else "layout"


def _back_to_base(base, new, *rest, **attrs):
    return bind(shape.RESHAPE, new, shape=tuple(base.shape))


def _transpose_unview(base, new, axes=None):
    inverse = None if axes is None else tuple(int(i) for i in np.argsort(axes))
    return bind(shape.TRANSPOSE, new, axes=inverse)


indexing.GETITEM.view = _getitem_view
indexing.GETITEM.unview = lambda base, new, *idx, key: bind(indexing.SETITEM, base, new,
                                                             *idx, key=key)
shape.TRANSPOSE.view = lambda x, axes=None: True
shape.TRANSPOSE.unview = _transpose_unview
shape.FLIP.view = lambda x, axis=None: True
shape.FLIP.unview = lambda base, new, axis=None: bind(shape.FLIP, new, axis=axis)
shape.EXPAND_DIMS.view = shape.SQUEEZE.view = _known
shape.EXPAND_DIMS.unview = shape.SQUEEZE.unview = _back_to_base
shape.BROADCAST_TO.view = lambda x, *rest, **attrs: True  # unview None: read-only
shape.RESHAPE.view = lambda x, *rest, **attrs: "layout"
shape.RESHAPE.unview = _back_to_base  # when it is a view: eagerly NumPy tells (tapes)
