"""Learned Dirichlet priors: the Newton steps against a brute-force maximisation of the bound."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import gammaln, psi

import engine
from engine.models._priors import dirichlet_newton_step, symmetric_dirichlet_newton_step
from tests.engine._reference import planted_counts


def _dirichlet_objective(a, mean_log):
    # the alpha terms of the ELBO per document: log Gamma(sum a) - sum log Gamma(a_k) + sum (a_k - 1) E[log theta_k]
    return gammaln(a.sum()) - gammaln(a).sum() + np.sum((a - 1.0) * mean_log)


def _mean_log_of(gamma):
    return (psi(gamma) - psi(gamma.sum(axis=1, keepdims=True))).mean(axis=0)


def test_newton_steps_reach_the_brute_force_maximum_of_the_bound():
    rng = np.random.default_rng(0)
    gamma = rng.gamma(2.0, 3.0, size=(40, 5)) + 0.05  # some documents' variational Dirichlets
    mean_log = _mean_log_of(gamma)
    alpha = np.full(5, 0.2)
    for _ in range(50):
        alpha = dirichlet_newton_step(alpha, mean_log)
    found = minimize(lambda log_a: -_dirichlet_objective(np.exp(log_a), mean_log), np.zeros(5),
                     method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20000})
    np.testing.assert_allclose(alpha, np.exp(found.x), rtol=1e-4)
    assert _dirichlet_objective(alpha, mean_log) >= -found.fun - 1e-10


def test_a_newton_step_never_leaves_the_positive_orthant_and_ascends():
    rng = np.random.default_rng(1)
    mean_log = _mean_log_of(rng.gamma(0.3, 1.0, size=(10, 8)) + 1e-3)
    for start in (np.full(8, 1e-3), np.full(8, 50.0), rng.uniform(0.01, 5, size=8)):
        step = dirichlet_newton_step(start, mean_log)
        assert np.all(step > 0) and np.all(np.isfinite(step))
        assert _dirichlet_objective(step, mean_log) >= _dirichlet_objective(start, mean_log) - 1e-9


def test_symmetric_step_reaches_the_brute_force_maximum():
    rng = np.random.default_rng(2)
    lam = rng.gamma(0.5, 2.0, size=(6, 30)) + 0.01
    mean_log = _mean_log_of(lam)
    eta = 1.0
    for _ in range(60):
        eta = symmetric_dirichlet_newton_step(eta, mean_log)
    grid = np.exp(np.linspace(np.log(1e-3), np.log(10), 20001))
    values = [_dirichlet_objective(np.full(30, g), mean_log) for g in grid]
    assert eta == pytest.approx(grid[int(np.argmax(values))], rel=1e-3)


def test_learned_alpha_is_blended_with_rho_and_stays_finite():
    X, _ = planted_counts(n_docs=200, alpha=0.3, seed=4)
    model = engine.LDA(n_topics=4, n_words=X.shape[1], seed=0, learn_alpha=True, learn_eta=True)
    assert model.alpha.shape == (4,)
    trainer = engine.SVI(model, X, batch_size=50, seed=0)
    before = model.alpha.copy()
    report = trainer.step()
    stats_alpha = model.alpha
    assert not np.array_equal(before, stats_alpha)
    trainer.run(n_steps=30)
    assert np.all(np.isfinite(model.alpha)) and np.all(model.alpha > 0)
    assert np.isfinite(model.eta) and model.eta > 0
    assert np.all(np.isfinite(model.lambda_)) and model.lambda_.min() > 0
    assert report.rho == pytest.approx(2.0 ** -0.9)
    # the documents were drawn with alpha = 0.3 per topic: the learned prior lands near it
    assert 0.1 < model.alpha.mean() < 1.0
