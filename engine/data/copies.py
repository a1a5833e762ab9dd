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
import itertools
import re
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from engine.validation import as_counts

__all__ = ["NEAR_COPY_SIMILARITY", "NearCopies", "find_copies", "find_near_copies", "find_text_copies"]

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
        key = _digest(words)
        if key in self._seen:
            return self._seen[key]
        self._seen[key] = value
        return None


def _words(text: str) -> str | None:
    """``text``'s words (``\\w+``, lower-cased as the vectorizer reads them) joined by spaces; None if it has none."""
    if not isinstance(text, str):
        raise TypeError(f"texts must be strings, got {type(text).__name__}")
    return " ".join(_WORD.findall(text.lower())) or None


def _digest(words: str) -> bytes:
    """A 16-byte BLAKE2 digest of a text's words joined by spaces: two different texts share one with probability
    2^-128."""
    return hashlib.blake2b(words.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _first_of(keys: Iterable[Hashable | None]) -> np.ndarray:
    """For each key, the index of its first occurrence; a None key (a document without words) is its own."""
    first, seen = [], {}
    for d, key in enumerate(keys):
        first.append(d if key is None else seen.setdefault(key, d))
    return np.array(first, dtype=np.intp)


NEAR_COPY_SIMILARITY = 0.8  # find_near_copies' default: a text repeated but for a sentence or a few words
RUN_WORDS = 5  # a near-copy is judged by the runs of this many words two texts share (their 5-word shingles)
NEAR_COPY_RECALL = 0.999  # the least chance that a pair exactly at the threshold is compared (the rest: more)
_HASHES = 128  # min-hashes a text, cut into bands of rows; two texts sharing a band are compared exactly
# bounds on the work when very many texts are alike: the kept texts a band holds, the texts compared exactly with
# one text, and how far below the threshold the share of agreeing min-hashes may be (its standard deviation is at
# most 0.045 for 125 min-hashes: the margin is over four of them)
BUCKET_TEXTS, COMPARED_TEXTS, SIGNATURE_MARGIN = 64, 16, 0.2
_CHUNK_WORDS = 1 << 20  # the runs hashed at a time: the hashing's scratch arrays stay under about 50 MB
_PRIME = np.uint64(0x100000001B3)  # the multiplier of the polynomial hash of a run of words (FNV's 64-bit prime)


class NearCopies(NamedTuple):
    """:func:`find_near_copies`' answer: for each text, the text kept that it (nearly) repeats, and how nearly."""

    first: np.ndarray
    """``first[d]``: the text kept whose runs of words text ``d`` shares most (at least the threshold); ``d`` itself
    for a text kept."""
    similarity: np.ndarray
    """``similarity[d]``: the share of the runs of words in either of texts ``d`` and ``first[d]`` that both hold
    (their Jaccard similarity); 1.0 for a text kept."""
    copies: np.ndarray
    """``copies[d]``: the first text with the same words in the same order as text ``d`` (:func:`find_text_copies`'
    answer, found on the way); ``d`` itself for a text that copies none before it word for word."""


def find_near_copies(texts: Sequence[str], similarity: float = NEAR_COPY_SIMILARITY) -> NearCopies:
    """For each text, the earlier text kept that it nearly repeats: a revised version, a page with another date.

    Two texts are compared by their runs of five words (letters, digits and underscores,
    ``\\w+``, without letter case, as :func:`find_text_copies` reads them): their
    *similarity* is the share of the runs in either text that both hold (the Jaccard
    similarity of their 5-word shingles).  One word changed in a text of a hundred words
    changes at most five of its 96 runs (similarity 0.90 or more); a sentence of twenty
    words replaced in it changes about a quarter (0.6).  The texts are read in order: a
    text is kept unless its similarity to a text kept before it is at least
    ``similarity``, and a text left out names the kept text it is most similar to.  So a
    chain of small edits (A, then B close to A, then C close to B but not to A) keeps A
    and C.  Copies word for word (:func:`find_text_copies`) are near-copies of similarity
    1.0.  A text of fewer than five words is one run: only its word-for-word copies match.

    Pairs are found by min-hashing (banded locality-sensitive hashing with fixed
    constants, so the answer is the same on every call) and then compared exactly: a pair
    reported is always at least ``similarity``; a pair exactly at it is missed with a
    chance under 1 in 1,000 (``engine.data.copies.NEAR_COPY_RECALL``), a pair above it less
    often.  The work stays close to linear in the number of texts even when very many are
    alike (a hostile upload of one template filled in many ways): a band shared by more than
    ``BUCKET_TEXTS`` kept texts takes no more, and of the texts a text shares bands with, the
    ``COMPARED_TEXTS`` whose min-hashes agree most with its own (and at least
    ``similarity - SIGNATURE_MARGIN`` of them) are compared exactly; a text left out names
    the closest of those.

    Parameters
    ----------
    texts : sequence of str
    similarity : float in (0, 1]
        The least similarity of a near-copy.  The default, :data:`NEAR_COPY_SIMILARITY`
        (0.8), leaves out a text that repeats another but for a sentence or a few words;
        how many near-copies collections hold at each threshold, and what they do to
        topics, is in benchmarks/RESULTS.md (run 78).

    Returns
    -------
    NearCopies
        ``first`` (int, shape (n_texts,)), ``similarity`` (float, shape (n_texts,)) and
        ``copies`` (int, the copies word for word); ``np.flatnonzero(first != np.arange(n_texts))``
        are the near-copies, those word for word among them.

    Examples
    --------
    >>> from engine import find_near_copies
    >>> words = [f"w{i}" for i in range(100)]
    >>> edited = words[:50] + ["changed"] + words[51:]
    >>> found = find_near_copies([" ".join(words), " ".join(edited), "another text", " ".join(words) + "!"])
    >>> found.first.tolist(), found.similarity.round(2).tolist()
    ([0, 0, 2, 0], [1.0, 0.9, 1.0, 1.0])
    """
    if isinstance(similarity, bool) or not isinstance(similarity, (int, float)) or not 0 < similarity <= 1:
        raise ValueError(f"similarity must be a share in (0, 1], got {similarity!r}")
    index: defaultdict[str, int] = defaultdict()
    index.default_factory = lambda: len(index) + 1  # a word's number: its place among the words first seen
    keys: list[bytes | None] = []  # a digest of each text's words in order
    words: list[np.ndarray] = []  # each text's words as numbers (4 bytes a word), read _CHUNK_WORDS at a time
    pending: list[list[str]] = []
    held = 0  # the words pending
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"texts must be strings, got {type(text).__name__}")
        found = _WORD.findall(text.lower())
        keys.append(_digest(" ".join(found)) if found else None)
        pending.append(found)
        held += len(found)
        if held >= _CHUNK_WORDS:
            words.extend(_numbered(pending, index))
            pending, held = [], 0
    words.extend(_numbered(pending, index))
    exact = _first_of(keys)  # find_text_copies' answer (as CopyIndex finds it)
    first, shares = exact.copy(), np.ones(len(words))
    distinct = np.flatnonzero(exact == np.arange(len(words)))
    rows, bands = _bands(similarity)
    runs, starts, signatures = _min_hashes([words[d] for d in distinct], rows * bands)
    keys = _band_keys(signatures, rows, bands)
    # only a text sharing a band with another text can be, or have, a near-copy; a text of one run (fewer than
    # RUN_WORDS words) has only word-for-word copies
    shared = np.zeros(len(distinct), dtype=bool)
    for band in range(bands):
        _, inverse, counts = np.unique(keys[:, band], return_inverse=True, return_counts=True)
        shared |= counts[inverse] > 1
    shared &= np.array([words[d].size >= RUN_WORDS for d in distinct], dtype=bool)
    buckets: dict[int, list[int]] = {}
    sets: dict[int, np.ndarray] = {}  # the distinct runs of the texts compared, sorted
    compared = np.flatnonzero(shared).tolist()
    for i, own in zip(compared, keys[compared].tolist(), strict=True):
        best, best_share = -1, 0.0
        mine = sets[i] = np.unique(runs[starts[i]:starts[i + 1]])
        for c in _closest(signatures, i, {c for key in own for c in buckets.get(key, ())}, similarity):
            share = _jaccard(mine, sets[c])
            if share > best_share:
                best, best_share = c, share
        if best >= 0 and best_share >= similarity:
            first[distinct[i]], shares[distinct[i]] = distinct[best], best_share
            del sets[i]  # a near-copy is compared with no later text
            continue
        for key in own:
            bucket = buckets.setdefault(key, [])
            if len(bucket) < BUCKET_TEXTS:
                bucket.append(i)
    # a word-for-word copy goes where the text it copies went
    copies = exact != np.arange(len(words))
    shares[copies] = shares[exact[copies]]
    first[copies] = first[exact[copies]]
    return NearCopies(first, shares, exact)


def _numbered(texts: list[list[str]], index: defaultdict[str, int]) -> list[np.ndarray]:
    """Each text's words as their numbers in ``index`` (numbering the words not seen before)."""
    flat = np.array(list(map(index.__getitem__, itertools.chain.from_iterable(texts))), dtype=np.uint32)
    return np.split(flat, np.cumsum([len(words) for words in texts])[:-1]) if texts else []


def _min_hashes(words: list[np.ndarray], n_hashes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each text's runs of RUN_WORDS words as 64-bit hashes (all in one array, text ``i``'s at
    ``[starts[i]:starts[i + 1]]``) and its ``n_hashes`` min-hashes of fixed constants (the top 32 bits of each,
    shape (n_texts, n_hashes)), made a group of texts of about _CHUNK_WORDS words at a time."""
    constants = np.random.default_rng(0x5EED).integers(0, 2**63, size=(2, n_hashes), dtype=np.uint64)
    multipliers, offsets = constants[0] | np.uint64(1), constants[1]  # odd: each map is a permutation of 2^64
    sizes = np.array([w.size for w in words], dtype=np.int64)
    n_runs = np.where(sizes >= RUN_WORDS, sizes - RUN_WORDS + 1, np.minimum(sizes, 1))
    starts = np.concatenate([[0], np.cumsum(n_runs)])
    runs = np.empty(starts[-1], dtype=np.uint64)
    signatures = np.zeros((len(words), n_hashes), dtype=np.uint32)
    begin = 0
    while begin < len(words):
        end = int(np.searchsorted(starts, starts[begin] + _CHUNK_WORDS, side="right"))
        end = min(max(end - 1, begin + 1), len(words))
        chunk = runs[starts[begin]:starts[end]] = _run_hashes(words[begin:end])
        filled = np.flatnonzero(n_runs[begin:end])
        if filled.size:
            at = starts[begin:end][filled] - starts[begin]
            block = np.empty((n_hashes, filled.size), dtype=np.uint32)
            for j in range(n_hashes):
                block[j] = np.minimum.reduceat(chunk * multipliers[j] + offsets[j], at) >> np.uint64(32)
            signatures[begin + filled] = block.T
        begin = end
    return runs, starts, signatures


def _run_hashes(words: list[np.ndarray]) -> np.ndarray:
    """The texts' runs of RUN_WORDS words (from their words' numbers) as 64-bit hashes, text after text, each in
    the order of the text, a run repeated as often as it is (one run for a shorter text; none for a text without
    words)."""
    lengths = np.array([w.size for w in words], dtype=np.int64)
    ids = np.concatenate([np.zeros(0, dtype=np.uint64), *words]).astype(np.uint64)
    # a run starts at each word followed by RUN_WORDS - 1 more of its text; a shorter text's one run at its start
    n_runs = np.where(lengths >= RUN_WORDS, lengths - RUN_WORDS + 1, np.minimum(lengths, 1))
    starts = np.concatenate([[0], np.cumsum(n_runs)])
    begins = np.concatenate([[0], np.cumsum(lengths)])[:-1]
    at = np.arange(starts[-1]) + np.repeat(begins - starts[:-1], n_runs)
    run_length = np.repeat(np.minimum(lengths, RUN_WORDS), n_runs)
    padded = np.concatenate([ids, np.zeros(RUN_WORDS, dtype=np.uint64)])
    h = np.zeros(at.size, dtype=np.uint64)
    for i in range(RUN_WORDS):  # the words past a short text's end count as 0, and its length marks its run
        h = h * _PRIME + np.where(i < run_length, padded[at + i], np.uint64(0))
    return _mix(h * _PRIME + run_length.astype(np.uint64))


def _mix(h: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: every bit of the hash depends on every bit of ``h``."""
    h = h + np.uint64(0x9E3779B97F4A7C15)
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def _bands(similarity: float) -> tuple[int, int]:
    """Rows a band and bands: the most rows (fewest candidates) that still compare a pair at ``similarity`` with
    chance NEAR_COPY_RECALL, within _HASHES min-hashes."""
    rows = 1
    while rows < _HASHES:
        nxt = rows + 1
        if 1 - (1 - similarity ** nxt) ** (_HASHES // nxt) < NEAR_COPY_RECALL:
            break
        rows = nxt
    return rows, _HASHES // rows


def _band_keys(signatures: np.ndarray, rows: int, bands: int) -> np.ndarray:
    """Each text's bands of ``rows`` min-hashes, each folded into one integer that also names the band: shape
    (n_texts, bands)."""
    starts = np.random.default_rng(0xBA2D).integers(0, 2**63, size=bands, dtype=np.uint64)
    folded = np.repeat(starts[None, :], signatures.shape[0], axis=0)  # each band starts from its own value
    for r in range(rows):
        folded = folded * _PRIME + signatures[:, r::rows][:, :bands].astype(np.uint64)
    return folded


def _closest(signatures: np.ndarray, i: int, candidates: set[int], similarity: float) -> list[int]:
    """The candidates worth comparing with text ``i`` exactly: those whose min-hashes agree with its own in at
    least ``similarity - SIGNATURE_MARGIN`` of them (the share that agree estimates the similarity), at most
    COMPARED_TEXTS, the most agreeing first (the earlier of equals)."""
    if not candidates:
        return []
    others = np.array(sorted(candidates))
    agree = (signatures[others] == signatures[i]).mean(axis=1)
    order = np.argsort(-agree, kind="stable")[:COMPARED_TEXTS]
    return others[order[agree[order] >= similarity - SIGNATURE_MARGIN - 1e-12]].tolist()  # 0.8 - 0.2 is not 0.6


def _jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """The Jaccard similarity of two sorted sets of distinct hashes."""
    both = np.intersect1d(a, b, assume_unique=True).size
    return both / (a.size + b.size - both)
