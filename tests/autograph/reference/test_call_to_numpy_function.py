"""Reference: a NumPy call inside a function (TensorFlow's call_to_numpy_function_test).

graphc calls NumPy as written, at trace time: the seeded draw becomes a constant of the
graph, so the traced function returns what the plain function returns."""

import numpy as np
from ref_testing import check


def seeded_signs():
    np.random.seed(1)
    return 2 * np.random.binomial(1, 0.5, size=(10,)) - 1


def test_numpy_call():
    check(seeded_signs)
