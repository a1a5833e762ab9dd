"""engine.topic_quality and what the command line makes of it: fit's summary and stored coherence, topics' lines."""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import engine
from engine.cli import main
from engine.inference.quality import IN_USE_WEIGHT, LIVE_SHARE
from engine.io import topics_command
from engine.io.model_files import load_model, save_model


@pytest.fixture
def trained_lda(planted_corpus):
    model = engine.LDA(n_topics=5, n_words=planted_corpus.n_words, seed=0)
    engine.SVI(model, corpus=planted_corpus.counts, batch_size=50, seed=0).run(n_docs=2000)
    return model


def _quality(coherence=None, hdp=False, weights=(0.4, 0.3, 0.2, 0.1), **fields):
    weights = np.asarray(weights, dtype=np.float64)
    live = weights >= (IN_USE_WEIGHT if hdp else LIVE_SHARE / weights.size)
    return engine.TopicQuality(weights, live, None if coherence is None else np.asarray(coherence, dtype=np.float64),
                               hdp, **fields)


def test_lda_quality_is_the_engines_own_measures(planted_corpus, trained_lda):
    reference = engine.CoherenceReference(planted_corpus.counts)
    quality = engine.topic_quality(trained_lda, reference)
    assert not quality.hdp and quality.n_topics == 5
    np.testing.assert_array_equal(quality.weights, trained_lda.word_shares())
    np.testing.assert_array_equal(quality.coherence, engine.topic_coherence(trained_lda, planted_corpus.counts))
    np.testing.assert_array_equal(quality.live, trained_lda.word_shares() >= 0.25 / 5)
    assert quality.n_live == 5 and quality.mean_coherence == pytest.approx(quality.coherence.mean())
    assert quality.coherence.min() > 0.3  # planted topics are coherent against their documents
    assert not quality.general.any() and not quality.copies.any() and not quality.incoherent.any()
    assert engine.topic_quality(trained_lda).coherence is None  # no reference: no coherence
    assert engine.topic_quality(trained_lda).mean_coherence is None


def test_an_hdps_mean_coherence_leaves_out_its_spare_slots(planted_corpus):
    model = engine.HDP(n_topics=30, doc_truncation=5, n_words=planted_corpus.n_words, seed=0)
    engine.SVI(model, corpus=planted_corpus.counts, batch_size=50, seed=0).run(n_docs=2000)
    quality = engine.topic_quality(model, engine.CoherenceReference(planted_corpus.counts))
    assert quality.hdp
    np.testing.assert_array_equal(quality.live, model.word_shares() >= 0.01)
    assert 0 < quality.n_live < 30
    assert quality.mean_coherence == pytest.approx(quality.coherence[quality.live].mean())
    assert quality.mean_coherence != pytest.approx(quality.coherence.mean())
    # the same numbers read as an LDA: every topic counts
    as_lda = engine.topic_quality(model, engine.CoherenceReference(planted_corpus.counts), hdp=False)
    assert as_lda.mean_coherence == pytest.approx(as_lda.coherence.mean())


def test_flags_follow_the_lines():
    quality = _quality(coherence=[0.2, -0.004, -0.006, 0.5], divergence=np.array([0.5, 0.029, 0.03, 0.5]),
                       duplicate_of=np.array([0, 1, 1, 3]))
    # NPMI below 0 at two decimals: -0.004 prints as 0.00 and is not flagged, -0.006 prints as -0.01 and is
    assert quality.incoherent.tolist() == [False, False, True, False]
    assert quality.general.tolist() == [False, True, False, False]  # below GENERAL_DIVERGENCE = 0.03 nats
    assert quality.copies.tolist() == [False, False, True, False] and quality.n_distinct == 3
    # LDA: live from a quarter of an even share (0.0625 of 4 topics); the HDP: from 1 % of the words
    assert _quality(weights=(0.7, 0.25, 0.04, 0.01)).live.tolist() == [True, True, False, False]
    assert _quality(weights=(0.7, 0.25, 0.04, 0.01), hdp=True).live.tolist() == [True, True, True, True]
    unknown = _quality()
    assert not (unknown.general.any() or unknown.copies.any() or unknown.incoherent.any())
    assert unknown.n_distinct == 4 and unknown.spare_share == 0.0


def test_fits_summary_names_the_topics_worth_a_second_look():
    quality = _quality(coherence=[0.2, -0.03, 0.1, 0.4], weights=(0.6, 0.3, 0.09, 0.01),
                       divergence=np.array([0.5, 0.01, 0.5, 0.5]), duplicate_of=np.array([0, 1, 2, 2]))
    lines = topics_command.summary(quality, 1234)
    assert lines[0] == "topics: 3 of 4 topics live (at least a quarter of an even share of the words)"
    assert "in 1,234 training documents" in lines[1] and "mean 0.17 over the topics" in lines[1]
    assert lines[1].endswith("lowest -0.03 (topic 1)")
    flagged = "\n".join(lines[2:])
    assert "hardly used (less than a quarter of an even share of the words; try fewer topics): topic 3" in flagged
    assert "overall word use, not a theme: topic 1" in flagged
    assert "the same as a lower-numbered topic (the documents hold fewer distinct topics): topic 3" in flagged
    assert "rarely appear together (NPMI below 0): topic 1" in flagged
    # an HDP: its spare slots are neither counted in the mean nor listed
    hdp = _quality(coherence=[0.2, 0.1, -0.5, -0.5], weights=(0.6, 0.394, 0.005, 0.001), hdp=True)
    lines = topics_command.summary(hdp, 10)
    assert lines[0] == "topics: 2 of 4 topics in use (at least 1% of the words)"
    assert "mean 0.15 over the topics in use, lowest 0.10 (topic 1)" in lines[1] and len(lines) == 2
    many = _quality(coherence=np.full(20, -0.2), weights=np.full(20, 0.05))
    assert topics_command.summary(many, 10)[2].endswith("topics 0, 1, 2, 3, 4, 5, 6, 7 and 12 more")


def _fit(tmp_path, corpus_csv, *extra) -> tuple:
    path, _ = corpus_csv
    out = tmp_path / "model.npz"
    code = main(["fit", str(path), "--topics", "5", "--epochs", "5", "--test-docs", "0", "--batch-size", "50",
                 "--out", str(out), "--no-progress", *extra])
    assert code == 0
    return out, load_model(out)


def test_fit_stores_coherence_and_topics_prints_it(tmp_path, corpus_csv, capsys):
    out, loaded = _fit(tmp_path, corpus_csv)
    err = capsys.readouterr().err
    assert "topics: 5 of 5 topics live" in err and "coherence (NPMI of each topic's 10 top words in 200 " in err
    model = loaded.model
    path, _ = corpus_csv
    corpus = engine.load_corpus(path)  # --test-docs 0: the training documents are the whole table
    assert corpus.vocabulary == loaded.vocabulary
    expected = engine.topic_coherence(model, corpus.counts)
    record = loaded.extra["coherence"]
    assert record["reference_docs"] == 200 and record["measure"] == "npmi"
    np.testing.assert_allclose(record["values"], expected)
    assert record["top_words"] == np.asarray(model.top_words(10)).tolist()

    assert main(["topics", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"mean {expected.mean():.2f}" in text.splitlines()[1]
    shown = {int(m[1]): float(m[2]) for m in re.finditer(r"^topic (\d+) \([0-9.]+; NPMI (-?[0-9.]+)\)", text, re.M)}
    assert sorted(shown) == list(range(5))
    np.testing.assert_allclose([shown[k] for k in range(5)], expected, atol=0.005)


def test_topics_skips_coherence_it_cannot_trust(tmp_path, corpus_csv, capsys):
    _, loaded = _fit(tmp_path, corpus_csv)
    capsys.readouterr()
    record = loaded.extra["coherence"]

    def topics_with(value) -> str:
        changed = tmp_path / "changed.npz"
        save_model(changed, loaded.model, loaded.vocabulary, extra={"coherence": value})
        assert main(["topics", str(changed)]) == 0
        return capsys.readouterr().out

    # topic 2 trained on since: its top words differ from those scored, so its NPMI is not shown
    moved = json.loads(json.dumps(record))
    moved["top_words"][2] = moved["top_words"][2][::-1]
    text = topics_with(moved)
    assert re.search(r"^topic 2 \([0-9.]+\):", text, re.M) and re.search(r"^topic 1 \([0-9.]+; NPMI", text, re.M)
    for broken in ({**record, "values": record["values"][:4]}, {**record, "values": ["0.1"] * 5},
                   {**record, "values": [2.0] * 5}, {**record, "values": [True] * 5}, {**record, "measure": "umass"},
                   {**record, "top_words": "x"}, "junk", [1, 2]):
        text = topics_with(broken)
        assert "NPMI" not in text.replace("(NPMI of the", "")
        assert "coherence: not in this file ('fit' stores it)" in text.splitlines()[1]
    all_moved = {**record, "top_words": [row[::-1] for row in record["top_words"]]}
    assert "the topics have changed since 'fit' scored them" in topics_with(all_moved)


def test_topics_warns_below_a_topic(tmp_path, planted_corpus, trained_lda, capsys):
    # topics 0 and 1 made identical, topic 4 nearly empty: warnings on the lines below them
    topic_word = np.array(trained_lda.lambda_, dtype=np.float64)
    topic_word[1] = topic_word[0]
    topic_word[4] = trained_lda.eta + 1e-6
    odd = engine.LDA(n_topics=5, n_words=planted_corpus.n_words, seed=0)
    odd.lambda_ = topic_word
    path = tmp_path / "odd.npz"
    save_model(path, odd, planted_corpus.vocabulary)
    assert main(["topics", str(path), "--n", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    below = {lines[i - 1].split()[1]: line.strip() for i, line in enumerate(lines) if line.strip().startswith("!")}
    assert below["1"] == "! the same as topic 0"
    assert below["4"].startswith("! hardly used (0.00% of the words; try fewer topics)")
    assert "0" not in below and lines[1].startswith("# 4 of 5 topics live; coherence: not in this file")


def test_topics_csv_holds_each_topics_quality(planted_corpus, trained_lda, tmp_path):
    vocabulary = list(planted_corpus.vocabulary)
    counts = planted_corpus.counts
    tied = np.array(trained_lda.lambda_, dtype=np.float64)
    tied[3] = tied[1]
    model = engine.LDA(n_topics=5, n_words=planted_corpus.n_words, seed=0)
    model.lambda_ = tied
    alone = engine.export_tables(model, vocabulary)["topics.csv"]  # no documents: no coherence
    assert list(alone.columns) == ["topic", "label", "share", "live", "coherence_npmi", "general", "same_as"]
    assert alone["coherence_npmi"].isna().all()
    np.testing.assert_allclose(alone["share"], model.word_shares())
    assert alone["same_as"].tolist()[3] == 1 and alone["same_as"].isna().tolist() == [True, True, True, False, True]
    scored = engine.export_tables(model, vocabulary, counts=counts)["topics.csv"]
    np.testing.assert_allclose(scored["coherence_npmi"], engine.topic_coherence(model, counts))
    given = np.array([0.1, np.nan, 0.3, 0.4, 0.5])
    np.testing.assert_array_equal(engine.export_tables(model, vocabulary, counts=counts, coherence=given)
                                  ["topics.csv"]["coherence_npmi"], given)  # given values win over the documents
    with pytest.raises(ValueError, match="one value per topic"):
        engine.export_tables(model, vocabulary, coherence=np.zeros(4))
    engine.write_export(tmp_path / "out", {"topics.csv": alone})
    back = pd.read_csv(tmp_path / "out" / "topics.csv")
    assert back["same_as"].tolist()[3] == 1 and back["coherence_npmi"].isna().all() and back["live"].dtype == bool


def test_export_without_the_corpus_uses_the_coherence_fit_stored(tmp_path, corpus_csv, capsys):
    out, loaded = _fit(tmp_path, corpus_csv)
    assert main(["export", str(out), "--out", str(tmp_path / "export")]) == 0
    topics = pd.read_csv(tmp_path / "export" / "topics.csv")
    np.testing.assert_allclose(topics["coherence_npmi"], loaded.extra["coherence"]["values"])


def _main_documents_by_hand(theta, lengths, groups):
    """Each topic's words summed per group with plain loops, then the largest group and its share."""
    n_groups = max(groups) + 1
    main, share = [], []
    for k in range(theta.shape[1]):
        per_group = [0.0] * n_groups
        for d in range(theta.shape[0]):
            per_group[groups[d]] += theta[d, k] * lengths[d]
        total = sum(per_group)
        best = max(range(n_groups), key=lambda g: (per_group[g], -g))  # the first of equal groups, as argmax
        main.append(best if total > 0 else -1)
        share.append(per_group[best] / total if total > 0 else 0.0)
    return main, share


@pytest.mark.parametrize("seed", range(6))
def test_main_documents_match_a_count_by_hand(seed):
    rng = np.random.default_rng(seed)
    n_docs, n_topics = rng.integers(1, 30), rng.integers(1, 6)
    theta = rng.dirichlet(np.full(n_topics, 0.3), size=n_docs)
    theta[:, 0] = 0.0  # a topic no document uses
    lengths = rng.integers(0, 200, size=n_docs)
    groups = rng.integers(0, max(1, n_docs // 3), size=n_docs)
    for by in (None, groups):
        main, share = engine.main_documents(theta, lengths, by)
        expected_main, expected_share = _main_documents_by_hand(theta, lengths, list(range(n_docs)) if by is None
                                                                else by.tolist())
        assert main.tolist() == expected_main
        np.testing.assert_allclose(share, expected_share, rtol=1e-12, atol=0)
        assert main[0] == -1 and share[0] == 0.0
        assert ((share >= 0) & (share <= 1)).all()


def test_main_documents_refuse_what_is_not_a_topic_table():
    theta = np.array([[0.5, 0.5], [1.0, 0.0]])
    for bad in ((theta, [1, 2, 3]), (theta[0], [1]), (theta, [1, np.nan]), (-theta, [1, 2]), (theta, [1, -2])):
        with pytest.raises(ValueError, match="doc_topic"):
            engine.main_documents(*bad)
    with pytest.raises(ValueError, match="groups"):
        engine.main_documents(theta, [1, 2], groups=[0.5, 1])
    with pytest.raises(ValueError, match="groups"):
        engine.main_documents(theta, [1, 2], groups=[0, -1])


def test_a_topic_made_of_one_long_documents_words_is_flagged_and_the_shared_themes_are_not(planted_corpus):
    """200 planted documents of 50 words and one of 3,000 words on ten words of its own: the topic that learns those
    words takes nearly all of them from that document; the planted themes take theirs from many."""
    rng = np.random.default_rng(1)
    own = np.zeros((1, 10), dtype=np.int64)
    own[0] = rng.multinomial(3000, np.full(10, 0.1))
    counts = sp.vstack([sp.hstack([planted_corpus.counts, sp.csr_matrix((planted_corpus.n_docs, 10))]),
                        sp.hstack([sp.csr_matrix((1, planted_corpus.n_words)), sp.csr_matrix(own)])], format="csr")
    model = engine.LDA(n_topics=6, n_words=counts.shape[1], seed=0)
    engine.SVI(model, corpus=counts, batch_size=50, seed=0).run(n_docs=3000)
    main, share = engine.main_documents(model.transform(counts), np.asarray(counts.sum(axis=1)).ravel())
    quality = dataclasses.replace(engine.topic_quality(model), main_document=main, main_share=share)
    long_topic = int(np.argmax(model.lambda_[:, -10:].sum(axis=1)))
    assert quality.one_document.tolist() == [k == long_topic for k in range(6)], share
    assert main[long_topic] == planted_corpus.n_docs and share[long_topic] > 0.95
    assert np.delete(share, long_topic).max() < 0.1  # the planted themes: no document gives a tenth of the words
    assert not engine.topic_quality(model).one_document.any()  # not known: nothing flagged


def test_only_live_topics_are_one_documents():
    """A hardly used topic whose few words come from one document is not flagged for it (it is flagged as unused)."""
    quality = _quality(weights=(0.6, 0.38, 0.015, 0.005), main_document=np.array([0, 1, 2, 3]),
                       main_share=np.array([0.9, 0.2, 0.95, 1.0]))
    assert quality.live.tolist() == [True, True, False, False]
    assert quality.one_document.tolist() == [True, False, False, False]
    assert _quality(weights=(0.6, 0.38, 0.015, 0.005), hdp=True, main_document=np.array([0, 1, 2, 3]),
                    main_share=np.array([0.9, 0.2, 0.95, 1.0])).one_document.tolist() == [True, False, True, False]


@pytest.mark.parametrize("seed", range(6))
def test_long_documents_are_those_holding_half_a_topics_average_share(seed):
    """Against a count by hand: each document's (group's) share of all the words, kept when >= 0.5 / K."""
    rng = np.random.default_rng(seed)
    n_docs, n_topics = int(rng.integers(1, 40)), int(rng.integers(1, 30))
    lengths = rng.integers(0, 50, size=n_docs) * (rng.random(n_docs) < 0.8) + (rng.random(n_docs) < 0.1) * 2000
    groups = rng.integers(0, max(1, n_docs // 2), size=n_docs)
    for by in (None, groups):
        owners = range(n_docs) if by is None else by.tolist()
        words: dict[int, float] = {}
        for owner, length in zip(owners, lengths.tolist(), strict=True):
            words[owner] = words.get(owner, 0.0) + length
        total = sum(words.values())
        expected = [] if total == 0 else sorted(
            (g for g, n in words.items() if n / total >= engine.ONE_DOCUMENT_SHARE / n_topics),
            key=lambda g: (-words[g], g))
        documents, shares = engine.long_documents(lengths, n_topics, by)
        assert documents.tolist() == expected
        np.testing.assert_allclose(shares, [words[g] / total for g in expected], rtol=1e-12, atol=0)


def test_long_documents_refuse_what_is_not_a_length_per_document():
    for bad in (([1, np.nan], 3), ([1, -2], 3), ([[1, 2]], 3)):
        with pytest.raises(ValueError, match="lengths"):
            engine.long_documents(*bad)
    for k in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="n_topics"):
            engine.long_documents([1, 2], k)
    with pytest.raises(ValueError, match="groups"):
        engine.long_documents([1, 2], 3, groups=[0, -1])
    documents, shares = engine.long_documents([0, 0], 3)  # no words: nothing is long
    assert documents.size == 0 and shares.size == 0


def test_the_rule_reads_one_hdp_topic_for_every_ten_documents_at_most_fifty():
    assert [engine.hdp_rule_topics(n) for n in (0, 1, 19, 20, 358, 499, 500, 10**7)] == [1, 1, 1, 2, 35, 49, 50, 50]
    assert engine.hdp_rule_topics(np.int64(40)) == 4 and engine.HDP_RULE_TOPICS == 50
    for bad in (-1, 2.5, True, "9"):
        with pytest.raises(ValueError, match="n_documents"):
            engine.hdp_rule_topics(bad)


def test_a_collection_is_small_for_the_hdp_below_either_line():
    few_docs, few_words = engine.HDP_FEW_DOCUMENTS, engine.HDP_FEW_WORDS
    assert (few_docs, few_words) == (500, 20_000)
    assert engine.hdp_small_collection(few_docs - 1, 10**6) == "documents"
    assert engine.hdp_small_collection(few_docs - 1, 0) == "documents"  # too few documents is the first reason
    assert engine.hdp_small_collection(few_docs, few_words - 1) == "words"
    assert engine.hdp_small_collection(np.int64(10**6), np.int64(few_words - 1)) == "words"
    assert engine.hdp_small_collection(few_docs, few_words) is None
    assert engine.hdp_small_collection(few_docs - 1, None) == "documents"  # words need not be counted there...
    with pytest.raises(ValueError, match="n_words: give the recurring words of the 500 documents"):
        engine.hdp_small_collection(few_docs, None)  # ... but decide from 500 documents on
    for bad in (-1, 2.5, True, "9", None):
        with pytest.raises(ValueError, match="n_documents"):
            engine.hdp_small_collection(bad, few_words)
    for bad in (-1, 2.5, True, "9"):
        with pytest.raises(ValueError, match="n_words"):
            engine.hdp_small_collection(few_docs, bad)
        with pytest.raises(ValueError, match="n_words"):  # a bad count is an error even where it does not decide
            engine.hdp_small_collection(few_docs - 1, bad)


def test_recurring_words_are_those_of_words_in_two_or_more_documents():
    rng = np.random.default_rng(3)
    for _ in range(20):
        dense = rng.poisson(0.3, size=(rng.integers(1, 30), rng.integers(1, 40)))
        expected = sum(int(dense[:, w].sum()) for w in range(dense.shape[1]) if np.count_nonzero(dense[:, w]) >= 2)
        assert engine.recurring_words(dense) == expected
        assert engine.recurring_words(sp.csr_matrix(dense)) == expected
    # a CSR matrix holding a word's count in two entries of one row, and a stored zero, counts its documents right
    split_entry = sp.csr_matrix((np.array([1, 2, 0, 5]), np.array([0, 0, 1, 1]), np.array([0, 2, 4])), shape=(2, 2))
    assert engine.recurring_words(split_entry) == 0  # word 0 is in one document, word 1's other entry is a zero
    assert engine.recurring_words(sp.csr_matrix([[1, 0], [0, 1]])) == 0
    assert engine.recurring_words(engine.Corpus.from_texts(["a cat sat", "a cat ran", "dogs bark"])) == 2
    with pytest.raises(ValueError, match="non-negative"):
        engine.recurring_words([[1, -1], [1, 1]])
    with pytest.raises(ValueError, match="2-D"):
        engine.recurring_words([1, 2, 3])


def test_the_long_document_found_before_training_is_the_one_its_topic_comes_from(planted_corpus):
    """The planted corpus plus one document of 3,000 words (23 % of them): named by long_documents before training,
    and the document the one flagged topic takes its words from after it; no planted document is named."""
    rng = np.random.default_rng(1)
    own = sp.csr_matrix(rng.multinomial(3000, np.full(10, 0.1))[None, :])
    counts = sp.vstack([sp.hstack([planted_corpus.counts, sp.csr_matrix((planted_corpus.n_docs, 10))]),
                        sp.hstack([sp.csr_matrix((1, planted_corpus.n_words)), own])], format="csr")
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    documents, shares = engine.long_documents(lengths, 6)
    assert documents.tolist() == [planted_corpus.n_docs] and 0.2 < shares[0] < 0.3
    model = engine.LDA(n_topics=6, n_words=counts.shape[1], seed=0)
    engine.SVI(model, corpus=counts, batch_size=50, seed=0).run(n_docs=3000)
    main, share = engine.main_documents(model.transform(counts), lengths)
    flagged = (share >= engine.ONE_DOCUMENT_SHARE) & engine.topic_quality(model).live
    assert set(main[flagged].tolist()) == {planted_corpus.n_docs}
    assert engine.long_documents(lengths[:-1], 6)[0].size == 0  # without it, no document is long


def test_one_document_sources_list_the_documents_of_flagged_topics_most_topics_first():
    """Documents 3 and 1 give two flagged topics each (ties by document), 5 one; 7's topic is not flagged."""
    quality = _quality(weights=(0.2, 0.2, 0.2, 0.2, 0.1, 0.1), main_document=np.array([3, 1, 3, 1, 5, 7]),
                       main_share=np.array([0.9, 0.8, 0.7, 0.6, 0.95, 0.2]))
    assert quality.one_document_sources.tolist() == [1, 3, 5]
    assert _quality().one_document_sources.tolist() == []
