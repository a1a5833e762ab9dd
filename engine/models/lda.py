"""Latent Dirichlet allocation fitted by stochastic or batch variational inference."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from engine.kernels import KERNELS, cached_call, lda_local_step
from engine.kernels.cache import workload_name
from engine.models._base import DTYPES, EPOCH_SLACK, STEP_FLOORS, TOPIC_INITS, TopicModel, _dtype_name
from engine.models._estimator import Param
from engine.models._priors import dirichlet_newton_step, symmetric_dirichlet_newton_step
from engine.models.expectations import dirichlet_elbo_term, dirichlet_expectation
from engine.models.intertopic import jensen_shannon
from engine.models.lazy_topics import LazyTopics, TopicColumns
from engine.validation import as_counts, check_choice, check_int, check_positive

__all__ = ["LDA", "LDAStats"]

_GAMMA_INITS = ("ones", "random")
# the paper's phi update, SCVB0's zero-order one, CVB0, and CVB0 for short documents with zero-order for the rest
LOCAL_UPDATES = ("mean_field", "zero_order", "cvb0", "auto")
# local_update="auto": documents of fewer words than this take the CVB0 step (benchmarks/RESULTS.md, run 46)
DEFAULT_CVB0_WORDS = 64
LOCAL_ACCELERATIONS = ("none", "squarem")  # how a document's local iteration reaches its fixed point
PRESETS = ("default", "paper")
# revival (revive_topics): a topic holding less than _REVIVAL_SHARE / K of the words is
# replaced by half of the largest topic; the halves share each word's pseudo-counts in
# proportions drawn uniformly from 0.5 +- _SPLIT_JITTER, so the steps that follow can pull
# them apart (benchmarks/RESULTS.md, run 18)
_REVIVAL_SHARE = 0.5
_SPLIT_JITTER = 0.05
_STREAM_REVIVAL = 5  # random stream of the split proportions (engine.inference.svi uses 1 to 4)
# copies (revival, with _tie_copies): two topics closer than _TIE_DIVERGENCE (Jensen-Shannon, nats)
# whose documents in a minibatch (at least _TIE_MIN_DOCS of them giving the pair a fifth of their
# words) split themselves between the two as evenly as mean |share - 1/2| < _TIE_SEPARATION are
# one topic cut by word, not by document; judged once no split has happened for _TIE_QUIET epochs
# (benchmarks/RESULTS.md, run 26)
_TIE_DIVERGENCE = 0.1
_TIE_SEPARATION = 0.25
_TIE_MIN_DOCS = 10
_TIE_USE = 0.2
_TIE_QUIET = 3.0


def first_pass_batch_size(n_docs: int, batch_size: int, first_pass_steps: int) -> int:
    """The minibatch size of an LDA's first pass from its random start (see ``LDA(first_pass_steps=...)``).

    ``batch_size``, or ceil(``n_docs`` / ``first_pass_steps``) if that is smaller, so that the first
    pass makes at least ``first_pass_steps`` updates; 0 steps: ``batch_size``.
    """
    if first_pass_steps and batch_size * first_pass_steps > n_docs:
        return max(1, -(-n_docs // first_pass_steps))
    return batch_size


def _default_alpha(n_topics: int) -> float:
    # 0.2 up to K = 25, then 5/K down to 0.1 at K = 50 and beyond (benchmarks/RESULTS.md, run 13)
    return min(0.2, max(0.1, 5.0 / n_topics))


# what each preset fills in for the settings left unset (alpha as a function of K)
_PRESET_SETTINGS = {
    "default": {"alpha": _default_alpha, "local_update": "auto", "revive_topics": True,
                "local_acceleration": "none", "local_max_iter": 30, "step_floor": "running", "first_pass_steps": 16},
    "paper": {"alpha": lambda n_topics: 1.0 / n_topics, "local_update": "mean_field", "revive_topics": False,
              "local_acceleration": "none", "local_max_iter": 100, "step_floor": "none", "first_pass_steps": 0},
}


def check_alpha(alpha, n_topics: int) -> float | np.ndarray:
    """A positive scalar, or a positive finite vector of length ``n_topics`` (an asymmetric prior)."""
    if np.ndim(alpha) == 0:
        return check_positive("alpha", alpha)
    try:
        vector = np.array(alpha, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a number or a sequence of {n_topics} numbers, got {alpha!r}") from None
    if vector.shape != (n_topics,):
        raise ValueError(f"alpha must be a number or have shape ({n_topics},) (one value per topic), "
                         f"got shape {vector.shape}")
    if not np.all(np.isfinite(vector)) or vector.min() <= 0:
        raise ValueError("alpha must be finite and > 0 in every topic")
    return vector


@dataclass(frozen=True)
class LDAStats:
    """Sufficient statistics of one local step (what the global step needs).

    Attributes
    ----------
    doc_topic : ndarray of shape (n_docs, n_topics)
        The paper's gamma_d of each document in the minibatch.
    topic_word : ndarray of shape (n_topics, n_columns)
        sum_d sum_n phi_dn^k w_dn on the minibatch's columns.
    columns : ndarray of shape (n_columns,)
        Vocabulary indices of those columns (sorted).
    n_iter : ndarray of shape (n_docs,)
        Local iterations per document.
    """

    doc_topic: np.ndarray
    topic_word: np.ndarray
    columns: np.ndarray
    n_iter: np.ndarray

    @property
    def n_docs(self) -> int:
        return self.doc_topic.shape[0]

    def compact(self) -> LDAStats:
        """What a worker sends back: all of it (the HDP's statistics drop their per-document parts)."""
        return self

    @classmethod
    def combine(cls, parts: list[LDAStats], X) -> LDAStats:
        """The statistics of the minibatch ``X`` from those of its chunks (in :meth:`LDA.local_jobs` order)."""
        columns = used_columns(X)
        return cls(np.concatenate([part.doc_topic for part in parts]), combine_topic_word(parts, columns), columns,
                   np.concatenate([part.n_iter for part in parts]))


def combine_topic_word(parts: list, columns: np.ndarray) -> np.ndarray:
    """sum_parts topic_word on ``columns`` (sorted; each part's columns among them), added in the parts' order.

    Returns ndarray of shape (n_topics, n_columns), the transposed view of a word-major
    array (what the global step's blend reads fastest).
    """
    total = np.zeros((columns.size, parts[0].topic_word.shape[0]), dtype=parts[0].topic_word.dtype)
    for part in parts:
        total[np.searchsorted(columns, part.columns)] += part.topic_word.T
    return total.T


@dataclass(frozen=True)
class LDALocalJob:
    """LDA's local step on some documents: everything it needs but their counts (see :meth:`LDA.local_jobs`).

    Attributes
    ----------
    topics : LazyTopics or TopicColumns
        lambda, whole or on ``columns`` only.
    positions : ndarray of shape (n_columns,)
        Where ``columns`` are in ``topics``: ``columns`` itself for a LazyTopics,
        ``arange(n_columns)`` for a TopicColumns.
    columns : ndarray of shape (n_columns,)
        Vocabulary indices of the documents' columns, sorted.
    alpha, tol, max_iter, zero_order, kernel
        The model's settings (``tol`` is ``local_tol``; ``zero_order``: ``local_update`` is not
        "mean_field").
    squarem : bool
        ``local_acceleration == "squarem"``.
    start : ndarray of shape (n_docs, n_topics) or None
        The paper's gamma_d to start from; None: ones.
    workload : str or None
        What a separate process compiles if the compiled kernels are not in numba's cache
        (:func:`engine.kernels.cached_call`); None: this LDA step's own.  The HDP's fold-in
        names the HDP's, which includes it.
    """

    topics: LazyTopics | TopicColumns
    positions: np.ndarray
    columns: np.ndarray
    alpha: float | np.ndarray
    tol: float
    max_iter: int
    zero_order: bool
    kernel: str
    start: np.ndarray | None
    squarem: bool = False
    workload: str | None = None
    cvb0_below: float = 0.0  # documents of fewer words take the CVB0 step (inf: all, 0: none; see LDA.cvb0_words)

    def run(self, counts: sp.csr_matrix) -> LDAStats:
        """Fit the documents ``counts`` (n_docs, n_columns), their columns re-indexed to ``columns``."""
        fit = self._fit(counts, statistics=True)
        return LDAStats(fit.doc_topic, fit.topic_word, self.columns, fit.n_iter)

    def fold_in(self, counts: sp.csr_matrix) -> np.ndarray:
        """gamma of the documents ``counts``, as :meth:`run` fits it, without the topic-word statistics."""
        return self._fit(counts, statistics=False).doc_topic

    def _fit(self, counts: sp.csr_matrix, statistics: bool):
        start = self.start
        if start is None:
            start = np.ones((counts.shape[0], self.topics.shape[0]), dtype=self.topics.dtype)
        local_step = lda_local_step(self.kernel)
        # the job's workload, so that a first "auto" step compiles both of its steps in one separate process
        update = ("auto" if 0 < self.cvb0_below < np.inf else "cvb0" if self.cvb0_below > 0
                  else "zero_order" if self.zero_order else "mean_field")
        workload = self.workload or workload_name("LDA", update, self.topics.dtype,
                                                  "squarem" if self.squarem else "none")
        return cached_call(self.kernel, workload, lambda: local_step(
            self.topics, counts, self.positions, self.alpha, start, self.tol, self.max_iter, self.zero_order,
            self.squarem, statistics, cvb0_below=self.cvb0_below))


def _marks_vocabulary(counts: sp.csr_matrix) -> bool:
    """Whether marking words in a vocabulary-sized table beats sorting the entries (else: a huge vocabulary)."""
    return counts.shape[1] <= 32 * counts.indices.size


def used_columns(counts: sp.csr_matrix) -> np.ndarray:
    """The vocabulary indices a minibatch uses, sorted."""
    if _marks_vocabulary(counts):
        used = np.zeros(counts.shape[1], dtype=bool)
        used[counts.indices] = True
        return np.flatnonzero(used)
    return np.unique(counts.indices)  # cost independent of the vocabulary's size


def restrict_columns(counts: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
    """Re-index a minibatch to the columns it uses; returns (counts, columns), columns sorted."""
    columns = used_columns(counts)
    if _marks_vocabulary(counts):
        position = np.empty(counts.shape[1], dtype=np.int32)
        position[columns] = np.arange(columns.size, dtype=np.int32)
        local_indices = position[counts.indices]
    else:
        local_indices = np.searchsorted(columns, counts.indices)
    local = sp.csr_matrix((counts.data, local_indices, counts.indptr), shape=(counts.shape[0], columns.size))
    return local, columns


class LDA(TopicModel):
    """Latent Dirichlet allocation with a mean-field variational posterior.

    Implements the model and updates of Hoffman, Blei, Wang & Paisley,
    "Stochastic Variational Inference" (JMLR 2013), section on LDA, which
    extend online LDA (Hoffman, Blei & Bach 2010).  The object holds the global
    variational parameters ``lambda_`` (topics); the trainers
    :class:`engine.SVI` and :class:`engine.BatchVI` drive its local and global
    steps.  It is also a scikit-learn estimator and transformer: ``fit``,
    ``partial_fit``, ``transform``, ``score``, ``get_params``/``set_params``, usable in
    pipelines (see :class:`engine.models._estimator.TopicEstimator`).  Arguments are
    stored as given and validated when first used; reading one gives the value in
    use (the preset's choice, a learned prior).

    Parameters
    ----------
    n_topics : int
        Number of topics K (>= 2).
    n_words : int, optional
        Vocabulary size V; unset, it is taken from the documents at the first
        ``fit``, ``partial_fit`` or :class:`engine.SVI`.
    alpha : float or array-like of shape (n_topics,), optional
        Dirichlet prior on per-document topic proportions: a number (symmetric)
        or one value per topic (asymmetric).  Unset: 5/K clipped to [0.1, 0.2]
        (0.2 for K <= 25, 0.1 for K >= 50), or 1/K with
        ``preset="paper"``.
    eta : float
        Symmetric Dirichlet prior on topics.
    seed : int
        Seed of the random initialisation of lambda and of random gamma starts.
    local_tol : float
        A document's local step stops when the mean absolute change of gamma_d
        falls below this.
    local_max_iter : int, optional
        Cap on local iterations per document (unset: 30, or 100 with
        ``preset="paper"``, the cap of Hoffman's online LDA and scikit-learn).
        The zero-order fit of a document whose topics are near-ties (freshly
        split ones) crawls; stopping it at 30 measured level on the panel and
        saves most of that time (benchmarks/RESULTS.md, run 18).
    gamma_init : {"ones", "random"}
        Start of gamma_d: all ones as in the paper's algorithm box, or
        Gamma(100, 1/100) draws as in Hoffman's online LDA and scikit-learn.
    dtype : {"float64", "float32"}
        Precision of lambda and of the local step.
    topic_init : {"gamma", "exponential", "documents", "clusters"}
        Random start of lambda.  "exponential" is the paper's footnote,
        lambda_kv - eta ~ Exponential with mean D*100/(K*V); "gamma" draws
        Gamma(100, 1/100) as Hoffman's online LDA and scikit-learn do, which
        starts every topic near uniform, hence the default: the footnote's
        mean is below 1 on small corpora, so each topic starts peaked on random
        words, and it measured well behind scikit-learn and gensim where
        "gamma" is level with them (benchmarks/RESULTS.md, runs 1 to 3).  "documents" adds to the
        "gamma" draws the words of 3 random training documents per topic (see
        :func:`engine.models._base.initial_topics`); for LDA it measured worse (run 21).
        "clusters" adds to them the word counts of K k-means clusters of the training
        documents' tf-idf rows, topic k starting as cluster k: on the panel NPMI rose
        in 18 of 24 cells (K = 10 to 100, 5 seeds), but on the check collections
        held-out likelihood fell in 8 of 10 cells (by up to 0.09 nats/word on 11-word
        quotations), at 1.0-1.4x the seconds, so it is an option (run 48).
    local_update : {"auto", "zero_order", "cvb0", "mean_field"}, optional
        How a document's words are shared among topics in the local step
        (unset: "auto", or "mean_field" with ``preset="paper"``).
        "mean_field" is the paper's: phi_dwk ∝ exp(E[log theta_dk] + E[log beta_kw]).
        "zero_order" is the zero-order collapsed update of SCVB0 (Foulds,
        Boyles, DuBois, Smyth & Welling, KDD 2013): phi_dwk ∝ E[theta_dk] E[beta_kw]
        = (gamma_dk / sum_j gamma_dj) (lambda_kw / sum_v lambda_kv); the global
        step is the same.  The exp-digamma of the mean-field update all but
        forbids words a topic holds little of, which starves small topics.
        "cvb0" is CVB0 (Asuncion, Welling, Smyth & Teh, UAI 2009): the zero-order
        update with each word's own share left out of its document's counts,
        phi_dwk ∝ (gamma_dk - phi_dwk) E[beta_kw], as collapsed Gibbs sampling
        leaves out the token it resamples; it matters in documents of a few words
        (benchmarks/RESULTS.md, run 45).  "auto" runs "cvb0" on the documents of
        fewer than ``cvb0_words`` words and "zero_order" on the others: the
        word's own share is of order 1/N_d of its document's counts, and on long
        documents CVB0 changed nothing measurable at about twice the step's time
        (run 46).
    cvb0_words : int
        With ``local_update="auto"``, documents of fewer words (tokens) than this
        take the CVB0 step.  64 measured within 0.01 nats/word of CVB0 everywhere
        on the panel (run 46).
    local_acceleration : {"none", "squarem"}, optional
        How each document's local iteration reaches its fixed point (unset:
        "none" in both presets).  "none" repeats the update until gamma_d
        changes by less than ``local_tol``; "squarem" (the zero-order update only,
        so with "auto" the documents it does not fit by CVB0)
        extrapolates from every two updates (SQUAREM, Varadhan & Roland, Scand.
        J. Statist. 2008) and stops by the same test: far fewer updates where
        two topics explain a document almost equally well, and a fit closer to
        the fixed point.  Faster but, on some panel collections, slightly lower
        held-out likelihood, hence not the default (benchmarks/RESULTS.md, run 18).
    learn_alpha : bool
        Learn an asymmetric alpha (one value per topic) by empirical Bayes:
        each global step also takes a Newton step on alpha from the
        minibatch's E[log theta_d] (:mod:`engine.models._priors`), blended in with the
        same rho_t.  ``alpha`` is then the starting value.  Off by default: with the
        default local step it measured worse on all eight panel and check collections tried,
        by 0.08-0.55 nats/word where documents are short (the learned values grow to about
        2 per topic there, as the statistics of a local step that spreads a document's
        words over its topics ask; benchmarks/RESULTS.md, run 47).
    learn_eta : bool
        Learn the symmetric eta the same way, from the topics' E[log beta_k]
        (costs one pass over lambda per step).  Off by default: it grows from 0.01 to
        0.15-0.25 and measured worse on the five real panel collections at K = 50
        (0.025-0.08 nats/word) and by up to 0.35 on short check collections (benchmarks/RESULTS.md,
        run 47).
    revive_topics : bool, optional
        Replace topics that fall out of use (unset: True, or False with
        ``preset="paper"``).  At most once per epoch, from the end of the
        first, every topic holding less than ``0.5 / K`` of the words is
        replaced by half of the largest topic (see :meth:`_revive`): a split
        move in the spirit of memoized online VI (Hughes & Sudderth, NIPS
        2013).  Once no topic has been split for 3 epochs, the same epochly
        check also makes the topics that are copies of one topic, cut by word
        rather than by document, identical (see :meth:`_tie_copies`): with K above
        the topics the documents hold, the surplus ends as such tied copies.
        Batch VI never revives (its ELBO stays monotone).  Model files
        keep the epoch count behind "once per epoch" (:meth:`training_clock`),
        so a checkpointed run revives when an uninterrupted one would.
    kernel : {"auto", "compiled", "numpy"}
        The local step's implementation: "compiled" is a numba kernel that
        fuses each document's loop and spreads documents over all cores;
        "numpy" is the vectorised reference it is tested against; "auto" takes
        the compiled one when numba imports.
    preset : {"default", "paper"}
        Fills in the settings left unset.  "paper" is the algorithm box of
        Hoffman et al. (2013) exactly: mean-field local step, alpha = 1/K, at
        most 100 local iterations.  "default" is what measured best on a panel
        of collections (benchmarks/RESULTS.md, runs 13, 18, 37 and 46): the CVB0
        local step on short documents and the zero-order one on the rest, alpha = 5/K
        in [0.1, 0.2], revival of unused topics, at most 30 local iterations and the
        step floor.  Explicit arguments always win
        over the preset.
    n_epochs : int
        Passes over the documents that :meth:`fit` makes (SVI with the engine's
        default schedule).
    total_samples : int
        The corpus size D that :meth:`partial_fit` scales each minibatch to (D/S),
        as scikit-learn's ``LatentDirichletAllocation.total_samples``.
    step_floor : {"running", "none"}, optional
        Whether update t from the random start takes at least 1/(t + 1) (unset: "running",
        or "none" with ``preset="paper"``): rho_t = max(schedule, 1/(t + 1)), so the random
        topics never weigh more than one minibatch.  The engine's schedule (tau <= 1) is
        never below it, so it only raises the first steps of a schedule with a large tau,
        where the random start would otherwise outlast the data (benchmarks/RESULTS.md,
        run 37).  Models whose topics were set or loaded without the count follow the schedule.
    first_pass_steps : int, optional
        In the first pass from the random start, :class:`engine.SVI` takes minibatches of at
        most ceil(D / ``first_pass_steps``) documents, so that the first pass over a small
        collection makes at least this many updates (unset: 16, or 0, which leaves the
        minibatch size alone, with ``preset="paper"``).  At the default S = 256 this changes
        collections of fewer than 4,096 documents: one of 2,000 documents takes 16 updates of
        125 instead of 8 of 256 in its first pass, and the later passes take S as set.  With
        only a few updates in its first pass, SVI leaves small collections with worse topics
        (benchmarks/RESULTS.md, run 43).  Models whose topics were set or loaded without the
        count take S from the start.

    Attributes
    ----------
    lambda_, components_ : ndarray of shape (n_topics, n_words)
        The topics' Dirichlet parameters (pseudo-counts); ``components_`` is
        scikit-learn's name for the same array.
    n_features_in_ : int
        Vocabulary size of the training documents.
    feature_names_in_ : ndarray of str
        Their words, when ``fit`` was given a Corpus or a data frame (or the model
        was loaded from a file saved with its vocabulary).
    vectorizer_ : Vectorizer
        How the training text became words, when ``fit`` was given a corpus built
        from text (or the model was loaded from a file that records it); used by
        :meth:`transform_texts`.
    n_batch_iter_ : int
        SVI updates made by ``fit`` / ``partial_fit``.
    n_iter_ : int
        Passes over the documents made by ``fit``.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.pipeline import make_pipeline
    >>> pipeline = make_pipeline(CountVectorizer(), LDA(n_topics=5, seed=0))
    >>> theta = pipeline.fit_transform(texts)  # doctest: +SKIP
    """

    n_topics = Param()
    n_words = Param()
    alpha = Param()
    eta = Param()
    seed = Param()
    local_tol = Param()
    local_max_iter = Param()
    gamma_init = Param()
    dtype = Param()
    topic_init = Param()
    kernel = Param()
    local_update = Param()
    local_acceleration = Param()
    learn_alpha = Param()
    learn_eta = Param()
    revive_topics = Param()
    preset = Param()
    n_epochs = Param()
    total_samples = Param()
    step_floor = Param()
    first_pass_steps = Param()
    cvb0_words = Param()

    def __init__(
        self,
        n_topics: int = 10,
        n_words: int | None = None,
        alpha: float | None = None,
        eta: float = 0.01,
        seed: int = 0,
        local_tol: float = 1e-3,
        local_max_iter: int | None = None,
        gamma_init: str = "ones",
        dtype: str = "float64",
        topic_init: str = "gamma",
        kernel: str = "auto",
        local_update: str | None = None,
        local_acceleration: str | None = None,
        learn_alpha: bool = False,
        learn_eta: bool = False,
        revive_topics: bool | None = None,
        preset: str = "default",
        n_epochs: int = 10,
        total_samples: int = 1_000_000,
        step_floor: str | None = None,
        first_pass_steps: int | None = None,
        cvb0_words: int = DEFAULT_CVB0_WORDS,
    ):
        self.n_topics = n_topics
        self.n_words = n_words
        self.alpha = alpha
        self.eta = eta
        self.seed = seed
        self.local_tol = local_tol
        self.local_max_iter = local_max_iter
        self.gamma_init = gamma_init
        self.dtype = dtype
        self.topic_init = topic_init
        self.kernel = kernel
        self.local_update = local_update
        self.local_acceleration = local_acceleration
        self.learn_alpha = learn_alpha
        self.learn_eta = learn_eta
        self.revive_topics = revive_topics
        self.preset = preset
        self.n_epochs = n_epochs
        self.total_samples = total_samples
        self.step_floor = step_floor
        self.first_pass_steps = first_pass_steps
        self.cvb0_words = cvb0_words
        self._reset_state()

    # ----------------------------------------------------------------- state
    def _resolve_arguments(self) -> dict:
        """The arguments validated, with the preset's choices for those left unset."""
        given = self.__dict__
        n_topics = check_int("n_topics", given["n_topics"], 2)
        preset = check_choice("preset", given["preset"], PRESETS)
        filled = _PRESET_SETTINGS[preset]
        alpha = filled["alpha"](n_topics) if given["alpha"] is None else given["alpha"]
        local_update = filled["local_update"] if given["local_update"] is None else given["local_update"]
        revive_topics = filled["revive_topics"] if given["revive_topics"] is None else given["revive_topics"]
        acceleration = (filled["local_acceleration"] if given["local_acceleration"] is None
                        else given["local_acceleration"])
        max_iter = filled["local_max_iter"] if given["local_max_iter"] is None else given["local_max_iter"]
        learn_alpha = check_choice("learn_alpha", given["learn_alpha"], (True, False))
        acceleration = check_choice("local_acceleration", acceleration, LOCAL_ACCELERATIONS)
        if acceleration == "squarem" and local_update not in ("zero_order", "auto"):
            raise ValueError(f"local_acceleration='squarem' is implemented for the zero-order step only "
                             f"(local_update='zero_order' or 'auto'), got local_update={local_update!r}")
        alpha = check_alpha(alpha, n_topics)
        if learn_alpha and np.ndim(alpha) == 0:
            alpha = np.full(n_topics, alpha)
        return {
            "n_topics": n_topics,
            "n_words": None if given["n_words"] is None else check_int("n_words", given["n_words"], 1),
            "alpha": alpha,
            "eta": check_positive("eta", given["eta"]),
            "seed": check_int("seed", given["seed"], 0),
            "local_tol": check_positive("local_tol", given["local_tol"]),
            "local_max_iter": check_int("local_max_iter", max_iter, 1),
            "gamma_init": check_choice("gamma_init", given["gamma_init"], _GAMMA_INITS),
            "dtype": check_choice("dtype", _dtype_name(given["dtype"]), DTYPES),
            "topic_init": check_choice("topic_init", given["topic_init"], TOPIC_INITS),
            "kernel": check_choice("kernel", given["kernel"], KERNELS),
            "local_update": check_choice("local_update", local_update, LOCAL_UPDATES),
            "local_acceleration": acceleration,
            "learn_alpha": learn_alpha,
            "learn_eta": check_choice("learn_eta", given["learn_eta"], (True, False)),
            "revive_topics": check_choice("revive_topics", revive_topics, (True, False)),
            "preset": preset,
            "n_epochs": check_int("n_epochs", given["n_epochs"], 1),
            "total_samples": check_int("total_samples", given["total_samples"], 1),
            "step_floor": check_choice("step_floor", filled["step_floor"] if given["step_floor"] is None
                                       else given["step_floor"], STEP_FLOORS),
            "first_pass_steps": check_int("first_pass_steps", filled["first_pass_steps"]
                                          if given["first_pass_steps"] is None else given["first_pass_steps"], 0),
            "cvb0_words": check_int("cvb0_words", given["cvb0_words"], 1),
        }

    def _reset_state(self) -> None:
        super()._reset_state()  # self._learned: "alpha", "eta" while training with learn_alpha / learn_eta
        self._last_revival = 0.0  # documents seen (in epochs) at the last revival
        self._steps_seen = 0.0  # epochs of documents the global step has blended in
        self._revivals = 0  # revivals so far (each draws its split proportions from its own stream)
        self._last_split = 0.0  # epochs seen at the last revival that split a topic

    def initialize(self, n_docs: int, n_words: int | None = None, documents=None) -> None:
        """Random topics for a corpus of ``n_docs`` documents (see ``topic_init``).

        ``n_words`` is the corpus's vocabulary size: required if the model was built
        without one, checked against it otherwise.  ``documents``, the training
        documents (in memory or on disk), are read by ``topic_init="documents"`` and
        ``"clusters"`` only.
        """
        self._initialize_topics(n_docs, n_words, documents)

    def _initial_doc_topic(self, n_docs: int, rng: np.random.Generator | None) -> np.ndarray:
        if self.gamma_init == "ones":
            return np.ones((n_docs, self.n_topics), dtype=self.dtype)
        rng = np.random.default_rng(self.seed) if rng is None else rng
        return rng.gamma(100.0, 1.0 / 100.0, size=(n_docs, self.n_topics)).astype(self.dtype)

    def local_step(self, X, rng: np.random.Generator | None = None, warm_start: LDAStats | None = None) -> LDAStats:
        """Fit gamma and (implicitly) phi of every document in ``X`` against the current topics.

        Returns the sufficient statistics sum_d sum_n phi_dn w_dn on the
        columns the documents use; the model is not modified.  ``warm_start``
        (the statistics of an earlier local step on the same documents) starts
        gamma where that step ended, as classical coordinate ascent does.
        """
        job, counts = self._documents_job(X, rng, warm_start)
        return job.run(counts)

    def _documents_job(self, X, rng: np.random.Generator | None, warm_start: LDAStats | None = None
                       ) -> tuple[LDALocalJob, sp.csr_matrix]:
        """The local job of the documents ``X`` on the current topics, and their counts on its columns."""
        topics = self._require_topics()
        counts, columns = restrict_columns(as_counts(X, self.n_words, name="documents"))
        start = warm_start.doc_topic if warm_start is not None else self._initial_doc_topic(counts.shape[0], rng)
        return self._local_job(topics, columns, columns, start), counts

    def _local_job(self, topics, positions: np.ndarray, columns: np.ndarray, start) -> LDALocalJob:
        return LDALocalJob(topics, positions, columns, self.alpha, self.local_tol, self.local_max_iter,
                           self.local_update != "mean_field", self.kernel, start,
                           self.local_acceleration == "squarem", cvb0_below=self._cvb0_below())

    def _cvb0_below(self) -> float:
        """Documents of fewer words than this take the CVB0 step (see ``local_update``)."""
        return {"cvb0": np.inf, "auto": float(self.cvb0_words)}.get(self.local_update, 0.0)

    def local_jobs(self, X, bounds, rng: np.random.Generator | None = None) -> list[LDALocalJob]:
        """:meth:`local_step` of the minibatch ``X`` cut into jobs, one per document range bounds[i]:bounds[i + 1].

        Each job carries lambda on its own documents' columns only and their starts, so it
        runs anywhere (on a Dask worker: :mod:`engine.inference.distributed`).  Combined
        in order by :meth:`LDAStats.combine`, the jobs' statistics are those of
        ``local_step(X, rng)``, summation order aside: each document's fit is the same.
        """
        topics = self._require_topics()
        counts = as_counts(X, self.n_words, name="documents")
        start = None if self.gamma_init == "ones" else self._initial_doc_topic(counts.shape[0], rng)
        jobs = []
        for low, high in pairwise(bounds):
            columns = np.unique(counts.indices[counts.indptr[low]:counts.indptr[high]])
            jobs.append(self._local_job(topics.take(columns), np.arange(columns.size), columns,
                                        None if start is None else start[low:high]))
        return jobs

    def global_step(self, stats: LDAStats, scale: float, rho: float) -> None:
        """lambda <- (1 - rho) lambda + rho (eta + scale * sum_d sum_n phi_dn w_dn).

        Only the minibatch's columns are written; the decay of the others is
        applied lazily (see :class:`engine.models.lazy_topics.LazyTopics`).
        """
        self._update(stats, scale, rho, self.revive_topics)

    def _update(self, stats: LDAStats, scale: float, rho: float, revive: bool) -> None:
        topics = self._require_topics()
        topics.blend(stats.topic_word, stats.columns, scale, rho)
        if self.learn_alpha:
            self._learned["alpha"] = self._alpha_step(stats.doc_topic, rho)
        if self.learn_eta:
            self._learned["eta"] = self._eta_step(rho)
            topics.set_eta(self.eta)
        self._steps_seen += 1.0 / scale  # the minibatch is 1/scale of the corpus
        self._counted_update()
        if revive and self._steps_seen >= self._last_revival + 1.0:
            self._last_revival = self._steps_seen
            if self._steps_seen >= self._last_split + _TIE_QUIET:
                self._tie_copies(stats.doc_topic)
            replaced = self._revive()
            if 0 < replaced.size < self.n_topics:
                self._last_split = self._steps_seen

    def minibatch_size(self, n_docs: int, batch_size: int) -> int:
        """The size of :class:`engine.SVI`'s next minibatch of a corpus of ``n_docs`` documents, S = ``batch_size``.

        S, or at most ceil(``n_docs`` / ``first_pass_steps``) until the global step has blended
        in one pass of documents from the random start (see ``first_pass_steps``).
        """
        if self._at_random_start_pass():
            return first_pass_batch_size(n_docs, batch_size, self.first_pass_steps)
        return batch_size

    def _at_random_start_pass(self) -> bool:
        """True from the random start until one pass of documents has been blended in (False without the count)."""
        return self._updates_from_start is not None and self._steps_seen < 1.0 - EPOCH_SLACK

    def training_clock(self) -> dict:
        """The revival clock: epochs of documents blended in, the epoch count at the last revival and at the last
        split, revivals so far; and the updates since the random start (the step floor's t)."""
        return {"epochs_seen": self._steps_seen, "last_revival": self._last_revival, "revivals": self._revivals,
                "last_split": self._last_split, "updates_from_start": self._updates_from_start}

    def restore_training_clock(self, clock: dict) -> None:
        """Continue the revival clock of :meth:`training_clock`; ValueError if it is malformed."""
        clock = self._restore_updates(clock)
        if not isinstance(clock, dict) or not clock:
            return  # files written before the clock was saved: it starts again, one epoch before a revival
        keys = {"epochs_seen", "last_revival", "revivals"}
        if set(clock) not in (keys, keys | {"last_split"}):  # files before last_split was kept lack it
            raise ValueError("an LDA training clock holds epochs_seen, last_revival, revivals and last_split, "
                             f"got {sorted(clock)}")
        epochs, last, revivals = clock["epochs_seen"], clock["last_revival"], clock["revivals"]
        split = clock.get("last_split", last)
        for name, value in (("epochs_seen", epochs), ("last_revival", last), ("last_split", split)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
                raise ValueError(f"the training clock's {name} must be a finite number >= 0, got {value!r}")
        for name, value in (("last_revival", last), ("last_split", split)):
            if value > epochs:
                raise ValueError(f"the training clock's {name} ({value!r}) is after its epochs_seen ({epochs!r})")
        if isinstance(revivals, bool) or not isinstance(revivals, int) or revivals < 0:
            raise ValueError(f"the training clock's revivals must be a whole number >= 0, got {revivals!r}")
        self._steps_seen, self._last_revival, self._revivals = float(epochs), float(last), revivals
        self._last_split = float(split)

    def _revive(self) -> np.ndarray:
        """Replace every topic holding less than 0.5/K of the words by half of the largest topic.

        In turn, each small topic takes half of the topic that is then the largest (an
        earlier half included): the two share the largest topic's pseudo-counts word by
        word, in proportions drawn uniformly from [0.45, 0.55], and the SVI steps that
        follow pull them apart, as a split move of memoized online VI does (Hughes &
        Sudderth, NIPS 2013).  Small topics are otherwise junk: a topic few documents
        use gathers a thin share of every document's common words.  The total pseudo-count
        of the live topics is unchanged; what a small topic held is dropped.

        Returns the replaced topic indices.
        """
        topics = self._require_topics()
        mass = topics.excess_totals()  # each topic's expected word count, kept up to date by the blend
        small = np.flatnonzero(mass < _REVIVAL_SHARE * mass.sum() / self.n_topics)
        if small.size == 0 or small.size == self.n_topics:
            return small
        rng = np.random.default_rng([self.seed, _STREAM_REVIVAL, self._revivals])
        self._revivals += 1
        mass[small] = -np.inf  # a small topic is never split
        for target in small:
            donor = int(np.argmax(mass))
            topics.split_row(donor, int(target), rng.uniform(0.5 - _SPLIT_JITTER, 0.5 + _SPLIT_JITTER, topics.shape[1]))
            totals = topics.excess_totals()
            mass[donor], mass[target] = totals[donor], totals[target]
        return small

    def _tie_copies(self, doc_topic: np.ndarray) -> list[np.ndarray]:
        """Make each group of topics that are copies of one topic identical (their mean); returns the groups.

        Two topics are copies when they are close (Jensen-Shannon divergence of E[beta]
        below 0.1 nats) and the minibatch's documents that use them (at least 10 giving
        the pair a fifth of their words) share themselves between the two about evenly
        (mean |theta_a / (theta_a + theta_b) - 1/2| below 0.25; 1/2 would be documents
        that each use one of the two, 0 documents that use both equally): they split one topic's
        words, not its documents.  Under the zero-order step such halves drift apart word
        by word and each document's held-out words are predicted by whichever half its
        observed words happened to favour; identical, they predict as the one topic does,
        and the same updates keep them identical.  Topics that documents tell apart (a
        useful split) are left alone.  ``doc_topic`` is the minibatch's gamma.
        """
        theta = np.asarray(doc_topic, dtype=np.float64)
        theta = theta / theta.sum(axis=1, keepdims=True)
        K = self.n_topics
        candidates = []
        for a in range(K - 1):
            pair = theta[:, a:a + 1] + theta[:, a + 1:]  # (docs, K - a - 1)
            used = pair >= _TIE_USE
            counts = used.sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                spread = np.where(used, np.abs(theta[:, a:a + 1] / pair - 0.5), 0.0).sum(axis=0) / counts
            for b in np.flatnonzero((counts >= _TIE_MIN_DOCS) & (spread < _TIE_SEPARATION)):
                candidates.append((a, a + 1 + int(b)))
        if not candidates:
            return []
        topics = self._require_topics().dense().astype(np.float64)
        topics /= topics.sum(axis=1, keepdims=True)
        parent = np.arange(K)

        def root(k: int) -> int:
            while parent[k] != k:
                k = parent[k]
            return k

        for a, b in candidates:
            if jensen_shannon(topics[[a, b]])[0, 1] < _TIE_DIVERGENCE:
                parent[root(a)] = root(b)
        roots = np.array([root(k) for k in range(K)])
        groups = [np.flatnonzero(roots == r) for r in np.unique(roots)]
        groups = [g for g in groups if g.size > 1]
        for group in groups:
            self._require_topics().tie_rows(group)
        return groups

    def _alpha_step(self, doc_topic: np.ndarray, rho: float) -> np.ndarray:
        """alpha <- (1 - rho) alpha + rho alpha*, alpha* one Newton step on the minibatch's mean E[log theta_d]."""
        mean_log = dirichlet_expectation(doc_topic.astype(np.float64)).mean(axis=0)
        return (1.0 - rho) * self.alpha + rho * dirichlet_newton_step(self.alpha, mean_log)

    def _eta_step(self, rho: float) -> float:
        """eta <- (1 - rho) eta + rho eta*, eta* one Newton step on the topics' mean E[log beta_k]."""
        mean_log = dirichlet_expectation(self._require_fitted().astype(np.float64)).mean(axis=0)
        return (1.0 - rho) * self.eta + rho * symmetric_dirichlet_newton_step(self.eta, mean_log)

    def batch_update(self, stats: LDAStats) -> None:
        """The classical coordinate-ascent update lambda = eta + sum_d sum_n phi_dn w_dn (never revives topics)."""
        self._update(stats, scale=1.0, rho=1.0, revive=False)

    def _proportions(self, counts: sp.csr_matrix) -> np.ndarray:
        """E[theta_d] = gamma_d / sum_k gamma_dk of the documents (``transform`` checks them first).

        gamma is fitted as :meth:`local_step` fits it, without forming the statistics.
        """
        job, restricted = self._documents_job(counts, np.random.default_rng(self.seed))
        gamma = job.fold_in(restricted)
        return gamma / gamma.sum(axis=1, keepdims=True)

    # ------------------------------------------------------------ display
    def topic_weights(self) -> np.ndarray:
        """Share of the corpus's words each topic explains: :meth:`word_shares`."""
        return self.word_shares()
    # --------------------------------------------------------------- ELBO
    def elbo(self, X, stats: LDAStats | None = None) -> float:
        """Evidence lower bound of the documents ``X`` (the whole corpus for batch VI).

        phi is set to its optimum given gamma and lambda, which turns the
        word terms into sum_dw c_dw log sum_k exp(E[log theta_dk] + E[log beta_kw]).
        ``stats`` supplies gamma (a local step is run when it is None).
        """
        counts = as_counts(X, self.n_words, name="documents")
        lambda_ = self._require_fitted().astype(np.float64)
        if stats is None:
            stats = self.local_step(counts)
        gamma = stats.doc_topic.astype(np.float64)
        elog_theta = dirichlet_expectation(gamma)
        elog_beta = dirichlet_expectation(lambda_)
        eta = self.eta
        K = lambda_.shape[0]
        alpha = np.broadcast_to(np.asarray(self.alpha, dtype=np.float64), (K,))
        rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
        word_term = 0.0
        chunk = max(1, (1 << 20) // K)
        for start in range(0, counts.nnz, chunk):
            sl = slice(start, start + chunk)
            logits = elog_theta[rows[sl]] + elog_beta[:, counts.indices[sl]].T
            word_term += float(counts.data[sl] @ logsumexp(logits, axis=1))
        doc_term = dirichlet_elbo_term(gamma, alpha, elog_theta)
        topic_term = dirichlet_elbo_term(lambda_, eta, elog_beta)
        return float(word_term + doc_term + topic_term)
