"""NumPy's scalar types, type hierarchy and dtype predicates in graphc.numpy
(graphc/ops/numpy_types.py), compared with NumPy's own."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

SCALAR_TYPES = [
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "byte", "short", "intc",
    "int_", "long", "longlong", "intp", "ubyte", "ushort", "uintc", "uint", "ulong",
    "ulonglong", "uintp", "half", "single", "double", "csingle", "cdouble"]
ABSTRACT = ["generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact",
            "floating", "complexfloating"]


@pytest.mark.parametrize("name", SCALAR_TYPES + ABSTRACT + ["dtype"])
def test_types_are_numpys(name):
    assert getattr(gnp, name) is getattr(np, name)


def test_scalar_types_make_scalars():
    for name, value in [("float32", 1.5), ("int64", 3), ("uint8", 7), ("bool_", 0),
                        ("complex64", 1 + 2j), ("double", 0.25)]:
        got, want = getattr(gnp, name)(value), getattr(np, name)(value)
        assert type(got) is type(want) and got == want
    assert gnp.bool is np.bool_


def test_scalar_types_still_work_as_dtypes():
    x = gnp.zeros(3, gnp.float32)
    assert x.dtype == gnp.float32 and x.dtype == np.float32
    assert gnp.ones(2, dtype=gnp.int8).dtype == np.int8
    assert x.astype(gnp.int32).dtype == np.int32
    assert gnp.asarray([1, 2], gnp.uint16).dtype == np.uint16
    assert gnp.sum(gnp.ones(3), dtype=gnp.float32).dtype == np.float32
    assert gnp.cumsum(gnp.ones(3), dtype=gnp.int32).dtype == np.int32
    assert gnp.arange(3, dtype=gnp.int16).dtype == np.int16
    assert gc.cast(x, gnp.float64).dtype == np.float64
    assert gc.float32 == gnp.float32 and isinstance(gc.float32, np.dtype)

    @gc.function
    def f(t):
        return gnp.sum(t, dtype=gnp.float32), gnp.mean(t, dtype=gnp.float32), \
            gnp.zeros(2, gnp.int8) + t.astype(gnp.int8)[:2]

    a, b, c = f(np.arange(4.0))
    assert (a.dtype, b.dtype, c.dtype) == (np.float32, np.float32, np.int8)
    graph = f.get_concrete_function(np.arange(4.0)).graph
    for node in graph.nodes:  # dtype attrs are np.dtype objects (saved graphs need it)
        for v in node.attrs.values():
            assert not isinstance(v, type)


def test_finfo_iinfo():
    for dt in (gnp.float16, gnp.float32, gnp.float64, gnp.complex64, gnp.complex128):
        got, want = gnp.finfo(dt), np.finfo(dt)
        for field in ("eps", "max", "min", "tiny", "smallest_normal", "resolution",
                      "bits", "dtype", "precision", "epsneg", "maxexp", "minexp"):
            assert getattr(got, field) == getattr(want, field), (dt, field)
    assert gnp.finfo(gnp.ones(2, gnp.float32)).eps == np.finfo(np.float32).eps
    assert gnp.finfo(np.ones(2, np.complex64)).dtype == np.float32
    assert gnp.finfo(gc.float64).bits == 64 and gnp.finfo(float).dtype == np.float64
    for dt in ("int8", "int16", "int32", "int64", "uint8", "uint64"):
        got, want = gnp.iinfo(getattr(gnp, dt)), np.iinfo(dt)
        assert (got.min, got.max, got.bits, got.dtype, got.kind) == (
            want.min, want.max, want.bits, want.dtype, want.kind)
    assert gnp.iinfo(gnp.asarray([1], gnp.int16)).max == 32767
    with pytest.raises(ValueError):
        gnp.finfo(gnp.int32)
    with pytest.raises(ValueError):
        gnp.iinfo(gnp.float32)

    @gc.function
    def f(x):  # facts about dtypes are known while tracing
        return x * gnp.finfo(x).eps + gnp.iinfo(gnp.int8).max

    np.testing.assert_allclose(f(np.ones(2, np.float32)).numpy(),
                               np.ones(2, np.float32) * np.finfo(np.float32).eps + 127)


def test_casting_and_promotion():
    pairs = [(gnp.int8, gnp.int16), (gnp.int64, gnp.float32), (gnp.float64, gnp.float32),
             (gnp.uint8, gnp.int8), (gnp.bool_, gnp.complex64)]
    for a, b in pairs:
        for casting in ("no", "equiv", "safe", "same_kind", "unsafe"):
            assert gnp.can_cast(a, b, casting) == np.can_cast(a, b, casting)
        assert gnp.promote_types(a, b) == np.promote_types(a, b)
    assert gnp.can_cast(gnp.ones(2, gnp.int8), gnp.int16)
    with pytest.raises(TypeError):
        gnp.can_cast(1, gnp.int8)  # NumPy 2: no value-based casting
    for v in (1.5, 300, -1, np.float32(1.5), 1e300):
        assert gnp.min_scalar_type(v) == np.min_scalar_type(v)
    assert gnp.min_scalar_type(gnp.asarray(255)) == np.uint8
    assert gnp.min_scalar_type(gnp.ones(3)) == np.float64

    @gc.function
    def f(x):
        return gnp.min_scalar_type(x)

    with pytest.raises(TypeError, match="traced"):
        f(np.asarray(3))


def test_isdtype_issubdtype():
    kinds = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
             "complex floating", "numeric", ("bool", "real floating"), gnp.float32]
    for dt in (gnp.bool_, gnp.int8, gnp.uint32, gnp.float32, gnp.complex128,
               np.dtype("float32"), gc.int64):
        for k in kinds:
            assert gnp.isdtype(dt, k) == np.isdtype(dt, k), (dt, k)
    with pytest.raises(TypeError):
        gnp.isdtype("float32", "bool")
    assert gnp.issubdtype(gnp.float32, gnp.floating)
    assert gnp.issubdtype(gnp.ones(2).dtype, gnp.inexact)
    assert not gnp.issubdtype(gnp.int8, gnp.unsignedinteger)
    assert gnp.issubdtype(gnp.uint8, gnp.integer) and gnp.issubdtype("f8", gnp.number)


def test_object_predicates_eager_and_traced():
    cases = [np.ones((2, 3)), np.array(1 + 2j), np.arange(4, dtype=np.int8)]

    def facts(lib, x):
        return (lib.iscomplexobj(x), lib.isrealobj(x), lib.ndim(x), lib.shape(x),
                lib.size(x), lib.size(x, -1) if x.ndim else None, lib.isscalar(x),
                lib.iterable(x), lib.isfortran(x))

    for a in cases:
        want = facts(np, a)
        assert facts(gnp, gnp.asarray(a)) == want
        seen = []
        gc.function(lambda x: seen.append(facts(gnp, x)) or x)(a)
        assert seen == [want]
    for v in (1, 2.5, 1j, np.float32(1), "s", [1, 2], (1,), None):
        assert gnp.isscalar(v) == np.isscalar(v)
        assert gnp.iterable(v) == np.iterable(v)
        assert gnp.iscomplexobj(v) == np.iscomplexobj(v)
    assert gnp.ndim([[1, 2]]) == 2 and gnp.shape([[1, 2]]) == (1, 2) and gnp.size([1, 2]) == 2
    assert gnp.size(np.ones((2, 3, 4)), (0, 2)) == np.size(np.ones((2, 3, 4)), (0, 2))
    with pytest.raises(np.exceptions.AxisError):
        gnp.size(gnp.ones((2, 3)), 2)
    assert gnp.euler_gamma == np.euler_gamma


def test_unknown_dims_while_tracing():
    seen = []

    @gc.function(input_signature=[gc.TensorSpec([None, 3], gc.float32)])
    def f(x):
        seen.append((gnp.shape(x), gnp.size(x), gnp.size(x, 1), gnp.ndim(x)))
        return x

    f(np.ones((2, 3), np.float32))
    assert seen == [((None, 3), None, 3, 2)]


def test_shares_memory():
    a = gnp.asarray(np.arange(6.0))
    view = np.asarray(a)
    assert gnp.shares_memory(a, view) and gnp.may_share_memory(a, view)
    assert not gnp.shares_memory(a, gnp.asarray(np.arange(6.0)))
    assert gnp.shares_memory(np.ones(2), np.ones(2)) is False

    @gc.function
    def f(x):
        return gnp.shares_memory(x, x)

    with pytest.raises(TypeError, match="traced"):
        f(np.ones(2))
