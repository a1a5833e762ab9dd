"""Compiled LDA local step (numba): one fused loop per document, documents spread over cores.

The same mathematics as :mod:`engine.kernels.reference.lda`, the NumPy reference it is
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

The rest of the step is compiled too (:func:`local_step_compiled`), word-major
throughout so nothing is transposed: exp E[log beta] of the minibatch's words
comes straight from lambda's rows (:func:`_exp_elog_rows`), and the expected
word counts sum_d c_dw phi_dwk are gathered per word over the documents that
use it (:func:`_word_topic_rows`), both spread over the cores.  A minibatch whose short
documents take the CVB0 update (``cvb0_below``) is one local step: both document loops
read the same topic rows and CSR arrays, each on its own list of documents, and one
gather adds up both kinds of statistics.  No sparse matrix is built on the way.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from scipy.special import psi

from engine.kernels.compiled.arguments import LDADocSettings, Minibatch
from engine.kernels.compiled.lazy_topics import row_expectations
from engine.kernels.compiled.numerics import copy_vector, digamma_inplace, exp_inplace
from engine.kernels.flags import FAST_MATH, PARALLEL_LOCK
from engine.kernels.reference.lda import SQUAREM_BACKTRACKS as _SQUAREM_BACKTRACKS
from engine.kernels.reference.lda import (
    LocalFit,
    _check_cvb0,
    _flush_floor,
    _tiny,
    exp_shifted,
    fit_documents,
)
from engine.models.expectations import dirichlet_expectation_columns
from engine.models.lazy_topics import LazyTopics


@numba.njit(cache=True, inline="always", fastmath=FAST_MATH)
def _theta(gamma, theta, floor, work, scratch, bits):
    """theta~ = exp(E[log theta] - max), entries below exp(floor) flushed to zero.

    The K digammas and exps run over the whole vector in their vectorised forms
    (:mod:`engine.kernels.compiled.numerics`); ``work``, ``scratch`` (3 x K) and ``bits``
    are float64 and int64 scratch of K entries.
    """
    K = gamma.shape[0]
    for k in range(K):
        work[k] = gamma[k]
    digamma_inplace(work, scratch[0], scratch[1], bits, scratch[2])
    top = -np.inf
    for k in range(K):
        top = max(top, work[k])
    shifted = scratch[0]
    for k in range(K):
        shifted[k] = work[k] - top  # E[log theta_k] - max_j E[log theta_j]: psi(sum gamma) cancels
        work[k] = max(shifted[k], floor)  # in exp_inplace's range; flushed below
    exp_inplace(work, bits)
    for k in range(K):
        theta[k] = work[k] if shifted[k] >= floor else 0.0


@numba.njit(cache=True, inline="always", fastmath=FAST_MATH)
def _theta_mean(gamma, theta):
    """theta~ = E[theta] / max_k E[theta_k] = gamma / max_k gamma_k (the zero-order update's weights)."""
    top = gamma[0]
    for k in range(gamma.shape[0]):
        top = max(top, gamma[k])
    for k in range(gamma.shape[0]):
        theta[k] = gamma[k] / top


@numba.njit(cache=True, inline="always", fastmath=FAST_MATH)
def _normaliser(theta, row):
    """norm_w = sum_k theta~_k beta~_kw for one word's row of topic weights (in theta's precision)."""
    total = theta.dtype.type(0)
    for k in range(theta.shape[0]):
        total += theta[k] * row[k]
    return total


@numba.njit(cache=True, inline="always", fastmath=FAST_MATH)
def _accumulate(theta, rows, counts, acc, tiny):
    """acc_k += sum_w (c_w / norm_w) beta~_kw; False if a normaliser is below ``tiny``.

    Words go four at a time: theta is loaded once for four dot products and
    acc once for four updates, which halves the memory traffic of the loop.
    The sums are in acc's precision: float32 arrays keep the loop in float32
    (twice the numbers per vector instruction), float64 ones in float64.
    """
    n, K = rows.shape
    zero = acc.dtype.type(0)
    j = 0
    while j + 4 <= n:
        r0, r1, r2, r3 = rows[j], rows[j + 1], rows[j + 2], rows[j + 3]
        n0 = n1 = n2 = n3 = zero
        for k in range(K):
            t = theta[k]
            n0 += t * r0[k]
            n1 += t * r1[k]
            n2 += t * r2[k]
            n3 += t * r3[k]
        if n0 <= tiny or n1 <= tiny or n2 <= tiny or n3 <= tiny:
            return False
        c0, c1, c2, c3 = counts[j] / n0, counts[j + 1] / n1, counts[j + 2] / n2, counts[j + 3] / n3
        for k in range(K):
            acc[k] += c0 * r0[k] + c1 * r1[k] + c2 * r2[k] + c3 * r3[k]
        j += 4
    while j < n:
        norm = _normaliser(theta, rows[j])
        if norm <= tiny:
            return False
        ratio = counts[j] / norm
        for k in range(K):
            acc[k] += ratio * rows[j, k]
        j += 1
    return True


@numba.njit(cache=True, inline="always", fastmath=FAST_MATH)
def _update(g, out, theta, acc, rows, counts, alpha, tiny):
    """One zero-order update out = alpha + theta~(g) * sum_w (c_w / norm_w) beta~_w.

    Returns sum_k |out_k - g_k|, or -1.0 if a normaliser fell below ``tiny``.
    """
    _theta_mean(g, theta)
    acc[:] = 0.0
    if not _accumulate(theta, rows, counts, acc, tiny):
        return -1.0
    change = 0.0
    for k in range(g.shape[0]):
        value = alpha[k] + theta[k] * acc[k]
        change += abs(value - g[k])
        out[k] = value
    return change


@numba.njit(cache=True, inline="always", fastmath=FAST_MATH)
def _squarem(g, rows, counts, alpha, tol, max_iter, tiny, theta, acc):
    """The fixed point of :func:`_update` from ``g`` (overwritten) by SQUAREM; returns (updates, lost).

    See :func:`engine.kernels.reference.lda._fit_block_squarem` for the cycle.
    """
    K = g.shape[0]
    x1 = np.empty_like(g)
    x2 = np.empty_like(g)
    updates = 0
    while True:
        for source, target in ((g, x1), (x1, x2)):  # x1 = F(x0), x2 = F(x1)
            change = _update(source, target, theta, acc, rows, counts, alpha, tiny)
            updates += 1
            if change < 0.0:
                return updates, True
            if change < tol * K or updates >= max_iter:
                copy_vector(target, g)
                return updates, False
        # r = x1 - x0, v = x2 - 2 x1 + x0, step a = -|r| / |v| (at most -1)
        rr = 0.0
        vv = 0.0
        for k in range(K):
            r = x1[k] - g[k]
            v = x2[k] - 2.0 * x1[k] + g[k]
            rr += r * r
            vv += v * v
        step = -math.sqrt(rr / vv) if vv > 0.0 else -1.0
        step = min(step, -1.0)
        positive = False
        tries = 0
        while step < -1.0 and not positive and tries < _SQUAREM_BACKTRACKS:
            positive = True
            for k in range(K):
                r = x1[k] - g[k]
                v = x2[k] - 2.0 * x1[k] + g[k]
                if g[k] - 2.0 * step * r + step * step * v <= 0.0:
                    positive = False
                    break
            if not positive:
                step = 0.5 * (step - 1.0)
                tries += 1
        if not positive:  # step -1: x0 + 2 r + v = x2
            copy_vector(x2, g)
        else:
            for k in range(K):
                r = x1[k] - g[k]
                v = x2[k] - 2.0 * x1[k] + g[k]
                g[k] = g[k] - 2.0 * step * r + step * step * v


@numba.njit(cache=True, inline="always", fastmath=FAST_MATH)
def _document_rows(beta_t, indices, start, n):
    """The topic rows of a document's n words (entries start..start+n), gathered into one contiguous array."""
    rows = np.empty((n, beta_t.shape[1]), dtype=beta_t.dtype)
    for j in range(n):
        copy_vector(beta_t[indices[start + j]], rows[j])
    return rows


@numba.njit(cache=True, inline="always", fastmath=FAST_MATH)
def _finish(d, start, rows, counts, g, theta, lost, tiny, iterations, gamma, ratio_out, exp_theta_out, n_iter_out,
            lost_out):
    """Write document d's results: gamma, theta~ and (phi being optimal for the final gamma) c_w / norm_w."""
    if not lost:
        for j in range(rows.shape[0]):
            norm = _normaliser(theta, rows[j])
            if norm <= tiny:
                lost = True
                break
            ratio_out[start + j] = counts[j] / norm
    lost_out[d] = lost
    if not lost:
        for k in range(g.shape[0]):
            gamma[d, k] = g[k]
            exp_theta_out[d, k] = theta[k]
        n_iter_out[d] = iterations


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH, nogil=True)
def _fit_all(batch, docs, beta_t, settings, gamma, ratio_out, exp_theta_out, n_iter_out, lost_out):
    """Fit the minibatch's documents ``docs`` (row numbers), one per task, writing their rows of the outputs."""
    indptr, indices, data = batch
    alpha, tol, max_iter, tiny, floor, zero_order = settings
    K = gamma.shape[1]
    for i in numba.prange(docs.shape[0]):
        d = docs[i]
        start, end = indptr[d], indptr[d + 1]
        n = end - start
        if n == 0:
            for k in range(K):
                gamma[d, k] = alpha[k]
            continue
        rows = _document_rows(beta_t, indices, start, n)
        g = gamma[d].copy()
        theta = np.empty(K, dtype=beta_t.dtype)  # the kernel's precision: float32 data, float32 sums
        acc = np.empty(K, dtype=beta_t.dtype)
        work = np.empty(K)
        scratch = np.empty((3, K))
        bits = np.empty(K, dtype=np.int64)
        if zero_order:
            _theta_mean(g, theta)
        else:
            _theta(g, theta, floor, work, scratch, bits)
        iterations = 0
        lost = False
        while iterations < max_iter:
            acc[:] = 0.0
            if not _accumulate(theta, rows, data[start:end], acc, tiny):
                lost = True
                break
            change = 0.0
            for k in range(K):
                value = alpha[k] + theta[k] * acc[k]
                change += abs(value - g[k])
                g[k] = value
            iterations += 1
            if zero_order:
                _theta_mean(g, theta)
            else:
                _theta(g, theta, floor, work, scratch, bits)
            if change < tol * K:
                break
        _finish(d, start, rows, data[start:end], g, theta, lost, tiny, iterations, gamma, ratio_out, exp_theta_out,
                n_iter_out, lost_out)


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH, nogil=True)
def _fit_all_squarem(batch, docs, beta_t, settings, gamma, ratio_out, exp_theta_out, n_iter_out, lost_out):
    """:func:`_fit_all` by SQUAREM (zero-order update): its own kernel, compiled only when a model asks for it."""
    indptr, indices, data = batch
    alpha, tol, max_iter, tiny, _, _ = settings  # the zero-order update: no flush floor
    K = gamma.shape[1]
    for i in numba.prange(docs.shape[0]):
        d = docs[i]
        start, end = indptr[d], indptr[d + 1]
        n = end - start
        if n == 0:
            for k in range(K):
                gamma[d, k] = alpha[k]
            continue
        rows = _document_rows(beta_t, indices, start, n)
        g = gamma[d].copy()
        theta = np.empty(K, dtype=beta_t.dtype)
        acc = np.empty(K, dtype=beta_t.dtype)
        iterations, lost = _squarem(g, rows, data[start:end], alpha, tol, max_iter, tiny, theta, acc)
        _theta_mean(g, theta)
        _finish(d, start, rows, data[start:end], g, theta, lost, tiny, iterations, gamma, ratio_out, exp_theta_out,
                n_iter_out, lost_out)


@numba.njit(cache=True, inline="always", fastmath=FAST_MATH)
def _cvb0_pass(g, u, inverse, rows, counts, alpha, tiny, new):
    """One CVB0 pass: u_j = max(g - u_j inverse_j, 0) beta~_j (unnormalised), inverse_j = 1 / sum u_j,
    new = alpha + sum_j c_j inverse_j u_j.  u_j inverse_j is word j's phi from the pass before."""
    K = g.shape[0]
    for k in range(K):
        new[k] = alpha[k]
    for j in range(rows.shape[0]):
        own = inverse[j]
        total = 0.0
        for k in range(K):
            value = (g[k] - u[j, k] * own) * rows[j, k]
            value = value if value > 0.0 else 0.0
            u[j, k] = value
            total += value
        inverse[j] = 1.0 / max(total, tiny)
        weight = counts[j] * inverse[j]
        for k in range(K):
            new[k] += weight * u[j, k]


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH, nogil=True)
def _fit_all_cvb0(batch, docs, beta_t, settings, gamma, phi_out, n_iter_out):
    """The CVB0 update of the documents ``docs`` (see the reference's ``fit_documents_cvb0``), one per task.

    phi_dwk ∝ max(gamma_dk - phi_dwk, 0) beta~_kw from the previous gamma, gamma = alpha +
    sum_w c_w phi_w, phi starting at the zero-order responsibilities of the initial gamma.
    Each word's phi is kept unnormalised with its normaliser's inverse beside it, so an
    iteration is one pass forming it and one adding it up; ``phi_out`` (one row per stored
    entry of the minibatch, CSR order) receives the normalised phi of the documents' entries.
    """
    indptr, indices, data = batch
    alpha, tol, max_iter, tiny, _, _ = settings
    K = gamma.shape[1]
    for i in numba.prange(docs.shape[0]):
        d = docs[i]
        start, end = indptr[d], indptr[d + 1]
        n = end - start
        if n == 0:
            for k in range(K):
                gamma[d, k] = alpha[k]
            continue
        rows = _document_rows(beta_t, indices, start, n)
        u = phi_out[start:end]  # unnormalised phi until the end
        u[:] = 0.0  # no share to leave out yet: the first pass gives the starting gamma's zero-order phi
        inverse = np.zeros(n)
        g = np.empty(K)
        new = np.empty(K)
        for k in range(K):
            g[k] = gamma[d, k]
        _cvb0_pass(g, u, inverse, rows, data[start:end], alpha, tiny, new)
        for k in range(K):
            g[k] = new[k]
        iterations = 0
        while iterations < max_iter:
            _cvb0_pass(g, u, inverse, rows, data[start:end], alpha, tiny, new)
            change = 0.0
            for k in range(K):
                change += abs(new[k] - g[k])
                g[k] = new[k]
            iterations += 1
            if change < tol * K:
                break
        for j in range(n):
            for k in range(K):
                u[j, k] *= inverse[j]
        for k in range(K):
            gamma[d, k] = g[k]
        n_iter_out[d] = iterations


_ROW_BLOCK = 64  # words per task of _exp_elog_rows: its scratch arrays are allocated once per block


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH, nogil=True)
def _exp_elog_rows(excess, columns, decay, eta, psi_totals, floor):
    """exp(E[log beta_kw] - max_j E[log beta_jw]) for the words ``columns``, flushed below exp(floor).

    lambda_kw = eta + excess[w, k] decay_w is read straight from the lazily
    decayed store (see LazyTopics.stored_rows), and
    E[log beta_kw] = psi(lambda_kw) - psi(sum_v lambda_kv); the shift per word
    cancels in phi.  Rows are words, so each row is one contiguous pass; the
    digamma and exp run over whole rows in their vectorised forms
    (:mod:`engine.kernels.compiled.numerics`), blocks of words spread over the cores.
    """
    n_words, K = columns.shape[0], excess.shape[1]
    out = np.empty((n_words, K), dtype=excess.dtype)
    for block in numba.prange((n_words + _ROW_BLOCK - 1) // _ROW_BLOCK):
        elog = np.empty(K)
        shifted = np.empty(K)
        scratch = np.empty((3, K))
        bits = np.empty(K, dtype=np.int64)
        for j in range(block * _ROW_BLOCK, min(n_words, (block + 1) * _ROW_BLOCK)):
            row_expectations(excess[columns[j]], decay[j], eta, psi_totals, elog, scratch, bits)
            top = -np.inf
            for k in range(K):
                top = max(top, elog[k])
            for k in range(K):
                shifted[k] = elog[k] - top
                elog[k] = max(shifted[k], floor)  # in exp_inplace's range; flushed below
            exp_inplace(elog, bits)
            for k in range(K):
                out[j, k] = elog[k] if shifted[k] >= floor else 0.0
    return out


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH, nogil=True)
def _mean_rows(excess, columns, decay, eta, totals):
    """E[beta_kw] / max_j E[beta_jw] for the words ``columns`` (the zero-order update's topic weights).

    lambda_kw = eta + excess[w, k] decay_w as in :func:`_exp_elog_rows`;
    E[beta_kw] = lambda_kw / sum_v lambda_kv, and the shift per word cancels in phi.
    """
    n_words, K = columns.shape[0], excess.shape[1]
    out = np.empty((n_words, K), dtype=excess.dtype)
    for j in numba.prange(n_words):
        row = excess[columns[j]]
        top = 0.0
        for k in range(K):
            value = (eta + row[k] * decay[j]) / totals[k]
            out[j, k] = value
            top = max(top, value)
        for k in range(K):
            out[j, k] /= top
    return out


@numba.njit(cache=True, nogil=True)
def _row_totals(indptr, data):
    """Each document's number of words, sum_w c_dw."""
    totals = np.zeros(indptr.shape[0] - 1)
    for d in range(totals.shape[0]):
        for p in range(indptr[d], indptr[d + 1]):
            totals[d] += data[p]
    return totals


@numba.njit(cache=True, nogil=True)
def _entries_by_word(indptr, indices, n_words):
    """The minibatch's entries grouped by word, documents in order (CSC): (col_indptr, col_entries, col_docs).

    ``col_entries`` holds each entry's position in the CSR arrays, ``col_docs`` its document.
    """
    col_indptr = np.zeros(n_words + 1, dtype=np.int64)
    for p in range(indices.shape[0]):
        col_indptr[indices[p] + 1] += 1
    for w in range(n_words):
        col_indptr[w + 1] += col_indptr[w]
    fill = col_indptr[:-1].copy()
    col_entries = np.empty(indices.shape[0], dtype=np.int64)
    col_docs = np.empty(indices.shape[0], dtype=np.int64)
    for d in range(indptr.shape[0] - 1):
        for p in range(indptr[d], indptr[d + 1]):
            w = indices[p]
            col_entries[fill[w]] = p
            col_docs[fill[w]] = d
            fill[w] += 1
    return col_indptr, col_entries, col_docs


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH, nogil=True)
def _word_topic_rows(by_word, data, ratio, exp_theta, phi, by_cvb0, beta_rows):
    """sum_d c_dw phi_dwk, one row per word, each word gathering over the documents that use it.

    A document of the mean-field or zero-order step adds beta~_kw theta~_dk c_dw / norm_dw
    (its phi is optimal for its final gamma; ``ratio`` holds c_dw / norm_dw per entry), one of
    the CVB0 step (``by_cvb0``) c_dw phi_dwk from its own ``phi`` (one row per entry).
    ``by_word`` is :func:`_entries_by_word`'s, so the words split over the cores without
    write conflicts.
    """
    col_indptr, col_entries, col_docs = by_word
    n_words, K = beta_rows.shape
    out = np.zeros((n_words, K), dtype=beta_rows.dtype)
    for w in numba.prange(n_words):
        own = np.zeros(K, dtype=beta_rows.dtype)  # the CVB0 documents' sum_d c_dw phi_dwk
        for p in range(col_indptr[w], col_indptr[w + 1]):
            e, d = col_entries[p], col_docs[p]
            if by_cvb0[d]:
                c = data[e]
                for k in range(K):
                    own[k] += c * phi[e, k]
            else:
                r = ratio[e]
                for k in range(K):
                    out[w, k] += r * exp_theta[d, k]
        for k in range(K):
            out[w, k] = out[w, k] * beta_rows[w, k] + own[k]
    return out


def _rescue_lost(word_topic, gamma, n_iter, lost, counts, exp_elog_beta, elog_beta, alpha, doc_topic_init, tol,
                 max_iter, zero_order, squarem) -> None:
    """Refit the documents whose normaliser underflowed with the exact NumPy reference, in place.

    ``word_topic`` None: gamma only.
    """
    docs = np.flatnonzero(lost)
    exact = fit_documents(counts[docs], exp_elog_beta, elog_beta, alpha, doc_topic_init[docs], tol, max_iter,
                          zero_order, squarem, statistics=word_topic is not None)
    gamma[docs], n_iter[docs] = exact.doc_topic, exact.n_iter
    if word_topic is not None:
        word_topic += exact.topic_word.T  # lost documents contributed nothing so far


def local_step_compiled(topics: LazyTopics, counts, columns, alpha, doc_topic_init, tol, max_iter,
                        zero_order: bool = False, squarem: bool = False, statistics: bool = True,
                        cvb0_below: float = 0.0) -> LocalFit:
    """LDA's whole local step on the minibatch ``counts`` (columns re-indexed to ``columns``), compiled.

    Same result as computing E[log beta] with scipy and calling the NumPy
    reference, but word-major from lambda's rows to the statistics: the
    returned ``topic_word`` is a transposed view of a (words, topics) array.
    ``zero_order`` weighs topics by E[beta] and E[theta] instead of exp E[log .];
    documents of fewer than ``cvb0_below`` words (0: none, inf: all; with ``zero_order``)
    take the CVB0 update (:func:`_fit_all_cvb0`); ``squarem`` reaches each other
    document's fixed point by SQUAREM steps; ``statistics`` False returns gamma alone
    (``topic_word`` None), as a fold-in needs.
    """
    _check_cvb0(cvb0_below, zero_order)
    excess, decay = topics.stored_rows(columns)
    dtype = excess.dtype
    batch = Minibatch(counts.indptr.astype(np.int64), counts.indices.astype(np.int64),
                      counts.data.astype(dtype, copy=False))
    totals = topics.row_totals()[:, 0].astype(np.float64)
    word_ids = np.asarray(columns, dtype=np.int64)
    n_docs, n_topics = counts.shape[0], excess.shape[1]
    alpha_vector = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_topics,)).copy()
    settings = LDADocSettings(alpha_vector, float(tol), int(max_iter), _tiny(dtype, n_topics), _flush_floor(dtype),
                              bool(zero_order))
    if cvb0_below <= 0:
        by_cvb0 = np.zeros(n_docs, dtype=np.bool_)
    elif np.isinf(cvb0_below):
        by_cvb0 = np.ones(n_docs, dtype=np.bool_)
    else:
        by_cvb0 = _row_totals(batch.indptr, batch.data) < cvb0_below
    cvb0_docs, other_docs = np.flatnonzero(by_cvb0), np.flatnonzero(~by_cvb0)
    gamma = np.array(doc_topic_init, dtype=dtype, copy=True)
    n_iter = np.zeros(n_docs, dtype=np.int64)
    ratio = np.zeros(counts.nnz, dtype=dtype)  # c_dw / norm_dw of the other documents' entries
    exp_theta = np.zeros((n_docs, n_topics), dtype=dtype)
    lost = np.zeros(n_docs, dtype=np.bool_)
    # one phi row per entry; only the CVB0 documents' rows are written (and their memory touched)
    phi = np.empty((counts.nnz if cvb0_docs.size else 0, n_topics), dtype=dtype)
    with PARALLEL_LOCK:
        if zero_order:
            beta_rows = _mean_rows(excess, word_ids, decay, float(topics.eta), totals)
        else:
            beta_rows = _exp_elog_rows(excess, word_ids, decay, float(topics.eta), psi(totals), _flush_floor(dtype))
        if cvb0_docs.size:  # beta~ > 0 and alpha > 0: no normaliser to rescue
            _fit_all_cvb0(batch, cvb0_docs, beta_rows, settings, gamma, phi, n_iter)
        if other_docs.size:
            (_fit_all_squarem if squarem else _fit_all)(batch, other_docs, beta_rows, settings, gamma, ratio,
                                                        exp_theta, n_iter, lost)
        word_topic = None
        if statistics:
            word_topic = _word_topic_rows(_entries_by_word(batch.indptr, batch.indices, word_ids.size), batch.data,
                                          ratio, exp_theta, phi, by_cvb0, beta_rows)
    if lost.any():  # rare: E[log beta] in the reference's own (topics, words) layout
        elog_beta = dirichlet_expectation_columns(topics.rows(columns), totals, zero_order).astype(dtype).T
        _rescue_lost(word_topic, gamma, n_iter, lost, counts, exp_shifted(elog_beta, axis=0), elog_beta, alpha,
                     doc_topic_init, tol, max_iter, zero_order, squarem)
    return LocalFit(doc_topic=gamma, topic_word=None if word_topic is None else word_topic.T, n_iter=n_iter)
