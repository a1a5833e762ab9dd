"""benchmarks/mixed_languages.py: mixtures of two collections and the topics made of function words."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

import engine

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "mixed_languages.py"
_SPEC = importlib.util.spec_from_file_location("mixed_languages_benchmark", _PATH)
mixed_languages = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(mixed_languages)


def test_a_mixture_holds_the_asked_share_of_the_second_collection():
    first = [f"a{i}" for i in range(100)]
    second = [f"b{i}" for i in range(30)]
    mixed = mixed_languages.mixture(first, second, 0.2, seed=0)
    assert len(mixed) == 125 and sum(t.startswith("b") for t in mixed) == 25  # all of first, 25 = 20 % of 125
    assert len(set(mixed)) == len(mixed) and mixed != sorted(mixed)  # drawn without repeats, shuffled
    assert mixed == mixed_languages.mixture(first, second, 0.2, seed=0)
    few = mixed_languages.mixture(first, second, 0.5, seed=1)  # second too small: fewer of first
    assert sum(t.startswith("b") for t in few) == 30 and len(few) == 60


def test_function_word_topics_are_counted_by_hand():
    corpus = engine.Corpus.from_texts(["le chat la porte the cat", "les chiens et le pont"] * 3, stop_words=None,
                                      strip_accents=False)
    index = {word: i for i, word in enumerate(corpus.vocabulary)}
    tops = np.array([[index[w] for w in ("le", "la", "les", "chat", "cat")],  # three French stop words
                     [index[w] for w in ("chat", "porte", "cat", "chiens", "the")]])  # one English one
    topics, share = mixed_languages.function_word_topics(corpus, tops, "english+french")
    assert topics == 1 and share == 4 / 10
    assert mixed_languages.function_word_topics(corpus, tops, "english") == (0, 1 / 10)
