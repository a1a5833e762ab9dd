"""The Topics page's intertopic map (LDAvis' view, drawn with Altair): topics placed by similarity, one word list.

Clicking a circle, or choosing in the select box, shows that topic's words ranked by the
page's relevance slider (λ).  The positions come from the engine
(:func:`engine.intertopic_coordinates`); this module only lays out the widgets.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from explorer import charts, state
from explorer.state import Keys

__all__ = ["intertopic_map"]

MAP_HELP = ("Each circle is a topic, its area the topic's share of the words. Topics that use similar words lie "
            "close together: the distances are the Jensen-Shannon divergences between the topics' word "
            "distributions, projected onto a plane by classical multidimensional scaling, as in LDAvis "
            "(Sievert & Shirley 2014). The axes themselves have no meaning.")


def _picked() -> None:
    """The map's click callback: list the clicked topic's words (the select box follows the map)."""
    event = state.get(Keys.intertopic_chart) or {}
    chosen = (event.get("selection") or {}).get("topic") or []
    if chosen and "topic" in chosen[0]:
        state.put(Keys.intertopic_topic, int(chosen[0]["topic"]))


def intertopic_map(points: pd.DataFrame, labels: Sequence[str], frames: Sequence[pd.DataFrame], n_words: int) -> None:
    """Draw the map's ``points`` (:func:`explorer.tables.intertopic_frame`) beside the word list of the chosen topic.

    ``frames`` holds every topic's words in relevance order (:func:`explorer.tables.topic_words_frame`).
    """
    options = [int(k) for k in points["topic"]]  # largest first
    if state.get(Keys.intertopic_topic) not in options:  # first visit, or another run with other topics
        state.put(Keys.intertopic_topic, options[0])
    selected = int(state.get(Keys.intertopic_topic))
    st.markdown("**Intertopic map**", help=MAP_HELP)
    left, right = st.columns([3, 2])
    with left:
        st.altair_chart(charts.intertopic_chart(points, selected), width="stretch", key=Keys.intertopic_chart,
                        on_select=_picked, selection_mode="topic")
    with right:
        st.selectbox("Words of topic", options, format_func=lambda k: labels[k], key=Keys.intertopic_topic,
                     help="Click a circle on the map, or choose here; the words are ranked by the relevance λ "
                          "above (λ = 1: the topic's most frequent words; smaller λ: words special to it).")
        st.altair_chart(charts.topic_words_chart(frames[selected].head(n_words), charts.topic_color(selected)),
                        width="stretch", key=Keys.intertopic_words)
