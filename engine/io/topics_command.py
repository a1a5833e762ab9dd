"""``svi-topics topics MODEL``, and the topic-quality lines ``fit`` prints and stores.

``fit`` scores every topic's coherence against the training documents when it ends
(:func:`engine.topic_quality`: NPMI of the 10 top words), prints a summary (live topics,
mean and lowest coherence, the topics worth a second look and why) and stores each topic's
NPMI in the model file with the top words it was scored on.  ``topics`` prints each topic's
share of the words, that NPMI while the topic's top words are still the ones scored, and
the same flags: hardly used (an HDP's spare slots are marked "spare"), a copy of the
collection's overall word use, the same as another topic, top words that rarely appear together.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import shlex
from typing import NamedTuple

import numpy as np

from engine.data.passages import passage_documents
from engine.inference.coherence import CoherenceReference
from engine.inference.quality import (
    COHERENCE_TOP_WORDS,
    HDP_FEW_DOCUMENTS,
    HDP_FEW_WORDS,
    INCOHERENT_NPMI,
    ONE_DOCUMENT_MIN_DOCUMENTS,
    ONE_DOCUMENT_SHARE,
    SHORT_DOCUMENT_WORDS,
    TopicQuality,
    hdp_rule_topics,
    hdp_small_collection,
    long_documents,
    main_documents,
    recurring_words,
    topic_quality,
)
from engine.io.model_files import load_model
from engine.models.lda import LDA

__all__: list[str] = []  # engine.cli's fit and topics commands use these; nothing here is engine API

EXTRA_KEY = "coherence"  # the model file's extra value holding what fit measured
_LISTED = 8  # topics named per flag in fit's summary
_ONE_DOCUMENT_FLAG = (f"take {ONE_DOCUMENT_SHARE:.0%} or more of their words from one document, which they describe "
                      "rather than a theme the documents share")


# ------------------------------------------------------------------------- fit
def measure(model, train) -> tuple[TopicQuality, int]:
    """The model's :class:`TopicQuality` against its training documents ``train``; and how many they are."""
    reference = CoherenceReference(train, model.n_words)
    return topic_quality(model, reference), reference.n_docs


def stored(quality: TopicQuality, model, n_docs: int) -> dict:
    """The model file's record of ``quality``'s coherence: the values and the top words they were scored on."""
    return {"measure": "npmi", "reference_docs": int(n_docs),
            "top_words": np.asarray(model.top_words(COHERENCE_TOP_WORDS)).tolist(),
            "values": [float(value) for value in quality.coherence]}


def summary(quality: TopicQuality, n_docs: int, documents: TrainingDocuments | None = None) -> list[str]:
    """fit's lines about the topics: live ones, coherence, and the topics worth a second look (with the training
    ``documents``, the ones some topics take most of their words from)."""
    kind = "topics in use (at least 1% of the words)" if quality.hdp else "topics live (at least a quarter of " \
        "an even share of the words)"
    lines = [f"topics: {quality.n_live} of {quality.n_topics} {kind}"]
    if quality.coherence is not None and quality.mean_coherence is not None:
        scored = np.flatnonzero(quality.live) if quality.hdp else np.arange(quality.n_topics)
        lowest = int(scored[np.argmin(quality.coherence[scored])])
        over = "topics in use" if quality.hdp else "topics"
        lines.append(f"coherence (NPMI of each topic's {COHERENCE_TOP_WORDS} top words in {n_docs:,} training "
                     f"documents; -1 to 1, 0 is chance): mean {quality.mean_coherence:.2f} over the {over}, lowest "
                     f"{_npmi(quality.coherence[lowest])} (topic {lowest})")
    for flag, topics in _flagged(quality).items():
        lines.append(f"  {flag}: {_topic_list(topics)}")
        if flag == _ONE_DOCUMENT_FLAG and documents is not None:
            lines.extend(one_document_lines(quality, documents))
    if len(lines) > 2:
        lines.append("'topics MODEL' shows each topic's words and warnings")
    return lines


class TrainingDocuments(NamedTuple):
    """fit's training documents as the user named them: each row's document (its passages counted as one), and
    those documents' ids and titles."""

    groups: np.ndarray
    ids: list[str]
    titles: list[str]

    @classmethod
    def of(cls, corpus, rows: np.ndarray, passages: bool) -> TrainingDocuments:
        """The documents of ``corpus``'s ``rows`` (the training rows); ``passages``: its documents were cut."""
        ids = [corpus.doc_ids[r] for r in rows]
        titles = [corpus.titles[r] for r in rows]
        if not passages:
            return cls(np.arange(len(ids)), ids, titles)
        groups, roots, names = passage_documents(ids, titles)
        return cls(np.asarray(groups, dtype=np.intp), roots, names)


def long_documents_hint(model, train, documents: TrainingDocuments) -> str | None:
    """Before a run: a line naming the training documents long enough to fill one of its K topics on their own
    (``engine.long_documents``; for an HDP, K from ``engine.hdp_rule_topics``) and how to leave them out, else
    None."""
    if len(documents.ids) < ONE_DOCUMENT_MIN_DOCUMENTS:
        return None
    lda = isinstance(model, LDA)
    k = model.n_topics if lda else hdp_rule_topics(train.shape[0])
    found, shares = long_documents(_lengths(train), k, documents.groups)
    if found.size == 0:
        return None
    named = ", ".join(f"{_quoted(documents.titles[d])} ({share:.0%})" for d, share in
                      zip(found[:_LISTED], shares[:_LISTED], strict=True))
    more = f" and {found.size - _LISTED} more" if found.size > _LISTED else ""
    one = found.size == 1
    average = (f"half of what one of {k} topics holds on average" if lda else
               f"half of what one of {k} topics would hold, as many as an HDP may use on {train.shape[0]} documents")
    return (f"warning: {found.size} training document{' holds' if one else 's hold'} at least "
            f"{ONE_DOCUMENT_SHARE / k:.1%} of the words, {average}: {named}{more}; {'it' if one else 'each'} may "
            f"fill topics of its own; {_leave_out_flags([documents.ids[d] for d in found])} trains without "
            f"{'it' if one else 'them'}")


def hdp_small_collection_hint(model, train) -> str | None:
    """Before an HDP run on few training documents, or documents sharing few words (``engine.hdp_small_collection``,
    ``engine.recurring_words``): a line saying what the HDP may do there and what to try, else None (and None for
    LDA)."""
    if isinstance(model, LDA):
        return None
    n_documents, n_words = train.shape[0], recurring_words(train)
    if hdp_small_collection(n_documents, n_words) is None:
        return None
    return (f"warning: the HDP trains on {n_documents:,} documents sharing {n_words:,} words (those of words found "
            f"in two or more of them); on fewer than {HDP_FEW_DOCUMENTS:,} documents or {HDP_FEW_WORDS:,} such words "
            "it may leave most words in many near-identical topics that repeat the collection's commonest words "
            "(`svi-topics topics` flags them); LDA with about 20 topics (--model lda --topics 20) may fit such "
            "collections better")


def with_main_documents(quality: TopicQuality, model, train, documents: TrainingDocuments) -> TopicQuality:
    """``quality`` with each topic's main training document (``engine.main_documents``) when one of the documents is
    long enough to fill one of its live topics (``engine.long_documents``), as it is otherwise.

    Only then does fit make the pass over the training documents that finds the topics' documents, which the
    rule rarely asks for on ordinary collections (benchmarks/RESULTS.md, run 76).
    """
    lengths = _lengths(train)
    n_live = quality.n_live if quality.hdp else quality.n_topics
    # an HDP's topics in use, or as many as the rule before it read, whichever names more documents
    k = max(n_live, hdp_rule_topics(lengths.size)) if quality.hdp else n_live
    if n_live == 0 or len(documents.ids) < ONE_DOCUMENT_MIN_DOCUMENTS or \
            long_documents(lengths, k, documents.groups)[0].size == 0:
        return quality
    main, share = main_documents(model.transform(train), lengths, documents.groups)
    return dataclasses.replace(quality, main_document=main, main_share=share)


def one_document_lines(quality: TopicQuality, documents: TrainingDocuments) -> list[str]:
    """fit's lines naming the documents some topics take most of their words from, and how to leave them out."""
    found = quality.one_document_sources.tolist()
    if not found:
        return []
    mains = np.asarray(quality.main_document)[quality.one_document]
    counts = [int(np.count_nonzero(mains == d)) for d in found]
    named = ", ".join(f"{_quoted(documents.titles[d])} ({n} topic{'s' if n > 1 else ''})"
                      for d, n in zip(found[:_LISTED], counts, strict=False))
    more = f" and {len(found) - _LISTED} more" if len(found) > _LISTED else ""
    one = len(found) == 1
    return [f"  {'the document' if one else 'the documents'} they come from: {named}{more}; "
            f"{_leave_out_flags([documents.ids[d] for d in found])} trains without {'it' if one else 'them'}"]


def _lengths(train) -> np.ndarray:
    return np.asarray(train.sum(axis=1), dtype=np.float64).ravel()


def _quoted(title: str) -> str:
    """A title in quotes, escaped (``repr``) if it holds a quote or a character that is not printable (a line break,
    a terminal's escape sequence)."""
    return repr(title) if not title.isprintable() or any(c in title for c in "'\"") else f"'{title}'"


def _leave_out_flags(ids: list[str]) -> str:
    """The --leave-out flags of ``ids``, quoted for a shell (an id that is not printable escaped, ``repr``)."""
    flags = " ".join(f"--leave-out {shlex.quote(doc_id) if doc_id.isprintable() else repr(doc_id)}"
                     for doc_id in ids[:_LISTED])
    return flags + (" ..." if len(ids) > _LISTED else "")


def short_documents_hint(model, train) -> str | None:
    """A line suggesting the default local step after a zero-order LDA run on very short documents, else None."""
    n_docs = train.shape[0]
    if not isinstance(model, LDA) or model.local_update != "zero_order" or not n_docs:
        return None
    words = float(train.sum()) / n_docs
    if words >= SHORT_DOCUMENT_WORDS:
        return None
    return (f"hint: the training documents hold {words:.1f} words on average; on documents this short "
            f"the default '--local-update auto' (CVB0 on documents under {model.cvb0_words} words) or "
            "'--local-update cvb0' gave 0.08-0.31 nats/word better held-out likelihood and more coherent topics "
            "than the zero-order step (benchmarks/RESULTS.md, run 45)")


def _flagged(quality: TopicQuality) -> dict[str, np.ndarray]:
    """The flags fit's summary lists, each with its topics (only flags some topic has)."""
    shown = quality.live if quality.hdp else np.ones(quality.n_topics, dtype=bool)  # an HDP's spares: not listed
    found = {
        "hardly used (less than a quarter of an even share of the words; try fewer topics)":
            np.zeros(quality.n_topics, dtype=bool) if quality.hdp else ~quality.live,
        "repeat the collection's overall word use, not a theme": quality.general & shown,
        "the same as a lower-numbered topic (the documents hold fewer distinct topics)": quality.copies & shown,
        f"top words rarely appear together (NPMI below {INCOHERENT_NPMI:.0f})": quality.incoherent & shown,
        _ONE_DOCUMENT_FLAG: quality.one_document,
    }
    return {flag: np.flatnonzero(which) for flag, which in found.items() if which.any()}


def _topic_list(topics: np.ndarray) -> str:
    named = ", ".join(str(int(k)) for k in topics[:_LISTED])
    more = f" and {topics.size - _LISTED} more" if topics.size > _LISTED else ""
    return f"{'topic' if topics.size == 1 else 'topics'} {named}{more}"


def _npmi(value: float) -> str:
    return f"{value:.2f}".replace("-0.00", "0.00")


# ---------------------------------------------------------------------- topics
def read_stored(extra: dict, model) -> np.ndarray | None:
    """Each topic's NPMI as ``fit`` stored it, NaN where its top words have changed since; None if absent.

    The record comes from a file, so anything malformed counts as absent.
    """
    record = extra.get(EXTRA_KEY)
    if not isinstance(record, dict) or record.get("measure") != "npmi":
        return None
    values, words = record.get("values"), record.get("top_words")
    K = model.n_topics
    if not isinstance(values, list) or not isinstance(words, list) or len(values) != K or len(words) != K:
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and -1.0 <= v <= 1.0
               for v in values):
        return None
    top = np.asarray(model.top_words(COHERENCE_TOP_WORDS)).tolist()
    return np.array([value if row == now else np.nan for value, row, now in zip(values, words, top, strict=True)],
                    dtype=np.float64)


def _reference_docs(extra: dict) -> int | None:
    record = extra.get(EXTRA_KEY)
    n_docs = record.get("reference_docs") if isinstance(record, dict) else None
    return n_docs if isinstance(n_docs, int) and not isinstance(n_docs, bool) and n_docs > 0 else None


def _warnings(quality: TopicQuality, topic: int) -> list[str]:
    """Short warnings about one topic (empty when it looks fine)."""
    found = []
    if not quality.live[topic] and not quality.hdp:  # an HDP's spare slots are marked on the topic's line
        found.append(f"hardly used ({100 * quality.weights[topic]:.2f}% of the words; try fewer topics)")
    if quality.general[topic]:
        found.append("repeats the collection's overall word use")
    if quality.copies[topic]:
        found.append(f"the same as topic {int(quality.duplicate_of[topic])}")
    if quality.incoherent[topic]:
        found.append("its top words rarely appear together")
    return found


def run_topics(args: argparse.Namespace) -> int:
    """Print the header, then each topic's line and, indented below it, its warnings."""
    loaded = load_model(args.model)
    model = loaded.model
    coherence = read_stored(loaded.extra, model)
    quality = dataclasses.replace(topic_quality(model), coherence=coherence)
    top = model.top_words(args.n, vocabulary=loaded.vocabulary)
    state = loaded.trainer_state or {}
    header = f"# {type(model).__name__}, {model.n_topics} topics, {model.n_words} words"
    if state:
        header += f"; trained {state.get('t', '?')} updates on {state.get('docs_seen', '?')} documents"
    if loaded.history:
        header += f"; held-out log likelihood {loaded.history[-1].heldout_loglik:.4f}"
    print(header)
    print(_quality_header(quality, _reference_docs(loaded.extra)))
    order = sorted(range(len(top)), key=lambda k: -quality.weights[k]) if args.by_weight else range(len(top))
    width = len(str(len(top) - 1))
    for k in order:
        words = " ".join(str(word) for word in top[k])
        label = loaded.labels.get(k, "")
        # a label comes from the file: shown on one line, without control characters for the terminal
        shown = f" [{''.join(ch if ch.isprintable() else ' ' for ch in label).strip()}]" if label.strip() else ""
        npmi = "" if coherence is None or np.isnan(coherence[k]) else f"; NPMI {_npmi(coherence[k])}"
        spare = ", spare" if quality.hdp and not quality.live[k] else ""
        print(f"topic {k:>{width}} ({quality.weights[k]:.3f}{spare}{npmi}){shown}: {words}")
        warnings = _warnings(quality, k)
        if warnings:
            print(f"  {' ' * width}  ! {'; '.join(warnings)}")
    return 0


def _quality_header(quality: TopicQuality, n_docs: int | None) -> str:
    kind = "topics in use (at least 1% of the words)" if quality.hdp else "topics live"
    line = f"# {quality.n_live} of {quality.n_topics} {kind}"
    if quality.coherence is None:
        return line + "; coherence: not in this file ('fit' stores it)"
    scored = quality.coherence[quality.live] if quality.hdp else quality.coherence
    scored = scored[~np.isnan(scored)]
    if scored.size == 0:
        return line + "; coherence: the topics have changed since 'fit' scored them"
    where = f"{n_docs:,} training documents" if n_docs else "the training documents"
    return (line + f"; coherence (NPMI of the {COHERENCE_TOP_WORDS} top words in {where}) "
            f"mean {float(scored.mean()):.2f}")

