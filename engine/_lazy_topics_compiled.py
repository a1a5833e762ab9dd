"""Compiled SVI blend of lambda's minibatch columns (numba), for :class:`engine._lazy_topics.LazyTopics`.

The NumPy form of the same update makes five passes over the (words, topics)
block (gather, scale, scale the statistics, add, scatter); this makes one,
with the words spread over the cores.  It is tested against the NumPy form.
"""

from __future__ import annotations

import numba

from engine._parallel import FAST_MATH

__all__ = ["blend_rows"]


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
