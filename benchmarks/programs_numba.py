"""The ``programs`` table's ``numba.njit`` twins: each program as a Numba user writes it.

Plain ``@numba.njit`` (Numba's defaults: no ``fastmath``, no ``parallel``), NumPy calls
where Numba compiles them as they are and explicit loops where it does not (``keepdims``,
``einsum``, 3-d ``@``) or where loops are what a Numba user writes (the stencil, the
n-body forces, the scalar ODE). Gradients are written by hand, as in
``programs.numpy_program``. Each twin computes the numbers of the graphc and JAX versions
(the table checks it); sums may be ordered differently (rtol 1e-6).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from benchmarks.programs import HEAT_STEPS, NBODY_STEPS, RK4_STEPS

njit = numba.njit


@njit
def logreg(X, y, w):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return w - 0.1 * (X.T @ (p - y)) / X.shape[0]


@njit
def kmeans(pts, cent):
    k, dim = cent.shape
    sums, counts = np.zeros_like(cent), np.zeros(k)
    for i in range(pts.shape[0]):
        best, nearest = np.inf, 0
        for j in range(k):
            d = 0.0
            for c in range(dim):
                t = pts[i, c] - cent[j, c]
                d += t * t
            if d < best:  # the first of equal distances, as argmin
                best, nearest = d, j
        counts[nearest] += 1.0
        sums[nearest] += pts[i]
    for j in range(k):
        sums[j] /= max(counts[j], 1.0)
    return sums


@njit
def gru(xs, Wx, Wh, b):
    H = Wh.shape[0]
    h = np.zeros((xs.shape[1], H))
    for t in range(xs.shape[0]):
        gx, gh = xs[t] @ Wx + b, h @ Wh
        z = 1.0 / (1.0 + np.exp(-(gx[:, :H] + gh[:, :H])))
        r = 1.0 / (1.0 + np.exp(-(gx[:, H:2 * H] + gh[:, H:2 * H])))
        n = np.tanh(gx[:, 2 * H:] + r * gh[:, 2 * H:])
        h = (1.0 - z) * n + z * h
    return h


@njit
def softmax(W, b, X, Y):
    z = X @ W + b
    n = X.shape[0]
    dz, loss = np.empty_like(z), 0.0
    for i in range(n):
        zi = z[i] - z[i].max()
        e = np.exp(zi)
        s = e.sum()
        loss -= np.sum(Y[i] * (zi - np.log(s)))
        dz[i] = (e / s - Y[i]) / n  # d loss / d z: softmax minus the one-hot labels
    return W - 0.5 * (X.T @ dz), b - 0.5 * dz.sum(axis=0), loss / n


@njit
def montecarlo(u, v):
    inside = payoff = 0.0
    for i in range(u.size):
        inside += 1.0 if u[i] * u[i] + v[i] * v[i] <= 1.0 else 0.0
        g = math.sqrt(-2.0 * math.log(u[i] + 1e-12)) * math.cos(2 * math.pi * v[i])
        payoff += max(math.exp(0.2 * g) - 1.0, 0.0)
    return 4.0 * (inside / u.size), payoff / u.size


@njit
def heat(u):
    a, b = u.copy(), u.copy()  # two buffers, swapped each step (the ends never change)
    for _ in range(HEAT_STEPS):
        for i in range(1, u.size - 1):
            b[i] = a[i] + 0.25 * (a[i + 1] - 2.0 * a[i] + a[i - 1])
        a, b = b, a
    return a


@njit
def newton(a):
    x = a.copy()
    while np.max(np.abs(x * x - a)) >= 1e-9:
        x = 0.5 * (x + a / x)
    lo, hi = np.zeros_like(a), a + 1.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        big = mid * mid * mid > a
        lo, hi = np.where(big, lo, mid), np.where(big, mid, hi)
    return x, 0.5 * (lo + hi)


@njit
def nbody(pos, vel, mass, dt=0.01):
    pos, vel = pos.copy(), vel.copy()
    n = pos.shape[0]
    acc = np.empty_like(pos)
    for _ in range(NBODY_STEPS):
        for i in range(n):
            ax = ay = az = 0.0
            for j in range(n):
                dx, dy, dz = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1], pos[j, 2] - pos[i, 2]
                r2 = dx * dx + dy * dy + dz * dz + 0.01
                inv = mass[j] / (r2 * math.sqrt(r2))
                ax += dx * inv
                ay += dy * inv
                az += dz * inv
            acc[i, 0], acc[i, 1], acc[i, 2] = ax, ay, az
        vel += dt * acc
        pos += dt * vel
    return pos, vel


@njit
def dpsgd(X, y, w, clip=1.0, lr=0.05):
    t = np.tanh(X @ w)
    mean = np.zeros_like(w)
    for i in range(X.shape[0]):
        g = (2.0 * (t[i] - y[i]) * (1.0 - t[i] * t[i])) * X[i]  # d/dw (tanh(x.w) - y)^2
        g = g / max(math.sqrt(np.sum(g * g)) / clip, 1.0)
        mean += g
    return w - lr * (mean / X.shape[0])


@njit
def _lorenz(x, y, z):
    return 10.0 * (y - x), x * (28.0 - z) - y, x * y - (8.0 / 3.0) * z


@njit
def rk4(s, h=0.001):
    x, y, z = s[0], s[1], s[2]
    for _ in range(RK4_STEPS):
        a1, b1, c1 = _lorenz(x, y, z)
        a2, b2, c2 = _lorenz(x + 0.5 * h * a1, y + 0.5 * h * b1, z + 0.5 * h * c1)
        a3, b3, c3 = _lorenz(x + 0.5 * h * a2, y + 0.5 * h * b2, z + 0.5 * h * c2)
        a4, b4, c4 = _lorenz(x + h * a3, y + h * b3, z + h * c3)
        x = x + (h / 6.0) * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
        y = y + (h / 6.0) * (b1 + 2.0 * b2 + 2.0 * b3 + b4)
        z = z + (h / 6.0) * (c1 + 2.0 * c2 + 2.0 * c3 + c4)
    return np.array([x, y, z])


@njit
def attention(q, k, v):
    out = np.empty((q.shape[0], q.shape[1], v.shape[2]))
    scale = math.sqrt(q.shape[-1])
    for b in range(q.shape[0]):
        s = (q[b] @ k[b].T) / scale
        for i in range(s.shape[0]):
            e = np.exp(s[i] - s[i].max())
            s[i] = e / e.sum()
        out[b] = s @ v[b]
    return out


@njit
def lstsq(A, b, lam=1e-3):
    G = A.T @ A + lam * np.eye(A.shape[1])
    w = np.linalg.solve(G, A.T @ b)
    r = A @ w - b
    return w, np.sum(r * r)


@njit
def conv(img, w):
    n, c, hh, ww = img.shape
    out = np.zeros((n, w.shape[0], hh - 2, ww - 2))
    for b in range(n):
        for o in range(w.shape[0]):
            for ch in range(c):
                for i in range(3):
                    for j in range(3):
                        wt = w[o, ch, i, j]
                        for y in range(hh - 2):
                            for x in range(ww - 2):
                                out[b, o, y, x] += wt * img[b, ch, y + i, x + j]
    return np.maximum(out, 0.0)


@njit
def black_scholes(S, K, T, r=0.02, sigma=0.3):
    out = np.empty_like(S)
    for i in range(S.size):
        sq = sigma * math.sqrt(T[i])
        d1 = (math.log(S[i] / K[i]) + (r + 0.5 * sigma * sigma) * T[i]) / sq
        d2 = d1 - sq
        cdf1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
        cdf2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
        out[i] = S[i] * cdf1 - K[i] * math.exp(-r * T[i]) * cdf2
    return out


TWINS = {"logreg": logreg, "kmeans": kmeans, "gru": gru, "softmax": softmax,
         "montecarlo": montecarlo, "heat": heat, "newton": newton, "nbody": nbody,
         "dpsgd": dpsgd, "rk4": rk4, "attention": attention, "lstsq": lstsq,
         "conv": conv, "black_scholes": black_scholes}


def numba_program(name: str):
    """The ``numba.njit`` twin of program ``name`` (compiled on its first call)."""
    return TWINS[name]
