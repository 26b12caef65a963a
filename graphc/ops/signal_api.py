"""``gc.signal``: TensorFlow's ``tf.signal`` (all 34 names of
``../shared/api_targets/tf.signal.txt``), loaded on the first ``gc.signal`` (the face's
``_LAZY`` table). The transforms are the ``fft`` registry op with TensorFlow's rules
(``signal_fft.py``); the windows, framing, STFT, MDCT, DCT and mel helpers are
compositions of existing ops (``signal_windows.py``, ``signal_spectral.py``,
``signal_dct.py``). docs/tf_api.md has the details and the differences.
"""

from graphc.ops.signal_dct import (  # noqa: F401
    dct,
    idct,
    linear_to_mel_weight_matrix,
    mfccs_from_log_mel_spectrograms,
)
from graphc.ops.signal_fft import (  # noqa: F401
    fft,
    fft2d,
    fft3d,
    fftnd,
    fftshift,
    ifft,
    ifft2d,
    ifft3d,
    ifftnd,
    ifftshift,
    irfft,
    irfft2d,
    irfft3d,
    irfftnd,
    rfft,
    rfft2d,
    rfft3d,
    rfftnd,
)
from graphc.ops.signal_spectral import (  # noqa: F401
    frame,
    inverse_mdct,
    inverse_stft,
    inverse_stft_window_fn,
    mdct,
    overlap_and_add,
    stft,
)
from graphc.ops.signal_windows import (  # noqa: F401
    hamming_window,
    hann_window,
    kaiser_bessel_derived_window,
    kaiser_window,
    vorbis_window,
)
