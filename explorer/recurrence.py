"""Which topics come back in another run, said in plain words (the Topics page's comparison).

No Streamlit here.  The pairs come from the engine (``engine.match_topics``: each topic paired
one to one with a topic of the other run, and found again when the two are each other's
nearest); this module names the runs and the topics and says what a pair means.
``explorer/cached.py`` makes the match, once per version of the two runs' topics.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer import formatting, safe_text
from explorer.engine_api import MAX_MATCHED_TOPICS, TopicMatch

__all__ = ["COMBINED_HELP", "COMPARE_HELP", "TopicMatch", "card_line", "combined_line", "summary_line", "too_many_note",
           "unmatched_note"]

COMPARE_HELP = ("Pairs each topic of this run with one topic of the other run, so that the pairs are as close as "
                "they can be overall (by their word probabilities). A topic is found again when it and its partner "
                "are each other's closest topic. A topic found again in a run with another seed or other settings "
                "is one you can trust; one that is not may owe its words to this run's random start, or the other "
                "run may split or join it differently.")

COMBINED_HELP = ("This run holds the topics that most of the runs it combined found: each topic found again across "
                 "them (each the other's closest topic), its words the average of the runs' versions. A topic found "
                 "in every run does not depend on a run's random start.")


def card_line(found: TopicMatch, topic: int, other_labels: Sequence[str]) -> str:
    """One topic's line (Markdown, labels escaped): found again in the other run as which topic, or not.

    The run is named once, by :func:`summary_line`; a card says "the other run".
    """
    partner = int(found.partner[topic])
    if partner < 0:
        return "Not found again in the other run: it has fewer topics, each paired with a closer one."
    name = f"*{safe_text.markdown(other_labels[partner])}*"
    shared = f"{found.shared_words[topic]} of its {found.n_top} top words shared"
    if found.recurring[topic]:
        return f"Found again in the other run as {name} ({shared})."
    return (f"Not clearly found again in the other run: paired with {name} ({shared}), but the two are not each "
            "other's closest topic.")


def combined_line(found_in: int, n_runs: int) -> str:
    """A combined run's topic: in how many of the runs it combined the topic was found."""
    if found_in == n_runs:
        return f"Found in all {formatting.count(n_runs)} runs combined."
    return f"Found in {formatting.count(found_in)} of the {formatting.count(n_runs)} runs combined."


def summary_line(found: TopicMatch, topics: np.ndarray, other_name: str, hdp: bool) -> str:
    """How many of the shown run's topics (an HDP's topics in use) are found again in the other run."""
    run = f"**{safe_text.markdown(other_name)}**"
    n_found, total = found.n_recurring(topics), len(topics)
    which = f"{formatting.count(total)} topics in use" if hdp else f"{formatting.count(total)} topics"
    if total == 0:
        return f"This run has no topics in use to look for in {run}."
    return (f"{formatting.count(n_found)} of the {which} are found again in {run}, the other run. Each card below "
            "names its partner there.")


def unmatched_note(other_name: str, error: Exception) -> str:
    """Why two runs' topics cannot be compared (their words cannot be lined up), and what would allow it."""
    return (f"The topics of **{safe_text.markdown(other_name)}** cannot be compared with these: the two runs count "
            f"different words and one of them does not know which ({error}). Runs on the same collection, or "
            "model files saved with their vocabulary, can be compared.")


def too_many_note(other_name: str) -> str:
    """Why two runs' topics are not compared when one has thousands of them."""
    return (f"The topics of **{safe_text.markdown(other_name)}** are not compared with these: one of the two runs has "
            f"more than {formatting.count(MAX_MATCHED_TOPICS)} topics, too many to pair up here.")
