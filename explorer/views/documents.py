"""Documents: search, a document's topic proportions and its words coloured by topic, a topic's documents,
the topics of a pasted new document, and the topics' shares over time when the collection has a year or
date column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from explorer import cached, charts, formatting, highlight, icons, safe_text, session, state, timeline, topic_cards, ui
from explorer.engine_api import most_likely_topics, text_segments, top_documents
from explorer.state import Keys

NEW_DOCUMENT_CHARS = 200_000  # a long article; the box is for one document, not a collection

st.title("Documents")
record = ui.require_run("the Documents page")
collection = session.collection_for(record)
if collection is None:
    st.info(f"The documents **{safe_text.markdown(record.name)}** was trained on are not available here. Load the "
            "same collection on the Data page (same files and preprocessing) to browse its documents.", icon=icons.DATA)
    st.stop()
model = record.model()
corpus = collection.corpus
theta = cached.doc_topic(record.run_id, record.model_step, collection.key, model, corpus.counts)
labels = topic_cards.topic_labels(record, model)
if record.active:
    left, right = st.columns([4, 1])
    left.caption(f"Training goes on: these proportions are from step {formatting.count(record.model_step)}.")
    if right.button("Refresh", key=Keys.docs_refresh, icon=icons.RESET, help="Use the model as it is now."):
        st.rerun()



def share_frame(proportions: np.ndarray) -> pd.DataFrame:
    """The topics of one document worth drawing (1 % or more), with their labels and colours."""
    share = pd.DataFrame({"topic": range(model.n_topics), "label": labels, "proportion": proportions,
                          "color": [charts.topic_color(k) for k in range(model.n_topics)]})
    return share[share["proportion"] >= 0.01]


def coloured(text: str, word_topic: dict[int, int], proportions: np.ndarray) -> None:
    """The legend of the topics in ``word_topic`` and ``text`` with its words coloured by topic."""
    used = sorted(set(word_topic.values()), key=lambda k: -proportions[k])
    st.html(highlight.legend(used, charts.topic_color, lambda k: labels[k]))
    st.html(highlight.coloured_text(text_segments(text, corpus.vocabulary, corpus.vectorizer), word_topic,
                                    charts.topic_color, lambda k: labels[k]))


time_columns = cached.time_columns(collection)
tab_names = ["A document", "Documents of a topic", "New document"] + (["Topics over time"] if time_columns else [])
tab_document, tab_topic, tab_new, *tab_time = st.tabs(tab_names)
with tab_document:
    query = st.text_input("Search titles and text", key=Keys.search, placeholder="e.g. energy",
                          help="Shows the documents whose title or text contains these letters (any case).")
    needle = query.strip().lower()
    titles, texts = corpus.titles, corpus.texts
    searched = cached.searchable_texts(collection) if needle else None  # a web page's text, not its tags
    matches = [i for i in range(corpus.n_docs)
               if not needle or needle in titles[i].lower() or (searched is not None and needle in searched[i])]
    if not matches:
        st.warning(f"No document contains “{safe_text.markdown(query)}”.", icon=icons.SEARCH)
    else:
        more = " (first 1,000 listed)" if len(matches) > 1000 else ""
        st.caption(f"{formatting.plural(len(matches), 'document')} found{more}")
        options = matches[:1000]
        if state.get(Keys.document) not in options:
            state.put(Keys.document, options[0])
        row = st.selectbox("Document", options, key=Keys.document, format_func=lambda i: titles[i],
                           help="Pick a document to see its topics and its words coloured by topic.")
        left, right = st.columns([2, 3], gap="large")
        left.altair_chart(charts.doc_topics_chart(share_frame(theta[row])), width="stretch", key=Keys.doc_topics_chart)
        word_topic = cached.word_topic_of_document(record.run_id, record.model_step, row, model, corpus.counts,
                                                   theta[row])
        with right:
            st.markdown("**Each word coloured by its most likely topic**")
            if texts is not None:
                coloured(texts[row], word_topic, theta[row])
                if corpus.vectorizer is not None and corpus.vectorizer.strip_messages:
                    st.caption("E-mail headers, quoted replies and signatures are not shown: the words were read "
                               "without them. To keep them, untick “Leave out e-mail headers and quotes” on the "
                               "Data page and train a new run.")
                if corpus.vectorizer is not None and corpus.vectorizer.boilerplate:
                    st.caption("Repeated lines left out as boilerplate are not shown. To keep them, untick “Leave "
                               "out repeated boilerplate lines” on the Data page and train a new run.")
            else:
                used = sorted(set(word_topic.values()), key=lambda k: -theta[row][k])
                st.html(highlight.legend(used, charts.topic_color, lambda k: labels[k]))
                words = [(corpus.vocabulary.index(w), w, c) for w, c in corpus.doc_words(row)]
                st.caption("This collection has word counts only (no original text): its words, most frequent first.")
                st.html(highlight.coloured_words(words, word_topic, charts.topic_color, lambda k: labels[k]))

with tab_topic:
    if state.get(Keys.topic) not in range(model.n_topics):  # first visit, or a run with fewer topics
        state.put(Keys.topic, 0)
    topic = st.selectbox("Topic", range(model.n_topics), key=Keys.topic, format_func=lambda k: labels[k],
                         help="The documents in which this topic takes the largest share.")
    rows, shares = top_documents(theta, topic, 20)
    readable = corpus.vectorizer.readable if corpus.vectorizer is not None else str  # a web page's text, not its tags
    table = pd.DataFrame({
        "Document": [corpus.titles[i] for i in rows],
        "Share of the topic": [float(s) for s in shares],
        "Beginning": [(" ".join(readable(corpus.texts[i]).split())[:160] + "…") if corpus.texts else "" for i in rows],
    })
    st.dataframe(table, hide_index=True, width="stretch", column_config={
        "Share of the topic": st.column_config.ProgressColumn(format="percent", min_value=0.0, max_value=1.0)})

with tab_new:
    pasted = st.text_area("New document", key=Keys.new_document, height=150, max_chars=NEW_DOCUMENT_CHARS,
                          placeholder="Paste the text of a document the model has not seen…",
                          help="Its words are counted as the collection's were (same stop words, accents and "
                               "vocabulary); words the model never saw are left out. Press Ctrl+Enter to apply.")
    counted = model.count_texts([pasted], vocabulary=corpus.vocabulary, vectorizer=corpus.vectorizer)
    known, unknown = int(counted.known[0]), int(counted.unknown[0])
    if not pasted.strip():
        st.info("Paste a text above to see its topics, coloured like the collection's documents.", icon=icons.SEARCH)
    elif known == 0:
        st.warning("None of the words of this text is in the model's vocabulary, so it has no topics to show. "
                   "Try a longer text on the subjects of the collection.", icon=icons.WARNING)
    else:
        proportions = model.transform(counted.counts)[0]
        word_topic = dict(zip(counted.counts.indices.tolist(),
                              most_likely_topics(model, counted.counts, doc_topic=proportions[None, :]).tolist(),
                              strict=True))
        left, right = st.columns([2, 3], gap="large")
        left.altair_chart(charts.doc_topics_chart(share_frame(proportions)), width="stretch",
                          key=Keys.new_document_chart)
        left.caption(f"{formatting.plural(known, 'word')} of the model's vocabulary counted"
                     + (f"; {formatting.plural(unknown, 'other word')} left out." if unknown else "."))
        with right:
            st.markdown("**Each word coloured by its most likely topic**")
            coloured(pasted, word_topic, proportions)

for tab in tab_time:
    with tab:
        left, right = st.columns([1, 1])
        if not 1 <= (state.get(Keys.time_top_n) or 0) <= model.n_topics:  # first visit, or a run with fewer topics
            state.put(Keys.time_top_n, min(model.n_topics, 8))
        if state.get(Keys.time_column) not in time_columns:
            state.put(Keys.time_column, time_columns[0])
        column = left.selectbox("Time column", time_columns, key=Keys.time_column,
                                help="The collection's column of years or dates.")
        top_n = right.number_input("Topics to show", 1, model.n_topics, step=1,
                                   key=Keys.time_top_n, help="The topics with the largest share of all the words.")
        when = timeline.periods(collection.column(column))
        lengths = np.asarray(corpus.counts.sum(axis=1)).ravel()
        shown = timeline.top_topics(theta, lengths, int(top_n))
        shares = timeline.topic_shares(theta, lengths, when, timeline.unique_labels(labels))
        shares = shares[shares["topic"].isin(shown)].assign(color=lambda f: f["topic"].map(charts.topic_color))
        st.altair_chart(charts.topic_shares_chart(shares), width="stretch", key=Keys.time_chart)
        st.caption(f"{timeline.SHARE_CAPTION} Documents without a value in “{safe_text.markdown(column)}” "
                   "are left out.")
