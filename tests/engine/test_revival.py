"""Re-seeding of unused LDA topics (revive_topics): the chosen document, the new row, consistency."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from tests.engine._reference import planted_counts


def _brute_force_fit(model, X, gamma):
    """Per-word log likelihood of each document under E[theta_d] and E[beta], one document at a time."""
    beta = model.lambda_ / model.lambda_.sum(axis=1, keepdims=True)
    theta = gamma / gamma.sum(axis=1, keepdims=True)
    out = []
    for d in range(X.shape[0]):
        row = X.getrow(d)
        out.append(float(row.data @ np.log(theta[d] @ beta[:, row.indices])) / row.data.sum())
    return np.array(out)


@pytest.mark.parametrize("scale", [7.0, 0.01])
def test_an_unused_topic_is_reseeded_from_the_worst_explained_document(scale):
    X, _ = planted_counts(n_docs=60, n_topics=4, seed=3)
    model = engine.LDA(n_topics=5, n_words=X.shape[1], seed=0, revive_topics=True)
    model.initialize(X.shape[0])
    lam = np.array(model.lambda_)
    lam[2] = model.eta + 1e-9  # topic 2 holds (almost) nothing
    model.lambda_ = lam
    stats = model.local_step(X)
    fit = _brute_force_fit(model, X, stats.doc_topic)
    mean_mass = (lam - model.eta).sum() / 5
    revived = model._revive(stats, scale=scale)
    assert revived.tolist() == [2]
    worst = int(np.argmin(fit))
    expected = np.full(X.shape[1], model.eta)
    row = X.getrow(worst)
    # the document's words, as the step scales them or at half the mean topic's mass, whichever is more
    expected[row.indices] += row.data * max(scale, 0.5 * mean_mass / row.data.sum())
    np.testing.assert_allclose(model.lambda_[2], expected, rtol=1e-12)
    np.testing.assert_array_equal(np.delete(model.lambda_, 2, axis=0), np.delete(lam, 2, axis=0))


def test_no_topic_is_reseeded_when_all_are_in_use():
    X, _ = planted_counts(n_docs=60, n_topics=4, seed=3)
    model = engine.LDA(n_topics=4, n_words=X.shape[1], seed=0, revive_topics=True)
    engine.SVI(model, X, batch_size=20, seed=0).run(n_docs=5 * X.shape[0])
    before = model.lambda_.copy()
    assert model._revive(model.local_step(X), scale=3.0).size == 0
    np.testing.assert_array_equal(model.lambda_, before)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_training_with_revival_stays_consistent_and_recovers_the_topics(dtype):
    # more topics than the corpus has: some fall out of use and are re-seeded, again and again
    X, truth = planted_counts(n_docs=400, n_topics=4, seed=5)
    model = engine.LDA(n_topics=8, n_words=X.shape[1], seed=1, revive_topics=True, dtype=dtype)
    trainer = engine.SVI(model, X, batch_size=50, seed=1)
    calls = []
    original = model._revive
    model._revive = lambda stats, scale: calls.append(original(stats, scale)) or calls[-1]
    trainer.run(n_docs=12 * X.shape[0])
    assert len(calls) >= 10  # once per epoch after the first
    assert sum(c.size for c in calls) >= 1  # something was re-seeded
    lam = model.lambda_
    assert np.all(np.isfinite(lam)) and lam.min() > 0
    # the store's running totals match the dense topics after row replacements
    totals = model._require_topics().excess_totals()
    np.testing.assert_allclose(totals, (lam.astype(np.float64) - model.eta).sum(axis=1), rtol=1e-4)
    # every true topic is still found: best cosine match above 0.9
    found = model.expected_topics()
    cos = (truth / np.linalg.norm(truth, axis=1, keepdims=True)) @ (found / np.linalg.norm(found, axis=1,
                                                                                            keepdims=True)).T
    assert cos.max(axis=1).min() > 0.9


def test_batch_vi_never_reseeds():
    X, _ = planted_counts(n_docs=60, n_topics=4, seed=3)
    model = engine.LDA(n_topics=6, n_words=X.shape[1], seed=0, revive_topics=True)
    trainer = engine.BatchVI(model, X)
    model._revive = lambda *args: pytest.fail("batch VI re-seeded a topic")
    for _ in range(3):
        trainer.step()
