"""Topic quality at a glance: each topic's share of the words, whether it is live, its coherence, what is wrong.

The read-outs a reader checks before trusting a topic, in one place for every front end
(the explorer's cards and run list, the command line's ``fit`` summary and ``topics``):

- the share of the corpus's words each topic explains (``model.word_shares()``);
- live: an LDA topic with at least ``LIVE_SHARE`` / K of the words, an HDP topic with at
  least ``IN_USE_WEIGHT`` (the rest of an HDP's topics are spare slots of its truncation);
- coherence: the NPMI of the topic's ``COHERENCE_TOP_WORDS`` most probable words in a reference corpus
  (:class:`engine.CoherenceReference`, usually the training documents);
- general: the topic's words lie within ``GENERAL_DIVERGENCE`` nats of the collection's
  overall word use (``model.overall_divergence()``): a copy of the commonest words, not a theme;
- a copy: the topic is identical to a lower-numbered one (``model.duplicate_of()``, LDA's tied copies);
- one document's: a live topic takes at least ``ONE_DOCUMENT_SHARE`` of its words from a single
  document (:func:`main_documents`, from each document's topic proportions times its length),
  so the topic describes that document rather than a theme the documents share.  Left out
  of :func:`topic_quality` (it needs the topic proportions of every document, a pass over
  the collection) and added by ``dataclasses.replace`` where they are at hand.  Before
  training, :func:`long_documents` finds the documents long enough to do this.

The lines match ``benchmarks/quality.py`` (live topics, topics in use, coherence over all of
an LDA's topics and over an HDP's topics in use), so what a user reads is what the
benchmark measured.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.models.hdp import HDP
from engine.models.inspection import GENERAL_DIVERGENCE
from engine.validation import as_counts, check_int

__all__ = ["COHERENCE_TOP_WORDS", "HDP_FEW_DOCUMENTS", "HDP_FEW_WORDS", "HDP_RULE_TOPICS", "ONE_DOCUMENT_MIN_DOCUMENTS",
           "ONE_DOCUMENT_SHARE", "SHORT_DOCUMENT_WORDS", "TopicQuality", "hdp_rule_topics", "hdp_small_collection",
           "long_documents", "main_documents", "recurring_words", "topic_quality"]

COHERENCE_TOP_WORDS = 10  # NPMI of each topic's 10 most probable words, the usual choice (Röder et al. 2015)
LIVE_SHARE = 0.25  # LDA: a topic explaining less than a quarter of an even share (1 / K) of the words is hardly used
IN_USE_WEIGHT = 0.01  # HDP: its topics in use explain at least 1 % of the words; the others are spare slots
# NPMI 0 is what words that appear in documents independently of each other score: below it, a topic's top
# words share documents less often than chance, so they do not describe one subject together.  Compared at
# two decimals, as the front ends print it, so a warning never stands beside "0.00".
INCOHERENT_NPMI = 0.0
# documents shorter than this on average are where LDA's CVB0 step gave clearly better topics than the zero-order
# one (0.08-0.31 nats/word on collections of 5-11 words, benchmarks/RESULTS.md run 45): after a run with
# local_update="zero_order" the command line says so (the default, "auto", runs CVB0 on them already)
SHORT_DOCUMENT_WORDS = 15
# a topic taking at least half of its words from one document is that document's more than the collection's: the
# share at which benchmarks/copies.py counts a topic as held by the documents it draws
ONE_DOCUMENT_SHARE = 0.5
# ... but not in a collection of fewer documents than this (passages counted as the document they were cut from):
# a few long documents are read as passages so that topics come from within them (the app cuts fewer than 20 long
# documents into passages by default), and there every topic would be one document's
ONE_DOCUMENT_MIN_DOCUMENTS = 20
# before an HDP run, which finds its number of topics itself, long_documents reads K as one topic for every
# HDP_DOCUMENTS_PER_TOPIC documents, at most HDP_RULE_TOPICS (hdp_rule_topics; benchmarks/RESULTS.md run 79)
HDP_RULE_TOPICS, HDP_DOCUMENTS_PER_TOPIC = 50, 10
# an HDP trained on fewer documents than this, or on documents holding fewer words (tokens) of words found in two or
# more of them (recurring_words) than HDP_FEW_WORDS, may leave most words in many copies of the collection's overall
# word use (hdp_small_collection)
HDP_FEW_DOCUMENTS = 500
HDP_FEW_WORDS = 20_000


@dataclass(frozen=True)
class TopicQuality:
    """Quality read-outs of one model, one entry per topic in the model's order (see the module docstring).

    Attributes
    ----------
    weights : ndarray of shape (n_topics,)
        Share of the words each topic explains.
    live : ndarray of bool, shape (n_topics,)
        The topic explains a real share of the words (an HDP's topics in use).
    coherence : ndarray of shape (n_topics,) or None
        NPMI of each topic's top words in the reference corpus; None without one.
    hdp : bool
        The model is an HDP (its mean coherence is over its topics in use).
    divergence : ndarray of shape (n_topics,) or None
        Jensen-Shannon divergence (nats) of each topic from the overall word use; None: not known.
    duplicate_of : ndarray of int, shape (n_topics,) or None
        Lowest index of a topic identical to each (itself when none); None: not known.
    main_document : ndarray of int, shape (n_topics,) or None
        The document (or group of documents) giving each topic the most words, -1 for a
        topic without words (:func:`main_documents`); None: not known.
    main_share : ndarray of shape (n_topics,) or None
        The share of each topic's words that ``main_document`` gives it; None: not known.
    """

    weights: np.ndarray
    live: np.ndarray
    coherence: np.ndarray | None
    hdp: bool
    divergence: np.ndarray | None = None
    duplicate_of: np.ndarray | None = None
    main_document: np.ndarray | None = None
    main_share: np.ndarray | None = None

    @property
    def n_topics(self) -> int:
        return len(self.weights)

    @property
    def n_live(self) -> int:
        return int(np.count_nonzero(self.live))

    @property
    def spare_share(self) -> float:
        """Share of the words the topics that are not live explain together."""
        return float(self.weights[~self.live].sum())

    @property
    def general(self) -> np.ndarray:
        """bool per topic: its words are the collection's overall word use, not a theme (``GENERAL_DIVERGENCE``)."""
        if self.divergence is None:
            return np.zeros(self.n_topics, dtype=bool)
        return self.divergence < GENERAL_DIVERGENCE

    @property
    def copies(self) -> np.ndarray:
        """bool per topic: the topic is identical to a lower-numbered one (all False when not known)."""
        if self.duplicate_of is None:
            return np.zeros(self.n_topics, dtype=bool)
        return self.duplicate_of != np.arange(self.n_topics)

    @property
    def one_document(self) -> np.ndarray:
        """bool per topic: a live topic taking at least ``ONE_DOCUMENT_SHARE`` of its words from one document (all
        False when not known).  Not the others: where a hardly used topic's few words come from says little."""
        if self.main_share is None:
            return np.zeros(self.n_topics, dtype=bool)
        return (np.asarray(self.main_share) >= ONE_DOCUMENT_SHARE) & self.live

    @property
    def one_document_sources(self) -> np.ndarray:
        """The documents the :attr:`one_document` topics take most of their words from, those giving the most topics
        first (ties by document); empty when there are none."""
        if not self.one_document.any():
            return np.zeros(0, dtype=np.intp)
        documents, counts = np.unique(np.asarray(self.main_document)[self.one_document], return_counts=True)
        return documents[np.lexsort((documents, -counts))].astype(np.intp)

    @property
    def incoherent(self) -> np.ndarray:
        """bool per topic: NPMI below ``INCOHERENT_NPMI`` at two decimals (all False without coherence)."""
        if self.coherence is None:
            return np.zeros(self.n_topics, dtype=bool)
        return np.round(np.asarray(self.coherence, dtype=np.float64), 2) < INCOHERENT_NPMI

    @property
    def n_distinct(self) -> int:
        """Topics counted once per group of identical (tied) ones."""
        return self.n_topics if self.duplicate_of is None else int(np.unique(self.duplicate_of).size)

    @property
    def mean_coherence(self) -> float | None:
        """Mean NPMI over an LDA's topics, or over an HDP's topics in use; None without coherence.

        An HDP's spare slots hold almost no words, and their arbitrary top words would pull the
        mean towards the slots' noise (to about half on State of the Union paragraphs).
        """
        if self.coherence is None:
            return None
        scored = np.asarray(self.coherence, dtype=np.float64)
        if self.hdp:
            scored = scored[self.live]
        return float(scored.mean()) if scored.size else None


def topic_quality(model, reference=None, hdp: bool | None = None) -> TopicQuality:
    """The :class:`TopicQuality` of a trained LDA or HDP.

    Parameters
    ----------
    model : LDA or HDP
        A trained model.
    reference : CoherenceReference, optional
        Co-occurrence counts of the reference documents (the training documents, usually)
        over the model's vocabulary; without it there is no coherence.
    hdp : bool, optional
        Read the model as an HDP (topics in use, spare slots); default: whether it is one.

    Returns
    -------
    TopicQuality
    """
    hdp = isinstance(model, HDP) if hdp is None else bool(hdp)
    weights = np.asarray(model.word_shares(), dtype=np.float64)
    live = weights >= (IN_USE_WEIGHT if hdp else LIVE_SHARE / len(weights))
    coherence = None if reference is None else reference.score_model(model, n_top=COHERENCE_TOP_WORDS, measure="npmi")
    return TopicQuality(weights, live, coherence, hdp, np.asarray(model.overall_divergence(), dtype=np.float64),
                        np.asarray(model.duplicate_of()))


def main_documents(doc_topic, lengths, groups=None) -> tuple[np.ndarray, np.ndarray]:
    """For each topic, the document giving it the most words, and that document's share of the topic's words.

    Document d gives topic k ``doc_topic[d, k] * lengths[d]`` of its words in expectation (its
    topic proportions times its length).  A topic whose words come mostly from one document
    describes that document rather than a theme the documents share: a very long document
    among short ones, a data table or a text in another language.

    Parameters
    ----------
    doc_topic : array of shape (n_docs, n_topics)
        Each document's topic proportions (``model.transform(counts)``), rows summing to 1.
    lengths : array of shape (n_docs,)
        Each document's words (its row sum of counts).
    groups : array of int, shape (n_docs,), optional
        The document each row belongs to, when documents were cut into passages (0, 1, ...):
        a group's words are counted together.  Default: each row its own document.

    Returns
    -------
    main : ndarray of int, shape (n_topics,)
        The document (group) giving each topic the most words; -1 for a topic without words.
    share : ndarray of shape (n_topics,)
        Its share of the topic's words, in [0, 1]; 0 for a topic without words.

    Examples
    --------
    >>> import numpy as np
    >>> from engine import main_documents
    >>> main, share = main_documents(np.array([[1.0, 0.0], [0.5, 0.5], [0.5, 0.5]]), np.array([100, 10, 10]))
    >>> main.tolist(), np.round(share, 3).tolist()
    ([0, 1], [0.909, 0.5])
    """
    theta = np.asarray(doc_topic, dtype=np.float64)
    length = np.asarray(lengths, dtype=np.float64)
    if theta.ndim != 2 or length.shape != (theta.shape[0],):
        raise ValueError(f"doc_topic must be (n_docs, n_topics) and lengths (n_docs,); got {theta.shape} and "
                         f"{length.shape}")
    if not (np.isfinite(theta).all() and np.isfinite(length).all()) or (theta < 0).any() or (length < 0).any():
        raise ValueError("doc_topic and lengths must be finite and non-negative")
    words = theta * length[:, None]
    words = _group_sums(words, groups, "document")
    total = words.sum(axis=0)
    if words.shape[0] == 0:
        return np.full(theta.shape[1], -1, dtype=np.intp), np.zeros(theta.shape[1])
    main = np.argmax(words, axis=0).astype(np.intp)
    largest = words[main, np.arange(words.shape[1])]
    has_words = total > 0
    share = np.divide(largest, total, out=np.zeros_like(total), where=has_words)
    return np.where(has_words, main, -1), np.minimum(share, 1.0)


def _group_sums(values: np.ndarray, groups, name: str) -> np.ndarray:
    """``values`` (n_docs, ...) summed over each group of ``groups`` (0, 1, ... per document); as they are if None."""
    if groups is None:
        return values
    group = np.asarray(groups)
    if group.shape != values.shape[:1] or not np.issubdtype(group.dtype, np.integer) or (group < 0).any():
        raise ValueError(f"groups must hold a non-negative integer per {name}")
    summed = np.zeros((int(group.max(initial=-1)) + 1, *values.shape[1:]))
    np.add.at(summed, group, values)
    return summed


def hdp_rule_topics(n_documents: int) -> int:
    """The number of topics :func:`long_documents` reads before an HDP run: one for every
    ``HDP_DOCUMENTS_PER_TOPIC`` (10) documents, at least 1 and at most :data:`HDP_RULE_TOPICS` (50).

    The HDP finds its number of topics itself, more on a larger collection: the default HDP
    used up to about one topic for every 10 documents on samples of 50 to 400 documents, and
    24 to 57 on collections of thousands (benchmarks/RESULTS.md run 79).

    Examples
    --------
    >>> from engine import hdp_rule_topics
    >>> [hdp_rule_topics(n) for n in (5, 358, 10_000)]
    [1, 35, 50]
    """
    n_documents = check_int("n_documents", n_documents, 0)
    return min(HDP_RULE_TOPICS, max(1, n_documents // HDP_DOCUMENTS_PER_TOPIC))


def recurring_words(counts) -> int:
    """The words (tokens) of a documents x words count matrix whose word is found in two or more of its documents.

    A word found in one document only cannot tie documents together, so it tells a topic model nothing about
    which words go together; this count is what :func:`hdp_small_collection` reads, and it hardly changes whether such
    words were kept or pruned (``min_df=2``).  Pruning more (the app's ``min_df=5, max_df=0.5`` for 200 documents or
    more, on which the line was drawn) lowers it: benchmarks/RESULTS.md run 89 has a collection read all three ways.

    Examples
    --------
    >>> from engine import recurring_words
    >>> recurring_words([[2, 1, 0], [1, 0, 0], [0, 0, 4]])  # word 0 is in two documents; words 1 and 2 in one
    3
    """
    matrix = as_counts(counts, name="counts").copy()
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    columns = matrix.shape[1]
    documents = np.bincount(matrix.indices, minlength=columns)
    words = np.bincount(matrix.indices, weights=matrix.data, minlength=columns)
    return round(float(words[documents >= 2].sum()))


def hdp_small_collection(n_documents: int, n_words: int | None) -> str | None:
    """Why training documents are too few for the default HDP to tell its topics apart: "documents" (fewer than
    :data:`HDP_FEW_DOCUMENTS`, 500), "words" (``n_words``, their :func:`recurring_words`, fewer than
    :data:`HDP_FEW_WORDS`, 20,000), or None.

    The documents are the first reason: ``n_words`` may be None (not counted) when they are fewer than
    :data:`HDP_FEW_DOCUMENTS`, and must be a count otherwise.

    On such collections ten passes can leave the HDP's unused topics as near-identical copies of the overall word
    use (``model.general_topics()``) holding most of the words; benchmarks/RESULTS.md runs 22 (documents) and 89
    (words) measured where, and drew the two lines.  The explorer and ``svi-topics fit`` say so before an HDP run.

    Examples
    --------
    >>> from engine import hdp_small_collection
    >>> [hdp_small_collection(400, None), hdp_small_collection(900, 12_000), hdp_small_collection(900, 30_000)]
    ['documents', 'words', None]
    """
    n_documents = check_int("n_documents", n_documents, 0)
    if n_words is not None:
        n_words = check_int("n_words", n_words, 0)
    if n_documents < HDP_FEW_DOCUMENTS:
        return "documents"
    if n_words is None:
        raise ValueError(f"n_words: give the recurring words of the {n_documents:,} documents "
                         f"(engine.recurring_words); None is only for fewer than {HDP_FEW_DOCUMENTS:,} documents, "
                         "where they do not decide")
    return "words" if n_words < HDP_FEW_WORDS else None


def long_documents(lengths, n_topics: int, groups=None) -> tuple[np.ndarray, np.ndarray]:
    """The documents long enough to fill a topic on their own, before any training: (documents, shares), longest first.

    A topic explains 1 / ``n_topics`` of the words on average; a document holding at least
    ``ONE_DOCUMENT_SHARE`` of that, a share ``ONE_DOCUMENT_SHARE / n_topics`` of all the
    words, can give such a topic half of its words by itself: the topics :func:`main_documents`
    flags after training.  benchmarks/RESULTS.md run 76 checks the rule against the topics
    flagged after training, on ordinary collections and on one that a single file dominates.

    Parameters
    ----------
    lengths : array of shape (n_docs,)
        Each document's words (its row sum of counts), non-negative.
    n_topics : int
        The topics of the run to come (>= 1); before an HDP run, :func:`hdp_rule_topics`.
    groups : array of int, shape (n_docs,), optional
        The document each row belongs to, when documents were cut into passages (0, 1, ...):
        a group's words are counted together.  Default: each row its own document.

    Returns
    -------
    documents : ndarray of int
        The documents (groups) holding at least ``ONE_DOCUMENT_SHARE / n_topics`` of the
        words, the longest first (ties by index).
    shares : ndarray
        Their shares of all the words.

    Examples
    --------
    >>> import numpy as np
    >>> from engine import long_documents
    >>> documents, shares = long_documents(np.array([10, 300, 10, 80]), n_topics=10)
    >>> documents.tolist(), np.round(shares, 3).tolist()
    ([1, 3], [0.75, 0.2])
    """
    if isinstance(n_topics, bool) or not isinstance(n_topics, (int, np.integer)) or n_topics < 1:
        raise ValueError(f"n_topics must be an integer >= 1, got {n_topics!r}")
    length = np.asarray(lengths, dtype=np.float64)
    if length.ndim != 1 or not np.isfinite(length).all() or (length < 0).any():
        raise ValueError("lengths must be a 1-d array of finite, non-negative word counts")
    words = _group_sums(length, groups, "document")
    total = words.sum()
    if total <= 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0)
    shares = words / total
    documents = np.flatnonzero(shares >= ONE_DOCUMENT_SHARE / n_topics)
    documents = documents[np.lexsort((documents, -shares[documents]))].astype(np.intp)
    return documents, shares[documents]
