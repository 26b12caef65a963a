"""The in-memory form: serialize/deserialize (a JSON text plus arrays, no directory)."""

import json

import numpy as np
import pytest

import graphc as gc
from graphc.errors import SavedModelError


@pytest.fixture(scope="module")
def traced(branchy):
    return branchy, branchy.get_concrete_function()


X = np.array([[1.0, -2.0, 3.0], [0.5, 0.5, 0.5]], np.float32)


def test_concrete_round_trip_in_memory(traced):
    f, cf = traced
    text, arrays = gc.saved_model.serialize_concrete(cf)
    assert isinstance(text, str) and json.loads(text)["format"] == "graphc.saved_model"
    assert {k[0] for k in arrays} == {"c", "v"} and "v0" in arrays  # constants, values
    assert all(type(a) is np.ndarray for a in arrays.values())
    back = gc.saved_model.deserialize_concrete(text, arrays)
    assert isinstance(back, type(cf))
    np.testing.assert_array_equal(back(X).numpy(), f(X).numpy())
    np.testing.assert_array_equal(back(X[:1]).numpy(), f(X[:1]).numpy())  # None dim


def test_object_round_trip_in_memory(traced):
    f, _ = traced
    text, arrays = gc.saved_model.serialize(f)
    m = gc.saved_model.deserialize(text.encode(), arrays)
    np.testing.assert_array_equal(m.f(X).numpy(), f(X).numpy())
    assert [v.name for v in m.variables] == ["v"]


@pytest.mark.parametrize("arrays, match", [
    ([], "a dict name -> numpy array expected"),
    ({"../c0": np.ones(3)}, "bad name"),
    ({"x0": np.ones(3)}, "bad name"),
    ({"c0": np.array([None, 1], object)}, "not a plain numeric array"),
    ({"c0": [1.0, 2.0]}, "not a plain numeric array"),
    ({"c0": np.array(["a"])}, "not a plain numeric array"),
])
def test_bad_arrays_raise_saved_model_error(traced, arrays, match):
    text, _ = gc.saved_model.serialize_concrete(traced[1])
    with pytest.raises(SavedModelError, match=match):
        gc.saved_model.deserialize(text, arrays)


def test_bad_text_and_missing_arrays(traced):
    text, arrays = gc.saved_model.serialize_concrete(traced[1])
    with pytest.raises(SavedModelError, match="serialized graph: not valid JSON"):
        gc.saved_model.deserialize(text[:-5], arrays)
    with pytest.raises(SavedModelError, match=r"serialized graph: .*constant 'c\d+' is not in"):
        gc.saved_model.deserialize(text, {"v0": arrays["v0"]})
    with pytest.raises(SavedModelError, match="str or bytes"):
        gc.saved_model.deserialize(42, arrays)
    with pytest.raises(TypeError, match="ConcreteFunction expected"):
        gc.saved_model.serialize_concrete(traced[0])


def test_two_signatures_refuse_deserialize_concrete():
    @gc.function
    def g(x):
        return x + 1

    g(np.ones(2, np.float32))
    g(np.ones(2, np.int64))
    text, arrays = gc.saved_model.serialize(g)
    with pytest.raises(SavedModelError, match="holds 2 signatures"):
        gc.saved_model.deserialize_concrete(text, arrays)
    m = gc.saved_model.deserialize(text, arrays)
    np.testing.assert_array_equal(m.g(np.ones(2, np.int64)).numpy(), [2, 2])
