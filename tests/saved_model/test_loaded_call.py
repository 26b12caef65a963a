"""A loaded object holding exactly one function is callable, as TensorFlow's is when a
``tf.function`` is saved directly; ``__call__`` wins when saved; else a clear TypeError."""

import numpy as np
import pytest

import graphc as gc

X = np.array([1.0, 2.0], np.float32)


@gc.function
def double(x):
    return x * 2.0


class One:
    @gc.function
    def score(self, x):
        return x + 1.0


class Two(One):
    @gc.function
    def other(self, x):
        return x - 1.0


class Callable(Two):
    @gc.function
    def __call__(self, x):
        return x * 10.0


class Outer:
    def __init__(self):
        self.inner = One()

    @gc.function
    def first(self, x):
        return x

    @gc.function
    def second(self, x):
        return x


def _load(obj, tmp_path, *methods):
    for m in methods:
        m(X)
    gc.saved_model.save(obj, tmp_path / "s")
    return gc.saved_model.load(tmp_path / "s")


def test_a_saved_gc_function_loads_callable(tmp_path):
    m = _load(double, tmp_path, double)
    np.testing.assert_array_equal(m(X).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(m(x=X).numpy(), [2.0, 4.0])


def test_an_object_with_one_function_loads_callable(tmp_path):
    o = One()
    m = _load(o, tmp_path, o.score)
    np.testing.assert_array_equal(m(X).numpy(), [2.0, 3.0])


def test_call_is_preferred(tmp_path):
    o = Callable()
    m = _load(o, tmp_path, o.score, o.other, o)
    np.testing.assert_array_equal(m(X).numpy(), [10.0, 20.0])


def test_two_functions_and_no_call_is_a_clear_error(tmp_path):
    o = Two()
    m = _load(o, tmp_path, o.score, o.other)
    with pytest.raises(TypeError, match=r"this saved object has no __call__ and holds 2 "
                       r"functions; call one of them: \['other', 'score'\]"):
        m(X)


def test_sub_objects_count_their_own_functions(tmp_path):
    o = Outer()
    m = _load(o, tmp_path, o.first, o.second, o.inner.score)
    np.testing.assert_array_equal(m.inner(X).numpy(), [2.0, 3.0])  # one function: score
    with pytest.raises(TypeError, match="holds 2 functions"):  # inner.score is not its own
        m(X)
