"""Reference: conditional expressions `a if c else b` (TensorFlow's basic_ifexp_test)."""

import pytest
from ref_testing import check, params, product

import graphc as gc


def two_ifexp_statements(x):
    if x > 0:
        x = -x if x < 5 else x
    else:
        x = -2 * x if x < 5 else 1
    if x > 0:
        x = -x if x < 5 else x
    else:
        x = (3 * x) if x < 5 else x
    return x


def ifexps_defining_three_values(x):
    if x > 0:
        x = -x if x < 5 else x
        y = 2 * x if x < 5 else x
        z = -y if y < 5 else y
    else:
        x = 2 * x if x < 5 else x
        y = -x if x < 5 else x
        z = -y if y < 5 else y
    return x, y, z


@pytest.mark.parametrize("fn, x, kind", params(product(
    (two_ifexp_statements, ifexps_defining_three_values), (-1, 1, 5, 0, 7), ("py", "t"))))
def test_ifexp_in_branches(fn, x, kind):
    check(fn, (x,), kind)


def ifexp_list_or_empty(x):
    items = [x[0], x[0]] if gc.size(x) > 0 else []
    return x * 2 + 1, len(items)


def test_ifexp_with_different_structures_is_refused():
    # TF: ValueError, both branches must return the same nested structure
    f = gc.function(ifexp_list_or_empty, input_signature=[gc.TensorSpec([None], gc.float64)])
    with pytest.raises(gc.errors.AutographError, match="structure|branch"):
        f(gc.constant([1.0], dtype=gc.float64))
