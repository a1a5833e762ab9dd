"""Which language's stop words a collection needs: the share of its words each language's list holds.

A collection vectorised with the wrong language's stop words keeps its own function words
("der", "und", "les", "dans"), and they crowd into the topics' top words.  Function words
are a large share of running text in the language they belong to and a small share of any
other text (benchmarks/RESULTS.md run 55 gives the shares measured), so the list that
covers the most words names the language.

Only a sample is read, whatever the collection's size: at most :data:`SAMPLE_DOCUMENTS`
documents spread evenly over it, the first :data:`SAMPLE_CHARACTERS` characters of each.
Text is read with the token pattern it needs (:func:`engine.token_pattern_for`): Hindi and
the other scripts with combining marks as whole words, Chinese and Japanese as pairs of Han
characters and katakana words (hiragana left out).  The ``stop-words`` lists of Chinese and
Japanese hold mostly single characters and kana particles, which are never such tokens, so
their shares stay small and no language is guessed for such text; ``LanguageGuess.reads_pairs``
says it holds those characters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from engine.data.vectorizer import (
    STOP_WORD_LANGUAGES,
    TOKEN_PATTERN,
    holds_pairs,
    stop_word_list,
    token_pattern_for,
    tokenizer,
)

__all__ = ["LanguageGuess", "guess_language"]

AUTO_LANGUAGE = "auto"  # stop_words="auto" (Corpus.from_texts, the command line): the language guessed here

SAMPLE_DOCUMENTS = 500  # documents read, spread evenly over the collection
SAMPLE_CHARACTERS = 2_000  # characters read from the start of each
MIN_TOKENS = 30  # fewer words in the sample: no guess
MIN_SHARE = 0.15  # the best list must hold at least this share of the sample's words
N_EXAMPLES = 5  # LanguageGuess.examples


@dataclass(frozen=True)
class LanguageGuess:
    """What :func:`guess_language` found.

    Attributes
    ----------
    language : str or None
        The language (one of :data:`engine.STOP_WORD_LANGUAGES`) whose stop words are the
        largest share of the sample's words, if that share is at least ``MIN_SHARE`` and the
        sample holds at least ``MIN_TOKENS`` words; else None.
    share : float
        That largest share (0 for an empty sample).
    shares : dict of str to float
        Every language's share, largest first.
    n_tokens : int
        Words in the sample.
    examples : tuple of str
        The stop words of the best-covering language the sample uses most, at most five,
        most frequent first (what a wrong choice would leave in the topics).
    token_pattern : str
        How the sample was read (:func:`engine.token_pattern_for` of it).
    reads_pairs : bool
        Whether the sample holds Chinese or Japanese characters (Han or katakana), which
        that pattern reads as pairs of characters and katakana words.
    """

    language: str | None
    share: float
    shares: dict[str, float] = field(repr=False)
    n_tokens: int
    examples: tuple[str, ...] = ()
    token_pattern: str = TOKEN_PATTERN
    reads_pairs: bool = False

    def share_of(self, language: str) -> float:
        """The share of the sample's words that are ``language``'s stop words (0 for an unknown language)."""
        return self.shares.get(language, 0.0)


@cache
def _lists() -> dict[str, frozenset[str]]:
    return {language: frozenset(word.lower() for word in stop_word_list(language)) for language in STOP_WORD_LANGUAGES}


def guess_language(texts: Sequence[str]) -> LanguageGuess:
    """The language whose stop words cover the most words of ``texts`` (see the module's notes).

    Words are the tokens :class:`engine.Vectorizer` counts (two or more letters), lower
    case, accents kept (stripping them would let lists of other alphabets match).  Reads at
    most ``SAMPLE_DOCUMENTS`` x ``SAMPLE_CHARACTERS`` characters, so it costs the same on
    any collection.
    """
    n = len(texts)
    picks = np.unique(np.linspace(0, n - 1, min(n, SAMPLE_DOCUMENTS)).round().astype(np.int64)) if n else []
    sample = [text[:SAMPLE_CHARACTERS] for text in (texts[int(i)] for i in picks)
              if isinstance(text, str)]  # a table's missing cell (None, NaN) has no words
    pattern = token_pattern_for(sample)
    pairs = pattern != TOKEN_PATTERN and any(holds_pairs(text) for text in sample)
    tokens = tokenizer(pattern)
    counts: Counter[str] = Counter()
    for text in sample:
        counts.update(token.lower() for token in tokens(text))
    n_tokens = sum(counts.values())
    if not n_tokens:
        return LanguageGuess(None, 0.0, dict.fromkeys(STOP_WORD_LANGUAGES, 0.0), 0, (), pattern, pairs)
    covered = {language: sum(counts[word] for word in words if word in counts) / n_tokens
               for language, words in _lists().items()}
    shares = dict(sorted(covered.items(), key=lambda item: (-item[1], item[0])))
    language, share = next(iter(shares.items()))
    found = language if n_tokens >= MIN_TOKENS and share >= MIN_SHARE else None
    words = _lists()[language]
    examples = tuple(word for word, _ in sorted(((w, c) for w, c in counts.items() if w in words),
                                                key=lambda item: (-item[1], item[0]))[:N_EXAMPLES])
    return LanguageGuess(found, share, shares, n_tokens, examples, pattern, pairs)
