"""``tf.experimental.numpy``'s and ``jax.numpy``'s names that NumPy 2 lacks: the dtype
aliases ``float_`` and ``complex_`` (float64 and complex128, as TensorFlow's and JAX's
are) and TensorFlow's function ``tnp.flatten(a, order)`` (a composition of ``transpose``
and ``reshape``; no op of its own).
"""

from __future__ import annotations

import numpy as np

from graphc.ops.convert import asarray
from graphc.ops.shape import reshape, transpose

#: ``tnp.float_`` / ``jnp.float_``: NumPy's float64 scalar type (NumPy 2 removed the name)
float_ = np.float64
#: ``tnp.complex_`` / ``jnp.complex_``: NumPy's complex128 scalar type
complex_ = np.complex128


def flatten(a, order="C"):
    """``tf.experimental.numpy.flatten``: ``a`` as a 1-D tensor, in row-major
    order for ``order`` ``'C'``, ``'A'`` or ``'K'`` (TensorFlow's tensors are row-major),
    column-major for ``'F'``; any other order raises ``ValueError``."""
    a = asarray(a)
    if order in ("C", "A", "K"):
        return reshape(a, (-1,))
    if order == "F":
        return reshape(transpose(a), (-1,))
    raise ValueError(f"order can only be C, A, K, or F. Got: {order}")
