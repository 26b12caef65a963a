"""The ``gc``/``gnp`` names ``gc.nn``'s CTC, sampled-loss, fractional-pool and isotonic
modules (``nn_ctc``, ``nn_sampled``, ``nn_fractional``, ``nn_isotonic``) are written
with, taken from the op modules that define them: an op module may not import the
public faces (``graphc``, ``graphc.numpy``: docs/architecture.md, "Floors"), so these two
small namespaces stand for the parts of them those modules use."""

from __future__ import annotations

from types import SimpleNamespace

from graphc.core.registry import bind
from graphc.ops import (
    array_api_keywords,
    convert,
    creation,
    elementwise,
    indexing,
    join,
    linalg,
    nn_softmax,
    pad_tile,
    pyfunc,
    random_candidates,
    random_tf,
    reduce,
    shape,
    tf_api_index,
    tf_elementwise,
    ufuncs,
)


def _stop_gradient(x):
    return bind(elementwise.STOP_GRADIENT, x)


GNP = SimpleNamespace(
    any=reduce.any, argmax=reduce.argmax, argsort=array_api_keywords.argsort,
    broadcast_to=shape.broadcast_to, ceil=ufuncs.ceil, concatenate=join.concatenate,
    cumsum=reduce.cumsum, exp=ufuncs.exp, full=creation.full, log=ufuncs.log,
    matmul=linalg.matmul, max=reduce.max, maximum=ufuncs.maximum, min=reduce.min,
    minimum=ufuncs.minimum, moveaxis=shape.moveaxis, ones_like=creation.ones_like,
    pad=pad_tile.pad, reshape=array_api_keywords.reshape, stack=join.stack,
    sum=reduce.sum, take_along_axis=indexing.take_along_axis, transpose=shape.transpose,
    trunc=ufuncs.trunc, where=ufuncs.where, zeros_like=creation.zeros_like)

GC = SimpleNamespace(
    boolean_mask=tf_api_index.boolean_mask, cast=tf_elementwise.cast,
    convert_to_tensor=convert.convert_to_tensor, numpy_function=pyfunc.numpy_function,
    reduce_sum=reduce.reduce_sum, sequence_mask=tf_api_index.sequence_mask,
    shape=shape.shape, stack=join.tf_stack, stop_gradient=_stop_gradient,
    nn=SimpleNamespace(
        log_softmax=nn_softmax.log_softmax,
        sigmoid_cross_entropy_with_logits=nn_softmax.sigmoid_cross_entropy_with_logits,
        softmax_cross_entropy_with_logits=nn_softmax.softmax_cross_entropy_with_logits),
    random=SimpleNamespace(
        uniform=random_tf.uniform,
        log_uniform_candidate_sampler=random_candidates.log_uniform_candidate_sampler))
