"""gensim in and out: bag-of-words in (engine/data/gensim_corpus.py), LDA to LdaModel (engine/io/gensim_export.py)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

import engine
from engine.data.gensim_corpus import bow_matrix, looks_like_bow


def _bow(counts: sp.csr_matrix) -> list[list[tuple[int, int]]]:
    """gensim's format, written out by hand (as ``Dictionary.doc2bow`` gives it)."""
    return [list(zip(row.indices.tolist(), row.data.tolist(), strict=True)) for row in counts]


# ------------------------------------------------------------------ in
def test_gensim_bag_of_words_gives_the_counts_of_the_csr_path(planted_corpus):
    gensim = pytest.importorskip("gensim")
    tokens = [text.split() for text in planted_corpus.texts]
    dictionary = gensim.corpora.Dictionary(tokens)
    bow = [dictionary.doc2bow(doc) for doc in tokens]
    corpus = engine.from_gensim(bow, dictionary)
    words = [dictionary[i] for i in range(len(dictionary))]
    csr = CountVectorizer(vocabulary=words, lowercase=False, token_pattern=r"\S+").transform(planted_corpus.texts)
    assert corpus.vocabulary == tuple(words)
    assert (corpus.counts != csr).nnz == 0 and corpus.counts.dtype == np.int64
    # the estimators take the bag of words directly, with the same result as the matrix
    direct = engine.LDA(n_topics=5, seed=0, n_epochs=2).fit(bow)
    via_csr = engine.LDA(n_topics=5, seed=0, n_epochs=2).fit(csr)
    np.testing.assert_array_equal(direct.components_, via_csr.components_)
    np.testing.assert_array_equal(direct.transform(bow[:4]), via_csr.transform(csr[:4]))
    fitted = engine.LDA(n_topics=5, seed=0, n_epochs=2).fit(corpus)
    np.testing.assert_array_equal(fitted.components_, via_csr.components_)
    assert list(fitted.feature_names_in_) == words


def test_vocabularies_from_a_mapping_or_a_list_and_unused_ids_keep_their_column():
    bow = [[(0, 2), (2, 1)], [(2, 3)]]
    corpus = engine.from_gensim(bow, {1: "b", 0: "a", 2: "c", 3: "d"})
    assert corpus.vocabulary == ("a", "b", "c", "d")
    np.testing.assert_array_equal(corpus.counts.toarray(), [[2, 0, 1, 0], [0, 0, 3, 0]])
    assert engine.from_gensim(bow, ["a", "b", "c"]).vocabulary == ("a", "b", "c")
    assert engine.from_gensim(bow).vocabulary == ("w0", "w1", "w2")


def test_empty_documents_repeats_and_streams():
    bow = [[(1, 1), (0, 2), (1, 3)], [], [(2, 1.5)]]
    np.testing.assert_array_equal(bow_matrix(bow).toarray(), [[2, 4, 0], [0, 0, 0], [0, 0, 1.5]])
    assert bow_matrix(iter(bow[:2]), n_words=5).shape == (2, 5)
    corpus = engine.from_gensim(bow[:2])
    assert corpus.n_docs == 1 and [d.doc_id for d in corpus.dropped] == ["1"]
    model = engine.LDA(n_topics=2, seed=0, n_epochs=1).fit([*bow[:2], [(1, 2)]])
    assert model.transform([[], [(0, 1)]]).shape == (2, 2)  # an empty document keeps its row


def test_what_counts_as_a_bag_of_words():
    assert looks_like_bow([[], [(0, 1)]]) and looks_like_bow(([[0, 1]],))
    assert not looks_like_bow([[0, 1], [2, 3]])  # rows of a dense matrix
    assert not looks_like_bow(np.ones((2, 2))) and not looks_like_bow(["some text"]) and not looks_like_bow([[]])


def test_malformed_gensim_input_is_refused():
    with pytest.raises(ValueError, match="pairs"):
        bow_matrix([[(0, 1, 2)]])
    with pytest.raises(ValueError, match="pairs"):
        bow_matrix([[("apple", 1)]])
    with pytest.raises(ValueError, match="whole numbers >= 0"):
        bow_matrix([[(-1, 1)]])
    with pytest.raises(ValueError, match="whole numbers"):
        engine.from_gensim([[(0, 0.5)]])
    with pytest.raises(engine.VocabularyMismatchError, match="word id 3, but the vocabulary has 2 words"):
        engine.from_gensim([[(3, 1)]], ["a", "b"])
    with pytest.raises(ValueError, match=r"id 1 is missing.*compactify"):
        engine.from_gensim([[(0, 1)]], {0: "a", 2: "c"})
    model = engine.LDA(n_topics=2, seed=0, n_epochs=1).fit([[(0, 1), (1, 2)]])
    with pytest.raises(engine.VocabularyMismatchError, match="word id 5"):
        model.transform([[(5, 1)]])


# ------------------------------------------------------------------ out
def test_the_exported_lda_model_has_our_topics(planted_corpus):
    pytest.importorskip("gensim")
    corpus = engine.Corpus.from_counts(planted_corpus.counts, planted_corpus.vocabulary)
    model = engine.LDA(n_topics=5, seed=0, learn_alpha=True, n_epochs=3).fit(corpus)
    exported = engine.to_gensim(model)
    np.testing.assert_allclose(exported.get_topics(), model.expected_topics(), rtol=1e-12)
    np.testing.assert_allclose(exported.alpha, model.alpha)
    np.testing.assert_allclose(exported.eta, model.eta)
    assert [exported.id2word[i] for i in range(3)] == list(planted_corpus.vocabulary[:3])  # feature_names_in_
    top = {word for word, _ in exported.show_topic(0, topn=10)}
    assert top in [set(words) for words in model.top_words(10, vocabulary=planted_corpus.vocabulary)]
    document = [(int(w), int(c)) for w, c in zip(corpus.counts[0].indices, corpus.counts[0].data, strict=True)]
    assert abs(sum(p for _, p in exported.get_document_topics(document, minimum_probability=0)) - 1) < 1e-6


def test_export_options_and_refusals(planted_corpus):
    pytest.importorskip("gensim")
    X = planted_corpus.counts
    model = engine.LDA(n_topics=3, seed=0, dtype="float32", n_epochs=1).fit(X)
    exported = engine.to_gensim(model, planted_corpus.vocabulary)
    assert exported.dtype == np.float32 and exported.id2word[0] == "t0w0"
    np.testing.assert_allclose(exported.get_topics(), model.expected_topics(), rtol=1e-5)
    assert engine.to_gensim(engine.LDA(n_topics=3, n_epochs=1).fit(X)).id2word[7] == "7"
    with pytest.raises(engine.VocabularyMismatchError, match="id2word has 2 words"):
        engine.to_gensim(model, ["a", "b"])
    with pytest.raises(TypeError, match=r"exports engine\.LDA"):
        engine.to_gensim(engine.HDP(n_topics=4, doc_truncation=2, n_epochs=1).fit(X))
    with pytest.raises(engine.NotFittedError):
        engine.to_gensim(engine.LDA(n_topics=3))
