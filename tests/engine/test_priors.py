"""Learned priors: LDA's Newton steps and the HDP's stick concentrations against a brute-force maximisation."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize, minimize_scalar
from scipy.special import gammaln, psi

import engine
from engine.io.model_files import load_model, save_model
from engine.models._priors import (
    STICK_CONCENTRATION_RANGE,
    dirichlet_newton_step,
    stick_concentration,
    symmetric_dirichlet_newton_step,
)
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


# ------------------------------------------------------------------ HDP stick concentrations
def _stick_objective(a, n_sticks, sum_elog_rest):
    # the terms in a of n sticks Beta(1, a): n log a + (a - 1) sum_k E[log(1 - v_k)]
    return n_sticks * np.log(a) + (a - 1.0) * sum_elog_rest


def _sum_elog_rest(sticks):
    return float(np.sum(psi(sticks[..., 1]) - psi(sticks.sum(axis=-1))))


def test_stick_concentration_is_the_brute_force_maximum_and_guarded():
    rng = np.random.default_rng(5)
    sticks = np.stack([1.0 + rng.gamma(1.0, 20.0, size=(30, 9)), 0.7 + rng.gamma(1.0, 40.0, size=(30, 9))], axis=-1)
    n, total = sticks.shape[0] * sticks.shape[1], _sum_elog_rest(sticks)
    found = minimize_scalar(lambda log_a: -_stick_objective(np.exp(log_a), n, total), bounds=(-6.0, 6.0),
                            method="bounded", options={"xatol": 1e-10})
    assert stick_concentration(n, total, current=1.0) == pytest.approx(np.exp(found.x), rel=1e-6)
    low, high = STICK_CONCENTRATION_RANGE
    assert stick_concentration(n, -1e-9, current=1.0) == high  # sticks all but unused: clipped
    assert stick_concentration(n, -1e12, current=1.0) == low
    for bad in (0.0, 1.0, np.nan, -np.inf):  # nothing to learn from: the current value stays
        assert stick_concentration(n, bad, current=2.5) == 2.5
    assert stick_concentration(0, -3.0, current=2.5) == 2.5


def _trained_hdp(X, **options):
    model = engine.HDP(n_topics=8, doc_truncation=4, n_words=X.shape[1], seed=0, kernel="numpy",
                       **({"dtype": "float64"} | options))
    engine.SVI(model, X, batch_size=40, seed=0).run(n_steps=4)
    return model


def _argmax_of_the_elbo(model, X, stats, name):
    """The value of ``name`` (alpha or omega) that maximises ``model.elbo(X, stats)``, all else fixed."""
    probe = model.copy()

    def negative_elbo(log_value):
        setattr(probe, name, float(np.exp(log_value)))
        return -probe.elbo(X, stats)

    found = minimize_scalar(negative_elbo, bounds=(-6.0, 6.0), method="bounded", options={"xatol": 1e-9})
    return float(np.exp(found.x))


def test_hdp_learned_alpha_maximises_the_elbo_and_is_blended_with_rho():
    X, _ = planted_counts(n_docs=120, seed=6)
    model = _trained_hdp(X)
    stats = model.local_step(X[:60])
    full = model.copy().set_params(learn_alpha=True)
    full.batch_update(stats)  # rho = 1: the maximum itself
    assert full.alpha == pytest.approx(_argmax_of_the_elbo(model, X[:60], stats, "alpha"), rel=1e-5)
    assert full.omega == model.omega  # the other concentration is left alone
    partial = model.copy().set_params(learn_alpha=True)
    partial.global_step(stats, scale=2.0, rho=0.3)
    assert partial.alpha == pytest.approx(0.7 * model.alpha + 0.3 * full.alpha, rel=1e-12)


def test_hdp_learned_omega_maximises_the_elbo_and_moves_the_sticks_with_it():
    X, _ = planted_counts(n_docs=120, seed=7)
    model = _trained_hdp(X)
    stats = model.local_step(X[:60])
    full = model.copy().set_params(learn_omega=True)
    full.batch_update(stats)
    shift = full.omega - model.omega
    # the sticks the update made with the old omega, b_k = omega + sum_{l>k} N_l; then shifted to the learned one
    made = full.sticks_.copy()
    made[:, 1] -= shift
    probe = full.copy().set_params(learn_omega=False)
    probe.sticks_ = made
    assert full.omega == pytest.approx(_argmax_of_the_elbo(probe, X[:60], stats, "omega"), rel=1e-5)
    reference = model.copy()
    reference.batch_update(stats)
    np.testing.assert_allclose(made, reference.sticks_, rtol=1e-12)
    assert full.alpha == model.alpha


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_hdp_learned_concentrations_stay_finite_and_in_range(planted_corpus, dtype):
    X = planted_corpus.counts
    model = engine.HDP(n_topics=12, doc_truncation=5, seed=0, dtype=dtype, learn_alpha=True, learn_omega=True)
    trainer = engine.SVI(model, X, batch_size=25, seed=0)
    low, high = STICK_CONCENTRATION_RANGE
    for _ in range(20):
        trainer.step()
        for value in (model.alpha, model.omega):
            assert isinstance(value, float) and np.isfinite(value) and low <= value <= high
        last_count = model.sticks_[-1, 1] - model.omega  # N_K >= 0: the sticks keep their form
        assert np.all(np.isfinite(model.sticks_)) and last_count > -1e-3 * model.sticks_[-1, 1]
    assert model.alpha != 1.0 and model.omega != 1.0
    assert model.get_params()["alpha"] == 1.0 and model.settings()["alpha"] == model.alpha
    model.set_params(omega=2.0)  # assigning a concentration replaces the learned one
    assert model.omega == 2.0


def test_hdp_model_file_keeps_the_learned_concentrations(tmp_path, planted_corpus):
    X = planted_corpus.counts
    model = engine.HDP(n_topics=8, doc_truncation=3, seed=0, n_epochs=1, learn_alpha=True, learn_omega=True,
                       dtype="float64").fit(X)
    loaded = load_model(save_model(tmp_path / "hdp.npz", model)).model
    assert (loaded.alpha, loaded.omega) == (model.alpha, model.omega)
    assert loaded.learn_alpha and loaded.learn_omega and loaded.settings() == model.settings()
    np.testing.assert_array_equal(loaded.sticks_, model.sticks_)
    np.testing.assert_allclose(loaded.transform(X[:5]), model.transform(X[:5]), rtol=1e-12)


def test_hdp_learned_alpha_is_the_same_from_a_cluster_s_compact_statistics():
    X, _ = planted_counts(n_docs=90, seed=8)
    model = _trained_hdp(X)
    batch = X[:60]
    parts = []
    for job, (low, high) in zip(model.local_jobs(batch, [0, 25, 60]), [(0, 25), (25, 60)], strict=True):
        rows = batch[low:high]
        counts = sp.csr_matrix((rows.data, np.searchsorted(job.columns, rows.indices), rows.indptr),
                               shape=(rows.shape[0], job.columns.size))
        parts.append(job.run(counts).compact())  # what a Dask worker sends back
    combined = type(parts[0]).combine(parts, batch)
    whole, chunked = model.copy().set_params(learn_alpha=True), model.copy().set_params(learn_alpha=True)
    whole.global_step(model.local_step(batch), scale=1.5, rho=0.5)
    chunked.global_step(combined, scale=1.5, rho=0.5)
    assert chunked.alpha == pytest.approx(whole.alpha, rel=1e-12) and chunked.alpha != model.alpha
