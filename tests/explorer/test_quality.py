"""explorer/quality.py and the run list's quality columns (tables.py, cached.py) on small real runs."""

from __future__ import annotations

import dataclasses
import io
import zipfile

import numpy as np
import pandas as pd
import pytest

import engine
from explorer import cached, porting, quality, runs, tables, uploads
from explorer.engine_api import LoadedModel
from explorer.storage import Collection
from tests.explorer._waiting import wait_until


def _finished(collection: Collection, **changes) -> runs.RunRecord:
    settings = dataclasses.replace(runs.RunSettings(n_topics=4, batch_size=32, n_test=30, target_docs=1_500),
                                   **changes)
    record = runs.create_run(collection, settings, "#1 test", checkpoint=False)
    record.run.start()
    wait_until(lambda: record.status == "finished")
    return record


@pytest.fixture(scope="module")
def lda_run(collection) -> runs.RunRecord:
    return _finished(collection)


def _status(record: runs.RunRecord) -> str:
    return record.status


def test_run_table_shows_mean_coherence_and_live_topics(collection, lda_run):
    model = lda_run.model()
    train = runs.split(collection, lda_run.settings)[0]
    coherence = engine.topic_coherence(model, train, n_top=10)
    live = int((model.topic_weights() >= 0.25 / 4).sum())
    table = tables.run_table([lda_run], _status, cached.run_quality)
    columns = list(table.columns)
    assert columns.index("Coherence (NPMI)") == columns.index("Held-out log likelihood") + 1
    assert columns.index("Live topics") == columns.index("Held-out log likelihood") + 2
    assert table.loc[0, "Coherence (NPMI)"] == f"{coherence.mean():.2f}"
    assert coherence.mean() > 0.2  # planted topics are coherent against their documents
    assert table.loc[0, "Live topics"] == f"{live} / 4"
    # the Compare page asks for no quality columns
    assert "Coherence (NPMI)" not in tables.run_table([lda_run], _status).columns


def test_hdp_live_topics_hold_at_least_one_percent_of_the_words(collection):
    record = _finished(collection, model="HDP", n_topics=60, doc_truncation=5)
    measured = cached.run_quality(record)
    weights = record.model().word_shares()  # words, not the sticks' document atoms
    n_live = int((weights >= 0.01).sum())
    assert 4 <= n_live < 60 and measured.n_live == n_live  # the planted topics and a few more; not the spares
    table = tables.run_table([record], _status, cached.run_quality)
    assert table.loc[0, "Live topics"] == f"{n_live} / 60"
    expected = engine.topic_coherence(record.model(), runs.split(collection, record.settings)[0])
    np.testing.assert_allclose(measured.coherence, expected)
    # the run list's mean is over the topics in use: the spare slots' arbitrary top words would drag it
    assert table.loc[0, "Coherence (NPMI)"] == f"{expected[weights >= 0.01].mean():.2f}"
    assert f"{expected[weights >= 0.01].mean():.2f}" != f"{expected.mean():.2f}"
    spare = [k for k in range(60) if weights[k] < 0.01]
    assert spare
    for k in spare:
        assert quality.flags(measured, k)[0].endswith("of the words; the HDP keeps it as a spare, so you can skip it.")


def test_a_model_loaded_without_its_documents_has_no_coherence(lda_run):
    loaded = LoadedModel(model=lda_run.model(), vocabulary=lda_run.vocabulary, trainer_state=None)
    record = runs.load_record(loaded, "from a file", None)
    table = tables.run_table([record], _status, cached.run_quality)
    assert table.loc[0, "Coherence (NPMI)"] == "–"
    assert table.loc[0, "Live topics"] == quality.live_text(cached.run_quality(lda_run))


def test_flags_in_plain_words():
    measured = quality.TopicQuality(weights=np.array([0.6, 0.39995, 0.00005, 0.0]), live=np.array([1, 1, 0, 0], bool),
                                    coherence=np.array([0.3, -0.004, -0.2, 0.1]), hdp=False)
    assert quality.flags(measured, 0) == []
    assert quality.flags(measured, 1) == []  # shown as 0.00: at chance, not flagged
    assert quality.coherence_text(-0.004) == "0.00" and quality.coherence_text(-0.2) == "-0.20"
    assert quality.flags(measured, 2) == [
        "Hardly used: this topic explains less than 0.01% of the words; it may be a leftover — try fewer topics.",
        "Its top words rarely appear together in the same documents: treat it with caution."]
    share = quality.TopicQuality(np.array([0.99, 0.01]), np.array([True, False]), None, hdp=False)
    assert quality.flags(share, 1) == [
        "Hardly used: this topic explains only 1% of the words; it may be a leftover — try fewer topics."]
    assert quality.live_text(share) == "1 / 2" and share.mean_coherence is None


def test_a_training_run_is_scored_again_only_when_its_top_words_change(lda_run):
    calls = []

    class Training:  # a run that steps on (t grows) while its top words may stay
        run_id, settings, collection, run, loaded = "training", lda_run.settings, lda_run.collection, object(), None

        def __init__(self):
            self.snap = dataclasses.replace(lda_run.snapshot(), status="running")

        def snapshot(self):
            return self.snap

        @property
        def model_step(self):
            return self.snap.t

        def model(self):
            calls.append(self.snap.t)
            return lda_run.model()

    record = Training()
    first = cached.run_quality(record)
    record.snap = dataclasses.replace(record.snap, t=record.snap.t + 5)
    assert cached.run_quality(record) is first and len(calls) == 1  # new steps, same topics: no scoring
    top = record.snap.top_words
    record.snap = dataclasses.replace(record.snap, t=record.snap.t + 5, top_words=((top[0][1], top[0][0], *top[0][2:]),
                                                                                  *top[1:]))
    assert cached.run_quality(record) is not first and len(calls) == 2  # new topics: scored again
    record.snap = dataclasses.replace(record.snap, status="finished")
    cached.run_quality(record)
    assert len(calls) == 3  # ended: one score per step again


def test_quality_is_computed_once_per_run_step_and_the_reference_once_per_split(collection, lda_run):
    first = cached.run_quality(lda_run)
    assert cached.run_quality(lda_run) is first  # same step: no new scoring
    settings = lda_run.settings
    uncached = quality.topic_quality(lda_run.model(), quality.coherence_reference(collection, settings.n_test,
                                                                                  settings.seed), hdp=False)
    np.testing.assert_allclose(first.coherence, uncached.coherence)
    reference = cached.coherence_reference(collection.key, settings.n_test, settings.seed, collection)
    assert cached.coherence_reference(collection.key, settings.n_test, settings.seed, collection) is reference
    train = runs.split(collection, settings)[0]
    assert reference.n_docs == train.shape[0] == collection.corpus.n_docs - settings.n_test


def test_alpha_frame_follows_the_card_order():
    frame = tables.alpha_frame(np.array([0.1, 0.5, 0.2]), ["a", "b", "c"], [1, 0, 2])
    assert list(frame.columns) == ["position", "topic", "label", "alpha", "color"]
    assert list(frame["label"]) == ["b", "a", "c"] and list(frame["alpha"]) == [0.5, 0.1, 0.2]
    assert list(frame["topic"]) == [1, 0, 2] and frame.loc[0, "color"] == "#f28e2b"


def test_general_topics_are_flagged_and_noted_past_a_quarter_of_the_words():
    divergence = np.array([0.2, 0.029, 0.031, 0.0])
    measured = quality.TopicQuality(np.array([0.5, 0.3, 0.1, 0.1]), np.ones(4, bool), None, hdp=True,
                                    divergence=divergence)
    general = "Its words are the collection's most common words overall, not a theme of their own."
    assert [general in quality.flags(measured, k) for k in range(4)] == [False, True, False, True]
    assert quality.general_note(measured) == (
        "2 topics, holding 40% of the words, repeat the collection's overall word use instead of a theme of their "
        "own. The HDP does this on small collections, where it finds only a few themes; LDA with about 20 topics "
        "usually fits such collections better (choose LDA on the Train page).")
    lda = dataclasses.replace(measured, hdp=False, weights=np.array([0.7, 0.26, 0.02, 0.02]),
                              divergence=np.array([0.2, 0.029, 0.031, 0.05]))
    assert quality.general_note(lda) == (
        "1 topic, holding 26% of the words, repeats the collection's overall word use instead of a theme of its own. "
        "With fewer topics LDA usually makes none (about 20 for a few hundred documents).")
    below = dataclasses.replace(measured, weights=np.array([0.76, 0.2, 0.02, 0.02]))  # 22 %: flags only
    assert quality.general_note(below) is None and general in quality.flags(below, 1)
    unknown = dataclasses.replace(measured, divergence=None)  # e.g. built without the engine's read-out
    assert quality.general_note(unknown) is None and not unknown.general.any()
    assert quality.general_note(None) is None
    # the Topics page's line under the HDP's topics in use counts the live general topics only
    assert quality.general_among_live(measured) == 2
    spare = dataclasses.replace(measured, live=np.array([True, True, True, False]))
    assert quality.general_among_live(spare) == 1 and spare.spare_share == pytest.approx(0.1)
    assert measured.spare_share == 0.0
    assert quality.general_among_live(None) == 0
    # the page offers to merge an HDP's general topics when its note shows and there are at least two
    assert quality.mergeable(measured) == 2
    assert quality.mergeable(dataclasses.replace(measured, hdp=False)) == 0  # LDA: it costs held-out likelihood
    assert quality.mergeable(below) == 0 and quality.mergeable(None) == 0
    one = dataclasses.replace(measured, divergence=np.array([0.2, 0.029, 0.031, 0.05]), weights=np.array(
        [0.6, 0.3, 0.05, 0.05]))  # one general topic holding 30 %: a note, nothing to merge
    assert quality.general_note(one) is not None and quality.mergeable(one) == 0


def test_the_hdp_small_collection_note_starts_below_either_line():
    enough = quality.HDP_FEW_WORDS
    assert quality.hdp_small_collection_note(quality.HDP_FEW_DOCUMENTS, enough) is None
    assert quality.hdp_small_collection_note(10_000, 10**6) is None
    note = quality.hdp_small_collection_note(quality.HDP_FEW_DOCUMENTS - 1, enough)
    assert note.startswith("With 499 training documents, the HDP may leave most words in many near-identical topics")
    assert "of 400 documents" in note
    for n_words in (10, None):  # few documents: their count is the reason given, the words counted or not
        assert quality.hdp_small_collection_note(quality.HDP_FEW_DOCUMENTS - 1, n_words) == note
    words = quality.hdp_small_collection_note(900, enough - 1)
    assert words.startswith("With only 19,999 words that recur across the training documents (a word found in one "
                            "document only cannot tie documents together), the HDP may leave most words in many "
                            "near-identical topics")
    assert "7 of 14 test collections of fewer than 20,000 words" in words and "LDA with about 20 topics" in words
    assert "the Topics page offers to merge them" in note


def test_a_topic_tied_to_another_is_flagged_as_the_same_topic():
    measured = quality.TopicQuality(weights=np.array([0.4, 0.2, 0.2, 0.2]), live=np.ones(4, bool),
                                    coherence=np.array([0.3, 0.3, 0.2, 0.3]), hdp=False,
                                    duplicate_of=np.array([0, 1, 2, 1]))
    assert quality.flags(measured, 1) == []  # the first of its group
    assert quality.flags(measured, 3) == [
        "The same topic as topic 1: the documents hold fewer distinct topics than you asked for — try fewer topics."]
    model = engine.LDA(n_topics=4, n_words=3)
    model.lambda_ = np.array([[1.0, 2.0, 3.0], [4.0, 1.0, 1.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0 + 1e-6]])
    assert model.duplicate_of().tolist() == [0, 1, 0, 3]
    assert quality.topic_quality(model, None, hdp=False).duplicate_of.tolist() == [0, 1, 0, 3]
    assert quality.live_text(measured) == "4 / 4 (3 distinct)"
    assert quality.duplicate_note(measured) == (
        "1 of the 4 topics is the same as another topic: the documents seem to hold about 3 distinct topics, so a "
        "run with that many shows each of them once. The repeated topics are marked below.")
    distinct = dataclasses.replace(measured, duplicate_of=np.arange(4))
    assert quality.live_text(distinct) == "4 / 4" and quality.duplicate_note(distinct) is None
    assert quality.duplicate_note(None) is None
    # topics emptied by a merge hold no words: nobody's copies, though their rows are equal
    merged = model.merge_topics([0, 1, 3])
    assert merged.duplicate_of().tolist() == [0, 1, 2, 3]


def test_the_full_exports_topics_table_carries_the_cards_coherence(collection, lda_run):
    model = lda_run.model()
    measured = cached.run_quality(lda_run)
    build = porting.full_export(model, collection.corpus.vocabulary, {1: "Named"}, collection, measured.coherence)
    with zipfile.ZipFile(io.BytesIO(build())) as archive:
        topics = pd.read_csv(archive.open("topics.csv"))
    assert list(topics.columns) == ["topic", "label", "share", "live", "coherence_npmi", "general", "same_as"]
    assert topics.loc[1, "label"] == "Named"
    np.testing.assert_allclose(topics["coherence_npmi"], measured.coherence)  # the training documents', as on cards
    np.testing.assert_allclose(topics["share"], model.word_shares())
    assert topics["live"].tolist() == measured.live.tolist() and topics["same_as"].isna().all()


def test_the_passages_of_a_document_count_as_that_document(monkeypatch):
    """A book cut into three passages gives a topic 3 x 40 of its words: the book, not one passage, is named (with
    the floor of documents below which nothing is flagged lowered to these three)."""
    monkeypatch.setattr(quality, "ONE_DOCUMENT_MIN_DOCUMENTS", 3)
    texts = ["river dam flood"] * 3 + ["court judge law"] + ["river bank"]
    ids = ["book.txt#1", "book.txt#2", "book.txt#3", "court.txt", "bank.txt"]
    titles = ["Book (1)", "Book (2)", "Book (3)", "Court", "Bank (2)"]  # a title may end like a passage's
    corpus = engine.Corpus.from_texts(texts, titles=titles, ids=ids, stop_words=None)
    groups, roots, names = uploads.document_roots(corpus)
    assert groups.tolist() == [0, 0, 0, 1, 2] and names == ["Book", "Court", "Bank (2)"]
    assert roots == ["book.txt", "court.txt", "bank.txt"]
    lengths = np.asarray(corpus.counts.sum(axis=1)).ravel()
    # topic 0: each passage gives 40 % of its words, the bank text all of its two; topic 1: the court text's
    doc_topic = np.array([[0.4, 0.6], [0.4, 0.6], [0.4, 0.6], [0.0, 1.0], [1.0, 0.0]])
    measured = engine.TopicQuality(np.array([0.5, 0.5]), np.array([True, True]), None, False)
    sources = quality.main_documents_of(doc_topic, corpus)
    found, named = quality.with_main_documents(measured, sources), sources.titles
    assert named == names and found.main_document.tolist() == [0, 0]
    book = 3 * 0.4 * 3
    np.testing.assert_allclose(found.main_share, [book / (book + 2), 3 * 0.6 * 3 / (3 * 0.6 * 3 + 3)])
    assert found.one_document.tolist() == [True, True]
    # read passage by passage, no single passage of the book would give topic 0 half its words
    _, by_row = engine.main_documents(doc_topic, lengths)
    assert by_row[0] < 0.5
    assert quality.flags(found, 0, named)[0].startswith("Mostly from one document: ")
    assert "“Book”" in quality.flags(found, 0, named)[0]
    assert quality.one_document_note(found, named).startswith("2 of the 2 topics take their words mostly from one "
                                                              "document (“Book”)")
    assert quality.one_document_note(measured, named) is None and quality.one_document_note(found, None) is None
    as_hdp = dataclasses.replace(found, weights=np.array([0.5, 0.45]), live=np.array([True, True]), hdp=True)
    assert quality.one_document_note(as_hdp, named).startswith("2 of the 2 topics in use take their words mostly")


def test_a_few_documents_read_as_passages_flag_no_topic_as_one_documents():
    """Topics of a collection of fewer than ONE_DOCUMENT_MIN_DOCUMENTS documents are meant to come from within them:
    the topic one document fills among twenty is not flagged when the collection is that document and two more."""
    def corpus_of(n_others: int):
        texts = ["river dam flood"] * 3 + ["court judge law"] * n_others
        ids = ["book.txt#1", "book.txt#2", "book.txt#3", *(f"c{i}.txt" for i in range(n_others))]
        return engine.Corpus.from_texts(texts, ids=ids, stop_words=None)

    measured = engine.TopicQuality(np.array([0.5, 0.5]), np.array([True, True]), None, False)
    few, many = corpus_of(2), corpus_of(engine.ONE_DOCUMENT_MIN_DOCUMENTS - 1)
    for corpus, flagged in ((few, [False, False]), (many, [True, False])):
        doc_topic = np.tile([1.0, 0.0], (corpus.n_docs, 1))
        doc_topic[3:] = [0.0, 1.0]
        found = quality.with_main_documents(measured, quality.main_documents_of(doc_topic, corpus))
        assert found.one_document.tolist() == flagged
        assert (quality.one_document_note(found, ["book"]) is None) == (not any(flagged))
