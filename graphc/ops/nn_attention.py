"""``jax.nn.dot_product_attention`` and ``jax.nn.scaled_matmul`` as compositions of
``einsum``, masks and softmax (no op of their own)."""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.registry import bind
from graphc.ops import elementwise as _ew
from graphc.ops.convert import convert_to_tensor
from graphc.ops.linalg import einsum
from graphc.ops.nn_softmax import softmax
from graphc.ops.shape import repeat, reshape
from graphc.ops.ufuncs import where

_F32 = np.dtype(np.float32)


def _cast(x, dtype):
    return x if x.dtype == np.dtype(dtype) else bind(_ew.CAST, x, dtype=np.dtype(dtype))


def _mask_fn(t, s, is_causal, q_lengths, kv_lengths, window):
    """A ``(b or 1, 1, t, s)`` boolean mask, or None."""
    rows = np.arange(t)[:, None]
    cols = np.arange(s)[None, :]
    static = np.ones((t, s), bool)
    if is_causal:
        static &= cols <= rows
    if window is not None:
        left, right = window if isinstance(window, tuple | list) else (window, window)
        static &= (cols - rows >= -int(left)) & (cols - rows <= int(right))
    mask = None if static.all() else static[None, None]
    for lengths, positions in ((q_lengths, rows), (kv_lengths, cols)):
        if lengths is None:
            continue
        n = convert_to_tensor(lengths)
        m = positions[None, None] < reshape(n, (-1, 1, 1, 1))
        mask = m if mask is None else mask & m
    return mask


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual=False):
    """``jax.nn.dot_product_attention``: ``softmax(q k^T * scale + bias, masked) v`` over
    ``[batch, seq, heads, head_dim]`` (or unbatched ``[seq, heads, head_dim]``) inputs;
    ``key``/``value`` may have fewer heads dividing the query's (grouped-query
    attention). Masked-out logits become ``-0.7 * finfo.max``; the softmax runs in
    float32, as JAX's XLA implementation does."""
    if implementation not in (None, "xla"):
        raise ValueError(f"dot_product_attention: implementation {implementation!r} is not "
                         f"available (graphc computes it as JAX's 'xla' one)")
    if return_residual:
        raise NotImplementedError("dot_product_attention: return_residual is not supported")
    q, k, v = (convert_to_tensor(a) for a in (query, key, value))
    unbatched = len(q.shape) == 3
    if unbatched:
        q, k, v = q[None], k[None], v[None]
    if len(q.shape) != 4 or len(k.shape) != 4 or len(v.shape) != 4:
        raise ValueError(f"dot_product_attention: inputs must be 3-D or 4-D, got {q.shape}"
                         f"{source_info.where()}")
    b, t, n, h = q.shape
    s, nk = k.shape[1], k.shape[2]
    if n % nk or tuple(v.shape[1:3]) != (s, nk):
        raise ValueError(f"dot_product_attention: key/value shapes {k.shape}, {v.shape} do "
                         f"not fit query {q.shape}")
    g = n // nk
    scale = 1.0 / float(np.sqrt(h)) if scale is None else scale
    qg = reshape(q, (-1, t, nk, g, h))
    logits = einsum("btkgh,bskh->bkgts", qg, k)
    logits = reshape(logits, (-1, n, t, s)) * np.asarray(scale, logits.dtype)
    if bias is not None:
        bias = convert_to_tensor(bias)
        logits = logits + (bias[None] if unbatched and len(bias.shape) == 3 else bias)
    full = _mask_fn(t, s, is_causal, query_seq_lengths, key_value_seq_lengths,
                    local_window_size)
    if mask is not None:
        mask = convert_to_tensor(mask)
        mask = mask[None] if unbatched and len(mask.shape) == 3 else mask
        full = mask if full is None else mask & full
    if full is not None:
        big = np.asarray(-0.7 * float(np.finfo(logits.dtype).max), logits.dtype)
        logits = where(full, logits, big)
    probs = _cast(softmax(_cast(logits, _F32), axis=-1), k.dtype)
    pg = reshape(probs, (-1, nk, g, t, s))
    out = reshape(einsum("bkgts,bskh->btkgh", pg, v), (-1, t, n, v.shape[3]))
    return out[0] if unbatched else out


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """``jax.nn.scaled_matmul``: ``out[b, m, n] = sum_k (lhs[b, m, k] * lhs_scales[b, m,
    k // block]) * (rhs[b, n, k] * rhs_scales[b, n, k // block])`` with ``block = K /
    K_scales``, in ``preferred_element_type``."""
    a, c = convert_to_tensor(lhs), convert_to_tensor(rhs)
    sa, sc = convert_to_tensor(lhs_scales), convert_to_tensor(rhs_scales)
    if len(a.shape) != 3 or len(c.shape) != 3 or a.shape[2] != c.shape[2]:
        raise ValueError(f"scaled_matmul: lhs [B, M, K] and rhs [B, N, K] expected, got "
                         f"{a.shape} and {c.shape}")
    kdim = a.shape[2]
    out = np.dtype(preferred_element_type)
    parts = []
    for x, sx in ((a, sa), (c, sc)):
        if kdim % sx.shape[2]:
            raise ValueError(f"scaled_matmul: K ({kdim}) must be a multiple of the scales' "
                             f"last dimension ({sx.shape[2]})")
        parts.append(_cast(x, out) * _cast(repeat(sx, kdim // sx.shape[2], axis=2), out))
    return einsum("bmk,bnk->bmn", *parts)
