"""Read-outs shared by every topic model (LDA and the HDP), defined once."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from engine.data.vectorizer import TextCounts, Vectorizer
from engine.errors import NotFittedError, VocabularyMismatchError
from engine.models._estimator import TopicEstimator
from engine.models.inspection import GENERAL_DIVERGENCE, top_indices
from engine.models.lazy_topics import LazyTopics
from engine.validation import as_counts, check_int, check_topic_indices

__all__ = ["DTYPES", "TOPIC_INITS", "TopicModel", "initial_topics"]

DTYPES = ("float64", "float32")  # precisions of the topics and the local step
TOPIC_INITS = ("exponential", "gamma", "documents", "clusters")  # starts of lambda (see initial_topics)
_TOPICS_PER_DRAW = 16  # rows of lambda per random stream of the start (see initial_topics)
# the "documents" start: each topic gets the words of this many random documents, together weighing this
# fraction of the corpus's tokens / K (benchmarks/RESULTS.md, run 21)
SEED_DOCUMENTS, SEED_MASS = 3, 0.03
_SEED_STREAM = 1 << 30  # the seeding documents' random stream, apart from the blocks' streams
# the "clusters" start: k-means over at most this many training documents, for at most this many rounds
# (benchmarks/RESULTS.md, run 48)
CLUSTER_SAMPLE, CLUSTER_ROUNDS = 20_000, 30
_CLUSTER_STREAM = (1 << 30) + 1  # its sample's and k-means' random stream
_DIVERGENCE_CELLS = 1 << 16  # entries of E[beta] whose divergence from the overall word use is taken at once


def _dtype_name(dtype) -> object:
    """"float64" for any spelling numpy accepts (np.float64, "f8"...); anything else as given, for the error."""
    try:
        return str(np.dtype(dtype))
    except (TypeError, ValueError):
        return dtype


EPOCH_SLACK = 1e-9  # epochs summed from S/D per update may fall just short of a whole number
STEP_FLOORS = ("running", "none")  # step_floor: at least 1/(t + 1) at update t from the random start, or no floor


class TopicModel(TopicEstimator):
    """Base of :class:`engine.LDA` and :class:`engine.HDP`.

    Subclasses hold the topics ``lambda_`` (K x V Dirichlet parameters) and
    define ``topic_weights()``; everything a display needs from the topics
    themselves lives here so both models answer to the same names.  The
    scikit-learn side (arguments, ``fit``, ``transform``, ``score``) is
    :class:`engine.models._estimator.TopicEstimator`.
    """

    n_topics: int
    n_words: int | None
    eta: float
    seed: int
    dtype: str
    topic_init: str
    _topics: LazyTopics | None  # lambda, with the SVI decay applied lazily

    @property
    def lambda_(self) -> np.ndarray | None:
        """Topic Dirichlet parameters, read-only ndarray of shape (n_topics, n_words)."""
        return None if self._topics is None else self._topics.dense()

    @lambda_.setter
    def lambda_(self, value) -> None:
        self._replace_topics(value)
        self._updates_from_start = None  # topics set by hand are not a random start: no step floor

    def _replace_topics(self, value) -> None:
        """lambda <- ``value``, checked; the update count stays (the HDP's birth rounds rewrite trained topics)."""
        value = np.array(value, dtype=self.dtype, copy=True)
        n_words = self.n_words  # unset: any vocabulary size
        if value.ndim != 2 or value.shape[0] != self.n_topics or (n_words is not None and value.shape[1] != n_words):
            expected = (self.n_topics, "n_words" if n_words is None else n_words)
            raise ValueError(f"lambda_ must have shape (n_topics, n_words) = {expected}, got {value.shape}")
        if not np.all(np.isfinite(value)) or value.min() <= 0:
            raise ValueError("lambda_ must be finite and > 0 everywhere")
        self._topics = LazyTopics(value, self.eta)
        self._topics_assigned()

    def _reset_state(self) -> None:
        super()._reset_state()
        self._topics = None
        # global updates since initialize()'s random topics; None: the topics are not from a random start
        # (set by hand, loaded without a count), so no step floor applies
        self._updates_from_start: int | None = None

    def _initialize_topics(self, n_docs: int, n_words: int | None, documents=None) -> None:
        """Random lambda for a corpus of ``n_docs`` documents of ``n_words`` words, as ``topic_init`` says.

        ``documents`` (the training corpus, in memory or on disk) is read by the "documents" and "clusters"
        starts only.
        """
        configured = self._settings()["n_words"]
        if configured is None:
            if n_words is None:
                raise ValueError("the model was built without n_words: pass the vocabulary size, "
                                 "initialize(n_docs, n_words=...)")
            configured = check_int("n_words", n_words, 1)
        elif n_words is not None and n_words != configured:
            raise VocabularyMismatchError(f"the documents have {n_words} words (columns) but the model was built "
                                          f"for n_words={configured}")
        self._topics = LazyTopics(
            initial_topics(self.n_topics, configured, n_docs, self.eta, self.topic_init, self.seed, self.dtype,
                           documents=documents),
            self.eta,
        )
        self._updates_from_start = 0

    def _topics_assigned(self) -> None:
        """Called after lambda_ is assigned (the HDP gives itself prior sticks if it has none)."""

    @property
    def _at_random_start(self) -> bool:
        """The topics are initialize()'s random draw, not yet updated."""
        return self._updates_from_start == 0

    def _counted_update(self) -> None:
        """One more global update blended in (call at the end of each)."""
        if self._updates_from_start is not None:
            self._updates_from_start += 1

    def _restore_updates(self, clock) -> dict:
        """Take ``updates_from_start`` out of a training clock (absent, as in older files: None); the rest of it."""
        if not isinstance(clock, dict):
            return clock
        clock = dict(clock)
        updates = clock.pop("updates_from_start", None)
        if updates is not None and (isinstance(updates, bool) or not isinstance(updates, int) or updates < 0):
            raise ValueError(f"the training clock's updates_from_start must be a whole number >= 0 or null, "
                             f"got {updates!r}")
        self._updates_from_start = updates
        return clock

    def step_size_for(self, rho: float) -> float:
        """The next SVI global step's size, given the schedule's ``rho``: at least 1/(t + 1) at update t from the
        random start under ``step_floor="running"`` (RESULTS run 37), so the random topics never weigh more than
        one minibatch; ``rho`` itself otherwise."""
        n = self._updates_from_start
        return rho if n is None else self.planned_step_size(n + 1, rho)

    def planned_step_size(self, t: int, rho: float) -> float:
        """The size update ``t`` (1, 2, ...) from the random start takes when the schedule gives ``rho``.

        What :meth:`step_size_for` returns there; a plan of a run drawn before training (the explorer's chart).
        """
        return max(rho, 1.0 / (t + 1)) if self.step_floor == "running" else rho

    def _require_topics(self) -> LazyTopics:
        if self._topics is None:
            self._require_fitted()  # raises the error that says what to do
        if self._topics.shape[0] != self.n_topics:  # set_params(n_topics=...) after training
            raise ValueError(f"n_topics is {self.n_topics} but the model's topics have {self._topics.shape[0]} rows; "
                             "fit the model again after changing n_topics")
        return self._topics

    def _require_fitted(self) -> np.ndarray:
        if self._topics is None:
            raise NotFittedError("the model has no topics yet: fit it, train it with engine.SVI, "
                                 "or call initialize(n_docs) first")
        return self.lambda_

    def count_texts(self, texts: Sequence[str], *, vocabulary: Sequence[str] | None = None,
                    vectorizer: Vectorizer | None = None) -> TextCounts:
        """Count new raw texts as the training texts were counted, over the model's vocabulary.

        Parameters
        ----------
        texts : sequence of str
            One document each.
        vocabulary : sequence of str, optional
            The word of each column; by default the model's ``feature_names_in_``
            (set by ``fit`` on an :class:`engine.Corpus` and by :func:`engine.load_model`).
        vectorizer : Vectorizer, optional
            The preprocessing; by default the model's ``vectorizer_`` (recorded when it
            was fitted on a corpus built with :meth:`engine.Corpus.from_texts`, and kept
            in its model file).  A model without one (files saved before the
            preprocessing was recorded, or fitted on bag-of-words counts) uses
            ``Vectorizer()``, the defaults: lower case, accents stripped, English stop
            words, :data:`engine.TOKEN_PATTERN`.  Every corpus built from text before
            the settings were recorded was counted that way (unless it was given
            another ``token_pattern``), so its counts are reproduced exactly.

        Returns
        -------
        TextCounts
            ``counts`` (n_texts x n_words) and, per text, the ``unknown`` tokens dropped
            because the vocabulary lacks them.

        Raises
        ------
        NotFittedError
            The model has no topics yet.
        ValueError
            The model does not know its vocabulary and none is given.
        VocabularyMismatchError
            ``vocabulary`` does not have ``n_words`` words.
        """
        self._require_topics()
        if vocabulary is None:
            vocabulary = self.__dict__.get("feature_names_in_")
            if vocabulary is None:
                raise ValueError(
                    f"this {type(self).__name__} does not know its vocabulary (it was fitted on unnamed counts); "
                    "pass vocabulary=corpus.vocabulary, or fit it on an engine.Corpus, or load it from a model "
                    "file saved with its vocabulary")
        vocabulary = [str(word) for word in vocabulary]
        if len(vocabulary) != self.n_words:
            raise VocabularyMismatchError(f"vocabulary has {len(vocabulary)} words but the model has "
                                          f"n_words={self.n_words}; pass the vocabulary it was trained on")
        if vectorizer is None:
            vectorizer = self.__dict__.get("vectorizer_") or Vectorizer()
        elif not isinstance(vectorizer, Vectorizer):
            raise TypeError(f"vectorizer must be an engine.Vectorizer, got {type(vectorizer).__name__}")
        return vectorizer.count(texts, vocabulary)

    def transform_texts(self, texts: Sequence[str], *, vocabulary: Sequence[str] | None = None,
                        vectorizer: Vectorizer | None = None) -> np.ndarray:
        """Topic proportions of new raw texts, preprocessed exactly as the training texts.

        ``transform(count_texts(texts).counts)``: the text is tokenised, normalised and
        stripped of stop words with the model's preprocessing (see :meth:`count_texts`
        for the defaults and the arguments); words outside the vocabulary are dropped
        (:meth:`count_texts` says how many).  A text of the training corpus gets exactly
        the proportions ``transform`` gives its row of the corpus's counts.

        Returns
        -------
        ndarray of shape (n_texts, n_topics)
            Rows summing to 1; a text with no known word gets the proportions of the
            prior alone.
        """
        return self.transform(self.count_texts(texts, vocabulary=vocabulary, vectorizer=vectorizer).counts)

    def copy(self):
        """An independent copy (parameters and state)."""
        return copy.deepcopy(self)

    def training_clock(self) -> dict:
        """What the global steps have counted besides the learned arrays, JSON-able (empty: nothing).

        Model files keep it, so a checkpointed run continues exactly (LDA counts the
        epochs behind its once-per-epoch revival).
        """
        return {}

    def restore_training_clock(self, clock: dict) -> None:
        """Continue from a :meth:`training_clock` (as read from a model file); ValueError if it is malformed."""
        if clock:
            raise ValueError(f"{type(self).__name__} keeps no training clock, got the entries {sorted(clock)}")

    def topic_weights(self) -> np.ndarray:  # pragma: no cover - each model defines its own
        raise NotImplementedError

    def expected_topics(self) -> np.ndarray:
        """E[beta_k] = lambda_k / sum_v lambda_kv, ndarray of shape (n_topics, n_words)."""
        lambda_ = self._require_fitted()
        return lambda_ / lambda_.sum(axis=1, keepdims=True)

    def top_words(self, n: int = 10, vocabulary=None) -> list[list]:
        """The n most probable words of each topic, as indices or as words of ``vocabulary``."""
        n = min(check_int("n", n, 1), self.n_words)
        top = top_indices(self.expected_topics(), n)
        if vocabulary is None:
            return top.tolist()
        return [[vocabulary[i] for i in row] for row in top]

    def topic_order(self) -> np.ndarray:
        """Topic indices from the heaviest corpus weight to the lightest."""
        return np.argsort(-self.topic_weights(), kind="stable")

    def topics_in_use(self, threshold: float = 0.01) -> int:
        """Number of topics whose corpus weight is at least ``threshold``."""
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be in (0, 1), got {threshold!r}")
        return int(np.sum(self.topic_weights() >= threshold))

    def word_shares(self) -> np.ndarray:
        """Each topic's share of the corpus's words: sum_v (lambda_kv - eta), normalised.

        For LDA this is :meth:`topic_weights`; for the HDP it differs from the
        corpus sticks, which count document atoms (an atom holding one word
        weighs as much as one holding a hundred).
        """
        # >= 0: a float32 topic left at the prior (lambda = eta) would otherwise round to about -1e-13
        mass = np.maximum((self._require_fitted().astype(np.float64) - self.eta).sum(axis=1), 0.0)
        return mass / mass.sum()

    def overall_divergence(self) -> np.ndarray:
        """How far each topic's words are from the collection's overall word use, shape (n_topics,).

        The Jensen-Shannon divergence, in nats (0 to log 2), between E[beta_k] and
        p(w) = sum_j s_j E[beta_jw], s being :meth:`word_shares`:
        JS(p, q) = KL(p || m) / 2 + KL(q || m) / 2 = H(m) - (H(p) + H(q)) / 2 with
        m = (p + q) / 2 and H the entropy (every entry is > 0, eta being > 0).  Near 0, a
        topic repeats the collection's most common words instead of singling out a theme
        (what an HDP fitted to a small collection makes many copies of,
        benchmarks/RESULTS.md run 21).
        """
        topics = self.expected_topics().astype(np.float64)
        overall = self.word_shares() @ topics

        def entropy(p: np.ndarray) -> np.ndarray:
            return -np.einsum("...v,...v->...", p, np.log(p))

        # a block of rows at a time: the (K, V) temporaries of H(m) and H(p) would not stay in cache
        divergence = np.empty(topics.shape[0])
        rows, of_overall = max(1, _DIVERGENCE_CELLS // max(1, topics.shape[1])), entropy(overall)
        for start in range(0, topics.shape[0], rows):
            block = topics[start:start + rows]
            divergence[start:start + rows] = entropy(0.5 * (block + overall)) - 0.5 * (entropy(block) + of_overall)
        return np.maximum(divergence, 0.0)

    def general_topics(self, max_divergence: float = GENERAL_DIVERGENCE) -> np.ndarray:
        """Indices of the topics that repeat the collection's overall word use, ascending.

        Those whose :meth:`overall_divergence` is below ``max_divergence`` nats (0.03 by
        default: the copies an HDP makes on a small collection lie at 0.004-0.022, the
        topics in use of every model on the benchmark panel at 0.04 or more).
        """
        if not 0.0 < max_divergence <= np.log(2.0):
            raise ValueError(f"max_divergence must be in (0, log 2], got {max_divergence!r}")
        return np.flatnonzero(self.overall_divergence() < max_divergence)

    def duplicate_of(self) -> np.ndarray:
        """For each topic, the lowest index of a topic with the same lambda (its own index if none), shape (K,).

        LDA's revival ties the topics that are copies of one topic (``revive_topics``):
        with more topics than the documents hold, the surplus ends as such groups of
        identical topics.  Rows equal to a relative 1e-9 count as the same.  Topics holding
        no words (lambda = eta, as :meth:`merge_topics` leaves the merged ones) are nobody's
        copies.
        """
        lam = self._require_fitted().astype(np.float64)
        totals = lam.sum(axis=1)
        excess = totals - self.eta * lam.shape[1]
        group = np.where(excess <= 1e-9 * max(float(excess.max()), 1.0), np.arange(lam.shape[0]), -1)
        order = np.argsort(totals, kind="stable")
        for position, k in enumerate(order):  # equal rows have equal totals: compare within a run of those
            if group[k] >= 0:
                continue
            group[k] = k
            for j in order[position + 1:]:
                if totals[j] > totals[k] * (1.0 + 1e-9):
                    break
                if group[j] < 0 and np.allclose(lam[j], lam[k], rtol=1e-9, atol=0.0):
                    group[j] = k
        lowest = {label: int(np.flatnonzero(group == label).min()) for label in np.unique(group)}
        return np.array([lowest[label] for label in group])

    def merge_topics(self, topics) -> TopicModel:
        """A copy of the model in which ``topics`` are one topic; this model is left as it is.

        The topic of the group holding the largest share of the words (:meth:`word_shares`)
        takes the others' expected word counts: lambda_keep = eta + sum over the group of
        (lambda_k - eta).  The others are emptied to the prior (lambda_k = eta), so every
        topic keeps its index, its label and its place in exported tables; an emptied
        topic is simply unused.  The HDP also adds the group's corpus stick counts
        (a_k - 1) into the kept topic's.  The priors (alpha, eta, omega) are unchanged.

        Meant for copies of one topic, as :meth:`general_topics` finds them, once training
        is over: merging distinct themes loses them, and merging the copies after every
        epoch let the merged topic swallow the others (benchmarks/RESULTS.md, run 21).

        Parameters
        ----------
        topics : sequence of int
            At least two distinct topic indices in [0, n_topics).

        Returns
        -------
        TopicModel
            The merged copy, of the same class and size.
        """
        lambda_ = self._require_fitted()
        group = np.unique(check_topic_indices(topics, self.n_topics))  # a topic named twice counts once
        if group.size < 2:
            raise ValueError(f"merging needs at least two distinct topics, got {group.tolist()}")
        keep = int(group[np.argmax(self.word_shares()[group])])
        rest = group[group != keep]
        merged = self.copy()
        excess = lambda_[group].astype(np.float64) - self.eta
        updated = lambda_.copy()
        updated[keep] = self.eta + np.maximum(excess, 0.0).sum(axis=0)
        updated[rest] = self.eta
        merged.lambda_ = updated
        merged._merge_globals(keep, rest)
        return merged

    def _merge_globals(self, keep: int, rest: np.ndarray) -> None:
        """Merge what else the model keeps per topic (the HDP's sticks) for :meth:`merge_topics`."""

    def topics_covering(self, mass: float = 0.95, by: str = "weight") -> int:
        """Smallest number of topics whose corpus weights (or word shares, ``by="words"``) add up to ``mass``."""
        if not 0.0 < mass <= 1.0:
            raise ValueError(f"mass must be in (0, 1], got {mass!r}")
        if by not in ("weight", "words"):
            raise ValueError(f"by must be 'weight' or 'words', got {by!r}")
        shares = self.topic_weights() if by == "weight" else self.word_shares()
        cumulative = np.cumsum(np.sort(shares)[::-1])
        return int(min(np.searchsorted(cumulative, mass - 1e-12) + 1, self.n_topics))


def initial_topics(
    n_topics: int, n_words: int, n_docs: int, eta: float, method: str, seed: int, dtype: str, documents=None
) -> np.ndarray:
    """Random initial lambda of shape (n_topics, n_words), shared by LDA and the HDP.

    "exponential": the paper's footnote, lambda_kv - eta ~ Exponential with
    mean D*100/(K*V), as if every document had 100 words assigned to random
    topics.  "gamma": Gamma(100, 1/100) draws (Hoffman's onlineldavb, scikit-learn).
    "documents": the "gamma" draws, plus on each topic the word proportions of
    ``SEED_DOCUMENTS`` random rows of ``documents`` pooled, weighing ``SEED_MASS``
    x the corpus's tokens / K (``n_docs`` x the drawn rows' mean length): every
    topic starts leaning towards words that occur together instead of all starting
    near uniform.  "clusters": the "gamma" draws, plus on topic k the word counts of
    the documents in cluster k of a k-means clustering of the documents (their
    tf-idf rows, scaled to unit length, so that documents cluster by the words they
    share, not by their lengths; scikit-learn's ``KMeans``, one start, at most
    ``CLUSTER_ROUNDS`` rounds, one thread), over all of them or a random
    ``CLUSTER_SAMPLE`` whose counts are scaled by n_docs / sample size: the
    topics start as the collection's groups of documents, their mass the corpus's
    tokens.  ``documents`` is the training corpus (in memory or on disk) or,
    for ``partial_fit``, the documents at hand.

    The topics are drawn in blocks of ``_TOPICS_PER_DRAW`` rows, block b from
    ``np.random.default_rng([seed, b])`` one row at a time in float64 (then
    rounded to ``dtype``), so the start depends on the seed alone, not on the
    number of threads, and a float32 model starts from the float64 start
    rounded.  numpy's samplers release the GIL, so the blocks are drawn on
    :func:`_draw_threads` threads: drawn serially, the start was a sizeable
    share of a short HDP run (benchmarks/RESULTS.md, runs 11 and 12).
    """
    n_docs = check_int("n_docs", n_docs, 1)
    topics = np.empty((n_topics, n_words), dtype=dtype)
    mean_excess = n_docs * 100.0 / (n_topics * n_words)

    def draw_block(block: int) -> None:
        rng = np.random.default_rng([seed, block])
        row = np.empty(n_words)
        for k in range(block * _TOPICS_PER_DRAW, min(n_topics, (block + 1) * _TOPICS_PER_DRAW)):
            if method == "exponential":
                rng.standard_exponential(out=row)
                row *= mean_excess
                row += eta
            else:
                rng.standard_gamma(100.0, out=row)
                row *= 1.0 / 100.0
            topics[k] = row

    blocks = range(-(-n_topics // _TOPICS_PER_DRAW))
    threads = min(len(blocks), _draw_threads())
    if threads > 1:
        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="topic-draws") as pool:
            list(pool.map(draw_block, blocks))  # list(): re-raises a worker's exception here
    else:
        for block in blocks:
            draw_block(block)
    if method == "documents":
        _add_document_seeds(topics, n_docs, _training_documents(method, documents, n_words), seed)
    elif method == "clusters":
        _add_cluster_counts(topics, n_docs, _training_documents(method, documents, n_words), seed)
    return topics


def _training_documents(method: str, documents, n_words: int):
    """The training ``documents`` a start reads (in memory or on disk), checked; ValueError when there are none."""
    if documents is None:
        uses = {"documents": "seeds the topics with the words", "clusters": "starts the topics from groups"}[method]
        raise ValueError(f'topic_init="{method}" {uses} of training documents of {n_words} words (columns), got '
                         "none: pass them, initialize(n_docs, documents=X) (engine.SVI, BatchVI and fit do)")
    return as_counts(documents, n_words, name="documents", out_of_core=True)  # refuses an empty corpus


def _add_cluster_counts(topics: np.ndarray, n_docs: int, documents, seed: int) -> None:
    """Add the "clusters" start's word counts to the "gamma" draws ``topics`` in place (see :func:`initial_topics`);
    ``documents`` as :func:`_training_documents` returns them.

    Fewer documents with words than topics: as many clusters as there are such documents,
    the other topics left as drawn.
    """
    from sklearn.cluster import KMeans  # imported here: scikit-learn loads slowly and only this start needs it
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.feature_extraction.text import TfidfTransformer
    from threadpoolctl import threadpool_limits

    n_topics = topics.shape[0]
    rng = np.random.default_rng([seed, _CLUSTER_STREAM])
    n_rows = documents.shape[0]
    rows = np.arange(n_rows) if n_rows <= CLUSTER_SAMPLE else np.sort(rng.choice(n_rows, CLUSTER_SAMPLE, replace=False))
    counts = sp.csr_matrix(documents[rows], dtype=np.float64)
    counts = counts[np.flatnonzero(np.diff(counts.indptr))]  # documents without words join no cluster
    n_clusters = min(n_topics, counts.shape[0])
    if n_clusters == 0:
        return
    unit = TfidfTransformer().fit_transform(counts)  # rows scaled to length 1
    with threadpool_limits(limits=1), warnings.catch_warnings():
        # fewer distinct documents than clusters: KMeans warns and leaves clusters empty, which stay as drawn
        warnings.simplefilter("ignore", ConvergenceWarning)
        labels = KMeans(n_clusters, n_init=1, max_iter=CLUSTER_ROUNDS,
                        random_state=int(rng.integers(2**31 - 1))).fit_predict(unit)
    membership = sp.csr_matrix((np.ones(labels.size), (labels, np.arange(labels.size))),
                               shape=(n_clusters, labels.size))
    grouped = (membership @ counts).toarray() * (n_docs / rows.size)
    topics[:n_clusters] += grouped.astype(topics.dtype)


def _add_document_seeds(topics: np.ndarray, n_docs: int, documents, seed: int) -> None:
    """Add the "documents" start's seeds to the "gamma" draws ``topics`` in place (see :func:`initial_topics`);
    ``documents`` as :func:`_training_documents` returns them."""
    n_topics = topics.shape[0]
    rng = np.random.default_rng([seed, _SEED_STREAM])
    n_drawn, n_rows = n_topics * SEED_DOCUMENTS, documents.shape[0]
    rows = rng.choice(n_rows, size=n_drawn, replace=n_drawn > n_rows)
    unique, position = np.unique(rows, return_inverse=True)  # read each row once, in order (on-disk corpora too)
    drawn = sp.csr_matrix(documents[unique])[position]
    per_row = np.asarray(drawn.sum(axis=1), dtype=np.float64).ravel()
    mass = SEED_MASS * n_docs * per_row.mean() / n_topics
    for k in range(n_topics):
        pooled = np.asarray(drawn[k * SEED_DOCUMENTS:(k + 1) * SEED_DOCUMENTS].sum(axis=0), dtype=np.float64).ravel()
        total = pooled.sum()
        if total > 0:  # documents without words leave their topic as drawn
            topics[k] += (mass / total * pooled).astype(topics.dtype)


def _draw_threads() -> int:
    """Threads for the random start: as many as numba's kernels use (1 without numba)."""
    try:
        import numba
    except ImportError:
        return 1
    return numba.get_num_threads()
