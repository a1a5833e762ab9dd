"""gensim's bag-of-words corpora as engine input.

gensim represents a corpus as an iterable of documents, each a list of ``(word_id, count)``
pairs, and its vocabulary as a ``Dictionary`` (a mapping of ids to words).  This module
turns them into the document x word count matrix the models train on: row d, column
``word_id`` holds the count, exactly what scikit-learn's ``CountVectorizer`` or
:meth:`engine.Corpus.from_texts` produce.  gensim itself is not needed: any lists of
pairs and any id-to-word mapping work.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from engine.data.corpus import Corpus
from engine.errors import VocabularyMismatchError

__all__ = ["from_gensim"]


def from_gensim(corpus: Iterable[Sequence[tuple[int, float]]], id2word: Any = None) -> Corpus:
    """An :class:`engine.Corpus` from a gensim bag-of-words corpus and its vocabulary.

    Parameters
    ----------
    corpus : iterable of lists of (int, int) pairs
        gensim's bag-of-words format: document d lists ``(word_id, count)`` pairs
        (``[dictionary.doc2bow(tokens) for tokens in texts]``, an ``MmCorpus``...).
        Repeated ids within a document are added up.
    id2word : gensim Dictionary, mapping or sequence of str, optional
        The word of each id: a ``gensim.corpora.Dictionary``, a ``{id: word}`` mapping
        of the ids 0 to n - 1, or a list of words.  It fixes the vocabulary size, so ids
        that no document uses keep their column.  Without it the words are ``"w0"``,
        ``"w1"``... up to the largest id in the corpus.

    Returns
    -------
    Corpus
        Integer counts with the vocabulary; documents without words are left out and
        listed in ``Corpus.dropped`` under their position in ``corpus`` (``"0"``, ``"1"``...).

    Raises
    ------
    ValueError
        A document is not a list of pairs, an id is not a whole number >= 0, a count is
        negative or fractional, or ``id2word`` skips an id.
    VocabularyMismatchError
        A document uses an id that ``id2word`` has no word for.
    """
    vocabulary = vocabulary_of(id2word)
    counts = bow_matrix(corpus, n_words=None if vocabulary is None else len(vocabulary))
    return Corpus.from_counts(counts, vocabulary)


def vocabulary_of(id2word: Any) -> list[str] | None:
    """The words of ids 0, 1, ... of a gensim Dictionary, an ``{id: word}`` mapping or a word list."""
    if id2word is None:
        return None
    if isinstance(id2word, str):
        raise TypeError("id2word must be a gensim Dictionary, a mapping of ids to words or a list of words, "
                        "not a string")
    if hasattr(id2word, "keys"):  # a gensim Dictionary or a mapping
        ids = sorted(int(i) for i in id2word)  # a Dictionary iterates over its ids, as a dict over its keys
        missing = next((i for i, found in enumerate(ids) if found != i), None)
        if missing is not None:
            raise ValueError(f"id2word must give a word for every id from 0 to {len(ids) - 1}; id {missing} is "
                             "missing (after filtering a gensim Dictionary, call dictionary.compactify())")
        return [str(id2word[i]) for i in ids]
    return [str(word) for word in id2word]


def looks_like_bow(X: Any) -> bool:
    """True if ``X`` is a list or tuple of documents given as ``(word_id, count)`` pairs (gensim's format).

    Arrays, sparse matrices, corpora and data frames are never taken for one, and neither
    is a list whose documents are rows of numbers: the first entry of the first non-empty
    document decides.
    """
    if not isinstance(X, (list, tuple)):
        return False
    for doc in X:
        if isinstance(doc, (str, bytes)) or not isinstance(doc, (list, tuple)):
            return False
        if len(doc):
            entry = doc[0]
            return isinstance(entry, (list, tuple)) and len(entry) == 2
    return False


def bow_matrix(corpus: Iterable[Sequence[tuple[int, float]]], n_words: int | None = None) -> sp.csr_matrix:
    """Documents x words CSR matrix of a gensim bag-of-words corpus (one row per document, empty ones too).

    ``n_words`` is the number of columns (an id >= ``n_words`` raises
    :class:`VocabularyMismatchError`); unset, it is the largest id plus one.  Counts keep
    their values (tf-idf weights stay fractional); repeated ids of a document are added up.
    """
    docs = corpus if isinstance(corpus, Sequence) else list(corpus)  # a streamed corpus is read once
    lengths = np.empty(len(docs), dtype=np.int64)
    pairs = []
    for d, doc in enumerate(docs):
        if isinstance(doc, (str, bytes)) or not isinstance(doc, Iterable):
            raise ValueError(f"document {d} of the gensim corpus is not a list of (word_id, count) pairs: {doc!r}")
        doc = list(doc)
        lengths[d] = len(doc)
        pairs.extend(doc)
    try:
        table = np.array(pairs, dtype=np.float64).reshape(len(pairs), 2)
    except (TypeError, ValueError):
        raise ValueError("every document of a gensim corpus must be a list of (word_id, count) pairs of numbers; "
                         f"found {_first_bad_pair(pairs)!r}") from None
    ids, counts = table[:, 0], table[:, 1]
    if ids.size and (not np.all(np.isfinite(ids)) or ids.min() < 0 or np.any(ids != np.floor(ids))):
        raise ValueError("word ids of a gensim corpus must be whole numbers >= 0")
    largest = int(ids.max()) if ids.size else -1
    if n_words is None:
        n_words = largest + 1
    elif largest >= n_words:
        raise VocabularyMismatchError(f"the gensim corpus uses word id {largest}, but the vocabulary has {n_words} "
                                      f"words (ids 0 to {n_words - 1}); pass the Dictionary it was built with")
    if counts.size and np.all(counts == np.floor(counts)) and np.all(np.abs(counts) < 2**53):
        counts = counts.astype(np.int64)  # whole counts, as CountVectorizer gives them
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    matrix = sp.csr_matrix((counts, ids.astype(np.int64), indptr), shape=(len(docs), n_words))
    matrix.sum_duplicates()  # also sorts each row's ids
    return matrix


def _first_bad_pair(pairs: list) -> Any:
    for pair in pairs:
        try:
            if len(pair) == 2 and all(isinstance(float(v), float) for v in pair):
                continue
        except (TypeError, ValueError):
            pass
        return pair
    return None

