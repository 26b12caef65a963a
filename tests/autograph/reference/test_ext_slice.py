"""Reference: extended slices and ``newaxis`` (TensorFlow's ext_slice_test)."""

import numpy as np
import pytest
from ref_testing import check, params, product

import graphc.numpy as gnp


def slices(n):
    return n[:, :], n[0, :], n[:, 0]


def outer_difference(n):
    return n[:, gnp.newaxis] - n[gnp.newaxis, :]


def slices_of_a_call(fn, x):
    return fn(x)[:, gnp.newaxis] - fn(x)[gnp.newaxis, :]


EYE = np.eye(3)
RECT = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("fn, m, kind", params(product(
    (slices, outer_difference), (EYE, RECT), ("np", "t")),
    ))
def test_slices(fn, m, kind):
    check(fn, (m,), kind)


@pytest.mark.parametrize("m, kind", params(product((EYE, RECT), ("np", "t"))))
def test_slice_of_a_call(m, kind):
    check(slices_of_a_call, (lambda v: v, m), ("py", kind))
