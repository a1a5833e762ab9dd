"""Counting text into rows of a disk corpus: the vocabulary pass and the counting pass.

:meth:`engine.DiskCorpus.from_texts` reads its source twice.  Pass 1 feeds
:class:`_TermStats` the tokens of each chunk to choose the vocabulary by
CountVectorizer's rule; pass 2 turns each chunk into CSR rows against that
vocabulary with :func:`_count_chunk`.  Memory holds one chunk plus the table of
distinct words.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from engine.data.corpus import _EMPTY_TEXT, _NO_WORDS, DroppedDocument
from engine.errors import EmptyCorpusError, EmptyVocabularyError


class _TermStats:
    """Document and corpus frequencies of every distinct token (pass 1 of :meth:`DiskCorpus.from_texts`)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.df = np.zeros(0, dtype=np.int64)
        self.tf = np.zeros(0, dtype=np.int64)
        self.n_docs = 0

    def add(self, token_lists: list[list[str]]) -> None:
        index = self.index
        ids = np.array([index.setdefault(t, len(index)) for tokens in token_lists for t in tokens], dtype=np.int64)
        n = len(index)
        if n > self.df.size:
            grown = max(n, 2 * self.df.size)
            self.df = np.concatenate([self.df, np.zeros(grown - self.df.size, np.int64)])
            self.tf = np.concatenate([self.tf, np.zeros(grown - self.tf.size, np.int64)])
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        docs = np.repeat(np.arange(len(token_lists), dtype=np.int64), lengths)
        self.tf[:n] += np.bincount(ids, minlength=n)
        self.df[:n] += np.bincount(np.unique(docs * max(n, 1) + ids) % max(n, 1), minlength=n)
        self.n_docs += len(token_lists)

    def vocabulary(self, min_df, max_df, max_features) -> tuple[tuple[str, ...], int]:
        """The kept words (sorted) and their number of (document, word) pairs, as CountVectorizer chooses them."""
        if self.n_docs == 0:
            raise EmptyCorpusError("no document has any text; provide documents with text")
        n = len(self.index)
        words = sorted(self.index)
        order = np.fromiter((self.index[w] for w in words), dtype=np.int64, count=n)
        df, tf = self.df[order], self.tf[order]
        high = max_df if isinstance(max_df, numbers.Integral) else max_df * self.n_docs
        low = min_df if isinstance(min_df, numbers.Integral) else min_df * self.n_docs
        if high < low and low <= self.n_docs:
            raise ValueError(f"max_df={max_df!r} allows fewer documents than min_df={min_df!r} "
                             f"for {self.n_docs} documents; raise max_df or lower min_df")
        # the rule of scikit-learn's CountVectorizer._limit_features, on alphabetically sorted words
        mask = (df <= high) & (df >= low)
        if max_features is not None and mask.sum() > max_features:
            keep = np.zeros(mask.size, dtype=bool)
            keep[np.where(mask)[0][(-tf[mask]).argsort()[:max_features]]] = True
            mask = keep
        if not mask.any():
            raise EmptyVocabularyError(
                f"no word is left after filtering {self.n_docs} documents (min_df={min_df!r}, max_df={max_df!r}); "
                "lower min_df, raise max_df, or check the stop words and that the texts contain words "
                "of two or more letters")
        return tuple(w for w, keep in zip(words, mask, strict=True) if keep), int(df[mask].sum())


def _count_chunk(analyzer, index: dict[str, int], ids: list[str], titles: list[str], texts: list[str]):
    """Counts of one chunk against the vocabulary ``index``: (csr of kept rows, their ids, dropped)."""
    n_words = len(index)
    token_lists = [analyzer(t) if t.strip() else [] for t in texts]
    columns = np.array([index.get(t, -1) for tokens in token_lists for t in tokens], dtype=np.int64)
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    docs = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    known = columns >= 0
    keys, counts = np.unique(docs[known] * n_words + columns[known], return_counts=True)
    row_lengths = np.bincount(keys // n_words, minlength=len(texts))
    kept = row_lengths > 0
    dropped = [DroppedDocument(ids[d], titles[d], _NO_WORDS if texts[d].strip() else _EMPTY_TEXT)
               for d in np.flatnonzero(~kept)]
    indptr = np.concatenate([[0], np.cumsum(row_lengths[kept])])
    matrix = sp.csr_matrix((counts, keys % n_words, indptr), shape=(int(kept.sum()), n_words))
    return matrix, [ids[d] for d in np.flatnonzero(kept)], dropped
