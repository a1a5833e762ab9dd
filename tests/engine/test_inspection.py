"""Display read-outs: relevance, word colouring, top documents."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import engine
from engine.models.inspection import (
    most_likely_topics,
    relevance,
    text_segments,
    top_corpus_words,
    top_documents,
    top_indices,
    top_relevant_words,
    word_marginal,
)


def _model():
    model = engine.LDA(n_topics=2, n_words=4)
    model.lambda_ = np.array([[8.0, 1.0, 1.0, 0.5], [1.0, 1.0, 6.0, 0.5]])
    return model


@pytest.mark.parametrize("seed", range(6))
def test_top_indices_is_the_stable_argsort_with_ties(seed):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, 6, size=(5, 40)).astype(np.float32)  # many ties, also at the tenth place
    np.testing.assert_array_equal(top_indices(rows, 10), np.argsort(-rows, axis=1, kind="stable")[:, :10])
    np.testing.assert_array_equal(top_indices(rows[0], 10), np.argsort(-rows[0], kind="stable")[:10])
    np.testing.assert_array_equal(top_indices(rows[:, :7], 10), np.argsort(-rows[:, :7], axis=1, kind="stable"))
    assert top_indices(rows, 10).shape == (5, 10)


def test_relevance_endpoints_are_probability_and_lift():
    topics = np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])
    marginal = np.array([0.3, 0.2, 0.5])
    np.testing.assert_allclose(relevance(topics, marginal, 1.0), np.log(topics))
    np.testing.assert_allclose(relevance(topics, marginal, 0.0), np.log(topics / marginal))
    mid = relevance(topics, marginal, 0.6)
    np.testing.assert_allclose(mid, 0.6 * np.log(topics) + 0.4 * np.log(topics / marginal))
    with pytest.raises(ValueError, match="relevance weight"):
        relevance(topics, marginal, 1.5)


def test_word_marginal_is_the_mixture():
    topics = np.array([[0.5, 0.5], [0.0, 1.0]])
    np.testing.assert_allclose(word_marginal(topics, np.array([0.5, 0.5])), [0.25, 0.75])


def test_top_relevant_words_by_probability():
    idx, prob = top_relevant_words(_model(), n=2, weight=1.0)
    assert idx.tolist() == [[0, 1], [2, 0]]
    assert prob[0, 0] == pytest.approx(8.0 / 10.5)


def test_words_are_coloured_by_their_most_likely_topic():
    model = _model()
    X = sp.csr_matrix(np.array([[3, 0, 1, 0], [0, 0, 4, 1]]))
    assert most_likely_topics(model, X, doc_topic=np.array([[0.5, 0.5], [0.5, 0.5]])).tolist() == [0, 1, 1, 1]
    assert most_likely_topics(model, X).shape == (X.nnz,)


def test_top_documents_are_sorted_by_share():
    theta = np.array([[0.1, 0.9], [0.7, 0.3], [0.4, 0.6]])
    idx, share = top_documents(theta, topic=1, n=2)
    assert idx.tolist() == [0, 2] and share.tolist() == [0.9, 0.6]
    with pytest.raises(ValueError, match="topic"):
        top_documents(theta, topic=2)


def test_text_segments_tag_vocabulary_words_and_rebuild_the_text():
    vocabulary = ["cafe", "river", "boat"]
    text = "The Café by the river, 2 boats and a Boat."
    segments = text_segments(text, vocabulary)
    assert "".join(part for part, _ in segments) == text
    tagged = [(part, column) for part, column in segments if column is not None]
    assert tagged == [("Café", 0), ("river", 1), ("Boat", 2)]


def test_top_corpus_words_counts_tokens():
    X = sp.csr_matrix(np.array([[1, 5, 0], [2, 0, 1]]))
    assert top_corpus_words(X, ["a", "b", "c"], n=2) == [("b", 5), ("a", 3)]


def test_overall_divergence_by_hand_and_against_scipy():
    """JS(E[beta_k], p(w)) with p(w) the share-weighted mixture, worked out by hand for two words."""
    from scipy.spatial.distance import jensenshannon

    model = engine.LDA(n_topics=2, n_words=2, eta=0.01)
    model.lambda_ = np.array([[9.0, 1.0], [1.0, 9.0]])  # shares 1/2 each; E[beta] (0.9, 0.1) and (0.1, 0.9)
    p, overall, middle = np.array([0.9, 0.1]), np.array([0.5, 0.5]), np.array([0.7, 0.3])
    by_hand = 0.5 * np.sum(p * np.log(p / middle)) + 0.5 * np.sum(overall * np.log(overall / middle))
    np.testing.assert_allclose(model.overall_divergence(), [by_hand, by_hand], rtol=1e-12)
    assert by_hand == pytest.approx(0.1017, abs=1e-4)

    hdp = engine.HDP(n_topics=3, doc_truncation=2, n_words=4, seed=0, dtype="float64")
    hdp.lambda_ = np.array([[5.0, 1.0, 0.5, 0.2], [0.3, 0.3, 6.0, 2.0], [1.0, 1.0, 1.0, 1.0]])
    topics = hdp.expected_topics()
    overall = hdp.word_shares() @ topics
    expected = [jensenshannon(topics[k], overall) ** 2 for k in range(3)]  # scipy: sqrt of JS, natural log
    np.testing.assert_allclose(hdp.overall_divergence(), expected, rtol=1e-10)


def test_overall_divergence_taken_in_blocks_of_rows_is_scipys(monkeypatch):
    from scipy.spatial.distance import jensenshannon

    monkeypatch.setattr("engine.models._base._DIVERGENCE_CELLS", 2 * 30)  # blocks of 2 rows: 3 whole, 1 of 1
    model = engine.LDA(n_topics=7, n_words=30, eta=0.01)
    model.lambda_ = np.random.default_rng(3).gamma(0.3, 5.0, size=(7, 30)) + 0.01
    topics = model.expected_topics()
    overall = model.word_shares() @ topics
    expected = [jensenshannon(topics[k], overall) ** 2 for k in range(7)]
    np.testing.assert_allclose(model.overall_divergence(), expected, rtol=1e-10)


def test_copies_of_the_overall_word_use_are_at_zero_and_themes_far_from_it():
    model = engine.LDA(n_topics=4, n_words=5, eta=0.01)
    background = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    model.lambda_ = np.array([background, background, background, background])
    np.testing.assert_allclose(model.overall_divergence(), 0.0, atol=1e-15)
    # one topic on words nobody else uses: far from the rest, which stay close to the overall use
    model.lambda_ = np.array([background, background, background, [0.01, 0.01, 0.01, 0.01, 15.01]])
    divergence = model.overall_divergence()
    assert np.all((divergence >= 0.0) & (divergence <= np.log(2.0)))
    assert divergence[3] > 0.3 > 0.1 > divergence[:3].max()


def test_general_topics_are_the_copies_of_the_overall_word_use():
    model = engine.LDA(n_topics=4, n_words=5, eta=0.01)
    background = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    model.lambda_ = np.array([background, [0.01, 0.01, 0.01, 0.01, 1.51], background, background])
    divergence = model.overall_divergence()  # the theme holds 1.5 of the 46.5 words
    assert divergence[[0, 2, 3]].max() < 0.03 < 0.3 < divergence[1]
    np.testing.assert_array_equal(model.general_topics(), [0, 2, 3])
    assert model.general_topics(max_divergence=divergence[0] / 2).size == 0
    with pytest.raises(ValueError, match="max_divergence"):
        model.general_topics(max_divergence=0.0)


def test_merging_topics_sums_their_counts_into_the_largest_and_empties_the_rest():
    eta = 0.01
    model = engine.LDA(n_topics=4, n_words=3, eta=eta)
    lambda_ = np.array([[2.01, 1.01, 0.01], [0.51, 0.51, 5.01], [4.01, 2.01, 1.01], [1.01, 1.01, 1.01]])
    model.lambda_ = lambda_
    shares = model.word_shares()
    merged = model.merge_topics([3, 0, 2])  # topic 2 holds the most words of the three: it stays
    expected = lambda_.copy()
    expected[2] = eta + (lambda_[[0, 2, 3]] - eta).sum(axis=0)  # (7.01, 4.01, 2.01)
    expected[[0, 3]] = eta
    np.testing.assert_allclose(merged.lambda_, expected, rtol=1e-12)
    np.testing.assert_allclose(merged.lambda_[2], [7.01, 4.01, 2.01], rtol=1e-12)
    np.testing.assert_allclose(merged.word_shares(), [0.0, shares[1], shares[[0, 2, 3]].sum(), 0.0], atol=1e-12)
    np.testing.assert_allclose(model.lambda_, lambda_)  # the model itself is unchanged
    assert type(merged) is engine.LDA and merged.n_topics == 4 and merged.alpha == model.alpha


def test_merging_hdp_topics_adds_their_stick_counts():
    omega = 1.0
    hdp = engine.HDP(n_topics=4, doc_truncation=2, n_words=3, omega=omega, seed=0, dtype="float64")
    hdp.lambda_ = np.array([[6.0, 1.0, 1.0], [1.0, 1.0, 4.0], [1.0, 5.0, 1.0], [1.0, 1.0, 2.0]])
    # stick counts N = (5, 3, 2, 1): a_k = 1 + N_k, b_k = omega + sum_{l>k} N_l
    hdp.sticks_ = np.array([[6.0, 7.0], [4.0, 4.0], [3.0, 2.0]])
    merged = hdp.merge_topics([1, 3])  # topic 1 holds more words than topic 3: N becomes (5, 4, 2, 0)
    np.testing.assert_allclose(merged.sticks_, [[6.0, 7.0], [5.0, 3.0], [3.0, 1.0]], rtol=1e-12)
    np.testing.assert_allclose(merged.lambda_[1], [1.99, 1.99, 5.99], rtol=1e-12)  # eta 0.01 + both excesses
    np.testing.assert_allclose(merged.lambda_[3], hdp.eta)
    weights = merged.topic_weights()
    assert weights.sum() == pytest.approx(1.0) and np.all(np.isfinite(weights))
    assert weights[3] < weights[1]
    np.testing.assert_allclose(hdp.sticks_, [[6.0, 7.0], [4.0, 4.0], [3.0, 2.0]])  # the original is unchanged


def test_merged_copies_of_a_trained_hdp_leave_one_general_topic():
    """An HDP trained on a small collection of one theme: its copies merge into one topic, finite everywhere."""
    X = engine.make_synthetic_corpus(n_docs=60, n_topics=2, n_words=200, doc_length=30, seed=3, readable=False).counts
    hdp = engine.HDP(n_topics=12, doc_truncation=4, n_words=200, seed=0, dtype="float64")
    engine.SVI(hdp, corpus=X, batch_size=20, seed=0).run(n_docs=240)
    general = hdp.general_topics(max_divergence=0.2)
    assert general.size >= 2
    merged = hdp.merge_topics(general)
    kept = general[np.argmax(hdp.word_shares()[general])]
    assert merged.word_shares()[kept] == pytest.approx(hdp.word_shares()[general].sum(), rel=1e-9)
    np.testing.assert_allclose(merged.word_shares().sum(), 1.0)
    assert np.all(np.isfinite(merged.transform(X[:5])))
    assert np.isfinite(engine.predictive_log_likelihood(merged, X[:5], X[5:10]))


@pytest.mark.parametrize(("topics", "message"), [
    ([1], "at least two"), ([1, 1], "at least two"), ([0, 4], r"\[0, 3\]"), ([-1, 2], r"\[0, 3\]"),
    ([0.5, 1.0], "whole numbers"), ([], "whole numbers"), ("ab", "whole numbers"), ([[0, 1]], "whole numbers"),
])
def test_merging_refuses_what_is_not_two_topic_indices(topics, message):
    model = engine.LDA(n_topics=4, n_words=3)
    model.lambda_ = np.ones((4, 3))
    with pytest.raises(ValueError, match=message):
        model.merge_topics(topics)


def test_merging_needs_a_fitted_model():
    with pytest.raises(engine.NotFittedError):
        engine.LDA(n_topics=4, n_words=3).merge_topics([0, 1])
