"""engine.guess_language: the stop-word list that covers most of a collection's words names its language."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pytest

import engine
from engine.data import language as module
from engine.data import markup

# a few sentences of each language, as a user's documents would hold them
TEXTS = {
    "english": "The committee met on Tuesday and agreed that the new bridge over the river should be finished "
               "before the winter, although some members said that the costs were still far too high for a town "
               "of this size and that they would rather repair the old one.",
    "german": "Der Ausschuss hat sich am Dienstag getroffen und beschlossen, dass die neue Brücke über den Fluss "
              "vor dem Winter fertig sein soll, obwohl einige Mitglieder sagten, dass die Kosten für eine Stadt "
              "dieser Größe noch viel zu hoch seien und sie lieber die alte reparieren würden.",
    "french": "Le comité s'est réuni mardi et a décidé que le nouveau pont sur la rivière devait être terminé "
              "avant l'hiver, bien que certains membres aient dit que les coûts étaient encore beaucoup trop "
              "élevés pour une ville de cette taille et qu'ils préféreraient réparer l'ancien.",
    "spanish": "El comité se reunió el martes y acordó que el nuevo puente sobre el río debería estar terminado "
               "antes del invierno, aunque algunos miembros dijeron que los costes eran todavía demasiado altos "
               "para una ciudad de este tamaño y que preferirían reparar el viejo.",
}


@pytest.mark.parametrize("language", sorted(TEXTS))
def test_each_language_is_found_from_its_own_text(language):
    guess = engine.guess_language([TEXTS[language]] * 3)
    assert guess.language == language
    assert guess.share == guess.shares[language] == max(guess.shares.values())
    assert guess.share >= 0.3
    others = [share for name, share in guess.shares.items() if name != language]
    assert max(others) < 0.8 * guess.share  # not a near tie with a neighbour


def test_the_examples_are_the_guessed_languages_commonest_stop_words_in_the_text():
    guess = engine.guess_language(["und und und der der die Brücke Brücke Brücke Fluss " * 5])
    assert guess.language == "german"
    assert guess.examples == ("und", "der", "die")  # by count; "brücke" and "fluss" are not stop words
    # "the" 6 times, "that" 3, "and" 2, then words used once, in alphabetical order
    assert engine.guess_language([TEXTS["english"]]).examples == ("the", "that", "and", "although", "be")
    assert len(engine.guess_language([TEXTS["french"]] * 4).examples) == module.N_EXAMPLES


def test_the_shares_are_the_brute_force_count_of_each_lists_words():
    texts = [TEXTS["french"], TEXTS["english"], "Les 3 PETITS chats, und der Hund: the end"]
    guess = engine.guess_language(texts)
    tokens = [t.lower() for text in texts for t in re.findall(r"(?u)\b[^\W\d_]{2,}\b", text)]
    assert guess.n_tokens == len(tokens)
    for language in engine.STOP_WORD_LANGUAGES:
        words = {w.lower() for w in engine.stop_word_list(language)}
        assert guess.share_of(language) == pytest.approx(sum(t in words for t in tokens) / len(tokens), abs=1e-12)
    assert list(guess.shares.values()) == sorted(guess.shares.values(), reverse=True)
    assert set(guess.shares) == set(engine.STOP_WORD_LANGUAGES)
    assert guess.share_of("klingon") == 0.0


def test_a_mixed_collection_takes_the_language_most_of_its_words_are_in():
    texts = [TEXTS["german"]] * 8 + [TEXTS["english"]] * 2
    assert engine.guess_language(texts).language == "german"
    assert engine.guess_language(texts[::-1]).language == "german"  # wherever the odd documents sit


@pytest.mark.parametrize("texts", [
    [],
    [""],
    ["1234 5678 !!! ---", "42"],
    ["我们今天在河边开会讨论新桥的费用问题"] * 5,  # no spaces between words: no token a list holds
    [None, float("nan")],  # a table's missing cells
])
def test_no_words_no_guess(texts):
    guess = engine.guess_language(texts)
    assert guess.language is None
    assert guess.share == 0.0
    assert all(share == 0.0 for share in guess.shares.values())


def test_too_few_words_or_too_few_stop_words_give_no_guess():
    few = "the bridge and the river"  # three English stop words of five words, but only five
    assert engine.guess_language([few]).language is None
    assert engine.guess_language([few]).share == pytest.approx(0.6)
    names = " ".join(["bridge river winter costs town members repair tuesday committee"] * 10)  # no stop words
    guess = engine.guess_language([names])
    assert guess.n_tokens >= module.MIN_TOKENS and guess.language is None


class _Recording(Sequence):
    """Documents of ``length`` characters that remember which were read and how much of each."""

    def __init__(self, n: int, length: int):
        self.n, self.length, self.read = n, length, []

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.read.append(i)
        return _Text(("der und die " * (self.length // 12 + 1))[:self.length], self)


class _Text(str):
    def __new__(cls, value, owner):
        text = super().__new__(cls, value)
        text.owner = owner
        return text

    def __getitem__(self, key):
        if isinstance(key, slice):
            self.owner.sliced = max(getattr(self.owner, "sliced", 0), len(range(*key.indices(len(self)))))
        return str.__getitem__(self, key)


def test_a_large_collection_is_read_only_as_far_as_the_sample():
    documents = _Recording(100_000, 1_000_000)
    guess = engine.guess_language(documents)
    assert guess.language == "german"
    assert len(documents.read) == len(set(documents.read)) == module.SAMPLE_DOCUMENTS
    assert documents.read[0] == 0 and documents.read[-1] == 99_999  # spread over the whole collection
    assert documents.sliced == markup.SAMPLE_CHARACTERS  # enough to see whether a page holds markup
    assert guess.n_tokens <= module.SAMPLE_DOCUMENTS * module.SAMPLE_CHARACTERS // 3
    small = _Recording(7, 100)
    engine.guess_language(small)
    assert sorted(small.read) == list(range(7))


# ------------------------------------------------------------------ collections in two languages
def _coverage(text: str, language: str) -> tuple[int, int]:
    """(words of ``text`` that ``language``'s list holds, words), read as guess_language reads them."""
    tokens = [t.lower() for t in re.findall(r"(?u)\b[^\W\d_]{2,}\b", text)]
    words = {w.lower() for w in engine.stop_word_list(language)}
    return sum(t in words for t in tokens), len(tokens)


def test_documents_in_a_second_language_join_its_stop_words():
    texts = [TEXTS["german"]] * 20 + [TEXTS["english"]] * 5
    guess = engine.guess_language(texts)
    assert guess.language == "german+english"
    assert guess.documents == {"english": pytest.approx(5 / 25)}
    union = {w.lower() for w in engine.stop_word_list("german+english")}
    tokens = [t.lower() for text in texts for t in re.findall(r"(?u)\b[^\W\d_]{2,}\b", text)]
    assert guess.share == pytest.approx(sum(t in union for t in tokens) / len(tokens), abs=1e-12)
    assert guess.share_of("german+english") == guess.share > guess.share_of("german")
    assert guess.examples[0] == "die"  # the collection's own language's commonest stop words
    three = engine.guess_language([TEXTS["german"]] * 20 + [TEXTS["english"]] * 6 + [TEXTS["french"]] * 5)
    assert three.language == "german+english+french"  # by how many documents each holds


@pytest.mark.parametrize(("n_german", "n_english", "joins"), [
    (20, 4, False),  # fewer than MIN_OTHER_DOCUMENTS
    (20, 5, True),
    (300, 5, False),  # 1.6 % of the documents and of the paragraphs: under both shares
    (240, 5, True),  # 2.04 % of the paragraphs (each document is one): at least MIN_OTHER_PARAGRAPH_SHARE
])
def test_a_second_language_needs_enough_documents(n_german, n_english, joins):
    guess = engine.guess_language([TEXTS["german"]] * n_german + [TEXTS["english"]] * n_english)
    assert guess.language == ("german+english" if joins else "german")
    assert guess.documents == {"english": pytest.approx(n_english / (n_german + n_english))}
    assert guess.paragraphs == guess.documents  # documents of one paragraph each


def _pages(n_paragraphs: int, language: str = "german") -> str:
    return "\n\n".join([TEXTS[language]] * n_paragraphs)


@pytest.mark.parametrize(("n_german", "n_english", "joins"), [
    (100, 5, True),  # 4.8 % of the documents, 1 % of the paragraphs: by documents
    (200, 7, False),  # 3.4 % of the documents, 0.7 % of the paragraphs
])
def test_documents_in_another_language_join_though_their_paragraphs_are_few(n_german, n_english, joins):
    guess = engine.guess_language([_pages(5)] * n_german + [TEXTS["english"]] * n_english)
    assert guess.language == ("german+english" if joins else "german")
    assert guess.documents == {"english": pytest.approx(n_english / (n_german + n_english))}
    assert guess.paragraphs == {"english": pytest.approx(n_english / (5 * n_german + n_english))}


@pytest.mark.parametrize(("n_holding", "per_document", "joins"), [
    (5, 1, True),  # 5 of 205 paragraphs (2.4 %), in 5 documents
    (4, 2, False),  # 8 of 208 (3.8 %), but in 4 documents: fewer than MIN_OTHER_DOCUMENTS
    (4, 1, False),  # 4 of 204, in 4 documents
])
def test_paragraphs_of_another_language_inside_documents_join_its_stop_words(n_holding, per_document, joins):
    """German pages that keep untranslated English paragraphs: no page is English, but enough paragraphs are."""
    mixed = _pages(2) + "\n\n" + _pages(per_document, "english")
    texts = [mixed] * n_holding + [_pages(2)] * (100 - n_holding)
    assert len(mixed) < module.SAMPLE_CHARACTERS  # every paragraph is read
    guess = engine.guess_language(texts)
    assert guess.documents == {}  # each such page is still mostly German
    n_paragraphs = 200 + n_holding * per_document
    assert guess.paragraphs == {"english": pytest.approx(n_holding * per_document / n_paragraphs)}
    assert guess.language == ("german+english" if joins else "german")


def test_a_language_found_by_more_paragraphs_comes_first():
    texts = [_pages(2) + "\n\n" + _pages(2, "english")] * 6 + [TEXTS["french"]] * 9 + [_pages(2)] * 85
    guess = engine.guess_language(texts)
    assert guess.documents == {"french": pytest.approx(0.09)}
    assert guess.paragraphs == {"english": pytest.approx(12 / 203), "french": pytest.approx(9 / 203)}
    assert guess.language == "german+english+french"


def test_short_documents_and_documents_in_both_languages_are_not_counted():
    short = "The committee met on Tuesday and agreed that the new bridge was"  # 12 words: not read alone
    assert _coverage(short, "english")[1] < module.MIN_DOCUMENT_TOKENS
    guess = engine.guess_language([TEXTS["german"]] * 20 + [short] * 10)
    assert guess.language == "german" and guess.documents == {}
    # half German, half English: English's list covers less than DOCUMENT_MARGIN times what German's does
    both = TEXTS["german"] + " " + TEXTS["english"]
    assert _coverage(both, "english")[0] < module.DOCUMENT_MARGIN * _coverage(both, "german")[0]
    guess = engine.guess_language([TEXTS["german"]] * 20 + [both] * 10)
    assert guess.language == "german" and guess.documents == {}


def test_which_language_a_document_is_written_in_matches_the_rule_counted_by_hand():
    rng = np.random.default_rng(3)
    pools = {language: re.findall(r"\w+", text) for language, text in TEXTS.items()}
    texts = []
    for _ in range(300):  # documents of 10-60 words drawn from one to three languages' sentences
        chosen = rng.choice(sorted(pools), size=rng.integers(1, 4), replace=False)
        texts.append(" ".join(rng.choice(pools[str(rng.choice(chosen))]) for _ in range(rng.integers(10, 61))))
    guess = engine.guess_language(texts)
    first = max(engine.STOP_WORD_LANGUAGES, key=lambda name: (guess.shares[name], [-ord(c) for c in name]))
    assert engine.languages_of(guess.language)[0] == first
    expected, n_read = {}, 0
    for text in texts:
        own, n = _coverage(text, first)
        if n < module.MIN_DOCUMENT_TOKENS:
            continue
        n_read += 1
        covered = {name: _coverage(text, name)[0] for name in engine.STOP_WORD_LANGUAGES}
        best = max(sorted(covered), key=lambda name: (covered[name], name == first))
        if best != first and covered[best] >= module.MIN_SHARE * n and covered[best] >= module.DOCUMENT_MARGIN * own:
            expected[best] = expected.get(best, 0) + 1
    assert expected  # the draw holds documents of other languages
    assert guess.documents == pytest.approx({name: count / n_read for name, count in expected.items()})
    assert guess.paragraphs == guess.documents  # no blank lines: each document is one paragraph
    least = min(module.MIN_OTHER_SHARE, module.MIN_OTHER_PARAGRAPH_SHARE)
    joined = [name for name, count in sorted(expected.items(), key=lambda item: (-item[1], item[0]))
              if count >= module.MIN_OTHER_DOCUMENTS and count >= least * n_read]
    assert guess.language == "+".join([first, *joined])

