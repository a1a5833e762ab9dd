"""Plain per-document reference implementations the vectorised engine is checked against."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import psi


def lda_local_reference(counts, lambda_, alpha, tol, max_iter, gamma0):
    """The paper's local loop, one document and one word type at a time (no tricks).

    phi_dwk ∝ exp(E[log theta_dk] + E[log beta_kw]), gamma_d = alpha + sum_w c_dw phi_dw.
    Returns gamma (D, K) and the statistics sum_d sum_n phi_dn w_dn (K, V).
    """
    log_beta = psi(lambda_) - psi(lambda_.sum(axis=1, keepdims=True))  # E[log beta_kw]
    return _per_document(counts, log_beta, lambda gamma: psi(gamma) - psi(gamma.sum()), alpha, tol, max_iter,
                         gamma0)


def zero_order_local_reference(counts, lambda_, alpha, tol, max_iter, gamma0):
    """SCVB0's zero-order local loop, one document and one word type at a time (no tricks).

    phi_dwk ∝ (gamma_dk / sum_j gamma_dj) (lambda_kw / sum_v lambda_kv);
    gamma_d = alpha + sum_w c_dw phi_dw.  Returns gamma (D, K) and sum_d c_dw phi_dwk (K, V).
    """
    log_beta = np.log(lambda_ / lambda_.sum(axis=1, keepdims=True))  # log E[beta_kw]
    return _per_document(counts, log_beta, lambda gamma: np.log(gamma / gamma.sum()), alpha, tol, max_iter,
                         gamma0)


def _per_document(counts, log_beta, log_theta, alpha, tol, max_iter, gamma0):
    """gamma_d = alpha + sum_w c_dw phi_dw with phi_dwk ∝ exp(log_theta(gamma_d)_k + log_beta_kw), per document."""
    counts = counts.tocsr()
    K, V = log_beta.shape
    gamma_all = np.array(gamma0, dtype=float)
    sstats = np.zeros((K, V))

    def phi_of(gamma, words):
        logits = log_theta(gamma)[None, :] + log_beta[:, words].T  # (N, K)
        phi = np.exp(logits - logits.max(axis=1, keepdims=True))
        return phi / phi.sum(axis=1, keepdims=True)

    for d in range(counts.shape[0]):
        words = counts.indices[counts.indptr[d]:counts.indptr[d + 1]]
        cnt = counts.data[counts.indptr[d]:counts.indptr[d + 1]].astype(float)
        gamma = gamma_all[d].copy()
        if words.size == 0:
            gamma_all[d] = alpha
            continue
        for _ in range(max_iter):
            new = alpha + cnt @ phi_of(gamma, words)
            change = np.mean(np.abs(new - gamma))
            gamma = new
            if change < tol:
                break
        sstats[:, words] += (cnt[:, None] * phi_of(gamma, words)).T
        gamma_all[d] = gamma
    return gamma_all, sstats


def planted_counts(n_docs=300, n_topics=4, words_per_topic=12, doc_length=60, seed=0, alpha=0.3):
    """Counts from an LDA whose topics live on disjoint blocks of words; returns (X, topics)."""
    rng = np.random.default_rng(seed)
    V = n_topics * words_per_topic
    topics = np.zeros((n_topics, V))
    for k in range(n_topics):
        topics[k, k * words_per_topic:(k + 1) * words_per_topic] = rng.dirichlet(np.full(words_per_topic, 5.0))
    theta = rng.dirichlet(np.full(n_topics, alpha), size=n_docs)
    rows = []
    for d in range(n_docs):
        rows.append(rng.multinomial(doc_length, theta[d] @ topics))
    return sp.csr_matrix(np.array(rows)), topics


def one_theme_documents(shares=(0.4, 0.3, 0.2, 0.1), n_docs=1500, block=10, length=8, seed=0):
    """Documents of ``length`` tokens that each draw from one of len(shares) disjoint ``block``-word blocks.

    Returns the counts (n_docs, block * len(shares)) and each document's block (its theme).
    """
    rng = np.random.default_rng(seed)
    theme = rng.choice(len(shares), size=n_docs, p=shares)
    rows = np.repeat(np.arange(n_docs), length)
    words = theme[rows] * block + rng.integers(0, block, size=rows.size)
    return sp.csr_matrix((np.ones(rows.size), (rows, words)), shape=(n_docs, block * len(shares))), theme
