"""The local step's implementations, chosen in one place.

Each model has one kernel interface, and every implementation of it takes the
current topics (a :class:`engine.models.lazy_topics.LazyTopics`) and a minibatch:

- LDA: ``lda_local_step(kernel)(topics, counts, columns, alpha, doc_topic_init, tol,
  max_iter, zero_order, squarem, statistics=True, cvb0_below=0.0)`` returns a ``LocalFit``
  (gamma, the topic-word statistics on ``columns`` or None when ``statistics`` is False,
  iterations); documents of fewer than ``cvb0_below`` words take the CVB0 update.
- HDP: ``hdp_local_step(kernel)(topics, columns, mean)`` returns the topic term on
  ``columns`` (E[log beta], or log E[beta] when ``mean``) and the function that fits the
  minibatch's documents against it.
- The HDP's topic births: ``entry_mixtures(kernel)(indptr, indices, theta, by_word)``, the
  topic mixture sum_k theta_dk beta_kw at each stored entry of a sample of documents.

``kernel`` is the models' setting: "numpy" is the reference in
:mod:`engine.kernels.reference` (the paper's equations, written plainly); "compiled" is the
numba fast path in :mod:`engine.kernels.compiled`, tested against the reference; "auto"
(the default) takes the compiled one when numba imports and the reference otherwise.
:func:`effective_kernel` says which of the two a setting runs.

The compiled kernels are compiled once after an install, into numba's on-disk cache, by
a separate process, and every process runs them from there (:func:`cached_call`,
:mod:`engine.kernels.cache`); :mod:`engine.inference.warmup` loads them, or has them
compiled in the background, before a run needs them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

KERNELS = ("auto", "compiled", "numpy")  # the local-step implementations a model can be asked for


@functools.cache
def compiled_available() -> bool:
    """True if numba imports, so that "auto" means the compiled kernels."""
    try:
        import numba  # noqa: F401  (only whether it imports)
    except ImportError:
        return False
    return True


def effective_kernel(kernel: str) -> str:
    """The implementation a ``kernel`` setting runs: "compiled" or "numpy" ("auto" is compiled when numba imports)."""
    if kernel == "auto":
        return "compiled" if compiled_available() else "numpy"
    return kernel


def cached_call(kernel: str, workload: str, call: Callable):
    """``call()``, and when ``kernel`` runs the compiled kernels, on machine code from numba's cache.

    ``workload`` (``model:local_update:dtype[:local_acceleration]``, as
    :class:`engine.inference.warmup.Workload` writes it) names what a separate process
    compiles if the cache lacks it; see :mod:`engine.kernels.cache`, which says why.
    """
    if effective_kernel(kernel) != "compiled":
        return call()
    from engine.kernels.cache import cache_first

    return cache_first((workload,), call)


def choose_kernel(kernel: str, reference: Callable, load_compiled: Callable[[], Callable]) -> Callable:
    """``reference`` for "numpy", else what ``load_compiled()`` returns.

    ``load_compiled`` imports the numba kernel; when numba is missing, "auto" falls back to
    the reference and "compiled" says how to get it.
    """
    if kernel == "numpy":
        return reference
    try:
        return load_compiled()
    except ImportError:
        if kernel == "compiled":
            raise ImportError('kernel="compiled" needs numba: pip install numba, or use kernel="numpy"') from None
        return reference


def lda_local_step(kernel: str) -> Callable:
    """LDA's local step for a ``kernel`` setting (see the module docstring for its arguments)."""
    from engine.kernels.reference.lda import local_step

    def load_compiled():
        from engine.kernels.compiled.lda import local_step_compiled  # needs numba

        return local_step_compiled

    return choose_kernel(kernel, local_step, load_compiled)


def hdp_local_step(kernel: str) -> Callable:
    """The HDP's (topics, columns, mean) -> (topic term on the columns, document fit) for a ``kernel`` setting.

    The compiled pair works word-major: its topic term is the transposed view of a
    (n_columns, K) array, and so is its topic_word.
    """
    from engine.kernels.reference.hdp import local_kernel

    def load_compiled():
        from engine.kernels.compiled.hdp import local_kernel_compiled  # needs numba

        return local_kernel_compiled

    return choose_kernel(kernel, local_kernel, load_compiled)


def entry_mixtures(kernel: str) -> Callable:
    """The births' per-entry topic mixtures for a ``kernel`` setting (see the module docstring)."""
    from engine.kernels.reference.hdp import entry_mixtures as reference

    def load_compiled():
        from engine.kernels.compiled.hdp_rows import entry_mixtures as compiled  # needs numba

        return compiled

    return choose_kernel(kernel, reference, load_compiled)
