"""Topics whose SVI decay is applied lazily, so a step costs the same whatever the vocabulary size.

An SVI step changes every column of lambda:

    lambda_kv <- (1 - rho) lambda_kv + rho (eta + scale * s_kv),

but s_kv (the minibatch's expected word counts) is zero outside the minibatch's
words.  Writing lambda = eta + x, an untouched column only decays,
x_kv <- (1 - rho) x_kv.  So x is stored with a per-column stamp: the running sum
L = sum_t log(1 - rho_t) at the column's last update, and its current value is
x_stored * exp(L - stamp_v).  A step materialises and rewrites only its own
columns, and keeps the row totals sum_v lambda_kv (needed for E[log beta]) up
to date in O(K x minibatch vocabulary), so a step's cost does not grow with V.
The published online HDP and Vowpal Wabbit implement the same trick.
``dense()`` gives lambda with the pending decay applied (for evaluation,
display or saving).

The excess is stored word-major, (n_words, n_topics): a minibatch's columns
of lambda are then contiguous rows in memory, so gathering and rewriting them
reads whole cache lines instead of one entry per line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.kernels.cache import cache_first, workload_name
from engine.kernels.flags import PARALLEL_LOCK

try:  # one parallel pass instead of five NumPy passes (a reorder in place); the NumPy forms are the fallback
    from engine.kernels.compiled.lazy_topics import blend_rows as _blend_rows
    from engine.kernels.compiled.lazy_topics import move_columns as _move_columns
except ImportError:  # pragma: no cover - numba is a dependency, but the engine runs without it
    _blend_rows = _move_columns = None


class LazyTopics:
    """Storage of lambda (n_topics, n_words) for SVI with lazily applied decay.

    Parameters
    ----------
    lambda_ : ndarray of shape (n_topics, n_words)
        Initial topics (copied).
    eta : float
        The Dirichlet prior every entry decays towards.
    """

    def __init__(self, lambda_: np.ndarray, eta: float):
        self.eta = float(eta)
        lambda_ = np.asarray(lambda_)
        self._excess = np.ascontiguousarray(lambda_.T - self.eta)  # x^T: (n_words, n_topics), as of each stamp
        self._stamp = np.zeros(lambda_.shape[1])  # running log-decay when each column was last written
        self._log_decay = 0.0  # L = sum_t log(1 - rho_t)
        self._totals = self._excess.sum(axis=0)  # sum_v x_kv, current
        self._dense: np.ndarray | None = None  # lambda as last returned by dense(), until the next write
        self._pending = False  # some column was stamped before the latest decay (see split_row)

    @property
    def shape(self) -> tuple[int, int]:
        n_words, n_topics = self._excess.shape
        return n_topics, n_words

    @property
    def dtype(self) -> np.dtype:
        return self._excess.dtype

    def columns(self, columns: np.ndarray) -> np.ndarray:
        """Current lambda[:, columns], shape (n_topics, len(columns)) (a transposed view of :meth:`rows`)."""
        return self.rows(columns).T

    def stored_rows(self, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x, decay): lambda[:, columns].T = eta + x[columns] * decay[:, None], without building it.

        For compiled code that reads the rows where it uses them; ``x`` is the
        stored (words, topics) array itself and must not be written.
        """
        return self._excess, self._decay(columns)

    def take(self, columns: np.ndarray) -> TopicColumns:
        """lambda on ``columns`` as a :class:`TopicColumns`: what a worker needs for a local step on them."""
        return TopicColumns(self._excess[columns], self._decay(columns), self.row_totals(), self.eta)

    def rows(self, columns: np.ndarray) -> np.ndarray:
        """Current lambda[:, columns].T, C-contiguous of shape (len(columns), n_topics)."""
        rows = self._excess[columns]
        rows *= self._decay(columns)[:, None]
        rows += self.eta
        return rows

    def _decay(self, columns) -> np.ndarray:
        """exp(L - stamp_v): the decay still pending on each of ``columns`` since it was last written."""
        return np.exp(self._log_decay - self._stamp[columns]).astype(self.dtype, copy=False)

    def row_totals(self) -> np.ndarray:
        """Current sum_v lambda_kv, shape (n_topics, 1)."""
        return (self._totals + self.eta * self.shape[1])[:, None].astype(self.dtype, copy=False)

    def blend(self, topic_word: np.ndarray, columns: np.ndarray, scale: float, rho: float) -> None:
        """lambda <- (1 - rho) lambda + rho (eta + scale * s), s being ``topic_word`` on ``columns``."""
        word_topic = topic_word.T  # contiguous when the statistics were built word-major
        if rho >= 1.0:  # everything is replaced: nothing of the old topics survives
            self._excess[:] = 0.0
            self._excess[columns] = scale * word_topic
            self._stamp[:] = 0.0
            self._log_decay = 0.0
            self._totals = self._excess.sum(axis=0)
            self._dense = None
            self._pending = False
            return
        # x_v <- (1 - rho) x_v exp(L - stamp_v) + rho scale s_v on the minibatch's words
        keep = ((1.0 - rho) * np.exp(self._log_decay - self._stamp[columns])).astype(self.dtype, copy=False)
        if _blend_rows is not None and word_topic.dtype == self.dtype and word_topic.flags.c_contiguous:

            def blend() -> None:
                with PARALLEL_LOCK:
                    _blend_rows(self._excess, np.asarray(columns, dtype=np.int64), keep,
                                self.dtype.type(rho * scale), word_topic)

            # the blend is part of every workload's step; LDA's zero-order one is the quickest to compile
            cache_first((workload_name("LDA", "zero_order", self.dtype),), blend)
        else:
            new = self._excess[columns]
            new *= keep[:, None]
            new += (rho * scale) * word_topic
            self._excess[columns] = new
        self._log_decay += math.log1p(-rho)
        self._stamp[columns] = self._log_decay
        self._pending = self._pending or columns.size < self._stamp.size
        self._totals = (1.0 - rho) * self._totals + (rho * scale) * word_topic.sum(axis=0)
        self._dense = None

    def excess_totals(self) -> np.ndarray:
        """Current sum_v (lambda_kv - eta), shape (n_topics,): each topic's expected word count."""
        return self._totals.copy()

    def _apply_pending_decay(self) -> None:
        """Bring every column up to date (one pass over the store; nothing to do when no decay is pending)."""
        if self._pending:
            self._excess *= self._decay(slice(None))[:, None]
            self._stamp[:] = self._log_decay
            self._pending = False

    def split_row(self, donor: int, target: int, share: np.ndarray) -> None:
        """Split topic ``donor`` in two: lambda[donor] = eta + x share, lambda[target] = eta + x (1 - share).

        x is the donor's excess lambda - eta; ``share`` (n_words,) holds each word's
        fraction kept by the donor, so the pseudo-counts of the two rows add up to the
        donor's (what ``target`` held before is dropped).  The pending decay of every
        column is applied first (one pass over the store, skipped when nothing is
        pending, as after an earlier split).
        """
        self._apply_pending_decay()
        whole = self._excess[:, donor].copy()
        kept = whole * share.astype(self.dtype, copy=False)
        self._excess[:, donor] = kept
        self._excess[:, target] = whole - kept
        self._totals[donor] = self._excess[:, donor].sum()
        self._totals[target] = self._excess[:, target].sum()
        self._dense = None

    def tie_rows(self, rows: np.ndarray) -> None:
        """Give every topic of ``rows`` their mean pseudo-counts: identical rows holding the same total as before.

        The pending decay is applied first, as in :meth:`split_row`.
        """
        self._apply_pending_decay()
        rows = np.asarray(rows, dtype=np.intp)
        self._excess[:, rows] = self._excess[:, rows].mean(axis=1, keepdims=True)
        self._totals[rows] = self._excess[:, rows[0]].sum()
        self._dense = None

    def set_eta(self, eta: float) -> None:
        """Move the prior every entry decays towards; lambda = eta + x shifts by the change everywhere."""
        self.eta = float(eta)
        self._dense = None

    def permute_rows(self, order: np.ndarray, workload: str | None = None) -> None:
        """Reorder the topics (rows): topic ``order[k]`` becomes topic k.  The pending decay is per column, unaffected.

        ``workload`` (as for :func:`engine.kernels.cache.cache_first`) names the model's
        compiled kernels; given, only the topics that move are rewritten, in place, by a
        compiled kernel; otherwise the store is copied by NumPy.  Both give the same store.
        """
        order = np.asarray(order, dtype=np.int64)
        if workload is not None and _move_columns is not None:
            moved = np.flatnonzero(order != np.arange(order.size))

            def move() -> None:
                with PARALLEL_LOCK:
                    _move_columns(self._excess, order[moved], moved)

            cache_first((workload,), move)
        else:
            self._excess = np.take(self._excess, order, axis=1)  # C-contiguous in one pass: excess[:, order] is not
        self._totals = self._totals[order]
        self._dense = None

    def dense(self) -> np.ndarray:
        """lambda with every pending decay applied, shape (n_topics, n_words).

        Reading does not change the stored state, so how often a run is
        evaluated or displayed never changes its trajectory.  The array is
        cached until the next write and is read-only.
        """
        if self._dense is None:
            self._dense = np.ascontiguousarray((self._excess * self._decay(slice(None))[:, None]).T)
            self._dense += self.eta
            self._dense.flags.writeable = False
        return self._dense


@dataclass(frozen=True)
class TopicColumns:
    """Some columns of a :class:`LazyTopics`, read-only, standing in for it in the local-step kernels.

    It holds the stored rows and their pending decay exactly as the store keeps them, and
    the row totals over the whole vocabulary, so a kernel given this object and the
    columns' own positions (``arange(n_columns)``) computes bit for bit what it computes
    from the store on the original columns.  This is what a Dask worker receives
    (:mod:`engine.inference.distributed`): O(n_columns x n_topics), whatever the vocabulary.

    Attributes
    ----------
    excess : ndarray of shape (n_columns, n_topics)
        lambda - eta as stored, before the pending decay.
    decay : ndarray of shape (n_columns,)
        The pending decay of each column.
    totals : ndarray of shape (n_topics, 1)
        sum_v lambda_kv over the whole vocabulary.
    eta : float
    """

    excess: np.ndarray
    decay: np.ndarray
    totals: np.ndarray
    eta: float

    @property
    def shape(self) -> tuple[int, int]:
        n_columns, n_topics = self.excess.shape
        return n_topics, n_columns

    @property
    def dtype(self) -> np.dtype:
        return self.excess.dtype

    def stored_rows(self, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`LazyTopics.stored_rows`, ``columns`` being positions among these columns."""
        return self.excess, self.decay[columns]

    def rows(self, columns: np.ndarray) -> np.ndarray:
        """As :meth:`LazyTopics.rows` (the same operations, so the same bits)."""
        rows = self.excess[columns]
        rows *= self.decay[columns][:, None]
        rows += self.eta
        return rows

    def columns(self, columns: np.ndarray) -> np.ndarray:
        return self.rows(columns).T

    def row_totals(self) -> np.ndarray:
        return self.totals
