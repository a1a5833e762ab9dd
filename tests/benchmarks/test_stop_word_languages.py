"""benchmarks/stop_word_languages.py counts the topics' top words that are stop words of the text's language."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from tests.engine.test_cli_infer import GERMAN

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "stop_word_languages.py"
_SPEC = importlib.util.spec_from_file_location("stop_word_languages_benchmark", _PATH)
stop_word_languages = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(stop_word_languages)


def test_english_stop_words_leave_the_german_ones_in_the_topics_and_german_ones_do_not():
    import engine

    texts = GERMAN * 6  # every word in at least 5 documents (min_df 5); "der", "die", "und" in half or fewer
    flagged = engine.Vectorizer(stop_words="german").stop_word_set()
    english = stop_word_languages.topic_stop_words(texts, "english", flagged, k=2, seeds=[0, 1], epochs=2)
    german = stop_word_languages.topic_stop_words(texts, "german", flagged, k=2, seeds=[0, 1], epochs=2)
    assert german["share"].tolist() == [0.0, 0.0] and german["crowded"].tolist() == [0, 0]
    assert np.all(english["share"] > 0) and english["V"] > german["V"]
    assert np.all(np.isfinite(english["npmi"])) and len(english["example"].split()) == 10
    assert any(word in flagged for word in english["example"].split())
    assert german["example"] == "-"  # no topic holds a German stop word
