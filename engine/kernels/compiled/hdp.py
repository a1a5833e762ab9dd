"""Compiled HDP local step (numba): one fused loop per document, documents spread over cores.

The same mathematics as :mod:`engine.kernels.reference.hdp`, the NumPy reference it is
tested against (see there for the updates, the two starts, the warm-up, the
zero-order update and the convergence test).  Per document the kernel gathers the E[log beta] rows
of its n distinct words once into a contiguous (n, K) array E and iterates

    Z   = E^T (c o phi) + E[log sigma(V)]       zeta = softmax over topics of Z    (K x T)
    P   = E zeta + E[log sigma(pi_d)]           phi  = softmax over atoms of P     (n x T)

with the two products as BLAS calls on the document's own arrays (scipy's
xgemm through numba's binding, single-threaded inside the parallel loop), and
the softmaxes and digammas vectorised (both in :mod:`engine.kernels.compiled.numerics`).
The minibatch-wide passes over its words' E[log beta] rows are in
:mod:`engine.kernels.compiled.hdp_rows`.  The "lda" start runs LDA's local step
inside the same loop, summing only the topics whose exp(E[log theta_k]) is
not flushed to zero (a flushed topic keeps gamma_k = alpha_k exactly).

Topics far down the corpus sticks: most of the T atoms of a document carry
few words, and their zeta_di^k is close to the stick prior exp E[log sigma_k(V)],
which falls by about a nat per topic, so past the first ~50 topics it is below
1e-22 for every such atom.  Each iteration first computes every atom's logits
on a "head" of the first c topics (those whose stick term is within
log(2^-60 / (K max|E[log beta]|)) of the largest, plus a margin), then bounds
each atom's logits past the head:
sum_n c_dn phi_dn^i E[log beta_k,w_dn] <= sum_n c_dn phi_dn^i max_{k' >= c} E[log beta_k',w_dn],
plus the largest stick term there.  An atom whose bound lies far enough below
its largest head logit has zeta past the head summing to less than
2^-60 / max|E[log beta]| (2^-30 in float32): leaving those entries out of the
normaliser and of phi's logits moves them by less than 2^-60, far below the
rounding of the products themselves.  The other atoms (those whose words point
them at a far topic) get their tails exactly.  The zeta returned holds the
left-out entries as 0 (the reference's values there sum to less than the
skip mass per atom), and the topic-word statistics skip them too: a word's
statistic moves by less than 2^-60 of its count.  Completing those entries
exactly, as an earlier version did, cost one more product per document
(benchmarks/RESULTS.md, run 10).

A document whose LDA normaliser would need the exact log-space treatment (or
whose result is not finite) is handed back to the NumPy reference.
``prange`` spreads the documents over the cores without the GIL; the
topic-word statistics follow in a second pass, a chunk of documents at a time:
each document's entries times its zeta (one product a document, in parallel
over the documents), then each word's sum in document order (in parallel over
parts of the words), so the result depends neither on the number of threads
nor on the chunks or parts.  (It used to form the products once per part of the
words, eight small products a document: 2-3x the time on short documents.)
"""

from __future__ import annotations

import contextlib
import functools
import math

import numba
import numpy as np
import scipy.sparse as sp

from engine.kernels.compiled.arguments import HDPDocSettings, HDPTopicTerm, Minibatch
from engine.kernels.compiled.hdp_rows import EXP_FLOOR, elog_beta_rows, exp_shifted_rows, log_mean_rows, word_bounds
from engine.kernels.compiled.lda import _accumulate
from engine.kernels.compiled.numerics import all_finite, copy_vector, digamma_inplace, exp_inplace, gemm, psi_values
from engine.kernels.flags import FAST_MATH_FINITE, PARALLEL_LOCK
from engine.kernels.reference.hdp import HDPLocalFit, atom_use
from engine.kernels.reference.hdp import fit_documents as fit_documents_reference
from engine.kernels.reference.lda import _flush_floor, _tiny

_LDA, _PAPER, _WARM = 0, 1, 2  # how phi starts
_N, _T = ord("n"), ord("t")
_SKIP_MASS = {np.dtype(np.float64): 2.0**-60, np.dtype(np.float32): 2.0**-30}  # see the module docstring
_HEAD_MARGIN = 3.0  # nats of stick term kept in the head beyond the skip threshold
_TOPIC_WORD_PARTS = 8  # column parts of the topic-word pass's sums (its result does not depend on them)
_CHUNK_ENTRIES = 4096  # entries whose products the topic-word pass holds at once (in cache)
_BLAS_CONTROLLER = None
_SERIES_BELOW = 1e-3  # _atom_use: phi below which log(1 - phi) is summed by its series
_UNDERFLOW = 1e-250  # _atom_use: a product of (1 - phi) below this is taken as 0

# The helpers below are numba functions of their own, not inline="always", and rows are copied by
# copy_vector, not by array assignment: the two made the HDP's compile 1.6-1.7x as long (RESULTS.md, run 84).


@numba.njit(cache=True, fastmath=FAST_MATH_FINITE)
def _softmax_rows(x, floor, bits, inverse):
    """Each row of the C-contiguous x <- exp(x - max) / sum, shifted values floored at ``floor``.

    The floor is the reference's: no probability becomes subnormal.  ``inverse``
    receives each row's 1 / sum (all finite iff every result is).
    """
    R, C = x.shape
    for r in range(R):
        top = x[r, 0]
        for c in range(1, C):
            top = max(top, x[r, c])
        for c in range(C):
            x[r, c] = max(x[r, c] - top, floor)
    exp_inplace(x.reshape(R * C), bits)
    for r in range(R):
        total = 0.0
        for c in range(C):
            total += x[r, c]
        inv = 1.0 / total
        inverse[r] = inv
        for c in range(C):
            x[r, c] *= inv


@numba.njit(cache=True, fastmath=FAST_MATH_FINITE)
def _lda_start(B, c, alpha, psi_alpha, tol, max_iter, tiny, floor, g, theta, acc, psi_g, active, compact, norm,
               work, iwork, zero_order):
    """LDA's local step from gamma = 1, as :mod:`engine.kernels.compiled.lda`; False if a normaliser underflowed.

    gamma_k = alpha_k + theta~_k sum_w (c_w / norm_w) beta~_kw with norm_w = sum_k theta~_k beta~_kw
    and theta~_k = exp(E[log theta_k] - max_j E[log theta_j]), flushed to 0 below exp(floor).
    A flushed topic adds nothing to norm_w and keeps gamma_k = alpha_k exactly
    (psi_g_k = psi(alpha_k)), so once few topics are left their columns of beta~
    are copied into ``compact`` (one row per topic) and only they are summed.
    ``zero_order``: log gamma_k in place of psi(gamma_k) (theta~_k = gamma_k / max_j gamma_j),
    with ``psi_alpha`` holding log alpha_k.
    """
    n, K = B.shape
    for k in range(K):
        g[k] = 1.0
        theta[k] = 1.0  # exp(E[log theta_k] - max) with every gamma_k equal
        acc[k] = 0.0
        active[k] = k
    n_active = K
    changed = True
    built = False  # ``compact`` holds the columns of the current active topics
    for _ in range(max_iter):
        if 4 * n_active > K:  # dense: the flushed topics add exact zeros
            built = False
            for k in range(K):
                acc[k] = 0.0
            if not _accumulate(theta, B, c, acc, tiny):
                return False
        else:
            if changed or not built:
                built = True
                for a in range(n_active):
                    k = active[a]
                    for j in range(n):
                        compact[a, j] = B[j, k]
            for j in range(n):
                norm[j] = 0.0
            for a in range(n_active):
                t = theta[active[a]]
                for j in range(n):
                    norm[j] += t * compact[a, j]
            low = np.inf
            for j in range(n):
                low = min(low, norm[j])
                norm[j] = c[j] / norm[j]
            if low <= tiny:
                return False
            for a in range(n_active):
                s = acc.dtype.type(0)
                for j in range(n):
                    s += norm[j] * compact[a, j]
                acc[active[a]] = s
        # gamma_k = alpha_k + theta~_k acc_k: exactly alpha_k where theta~_k = 0 (acc_k is finite)
        change = 0.0
        for k in range(K):
            value = alpha[k] + theta[k] * acc[k]
            change += abs(value - g[k])
            g[k] = value
        # psi of the active gammas, vectorised; the others hold psi(alpha_k)
        for a in range(n_active):
            work[0, a] = g[active[a]]
        m = n_active
        if zero_order:
            for a in range(m):
                work[0, a] = math.log(work[0, a])
        else:
            digamma_inplace(work[0, :m], work[1, :m], work[2, :m], iwork[:m], work[3, :m])
        for a in range(n_active):
            psi_g[active[a]] = work[0, a]
        top = -np.inf
        for k in range(K):
            top = max(top, psi_g[k])
        # theta~_k = exp(psi(gamma_k) - max_j psi(gamma_j)), the same shift as E[log theta] - max
        previous = n_active
        n_active = 0
        changed = False
        for k in range(K):
            shifted = psi_g[k] - top
            if shifted >= floor:
                changed |= theta[k] == 0.0
                active[n_active] = k
                work[0, n_active] = shifted
                n_active += 1
            else:
                theta[k] = 0.0
                psi_g[k] = psi_alpha[k]
        exp_inplace(work[0, :n_active], iwork)
        for a in range(n_active):
            theta[active[a]] = work[0, a]
        changed |= n_active != previous
        if change < tol * K:
            break
    return True


@numba.njit(cache=True, fastmath=FAST_MATH_FINITE)
def _exp_block(x, rows, columns, buffer, bits):
    """x[r, c] <- exp(x[r, c]) on the strided block x[:rows, :columns], through a contiguous buffer."""
    m = 0
    for r in range(rows):
        for c in range(columns):
            buffer[m] = x[r, c]
            m += 1
    exp_inplace(buffer[:m], bits)
    m = 0
    for r in range(rows):
        for c in range(columns):
            x[r, c] = buffer[m]
            m += 1


@numba.njit(cache=True, fastmath=FAST_MATH_FINITE)
def _zeta_update(E, weighted, zeta_t, stick_term, head, tail_max, tail_stick, log_skip, floor, top, total, bits,
                 buffer):
    """zeta_di^k ∝ exp{E[log sigma_k(V)] + sum_n c_dn phi_dn^i E[log beta_k,w_dn]}, into zeta_t (K x T).

    ``weighted`` is c o phi (n x T); ``stick_term`` is E[log sigma(V)] (zeros
    during the warm-up).  Every atom gets the first ``head`` topics; the rest
    only the atoms below the returned ``exact``, the others' entries there are
    left as they are (not read).  ``top`` and ``total`` keep each atom's shift
    and 1 / normaliser.

    The bound: past the head, sum_n c phi E[log beta_k] <= sum_n c phi ``tail_max``
    (the largest E[log beta] of each word over those topics) and the stick term
    is at most ``tail_stick``; an atom whose bound is ``log_skip`` below its
    largest head logit has its remaining zeta below 2^-60 / max|E[log beta]| in all.
    """
    n, K = E.shape
    T = weighted.shape[1]
    rows = head
    gemm(_T, _N, rows, T, n, E, K, weighted, T, 0.0, zeta_t, T)
    for i in range(T):
        top[i] = -np.inf
        total[i] = 0.0
    for k in range(rows):
        s = stick_term[k]
        for i in range(T):
            zeta_t[k, i] += s
            top[i] = max(top[i], zeta_t[k, i])
    exact = 0
    if rows < K:
        for i in range(T):
            total[i] = tail_stick  # the bound, accumulated in ``total`` for now
        for j in range(n):
            m = tail_max[j]
            for i in range(T):
                total[i] += weighted[j, i] * m
        for i in range(T):
            if total[i] - top[i] >= log_skip:
                exact = i + 1
            total[i] = 0.0
        if exact > 0:  # the exact tail of the first ``exact`` atoms
            gemm(_T, _N, K - rows, exact, n, E[:, rows:], K, weighted, T, 0.0, zeta_t[rows:], T)
            for k in range(rows, K):
                s = stick_term[k]
                for i in range(exact):
                    zeta_t[k, i] += s
                    top[i] = max(top[i], zeta_t[k, i])
    for k in range(rows):
        for i in range(T):
            zeta_t[k, i] = max(zeta_t[k, i] - top[i], floor)
    exp_inplace(zeta_t.reshape(K * T)[:rows * T], bits)
    for k in range(rows):
        for i in range(T):
            total[i] += zeta_t[k, i]
    if rows < K and exact > 0:
        for k in range(rows, K):
            for i in range(exact):
                zeta_t[k, i] = max(zeta_t[k, i] - top[i], floor)
        _exp_block(zeta_t[rows:], K - rows, exact, buffer, bits)
        for k in range(rows, K):
            for i in range(exact):
                total[i] += zeta_t[k, i]
    for i in range(T):
        total[i] = 1.0 / total[i]
    for k in range(rows):
        for i in range(T):
            zeta_t[k, i] *= total[i]
    for k in range(rows, K):
        for i in range(exact):
            zeta_t[k, i] *= total[i]
    return rows, exact


@numba.njit(cache=True, fastmath=FAST_MATH_FINITE)
def _phi_logits(E, zeta_t, rows, exact, max_abs, skip_mass, phi):
    """phi_dn^i <- sum_k zeta_di^k E[log beta_k,w_dn] (before the stick term and the softmax).

    The first ``rows`` topics for every atom; the rest for the first atoms up
    to the last whose zeta mass there could move a logit by more than ``skip_mass``.
    """
    n, K = E.shape
    T = zeta_t.shape[1]
    gemm(_N, _N, n, T, rows, E, K, zeta_t, T, 0.0, phi, T)
    if rows < K:
        needed = 0
        for i in range(exact):
            mass = 0.0
            for k in range(rows, K):
                mass += zeta_t[k, i]
            if mass * max_abs > skip_mass:
                needed = i + 1
        if needed > 0:
            gemm(_N, _N, n, needed, K - rows, E[:, rows:], K, zeta_t[rows:], T, 1.0, phi, T)


@numba.njit(cache=True, fastmath=FAST_MATH_FINITE)
def _atom_counts(phi, c, nd):
    """n_di = sum_n c_dn phi_dn^i: the words each atom holds."""
    n, T = phi.shape
    for i in range(T):
        nd[i] = 0.0
    for j in range(n):
        for i in range(T):
            nd[i] += c[j] * phi[j, i]


@numba.njit(cache=True, fastmath=FAST_MATH_FINITE)
def _atom_use(phi, c, out, scratch):
    """P(atom i holds at least one word) = 1 - prod_n (1 - phi_dn^i)^c_dn (reference ``atom_use``), in float64.

    By products, not by log1p: the logarithms were nearly all of the reference's time.  Where
    every phi_dn^i of an atom is below ``_SERIES_BELOW``, 1 - prod would lose the digits of a
    small probability, so it is -expm1 of the sum of c_dn log(1 - phi_dn^i) by the series
    x + x^2/2 + x^3/3 + x^4/4 (relative error below 2e-13 there).  A product below
    ``_UNDERFLOW`` is taken as 0 (the atom holds a word), before it becomes subnormal.
    ``scratch``: float64, 3 rows of at least T.
    """
    n, T = phi.shape
    unused, series, largest = scratch[0], scratch[1], scratch[2]
    for i in range(T):
        unused[i] = 1.0
        series[i] = 0.0
        largest[i] = 0.0
    for j in range(n):
        cj = np.float64(c[j])
        # (1 - x)^c by c - 1 products for a whole count up to 16, else by a power
        repeats = int(cj) if cj == math.floor(cj) and 1.0 <= cj <= 16.0 else 0
        for i in range(T):
            x = min(max(np.float64(phi[j, i]), 0.0), 1.0)
            largest[i] = max(largest[i], x)
            series[i] += cj * x * (1.0 + x * (0.5 + x * (1.0 / 3.0 + 0.25 * x)))
            q = 1.0 - x
            factor = q
            if repeats == 0:
                factor = q ** cj
            else:
                for _ in range(repeats - 1):
                    factor *= q
            product = unused[i] * factor
            unused[i] = product if product >= _UNDERFLOW else 0.0
    for i in range(T):
        out[i] = -math.expm1(-series[i]) if largest[i] < _SERIES_BELOW else 1.0 - unused[i]


@numba.njit(cache=True, fastmath=FAST_MATH_FINITE)
def _stick_terms(gam, elog_pi, args, scratch, exponent, zero_order):
    """E[log sigma_i(pi_d)] = E[log pi_di] + sum_{j<i} E[log(1 - pi_dj)] from gamma_d (digammas vectorised).

    ``zero_order``: log E[sigma_i(pi_d)] = log E[pi_di] + sum_{j<i} log(1 - E[pi_dj]) instead.
    """
    T = elog_pi.shape[0]
    if zero_order:
        done = 0.0
        for i in range(T - 1):
            total = gam[i, 0] + gam[i, 1]
            elog_pi[i] = done + math.log(gam[i, 0] / total)
            done += math.log(gam[i, 1] / total)
        elog_pi[T - 1] = done
        return
    for i in range(T - 1):
        args[i] = gam[i, 0]
        args[T - 1 + i] = gam[i, 1]
        args[2 * (T - 1) + i] = gam[i, 0] + gam[i, 1]
    L = 3 * (T - 1)
    digamma_inplace(args[:L], scratch[0, :L], scratch[1, :L], exponent[:L], scratch[2, :L])
    done = 0.0
    for i in range(T - 1):
        psi_ab = args[2 * (T - 1) + i]
        elog_pi[i] = done + args[i] - psi_ab
        done += args[T - 1 + i] - psi_ab
    elog_pi[T - 1] = done


@numba.njit(cache=True, fastmath=FAST_MATH_FINITE)
def _lda_phi(E, g, topic_prior, phi, bits, zero_order):
    """The "lda" start: atom i <- topic k_i with the i-th largest gamma_k - prior_k (ties: lower k first),
    phi_dw^i ∝ exp{E[log theta_d,k_i] + E[log beta_k_i,w]} (log E[theta_d,k_i] under ``zero_order``)."""
    n, K = E.shape
    T = phi.shape[1]
    top = np.empty(T, dtype=np.int64)
    val = np.empty(T)
    filled = 0
    for k in range(K):
        v = g[k] - topic_prior[k]
        if filled == T and v <= val[T - 1]:
            continue
        pos = filled if filled < T else T - 1
        while pos > 0 and val[pos - 1] < v:
            val[pos] = val[pos - 1]
            top[pos] = top[pos - 1]
            pos -= 1
        val[pos] = v
        top[pos] = k
        if filled < T:
            filled += 1
    args = np.empty((4, T + 1))
    for i in range(T):
        args[0, i] = g[top[i]]
    args[0, T] = 0.0
    for k in range(K):
        args[0, T] += g[k]
    if zero_order:
        for i in range(T + 1):
            args[0, i] = math.log(args[0, i])
    else:
        digamma_inplace(args[0], args[1], args[2], bits[:T + 1], args[3])
    for i in range(T):
        val[i] = args[0, i] - args[0, T]  # E[log theta_d,k_i] = psi(gamma_k_i) - psi(sum_k gamma_k)
    for j in range(n):
        for i in range(T):
            phi[j, i] = E[j, top[i]] + val[i]


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH_FINITE, error_model="numpy", nogil=True)
def _fit_all(batch, topic_term, settings, out_zeta, out_phi, out_gamma, out_iter, out_fallback, out_tail_atoms,
             out_use):
    indptr, indices, data = batch
    elog_beta_t, exp_elog_beta_t, word_max_abs, word_tail_max, head, tail_stick, skip_mass = topic_term
    (sticks, empty_zeta, alpha, T, tol, max_iter, warmup, mode, lda_alpha, psi_lda_alpha, topic_prior, phi_init,
     floor, lda_floor, tiny, zero_order) = settings
    D = indptr.shape[0] - 1
    K = elog_beta_t.shape[1]
    for d in numba.prange(D):
        start, end = indptr[d], indptr[d + 1]
        n = end - start
        out_fallback[d] = False
        out_tail_atoms[d] = T  # complete zeta: kept by empty documents and by those handed to the reference
        if n == 0:  # zeta_di ∝ exp E[log sigma(V)], gamma_di = (1, alpha)
            for i in range(T):
                copy_vector(empty_zeta, out_zeta[d, i])
                out_use[d, i] = 0.0  # no word: no atom holds one
            for i in range(T - 1):
                out_gamma[d, i, 0] = 1.0
                out_gamma[d, i, 1] = alpha
            out_iter[d] = 0
            continue
        dtype = elog_beta_t.dtype
        c = data[start:end]
        E = np.empty((n, K), dtype=dtype)  # this document's E[log beta] rows, contiguous
        tail_max = np.empty(n)  # each word's largest E[log beta] past the head
        max_abs = 1.0  # the largest |E[log beta]| of the document
        for j in range(n):
            w = indices[start + j]
            copy_vector(elog_beta_t[w], E[j])
            tail_max[j] = word_tail_max[w]
            max_abs = max(max_abs, word_max_abs[w])
        log_skip = math.log(skip_mass / (K * max_abs))
        phi = np.empty((n, T), dtype=dtype)
        weighted = np.empty((n, T), dtype=dtype)
        zeta_t = np.empty((K, T), dtype=dtype)  # zeta^T: one row per topic
        gam = np.empty((T - 1, 2), dtype=dtype)
        elog_pi = np.zeros(T)
        nd = np.zeros(T)
        usage = np.zeros(K)
        usage_prev = np.zeros(K)
        top = np.empty(T)
        total = np.empty(T)
        buffer = np.empty(K * T, dtype=dtype)
        row_inverse = np.empty(n)
        no_sticks = np.zeros(K, dtype=dtype)
        bits = np.empty(max(T * n, T * K), dtype=np.int64)
        args = np.empty(3 * T)
        scratch = np.empty((3, 3 * T))
        if mode == _WARM:
            for j in range(n):
                copy_vector(phi_init[start + j], phi[j])
        elif mode == _PAPER:  # all atoms identical: phi = 1 / T
            for j in range(n):
                for i in range(T):
                    phi[j, i] = 1.0 / T
        else:
            B = np.empty((n, K), dtype=dtype)
            for j in range(n):
                copy_vector(exp_elog_beta_t[indices[start + j]], B[j])
            g = np.empty(K)
            # theta~, the sums and the normalisers in the step's precision (float32 sums for float32 models)
            if not _lda_start(B, c, lda_alpha, psi_lda_alpha, tol, max_iter, tiny, lda_floor, g,
                              np.empty(K, dtype=dtype), np.empty(K, dtype=dtype), np.empty(K),
                              np.empty(K, dtype=np.int64), np.empty((K // 4 + 1, n), dtype=dtype),
                              np.empty(n, dtype=dtype), np.empty((4, K + 1)), np.empty(K + 1, dtype=np.int64),
                              zero_order):
                out_fallback[d] = True
                continue
            _lda_phi(E, g, topic_prior, phi, bits, zero_order)
            _softmax_rows(phi, floor, bits, row_inverse)
        _atom_counts(phi, c, nd)
        iterations = 0
        rows, exact = K, T
        stick_term = no_sticks
        for it in range(max_iter):
            prior = it >= warmup
            stick_term = sticks if prior else no_sticks
            # gamma_di = (1 + n_di, alpha + sum_{j>i} n_dj), n_di = sum_n c_dn phi_dn^i
            later = 0.0
            for i in range(T - 1, 0, -1):
                later += nd[i]
                gam[i - 1, 0] = 1.0 + nd[i - 1]
                gam[i - 1, 1] = alpha + later
            for j in range(n):
                for i in range(T):
                    weighted[j, i] = c[j] * phi[j, i]
            rows, exact = _zeta_update(E, weighted, zeta_t, stick_term, head, tail_max, tail_stick if prior else 0.0,
                                       log_skip, floor, top, total, bits, buffer)
            # phi_dn^i ∝ exp{E[log sigma_i(pi_d)] + sum_k zeta_di^k E[log beta_k,w_dn]}
            _phi_logits(E, zeta_t, rows, exact, max_abs, skip_mass, phi)
            if prior:
                _stick_terms(gam, elog_pi, args, scratch, bits, zero_order)
                for j in range(n):
                    for i in range(T):
                        phi[j, i] += elog_pi[i]
            _softmax_rows(phi, floor, bits, row_inverse)
            # u_dk = sum_i zeta_di^k n_di: expected topic usage, the convergence measure
            _atom_counts(phi, c, nd)
            for k in range(K):
                u = 0.0
                for i in range(T if k < rows else exact):  # the other entries were not computed: below 2^-60
                    u += zeta_t[k, i] * nd[i]
                usage[k] = u
            iterations += 1
            stop = it == max_iter - 1
            if it > warmup:
                change = 0.0
                for k in range(K):
                    change += abs(usage[k] - usage_prev[k])
                if change / K < tol:
                    stop = True
            for k in range(K):
                usage_prev[k] = usage[k]
            if stop:
                break
        # every zeta and phi is exp(a clamped logit) times its normaliser: finite iff the normalisers are
        if not (all_finite(total) and all_finite(row_inverse)):
            out_fallback[d] = True
            continue
        # past the head, only the first ``exact`` atoms have zeta computed; the others' is below the
        # skip mass there (the last iteration's bound) and is returned as 0
        tail_atoms = T if rows == K else exact
        out_tail_atoms[d] = tail_atoms
        zeta = out_zeta[d]
        for k in range(K):
            known = T if k < rows else tail_atoms
            for i in range(known):
                zeta[i, k] = zeta_t[k, i]
            for i in range(known, T):
                zeta[i, k] = 0.0
        for i in range(T - 1):
            out_gamma[d, i, 0] = gam[i, 0]
            out_gamma[d, i, 1] = gam[i, 1]
        for j in range(n):
            copy_vector(phi[j], out_phi[start + j])
        _atom_use(phi, c, out_use[d], scratch)  # the corpus sticks' weights of the atoms (stick_atoms="used")
        out_iter[d] = iterations


@numba.njit(cache=True, parallel=True, fastmath=FAST_MATH_FINITE, error_model="numpy", nogil=True)
def _topic_word_t(indptr, indices, data, phi, zeta, head, tail_atoms, bounds, chunks, out):
    """out[w, k] = sum_d c_dw sum_i phi_dw^i zeta_di^k, a chunk of documents at a time.

    For each chunk of documents (``chunks`` holds their boundaries), first every
    document's entries times its zeta, one small matrix product per document, in
    parallel over the documents; then the rows are added in, in parallel over the
    parts of the columns (part p owns [bounds[p], bounds[p + 1]); the CSR indices
    being sorted, a document's entries there are a contiguous run), each part
    walking the chunk's documents in order.  Each sum is taken in document order
    and each product is the same however the documents and columns are parted, so
    the result does not depend on the threads, the parts or the chunks.  Topics
    from ``head`` on take only the document's first ``tail_atoms[d]`` atoms: the
    others' zeta there is 0 (left out by the local step).
    """
    T, K = zeta.shape[1], zeta.shape[2]
    widest = 0  # the most entries a chunk has: the scratch is allocated once, at that size
    for c in range(chunks.shape[0] - 1):
        widest = max(widest, indptr[chunks[c + 1]] - indptr[chunks[c]])
    weighted_all = np.empty((widest, T), dtype=phi.dtype)
    rows_all = np.empty((widest, K), dtype=phi.dtype)
    for p in numba.prange(bounds.shape[0] - 1):
        for w in range(bounds[p], bounds[p + 1]):
            for k in range(K):
                out[w, k] = 0.0
    for c in range(chunks.shape[0] - 1):
        first_doc, end_doc = chunks[c], chunks[c + 1]
        base = indptr[first_doc]
        for d in numba.prange(first_doc, end_doc):
            start, end = indptr[d], indptr[d + 1]
            m = end - start
            if m == 0:
                continue
            weighted = weighted_all[start - base:end - base]
            for e in range(m):
                for i in range(T):
                    weighted[e, i] = data[start + e] * phi[start + e, i]
            rows = rows_all[start - base:end - base]
            gemm(_N, _N, m, head, T, weighted, T, zeta[d], K, 0.0, rows, K)
            atoms = tail_atoms[d] if head < K else 0
            if atoms > 0:
                gemm(_N, _N, m, K - head, atoms, weighted, T, zeta[d, :, head:], K, 0.0, rows[:, head:], K)
        for p in numba.prange(bounds.shape[0] - 1):
            low, high = bounds[p], bounds[p + 1]
            for d in range(first_doc, end_doc):
                start, end = indptr[d], indptr[d + 1]
                first = start + np.searchsorted(indices[start:end], low)
                last = start + np.searchsorted(indices[start:end], high)
                used = K if head < K and tail_atoms[d] > 0 else head
                for e in range(first, last):
                    row = out[indices[e]]
                    product = rows_all[e - base]
                    for k in range(used):
                        row[k] += product[k]


def _document_chunks(indptr: np.ndarray) -> np.ndarray:
    """Boundaries of runs of consecutive documents holding about _CHUNK_ENTRIES entries each (at least one document).

    The topic-word pass keeps one chunk's products in cache; how the documents are
    chunked changes its speed, never its result.
    """
    D = indptr.shape[0] - 1
    cuts = np.searchsorted(indptr, np.arange(_CHUNK_ENTRIES, int(indptr[-1]), _CHUNK_ENTRIES), side="right") - 1
    return np.unique(np.concatenate(([0], cuts, [D]))).astype(np.int64)


def _one_blas_thread():
    """Context that keeps BLAS single-threaded: the kernel already runs one document per core."""
    global _BLAS_CONTROLLER
    from threadpoolctl import ThreadpoolController

    if _BLAS_CONTROLLER is None:
        _BLAS_CONTROLLER = ThreadpoolController()
    return _BLAS_CONTROLLER.limit(limits=1, user_api="blas")


@contextlib.contextmanager
def _one_document_per_chunk():
    """Hand documents to the threads one at a time: their costs differ too much for equal static shares."""
    previous = numba.set_parallel_chunksize(1)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(previous)


def fit_documents_compiled(
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
    shifted_rows: np.ndarray | None = None,
) -> tuple[HDPLocalFit, np.ndarray]:
    """:func:`engine.kernels.reference.hdp.fit_documents` on the compiled kernel, plus the topic-word statistics.

    Same parameters, and ``shifted_rows``: exp(E[log beta] - its largest entry) of each
    word (n_columns, K), the "lda" start's term, when the caller formed it with
    ``elog_beta`` (:func:`~engine.kernels.compiled.hdp_rows.log_mean_rows`); computed
    here if None.  Returns ``(fit, topic_word)`` with ``topic_word`` of shape
    (K, n_columns), what :func:`engine.kernels.reference.hdp.topic_word_stats` gives for ``fit``.
    """
    dtype = elog_beta.dtype
    D = counts.shape[0]
    K = elog_beta.shape[0]
    T = n_atoms
    counts = counts.astype(dtype, copy=False)
    elog_beta_t = np.ascontiguousarray(elog_beta.T)  # (n_columns, K): one row per word
    elog_sticks = np.asarray(elog_sticks, dtype=dtype)
    warm = word_atom_init is not None
    mode = _WARM if warm else (_PAPER if init == "paper" else _LDA)
    floor = float(np.log(np.finfo(dtype).tiny) + 10.0)
    lda_alpha = np.zeros(K)
    psi_lda_alpha = np.zeros(K)
    prior = np.zeros(K, dtype=dtype)
    exp_elog_beta_t = np.zeros((0, K), dtype=dtype)
    if mode == _LDA:  # LDA's local step with theta_d ~ Dirichlet(alpha E[sigma(V)]), started at gamma_d = 1
        prior = np.asarray(topic_prior, dtype=dtype)
        lda_alpha = prior.astype(np.float64)
        psi_lda_alpha = np.log(lda_alpha) if zero_order else psi_values(lda_alpha)
        if shifted_rows is not None:
            exp_elog_beta_t = np.asarray(shifted_rows, dtype=dtype)
        else:
            exp_elog_beta_t = np.empty_like(elog_beta_t)  # exp(E[log beta_kw] - max_k), one row per word
            with PARALLEL_LOCK:
                exp_shifted_rows(elog_beta_t, exp_elog_beta_t, EXP_FLOOR[np.dtype(dtype)])
    phi_init = np.ascontiguousarray(word_atom_init, dtype=dtype) if warm else np.zeros((0, T), dtype=dtype)
    skip_mass = _SKIP_MASS[np.dtype(dtype)]
    # the head: topics whose stick term is within reach of the largest (see the module docstring)
    log_skip = np.log(skip_mass / (K * max(1.0, -float(elog_beta.min(initial=0.0)))))
    reach = np.flatnonzero(elog_sticks >= elog_sticks.max() + log_skip - _HEAD_MARGIN)
    head = int(reach[-1]) + 1
    tail_stick = float(elog_sticks[head:].max()) if head < K else 0.0  # largest stick term past the head
    empty_zeta = np.maximum(elog_sticks - elog_sticks.max(), floor)
    empty_zeta = np.exp(empty_zeta)
    empty_zeta /= empty_zeta.sum()

    atom_topic = np.empty((D, T, K), dtype=dtype)
    word_atom = np.empty((counts.nnz, T), dtype=dtype)
    doc_sticks = np.empty((D, T - 1, 2), dtype=dtype)
    n_iter = np.zeros(D, dtype=np.int64)
    fallback = np.zeros(D, dtype=np.bool_)
    tail_atoms = np.empty(D, dtype=np.int64)  # per document: the atoms with zeta past the head
    use = np.empty((D, T), dtype=dtype)  # per document and atom: P(it holds a word), reference atom_use
    indptr = counts.indptr.astype(np.int64)
    indices = counts.indices.astype(np.int64)
    word_max_abs = np.empty(elog_beta_t.shape[0])
    word_tail_max = np.empty(elog_beta_t.shape[0])
    with PARALLEL_LOCK:
        word_bounds(elog_beta_t, head, word_max_abs, word_tail_max)
    with PARALLEL_LOCK, _one_blas_thread(), _one_document_per_chunk():
        _fit_all(
            Minibatch(indptr, indices, counts.data),
            HDPTopicTerm(elog_beta_t, exp_elog_beta_t, word_max_abs, word_tail_max, head, float(tail_stick),
                         float(skip_mass)),
            HDPDocSettings(elog_sticks, empty_zeta, float(alpha), int(T), float(tol), int(max_iter),
                           int(0 if warm else warmup_iter), mode, lda_alpha, psi_lda_alpha, prior, phi_init,
                           floor, _flush_floor(dtype), _tiny(dtype, K), bool(zero_order)),
            atom_topic, word_atom, doc_sticks, n_iter, fallback, tail_atoms, use,
        )
    if fallback.any():  # the NumPy reference treats underflowing normalisers exactly
        docs = np.flatnonzero(fallback)
        sub = counts[docs]
        start = None
        if warm:
            start = np.concatenate([word_atom_init[counts.indptr[d]:counts.indptr[d + 1]] for d in docs])
        exact = fit_documents_reference(
            sub, elog_beta, elog_sticks, alpha, T, tol, max_iter, warmup_iter, init, topic_prior, start, zero_order
        )
        atom_topic[docs], doc_sticks[docs], n_iter[docs] = exact.atom_topic, exact.doc_sticks, exact.n_iter
        use[docs] = atom_use(sub, exact.word_atom)
        for row, d in enumerate(docs):
            word_atom[counts.indptr[d]:counts.indptr[d + 1]] = exact.word_atom[sub.indptr[row]:sub.indptr[row + 1]]
    # parts of the columns with about equal numbers of entries, a few per thread
    column_entries = np.cumsum(np.bincount(indices, minlength=counts.shape[1]))
    n_parts = max(1, min(counts.shape[1], _TOPIC_WORD_PARTS))  # a minibatch of empty documents has no columns
    cuts = np.searchsorted(column_entries, np.arange(1, n_parts) * (counts.nnz / n_parts))
    bounds = np.unique(np.concatenate(([0], cuts, [counts.shape[1]]))).astype(np.int64)
    topic_word_t = np.empty((counts.shape[1], K), dtype=dtype)
    with PARALLEL_LOCK, _one_blas_thread():
        _topic_word_t(indptr, indices, counts.data, word_atom, atom_topic, head, tail_atoms, bounds,
                      _document_chunks(indptr), topic_word_t)
    fit = HDPLocalFit(atom_topic=atom_topic, word_atom=word_atom, doc_sticks=doc_sticks, n_iter=n_iter,
                      atom_use=use)
    return fit, topic_word_t.T


def local_kernel_compiled(topics, columns: np.ndarray, mean: bool = False):
    """The topic term on ``columns`` (word-major, transposed to K x n_columns) and the compiled document fit.

    With ``mean`` (log E[beta]), the fit is given the "lda" start's exp(term - row max)
    too, formed in the same pass over the store as E[beta] / its largest entry.
    """
    if not mean:
        return elog_beta_rows(topics, columns).T, fit_documents_compiled
    rows, shifted = log_mean_rows(topics, columns, ratios=True)
    return rows.T, functools.partial(fit_documents_compiled, shifted_rows=shifted)
