"""Topics: one card per topic (relevance-ranked words, word cloud, prevalence, editable label)."""

from __future__ import annotations

import streamlit as st

from explorer import combining, icons, recurrence, safe_text, session, state, topic_cards, training, ui
from explorer.state import Keys

st.title("Topics")
record = ui.require_run("the Topics page")
message = state.notice(page="topics")
if message:
    st.success(message, icon=icons.MERGE)
st.caption(f"Topics of **{safe_text.markdown(record.name)}**. Each card lists a topic's most relevant words; "
           "give the topic a name and the whole app will use it.")
left, middle, right = st.columns([2, 1, 1])
left.slider("Relevance λ", 0.0, 1.0, step=0.05, key=Keys.relevance,
            help="λ = 1 ranks a topic's words by how often the topic uses them; smaller λ favours words that are "
                 "special to the topic (rare elsewhere). About 0.6 often reads best (Sievert & Shirley's LDAvis).")
middle.number_input("Words per topic", 5, 40, step=1, key=Keys.n_words,
                    help="How many words each card lists.")
n_topics = record.settings.n_topics if record.model() is None else record.model().n_topics
default_shown = min(n_topics, 20 if record.settings.model == "LDA" else 30)
right.number_input("Topics to show", 1, n_topics, value=default_shown, step=1, key=Keys.n_shown(record.run_id),
                   help="Cards are ordered by how much of the collection each topic explains.")
clouds_column, match_column = st.columns([1, 2])
show_clouds = clouds_column.toggle("Show word clouds", key=Keys.show_clouds,
                                   help="A word cloud per topic, beside its bar chart (redrawn every few seconds "
                                   "while training).")
others = {r.run_id: r for r in session.runs() if r.run_id != record.run_id and r.model() is not None}
if state.get(Keys.match_run) not in others:
    state.put(Keys.match_run, None)
match_column.selectbox("Find these topics in another run", list(others), key=Keys.match_run, index=None,
                       format_func=lambda run_id: others[run_id].name, placeholder="Choose a run to compare with",
                       help=recurrence.COMPARE_HELP, disabled=not others)
trainable = record.collection is not None and not record.combined_from  # a combined run has no training of its own
if trainable and match_column.button(
        "Train again with another seed", key=Keys.train_again, icon=icons.PLAY,
        help="Starts a run with this run's settings and the next unused seed, and looks for these topics in it as "
             "it trains: the topics found again do not depend on the random start."):
    training.train_again(record, match_column)
elif not others:
    again = "train this one again with another seed, or start any run" if trainable else \
        "start a run"
    match_column.caption(f"No other run yet: {again} on the Train page to see which of these topics come back.")
other = others.get(state.get(Keys.match_run))
combining.combine_panel(record)

topic_cards.topic_panel(record, session.runs().any_active() and record.active, show_clouds, other)
