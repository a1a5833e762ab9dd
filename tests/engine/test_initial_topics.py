"""The random start of lambda (engine.models._base.initial_topics), drawn in blocks on several threads."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from engine.models._base import _TOPICS_PER_DRAW, initial_topics
from tests.engine._reference import one_theme_documents


@pytest.fixture
def one_thread():
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(previous)


@pytest.mark.parametrize("method", ["gamma", "exponential"])
def test_start_is_the_block_streams_whatever_the_threads(method, one_thread):
    """Block b of rows comes from default_rng([seed, b]), row by row, on one thread as on several."""
    K, V, D, eta = 2 * _TOPICS_PER_DRAW + 3, 50, 400, 0.05
    serial = initial_topics(K, V, D, eta, method, 7, "float64")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    threaded = initial_topics(K, V, D, eta, method, 7, "float64")
    np.testing.assert_array_equal(serial, threaded)
    for block in range(3):
        rng = np.random.default_rng([7, block])
        for k in range(block * _TOPICS_PER_DRAW, min(K, (block + 1) * _TOPICS_PER_DRAW)):
            if method == "gamma":
                expected = rng.gamma(100.0, 1.0 / 100.0, size=V)
            else:
                expected = eta + rng.exponential(D * 100.0 / (K * V), size=V)
            np.testing.assert_allclose(serial[k], expected, rtol=1e-15)
    assert not np.array_equal(serial[0], serial[_TOPICS_PER_DRAW])  # the blocks are different streams


def test_float32_start_is_the_float64_start_rounded():
    start = initial_topics(20, 30, 100, 0.01, "gamma", 3, "float64")
    start32 = initial_topics(20, 30, 100, 0.01, "gamma", 3, "float32")
    assert start32.dtype == np.float32
    np.testing.assert_array_equal(start32, start.astype(np.float32))


def test_gamma_start_has_the_moments_of_gamma_100_over_100():
    """Mean 1 and standard deviation 1/10 (Gamma(100, 1/100)), all rows alike; different seeds differ."""
    start = initial_topics(40, 5000, 100, 0.01, "gamma", 0, "float64")
    assert abs(start.mean() - 1.0) < 1e-3
    assert abs(start.std() - 0.1) < 1e-3
    np.testing.assert_allclose(start.mean(axis=1), 1.0, atol=0.01)
    assert not np.array_equal(start, initial_topics(40, 5000, 100, 0.01, "gamma", 1, "float64"))


def test_documents_start_is_the_gamma_start_plus_the_words_of_three_drawn_documents():
    """Worked out independently: the drawn rows, their pooled proportions, mass 0.03 x tokens / K per topic."""
    import scipy.sparse as sp

    from engine.models._base import _SEED_STREAM, SEED_DOCUMENTS, SEED_MASS

    rng = np.random.default_rng(5)
    D, V, K = 60, 40, 7
    counts = rng.poisson(0.4, size=(D, V))
    counts[3] = 0  # a document without words, should it be drawn
    X = sp.csr_matrix(counts)
    start = initial_topics(K, V, D, 0.01, "documents", 11, "float64", documents=X)
    gamma = initial_topics(K, V, D, 0.01, "gamma", 11, "float64")
    rows = np.random.default_rng([11, _SEED_STREAM]).choice(D, size=K * SEED_DOCUMENTS, replace=False)
    dense = X.toarray().astype(float)
    mass = SEED_MASS * D * dense[rows].sum(axis=1).mean() / K
    for k in range(K):
        pooled = dense[rows[k * SEED_DOCUMENTS:(k + 1) * SEED_DOCUMENTS]].sum(axis=0)
        np.testing.assert_allclose(start[k] - gamma[k], mass * pooled / pooled.sum(), atol=1e-12)
    # an on-disk-like corpus read by rows gives the same start; too few documents are drawn with replacement
    assert np.array_equal(start, initial_topics(K, V, D, 0.01, "documents", 11, "float64", documents=X.tolil()))
    small = initial_topics(K, V, 5, 0.01, "documents", 11, "float32", documents=X[:5])
    assert small.dtype == np.float32 and np.all(np.isfinite(small)) and np.all(small > 0)
    assert np.array_equal(start, initial_topics(K, V, D, 0.01, "documents", 11, "float64", documents=counts))
    from engine.errors import VocabularyMismatchError

    with pytest.raises(VocabularyMismatchError, match="30"):
        initial_topics(K, V, D, 0.01, "documents", 11, "float64", documents=X[:, :30])
    with pytest.raises(ValueError, match="got none"):
        initial_topics(K, V, D, 0.01, "documents", 11, "float64")
    with pytest.raises(ValueError, match="documents has no documents"):
        initial_topics(K, V, D, 0.01, "documents", 11, "float64", documents=X[:0])


def test_documents_start_through_svi_fit_and_initialize():
    import functools

    import scipy.sparse as sp

    import engine

    X = sp.csr_matrix(np.random.default_rng(0).poisson(0.5, size=(80, 30)))
    for model_class in (engine.LDA, functools.partial(engine.HDP, doc_truncation=3)):
        model = model_class(n_topics=6, n_words=30, seed=2, topic_init="documents")
        with pytest.raises(ValueError, match='topic_init="documents" seeds the topics'):
            model.initialize(80)
        model.initialize(80, documents=X)
        expected = initial_topics(6, 30, 80, model.eta, "documents", 2, model.dtype or "float64", documents=X)
        np.testing.assert_array_equal(model.lambda_, expected)
        trained = model_class(n_topics=6, n_words=30, seed=2, topic_init="documents")
        engine.SVI(trained, corpus=X, seed=2).run(n_docs=160)
        assert np.all(np.isfinite(trained.lambda_)) and trained.lambda_.min() > 0
        fitted = model_class(n_topics=6, n_words=30, seed=2, topic_init="documents").fit(X)
        assert np.all(np.isfinite(fitted.lambda_))


def _grouped_corpus(seed=0):
    """200 documents of 20 tokens, each from one of 5 disjoint 12-word blocks: the groups are known."""
    X, groups = one_theme_documents(shares=(0.2,) * 5, n_docs=200, block=12, length=20, seed=seed)
    return X, groups, 12


def test_clusters_start_is_the_gamma_start_plus_each_clusters_word_counts():
    """With disjoint word blocks, k-means finds the groups: each topic gets one group's total counts."""
    X, groups, _ = _grouped_corpus()
    D, V = X.shape
    K = 5
    start = initial_topics(K, V, D, 0.01, "clusters", 3, "float64", documents=X)
    added = start - initial_topics(K, V, D, 0.01, "gamma", 3, "float64")
    dense = X.toarray()
    group_counts = np.array([dense[groups == g].sum(axis=0) for g in range(5)])
    # each topic's added counts are exactly one group's, every group used once (in k-means' order)
    matched = [int(np.flatnonzero(np.all(np.isclose(group_counts, row, atol=1e-9), axis=1))[0]) for row in added]
    assert sorted(matched) == list(range(5))
    np.testing.assert_allclose(added.sum(), X.sum())  # the corpus's tokens, once
    # the same seed gives the same start, with numba on one thread or several
    np.testing.assert_array_equal(start, initial_topics(K, V, D, 0.01, "clusters", 3, "float64", documents=X))
    numba.set_num_threads(1)
    try:
        np.testing.assert_array_equal(start, initial_topics(K, V, D, 0.01, "clusters", 3, "float64", documents=X))
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    # a corpus read by rows (as on disk) gives the same start
    np.testing.assert_array_equal(start, initial_topics(K, V, D, 0.01, "clusters", 3, "float64", documents=X.tolil()))


def test_clusters_start_with_fewer_distinct_documents_than_topics_leaves_the_rest_as_drawn():
    import scipy.sparse as sp

    X = sp.csr_matrix(np.array([[3, 0, 0, 1], [3, 0, 0, 1], [0, 2, 2, 0], [0, 0, 0, 0]]))
    K, V, D = 6, 4, 4
    start = initial_topics(K, V, D, 0.01, "clusters", 0, "float32", documents=X)
    gamma = initial_topics(K, V, D, 0.01, "gamma", 0, "float32")
    assert start.dtype == np.float32 and np.all(np.isfinite(start)) and start.min() > 0
    added = (start.astype(np.float64) - gamma)
    moved = np.flatnonzero(np.abs(added).sum(axis=1) > 1e-3)
    assert len(moved) == 2  # two distinct documents with words: two clusters hold them
    np.testing.assert_allclose(sorted(added[moved].sum(axis=1)), [4.0, 8.0], rtol=1e-5)
    np.testing.assert_array_equal(np.delete(start, moved, axis=0), np.delete(gamma, moved, axis=0).astype(np.float32))
    with pytest.raises(ValueError, match='topic_init="clusters" starts the topics'):
        initial_topics(K, V, D, 0.01, "clusters", 0, "float64")
    with pytest.raises(ValueError, match="documents has no documents"):
        initial_topics(K, V, D, 0.01, "clusters", 0, "float64", documents=X[:0])


def test_clusters_start_clusters_a_sample_of_a_large_corpus_scaled_to_its_size(monkeypatch):
    import engine.models._base as base

    X, _, _ = _grouped_corpus()
    monkeypatch.setattr(base, "CLUSTER_SAMPLE", 50)
    D, V = X.shape
    start = initial_topics(5, V, D, 0.01, "clusters", 3, "float64", documents=X)
    added = start - initial_topics(5, V, D, 0.01, "gamma", 3, "float64")
    rows = np.sort(np.random.default_rng([3, base._CLUSTER_STREAM]).choice(D, 50, replace=False))
    np.testing.assert_allclose(added.sum(), X[rows].sum() * D / 50)


def test_clusters_start_through_svi_recovers_the_groups():
    import scipy.sparse as sp

    import engine

    X, _, block = _grouped_corpus(seed=1)
    D, V = X.shape
    model = engine.LDA(n_topics=5, n_words=V, seed=0, topic_init="clusters")
    engine.SVI(model, corpus=X, seed=0).run(n_docs=5 * D)
    assert np.all(np.isfinite(model.lambda_))
    heaviest_block = np.argmax(model.lambda_.reshape(5, 5, block).sum(axis=2), axis=1)
    assert sorted(heaviest_block) == list(range(5))  # one topic per group
    hdp = engine.HDP(n_topics=8, doc_truncation=3, n_words=V, seed=0, topic_init="clusters")
    engine.SVI(hdp, corpus=sp.csr_matrix(X), seed=0).run(n_docs=2 * D)
    assert np.all(np.isfinite(hdp.lambda_)) and hdp.lambda_.min() > 0
