"""Numerical safety of the local step: extreme documents and hyperparameters give finite results."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import engine


def _finite_step(model, X):
    trainer = engine.SVI(model, X, batch_size=X.shape[0], kappa=0.9, tau=1.0)
    for _ in range(3):
        trainer.step()
    assert np.all(np.isfinite(model.lambda_)) and model.lambda_.min() > 0
    theta = model.transform(X)
    assert np.all(np.isfinite(theta))
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    return trainer


def test_one_word_documents():
    X = sp.csr_matrix(np.eye(6, 30) * 1)
    _finite_step(engine.LDA(n_topics=3, n_words=30), X)


def test_a_document_of_100000_tokens():
    rng = np.random.default_rng(0)
    long_doc = rng.multinomial(100_000, np.full(200, 1 / 200))
    X = sp.csr_matrix(np.vstack([long_doc, rng.multinomial(20, np.full(200, 1 / 200))]))
    trainer = _finite_step(engine.LDA(n_topics=5, n_words=200), X)
    stats = trainer.model.local_step(X)
    assert stats.topic_word.sum() == pytest.approx(X.sum(), rel=1e-9)


@pytest.mark.parametrize(("alpha", "eta"), [(1e-6, 0.01), (0.1, 1e-6), (1e-6, 1e-6)])
def test_tiny_priors(alpha, eta):
    rng = np.random.default_rng(1)
    X = sp.csr_matrix(rng.poisson(0.3, size=(40, 60)))
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    model = engine.LDA(n_topics=4, n_words=60, alpha=alpha, eta=eta, seed=2)
    trainer = _finite_step(model, X)
    # every token is still assigned to some topic: nothing is lost to underflow
    assert trainer.model.local_step(X).topic_word.sum() == pytest.approx(X.sum(), rel=1e-9)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_underflowed_normalisers_are_rescued_in_log_space(dtype, monkeypatch):
    # topic 0 owns word 0, topic 1 owns word 1 (eta tiny); the documents start with almost
    # no weight on the owner of their second word, so exp-space products for it underflow
    from engine.kernels.reference import lda as _lda_local
    from engine.models.lda import LDAStats
    from tests.engine._reference import lda_local_reference

    rescued = []
    original = _lda_local._Rescue.weighted_phi
    monkeypatch.setattr(_lda_local._Rescue, "weighted_phi",
                        lambda self, *args: rescued.append(1) or original(self, *args))
    model = engine.LDA(n_topics=2, n_words=2, alpha=1e-6, eta=1e-6, local_tol=1e-10, local_max_iter=500,
                       dtype=dtype, preset="paper")
    model.lambda_ = np.array([[1e4, 1e-6], [1e-6, 1e4]])
    X = sp.csr_matrix(np.array([[50, 3], [3, 50]]))
    start = np.array([[50.0, 1e-6], [1e-6, 50.0]])
    empty = np.zeros(0)
    stats = model.local_step(X, warm_start=LDAStats(start, empty, empty, empty))
    assert rescued, "the log-space path was not exercised"
    gamma, sstats = lda_local_reference(X, model.lambda_.astype(float), 1e-6, 1e-10, 500, start)
    rtol = 1e-9 if dtype == "float64" else 1e-4
    np.testing.assert_allclose(stats.doc_topic, gamma, rtol=rtol)
    np.testing.assert_allclose(stats.topic_word, sstats, rtol=rtol, atol=1e-6)


def test_a_thousand_topics():
    rng = np.random.default_rng(3)
    X = sp.csr_matrix(rng.poisson(0.5, size=(30, 400)))
    _finite_step(engine.LDA(n_topics=1000, n_words=400), X)


def test_float32_matches_float64():
    rng = np.random.default_rng(4)
    X = sp.csr_matrix(rng.poisson(0.4, size=(50, 80)))
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    results = {}
    for dtype in ("float64", "float32"):
        model = engine.LDA(n_topics=5, n_words=80, dtype=dtype, seed=0)
        engine.SVI(model, X, batch_size=10).run(n_steps=10)
        assert model.lambda_.dtype == np.dtype(dtype)
        results[dtype] = model.lambda_
    np.testing.assert_allclose(results["float32"], results["float64"], rtol=2e-2, atol=1e-3)


@pytest.mark.parametrize(("alpha", "eta"), [(1e-6, 0.01), (0.01, 1e-6), (1e-4, 1e-4)])
def test_tiny_priors_match_the_log_space_reference(alpha, eta):
    # extreme priors push E[log theta] and E[log beta] to -1e6: still the exact fixed point
    from tests.engine._reference import lda_local_reference, planted_counts

    X, _ = planted_counts(n_docs=40, doc_length=30, seed=5)
    model = engine.LDA(n_topics=4, n_words=X.shape[1], alpha=alpha, eta=eta, seed=1,
                       local_tol=1e-9, local_max_iter=300, topic_init="exponential", preset="paper")
    model.initialize(X.shape[0])
    engine.SVI(model, X, batch_size=40, kappa=0.9, tau=1.0).run(n_steps=3)  # sharp, trained topics
    stats = model.local_step(X)
    gamma, sstats = lda_local_reference(X, model.lambda_, alpha, 1e-9, 300, np.ones((40, 4)))
    np.testing.assert_allclose(stats.doc_topic, gamma, rtol=1e-6, atol=1e-9)
    full = np.zeros_like(sstats)
    full[:, stats.columns] = stats.topic_word
    np.testing.assert_allclose(full, sstats, rtol=1e-6, atol=1e-9)
