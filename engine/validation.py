"""Argument checks shared by the public constructors (messages name parameter, value and range)."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from engine.errors import EmptyCorpusError, VocabularyMismatchError


def check_int(name: str, value, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` as int if it is an integer in [minimum, maximum]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        allowed = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return int(value)


def check_choice(name: str, value, allowed: tuple):
    """Return ``value`` if it is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def check_positive(name: str, value) -> float:
    """Return ``value`` as float if it is a finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def check_non_negative(name: str, value) -> float:
    """Return ``value`` as float if it is a finite number >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def check_fraction(name: str, value) -> float:
    """Return ``value`` as float if it is a number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


def check_topic_indices(topics, n_topics: int, *, distinct: bool = False) -> np.ndarray:
    """``topics`` as a 1-d array of topic indices in [0, n_topics), in the order given.

    Raises ValueError for anything but a non-empty list of whole numbers in range, and,
    with ``distinct``, for a topic named twice.
    """
    try:
        chosen = np.asarray(topics)
    except (TypeError, ValueError):  # a ragged list
        chosen = np.asarray([], dtype=object)
    if chosen.ndim != 1 or not (np.issubdtype(chosen.dtype, np.integer) and chosen.size):
        raise ValueError(f"topics must be a list of topic indices (whole numbers), got {topics!r}")
    low, high = chosen.min(), chosen.max()
    if low < 0 or high >= n_topics:
        raise ValueError(f"topics must lie in [0, {n_topics - 1}] (the model has {n_topics} topics), "
                         f"got {low if low < 0 else high}")
    if distinct:
        values, counts = np.unique(chosen, return_counts=True)
        if counts.max() > 1:
            raise ValueError(f"topics must be distinct, got topic {values[np.argmax(counts)]} "
                             f"{counts.max()} times in {topics!r}")
    return chosen.astype(np.intp)


def as_counts(
    documents, n_words: int | None = None, name: str = "corpus", out_of_core: bool = False
) -> sp.csr_matrix:
    """Return the document-word count matrix of a Corpus or sparse/dense matrix as CSR.

    Raises ``VocabularyMismatchError`` when its number of columns differs from
    ``n_words`` and ``ValueError`` for negative or non-finite counts.  With
    ``out_of_core=True`` an on-disk corpus (:class:`engine.DiskCounts`, whose
    rows are read per minibatch) is returned as it is after the shape checks.
    """
    counts = getattr(documents, "counts", documents)
    if getattr(counts, "out_of_core", False):
        if not out_of_core:
            raise TypeError(
                f"{name} is an out-of-core corpus whose rows are read per minibatch; this operation needs "
                "the documents in memory: use corpus.subset_to_memory(indices)"
            )
        _check_shape(counts, n_words, name)
        return counts
    if not sp.issparse(counts):
        counts = np.asarray(counts)
        if counts.ndim != 2:
            raise ValueError(f"{name} must be a 2-D documents x words matrix, got shape {counts.shape}")
    counts = sp.csr_matrix(counts)
    _check_shape(counts, n_words, name)
    if counts.nnz and (not np.all(np.isfinite(counts.data)) or counts.data.min() < 0):
        raise ValueError(f"{name} must hold finite, non-negative word counts")
    if not counts.has_sorted_indices:
        counts = counts.sorted_indices()
    return counts


def _check_shape(counts, n_words: int | None, name: str) -> None:
    if counts.shape[0] == 0:
        raise EmptyCorpusError(f"{name} has no documents; add documents before training")
    if n_words is not None and counts.shape[1] != n_words:
        raise VocabularyMismatchError(
            f"{name} has {counts.shape[1]} words (columns) but the model was built for "
            f"n_words={n_words}; build the model with the corpus's vocabulary size"
        )
