"""LDA: the local step against the paper's equations, the ELBO, recovery of known topics."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.special import gammaln, psi

import engine
from engine.models.lda import restrict_columns
from tests.engine._reference import lda_local_reference, planted_counts, zero_order_local_reference


@pytest.fixture
def planted():
    return planted_counts()


def _model(X, n_topics=4, **kwargs):
    # the paper's exponential start gives sharply different topics, so each document's
    # local optimum is well separated and the fixed-point checks below are tight
    kwargs.setdefault("topic_init", "exponential")
    kwargs.setdefault("preset", "paper")  # these tests hold the paper's local step to its equations
    model = engine.LDA(n_topics=n_topics, n_words=X.shape[1], seed=3, **kwargs)
    model.initialize(X.shape[0])
    return model


def _assert_matches_reference(stats, gamma, sstats):
    """The local step's statistics equal the per-document reference's (topic_word on its columns)."""
    np.testing.assert_allclose(stats.doc_topic, gamma, rtol=1e-6)
    full = np.zeros_like(sstats)
    full[:, stats.columns] = stats.topic_word
    np.testing.assert_allclose(full, sstats, rtol=1e-6, atol=1e-9)


def test_local_step_matches_per_document_reference(planted):
    X, _ = planted
    model = _model(X, local_tol=1e-6, local_max_iter=500)
    stats = model.local_step(X)
    gamma0 = np.ones((X.shape[0], model.n_topics))
    gamma, sstats = lda_local_reference(X, model.lambda_, model.alpha, 1e-6, 500, gamma0)
    _assert_matches_reference(stats, gamma, sstats)


def test_local_step_reaches_the_fixed_point(planted):
    X, _ = planted
    model = _model(X, local_tol=1e-8, local_max_iter=1000)
    gamma = model.local_step(X).doc_topic
    # gamma_d = alpha + sum_n phi_dn with phi_dn^k ∝ exp(E[log theta_dk] + E[log beta_k,w_dn])
    elog_beta = psi(model.lambda_) - psi(model.lambda_.sum(axis=1, keepdims=True))
    elog_theta = psi(gamma) - psi(gamma.sum(axis=1, keepdims=True))
    for d in range(X.shape[0]):
        row = X.getrow(d)
        logits = elog_theta[d][None, :] + elog_beta[:, row.indices].T
        phi = np.exp(logits - logits.max(axis=1, keepdims=True))
        phi /= phi.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(gamma[d], model.alpha + row.data @ phi, atol=1e-5)


@pytest.mark.parametrize("kernel", ["numpy", "compiled"])
def test_zero_order_local_step_matches_per_document_reference(planted, kernel):
    X, _ = planted
    model = _model(X, local_tol=1e-8, local_max_iter=1000, preset="default", kernel=kernel, local_update="zero_order")
    stats = model.local_step(X)
    gamma0 = np.ones((X.shape[0], model.n_topics))
    gamma, sstats = zero_order_local_reference(X, model.lambda_, model.alpha, 1e-8, 1000, gamma0)
    _assert_matches_reference(stats, gamma, sstats)
    # the fixed point: gamma_d = alpha + sum_w c_dw phi_dw with phi ∝ E[theta_d] E[beta_w]
    mean_beta = model.lambda_ / model.lambda_.sum(axis=1, keepdims=True)
    for d in range(0, X.shape[0], 37):
        row = X.getrow(d)
        phi = (gamma[d] / gamma[d].sum())[None, :] * mean_beta[:, row.indices].T
        phi /= phi.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(stats.doc_topic[d], model.alpha + row.data @ phi, atol=1e-5)


@pytest.mark.parametrize("kernel", ["numpy", "compiled"])
def test_squarem_reaches_the_same_fixed_point_in_fewer_updates(planted, kernel):
    X, _ = planted
    plain = _model(X, preset="default", kernel=kernel, local_update="zero_order")
    engine.SVI(plain, X, batch_size=40, seed=0).run(n_steps=2)
    fast = _model(X, preset="default", kernel=kernel, local_acceleration="squarem",
                  local_update="zero_order")
    fast.lambda_ = plain.lambda_
    exact = _model(X, preset="default", kernel=kernel, local_tol=1e-12, local_max_iter=100_000,
                   local_update="zero_order")
    exact.lambda_ = plain.lambda_
    a, b, fixed = plain.local_step(X), fast.local_step(X), exact.local_step(X)
    # the fixed point: gamma_d = alpha + sum_w c_dw phi_dw with phi ∝ E[theta_d] E[beta_w]
    mean_beta = plain.lambda_ / plain.lambda_.sum(axis=1, keepdims=True)
    for d in range(0, X.shape[0], 29):
        row = X.getrow(d)
        phi = (fixed.doc_topic[d] / fixed.doc_topic[d].sum())[None, :] * mean_beta[:, row.indices].T
        phi /= phi.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(fixed.doc_topic[d], plain.alpha + row.data @ phi, rtol=1e-8)
    assert b.n_iter.sum() < a.n_iter.sum()
    error = lambda stats: np.abs(stats.doc_topic - fixed.doc_topic).mean()  # noqa: E731
    assert error(b) < error(a)
    np.testing.assert_allclose(b.doc_topic, fixed.doc_topic, atol=0.05 * b.doc_topic.max())


def test_squarem_needs_the_zero_order_update():
    with pytest.raises(ValueError, match="local_acceleration='squarem' is implemented for the zero-order step only"):
        engine.LDA(n_topics=3, n_words=5, preset="paper", local_acceleration="squarem").settings()
    assert engine.LDA(n_topics=3, n_words=5).local_acceleration == "none"
    assert engine.LDA(n_topics=3, n_words=5, preset="paper").local_acceleration == "none"


def test_presets_fill_only_what_is_unset():
    default = engine.LDA(n_topics=5, n_words=10)
    paper = engine.LDA(n_topics=5, n_words=10, preset="paper")
    assert (default.local_update, default.alpha, default.revive_topics) == ("auto", 0.2, True)
    assert [engine.LDA(n_topics=k, n_words=10).alpha for k in (20, 25, 40, 50, 100)] == [0.2, 0.2, 0.125, 0.1, 0.1]
    assert (paper.local_update, paper.alpha, paper.revive_topics) == ("mean_field", pytest.approx(0.2), False)
    assert (default.local_max_iter, paper.local_max_iter) == (30, 100)
    mixed = engine.LDA(n_topics=5, n_words=10, preset="paper", alpha=0.3, local_update="zero_order")
    assert (mixed.local_update, mixed.alpha) == ("zero_order", 0.3)
    again = engine.LDA(**default.get_params())
    assert again.get_params() == default.get_params()
    with pytest.raises(ValueError, match="preset must be one of"):
        engine.LDA(n_topics=5, n_words=10, preset="gibbs").settings()


def test_asymmetric_alpha_is_validated_and_used(planted):
    X, _ = planted
    with pytest.raises(ValueError, match=r"alpha must be a number or have shape \(4,\)"):
        engine.LDA(n_topics=4, n_words=X.shape[1], alpha=[0.1, 0.2]).settings()
    with pytest.raises(ValueError, match="finite and > 0"):
        engine.LDA(n_topics=4, n_words=X.shape[1], alpha=[0.1, 0.2, -1.0, 0.1]).settings()
    alpha = np.array([0.5, 0.1, 0.1, 2.0])
    model = _model(X, alpha=alpha, local_tol=1e-8, local_max_iter=1000)
    gamma = model.local_step(X[:3]).doc_topic
    reference, _ = lda_local_reference(X[:3], model.lambda_, alpha, 1e-8, 1000, np.ones((3, 4)))
    np.testing.assert_allclose(gamma, reference, rtol=1e-6)


def test_topic_statistics_sum_to_the_token_count(planted):
    X, _ = planted
    stats = _model(X).local_step(X)
    # every token's phi sums to one over topics
    assert stats.topic_word.sum() == pytest.approx(X.sum(), rel=1e-10)
    np.testing.assert_allclose(stats.doc_topic.sum(axis=1), np.asarray(X.sum(axis=1)).ravel() + 4 * 0.25, rtol=1e-3)


def test_local_step_leaves_the_model_and_input_unchanged(planted):
    X, _ = planted
    model = _model(X)
    before, data_before = model.lambda_.copy(), X.data.copy()
    model.local_step(X)
    np.testing.assert_array_equal(model.lambda_, before)
    np.testing.assert_array_equal(X.data, data_before)


def test_random_gamma_start_reaches_the_same_optimum(planted):
    X, _ = planted
    ones = _model(X, local_tol=1e-9, local_max_iter=2000).local_step(X).doc_topic
    rand = _model(X, local_tol=1e-9, local_max_iter=2000, gamma_init="random").local_step(
        X, rng=np.random.default_rng(1)
    ).doc_topic
    np.testing.assert_allclose(rand, ones, rtol=1e-4, atol=1e-4)


def _brute_force_elbo(X, lambda_, gamma, alpha, eta):
    """ELBO written term by term with explicit per-word phi (optimal given gamma, lambda)."""
    K, V = lambda_.shape
    elog_beta = psi(lambda_) - psi(lambda_.sum(axis=1, keepdims=True))
    total = 0.0
    for d in range(X.shape[0]):
        row = X.getrow(d)
        g = gamma[d]
        elog_theta = psi(g) - psi(g.sum())
        for w, c in zip(row.indices, row.data, strict=True):
            logits = elog_theta + elog_beta[:, w]
            phi = np.exp(logits - logits.max())
            phi /= phi.sum()
            # E[log p(z)] + E[log p(w|z)] - E[log q(z)]
            total += c * np.sum(phi * (elog_theta + elog_beta[:, w] - np.log(phi)))
        # E[log p(theta)] - E[log q(theta)]
        total += gammaln(K * alpha) - K * gammaln(alpha) + (alpha - 1) * elog_theta.sum()
        total -= gammaln(g.sum()) - gammaln(g).sum() + ((g - 1) * elog_theta).sum()
    for k in range(K):
        lam = lambda_[k]
        total += gammaln(V * eta) - V * gammaln(eta) + (eta - 1) * elog_beta[k].sum()
        total -= gammaln(lam.sum()) - gammaln(lam).sum() + ((lam - 1) * elog_beta[k]).sum()
    return total


def test_elbo_equals_the_term_by_term_formula():
    X, _ = planted_counts(n_docs=15, doc_length=20)
    model = _model(X)
    stats = model.local_step(X)
    expected = _brute_force_elbo(X, model.lambda_, stats.doc_topic, model.alpha, model.eta)
    assert model.elbo(X, stats) == pytest.approx(expected, rel=1e-10)


def test_batch_vi_elbo_never_decreases(planted):
    X, _ = planted
    model = engine.LDA(n_topics=6, n_words=X.shape[1], seed=1)
    batch = engine.BatchVI(model, X)
    values = []
    for _ in range(12):
        batch.step()
        values.append(batch.elbo())
    diffs = np.diff(values)
    assert np.all(diffs >= -1e-9 * np.abs(values[1:])), diffs
    assert values[-1] > values[0]


def test_svi_full_batch_first_step_equals_a_batch_sweep(planted):
    X, _ = planted
    svi_model = _model(X)
    batch_model = svi_model.copy()
    trainer = engine.SVI(svi_model, X, batch_size=X.shape[0], kappa=0.9, tau=0.0)
    report = trainer.step()
    assert report.rho == 1.0
    engine.BatchVI(batch_model, X).step()
    np.testing.assert_allclose(svi_model.lambda_, batch_model.lambda_, rtol=1e-10)


def test_kappa_zero_full_batch_replaces_lambda_every_step(planted):
    X, _ = planted
    svi_model = _model(X)
    manual = svi_model.copy()
    with pytest.warns(UserWarning, match="kappa"):
        trainer = engine.SVI(svi_model, X, batch_size=X.shape[0], kappa=0.0, tau=5.0)
    for _ in range(2):
        assert trainer.step().rho == 1.0
        stats = manual.local_step(X)
        # the classical update lambda = eta + sum_d sum_n phi_dn w_dn
        expected = np.full_like(manual.lambda_, manual.eta)
        expected[:, stats.columns] += stats.topic_word
        manual.lambda_ = expected
    np.testing.assert_allclose(svi_model.lambda_, manual.lambda_, rtol=1e-10)


def _matched_cosines(estimated, truth):
    est = estimated / np.linalg.norm(estimated, axis=1, keepdims=True)
    tru = truth / np.linalg.norm(truth, axis=1, keepdims=True)
    cos = tru @ est.T
    rows, cols = linear_sum_assignment(-cos)
    return cos[rows, cols]


@pytest.mark.parametrize("topic_init", ["exponential", "gamma"])
def test_svi_recovers_planted_topics(topic_init):
    X, truth = planted_counts(n_docs=600, n_topics=5, seed=2)
    train, (observed, heldout) = X[:500], _split_half(X[500:])
    recovered, logliks = [], []
    for seed in range(5):
        model = engine.LDA(n_topics=5, n_words=X.shape[1], seed=seed, topic_init=topic_init)
        engine.SVI(model, train, batch_size=50, kappa=0.7, tau=1.0).run(n_docs=5 * 500)
        recovered.append(int(np.sum(_matched_cosines(model.expected_topics(), truth) > 0.9)))
        logliks.append(engine.predictive_log_likelihood(model, observed, heldout))
    # most topics matched (cosine > 0.9) in most runs; a random start can merge two topics
    assert np.median(recovered) >= 4, recovered
    uniform = -np.log(X.shape[1])
    assert np.median(logliks) > uniform + 0.5, (logliks, uniform)


def _split_half(X):
    """Alternate word types of each row between observed and held-out (for tests only)."""
    X = sp.csr_matrix(X)
    obs, ho = X.copy(), X.copy()
    for d in range(X.shape[0]):
        lo, hi = X.indptr[d], X.indptr[d + 1]
        obs.data[lo:hi][1::2] = 0
        ho.data[lo:hi][0::2] = 0
    obs.eliminate_zeros()
    ho.eliminate_zeros()
    return obs, ho


def test_transform_rows_are_proportions(planted):
    X, _ = planted
    theta = _model(X).transform(X[:20])
    assert theta.shape == (20, 4)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)


def test_top_words_and_expected_topics(planted):
    X, _ = planted
    model = _model(X)
    topics = model.expected_topics()
    np.testing.assert_allclose(topics.sum(axis=1), 1.0)
    top = model.top_words(3)
    assert [topics[k, top[k]].tolist() == sorted(topics[k, top[k]], reverse=True) for k in range(4)] == [True] * 4
    vocab = [f"w{i}" for i in range(X.shape[1])]
    assert model.top_words(2, vocabulary=vocab)[0] == [vocab[i] for i in top[0][:2]]
    np.testing.assert_allclose(model.topic_weights().sum(), 1.0)


@pytest.mark.parametrize("n_words", [4, 10_000])  # a marking table, and sorting for a vocabulary >> entries
def test_restrict_columns_keeps_counts(n_words):
    X = sp.csr_matrix((np.array([2, 1, 5, 7]), np.array([3, 1, 3, 0]), np.array([0, 2, 2, 4])), shape=(3, n_words))
    local, columns = restrict_columns(X)
    assert columns.tolist() == [0, 1, 3]
    np.testing.assert_array_equal(local.toarray(), [[0, 1, 2], [0, 0, 0], [7, 0, 5]])
    np.testing.assert_array_equal(local.toarray(), X[:, columns].toarray())


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_topics": 1}, "n_topics"),
        ({"n_topics": 2.5}, "n_topics"),
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": -1.0}, "alpha"),
        ({"eta": 0.0}, "eta"),
        ({"eta": float("nan")}, "eta"),
        ({"gamma_init": "zeros"}, "gamma_init"),
        ({"topic_init": "uniform"}, "topic_init"),
        ({"dtype": "int32"}, "dtype"),
        ({"local_max_iter": 0}, "local_max_iter"),
    ],
)
def test_invalid_model_arguments_are_rejected(kwargs, match):
    args = {"n_topics": 3, "n_words": 10} | kwargs
    with pytest.raises(ValueError, match=match):
        engine.LDA(**args).settings()  # arguments are validated when first used


def test_lambda_assignment_is_validated():
    model = engine.LDA(n_topics=2, n_words=3)
    with pytest.raises(ValueError, match="shape"):
        model.lambda_ = np.ones((3, 2))
    with pytest.raises(ValueError, match="> 0"):
        model.lambda_ = np.zeros((2, 3))
    model.lambda_ = np.full((2, 3), 2.0)
    assert model.lambda_.sum() == 12.0


def test_vocabulary_mismatch_is_reported(planted):
    X, _ = planted
    model = engine.LDA(n_topics=3, n_words=X.shape[1] + 1)
    with pytest.raises(engine.VocabularyMismatchError, match="n_words"):
        engine.SVI(model, X, batch_size=10)


def test_untrained_model_says_what_to_do():
    with pytest.raises(RuntimeError, match="initialize"):
        engine.LDA(n_topics=2, n_words=3).expected_topics()
