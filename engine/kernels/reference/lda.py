"""The local step of LDA, vectorised over a whole minibatch.

For each document d of the minibatch this finds the variational parameters
that maximise the ELBO with the topics held fixed (Hoffman et al. 2013, the
local loop of the algorithm box "Stochastic variational inference for LDA"):

    phi_dn^k  ∝  exp{E[log theta_dk] + E[log beta_k,w_dn]}
    gamma_d   =  alpha + sum_n phi_dn

iterated until the mean absolute change of gamma_d is below ``tol``.  The
optimal phi is never stored: with theta~_dk = exp E[log theta_dk] and
beta~_kw = exp E[log beta_kw], phi_dwk = theta~_dk beta~_kw / norm_dw where
norm_dw = sum_k theta~_dk beta~_kw, so

    gamma_dk = alpha + theta~_dk sum_w (c_dw / norm_dw) beta~_kw,

and the topic statistics sum_d c_dw phi_dwk = beta~_kw sum_d theta~_dk c_dw / norm_dw
(Hoffman, Blei & Bach 2010).  Words are handled per distinct type with their
counts c_dw, never per token.

Speed comes from grouping the minibatch's documents by length into padded
blocks, gathering each block's topic columns once into a (docs, words, topics)
array and running both sums as batched matrix products; documents that have
converged are frozen and dropped from the block as it shrinks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp, psi

from engine.models.expectations import dirichlet_expectation_columns

# a block's (docs, words, topics) array is read twice per iteration; keeping it near
# the size of a core's L2 cache (1 MB in float64) measured faster than larger blocks
_BLOCK_ELEMENTS = 1 << 17
_MAX_BLOCK_DOCS = 16
_COMPACT_WHEN_FROZEN = 0.25  # drop frozen documents once they are a quarter of a block
SQUAREM_BACKTRACKS = 10  # halvings of a SQUAREM step towards -1 before falling back to the plain updates


@dataclass(frozen=True)
class LocalFit:
    """Result of the local step for a minibatch.

    Attributes
    ----------
    doc_topic : ndarray of shape (n_docs, n_topics)
        The paper's gamma_d for every document.
    topic_word : ndarray of shape (n_topics, n_columns), or None
        sum_d sum_n phi_dn^k w_dn restricted to the minibatch's columns; None when the
        step was asked for gamma only (``statistics=False``: a fold-in).
    n_iter : ndarray of shape (n_docs,)
        Local iterations each document took.
    """

    doc_topic: np.ndarray
    topic_word: np.ndarray | None
    n_iter: np.ndarray


def _flush_floor(dtype) -> float:
    """log sqrt(tiny): exp-space entries below exp of this are flushed to zero (see :func:`exp_shifted`)."""
    return 0.5 * float(np.log(np.finfo(dtype).tiny))


def _tiny(dtype: np.dtype, n_topics: int) -> float:
    """Normalisers below this are recomputed exactly in log space.

    Entries flushed by :func:`exp_shifted` are below sqrt(tiny), so the flushed
    part of a normaliser sum_k theta~_k beta~_kw is below K sqrt(tiny); above
    1000 times that, it changes phi by less than 1e-3 relative (float32) and
    far less than rounding (float64).
    """
    return 1e3 * n_topics * float(np.sqrt(np.finfo(dtype).tiny))


def exp_shifted(elog: np.ndarray, axis: int = -1) -> np.ndarray:
    """exp(elog - max along ``axis``), with entries below sqrt(tiny) flushed to zero.

    The shift cancels wherever this is used (phi is normalised).  Flushing
    keeps every product of two non-zero entries a normal number: subnormal
    arithmetic is far slower on x86 (benchmarks/RESULTS.md, run 5) and, in
    float32, exp(E[log theta]) of unused topics (psi(alpha) ~ -1/alpha) lands
    there.  Where the flushed part could matter (a normaliser below
    :func:`_tiny`), the local step recomputes phi exactly in log space.
    """
    shifted = elog - elog.max(axis=axis, keepdims=True)
    out = np.exp(shifted)
    out[shifted < _flush_floor(shifted.dtype)] = 0.0
    return out


def _elog_theta(doc_topic: np.ndarray, zero_order: bool = False) -> np.ndarray:
    if zero_order:  # the zero-order update uses log E[theta_dk] = log gamma_dk - log sum_j gamma_dj
        return np.log(doc_topic) - np.log(doc_topic.sum(axis=1, keepdims=True))
    # E[log theta_dk] = psi(gamma_dk) - psi(sum_j gamma_dj)
    return psi(doc_topic) - psi(doc_topic.sum(axis=1, keepdims=True))


class _Rescue:
    """Exact log-space phi for the few (document, word) pairs whose normaliser underflowed."""

    def __init__(self, elog_beta_t: np.ndarray):
        self.elog_beta_t = elog_beta_t  # (n_columns, n_topics)

    def weighted_phi(self, elog_theta_rows, words, counts):
        logits = elog_theta_rows + self.elog_beta_t[words]
        logits -= logsumexp(logits, axis=1, keepdims=True)
        return counts[:, None] * np.exp(logits)


def _block_layout(counts: sp.csr_matrix, docs: np.ndarray, width: int):
    """Padded (docs, width) arrays of word columns, counts and data positions for a block."""
    lengths = np.diff(counts.indptr)[docs]
    offsets = np.arange(width)
    valid = offsets[None, :] < lengths[:, None]
    positions = np.where(valid, counts.indptr[docs][:, None] + offsets[None, :], 0)
    words = counts.indices[positions]
    word_counts = np.where(valid, counts.data[positions], 0).astype(counts.dtype, copy=False)
    return valid, positions, words, word_counts


def _update_block(E, word_counts, words, g, alpha, rescue, tiny, zero_order):
    """One fixed-point update of every row of ``g``: alpha + theta~_d sum_w (c_dw / norm_dw) beta~_w.

    norm_dw = sum_k theta~_dk beta~_kw; a normaliser below ``tiny`` (rare: only with tiny
    alpha or eta) is recomputed exactly in log space by ``rescue``.
    """
    elog_theta = _elog_theta(g, zero_order)
    theta = exp_shifted(elog_theta)
    norm = np.matmul(E, theta[:, :, None])[:, :, 0]
    lost = None
    if norm.min() <= tiny:
        lost = (norm <= tiny) & (word_counts > 0)
        np.maximum(norm, tiny, out=norm)
    ratio = np.divide(word_counts, norm, out=norm)
    if lost is not None:
        ratio[lost] = 0.0
    new_g = np.matmul(ratio[:, None, :], E)[:, 0, :]
    new_g *= theta
    new_g += alpha
    if lost is not None and lost.any():
        rows, cols = np.nonzero(lost)
        phi = rescue.weighted_phi(elog_theta[rows], words[rows, cols], word_counts[rows, cols])
        np.add.at(new_g, rows, phi)
    return new_g


def _fit_block(E, word_counts, words, gamma, alpha, tol, max_iter, rescue, tiny, zero_order=False):
    """Iterate gamma for one padded block; returns the final gamma and iterations per document.

    Converged documents are recorded and then ignored; once they are a quarter
    of the working arrays, those arrays are compacted to the live documents.
    """
    n_block, n_topics = gamma.shape
    n_iter = np.full(n_block, max_iter, dtype=np.int64)
    final_gamma = gamma.copy()
    live = np.arange(n_block)  # block rows of the working arrays
    active = np.ones(n_block, dtype=bool)  # working rows not yet converged
    n_done = 0
    E_live, c_live, w_live = E, word_counts, words
    g = gamma.copy()
    tol_sum = tol * n_topics  # mean absolute change < tol  <=>  sum < tol * K
    for iteration in range(1, max_iter + 1):
        new_g = _update_block(E_live, c_live, w_live, g, alpha, rescue, tiny, zero_order)
        change = np.abs(g - new_g, out=g).sum(axis=1)
        g = new_g
        done = active & (change < tol_sum)
        if done.any():
            finished = live[done]
            final_gamma[finished] = g[done]
            n_iter[finished] = iteration
            active &= ~done
            n_done += finished.size
            if n_done == active.size:
                return final_gamma, n_iter
            if n_done >= _COMPACT_WHEN_FROZEN * active.size:
                live, E_live, c_live, w_live = live[active], E_live[active], c_live[active], w_live[active]
                g = g[active]
                active = np.ones(live.size, dtype=bool)
                n_done = 0
    final_gamma[live[active]] = g[active]
    return final_gamma, n_iter


def _fit_block_squarem(E, word_counts, words, gamma, alpha, tol, max_iter, rescue, tiny, zero_order=False):
    """:func:`_fit_block` reaching each document's fixed point by SQUAREM (Varadhan & Roland, 2008).

    The update gamma <- F(gamma) is a fixed-point iteration that crawls when two
    topics explain a document's words almost equally well (as the halves of a split
    topic do).  SQUAREM takes two updates, x1 = F(x0) and x2 = F(x1), and jumps to
    x0 - 2a r + a^2 v with r = x1 - x0, v = x2 - 2 x1 + x0 and a = -|r| / |v| (at
    most -1; halved towards -1 while the jump leaves an entry <= 0, and a = -1, which
    is x2, after SQUAREM_BACKTRACKS halvings); the next cycle starts from the jump.
    A document stops at the first update that changes gamma by less than ``tol`` on
    average, as the plain iteration does, and keeps that update's output; every
    update counts as an iteration.  All rows take their updates in step, so the
    cycle's phases are the same for every row still running.
    """
    n_block, n_topics = gamma.shape
    n_iter = np.full(n_block, max_iter, dtype=np.int64)
    final = gamma.copy()
    live = np.arange(n_block)
    E_live, c_live, w_live = E, word_counts, words
    x0 = gamma.copy()
    tol_sum = tol * n_topics
    updates = 0

    def advance(x):
        """One update of the live rows; rows that stop are recorded and dropped. Returns the update."""
        nonlocal updates, live, E_live, c_live, w_live
        new = _update_block(E_live, c_live, w_live, x, alpha, rescue, tiny, zero_order)
        updates += 1
        done = np.abs(new - x).sum(axis=1) < tol_sum
        if updates >= max_iter:
            done[:] = True
        if done.any():
            final[live[done]] = new[done]
            n_iter[live[done]] = updates
            keep = ~done
            live, E_live, c_live, w_live = live[keep], E_live[keep], c_live[keep], w_live[keep]
            return new, keep
        return new, None

    while live.size:
        x1, keep = advance(x0)
        if keep is not None:
            x0 = x0[keep]
            x1 = x1[keep]
            if not live.size:
                break
        x2, keep = advance(x1)
        if keep is not None:
            x0, x1, x2 = x0[keep], x1[keep], x2[keep]
            if not live.size:
                break
        r = x1 - x0
        v = x2 - 2.0 * x1 + x0
        rr = np.einsum("dk,dk->d", r, r)
        vv = np.einsum("dk,dk->d", v, v)
        step = np.where(vv > 0.0, -np.sqrt(rr / np.where(vv > 0.0, vv, 1.0)), -1.0)
        step = np.minimum(step, -1.0)
        jump = x0 - 2.0 * step[:, None] * r + (step * step)[:, None] * v
        bad = (step < -1.0) & (jump <= 0.0).any(axis=1)
        tries = 0
        while bad.any() and tries < SQUAREM_BACKTRACKS:
            step[bad] = 0.5 * (step[bad] - 1.0)
            jump[bad] = x0[bad] - 2.0 * step[bad, None] * r[bad] + (step[bad] * step[bad])[:, None] * v[bad]
            bad = (step < -1.0) & (jump <= 0.0).any(axis=1)
            tries += 1
        bad |= step >= -1.0  # a = -1 is x2 itself
        jump[bad] = x2[bad]
        x0 = jump
    return final, n_iter


def fit_documents(
    counts: sp.csr_matrix,
    exp_elog_beta: np.ndarray,
    elog_beta: np.ndarray,
    alpha: float | np.ndarray,
    doc_topic_init: np.ndarray,
    tol: float,
    max_iter: int,
    zero_order: bool = False,
    squarem: bool = False,
    statistics: bool = True,
) -> LocalFit:
    """Run the LDA local step on every document of ``counts``.

    Parameters
    ----------
    counts : csr_matrix of shape (n_docs, n_columns)
        Word counts, columns restricted to the minibatch's vocabulary.
    exp_elog_beta : ndarray of shape (n_topics, n_columns)
        exp E[log beta_kw] for those columns, each column rescaled to max 1
        (the rescaling cancels in phi).
    elog_beta : ndarray of shape (n_topics, n_columns)
        E[log beta_kw] itself, used only where the normaliser underflows.
    alpha : float or ndarray of shape (n_topics,)
        Dirichlet prior on topic proportions (a vector for the HDP's LDA start,
        alpha E[sigma(V)]).
    doc_topic_init : ndarray of shape (n_docs, n_topics)
        Initial gamma (ones in the paper's box, or random Gamma(100, 1/100)).
    tol, max_iter : float, int
        Stop a document when the mean absolute change of gamma_d is below tol.
    zero_order : bool
        Weigh topics by log E[theta_dk] = log(gamma_dk / sum_j gamma_dj) instead of
        E[log theta_dk] (the zero-order update of SCVB0; pass the matching
        log E[beta] as ``elog_beta``).
    squarem : bool
        Reach each document's fixed point by SQUAREM steps (:func:`_fit_block_squarem`).
    statistics : bool
        Also form the topic-word statistics; False returns gamma alone (``topic_word`` None).
    """
    dtype = exp_elog_beta.dtype
    n_docs = counts.shape[0]
    n_topics = exp_elog_beta.shape[0]
    tiny = _tiny(dtype, n_topics)
    beta_t = np.ascontiguousarray(exp_elog_beta.T)  # (n_columns, n_topics): one row per word
    rescue = _Rescue(np.ascontiguousarray(elog_beta.T))
    counts = counts.astype(dtype, copy=False)

    doc_topic = np.array(doc_topic_init, dtype=dtype, copy=True)
    n_iter = np.zeros(n_docs, dtype=np.int64)
    ratio_data = np.zeros(counts.nnz, dtype=dtype)  # c_dw / norm_dw in CSR data order
    exp_theta = np.zeros((n_docs, n_topics), dtype=dtype)
    rescued = []

    lengths = np.diff(counts.indptr)
    order = np.argsort(lengths, kind="stable")
    order = order[lengths[order] > 0]
    doc_topic[lengths == 0] = alpha
    end = order.size
    while end > 0:
        width = int(lengths[order[end - 1]])
        size = int(np.clip(_BLOCK_ELEMENTS // (width * n_topics), 1, _MAX_BLOCK_DOCS))
        docs = order[max(0, end - size):end]
        end -= docs.size
        valid, positions, words, word_counts = _block_layout(counts, docs, width)
        E = beta_t[words]  # (docs, width, topics)
        fit_block = _fit_block_squarem if squarem else _fit_block
        gamma, iters = fit_block(E, word_counts, words, doc_topic[docs], alpha, tol, max_iter, rescue, tiny,
                                 zero_order)
        doc_topic[docs] = gamma
        n_iter[docs] = iters
        if not statistics:
            continue
        # phi is optimal for the final gamma: recompute the normalisers once more
        elog_theta = _elog_theta(gamma, zero_order)
        theta = exp_shifted(elog_theta)
        norm = np.matmul(E, theta[:, :, None])[:, :, 0]
        lost = (norm <= tiny) & (word_counts > 0)
        ratio = np.divide(word_counts, np.maximum(norm, tiny), out=norm)
        ratio[lost] = 0.0
        ratio_data[positions[valid]] = ratio[valid]
        exp_theta[docs] = theta
        if lost.any():
            rows, cols = np.nonzero(lost)
            phi = rescue.weighted_phi(elog_theta[rows], words[rows, cols], word_counts[rows, cols])
            rescued.append((words[rows, cols], phi))

    if not statistics:
        return LocalFit(doc_topic=doc_topic, topic_word=None, n_iter=n_iter)
    ratios = sp.csr_matrix((ratio_data, counts.indices, counts.indptr), shape=counts.shape)
    # sum_d c_dw phi_dwk = beta~_kw * sum_d theta~_dk c_dw / norm_dw
    word_topic = np.asarray(ratios.T @ exp_theta) * beta_t
    for words, phi in rescued:
        np.add.at(word_topic, words, phi)
    return LocalFit(doc_topic=doc_topic, topic_word=np.ascontiguousarray(word_topic.T), n_iter=n_iter)


def local_step(topics, counts, columns, alpha, start, tol, max_iter, zero_order=False, squarem=False,
               statistics=True, cvb0_below=0.0) -> LocalFit:
    """The reference local step: the topic term with scipy on lambda's ``columns``, then :func:`fit_documents`.

    Documents of fewer than ``cvb0_below`` words (0: none, inf: all; needs ``zero_order``)
    take the CVB0 update of :func:`fit_documents_cvb0` instead, and ``squarem`` applies
    to the others; the statistics are the two parts' summed.
    """
    _check_cvb0(cvb0_below, zero_order)
    # E[log beta_kv] = psi(lambda_kv) - psi(sum_y lambda_ky) on the minibatch's columns only
    # (log E[beta_kv] = log lambda_kv - log sum_y lambda_ky for the zero-order step)
    elog_beta = dirichlet_expectation_columns(topics.columns(columns), topics.row_totals(), zero_order)
    exp_elog_beta = exp_shifted(elog_beta, axis=0)  # rescaled per word: the scale cancels in phi

    def fit(part, begin, cvb0: bool) -> LocalFit:
        if cvb0:
            return fit_documents_cvb0(part, exp_elog_beta, alpha, begin, tol, max_iter, statistics)
        return fit_documents(part, exp_elog_beta, elog_beta, alpha, begin, tol, max_iter, zero_order, squarem,
                             statistics)

    if cvb0_below <= 0 or np.isinf(cvb0_below):  # one update for every document: no lengths to read
        return fit(counts, start, cvb0_below > 0)
    by_cvb0 = np.asarray(counts.sum(axis=1)).ravel() < cvb0_below
    if by_cvb0.all() or not by_cvb0.any():
        return fit(counts, start, bool(by_cvb0.any()))
    short, others = fit(counts[by_cvb0], start[by_cvb0], True), fit(counts[~by_cvb0], start[~by_cvb0], False)
    doc_topic = np.empty((by_cvb0.size, short.doc_topic.shape[1]), dtype=short.doc_topic.dtype)
    doc_topic[by_cvb0], doc_topic[~by_cvb0] = short.doc_topic, others.doc_topic
    n_iter = np.empty(by_cvb0.size, dtype=np.int64)
    n_iter[by_cvb0], n_iter[~by_cvb0] = short.n_iter, others.n_iter
    topic_word = None if not statistics else others.topic_word + short.topic_word
    return LocalFit(doc_topic=doc_topic, topic_word=topic_word, n_iter=n_iter)


def _check_cvb0(cvb0_below: float, zero_order: bool) -> None:
    """The local steps' one rule for ``cvb0_below``: CVB0 is a zero-order update."""
    if cvb0_below > 0 and not zero_order:
        raise ValueError("the leave-one-out (CVB0) update is a zero-order update: cvb0_below > 0 needs zero_order")


def _cvb0_pass(g, phi, rows, counts, alpha, tiny):
    """One CVB0 pass over a document's words: (phi ∝ max(g - phi, 0) E[beta], alpha + sum_w c_w phi_w)."""
    phi = np.maximum(g - phi, 0.0) * rows
    phi /= np.maximum(phi.sum(axis=1, keepdims=True), tiny)
    return phi, alpha + counts @ phi


def fit_documents_cvb0(counts: sp.csr_matrix, beta: np.ndarray, alpha: float | np.ndarray,
                       doc_topic_init: np.ndarray, tol: float, max_iter: int, statistics: bool = True) -> LocalFit:
    """The local step with each word's own share left out of its document's counts (CVB0), document by document.

    The zero-order update weighs topic k for word w of document d by gamma_dk E[beta_kw],
    and gamma_dk already holds that word's own share phi_dwk: in a document of a few
    words the word votes for the topic it chose last time.  CVB0 (Asuncion, Welling,
    Smyth & Teh, UAI 2009) leaves one occurrence out, as collapsed Gibbs sampling leaves
    the token it resamples out of the counts:

        phi_dwk  ∝  (gamma_dk - phi_dwk) E[beta_kw],     gamma_d = alpha + sum_w c_dw phi_dw,

    every word's phi from the previous gamma, until the mean absolute change of gamma_d
    is below ``tol``.  phi starts at the zero-order responsibilities of ``doc_topic_init``.
    ``beta`` (n_topics, n_columns) holds E[beta_kw] on the minibatch's columns, each
    column rescaled (the scale cancels in phi).  phi is kept per (document, word): the
    statistics sum_d c_dw phi_dwk are formed from it directly.
    """
    dtype = beta.dtype
    n_docs, n_topics = counts.shape[0], beta.shape[0]
    tiny = _tiny(dtype, n_topics)
    beta_t = np.ascontiguousarray(beta.T)  # (n_columns, n_topics)
    counts = counts.astype(dtype, copy=False)
    alpha_vector = np.broadcast_to(np.asarray(alpha, dtype=dtype), (n_topics,))
    doc_topic = np.array(doc_topic_init, dtype=dtype, copy=True)
    n_iter = np.zeros(n_docs, dtype=np.int64)
    word_topic = np.zeros((counts.shape[1], n_topics), dtype=dtype) if statistics else None
    for d in range(n_docs):
        part = slice(counts.indptr[d], counts.indptr[d + 1])
        words, c = counts.indices[part], counts.data[part]
        if words.size == 0:
            doc_topic[d] = alpha_vector
            continue
        rows = beta_t[words]  # (n, K)
        # no share to leave out yet: the first pass gives the starting gamma's zero-order phi
        phi, g = _cvb0_pass(doc_topic[d], np.zeros_like(rows), rows, c, alpha_vector, tiny)
        for iteration in range(1, max_iter + 1):
            phi, new = _cvb0_pass(g, phi, rows, c, alpha_vector, tiny)
            change = float(np.abs(new - g).sum())
            g = new
            n_iter[d] = iteration
            if change < tol * n_topics:
                break
        doc_topic[d] = g
        if statistics:
            np.add.at(word_topic, words, c[:, None] * phi)
    return LocalFit(doc_topic=doc_topic, topic_word=None if word_topic is None else np.ascontiguousarray(word_topic.T),
                    n_iter=n_iter)
