"""``gc.nn``: TensorFlow's ``tf.nn`` and JAX's ``jax.nn`` names over graphc ops.

Loaded on first use (``gc.nn``). Every name is a composition of existing ops (the
definitions live in ``graphc/ops/nn_*.py``), so gradients, ``gc.vectorized_map`` and
compiled code come from the ops used; ``erf`` (for the exact ``gelu``) is an
elementwise op of its own (``graphc/ops/special_erf.py``), and ``ctc_beam_search_decoder``
runs its beam search on the host (a ``gc.numpy_function``). ``all_candidate_sampler`` and
``fixed_unigram_candidate_sampler`` are ``gc.random``'s, as in TensorFlow. Where both
libraries have a name, the signature takes both spellings and TensorFlow's defaults win
(docs/nn.md lists these, and the names that are deliberately absent).

>>> import graphc as gc
>>> gc.nn.relu(gc.constant([-1.0, 2.0])).numpy()
array([0., 2.], dtype=float32)
"""

from __future__ import annotations

from graphc.ops.nn_activations import (  # noqa: F401
    celu,
    crelu,
    elu,
    gelu,
    glu,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    identity,
    leaky_relu,
    log1mexp,
    log_sigmoid,
    mish,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_sign,
    softplus,
    softsign,
    sparse_plus,
    sparse_sigmoid,
    squareplus,
    swish,
    tanh,
)
from graphc.ops.nn_attention import dot_product_attention, scaled_matmul  # noqa: F401
from graphc.ops.nn_conv import (  # noqa: F401
    atrous_conv2d,
    atrous_conv2d_transpose,
    conv1d,
    conv1d_transpose,
    conv2d,
    conv2d_transpose,
    conv3d,
    conv3d_transpose,
    conv_transpose,
    convolution,
)
from graphc.ops.nn_ctc import (  # noqa: F401
    collapse_repeated,
    ctc_beam_search_decoder,
    ctc_greedy_decoder,
    ctc_loss,
    ctc_unique_labels,
)
from graphc.ops.nn_depthwise import (  # noqa: F401
    depthwise_conv2d,
    depthwise_conv2d_backprop_filter,
    depthwise_conv2d_backprop_input,
    separable_conv2d,
)
from graphc.ops.nn_fractional import fractional_avg_pool, fractional_max_pool  # noqa: F401,E501
from graphc.ops.nn_isotonic import isotonic_regression  # noqa: F401
from graphc.ops.nn_norm import (  # noqa: F401
    batch_norm_with_global_normalization,
    batch_normalization,
    compute_average_loss,
    l2_loss,
    l2_normalize,
    local_response_normalization,
    lrn,
    moments,
    normalize_moments,
    scale_regularization_loss,
    sufficient_statistics,
    weighted_moments,
    zero_fraction,
)
from graphc.ops.nn_pool import (  # noqa: F401
    avg_pool,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    dilation2d,
    erosion2d,
    max_pool,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    max_pool_with_argmax,
    pool,
)
from graphc.ops.nn_sampled import (  # noqa: F401
    compute_accidental_hits,
    nce_loss,
    sampled_softmax_loss,
)
from graphc.ops.nn_select import (  # noqa: F401
    approx_max_k,
    approx_min_k,
    bias_add,
    dropout,
    embedding_lookup,
    in_top_k,
    one_hot,
    top_k,
)
from graphc.ops.nn_softmax import (  # noqa: F401
    log_poisson_loss,
    log_softmax,
    logmeanexp,
    logsumexp,
    sigmoid_cross_entropy_with_logits,
    softmax,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
    standardize,
    weighted_cross_entropy_with_logits,
)
from graphc.ops.nn_space import (  # noqa: F401
    depth_to_space,
    space_to_batch,
    space_to_depth,
    with_space_to_batch,
)
from graphc.ops.random_candidates import (  # noqa: F401
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
)
