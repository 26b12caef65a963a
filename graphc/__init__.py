"""graphc: a graph-tracing compiler for NumPy-style Python.

Public API re-exports only; each name is defined in the module that owns it.

The integrations (``gc.saved_model``, ``gc.dask``) and the compile layer (``gc.cache``,
``graphc.passes``, ``graphc.runtime``) are imported on first use, through the module
``__getattr__`` at the end of this file (docs/architecture.md, "Import cost").
"""

from graphc import (
    autograph,
    config,
    debugging,
    errors,
    math,
    numpy,
    random,
    version,
)
from graphc.config import functions_run_eagerly, run_functions_eagerly
from graphc.core.device_scope import device
from graphc.core.spec import TensorSpec
from graphc.core.tensor import Tensor
from graphc.core.trace import executing_eagerly
from graphc.dtypes import bool_ as bool
from graphc.dtypes import (
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from graphc.functions.function import Function, clear_caches, function
from graphc.ops import fused as _fused  # registers fused_elementwise with the other ops
from graphc.ops import linalg_tf_rules as _linalg_tf_rules  # gc.linalg's lu, expm...
from graphc.ops.control.flow import cond, switch_case, while_loop
from graphc.ops.convert import convert_to_tensor
from graphc.ops.creation import constant
from graphc.ops.creation import tf_range as range
from graphc.ops.effects import print_ as print
from graphc.ops.gather import gather, tensor_scatter_nd_update
from graphc.ops.join import concat
from graphc.ops.join import tf_stack as stack
from graphc.ops.linalg import tf_matmul as matmul
from graphc.ops.pad_tile import tf_pad as pad
from graphc.ops.pad_tile import tf_tile as tile
from graphc.ops.pyfunc import numpy_function, py_function
from graphc.ops.reduce import (
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from graphc.ops.reduce import tf_argmax as argmax
from graphc.ops.shape import rank, shape, size
from graphc.ops.tensor_array.array import TensorArray
from graphc.tf_api import (
    abs,
    add,
    cast,
    divide,
    equal,
    exp,
    fill,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    sqrt,
    subtract,
    where,
)
from graphc.tf_api import tf_broadcast_to as broadcast_to
from graphc.tf_api import tf_eye as eye
from graphc.tf_api import tf_identity as identity
from graphc.tf_api import tf_ones as ones
from graphc.tf_api import tf_reshape as reshape
from graphc.tf_api import tf_transpose as transpose
from graphc.tf_api import tf_zeros as zeros
from graphc.transforms.batching import vectorized_map
from graphc.transforms.custom_gradient import custom_gradient
from graphc.transforms.graph_gradients import gradients
from graphc.transforms.map_fn import map_fn
from graphc.transforms.tape import GradientTape, stop_gradient
from graphc.variables import Variable

__version__ = version.__version__

# TensorFlow's other top-level names (docs/tf_api.md): a name tf.math also has is gc.math's
# object when gc.math defines it, graphc.tf_api's function otherwise
from graphc.tf_api import TF_MATH_NAMES as _TF_MATH_NAMES  # noqa: E402
from graphc.tf_api import TF_TOP_LEVEL as _TF_TOP_LEVEL  # noqa: E402
from graphc.transforms.tf_api_loops import (  # noqa: E402
    Module,
    foldl,
    foldr,
    hessians,
    recompute_grad,
    scan,
)

globals().update(_TF_TOP_LEVEL)
globals().update({_n: getattr(math, _n, _f) for _n, _f in _TF_MATH_NAMES.items()})
del _TF_MATH_NAMES, _TF_TOP_LEVEL

# ------------------------------------------------------------------ the composition root
# The layers below reach up only through the slots filled here, once (the table of hooks
# and who fills them: docs/architecture.md).
from graphc.core import device_names as _device_names  # noqa: E402
from graphc.core import hooks as _hooks  # noqa: E402
from graphc.core.tensor import install as _install_tensor  # noqa: E402
from graphc.functions import function as _function_module  # noqa: E402
from graphc.ops import indexing as _indexing  # noqa: E402
from graphc.ops import inplace as _inplace  # noqa: E402
from graphc.ops.operators import install_operators as _install_operators  # noqa: E402
from graphc.transforms import batching as _batching  # noqa: E402
from graphc.transforms import graph_vjp as _graph_vjp  # noqa: E402
from graphc.transforms import recording as _recording  # noqa: E402

# Tensor's methods and operators (graphc.numpy serves t.sum(), t.reshape(), ...)
_install_tensor(numpy, _indexing, _inplace, _install_operators)
# ndarray's other methods and the Array API's (t.conj(), t.mT, t.__array_namespace__())
from graphc.ops.tensor_methods import install_methods as _install_methods  # noqa: E402

_install_methods(Tensor, numpy)
del _install_methods
# a recording GradientTape sees every op bind runs or a trace records
_hooks.record_bind = _recording.record_bind
_hooks.record_node = _recording.record_node
_hooks.on_variable_read = _recording.on_variable_read
_hooks.gradient_tape = GradientTape
_hooks.unrecorded = _recording.unrecorded
_hooks.rename_on_tapes = _recording.rename
_hooks.view_family_on_tapes = _recording.view_family
# the control-flow ops' gradient and batching rules walk their branches and bodies
_hooks.graph_vjp = _graph_vjp
_hooks.batch_graph = _batching.walk_graph


def _cuda_backend():
    """The CUDA backend module, imported when a GPU is first asked for."""
    from graphc.runtime import cuda  # deferred: only programs that ask for a GPU load it

    return cuda


_hooks.cuda_backend = _cuda_backend


def _loop_handover(loop_cond, body):
    """A long loop on the interpreter asks for its compiled program (on-stack
    replacement: ``runtime/cpu/loop_handover.py``), loading the CPU backend then."""
    from graphc.runtime.cpu import loop_handover  # deferred: the CPU backend, on first use

    return loop_handover.start(loop_cond, body)


_hooks.loop_handover = _loop_handover


def _dask_call(fn, args):
    """The Dask integration's call handler: ``graphc.dask`` is imported by the first call
    that reaches it, made once the program has imported ``dask.array``."""
    from graphc.dask import api  # deferred: graphc.dask, loaded once Dask is in use

    return api.dask_call(fn, args)


# a gc.function called with Dask arrays runs block by block
_function_module.call_handlers.append(("dask.array", _dask_call))
# gc.config's device lists live with the device names, a layer above gc.config's
config.list_devices = _device_names.list_devices
config.list_physical_devices = _device_names.list_physical_devices
config.list_logical_devices = _device_names.list_logical_devices
del (_batching, _cuda_backend, _dask_call, _device_names, _function_module, _graph_vjp, _hooks,
     _indexing, _inplace, _install_operators, _install_tensor, _loop_handover, _recording)

# ------------------------------------------------------------------ loaded on first use
# name -> the module `gc.<name>` is; imported by the first `gc.<name>` (or `from graphc
# import <name>`), so `import graphc` loads no integration and no compiler module
_LAZY = {
    "cache": "graphc.runtime.cpu.cache",
    "linalg": "graphc.linalg",
    "nn": "graphc.nn",
    "dask": "graphc.dask",
    "passes": "graphc.passes",
    "runtime": "graphc.runtime",
    "saved_model": "graphc.saved_model",
    "signal": "graphc.ops.signal_api",
    "scipy": "graphc.scipy",
    "image": "graphc.image",
}


def __getattr__(name):
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'graphc' has no attribute {name!r}")
    import importlib  # deferred: the integrations and the CPU backend's cache (see _LAZY)

    module = importlib.import_module(target)
    globals()[name] = module
    return module


def __dir__():
    return sorted((set(globals()) - {"_LAZY", "__getattr__", "__dir__"}) | set(_LAZY))
