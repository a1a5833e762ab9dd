"""Topic quality for people: each topic's coherence, which topics are live, and warnings in words.

No Streamlit here.  The numbers and the lines that deserve a warning come from the engine
(``engine.topic_quality``: the shares, live topics, NPMI coherence, topics that repeat the
collection's overall word use, tied copies); this module says what they mean in plain words
and when a note is worth showing.  ``explorer/cached.py``
keeps the reference and the per-step results so the pages can ask on every rerun.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from explorer import formatting, safe_text, uploads
from explorer.engine_api import (
    COHERENCE_TOP_WORDS,
    HDP_FEW_DOCUMENTS,
    HDP_FEW_WORDS,
    ONE_DOCUMENT_MIN_DOCUMENTS,
    CoherenceReference,
    Corpus,
    TopicQuality,
    hdp_small_collection,
    main_documents,
)
from explorer.engine_api import topic_quality as engine_topic_quality
from explorer.runs import RunSettings, split
from explorer.storage import Collection

N_TOP = COHERENCE_TOP_WORDS  # coherence is scored on each topic's 10 most probable words

__all__ = [
    "COHERENCE_HELP",
    "HDP_FEW_DOCUMENTS",
    "HDP_FEW_WORDS",
    "LIVE_HELP",
    "N_TOP",
    "MainDocuments",
    "TopicQuality",
    "coherence_reference",
    "coherence_text",
    "duplicate_note",
    "flags",
    "general_among_live",
    "general_note",
    "hdp_small_collection_note",
    "live_text",
    "main_documents_of",
    "mergeable",
    "one_document_note",
    "topic_quality",
    "with_main_documents",
]

# A topic whose words lie within engine.GENERAL_DIVERGENCE (Jensen-Shannon, nats) of the collection's
# overall word use repeats the most common words instead of singling out a theme (model.general_topics()).
# the Topics page says so when topics like that hold at least this share of the words
GENERAL_NOTE_SHARE = 0.25

COHERENCE_HELP = (f"Coherence (NPMI) measures how much more often the topic's {N_TOP} top words appear together "
                  "in the same training documents than unrelated words would, from −1 (never together) through "
                  "0 (as often as by chance) to 1 (always together).")
LIVE_HELP = ("Topics that explain a real share of the words: for LDA at least a quarter of an even share (1/K), "
             "for the HDP at least 1% of the words.")
IN_USE_HELP = ("Topics that explain at least 1% of the words: how many topics the HDP finds in the documents. "
               "The others are spare slots of its truncation.")


def training_documents(collection: Collection, settings: RunSettings):
    """The documents a run trains on: its collection without the held-out split (runs.split)."""
    return split(collection, settings)[0]


def coherence_reference(collection: Collection, n_test: int, seed: int) -> CoherenceReference:
    """The co-occurrence counts of a run's training documents (depends on the split's size and seed only)."""
    settings = dataclasses.replace(RunSettings(), n_test=n_test, seed=seed)
    return CoherenceReference(training_documents(collection, settings), collection.corpus.n_words)


def topic_quality(model, reference: CoherenceReference | None, hdp: bool) -> TopicQuality:
    """Shares, live topics and NPMI coherence of ``model``'s topics (``engine.topic_quality``)."""
    return engine_topic_quality(model, reference, hdp=hdp)


def coherence_text(value: float | None) -> str:
    """An NPMI value with two decimals (``0.1234 -> "0.12"``), or "–" when there is none."""
    return "–" if value is None else f"{value:.2f}".replace("-0.00", "0.00")


def live_text(quality: TopicQuality | None) -> str:
    """Live topics out of all, e.g. "9 / 10", and how many are distinct when some are tied: "20 / 20 (8 distinct)"."""
    if quality is None:
        return "–"
    text = f"{quality.n_live} / {quality.n_topics}"
    return text if quality.n_distinct == quality.n_topics else f"{text} ({quality.n_distinct} distinct)"


def duplicate_note(quality: TopicQuality | None) -> str | None:
    """A plain-word note when some topics are the same as others (LDA's tied copies), else None."""
    if quality is None or quality.n_distinct == quality.n_topics:
        return None
    copies = quality.n_topics - quality.n_distinct
    return (f"{copies} of the {quality.n_topics} topics {'is' if copies == 1 else 'are'} the same as another topic: "
            f"the documents seem to hold about {quality.n_distinct} distinct topics, so a run with that many shows "
            "each of them once. The repeated topics are marked below.")


class MainDocuments(NamedTuple):
    """The document giving each topic the most words, its share of the topic's words, and the documents' titles and
    ids (those "Leave out documents" names)."""

    main: np.ndarray
    share: np.ndarray
    titles: list[str]
    ids: tuple[str, ...] = ()


def main_documents_of(doc_topic: np.ndarray, corpus: Corpus) -> MainDocuments:
    """``engine.main_documents`` of the corpus's documents, the passages of a document cut into passages counted as
    that document, with the titles the indices name."""
    groups, ids, titles = uploads.document_roots(corpus)
    return MainDocuments(*main_documents(doc_topic, np.asarray(corpus.counts.sum(axis=1)).ravel(), groups), titles,
                         tuple(ids))


def with_main_documents(quality: TopicQuality, found: MainDocuments) -> TopicQuality:
    """``quality`` with each topic's main document and its share (what its one-document flags read).

    Not on a collection of fewer than ``engine.ONE_DOCUMENT_MIN_DOCUMENTS`` documents (passages counted as the
    document they were cut from): a few long documents are read as passages so that topics come from within them.
    """
    if len(found.titles) < ONE_DOCUMENT_MIN_DOCUMENTS:
        return quality
    return dataclasses.replace(quality, main_document=found.main, main_share=found.share)


def one_document_note(quality: TopicQuality | None, titles: list[str] | None) -> str | None:
    """A plain-word note naming the documents that give some topics most of their words (None when none does)."""
    if quality is None or titles is None or not quality.one_document.any():
        return None
    flagged = np.flatnonzero(quality.one_document)
    documents = quality.one_document_sources.tolist()
    named = formatting.join_and([f"“{safe_text.markdown(titles[d])}”" for d in documents[:3]]
                                + ([f"{len(documents) - 3} more"] if len(documents) > 3 else []))
    one, of = len(flagged) == 1, f"{quality.n_live} topics in use" if quality.hdp else f"{quality.n_topics} topics"
    return (f"{len(flagged)} of the {of} {'takes its' if one else 'take their'} words mostly "
            f"from one document ({named}): {'it describes' if one else 'they describe'} that document more than "
            "themes the documents share. A very long document among short ones does this; to see the other "
            "documents' themes, leave it out on the Data page (“Leave out documents”) and train again. Such topics "
            "are marked below.")


def flags(quality: TopicQuality, topic: int, titles: list[str] | None = None) -> list[str]:
    """Plain-word warnings about one topic: hardly used, general, a copy, one document's, incoherent (empty when it
    looks fine); ``titles`` name the documents of ``quality.main_document`` (Markdown-escaped here)."""
    found = []
    if not quality.live[topic]:
        weight = quality.weights[topic]
        share = "less than 0.01%" if weight < 1e-4 else f"only {formatting.percent(weight, 2)}"
        advice = ("the HDP keeps it as a spare, so you can skip it" if quality.hdp
                  else "it may be a leftover — try fewer topics")
        found.append(f"Hardly used: this topic explains {share} of the words; {advice}.")
    if quality.general[topic]:
        found.append("Its words are the collection's most common words overall, not a theme of their own.")
    if quality.copies[topic]:
        found.append(f"The same topic as topic {quality.duplicate_of[topic]}: the documents hold fewer distinct "
                     "topics than you asked for — try fewer topics.")
    if quality.one_document[topic]:
        main = int(quality.main_document[topic])
        known = titles is not None and 0 <= main < len(titles)
        name = f"“{safe_text.markdown(titles[main])}”" if known else "one document"
        share = formatting.percent(float(quality.main_share[topic]), 2)
        found.append(f"Mostly from one document: {share} of its words come from {name}, so it describes that "
                     "document more than a theme the documents share.")
    if quality.incoherent[topic]:
        found.append("Its top words rarely appear together in the same documents: treat it with caution.")
    return found


def general_among_live(quality: TopicQuality | None) -> int:
    """How many of the live topics (the HDP's topics in use) repeat the overall word use."""
    if quality is None:
        return 0
    return int((quality.general & quality.live).sum())


def hdp_small_collection_note(n_train: int, n_words: int | None) -> str | None:
    """What the Train page says before an HDP run on a small collection (``engine.hdp_small_collection``):
    ``n_train`` training documents, ``n_words`` of their words in two or more of them (``engine.recurring_words``;
    None, not counted, below ``HDP_FEW_DOCUMENTS`` documents); None on a collection large enough."""
    why = hdp_small_collection(n_train, n_words)
    if why == "documents":
        size, measured = (f"{formatting.count(n_train)} training documents",
                          "it did on 3 of 5 test collections of 400 documents")
    elif why == "words":
        size, measured = (f"only {formatting.count(n_words)} words that recur across the training documents (a word "
                          "found in one document only cannot tie documents together)",
                          f"it left a third of the words or more in them on 7 of 14 test collections of fewer "
                          f"than {formatting.count(HDP_FEW_WORDS)} words")
    else:
        return None
    return (f"With {size}, the HDP may leave most words in many near-identical topics that repeat the "
            f"collection's commonest words ({measured}). If it does, the Topics page offers to merge them into "
            "one; LDA with about 20 topics may fit such collections better: train both and compare them in the run "
            "list.")


def mergeable(quality: TopicQuality | None) -> int:
    """How many topics the Topics page offers to merge: an HDP's general ones, when its note shows and there are two.

    Not LDA's: merging its general topics cost 0.005-0.012 nats/word on 400-document samples at
    K = 50, where K = 20 makes none (benchmarks/RESULTS.md, run 22).
    """
    if general_note(quality) is None or not quality.hdp:
        return 0
    count = int(quality.general.sum())
    return count if count >= 2 else 0


def general_note(quality: TopicQuality | None) -> str | None:
    """A plain-word note when topics that repeat the overall word use hold much of the words (else None)."""
    if quality is None:
        return None
    general = quality.general
    share = float(quality.weights[general].sum())
    if share < GENERAL_NOTE_SHARE:
        return None
    count = int(general.sum())
    note = (f"{count} {'topic' if count == 1 else 'topics'}, holding {formatting.percent(share)} of the words, "
            f"{'repeats' if count == 1 else 'repeat'} the collection's overall word use instead of a theme of "
            f"{'its' if count == 1 else 'their'} own.")
    if quality.hdp:
        note += (" The HDP does this on small collections, where it finds only a few themes; LDA with about 20 "
                 "topics usually fits such collections better (choose LDA on the Train page).")
    else:
        note += " With fewer topics LDA usually makes none (about 20 for a few hundred documents)."
    return note
