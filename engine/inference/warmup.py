"""Load the compiled kernels ahead of the first real step.

The first call of any numba function in a process costs a fixed 0.3 to 0.7 s
on this kind of machine (LLVM's set-up plus loading each kernel's cached
machine code), whatever the size of the data.  A program that knows it will
train (the explorer at start-up, a benchmark before its clock starts) calls
:func:`warm_up_kernels` once, in a background thread if it likes, so the
user's first minibatch is not the one that pays it.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

__all__ = ["warm_up_kernels"]

_TINY_COUNTS = sp.csr_matrix(np.array([[2, 1, 0, 3, 0, 1], [0, 1, 4, 0, 2, 0], [1, 0, 0, 0, 0, 0]], dtype=np.float64))


def warm_up_kernels(dtypes=("float64",)) -> float:
    """Run one SVI step of a tiny LDA and a tiny HDP per dtype with the default kernel; returns the seconds taken.

    Every compiled kernel a training step calls (E[log beta], both local
    steps, the statistics, the lazy blend) runs once on a three-document
    corpus, which loads its machine code from numba's cache (or compiles it on
    the very first run after an install).  Without numba this does nothing
    that lasts: the models fall back to the NumPy path.  Safe to call from any
    thread and more than once; nothing global changes except numba's loaded code.
    """
    from engine.inference.svi import SVI
    from engine.models.hdp import HDP
    from engine.models.lda import LDA

    started = time.perf_counter()
    n_words = _TINY_COUNTS.shape[1]
    for dtype in dtypes:
        for model in (
            LDA(n_topics=3, n_words=n_words, dtype=dtype, local_update="zero_order"),
            LDA(n_topics=3, n_words=n_words, dtype=dtype, local_update="mean_field"),
            HDP(n_topics=4, doc_truncation=2, n_words=n_words, dtype=dtype),
        ):
            SVI(model, _TINY_COUNTS, batch_size=2, seed=0).step()
    return time.perf_counter() - started
