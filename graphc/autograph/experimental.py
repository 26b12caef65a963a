"""``gc.autograph.experimental``: TensorFlow's spelling of ``do_not_convert``
(``tf.autograph.experimental.do_not_convert``); the same function as
``gc.autograph.do_not_convert``."""

from graphc.autograph.api import do_not_convert

__all__ = ["do_not_convert"]
