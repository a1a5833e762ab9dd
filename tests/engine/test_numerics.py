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


def test_underflowed_normalisers_are_rescued_in_log_space():
    # topic 0 owns word 0 overwhelmingly, topic 1 owns word 1; a tiny alpha makes each
    # document pick one topic, so exp-space products for the other word underflow to 0
    model = engine.LDA(n_topics=2, n_words=2, alpha=1e-6, eta=1e-6)
    model.lambda_ = np.array([[1e4, 1e-6], [1e-6, 1e4]])
    X = sp.csr_matrix(np.array([[50, 1], [1, 50]]))
    stats = model.local_step(X)
    assert np.all(np.isfinite(stats.doc_topic)) and np.all(np.isfinite(stats.topic_word))
    assert stats.topic_word.sum() == pytest.approx(102.0)


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
