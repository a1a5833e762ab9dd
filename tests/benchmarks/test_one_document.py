"""benchmarks/one_document.py: the copyright collection it builds, and the topics it flags."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import engine

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "one_document.py"
_SPEC = importlib.util.spec_from_file_location("one_document_benchmark", _PATH)
one_document = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(one_document)


def test_the_copyright_collection_reads_one_document_per_file_without_copies(tmp_path):
    texts = engine.make_synthetic_corpus(n_docs=60, n_topics=3, seed=0).texts()
    for n, text in enumerate([*texts, *texts[:7]]):  # seven files repeat others word for word
        folder = tmp_path / f"package{n:03d}"
        folder.mkdir()
        (folder / "copyright").write_text(text.upper() if n >= 60 else text, encoding="utf-8")
    collection, why = one_document.copyright_collection(f"{tmp_path}/*/copyright")
    assert why == ""
    n_docs = collection.train.shape[0] + collection.observed.shape[0]
    assert n_docs == 60  # the copies left out, the first of each kept
    assert collection.observed.shape[0] == round(0.1 * 60)
    missing, why = one_document.copyright_collection(f"{tmp_path}/*/nothing")
    assert missing is None and "only 0 files" in why


def test_a_topic_is_flagged_when_one_document_gives_it_half_its_words():
    class Fixed:  # a model whose proportions and topic shares are given: topics 0-2 live, 3 hardly used
        def transform(self, counts):
            return np.array([[1.0, 0.0, 0.5, 0.1], [0.5, 0.5, 0.5, 0.0], [0.0, 1.0, 0.0, 0.0]])

        def word_shares(self):
            return np.array([0.3, 0.5, 0.19, 0.01])

        def overall_divergence(self):
            return np.ones(4)

        def duplicate_of(self):
            return np.arange(4)

    counts = sp.csr_matrix(np.array([[2, 0], [1, 1], [0, 4]]))
    # topic 0: 2 (doc 0) of 3 words; topic 1: 4 (doc 2) of 5; topic 2: 1 (doc 0) and 1 (doc 1), exactly half: flagged
    flags, main, share = one_document.one_document_topics(Fixed(), counts)
    assert flags.tolist() == [True, True, True, False] and main.tolist() == [0, 2, 0, 0]
    np.testing.assert_allclose(share, [2 / 3, 4 / 5, 1 / 2, 1])  # topic 3: all from doc 0, but not live
