"""Fixtures shared by the engine's command-line tests."""

from __future__ import annotations

import csv

import pytest


@pytest.fixture
def corpus_csv(tmp_path, planted_corpus):
    """The planted corpus as a .csv table of texts (letters-only words, so the tokenizer keeps them)."""
    letters = "bcdfghjklmnpqrstvwxz"
    words = {old: "q" + letters[i // 20] + letters[i % 20] + "zy" for i, old in enumerate(planted_corpus.vocabulary)}
    path = tmp_path / "planted.csv"
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["title", "text"])
        for d, text in enumerate(planted_corpus.texts):
            writer.writerow([f"doc {d}", " ".join(words[w] for w in text.split())])
        writer.writerow(["blank", "   "])  # dropped and reported
    return path, words
