"""``graphc.numpy`` as an Array API namespace (``graphc/ops/array_api.py``,
``graphc/ops/tensor_methods.py``): the standard's names, ``__array_namespace__``,
``__array_namespace_info__``, ``mT``/``to_device``/DLPack, and a namespace-generic
function run eagerly, traced and compiled against NumPy."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import DeviceError, SymbolicTensorError

# The main namespace of the standard (2024.12, plus 2025.12's broadcast_shapes/isin), as
# array_api_strict 2.6 lists it.
MAIN = """abs acos acosh add all any arange argmax argmin argsort asarray asin asinh astype
atan atan2 atanh bitwise_and bitwise_invert bitwise_left_shift bitwise_or
bitwise_right_shift bitwise_xor bool broadcast_arrays broadcast_shapes broadcast_to can_cast
ceil clip complex128 complex64 concat conj copysign cos cosh count_nonzero cumulative_prod
cumulative_sum diff divide e empty empty_like equal exp expand_dims expm1 eye finfo flip
float32 float64 floor floor_divide from_dlpack full full_like greater greater_equal hypot
iinfo imag inf int16 int32 int64 int8 isdtype isfinite isin isinf isnan less less_equal
linspace log log10 log1p log2 logaddexp logical_and logical_not logical_or logical_xor
matmul matrix_transpose max maximum mean meshgrid min minimum moveaxis multiply nan negative
newaxis nextafter nonzero not_equal ones ones_like permute_dims pi positive pow prod real
reciprocal remainder repeat reshape result_type roll round searchsorted sign signbit sin
sinh sort sqrt square squeeze stack std subtract sum take take_along_axis tan tanh tensordot
tile tril triu trunc uint16 uint32 uint64 uint8 unique_all unique_counts unique_inverse
unique_values unstack var vecdot where zeros zeros_like""".split()
LINALG = """cholesky cross det diagonal eig eigh eigvals eigvalsh inv matmul matrix_norm
matrix_power matrix_rank matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot
trace vecdot vector_norm""".split()
FFT = """fft fftfreq fftn fftshift hfft ifft ifftn ifftshift ihfft irfft irfftn rfft rfftfreq
rfftn""".split()
ARRAY = """__abs__ __add__ __and__ __array_namespace__ __bool__ __complex__ __dlpack__
__dlpack_device__ __eq__ __float__ __floordiv__ __ge__ __getitem__ __gt__ __index__ __int__
__invert__ __le__ __lshift__ __lt__ __matmul__ __mod__ __mul__ __ne__ __neg__ __or__ __pos__
__pow__ __rshift__ __setitem__ __sub__ __truediv__ __xor__ to_device dtype device mT ndim
shape size T""".split()


def test_every_standard_name_exists():
    assert [n for n in MAIN if not hasattr(gnp, n)] == []
    assert [n for n in LINALG if not hasattr(gnp.linalg, n)] == []
    assert [n for n in FFT if not hasattr(gnp.fft, n)] == []
    assert [n for n in ARRAY if not hasattr(gc.Tensor, n)] == []
    for name in MAIN:
        if callable(getattr(gnp, name)) and not isinstance(getattr(gnp, name), type):
            assert getattr(gnp, name).__doc__, name


def test_namespace_and_version():
    t = gnp.asarray([1.0, 2.0])
    assert gnp.__array_api_version__ == "2025.12"
    assert t.__array_namespace__() is gnp
    for version in ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12"):
        assert t.__array_namespace__(api_version=version) is gnp
    with pytest.raises(ValueError, match="2020.12"):
        t.__array_namespace__(api_version="2020.12")
    for name in ("float32", "int8", "uint64", "complex64", "bool"):  # dtypes compare equal
        assert gnp.asarray(np.zeros(1, name)).dtype == getattr(gnp, name)


def test_namespace_info_matches_numpy():
    info, ref = gnp.__array_namespace_info__(), np.__array_namespace_info__()
    assert info.capabilities() == ref.capabilities()
    assert info.default_device() == "cpu:0"
    assert info.devices()[0] == "cpu:0" and isinstance(info.devices(), tuple)
    assert info.default_dtypes() == ref.default_dtypes()
    assert info.default_dtypes(device="cpu:0") == ref.default_dtypes()
    for kind in (None, "bool", "signed integer", "unsigned integer", "integral",
                 "real floating", "complex floating", "numeric", ("bool", "integral")):
        got, want = info.dtypes(kind=kind), ref.dtypes(kind=kind)
        assert list(got) == list(want)
        assert all(np.dtype(got[k]) == np.dtype(want[k]) for k in got)
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="floating")
    with pytest.raises(DeviceError):
        info.dtypes(device="tpu:0")
    with gc.device("cpu:0"):
        assert info.default_device() == "cpu:0"
    gnp.experimental_enable_numpy_behavior(prefer_float32=True)
    try:
        assert info.default_dtypes()["real floating"] == np.float32
        assert gnp.asarray(1.0).dtype == np.float32
    finally:
        gnp.experimental_enable_numpy_behavior(prefer_float32=False)


def test_to_device_and_dlpack():
    t = gnp.asarray(np.arange(6.0).reshape(2, 3))
    assert t.device == "cpu:0"
    assert t.to_device("cpu") is t and t.to_device("cpu:0") is t
    assert t.to_device(gnp.__array_namespace_info__().default_device()) is t
    with pytest.raises(DeviceError):
        t.to_device("cuda:99")
    with pytest.raises(ValueError, match="stream"):
        t.to_device("cpu", stream=1)
    assert t.__dlpack_device__() == np.zeros(1).__dlpack_device__()
    shared = np.from_dlpack(t)  # NumPy's export: the tensor's memory
    assert np.shares_memory(shared, np.asarray(t))
    np.testing.assert_array_equal(gnp.from_dlpack(np.arange(3)).numpy(), np.arange(3))
    np.testing.assert_array_equal(gnp.from_dlpack(t, device="cpu:0").numpy(), t.numpy())
    assert gnp.from_dlpack(t) is t
    with pytest.raises(SymbolicTensorError):
        gc.function(lambda x: np.from_dlpack(x))(np.zeros(2))


def _generic(x):
    """Array-API-generic code: only the namespace the argument gives."""
    xp = x.__array_namespace__()
    y = xp.matrix_transpose(x) * 2
    z = xp.vecdot(y, y)
    w = xp.permute_dims(xp.reshape(xp.arange(6, dtype=xp.float64), (2, 3)), (1, 0))
    return (xp.cumulative_sum(z, include_initial=True), xp.sum(w * y, axis=-1),
            xp.astype(xp.argsort(z, descending=True), xp.int32), x.mT)


def _generic_numpy(x):
    y = np.matrix_transpose(x) * 2
    z = np.vecdot(y, y)
    w = np.permute_dims(np.arange(6.0).reshape(2, 3), (1, 0))
    order = np.argsort(-z, stable=True).astype(np.int32)
    return np.cumulative_sum(z, include_initial=True), np.sum(w * y, axis=-1), order, x.mT


@pytest.mark.parametrize("how", ["eager", "traced", "compiled"])
def test_generic_function(how):
    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0]])
    if how == "eager":
        got = _generic(gnp.asarray(x))
    else:
        got = gc.function(_generic, jit_compile=how == "compiled")(x)
    for g, w in zip(got, _generic_numpy(x)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-12)


def test_isdtype_matches_numpy():
    kinds = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
             "complex floating", "numeric", ("bool", "real floating"))
    for name in ("bool", "int8", "uint32", "float32", "complex128"):
        for kind in kinds:
            assert gnp.isdtype(getattr(gnp, name), kind) == np.isdtype(getattr(np, name), kind)
