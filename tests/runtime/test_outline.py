"""Repeated node kernels as one shared function (graphc/runtime/cpu/outline.py)."""

from __future__ import annotations

import re
import types

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core.interpreter import run_graph
from graphc.runtime.cpu import codegen, outline

pytestmark = pytest.mark.usefixtures("eager_compile")


def shifted_einsums(img, w):
    out = 0.0
    for j in range(3):  # three identical kernels on three shifted views
        out = out + gnp.einsum("nchw,oc->nohw", img[:, :, :, j:3 + j], w[:, :, j])
    return gnp.maximum(out, 0.0)


def test_equal_kernels_are_one_function_called_from_each_place():
    rng = np.random.default_rng(0)
    img, w = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((4, 3, 3))
    f = gc.function(shifted_einsums)
    got = np.asarray(f(img, w))
    graph = f.get_concrete_function(img, w).optimized_graph
    source = codegen.generate(graph).source
    (name,) = {line.split("(")[0][4:] for line in source.splitlines()
               if line.startswith("def k_")}
    assert source.count(f"= {name}(") == 3
    assert f.get_concrete_function(img, w).runtime.backend == "numba"
    want = run_graph(graph, [img, w])[0]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    ref = sum(np.einsum("nchw,oc->nohw", img[:, :, :, j:3 + j], w[:, :, j]) for j in range(3))
    np.testing.assert_allclose(got, np.maximum(ref, 0.0), rtol=1e-12, atol=1e-12)


def test_a_short_kernel_used_once_stays_inline():
    f = gc.function(lambda a, b: gnp.einsum("ij,jk->ik", a, b) + 1.0)
    a, b = np.ones((2, 3)), np.ones((3, 4))
    np.testing.assert_allclose(np.asarray(f(a, b)), np.full((2, 4), 4.0))
    source = codegen.generate(f.get_concrete_function(a, b).optimized_graph).source
    assert "def k_" not in source


def _gen():
    return types.SimpleNamespace(kernels={})


BLOCK = ["    if x.shape[0] != y.shape[0]:", "        raise ValueError('no')",
         "    _t1 = x * 2.0", "    _t2 = _t1 + y", "    v3 = _t2.copy()"]


def test_a_self_contained_block_becomes_a_kernel_with_canonical_names():
    gen = _gen()
    name, work, call = outline._outline(gen, BLOCK, ["x", "y"], ["v3"])
    assert call == f"v3 = {name}(x, y)" and work == 3
    text = gen.kernels[name]
    assert text.startswith(f"def {name}(p0, p1):") and text.endswith("return t2")
    # the same kernel on other names is the same function
    renamed = [re.sub(r"\by\b", "b9", re.sub(r"\bx\b", "a9", line)) for line in BLOCK]
    assert outline._outline(gen, renamed, ["a9", "b9"], ["v3"])[0] == name


@pytest.mark.parametrize("block, why", [
    (BLOCK[:2] + ["    _t1 = x * c0", "    _t2 = _t1 + y", "    v3 = _t2.copy()"],
     "reads a program constant"),
    (BLOCK[:2] + ["    x = x * 2.0", "    _t2 = x + y", "    v3 = _t2.copy()"],
     "rebinds an input"),
    (BLOCK[:2] + ["    for i in numba.prange(3):", "        _t1 = x * 2.0", "    v3 = y"],
     "a parallel loop"),
])
def test_blocks_that_are_not_self_contained_stay_inline(block, why):
    assert outline._outline(_gen(), block, ["x", "y"], ["v3"]) is None, why


def scalar_reads(a, i, j):
    # the same checked scalar read three times: straight-line code, no loop
    return a[i, j] + a[i, j - 1] + a[i - 1, j]


def test_kernels_without_a_loop_stay_inline_even_when_repeated():
    # a call costs more than the few checks and the read it would hold (a scalar read in
    # a staged loop: NPBench's seidel-2d ran 2x slower with calls)
    a = np.arange(12.0).reshape(3, 4)
    f = gc.function(scalar_reads)
    i, j = np.array(2), np.array(3)
    assert float(f(a, i, j)) == a[2, 3] + a[2, 2] + a[1, 3]
    source = codegen.generate(f.get_concrete_function(a, i, j).optimized_graph).source
    assert "def k_" not in source and source.count("raise IndexError") >= 6
