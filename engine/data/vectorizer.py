"""How raw text becomes words: the :class:`Vectorizer` settings a corpus records and a model carries.

:meth:`engine.Corpus.from_texts` tokenises with these settings (token pattern, lower
case, accent stripping, stop words) and records them on the corpus; a model trained on
that corpus keeps them (``vectorizer_``) and its model file stores them, so
``model.transform_texts(["..."])`` counts new text exactly as the training text was
counted.  Only the per-token steps are recorded: ``min_df``, ``max_df`` and
``max_features`` choose the vocabulary, which the model already holds.

Chinese and Japanese, written without spaces between words, are read as pairs of characters
(:data:`CJK_TOKEN_PATTERN`, chosen by :func:`token_pattern_for` when a text holds them).

Stop words come in languages: ``"english"`` is scikit-learn's list plus the fragments
the token pattern leaves of English contractions (the list every earlier version used);
the other languages are the lists of the ``stop-words`` package (PyPI ``stop-words``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

__all__ = ["CJK_TOKEN_PATTERN", "STOP_WORD_LANGUAGES", "STORED_TOKEN_PATTERNS", "TOKEN_PATTERN", "TextCounts",
           "Vectorizer", "stop_word_list", "token_pattern_for"]

TOKEN_PATTERN = r"(?u)\b[^\W\d_]{2,}\b"  # words of two or more letters, no digits or underscores

# Chinese and Japanese put no spaces between words, so TOKEN_PATTERN reads a whole clause as one "word"
# (and min_df then drops nearly all of them).  CJK_TOKEN_PATTERN reads them as IR systems without a
# dictionary do: every overlapping pair of Han characters (Chinese characters, Japanese kanji), each run of
# katakana whole (loanwords: "ファイル"), hiragana as the particles and endings between words (never a token,
# like one-letter words); every other word exactly as TOKEN_PATTERN reads it.  The ranges are the letters
# of those scripts (Unicode 13), each tested to be a word character.
_HAN = ("\u3005\u3006\u3400-\u4dbf\u4e00-\u9ffc\uf900-\ufa6d\ufa70-\ufad9"
        "\U00020000-\U0002a6dd\U0002a700-\U0002b734\U0002b740-\U0002b81d\U0002b820-\U0002cea1"
        "\U0002ceb0-\U0002ebe0\U0002f800-\U0002fa1d\U00030000-\U0003134a")
_KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_HIRAGANA = "\u3041-\u3096\u309d-\u309f"
_CJK = _HAN + _KATAKANA + _HIRAGANA
CJK_TOKEN_PATTERN = (
    "(?u)(?=("  # one group, read ahead so that Han pairs overlap
    f"[{_HAN}]{{2}}"
    f"|(?<![{_KATAKANA}])[{_KATAKANA}]{{2,}}(?![{_KATAKANA}])"
    f"|(?<![^\\W{_CJK}])[^\\W\\d_{_CJK}]{{2,}}(?![^\\W{_CJK}])"  # TOKEN_PATTERN's words; CJK letters end them
    f"))(?:[{_HAN}]|[{_KATAKANA}]+|[^\\W\\d_{_CJK}]+)"
)
_HOLDS_CJK = re.compile(f"[{_HAN}{_KATAKANA}]").search
_MAYBE_CJK = re.compile("[\u3005-\U0003134f]").search  # holds every letter of _HOLDS_CJK; a plain range is faster

# The token patterns a stored setting (a model file, a saved corpus) may name: the ones this project
# writes.  A file is hostile input and a regular expression can backtrack for hours on one short text
# ("(x+x+)+y"), so a pattern read from a file is never compiled unless it is one of these; patterns
# given in Python stay free.
STORED_TOKEN_PATTERNS: tuple[str, ...] = (TOKEN_PATTERN, CJK_TOKEN_PATTERN)


def token_pattern_for(texts: Iterable[Any]) -> str:
    """The token pattern texts need: :data:`CJK_TOKEN_PATTERN` if any holds a Han or katakana letter, else
    :data:`TOKEN_PATTERN` (both read every other word alike; the first is slower).  Non-strings are skipped."""
    for text in texts:
        if isinstance(text, str) and not text.isascii() and _MAYBE_CJK(text) and _HOLDS_CJK(text):
            return CJK_TOKEN_PATTERN
    return TOKEN_PATTERN


def _package_languages() -> tuple[str, ...]:
    from stop_words import AVAILABLE_LANGUAGES

    return tuple(AVAILABLE_LANGUAGES)


STOP_WORD_LANGUAGES: tuple[str, ...] = tuple(sorted({"english", *_package_languages()}))

# What the token pattern leaves of English contractions ("we've" -> "we", "ve"; "didn't" ->
# "didn", "t"): noise in every English topic, so "english" stop words include them.  "won"
# (of "won't") stays: it is also the past tense of "win".
_CONTRACTION_FRAGMENTS = frozenset((
    "ve", "ll", "don", "didn", "doesn", "isn", "wasn", "aren", "weren", "hasn", "haven", "hadn",
    "shouldn", "couldn", "wouldn", "mustn", "needn", "shan",
))


def _language(name: str) -> str:
    """The canonical language name of ``name`` (a name such as "french" or an ISO 639-1 code such as "fr")."""
    from stop_words import LANGUAGE_MAPPING

    key = name.strip().lower()
    key = LANGUAGE_MAPPING.get(key, key)
    if key not in STOP_WORD_LANGUAGES:
        raise ValueError(f"stop_words must be a language (one of {', '.join(STOP_WORD_LANGUAGES)}; or its "
                         f"two-letter code), a list of words or None, got {name!r}")
    return key


@cache
def stop_word_list(language: str) -> tuple[str, ...]:
    """The stop words of ``language`` (see :data:`STOP_WORD_LANGUAGES`), as listed, sorted.

    ``"english"`` is scikit-learn's ``ENGLISH_STOP_WORDS`` plus contraction fragments
    ("ve", "didn"...); the others come from the ``stop-words`` package.  Raises
    ValueError listing the languages for an unknown one.
    """
    language = _language(language)
    if language == "english":
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        return tuple(sorted(ENGLISH_STOP_WORDS | _CONTRACTION_FRAGMENTS))
    from stop_words import get_stop_words

    return tuple(sorted(set(get_stop_words(language, cache=False))))


_KANA_VOICING = frozenset("\u3099\u309a")  # the combining marks of ガ and パ


def strip_accents_keeping_kana(text: str) -> str:
    """``text`` with accents stripped as scikit-learn's ``strip_accents_unicode`` strips them, but kana's voicing
    marks kept: that function decomposes "データ" into テ + a combining mark and drops the mark ("テータ"); here the
    marks stay and the result is recomposed (NFC), so kana words keep their spelling.  The stripping of
    :data:`CJK_TOKEN_PATTERN` vectorizers (a setting no earlier file holds, so no stored model changes)."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if c in _KANA_VOICING or not unicodedata.combining(c)))


class TextCounts(NamedTuple):
    """New texts counted over a fixed vocabulary (:meth:`Vectorizer.count`).

    Attributes
    ----------
    counts : scipy.sparse.csr_matrix of shape (n_texts, n_words)
        Word counts over the vocabulary (int64); a row may be empty.
    unknown : ndarray of shape (n_texts,)
        Tokens of each text left out because they are not in the vocabulary (stop
        words are not counted here: they are dropped before the vocabulary is asked).
    """

    counts: sp.csr_matrix
    unknown: np.ndarray

    @property
    def known(self) -> np.ndarray:
        """Tokens of each text that are in the vocabulary, ndarray of shape (n_texts,)."""
        return np.asarray(self.counts.sum(axis=1), dtype=np.int64).ravel()


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _words(name: str, values: Any) -> tuple[str, ...]:
    if isinstance(values, str):
        raise TypeError(f"{name} must be a list of words, not the string {values!r}")
    words = tuple(values)
    bad = next((w for w in words if not isinstance(w, str)), None)
    if bad is not None:
        raise TypeError(f"{name} must be strings, got {bad!r}")
    return words


@dataclass(frozen=True)
class Vectorizer:
    """How raw text becomes tokens, recorded so new text is counted like the training text.

    The settings of scikit-learn's ``CountVectorizer`` that act on each token; the
    vocabulary itself is chosen when a corpus is built (:meth:`engine.Corpus.from_texts`).

    Parameters
    ----------
    stop_words : str, sequence of str or None
        A language of :data:`STOP_WORD_LANGUAGES` (or its two-letter code, stored as
        the name), a list of words, or None to keep every word.
    extra_stop_words : sequence of str
        Added to ``stop_words``.
    strip_accents : bool
        Replace accented letters by their base letters ("pêche" and "péché" both become
        "peche"), as scikit-learn's ``strip_accents="unicode"``.
    lowercase : bool
        Lower-case the text before tokenising.
    token_pattern : str
        Regular expression of a token (default :data:`TOKEN_PATTERN`: two or more letters).

    Stop words are normalised like the text (lower case, accents stripped as set); a
    language list's entries are split into tokens as the text is ("aujourd'hui" stops
    "aujourd" and "hui"), so every listed word is actually removed.
    """

    stop_words: str | tuple[str, ...] | None = "english"
    extra_stop_words: tuple[str, ...] = ()
    strip_accents: bool = True
    lowercase: bool = True
    token_pattern: str = TOKEN_PATTERN

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        stop_words = self.stop_words
        if isinstance(stop_words, str):
            stop_words = _language(stop_words)
        elif stop_words is not None:
            stop_words = tuple(sorted(set(_words("stop_words", stop_words))))
        set_(self, "stop_words", stop_words)
        set_(self, "extra_stop_words", _words("extra_stop_words", self.extra_stop_words))
        set_(self, "strip_accents", _flag("strip_accents", self.strip_accents))
        set_(self, "lowercase", _flag("lowercase", self.lowercase))
        if not isinstance(self.token_pattern, str):
            raise TypeError(f"token_pattern must be a regular expression (str), got {self.token_pattern!r}")
        try:
            re.compile(self.token_pattern)
        except re.error as exc:
            raise ValueError(f"token_pattern {self.token_pattern!r} is not a valid regular expression "
                             f"({exc})") from None

    # ------------------------------------------------------------- the steps
    def preprocess(self, text: str) -> str:
        """``text`` normalised as before tokenising: lower-cased and accents stripped, as set."""
        return self._preprocess()(text)

    def _preprocess(self) -> Callable[[str], str]:
        strip = self._accent_stripper()
        if self.lowercase and strip is not None:
            return lambda text: strip(text.lower())
        if self.lowercase:
            return str.lower
        if strip is not None:
            return strip
        return lambda text: text

    def _accent_stripper(self) -> Callable[[str], str] | None:
        """scikit-learn's ``strip_accents_unicode``; for Chinese and Japanese text, one that keeps kana's voicing."""
        if not self.strip_accents:
            return None
        if self.token_pattern == CJK_TOKEN_PATTERN:
            return strip_accents_keeping_kana
        from sklearn.feature_extraction.text import strip_accents_unicode

        return strip_accents_unicode

    def stop_word_set(self) -> frozenset[str]:
        """The stop words as the tokens they remove: normalised like the text."""
        preprocess, tokenize = self._preprocess(), re.compile(self.token_pattern).findall
        listed = stop_word_list(self.stop_words) if isinstance(self.stop_words, str) else (self.stop_words or ())
        words = {token for word in listed for token in tokenize(preprocess(word))}
        # extra words are taken whole, as the user typed them (only normalised)
        return frozenset(words | {preprocess(word) for word in self.extra_stop_words})

    def count_vectorizer(self, **options: Any) -> Any:
        """A scikit-learn ``CountVectorizer`` with these settings; ``options`` adds others (``min_df``...)."""
        from sklearn.feature_extraction.text import CountVectorizer

        stop_words = sorted(self.stop_word_set())
        return CountVectorizer(lowercase=self.lowercase, strip_accents=self._accent_stripper(),
                               token_pattern=self.token_pattern, stop_words=stop_words or None, dtype=np.int64,
                               **options)

    def analyzer(self) -> Callable[[str], list[str]]:
        """The function from a text to its tokens (normalised, stop words removed), as training used."""
        return self.count_vectorizer().build_analyzer()

    def count(self, texts: Iterable[str], vocabulary: Sequence[str]) -> TextCounts:
        """Count the tokens of ``texts`` over a fixed ``vocabulary``; unknown words are dropped and counted.

        For a text of the training corpus this gives its row of the training counts
        exactly (the same analyzer; the vocabulary's filters only removed columns).

        Parameters
        ----------
        texts : iterable of str
        vocabulary : sequence of str
            ``vocabulary[w]`` is the word of column ``w`` (a model's or corpus's vocabulary).

        Returns
        -------
        TextCounts
        """
        if isinstance(texts, str):
            raise TypeError("texts must be a list of texts, not one string; wrap it: [text]")
        texts = list(texts)
        bad = next((t for t in texts if not isinstance(t, str)), None)
        if bad is not None:
            raise TypeError(f"texts must be strings, got {bad!r}")
        index = {str(word): w for w, word in enumerate(vocabulary)}
        analyze = self.analyzer()
        indptr, columns, unknown = [0], [], np.zeros(len(texts), dtype=np.int64)
        for d, text in enumerate(texts):
            for token in analyze(text):
                column = index.get(token)
                if column is None:
                    unknown[d] += 1
                else:
                    columns.append(column)
            indptr.append(len(columns))
        counts = sp.csr_matrix((np.ones(len(columns), dtype=np.int64), np.asarray(columns, dtype=np.int64),
                                np.asarray(indptr, dtype=np.int64)), shape=(len(texts), len(index)))
        counts.sum_duplicates()
        return TextCounts(counts, unknown)

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        """The settings as JSON-able values (model files and saved corpora store this)."""
        stop_words = list(self.stop_words) if isinstance(self.stop_words, tuple) else self.stop_words
        return {"stop_words": stop_words, "extra_stop_words": list(self.extra_stop_words),
                "strip_accents": self.strip_accents, "lowercase": self.lowercase, "token_pattern": self.token_pattern}

    @classmethod
    def from_dict(cls, values: Any, trust_token_pattern: bool = False) -> Vectorizer:
        """The settings stored by :meth:`to_dict` (ValueError or TypeError if they are not).

        Stored settings come from files, so ``token_pattern`` must be one of
        :data:`STORED_TOKEN_PATTERNS` (a ValueError says which are allowed): a regular
        expression can take hours on a short text.  ``trust_token_pattern=True`` accepts
        any pattern, for files you wrote yourself with your own pattern.
        """
        if not isinstance(values, dict):
            raise TypeError(f"the preprocessing settings must be a JSON object, got {type(values).__name__}")
        unknown = sorted(set(values) - {"stop_words", "extra_stop_words", "strip_accents", "lowercase",
                                        "token_pattern"})
        if unknown:
            raise ValueError(f"unknown preprocessing settings {unknown}")
        pattern = values.get("token_pattern", TOKEN_PATTERN)
        if pattern not in STORED_TOKEN_PATTERNS and not trust_token_pattern:  # checked before anything compiles it
            shown = pattern if not isinstance(pattern, str) or len(pattern) <= 80 else pattern[:80] + "..."
            raise ValueError(f"token_pattern {shown!r} is not one this project writes; a stored token pattern "
                             f"must be one of {list(STORED_TOKEN_PATTERNS)} (if you wrote this file with your "
                             "own pattern, load it with trust_token_pattern=True)")
        return cls(**values)
