"""Reference: Python ``print`` and ``gc.print`` in a function (TensorFlow's
call_to_print_function_test, which converts ``print`` to ``tf.print``).

graphc converts ``print`` of a traced tensor into ``gc.print`` (it prints each time the
graph runs, the tensor's value); ``print`` of Python values runs as Python, when the
function is traced (the first call of a fresh ``gc.function``)."""

import pytest
from ref_testing import check, params, product

import graphc as gc


def print_one(x):
    print(x)


def print_with_label(x):
    print("x is", x)


def two_gc_prints(x, y):
    gc.print("x is", x)
    gc.print("y is", y)


def print_with_a_dict(x):
    print("x is", x, {"foo": "bar"})


def print_under_if(x):
    if x == 0:
        print(x)


def gc_print_one(x):
    gc.print(x)




@pytest.mark.parametrize("fn, x, kind", params(
    product((print_one, print_with_label, print_with_a_dict), (1,), ("py",))
    + product((print_one, print_with_label, print_with_a_dict), ([1, 2, 3],), ("np",))))
def test_python_print(fn, x, kind):
    check(fn, (x,), kind)


@pytest.mark.parametrize("x, y, kinds", params([
    (1, 2, ("py", "py")), ([1, 2, 3], 4, ("np", "py")), (1, 2, ("t", "t"))]))
def test_gc_print(x, y, kinds):
    check(two_gc_prints, (x, y), kinds)


@pytest.mark.parametrize("x, kind", params(product((0, 1), ("py", "t"))))
def test_print_under_if(x, kind):
    check(print_under_if, (x,), kind)


@pytest.mark.parametrize("x, kind", params(product((0, 5), ("py", "t"))))
def test_gc_print_single(x, kind):
    check(gc_print_one, (x,), kind)
