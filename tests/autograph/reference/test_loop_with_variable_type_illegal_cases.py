"""Reference: loop variables that change Python type, dtype, shape or structure
(TensorFlow's loop_with_variable_type_illegal_cases_test).

TF's loops there never end (``while tf.constant(True)``): it refuses them while tracing.
Here every loop ends (at most three iterations) so that a graphc that does not refuse a
case cannot hang. Cases:

* dtype and structure changes: TF and graphc refuse them (``expect_error``);
* shape changes: TF refuses them without a shape invariant; graphc documents that dims
  which change become ``None``, so these are checked against Python;
* a Python condition that becomes a tensor: TF refuses it; graphc documents that the
  loop becomes a ``while_loop`` from that iteration on, so it is checked against Python.

TF's shape-invariant cases (``set_loop_options``) and dataset variants are not ported:
graphc has neither."""

import pytest
from ref_testing import check, expect_error, params

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import AutographError


def python_test_becomes_tensor():
    n = gc.constant(0, dtype=gc.int32)
    c = True
    while c:
        n += 1
        c = n < 3
    return n


def while_changes_dtype():
    n = gc.constant(0, dtype=gc.int32)
    k = gc.constant(0)
    while k < 3:
        k += 1
        n = gc.constant(0, dtype=gc.float32)
    return n


def while_changes_dtype_then_breaks():
    n = gc.constant(0, dtype=gc.int32)
    k = gc.constant(0)
    while k < 3:
        n = gc.constant(0, dtype=gc.float32)
        break
    return n


def for_changes_dtype(items):
    n = gc.constant(0, dtype=gc.int32)
    for _ in items:
        n = gc.constant(0, dtype=gc.float32)
    return n


def for_changes_dtype_then_breaks(items):
    n = gc.constant(0, dtype=gc.int32)
    for _ in items:
        n = gc.constant(0, dtype=gc.float32)
        break
    return n


def while_changes_shape():
    t = gc.constant([1])
    k = gc.constant(0)
    while k < 3:
        k += 1
        t = gc.constant([1, 1])
    return t


def for_changes_shape(items):
    t = gc.constant([1])
    for _ in items:
        t = gc.constant([1, 1])
    return t


def while_length_from_counter():
    t = gc.constant([1])
    k = gc.constant(0)
    while k < 3:
        k += 1
        t = gc.range(k + 1)
    return t


def for_length_from_element(items):
    t = gnp.asarray([1])
    for i in items:
        t = gnp.arange(i + 2)
    return t


def while_changes_structure():
    s = {"a": gc.constant(0)}
    k = gc.constant(0)
    while k < 3:
        k += 1
        s = gc.constant(7.0)
    return s


def for_grows_python_list(items):
    s = [gc.constant(0)]
    for _ in items:
        s = s + [gc.constant(0)]
    return s


ITEMS = ([1, 2, 3], [4])
ITERABLE_KINDS = ("t", "gcrange")


def _iterable(items, kind):
    return (len(items),) if kind == "gcrange" else (items,)


def test_python_test_becomes_tensor():
    # TF: NotImplementedError "condition of while loop started as non-Tensor, then
    # changed to Tensor"
    check(python_test_becomes_tensor)


@pytest.mark.parametrize("fn", [while_changes_dtype, while_changes_dtype_then_breaks])
def test_while_changes_dtype_is_refused(fn):
    # TF: TypeError "'n' has dtype int32 before the loop, but dtype float32 after"
    expect_error(fn, (), (), AutographError, match="'n'.*int32.*float32")


@pytest.mark.parametrize("fn, items, kind", params(
    [(f, i, k) for f in (for_changes_dtype, for_changes_dtype_then_breaks)
     for i in ITEMS for k in ITERABLE_KINDS]))
def test_for_changes_dtype_is_refused(fn, items, kind):
    expect_error(fn, _iterable(items, kind), kind, AutographError,
                 match="'n'.*int32.*float32")


def test_while_changes_shape():
    # TF: ValueError "'t' has shape (1,) before the loop, but shape (2,) after"
    check(while_changes_shape)


@pytest.mark.parametrize("items, kind", params(
    [(i, k) for i in ITEMS + ([],) for k in ITERABLE_KINDS]))
def test_for_changes_shape(items, kind):
    check(for_changes_shape, _iterable(items, kind), kind)


def test_while_length_from_counter():
    # TF: ValueError "'t' has shape (1,) before the loop, but shape (None,) after"
    check(while_length_from_counter)


@pytest.mark.parametrize("items, kind", params(
    [(i, k) for i in ITEMS + ([],) for k in ITERABLE_KINDS]))
def test_for_length_from_element(items, kind):
    check(for_length_from_element, _iterable(items, kind), kind)


def test_while_changes_structure_is_refused():
    # TF: TypeError "'s' does not have the same nested structure"
    expect_error(while_changes_structure, (), (), AutographError, match="'s'")


@pytest.mark.parametrize("items, kind", params(
    [(i, k) for i in ITEMS for k in ITERABLE_KINDS]))
def test_for_grows_python_list_is_refused(items, kind):
    expect_error(for_grows_python_list, _iterable(items, kind), kind, match="'s'")
