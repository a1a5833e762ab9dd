"""The Topics page's topic quality, driven by Streamlit's AppTest: coherence, flags and alpha."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
from streamlit.testing.v1 import AppTest

import engine
from explorer import formatting, runs
from explorer.engine_api import LDA, LoadedModel
from explorer.state import Keys

HARDLY_USED = "Hardly used: this topic explains only {share} of the words; it may be a leftover — try fewer topics."
INCOHERENT = "Its top words rarely appear together in the same documents: treat it with caution."


def _record_with_an_unused_topic(collection) -> runs.RunRecord:
    """An LDA model whose topics 0-2 each hold about a third of the words and topic 3 about 1 %.

    Topic k < 3 is the word counts of every third document on every third word (distinct
    themes, none of them the collection's overall word use); topic 3 is a small copy of
    topic 0 with its words shuffled, so its top words are an arbitrary list.
    """
    counts = collection.corpus.counts
    n_docs, n_words = counts.shape
    model = LDA(n_topics=4, n_words=n_words, alpha=[0.4, 0.2, 0.1, 0.05], eta=0.01, seed=0)
    groups = [np.asarray(counts[np.arange(n_docs) % 3 == k].sum(axis=0)).ravel() * (np.arange(n_words) % 3 == k)
              for k in range(3)]
    spare = 0.0283 * np.random.default_rng(0).permutation(groups[0]) + 1e-3
    model.lambda_ = model.eta + np.vstack([*groups, spare])
    settings = runs.RunSettings(n_topics=4, n_test=30, seed=0)
    loaded = LoadedModel(model=model, vocabulary=collection.corpus.vocabulary, trainer_state=None)
    return runs.RunRecord("quality-test", "#1 quality test", settings, collection, loaded=loaded, checkpointed=False)


def _card(at: AppTest, topic: int):
    """The card (container) of ``topic`` on the Topics page."""
    blocks = [at.main]
    while blocks:
        block = blocks.pop()
        if getattr(block, "key", None) == Keys.topic_card(topic):
            return block
        blocks.extend(child for child in getattr(block, "children", {}).values() if hasattr(child, "children"))
    raise AssertionError(f"no card for topic {topic}")


def _alpha_charts(at: AppTest) -> list[pd.DataFrame]:
    """The data of every alpha chart on the page (Streamlit sends a chart's rows as Arrow)."""
    charts = [chart.proto for chart in at.get("vega_lite_chart")
              if json.loads(chart.proto.spec).get("encoding", {}).get("x", {}).get("field") == "alpha"]
    return [pa.ipc.open_stream(chart.datasets[0].data.data).read_pandas() for chart in charts]


def test_topic_cards_show_coherence_and_flag_an_unused_topic(app_path):
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    assert not at.exception
    collection = at.session_state[Keys.collection]
    record = at.session_state[Keys.runs].add(_record_with_an_unused_topic(collection))
    model = record.model()
    at.switch_page("views/topics.py")
    at.run()
    assert not at.exception, at.exception

    weights = model.topic_weights()
    assert weights[3] < 0.25 / 4 <= weights[:3].min()  # topic 3 is the only hardly used one
    expected = engine.topic_coherence(model, runs.split(collection, record.settings)[0], n_top=10)
    for k in range(4):
        card = _card(at, k)
        shown = f"{expected[k]:.2f}".replace("-0.00", "0.00")
        [caption] = [c for c in card.caption if c.value.startswith("Coherence")]
        assert caption.value == f"Coherence: **{shown}** (NPMI of its 10 top words)"
        assert "NPMI" in caption.proto.help and "same training documents" in caption.proto.help
        warnings = [w.value for w in card.warning]
        hardly_used = [HARDLY_USED.format(share=formatting.percent(weights[k], 2))] if k == 3 else []
        incoherent = [INCOHERENT] if round(float(expected[k]), 2) < 0 else []
        assert warnings == hardly_used + incoherent
    assert model.overall_divergence().min() > 0.1  # distinct themes: no "general words" flag, no note
    assert not [i for i in at.info if "overall word use" in i.value]
    assert HARDLY_USED.format(share="0.99%") in [w.value for w in _card(at, 3).warning]

    # a learned (per-topic) alpha is a bar chart in card order, labelled like the cards
    [rows] = _alpha_charts(at)
    assert list(rows["alpha"]) == [0.4, 0.2, 0.1, 0.05]
    assert list(rows["label"]) == [record.label(k, model.top_words(3, record.vocabulary)[k]) for k in range(4)]
    assert not any(c.value.startswith("α =") for c in at.caption)
    # a single alpha is one line instead
    model.alpha = 0.1
    at.run()
    assert not at.exception, at.exception
    assert not _alpha_charts(at)
    assert "α = 0.1 for every topic: before reading a document, the model expects every topic in it equally." in [
        c.value for c in at.caption]


def test_train_page_run_list_shows_coherence_and_live_topics(app_path):
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    collection = at.session_state[Keys.collection]
    record = at.session_state[Keys.runs].add(_record_with_an_unused_topic(collection))
    at.switch_page("views/train.py")
    at.run()
    assert not at.exception, at.exception
    expected = engine.topic_coherence(record.model(), runs.split(collection, record.settings)[0], n_top=10)
    [table] = [frame.value for frame in at.dataframe if "Coherence (NPMI)" in frame.value.columns]
    assert table.loc[0, "Coherence (NPMI)"] == f"{expected.mean():.2f}".replace("-0.00", "0.00")
    assert table.loc[0, "Live topics"] == "3 / 4"


GENERAL = "Its words are the collection's most common words overall, not a theme of their own."


def _topics_page_of_an_hdp_with_copies(app_path, scale: float):
    """The Topics page of an HDP whose topics 0-2 are distinct themes and 3-19 copies of the overall word use.

    Each copy holds ``scale`` times the overall word counts, so the copies hold
    17 scale / (1 + 17 scale) of the words.
    """
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    collection = at.session_state[Keys.collection]
    counts = collection.corpus.counts
    n_words = counts.shape[1]
    overall = np.asarray(counts.sum(axis=0), dtype=float).ravel()
    themes = [overall * (np.arange(n_words) % 3 == k) for k in range(3)]
    copies = [scale * overall * (1.0 + 0.01 * np.random.default_rng(k).random(n_words)) for k in range(17)]
    model = engine.HDP(n_topics=20, doc_truncation=4, n_words=n_words, eta=0.01, seed=0)
    model.lambda_ = model.eta + np.vstack([*themes, *copies])
    settings = runs.RunSettings(model="HDP", n_topics=20, doc_truncation=4, n_test=30, seed=0)
    loaded = LoadedModel(model=model, vocabulary=collection.corpus.vocabulary, trainer_state=None)
    record = at.session_state[Keys.runs].add(
        runs.RunRecord(f"hdp-copies-{scale}", "#1 copies", settings, collection, loaded=loaded, checkpointed=False))
    at.switch_page("views/topics.py")
    at.session_state[Keys.n_shown(record.run_id)] = 20
    at.run()
    assert not at.exception, at.exception
    return at, model


def test_an_hdp_with_copies_of_the_overall_word_use_is_told_so(app_path):
    """Many HDP topics that repeat the overall word use (its small-collection failure): a flag on each, and a note."""
    at, model = _topics_page_of_an_hdp_with_copies(app_path, scale=0.015)
    divergence = model.overall_divergence()
    assert divergence[3:].max() < 0.03 < 0.1 < divergence[:3].min()
    for k in range(20):
        assert (GENERAL in [w.value for w in _card(at, k).warning]) == (k >= 3)
    assert 0.15 < model.word_shares()[3:].sum() < 0.25  # under a quarter of the words: flagged, no note
    assert not [i for i in at.info if "overall word use" in i.value]
    in_use = model.topics_covering(0.95, by="words")
    assert 3 < in_use <= 20  # the three themes and some of the copies explain 95 % of the words
    assert f"{in_use - 3} of them repeat the collection's overall word use." in [c.value for c in at.caption]

    # past a quarter of the words the page says what it means and what to try
    at, model = _topics_page_of_an_hdp_with_copies(app_path, scale=0.05)
    share = model.word_shares()[3:].sum()
    [note] = [i.value for i in at.info if "overall word use" in i.value]
    assert note.startswith(f"17 topics, holding {formatting.percent(share)} of the words, repeat the collection's "
                           "overall word use instead of a theme of their own. The HDP does this on small collections")
    assert "LDA with about 20 topics" in note
