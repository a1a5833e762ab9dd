"""The minibatch's E[log beta] rows for the compiled HDP step: one parallel pass per word (numba).

Word-major (one row of K topics per minibatch word) like the rest of the
compiled step: E[log beta_kw] (or log E[beta_kw], for the zero-order
update) from lambda's rows, exp(E[log beta] - row max)
for the "lda" start, and the per-word bounds the head/tail split of
:mod:`engine.kernels.compiled.hdp` uses.  Also, for the topic births, the topic
mixture at each stored entry of a sample of documents (:func:`entry_mixtures`).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from engine.kernels.compiled.lazy_topics import row_expectations
from engine.kernels.compiled.numerics import SMALLEST_NORMAL, exp_inplace, log_inplace, psi_values
from engine.kernels.flags import FAST_MATH_FINITE, PARALLEL_LOCK
from engine.models.lazy_topics import LazyTopics

_BLOCK = 64  # words per parallel task: each task allocates its scratch once
# exp(E[log beta] - row max) below exp(this) is set to 0 (float64's and float32's exp underflow there)
EXP_FLOOR = {np.dtype(np.float64): -700.0, np.dtype(np.float32): -87.0}


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH_FINITE, error_model="numpy", nogil=True)
def _row_expectations(excess, columns, decay, eta, psi_totals, out):
    """out[j, k] = psi(lambda_kw) - psi_totals[k] for w = columns[j], blocks of words spread over the cores.

    lambda_kw = eta + excess[w, k] decay[j] is read straight from the lazily
    decayed store (:meth:`engine.models.lazy_topics.LazyTopics.stored_rows`), in the
    store's precision as :meth:`~engine.models.lazy_topics.LazyTopics.rows` forms it.
    """
    W, K = columns.shape[0], excess.shape[1]
    for block in numba.prange((W + _BLOCK - 1) // _BLOCK):
        values = np.empty(K)
        scratch = np.empty((3, K))
        exponent = np.empty(K, dtype=np.int64)
        for w in range(block * _BLOCK, min(W, (block + 1) * _BLOCK)):
            row_expectations(excess[columns[w]], decay[w], eta, psi_totals, values, scratch, exponent)
            row = out[w]
            for k in range(K):
                row[k] = values[k]


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH_FINITE, error_model="numpy", nogil=True)
def _row_log_means(excess, columns, decay, eta, log_totals, inverse_totals, smallest, out, ratios):
    """out[j, k] = log(lambda_kw) - log_totals[k] for w = columns[j], lambda_kw read from the store as above.

    Unless ``ratios`` has no rows, also ratios[j, k] = E[beta_kw] / max_k E[beta_kw] in the
    same pass: exp(log E[beta_kw] - max_k log E[beta_kw]), the "lda" start's term, formed
    from the means themselves rather than by exp of the rounded logs; a ratio below
    ``smallest`` is set to 0, as :func:`exp_shifted_rows` zeroes its entries below exp(lowest).
    The logs are :func:`~engine.kernels.compiled.numerics.log_inplace`'s, vectorised
    (``math.log`` for a row holding a value below the smallest normal float64).
    """
    W, K = columns.shape[0], excess.shape[1]
    with_ratios = ratios.shape[0] > 0
    for block in numba.prange((W + _BLOCK - 1) // _BLOCK):
        values = np.empty(K)
        exponent = np.empty(K, dtype=np.int64)
        for w in range(block * _BLOCK, min(W, (block + 1) * _BLOCK)):
            stored = excess[columns[w]]
            scale = decay[w]
            lowest = np.inf
            for k in range(K):
                values[k] = eta + stored[k] * scale
                lowest = min(lowest, values[k])
            if with_ratios:
                top = 0.0
                for k in range(K):
                    top = max(top, values[k] * inverse_totals[k])
                ratio_row = ratios[w]
                for k in range(K):
                    ratio = values[k] * inverse_totals[k] / top
                    ratio_row[k] = ratio if ratio >= smallest else 0.0
            if lowest >= SMALLEST_NORMAL:
                log_inplace(values, exponent)
            else:
                for k in range(K):
                    values[k] = math.log(values[k])
            row = out[w]
            for k in range(K):
                row[k] = values[k] - log_totals[k]


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH_FINITE, error_model="numpy", nogil=True)
def exp_shifted_rows(values, out, lowest):
    """out[w] = exp(values[w] - max values[w]), entries below exp(lowest) set to 0."""
    W, K = values.shape
    for block in numba.prange((W + _BLOCK - 1) // _BLOCK):
        bits = np.empty(K, dtype=np.int64)
        for w in range(block * _BLOCK, min(W, (block + 1) * _BLOCK)):
            row = out[w]
            top = values[w, 0]
            for k in range(1, K):
                top = max(top, values[w, k])
            for k in range(K):
                row[k] = max(values[w, k] - top, lowest)
            exp_inplace(row, bits)
            for k in range(K):
                if values[w, k] - top < lowest:
                    row[k] = 0.0


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH_FINITE, error_model="numpy", nogil=True)
def word_bounds(elog_beta_t, head, max_abs, tail_max):
    """Per word (row): the largest |E[log beta_kw]|, and the largest E[log beta_kw] past the head (k >= head).

    Computed once per minibatch word rather than once per document that uses it.
    """
    W, K = elog_beta_t.shape
    for w in numba.prange(W):
        row = elog_beta_t[w]
        largest = 0.0
        for k in range(K):
            largest = max(largest, abs(row[k]))
        top = -np.inf
        for k in range(head, K):
            top = max(top, row[k])
        max_abs[w] = largest
        tail_max[w] = top


def elog_beta_rows(topics: LazyTopics, columns: np.ndarray) -> np.ndarray:
    """E[log beta_kw] = psi(lambda_kw) - psi(sum_v lambda_kv) for the words ``columns``, word-major.

    Reads lambda's rows where it uses them (no copy of lambda[:, columns] is
    built first) and returns a C-contiguous (n_columns, K) array whose
    transpose is what :func:`engine.models.expectations.dirichlet_expectation_columns`
    gives for ``topics.columns(columns)``.
    """
    excess, decay = topics.stored_rows(columns)
    psi_totals = psi_values(topics.row_totals())
    out = np.empty((len(columns), excess.shape[1]), dtype=excess.dtype)
    eta = excess.dtype.type(topics.eta)  # added in the store's precision, as rows() does
    with PARALLEL_LOCK:
        _row_expectations(excess, np.asarray(columns, dtype=np.int64), decay, eta, psi_totals, out)
    return out


def log_mean_rows(topics: LazyTopics, columns: np.ndarray, ratios: bool = False):
    """log E[beta_kw] = log lambda_kw - log sum_v lambda_kv for the words ``columns``, word-major.

    The zero-order update's topic term, laid out as :func:`elog_beta_rows`.  With
    ``ratios``, returns ``(rows, ratios)``: also E[beta_kw] / max_k E[beta_kw] for each
    word (the "lda" start's exp(rows - row max), entries below exp(:data:`EXP_FLOOR`)
    set to 0), from the same pass over the store.
    """
    excess, decay = topics.stored_rows(columns)
    totals = topics.row_totals()[:, 0].astype(np.float64)
    out = np.empty((len(columns), excess.shape[1]), dtype=excess.dtype)
    shifted = np.empty((len(columns) if ratios else 0, excess.shape[1]), dtype=excess.dtype)
    eta = excess.dtype.type(topics.eta)
    with PARALLEL_LOCK:
        _row_log_means(excess, np.asarray(columns, dtype=np.int64), decay, eta, np.log(totals), 1.0 / totals,
                       math.exp(EXP_FLOOR[excess.dtype]), out, shifted)
    return (out, shifted) if ratios else out


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH_FINITE, nogil=True)
def _entry_mixtures(indptr, indices, theta, by_word, out):
    """out[e] = sum_k theta[d, k] by_word[w, k] for stored entry e = (d, w); documents spread over the cores."""
    for d in numba.prange(indptr.shape[0] - 1):
        weights = theta[d]
        for e in range(indptr[d], indptr[d + 1]):
            row = by_word[indices[e]]
            total = weights.dtype.type(0)
            for k in range(weights.shape[0]):
                total += weights[k] * row[k]
            out[e] = total


def entry_mixtures(indptr: np.ndarray, indices: np.ndarray, theta: np.ndarray, by_word: np.ndarray) -> np.ndarray:
    """:func:`engine.kernels.reference.hdp.entry_mixtures`, compiled: one pass over the entries, no gathered copies."""
    out = np.empty(indices.size, dtype=theta.dtype)
    with PARALLEL_LOCK:
        _entry_mixtures(np.asarray(indptr, dtype=np.int64), np.asarray(indices, dtype=np.int64),
                        np.ascontiguousarray(theta), np.ascontiguousarray(by_word, dtype=theta.dtype), out)
    return out.astype(np.float64)
