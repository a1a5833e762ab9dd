"""The Topics page's topic quality, driven by Streamlit's AppTest: coherence, flags and alpha."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

import engine
from explorer import formatting, runs, storage
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
    live = model.word_shares() >= 0.01  # topics in use: at least 1 % of the words
    assert live.all()  # each copy holds 1.2 %
    [metric] = [m for m in at.metric if m.label == "Topics in use"]
    assert metric.value == "20 of 20"
    assert "17 of the topics in use repeat the collection's overall word use." in [c.value for c in at.caption]
    assert not [c.value for c in at.caption if c.value.startswith("The other")]  # no spare topics to speak of

    # past a quarter of the words the page says what it means and what to try
    at, model = _topics_page_of_an_hdp_with_copies(app_path, scale=0.05)
    share = model.word_shares()[3:].sum()
    [note] = [i.value for i in at.info if "overall word use" in i.value]
    assert note.startswith(f"17 topics, holding {formatting.percent(share)} of the words, repeat the collection's "
                           "overall word use instead of a theme of their own. The HDP does this on small collections")
    assert "LDA with about 20 topics" in note


def test_merging_the_copies_makes_a_new_run_with_one_general_topic(app_path):
    """The note's button: a new browse-only run, the copies in one topic, the original untouched; kept on disk."""
    at, model = _topics_page_of_an_hdp_with_copies(app_path, scale=0.05)
    source = at.session_state[Keys.runs].get("hdp-copies-0.05")
    source.labels = {1: "second theme", 7: "a copy"}
    button = at.button(key=Keys.merge_copies)
    assert button.label == "Merge the 17 copies into one topic"
    button.click().run()
    assert not at.exception, at.exception

    records = list(at.session_state[Keys.runs])
    assert len(records) == 2
    merged = records[-1]
    assert merged.name == "#1 copies (copies merged)" and merged.merged_from == source.run_id
    assert at.session_state[Keys.current_run] == merged.run_id and merged.can_continue is False
    kept = 3 + int(np.argmax(model.word_shares()[3:]))
    _, observed, heldout = runs.split(source.collection, source.settings)
    before = engine.predictive_log_likelihood(model, observed, heldout)
    after = engine.predictive_log_likelihood(merged.model(), observed, heldout)
    [message] = [s.value for s in at.success]
    words = merged.model().top_words(3, source.vocabulary)[kept]
    assert message.startswith(f"Made “\\#1 copies (copies merged)”: “Topic {kept}: {', '.join(words)}” holds the 17 "
                              "topics that repeated the collection's overall word use")
    assert message.endswith(f"Held-out log likelihood per word: {before:.3f} before, {after:.3f} after. "
                            "It is kept with this workspace's checkpoints (Export page).")
    assert np.isfinite(after) and abs(after - before) < 0.2

    # the new run: one general topic, holding every copy's words; the themes as they were
    shares = merged.model().word_shares()
    np.testing.assert_allclose(shares[kept], model.word_shares()[3:].sum(), rtol=1e-6)
    np.testing.assert_allclose(shares[:3], model.word_shares()[:3], rtol=1e-6)
    assert np.all(shares[[k for k in range(3, 20) if k != kept]] == 0.0)
    assert merged.labels == {1: "second theme", 7: "a copy"}
    [note] = [i.value for i in at.info if "overall word use" in i.value]
    assert note.startswith("1 topic, holding ")
    assert not [b for b in at.button if b.key == Keys.merge_copies]  # nothing left to merge
    assert GENERAL in [w.value for w in _card(at, kept).warning]
    assert "1 of the topics in use repeats the collection's overall word use." in [c.value for c in at.caption]
    # the emptied topics say where their words went (unless the user named them); the map shows the kept one
    emptied = next(k for k in range(3, 20) if k not in (kept, 7))
    assert merged.label(emptied) == f"Topic {emptied} (merged into topic {kept})"
    assert merged.label(7) == "a copy" and merged.label(1) == "second theme"
    assert at.selectbox(key=Keys.intertopic_topic).value == kept

    # the original is unchanged, and offers no second merge
    np.testing.assert_allclose(source.model().lambda_, model.lambda_)
    at.session_state[Keys.current_run] = source.run_id
    at.run()
    assert not [b for b in at.button if b.key == Keys.merge_copies]
    assert "“\\#1 copies (copies merged)” has them merged: choose it in the sidebar." in [c.value for c in at.caption]

    # its model file holds the merged topics and the labels
    from explorer import porting

    loaded = engine.load_model(porting.model_bytes(merged)())
    np.testing.assert_allclose(loaded.model.lambda_, merged.model().lambda_, rtol=1e-6)
    assert loaded.labels == {1: "second theme", 7: "a copy"}

    # every page shows the merged run
    at.session_state[Keys.current_run] = merged.run_id
    for page in ("views/train.py", "views/documents.py", "views/export.py", "views/compare.py", "views/data.py"):
        at.switch_page(page)
        at.run()
        assert not at.exception, (page, at.exception)
        assert not [e.value for e in at.error], (page, [e.value for e in at.error])

    _reopened_after_a_restart(app_path, at, merged, source, kept)


def _reopened_after_a_restart(app_path, at, merged, source, kept: int) -> None:
    """The merged run is a checkpoint of the workspace: after a restart it opens with its labels, and never resumes."""
    import streamlit as st

    from explorer import workspace

    at.switch_page("views/topics.py")
    at.run()
    at.text_input(key=Keys.topic_label(merged.run_id, kept)).input("common words").run()  # saved on disk too
    assert not at.exception, at.exception
    labels = {**merged.labels}
    assert labels[kept] == "common words"
    token = at.query_params[workspace.QUERY_PARAMETER]

    st.cache_resource.clear()  # a server restart: the session's runs are gone, the workspace's files stay
    back = AppTest.from_file(app_path, default_timeout=60)
    back.query_params[workspace.QUERY_PARAMETER] = token
    back.run()
    back.switch_page("views/export.py")
    back.run()
    assert not back.exception, back.exception
    [table] = [frame.value for frame in back.dataframe if "Run" in frame.value.columns]
    assert list(table["Run"]) == ["#1 copies (copies merged)"]  # the original was never a checkpoint here
    assert back.selectbox(key=Keys.checkpoint).value == merged.run_id
    resume = back.button(key=Keys.checkpoint_resume)  # no training state to continue
    assert resume.disabled and "no training to continue" in resume.help

    back.button(key=Keys.checkpoint_open).click().run()
    assert not back.exception, back.exception
    [opened] = list(back.session_state[Keys.runs])
    assert opened.name == "#1 copies (copies merged) (checkpoint)" and opened.status == "merged"
    np.testing.assert_allclose(opened.model().lambda_, merged.model().lambda_, rtol=1e-6)
    assert opened.merged_into == merged.merged_into and opened.merged_from == source.run_id
    assert opened.labels == labels
    emptied = next(k for k in range(3, 20) if k != kept and k not in labels)
    assert opened.label(emptied) == f"Topic {emptied} (merged into topic {kept})"
    back.switch_page("views/topics.py")
    back.run()
    assert not back.exception, back.exception
    assert Keys.merge_copies not in [b.key for b in back.button]  # nothing left to merge


def test_merging_refuses_a_run_without_copies_and_measures_nothing_without_documents(app_path):
    from explorer import merging

    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    collection = at.session_state[Keys.collection]
    themes = _record_with_an_unused_topic(collection)  # distinct themes: nothing to merge
    with pytest.raises(ValueError, match="nothing to merge"):
        merging.merge_copies(themes)
    background = np.asarray(collection.corpus.counts.sum(axis=0), dtype=float).ravel()
    model = engine.HDP(n_topics=5, doc_truncation=2, n_words=background.size, seed=0)
    model.lambda_ = model.eta + np.vstack([background * (1.0 + 0.01 * k) for k in range(5)])
    settings = runs.RunSettings(model="HDP", n_topics=5, doc_truncation=2, n_test=30, seed=0)
    loaded = LoadedModel(model=model, vocabulary=None, trainer_state=None)
    detached = runs.RunRecord("copies", "copies", settings, None, loaded=loaded, checkpointed=False)
    result = merging.merge_copies(detached)
    assert result.merged == 5 and result.before is None and result.after is None
    assert result.kept == "Topic 4"  # the largest copy keeps them all; no vocabulary, no words in its label
    assert result.message().endswith("The original run is unchanged.")
    assert result.record.collection is None and result.record.status == "merged"


def test_a_topic_tied_to_another_is_flagged_on_its_card(app_path):
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    collection = at.session_state[Keys.collection]
    record = at.session_state[Keys.runs].add(_record_with_an_unused_topic(collection))
    model = record.model()
    lam = model.lambda_.copy()
    lam[3] = lam[1]  # what revival's tie leaves: two identical topics
    model.lambda_ = lam
    at.switch_page("views/topics.py")
    at.run()
    assert not at.exception, at.exception
    same = ("The same topic as topic 1: the documents hold fewer distinct topics than you asked for — "
            "try fewer topics.")
    assert [w.value for w in _card(at, 3).warning if w.value.startswith("The same")] == [same]
    for k in (0, 1, 2):
        assert not [w.value for w in _card(at, k).warning if w.value.startswith("The same")]
    assert [i.value for i in at.info if "the same as another topic" in i.value] == [
        "1 of the 4 topics is the same as another topic: the documents seem to hold about 3 distinct topics, so a "
        "run with that many shows each of them once. The repeated topics are marked below."]


def test_a_word_cloud_the_server_has_no_font_for_is_replaced_by_a_note(app_path, monkeypatch):
    from explorer import cached, clouds

    monkeypatch.setattr(clouds, "_letters_of", lambda path: frozenset())  # a server whose fonts draw none of them
    cached.word_cloud.clear()
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    collection = at.session_state[Keys.collection]
    at.session_state[Keys.runs].add(_record_with_an_unused_topic(collection))
    at.switch_page("views/topics.py")
    at.run()
    assert not at.exception, at.exception
    notes = [c.value for c in _card(at, 0).caption if c.value.startswith("No word cloud")]
    assert notes and "no font on this server has the letters " in notes[0] and "(Debian: fonts-noto-core)" in notes[0]
    assert notes[0].split("has the letters ")[1][0] != ";"  # the letters are named
    assert not _card(at, 0).get("image")
    monkeypatch.undo()
    cached.word_cloud.clear()
    at.run()
    assert not [c for c in _card(at, 0).caption if c.value.startswith("No word cloud")]
    assert _card(at, 0).get("image")


def test_words_left_out_of_a_cloud_are_named_under_it(app_path, monkeypatch):
    from explorer import cached, clouds

    drawn = clouds.word_cloud({"picture": 1.0})
    monkeypatch.setattr(clouds, "word_cloud", lambda weights, color: clouds.CloudPicture(drawn.png, ("file",)))
    cached.word_cloud.clear()
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    at.session_state[Keys.runs].add(_record_with_an_unused_topic(at.session_state[Keys.collection]))
    at.switch_page("views/topics.py")
    at.run()
    assert not at.exception, at.exception
    assert _card(at, 0).get("image")
    assert any(c.value.startswith("Not in the cloud: file (no font on this server draws") for c in _card(at, 0).caption)
    monkeypatch.undo()
    cached.word_cloud.clear()


def _permuted_record(record: runs.RunRecord, order: list[int], run_id: str, name: str) -> runs.RunRecord:
    """Another run holding some of ``record``'s topics in another order (a run with fewer topics)."""
    model = record.model()
    other = LDA(n_topics=len(order), n_words=model.n_words, eta=model.eta, seed=1)
    other.lambda_ = model.lambda_[order].copy()
    loaded = LoadedModel(model=other, vocabulary=record.vocabulary, trainer_state=None)
    settings = runs.RunSettings(n_topics=len(order), n_test=30, seed=1)
    return runs.RunRecord(run_id, name, settings, record.collection, loaded=loaded, checkpointed=False)


def _topics_page_with(app_path, *others) -> tuple[AppTest, runs.RunRecord]:
    """The Topics page showing the run of :func:`_record_with_an_unused_topic`, with ``others(record)`` runs added."""
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    record = at.session_state[Keys.runs].add(_record_with_an_unused_topic(at.session_state[Keys.collection]))
    for make in others:
        at.session_state[Keys.runs].add(make(record))
    at.session_state[Keys.current_run] = record.run_id
    at.switch_page("views/topics.py")
    at.run()
    assert not at.exception, at.exception
    return at, record


def test_each_card_says_whether_another_run_finds_its_topic_again(app_path):
    at, record = _topics_page_with(app_path)
    [chooser] = [s for s in at.selectbox if s.key == Keys.match_run]
    assert chooser.disabled and chooser.options == []
    assert ("No other run yet: train this one again with another seed, or start any run on the Train page to see "
            "which of these topics come back.") in [c.value for c in at.caption]
    assert [b.label for b in at.button if b.key == Keys.train_again] == ["Train again with another seed"]

    other = at.session_state[Keys.runs].add(_permuted_record(record, [2, 0, 1], "other-run", "#2 three topics"))
    at.session_state[Keys.current_run] = record.run_id
    at.run()
    assert not at.exception, at.exception
    assert not [c for c in at.caption if c.value.startswith("No other run yet")]
    [chooser] = [s for s in at.selectbox if s.key == Keys.match_run]
    assert chooser.value is None and not chooser.disabled and chooser.options == ["#2 three topics"]  # by name
    # no comparison until a run is chosen
    assert not [c for c in _card(at, 0).caption if "found again" in c.value.lower()]

    chooser.select(other.run_id)
    at.run()
    assert not at.exception, at.exception
    assert ("3 of the 4 topics are found again in **\\#2 three topics**, the other run. Each card below names its "
            "partner there.") in [i.value for i in at.info]
    other_labels = [other.label(k, other.model().top_words(3, other.vocabulary)[k]) for k in range(3)]
    for topic, partner in ((0, 1), (1, 2), (2, 0)):
        [line] = [c for c in _card(at, topic).caption if "found again" in c.value.lower()]
        assert line.value == (f"Found again in the other run as *{other_labels[partner]}* "
                              "(10 of its 10 top words shared).")
        assert "closest topic" in line.proto.help
    [line] = [c for c in _card(at, 3).caption if "found again" in c.value.lower()]
    assert line.value == "Not found again in the other run: it has fewer topics, each paired with a closer one."

    # the other run removed: the choice goes with it and the cards say nothing more
    at.session_state[Keys.runs].remove(other.run_id)
    at.run()
    assert not at.exception, at.exception
    assert at.session_state[Keys.match_run] is None
    assert not [c for c in _card(at, 0).caption if "found again" in c.value.lower()]


def test_a_partner_that_is_not_the_closest_both_ways_is_not_called_found_again(app_path):
    # the other run has topic 0 twice: one of this run's topic 0's partners is not its nearest both ways
    at, record = _topics_page_with(app_path, lambda shown: _permuted_record(shown, [0, 0, 1, 2], "twice", "#2 twice"))
    other = at.session_state[Keys.runs].get("twice")
    at.selectbox(key=Keys.match_run).select(other.run_id).run()
    assert not at.exception, at.exception
    found = engine.match_topics(record.model(), other.model())
    assert found.recurring.tolist() == [True, True, True, False]  # topic 3 is paired with the second copy of 0
    [line] = [c for c in _card(at, 3).caption if "found again" in c.value.lower()]
    assert line.value.startswith("Not clearly found again in the other run: paired with *")
    assert line.value.endswith("but the two are not each other's closest topic.")
    assert "3 of the 4 topics are found again in **\\#2 twice**, the other run." in " ".join(i.value for i in at.info)


def _stranger(shown: runs.RunRecord) -> runs.RunRecord:
    """A model file saved without its vocabulary, over fewer words than ``shown``'s."""
    stranger = LDA(n_topics=3, n_words=shown.model().n_words - 1, seed=0)
    stranger.lambda_ = np.ones((3, stranger.n_words))
    loaded = LoadedModel(model=stranger, vocabulary=None, trainer_state=None)
    return runs.RunRecord("stranger", "stranger.npz (loaded)", runs.RunSettings(n_topics=3), None, loaded=loaded,
                          checkpointed=False)


def test_a_run_whose_words_cannot_be_lined_up_is_refused_in_words(app_path):
    at, _ = _topics_page_with(app_path, _stranger)
    at.selectbox(key=Keys.match_run).select("stranger").run()
    assert not at.exception, at.exception
    [warning] = [w.value for w in at.warning if "cannot be compared" in w.value]
    assert warning.startswith("The topics of **stranger.npz (loaded)** cannot be compared with these: the two runs "
                              "count different words and one of them does not know which (")
    assert not [c for c in _card(at, 0).caption if "found again" in c.value.lower()]
    assert _card(at, 0).caption[0].value.startswith("Coherence")  # the cards are drawn as usual


def test_a_run_of_too_many_topics_to_match_is_refused_in_words(app_path):
    def huge(shown: runs.RunRecord) -> runs.RunRecord:
        model = LDA(n_topics=5_001, n_words=shown.model().n_words, seed=0)
        model.lambda_ = np.ones((5_001, model.n_words))
        loaded = LoadedModel(model=model, vocabulary=shown.vocabulary, trainer_state=None)
        return runs.RunRecord("huge", "huge.npz (loaded)", runs.RunSettings(n_topics=5_001), None, loaded=loaded,
                              checkpointed=False)

    at, _ = _topics_page_with(app_path, huge)
    at.selectbox(key=Keys.match_run).select("huge").run()
    assert not at.exception, at.exception
    assert ("The topics of **huge.npz (loaded)** are not compared with these: one of the two runs has more than "
            "5,000 topics, too many to pair up here.") in [w.value for w in at.warning]
    assert not [c for c in _card(at, 0).caption if "found again" in c.value.lower()]


def test_combining_runs_makes_a_run_of_the_topics_most_of_them_find(app_path):
    at, record = _topics_page_with(app_path)
    assert ("No other run of these documents has finished yet. Train this one again with another seed (above), "
            "twice or more, and combine the runs here: the topics most of them find do not depend on a random "
            "start.") in [c.value for c in at.caption]
    again = [_permuted_record(record, [2, 0, 1], "again", "#2 again"), _permuted_record(record, [1, 2], "short", "#3")]
    for made in again:
        at.session_state[Keys.runs].add(made)
    at.session_state[Keys.current_run] = record.run_id
    at.run()
    chooser = at.multiselect(key=Keys.combine(f"runs.{record.run_id}", 3))
    assert chooser.value == [record.run_id]  # the other two have other settings (K): chosen by hand
    chooser.set_value([record.run_id, "again", "short"]).run()
    assert not at.exception, at.exception
    at.selectbox(key=Keys.match_run).select("again").run()  # a comparison shown before combining
    assert at.number_input(key=Keys.combine("min", 3)).value == 2  # more than half of 3
    at.button(key=Keys.combine_make).click().run()
    assert not at.exception, at.exception
    made = at.session_state[Keys.runs].get(at.session_state[Keys.current_run])
    assert made.run_id != record.run_id and made.status == "combined"
    assert made.name == "Topics shared by 3 runs (#1, #2, #3)"
    assert made.combined_from == ["#1 quality test", "#2 again", "#3"]
    # topics 1 and 2 are in all three runs, topic 0 in two; topic 3 (a small shuffled copy) in one only
    assert made.found_in == [3, 3, 2] and made.model().n_topics == 3
    [notice] = [s.value for s in at.success]
    assert notice.startswith("Made “Topics shared by 3 runs (\\#1, \\#2, \\#3)”: 3 topics found in at least 2 of the "
                             "3 runs (2 in all of them); the topics fewer runs found are left out.")
    assert "Mean coherence (NPMI): " in notice and notice.endswith("The runs are unchanged. It is kept with this "
                                                                   "workspace's checkpoints (Export page).")
    lines = [[c.value for c in _card(at, topic).caption if c.value.startswith("Found in")] for topic in range(3)]
    assert lines == [["Found in all 3 runs combined."], ["Found in all 3 runs combined."],
                     ["Found in 2 of the 3 runs combined."]]
    assert at.selectbox(key=Keys.match_run).value is None  # the cards first say where each topic was found
    assert not [e for e in at.expander if e.label.startswith("Combine runs")]  # not offered on the combined run
    assert not [b for b in at.button if b.key == Keys.train_again]  # nor training again: it has no training
    at.selectbox(key=Keys.match_run).select("again").run()  # compared with a run: both lines on each card
    assert not at.exception, at.exception
    captions = [c.value for c in _card(at, 2).caption]
    assert "Found in 2 of the 3 runs combined." in captions
    assert [c for c in captions if c.startswith("Found again in the other run as")]
    assert record.status == "loaded" and record.model().n_topics == 4  # the runs are unchanged


def test_a_run_with_another_seed_that_finishes_joins_the_runs_chosen_to_combine(app_path):
    def with_seed(seed: int):
        def make(shown: runs.RunRecord) -> runs.RunRecord:
            made = _permuted_record(shown, [3, 2, 1, 0], f"seed{seed}", f"#{seed + 1} again")
            made.settings = dataclasses.replace(shown.settings, seed=seed)  # "Train again with another seed"
            return made
        return make

    at, record = _topics_page_with(app_path, with_seed(1))
    assert at.multiselect(key=Keys.combine(f"runs.{record.run_id}", 2)).value == [record.run_id, "seed1"]
    assert at.number_input(key=Keys.combine("min", 2)).value == 2
    at.session_state[Keys.runs].add(with_seed(2)(record))  # another one has finished
    at.session_state[Keys.current_run] = record.run_id
    at.run()
    assert not at.exception, at.exception
    assert at.multiselect(key=Keys.combine(f"runs.{record.run_id}", 3)).value == [record.run_id, "seed1", "seed2"]
    assert at.number_input(key=Keys.combine("min", 3)).value == 2


def test_a_combined_run_of_hdps_shows_the_prior_it_took_from_its_runs(app_path):
    def combined(shown: runs.RunRecord) -> runs.RunRecord:
        model = LDA(n_topics=3, n_words=shown.model().n_words, alpha=[0.3, 0.2, 0.1], eta=0.01, seed=0)
        model.lambda_ = shown.model().lambda_[:3].copy()
        extra = {"explorer": {"combined_from": ["#1 HDP", "#2 HDP"], "found_in": [2, 2, 2]}}
        loaded = LoadedModel(model=model, vocabulary=shown.vocabulary, trainer_state=None, extra=extra)
        made = runs.load_record(loaded, "Topics shared by 2 runs (#1, #2)", shown.collection)
        made.run_id = "combined"
        return made

    at, _ = _topics_page_with(app_path, combined)
    at.session_state[Keys.current_run] = "combined"
    at.run()
    assert not at.exception, at.exception
    assert "**α of each topic, from the runs combined**" in [m.value for m in at.markdown]
    [chart] = _alpha_charts(at)
    assert sorted(chart["alpha"].round(3).tolist()) == [0.1, 0.2, 0.3]
    assert "Found in all 2 runs combined." in [c.value for c in _card(at, 1).caption]


def test_a_topic_made_of_one_long_documents_words_is_flagged_with_its_title(app_path):
    """One document of 4,000 words among 60 short ones gives its own words a topic: the card and a note name it."""
    rng = np.random.default_rng(0)
    short = engine.make_synthetic_corpus(n_docs=60, n_topics=2, seed=1).texts()
    words = ["axle", "bolt", "gasket", "hinge", "rivet", "sprocket", "valve", "washer"]
    long_text = " ".join(rng.choice(words, size=4000))
    title = "Huge *list* of parts"  # Markdown in a title stays text
    corpus = engine.Corpus.from_texts([*short, long_text], titles=[*(f"note {d}" for d in range(60)), title],
                                      stop_words=None)
    collection = storage.Collection.of(corpus, "one long document")
    counts, vocabulary = corpus.counts, corpus.vocabulary
    long_words = np.isin(vocabulary, words)
    model = LDA(n_topics=3, n_words=corpus.n_words, seed=0)
    short_rows = np.asarray(counts[:60].sum(axis=0)).ravel().astype(float)
    model.lambda_ = model.eta + np.vstack([np.asarray(counts[60].todense()).ravel() * long_words,
                                           short_rows * (np.arange(corpus.n_words) % 2 == 0) * ~long_words,
                                           short_rows * (np.arange(corpus.n_words) % 2 == 1) * ~long_words])
    settings = runs.RunSettings(n_topics=3, n_test=6, seed=0)
    loaded = LoadedModel(model=model, vocabulary=vocabulary, trainer_state=None)
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    assert not at.exception
    at.session_state[Keys.runs].add(runs.RunRecord("long-doc", "#1 long document", settings, collection,
                                                   loaded=loaded, checkpointed=False))
    at.switch_page("views/topics.py")
    at.run()
    assert not at.exception, at.exception

    main, share = engine.main_documents(model.transform(counts), np.asarray(counts.sum(axis=1)).ravel())
    assert main[0] == 60 and share[0] > 0.99 and share[1:].max() < 0.5  # what the page should find
    escaped = "“Huge \\*list\\* of parts”"
    [flag] = [w.value for w in _card(at, 0).warning if w.value.startswith("Mostly from one document")]
    assert flag == (f"Mostly from one document: {formatting.percent(float(share[0]), 2)} of its words come from "
                    f"{escaped}, so it describes that document more than a theme the documents share.")
    assert not [w for k in (1, 2) for w in _card(at, k).warning if w.value.startswith("Mostly from one document")]
    [note] = [i.value for i in at.info if "from one document" in i.value]
    assert note.startswith(f"1 of the 3 topics takes its words mostly from one document ({escaped})")
    # its documents are not the collection new runs train on (the sample is): nothing to leave them out of
    assert not [b for b in at.button if b.key == Keys.leave_flagged_out]


def test_the_documents_one_document_topics_come_from_are_left_out_of_new_runs_in_one_click(app_path):
    """An uploaded collection in use, a stopped run whose first topic is one long file's words: the button under the
    note opens the Data page with that file left out, and the collection in use no longer holds it."""
    from tests.explorer.test_app import _upload
    from tests.explorer.uploads_data import zip_upload

    rng = np.random.default_rng(0)
    words = ["axle", "bolt", "gasket", "hinge", "rivet", "sprocket", "valve", "washer"]
    short = list(engine.make_synthetic_corpus(n_docs=60, n_topics=2, seed=1).texts())
    short[0] += " " + " ".join(words)  # the long file's words in two other files too, so min_df keeps them
    short[1] += " " + " ".join(words)
    files = {f"notes/n{d:02d}.txt": text.encode() for d, text in enumerate(short)}
    files["notes/parts.txt"] = " ".join(rng.choice(words, size=4000)).encode()
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    _upload(at, zip_upload("notes.zip", files))
    assert not at.exception, at.exception
    collection = at.session_state[Keys.collection]
    corpus = collection.corpus
    long_row = corpus.titles.index("parts")
    counts, vocabulary = corpus.counts, corpus.vocabulary
    long_words = np.isin(vocabulary, words)
    rest = np.asarray(counts.sum(axis=0)).ravel().astype(float) - np.asarray(counts[long_row].todense()).ravel()
    model = LDA(n_topics=3, n_words=corpus.n_words, seed=0)
    model.lambda_ = model.eta + np.vstack([np.asarray(counts[long_row].todense()).ravel() * long_words,
                                           rest * (np.arange(corpus.n_words) % 2 == 0) * ~long_words,
                                           rest * (np.arange(corpus.n_words) % 2 == 1) * ~long_words])
    loaded = LoadedModel(model=model, vocabulary=vocabulary, trainer_state=None)
    at.session_state[Keys.runs].add(runs.RunRecord("parts", "#1 parts", runs.RunSettings(n_topics=3, n_test=6, seed=0),
                                                   collection, loaded=loaded, checkpointed=False))
    at.switch_page("views/topics.py")
    at.run()
    assert not at.exception, at.exception
    assert any("from one document (“parts”)" in i.value for i in at.info)
    at.button(key=Keys.leave_flagged_out).click().run()
    assert not at.exception, at.exception
    now = at.session_state[Keys.collection].corpus
    assert "parts" not in now.titles and [d.title for d in now.left_out] == ["parts"]
    assert now.n_docs == corpus.n_docs - 1
    assert at.multiselect(key=Keys.left_out).value == [corpus.doc_ids[long_row]]  # the Data page, shown
