"""benchmarks/copies.py: the copies appended, the documents drawn, and each topic's share from them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import engine

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "copies.py"
_SPEC = importlib.util.spec_from_file_location("copies_benchmark", _PATH)
copies = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(copies)


def test_copies_are_appended_and_left_out_again():
    train = sp.csr_matrix(np.random.default_rng(0).poisson(3.0, size=(30, 12)))
    sources = copies.draw_sources(train, 4, 20, seed=1)
    lengths = np.asarray(train.sum(axis=1)).ravel()
    assert sources.size == 4 and np.unique(sources).size == 4 and (lengths[sources] >= 20).all()
    np.testing.assert_array_equal(sources, copies.draw_sources(train, 4, 20, seed=1))  # drawn by the seed
    copied = copies.with_copies(train, sources, 3)
    assert copied.shape == (42, 12)
    for block in range(3):
        np.testing.assert_array_equal(copied[30 + 4 * block: 34 + 4 * block].toarray(), train[sources].toarray())
    # left out again, the copies give back the training documents (less any copies they held themselves)
    kept = np.flatnonzero(engine.find_copies(copied) == np.arange(42))
    own = np.flatnonzero(engine.find_copies(train) == np.arange(30))
    np.testing.assert_array_equal(kept, own)


def test_each_topics_share_from_the_marked_documents_is_its_words_there_over_all():
    class Fixed:  # a model whose proportions are given
        def transform(self, counts):
            return np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])

    counts = sp.csr_matrix(np.array([[2, 0], [1, 1], [0, 4]]))
    # topic 0: words 2 (doc 0) + 1 (doc 1); topic 1: 1 (doc 1) + 4 (doc 2); marked: doc 1
    np.testing.assert_allclose(copies.marked_shares(Fixed(), counts, np.array([1])), [1 / 3, 1 / 5])
    assert copies._held(np.array([0.2, 0.5, 0.7])) == (2, 0.7)
