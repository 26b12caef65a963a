"""Fourteen ordinary programs a new user writes, each as a graphc function and a JAX twin.

Shared by the ``programs`` table (compile latency and steady-state speed, in fresh
processes). Each program is written once where the NumPy-style code is the same for
both libraries (``xp`` is ``graphc.numpy`` or ``jax.numpy``); loops and gradients use
each library's own idiom (AutoGraph's ``for`` / ``while`` and ``gc.GradientTape`` in
graphc; ``lax.fori_loop`` / ``lax.while_loop`` and ``jax.grad`` in JAX), as a user of
each would write them. Inputs are float64 (JAX in x64 mode) and come from one seeded
generator, so both compute the same numbers; :func:`check` compares them.
"""

from __future__ import annotations

import math

import numpy as np

SEED = 0


def _rng():
    return np.random.default_rng(SEED)


# -------------------------------------------------------------------- the programs
# Each entry: name -> (inputs(), graphc_fn(gc, gnp), jax_fn(jax, jnp, lax)).

def logreg_inputs():
    r = _rng()
    return r.standard_normal((512, 32)), (r.random(512) > 0.5) * 1.0, r.standard_normal(32)


def logreg_step(xp, X, y, w, lr=0.1):
    p = 1.0 / (1.0 + xp.exp(-(X @ w)))
    return w - lr * (X.T @ (p - y)) / X.shape[0]


def kmeans_inputs():
    r = _rng()
    return r.standard_normal((1000, 8)), r.standard_normal((16, 8))


def kmeans_step(xp, pts, cent):
    d = xp.sum((pts[:, None, :] - cent[None, :, :]) ** 2, axis=-1)
    onehot = (xp.argmin(d, axis=1)[:, None] == xp.arange(cent.shape[0])[None, :]) * 1.0
    counts = xp.sum(onehot, axis=0)
    return (onehot.T @ pts) / xp.maximum(counts, 1.0)[:, None]


def gru_inputs():
    r = _rng()
    steps, batch, inputs, H = 16, 8, 32, 64
    return (r.standard_normal((steps, batch, inputs)), r.standard_normal((inputs, 3 * H)) * 0.1,
            r.standard_normal((H, 3 * H)) * 0.1, np.zeros(3 * H))


def gru_cell(xp, h, xt, Wx, Wh, b):
    H = h.shape[1]
    gx, gh = xt @ Wx + b, h @ Wh
    z = 1.0 / (1.0 + xp.exp(-(gx[:, :H] + gh[:, :H])))
    r = 1.0 / (1.0 + xp.exp(-(gx[:, H:2 * H] + gh[:, H:2 * H])))
    n = xp.tanh(gx[:, 2 * H:] + r * gh[:, 2 * H:])
    return (1.0 - z) * n + z * h


def softmax_inputs():
    r = _rng()
    X, Y = r.standard_normal((256, 64)), np.eye(10)[r.integers(0, 10, 256)]
    return r.standard_normal((64, 10)) * 0.1, np.zeros(10), X, Y


def softmax_loss(xp, W, b, X, Y):
    z = X @ W + b
    z = z - xp.max(z, axis=1, keepdims=True)
    logp = z - xp.log(xp.sum(xp.exp(z), axis=1, keepdims=True))
    return -xp.sum(Y * logp) / X.shape[0]


def montecarlo_inputs():
    r = _rng()
    return r.random(200_000), r.random(200_000)


def montecarlo(xp, u, v):
    inside = xp.mean((u * u + v * v <= 1.0) * 1.0)
    payoff = xp.mean(xp.maximum(xp.exp(0.2 * xp.sqrt(-2.0 * xp.log(u + 1e-12))
                                       * xp.cos(2 * math.pi * v)) - 1.0, 0.0))
    return 4.0 * inside, payoff


def heat_inputs():
    return (np.sin(np.linspace(0.0, math.pi, 4096)),)


def heat_step(xp, u):
    mid = u[1:-1] + 0.25 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return xp.concatenate([u[:1], mid, u[-1:]])


def newton_inputs():
    return (np.linspace(1.0, 100.0, 10_000),)


def nbody_inputs():
    r = _rng()
    return r.standard_normal((256, 3)), r.standard_normal((256, 3)) * 0.1, r.random(256) + 0.5


def nbody_step(xp, pos, vel, mass, dt=0.01):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = xp.sum(d * d, axis=-1) + 0.01
    inv = mass[None, :] / (r2 * xp.sqrt(r2))
    acc = xp.sum(d * inv[:, :, None], axis=1)
    vel = vel + dt * acc
    return pos + dt * vel, vel


def dpsgd_inputs():
    r = _rng()
    return r.standard_normal((64, 16)), r.standard_normal(64), r.standard_normal(16) * 0.1


def example_loss(xp, w, x, y):
    return (xp.tanh(x @ w) - y) ** 2


def dpsgd_finish(xp, w, g, clip=1.0, lr=0.05):
    norms = xp.sqrt(xp.sum(g * g, axis=1, keepdims=True))
    g = g / xp.maximum(norms / clip, 1.0)
    return w - lr * xp.mean(g, axis=0)


def rk4_inputs():
    return (np.array([1.0, 1.0, 1.0]),)


def lorenz(xp, s):
    x, y, z = s[0], s[1], s[2]
    return xp.stack([10.0 * (y - x), x * (28.0 - z) - y, x * y - (8.0 / 3.0) * z])


def rk4_step(xp, s, h=0.001):
    k1 = lorenz(xp, s)
    k2 = lorenz(xp, s + 0.5 * h * k1)
    k3 = lorenz(xp, s + 0.5 * h * k2)
    k4 = lorenz(xp, s + h * k3)
    return s + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def attention_inputs():
    r = _rng()
    return tuple(r.standard_normal((4, 128, 32)) for _ in range(3))


def attention(xp, q, k, v):
    s = (q @ xp.swapaxes(k, -1, -2)) / math.sqrt(q.shape[-1])
    s = xp.exp(s - xp.max(s, axis=-1, keepdims=True))
    return (s / xp.sum(s, axis=-1, keepdims=True)) @ v


def lstsq_inputs():
    r = _rng()
    return r.standard_normal((500, 20)), r.standard_normal(500)


def lstsq(xp, A, b, lam=1e-3):
    G = A.T @ A + lam * xp.eye(A.shape[1])
    w = xp.linalg.solve(G, A.T @ b)
    return w, xp.sum((A @ w - b) ** 2)


def conv_inputs():
    r = _rng()
    return r.standard_normal((4, 3, 32, 32)), r.standard_normal((8, 3, 3, 3)) * 0.2


def conv_relu(xp, img, w):
    n, c, hh, ww = img.shape
    out = 0.0
    for i in range(3):
        for j in range(3):
            patch = img[:, :, i:hh - 2 + i, j:ww - 2 + j]
            out = out + xp.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return xp.maximum(out, 0.0)


def black_scholes_inputs():
    r = _rng()
    n = 100_000
    return r.uniform(10, 50, n), r.uniform(10, 50, n), r.uniform(0.1, 2.0, n)


def black_scholes(xp, erf, S, K, T, r=0.02, sigma=0.3):
    sq = sigma * xp.sqrt(T)
    d1 = (xp.log(S / K) + (r + 0.5 * sigma * sigma) * T) / sq
    d2 = d1 - sq
    cdf1 = 0.5 * (1.0 + erf(d1 / math.sqrt(2.0)))
    cdf2 = 0.5 * (1.0 + erf(d2 / math.sqrt(2.0)))
    return S * cdf1 - K * xp.exp(-r * T) * cdf2


# The programs whose loops read the same in both libraries' NumPy code (AutoGraph stages
# graphc's ``for`` / ``while``; JAX's twins use lax loops, below).
def gru(xp, xs, Wx, Wh, b):
    h = xp.zeros((xs.shape[1], Wh.shape[0]))
    for t in range(xs.shape[0]):
        h = gru_cell(xp, h, xs[t], Wx, Wh, b)
    return h


def heat(xp, u):
    for _ in range(HEAT_STEPS):
        u = heat_step(xp, u)
    return u


def newton(xp, a):
    x, lo, hi = a, xp.zeros_like(a), a + 1.0
    while xp.max(xp.abs(x * x - a)) >= 1e-9:
        x = 0.5 * (x + a / x)
    for _ in range(40):  # bisection for the cube root, as a staged loop in graphc
        mid = 0.5 * (lo + hi)
        big = mid * mid * mid > a
        lo, hi = xp.where(big, lo, mid), xp.where(big, mid, hi)
    return x, 0.5 * (lo + hi)


def nbody(xp, pos, vel, mass):
    for _ in range(NBODY_STEPS):
        pos, vel = nbody_step(xp, pos, vel, mass)
    return pos, vel


def rk4(xp, s):
    for _ in range(RK4_STEPS):
        s = rk4_step(xp, s)
    return s


NAMES = ("logreg", "kmeans", "gru", "softmax", "montecarlo", "heat", "newton", "nbody",
         "dpsgd", "rk4", "attention", "lstsq", "conv", "black_scholes")
INPUTS = {"logreg": logreg_inputs, "kmeans": kmeans_inputs, "gru": gru_inputs,
          "softmax": softmax_inputs, "montecarlo": montecarlo_inputs, "heat": heat_inputs,
          "newton": newton_inputs, "nbody": nbody_inputs, "dpsgd": dpsgd_inputs,
          "rk4": rk4_inputs, "attention": attention_inputs, "lstsq": lstsq_inputs,
          "conv": conv_inputs, "black_scholes": black_scholes_inputs}
HEAT_STEPS, RK4_STEPS, NBODY_STEPS = 200, 500, 10
# the programs written once (``xp`` first): for both libraries, or (the loops) for graphc
# and NumPy, JAX's twins using lax loops; the others differ by idiom
GENERIC = {"logreg": logreg_step, "kmeans": kmeans_step, "montecarlo": montecarlo,
           "gru": gru, "heat": heat, "newton": newton, "nbody": nbody, "rk4": rk4,
           "attention": attention, "lstsq": lstsq, "conv": conv_relu}


def graphc_program(name: str):
    """The graphc version of program ``name`` (an undecorated Python function)."""
    import graphc as gc
    import graphc.numpy as gnp

    def softmax_step(W, b, X, Y):
        with gc.GradientTape() as tape:
            tape.watch([W, b])
            loss = softmax_loss(gnp, W, b, X, Y)
        dW, db = tape.gradient(loss, [W, b])
        return W - 0.5 * dW, b - 0.5 * db, loss

    def dpsgd(X, y, w):
        def per_example(xy):
            with gc.GradientTape() as tape:
                tape.watch(w)
                loss = example_loss(gnp, w, xy[0], xy[1])
            return tape.gradient(loss, w)
        return dpsgd_finish(gnp, w, gc.vectorized_map(per_example, (X, y)))

    def black(S, K, T):
        return black_scholes(gnp, gc.math.erf, S, K, T)

    if name in GENERIC:
        return lambda *a: GENERIC[name](gnp, *a)
    return {"softmax": softmax_step, "dpsgd": dpsgd, "black_scholes": black}[name]


def jax_program(name: str):
    """The JAX version of program ``name`` (to be wrapped in ``jax.jit``)."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.scipy.special import erf

    def softmax_step(W, b, X, Y):
        loss, (dW, db) = jax.value_and_grad(
            lambda W, b: softmax_loss(jnp, W, b, X, Y), argnums=(0, 1))(W, b)
        return W - 0.5 * dW, b - 0.5 * db, loss

    def gru(xs, Wx, Wh, b):
        h0 = jnp.zeros((xs.shape[1], Wh.shape[0]))
        return lax.scan(lambda h, xt: (gru_cell(jnp, h, xt, Wx, Wh, b), None), h0, xs)[0]

    def heat(u):
        return lax.fori_loop(0, HEAT_STEPS, lambda i, u: heat_step(jnp, u), u)

    def newton(a):
        x = lax.while_loop(lambda x: jnp.max(jnp.abs(x * x - a)) >= 1e-9,
                           lambda x: 0.5 * (x + a / x), a)

        def bisect(i, lh):
            lo, hi = lh
            mid = 0.5 * (lo + hi)
            big = mid * mid * mid > a
            return jnp.where(big, lo, mid), jnp.where(big, mid, hi)
        lo, hi = lax.fori_loop(0, 40, bisect, (jnp.zeros_like(a), a + 1.0))
        return x, 0.5 * (lo + hi)

    def nbody(pos, vel, mass):
        return lax.fori_loop(0, NBODY_STEPS, lambda i, pv: nbody_step(jnp, *pv, mass),
                             (pos, vel))

    def dpsgd(X, y, w):
        g = jax.vmap(jax.grad(lambda w, x, y: example_loss(jnp, w, x, y)),
                     in_axes=(None, 0, 0))(w, X, y)
        return dpsgd_finish(jnp, w, g)

    def rk4(s):
        return lax.fori_loop(0, RK4_STEPS, lambda i, s: rk4_step(jnp, s), s)

    def black(S, K, T):
        return black_scholes(jnp, erf, S, K, T)

    own = {"softmax": softmax_step, "gru": gru, "heat": heat, "newton": newton,
           "nbody": nbody, "dpsgd": dpsgd, "rk4": rk4, "black_scholes": black}
    if name in own:  # loops as lax loops: JAX's idiom
        return own[name]
    return lambda *a: GENERIC[name](jnp, *a)


def numpy_program(name: str):
    """Program ``name`` written for NumPy alone (Python loops, gradients by hand): the
    baseline of graphc's interpreter tier (table ``first_tier``)."""
    from scipy.special import erf

    def softmax_step(W, b, X, Y):
        z = X @ W + b
        z = z - np.max(z, axis=1, keepdims=True)
        e = np.exp(z)
        s = np.sum(e, axis=1, keepdims=True)
        loss = -np.sum(Y * (z - np.log(s))) / X.shape[0]
        dz = (e / s - Y) / X.shape[0]   # d loss / d z: softmax minus the one-hot labels
        return W - 0.5 * (X.T @ dz), b - 0.5 * np.sum(dz, axis=0), loss

    def dpsgd(X, y, w):
        t = np.tanh(X @ w)   # d/dw (tanh(x.w) - y)^2 = 2 (t - y) (1 - t^2) x, per example
        return dpsgd_finish(np, w, (2.0 * (t - y) * (1.0 - t * t))[:, None] * X)

    def black(S, K, T):
        return black_scholes(np, erf, S, K, T)

    if name in GENERIC:
        return lambda *a: GENERIC[name](np, *a)
    return {"softmax": softmax_step, "dpsgd": dpsgd, "black_scholes": black}[name]


def as_numpy(out):
    """Nested outputs as a flat list of ndarrays."""
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in as_numpy(o)]
    return [np.asarray(out)]


def check(name: str, got, want, rtol=1e-6, atol=1e-8):
    """Raise when the two libraries' results of ``name`` differ."""
    for g, w in zip(as_numpy(got), as_numpy(want), strict=True):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=name)
