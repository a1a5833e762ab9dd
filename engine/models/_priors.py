"""Empirical Bayes for the priors: LDA's Dirichlet alpha (per topic) and eta, the HDP's stick concentrations.

Hoffman, Blei, Wang & Paisley (2013, section on hyperparameters) fit the
hyperparameters by maximising the evidence lower bound in them, with the same
stochastic steps as the global parameters.  In alpha, the bound's terms for D
documents are

    D [log Gamma(sum_k alpha_k) - sum_k log Gamma(alpha_k)] + sum_k (alpha_k - 1) sum_d E[log theta_dk],

the log likelihood of a Dirichlet whose sufficient statistic is the mean
E[log theta] over the documents.  Its Newton step has a closed form because
the Hessian is a diagonal plus a constant (Minka, "Estimating a Dirichlet
distribution", 2000); the same step, blended in with the SVI step size rho_t
from a minibatch's statistics, is what gensim does for ``alpha="auto"``.  eta
is the same problem with the topics' E[log beta_k] in place of E[log theta_d]
and one shared value for every word.

The HDP's sticks Beta(1, a) (document sticks: alpha; corpus sticks: omega)
contribute, for n sticks in all (the truncation's last stick is fixed at 1 and
is not one of them),

    n log a + (a - 1) sum_k E[log(1 - v_k)],

concave in a, with the closed-form maximum a* = -n / sum_k E[log(1 - v_k)].

Asuncion, Welling, Smyth & Teh ("On smoothing and inference for topic models",
UAI 2009) found that most of the gap between variational inference and
collapsed Gibbs sampling closes once the hyperparameters are learned.
"""

from __future__ import annotations

import numpy as np
from scipy.special import polygamma, psi

__all__ = [
    "STICK_CONCENTRATION_RANGE",
    "dirichlet_newton_step",
    "stick_concentration",
    "symmetric_dirichlet_newton_step",
]

# where a learned stick concentration is kept (a guard, not a recommendation): a -> 0 makes the
# first stick take everything, a -> inf spreads the weight evenly over the truncation
STICK_CONCENTRATION_RANGE = (1e-3, 1e3)


def dirichlet_newton_step(prior: np.ndarray, mean_log: np.ndarray) -> np.ndarray:
    """One Newton step towards the Dirichlet concentration whose E[log x] is ``mean_log``.

    Maximises f(a) = log Gamma(sum a) - sum log Gamma(a_k) + sum (a_k - 1) mean_log_k.

    Parameters
    ----------
    prior : ndarray of shape (n,)
        Current concentration a (> 0).
    mean_log : ndarray of shape (n,)
        Mean over observations of E[log x_k].

    Returns
    -------
    ndarray of shape (n,)
        The full Newton step's target a - H^-1 g (the caller blends it in).
        Where that target leaves the positive orthant, the step is halved
        until it stays inside (f is concave, so a shorter step still ascends).
    """
    prior = np.asarray(prior, dtype=np.float64)
    gradient = psi(prior.sum()) - psi(prior) + mean_log
    # Hessian = diag(q) + c 1 1^T with q_k = -psi'(a_k), c = psi'(sum a); its inverse in closed form
    q = -polygamma(1, prior)
    c = polygamma(1, prior.sum())
    b = np.sum(gradient / q) / (1.0 / c + np.sum(1.0 / q))
    step = -(gradient - b) / q
    for _ in range(60):
        target = prior + step
        if np.all(target > 0):
            return target
        step *= 0.5
    return prior


def symmetric_dirichlet_newton_step(prior: float, mean_log: np.ndarray) -> float:
    """One Newton step for a symmetric concentration (one value a for all n entries).

    Maximises f(a) = log Gamma(n a) - n log Gamma(a) + (a - 1) sum_v mean_log_v,
    with ``mean_log`` the mean over observations of E[log x_v] (length n).
    """
    n = mean_log.shape[0]
    gradient = n * psi(n * prior) - n * psi(prior) + float(np.sum(mean_log))
    hessian = n * n * polygamma(1, n * prior) - n * polygamma(1, prior)  # < 0: f is concave
    step = -gradient / hessian
    for _ in range(60):
        if prior + step > 0:
            return float(prior + step)
        step *= 0.5
    return float(prior)


def stick_concentration(n_sticks: int, sum_elog_rest: float, current: float) -> float:
    """The a maximising n log a + (a - 1) S, the bound's terms of n sticks Beta(1, a).

    Parameters
    ----------
    n_sticks : int
        n, the number of sticks (the fixed last stick of each truncation not counted).
    sum_elog_rest : float
        S = sum over the sticks of E[log(1 - v_k)] under q (< 0).
    current : float
        The value in use, returned when there is nothing to learn from (no sticks, S not finite or not < 0).

    Returns
    -------
    float
        -n / S clipped to :data:`STICK_CONCENTRATION_RANGE`.
    """
    low, high = STICK_CONCENTRATION_RANGE
    if n_sticks <= 0 or not np.isfinite(sum_elog_rest) or sum_elog_rest >= 0.0:
        return float(np.clip(current, low, high))
    return float(np.clip(-n_sticks / sum_elog_rest, low, high))
