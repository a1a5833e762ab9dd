"""Word forms: the inflected forms of one word read as that word.

"tax" and "taxes", "child" and "children", "say", "says" and "said": read as they are written,
each form is its own vocabulary word, so a topic spends two or three of its top words on one idea
and the forms' counts are split.  :func:`find_word_forms` groups the words of a collection by their
dictionary form (lemma), and a :class:`engine.Vectorizer` whose ``word_forms`` maps each form to
its group's word counts them as one (``engine.Corpus.from_texts(..., merge_word_forms=True)``).

A group is shown as the form the collection writes most often ("taxes" if it writes "taxes" more
than "tax"), never as a lemma it does not use, so topics read as the documents do.  The lemmas come
from the dictionaries of Adrien Barbaresi's simplemma (28 of the stop-word languages, see
:data:`WORD_FORM_LANGUAGES`), looked up word by word without the sentence: a form with two readings
takes the dictionary's first ("media" is counted with "medium", "goods" with "good"), and a word
the dictionary does not know keeps its own form.  A form whose first :data:`SHARED_LETTERS` letters
are not its lemma's stays apart, so irregular forms that are often other words ("better" and "best"
of "good", "saw" of "see", "men" of "man") are not merged, while "children" and "said" are.
Accented forms are looked up as written, before accents are stripped ("été" is a form of "être").
For a collection in several languages ("english+french") a word takes the lemma of the first
language whose dictionary knows it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from functools import cache
from typing import NamedTuple

from engine.data.vectorizer import MAX_WORD_CHARACTERS, MAX_WORD_FORMS, SEPARATOR, Vectorizer, languages_of

__all__ = ["WORD_FORM_LANGUAGES", "WordForm", "find_word_forms", "has_word_forms", "merged_forms",
           "word_form_languages"]

# simplemma's code for each stop-word language it has a dictionary of (the others: chinese, gujarati, japanese,
# korean, vietnamese)
_CODES = {
    "arabic": "ar", "bulgarian": "bg", "catalan": "ca", "czech": "cs", "danish": "da", "dutch": "nl",
    "english": "en", "finnish": "fi", "french": "fr", "german": "de", "greek": "el", "hebrew": "he",
    "hindi": "hi", "hungarian": "hu", "indonesian": "id", "italian": "it", "malaysian": "ms", "norwegian": "nb",
    "persian": "fa", "polish": "pl", "portuguese": "pt", "romanian": "ro", "russian": "ru", "slovak": "sk",
    "spanish": "es", "swedish": "sv", "turkish": "tr", "ukrainian": "uk",
}
WORD_FORM_LANGUAGES: tuple[str, ...] = tuple(sorted(_CODES))
SHARED_LETTERS = 2  # a form joins its lemma's group only if both start with the same letters, this many


class WordForm(NamedTuple):
    """A word and its forms, as :func:`find_word_forms` found them.

    Attributes
    ----------
    word : str
        The form the texts write most often, which the group is counted and shown as.
    forms : tuple of str
        Every form of the group, ``word`` first, then by how often the texts write them.
    counts : tuple of int
        Times the texts write each of ``forms``.
    """

    word: str
    forms: tuple[str, ...]
    counts: tuple[int, ...]


def word_form_languages(language: str) -> tuple[str, ...]:
    """The languages of ``language`` (a stop-word language name or code, several joined by "+") whose word forms
    are known; ValueError, naming those that are, if none of them is."""
    languages = languages_of(language)
    known = tuple(name for name in languages if name in _CODES)
    if not known:
        raise ValueError(f"no word forms are known for {'+'.join(languages)}; they are for "
                         f"{', '.join(WORD_FORM_LANGUAGES)}")
    return known


def has_word_forms(language: str | None) -> bool:
    """Whether the forms of words in ``language`` (a stop-word language, several joined by "+") are known, in one
    of its languages at least (False for None or a list of stop words)."""
    return isinstance(language, str) and any(name in _CODES for name in languages_of(language))


def find_word_forms(texts: Iterable[str], vectorizer: Vectorizer | None = None, *,
                    language: str | None = None) -> list[WordForm]:
    """The words of ``texts`` written in two forms or more, each group to be counted as one word.

    Parameters
    ----------
    texts : iterable of str
    vectorizer : Vectorizer, optional
        How the texts are read: their tokens, stop words, phrases and normal form (default
        ``engine.Vectorizer()``).  Its own ``word_forms`` are ignored; a phrase is never merged.
    language : str, optional
        The texts' language, a name or code of :data:`WORD_FORM_LANGUAGES` or several joined by "+"
        (languages without word forms among them are passed over).  Default: the vectorizer's
        stop-word language; ValueError if it has none (a list of stop words, or None).

    Returns
    -------
    list of WordForm
        The groups of two forms or more, the most frequent first (by the times all their forms are
        written; ties by word); at most as many as keep 100,000 forms (:meth:`Vectorizer.word_forms`).

    Examples
    --------
    >>> texts = ["Taxes rose.", "The tax bill and new taxes.", "Their children and one child."]
    >>> [(g.word, g.forms) for g in find_word_forms(texts)]
    [('taxes', ('taxes', 'tax')), ('child', ('child', 'children'))]
    """
    if isinstance(texts, str):
        raise TypeError("texts must be a list of texts, not one string; wrap it: [text]")
    reading = Vectorizer() if vectorizer is None else vectorizer
    if not isinstance(reading, Vectorizer):
        raise TypeError(f"vectorizer must be an engine.Vectorizer, got {type(reading).__name__}")
    if language is None:
        if not isinstance(reading.stop_words, str):
            raise ValueError("say which language the texts are in (language='english'): the vectorizer's stop words "
                             "are a list of words or None, which name none")
        language = reading.stop_words
    if not isinstance(language, str):
        raise TypeError(f"language must be a language name such as 'english', got {language!r}")
    codes = tuple(_CODES[name] for name in word_form_languages(language))
    written = Counter()  # the tokens as written
    # accents kept, so the dictionary can find the words; extra stop words kept, so that one of them is grouped with
    # its other forms and stops them all (Vectorizer.count_vectorizer)
    analyze = dataclasses.replace(reading, strip_accents=False, word_forms=(), extra_stop_words=()).analyzer()
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"texts must be strings, got {text!r}")
        written.update(analyze(text))
    normal = reading._preprocess()  # Vectorizer.preprocess, built once
    lemma = _lemmatizer(codes)
    groups: dict[str, Counter] = {}  # lemma -> the normalised forms and their counts
    chosen: dict[str, tuple[int, str]] = {}  # normalised form -> (count, lemma) of its most written spelling
    written = {token: count for token, count in written.items()  # a phrase, or a "word" too long to be one
               if SEPARATOR not in token and len(token) <= MAX_WORD_CHARACTERS}
    normalised = [(normal(token), token, count) for token, count in written.items()]
    for form, token, count in normalised:
        key = normal(lemma(token).lower())
        if key[:SHARED_LETTERS] != form[:SHARED_LETTERS]:  # "better" -> "good", "saw" -> "see": kept apart
            key = form
        if count > chosen.get(form, (0, ""))[0]:
            chosen[form] = (count, key)
    for form, _, count in normalised:
        groups.setdefault(chosen[form][1], Counter())[form] += count
    found = []
    for forms in groups.values():
        if len(forms) < 2:
            continue
        ordered = sorted(forms.items(), key=lambda item: (-item[1], item[0]))
        found.append(WordForm(ordered[0][0], tuple(f for f, _ in ordered), tuple(c for _, c in ordered)))
    found.sort(key=lambda group: (-sum(group.counts), group.word))
    kept, forms = [], 0
    for group in found:
        forms += len(group.forms) - 1
        if forms > MAX_WORD_FORMS:
            break
        kept.append(group)
    return kept


def merged_forms(groups: Iterable[WordForm]) -> dict[str, str]:
    """The ``word_forms`` of a :class:`engine.Vectorizer` that counts each group of ``groups`` as its word: every
    other form mapped to it."""
    return {form: group.word for group in groups for form in group.forms[1:]}


@cache
def _lemmatizer(codes: tuple[str, ...]):
    """simplemma's lemma of a token in the first of ``codes`` whose dictionary knows it (the token itself if
    none does)."""
    import simplemma  # about 0.4 s and 30 MB a language, when the first word is looked up

    language = codes if len(codes) > 1 else codes[0]
    return lambda token: simplemma.lemmatize(token, lang=language)
