"""The Topics page's live part: HDP sticks, LDA's alpha, the intertopic map and one card per topic (a fragment)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from explorer import (
    cached,
    charts,
    clouds,
    formatting,
    icons,
    intertopic,
    model_extra,
    quality,
    recurrence,
    safe_text,
    session,
    state,
    tables,
    ui,
)
from explorer.engine_api import LimitExceededError, VocabularyMismatchError, topic_order
from explorer.merging import merge_button
from explorer.runs import RunRecord
from explorer.state import Keys

__all__ = ["topic_labels", "topic_panel"]

CLOUD_SECONDS = 5.0  # while training, a topic's cloud is redrawn at most this often
CLOUD_WORDS = 25


def vocabulary_of(record: RunRecord, n_words: int) -> tuple[str, ...]:
    return record.vocabulary or tuple(f"word {i}" for i in range(n_words))


def topic_labels(record: RunRecord, model) -> list[str]:
    """The label of every topic (the user's, or "Topic k: three top words")."""
    vocabulary = vocabulary_of(record, model.n_words)
    top = tables.topic_words_frame(model, vocabulary, 1.0, 3)
    return [record.label(k, list(frame["word"])) for k, frame in enumerate(top)]


def _save_label(record: RunRecord, topic: int) -> None:
    record.labels[topic] = str(state.get(Keys.topic_label(record.run_id, topic))).strip()
    record.save_record()


def _cloud(record: RunRecord, topic: int, words: pd.DataFrame, training: bool) -> clouds.CloudPicture:
    memory = state.cloud_memory()
    remembered = memory.get((record.run_id, topic))
    if remembered is not None and training and time.monotonic() - remembered[0] < CLOUD_SECONDS:
        return remembered[1]
    weights = tuple((w, float(f"{p:.2g}")) for w, p in zip(words["word"], words["probability"], strict=True))
    picture = cached.word_cloud(weights, charts.topic_color(topic))
    memory[(record.run_id, topic)] = (time.monotonic(), picture)
    return picture


def _quality_lines(measured: quality.TopicQuality | None, topic: int, titles: list[str] | None) -> None:
    """The card's coherence and, for a doubtful topic, why to doubt it."""
    if measured is None:
        return
    if measured.coherence is None:
        st.caption("Coherence: – (this model was loaded without its training documents).",
                   help=quality.COHERENCE_HELP)
    else:
        st.caption(f"Coherence: **{quality.coherence_text(measured.coherence[topic])}** "
                   f"(NPMI of its {quality.N_TOP} top words)", help=quality.COHERENCE_HELP)
    for flag in quality.flags(measured, topic, titles):
        st.warning(flag, icon=icons.WARNING)


def _card(record: RunRecord, topic: int, label: str, weight: float, words: pd.DataFrame, show_cloud: bool,
          training: bool, measured: quality.TopicQuality | None, found: list[tuple[str, str]],
          titles: list[str] | None = None) -> None:
    with st.container(border=True, key=Keys.topic_card(topic)):
        color = charts.topic_color(topic)
        # the label may come from a model file: escaped for HTML and for the Markdown around it
        st.markdown(f"<span style='color:{color};font-size:1.3em'>■</span> **{safe_text.html(label)}** — "
                    f"{formatting.percent(weight)} of the words", unsafe_allow_html=True)
        _quality_lines(measured, topic, titles)
        for line, line_help in found:  # in how many runs combined it was found; its partner in another run
            st.caption(line, help=line_help)
        st.text_input("Label", value=record.labels.get(topic, ""), key=Keys.topic_label(record.run_id, topic),
                      placeholder=label, on_change=_save_label, args=(record, topic), label_visibility="collapsed",
                      max_chars=model_extra.MAX_LABEL_CHARS,  # what a model file's labels may hold
                      help="Name this topic; the name is used on every page and in the downloads.")
        n_words = int(state.get(Keys.n_words, 10))
        st.altair_chart(charts.topic_words_chart(words.head(n_words), color), width="stretch",
                        key=Keys.topic_chart(topic))
        if show_cloud:
            try:
                picture = _cloud(record, topic, words.head(CLOUD_WORDS), training)
            except clouds.MissingGlyphsError as error:
                st.caption(f"No word cloud: {error}. The bars above list the words.")
            else:
                st.image(picture.png, width="stretch")
                if picture.left_out:
                    st.caption(f"Not in the cloud: {', '.join(picture.left_out)} (no font on this server draws "
                               "their letters together with the others').")


def _alpha(model, labels: list[str], order: list[int], combined: bool = False) -> None:
    """LDA's alpha: a bar per topic when it was learned or combined from runs (one value each), else one line."""
    if np.ndim(model.alpha) == 0:
        st.caption(f"α = {formatting.number(float(model.alpha))} for every topic: before reading a document, "
                   "the model expects every topic in it equally.")
        return
    if combined:
        st.markdown("**α of each topic, from the runs combined**",
                    help="α is how much of a document the model expects a topic to take before reading it. Each "
                         "topic keeps the mean of its versions' α in the runs (for an HDP, its concentration times "
                         "the topic's corpus weight), so the combined run reads documents as they did.")
    else:
        st.markdown("**Learned α of each topic**",
                    help="α is how much of a document the model expects a topic to take before reading it; this run "
                         "learned one value per topic from the documents (larger: the topic is common everywhere).")
    st.altair_chart(charts.alpha_chart(tables.alpha_frame(model.alpha, labels, order)), width="stretch",
                    key=Keys.alpha_chart)


def topic_panel(record: RunRecord, training: bool, show_clouds: bool, other: RunRecord | None = None) -> None:
    """The page's live part; ``other``: a run whose topics each card looks for (None: no comparison).

    It redraws every second while either run trains, and once more, in full, when they have stopped.
    """
    comparing = other is not None and other.active

    @st.fragment(run_every=1.0 if training or comparing else None)
    def panel() -> None:
        with ui.guard():
            _panel(record, training, show_clouds, other)
        if (training and not record.active) or (comparing and not other.active):
            st.rerun()
    panel()


def _comparison(record: RunRecord, other: RunRecord | None,
                measured: quality.TopicQuality | None) -> Callable[[int], list[tuple[str, str]]]:
    """Says how many topics ``other`` finds again, and gives each card's lines, each with its help.

    A combined run's cards say in how many of its runs their topics were found; with a run to
    compare with, each card also names its partner there.
    """
    def combined(topic: int) -> list[tuple[str, str]]:
        if not record.combined_from or len(record.found_in) != record.settings.n_topics:
            return []
        return [(recurrence.combined_line(record.found_in[topic], len(record.combined_from)),
                 recurrence.COMBINED_HELP)]

    other_model = None if other is None else other.model()
    if other_model is None:
        return combined
    try:
        found = cached.topic_match(record, other)
    except VocabularyMismatchError as error:  # one of them was loaded without its words, and they differ in number
        st.warning(recurrence.unmatched_note(other.name, error), icon=icons.WARNING)
        return combined
    except LimitExceededError:  # a model file of thousands of topics
        st.warning(recurrence.too_many_note(other.name), icon=icons.WARNING)
        return combined
    hdp = record.settings.model == "HDP"
    topics = np.flatnonzero(measured.live) if hdp and measured is not None else np.arange(found.n_topics)
    st.info(recurrence.summary_line(found, topics, other.name, hdp and measured is not None), icon=icons.COMPARE)
    labels = topic_labels(other, other_model)
    return lambda topic: [*combined(topic), (recurrence.card_line(found, topic, labels), recurrence.COMPARE_HELP)]


def _hdp_weights(model, measured: quality.TopicQuality | None, labels: dict, order, weights) -> None:
    """The HDP's topics in use (those explaining at least 1 % of the words) and its corpus weights, as bars."""
    left, right = st.columns([1, 3])
    if measured is not None:
        left.metric("Topics in use", f"{measured.n_live} of {model.n_topics}", help=quality.IN_USE_HELP)
        if measured.n_live < model.n_topics:
            left.caption(f"The other {formatting.count(model.n_topics - measured.n_live)} hold "
                         f"{formatting.percent(measured.spare_share)} of the words.")
        general = quality.general_among_live(measured)
        if general:
            verb = "repeats" if general == 1 else "repeat"
            left.caption(f"{general} of the topics in use {verb} the collection's overall word use.")
    right.markdown("**Corpus weight of each topic** (the HDP's stick-breaking weights)")
    in_use = measured.live if measured is not None else np.zeros(model.n_topics, dtype=bool)
    sticks = pd.DataFrame({"rank": range(1, len(order) + 1), "label": [labels[k] for k in order],
                           "weight": [float(weights[k]) for k in order],
                           "in_use": [bool(in_use[k]) for k in order]})
    right.altair_chart(charts.stick_weights_chart(sticks), width="stretch", key=Keys.sticks_chart)


def _leave_out_button(documents, sources: quality.MainDocuments, measured: quality.TopicQuality) -> None:
    """Under the note on one-document topics: leave those documents out of new runs, on the Data page.

    Only when the run's documents are the collection new runs train on: the Data page leaves documents out of that.
    """
    current = state.collection()
    if current is None or current.key != documents.key:
        return
    ids = [sources.ids[d] for d in measured.one_document_sources if 0 <= d < len(sources.ids)]
    if not ids:
        return
    one = len(ids) == 1
    if st.button("Leave this document out of new runs" if one else f"Leave these {len(ids)} documents out of new runs",
                 key=Keys.leave_flagged_out, icon=icons.DATA,
                 help="Opens the Data page with the document left out (“Leave out documents”), ready for a new run. "
                      "This run keeps its documents."):
        chosen = list(state.get(Keys.left_out) or [])
        state.put(Keys.left_out, [*chosen, *(doc_id for doc_id in ids if doc_id not in chosen)])
        st.switch_page("views/data.py")


def _panel(record: RunRecord, training: bool, show_clouds: bool, other: RunRecord | None) -> None:
    model = record.model()
    if model is None:
        st.info("This run has no model yet.")
        return
    vocabulary = vocabulary_of(record, model.n_words)
    weights = model.topic_weights()  # the HDP's corpus sticks (atoms); LDA's share of the words
    shares = model.word_shares()  # each topic's share of the words, what the cards say
    # LDA keeps its topics' order (cards stay put while training); the HDP is shown heaviest first
    order = topic_order(model) if record.settings.model == "HDP" else list(range(model.n_topics))
    labels = topic_labels(record, model)
    n_words = int(state.get(Keys.n_words, 10))
    relevance = float(state.get(Keys.relevance, 0.6))
    frames = tables.topic_words_frame(model, vocabulary, relevance, max(n_words, CLOUD_WORDS))
    if training:
        st.caption(f"Training… the cards follow the model (step {formatting.count(record.model_step)}).")
    measured = cached.run_quality(record)
    titles, documents, sources = None, session.collection_for(record), None
    if measured is not None and not training and documents is not None:
        # which document gives each topic the most words: every document's topics, once per step (the
        # Documents page's), so not while the run trains
        sources = cached.main_documents(record.run_id, record.model_step, documents.key, model, documents.corpus)
        measured, titles = quality.with_main_documents(measured, sources), sources.titles
    if record.settings.model == "HDP":
        _hdp_weights(model, measured, labels, order, weights)
    else:
        _alpha(model, labels, order, combined=bool(record.combined_from))
    note = quality.general_note(measured)
    if note:
        st.info(note, icon=icons.INFO)
        merge_button(record, measured)
    repeated = quality.duplicate_note(measured)
    if repeated:
        st.info(repeated, icon=icons.INFO)
    one_document = quality.one_document_note(measured, titles)
    if one_document:
        st.info(one_document, icon=icons.INFO)
        _leave_out_button(documents, sources, measured)
    intertopic.intertopic_map(cached.intertopic_points(record, model, labels), labels, frames, n_words)
    found = _comparison(record, other, measured)
    shown = int(state.get(Keys.n_shown(record.run_id), 20))
    columns = st.columns(2)
    for position, topic in enumerate(order[:shown]):
        with columns[position % 2]:
            _card(record, int(topic), labels[topic], float(shares[topic]), frames[topic], show_clouds, training,
                  measured, found(int(topic)), titles)
