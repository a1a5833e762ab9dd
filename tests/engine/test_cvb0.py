"""LDA's CVB0 local step (local_update="cvb0"): a token-by-token brute force, its fixed point, both kernels."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import engine
from engine.kernels.reference.lda import fit_documents_cvb0
from tests.engine._reference import planted_counts


@pytest.fixture
def planted():
    return planted_counts()


def _model(X, **kwargs):
    kwargs.setdefault("topic_init", "exponential")  # sharply different topics: well separated local optima
    kwargs.setdefault("local_update", "cvb0")
    model = engine.LDA(n_topics=4, n_words=X.shape[1], seed=3, **kwargs)
    model.initialize(X.shape[0])
    return model


def _token_by_token(X, mean_beta, alpha, gamma0, tol, max_iter):
    """CVB0 written per token (each occurrence its own phi), independent of the kernels' grouping by word type."""
    n_docs, K = X.shape[0], mean_beta.shape[0]
    gamma = np.array(gamma0, dtype=np.float64)
    topic_word = np.zeros((K, X.shape[1]))
    for d in range(n_docs):
        row = X.getrow(d)
        tokens = np.repeat(row.indices, row.data.astype(np.int64))
        if tokens.size == 0:
            gamma[d] = alpha
            continue
        rows = mean_beta[:, tokens].T  # (tokens, K)
        phi = gamma[d] * rows
        phi /= phi.sum(axis=1, keepdims=True)
        g = alpha + phi.sum(axis=0)
        for _ in range(max_iter):
            phi = np.maximum(g - phi, 0.0) * rows  # this token's own share left out
            phi /= phi.sum(axis=1, keepdims=True)
            new = alpha + phi.sum(axis=0)
            change, g = np.abs(new - g).sum(), new
            if change < tol * K:
                break
        gamma[d] = g
        np.add.at(topic_word.T, tokens, phi)
    return gamma, topic_word


@pytest.mark.parametrize("kernel", ["numpy", "compiled"])
def test_cvb0_matches_the_token_by_token_brute_force(planted, kernel):
    X, _ = planted
    X = sp.vstack([X, sp.csr_matrix((1, X.shape[1]))]).tocsr()  # and an empty document
    model = _model(X, local_tol=1e-10, local_max_iter=2000, kernel=kernel)
    stats = model.local_step(X)
    mean_beta = model.lambda_ / model.lambda_.sum(axis=1, keepdims=True)
    gamma, topic_word = _token_by_token(X, mean_beta, model.alpha, np.ones((X.shape[0], 4)), 1e-10, 2000)
    np.testing.assert_allclose(stats.doc_topic, gamma, rtol=1e-7)
    np.testing.assert_allclose(stats.doc_topic[-1], model.alpha)
    full = np.zeros_like(topic_word)
    full[:, stats.columns] = stats.topic_word
    np.testing.assert_allclose(full, topic_word, rtol=1e-7, atol=1e-10)
    assert np.isclose(stats.topic_word.sum(), X.sum())  # every word is shared out whole
    # the fixed point: gamma_d = alpha + sum_w c_dw phi_dw with phi_dwk ∝ (gamma_dk - phi_dwk) E[beta_kw]
    for d in range(0, X.shape[0] - 1, 41):
        row = X.getrow(d)
        rows = mean_beta[:, row.indices].T
        phi = np.full_like(rows, 1.0 / 4)
        for _ in range(200):  # phi given the final gamma, by its own fixed point
            phi = (stats.doc_topic[d] - phi) * rows
            phi /= phi.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(stats.doc_topic[d], model.alpha + row.data @ phi, rtol=1e-6)


def test_a_one_word_document_follows_its_prior_not_itself():
    # one word, topics 0.6 / 0.4 for it, alpha 0.1: the zero-order step lets the word vote for the topic it
    # chose (gamma_k = alpha + phi_k feeds back into phi), CVB0 leaves it out: phi ∝ alpha E[beta]
    beta = np.array([[0.6], [0.4]])
    counts = sp.csr_matrix(np.array([[1.0]]))
    fit = fit_documents_cvb0(counts, beta, 0.1, np.ones((1, 2)), 1e-12, 100)
    np.testing.assert_allclose(fit.doc_topic[0], 0.1 + np.array([0.6, 0.4]))
    np.testing.assert_allclose(fit.topic_word[:, 0], [0.6, 0.4])


def test_compiled_float32_is_close_to_the_reference(planted):
    X, _ = planted
    reference = _model(X, local_tol=1e-6, local_max_iter=300, kernel="numpy", dtype="float32").local_step(X)
    compiled = _model(X, local_tol=1e-6, local_max_iter=300, kernel="compiled", dtype="float32").local_step(X)
    np.testing.assert_allclose(compiled.doc_topic, reference.doc_topic, rtol=2e-3, atol=1e-3)
    np.testing.assert_allclose(compiled.topic_word, reference.topic_word, rtol=2e-3, atol=1e-3)
    fold = _model(X, local_tol=1e-6, local_max_iter=300, kernel="compiled").transform(X)
    assert np.all(np.isfinite(fold)) and np.allclose(fold.sum(axis=1), 1.0)


def test_svi_with_cvb0_recovers_planted_topics(planted_corpus):
    counts = planted_corpus.counts
    model = engine.LDA(n_topics=5, n_words=planted_corpus.n_words, seed=0, local_update="cvb0")
    engine.SVI(model, corpus=counts, batch_size=50, seed=0).run(n_docs=3000)
    assert np.all(np.isfinite(model.lambda_))
    top = sorted(sorted(words) for words in np.asarray(model.top_words(10)).tolist())
    assert top == sorted(sorted(block) for block in planted_corpus.blocks)  # each topic's 10 top words: one block


def test_cvb0_is_validated_and_saved(tmp_path, planted):
    X, _ = planted
    with pytest.raises(ValueError, match="squarem"):
        engine.LDA(n_topics=3, n_words=X.shape[1], local_update="cvb0", local_acceleration="squarem").initialize(9)
    from engine.inference.warmup import Workload

    with pytest.raises(ValueError, match="LDA only"):
        Workload("HDP", "cvb0")
    assert str(Workload.of(engine.LDA(local_update="cvb0"))) == "LDA:cvb0:float64"
    model = _model(X)
    engine.SVI(model, corpus=X, batch_size=20, seed=0).run(n_docs=100)
    engine.save_model(tmp_path / "m.npz", model)
    loaded = engine.load_model(tmp_path / "m.npz").model
    assert loaded.local_update == "cvb0"
    np.testing.assert_allclose(loaded.local_step(X).doc_topic, model.local_step(X).doc_topic, rtol=1e-12)


def test_the_command_line_trains_with_cvb0(tmp_path, corpus_csv, capsys):
    from engine.cli import main

    path, _ = corpus_csv
    out = tmp_path / "cvb0.npz"
    assert main(["fit", str(path), "--topics", "5", "--epochs", "2", "--local-update", "cvb0", "--out", str(out),
                 "--no-progress"]) == 0
    assert engine.load_model(out).model.local_update == "cvb0"
    assert main(["fit", str(path), "--model", "hdp", "--local-update", "cvb0", "--out", str(out)]) == 2
    assert "--local-update applies to --model lda only" in capsys.readouterr().err


def test_fit_suggests_cvb0_on_very_short_documents(planted_corpus):
    from engine.io.topics_command import short_documents_hint

    counts = planted_corpus.counts
    model = engine.LDA(n_topics=5, n_words=planted_corpus.n_words, seed=0, local_update="zero_order")
    words = counts.sum() / counts.shape[0]
    assert words > 15 and short_documents_hint(model, counts) is None  # the planted documents are long enough
    short = sp.csr_matrix(np.minimum(counts.toarray(), 1)[:, :3].astype(np.int64) + 1)  # 3 words, 4-6 tokens
    hint = short_documents_hint(model, short)
    assert hint is not None and "--local-update auto" in hint and "words on average" in hint
    for other in (engine.LDA(n_topics=5), engine.LDA(n_topics=5, local_update="cvb0"), engine.HDP(n_topics=5)):
        assert short_documents_hint(other, short) is None


def _mixed_lengths(seed=0, n_docs=120, n_words=60):
    """Documents of 1 to 90 words on planted-free random topics: some under any threshold, some over it."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 90, n_docs)
    words = np.concatenate([rng.choice(n_words, size=n) for n in lengths])
    X = sp.csr_matrix((np.ones(lengths.sum()), words, np.r_[0, np.cumsum(lengths)]), shape=(n_docs, n_words))
    X.sum_duplicates()
    return X, lengths


@pytest.mark.parametrize("kernel", ["numpy", "compiled"])
@pytest.mark.parametrize("threshold", [30, 80])  # the short documents hold fewer entries than the rest, or more
def test_auto_fits_short_documents_by_cvb0_and_the_rest_by_the_zero_order_step(kernel, threshold):
    X, lengths = _mixed_lengths()
    X = sp.vstack([X, sp.csr_matrix((1, X.shape[1]))]).tocsr()  # and an empty document
    lengths = np.r_[lengths, 0]
    fits = {update: _model(X, kernel=kernel, local_update=update, cvb0_words=threshold).local_step(X)
            for update in ("zero_order", "cvb0", "auto")}
    short = lengths < threshold
    assert 0 < short.sum() < short.size
    assert (X[short].nnz < X.nnz / 2) == (threshold == 30)
    auto = fits["auto"]
    np.testing.assert_array_equal(auto.doc_topic[short], fits["cvb0"].doc_topic[short])
    np.testing.assert_array_equal(auto.doc_topic[~short], fits["zero_order"].doc_topic[~short])
    np.testing.assert_array_equal(auto.n_iter[short], fits["cvb0"].n_iter[short])
    # the statistics: each part's own, summed (brute force: each part fitted on its own)
    parts = [_model(X, kernel=kernel, local_update=update).local_step(X[rows])
             for update, rows in (("cvb0", short), ("zero_order", ~short))]
    expected = np.zeros((4, X.shape[1]))
    for part in parts:
        expected[:, part.columns] += part.topic_word
    np.testing.assert_allclose(auto.topic_word, expected[:, auto.columns], rtol=1e-12)
    assert np.isclose(auto.topic_word.sum(), X.sum())
    # a threshold above every document, or below all of them: one step alone
    np.testing.assert_array_equal(_model(X, kernel=kernel, local_update="auto", cvb0_words=1000).local_step(X)
                                  .doc_topic, fits["cvb0"].doc_topic)
    np.testing.assert_array_equal(_model(X, kernel=kernel, local_update="auto", cvb0_words=1).local_step(X)
                                  .doc_topic[:-1], fits["zero_order"].doc_topic[:-1])


def test_auto_is_the_same_in_jobs_and_in_a_fold_in():
    from engine.models.lda import LDAStats

    X, _ = _mixed_lengths(seed=1)
    model = _model(X, local_update="auto", cvb0_words=30)
    whole = model.local_step(X)
    bounds = [0, 37, 80, X.shape[0]]
    jobs = model.local_jobs(X, bounds)
    parts = [job.run(X[low:high][:, job.columns]) for job, low, high in zip(jobs, bounds, bounds[1:], strict=False)]
    combined = LDAStats.combine(parts, X)
    np.testing.assert_allclose(combined.doc_topic, whole.doc_topic, rtol=1e-12)
    np.testing.assert_allclose(combined.topic_word, whole.topic_word, rtol=1e-10)
    theta = model.transform(X)
    np.testing.assert_allclose(theta, whole.doc_topic / whole.doc_topic.sum(axis=1, keepdims=True), rtol=1e-10)


def test_auto_is_validated_warmed_up_and_saved(tmp_path):
    from engine.inference.warmup import Workload, load_cached

    X, _ = _mixed_lengths(seed=2)
    for bad in (0, 2.5, "many"):
        with pytest.raises((ValueError, TypeError), match="cvb0_words"):
            engine.LDA(n_topics=3, n_words=X.shape[1], local_update="auto", cvb0_words=bad).initialize(9)
    with pytest.raises(ValueError, match="LDA only"):
        Workload("HDP", "auto")
    workload = Workload.of(engine.LDA(local_update="auto"))
    assert str(workload) == "LDA:auto:float64" and Workload.parse(str(workload)) == workload
    assert load_cached(workload) in (True, False)  # runs both steps' warm-up without error
    model = _model(X, local_update="auto", cvb0_words=25)
    engine.SVI(model, corpus=X, batch_size=20, seed=0).run(n_docs=100)
    engine.save_model(tmp_path / "m.npz", model)
    loaded = engine.load_model(tmp_path / "m.npz").model
    assert (loaded.local_update, loaded.cvb0_words) == ("auto", 25)
    np.testing.assert_allclose(loaded.local_step(X).doc_topic, model.local_step(X).doc_topic, rtol=1e-12)
