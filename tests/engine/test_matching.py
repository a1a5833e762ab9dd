"""engine.match_topics: topics of two models paired one to one, checked against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine


def _hellinger(p: np.ndarray, q: np.ndarray) -> float:
    """The textbook form: ||sqrt p - sqrt q|| / sqrt 2, one pair at a time."""
    p, q = p / p.sum(), q / q.sum()
    return float(np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2)))


def _distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([[_hellinger(p, q) for q in b] for p in a])


def _topics(rng, n_topics: int, n_words: int = 12, concentration: float = 0.3) -> np.ndarray:
    return rng.dirichlet(np.full(n_words, concentration), size=n_topics)


def _trained(corpus, seed: int, n_topics: int = 5, model=engine.LDA):
    extra = {"doc_truncation": 4} if model is engine.HDP else {}
    fitted = model(n_topics=n_topics, n_words=corpus.n_words, seed=seed, **extra)
    engine.SVI(fitted, corpus=corpus.counts, batch_size=50, seed=seed).run(n_docs=2000)
    return fitted


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("rows", "columns"), [(5, 5), (6, 4), (3, 6)])
def test_the_pairs_have_the_least_summed_distance_of_every_one_to_one_pairing(seed, rows, columns):
    rng = np.random.default_rng(seed)
    a, b = _topics(rng, rows), _topics(rng, columns)
    match = engine.match_topics(a, b)
    distances = _distances(a, b)
    paired = np.flatnonzero(match.partner >= 0)
    assert paired.size == min(rows, columns)
    assert len(set(match.partner[paired].tolist())) == paired.size  # one to one
    np.testing.assert_allclose(match.distance[paired], distances[paired, match.partner[paired]], atol=1e-12)
    best = min(
        sum(distances[i, j] for i, j in zip(chosen_rows, chosen_columns, strict=True))
        for chosen_rows in itertools.combinations(range(rows), min(rows, columns))
        for chosen_columns in itertools.permutations(range(columns), min(rows, columns))
    )
    assert match.distance[paired].sum() == pytest.approx(best, abs=1e-12)
    unpaired = match.partner < 0
    assert np.all(match.distance[unpaired] == 1.0)
    assert not match.recurring[unpaired].any() and np.all(match.shared_words[unpaired] == 0)


@pytest.mark.parametrize("seed", range(10))
def test_a_topic_recurs_when_it_and_its_partner_are_each_others_nearest(seed):
    rng = np.random.default_rng(seed)
    a, b = _topics(rng, 6), _topics(rng, 6)
    b[:3] = 0.8 * a[rng.permutation(6)[:3]] + 0.2 * b[:3]  # three of a's topics come back, blurred
    match = engine.match_topics(a, b)
    distances = _distances(a, b)
    for topic in range(6):
        partner = match.partner[topic]
        mutual = distances[topic].argmin() == partner and distances[:, partner].argmin() == topic
        assert match.recurring[topic] == mutual
    assert match.n_recurring() >= 3
    assert match.n_recurring([0, 1]) == int(match.recurring[:2].sum())


def test_a_partner_that_is_nearer_to_another_topic_does_not_make_a_recurrence():
    # a0 and a1 are both nearest to b0; the pairing must give one of them b1, which is nearer to neither
    a = np.array([[0.48, 0.50, 0.01, 0.01], [0.40, 0.58, 0.01, 0.01]])
    b = np.array([[0.48, 0.50, 0.01, 0.01], [0.05, 0.05, 0.45, 0.45]])
    match = engine.match_topics(a, b)
    assert match.partner.tolist() == [0, 1]
    assert match.recurring.tolist() == [True, False]


def test_a_model_against_its_topics_shuffled_finds_every_topic_at_distance_zero(planted_corpus):
    model = _trained(planted_corpus, seed=0)
    order = np.array([3, 0, 4, 1, 2])
    match = engine.match_topics(model, model.expected_topics()[order], n_top=7)
    np.testing.assert_array_equal(order[match.partner], np.arange(5))
    np.testing.assert_allclose(match.distance, 0.0, atol=1e-6)
    assert match.recurring.all() and np.all(match.shared_words == 7) and match.n_top == 7


def test_two_seeds_find_the_planted_topics_again(planted_corpus):
    first, second = _trained(planted_corpus, seed=0), _trained(planted_corpus, seed=1)
    match = engine.match_topics(first, second)
    assert match.n_recurring() == 5
    assert np.all(match.shared_words == 10)  # each planted topic is a block of 10 words
    truth = engine.match_topics(planted_corpus.topics, first)
    assert truth.recurring.all() and np.all(truth.shared_words == 10)
    # the pairs are the same from either side
    back = engine.match_topics(second, first)
    np.testing.assert_array_equal(back.partner[match.partner], np.arange(5))


def test_an_hdp_is_matched_against_an_lda_with_fewer_topics(planted_corpus):
    lda = _trained(planted_corpus, seed=0)
    hdp = _trained(planted_corpus, seed=0, n_topics=12, model=engine.HDP)
    match = engine.match_topics(hdp, lda)
    assert match.n_topics == 12 and np.count_nonzero(match.partner >= 0) == 5
    in_use = np.flatnonzero(hdp.topic_weights() >= 0.05)
    assert match.n_recurring(in_use) == in_use.size == 5
    assert np.all(match.shared_words[in_use] >= 9)


def test_two_identical_topics_recur_once():
    rng = np.random.default_rng(3)
    b = _topics(rng, 3)
    a = np.vstack([b[0], b[0], b[1], b[2]])
    match = engine.match_topics(a, b)
    assert match.recurring.tolist() == [True, False, True, True]


def test_vocabularies_that_differ_are_lined_up_word_by_word():
    rng = np.random.default_rng(4)
    words = [f"w{i}" for i in range(10)]
    a = _topics(rng, 3, n_words=10)
    # the other model: the same topics over its words in another order, plus two words of its own
    order = rng.permutation(10)
    other_words = [words[i] for i in order] + ["extra1", "extra2"]
    b = np.hstack([a[:, order], np.zeros((3, 2))])
    b[1, 10:] = 0.5  # topic 1 of b gives its own words half of its mass
    match = engine.match_topics(a, b, vocabulary=words, other_vocabulary=other_words)
    assert match.partner.tolist() == [0, 1, 2]
    assert match.distance[0] == pytest.approx(0.0, abs=1e-12) and match.distance[2] == pytest.approx(0.0, abs=1e-12)
    widened_a = np.hstack([a, np.zeros((3, 2))])
    widened_b = np.zeros((3, 12))
    widened_b[:, [words.index(w) for w in other_words[:10]]] = b[:, :10]
    widened_b[:, 10:] = b[:, 10:]
    assert match.distance[1] == pytest.approx(_hellinger(widened_a[1], widened_b[1]), abs=1e-12)
    # without the vocabularies the columns are taken as the same words: the topics no longer line up
    assert engine.match_topics(a, b[:, :10]).distance.max() > 0.1


def test_fitted_models_bring_their_own_vocabularies(planted_corpus):
    frame = pd.DataFrame(planted_corpus.counts.toarray(), columns=list(planted_corpus.vocabulary))
    first = engine.LDA(n_topics=5, n_words=planted_corpus.n_words, seed=0).fit(frame)
    reversed_frame = frame[frame.columns[::-1]]
    second = engine.LDA(n_topics=5, n_words=planted_corpus.n_words, seed=1).fit(reversed_frame)
    match = engine.match_topics(first, second)
    assert match.n_recurring() == 5 and np.all(match.shared_words == 10)


def test_bad_inputs_say_what_to_fix(planted_corpus):
    model = _trained(planted_corpus, seed=0)
    with pytest.raises(ValueError, match="no topics yet"):
        engine.match_topics(engine.LDA(n_topics=3, n_words=50), model)
    with pytest.raises(engine.VocabularyMismatchError, match="50 and 40 words"):
        engine.match_topics(model, np.ones((3, 40)))
    with pytest.raises(ValueError, match="finite and non-negative"):
        engine.match_topics(model, -np.ones((3, 50)))
    with pytest.raises(ValueError, match="finite and non-negative"):
        engine.match_topics(np.full((2, 50), np.nan), model)
    with pytest.raises(ValueError, match="all zero"):
        engine.match_topics(np.zeros((2, 50)), model)
    with pytest.raises(ValueError, match="2-d array"):
        engine.match_topics(np.ones(50), model)
    with pytest.raises(engine.VocabularyMismatchError, match="has 3 words but its topics have 50"):
        engine.match_topics(model, np.ones((2, 50)), vocabulary=["a", "b", "c"], other_vocabulary=["a"] * 50)
    with pytest.raises(engine.VocabularyMismatchError, match="holds a word twice"):
        engine.match_topics(np.ones((2, 3)), np.ones((2, 3)), vocabulary=["a", "b", "b"],
                            other_vocabulary=["a", "b", "c"])
    with pytest.raises(ValueError, match="n_top"):
        engine.match_topics(model, model, n_top=0)
    with pytest.raises(ValueError, match="2-d array"):
        engine.match_topics(3.0, model)
    too_many = np.ones((engine.MAX_MATCHED_TOPICS + 1, 2))
    with pytest.raises(engine.LimitExceededError, match="other has 5,001 topics; topics are matched for models of "
                                                        "at most 5,000"):
        engine.match_topics(np.ones((2, 2)), too_many)


def test_nothing_is_changed_and_nothing_is_nan(planted_corpus):
    model = _trained(planted_corpus, seed=0)
    before = model.lambda_.copy()
    weights = np.random.default_rng(0).random((4, 50))
    kept = weights.copy()
    match = engine.match_topics(model, weights)
    np.testing.assert_array_equal(model.lambda_, before)
    np.testing.assert_array_equal(weights, kept)
    assert np.all(np.isfinite(match.distance)) and np.all((match.distance >= 0) & (match.distance <= 1))


@settings(max_examples=60, deadline=None, database=None)
@given(rows=st.integers(1, 7), columns=st.integers(1, 7), words=st.integers(2, 9), shared=st.integers(1, 9),
       seed=st.integers(0, 2**32 - 1))
def test_over_two_vocabularies_the_match_is_the_match_over_their_union(rows, columns, words, shared, seed):
    """Any two sets of topics over overlapping vocabularies: the same as both widened to the union by hand."""
    rng = np.random.default_rng(seed)
    shared = min(shared, words)
    vocabulary = [f"w{i}" for i in range(words)]
    other_vocabulary = list(rng.permutation(vocabulary[:shared])) + [f"x{i}" for i in range(words - shared)]
    a = rng.gamma(0.3, size=(rows, words)) + 1e-9
    b = rng.gamma(0.3, size=(columns, words)) + 1e-9
    union = vocabulary + [w for w in other_vocabulary if w not in vocabulary]
    wide_a, wide_b = np.zeros((rows, len(union))), np.zeros((columns, len(union)))
    wide_a[:, :words] = a
    wide_b[:, [union.index(w) for w in other_vocabulary]] = b
    found = engine.match_topics(a, b, vocabulary=vocabulary, other_vocabulary=other_vocabulary, n_top=3)
    by_hand = engine.match_topics(wide_a, wide_b, n_top=3)
    np.testing.assert_allclose(found.distance, by_hand.distance, atol=1e-12)
    np.testing.assert_array_equal(found.recurring, by_hand.recurring)
    np.testing.assert_array_equal(found.shared_words, by_hand.shared_words)
    # invariants: one to one, min(rows, columns) pairs, distances in [0, 1], a recurring topic's partner is its nearest
    paired = found.partner >= 0
    assert paired.sum() == min(rows, columns) and len(set(found.partner[paired])) == paired.sum()
    assert np.all((found.distance >= 0) & (found.distance <= 1))
    distances = _distances(wide_a, wide_b)
    for topic in np.flatnonzero(found.recurring):
        assert distances[topic, found.partner[topic]] == pytest.approx(distances[topic].min(), abs=1e-12)
