"""graphc: a graph-tracing compiler for NumPy-style Python.

Public API re-exports only; each name is defined in the module that owns it.
"""

from graphc import autograph, config, debugging, errors, math, random
from graphc.config import functions_run_eagerly, run_functions_eagerly
from graphc.core.device_scope import device
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
from graphc.ops import fused as _fused  # registers fused_elementwise with the other ops
from graphc.ops.control.flow import cond, switch_case, while_loop
from graphc.ops.creation import constant, convert_to_tensor
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
from graphc.runtime.cpu import cache
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
from graphc.functions.function import Function, clear_caches, function
from graphc.functions.signature import TensorSpec
from graphc.core.tensor import Tensor
from graphc.core.tensor import install as _install
from graphc.core.trace import executing_eagerly
from graphc.transforms.batching import vectorized_map
from graphc.transforms.custom_gradient import custom_gradient
from graphc.transforms.graph_gradients import gradients
from graphc.transforms.map_fn import map_fn
from graphc.transforms.tape import GradientTape, stop_gradient
from graphc.variables import Variable

_install()
del _install

__version__ = "0.1.0"
# after the ops they use are registered; graphc.dask imports Dask only when used
from graphc import dask, saved_model  # noqa: E402
