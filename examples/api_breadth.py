"""A tour of the namespaces beyond graphc.numpy's core: linear algebra, FFTs, random
Generators, neural-network ops, images and special functions, each next to the library
it follows. Run: python examples/api_breadth.py (coverage: docs/api_coverage.md)."""

import numpy as np

import graphc as gc
import graphc.numpy as gnp

rng = np.random.default_rng(0)
a = rng.normal(size=(4, 4))
spd = a @ a.T + 4 * np.eye(4)
b = rng.normal(size=4)

# numpy.linalg and numpy.fft, eagerly and inside a gc.function
print("solve:", np.allclose(gnp.linalg.solve(spd, b), np.linalg.solve(spd, b)))
print("cholesky:", np.allclose(gnp.linalg.cholesky(spd), np.linalg.cholesky(spd)))


@gc.function
def spectrum_energy(x):
    return gnp.sum(gnp.abs(gnp.fft.rfft(x)) ** 2)


x = rng.normal(size=16)
print("rfft energy:", np.isclose(spectrum_energy(x), np.sum(np.abs(np.fft.rfft(x)) ** 2)))

# NumPy's Generators draw NumPy's numbers for the same seed
print("default_rng:", np.array_equal(gnp.random.default_rng(7).normal(size=3),
                                     np.random.default_rng(7).normal(size=3)))

# tf.nn: a convolution, a pool and a softmax, differentiated with a tape
images = gc.constant(rng.normal(size=(1, 6, 6, 2)))
filters = gc.constant(rng.normal(size=(3, 3, 2, 4)))
with gc.GradientTape() as tape:
    tape.watch(filters)
    y = gc.nn.max_pool2d(gc.nn.relu(gc.nn.conv2d(images, filters, 1, "SAME")), 2, 2, "VALID")
    loss = gc.reduce_sum(gc.nn.softmax(gc.reshape(y, [1, -1])))
print("conv2d -> max_pool2d:", y.shape, "gradient:", tape.gradient(loss, filters).shape)

# tf.image and special functions
img = gc.constant(rng.uniform(size=(8, 8, 3)).astype(np.float32))
print("resize:", gc.image.resize(img, [4, 4]).shape,
      "grayscale:", gc.image.rgb_to_grayscale(img).shape)
from graphc.scipy import special  # noqa: E402  (loaded on first use)

print("erf, digamma:", np.round(special.erf(gnp.asarray([0.5])).numpy(), 6),
      np.round(special.digamma(gnp.asarray([2.0])).numpy(), 6))
