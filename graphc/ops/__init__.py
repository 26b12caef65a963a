"""The op families: each module declares its ops (``OpDef``: infer, ref, attrs...) and the
public functions that bind them.

Gradient and batching rules that need functions of higher families are written in rule
modules that import those families and attach the rules to the ops when imported
(``elementwise_batch``, ``reduce_grad``, ``reduce_batch``, ``grad_arrays``,
``shape_batch``, ``index_batch``, ``linalg_grad``, ``linalg_batch``, ``views`` (which
ops return views, for in-place writes),
``tensor_array.grad``, ``control.grad``, ``control.batch``). Modules import each other in
one direction only (a family never imports the module that attaches its rules), so
importing any op module first runs this file, which loads every family and every rule
module: whichever op a caller reaches, every op has its ``grad`` and ``batch`` rules.
"""

from graphc.ops import (  # noqa: F401 - the families, each registering its ops, and the rules
    creation,
    effects,
    elementwise,
    elementwise_batch,
    fused,
    gather,
    grad_arrays,
    index_batch,
    indexing,
    join,
    linalg,
    linalg_batch,
    linalg_grad,
    pad_tile,
    pyfunc,
    random,
    reduce,
    reduce_batch,
    reduce_grad,
    save_stack,
    segment,
    shape,
    shape_batch,
    state,
    views,
)
from graphc.ops.control import batch as _control_batch  # noqa: F401
from graphc.ops.control import flow as _control_flow  # noqa: F401
from graphc.ops.control import grad as _control_grad  # noqa: F401
from graphc.ops.tensor_array import array as _tensor_array  # noqa: F401
from graphc.ops.tensor_array import grad as _tensor_array_grad  # noqa: F401
