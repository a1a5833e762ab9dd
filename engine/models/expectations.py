"""Expectations of log-probabilities under Dirichlet and stick-breaking Beta factors.

These are the expectations the paper tabulates beside its graphical models
(Hoffman et al. 2013, figures "lda-gm" and "hdp-gm"); every local and global
update of LDA and the HDP is written in terms of them.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln, psi


def dirichlet_expectation(concentration: np.ndarray) -> np.ndarray:
    """E[log x] for x ~ Dirichlet(concentration), row by row.

    E[log x_k] = psi(concentration_k) - psi(sum_j concentration_j).

    Parameters
    ----------
    concentration : ndarray of shape (..., n_components)
        Positive Dirichlet parameters; the last axis is the simplex.
    """
    return psi(concentration) - psi(concentration.sum(axis=-1, keepdims=True))


def dirichlet_expectation_columns(
    concentration: np.ndarray, row_totals: np.ndarray, zero_order: bool = False
) -> np.ndarray:
    """E[log x] on a subset of columns, given the full row sums of the concentration.

    Used for E[log beta_kv] on a minibatch's own words: only those columns of
    lambda need digamma, plus one digamma per topic for the row total.  With
    ``zero_order`` it is log E[x_kv] = log concentration_kv - log row_total_k
    instead, the topic term of the zero-order (SCVB0) local step.
    """
    if zero_order:
        return np.log(concentration) - np.log(row_totals)
    return psi(concentration) - psi(row_totals)


def exp_dirichlet_expectation(concentration: np.ndarray) -> np.ndarray:
    """exp(E[log x]) rescaled so that each row's largest entry is 1.

    Only ratios within a row matter wherever this is used (the optimal phi is
    normalised over topics), so shifting by the row maximum before exponentiating
    loses nothing and keeps tiny concentrations (psi(1e-6) ~ -1e6) from
    underflowing the whole row to zero.
    """
    elog = dirichlet_expectation(concentration)
    return np.exp(elog - elog.max(axis=-1, keepdims=True))


def stick_expectation(sticks: np.ndarray) -> np.ndarray:
    """E[log sigma_k(V)] for a truncated stick-breaking process.

    With V_k ~ Beta(a_k, b_k) for k < n and V_n = 1 (the truncation),
    sigma_k(V) = V_k prod_{l<k} (1 - V_l) and

        E[log sigma_k] = E[log V_k] + sum_{l<k} E[log(1 - V_l)],
        E[log V_k] = psi(a_k) - psi(a_k + b_k),
        E[log(1 - V_k)] = psi(b_k) - psi(a_k + b_k).

    Parameters
    ----------
    sticks : ndarray of shape (..., n - 1, 2)
        Beta parameters (a_k, b_k) of the first n - 1 sticks.

    Returns
    -------
    ndarray of shape (..., n)
        Expected log weight of each of the n atoms.
    """
    a = sticks[..., 0]
    b = sticks[..., 1]
    total = psi(a + b)
    elog_v = psi(a) - total
    elog_1mv = psi(b) - total
    shape = (*sticks.shape[:-2], sticks.shape[-2] + 1)
    out = np.zeros(shape, dtype=np.result_type(sticks.dtype, np.float64))
    out[..., :-1] = elog_v
    out[..., 1:] += np.cumsum(elog_1mv, axis=-1)
    return out


def dirichlet_elbo_term(param: np.ndarray, prior, elog: np.ndarray) -> float:
    """E[log p(x | prior)] - E[log q(x | param)] summed over rows of Dirichlet variables.

    Each row x_i ~ Dirichlet(prior) in the model and Dirichlet(param_i) in q, with
    elog = E_q[log x] (:func:`dirichlet_expectation` of ``param``):

        sum_i [ sum_j (prior_j - param_ij) elog_ij + sum_j log Gamma(param_ij)
                - log Gamma(sum_j param_ij) + log Gamma(sum_j prior_j) - sum_j log Gamma(prior_j) ].

    The ELBO's theta term of LDA (param gamma, prior alpha) and the topic term of both
    models (param lambda, prior eta).  ``prior`` is a scalar (symmetric) or one value per column.
    """
    n_rows, width = param.shape
    if np.ndim(prior) == 0:
        normaliser = gammaln(width * prior) - width * gammaln(prior)
    else:
        normaliser = gammaln(prior.sum()) - gammaln(prior).sum()
    return (
        np.sum((prior - param) * elog)
        + np.sum(gammaln(param))
        - np.sum(gammaln(param.sum(axis=1)))
        + n_rows * normaliser
    )
