"""pyLDAvis export: ldavis_inputs' invariants, and pyLDAvis' own prepare and HTML on an LDA and an HDP."""

from __future__ import annotations

import builtins
import sys

import numpy as np
import pytest

import engine
from tests.conftest import make_planted_corpus


@pytest.fixture(scope="module")
def corpus() -> engine.Corpus:
    planted = make_planted_corpus()
    return engine.Corpus.from_counts(planted.counts, vocabulary=planted.vocabulary)


@pytest.fixture(scope="module")
def lda(corpus) -> engine.LDA:
    return engine.LDA(n_topics=5, seed=0, n_epochs=5).fit(corpus)


@pytest.fixture(scope="module")
def hdp(corpus) -> engine.HDP:
    return engine.HDP(n_topics=12, doc_truncation=6, seed=0, n_epochs=5).fit(corpus)


def _check_invariants(inputs: engine.LDAvisInputs, model, corpus: engine.Corpus) -> None:
    n_shown = inputs.topics.size
    assert inputs.topic_term_dists.shape == (n_shown, corpus.n_words)
    assert inputs.doc_topic_dists.shape == (corpus.n_docs, n_shown)
    np.testing.assert_allclose(inputs.topic_term_dists.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(inputs.doc_topic_dists.sum(axis=1), 1.0, atol=1e-12)
    assert inputs.topic_term_dists.dtype == inputs.doc_topic_dists.dtype == np.float64
    assert inputs.doc_lengths.tolist() == np.asarray(corpus.counts.sum(axis=1)).ravel().tolist()
    assert inputs.term_frequency.tolist() == np.asarray(corpus.counts.sum(axis=0)).ravel().tolist()
    assert inputs.vocab == list(corpus.vocabulary)
    np.testing.assert_allclose(inputs.topic_term_dists, model.expected_topics()[inputs.topics], rtol=1e-6)
    assert set(inputs.prepare_arguments()) == {"topic_term_dists", "doc_topic_dists", "doc_lengths", "vocab",
                                               "term_frequency"}


def test_ldavis_inputs_of_an_lda_show_every_topic(lda, corpus):
    inputs = engine.ldavis_inputs(lda, corpus)
    _check_invariants(inputs, lda, corpus)
    assert inputs.topics.tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(inputs.doc_topic_dists, lda.transform(corpus), rtol=1e-6)


def test_ldavis_inputs_of_an_hdp_show_the_topics_in_use(hdp, corpus):
    inputs = engine.ldavis_inputs(hdp, corpus)
    _check_invariants(inputs, hdp, corpus)
    in_use = hdp.topics_covering(0.95, by="words")
    assert inputs.topics.size == max(2, in_use) < hdp.n_topics
    assert inputs.topics.tolist() == sorted(np.argsort(-hdp.word_shares(), kind="stable")[:inputs.topics.size])
    chosen = engine.ldavis_inputs(hdp, corpus, topics=[3, 0])
    assert chosen.topics.tolist() == [3, 0]
    proportions = hdp.transform(corpus)[:, [3, 0]].astype(np.float64)  # the HDP's default float32, summed in float64
    np.testing.assert_allclose(chosen.doc_topic_dists, proportions / proportions.sum(axis=1, keepdims=True))


def test_ldavis_inputs_say_what_is_wrong(lda, corpus):
    with pytest.raises(TypeError, match=r"engine\.Corpus"):
        engine.ldavis_inputs(lda, corpus.counts)
    other = engine.Corpus.from_counts(corpus.counts[:, :20], vocabulary=corpus.vocabulary[:20])
    with pytest.raises(engine.VocabularyMismatchError):
        engine.ldavis_inputs(lda, other)
    renamed = engine.Corpus.from_counts(corpus.counts, vocabulary=[f"x{w}" for w in corpus.vocabulary])
    with pytest.raises(engine.VocabularyMismatchError, match="fitted on"):
        engine.ldavis_inputs(lda, renamed)
    with pytest.raises(ValueError, match=r"topics must lie in \[0, 4\] \(the model has 5 topics\), got 5"):
        engine.ldavis_inputs(lda, corpus, topics=[0, 5])
    with pytest.raises(ValueError, match=r"topics must be distinct, got topic 1 2 times in \[1, 3, 1\]"):
        engine.ldavis_inputs(lda, corpus, topics=[1, 3, 1])  # merge_topics, by contrast, takes a topic twice
    with pytest.raises(ValueError, match=r"a list of topic indices \(whole numbers\), got \[\]"):
        engine.ldavis_inputs(lda, corpus, topics=[])
    with pytest.raises(engine.NotFittedError):
        engine.ldavis_inputs(engine.LDA(n_topics=3), corpus)


def test_to_pyldavis_without_pyldavis_says_how_to_install_it(lda, corpus, monkeypatch):
    real_import = builtins.__import__

    def refuse(name, *args, **kwargs):
        if name.split(".")[0] == "pyLDAvis":
            raise ImportError("No module named 'pyLDAvis'")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "pyLDAvis", raising=False)
    monkeypatch.setattr(builtins, "__import__", refuse)
    with pytest.raises(ImportError, match="pip install pyLDAvis"):
        engine.to_pyldavis(lda, corpus)


@pytest.mark.parametrize("name", ["lda", "hdp"])
def test_pyldavis_prepares_and_writes_html(name, request, corpus):
    pyldavis = pytest.importorskip("pyLDAvis")
    model = request.getfixturevalue(name)
    prepared = engine.to_pyldavis(model, corpus)
    n_shown = engine.ldavis_inputs(model, corpus).topics.size
    assert sorted(prepared.topic_coordinates["topics"]) == list(range(n_shown))  # numbered from 0, as the app does
    html = pyldavis.prepared_data_to_html(prepared)
    assert "<div id=" in html and "ldavis" in html.lower()
    assert set(prepared.topic_info["Term"]) <= set(corpus.vocabulary)
