"""Phrases: pairs of words that a collection writes side by side far more often than chance.

"united states", "health care", "social security", "open source": read word by word, each phrase
spends two of a topic's top words on one idea, and its halves ("united", "care", "open") mix with
other uses of the same words.  :func:`find_phrases` finds the pairs worth reading as one term, and
a :class:`engine.Vectorizer` whose ``phrases`` lists them joins them wherever they stand side by side
(``engine.Corpus.from_texts(..., join_phrases=True)``); the phrase is then one vocabulary word, written
with a space ("health care").

Two tokens stand *side by side* when only spaces, hyphens or a single line break separate them in the
text: punctuation, a symbol, a number standing alone, a stop word or a paragraph break between them
keeps them apart (:meth:`engine.Vectorizer.runs`).  A pair is a phrase when it occurs side by side at
least :data:`MIN_COUNT` times, in at least :data:`MIN_DOCUMENTS` documents, and its normalized pointwise
mutual information (Bouma 2009) is at least :data:`MIN_NPMI`::

    npmi(a, b) = log(p(a b) / (p(a) p(b))) / -log p(a b)

with p(a) the share of the kept tokens that are ``a`` and p(a b) the share of them that start the pair
``a b``.  NPMI is 1 for words that only occur together, 0 for words that meet as often as chance
would have them meet.  Joining reads each run of side-by-side tokens from the left and joins a pair
that is a phrase, so "new york city" with the phrases "new york" and "york city" gives "new york" and
"city".  Only pairs are found (no phrases of three words).

Memory is bounded: when more than :data:`MAX_PAIRS` distinct pairs are being counted, the rarest are
dropped until half as many are left, those seen once first, then twice and so on, and the least count
kept never falls (as gensim's ``Phrases`` prunes its vocabulary).  A pair dropped and seen again
counts from there, so on a very large collection a pair's count is a lower bound; a pair frequent
enough to be a phrase is dropped only if it was rare in the texts read before.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from engine.data.vectorizer import MAX_PHRASE_CHARACTERS, MAX_PHRASES, SEPARATOR, Vectorizer
from engine.validation import check_int

__all__ = ["Phrase", "find_phrases"]

MIN_COUNT = 10  # times a pair must stand side by side ...
MIN_DOCUMENTS = 5  # ... in at least this many documents
MIN_NPMI = 0.35  # and how strongly its words must go together (normalized PMI, -1 to 1)
MAX_PAIRS = 2_000_000  # distinct pairs counted at once (about 230 bytes each): beyond, the rarest are dropped


class Phrase(NamedTuple):
    """A pair of words found by :func:`find_phrases`.

    Attributes
    ----------
    text : str
        The two words joined by a space ("health care"), as the vocabulary writes it.
    count : int
        Times the pair stands side by side in the texts.
    documents : int
        Texts that hold it.
    npmi : float
        Normalized pointwise mutual information of the pair.
    """

    text: str
    count: int
    documents: int
    npmi: float


def find_phrases(texts: Iterable[str], vectorizer: Vectorizer | None = None, *, min_count: int = MIN_COUNT,
                 min_documents: int = MIN_DOCUMENTS, min_npmi: float = MIN_NPMI,
                 max_phrases: int = MAX_PHRASES) -> list[Phrase]:
    """The pairs of words that ``texts`` write side by side often enough to read as one term.

    Parameters
    ----------
    texts : iterable of str
    vectorizer : Vectorizer, optional
        How the texts are read: their tokens, stop words and normal form (default ``engine.Vectorizer()``:
        English stop words, lower case, accents stripped).  Its own ``phrases`` are ignored.
    min_count, min_documents : int
        Times and texts a pair must stand side by side in.
    min_npmi : float
        The least normalized pointwise mutual information of a pair, in [-1, 1].
    max_phrases : int
        At most this many phrases, the most frequent first.

    Returns
    -------
    list of Phrase
        Most frequent first (ties by text).

    Examples
    --------
    >>> texts = ["The health care bill passed.", "Health care costs rose."] * 5 + ["Care for the sick."]
    >>> [p.text for p in find_phrases(texts)]
    ['health care']
    """
    if isinstance(texts, str):
        raise TypeError("texts must be a list of texts, not one string; wrap it: [text]")
    min_count = check_int("min_count", min_count, 1)
    min_documents = check_int("min_documents", min_documents, 1)
    max_phrases = check_int("max_phrases", max_phrases, 0)
    if isinstance(min_npmi, bool) or not isinstance(min_npmi, (int, float)) or not -1 <= min_npmi <= 1:
        raise ValueError(f"min_npmi must be a number from -1 to 1, got {min_npmi!r}")
    reading = Vectorizer() if vectorizer is None else vectorizer
    if not isinstance(reading, Vectorizer):
        raise TypeError(f"vectorizer must be an engine.Vectorizer, got {type(reading).__name__}")
    runs = reading.run_reader()
    words: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    documents: Counter[tuple[str, str]] = Counter()
    floor = 0  # pairs seen at most this often were dropped when too many were counted
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"texts must be strings, got {text!r}")
        held = set()
        for run in runs(text):
            words.update(run)
            side_by_side = list(itertools.pairwise(run))
            pairs.update(side_by_side)
            held.update(side_by_side)
        documents.update(held)
        if len(pairs) > MAX_PAIRS:
            floor = _prune(pairs, documents, floor)
    total = sum(words.values())
    found = []
    for (first, second), count in pairs.items():
        if count < min_count or documents[first, second] < min_documents:
            continue
        joint = count / total
        if joint >= 1:  # a collection made of one pair: nothing to compare it with
            continue
        npmi = math.log(joint * total * total / (words[first] * words[second])) / -math.log(joint)
        if npmi >= min_npmi and len(first) + len(second) < MAX_PHRASE_CHARACTERS:
            found.append(Phrase(first + SEPARATOR + second, count, documents[first, second], npmi))
    found.sort(key=lambda phrase: (-phrase.count, phrase.text))
    return found[:max_phrases]


def _prune(pairs: Counter, documents: Counter, floor: int) -> int:
    """Drop the pairs seen at most ``floor + 1`` times (more if that leaves over half of MAX_PAIRS) from both counts;
    the new floor."""
    while len(pairs) > MAX_PAIRS // 2:
        floor += 1
        for pair in [pair for pair, count in pairs.items() if count <= floor]:
            del pairs[pair], documents[pair]
    return floor
