"""Tensors, eager ops, copies and gc.function calls on cuda:0 (Numba's CUDA simulator in
CI, a real GPU where there is one); every value is checked against NumPy on the host."""

import threading

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core import device_scope as scope
from graphc.core.device_tensor import DeviceTensor
from graphc.errors import DeviceError

GPU = "cuda:0"
A = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=np.float32)


def on_gpu(t, expected):
    assert isinstance(t, DeviceTensor) and t.device == t.backing_device == GPU
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_gpu_listed():
    assert GPU in gc.config.list_devices()
    logical = gc.config.list_logical_devices("GPU")[0]
    assert logical.name == "/device:GPU:0" and logical.device_type == "GPU"
    assert gc.device(logical).name == GPU


@pytest.mark.parametrize("spelling", ["cuda:0", "/GPU:0", "GPU:0", "/device:GPU:0",
                                      "/job:localhost/replica:0/task:0/device:GPU:0"])
def test_new_tensors_live_in_the_scope(spelling):
    with gc.device(spelling):
        c = gc.constant(A)
        ones = gnp.ones((2, 2), dtype=np.float32)
        r = gnp.arange(4)
    on_gpu(c, A)
    on_gpu(ones, np.ones((2, 2)))
    on_gpu(r, np.arange(4))
    assert c.shape == (2, 3) and c.dtype == np.float32 and c.ndim == 2 and c.size == 6


def test_host_views_copy():
    with gc.device(GPU):
        t = gc.constant(A)
    host = t.numpy()
    host[0, 0] = 99.0  # a copy: the tensor does not change
    np.testing.assert_array_equal(np.asarray(t), A)
    assert float(t[1, 1]) == 4.0 and t.tolist() == A.tolist()
    assert "device=cuda:0" in repr(t)


def test_eager_ops_run_on_the_device():
    with gc.device(GPU):
        x = gc.constant(A)
    on_gpu(x * 2 + 1, A * 2 + 1)  # operands decide: no scope needed
    on_gpu(gnp.exp(x), np.exp(A))
    on_gpu(x.sum(axis=0), A.sum(axis=0))
    on_gpu(gnp.matmul(x, x.T), A @ A.T)
    on_gpu(x[1], A[1])
    on_gpu(x + np.ones(3, np.float32), A + 1)  # a host array goes to the device
    parts = gnp.split(x, 3, axis=1)
    for p, e in zip(parts, np.split(A, 3, axis=1)):
        on_gpu(p, e)


def test_mixed_devices_raise():
    with gc.device(GPU):
        g = gc.constant(A)
        v = gc.Variable(1.0)
    h = gc.constant(A)
    with pytest.raises(DeviceError) as e:
        h + g
    assert str(e.value).startswith(
        "add: operands on different devices: operand 0 (float32[2, 3]) is on cpu:0, "
        "operand 1 (float32[2, 3]) is on cuda:0 (at ")
    assert "Copy one with gnp.copy(x) under gc.device('cpu:0') (or 'cuda:0')" in str(e.value)
    with pytest.raises(DeviceError, match=r"multiply: operands on different devices: "
                                          r"operand 0 \(float32\[2, 3\]\) is on cuda:0, "
                                          r"operand 1 \(gc.Variable float32\[\]\) is on cpu:0"):
        gnp.multiply(g, v)
    with gc.device(GPU):
        with pytest.raises(DeviceError) as e:
            gnp.sin(h)
    assert str(e.value).startswith("sin: operand 0 (float32[2, 3]) is on cpu:0 but the "
                                   "enclosing gc.device scope is cuda:0 (at ")
    assert "copy it with gnp.copy(x) under gc.device('cuda:0') first" in str(e.value)
    with gc.device("cpu:0"):
        with pytest.raises(DeviceError, match=r"subtract: operand 0 \(float32\[2, 3\]\) is "
                                              r"on cuda:0 but the enclosing gc.device scope "
                                              r"is cpu:0"):
            g - 1


def test_copies_between_devices():
    h = gc.constant(A)
    with gc.device(GPU):
        g = gnp.copy(h)
        g2 = g.copy()
    on_gpu(g, A)
    on_gpu(g2, A)
    assert g2._dev is not g._dev
    with gc.device("cpu:0"):
        back = gnp.copy(g)
    assert type(back) is gc.Tensor and back.device == "cpu:0"
    np.testing.assert_array_equal(back.numpy(), A)
    on_gpu(gnp.copy(g), A)  # no scope: stays where it is


@gc.function
def model(x, w):
    return gnp.tanh(x @ w) * 2.0 + 1.0


@gc.function
def two_outputs(x):
    return {"sum": gnp.sum(x, axis=1), "neg": -x}


W = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)


def test_function_under_a_gpu_scope():
    expected = np.tanh(A @ W) * 2 + 1
    cpu = model(A, W)
    assert cpu.device == "cpu:0"
    with gc.device(GPU):
        gpu = model(A, W)  # host inputs are copied in; the result stays on the GPU
        x, w = gc.constant(A), gc.constant(W)
        gpu_tensors = model(x, w)
    on_gpu(gpu, expected)
    on_gpu(gpu_tensors, expected)
    np.testing.assert_allclose(cpu.numpy(), expected, rtol=1e-6)
    on_gpu(model(x, W), expected)  # no scope: placed by its GPU argument
    concrete = model.get_concrete_function(A, W)
    assert list(concrete._device_executors) == [GPU]  # one trace, one executor per device
    assert concrete._executor is not concrete._device_executors[GPU][1]
    assert model.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("how", ["input_signature", "reduce_retracing"])
def test_function_traced_with_unknown_dims_runs_on_the_gpu(how, recwarn):
    """A trace with ``None`` dims serves every matching shape on the GPU too: each call
    shape gets its own specialized program (CUDA kernels need static shapes)."""
    def body(x):
        return gnp.tanh(x) + gnp.sum(x, axis=0)

    f = gc.function(body, input_signature=[gc.TensorSpec([None, 3], gc.float32)]) \
        if how == "input_signature" else gc.function(body, reduce_retracing=True)
    with gc.device(GPU):
        for rows in (2, 3, 1, 2):
            x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3) / 7
            on_gpu(f(gc.constant(x)), np.tanh(x) + x.sum(axis=0))
        text = f.explain(gc.constant(x))
    assert not [w for w in recwarn if issubclass(w.category, gc.errors.FallbackWarning)]
    if how == "reduce_retracing":  # the first shape's own trace, then one with None
        assert f.experimental_get_tracing_count() == 2
        return
    assert "one program per call shape" in text and "backend: cuda" in text, text
    with gc.device(GPU), pytest.raises(TypeError, match="input_signature|match"):
        f(gc.constant(np.ones((2, 4), np.float32)))


def test_function_with_structured_outputs():
    with gc.device(GPU):
        out = two_outputs(gc.constant(A))
    on_gpu(out["sum"], A.sum(axis=1))
    on_gpu(out["neg"], -A)


def test_function_device_errors():
    with gc.device(GPU):
        g = gc.constant(A)
    with gc.device("cpu:0"):
        with pytest.raises(DeviceError, match=r"gc.function 'model': operand 0 \(float32"
                                              r"\[2, 3\]\) is on cuda:0 but the enclosing "
                                              r"gc.device scope is cpu:0"):
            model(g, W)
    reference = gc.function(lambda x: x + 1, backend="numpy")
    with gc.device(GPU):
        with pytest.raises(DeviceError, match="backend='numpy'"):
            reference(A)


def test_closure_over_a_gpu_tensor_is_a_constant():
    with gc.device(GPU):
        g = gc.constant(A)

    @gc.function
    def add_g(x):
        return x + g

    np.testing.assert_allclose(add_g(A).numpy(), 2 * A)


def test_threads_keep_separate_scopes():
    results, barrier = {}, threading.Barrier(2)

    def gpu_worker():
        with gc.device(GPU):
            barrier.wait()
            results["gpu"] = (gnp.ones(2) + 1).device
            barrier.wait()

    def cpu_worker():
        barrier.wait()  # the other thread's GPU scope is open now
        results["cpu"] = (gnp.ones(2) + 1).device
        results["cpu scope"] = scope.current()
        barrier.wait()

    threads = [threading.Thread(target=gpu_worker), threading.Thread(target=cpu_worker)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"gpu": GPU, "cpu": "cpu:0", "cpu scope": None}
    assert scope.placing == []


def test_explain_shows_the_device_runtime():
    f = gc.function(lambda x: gnp.sin(x) * 2)
    with gc.device(GPU):
        text = f.explain(A)  # the scope's device is explained before any call there
    assert "=== runtime ===" in text and "=== runtime on cuda:0 ===" in text
    assert "backend: cuda" in text.split("=== runtime on cuda:0 ===")[1]


def test_jit_compile_on_the_gpu_is_strict():
    @gc.function(jit_compile=True)
    def host_callback(x):
        return gc.numpy_function(np.sort, [x], x.dtype) * 2

    with gc.device(GPU):
        with pytest.raises(gc.errors.FallbackError, match="jit_compile=True"):
            host_callback(A[0])


def test_gradient_tape_on_the_gpu():
    with gc.device(GPU):
        x = gc.constant(A[0])
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gnp.sum(gnp.sin(x) * x)
    grad = tape.gradient(y, x)  # seeds and ones made on the GPU, next to the target
    on_gpu(y, np.sum(np.sin(A[0]) * A[0]))
    on_gpu(grad, np.sin(A[0]) + np.cos(A[0]) * A[0])


def test_eager_cond_on_a_device_predicate():
    with gc.device(GPU):
        x = gc.constant(A)
    on_gpu(gc.cond(x[0, 0] > 0, lambda: x * 2, lambda: -x), A * 2)


def test_example_runs_on_the_simulated_gpu():
    import os
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[2]
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    out = subprocess.run([sys.executable, str(root / "examples" / "devices.py")],
                         capture_output=True, text=True, timeout=300, env=env, cwd=root)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Using device: LogicalDevice(name='/device:GPU:0'" in out.stdout
    assert "prediction lives on cuda:0 and scaled on cuda:0" in out.stdout
    assert "copy lives on cpu:0" in out.stdout
    assert "DeviceError: add: operands on different devices" in out.stdout


def test_scalars_keep_rank_zero():
    with gc.device(GPU):
        s = gc.constant(2.5)
        c = gnp.copy(np.float32(3))
        x = gc.constant(A)
    on_gpu(s, 2.5)
    assert s.shape == () and c.shape == () and (s * 2).shape == ()
    on_gpu(s * 2, 5.0)
    on_gpu(x[0, 0] + s, 3.5)


def test_host_callbacks_and_transforms_on_gpu_tensors():
    with gc.device(GPU):
        x = gc.constant(A)
    sorted_rows = gc.numpy_function(lambda a: np.sort(a, axis=1), [x], x.dtype)
    assert sorted_rows.device == "cpu:0"  # the callback ran on host values
    np.testing.assert_array_equal(sorted_rows.numpy(), np.sort(A, axis=1))
    on_gpu(gc.vectorized_map(lambda row: row * 2 + 1, x), A * 2 + 1)  # constants made there
    on_gpu(gc.map_fn(lambda row: gnp.sum(row), x), A.sum(axis=1))
