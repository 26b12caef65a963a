"""``gc.random``: TensorFlow-style random ops (float32 by default); docs/random.md.

Stateful draws (``uniform``, ``normal``, ``truncated_normal``, ``categorical``, ``gamma``,
``poisson``, ``shuffle``, ``Generator``) advance a state on every call; ``stateless_*``
are deterministic functions of ``(shape, seed)`` (graphc's Philox stream, not
TensorFlow's numbers). ``learned_unigram_candidate_sampler`` is deliberately absent.
"""

from graphc.ops.random import set_seed  # noqa: F401
from graphc.ops.random_candidates import (  # noqa: F401
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from graphc.ops.random_tf import (  # noqa: F401
    categorical,
    fold_in,
    gamma,
    normal,
    poisson,
    shuffle,
    split,
    stateless_binomial,
    stateless_categorical,
    stateless_gamma,
    stateless_normal,
    stateless_parameterized_truncated_normal,
    stateless_poisson,
    stateless_truncated_normal,
    stateless_uniform,
    truncated_normal,
    uniform,
)
from graphc.ops.random_tf_generator import (  # noqa: F401
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
)
