"""Read-outs of a trained model for display: relevance-ranked words, word colouring, top documents.

Pure functions of a model's expectations; the explorer calls these instead of
doing any arithmetic itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from engine.data.corpus import TOKEN_PATTERN
from engine.data.vectorizer import SEPARATOR, Vectorizer, side_by_side
from engine.validation import as_counts, check_int

__all__ = [
    "GENERAL_DIVERGENCE",
    "most_likely_topics",
    "relevance",
    "text_segments",
    "top_corpus_words",
    "top_documents",
    "top_relevant_words",
    "word_marginal",
]

_TOKEN = re.compile(TOKEN_PATTERN)
# Below this Jensen-Shannon divergence (nats) from the overall word use, a topic only repeats the collection's
# commonest words: the copies an HDP fitted to a small collection makes (benchmarks/RESULTS.md, run 21)
GENERAL_DIVERGENCE = 0.03


def top_indices(rows: np.ndarray, n: int) -> np.ndarray:
    """Each row's ``n`` largest entries' indices, largest first, ties to the lower index.

    Exactly ``np.argsort(-rows, axis=-1, kind="stable")[..., :n]`` (a 1-d ``rows`` is one row),
    but only the entries at least as large as a row's n-th largest are sorted.
    """
    rows = np.asarray(rows)
    width = rows.shape[-1]
    if n >= width:
        return np.argsort(-rows, axis=-1, kind="stable")
    thresholds = np.partition(rows, width - n, axis=-1)[..., width - n]
    out = np.empty((*rows.shape[:-1], n), dtype=np.intp)
    for index in np.ndindex(rows.shape[:-1]):
        row = rows[index]
        candidates = np.flatnonzero(row >= thresholds[index])
        out[index] = candidates[np.argsort(-row[candidates], kind="stable")[:n]]
    return out


def word_marginal(topics: np.ndarray, topic_weights: np.ndarray) -> np.ndarray:
    """Overall word probabilities p(w) = sum_k p(k) p(w | k), shape (n_words,)."""
    return np.asarray(topic_weights, dtype=float) @ np.asarray(topics, dtype=float)


def relevance(topics: np.ndarray, marginal: np.ndarray, weight: float) -> np.ndarray:
    """LDAvis relevance of every word to every topic (Sievert & Shirley 2014).

    relevance(w, k | lambda) = lambda log p(w|k) + (1 - lambda) log(p(w|k) / p(w)).
    lambda = 1 ranks words by probability within the topic; lambda = 0 by lift,
    which favours words specific to the topic; about 0.6 was preferred in
    Sievert & Shirley's user study.

    Parameters
    ----------
    topics : ndarray of shape (n_topics, n_words)
        p(w | k), rows summing to one.
    marginal : ndarray of shape (n_words,)
        p(w).
    weight : float in [0, 1]
        The lambda of the formula (not the topics' lambda_).
    """
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"relevance weight must be in [0, 1], got {weight!r}")
    log_topics = np.log(np.asarray(topics, dtype=float))
    return log_topics - (1.0 - weight) * np.log(np.asarray(marginal, dtype=float))[None, :]


def top_relevant_words(model, n: int = 10, weight: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Indices of each topic's n most relevant words and their p(w | k).

    Returns (indices, probabilities), each of shape (n_topics, n).
    """
    n = min(check_int("n", n, 1), model.n_words)
    topics = model.expected_topics()
    scores = relevance(topics, word_marginal(topics, model.topic_weights()), weight)
    order = np.argsort(-scores, axis=1, kind="stable")[:, :n]
    return order, np.take_along_axis(topics, order, axis=1)


def most_likely_topics(model, counts, doc_topic: np.ndarray | None = None) -> np.ndarray:
    """Most likely topic of each word of each document, for colouring a text.

    The posterior of word w's topic in document d is phi_dwk ∝ E[theta_dk] E[beta_kw]
    (a plug-in version of the local step's phi).  Returns an int array aligned
    with the CSR ``counts.data`` of the given documents.
    """
    counts = as_counts(counts, model.n_words, name="documents")
    theta = model.transform(counts) if doc_topic is None else np.asarray(doc_topic)
    topics = model.expected_topics()
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    scores = theta[rows] * topics[:, counts.indices].T
    return np.argmax(scores, axis=1)


def top_documents(doc_topic: np.ndarray, topic: int, n: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """The n documents with the largest share of ``topic``: (indices, proportions), largest first."""
    doc_topic = np.asarray(doc_topic)
    topic = check_int("topic", topic, 0, doc_topic.shape[1] - 1)
    n = min(check_int("n", n, 1), doc_topic.shape[0])
    share = doc_topic[:, topic]
    order = np.argsort(-share, kind="stable")[:n]
    return order, share[order]


def text_segments(text: str, vocabulary: Sequence[str],
                  vectorizer: Vectorizer | None = None) -> list[tuple[str, int | None]]:
    """Split ``text`` into segments, each vocabulary word tagged with its column.

    Tokens are found and normalised as :meth:`engine.Corpus.from_texts` does, with
    ``vectorizer`` (a corpus's ``vectorizer``; by default ``TOKEN_PATTERN``, lower case,
    accents stripped), and a form of a word is tagged with its word's column (``word_forms``).
    Words outside the vocabulary (stop words, filtered words) and the text between words are
    tagged None.  Joining the segments gives ``text`` back
    (without its markup and its boilerplate if the vectorizer removes them: :meth:`engine.Vectorizer.readable`).
    Where tokens overlap (the pairs of :data:`engine.UNICODE_TOKEN_PATTERN`: "文件" and
    "件系" in "文件系统"), a vocabulary token that begins inside the one before it is
    left untagged, so every character is in one segment.
    """
    from sklearn.feature_extraction.text import strip_accents_unicode  # slow to import: only when needed

    index = {word: i for i, word in enumerate(vocabulary)}
    if vectorizer is not None:
        text = vectorizer.readable(text)
    token = _TOKEN if vectorizer is None else re.compile(vectorizer.token_pattern)
    normalise = (lambda word: strip_accents_unicode(word.lower())) if vectorizer is None else vectorizer.preprocess
    counted = vectorizer.word_of if vectorizer is not None and vectorizer.word_forms else (lambda word: word)
    group = 1 if token.groups else 0  # a pattern with a group takes its group as the token, as scikit-learn does
    spans = [match.span(group) for match in token.finditer(text)]
    joined = _phrase_spans(text, spans, normalise, vectorizer) if vectorizer is not None and vectorizer.phrases \
        else {}
    segments: list[tuple[str, int | None]] = []
    position = passed = 0  # passed: the end of the last token read (a phrase outside the vocabulary is passed whole)
    for start, end in spans:
        if start < max(position, passed):
            continue
        end, word = joined.get(start, (end, None))
        column = index.get(counted(normalise(text[start:end]) if word is None else word))
        if word is not None:
            passed = end
        if column is None:
            continue
        if start > position:
            segments.append((text[position:start], None))
        segments.append((text[start:end], column))
        position = end
    if position < len(text):
        segments.append((text[position:], None))
    return segments


def _phrase_spans(text: str, spans: list[tuple[int, int]], normalise, vectorizer: Vectorizer) -> dict:
    """Where ``vectorizer`` joins two tokens of ``text`` into a phrase: the first token's start -> (the second's end,
    the phrase), read from the left as :meth:`engine.Vectorizer.runs` and the phrases' joining read them (with stop
    words of several languages, a word of any of the lists keeps two tokens apart here)."""
    stop, pairs = vectorizer.stop_word_set(), vectorizer._phrase_pairs
    joined, previous = {}, None  # previous: the last token kept that is not yet joined, (start, end, word)
    for start, end in spans:
        word = normalise(text[start:end])
        if word in stop:
            previous = None
            continue
        if previous is not None and previous[1] <= start and side_by_side(text, previous[1], start) \
                and (previous[2], word) in pairs:
            joined[previous[0]] = (end, previous[2] + SEPARATOR + word)
            previous = None
        else:
            previous = (start, end, word)
    return joined


def top_corpus_words(counts, vocabulary: Sequence[str], n: int = 20) -> list[tuple[str, int]]:
    """The ``n`` most frequent words of a corpus as (word, count), most frequent first."""
    counts = as_counts(counts, len(vocabulary))
    totals = np.asarray(counts.sum(axis=0), dtype=np.int64).ravel()
    n = min(check_int("n", n, 1), totals.size)
    top = np.argsort(-totals, kind="stable")[:n]
    return [(vocabulary[i], int(totals[i])) for i in top]
