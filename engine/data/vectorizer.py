"""How raw text becomes words: the :class:`Vectorizer` settings a corpus records and a model carries.

:meth:`engine.Corpus.from_texts` tokenises with these settings (token pattern, lower
case, accent stripping, stop words) and records them on the corpus; a model trained on
that corpus keeps them (``vectorizer_``) and its model file stores them, so
``model.transform_texts(["..."])`` counts new text exactly as the training text was
counted.  Only the per-token steps are recorded: ``min_df``, ``max_df`` and
``max_features`` choose the vocabulary, which the model already holds.

Chinese and Japanese, written without spaces between words, are read as pairs of characters
(:data:`UNICODE_TOKEN_PATTERN`, chosen by :func:`token_pattern_for` when a text holds them).

Stop words come in languages: ``"english"`` is scikit-learn's list plus the fragments
the token pattern leaves of English contractions (the list every earlier version used);
the other languages are the lists of the ``stop-words`` package (PyPI ``stop-words``).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from engine.data.boilerplate import (
    MAX_CHARACTERS,
    MAX_LINE_CHARACTERS,
    MAX_LINES,
    BoilerplateReport,
    boilerplate_report,
    remove_boilerplate,
)
from engine.data.boilerplate import _normal as boilerplate_line
from engine.data.markup import strip_markup
from engine.data.messages import message_text

__all__ = ["STOP_WORD_LANGUAGES", "STORED_TOKEN_PATTERNS", "TOKEN_PATTERN", "UNICODE_TOKEN_PATTERN", "TextCounts",
           "Vectorizer", "languages_of", "stop_word_list", "token_pattern_for"]

TOKEN_PATTERN = r"(?u)\b[^\W\d_]{2,}\b"  # words of two or more letters, no digits or underscores

# TOKEN_PATTERN fails two kinds of script.  Chinese and Japanese put no spaces between words, so it reads a
# whole clause as one "word" (and min_df then drops nearly all of them).  And Python's \w holds no combining
# mark, so it cuts Hindi, Bengali, Tamil and the other Indic scripts at every vowel sign ("हिंदी" gives no word
# at all), and Hebrew and Arabic at their vowel points.  UNICODE_TOKEN_PATTERN reads a word as a letter
# followed by letters and combining marks (two characters or more, no digit or underscore), and Chinese and
# Japanese as IR systems without a dictionary do: every overlapping pair of Han characters (Chinese
# characters, Japanese kanji), each run of katakana whole (loanwords: "ファイル"), hiragana as the particles
# and endings between words (never a token, like one-letter words).  Text with neither reads exactly as with
# TOKEN_PATTERN (tested).  The ranges are hard-coded so that the stored pattern is the same on every Python;
# each is tested to hold letters (or marks) only.
# Thai, Lao, Tibetan, Myanmar, Khmer and the Tai scripts write no spaces between words either, and no reading
# here suits them: their marks are left out of _MARKS, so they are read as TOKEN_PATTERN reads them
# (benchmarks/RESULTS.md run 58: read whole, Thai lost more than it gained)
_UNSPACED_SCRIPTS = ((0x0E00, 0x0EFF), (0x0F00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x1950, 0x19FF),
                     (0x1A20, 0x1AAF), (0xA9E0, 0xA9FF), (0xAA60, 0xAADF))
# every combining mark (categories Mn, Mc, Me) of Unicode 14.0, generated from unicodedata, but those of the scripts
# written without spaces between words other than Chinese and Japanese (_UNSPACED_SCRIPTS)
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1-\u05c2\u05c4-\u05c5\u05c7\u0610-\u061a"
    "\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7-\u06e8\u06ea-\u06ed\u0711\u0730-\u074a"
    "\u07a6-\u07b0\u07eb-\u07f3\u07fd\u0816-\u0819\u081b-\u0823\u0825-\u0827\u0829-\u082d\u0859-\u085b"
    "\u0898-\u089f\u08ca-\u08e1\u08e3-\u0903\u093a-\u093c\u093e-\u094f\u0951-\u0957\u0962-\u0963"
    "\u0981-\u0983\u09bc\u09be-\u09c4\u09c7-\u09c8\u09cb-\u09cd\u09d7\u09e2-\u09e3\u09fe\u0a01-\u0a03"
    "\u0a3c\u0a3e-\u0a42\u0a47-\u0a48\u0a4b-\u0a4d\u0a51\u0a70-\u0a71\u0a75\u0a81-\u0a83\u0abc"
    "\u0abe-\u0ac5\u0ac7-\u0ac9\u0acb-\u0acd\u0ae2-\u0ae3\u0afa-\u0aff\u0b01-\u0b03\u0b3c\u0b3e-\u0b44"
    "\u0b47-\u0b48\u0b4b-\u0b4d\u0b55-\u0b57\u0b62-\u0b63\u0b82\u0bbe-\u0bc2\u0bc6-\u0bc8\u0bca-\u0bcd"
    "\u0bd7\u0c00-\u0c04\u0c3c\u0c3e-\u0c44\u0c46-\u0c48\u0c4a-\u0c4d\u0c55-\u0c56\u0c62-\u0c63"
    "\u0c81-\u0c83\u0cbc\u0cbe-\u0cc4\u0cc6-\u0cc8\u0cca-\u0ccd\u0cd5-\u0cd6\u0ce2-\u0ce3\u0d00-\u0d03"
    "\u0d3b-\u0d3c\u0d3e-\u0d44\u0d46-\u0d48\u0d4a-\u0d4d\u0d57\u0d62-\u0d63\u0d81-\u0d83\u0dca"
    "\u0dcf-\u0dd4\u0dd6\u0dd8-\u0ddf\u0df2-\u0df3\u135d-\u135f\u1712-\u1715\u1732-\u1734\u1752-\u1753"
    "\u1772-\u1773\u180b-\u180d\u180f\u1885-\u1886\u18a9\u1920-\u192b\u1930-\u193b\u1a17-\u1a1b"
    "\u1ab0-\u1ace\u1b00-\u1b04\u1b34-\u1b44\u1b6b-\u1b73\u1b80-\u1b82\u1ba1-\u1bad\u1be6-\u1bf3"
    "\u1c24-\u1c37\u1cd0-\u1cd2\u1cd4-\u1ce8\u1ced\u1cf4\u1cf7-\u1cf9\u1dc0-\u1dff\u20d0-\u20f0"
    "\u2cef-\u2cf1\u2d7f\u2de0-\u2dff\u302a-\u302f\u3099-\u309a\ua66f-\ua672\ua674-\ua67d\ua69e-\ua69f"
    "\ua6f0-\ua6f1\ua802\ua806\ua80b\ua823-\ua827\ua82c\ua880-\ua881\ua8b4-\ua8c5\ua8e0-\ua8f1\ua8ff"
    "\ua926-\ua92d\ua947-\ua953\ua980-\ua983\ua9b3-\ua9c0\uaa29-\uaa36\uaa43\uaa4c-\uaa4d\uaaeb-\uaaef"
    "\uaaf5-\uaaf6\uabe3-\uabea\uabec-\uabed\ufb1e\ufe00-\ufe0f\ufe20-\ufe2f\U000101fd\U000102e0"
    "\U00010376-\U0001037a\U00010a01-\U00010a03\U00010a05-\U00010a06\U00010a0c-\U00010a0f"
    "\U00010a38-\U00010a3a\U00010a3f\U00010ae5-\U00010ae6\U00010d24-\U00010d27\U00010eab-\U00010eac"
    "\U00010f46-\U00010f50\U00010f82-\U00010f85\U00011000-\U00011002\U00011038-\U00011046\U00011070"
    "\U00011073-\U00011074\U0001107f-\U00011082\U000110b0-\U000110ba\U000110c2\U00011100-\U00011102"
    "\U00011127-\U00011134\U00011145-\U00011146\U00011173\U00011180-\U00011182\U000111b3-\U000111c0"
    "\U000111c9-\U000111cc\U000111ce-\U000111cf\U0001122c-\U00011237\U0001123e\U000112df-\U000112ea"
    "\U00011300-\U00011303\U0001133b-\U0001133c\U0001133e-\U00011344\U00011347-\U00011348"
    "\U0001134b-\U0001134d\U00011357\U00011362-\U00011363\U00011366-\U0001136c\U00011370-\U00011374"
    "\U00011435-\U00011446\U0001145e\U000114b0-\U000114c3\U000115af-\U000115b5\U000115b8-\U000115c0"
    "\U000115dc-\U000115dd\U00011630-\U00011640\U000116ab-\U000116b7\U0001171d-\U0001172b"
    "\U0001182c-\U0001183a\U00011930-\U00011935\U00011937-\U00011938\U0001193b-\U0001193e\U00011940"
    "\U00011942-\U00011943\U000119d1-\U000119d7\U000119da-\U000119e0\U000119e4\U00011a01-\U00011a0a"
    "\U00011a33-\U00011a39\U00011a3b-\U00011a3e\U00011a47\U00011a51-\U00011a5b\U00011a8a-\U00011a99"
    "\U00011c2f-\U00011c36\U00011c38-\U00011c3f\U00011c92-\U00011ca7\U00011ca9-\U00011cb6"
    "\U00011d31-\U00011d36\U00011d3a\U00011d3c-\U00011d3d\U00011d3f-\U00011d45\U00011d47"
    "\U00011d8a-\U00011d8e\U00011d90-\U00011d91\U00011d93-\U00011d97\U00011ef3-\U00011ef6"
    "\U00016af0-\U00016af4\U00016b30-\U00016b36\U00016f4f\U00016f51-\U00016f87\U00016f8f-\U00016f92"
    "\U00016fe4\U00016ff0-\U00016ff1\U0001bc9d-\U0001bc9e\U0001cf00-\U0001cf2d\U0001cf30-\U0001cf46"
    "\U0001d165-\U0001d169\U0001d16d-\U0001d172\U0001d17b-\U0001d182\U0001d185-\U0001d18b"
    "\U0001d1aa-\U0001d1ad\U0001d242-\U0001d244\U0001da00-\U0001da36\U0001da3b-\U0001da6c\U0001da75"
    "\U0001da84\U0001da9b-\U0001da9f\U0001daa1-\U0001daaf\U0001e000-\U0001e006\U0001e008-\U0001e018"
    "\U0001e01b-\U0001e021\U0001e023-\U0001e024\U0001e026-\U0001e02a\U0001e130-\U0001e136\U0001e2ae"
    "\U0001e2ec-\U0001e2ef\U0001e8d0-\U0001e8d6\U0001e944-\U0001e94a\U000e0100-\U000e01ef"
)
_HAN = ("\u3005\u3006\u3400-\u4dbf\u4e00-\u9ffc\uf900-\ufa6d\ufa70-\ufad9"
        "\U00020000-\U0002a6dd\U0002a700-\U0002b734\U0002b740-\U0002b81d\U0002b820-\U0002cea1"
        "\U0002ceb0-\U0002ebe0\U0002f800-\U0002fa1d\U00030000-\U0003134a")
_KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_HIRAGANA = "\u3041-\u3096\u309d-\u309f"
_CJK = _HAN + _KATAKANA + _HIRAGANA
_LETTER = f"[^\\W\\d_{_CJK}]"  # a letter of any other script
_IN_WORD = f"(?:{_LETTER}|[{_MARKS}])"  # a letter or a combining mark
_WORD_CHARACTER = f"(?:[^\\W{_CJK}]|[{_MARKS}])"  # ... or a digit or underscore: what a word may not touch
UNICODE_TOKEN_PATTERN = (
    "(?u)(?=("  # one group, read ahead so that Han pairs overlap
    f"[{_HAN}]{{2}}"
    f"|(?<![{_KATAKANA}])[{_KATAKANA}]{{2,}}(?![{_KATAKANA}])"
    f"|(?<!{_WORD_CHARACTER}){_LETTER}{_IN_WORD}+(?!{_WORD_CHARACTER})"
    f"))(?:[{_HAN}]|[{_KATAKANA}]+|{_IN_WORD}+)"
)


def _searches(ranges: str) -> tuple[Callable, Callable]:
    """Searches for the characters of a class given as ranges: one for its part in the Basic Multilingual Plane
    and one for the rest.  Python's re searches a class with ranges beyond the BMP 40 times slower, so the second
    runs only on text that holds such characters at all (checked by one plain range)."""
    parts = re.findall(r"(.)(?:-(.))?", ranges, re.DOTALL)
    bmp = "".join(a + (f"-{b}" if b else "") for a, b in parts if ord(b or a) <= 0xFFFF)
    astral = "".join(a + (f"-{b}" if b else "") for a, b in parts if ord(b or a) > 0xFFFF)
    return re.compile(f"[{bmp}]").search, re.compile(f"[{astral}]").search


_ASTRAL = re.compile("[\U00010000-\U0010ffff]").search
_NEEDS_UNICODE = _searches(_HAN + _KATAKANA + _MARKS)
_READ_APART = _searches(_CJK + _MARKS)  # where the two patterns' tokens can differ: hiragana too
_PAIRED = _searches(_HAN + _KATAKANA)


def _holds(searches: tuple[Callable, Callable], text: str) -> bool:
    bmp, astral = searches
    return not text.isascii() and (bmp(text) is not None or (_ASTRAL(text) is not None and astral(text) is not None))

# The token patterns a stored setting (a model file, a saved corpus) may name: the ones this project
# writes.  A file is hostile input and a regular expression can backtrack for hours on one short text
# ("(x+x+)+y"), so a pattern read from a file is never compiled unless it is one of these; patterns
# given in Python stay free.
STORED_TOKEN_PATTERNS: tuple[str, ...] = (TOKEN_PATTERN, UNICODE_TOKEN_PATTERN)


def token_pattern_for(texts: Iterable[Any]) -> str:
    """The token pattern texts need: :data:`UNICODE_TOKEN_PATTERN` if any holds a Han or katakana letter or a
    combining mark (an Indic vowel sign, a Hebrew point, an accent written apart), else :data:`TOKEN_PATTERN`
    (both read every other word alike; the first is slower).  Non-strings are skipped."""
    for text in texts:
        if isinstance(text, str) and _holds(_NEEDS_UNICODE, text):
            return UNICODE_TOKEN_PATTERN
    return TOKEN_PATTERN


@cache
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern)


def _findall(pattern: str) -> Callable[[str], list[str]]:
    return _compiled(pattern).findall


def unicode_tokens(text: str) -> list[str]:
    """The tokens :data:`UNICODE_TOKEN_PATTERN` finds in ``text``, found by the faster :data:`TOKEN_PATTERN` when
    ``text`` holds no Han, kana or combining mark (where the two find the same tokens; tested).  A collection
    with one such text in it is read with the new pattern; this keeps its other texts at the old speed."""
    return _findall(UNICODE_TOKEN_PATTERN if _holds(_READ_APART, text) else TOKEN_PATTERN)(text)


def tokenizer(pattern: str) -> Callable[[str], list[str]]:
    """The function from a text to ``pattern``'s tokens: :func:`unicode_tokens` for :data:`UNICODE_TOKEN_PATTERN`,
    the compiled pattern's ``findall`` (compiled once) for any other."""
    return unicode_tokens if pattern == UNICODE_TOKEN_PATTERN else _findall(pattern)


def holds_pairs(text: str) -> bool:
    """Whether ``text`` holds a Han or katakana letter (what :data:`UNICODE_TOKEN_PATTERN` reads as pairs and
    katakana words)."""
    return _holds(_PAIRED, text)


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


LANGUAGE_JOIN = "+"  # "english+french": the stop words of both, for a collection written in both
DOCUMENT_WORDS = 20  # words a paragraph or document needs for its own language to be chosen among several


PARAGRAPH = re.compile(r"\n[^\S\n]*\n\s*")  # a blank line: where a paragraph ends


class _DocumentLanguages:
    """The analyzer of a collection in several languages: each paragraph (text between blank lines) of at least
    DOCUMENT_WORDS words without the stop words of its own language (the list that holds most of its words, the
    first on a tie); a shorter one without those of its document's language, found the same way, or of every
    list if the document too is shorter; the extra stop words always."""

    def __init__(self, preprocess: Callable[[str], str], tokenize: Callable[[str], list[str]],
                 lists: tuple[frozenset[str], ...], extra: frozenset[str], pattern: str = TOKEN_PATTERN):
        self.preprocess, self.tokenize, self.lists, self.extra = preprocess, tokenize, lists, extra
        self.pattern = pattern  # what tokenize finds (for runs)
        self.everything = frozenset().union(*lists) | extra

    def _own(self, tokens: list[str], otherwise: frozenset[str]) -> frozenset[str]:
        if len(tokens) < DOCUMENT_WORDS:
            return otherwise
        held = [sum(token in listed for token in tokens) for listed in self.lists]
        return self.lists[held.index(max(held))] | self.extra

    def __call__(self, text: str) -> list[str]:
        kept = []
        for tokens, stop in self._paragraphs(PARAGRAPH.split(self.preprocess(text))):
            kept.extend(token for token in tokens if token not in stop)
        return kept

    def runs(self, text: str) -> list[list[str]]:
        """The tokens of ``text`` this analyzer keeps, as runs of tokens side by side (:meth:`Vectorizer.runs`)."""
        paragraphs = PARAGRAPH.split(self.preprocess(text))
        return [run for paragraph, (_, stop) in zip(paragraphs, self._paragraphs(paragraphs), strict=True)
                for run in _runs(paragraph, stop, self.pattern)]

    def _paragraphs(self, paragraphs: list[str]) -> list[tuple[list[str], frozenset[str]]]:
        """Each paragraph's tokens and the stop words it is read with."""
        tokens = [self.tokenize(paragraph) for paragraph in paragraphs]
        document = self._own([token for paragraph in tokens for token in paragraph], self.everything)
        return [(paragraph, self._own(paragraph, document)) for paragraph in tokens]


SEPARATOR = " "  # between the two words of a phrase, as the vocabulary writes it (engine.data.phrases)
MAX_PHRASES = 10_000  # phrases a vectorizer keeps at most: model files stay small
MAX_PHRASE_CHARACTERS = 200  # the longest phrase a vectorizer keeps


def join_runs(runs: Iterable[list[str]], pairs: frozenset[tuple[str, str]] | set[tuple[str, str]]) -> list[str]:
    """The tokens of ``runs`` with each pair of ``pairs`` that stands side by side in a run joined into one
    phrase token ("health", "care" -> "health care"), read from the left (a token joins at most once)."""
    tokens = []
    for run in runs:
        i, n = 0, len(run)
        while i < n:
            if i + 1 < n and (run[i], run[i + 1]) in pairs:
                tokens.append(run[i] + SEPARATOR + run[i + 1])
                i += 2
            else:
                tokens.append(run[i])
                i += 1
    return tokens


# What may stand between two tokens side by side (engine.data.phrases): spaces and hyphens (and at most one line
# break, checked apart)
_SIDE_BY_SIDE = re.compile(r"[\s\-\u2010\u2011]*")


def side_by_side(text: str, end: int, start: int) -> bool:
    """Whether a token of ``text`` that ends at ``end`` and the next, which starts at ``start``, stand side by side:
    only spaces, hyphens and at most one line break between them (they do not overlap)."""
    gap = text[end:start]
    return gap == " " or (start >= end and _SIDE_BY_SIDE.fullmatch(gap) is not None and gap.count("\n") <= 1)


def _runs(text: str, stop: frozenset[str], pattern: str) -> list[list[str]]:
    """The tokens of ``text`` that ``pattern`` finds (:data:`UNICODE_TOKEN_PATTERN`: as :func:`unicode_tokens` finds
    them) and ``stop`` does not hold, cut into runs wherever anything but spaces, hyphens and one line break stands
    between two of them: punctuation, a symbol, a number, a stop word, a paragraph break.  Tokens that overlap
    (pairs of Chinese characters) are never side by side."""
    if pattern == UNICODE_TOKEN_PATTERN and not _holds(_READ_APART, text):
        pattern = TOKEN_PATTERN  # the same tokens, faster (unicode_tokens)
    compiled = _compiled(pattern)
    group = 1 if compiled.groups else 0
    runs: list[list[str]] = []
    run: list[str] = []
    end = 0
    for match in compiled.finditer(text):
        start, token_end = match.span(group)
        token = match.group(group)
        if token in stop:
            if run:
                runs.append(run)
                run = []
        else:
            if run and not side_by_side(text, end, start):
                runs.append(run)
                run = []
            run.append(token)
        end = token_end
    if run:
        runs.append(run)
    return runs


def _boilerplate(lines: Any) -> tuple[str, ...]:
    """``lines`` checked: a sequence of at most MAX_LINES distinct lines (MAX_CHARACTERS in all) as find_boilerplate
    gives them (whitespace collapsed, not blank, not too long), kept in order."""
    if isinstance(lines, str) or not isinstance(lines, (tuple, list)):
        raise TypeError(f"boilerplate must be a list of lines, got {type(lines).__name__}")
    if len(lines) > MAX_LINES:
        raise ValueError(f"boilerplate holds {len(lines)} lines; at most {MAX_LINES} are stored")
    for line in lines:
        if not isinstance(line, str) or not line or boilerplate_line(line) != line:
            raise ValueError(f"boilerplate lines must be non-empty text with single spaces and no line breaks "
                             f"(at most {MAX_LINE_CHARACTERS} characters), got {str(line)[:80]!r}")
    if len(set(lines)) != len(lines):
        raise ValueError("boilerplate lines must be distinct")
    if sum(len(line) for line in lines) > MAX_CHARACTERS:
        raise ValueError(f"boilerplate holds more than {MAX_CHARACTERS} characters")
    return tuple(lines)


def _phrases(values: Any) -> tuple[str, ...]:
    """``values`` checked: at most MAX_PHRASES distinct phrases, each two tokens joined by one space, in order."""
    phrases = tuple(dict.fromkeys(_words("phrases", values)))
    if len(phrases) > MAX_PHRASES:
        raise ValueError(f"phrases holds {len(phrases):,} phrases; at most {MAX_PHRASES:,} are kept")
    bad = next((p for p in phrases if len(p.split(SEPARATOR)) != 2
                or any(not word or word != "".join(word.split()) for word in p.split(SEPARATOR))), None)
    if bad is not None:
        raise ValueError(f"phrases must be two words joined by one space (\"health care\"), got {bad[:80]!r}")
    long = next((p for p in phrases if len(p) > MAX_PHRASE_CHARACTERS), None)
    if long is not None:
        raise ValueError(f"a phrase may have at most {MAX_PHRASE_CHARACTERS} characters, got one of {len(long)} "
                         f"({long[:40]!r}...)")
    return phrases


MAX_WORD_FORMS = 100_000  # word forms a vectorizer merges at most: model files stay small
MAX_WORD_CHARACTERS = 100  # the longest form or word it merges


def _word_forms(values: Any) -> tuple[tuple[str, str], ...]:
    """``values`` (a mapping or (form, word) pairs) checked: at most MAX_WORD_FORMS forms, each a token mapped to
    another, no form given twice and no word that is itself a form; sorted by form."""
    if isinstance(values, str):
        raise TypeError(f"word_forms must map forms to words ({{'taxes': 'tax'}}), not the string {values[:80]!r}")
    pairs = list(values.items()) if isinstance(values, Mapping) else list(values)
    if len(pairs) > MAX_WORD_FORMS:
        raise ValueError(f"word_forms holds {len(pairs):,} forms; at most {MAX_WORD_FORMS:,} are kept")
    heads: dict[str, str] = {}
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not all(isinstance(w, str) for w in pair):
            raise TypeError(f"word_forms must map forms to words, strings each ({{'taxes': 'tax'}}), got {pair!r:.80}")
        form, word = pair
        bad = next((w for w in pair if not w or w != "".join(w.split()) or len(w) > MAX_WORD_CHARACTERS), None)
        if bad is not None:
            raise ValueError(f"word_forms must map single words of at most {MAX_WORD_CHARACTERS} characters, without "
                             f"spaces, got {bad[:80]!r}")
        if form == word or heads.get(form, word) != word:
            raise ValueError(f"word_forms maps {form!r} to {word!r}" + (
                "" if form == word else f" and to {heads[form]!r}") + ": map each form once, to another word")
        heads[form] = word
    chained = next((form for form, word in heads.items() if word in heads), None)
    if chained is not None:
        raise ValueError(f"word_forms maps {chained!r} to {heads[chained]!r}, which is itself mapped to "
                         f"{heads[heads[chained]]!r}; map every form straight to the word it is counted as")
    return tuple(sorted(heads.items()))


class _FormReader:
    """An analyzer with word forms merged: ``tokens``' tokens, each form replaced by its word, then the extra stop
    words left out again, with the word of each that is a form: any form of a word listed stops the word and all
    its forms."""

    def __init__(self, tokens: Callable[[str], list[str]], heads: dict[str, str], extra: frozenset[str]):
        self.tokens, self.heads = tokens, heads
        self.extra = extra | {heads[word] for word in extra if word in heads}

    def __call__(self, text: str) -> list[str]:
        get, extra = self.heads.get, self.extra
        merged = [get(token, token) for token in self.tokens(text)]
        return [token for token in merged if token not in extra] if extra else merged


def _language(name: str) -> str:
    """The canonical name of ``name``: a language name such as "french" or an ISO 639-1 code such as "fr"; or
    several joined by "+" ("english+fr" gives "english+french"; repeats are dropped, the order is kept)."""
    from stop_words import LANGUAGE_MAPPING

    parts = []
    for part in name.split(LANGUAGE_JOIN):
        key = part.strip().lower()
        key = LANGUAGE_MAPPING.get(key, key)
        if key not in STOP_WORD_LANGUAGES:
            raise ValueError(f"stop_words must be a language (one of {', '.join(STOP_WORD_LANGUAGES)}; or its "
                             f"two-letter code; or several joined by '+', as in 'english+french'), a list of words "
                             f"or None, got {name!r}")
        if key not in parts:
            parts.append(key)
    return LANGUAGE_JOIN.join(parts)


def languages_of(name: str) -> tuple[str, ...]:
    """The languages a stop-word language name holds: ("english", "french") for "english+fr"."""
    return tuple(_language(name).split(LANGUAGE_JOIN))


@cache
def stop_word_list(language: str) -> tuple[str, ...]:
    """The stop words of ``language`` (see :data:`STOP_WORD_LANGUAGES`), as listed, sorted.

    ``"english"`` is scikit-learn's ``ENGLISH_STOP_WORDS`` plus contraction fragments
    ("ve", "didn"...); the others come from the ``stop-words`` package.  Several languages
    joined by "+" ("english+french") give the union of their lists.  Raises ValueError
    listing the languages for an unknown one.
    """
    languages = languages_of(language)
    if len(languages) > 1:
        return tuple(sorted(set().union(*(stop_word_list(part) for part in languages))))
    language = languages[0]
    if language == "english":
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        return tuple(sorted(ENGLISH_STOP_WORDS | _CONTRACTION_FRAGMENTS))
    from stop_words import get_stop_words

    return tuple(sorted(set(get_stop_words(language, cache=False))))


# what accent stripping removes: the combining diacritics of Latin, Greek and Cyrillic letters, and the optional
# vowel points and cantillation of Hebrew and the optional vowel marks (tashkeel) of Arabic, which most text omits
_ACCENTS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
                      "\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7"
                      "\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed]")


def strip_accents_keeping_scripts(text: str) -> str:
    """``text`` with accents stripped as scikit-learn's ``strip_accents_unicode`` strips them from Latin, Greek
    and Cyrillic letters, and Hebrew and Arabic vowel points with them, but the marks that other scripts spell
    with kept: that function drops every combining mark of a nonzero combining class, so "データ" lost its
    voicing ("テータ") and Hindi its viramas ("परीक्षण" became "परीकषण").  The rest is recomposed (NFC).  The
    stripping of :data:`UNICODE_TOKEN_PATTERN` vectorizers (files with :data:`TOKEN_PATTERN` keep
    scikit-learn's, as they were made with it)."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _ACCENTS.sub("", unicodedata.normalize("NFKD", text)))


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
        the name), several joined by "+" for a collection written in more than one
        ("english+french": each paragraph loses the stop words of its own language,
        see :meth:`count_vectorizer`), a list of words, or None to keep every word.
    extra_stop_words : sequence of str
        Added to ``stop_words``.
    strip_accents : bool
        Replace accented letters by their base letters ("pêche" and "péché" both become
        "peche"), as scikit-learn's ``strip_accents="unicode"``; with
        :data:`UNICODE_TOKEN_PATTERN`, :func:`strip_accents_keeping_scripts`.
    lowercase : bool
        Lower-case the text before tokenising.
    token_pattern : str
        Regular expression of a token (default :data:`TOKEN_PATTERN`: two or more letters;
        :data:`UNICODE_TOKEN_PATTERN`: words of every script, see :func:`token_pattern_for`).
    strip_markup : bool
        Remove HTML or XML markup (tags, comments, scripts and styles; character references
        read) before anything else but ``strip_messages`` (:func:`engine.data.markup.strip_markup`), for text
        scraped from or saved as web pages.  Files written before it existed read False.
    strip_messages : bool
        Read e-mail and newsgroup messages as their subject and what their sender wrote,
        without header lines, quoted replies and signatures, before anything else
        (:func:`engine.data.messages.message_text`; other texts are read as they are).
        Files written before it existed read False.
    boilerplate : sequence of str
        Repeated lines to leave out (:func:`engine.data.boilerplate.find_boilerplate` finds
        them in a collection): every run of them holding enough words is removed from a text,
        after its markup, before its words are read.  Files written before it existed read ().
    phrases : sequence of str
        Pairs of words read as one token where they stand side by side ("health care": two words
        joined by one space, normalised like the text), as :func:`engine.find_phrases` finds them
        in a collection (:meth:`runs` says what side by side means).  At most 10,000.  Files
        written before it existed read ().
    word_forms : mapping of str to str
        Forms of a word counted as that word ({"taxes": "tax", "children": "child"}), as
        :func:`engine.find_word_forms` finds them in a collection: each token that is a form
        (after stop words and phrases) is replaced by its word, so the vocabulary holds the word
        alone.  At most 100,000 forms; a word may not itself be a form.  Stored as (form, word)
        pairs sorted by form; files written before it existed read ().

    Stop words are normalised like the text (lower case, accents stripped as set); a
    language list's entries are split into tokens as the text is ("aujourd'hui" stops
    "aujourd" and "hui"), so every listed word is actually removed.
    """

    stop_words: str | tuple[str, ...] | None = "english"
    extra_stop_words: tuple[str, ...] = ()
    strip_accents: bool = True
    lowercase: bool = True
    token_pattern: str = TOKEN_PATTERN
    strip_markup: bool = False
    boilerplate: tuple[str, ...] = ()
    strip_messages: bool = False
    phrases: tuple[str, ...] = ()
    word_forms: tuple[tuple[str, str], ...] = ()

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
        set_(self, "strip_markup", _flag("strip_markup", self.strip_markup))
        set_(self, "strip_messages", _flag("strip_messages", self.strip_messages))
        set_(self, "boilerplate", _boilerplate(self.boilerplate))
        set_(self, "_boilerplate_lines", frozenset(self.boilerplate))  # looked up once per line read
        set_(self, "phrases", _phrases(self.phrases))
        set_(self, "_phrase_pairs", frozenset(tuple(phrase.split(SEPARATOR)) for phrase in self.phrases))
        set_(self, "word_forms", _word_forms(self.word_forms))
        set_(self, "_form_heads", dict(self.word_forms))
        if not isinstance(self.token_pattern, str):
            raise TypeError(f"token_pattern must be a regular expression (str), got {self.token_pattern!r}")
        try:
            re.compile(self.token_pattern)
        except re.error as exc:
            raise ValueError(f"token_pattern {self.token_pattern!r} is not a valid regular expression "
                             f"({exc})") from None

    # ------------------------------------------------------------- the steps
    def preprocess(self, text: str) -> str:
        """``text`` normalised as before tokenising: lower-cased and accents stripped, as set (a word's
        normal form; markup is removed by :meth:`readable`)."""
        return self._preprocess()(text)

    def readable(self, text: str) -> str:
        """``text`` as its words are read: a message as its sender wrote it if ``strip_messages`` is set, then
        without its markup if ``strip_markup`` is, then without its blocks of ``boilerplate`` lines."""
        text = self._before_boilerplate(text)
        return remove_boilerplate(text, self._boilerplate_lines) if self.boilerplate else text

    def boilerplate_report(self, texts: Iterable[str]) -> BoilerplateReport:
        """The blocks of ``boilerplate`` lines that reading ``texts`` leaves out, how many texts hold each and the
        words they take (:func:`engine.boilerplate_report`; each text read as a message and without its markup
        first, as set)."""
        return boilerplate_report((self._before_boilerplate(text) for text in texts), self._boilerplate_lines)

    def runs(self, text: str) -> list[list[str]]:
        """The tokens of ``text`` this vectorizer keeps (before any phrase is joined), cut into runs of tokens that
        stand side by side: only spaces, hyphens or one line break between them, no punctuation, symbol,
        number, stop word or paragraph break.  Joined, the runs are the tokens read without ``phrases``.

        Examples
        --------
        >>> Vectorizer().runs("Health-care costs, in the United States, rose.")
        [['health', 'care', 'costs'], ['united', 'states'], ['rose']]
        """
        return self.run_reader()(text)

    def word_of(self, token: str) -> str:
        """The word ``token`` (a normalised token, or a phrase) is counted as: its word if it is one of
        ``word_forms``, else itself."""
        return self._form_heads.get(token, token)

    def other_forms(self) -> dict[str, tuple[str, ...]]:
        """Each word that ``word_forms`` counts other forms as, with those forms in alphabetical order
        ({"tax": ("taxed", "taxes")})."""
        others: dict[str, list[str]] = {}
        for form, word in self.word_forms:  # sorted by form
            others.setdefault(word, []).append(form)
        return {word: tuple(forms) for word, forms in others.items()}

    def run_reader(self) -> Callable[[str], list[list[str]]]:
        """The function :meth:`runs` applies, its stop words and patterns prepared once (for many texts)."""
        reader = self._reader()
        languages = languages_of(self.stop_words) if isinstance(self.stop_words, str) else ()
        if len(languages) > 1:
            return _DocumentLanguages(reader, tokenizer(self.token_pattern),
                                      tuple(self._tokens_of(stop_word_list(name)) for name in languages),
                                      self._extra_tokens(), self.token_pattern).runs
        stop, pattern = self.stop_word_set(), self.token_pattern
        return lambda text: _runs(reader(text), stop, pattern)

    def _joiner(self) -> Callable[[str], list[str]]:
        """The analyzer of a vectorizer with ``phrases``: a text's tokens with the phrases joined (and an extra stop
        word that is a phrase left out)."""
        runs, pairs, stop = self.run_reader(), self._phrase_pairs, self._extra_tokens()
        return lambda text: [token for token in join_runs(runs(text), pairs) if token not in stop]

    def _reader(self) -> Callable[[str], str]:
        """The function from a text to the normalised text its tokens are found in: :meth:`readable` (where it
        changes anything), then :meth:`preprocess`."""
        normalise = self._preprocess()
        if not (self.strip_markup or self.strip_messages or self.boilerplate):
            return normalise
        readable = self.readable
        return lambda text: normalise(readable(text))

    def _before_boilerplate(self, text: str) -> str:
        """``text`` as :meth:`readable` reads it before its boilerplate is left out."""
        text = message_text(text) if self.strip_messages else text
        return strip_markup(text) if self.strip_markup else text

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
        """scikit-learn's ``strip_accents_unicode``; with :data:`UNICODE_TOKEN_PATTERN`, one that keeps the marks
        of scripts other than Latin, Greek and Cyrillic."""
        if not self.strip_accents:
            return None
        if self.token_pattern == UNICODE_TOKEN_PATTERN:
            return strip_accents_keeping_scripts
        from sklearn.feature_extraction.text import strip_accents_unicode

        return strip_accents_unicode

    def stop_word_set(self) -> frozenset[str]:
        """The stop words as the tokens they remove: normalised like the text.  For several languages
        ("english+french"), those of every list (each paragraph is read with its own language's list:
        :meth:`count_vectorizer`)."""
        listed = stop_word_list(self.stop_words) if isinstance(self.stop_words, str) else (self.stop_words or ())
        return self._tokens_of(listed) | self._extra_tokens()

    def _tokens_of(self, listed: Iterable[str]) -> frozenset[str]:
        """The tokens the listed words are read as (a list's entries split as the text is)."""
        preprocess, tokenize = self._preprocess(), re.compile(self.token_pattern).findall
        return frozenset(token for word in listed for token in tokenize(preprocess(word)))

    def _extra_tokens(self) -> frozenset[str]:
        """The extra stop words, taken whole, as the user typed them (only normalised)."""
        preprocess = self._preprocess()
        return frozenset(preprocess(word) for word in self.extra_stop_words)

    def count_vectorizer(self, **options: Any) -> Any:
        """A scikit-learn ``CountVectorizer`` with these settings; ``options`` adds others (``min_df``...).

        With several stop-word languages ("english+french") each paragraph (the text between
        blank lines) of at least :data:`DOCUMENT_WORDS` words is read with the list of its own
        language: the one of them that holds most of its words.  A shorter paragraph takes its
        document's language, found the same way, and a document shorter than that every list.
        So English text keeps "car" and French text loses "car" ("because"), and the English
        passages of a French page lose "the" and "of".

        With ``phrases``, each pair of them that stands side by side is one token (:meth:`runs`); an
        extra stop word may be a phrase ("new york").  With ``word_forms``, each form is then counted as its
        word, and an extra stop word that is any form of a word stops the word and all its forms.
        """
        from sklearn.feature_extraction.text import CountVectorizer

        if self.word_forms:
            tokens = dataclasses.replace(self, word_forms=()).count_vectorizer().build_analyzer()
            return CountVectorizer(analyzer=_FormReader(tokens, self._form_heads, self._extra_tokens()),
                                   token_pattern=None, dtype=np.int64, **options)
        if self.phrases:
            return CountVectorizer(analyzer=self._joiner(), token_pattern=None, dtype=np.int64, **options)

        tokens = {"tokenizer": unicode_tokens, "token_pattern": None} if self.token_pattern == UNICODE_TOKEN_PATTERN \
            else {"token_pattern": self.token_pattern}  # the same tokens, each text by the faster pattern it allows
        if self.strip_markup or self.strip_messages or self.boilerplate:  # scikit-learn then calls this alone
            tokens["preprocessor"] = self._reader()
        languages = languages_of(self.stop_words) if isinstance(self.stop_words, str) else ()
        if len(languages) > 1:
            reading = CountVectorizer(lowercase=self.lowercase, strip_accents=self._accent_stripper(), **tokens)
            analyzer = _DocumentLanguages(reading.build_preprocessor(), reading.build_tokenizer(),
                                          tuple(self._tokens_of(stop_word_list(name)) for name in languages),
                                          self._extra_tokens())
            return CountVectorizer(analyzer=analyzer, token_pattern=None, dtype=np.int64, **options)
        stop_words = sorted(self.stop_word_set())
        return CountVectorizer(lowercase=self.lowercase, strip_accents=self._accent_stripper(), **tokens,
                               stop_words=stop_words or None, dtype=np.int64, **options)

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
                "strip_accents": self.strip_accents, "lowercase": self.lowercase, "token_pattern": self.token_pattern,
                "strip_markup": self.strip_markup, "boilerplate": list(self.boilerplate),
                "strip_messages": self.strip_messages, "phrases": list(self.phrases),
                "word_forms": dict(self.word_forms)}

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
                                        "token_pattern", "strip_markup", "boilerplate", "strip_messages",
                                        "phrases", "word_forms"})
        if unknown:
            raise ValueError(f"unknown preprocessing settings {unknown}")
        pattern = values.get("token_pattern", TOKEN_PATTERN)
        if pattern not in STORED_TOKEN_PATTERNS and not trust_token_pattern:  # checked before anything compiles it
            shown = pattern if not isinstance(pattern, str) or len(pattern) <= 80 else pattern[:80] + "..."
            raise ValueError(f"token_pattern {shown!r} is not one this project writes; a stored token pattern "
                             f"must be one of {list(STORED_TOKEN_PATTERNS)} (if you wrote this file with your "
                             "own pattern, load it with trust_token_pattern=True)")
        values = dict(values)
        for name in ("boilerplate", "phrases"):
            if isinstance(values.get(name), list):
                values[name] = tuple(values[name])
        if "word_forms" in values and not isinstance(values["word_forms"], dict):
            raise TypeError("word_forms must be a JSON object mapping forms to words, got "
                            f"{type(values['word_forms']).__name__}")
        return cls(**values)
