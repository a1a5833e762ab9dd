"""Tests of engine/data/synthetic.py: corpora drawn from the LDA generative process."""

from __future__ import annotations

import csv
import importlib.util
import json
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

from engine.data.synthetic import SyntheticCorpus, make_synthetic_corpus, synthetic_themes


def _pearson_p_value(observed: np.ndarray, expected: np.ndarray) -> float:
    """p-value of Pearson's chi-square test of observed counts against expected counts."""
    statistic = np.sum((observed - expected) ** 2 / expected)
    return float(stats.chi2.sf(statistic, df=observed.size - 1))


@pytest.mark.parametrize("readable", [True, False])
def test_shapes_and_types(readable):
    corpus = make_synthetic_corpus(n_docs=50, n_topics=4, n_words=None, seed=3, readable=readable)
    assert isinstance(corpus, SyntheticCorpus)
    assert isinstance(corpus.counts, sp.csr_matrix)
    assert np.issubdtype(corpus.counts.dtype, np.integer)
    n_words = len(corpus.vocabulary)
    assert corpus.counts.shape == (50, n_words)
    assert (corpus.n_docs, corpus.n_topics, corpus.n_words) == (50, 4, n_words)
    assert corpus.topics.shape == (4, n_words)
    assert corpus.doc_topic.shape == (50, 4)
    assert len(corpus.topic_names) == 4
    assert len(set(corpus.vocabulary)) == n_words
    assert all(isinstance(word, str) for word in corpus.vocabulary)
    assert len(corpus.doc_ids) == len(set(corpus.doc_ids)) == 50
    assert len(corpus.texts()) == 50
    assert corpus.counts.has_sorted_indices
    assert np.all(corpus.counts.data > 0)


def test_unreadable_vocabulary_size():
    corpus = make_synthetic_corpus(n_docs=10, n_topics=3, n_words=120, readable=False)
    assert corpus.n_words == 120
    assert corpus.vocabulary[0] == "w001"
    assert corpus.vocabulary[-1] == "w120"
    assert corpus.topic_names == ("topic 1", "topic 2", "topic 3")


def test_readable_topics_use_the_themes_in_order():
    themes = synthetic_themes()
    corpus = make_synthetic_corpus(n_docs=10, n_topics=3)
    assert corpus.topic_names == tuple(themes)[:3]
    expected = {word for name in corpus.topic_names for word in themes[name]}
    assert set(corpus.vocabulary) == expected


def test_readable_extra_words_come_from_unused_themes():
    themes = synthetic_themes()
    own = len({word for name in tuple(themes)[:2] for word in themes[name]})
    corpus = make_synthetic_corpus(n_docs=10, n_topics=2, n_words=own + 7)
    assert corpus.n_words == own + 7
    assert set(corpus.vocabulary) <= {word for words in themes.values() for word in words}


def test_readable_topics_are_mostly_their_theme():
    themes = synthetic_themes()
    corpus = make_synthetic_corpus(n_docs=10, n_topics=len(themes), seed=5)
    column = {word: i for i, word in enumerate(corpus.vocabulary)}
    for k, name in enumerate(corpus.topic_names):
        on_theme = corpus.topics[k, [column[word] for word in themes[name]]].sum()
        assert on_theme > 0.75, name


def test_theme_words_survive_the_text_pipeline():
    token = re.compile(r"(?u)\b\w\w+\b")  # CountVectorizer's default token pattern
    for name, words in synthetic_themes().items():
        assert len(words) == len(set(words)), name
        for word in words:
            assert token.fullmatch(word), word
            assert word == word.lower(), word
            assert word not in ENGLISH_STOP_WORDS, word


def test_texts_render_the_counts_exactly():
    corpus = make_synthetic_corpus(n_docs=300, n_topics=len(synthetic_themes()), seed=2)
    vectorizer = CountVectorizer(stop_words="english")
    from_texts = vectorizer.fit_transform(corpus.texts()).tocsc()
    column = {word: i for i, word in enumerate(corpus.vocabulary)}
    order = [column[word] for word in vectorizer.get_feature_names_out()]
    counts = corpus.counts.tocsc()
    assert (from_texts != counts[:, order]).nnz == 0
    # words never drawn are absent from the texts, all others are present
    assert set(order) == set(np.flatnonzero(np.asarray(counts.sum(axis=0)).ravel()))


def test_texts_shuffle_words_within_documents():
    corpus = make_synthetic_corpus(n_docs=5, n_topics=2, doc_length=200)
    for text, row in zip(corpus.texts(), corpus.counts, strict=True):
        words = text.split()
        assert len(words) == row.sum()
        assert words != sorted(words)


def test_topics_and_proportions_are_distributions():
    corpus = make_synthetic_corpus(n_docs=200, n_topics=6, n_words=300, eta=0.05, readable=False)
    for matrix in (corpus.topics, corpus.doc_topic):
        assert np.all(np.isfinite(matrix))
        assert np.all(matrix >= 0)
        np.testing.assert_allclose(matrix.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("doc_length", [0.3, 1.0, 60.0])
def test_no_empty_documents(doc_length):
    corpus = make_synthetic_corpus(n_docs=500, n_topics=3, doc_length=doc_length, seed=1)
    assert np.all(np.asarray(corpus.counts.sum(axis=1)).ravel() >= 1)
    assert all(corpus.texts())


def test_same_seed_same_corpus_other_seed_other_corpus():
    first = make_synthetic_corpus(n_docs=100, n_topics=4, seed=7)
    again = make_synthetic_corpus(n_docs=100, n_topics=4, seed=7)
    other = make_synthetic_corpus(n_docs=100, n_topics=4, seed=8)
    assert (first.counts != again.counts).nnz == 0
    np.testing.assert_array_equal(first.topics, again.topics)
    np.testing.assert_array_equal(first.doc_topic, again.doc_topic)
    assert first.texts() == again.texts()
    assert not np.array_equal(first.topics, other.topics)
    assert first.texts() != other.texts()


def test_global_random_state_is_neither_used_nor_changed():
    # the legacy global generator is used on purpose: the engine must not touch it
    np.random.seed(0)  # noqa: NPY002
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    first = make_synthetic_corpus(n_docs=20, n_topics=2, seed=4)
    np.testing.assert_array_equal(np.random.get_state()[1], before)  # noqa: NPY002
    np.random.seed(123)  # noqa: NPY002
    second = make_synthetic_corpus(n_docs=20, n_topics=2, seed=4)
    assert (first.counts != second.counts).nnz == 0


def test_word_frequencies_match_the_mixture():
    # sum over documents of Multinomial(N_d, theta_d @ beta): its mean is the mixture
    corpus = make_synthetic_corpus(n_docs=3000, n_topics=4, n_words=60, doc_length=80, eta=0.5, readable=False, seed=11)
    lengths = np.asarray(corpus.counts.sum(axis=1)).ravel()
    expected = lengths @ (corpus.doc_topic @ corpus.topics)
    observed = np.asarray(corpus.counts.sum(axis=0)).ravel()
    assert _pearson_p_value(observed, expected) > 1e-3


def test_each_document_follows_its_own_mixture():
    corpus = make_synthetic_corpus(
        n_docs=4, n_topics=3, n_words=40, doc_length=20_000, eta=0.5, readable=False, seed=12
    )
    mixtures = corpus.doc_topic @ corpus.topics
    counts = corpus.counts.toarray()
    for d in range(4):
        expected = counts[d].sum() * mixtures[d]
        assert _pearson_p_value(counts[d], expected) > 1e-3
        # the test has power: another document's mixture is rejected
        wrong = counts[d].sum() * mixtures[(d + 1) % 4]
        assert _pearson_p_value(counts[d], wrong) < 1e-6


def test_topic_proportions_follow_the_dirichlet_prior():
    alpha = np.array([0.5, 1.0, 1.5, 2.0])
    corpus = make_synthetic_corpus(n_docs=4000, n_topics=4, alpha=alpha, doc_length=5, seed=13)
    np.testing.assert_allclose(corpus.doc_topic.mean(axis=0), alpha / alpha.sum(), atol=0.01)


def test_document_lengths_are_zero_truncated_poisson():
    mean = 2.0
    corpus = make_synthetic_corpus(n_docs=5000, n_topics=2, doc_length=mean, seed=14)
    lengths = np.asarray(corpus.counts.sum(axis=1)).ravel()
    assert lengths.mean() == pytest.approx(mean / (1 - np.exp(-mean)), abs=0.06)


def test_top_words_of_true_topics():
    corpus = make_synthetic_corpus(n_docs=10, n_topics=3, seed=0)
    top = corpus.top_words(5)
    assert [len(words) for words in top] == [5, 5, 5]
    column = {word: i for i, word in enumerate(corpus.vocabulary)}
    for k, words in enumerate(top):
        weights = corpus.topics[k, [column[w] for w in words]]
        assert np.all(np.diff(weights) <= 0)
        assert weights[0] == corpus.topics[k].max()
    with pytest.raises(ValueError, match="n must be a positive integer"):
        corpus.top_words(0)


def test_dominant_topics():
    corpus = make_synthetic_corpus(n_docs=30, n_topics=3, seed=0)
    expected = [corpus.topic_names[k] for k in corpus.doc_topic.argmax(axis=1)]
    assert list(corpus.dominant_topics()) == expected


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"n_docs": 0}, "n_docs must be a positive integer, got 0"),
        ({"n_docs": 2.5}, "n_docs must be a positive integer"),
        ({"n_docs": True}, "n_docs must be a positive integer"),
        ({"n_topics": 0}, "n_topics must be a positive integer"),
        ({"n_topics": 17}, "n_topics must be at most 16 when readable=True"),
        ({"n_words": 0, "readable": False}, "n_words must be a positive integer"),
        ({"n_words": 10}, "n_words must be between"),
        ({"n_words": 10_000}, "n_words must be between"),
        ({"doc_length": 0}, "doc_length must be a positive finite number, got 0"),
        ({"doc_length": float("inf")}, "doc_length must be a positive finite number"),
        ({"alpha": -1.0}, "alpha must be a positive number or 3 positive numbers"),
        ({"alpha": True}, "alpha must be a positive number or 3 positive numbers"),
        ({"alpha": [1.0, 1.0]}, "alpha must be a positive number or 3 positive numbers"),
        ({"alpha": [1.0, 0.0, 1.0]}, "alpha must be a positive number or 3 positive numbers"),
        ({"alpha": "big"}, "alpha must be a positive number or 3"),
        ({"eta": 0.0}, "eta must be a positive finite number"),
        ({"eta": float("nan")}, "eta must be a positive finite number"),
        ({"seed": -1}, "seed must be a non-negative integer, got -1"),
        ({"seed": None}, "seed must be a non-negative integer"),
        ({"readable": "yes"}, "readable must be True or False"),
    ],
)
def test_invalid_arguments_are_rejected(arguments, match):
    with pytest.raises(ValueError, match=re.escape(match)):
        make_synthetic_corpus(**{"n_docs": 10, "n_topics": 3, **arguments})


def test_many_unreadable_topics_are_allowed():
    corpus = make_synthetic_corpus(n_docs=20, n_topics=40, n_words=200, readable=False)
    assert corpus.topics.shape == (40, 200)


@settings(max_examples=30, deadline=None)
@given(
    n_docs=st.integers(1, 40),
    n_topics=st.integers(1, 16),
    doc_length=st.floats(0.1, 80),
    alpha=st.floats(0.01, 5),
    eta=st.floats(0.001, 2),
    seed=st.integers(0, 2**32),
    readable=st.booleans(),
)
def test_invariants_hold_for_any_valid_arguments(n_docs, n_topics, doc_length, alpha, eta, seed, readable):
    corpus = make_synthetic_corpus(
        n_docs=n_docs,
        n_topics=n_topics,
        n_words=None if readable else 30,
        doc_length=doc_length,
        alpha=alpha,
        eta=eta,
        seed=seed,
        readable=readable,
    )
    row_sums = np.asarray(corpus.counts.sum(axis=1)).ravel()
    assert np.all(row_sums >= 1)
    assert corpus.counts.shape == (n_docs, len(corpus.vocabulary))
    np.testing.assert_allclose(corpus.topics.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(corpus.doc_topic.sum(axis=1), 1.0, atol=1e-12)
    assert [len(text.split()) for text in corpus.texts()] == row_sums.tolist()


def _load_sample_script(project_root):
    path = project_root / "sample_data" / "make_synthetic.py"
    spec = importlib.util.spec_from_file_location("make_synthetic", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shipped_synthetic_sample_is_consistent(project_root):
    folder = project_root / "sample_data" / "synthetic"
    description = json.loads((folder / "topics.json").read_text(encoding="utf-8"))
    with open(folder / "documents.csv", encoding="utf-8", newline="") as file:
        documents = list(csv.DictReader(file))
    with open(folder / "doc_topics.csv", encoding="utf-8", newline="") as file:
        proportions = list(csv.DictReader(file))
    vocabulary = set(description["vocabulary"])
    names = description["topic_names"]
    assert len(documents) == len(proportions) == description["n_docs"]
    assert sum(len(doc["text"].split()) for doc in documents) == description["n_tokens"]
    for doc, row in zip(documents, proportions, strict=True):
        assert doc["id"] == row["id"]
        assert set(doc["text"].split()) <= vocabulary
        theta = np.array([float(row[name]) for name in names])
        assert theta.sum() == pytest.approx(1.0, abs=1e-4)
        assert doc["true_topic"] == names[int(theta.argmax())]
    topics = np.array(description["topics"])
    assert topics.shape == (len(names), len(vocabulary))
    np.testing.assert_allclose(topics.sum(axis=1), 1.0, atol=1e-4)


def test_shipped_synthetic_sample_regenerates(project_root, tmp_path):
    folder = project_root / "sample_data" / "synthetic"
    recorded = json.loads((folder / "topics.json").read_text(encoding="utf-8"))["numpy_version"]
    if recorded != np.__version__:
        pytest.skip(f"sample drawn with NumPy {recorded}, whose random streams may differ")
    _load_sample_script(project_root).build(tmp_path)
    for name in ("documents.csv", "doc_topics.csv", "topics.json"):
        assert (tmp_path / name).read_bytes() == (folder / name).read_bytes(), name
