"""``gnp.linalg.eig`` / ``eigvals``: NumPy's eigenpairs, always complex (NumPy's are real
when every eigenvalue is: a dtype a graph cannot know), eagerly and traced (the
interpreter runs them: the Numba backend does not compile complex results); a gradient
through ``eig`` is refused with a clear error (this file is the registry walk's
"tested elsewhere" for eig's rule)."""

from __future__ import annotations

import numpy as np
import pytest
from linalg_helpers import close, compiling, spd, tall

import graphc as gc
import graphc.numpy as gnp


def _complex(r):
    return np.asarray(r, np.result_type(r.dtype, np.complex64))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex128])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_eig_matches_numpy(batch, dtype):
    a = tall(batch + (3, 3), dtype) if np.dtype(dtype).kind != "i" else (
        np.array([[2, 1, 0], [0, 3, 1], [1, 0, 4]]) * np.ones(batch + (1, 1), dtype))
    w, v = np.linalg.eig(a)
    for got in (gnp.linalg.eig(a), gc.function(gnp.linalg.eig)(a)):
        close(got.eigenvalues, _complex(w))
        close(got.eigenvectors, _complex(v))
    close(gnp.linalg.eigvals(a), _complex(np.linalg.eigvals(a)))


def test_eig_of_a_rotation_is_complex():
    a = np.array([[0.0, -1.0], [1.0, 0.0]])
    close(gnp.linalg.eigvals(a), np.linalg.eigvals(a))


def test_eig_runs_on_the_interpreter(tmp_path):
    with compiling(tmp_path), pytest.warns(gc.errors.FallbackWarning, match="complex"):
        gc.function(gnp.linalg.eigvals)(spd(2))


def test_eig_gradient_is_refused():
    x = gc.constant(spd(2))
    with gc.GradientTape() as tape:
        tape.watch(x)
        w = gnp.linalg.eig(x)[0]
    with pytest.raises(NotImplementedError, match="eigh"):
        tape.gradient(w, x)
