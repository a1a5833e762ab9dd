"""Tests of engine/inference/heldout.py: the paper's observed / held-out split of test documents."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.data.corpus import Corpus
from engine.inference.heldout import HeldoutSplit, heldout_split


def random_counts(seed, n_docs=60, n_words=40, density=0.25):
    rng = np.random.default_rng(seed)
    dense = rng.integers(1, 6, (n_docs, n_words)) * (rng.random((n_docs, n_words)) < density)
    return sp.csr_matrix(dense)


def check_split(X, split, n_test):
    """Every invariant of a held-out split of X."""
    X = sp.csr_matrix(X)
    train, observed, heldout = split
    test, rest = split.test_indices, split.train_indices
    assert len(test) == n_test and np.all(np.diff(test) > 0)
    assert np.array_equal(np.union1d(test, rest), np.arange(X.shape[0])) and np.intersect1d(test, rest).size == 0
    assert all(isinstance(m, sp.csr_matrix) for m in split)
    assert train.shape == (X.shape[0] - n_test, X.shape[1]) and (train != X[rest]).nnz == 0
    assert observed.shape == heldout.shape == (n_test, X.shape[1])
    original = X[test]
    assert (observed + heldout != original).nnz == 0  # nothing lost, nothing added
    assert observed.multiply(heldout).nnz == 0  # disjoint word types ...
    for part in (observed, heldout):  # ... and each type keeps all its tokens
        part = part.tocoo()
        assert np.array_equal(part.data, np.asarray(original[part.row, part.col]).ravel())
        assert np.all(np.diff(part.tocsr().indptr) >= 1)  # each side non-empty for every test doc
    assert np.all(np.diff(original.indptr) >= 2)  # only documents with two or more types are tested


def test_split_invariants():
    X = random_counts(0)
    split = heldout_split(X, n_test=15, seed=3)
    check_split(X, split, 15)
    assert isinstance(split, HeldoutSplit) and len(split) == 3
    assert split.train is split[0] and split.observed is split[1] and split.heldout is split[2]
    assert split.observed.dtype == X.dtype


def test_heldout_fraction_of_types():
    X = sp.csr_matrix(np.ones((6, 10), dtype=np.int64))
    _, observed, heldout = heldout_split(X, n_test=5, seed=0)
    assert np.diff(heldout.indptr).tolist() == [2] * 5 and np.diff(observed.indptr).tolist() == [8] * 5
    _, observed, heldout = heldout_split(X, n_test=5, seed=0, heldout_fraction=0.5)
    assert np.diff(heldout.indptr).tolist() == [5] * 5


def test_deterministic_for_a_seed_and_input_unchanged():
    X = random_counts(1)
    before = X.copy()
    first, second = heldout_split(X, 10, seed=7), heldout_split(X, 10, seed=7)
    assert np.array_equal(first.test_indices, second.test_indices)
    assert all((a != b).nnz == 0 for a, b in zip(first, second, strict=True))
    other = heldout_split(X, 10, seed=8)
    assert not np.array_equal(first.test_indices, other.test_indices) or (first.heldout != other.heldout).nnz
    assert (before != X).nnz == 0


def test_accepts_a_corpus_and_skips_single_type_documents():
    counts = np.array([[5, 0, 0], [1, 1, 0], [0, 2, 3], [0, 0, 4], [2, 2, 2]])
    corpus = Corpus.from_counts(counts, ["a", "b", "c"])
    split = heldout_split(corpus, n_test=2, seed=0)
    check_split(corpus.counts, split, 2)
    assert set(split.test_indices) <= {1, 2, 4}


def test_pickles():
    split = heldout_split(random_counts(2), 5, seed=0)
    copy = pickle.loads(pickle.dumps(split))
    assert isinstance(copy, HeldoutSplit) and np.array_equal(copy.test_indices, split.test_indices)
    assert "test=5 docs" in repr(copy)


@pytest.mark.parametrize(
    ("n_test", "options", "error", "match"),
    [(0, {}, ValueError, r"n_test must be in \[1, 3\)"), (3, {}, ValueError, r"got 3"),
     (2.0, {}, TypeError, "n_test must be an int"), (True, {}, TypeError, "n_test must be an int"),
     (1, {"heldout_fraction": 0.0}, ValueError, "heldout_fraction must be in"),
     (1, {"heldout_fraction": 1.0}, ValueError, "heldout_fraction must be in")],
)
def test_validation(n_test, options, error, match):
    X = sp.csr_matrix(np.array([[1, 1], [1, 1], [2, 3], [4, 0]]))  # 3 eligible documents
    with pytest.raises(error, match=match):
        heldout_split(X, n_test, seed=0, **options)


def test_rejects_dense_input():
    with pytest.raises(TypeError, match=r"scipy.sparse matrix or an engine Corpus"):
        heldout_split(np.ones((3, 3)), 1, seed=0)


@st.composite
def count_matrices(draw):
    n_docs = draw(st.integers(2, 12))
    n_words = draw(st.integers(2, 10))
    cells = st.integers(0, 4)
    dense = np.array(draw(st.lists(st.lists(cells, min_size=n_words, max_size=n_words),
                                   min_size=n_docs, max_size=n_docs)))
    return sp.csr_matrix(dense)


@settings(max_examples=60, deadline=None, database=None)
@given(X=count_matrices(), seed=st.integers(0, 2**32 - 1), fraction=st.floats(0.05, 0.95), data=st.data())
def test_split_invariants_property(X, seed, fraction, data):
    n_eligible = int(np.sum(np.diff(X.indptr) >= 2))
    if n_eligible < 2:
        with pytest.raises(ValueError, match="n_test must be in"):
            heldout_split(X, 1, seed=seed)
        return
    n_test = data.draw(st.integers(1, n_eligible - 1))
    check_split(X, heldout_split(X, n_test, seed=seed, heldout_fraction=fraction), n_test)
