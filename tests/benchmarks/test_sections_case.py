"""The five-section case's figures and its collection, on hand-made models and sources (and one small HDP)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "sections_case.py"
_SPEC = importlib.util.spec_from_file_location("sections_case_benchmark", _PATH)
sections_case = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(sections_case)


class _Model:
    """What ``measure`` reads of a model, through ``engine.topic_quality`` too: its words' shares, the
    documents' proportions, and no general or duplicated topics."""

    def __init__(self, shares, theta):
        self._shares = np.asarray(shares, dtype=float)
        self._theta = np.asarray(theta, dtype=float)

    def word_shares(self):
        return self._shares

    def overall_divergence(self):
        return np.ones_like(self._shares)

    def duplicate_of(self):
        return np.arange(self._shares.size)

    def transform(self, counts):
        assert counts.shape[0] == self._theta.shape[0]
        return self._theta


class _Reference:
    def score_model(self, model, **settings):
        return np.array([0.1, 0.2, 0.3])


COUNTS = sp.csr_matrix(np.array([[5, 5, 0, 0], [2, 2, 0, 0], [0, 0, 5, 5], [0, 0, 1, 1]], dtype=float))
LABELS = np.array([0, 0, 1, 1])
NAMES = ["a", "b"]


def test_topics_belong_to_the_section_that_gives_them_most_of_their_words():
    # topic 0 is section a's, topic 1 section b's, topic 2 holds 0.5 % of the words (not live, under 1 %)
    model = _Model([0.6, 0.395, 0.005], [[0.9, 0.1, 0.0], [0.9, 0.1, 0.0], [0.1, 0.9, 0.0], [0.1, 0.9, 0.0]])
    figures = sections_case.measure(model, COUNTS, LABELS, NAMES, _Reference())
    assert figures["live"] == 2
    assert figures["under_1pct"] == 1
    assert figures["smallest_share"] == pytest.approx(0.005)
    assert figures["sections_without_topic"] == []
    assert figures["mixed"] == 0
    assert figures["npmi"] == pytest.approx(0.2)


def test_purity_weighs_documents_by_their_length():
    # documents of 10 and 4 words in section a, 10 and 2 in b.  Topic 1 gets 0.1 * 10 + 1 * 4 = 5 words from a
    # and 0.1 * 10 + 1 * 2 = 3 from b: 5/8 >= 0.6, section a's (by documents it would be 1.1 against 1.1, mixed).
    # Topic 0 gets 0.9 * 10 from each: mixed.
    model = _Model([0.5, 0.49, 0.01], [[0.9, 0.1, 0.0], [0.0, 1.0, 0.0], [0.9, 0.1, 0.0], [0.0, 1.0, 0.0]])
    figures = sections_case.measure(model, COUNTS, LABELS, NAMES, _Reference())
    assert figures["mixed"] == 1
    assert figures["sections_without_topic"] == ["b"]


def test_a_mixed_topic_leaves_its_sections_without_a_topic():
    model = _Model([0.5, 0.5, 0.0], [[0.5, 0.5, 0.0]] * 4)
    figures = sections_case.measure(model, COUNTS, LABELS, NAMES, _Reference())
    assert figures["mixed"] == 2
    assert figures["sections_without_topic"] == ["a", "b"]


def _words(n: int, tag: str) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def test_build_draws_each_source_and_skips_one_not_installed(monkeypatch):
    def missing():
        raise FileNotFoundError("not installed")

    sources = {
        "one": lambda: [_words(20, "a")] * 6 + [_words(3, "short")],  # the short text is never drawn
        "two": lambda: [_words(30, "b")] * 5,
        "gone": missing,
        "three": lambda: [_words(15, "c")] * 4,
    }
    monkeypatch.setattr(sections_case, "SOURCES", sources)
    texts, labels, names = sections_case.build(per_section=4, seed=0)
    assert names == ["one", "two", "three"]
    assert labels.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    assert all(len(text.split()) >= sections_case.MIN_WORDS for text in texts)
    assert {text.split()[0][0] for text in texts[:4]} == {"a"}


def test_build_stops_with_fewer_than_three_sources(monkeypatch):
    monkeypatch.setattr(sections_case, "SOURCES", {"one": lambda: [_words(20, "a")] * 5,
                                                   "two": lambda: [_words(20, "b")] * 2})  # too few texts
    with pytest.raises(SystemExit, match="only 1 sources"):
        sections_case.build(per_section=4, seed=0)


def test_the_filing_configuration_is_the_paper_preset_at_the_old_app_schedule():
    model_options, svi_options = sections_case.CONFIGS["filing app"]
    assert model_options == {"preset": "paper"}
    assert svi_options == {"kappa": 0.7, "tau": 64.0}
    assert sections_case.CONFIGS["defaults"] == ({}, {})


def test_an_hdp_counts_its_topics_in_use_and_their_coherence():
    import engine
    from tests.engine._reference import one_theme_documents

    counts, theme = one_theme_documents(shares=(0.5, 0.3, 0.2), n_docs=300, seed=1)
    model = engine.HDP(n_topics=100, doc_truncation=4, n_words=counts.shape[1], seed=0, kernel="numpy")
    engine.SVI(model, corpus=counts, seed=0).run(n_docs=3 * counts.shape[0])
    reference = engine.CoherenceReference(counts)
    figures = sections_case.measure(model, counts, theme, ["x", "y", "z"], reference)
    in_use = model.word_shares() >= 0.01  # the app's topics in use
    assert 0 < in_use.sum() < model.n_topics  # some topics are not in use: they must not count
    assert figures["live"] == int(in_use.sum())
    assert figures["npmi"] == pytest.approx(np.mean(reference.score_model(model)[in_use]))
    assert figures["sections_without_topic"] == []  # each block of words is a topic of its own
