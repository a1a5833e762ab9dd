"""Compiled access to lambda's lazily decayed store (numba), for :class:`engine.models.lazy_topics.LazyTopics`.

``blend_rows`` is the SVI blend of the minibatch's columns: the NumPy form of
the same update makes five passes over the (words, topics) block (gather,
scale, scale the statistics, add, scatter); this makes one, with the words
spread over the cores.  It is tested against the NumPy form.
``row_expectations`` is E[log beta] of one word read straight from the store,
shared by the LDA and HDP local steps.  ``move_columns`` reorders the HDP's topics in
place, touching only the topics that move.
"""

from __future__ import annotations

import numba
import numpy as np

from engine.kernels.compiled.numerics import digamma_inplace
from engine.kernels.flags import FAST_MATH

_ROWS_PER_TASK = 256  # words per parallel task of move_columns: each task allocates its buffer once


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH, nogil=True)
def blend_rows(excess, columns, keep, step, word_topic):
    """excess[v] <- keep_j excess[v] + step word_topic[j] for v = columns[j], in place.

    ``keep_j`` = (1 - rho) exp(L - stamp_v) carries the pending decay of
    column v and this step's; ``step`` = rho * scale.
    """
    n_topics = excess.shape[1]
    for j in numba.prange(columns.shape[0]):
        v = columns[j]
        factor = keep[j]
        for k in range(n_topics):
            excess[v, k] = factor * excess[v, k] + step * word_topic[j, k]


@numba.njit(cache=True, inline="always", fastmath=FAST_MATH)
def row_expectations(stored, scale, eta, psi_totals, values, scratch, bits):
    """values[k] <- E[log beta_kw] = psi(lambda_kw) - psi_totals[k] for one word w, straight from the store.

    lambda_kw = eta + stored[k] scale, with ``stored`` the word's row of the
    store (:meth:`engine.models.lazy_topics.LazyTopics.stored_rows`), ``scale`` its
    pending decay and ``eta`` in the precision the sum is to be formed in.
    ``scratch`` (3 x K) and ``bits`` (K int64) are the digamma's scratch.
    """
    for k in range(values.shape[0]):
        values[k] = eta + stored[k] * scale
    digamma_inplace(values, scratch[0], scratch[1], bits, scratch[2])
    for k in range(values.shape[0]):
        values[k] -= psi_totals[k]


@numba.njit(cache=True, parallel=True, nogil=True)
def move_columns(excess, sources, targets):
    """excess[v, targets[j]] <- excess[v, sources[j]] for every word v, in place, each row read before it is written.

    With ``sources`` a permutation of ``targets`` this equals np.take(excess, order,
    axis=1) for the order with order[targets] = sources (and order[k] = k elsewhere), but
    touches only the moving topics' entries and makes no second array: after a step of
    the HDP usually a third of the topics move, the small ones among themselves.
    """
    n_words, n_moved = excess.shape[0], sources.shape[0]
    for task in numba.prange((n_words + _ROWS_PER_TASK - 1) // _ROWS_PER_TASK):
        moving = np.empty(n_moved, dtype=excess.dtype)
        for v in range(task * _ROWS_PER_TASK, min(n_words, (task + 1) * _ROWS_PER_TASK)):
            for j in range(n_moved):
                moving[j] = excess[v, sources[j]]
            for j in range(n_moved):
                excess[v, targets[j]] = moving[j]
