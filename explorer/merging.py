"""Merging a run's copies of the overall word use into one topic, as a new browse-only run.

An HDP fitted to a small collection of short documents makes many near-identical topics
that repeat the collection's commonest words (benchmarks/RESULTS.md, run 21).  Merged once
after training, they become one general topic and the held-out likelihood moves by at most
0.002 nats/word (runs 22 and 33).  The merge makes a new run from the selected one: the
original, its curve, its checkpoint and its labels stay as they were, and every topic keeps
its number (``model.merge_topics`` empties the merged-away topics instead of removing them).
The new run is saved with the workspace's checkpoints (a model file without trainer state),
so the Export page lists it after a reload, and its model file says which topics were merged
into which, so it reads the same when opened again.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from explorer import icons, made_runs, quality, safe_text, session, ui
from explorer.engine_api import GENERAL_DIVERGENCE, LoadedModel, predictive_log_likelihood
from explorer.runs import RunRecord, load_record, split
from explorer.state import Keys

__all__ = ["MergeResult", "merge_button", "merge_copies"]

SUFFIX = " (copies merged)"


@dataclasses.dataclass(frozen=True)
class MergeResult:
    """The new run, the label of the topic holding the copies, how many merged, held-out LL before and after."""

    record: RunRecord
    kept: str
    kept_topic: int
    merged: int
    before: float | None
    after: float | None

    def message(self) -> str:
        """What the Topics page says after the merge (Markdown, the name escaped)."""
        text = (f"Made “{safe_text.markdown(self.record.name)}”: “{safe_text.markdown(self.kept)}” holds the "
                f"{self.merged} topics that repeated the collection's overall word use; the others that were merged "
                "are now empty and unused. The original run is unchanged.")
        if self.before is not None and self.after is not None:
            text += f" Held-out log likelihood per word: {self.before:.3f} before, {self.after:.3f} after."
        return text


def _existing(source: RunRecord) -> RunRecord | None:
    """A merged run already made from ``source`` in this session (one is enough)."""
    return next((r for r in session.runs() if r.merged_from == source.run_id), None)


def merge_copies(source: RunRecord) -> MergeResult:
    """Merge the topics of ``source`` that repeat the overall word use into one, as a new browse-only run.

    Raises ValueError when the run is training or has fewer than two such topics.  The
    held-out likelihood before and after is measured on the run's own held-out split when
    its documents are here (None otherwise).
    """
    if source.active:
        raise ValueError("this run is still training: stop it or let it finish before merging its topics")
    model = source.model()
    if model is None:
        raise ValueError("this run has no model yet")
    general = [int(k) for k in model.general_topics(GENERAL_DIVERGENCE)]
    if len(general) < 2:
        raise ValueError("this run has no two topics that repeat the collection's overall word use: "
                         "there is nothing to merge")
    merged = model.merge_topics(general)
    merged.kernel = "auto"  # the browse copy may compute with the reference until the kernels are compiled
    shares = merged.word_shares()
    kept = max(general, key=lambda k: shares[k])  # the one of the group merge_topics did not empty
    words = merged.top_words(3, source.vocabulary)[kept] if source.vocabulary is not None else []
    before = after = None
    if source.collection is not None:
        _, observed, heldout = split(source.collection, source.settings)
        before = predictive_log_likelihood(model, observed, heldout)
        after = predictive_log_likelihood(merged, observed, heldout)
    name = source.name + SUFFIX
    extra = source.explorer_extra()
    extra["explorer"] = {**extra["explorer"], "name": name, "merged_from": source.run_id,
                         "merged_into": {str(k): kept for k in general if k != kept}}
    loaded = LoadedModel(model=merged, vocabulary=source.vocabulary, trainer_state=None, extra=extra,
                         labels=dict(source.labels))
    record = load_record(loaded, name, source.collection)  # its merged_from and merged_into from extra
    return MergeResult(record, record.label(kept, words), kept, len(general), before, after)


def merge_button(record: RunRecord, measured: quality.TopicQuality | None) -> None:
    """Under the Topics page's note on general topics: merge them into one, as a new run."""
    copies = quality.mergeable(measured)
    if not copies or record.active or record.merged_from:
        return
    made = _existing(record)
    if made is not None:
        st.caption(f"“{safe_text.markdown(made.name)}” has them merged: choose it in the sidebar.")
        return
    if st.button(f"Merge the {copies} copies into one topic", key=Keys.merge_copies,
                 icon=icons.MERGE,
                 help="Makes a new run in which these topics are one general topic, so the cards show the themes "
                      "the model found. Every topic keeps its number and label; this run stays as it is."):
        try:
            with st.spinner("Merging and measuring the held-out likelihood…"):
                result = merge_copies(record)
        except ValueError as exc:
            ui.show_error(exc)
            return
        made_runs.add_made_run(result.record, result.message(),
                               {Keys.intertopic_topic: result.kept_topic})  # not an emptied topic
