"""Compiled LDA local step (numba): one fused loop per document, documents spread over cores.

The same mathematics as :mod:`engine._lda_local`, the NumPy reference it is
tested against: for each document iterate

    norm_w   = sum_k theta~_k beta~_kw
    gamma_k  = alpha_k + theta~_k sum_w (c_w / norm_w) beta~_kw
    theta~_k = exp(E[log theta_k] - max_j E[log theta_j])   (flushed below sqrt(tiny))

until the mean absolute change of gamma is below tol.  Each document's topic
rows are gathered once into a small contiguous array that stays in cache, the
two sums and the digamma/exp run in one pass per iteration, and ``prange``
spreads the documents over the cores without the GIL.  A document whose
normaliser would need the exact log-space treatment is handed back to the
NumPy reference, which has it.
"""

from __future__ import annotations

import math
import threading

import numba
import numpy as np
import scipy.sparse as sp

from engine._lda_local import LocalFit, _tiny, fit_documents

__all__ = ["digamma", "fit_documents_compiled"]

# numba's fallback "workqueue" threading layer aborts on concurrent parallel calls from
# several Python threads (two training runs); each call already uses every core
_KERNEL_LOCK = threading.Lock()


@numba.njit(cache=True, inline="always", fastmath=True)
def digamma(x: float) -> float:
    """psi(x) for x > 0: recurrence up to x >= 6, then the asymptotic series (error < 1e-11)."""
    result = 0.0
    while x < 6.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 / 132))))
    return result + math.log(x) - 0.5 * inv - series


@numba.njit(cache=True, inline="always", fastmath=True)
def _theta(gamma, theta, floor):
    """theta~ = exp(E[log theta] - max), entries below exp(floor) flushed to zero."""
    K = gamma.shape[0]
    total = 0.0
    for k in range(K):
        total += gamma[k]
    psi_total = digamma(total)
    top = -np.inf
    for k in range(K):
        theta[k] = digamma(gamma[k]) - psi_total
        top = max(top, theta[k])
    for k in range(K):
        shifted = theta[k] - top
        theta[k] = math.exp(shifted) if shifted >= floor else 0.0


@numba.njit(cache=True, inline="always", fastmath=True)
def _normaliser(theta, row):
    """norm_w = sum_k theta~_k beta~_kw for one word's row of topic weights."""
    total = 0.0
    for k in range(theta.shape[0]):
        total += theta[k] * row[k]
    return total


@numba.njit(cache=True, parallel=True, fastmath=True)
def _fit_all(indptr, indices, data, beta_t, alpha, gamma, tol, max_iter, tiny, floor,
             ratio_out, exp_theta_out, n_iter_out, lost_out):
    S, K = gamma.shape
    for d in numba.prange(S):
        start, end = indptr[d], indptr[d + 1]
        n = end - start
        if n == 0:
            for k in range(K):
                gamma[d, k] = alpha[k]
            continue
        rows = np.empty((n, K), dtype=beta_t.dtype)  # this document's topic columns, contiguous
        for j in range(n):
            rows[j] = beta_t[indices[start + j]]
        g = gamma[d].copy()
        theta = np.empty(K, dtype=np.float64)
        acc = np.empty(K, dtype=np.float64)
        _theta(g, theta, floor)
        iterations = 0
        lost = False
        while iterations < max_iter:
            acc[:] = 0.0
            for j in range(n):
                norm = _normaliser(theta, rows[j])
                if norm <= tiny:
                    lost = True
                    break
                ratio = data[start + j] / norm
                for k in range(K):
                    acc[k] += ratio * rows[j, k]
            if lost:
                break
            change = 0.0
            for k in range(K):
                value = alpha[k] + theta[k] * acc[k]
                change += abs(value - g[k])
                g[k] = value
            iterations += 1
            _theta(g, theta, floor)
            if change < tol * K:
                break
        if not lost:  # phi is optimal for the final gamma: its normalisers once more
            for j in range(n):
                norm = _normaliser(theta, rows[j])
                if norm <= tiny:
                    lost = True
                    break
                ratio_out[start + j] = data[start + j] / norm
        lost_out[d] = lost
        if not lost:
            for k in range(K):
                gamma[d, k] = g[k]
                exp_theta_out[d, k] = theta[k]
            n_iter_out[d] = iterations


def fit_documents_compiled(counts, exp_elog_beta, elog_beta, alpha, doc_topic_init, tol, max_iter) -> LocalFit:
    """Drop-in replacement of :func:`engine._lda_local.fit_documents` running the compiled kernel."""
    dtype = exp_elog_beta.dtype
    n_docs, n_topics = counts.shape[0], exp_elog_beta.shape[0]
    counts = counts.astype(dtype, copy=False)
    beta_t = np.ascontiguousarray(exp_elog_beta.T)
    alpha_vector = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_topics,)).copy()
    gamma = np.array(doc_topic_init, dtype=dtype, copy=True)
    ratio = np.zeros(counts.nnz, dtype=dtype)
    exp_theta = np.zeros((n_docs, n_topics), dtype=dtype)
    n_iter = np.zeros(n_docs, dtype=np.int64)
    lost = np.zeros(n_docs, dtype=np.bool_)
    floor = 0.5 * float(np.log(np.finfo(dtype).tiny))
    with _KERNEL_LOCK:
        _fit_all(counts.indptr.astype(np.int64), counts.indices.astype(np.int64), counts.data, beta_t,
                 alpha_vector, gamma, float(tol), int(max_iter), _tiny(dtype, n_topics), floor, ratio, exp_theta,
                 n_iter, lost)
    ratios = sp.csr_matrix((ratio, counts.indices, counts.indptr), shape=counts.shape)
    # sum_d c_dw phi_dwk = beta~_kw * sum_d theta~_dk c_dw / norm_dw  (lost documents contribute 0 here)
    topic_word = np.ascontiguousarray((np.asarray(ratios.T @ exp_theta) * beta_t).T)
    if lost.any():  # the NumPy reference computes their underflowed words exactly in log space
        docs = np.flatnonzero(lost)
        exact = fit_documents(counts[docs], exp_elog_beta, elog_beta, alpha, doc_topic_init[docs], tol, max_iter)
        gamma[docs], n_iter[docs] = exact.doc_topic, exact.n_iter
        topic_word += exact.topic_word
    return LocalFit(doc_topic=gamma, topic_word=topic_word, n_iter=n_iter)
