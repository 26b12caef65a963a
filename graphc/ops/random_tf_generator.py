"""``gc.random.Generator``: TensorFlow's ``tf.random.Generator`` on NumPy's Philox.

A Generator's state is a NumPy ``Philox`` bit generator (4x64 counter, 2x64 key) held by
the object; ``state`` shows it as TensorFlow lays out a Philox state, ``[counter_lo,
counter_hi, key]`` (int64). Every draw advances it, eagerly and in every call of a
``gc.function`` that uses it (the function captures the Generator, as TensorFlow's
captures its state variable). A Generator created inside a ``gc.function`` is created
once per trace and then advances on each call. The numbers are graphc's, not
TensorFlow's (docs/random.md).
"""

from __future__ import annotations

import numpy as np

from graphc.core import contexts
from graphc.core.tensor import Tensor
from graphc.ops.random_draw import HeldRng, draw, make_generator, reseed
from graphc.ops.random_tf import ALGS, FLOATS, I32, I64, _alg, _as, _dtype

_SIZES = {1: 3, 2: 2, 3: 3}  # state words: Philox 3, ThreeFry 2 (auto_select: Philox)


def create_rng_state(seed, alg):
    """``tf.random.create_rng_state``: a 1-D int64 NumPy state for ``alg`` from ``seed``
    (an int, split into 64-bit words least significant first, or a 1-D int array;
    zero-padded to the state size: 3 words for Philox, 2 for ThreeFry)."""
    size = _SIZES[_alg(alg)]
    if isinstance(seed, int | np.integer):
        s, words = int(seed) % (1 << (64 * size)), []
        for _ in range(size):
            words.append(s & ((1 << 64) - 1))
            s >>= 64
        out = np.array(words, np.uint64).view(np.int64)
    else:
        out = np.asarray(seed).astype(np.int64).reshape(-1)[:size]
    return np.concatenate([out, np.zeros(size - out.size, np.int64)])


def _philox_words(gen):
    st = gen.bit_generator.state["state"]
    counter = np.asarray(st["counter"], np.uint64)
    key = np.asarray(st["key"], np.uint64)
    return np.array([counter[0], counter[1], key[0]], np.uint64).view(np.int64)


def _seed_key(seed):
    """A 64-bit Philox key from an int seed (SeedSequence-mixed, so nearby seeds give
    unrelated streams); as a state ``[0, 0, key]``."""
    key = np.random.SeedSequence(int(seed) % (1 << 64)).generate_state(1, np.uint64)
    return np.array([0, 0, key[0]], np.uint64).view(np.int64)


class Generator:
    """``tf.random.Generator``: a random state with draw methods. Make one with
    ``Generator.from_seed(seed)``, ``from_state(state, alg)``,
    ``from_non_deterministic_state()``, ``from_key_counter(key, counter, alg)``, or
    ``Generator(copy_from=g)`` / ``Generator(state=..., alg=...)``."""

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When `copy_from` is not None, neither `state` nor `alg` "
                                 "may be given")
            self._alg = copy_from._alg
            self._rng = HeldRng(make_generator("philox", copy_from.state))
        else:
            if state is None or alg is None:
                raise ValueError("Generator needs `copy_from`, or both `state` and `alg`; "
                                 "use Generator.from_seed or from_non_deterministic_state")
            self._alg = _alg(alg)
            self._rng = HeldRng(make_generator("philox", self._check_state(state)))

    def _check_state(self, state):
        s = np.asarray(state.numpy() if isinstance(state, Tensor) else state)
        if s.ndim != 1 or s.size != _SIZES[self._alg] or s.dtype.kind not in "iu":
            raise ValueError(f"state must be a 1-D integer array of {_SIZES[self._alg]} "
                             f"words for algorithm {self._alg}, got {s.dtype} "
                             f"{list(s.shape)}")
        return np.concatenate([s.astype(np.int64), np.zeros(3 - s.size, np.int64)])

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A Generator whose state is derived from the int ``seed``."""
        return cls(state=_seed_key(seed), alg=1 if alg is None else alg)

    @classmethod
    def from_state(cls, state, alg):
        """A Generator starting from ``state`` (``create_rng_state``'s layout)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A Generator seeded from the OS's entropy."""
        words = np.random.SeedSequence().generate_state(3, np.uint64).view(np.int64)
        return cls(state=words, alg=1 if alg is None else alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A Generator from a key (one word) and a counter (two words)."""
        c = np.asarray(counter, np.int64).reshape(-1)
        k = np.asarray(key, np.int64).reshape(-1)
        return cls(state=np.concatenate([c, k]), alg=alg)

    @property
    def algorithm(self):
        """The algorithm id (1: Philox, 2: ThreeFry; both run as NumPy's Philox)."""
        return self._alg

    @property
    def state(self):
        """The state words ``[counter_lo, counter_hi, key]`` (int64; eager only). Values
        already generated but not yet used (NumPy's Philox buffers one block) are not in
        it."""
        return _philox_words(self._rng.generator())

    @property
    def key(self):
        """The key word of the state (int64)."""
        return self.state[-1]

    def reset(self, state):
        """Set the state (in a ``gc.function``: on every call)."""
        if isinstance(state, Tensor) and state._np is None:
            reseed(self._rng, "philox", state)
        else:
            reseed(self._rng, "philox", self._check_state(state))

    def reset_from_seed(self, seed):
        """Reset as ``from_seed(seed)`` would make the state."""
        reseed(self._rng, "philox", _seed_key(seed))

    def reset_from_key_counter(self, key, counter):
        """Reset to ``key`` and ``counter``."""
        c = np.asarray(counter, np.int64).reshape(-1)
        self.reset(np.concatenate([c, np.asarray(key, np.int64).reshape(-1)]))

    def skip(self, delta):
        """Advance the counter by ``delta`` blocks (eager only)."""
        if contexts.active():
            raise TypeError("Generator.skip runs eagerly only")
        self._rng.generator().bit_generator.advance(int(delta))

    # -- draws
    def _d(self, method, params, shape, what, /, **kw):
        return draw(self._rng, method, params, shape, f"Generator.{what}", **kw)

    def uniform(self, shape, minval=0, maxval=None, dtype=np.float32, name=None):
        """Values in ``[minval, maxval)`` (integer dtypes need ``maxval``)."""
        d = _dtype(dtype, FLOATS + (I32, I64, np.dtype(np.uint32), np.dtype(np.uint64)),
                   "Generator.uniform")
        if d.kind in "iu":
            if maxval is None:
                if minval is not None:
                    raise ValueError("For integer dtypes, minval and maxval must be both "
                                     "None or both not None")
                return self.uniform_full_int(shape, d)
            return self._d("tf_uniform_int", (_as(minval, d), _as(maxval, d)), shape,
                           "uniform", dtype=d)
        lo, hi = _as(minval, d), _as(1 if maxval is None else maxval, d)
        return self._d("tf_uniform", (), shape, "uniform", dtype=d) * (hi - lo) + lo

    def uniform_full_int(self, shape, dtype=np.uint64, name=None):
        """Integers over the whole range of ``dtype``."""
        d = _dtype(dtype, (I32, I64, np.dtype(np.uint32), np.dtype(np.uint64)),
                   "Generator.uniform_full_int")
        return self._d("tf_full_int", (), shape, "uniform_full_int", dtype=d)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=np.float32, name=None):
        """Normal values (``standard * stddev + mean``)."""
        d = _dtype(dtype, FLOATS, "Generator.normal")
        return self._d("tf_normal", (), shape, "normal", dtype=d) * _as(stddev, d) + \
            _as(mean, d)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=np.float32, name=None):
        """Normal values redrawn until within two standard deviations."""
        d = _dtype(dtype, FLOATS, "Generator.truncated_normal")
        z = self._d("tf_truncated_normal", (), shape, "truncated_normal", dtype=d)
        return z * _as(stddev, d) + _as(mean, d)

    def binomial(self, shape, counts, probs, dtype=np.int32, name=None):
        """Binomial counts; ``counts`` and ``probs`` broadcast to ``shape``."""
        d = _dtype(dtype, FLOATS + (I32, I64), "Generator.binomial")
        f64 = np.dtype(np.float64)
        return self._d("tf_binomial", (_as(counts, f64), _as(probs, f64)), shape,
                       "binomial", out_dtype=d)

    def make_seeds(self, count=1):
        """``[2, count]`` int64 seeds for the stateless ops."""
        return self._d("tf_full_int", (), (2, int(count)), "make_seeds", dtype=I64)

    def split(self, count=1):
        """``count`` new Generators seeded from this one (eager only)."""
        if contexts.active():
            raise TypeError("Generator.split creates Generators: call it outside the "
                            "gc.function and capture them")
        seeds = self.make_seeds(count).numpy()
        return [Generator.from_seed(int(np.uint64(s[0] ^ s[1])), self._alg)
                for s in seeds.T.view(np.uint64)]


_GLOBAL: list = [None]


def get_global_generator():
    """``tf.random.get_global_generator``: the global Generator (created from
    non-deterministic state on first use)."""
    if _GLOBAL[0] is None:
        _GLOBAL[0] = Generator.from_non_deterministic_state()
    return _GLOBAL[0]


def set_global_generator(generator):
    """``tf.random.set_global_generator``: replace the global Generator."""
    if not isinstance(generator, Generator):
        raise TypeError(f"set_global_generator needs a gc.random.Generator, got "
                        f"{type(generator).__name__}")
    _GLOBAL[0] = generator


__all__ = ["ALGS", "Generator", "create_rng_state", "get_global_generator",
           "set_global_generator"]
