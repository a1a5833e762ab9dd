"""Copies: documents that repeat another document of the collection.

Collections gathered from many places hold the same text more than once: a press release
reposted, an e-mail forwarded, licence files shipped with every package of a library, a page
saved twice.  A topic model counts each copy as another document of evidence, so a text
repeated often enough gets topics of its own, and the held-out split can put a copy of a
test document among the training documents (benchmarks/RESULTS.md run 74).

Two texts are copies (:func:`find_text_copies`) when they are the same sequence of words:
letter case, punctuation, spacing and line breaks do not tell them apart, any word or number
does.  ``engine.Corpus.from_texts(keep_copies=False)`` compares the texts as it reads them
(without the markup, e-mail headers and boilerplate it leaves out).  For a bag of words, where
the order is gone, :func:`find_copies` compares rows of counts: the same words, each the same
number of times.  The first document of each group is the one kept; the others are its copies.
A document without words is nobody's copy.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from engine.validation import as_counts

__all__ = ["find_copies", "find_text_copies"]

_WORD = re.compile(r"\w+")  # letters, digits and underscores: what tells two texts apart


def find_copies(counts) -> np.ndarray:
    """For each row of counts, the first row with exactly the same word counts (itself if none comes before).

    For a bag of words, whose word order is gone; texts are compared by :func:`find_text_copies`.

    Parameters
    ----------
    counts : Corpus, sparse or dense matrix of shape (n_docs, n_words)
        Word counts, one row per document.

    Returns
    -------
    ndarray of int, shape (n_docs,)
        ``first[d]``: the lowest row holding the same words as row ``d``, each the same
        number of times.  ``first[d] == d`` for a document that copies none before it and
        for a document without words; ``np.flatnonzero(first != np.arange(n_docs))`` are
        the copies.

    Examples
    --------
    >>> import numpy as np
    >>> from engine import find_copies
    >>> find_copies(np.array([[1, 0, 2], [0, 1, 0], [1, 0, 2], [0, 0, 0], [0, 0, 0]])).tolist()
    [0, 1, 0, 3, 4]
    """
    matrix = as_counts(counts, name="counts").copy()
    matrix.sum_duplicates()  # one entry per word, in column order: equal rows have equal entries
    matrix.eliminate_zeros()
    indptr, indices = matrix.indptr, matrix.indices.astype(np.int64, copy=False)
    data = matrix.data.astype(np.float64, copy=False)
    # the row itself is the key (the dict compares keys in full: no two different rows meet)
    return _first_of(None if indptr[d] == indptr[d + 1] else
                     indices[indptr[d]:indptr[d + 1]].tobytes() + data[indptr[d]:indptr[d + 1]].tobytes()
                     for d in range(matrix.shape[0]))


def find_text_copies(texts: Sequence[str]) -> np.ndarray:
    """For each text, the first text that is the same sequence of words (itself if none comes before).

    Words are runs of letters, digits and underscores (``\\w+``), compared without letter case:
    "The cat sat." and "the CAT  sat" are copies; "The cat sat." and "The cat sat down." are
    not, nor are "Report 1" and "Report 2".

    Parameters
    ----------
    texts : sequence of str

    Returns
    -------
    ndarray of int, shape (n_texts,)
        ``first[d]``: the lowest index of a text with the same words in the same order as
        text ``d``; ``first[d] == d`` for a text that copies none before it and for a text
        without words.

    Examples
    --------
    >>> from engine import find_text_copies
    >>> find_text_copies(["Hello, world!", "hello world", "Hello world again", "  ", "?"]).tolist()
    [0, 0, 2, 3, 4]
    """
    return _first_of(_words(text) for text in texts)


class CopyIndex:
    """The texts seen so far, each by its words in order: which earlier text a new one copies, in one pass.

    For collections read as a stream (``engine.DiskCorpus.from_texts``): each distinct text is
    held as a 16-byte BLAKE2 digest of its words (about 100 bytes a text with the dictionary's
    own), not as its words; two different texts share a digest with probability 2^-128.
    """

    def __init__(self) -> None:
        self._seen: dict[bytes, Any] = {}

    def first(self, text: str, value: Any) -> Any | None:
        """The value stored with the first text of ``text``'s words; None, after storing ``value`` (not None), for
        a text not seen before (a text without words is never stored, and never a copy)."""
        if value is None:
            raise ValueError("value must not be None: None says that a text is not a copy")
        words = _words(text)
        if words is None:
            return None
        key = hashlib.blake2b(words.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        if key in self._seen:
            return self._seen[key]
        self._seen[key] = value
        return None


def _words(text: str) -> str | None:
    """``text``'s words (``\\w+``, lower-cased as the vectorizer reads them) joined by spaces; None if it has none."""
    if not isinstance(text, str):
        raise TypeError(f"texts must be strings, got {type(text).__name__}")
    return " ".join(_WORD.findall(text.lower())) or None


def _first_of(keys: Iterable[Hashable | None]) -> np.ndarray:
    """For each key, the index of its first occurrence; a None key (a document without words) is its own."""
    first, seen = [], {}
    for d, key in enumerate(keys):
        first.append(d if key is None else seen.setdefault(key, d))
    return np.array(first, dtype=np.intp)
