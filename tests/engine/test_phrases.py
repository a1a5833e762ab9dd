"""Phrases: pairs of words found side by side (engine.find_phrases) and read as one token (join_phrases)."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import engine
from engine.data import phrases as phrases_module
from engine.data.vectorizer import MAX_PHRASES, join_runs
from engine.io.model_files import load_model, save_model
from engine.models.inspection import text_segments

FILLER = ("river", "stone", "market", "garden", "window", "letter", "engine", "harbor", "forest", "candle", "silver",
          "ladder", "pocket", "rabbit", "violin", "meadow", "tunnel", "basket", "planet", "marble")


def planted_texts(n: int = 60, seed: int = 0) -> list[str]:
    """Texts of filler words in which "health care" stands side by side in every other text; "health" and "care"
    also occur apart, and "river stone" only by chance."""
    rng = random.Random(seed)
    texts = []
    for d in range(n):
        words = [rng.choice(FILLER) for _ in range(30)]
        if d % 2 == 0:
            at = rng.randrange(len(words))
            words[at:at] = ["health", "care"]
        if d % 5 == 0:
            words.insert(rng.randrange(len(words)), "health")
            words.insert(rng.randrange(len(words)), "care")
        texts.append(" ".join(words))
    return texts


def brute_force_npmi(texts: list[str]) -> dict[str, tuple[int, int, float]]:
    """Every pair of adjacent words of space-separated texts (one run each): (count, documents, NPMI), counted
    directly."""
    words, pairs, documents = Counter(), Counter(), Counter()
    for text in texts:
        tokens = text.split(" ")
        words.update(tokens)
        adjacent = [f"{a} {b}" for a, b in itertools.pairwise(tokens)]
        pairs.update(adjacent)
        documents.update(set(adjacent))
    total = sum(words.values())
    result = {}
    for pair, count in pairs.items():
        a, b = pair.split(" ")
        p_ab, p_a, p_b = count / total, words[a] / total, words[b] / total
        result[pair] = (count, documents[pair], math.log(p_ab / (p_a * p_b)) / -math.log(p_ab))
    return result


def test_every_pair_is_counted_and_scored_as_by_brute_force():
    texts = planted_texts()
    expected = brute_force_npmi(texts)
    found = engine.find_phrases(texts, min_count=1, min_documents=1, min_npmi=-1)
    assert {p.text for p in found} == set(expected)
    for phrase in found:
        count, documents, npmi = expected[phrase.text]
        assert (phrase.count, phrase.documents) == (count, documents)
        assert phrase.npmi == pytest.approx(npmi, rel=1e-12)
    assert [p.count for p in found] == sorted((p.count for p in found), reverse=True)


def test_the_planted_phrase_is_found_and_chance_pairs_are_not():
    found = engine.find_phrases(planted_texts())
    assert [p.text for p in found] == ["health care"]
    assert found[0].count == 30 and found[0].documents == 30 and found[0].npmi > 0.6


def test_counting_within_a_bound_on_pairs_drops_only_rare_ones(monkeypatch):
    rng = random.Random(2)
    words = ["".join(rng.choice("bcdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3)) for _ in range(2000)]
    texts = []
    for d in range(400):
        drawn = [rng.choice(words) for _ in range(30)]
        texts.append(" ".join(drawn[:15] + (["health", "care"] if d % 2 == 0 else []) + drawn[15:]))
    every = {"min_count": 1, "min_documents": 1, "min_npmi": -1, "max_phrases": 10**6}
    exact = {p.text: p for p in engine.find_phrases(texts, **every)}
    assert len(exact) > 10_000
    monkeypatch.setattr(phrases_module, "MAX_PAIRS", 1000)
    pruned = engine.find_phrases(texts, **every)
    assert 0 < len(pruned) <= 1000
    for phrase in pruned:  # counts from the last time each pair was dropped: never above the exact counts
        assert phrase.count <= exact[phrase.text].count and phrase.documents <= exact[phrase.text].documents
    assert [p.text for p in engine.find_phrases(texts)] == ["health care"]  # frequent: never dropped
    assert engine.find_phrases(texts)[0].count == exact["health care"].count == 200


def test_thresholds_are_inclusive_and_each_one_is_applied():
    texts = planted_texts()
    count = engine.find_phrases(texts)[0].count
    assert engine.find_phrases(texts, min_count=count)[0].text == "health care"
    assert engine.find_phrases(texts, min_count=count + 1) == []
    assert engine.find_phrases(texts, min_documents=31) == []
    npmi = engine.find_phrases(texts)[0].npmi
    assert engine.find_phrases(texts, min_npmi=npmi)[0].text == "health care"
    assert engine.find_phrases(texts, min_npmi=min(npmi + 1e-9, 1.0)) == []
    assert len(engine.find_phrases(texts, min_count=1, min_documents=1, min_npmi=-1, max_phrases=3)) == 3


@pytest.mark.parametrize(("between", "side_by_side"), [
    (" ", True), ("-", True), (" - ", True), ("\n", True), ("  \t ", True), ("\u2010", True),
    (", ", False), (". ", False), ("; ", False), (" 42 ", False), (" the ", False), ("\n\n", False),
    (" \n \n ", False), ("/", False), (" & ", False), ("'s ", False), (" (", False),
])
def test_what_keeps_two_words_side_by_side(between, side_by_side):
    runs = engine.Vectorizer().runs(f"health{between}care")
    assert runs == ([["health", "care"]] if side_by_side else [["health"], ["care"]])


def test_runs_joined_are_the_tokens_the_analyzer_reads_on_hostile_text():
    rng = random.Random(1)
    pieces = [*"ab cd-ef\n\n .,;'\"1 2", "中", "文", "字", "ファ", "イル", "ー", "・", "ひ", "हि", "ं", "दी", "é",
              "\u0301", "\U00011000", "\U00011038", "—", "\u2010", "\r\n", "\t", "_", "&amp;", "<b>", "</b>", "the ",
              "and ", "le ", "la ", "des "]
    for settings in ({}, {"token_pattern": engine.UNICODE_TOKEN_PATTERN}, {"stop_words": "english+french"},
                     {"stop_words": "english+french", "token_pattern": engine.UNICODE_TOKEN_PATTERN},
                     {"strip_markup": True}, {"stop_words": None, "lowercase": False, "strip_accents": False}):
        vectorizer = engine.Vectorizer(**settings)
        analyze = vectorizer.analyzer()
        for _ in range(400):
            text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 50)))
            assert [token for run in vectorizer.runs(text) for token in run] == analyze(text), (settings, text)


def test_overlapping_character_pairs_are_never_side_by_side():
    runs = engine.Vectorizer(token_pattern=engine.UNICODE_TOKEN_PATTERN).runs("文件系统")
    assert runs == [["文件"], ["件系"], ["系统"]]


def test_joining_reads_from_the_left_and_joins_each_token_once():
    pairs = {("new", "york"), ("york", "city")}
    assert join_runs([["new", "york", "city"], ["york", "city"]], pairs) == ["new york", "city", "york city"]
    assert join_runs([["new"], ["york"]], pairs) == ["new", "york"]
    assert join_runs([], pairs) == []


def test_a_corpus_with_phrases_counts_each_phrase_as_one_word():
    texts = planted_texts()
    corpus = engine.Corpus.from_texts(texts, join_phrases=True)
    plain = engine.Corpus.from_texts(texts)
    assert corpus.vectorizer.phrases == ("health care",)
    column = {word: w for w, word in enumerate(corpus.vocabulary)}
    totals = np.asarray(corpus.counts.sum(axis=0)).ravel()
    plain_totals = dict(zip(plain.vocabulary, np.asarray(plain.counts.sum(axis=0)).ravel(), strict=True))
    assert totals[column["health care"]] == 30
    assert totals[column["health"]] == plain_totals["health"] - 30
    assert totals[column["care"]] == plain_totals["care"] - 30
    assert corpus.n_tokens == plain.n_tokens - 30  # two tokens become one, nothing else changes
    assert plain.vectorizer.phrases == ()


def test_new_text_is_joined_as_the_training_text_was(tmp_path):
    texts = planted_texts()
    corpus = engine.Corpus.from_texts(texts, join_phrases=True)
    model = engine.LDA(n_topics=2, n_words=corpus.n_words, seed=0)
    engine.SVI(model, corpus=corpus, seed=0).run(n_docs=corpus.n_docs)
    counted = corpus.vectorizer.count(texts[:4], corpus.vocabulary).counts
    assert (counted != corpus.counts[:4]).nnz == 0
    path = save_model(tmp_path / "model.npz", model, corpus.vocabulary, vectorizer=corpus.vectorizer)
    loaded = load_model(path)
    assert loaded.model.vectorizer_.phrases == ("health care",)
    new = loaded.model.count_texts(["Health-care for the river.", "health, care"])
    column = corpus.vocabulary.index("health care")
    assert new.counts[0, column] == 1 and new.counts[1, column] == 0
    saved = engine.Corpus.load(corpus.save(tmp_path / "corpus"))
    assert saved.vectorizer == corpus.vectorizer


def test_a_phrase_can_be_an_extra_stop_word():
    corpus = engine.Corpus.from_texts(planted_texts(), join_phrases=True, extra_stop_words=["Health Care"])
    assert corpus.vectorizer.phrases == ("health care",)
    assert "health care" not in corpus.vocabulary and "health" in corpus.vocabulary


def test_a_collection_without_phrases_reads_as_before():
    texts = ["The river and the stone.", "A garden, a window; a letter."] * 5
    joined = engine.Corpus.from_texts(texts, join_phrases=True)
    plain = engine.Corpus.from_texts(texts)
    assert joined.vectorizer.phrases == () and joined.vocabulary == plain.vocabulary
    assert (joined.counts != plain.counts).nnz == 0


def test_the_disk_corpus_finds_and_joins_the_same_phrases(tmp_path):
    table = tmp_path / "texts.csv"
    pd.DataFrame({"text": planted_texts()}).to_csv(table, index=False)
    disk = engine.DiskCorpus.from_texts(table, tmp_path / "disk", join_phrases=True)
    memory = engine.Corpus.from_texts(planted_texts(), join_phrases=True)
    assert disk.vectorizer.phrases == memory.vectorizer.phrases == ("health care",)
    assert list(disk.vocabulary) == list(memory.vocabulary)
    assert (disk.counts[np.arange(disk.n_docs)] != memory.counts).nnz == 0
    assert engine.DiskCorpus.open(tmp_path / "disk").vectorizer.phrases == ("health care",)


def test_highlighted_segments_cover_a_joined_phrase_and_give_the_text_back():
    vectorizer = engine.Vectorizer(phrases=("united states", "new york"))
    text = "The United States health-care system. New York, united\nstates"
    segments = text_segments(text, ["united states", "york", "health", "care"], vectorizer)
    assert "".join(part for part, _ in segments) == text
    assert [part for part, column in segments if column is not None] == [
        "United States", "health", "care", "united\nstates"]  # "New York" is one word outside the vocabulary


@pytest.mark.parametrize(("phrases", "message"), [
    (("health",), "two words joined by one space"),
    (("health  care",), "two words joined by one space"),
    (("a b c",), "two words joined by one space"),
    (("health\tcare",), "two words joined by one space"),
    ((" care",), "two words joined by one space"),
    (("x" * 150 + " " + "y" * 60,), "at most 200 characters, got one of 211"),
    (tuple(f"w{i} v" for i in range(MAX_PHRASES + 1)), "at most 10,000"),
])
def test_bad_phrases_are_refused_with_what_to_fix(phrases, message):
    with pytest.raises(ValueError, match=message):
        engine.Vectorizer(phrases=phrases)


def test_stored_settings_round_trip_and_older_ones_read_no_phrases():
    vectorizer = engine.Vectorizer(phrases=["health care", "new york", "health care"])
    assert vectorizer.phrases == ("health care", "new york")
    assert engine.Vectorizer.from_dict(vectorizer.to_dict()) == vectorizer
    older = {k: v for k, v in vectorizer.to_dict().items() if k != "phrases"}
    assert engine.Vectorizer.from_dict(older).phrases == ()
    with pytest.raises(TypeError, match="phrases must be strings"):
        engine.Vectorizer.from_dict({**vectorizer.to_dict(), "phrases": [1]})


def test_bad_arguments_say_what_to_fix():
    with pytest.raises(TypeError, match="join_phrases must be True or False"):
        engine.Corpus.from_texts(["a text"], join_phrases="yes")
    with pytest.raises(TypeError, match="not one string"):
        engine.find_phrases("health care")
    with pytest.raises(ValueError, match="min_npmi must be a number from -1 to 1"):
        engine.find_phrases(["health care"], min_npmi=2)
    with pytest.raises(TypeError, match=r"engine\.Vectorizer"):
        engine.find_phrases(["health care"], vectorizer="english")
    assert engine.find_phrases([]) == [] and engine.find_phrases(["", "the of"]) == []
