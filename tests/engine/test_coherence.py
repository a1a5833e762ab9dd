"""Topic coherence (engine/inference/coherence.py): gensim's numbers, brute force, invariants, input checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

import engine
from engine.inference import coherence
from engine.inference.coherence import CoherenceReference, topic_coherence

EPS = 1e-12  # gensim's EPSILON inside the logarithms, which the module matches

# Hand-made reference documents: an empty one, repeats inside a document (which must count
# once), pairs that never co-occur ("graph" and "human"), and no word in every document.
TEXTS = [
    ["human", "interface", "computer", "computer"],
    ["survey", "user", "computer", "system", "response", "time"],
    ["eps", "user", "interface", "system"],
    ["system", "human", "system", "eps"],
    ["user", "response", "time"],
    ["trees"],
    ["graph", "trees", "trees"],
    ["graph", "minors", "trees"],
    ["graph", "minors", "survey"],
    [],
]
TOPICS = [
    ["system", "user", "interface", "computer", "human"],
    ["graph", "trees", "minors", "survey"],
    ["human", "graph", "time", "eps"],
    ["trees", "computer"],
]


def _gensim_case():
    """The TEXTS as a count matrix over a gensim Dictionary, and TOPICS as its word ids."""
    corpora = pytest.importorskip("gensim.corpora")
    dictionary = corpora.Dictionary(TEXTS)
    counts = sp.lil_matrix((len(TEXTS), len(dictionary)), dtype=np.int64)
    for d, text in enumerate(TEXTS):
        for word_id, count in dictionary.doc2bow(text):
            counts[d, word_id] = count
    return dictionary, counts.tocsr()


def _gensim_per_topic(topics, dictionary, measure):
    from gensim.models.coherencemodel import CoherenceModel

    longest = max(len(text) for text in TEXTS)
    options = {"coherence": measure, "topn": max(len(topic) for topic in topics), "processes": 1}
    if measure == "c_npmi":
        # A window at least as long as every document: gensim's iter_windows then yields each
        # whole document as one window (ignore_below_size=False), which is document co-occurrence.
        options["window_size"] = longest + 1
    model = CoherenceModel(topics=topics, texts=TEXTS, dictionary=dictionary, **options)
    return np.asarray(model.get_coherence_per_topic())


@pytest.mark.parametrize(("measure", "gensim_measure"), [("npmi", "c_npmi"), ("umass", "u_mass")])
def test_matches_gensim_per_topic(measure, gensim_measure):
    dictionary, counts = _gensim_case()
    top_words = [[dictionary.token2id[word] for word in topic] for topic in TOPICS]
    expected = _gensim_per_topic(TOPICS, dictionary, gensim_measure)
    # topics of different lengths: score each on its own
    ours = np.array([CoherenceReference(counts).score([words], measure=measure)[0] for words in top_words])
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-9)


def test_npmi_with_a_window_as_long_as_the_documents_is_document_co_occurrence():
    probability_estimation = pytest.importorskip("gensim.topic_coherence.probability_estimation")
    segmentation = pytest.importorskip("gensim.topic_coherence.segmentation")
    dictionary, _ = _gensim_case()
    topics = [np.array([dictionary.token2id[word] for word in topic]) for topic in TOPICS]
    segmented = segmentation.s_one_one(topics)
    windows = probability_estimation.p_boolean_sliding_window(
        TEXTS, segmented, dictionary, window_size=max(len(text) for text in TEXTS) + 1
    )
    documents = probability_estimation.p_boolean_document([dictionary.doc2bow(text) for text in TEXTS], segmented)
    assert windows.num_docs == documents.num_docs == len(TEXTS)
    for topic in topics:
        for first in topic:
            assert windows[first] == documents[first]
            for second in topic:
                if first != second:
                    assert windows[first, second] == documents[first, second]


def test_umass_matches_gensim_for_a_word_in_no_reference_document():
    corpora = pytest.importorskip("gensim.corpora")
    from gensim.models.coherencemodel import CoherenceModel

    dictionary = corpora.Dictionary([*TEXTS, ["ghost"]])  # "ghost" is in none of the TEXTS
    counts = sp.lil_matrix((len(TEXTS), len(dictionary)), dtype=np.int64)
    for d, text in enumerate(TEXTS):
        for word_id, count in dictionary.doc2bow(text):
            counts[d, word_id] = count
    topics = [["ghost", "system", "user"], ["system", "ghost", "user"], ["system", "user", "ghost"]]
    expected = CoherenceModel(
        topics=topics, texts=TEXTS, dictionary=dictionary, coherence="u_mass", topn=3, processes=1
    ).get_coherence_per_topic()
    top_words = [[dictionary.token2id[word] for word in topic] for topic in topics]
    ours = CoherenceReference(counts.tocsr()).score(top_words, measure="umass")
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-9)


def _brute_force(counts: sp.csr_matrix, top_words: np.ndarray, measure: str) -> np.ndarray:
    """The documented formulas, pair by pair, from sets of documents."""
    n_docs = counts.shape[0]
    docs = [set(np.flatnonzero(counts[:, w].toarray().ravel() > 0)) for w in range(counts.shape[1])]
    scores = []
    for topic in top_words:
        values = []
        for i in range(1, len(topic)):
            for j in range(i):
                prime, star = docs[topic[i]], docs[topic[j]]
                both = len(prime & star) / n_docs
                if measure == "npmi":
                    if not prime or not star:
                        values.append(-1.0)
                    elif len(prime & star) == n_docs:
                        values.append(1.0)
                    else:
                        ratio = (both + EPS) / ((len(prime) / n_docs) * (len(star) / n_docs))
                        values.append(math.log(ratio) / -math.log(both + EPS))
                else:
                    values.append(math.log((both + EPS) / (len(star) / n_docs)) if star else 0.0)
        scores.append(sum(values) / len(values))
    return np.array(scores)


def _topic_with(front: list[int], order: np.ndarray) -> np.ndarray:
    """``front`` followed by the other words of ``order``."""
    return np.concatenate([front, [word for word in order if word not in front]]).astype(int)


@pytest.mark.parametrize("measure", ["npmi", "umass"])
def test_matches_brute_force_on_a_random_corpus(measure):
    rng = np.random.default_rng(0)
    counts = sp.random(40, 25, density=0.25, format="csr", random_state=rng, data_rvs=lambda n: rng.integers(1, 4, n))
    counts = counts.tolil()
    counts[:, 0] = 1  # a word in every document
    counts[:, 1] = 0  # a word in none
    counts = counts.tocsr()
    fronts = [[0, 1, 2], [3, 0], [1, 4]] + [[]] * 27  # the special words, in front and further back
    top_words = np.array([_topic_with(front, rng.permutation(25))[:8] for front in fronts])
    np.testing.assert_allclose(
        CoherenceReference(counts).score(top_words, measure=measure),
        _brute_force(counts, top_words, measure),
        rtol=0,
        atol=1e-12,
    )


def test_scoring_in_chunks_gives_the_same_numbers(monkeypatch):
    rng = np.random.default_rng(1)
    counts = sp.random(60, 40, density=0.2, format="csr", random_state=rng)
    top_words = np.array([rng.permutation(40)[:6] for _ in range(25)])
    reference = CoherenceReference(counts)
    whole = {measure: reference.score(top_words, measure) for measure in reference.measures}
    monkeypatch.setattr(coherence, "_MAX_WORDS_PER_PRODUCT", 13)  # two topics per product
    for measure in reference.measures:
        np.testing.assert_allclose(reference.score(top_words, measure), whole[measure], rtol=1e-13)


def test_words_that_always_co_occur_have_npmi_one():
    # words 0-2 are in exactly the same half of the documents, word 3 in the other half
    counts = sp.csr_matrix(np.array([[1, 2, 1, 0]] * 5 + [[0, 0, 0, 3]] * 5))
    npmi = CoherenceReference(counts).score([[0, 1, 2]])
    np.testing.assert_allclose(npmi, [1.0], rtol=0, atol=1e-9)
    # P(wi | wj) = 1 for every pair: UMass is log(1) up to eps
    np.testing.assert_allclose(CoherenceReference(counts).score([[0, 1, 2]], "umass"), [0.0], atol=1e-9)


def test_words_in_every_document_have_npmi_one():
    counts = sp.csr_matrix(np.array([[1, 1, 0], [2, 1, 1], [1, 3, 0]]))
    assert CoherenceReference(counts).score([[0, 1]])[0] == 1.0


def test_words_that_never_co_occur_give_the_eps_values():
    counts = sp.csr_matrix(np.array([[1, 0], [1, 0], [0, 1], [0, 1], [0, 1]]))
    reference = CoherenceReference(counts)
    p_first, p_second = 2 / 5, 3 / 5
    npmi = math.log(EPS / (p_first * p_second)) / -math.log(EPS)
    assert reference.score([[0, 1]])[0] == pytest.approx(npmi, abs=1e-12)
    assert -1.0 < npmi < -0.9
    # UMass: W' = word 1 (ranked second), W* = word 0
    assert reference.score([[0, 1]], "umass")[0] == pytest.approx(math.log(EPS / p_first), abs=1e-12)


def test_word_in_no_document_is_finite_and_lowest_npmi():
    counts = sp.csr_matrix(np.array([[1, 1, 0], [1, 0, 0], [0, 1, 0]]))
    reference = CoherenceReference(counts)
    assert reference.score([[0, 2], [2, 1]])[0] == -1.0
    np.testing.assert_array_equal(reference.score([[0, 2], [2, 1]]), [-1.0, -1.0])
    # UMass: 0 when the higher-ranked word is missing (gensim), log(eps / P(W*)) when the lower one is
    np.testing.assert_allclose(reference.score([[2, 0], [0, 2]], "umass"), [0.0, math.log(EPS / (2 / 3))])


def test_results_are_finite_and_bounded(planted_corpus):
    rng = np.random.default_rng(2)
    counts = planted_corpus.counts.tolil()
    counts[:, 7] = 0  # a word that occurs nowhere
    reference = CoherenceReference(counts.tocsr())
    top_words = np.array([rng.permutation(planted_corpus.n_words)[:10] for _ in range(20)])
    npmi = reference.score(top_words)
    assert np.all(np.isfinite(npmi)) and np.all(np.abs(npmi) <= 1.0)
    umass = reference.score(top_words, "umass")
    assert np.all(np.isfinite(umass)) and np.all(umass <= 1e-9)


def test_topic_order_is_kept_and_only_umass_depends_on_word_order(planted_corpus):
    rng = np.random.default_rng(3)
    reference = CoherenceReference(planted_corpus.counts)
    top_words = np.array([rng.permutation(planted_corpus.n_words)[:10] for _ in range(12)])
    for measure in reference.measures:
        scores = reference.score(top_words, measure)
        # the same numbers up to rounding: numpy may sum a row of a larger array in another order
        np.testing.assert_allclose(reference.score(top_words[::-1], measure), scores[::-1], rtol=1e-13)
        np.testing.assert_allclose(reference.score(top_words[[4]], measure), scores[[4]], rtol=1e-13)
    npmi = reference.score(top_words)
    np.testing.assert_allclose(reference.score(top_words[:, ::-1]), npmi, rtol=0, atol=1e-12)
    assert not np.allclose(reference.score(top_words[:, ::-1], "umass"), reference.score(top_words, "umass"))


def test_planted_topics_are_more_coherent_than_random_words(planted_corpus):
    model = engine.LDA(n_topics=planted_corpus.n_topics, n_words=planted_corpus.n_words)
    model.lambda_ = planted_corpus.topics + 0.01  # the true topics, as if learned
    rng = np.random.default_rng(4)
    random_words = np.array([rng.permutation(planted_corpus.n_words)[:10] for _ in range(planted_corpus.n_topics)])
    reference = CoherenceReference(planted_corpus.counts)
    for measure in reference.measures:
        planted = topic_coherence(model, planted_corpus.counts, n_top=10, measure=measure)
        np.testing.assert_array_equal(planted, reference.score_model(model, n_top=10, measure=measure))
        np.testing.assert_array_equal(planted, reference.score(model.top_words(10), measure))
        assert planted.min() > reference.score(random_words, measure).max()


def test_a_corpus_and_its_counts_give_the_same_reference():
    corpus = engine.Corpus.from_texts([" ".join(text) for text in TEXTS if text], stop_words=None)
    top_words = [[0, 1, 2], [3, 4, 5]]
    np.testing.assert_array_equal(
        CoherenceReference(corpus).score(top_words), CoherenceReference(corpus.counts).score(top_words)
    )
    assert CoherenceReference(corpus).document_frequency.tolist() == [
        int(np.count_nonzero(corpus.counts[:, w].toarray())) for w in range(len(corpus.vocabulary))
    ]


def test_empty_topic_list_gives_an_empty_array():
    reference = CoherenceReference(sp.csr_matrix(np.eye(3)))
    assert reference.score(np.empty((0, 5), dtype=int)).shape == (0,)


@pytest.mark.parametrize(
    ("top_words", "measure", "message"),
    [
        ([[0, 1]], "c_v", "measure must be one of"),
        ([0, 1, 2], "npmi", "top_words must be a 2-D"),
        ([[0, 1], [2]], "npmi", "top_words must be an"),
        ([[0.0, 1.0]], "npmi", "top_words must hold integer word indices"),
        ([[True, False]], "npmi", "top_words must hold integer word indices"),
        ([[0], [1]], "npmi", r"n >= 2 words per topic"),
        ([[0, 4]], "npmi", r"word indices in \[0, 3\], got 4"),
        ([[-1, 2]], "umass", r"word indices in \[0, 3\], got -1"),
        ([[0, 1], [2, 2]], "npmi", "must not repeat a word within a topic; topic 1"),
    ],
)
def test_bad_input_raises(top_words, measure, message):
    reference = CoherenceReference(sp.csr_matrix(np.ones((3, 4))))
    with pytest.raises(ValueError, match=message):
        reference.score(top_words, measure=measure)


def test_model_and_reference_must_share_the_vocabulary(planted_corpus):
    model = engine.LDA(n_topics=2, n_words=planted_corpus.n_words + 1)
    model.lambda_ = np.ones((2, planted_corpus.n_words + 1))
    with pytest.raises(engine.VocabularyMismatchError, match="n_words"):
        CoherenceReference(planted_corpus.counts).score_model(model)
    with pytest.raises(engine.VocabularyMismatchError, match="n_words"):
        topic_coherence(model, planted_corpus.counts)
    with pytest.raises(engine.VocabularyMismatchError, match="n_words=3"):
        CoherenceReference(planted_corpus.counts, n_words=3)
    with pytest.raises(ValueError, match="n_top must be >= 2, got 1"):
        topic_coherence(model, planted_corpus.counts, n_top=1)
    with pytest.raises(ValueError, match="measure must be one of"):
        topic_coherence(model, planted_corpus.counts, measure="NPMI")


def test_bad_reference_corpus_raises():
    with pytest.raises(engine.EmptyCorpusError):
        CoherenceReference(sp.csr_matrix((0, 4)))
    with pytest.raises(ValueError, match="non-negative"):
        CoherenceReference(sp.csr_matrix(np.array([[1.0, -1.0]])))
