"""The per-word held-out predictive log likelihood."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import engine


def test_matches_a_brute_force_loop():
    rng = np.random.default_rng(0)
    model = engine.LDA(n_topics=3, n_words=12, seed=0)
    model.lambda_ = rng.gamma(2.0, 1.0, size=(3, 12))
    observed = sp.csr_matrix(rng.poisson(0.7, size=(5, 12)))
    heldout = sp.csr_matrix(rng.poisson(0.4, size=(5, 12)))
    theta = model.transform(observed)
    topics = model.lambda_ / model.lambda_.sum(axis=1, keepdims=True)
    total, words = 0.0, 0
    for d in range(5):
        for w in range(12):
            c = heldout[d, w]
            if c:
                total += c * np.log(sum(theta[d, k] * topics[k, w] for k in range(3)))
                words += c
    assert engine.predictive_log_likelihood(model, observed, heldout) == pytest.approx(total / words)


def test_uniform_topics_give_minus_log_v():
    model = engine.LDA(n_topics=2, n_words=8)
    model.lambda_ = np.ones((2, 8))
    X = sp.csr_matrix(np.ones((3, 8)))
    assert engine.predictive_log_likelihood(model, X, X) == pytest.approx(-np.log(8))


def test_mismatched_halves_are_rejected():
    model = engine.LDA(n_topics=2, n_words=4)
    model.lambda_ = np.ones((2, 4))
    with pytest.raises(ValueError, match="same test documents"):
        engine.predictive_log_likelihood(model, sp.csr_matrix(np.ones((2, 4))), sp.csr_matrix(np.ones((3, 4))))
    with pytest.raises(ValueError, match="no words"):
        engine.predictive_log_likelihood(model, sp.csr_matrix(np.ones((2, 4))), sp.csr_matrix((2, 4)))
