"""engine.LDA and engine.HDP as scikit-learn estimators (engine/models/_estimator.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

import engine
from engine.inference.heldout import split_words
from engine.io.model_files import load_model, metadata_text, save_model

# the constructions outside checks call: every argument but these defaulted
PINNED = [engine.LDA(n_topics=5, seed=0), engine.HDP(seed=0)]


@parametrize_with_checks(PINNED)
# check_do_not_raise_errors_in_init_or_set_params passes every constructor argument, HDP's
# deprecated gamma too, which warns (as it always has) without raising
@pytest.mark.filterwarnings("ignore:HDP's gamma is now called omega:DeprecationWarning")
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def _planted_blocks_recovered(model, corpus) -> bool:
    """Each planted block is the top-10 words of some topic."""
    top = [set(words) for words in model.top_words(10)]
    return all(any(set(block) == words for words in top) for block in corpus.blocks)


# ------------------------------------------------------------------ construction
def test_every_argument_but_the_topics_has_a_default():
    lda, hdp = engine.LDA(n_topics=5, seed=0), engine.HDP(seed=0)
    assert (hdp.n_topics, hdp.doc_truncation) == (engine.DEFAULT_HDP_TOPICS, engine.DEFAULT_DOC_TRUNCATION)
    assert lda.n_words is None and hdp.n_words is None  # taken from the data at fit time
    assert lda.get_params()["alpha"] is None and lda.alpha == 0.2  # as given / in use
    assert repr(lda) == "LDA(n_topics=5)"


def test_invalid_arguments_raise_when_used_not_when_stored(planted_corpus):
    model = engine.LDA(n_topics=1, seed=0)  # scikit-learn: __init__ and set_params store, never raise
    model.set_params(eta=-1.0)
    with pytest.raises(ValueError, match="n_topics must be >= 2, got 1"):
        model.fit(planted_corpus.counts)
    with pytest.raises(ValueError, match="eta must be a finite number > 0"):
        engine.SVI(model.set_params(n_topics=3), planted_corpus.counts)
    with pytest.raises(ValueError, match=r"doc_truncation must be in \[1, 10\], got 20"):
        engine.HDP(n_topics=10, doc_truncation=20).fit(planted_corpus.counts)


def test_an_unset_document_truncation_is_at_most_the_number_of_topics(planted_corpus):
    """T defaults to engine.DEFAULT_DOC_TRUNCATION, or to K when K is smaller (as births default to K // 2)."""
    assert engine.HDP().doc_truncation == engine.DEFAULT_DOC_TRUNCATION == 20
    small = engine.HDP(n_topics=10, seed=0, n_epochs=1)
    assert (small.doc_truncation, small.births, small.get_params()["doc_truncation"]) == (10, 5, None)
    small.fit(planted_corpus.counts)
    assert small.transform(planted_corpus.counts[:3]).shape == (3, 10)
    assert clone(small).set_params(n_topics=40).doc_truncation == 20


def test_clone_copies_the_arguments_not_what_was_learned(planted_corpus):
    model = engine.LDA(n_topics=5, seed=0).fit(planted_corpus.counts)
    copy = clone(model)
    assert copy.get_params() == model.get_params() and copy.n_words is None
    assert not hasattr(copy, "components_") and not hasattr(copy, "n_features_in_")
    with pytest.raises(engine.NotFittedError, match="no topics yet"):
        copy.transform(planted_corpus.counts)
    # the preset's alpha follows n_topics, as the argument left it unset
    assert clone(model).set_params(n_topics=50).alpha == 0.1
    hdp = clone(engine.HDP(n_topics=8, doc_truncation=3, seed=1))
    assert hdp.get_params() == engine.HDP(n_topics=8, doc_truncation=3, seed=1).get_params()


def test_grid_search_picks_by_score(planted_corpus):
    search = GridSearchCV(engine.LDA(seed=0, n_epochs=3), {"n_topics": [2, 5]}, cv=2)
    search.fit(planted_corpus.counts)
    assert search.best_params_ == {"n_topics": 5}  # five planted topics


# ------------------------------------------------------------------ fit and transform
def test_pipeline_fits_raw_text(planted_corpus):
    pipeline = make_pipeline(CountVectorizer(), engine.LDA(n_topics=5, seed=0))
    theta = pipeline.fit_transform(planted_corpus.texts)
    assert theta.shape == (planted_corpus.n_docs, 5)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    np.testing.assert_allclose(pipeline.transform(planted_corpus.texts[:7]), theta[:7])
    lda = pipeline[-1]
    vocabulary = pipeline[0].get_feature_names_out()
    top = [set(words) for words in lda.top_words(10, vocabulary=vocabulary)]
    for k in range(5):
        assert {f"t{k}w{j}" for j in range(10)} in top
    assert np.isfinite(pipeline.score(planted_corpus.texts))
    assert list(lda.get_feature_names_out()) == ["lda0", "lda1", "lda2", "lda3", "lda4"]
    lda.set_output(transform="pandas")  # CountVectorizer has no set_output
    frame = pipeline.transform(planted_corpus.texts[:3])
    assert list(frame.columns) == ["lda0", "lda1", "lda2", "lda3", "lda4"]


def test_fit_is_svi_with_the_engine_defaults(planted_corpus):
    X = planted_corpus.counts
    fitted = engine.LDA(n_topics=5, seed=3, n_epochs=4).fit(X)
    model = engine.LDA(n_topics=5, seed=3)
    trainer = engine.SVI(model, X, batch_size=min(engine.DEFAULT_BATCH_SIZE, X.shape[0]), seed=3,
                         kappa=engine.DEFAULT_KAPPA, tau=engine.DEFAULT_TAU)
    trainer.run(n_docs=4 * X.shape[0])
    np.testing.assert_array_equal(fitted.components_, model.lambda_)
    assert fitted.components_.shape == (5, planted_corpus.n_words)
    assert (fitted.n_features_in_, fitted.n_words, fitted.n_iter_, fitted.n_batch_iter_) == (
        planted_corpus.n_words, planted_corpus.n_words, 4, trainer.t)
    assert _planted_blocks_recovered(engine.LDA(n_topics=5, seed=0).fit(X), planted_corpus)


@pytest.mark.parametrize("model_class", [engine.LDA, engine.HDP])
def test_partial_fit_is_one_svi_step_per_minibatch(planted_corpus, model_class):
    X = planted_corpus.counts
    options = {"n_topics": 6, "seed": 2} | ({"doc_truncation": 3} if model_class is engine.HDP else {})
    online = model_class(**options, total_samples=X.shape[0])
    reference = model_class(**options)
    trainer = engine.SVI(reference, X, batch_size=40, seed=2)
    batches = np.random.default_rng(0).permutation(X.shape[0]).reshape(5, 40)
    for batch in batches:
        assert online.partial_fit(X[batch]) is online
        trainer.step(doc_ids=batch)
    np.testing.assert_array_equal(online.components_, reference.lambda_)
    if model_class is engine.HDP:
        np.testing.assert_array_equal(online.sticks_, reference.sticks_)
    assert online.n_batch_iter_ == trainer.t == 5
    with pytest.raises(ValueError, match="total_samples must be at least"):
        model_class(**options, total_samples=10).partial_fit(X[:40])


def test_partial_fit_after_fit_continues_the_schedule(planted_corpus):
    X = planted_corpus.counts
    model = engine.LDA(n_topics=5, seed=0, n_epochs=2).fit(X)
    steps = model.n_batch_iter_
    model.partial_fit(X[:50])
    assert model.n_batch_iter_ == steps + 1


def test_every_input_form_gives_the_same_model(planted_corpus, tmp_path):
    X = planted_corpus.counts
    corpus = engine.Corpus.from_counts(X, planted_corpus.vocabulary)
    on_disk = engine.DiskCorpus.from_counts(X, tmp_path / "corpus")  # fit reads its minibatches from disk
    bow = [list(zip(row.indices.tolist(), row.data.tolist(), strict=True)) for row in X]
    reference = engine.LDA(n_topics=5, seed=0, n_epochs=2).fit(X)
    for form in (X.toarray(), X.tocsc(), sp.csr_array(X), corpus, on_disk, bow, iter(bow)):
        model = engine.LDA(n_topics=5, seed=0, n_epochs=2).fit(form)
        np.testing.assert_array_equal(model.components_, reference.components_)
    np.testing.assert_array_equal(model.transform(bow[:5]), reference.transform(X[:5]))


def test_transform_contract(planted_corpus):
    """Rows sum to 1, one per document (empty ones too), in the model's dtype; the model is unchanged."""
    X = planted_corpus.counts
    for model in (engine.LDA(n_topics=4, seed=0, n_epochs=2).fit(X),
                  engine.HDP(n_topics=8, doc_truncation=3, seed=0, n_epochs=2, dtype="float32").fit(X)):
        before = model.components_.copy()
        documents = sp.vstack([X[:3], sp.csr_matrix((1, X.shape[1]), dtype=X.dtype)]).tocsr()
        theta = model.transform(documents)
        assert theta.shape == (4, model.n_topics) and theta.dtype == model.dtype
        np.testing.assert_allclose(theta.sum(axis=1), 1.0, rtol=1e-5)
        np.testing.assert_array_equal(model.transform(documents[:2]), theta[:2])
        np.testing.assert_array_equal(model.components_, before)


def test_vocabularies_are_checked(planted_corpus):
    X = planted_corpus.counts
    corpus = engine.Corpus.from_counts(X, planted_corpus.vocabulary)
    model = engine.LDA(n_topics=5, seed=0, n_epochs=1).fit(corpus)
    assert list(model.feature_names_in_) == list(planted_corpus.vocabulary)
    with pytest.raises(engine.VocabularyMismatchError, match="X has 49 features, but LDA is expecting 50"):
        model.transform(X[:, :49])
    renamed = engine.Corpus.from_counts(X, ("other", *planted_corpus.vocabulary[1:]))
    with pytest.raises(engine.VocabularyMismatchError, match="column 0: 'other' here, 't0w0' in the model"):
        model.transform(renamed)
    with pytest.raises(engine.VocabularyMismatchError, match="n_words=40"):
        engine.LDA(n_topics=5, n_words=40).fit(X)
    assert not hasattr(engine.LDA(n_topics=5, n_epochs=1).fit(X), "feature_names_in_")


def test_bad_input_is_refused_with_what_to_do(planted_corpus):
    model = engine.LDA(n_topics=5, seed=0)
    with pytest.raises(ValueError, match=r"X holds text, but LDA takes word counts.*CountVectorizer"):
        model.fit(list(planted_corpus.texts))
    with pytest.raises(ValueError, match=r"Negative values in data passed to LDA\.fit"):
        model.fit(-planted_corpus.counts)
    with pytest.raises(ValueError, match="NaN"):
        model.fit(np.full((3, 4), np.nan))


def test_score_is_the_heldout_log_likelihood_of_document_completion(planted_corpus):
    X = planted_corpus.counts
    model = engine.LDA(n_topics=5, seed=4).fit(X[:150])
    observed, heldout = split_words(X[150:], seed=4)
    assert model.score(X[150:]) == engine.predictive_log_likelihood(model, observed, heldout)
    assert model.score(X[150:]) > engine.LDA(n_topics=5, seed=4, n_epochs=1).fit(X[:20]).score(X[150:])
    with pytest.raises(ValueError, match="two distinct words"):
        model.score(sp.csr_matrix(([3], [0], [0, 1]), shape=(1, X.shape[1])))


def test_settings_are_the_values_in_use_and_learned_priors_are_not_arguments(planted_corpus):
    X = planted_corpus.counts
    model = engine.LDA(n_topics=4, seed=0, learn_alpha=True, n_epochs=2).fit(X)
    assert model.get_params()["alpha"] is None
    assert model.settings()["alpha"] == model.alpha.tolist() and not np.allclose(model.alpha, 0.2)
    assert model.settings()["n_words"] == X.shape[1]
    model.set_params(alpha=0.3)  # assigning a prior replaces the learned one
    np.testing.assert_array_equal(model.alpha, [0.3] * 4)  # the start of learning, one value per topic


# ------------------------------------------------------------------ model files
@pytest.mark.parametrize(("model", "rtol"), [(engine.LDA(n_topics=4, seed=0, n_epochs=2), 1e-12),
                                         (engine.HDP(n_topics=8, doc_truncation=3, seed=0, n_epochs=2), 1e-4)])
def test_a_fitted_model_file_keeps_its_arguments(tmp_path, planted_corpus, model, rtol):
    model.fit(planted_corpus.counts)
    loaded = load_model(save_model(tmp_path / "model.npz", model)).model
    assert loaded.get_params() == model.get_params() and loaded.get_params()["n_words"] is None
    assert loaded.settings() == model.settings()
    assert loaded.lambda_.dtype == model.lambda_.dtype == np.dtype(model.dtype)
    documents = planted_corpus.counts[:5]
    # to rounding: the file holds lambda with the decay applied, the model keeps it pending per column
    # (the HDP's default float32 rounds at 6e-8, which its local loop carries to ~1e-5 on a proportion)
    np.testing.assert_allclose(loaded.transform(documents), model.transform(documents), rtol=rtol)


def test_model_files_fall_back_to_the_settings(tmp_path, planted_corpus):
    """Learned priors, changed defaults and files without arguments load from the settings in use."""
    X = planted_corpus.counts
    learned = engine.LDA(n_topics=4, seed=0, learn_alpha=True, n_epochs=1).fit(X)
    loaded = load_model(save_model(tmp_path / "learned.npz", learned)).model
    np.testing.assert_array_equal(loaded.alpha, learned.alpha)
    assert loaded.settings() == learned.settings()
    path = save_model(tmp_path / "plain.npz", engine.LDA(n_topics=4, seed=0, n_epochs=1).fit(X))
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(metadata_text(arrays.pop("metadata")))
    meta["arguments"]["preset"] = "paper"  # as if the arguments now resolved differently
    np.savez(tmp_path / "drifted.npz", allow_pickle=False, **arrays, metadata=np.array(json.dumps(meta)))
    drifted = load_model(tmp_path / "drifted.npz").model
    assert drifted.local_update == "auto" and drifted.get_params()["alpha"] == 0.2


def test_hdp_set_params_takes_the_deprecated_gamma():
    model = engine.HDP(n_topics=6, doc_truncation=3)
    with pytest.warns(DeprecationWarning, match="omega"):
        model.set_params(gamma=2.5)
    assert model.omega == 2.5 and "gamma" not in model.get_params()
