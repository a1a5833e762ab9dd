"""Semi-synthetic corpora of any size: LDA documents drawn from topics fitted on a real corpus.

To time stochastic variational inference at the scale of Hoffman, Blei, Wang &
Paisley (JMLR 2013; 3.8M Wikipedia articles) without the data, documents are
drawn from the LDA generative process (Blei, Ng & Jordan 2003) with *real*
ingredients: topics fitted on a real corpus and that corpus's document lengths.
For each document d::

    N_d     ~ the empirical distribution of the real corpus's lengths (resampled)
    theta_d ~ Dirichlet(alpha * K * weights)           (mean: the topic weights)
    n_dk    ~ Multinomial(N_d, theta_d)                 (tokens each topic emits)
    words   ~ Categorical(beta_k), n_dk times for every topic k

Words are drawn with Walker's alias method (O(1) per token, where inverse-CDF
search with ``searchsorted`` costs O(log V) and measured slower), then counted
per document by sorting ``doc * V + word`` keys.  The time goes to NumPy's
Dirichlet and multinomial draws (per document) and to the words (per token);
the rates are in benchmarks/RESULTS.md ("The paper's scale").

Generation is vectorised over blocks of ``block_size`` documents; block ``b``
draws from ``np.random.default_rng([seed, b])`` and always draws a full block,
so document i depends only on (seed, block_size, i) (and NumPy's generators):
any range of documents can be generated on its own
(:meth:`SemiSyntheticGenerator.counts` with ``start``, e.g. in parallel) and
equals the same rows of a one-shot generation.
:meth:`SemiSyntheticGenerator.build` writes a :class:`~engine.data.ondisk.DiskCorpus`
block by block, never holding the corpus in memory.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from engine.data.ondisk import DiskCorpus, _DiskWriter
from engine.validation import check_int, check_positive

__all__ = ["SemiSyntheticGenerator"]

DEFAULT_BLOCK_SIZE = 4096  # ~0.5M tokens per block at 126 tokens per document


def _alias_tables(distributions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker/Vose alias tables of each row of ``distributions`` (rows sum to 1).

    Returns ``(threshold, alias)``, both of shape (n_rows, n_outcomes): to draw
    from row k, pick a column j uniformly, keep it if a uniform u < threshold[k, j]
    and take alias[k, j] otherwise.
    """
    n_rows, n_outcomes = distributions.shape
    threshold = np.ones((n_rows, n_outcomes))
    alias = np.tile(np.arange(n_outcomes, dtype=np.int32), (n_rows, 1))
    for k in range(n_rows):
        scaled = (distributions[k] * n_outcomes).tolist()
        small = [j for j, p in enumerate(scaled) if p < 1.0]
        large = [j for j, p in enumerate(scaled) if p >= 1.0]
        row_threshold, row_alias = threshold[k], alias[k]
        while small and large:
            j, big = small.pop(), large[-1]
            row_threshold[j], row_alias[j] = scaled[j], big
            scaled[big] += scaled[j] - 1.0  # the big outcome gives away what fills column j
            if scaled[big] < 1.0:
                small.append(large.pop())
        # leftovers are 1 up to rounding: they keep threshold 1 and themselves as alias
    return threshold, alias


def _check_lengths(doc_lengths: Any) -> np.ndarray:
    lengths = np.asarray(doc_lengths)
    if lengths.ndim != 1 or lengths.size == 0:
        raise ValueError(f"doc_lengths must be a non-empty 1-D array of document lengths, got shape {lengths.shape}")
    if lengths.dtype.kind not in "iuf" or not np.all(np.isfinite(lengths)) or np.any(lengths != np.round(lengths)):
        raise ValueError("doc_lengths must hold whole numbers of tokens")
    if lengths.min() < 1:
        raise ValueError(f"doc_lengths must be >= 1 (no empty documents), found {lengths.min()}")
    return lengths.astype(np.int64)


class SemiSyntheticGenerator:
    """Draw LDA documents with fitted topics and empirical lengths (see the module docstring).

    Parameters
    ----------
    topics : array-like of shape (n_topics, n_words)
        Topic-word distributions, e.g. ``model.expected_topics()`` of an
        :class:`engine.LDA` fitted on a real corpus; rows are normalised.
    doc_lengths : array-like of shape (n_samples,)
        Document lengths to resample from, e.g. the row sums of the real corpus.
    alpha : float, optional
        Mean Dirichlet parameter per topic (1/K if None, LDA's default).
    topic_weights : array-like of shape (n_topics,), optional
        Expected topic proportions E[theta_d] (uniform if None), e.g.
        ``model.topic_weights()``; theta_d ~ Dirichlet(alpha * K * topic_weights).
    block_size : int
        Documents per random block; part of what a seed means.

    Examples
    --------
    >>> generator = SemiSyntheticGenerator.from_model(model, corpus.counts.sum(axis=1).A1)  # doctest: +SKIP
    >>> disk = generator.build("big_corpus", n_docs=3_800_000, seed=0)  # doctest: +SKIP
    """

    def __init__(self, topics: Any, doc_lengths: Any, alpha: float | None = None,
                 topic_weights: Any = None, block_size: int = DEFAULT_BLOCK_SIZE):
        topics = np.array(topics, dtype=np.float64)
        if topics.ndim != 2 or topics.shape[0] < 1 or topics.shape[1] < 1:
            raise ValueError(f"topics must be a 2-D (n_topics, n_words) array, got shape {topics.shape}")
        if not np.all(np.isfinite(topics)) or topics.min() < 0 or np.any(topics.sum(axis=1) <= 0):
            raise ValueError("topics must be finite and non-negative, with a positive sum in every row")
        self.topics = topics / topics.sum(axis=1, keepdims=True)
        n_topics, n_words = self.topics.shape
        self.doc_lengths = _check_lengths(doc_lengths)
        self.alpha = 1.0 / n_topics if alpha is None else check_positive("alpha", alpha)
        if topic_weights is None:
            weights = np.full(n_topics, 1.0 / n_topics)
        else:
            weights = np.asarray(topic_weights, dtype=np.float64)
            if weights.shape != (n_topics,) or not np.all(np.isfinite(weights)) or weights.min() < 0 \
                    or weights.sum() <= 0:
                raise ValueError(f"topic_weights must be {n_topics} non-negative numbers with a positive sum, "
                                 f"got shape {weights.shape}")
            weights = weights / weights.sum()
        self.topic_weights = weights
        self.block_size = check_int("block_size", block_size, 1)
        self._threshold, self._alias = _alias_tables(self.topics)
        self._key_dtype = np.int32 if self.block_size * n_words < np.iinfo(np.int32).max else np.int64

    @classmethod
    def from_model(cls, model: Any, doc_lengths: Any, block_size: int = DEFAULT_BLOCK_SIZE) -> SemiSyntheticGenerator:
        """Use a fitted model's expected topics, topic weights and alpha."""
        return cls(model.expected_topics(), doc_lengths, alpha=model.alpha, topic_weights=model.topic_weights(),
                   block_size=block_size)

    @property
    def n_topics(self) -> int:
        return self.topics.shape[0]

    @property
    def n_words(self) -> int:
        return self.topics.shape[1]

    @property
    def dirichlet(self) -> np.ndarray:
        """Dirichlet parameter of theta_d, ndarray of shape (n_topics,)."""
        return self.alpha * self.n_topics * self.topic_weights

    def word_distribution(self) -> np.ndarray:
        """Expected share of the tokens each word takes, E[theta] @ beta, shape (n_words,)."""
        return self.topic_weights @ self.topics

    def _block(self, seed: int, block: int) -> sp.csr_matrix:
        """Counts of documents [block * block_size, (block + 1) * block_size)."""
        n_docs, (K, V) = self.block_size, self.topics.shape
        rng = np.random.default_rng([seed, block])
        lengths = rng.choice(self.doc_lengths, size=n_docs)  # N_d, resampled
        doc_topic = rng.dirichlet(self.dirichlet, size=n_docs)  # theta_d
        topic_tokens = rng.multinomial(lengths, doc_topic)  # n_dk: tokens of document d from topic k
        # one entry per token, documents in order: its topic, then a word from that topic by the alias method
        topic = np.repeat(np.tile(np.arange(K, dtype=np.int64), n_docs), topic_tokens.ravel())
        column = rng.integers(0, V, size=topic.size)
        cell = topic * V + column
        word = np.where(rng.random(topic.size) < self._threshold.ravel()[cell], column, self._alias.ravel()[cell])
        doc = np.repeat(np.arange(n_docs, dtype=self._key_dtype), lengths)
        keys = doc * self._key_dtype(V) + word.astype(self._key_dtype)
        keys.sort()
        first = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
        counts = np.diff(np.append(first, keys.size))
        unique = keys[first]
        rows = unique // V
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n_docs))])
        return sp.csr_matrix((counts.astype(np.int64), (unique - rows * V).astype(np.int32), indptr),
                             shape=(n_docs, V))

    def _blocks(self, n_docs: int, seed: int, start: int):
        """Yield the counts of documents [start, start + n_docs), block by block."""
        stop = start + n_docs
        for block in range(start // self.block_size, -(-stop // self.block_size)):
            first = block * self.block_size
            rows = slice(max(start - first, 0), min(stop - first, self.block_size))
            yield self._block(seed, block)[rows]

    def counts(self, n_docs: int, seed: int = 0, start: int = 0) -> sp.csr_matrix:
        """Documents [start, start + n_docs) in memory, csr_matrix of shape (n_docs, n_words)."""
        n_docs, seed = check_int("n_docs", n_docs, 1), check_int("seed", seed, 0)
        blocks = list(self._blocks(n_docs, seed, check_int("start", start, 0)))
        offsets = np.cumsum([0] + [b.nnz for b in blocks])
        indptr = np.concatenate([[0]] + [b.indptr[1:] + offset for b, offset in zip(blocks, offsets, strict=False)])
        return sp.csr_matrix((np.concatenate([b.data for b in blocks]), np.concatenate([b.indices for b in blocks]),
                              indptr), shape=(n_docs, self.n_words))

    def build(self, folder: str | os.PathLike, n_docs: int, seed: int = 0, vocabulary: Sequence[str] | None = None,
              overwrite: bool = False, progress: Callable[[int], Any] | None = None) -> DiskCorpus:
        """Write ``n_docs`` documents to a :class:`DiskCorpus` folder, one block at a time.

        Parameters
        ----------
        folder : str or path-like
            Built atomically (a hidden folder beside it, renamed at the end).
        n_docs : int
        seed : int
        vocabulary : sequence of str, optional
            One word per column; ``"w0", "w1", ...`` if None.
        overwrite : bool
            Replace an existing disk corpus in ``folder``.
        progress : callable, optional
            Called with the number of documents written after every block.
        """
        n_docs, seed = check_int("n_docs", n_docs, 1), check_int("seed", seed, 0)
        vocabulary = [f"w{w}" for w in range(self.n_words)] if vocabulary is None else list(vocabulary)
        with _DiskWriter(folder, self.n_words, overwrite) as writer:
            for counts in self._blocks(n_docs, seed, 0):
                writer.append(counts)
                if progress is not None:
                    progress(writer.n_docs)
            source = {"kind": "semisynthetic", "seed": seed, "block_size": self.block_size,
                      "n_topics": self.n_topics, "alpha": self.alpha,
                      "mean_length": float(self.doc_lengths.mean())}
            target = writer.finish(vocabulary, source)
        return DiskCorpus.open(target, check="quick")
