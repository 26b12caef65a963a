"""The device API on every machine: names, lists, scopes, errors, CPU placement.

The GPU paths (tensors on cuda:0, eager ops and gc.function there) are in
test_devices_gpu.py, under Numba's CUDA simulator. Here "no GPU" is made certain by
patching the GPU count to 0, whatever the machine has.
"""

import threading

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core import device_names as names
from graphc.core import device_scope as scope
from graphc.errors import DeviceError

CPU_SPELLINGS = ["cpu:0", "CPU:0", "cpu", "/cpu:0", "/CPU:0", "/device:CPU:0",
                 "device:cpu:0", "/job:localhost/replica:0/task:0/device:CPU:0",
                 " cpu:0 "]
GPU_SPELLINGS = ["cuda:0", "CUDA:0", "cuda", "gpu:0", "GPU:0", "/GPU:0", "/gpu:0",
                 "/device:GPU:0", "/job:localhost/replica:0/task:0/device:GPU:0",
                 "/physical_device:GPU:0"]


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(names, "gpu_count", lambda: 0)


@pytest.fixture
def two_gpus(monkeypatch):
    """Only for name resolution and listing: nothing runs on these."""
    monkeypatch.setattr(names, "gpu_count", lambda: 2)


@pytest.mark.parametrize("spelling", CPU_SPELLINGS)
def test_cpu_spellings(spelling):
    assert names.parse(spelling) == "cpu:0"
    assert gc.device(spelling).name == "cpu:0"


@pytest.mark.parametrize("spelling", GPU_SPELLINGS)
def test_gpu_spellings(spelling):
    assert names.parse(spelling) == "cuda:0"


def test_indices_and_objects(two_gpus):
    assert names.parse("/job:localhost/replica:0/task:0/device:GPU:1") == "cuda:1"
    assert gc.device("GPU:1").name == "cuda:1"
    logical = gc.config.list_logical_devices("GPU")[1]
    assert gc.device(logical).name == "cuda:1"

    class TensorFlowStyle:  # TensorFlow's own LogicalDevice: anything with .name
        name = "/device:CPU:0"
        device_type = "CPU"

    assert gc.device(TensorFlowStyle()).name == "cpu:0"


@pytest.mark.parametrize("bad, where", [
    ("tpu:0", "'tpu:0'"), ("GPU:x", "'GPU:x'"), ("", "''"), ("cuda:-1", "'cuda:-1'"),
    ("/job:worker/replica:0/task:0/device:CPU:0", "'job:worker'"),
    ("/replica:1/device:CPU:0", "'replica:1'"), ("/device:GPU:0/device:CPU:0", "'CPU:0'"),
])
def test_unknown_spellings(bad, where):
    with pytest.raises(DeviceError) as e:
        gc.device(bad)
    text = str(e.value)
    assert f"gc.device({bad!r}): cannot read the device name at {where}" in text
    assert "'/GPU:0'" in text and "'/device:CPU:0'" in text and "LogicalDevice" in text
    assert "devices here: cpu:0" in text
    assert isinstance(e.value, RuntimeError)


def test_wrong_type():
    with pytest.raises(TypeError, match="gc.device: a device is named by a string"):
        gc.device(0)


def test_missing_gpu(no_gpu):
    for spelling in ("cuda:0", "/GPU:0", "/job:localhost/replica:0/task:0/device:GPU:0"):
        with pytest.raises(DeviceError) as e:
            gc.device(spelling)
        text = str(e.value)
        assert f"gc.device({spelling!r}): there is no device cuda:0" in text
        assert "Devices that exist: cpu:0" in text
        assert ("graphc found no CUDA GPU (numba-cuda not installed, or no GPU and driver "
                "visible). Install graphc[cuda] on a machine with a GPU, or set "
                "NUMBA_ENABLE_CUDASIM=1 before importing graphc") in text


def test_missing_index(two_gpus):
    with pytest.raises(DeviceError, match=r"there is no device cuda:2: this machine has 2 "
                                          r"CUDA GPUs. Devices that exist: cpu:0, cuda:0, "
                                          r"cuda:1"):
        gc.device("GPU:2")
    with pytest.raises(DeviceError, match="there is no device cpu:1: graphc has one CPU "
                                          "device, cpu:0"):
        gc.device("cpu:1")


def test_lists_without_gpu(no_gpu):
    assert gc.config.list_devices() == ["cpu:0"]
    phys = gc.config.list_physical_devices()
    assert [(d.name, d.device_type) for d in phys] == [("/physical_device:CPU:0", "CPU")]
    assert gc.config.list_physical_devices("GPU") == []
    assert gc.config.list_logical_devices("TPU") == []
    logical = gc.config.list_logical_devices()
    assert repr(logical[0]) == "LogicalDevice(name='/device:CPU:0', device_type='CPU')"


def test_lists_filtered(two_gpus):
    assert gc.config.list_devices() == ["cpu:0", "cuda:0", "cuda:1"]
    assert [d.name for d in gc.config.list_logical_devices("GPU")] == [
        "/device:GPU:0", "/device:GPU:1"]
    assert [d.name for d in gc.config.list_physical_devices("cuda")] == [
        "/physical_device:GPU:0", "/physical_device:GPU:1"]
    assert [d.device_type for d in gc.config.list_logical_devices("cpu")] == ["CPU"]
    assert len(gc.config.list_logical_devices()) == 3
    with pytest.raises(ValueError, match="unknown device_type 'GUP'"):
        gc.config.list_logical_devices("GUP")


def test_cpu_scope_places_on_cpu():
    with gc.device("/device:CPU:0") as d:
        assert scope.current() == "cpu:0" and d.name == "cpu:0"
        t = gc.constant([1.0, 2.0]) * 2
        c = gnp.copy(t)
    assert scope.current() is None
    assert t.device == c.device == c.backing_device == "cpu:0"
    np.testing.assert_array_equal(c.numpy(), [2.0, 4.0])


def test_nesting_innermost_wins():
    with gc.device("cpu:0"):
        with gc.device("CPU:0"):
            assert scope.local.stack == ["cpu:0", "cpu:0"]
        assert scope.local.stack == ["cpu:0"]
    assert scope.local.stack == [] and scope.placing == []


def test_function_under_cpu_scope():
    f = gc.function(lambda x: x * 2 + 1)
    with gc.device("cpu:0"):
        y = f(gnp.arange(3.0))
    assert y.device == "cpu:0"
    np.testing.assert_array_equal(y.numpy(), [1.0, 3.0, 5.0])


def test_threads_keep_separate_scopes():
    seen, barrier = {}, threading.Barrier(2)

    def worker(name, spelling):
        with gc.device(spelling):
            barrier.wait()  # both scopes open at once
            seen[name] = (scope.current(), gnp.ones(2).device)
            barrier.wait()
        seen[name + " after"] = scope.current()

    def plain():
        barrier.wait()
        seen["plain"] = scope.current()
        barrier.wait()

    threads = [threading.Thread(target=worker, args=("a", "/device:CPU:0")),
               threading.Thread(target=plain)]
    with gc.device("cpu:0"):
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert scope.current() == "cpu:0"
    assert seen == {"a": ("cpu:0", "cpu:0"), "a after": None, "plain": None}
