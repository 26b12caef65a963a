"""scikit-learn estimators on graphc tensors, through the Array API standard.

With ``sklearn.set_config(array_api_dispatch=True)`` (and ``SCIPY_ARRAY_API=1`` in the
environment, as scikit-learn asks), estimators that support the Array API compute with
the namespace of their inputs: here ``graphc.numpy``, found through
``Tensor.__array_namespace__``. Fitted results and predictions are graphc tensors and
agree with the same estimators on NumPy arrays.

    SCIPY_ARRAY_API=1 python examples/sklearn_array_api.py

scikit-learn is not a dependency of graphc: without it this prints how to install it.
"""

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # scikit-learn's requirement, before SciPy

import numpy as np  # noqa: E402

import graphc.numpy as gnp  # noqa: E402

try:
    import sklearn
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
except ImportError:
    print("scikit-learn is not installed: pip install scikit-learn, then run this again")
    raise SystemExit(0) from None

rng = np.random.default_rng(0)
X = rng.normal(size=(60, 4))
y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(np.int64)

with sklearn.config_context(array_api_dispatch=True):
    lda = LinearDiscriminantAnalysis().fit(gnp.asarray(X), gnp.asarray(y))
    predicted = lda.predict(gnp.asarray(X))
    pca = PCA(n_components=2, svd_solver="full").fit(gnp.asarray(X))
    projected = pca.transform(gnp.asarray(X))

print("LDA predictions:", type(predicted).__name__, "equal to NumPy's:",
      np.array_equal(np.asarray(predicted), LinearDiscriminantAnalysis().fit(X, y).predict(X)))
print("PCA projection:", type(projected).__name__, "equal to NumPy's up to sign:",
      np.allclose(np.abs(np.asarray(projected)),
                  np.abs(PCA(n_components=2, svd_solver="full").fit(X).transform(X))))
