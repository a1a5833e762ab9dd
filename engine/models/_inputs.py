"""What the estimators accept as documents, checked the way scikit-learn checks its input.

``X`` may be a sparse matrix (any format), a dense array or data frame, an
:class:`engine.Corpus` or :class:`engine.DiskCorpus`, or a gensim bag-of-words corpus
(lists of ``(word_id, count)`` pairs, also streamed).  Whatever the form, the models
see one CSR matrix of non-negative, finite counts; the messages for empty, non-finite,
negative or misshapen input are scikit-learn's, which its estimator checks expect.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils.validation import check_non_negative

from engine.data.gensim_corpus import bow_matrix, looks_like_bow
from engine.errors import VocabularyMismatchError
from engine.validation import as_counts

_COUNT_DTYPES = (np.float64, np.float32, np.int64, np.int32)  # kept as they are; anything else becomes float64


def as_documents(X: Any, *, n_words: int | None, estimator: Any, method: str) -> tuple[Any, list[str] | None]:
    """(counts, words): ``X`` as CSR counts and the words of its columns when ``X`` names them.

    ``n_words`` is the number of columns ``X`` must have (None: any).  An on-disk corpus
    is returned as it is for ``method="fit"`` (SVI reads its minibatches from disk) and
    refused otherwise.  ``estimator`` and ``method`` name the caller in messages.
    """
    name = type(estimator).__name__
    words = None
    if hasattr(X, "counts"):  # an engine Corpus or DiskCorpus
        words = getattr(X, "vocabulary", None)
        counts = as_counts(X, name="X", out_of_core=method == "fit")
    else:
        if isinstance(X, Iterable) and not isinstance(X, (list, tuple, str, bytes, np.ndarray)) \
                and not sp.issparse(X) and not hasattr(X, "__array__"):
            X = list(X)  # a streamed gensim corpus (MmCorpus, a generator...)
        if looks_like_bow(X):
            counts = bow_matrix(X, n_words=n_words)
        else:
            _refuse_text(X, name)
            words = _column_names(X)
            counts = X
    if not getattr(counts, "out_of_core", False):
        counts = check_array(counts, accept_sparse="csr", dtype=_COUNT_DTYPES, input_name="X", estimator=estimator)
        check_non_negative(counts, f"{name}.{method}")
        counts = as_counts(counts, name="X")
    if n_words is not None and counts.shape[1] != n_words:
        raise VocabularyMismatchError(
            f"X has {counts.shape[1]} features, but {name} is expecting {n_words} features as input "
            f"(its vocabulary size, n_words={n_words}); count the documents with the vocabulary the model "
            "was trained on"
        )
    return counts, None if words is None else [str(word) for word in words]


def check_same_words(words: list[str], fitted: list[str], name: str) -> None:
    """Raise VocabularyMismatchError unless the columns name the words the model was fitted on, in order."""
    if words == fitted:
        return
    differ = next(w for w, (a, b) in enumerate(zip(words, fitted, strict=True)) if a != b)
    raise VocabularyMismatchError(
        f"X's words differ from those {name} was fitted on (column {differ}: {words[differ]!r} here, "
        f"{fitted[differ]!r} in the model); count the documents with the model's vocabulary"
    )


def _refuse_text(X: Any, name: str) -> None:
    first = X[0] if isinstance(X, (list, tuple)) and X else X
    if isinstance(first, str):
        raise ValueError(f"X holds text, but {name} takes word counts (documents x words); count the words "
                         f"first: make_pipeline(CountVectorizer(), {name}(...)) or engine.Corpus.from_texts(texts)")


def _column_names(X: Any) -> list[str] | None:
    """A data frame's column names, if they are all strings (scikit-learn's rule)."""
    columns = getattr(X, "columns", None)
    if columns is None or not all(isinstance(column, str) for column in columns):
        return None
    return list(columns)
