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

A collection written in two languages (English pages with French ones) needs both lists: with one,
the other language's documents keep their function words and make topics of them ("la les et le
est").  So each sampled document of at least :data:`MIN_DOCUMENT_TOKENS` words is also read
alone, and counts as written in another language when that language's list covers at least
``MIN_SHARE`` of its words and at least :data:`DOCUMENT_MARGIN` times what the collection's list
covers there.  A language that at least :data:`MIN_OTHER_DOCUMENTS` documents, and at least
:data:`MIN_OTHER_SHARE` of the documents read, are written in joins the guess ("english+french").
On collections in one language the most documents so read were 1.6 % (untranslated pages among
French man pages); 3 % of French pages among English ones already put French function words into
the topics (benchmarks/RESULTS.md run 59).

A document can also hold passages of another language: French man pages keep untranslated English
paragraphs, 3.5 % of their paragraphs, and with French stop words alone two of twenty topics were
"the to is of and" (run 62).  So each paragraph (text between blank lines) of at least
:data:`MIN_DOCUMENT_TOKENS` words is read alone the same way, and a language joins the guess too
when its paragraphs are at least :data:`MIN_OTHER_PARAGRAPH_SHARE` of the paragraphs read and sit in
at least :data:`MIN_OTHER_DOCUMENTS` documents.  On the collections in one language the most were
0.45 % (Romanian names among German man pages); a document of one paragraph counts as one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from engine.data.markup import SAMPLE_CHARACTERS as MARKUP_CHARACTERS  # a page's text is read from these
from engine.data.markup import evenly_spread, holds_markup, strip_markup
from engine.data.messages import SAMPLE_CHARACTERS as MESSAGE_CHARACTERS  # a message's text is read from these
from engine.data.messages import holds_messages, message_text
from engine.data.vectorizer import (
    DOCUMENT_WORDS,
    LANGUAGE_JOIN,
    PARAGRAPH,
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
MIN_DOCUMENT_TOKENS = DOCUMENT_WORDS  # words a sampled document needs to be read alone (at 10, descriptions misread)
DOCUMENT_MARGIN = 2.0  # another list must cover this many times what the collection's covers in the document
MIN_OTHER_DOCUMENTS = 5  # documents written in another language for it to join the guess...
MIN_OTHER_SHARE = 0.04  # ... and this share of the documents read alone
MIN_OTHER_PARAGRAPH_SHARE = 0.02  # or: paragraphs of at least MIN_OTHER_DOCUMENTS documents, this share of those read


@dataclass(frozen=True)
class LanguageGuess:
    """What :func:`guess_language` found.

    Attributes
    ----------
    language : str or None
        The language (one of :data:`engine.STOP_WORD_LANGUAGES`) whose stop words are the
        largest share of the sample's words, if that share is at least ``MIN_SHARE`` and the
        sample holds at least ``MIN_TOKENS`` words; else None.  Followed by the other
        languages enough documents, or paragraphs, are written in (see the module's notes),
        joined by "+" ("english+french") as ``stop_words`` takes them, most paragraphs first.
    share : float
        The share of the sample's words that ``language``'s stop words cover (those of all
        its languages; without a language, the largest single share; 0 for an empty sample).
    shares : dict of str to float
        Every single language's share, largest first; a guessed "english+french" too.
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
    documents : dict of str to float
        Of the sampled documents read alone (at least ``MIN_DOCUMENT_TOKENS`` words), the
        share written in each language other than the collection's that some are written in
        (the collection's own language: the rest), largest first.
    markup : bool
        Whether the collection holds HTML or XML markup (:func:`engine.holds_markup` of
        ``texts``, found on the same sample); if so the sample was read without it.
    paragraphs : dict of str to float
        The same for the sampled documents' paragraphs (text between blank lines) of at
        least ``MIN_DOCUMENT_TOKENS`` words, each read alone: the share written in each
        other language, largest first.
    messages : bool
        Whether the collection holds e-mail or newsgroup messages
        (:func:`engine.holds_messages` of ``texts``, found on the same sample); if so the
        sample's messages were read as their senders wrote them, before their markup.
    """

    language: str | None
    share: float
    shares: dict[str, float] = field(repr=False)
    n_tokens: int
    examples: tuple[str, ...] = ()
    token_pattern: str = TOKEN_PATTERN
    reads_pairs: bool = False
    documents: dict[str, float] = field(default_factory=dict, repr=False)
    markup: bool = False
    paragraphs: dict[str, float] = field(default_factory=dict, repr=False)
    messages: bool = False

    def share_of(self, language: str) -> float:
        """The share of the sample's words that are ``language``'s stop words (0 for an unknown language, or a
        combination other than the guessed one)."""
        return self.shares.get(language, 0.0)


@cache
def _lists() -> dict[str, frozenset[str]]:
    return {language: frozenset(word.lower() for word in stop_word_list(language)) for language in STOP_WORD_LANGUAGES}


@cache
def _word_languages() -> dict[str, tuple[str, ...]]:
    """Each listed stop word -> the languages whose lists hold it."""
    holders: dict[str, list[str]] = {}
    for language, words in _lists().items():
        for word in words:
            holders.setdefault(word, []).append(language)
    return {word: tuple(languages) for word, languages in holders.items()}


def guess_language(texts: Sequence[str]) -> LanguageGuess:
    """The language whose stop words cover the most words of ``texts`` (see the module's notes).

    Words are the tokens :class:`engine.Vectorizer` counts (two or more letters), lower
    case, accents kept (stripping them would let lists of other alphabets match), read
    without their HTML or XML markup when the sample holds it
    (:func:`engine.data.markup.holds_markup`), and its messages as their senders wrote them
    when it holds messages (:func:`engine.data.messages.holds_messages`).  Reads at
    most ``SAMPLE_DOCUMENTS`` x ``SAMPLE_CHARACTERS`` characters, so it costs the same on
    any collection.
    """
    picked = [text for text in (texts[i] for i in evenly_spread(len(texts), SAMPLE_DOCUMENTS))
              if isinstance(text, str)]  # a missing cell: no words
    messages = holds_messages(picked)  # the same documents holds_messages(texts) reads: the same answer
    if messages:  # the senders' words, not the headers' host names
        picked = [message_text(text[:MESSAGE_CHARACTERS]) for text in picked]
    markup = holds_markup(picked)  # the same documents holds_markup(texts) reads: the same answer
    if markup:  # the language of the text, not of its tags ("td", "div", "href") or a page's head
        sample = [strip_markup(text[:MARKUP_CHARACTERS])[:SAMPLE_CHARACTERS] for text in picked]
    else:
        sample = [text[:SAMPLE_CHARACTERS] for text in picked]
    pattern = token_pattern_for(sample)
    pairs = pattern != TOKEN_PATTERN and any(holds_pairs(text) for text in sample)
    tokens = tokenizer(pattern)
    paragraphs = [[Counter(token.lower() for token in tokens(part)) for part in PARAGRAPH.split(text)]
                  for text in sample]
    read = [parts[0] if len(parts) == 1 else _summed(parts) for parts in paragraphs]
    counts = _summed(read)
    n_tokens = sum(counts.values())
    if not n_tokens:
        return LanguageGuess(None, 0.0, dict.fromkeys(STOP_WORD_LANGUAGES, 0.0), 0, (), pattern, pairs,
                             markup=markup, messages=messages)
    lists = _lists()
    covered = {language: sum(counts[word] for word in words if word in counts) / n_tokens
               for language, words in lists.items()}
    shares = dict(sorted(covered.items(), key=lambda item: (-item[1], item[0])))
    language, share = next(iter(shares.items()))
    words = lists[language]
    examples = tuple(word for word, _ in sorted(((w, c) for w, c in counts.items() if w in words),
                                                key=lambda item: (-item[1], item[0]))[:N_EXAMPLES])
    if n_tokens < MIN_TOKENS or share < MIN_SHARE:
        return LanguageGuess(None, share, shares, n_tokens, examples, pattern, pairs, markup=markup,
                             messages=messages)
    written: Counter[str] = Counter()  # documents written in each other language
    in_paragraphs: dict[str, set[int]] = {}  # the documents holding paragraphs in each...
    n_in_paragraphs: Counter[str] = Counter()  # ... and how many paragraphs
    n_read = n_paragraphs = 0
    for d, (words, parts) in enumerate(zip(read, paragraphs, strict=True)):
        for part in parts:
            other = _written_in(part, language)
            if other is not None:
                n_paragraphs += 1
                if other:
                    in_paragraphs.setdefault(other, set()).add(d)
                    n_in_paragraphs[other] += 1
        other = _written_in(words, language) if len(parts) > 1 else _written_in(parts[0], language)
        if other is not None:
            n_read += 1
            if other:
                written[other] += 1
    documents = {other: n / n_read for other, n in written.items()}
    paragraph_shares = {other: n / n_paragraphs for other, n in n_in_paragraphs.items()}
    joined = [other for other in sorted({*documents, *paragraph_shares},
                                        key=lambda name: (-paragraph_shares.get(name, 0.0),
                                                          -documents.get(name, 0.0), name))
              if (written[other] >= MIN_OTHER_DOCUMENTS and documents[other] >= MIN_OTHER_SHARE)
              or (len(in_paragraphs.get(other, ())) >= MIN_OTHER_DOCUMENTS
                  and paragraph_shares[other] >= MIN_OTHER_PARAGRAPH_SHARE)]
    if joined:
        union = frozenset().union(*(lists[name] for name in (language, *joined)))
        language = LANGUAGE_JOIN.join((language, *joined))
        share = sum(counts[word] for word in union if word in counts) / n_tokens
        shares = {**shares, language: share}
    return LanguageGuess(language, share, shares, n_tokens, examples, pattern, pairs, _largest_first(documents),
                         markup, _largest_first(paragraph_shares), messages)


def _largest_first(shares: dict[str, float]) -> dict[str, float]:
    return dict(sorted(shares.items(), key=lambda item: (-item[1], item[0])))


def _summed(parts: list[Counter[str]]) -> Counter[str]:
    """The word counts of ``parts`` added up."""
    total: Counter[str] = Counter()
    for words in parts:
        total.update(words)
    return total


def _written_in(words: Counter[str], language: str) -> str | None:
    """The language other than ``language`` a text (its word counts) is written in: the one whose list covers
    most of its words, if that is at least MIN_SHARE of them and DOCUMENT_MARGIN times what ``language``'s list
    covers; "" if none is; None for a text of fewer than MIN_DOCUMENT_TOKENS words (not read)."""
    n = sum(words.values())
    if n < MIN_DOCUMENT_TOKENS:
        return None
    holders = _word_languages()
    covered: Counter[str] = Counter()
    for word, count in words.items():
        for holder in holders.get(word, ()):
            covered[holder] += count
    mine = covered[language]
    best, top = language, mine  # the collection's language wins a tie, then the first name
    for other, part in sorted(covered.items()):
        if part > top:
            best, top = other, part
    if best != language and top >= MIN_SHARE * n and top >= DOCUMENT_MARGIN * mine:
        return best
    return ""
