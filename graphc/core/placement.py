"""Where eager work runs, and the only places data crosses between devices.

Rules (docs/devices.md):

* An eager op runs on the calling thread's innermost device scope, else on the device
  of its tensor operands, else on the CPU. Its tensor operands must all be on that
  device: a tensor is never moved implicitly (``DeviceError`` naming both devices).
  NumPy arrays and Python numbers are host values and go to wherever the op runs.
* New tensors made under a scope (``gc.constant``, ``gnp.asarray``, creation ops) live
  on the scope's device.
* ``gnp.copy(t)`` under a scope copies ``t`` to the scope's device; ``t.numpy()`` and
  ``np.asarray(t)`` copy to the host.
* A ``gc.function`` call runs on the scope's device, else on its device tensor
  arguments' device; host arguments (CPU tensors, arrays) are copied in at the graph's
  edge.

``registry.bind`` calls :func:`run_eager` only when a device is involved: while some
thread has an accelerator scope open (``scope.placing``) or once a device tensor exists
(``made``); CPU-only programs never pay more than those two list tests. A
``gc.function`` call's placement is in ``graphc/functions/placement.py``.
"""

from __future__ import annotations

import contextlib

import numpy as np

from graphc import nest, source_info
from graphc.core import device_names as names
from graphc.core import device_scope as scope
from graphc.core.device_tensor import DeviceTensor, index, to_device, to_host, wrap
from graphc.core.op_errors import kernel_error
from graphc.core.tensor import Tensor, _eager
from graphc.errors import DeviceError

CPU = names.CPU


def placed(array, device: str) -> Tensor:
    """A tensor on ``device`` holding ``array`` (a device array of it, or host data)."""
    if device == CPU:
        return _eager(array)
    return wrap(array, device)


def device_of(x):
    """The device of a tensor operand; ``None`` for host values (arrays, numbers)."""
    if type(x) is DeviceTensor:
        return x._device
    if isinstance(x, Tensor) or hasattr(x, "_graphc_tensor_"):
        return CPU  # an eager CPU tensor, or a gc.Variable (its value lives on the host)
    return None


def has_device_tensor(values) -> bool:
    for v in values:
        if type(v) is DeviceTensor:
            return True
    return False


def choose(values, what) -> str:
    """The device work on ``values`` runs on; ``DeviceError`` for a mix of devices.
    ``what`` names the work in the message: an op's name, or a ``ConcreteFunction``."""
    target = scope.current()
    first = None  # (device, value, position) of the first placed operand
    for i, v in enumerate(values):
        dev = device_of(v)
        if dev is None:
            continue
        if target is not None and dev != target:
            raise DeviceError(
                f"{_label(what)}: {_operand(v, i)} is on {dev} but the enclosing gc.device scope "
                f"is {target}{source_info.where()}. graphc never moves a tensor "
                f"implicitly: copy it with gnp.copy(x) under gc.device({target!r}) first")
        if first is None:
            first = (dev, v, i)
        elif dev != first[0]:
            raise DeviceError(
                f"{_label(what)}: operands on different devices: {_operand(first[1], first[2])} "
                f"is on {first[0]}, {_operand(v, i)} is on {dev}{source_info.where()}. Copy "
                f"one with gnp.copy(x) under gc.device({first[0]!r}) (or {dev!r}) first")
    if target is not None:
        return target
    return first[0] if first is not None else CPU


def _label(what) -> str:
    return what if isinstance(what, str) else f"gc.function {what.name!r}"


def _operand(v, i: int) -> str:
    """``operand 1 (float32[2, 3])``, ``operand 0 (gc.Variable float32[])``."""
    kind = "gc.Variable " if hasattr(v, "_graphc_tensor_") else ""
    return f"operand {i} ({kind}{np.dtype(v.dtype).name}{list(v.shape)})"


def run_eager(op, args, attrs, operands):
    """Run ``op`` eagerly on the device ``choose`` picks; ``None`` when that is the CPU
    (the caller runs it as usual). ``operands(op, args)`` resolves weak scalars."""
    device = choose(args, op.name)
    if device == CPU:
        return None
    cuda = names.cuda_backend()
    at = index(device)
    arrays = [a._dev if type(a) is DeviceTensor
              else cuda.to_device(np.asarray(a), at)
              for a in operands(op, args, device=True)]
    try:
        out = cuda.run_op(op, attrs, arrays)
    except DeviceError:
        raise
    except Exception as e:  # noqa: BLE001 - re-raised with the op and user line attached
        raise kernel_error(op, e, arrays, source_info.where()) from None
    if op.multiple_results:
        return [_on(cuda, o, device) for o in out]
    return _on(cuda, out, device)


def _on(cuda, out, device):
    if not cuda.is_device_array(out):
        out = cuda.to_device(np.asarray(out), index(device))
    return placed(out, device)


def scope_for(values):
    """``gc.device(d)`` when every tensor in ``values`` (a nest) is on one accelerator
    ``d``, else a scope that does nothing: work that makes its own tensors beside them
    (a gradient walk's seeds and ones) makes them there."""
    devices = {t.device for t in nest.flatten(values)[0] if isinstance(t, Tensor)}
    if len(devices) != 1 or CPU in devices or scope.current() is not None:
        return contextlib.nullcontext()
    return scope.device(devices.pop())


def place_new(t: Tensor) -> Tensor:
    """``t`` (a new eager CPU tensor) moved to the calling thread's device scope."""
    device = scope.current()
    if device is None or device == CPU:
        return t
    return placed(to_device(t._np, device), device)


def copy(a) -> Tensor | None:
    """``gnp.copy(a)``: a copy on the scope's device (else on ``a``'s own); ``None`` when
    that is ``a``'s own device (the caller copies it with an ordinary op)."""
    source = device_of(a) or CPU
    target = scope.current() or source
    if target == source:
        return None
    if target == CPU:
        host = to_host(a._dev)
        host.flags.writeable = False
        return _eager(host)
    host = a._np if isinstance(a, Tensor) else np.asarray(a)
    return placed(to_device(host, target), target)
