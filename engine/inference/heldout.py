"""Held-out split for predictive evaluation, as in Hoffman, Blei, Wang & Paisley (2013).

The paper evaluates a fitted topic model by the predictive likelihood of held-out
words: a set of test documents is removed from training; the word types of each
test document are split into an *observed* part, used to estimate its topic
proportions, and a *held-out* part, whose per-word log-likelihood is reported.
All tokens of one word type go to the same side, so the two parts share no
word type.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["HeldoutSplit", "heldout_split", "splittable_documents"]


class HeldoutSplit(tuple):
    """``(train, observed, heldout)`` plus the row indices that produced them.

    Unpacks into three CSR matrices; ``train_indices`` and ``test_indices``
    (sorted rows of the input) say which documents went where.

    Attributes
    ----------
    train : csr_matrix of shape (n_docs - n_test, n_words)
    observed, heldout : csr_matrix of shape (n_test, n_words)
        Row ``i`` belongs to input document ``test_indices[i]``;
        ``observed + heldout`` equals that document.
    train_indices, test_indices : ndarray of int
    """

    train_indices: np.ndarray
    test_indices: np.ndarray

    def __new__(cls, train: sp.csr_matrix, observed: sp.csr_matrix, heldout: sp.csr_matrix,
                train_indices: np.ndarray, test_indices: np.ndarray) -> HeldoutSplit:
        self = super().__new__(cls, (train, observed, heldout))
        self.train_indices = train_indices
        self.test_indices = test_indices
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (HeldoutSplit, (*self, self.train_indices, self.test_indices))

    def __repr__(self) -> str:
        return (f"HeldoutSplit(train={self.train.shape[0]} docs, test={self.observed.shape[0]} docs, "
                f"observed={int(self.observed.sum())} tokens, heldout={int(self.heldout.sum())} tokens)")

    @property
    def train(self) -> sp.csr_matrix:
        """Training documents (every document not chosen for testing)."""
        return self[0]

    @property
    def observed(self) -> sp.csr_matrix:
        """Observed word types of each test document."""
        return self[1]

    @property
    def heldout(self) -> sp.csr_matrix:
        """Held-out word types of each test document."""
        return self[2]


def _as_csr(X: Any) -> sp.csr_matrix:
    counts = getattr(X, "counts", X)  # an engine Corpus, or a matrix
    if not sp.issparse(counts) or counts.ndim != 2:
        raise TypeError(f"X must be a scipy.sparse matrix or an engine Corpus, got {type(X).__name__}")
    matrix = sp.csr_matrix(counts, copy=True)
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    if matrix.data.size and matrix.data.min() < 0:
        raise ValueError("X must hold non-negative counts")
    return matrix


def _splittable(matrix: sp.csr_matrix) -> np.ndarray:
    """The rows with at least two distinct word types: the documents a split may hold out."""
    return np.flatnonzero(np.diff(matrix.indptr) >= 2)


def splittable_documents(X: Any) -> int:
    """How many documents of ``X`` (counts or a Corpus) have two distinct words or more: those
    :func:`heldout_split` may hold out, so a split needs at least two (one held out, one to train on)."""
    return int(_splittable(_as_csr(X)).size)


def heldout_split(X: Any, n_test: int, seed: int | np.random.Generator = 0,
                  heldout_fraction: float = 0.2) -> HeldoutSplit:
    """Split documents into training and test sets, and test words into observed/held-out.

    Test documents are drawn without replacement, with
    ``np.random.default_rng(seed)``, among documents with at least two distinct
    word types. For each, ``round(heldout_fraction * m)`` of its ``m`` word types
    (at least 1, at most ``m - 1``) are held out, chosen at random; the other
    types are observed. The result is deterministic for an integer seed.

    Parameters
    ----------
    X : sparse matrix of shape (n_docs, n_words) or Corpus
        Word counts (a Corpus's ``counts`` are used).
    n_test : int
        Number of test documents, ``1 <= n_test < n_eligible`` (documents with
        at least two distinct word types), so that training keeps a document.
    seed : int or numpy.random.Generator
    heldout_fraction : float
        Share of each test document's word types held out, in (0, 1).

    Returns
    -------
    HeldoutSplit
        Unpacks as ``train, observed, heldout`` (CSR matrices with the columns of
        ``X``); also carries ``train_indices`` and ``test_indices``.
    """
    matrix = _as_csr(X)
    eligible = _splittable(matrix)
    if not isinstance(n_test, numbers.Integral) or isinstance(n_test, bool):
        raise TypeError(f"n_test must be an int, got {n_test!r}")
    if not 1 <= n_test < eligible.size:
        raise ValueError(f"n_test must be in [1, {eligible.size}) (the number of documents with at least "
                         f"two distinct words, minus one for training), got {n_test!r}")
    if not (isinstance(heldout_fraction, numbers.Real) and 0.0 < heldout_fraction < 1.0):
        raise ValueError(f"heldout_fraction must be in (0, 1), got {heldout_fraction!r}")
    rng = np.random.default_rng(seed)
    test = np.sort(rng.choice(eligible, size=n_test, replace=False))
    train = np.setdiff1d(np.arange(matrix.shape[0]), test)
    observed, heldout = _split_types(matrix[test], heldout_fraction, rng)
    return HeldoutSplit(matrix[train], observed, heldout, train, test)


def split_words(X: Any, heldout_fraction: float = 0.2, seed: int = 0) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Document completion: (observed, held-out) word types of every document with at least two.

    The word types of each such document are split as :func:`heldout_split` splits a
    test document's; documents with fewer than two word types are left out of both.
    Deterministic for a given ``seed``.
    """
    matrix = _as_csr(X)
    eligible = np.flatnonzero(np.diff(matrix.indptr) >= 2)
    if eligible.size == 0:
        raise ValueError("no document has two distinct words, so none can be split into observed and "
                         "held-out words")
    return _split_types(matrix[eligible], heldout_fraction, np.random.default_rng(seed))


def _split_types(tests: sp.csr_matrix, heldout_fraction: float,
                 rng: np.random.Generator) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """(observed, heldout) of documents with at least two word types each."""
    # rank each test document's word types in a random order; the first n_heldout are held out
    lengths = np.diff(tests.indptr)
    row = np.repeat(np.arange(tests.shape[0]), lengths)
    order = np.lexsort((rng.random(tests.nnz), row))
    rank = np.empty(tests.nnz, dtype=np.int64)
    rank[order] = np.arange(tests.nnz) - tests.indptr[row[order]]
    n_heldout = np.clip(np.rint(heldout_fraction * lengths), 1, lengths - 1)
    held = rank < n_heldout[row]
    return _mask(tests, ~held), _mask(tests, held)


def _mask(matrix: sp.csr_matrix, keep: np.ndarray) -> sp.csr_matrix:
    """Copy of ``matrix`` keeping only the stored entries where ``keep`` is True."""
    out = sp.csr_matrix((np.where(keep, matrix.data, 0), matrix.indices.copy(), matrix.indptr.copy()),
                        shape=matrix.shape)
    out.eliminate_zeros()
    return out
