"""The local step of the HDP topic model, vectorised over a whole minibatch.

For each document d this runs the local loop of the algorithm box
"Stochastic variational inference for the HDP topic model" (Hoffman et al.
2013) with the topics and corpus sticks held fixed.  Document d has T atoms;
atom i points at a corpus topic (q(c_di) = Mult(zeta_di), K-vector), the atom
weights break a stick (q(pi_di) = Beta(gamma_di^(1), gamma_di^(2)), i < T,
pi_dT = 1) and each word picks an atom (q(z_dn) = Mult(phi_dn), T-vector):

    gamma_di^(1) = 1 + sum_n phi_dn^i
    gamma_di^(2) = alpha + sum_n sum_{j>i} phi_dn^j
    zeta_di^k    ∝ exp{E[log sigma_k(V)] + sum_n phi_dn^i E[log beta_k,w_dn]}
    phi_dn^i     ∝ exp{E[log sigma_i(pi_d)] + sum_k zeta_di^k E[log beta_k,w_dn]}

Sums over n run over word tokens; they are computed per distinct word type
with its count c_dw (all tokens of a type share one phi).  Both zeta and phi
are normalised in log space (shift by the maximum before exponentiating), so
tiny alpha or eta cannot underflow a normaliser.

Start (``init``):
  "lda"    aims the atoms at the document's own topics: first LDA's local
           step is run with the HDP's finite approximation of the document's
           topic proportions, theta_d ~ Dirichlet(alpha E[sigma(V)]) (as Wang,
           Paisley & Blei's code does for held-out documents); atom i is aimed
           at the topic k_i with the i-th largest expected word count, and
           phi_dw^i ∝ exp{E[log theta_d,k_i] + E[log beta_k_i,w]}, LDA's word
           responsibilities restricted to those T topics.  The loop then starts
           with the gamma and zeta updates.
  "paper"  the algorithm box's start, zeta_di^k ∝ exp{sum_n E[log beta_k,w_dn]}
           for every i, then phi_dn^i ∝ exp{sum_k zeta_di^k E[log beta_k,w_dn]}.
           All T atoms start identical (phi is uniform); only the document
           stick prior E[log sigma_i(pi_d)] tells them apart afterwards.
``warmup_iter`` first iterations leave out both E[log sigma] terms (as in
Wang, Paisley & Blei's online HDP code; with the "paper" start the atoms stay
identical while the terms are left out, so the warm-up changes nothing but
the iteration count there).  A warm start (the phi of an earlier
local step, as batch coordinate ascent uses) skips both the start and the
warm-up, so every update is an exact coordinate step and the ELBO cannot fall.

Zero-order updates: E[log x] replaced by log E[x], the zero-order collapsed
update of SCVB0 (Foulds, Boyles, DuBois, Smyth & Welling, "Stochastic collapsed
variational Bayesian inference for latent Dirichlet allocation", KDD 2013;
CVB0 of Asuncion, Welling, Smyth & Teh, UAI 2009) carried over to the HDP.
The topic and corpus-stick terms come in as arguments (the caller passes
log E[beta] and log E[sigma(V)] for them); the ``zero_order`` flag switches
the document sticks and the "lda" start.  With all three:

    zeta_di^k ∝ exp{log E[sigma_k(V)] + sum_n phi_dn^i log E[beta_k,w_dn]}
    phi_dn^i  ∝ exp{log E[sigma_i(pi_d)] + sum_k zeta_di^k log E[beta_k,w_dn]}

with E[beta_kw] = lambda_kw / sum_v lambda_kv and E[sigma] the products of
Beta means (:func:`stick_weights`); the "lda" start then runs LDA's
zero-order step.  Mean field's exp E[log beta_kw] = exp psi(lambda_kw) / exp
psi(sum_v lambda_kv) is about lambda_kw e^-1/2 for large lambda_kw but falls
to e^{-1/lambda_kw} for small ones (psi(0.01) ~ -100), so a topic that holds
little of a word is all but forbidden to take it and small topics starve;
the zero-order weights keep them in proportion.  The updates are no longer
coordinate ascent on the ELBO; the global step is unchanged.

Convergence: a document stops when the mean absolute change (over the K
topics) of its expected topic usage u_dk = sum_i zeta_di^k sum_n c_dn phi_dn^i
falls below ``tol`` (u_d plays the role of LDA's gamma_d - alpha and is on
the same scale: expected word counts), or after ``max_iter`` iterations.
The check compares two consecutive iterations that both include the stick
terms, so it starts with the second iteration after the warm-up.

Documents are grouped by length into padded blocks; each block gathers its
E[log beta] columns once into a (docs, words, topics) array and both sums are
batched matrix products.  Converged documents are frozen and dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from engine.kernels.reference.lda import _block_layout
from engine.kernels.reference.lda import _elog_theta as lda_elog_theta
from engine.kernels.reference.lda import fit_documents as fit_lda_documents
from engine.models.expectations import dirichlet_expectation_columns, stick_expectation

_BLOCK_ELEMENTS = 1 << 20  # entries of one (docs, words, topics) block: 8 MB in float64
_MAX_BLOCK_DOCS = 64
_COMPACT_WHEN_FROZEN = 0.25  # drop frozen documents once they are a quarter of a block


@dataclass(frozen=True)
class HDPLocalFit:
    """Local variational parameters of a minibatch.

    Attributes
    ----------
    atom_topic : ndarray of shape (n_docs, T, K)
        The paper's zeta_di: which corpus topic each document atom points at.
    word_atom : ndarray of shape (nnz, T)
        The paper's phi_dn, one row per stored entry of the CSR counts (data order).
    doc_sticks : ndarray of shape (n_docs, T - 1, 2)
        The paper's gamma_di = (gamma_di^(1), gamma_di^(2)).
    n_iter : ndarray of shape (n_docs,)
        Local iterations each document took.
    atom_use : ndarray of shape (n_docs, T), or None
        :func:`atom_use` of ``word_atom``, when the kernel computed it with the fit (the
        compiled one does, per document while its phi is at hand); None: not computed.
    """

    atom_topic: np.ndarray
    word_atom: np.ndarray
    doc_sticks: np.ndarray
    n_iter: np.ndarray
    atom_use: np.ndarray | None = None


def _softmax(logits: np.ndarray) -> np.ndarray:
    """Normalise exp(logits) over the last axis, in place, shifted by the maximum.

    Shifted logits are floored at log(tiny) + 10 so no probability becomes a
    subnormal number (which makes later products many times slower, in
    float32 especially); the floor is ~e^-77 in float32 and ~e^-698 in float64.
    """
    logits -= logits.max(axis=-1, keepdims=True)
    np.maximum(logits, np.log(np.finfo(logits.dtype).tiny) + 10.0, out=logits)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=-1, keepdims=True)
    return logits


def doc_stick_params(atom_words: np.ndarray, alpha: float) -> np.ndarray:
    """gamma_di from the expected words per atom n_di = sum_n phi_dn^i.

    gamma_di^(1) = 1 + n_di and gamma_di^(2) = alpha + sum_{j>i} n_dj, i < T.
    ``atom_words`` has shape (..., T); the result has shape (..., T - 1, 2).
    """
    later = np.cumsum(atom_words[..., ::-1], axis=-1)[..., ::-1]  # sum_{j>=i} n_dj
    return np.stack((1.0 + atom_words[..., :-1], alpha + later[..., 1:]), axis=-1)


def stick_weights(sticks: np.ndarray) -> np.ndarray:
    """E[sigma_i(V)] = E[V_i] prod_{j<i} (1 - E[V_j]) for independent V_j ~ Beta(a_j, b_j).

    Under the mean-field posterior the sticks are independent, so the
    expectation of the product is the product of the Beta means; the last
    atom takes what is left (V = 1 at the truncation) and the weights sum to 1.
    ``sticks`` has shape (..., n - 1, 2); the result has shape (..., n).
    """
    a, b = sticks[..., 0], sticks[..., 1]
    mean = a / (a + b)
    shape = (*sticks.shape[:-2], sticks.shape[-2] + 1)
    weights = np.ones(shape, dtype=np.result_type(sticks.dtype, np.float32))
    weights[..., :-1] = mean
    weights[..., 1:] *= np.cumprod(1.0 - mean, axis=-1)
    return weights


def expected_doc_topics(doc_sticks: np.ndarray, atom_topic: np.ndarray) -> np.ndarray:
    """E[theta_dk] = sum_i E[sigma_i(pi_d)] zeta_di^k, shape (n_docs, K), rows summing to 1.

    A document's topic proportions are theta_dk = sum_i sigma_i(pi_d) [c_di = k];
    pi_d and c_d are independent under q, so the expectation is exact.
    """
    weights = stick_weights(doc_sticks)  # (D, T)
    return np.matmul(weights[:, None, :], atom_topic)[:, 0, :]


_MIXTURE_CHUNK = 4096  # stored entries whose mixtures entry_mixtures forms at once (their rows stay in cache)


def entry_mixtures(indptr: np.ndarray, indices: np.ndarray, theta: np.ndarray, by_word: np.ndarray) -> np.ndarray:
    """sum_k theta_dk beta_kw for each stored entry (d, w) of a CSR (``indptr``, ``indices``), float64.

    ``theta`` (n_docs, K) and ``by_word`` (V, K, one word's topics contiguous) in the
    precision the sums are formed in.  The births' DocumentSplit divides each count by it.
    """
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    out = np.empty(indices.size)
    for start in range(0, indices.size, _MIXTURE_CHUNK):
        part = slice(start, start + _MIXTURE_CHUNK)
        out[part] = np.einsum("ij,ij->i", theta[rows[part]], by_word[indices[part]])
    return out


def _document_sums(counts: sp.csr_matrix, per_entry: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """sum_n weights_n per_entry[n] over each document's stored entries n of the CSR ``counts``, 0 for empty ones.

    ``weights`` None: 1.  One sparse (documents x entries) product, in the precision of the
    two operands together: no weighted (entries, width) copy.
    """
    values = np.ones(counts.nnz) if weights is None else np.asarray(weights)
    dtype = per_entry.dtype if weights is None else np.result_type(per_entry.dtype, values.dtype)
    by_document = sp.csr_matrix((values.astype(dtype, copy=False), np.arange(counts.nnz), counts.indptr),
                                shape=(counts.shape[0], counts.nnz))
    return np.asarray(by_document @ per_entry.astype(dtype, copy=False))


def atom_counts(counts: sp.csr_matrix, word_atom: np.ndarray) -> np.ndarray:
    """n_di = sum_n phi_dn^i (token-weighted), shape (n_docs, T)."""
    return _document_sums(counts, word_atom, counts.data)


def atom_use(counts: sp.csr_matrix, word_atom: np.ndarray) -> np.ndarray:
    """P(atom i holds at least one of document d's words) = 1 - prod_n (1 - phi_dn^i), shape (n_docs, T).

    Tokens choose their atoms independently under q(z), so the product runs over tokens:
    a word type of count c_dw contributes (1 - phi_dw^i)^c_dw.
    """
    dtype = np.result_type(word_atom.dtype, np.float32)
    # phi = 1 gives log 0: floored at 1 - 16 eps (1 - 2e-6 in float32), P(used) = 1 to the dtype's precision
    probability = np.minimum(word_atom, 1.0 - 16 * np.finfo(dtype).eps, dtype=dtype)
    log_unused = _document_sums(counts, np.log1p(-probability), counts.data.astype(dtype))
    return 0.0 - np.expm1(log_unused)  # 0.0 - : +0 for documents without words


def topic_word_stats(counts: sp.csr_matrix, word_atom: np.ndarray, atom_topic: np.ndarray) -> np.ndarray:
    """sum_d sum_i zeta_di^k sum_n phi_dn^i w_dn, shape (K, n_columns of counts).

    One sparse product: a (words x (docs*atoms)) matrix holding c_dw phi_dw^i
    times the stacked zeta, (docs*atoms) x K.
    """
    D, T, K = atom_topic.shape
    rows = np.repeat(np.arange(D), np.diff(counts.indptr))
    data = (counts.data[:, None] * word_atom).ravel()
    cols = (rows[:, None] * T + np.arange(T)[None, :]).ravel()
    words = np.repeat(counts.indices, T)
    weighted = sp.csr_matrix((data, (words, cols)), shape=(counts.shape[1], D * T))
    return np.ascontiguousarray(np.asarray(weighted @ atom_topic.reshape(D * T, K)).T)


def _initial_word_atom(E, word_counts, n_atoms, init, lda_gamma, topic_prior, zero_order=False):
    """phi at the start of the loop, shape (docs, width, T)."""
    B, W, _ = E.shape
    if init == "paper":
        # zeta_di^k ∝ exp{sum_n E[log beta_k,w_dn]}, the same for every atom i
        zeta = _softmax(np.matmul(word_counts[:, None, :], E))  # (B, 1, K)
        # phi_dn^i ∝ exp{sum_k zeta_di^k E[log beta_k,w_dn]}: equal logits for every i
        logits = np.matmul(E, zeta.transpose(0, 2, 1))  # (B, W, 1)
        return _softmax(np.repeat(logits, n_atoms, axis=2))
    # "lda": atom i <- the topic k_i with the i-th largest expected count gamma_dk - prior_k;
    # phi_dw^i ∝ exp{E[log theta_d,k_i] + E[log beta_k_i,w]} (log E[.] of both under zero_order)
    top = np.argsort(-(lda_gamma - topic_prior), axis=1, kind="stable")[:, :n_atoms]  # (B, T)
    elog_theta = lda_elog_theta(lda_gamma, zero_order)
    logits = np.take_along_axis(E, np.broadcast_to(top[:, None, :], (B, W, n_atoms)), axis=2)
    logits += np.take_along_axis(elog_theta, top, axis=1)[:, None, :]
    return _softmax(logits)


def _doc_stick_terms(doc_sticks: np.ndarray, zero_order: bool) -> np.ndarray:
    """E[log sigma_i(pi_d)] from gamma_d, or log E[sigma_i(pi_d)] for the zero-order update; shape (..., T)."""
    if zero_order:
        return np.log(stick_weights(doc_sticks))
    return stick_expectation(doc_sticks)


def _fit_block(E, word_counts, word_atom, elog_sticks, alpha, tol, max_iter, warmup, zero_order=False):
    """Iterate the local updates for one padded block; returns (zeta, phi, gamma, n_iter)."""
    B, _, K = E.shape
    T = word_atom.shape[2]
    out_zeta = np.zeros((B, T, K), dtype=E.dtype)
    out_phi = word_atom.copy()
    out_gamma = np.zeros((B, T - 1, 2), dtype=E.dtype)
    n_iter = np.zeros(B, dtype=np.int64)
    live = np.arange(B)  # block rows still in the working arrays
    frozen = np.zeros(B, dtype=bool)
    E_live, c_live, phi = E, word_counts, word_atom
    c_row = c_live[:, None, :]
    usage_prev = None
    for it in range(max_iter):
        prior = it >= warmup
        n = np.matmul(c_row, phi)[:, 0, :]  # (b, T): n_di = sum_n c_dn phi_dn^i
        gamma = doc_stick_params(n, alpha)
        # zeta_di^k ∝ exp{E[log sigma_k(V)] + sum_n c_dn phi_dn^i E[log beta_k,w_dn]}
        zeta = np.matmul((phi * c_live[:, :, None]).transpose(0, 2, 1), E_live)  # (b, T, K)
        if prior:
            zeta += elog_sticks
        zeta = _softmax(zeta)
        # phi_dn^i ∝ exp{E[log sigma_i(pi_d)] + sum_k zeta_di^k E[log beta_k,w_dn]}
        phi = np.matmul(E_live, zeta.transpose(0, 2, 1))  # (b, W, T)
        if prior:
            phi += _doc_stick_terms(gamma, zero_order)[:, None, :].astype(phi.dtype, copy=False)
        phi = _softmax(phi)
        usage = np.matmul(np.matmul(c_row, phi), zeta)[:, 0, :]  # u_dk = sum_i zeta_di^k n_di
        active = ~frozen[live]
        n_iter[live[active]] += 1
        if it > warmup:  # compare two consecutive iterations that both had the stick terms
            done = active & (np.abs(usage - usage_prev).mean(axis=1) < tol)
        else:
            done = np.zeros(live.size, dtype=bool)
        if it == max_iter - 1:
            done = active
        usage_prev = usage
        if done.any():
            rows = live[done]
            frozen[rows] = True
            out_zeta[rows], out_phi[rows], out_gamma[rows] = zeta[done], phi[done], gamma[done]
        keep = ~frozen[live]
        if not keep.any():
            break
        if 1.0 - keep.mean() >= _COMPACT_WHEN_FROZEN:
            live = live[keep]
            E_live, c_live, phi, usage_prev = E_live[keep], c_live[keep], phi[keep], usage_prev[keep]
            c_row = c_live[:, None, :]
    return out_zeta, out_phi, out_gamma, n_iter


def fit_documents(
    counts: sp.csr_matrix,
    elog_beta: np.ndarray,
    elog_sticks: np.ndarray,
    alpha: float,
    n_atoms: int,
    tol: float,
    max_iter: int,
    warmup_iter: int = 0,
    init: str = "lda",
    topic_prior: np.ndarray | None = None,
    word_atom_init: np.ndarray | None = None,
    zero_order: bool = False,
) -> HDPLocalFit:
    """Run the HDP local step on every document of ``counts``.

    Parameters
    ----------
    counts : csr_matrix of shape (n_docs, n_columns)
        Word counts (sorted indices), columns restricted to the minibatch's vocabulary.
    elog_beta : ndarray of shape (K, n_columns)
        E[log beta_kw] for those columns.
    elog_sticks : ndarray of shape (K,)
        E[log sigma_k(V)] of the corpus sticks.
    alpha : float
        Document-level concentration.
    n_atoms : int
        Document truncation T.
    tol, max_iter : float, int
        Convergence threshold on the expected topic usage, and iteration cap.
    warmup_iter : int
        Leading iterations without the E[log sigma] terms (ignored with a warm start).
    init : {"lda", "paper"}
        How phi starts (ignored with a warm start); see the module docstring.
    topic_prior : ndarray of shape (K,), optional
        alpha E[sigma_k(V)], the Dirichlet parameter of the "lda" start.
    word_atom_init : ndarray of shape (nnz, T), optional
        phi of an earlier local step on the same documents (warm start).
    zero_order : bool
        Use log E[sigma_i(pi_d)] for the document sticks and log E[theta_d]
        in the "lda" start (whose LDA step then takes the zero-order update);
        pass log E[beta] and log E[sigma(V)] as ``elog_beta`` and
        ``elog_sticks`` to match.  See the module docstring.
    """
    dtype = elog_beta.dtype
    D = counts.shape[0]
    K = elog_beta.shape[0]
    T = n_atoms
    elog_beta_t = np.ascontiguousarray(elog_beta.T)  # (n_columns, K): one row per word
    elog_sticks = np.asarray(elog_sticks, dtype=dtype)
    counts = counts.astype(dtype, copy=False)
    warm = word_atom_init is not None
    warmup = 0 if warm else warmup_iter
    lda_gamma = None
    if init == "lda" and not warm:
        # LDA's local step with theta_d ~ Dirichlet(alpha E[sigma(V)]), started at gamma_d = 1
        topic_prior = np.asarray(topic_prior, dtype=dtype)
        exp_elog_beta = np.exp(elog_beta - elog_beta.max(axis=0, keepdims=True))
        lda_gamma = fit_lda_documents(
            counts, exp_elog_beta, elog_beta, topic_prior, np.ones((D, K), dtype=dtype), tol, max_iter, zero_order
        ).doc_topic

    atom_topic = np.empty((D, T, K), dtype=dtype)
    word_atom = np.empty((counts.nnz, T), dtype=dtype)
    doc_sticks = np.empty((D, T - 1, 2), dtype=dtype)
    n_iter = np.zeros(D, dtype=np.int64)

    lengths = np.diff(counts.indptr)
    empty = lengths == 0
    # a document without words: zeta_di ∝ exp E[log sigma(V)], gamma_di = (1, alpha)
    atom_topic[empty] = _softmax(elog_sticks.copy())
    doc_sticks[empty] = doc_stick_params(np.zeros(T, dtype=dtype), alpha)
    order = np.argsort(lengths, kind="stable")
    order = order[lengths[order] > 0]
    end = order.size
    while end > 0:
        width = int(lengths[order[end - 1]])
        size = int(np.clip(_BLOCK_ELEMENTS // (width * max(K, T)), 1, _MAX_BLOCK_DOCS))
        docs = order[max(0, end - size):end]
        end -= docs.size
        valid, positions, words, word_counts = _block_layout(counts, docs, width)
        E = elog_beta_t[words]  # (docs, width, K)
        if warm:
            start = np.where(valid[:, :, None], word_atom_init[positions], 1.0 / T).astype(dtype)
        else:
            start = _initial_word_atom(
                E, word_counts, T, init, None if lda_gamma is None else lda_gamma[docs], topic_prior, zero_order
            )
        zeta, phi, gamma, iters = _fit_block(E, word_counts, start, elog_sticks, alpha, tol, max_iter, warmup,
                                             zero_order)
        atom_topic[docs] = zeta
        doc_sticks[docs] = gamma
        word_atom[positions[valid]] = phi[valid]
        n_iter[docs] = iters
    return HDPLocalFit(atom_topic=atom_topic, word_atom=word_atom, doc_sticks=doc_sticks, n_iter=n_iter)


def _fit_with_stats(counts, *args):
    """The reference document fit and its topic-word statistics, as (fit, topic_word)."""
    fit = fit_documents(counts, *args)
    return fit, topic_word_stats(counts, fit.word_atom, fit.atom_topic)


def local_kernel(topics, columns: np.ndarray, mean: bool = False):
    """E[log beta] (log E[beta] if ``mean``) on ``columns`` (K x n_columns), and the reference document fit."""
    return dirichlet_expectation_columns(topics.columns(columns), topics.row_totals(), mean), _fit_with_stats
