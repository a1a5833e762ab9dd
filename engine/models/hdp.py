"""The HDP topic model fitted by stochastic or batch variational inference."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, psi, xlogy

from engine.kernels import KERNELS, cached_call, effective_kernel, hdp_local_step
from engine.kernels.cache import workload_name
from engine.kernels.reference.hdp import (
    atom_counts,
    atom_use,
    expected_doc_topics,
    stick_weights,
    topic_word_stats,
)
from engine.models._base import DTYPES, EPOCH_SLACK, STEP_FLOORS, TOPIC_INITS, TopicModel, _dtype_name
from engine.models._estimator import Param
from engine.models._hdp_births import (
    BIRTH_ROUNDS,
    BIRTH_SAMPLE,
    SAMPLE_TOL,
    UNDO_AFTER,
    DocumentSplit,
    birth_round,
    read_clock,
    rename_merged,
    undo_pairs,
)
from engine.models._priors import stick_concentration
from engine.models._sticks import stick_counts as _stick_counts
from engine.models._sticks import sticks_from_counts as _sticks_from_counts
from engine.models.expectations import dirichlet_elbo_term, dirichlet_expectation, stick_expectation
from engine.models.lazy_topics import LazyTopics, TopicColumns
from engine.models.lda import LDALocalJob, combine_topic_word, restrict_columns, used_columns
from engine.validation import as_counts, check_choice, check_fraction, check_int, check_non_negative, check_positive

__all__ = ["DEFAULT_DOC_TRUNCATION", "DEFAULT_HDP_TOPICS", "HDP", "HDPStats"]

# the truncations the HDP's defaults were chosen and are judged at (benchmarks/RESULTS.md, run 13);
# the CLI and the app start from them
DEFAULT_HDP_TOPICS = 150
DEFAULT_DOC_TRUNCATION = 20

_GAMMA_RENAMED = ("HDP's gamma is now called omega, as in the paper (the corpus-level concentration): "
                  "use HDP(omega=...) and model.omega; gamma will be removed in a later version")
_LOCAL_INITS = ("lda", "paper")
_STICK_INITS = ("prior", "uniform")
_STICK_ATOMS = ("used", "all")
_LOCAL_UPDATES = ("zero_order", "zero_order_all", "mean_field")
FOLD_INS = ("dirichlet", "sticks")  # how transform fits a document's topic proportions
PRESETS = ("default", "paper")
# what each preset fills in for the settings left unset
_PRESET_SETTINGS = {
    "default": {"local_update": "zero_order", "stick_init": "uniform", "local_tol": 1e-1, "dtype": "float32",
                "fold_in": "dirichlet", "births": 20, "stick_atoms": "used", "first_step_min": 0.5,
                "step_floor": "running", "warmup_epochs": 3.0},
    "paper": {"local_update": "mean_field", "stick_init": "prior", "local_tol": 1e-2, "dtype": "float64",
              "fold_in": "sticks", "births": 0, "stick_atoms": "all", "first_step_min": 0.0, "step_floor": "none",
              "warmup_epochs": 0.0},
}
# the "dirichlet" fold-in stops at min(local_tol, this): LDA's default tolerance, as its mean change
# of gamma_d over K topics is smaller than the sticks' (at 1e-1 it stops after an iteration or two)
_FOLD_IN_TOL = 1e-3
_STREAM_BIRTHS = 7  # random stream of the births' 2-means (LDA's revival uses 5, engine.inference.svi 1 to 4 and 6)
_TRANSFORM_ELEMENTS = 1 << 22  # zeta entries (docs x T x K) held at once by transform


@dataclass(frozen=True)
class HDPStats:
    """Local parameters and sufficient statistics of one HDP local step.

    Attributes
    ----------
    doc_topic : ndarray of shape (n_docs, K)
        E[theta_dk] = sum_i E[sigma_i(pi_d)] zeta_di^k, rows summing to 1.
    topic_word : ndarray of shape (K, n_columns)
        sum_d sum_i zeta_di^k sum_n phi_dn^i w_dn on the minibatch's columns.
    topic_mass : ndarray of shape (K,)
        sum_d sum_i zeta_di^k: how many document atoms point at each topic.
    columns : ndarray of shape (n_columns,)
        Vocabulary indices of those columns (sorted).
    n_iter : ndarray of shape (n_docs,)
        Iterations of the HDP loop per document (the LDA start's own iterations not counted).
    atom_topic : ndarray of shape (n_docs, T, K)
        The paper's zeta_di.
    word_atom : ndarray of shape (nnz, T)
        The paper's phi_dn, one row per stored entry of the documents' CSR counts.
    doc_sticks : ndarray of shape (n_docs, T - 1, 2)
        The paper's gamma_di = (gamma_di^(1), gamma_di^(2)).
    doc_stick_rest : ndarray of shape (n_docs,)
        sum_i E[log(1 - pi_di)] over each document's T - 1 sticks: what ``learn_alpha`` reads.

    ``atom_topic``, ``word_atom`` and ``doc_sticks`` are empty (a zero in their shape) in
    statistics combined from a cluster's workers (:meth:`compact`, :meth:`combine`).
    """

    doc_topic: np.ndarray
    topic_word: np.ndarray
    topic_mass: np.ndarray
    columns: np.ndarray
    n_iter: np.ndarray
    atom_topic: np.ndarray
    word_atom: np.ndarray
    doc_sticks: np.ndarray
    doc_stick_rest: np.ndarray

    @property
    def n_docs(self) -> int:
        return self.doc_topic.shape[0]

    def compact(self) -> HDPStats:
        """Without the per-atom and per-entry local parameters: what a worker sends back."""
        n_docs = self.n_docs
        return replace(self, atom_topic=np.empty((n_docs, 0, 0), self.atom_topic.dtype),
                       word_atom=np.empty((0, 0), self.word_atom.dtype),
                       doc_sticks=np.empty((n_docs, 0, 2), self.doc_sticks.dtype))

    @classmethod
    def combine(cls, parts: list[HDPStats], X) -> HDPStats:
        """The statistics of the minibatch ``X`` from those of its chunks (in :meth:`HDP.local_jobs` order)."""
        columns = used_columns(X)
        topic_mass = parts[0].topic_mass.copy()
        for part in parts[1:]:
            topic_mass += part.topic_mass
        return cls(
            doc_topic=np.concatenate([part.doc_topic for part in parts]),
            topic_word=combine_topic_word(parts, columns),
            topic_mass=topic_mass,
            columns=columns,
            n_iter=np.concatenate([part.n_iter for part in parts]),
            atom_topic=np.concatenate([part.atom_topic for part in parts]),
            word_atom=np.concatenate([part.word_atom for part in parts]),
            doc_sticks=np.concatenate([part.doc_sticks for part in parts]),
            doc_stick_rest=np.concatenate([part.doc_stick_rest for part in parts]),
        )


@dataclass(frozen=True)
class HDPLocalJob:
    """The HDP's local step on some documents: everything it needs but their counts (see :meth:`HDP.local_jobs`).

    Attributes
    ----------
    topics, positions, columns
        As for :class:`engine.models.lda.LDALocalJob`.
    kernel : str
    topic_mean, local_mean : bool
        log E[beta] instead of E[log beta]; log E[.] for the document sticks and the LDA start.
    elog_sticks : ndarray of shape (K,)
        E[log sigma_k(V)] (or log E[.]) of the corpus sticks.
    topic_prior : ndarray of shape (K,)
        alpha E[sigma(V)], the LDA start's prior.
    alpha, doc_truncation, tol, max_iter, warmup_iter, local_init, stick_atoms
        The model's settings (``tol`` is :attr:`HDP.current_local_tol`).
    workload : str
        What a separate process compiles if the compiled kernels are not in numba's cache
        (:func:`engine.kernels.cached_call`).
    """

    topics: LazyTopics | TopicColumns
    positions: np.ndarray
    columns: np.ndarray
    kernel: str
    topic_mean: bool
    local_mean: bool
    elog_sticks: np.ndarray
    topic_prior: np.ndarray
    alpha: float
    doc_truncation: int
    tol: float
    max_iter: int
    warmup_iter: int
    local_init: str
    workload: str
    stick_atoms: str = "all"

    def run(self, counts, word_atom_init: np.ndarray | None = None) -> HDPStats:
        """Fit the documents ``counts`` (n_docs, n_columns), their columns re-indexed to ``columns``."""
        # E[log beta_kv] (or log E[beta_kv]) on the columns
        def fit_documents():
            elog_beta, fit_local = hdp_local_step(self.kernel)(self.topics, self.positions, self.topic_mean)
            return fit_local(
                counts, elog_beta, self.elog_sticks, self.alpha, self.doc_truncation, self.tol, self.max_iter,
                self.warmup_iter, self.local_init, self.topic_prior, word_atom_init, self.local_mean,
            )

        fit, topic_word = cached_call(self.kernel, self.workload, fit_documents)
        return HDPStats(
            doc_topic=expected_doc_topics(fit.doc_sticks, fit.atom_topic),
            topic_word=topic_word,
            topic_mass=_topic_mass(counts, fit, self.stick_atoms),
            columns=self.columns,
            n_iter=fit.n_iter,
            atom_topic=fit.atom_topic,
            word_atom=fit.word_atom,
            doc_sticks=fit.doc_sticks,
            doc_stick_rest=_sum_elog_rest(fit.doc_sticks, axis=1),
        )


def _topic_mass(counts, fit, stick_atoms: str) -> np.ndarray:
    """The corpus sticks' statistic for each topic: sum over documents and atoms of zeta_di^k.

    "all" counts every atom (the algorithm box); "used" weighs atom i of document d by
    the probability that it holds at least one word (:func:`atom_use`; the compiled kernel
    computes it with the fit).
    """
    if stick_atoms == "all":
        return fit.atom_topic.sum(axis=(0, 1))
    use = atom_use(sp.csr_matrix(counts), fit.word_atom) if fit.atom_use is None else fit.atom_use
    return use.reshape(-1) @ fit.atom_topic.reshape(-1, fit.atom_topic.shape[2])


def _sum_elog_rest(sticks: np.ndarray, axis=None) -> np.ndarray:
    """sum over sticks of E[log(1 - v)] = psi(b) - psi(a + b) under q(v) = Beta(a, b), in float64."""
    sticks = sticks.astype(np.float64)
    return np.sum(psi(sticks[..., 1]) - psi(sticks.sum(axis=-1)), axis=axis)


def _beta_terms(sticks: np.ndarray, concentration: float) -> float:
    """sum over sticks of E[log Beta(x; 1, concentration)] - E[log Beta(x; a, b)] under q."""
    a, b = sticks[..., 0], sticks[..., 1]
    total = psi(a + b)
    elog_x, elog_1mx = psi(a) - total, psi(b) - total
    prior = np.log(concentration) + (concentration - 1.0) * elog_1mx
    log_q = gammaln(a + b) - gammaln(a) - gammaln(b) + (a - 1.0) * elog_x + (b - 1.0) * elog_1mx
    return float(np.sum(prior - log_q))


class HDP(TopicModel):
    """The hierarchical Dirichlet process topic model with a truncated mean-field posterior.

    Implements the HDP topic model's stochastic variational inference of Hoffman, Blei, Wang &
    Paisley (JMLR 2013, its algorithm box; Wang, Paisley & Blei, AISTATS 2011): corpus sticks
    weigh the topics ``lambda_``, document sticks weigh each document's T atoms, which point at
    topics, and each word picks an atom; :class:`engine.SVI` or :class:`engine.BatchVI` trains it.
    Measurements behind the defaults: benchmarks/RESULTS.md, runs 11, 13 and "Figures formerly
    quoted in docstrings".

    Like :class:`engine.LDA` it is a scikit-learn estimator and transformer (``fit``,
    ``partial_fit``, ``transform``, ``score``, ``get_params``/``set_params``); arguments are
    stored as given and validated when first used.

    Parameters
    ----------
    n_topics, doc_truncation : int
        Truncations: K corpus-level topics (>= 2), T atoms per document (in [1, K]);
        by default ``engine.DEFAULT_HDP_TOPICS`` and ``engine.DEFAULT_DOC_TRUNCATION``, or K
        if that is fewer (``doc_truncation`` unset).
    n_words : int, optional
        Vocabulary size V; unset, it is taken from the documents at the first
        ``fit``, ``partial_fit`` or :class:`engine.SVI`.
    alpha, omega : float
        Concentrations of the document and corpus sticks: Beta(1, alpha), Beta(1, omega);
        the starting values when learned.
    eta : float
        Symmetric Dirichlet prior on topics.
    seed : int
        Seed of the random initial topics.
    local_tol : float, optional
        A document's loop (and its "lda" start's) stops when the mean absolute change of its
        expected topic usage, in words, falls below this; :meth:`transform` too (at most 1e-3
        with ``fold_in="dirichlet"``).  Unset: from
        ``preset``; the default 1e-1 is loose on purpose: stopping early measured better.
    initial_local_tol : float
        ``local_tol`` until the first global update (set or loaded topics count as updated;
        never looser): those fits break the random topics' symmetry and must be tight.
    local_max_iter : int
        Cap on local iterations per document.
    topic_init : {"gamma", "exponential", "documents", "clusters"}
        Random start of lambda, as for :class:`engine.LDA`: "gamma" (default) near uniform, so
        unused topics can be born where words are poorly explained; "exponential" (the paper's
        footnote) spiky topics that the atoms latch onto, which measured worse; "documents" the
        "gamma" draws leaning each topic towards the words of 3 random training documents
        (:func:`engine.models._base.initial_topics`), which measured no better on the panel
        (benchmarks/RESULTS.md, run 21); "clusters" the "gamma" draws plus the word counts of
        k-means clusters of the training documents (run 48), which for the HDP lowered held-out
        likelihood on collections of short documents, kept more topics than synthetic data hold,
        and takes seconds to cluster at 150 topics (run 49).
    dtype : {"float32", "float64"}, optional
        Precision of the parameters and of the local step (unset: from ``preset``): the default
        preset's float32 trains faster than float64 at the same held-out likelihood and
        coherence on the benchmark panel (benchmarks/RESULTS.md, run 20); the paper preset
        keeps float64.  :func:`engine.predictive_log_likelihood` sums in float64 either way.
    warmup_iter : int
        Leading local iterations without the E[log sigma] stick terms (3 in Wang, Paisley &
        Blei's code); off by default: it measured worse with the "lda" start and is a no-op with
        "paper".  Warm starts (batch VI) skip it.
    reorder_topics : bool
        After every SVI global step, sort the topics by atom count N_k, decreasing, and rebuild
        the sticks as (1 + N_k, omega + sum_{l>k} N_l), so the prior ranks topics by use (the
        default starts give birth to topics in that order).  Batch VI never reorders.
    local_init : {"lda", "paper"}
        Start of each document's loop: "lda" (default) fits it with LDA under a Dirichlet(alpha
        E[sigma(V)]) prior and aims atom i at its i-th most used topic; "paper" (the algorithm
        box) starts T identical atoms, told apart by the stick prior, so documents use one topic.
    stick_init : {"uniform", "prior"}, optional
        Start of the corpus sticks (unset: from ``preset``).  "uniform": N_k = D T / K, every
        topic in play until the updates prune it.  "prior" (the algorithm box): a = 1,
        b = omega, so the first documents share topic 1 and small collections keep few topics.
    local_update : {"zero_order", "zero_order_all", "mean_field"}, optional
        Topic term of the local updates (unset: from ``preset``): "mean_field" (the algorithm
        box) exp E[log beta_kw], which starves small topics of new words; "zero_order" log
        E[beta_kw] (SCVB0's zero-order update, Foulds et al. 2013); "zero_order_all" log E[.] for
        the sticks too, which stops the corpus weights concentrating.  Only "mean_field" is
        coordinate ascent; see :mod:`engine.kernels.reference.hdp`.
    kernel : {"auto", "compiled", "numpy"}
        "compiled": numba, over all cores; "numpy": the reference it is tested against;
        "auto": "compiled" if numba imports.
    preset : {"default", "paper"}
        Fills in ``local_update``, ``stick_init``, ``local_tol``, ``dtype``, ``fold_in``,
        ``births``, ``stick_atoms``, ``first_step_min``, ``step_floor`` and ``warmup_epochs``
        when unset: "paper" is the algorithm box (mean field, prior sticks, 1e-2, float64, the
        training local step, no births, all atoms, the schedule's steps, no warm-up); "default"
        is zero order, uniform sticks, 1e-1, float32, the Dirichlet fold-in, 20 births a round,
        used atoms, a first step of at least 0.5, the step floor and a warm-up of 3 epochs,
        what measured best on a panel of collections.
        Explicit arguments win.
    n_epochs : int
        Passes over the documents that :meth:`fit` makes (SVI with the engine's default schedule).
    total_samples : int
        The corpus size D that :meth:`partial_fit` scales each minibatch to (D/S).
    learn_alpha, learn_omega : bool
        Learn alpha (from the document sticks of each minibatch) or omega (from the corpus
        sticks) by empirical Bayes (the paper's section on hyperparameters): each global step
        blends in, with the same rho_t, the closed-form maximum of the bound in it,
        -(number of sticks) / sum E[log(1 - v)], clipped to [1e-3, 1e3]
        (:mod:`engine.models._priors`).  ``model.alpha`` and ``model.omega`` read the value
        learned so far; model files keep it.  Off by default: benchmarks/RESULTS.md, "Run 13,
        HDP learned alpha and omega".
    fold_in : {"dirichlet", "sticks"}, optional
        How :meth:`transform` (and so :meth:`score` and :func:`engine.predictive_log_likelihood`)
        fits a document's topic proportions; training is the same either way.  Unset: from
        ``preset``.  "dirichlet" (default): theta_d ~ Dirichlet(alpha E[sigma_1(V)], ...,
        alpha E[sigma_K(V)]), the exact finite marginal of the document's DP(alpha, G_0) on the
        K topics with the corpus sticks at their mean, fitted by LDA's local step with this
        model's local update and cap, to a tolerance of at most 1e-3 (LDA's default); Wang,
        Paisley & Blei's own code scores held-out documents this way (its ``hdp_to_lda``).
        Every topic keeps a share of the prior in proportion to its corpus weight.  "sticks"
        (the paper preset): the training local step, T document sticks whose atoms point at
        topics, which leaves the topics a short document's observed words do not use little
        of the prior (benchmarks/RESULTS.md, run 25).
    births : int, optional
        Topics split per birth round (0: none; at most n_topics // 2).  Unset: from ``preset``
        (20 by default, or n_topics // 2 if fewer; 0 for "paper").  After each of the first
        three epochs of :class:`engine.SVI`, the largest topics (weight >= 0.01, not copies of
        the overall word use) are each split in two by the documents that use them, found by
        2-means over 2,000 training documents folded in; a pair still within 0.02 nats of
        each other four epochs later, or showing 7 of the same 10 top words, is merged back
        (:meth:`prepare_step`, :mod:`engine.models._hdp_births`).  Without them the topics
        stay as broad as the first epoch left them (benchmarks/RESULTS.md, runs 28 and 29).
        ``partial_fit`` and batch VI make no births: they need the training documents.
    stick_atoms : {"used", "all"}, optional
        Which document atoms the corpus sticks learn from (unset: from ``preset``).  "all"
        (the algorithm box): every atom's pointer, N_k = D/S sum_d sum_i zeta_di^k.  An atom
        that holds none of a document's words still points somewhere: at the topics in
        proportion to the current corpus weights, so it only echoes them; with short documents
        most atoms are such echoes (93 % of the count on 11-word quotations) and the weights
        stay near where they started.  In the infinite model those atoms carry no information
        about the corpus sticks.  "used" (default): atom i of document d counts with the
        probability that it holds at least one of the document's words, 1 - prod_n (1 -
        phi_dn^i) (:func:`engine.kernels.reference.hdp.atom_use`), so the corpus weights
        follow the topics' use (benchmarks/RESULTS.md, run 30).
    first_step_min : float, optional
        Least step size of the first SVI global step from the random start, in [0, 1] (unset:
        from ``preset``; 0.5 by default, 0 for "paper").  That step blends the first
        minibatch's fit in at max(rho_1, ``first_step_min``): never less than the random
        topics it was fitted against.  With a large tau the schedule's rho_1 is small
        ((1 + 64)^-0.7 = 0.054), the near-uniform start outlasts the data, and the topics
        settle as copies of the overall word use; with the engine's schedule (rho_1 = 0.54)
        nothing changes (benchmarks/RESULTS.md, run 34).  Later steps follow the schedule as
        ``step_floor`` raises it; models whose topics were set or loaded, the schedule itself.
    step_floor : {"running", "none"}, optional
        Whether update t from the random start takes at least 1/(t + 1) (unset: "running",
        or "none" with ``preset="paper"``): rho_t = max(schedule, 1/(t + 1)), so the random
        topics never weigh more than one minibatch.  The engine's schedule (tau <= 1) is
        never below it, so it only raises the first steps of a schedule with a large tau,
        where the random start would otherwise outlast the data (benchmarks/RESULTS.md,
        run 37).  Models whose topics were set or loaded without the count follow the schedule.
    warmup_epochs : float, optional
        Epochs of training documents at the start of SVI training (:class:`engine.SVI`,
        :meth:`partial_fit`) whose local steps leave the corpus stick terms E[log sigma_k] out
        of the pointers' update, so a document's atoms choose topics by their words alone, not
        also by the topics' weight in the corpus (``warmup_iter`` does this for each document's
        leading iterations).  The corpus sticks still learn from the pointers.  Unset: from
        ``preset`` (3 by default, 0 for "paper").  Batch VI never warms up; a model file written
        before the option existed loads with 0.  A long warm-up spreads the words over most of
        the truncation's topics: the rich-get-richer pull of the corpus sticks is what
        concentrates them (benchmarks/RESULTS.md, run 88).
    gamma : float, optional
        Deprecated name of ``omega`` (keyword only; warns; not one of ``get_params``).

    Attributes
    ----------
    lambda_, components_ : ndarray of shape (n_topics, n_words)
        Topic Dirichlet parameters; ``components_`` is scikit-learn's name for them.
    sticks_ : ndarray of shape (n_topics - 1, 2)
        Corpus stick Beta parameters.
    n_features_in_, feature_names_in_, vectorizer_, n_batch_iter_, n_iter_
        As for :class:`engine.LDA`.
    """

    @property
    def gamma(self) -> float:
        """Deprecated name of :attr:`omega`."""
        warnings.warn(_GAMMA_RENAMED, DeprecationWarning, stacklevel=2)
        return self.omega

    n_topics = Param()
    doc_truncation = Param()
    n_words = Param()
    alpha = Param()
    omega = Param()
    eta = Param()
    seed = Param()
    local_tol = Param()
    local_max_iter = Param()
    topic_init = Param()
    dtype = Param()
    warmup_iter = Param()
    reorder_topics = Param()
    local_init = Param()
    stick_init = Param()
    kernel = Param()
    initial_local_tol = Param()
    local_update = Param()
    preset = Param()
    n_epochs = Param()
    total_samples = Param()
    learn_alpha = Param()
    learn_omega = Param()
    fold_in = Param()
    births = Param()
    stick_atoms = Param()
    first_step_min = Param()
    step_floor = Param()
    warmup_epochs = Param()

    def __init__(
        self,
        n_topics: int = DEFAULT_HDP_TOPICS,
        doc_truncation: int | None = None,
        n_words: int | None = None,
        alpha: float = 1.0,
        omega: float = 1.0,
        eta: float = 0.01,
        seed: int = 0,
        local_tol: float | None = None,
        local_max_iter: int = 100,
        topic_init: str = "gamma",
        dtype: str | None = None,
        warmup_iter: int = 0,
        reorder_topics: bool = True,
        local_init: str = "lda",
        stick_init: str | None = None,
        kernel: str = "auto",
        initial_local_tol: float = 1e-3,
        local_update: str | None = None,
        preset: str = "default",
        n_epochs: int = 10,
        total_samples: int = 1_000_000,
        learn_alpha: bool = False,
        learn_omega: bool = False,
        fold_in: str | None = None,
        births: int | None = None,
        stick_atoms: str | None = None,
        first_step_min: float | None = None,
        step_floor: str | None = None,
        warmup_epochs: float | None = None,
        *,
        gamma: float | None = None,
    ):
        if gamma is not None:  # not a Param: get_params and clone pass omega
            warnings.warn(_GAMMA_RENAMED, DeprecationWarning, stacklevel=2)
            omega = gamma
        self.n_topics = n_topics
        self.doc_truncation = doc_truncation
        self.n_words = n_words
        self.alpha = alpha
        self.omega = omega
        self.eta = eta
        self.seed = seed
        self.local_tol = local_tol
        self.local_max_iter = local_max_iter
        self.topic_init = topic_init
        self.dtype = dtype
        self.warmup_iter = warmup_iter
        self.reorder_topics = reorder_topics
        self.local_init = local_init
        self.stick_init = stick_init
        self.kernel = kernel
        self.initial_local_tol = initial_local_tol
        self.local_update = local_update
        self.preset = preset
        self.n_epochs = n_epochs
        self.total_samples = total_samples
        self.learn_alpha = learn_alpha
        self.learn_omega = learn_omega
        self.fold_in = fold_in
        self.births = births
        self.stick_atoms = stick_atoms
        self.first_step_min = first_step_min
        self.step_floor = step_floor
        self.warmup_epochs = warmup_epochs
        self._reset_state()

    def _resolve_arguments(self) -> dict:
        """The arguments validated, with the preset's choices for those left unset."""
        given = self.__dict__
        preset = check_choice("preset", given["preset"], PRESETS)
        filled = _PRESET_SETTINGS[preset]
        local_tol = filled["local_tol"] if given["local_tol"] is None else given["local_tol"]
        stick_init = filled["stick_init"] if given["stick_init"] is None else given["stick_init"]
        local_update = filled["local_update"] if given["local_update"] is None else given["local_update"]
        dtype = filled["dtype"] if given["dtype"] is None else given["dtype"]
        fold_in = filled["fold_in"] if given["fold_in"] is None else given["fold_in"]
        stick_atoms = filled["stick_atoms"] if given["stick_atoms"] is None else given["stick_atoms"]
        first_step_min = filled["first_step_min"] if given["first_step_min"] is None else given["first_step_min"]
        births = given["births"]
        n_topics = check_int("n_topics", given["n_topics"], 2)
        if births is None:  # the preset's number, at most half the topics
            births = min(filled["births"], n_topics // 2)
        doc_truncation = given["doc_truncation"]
        if doc_truncation is None:  # at most the number of topics
            doc_truncation = min(DEFAULT_DOC_TRUNCATION, n_topics)
        reorder_topics = given["reorder_topics"]
        if not isinstance(reorder_topics, (bool, np.bool_)):
            raise ValueError(f"reorder_topics must be True or False, got {reorder_topics!r}")
        return {
            "n_topics": n_topics,
            "doc_truncation": check_int("doc_truncation", doc_truncation, 1, n_topics),
            "n_words": None if given["n_words"] is None else check_int("n_words", given["n_words"], 1),
            "alpha": check_positive("alpha", given["alpha"]),
            "omega": check_positive("omega", given["omega"]),
            "eta": check_positive("eta", given["eta"]),
            "seed": check_int("seed", given["seed"], 0),
            "local_tol": check_positive("local_tol", local_tol),
            "initial_local_tol": check_positive("initial_local_tol", given["initial_local_tol"]),
            "local_max_iter": check_int("local_max_iter", given["local_max_iter"], 1),
            "topic_init": check_choice("topic_init", given["topic_init"], TOPIC_INITS),
            "dtype": check_choice("dtype", _dtype_name(dtype), DTYPES),
            "warmup_iter": check_int("warmup_iter", given["warmup_iter"], 0),
            "reorder_topics": bool(reorder_topics),
            "local_init": check_choice("local_init", given["local_init"], _LOCAL_INITS),
            "stick_init": check_choice("stick_init", stick_init, _STICK_INITS),
            "kernel": check_choice("kernel", given["kernel"], KERNELS),
            "local_update": check_choice("local_update", local_update, _LOCAL_UPDATES),
            "preset": preset,
            "n_epochs": check_int("n_epochs", given["n_epochs"], 1),
            "total_samples": check_int("total_samples", given["total_samples"], 1),
            "learn_alpha": check_choice("learn_alpha", given["learn_alpha"], (True, False)),
            "learn_omega": check_choice("learn_omega", given["learn_omega"], (True, False)),
            "fold_in": check_choice("fold_in", fold_in, FOLD_INS),
            "births": check_int("births", births, 0, n_topics // 2),
            "stick_atoms": check_choice("stick_atoms", stick_atoms, _STICK_ATOMS),
            "first_step_min": check_fraction("first_step_min", first_step_min),
            "step_floor": check_choice("step_floor", filled["step_floor"] if given["step_floor"] is None
                                       else given["step_floor"], STEP_FLOORS),
            "warmup_epochs": check_non_negative("warmup_epochs", filled["warmup_epochs"]
                                                if given["warmup_epochs"] is None else given["warmup_epochs"]),
        }

    def _reset_state(self) -> None:
        super()._reset_state()  # self._learned: "alpha", "omega" while training with learn_alpha / learn_omega
        self._sticks: np.ndarray | None = None
        self._epochs_seen = 0.0  # epochs of documents SVI's global steps have blended in
        self._birth_rounds = 0  # birth rounds made (one after each of the first BIRTH_ROUNDS epochs)
        self._pairs: list[tuple[int, int, int]] = []  # (round, donor, new topic) of births not yet judged
        self._warming = False  # within updating() of an SVI update in the warm-up (warmup_epochs)

    # ----------------------------------------------------------------- state
    def set_params(self, **params) -> HDP:
        """scikit-learn's ``set_params``; the deprecated ``gamma`` sets ``omega`` (and warns), as in the constructor."""
        if "gamma" in params:
            warnings.warn(_GAMMA_RENAMED, DeprecationWarning, stacklevel=2)
            params["omega"] = params.pop("gamma")
        return super().set_params(**params)

    def _topics_assigned(self) -> None:
        if self._sticks is None:
            self._sticks = self._prior_sticks()

    @property
    def sticks_(self) -> np.ndarray | None:
        """Corpus stick Beta parameters (a_k, b_k), ndarray of shape (n_topics - 1, 2)."""
        return self._sticks

    @sticks_.setter
    def sticks_(self, value) -> None:
        value = np.array(value, dtype=self.dtype, copy=True)
        if value.shape != (self.n_topics - 1, 2):
            raise ValueError(f"sticks_ must have shape (n_topics - 1, 2) = {(self.n_topics - 1, 2)}, got {value.shape}")
        if not np.all(np.isfinite(value)) or value.min() <= 0:
            raise ValueError("sticks_ must be finite and > 0 everywhere")
        self._sticks = value

    def _prior_sticks(self) -> np.ndarray:
        sticks = np.empty((self.n_topics - 1, 2), dtype=self.dtype)
        sticks[:, 0], sticks[:, 1] = 1.0, self.omega  # a = 1, b = omega as in the algorithm box
        return sticks

    def initialize(self, n_docs: int, n_words: int | None = None, documents=None) -> None:
        """Random topics as for LDA (see ``topic_init``) and the sticks of ``stick_init``.

        ``n_words`` is the corpus's vocabulary size: required if the model was built
        without one, checked against it otherwise.  ``documents``, the training
        documents (in memory or on disk), are read by ``topic_init="documents"`` and
        ``"clusters"`` only.
        """
        self._initialize_topics(n_docs, n_words, documents)
        if self.stick_init == "uniform":
            counts = np.full(self.n_topics, n_docs * self.doc_truncation / self.n_topics)
            self._sticks = _sticks_from_counts(counts, self.omega).astype(self.dtype)
        else:
            self._sticks = self._prior_sticks()

    @property
    def current_local_tol(self) -> float:
        """The tolerance of the next local fit: ``initial_local_tol`` against the random start, else ``local_tol``."""
        if self._at_random_start:
            return min(self.local_tol, self.initial_local_tol)
        return self.local_tol

    def planned_step_size(self, t: int, rho: float) -> float:
        """As for LDA (``step_floor``), and update 1 at least ``first_step_min`` (RESULTS run 34)."""
        rho = super().planned_step_size(t, rho)
        return max(rho, self.first_step_min) if t == 1 else rho

    # ---------------------------------------------------------- inference
    def local_step(self, X, rng: np.random.Generator | None = None, warm_start: HDPStats | None = None) -> HDPStats:
        """Fit zeta, gamma and phi of every document in ``X`` against the current globals.

        The model is not modified (``rng`` is unused: the local step is
        deterministic).  ``warm_start`` (the statistics of an earlier local
        step on the same documents) restarts the loop from its phi, as
        classical coordinate ascent does.  The statistics keep zeta, n_docs x
        T x K values, for batch VI's warm starts and the ELBO; use
        :meth:`transform` for many documents.  In the local step of an SVI update
        within the first ``warmup_epochs``, the pointers leave out the corpus stick terms.
        """
        return self._fit_documents(X, warm_start, stick_terms=not self._warming)

    def _fit_documents(self, X, warm_start: HDPStats | None = None, stick_terms: bool = True) -> HDPStats:
        """:meth:`local_step`, with the corpus stick terms in the pointers' update or without them."""
        topics = self._require_topics()
        counts, columns = restrict_columns(as_counts(X, self.n_words, name="documents"))
        start = None
        if warm_start is not None:
            start = warm_start.word_atom
            if start.shape != (counts.nnz, self.doc_truncation):
                raise ValueError(
                    f"warm_start holds phi of shape {start.shape} but these documents need "
                    f"{(counts.nnz, self.doc_truncation)}; pass the statistics of the same documents"
                )
        return self._local_job(topics, columns, columns, stick_terms).run(counts, start)

    def _local_job(self, topics, positions: np.ndarray, columns: np.ndarray,
                   stick_terms: bool = True) -> HDPLocalJob:
        beta_mean, sticks_mean, local_mean = self._zero_order_terms()
        # E[log sigma_k(V)] (or log E[.]); zero while warming up (the pointers weigh the corpus sticks alike)
        if not stick_terms:
            elog_sticks = np.zeros(self.n_topics, dtype=self.dtype)
        elif sticks_mean:  # floored at the smallest normal number, so tiny gamma cannot give log 0
            weights = stick_weights(self._sticks)
            elog_sticks = np.log(np.maximum(weights, np.finfo(weights.dtype).tiny))
        else:
            elog_sticks = stick_expectation(self._sticks)
        return HDPLocalJob(topics, positions, columns, self.kernel, beta_mean, local_mean, elog_sticks,
                           self.alpha * stick_weights(self._sticks), self.alpha, self.doc_truncation,
                           self.current_local_tol, self.local_max_iter, self.warmup_iter, self.local_init,
                           self._workload(), self.stick_atoms)

    def _workload(self) -> str:
        """The warm-up workload whose compiled kernels the local step and the fold-in run (it steps and folds in)."""
        return workload_name("HDP", "mean_field" if self.local_update == "mean_field" else "zero_order", self.dtype)

    def local_jobs(self, X, bounds, rng: np.random.Generator | None = None) -> list[HDPLocalJob]:
        """:meth:`local_step` of the minibatch ``X`` cut into jobs, one per document range bounds[i]:bounds[i + 1].

        As :meth:`engine.LDA.local_jobs` (``rng`` is unused here too).  The compiled
        kernel bounds its topic terms by the smallest over the minibatch's columns, so
        every job also carries, for each topic, the minibatch column of least lambda_kw
        (where E[log beta_kw] and log E[beta_kw] are least): no document uses it in the
        job, and each document's fit is the same as in the whole minibatch's.
        """
        topics = self._require_topics()
        counts = as_counts(X, self.n_words, name="documents")
        stick_terms = not self._warming  # see warmup_epochs
        batch_columns = used_columns(counts)
        anchors = batch_columns[np.argmin(topics.rows(batch_columns), axis=0)] if batch_columns.size else batch_columns
        jobs = []
        for low, high in pairwise(bounds):
            columns = np.union1d(counts.indices[counts.indptr[low]:counts.indptr[high]], anchors)
            jobs.append(self._local_job(topics.take(columns), np.arange(columns.size), columns, stick_terms))
        return jobs

    def _zero_order_terms(self) -> tuple[bool, bool, bool]:
        """Which terms take log E[x] instead of E[log x]: (topics, corpus sticks, document sticks and LDA start)."""
        every = self.local_update == "zero_order_all"
        return self.local_update != "mean_field", every, every

    def _update(self, stats: HDPStats, scale: float, rho: float, reorder: bool) -> None:
        # lambda_hat = eta + scale * sum zeta phi w; a_hat = 1 + scale * N_k; b_hat = omega + scale * sum_{l>k} N_l
        topics = self._require_topics()
        topics.blend(stats.topic_word, stats.columns, scale, rho)
        target = _sticks_from_counts(scale * stats.topic_mass, self.omega)
        sticks = ((1.0 - rho) * self._sticks + rho * target).astype(self.dtype, copy=False)
        if reorder:
            counts = _stick_counts(sticks, self.omega)
            order = np.argsort(-counts, kind="stable")
            if np.any(order != np.arange(order.size)):  # moving topics costs O(V x those moved): only when needed
                compiled = effective_kernel(self.kernel) == "compiled"
                topics.permute_rows(order, workload=self._workload() if compiled else None)
                sticks = _sticks_from_counts(counts[order], self.omega).astype(self.dtype, copy=False)
                position = np.argsort(order)  # topic k is now at position[k]
                self._pairs = [(when, int(position[a]), int(position[b])) for when, a, b in self._pairs]
        if self.learn_alpha and stats.doc_stick_rest.size and self.doc_truncation > 1:
            found = stick_concentration(stats.doc_stick_rest.size * (self.doc_truncation - 1),
                                        float(np.sum(stats.doc_stick_rest)), self.alpha)
            self._learned["alpha"] = self._blend_concentration(self.alpha, found, rho)
        if self.learn_omega:
            # from the sticks just updated, as LDA's eta from its topics; then b_k = omega + sum_{l>k} N_l
            # moves with omega, as lambda = eta + counts moves with a learned eta
            old = self.omega
            found = stick_concentration(sticks.shape[0], float(_sum_elog_rest(sticks)), old)
            self._learned["omega"] = self._blend_concentration(old, found, rho)
            sticks[:, 1] += self.omega - old  # sticks is this step's new array
        self._sticks = sticks
        self._counted_update()

    @staticmethod
    def _blend_concentration(current: float, found: float, rho: float) -> float:
        """(1 - rho) current + rho found, or the current value should that not be a finite number > 0."""
        blended = (1.0 - rho) * current + rho * found
        return float(blended) if np.isfinite(blended) and blended > 0 else float(current)

    def global_step(self, stats: HDPStats, scale: float, rho: float) -> None:
        """Blend the intermediate globals in with step size rho; then reorder if asked."""
        self._update(stats, scale, rho, reorder=self.reorder_topics)
        self._epochs_seen += 1.0 / scale  # the minibatch is 1/scale of the corpus

    @contextmanager
    def updating(self) -> Iterator[None]:
        """The span of one SVI update (:func:`engine.inference.svi.minibatch_update` runs its steps inside it).

        While fewer than ``warmup_epochs`` epochs were blended in, the update's local steps are
        the warm-up's (no corpus stick terms in the pointers' update); on leaving, whether the
        update succeeded or failed, :meth:`local_step` weighs the sticks again.
        """
        self._warming = self._epochs_seen < self.warmup_epochs - EPOCH_SLACK
        try:
            yield
        finally:
            self._warming = False

    def prepare_step(self, draw_documents) -> None:
        """Topic births and their undoing, when due before the next SVI step (:class:`engine.SVI` calls this).

        With ``births`` > 0, after each of the first three epochs of training documents
        the ``births`` largest topics are each split in two by the documents that use them
        (:func:`engine.models._hdp_births.birth_round`), judged on ``draw_documents(2000)``:
        the counts of 2,000 training documents (all of them if fewer), folded in once per
        round; four epochs later, a pair whose word distributions are still within 0.02
        nats of each other, or whose 10 top words share 7, is merged back
        (:func:`engine.models._hdp_births.undo_pairs`).
        A birth made after the last step would never be refined, so nothing happens here
        until another step is about to run.  ``partial_fit`` and batch VI never call this.
        """
        if not self.births or self._topics is None:
            return
        due = [pair for pair in self._pairs if self._epochs_seen >= pair[0] + UNDO_AFTER - EPOCH_SLACK]
        if due:
            self._judge(due)
        if self._birth_rounds < BIRTH_ROUNDS and self._epochs_seen >= self._birth_rounds + 1 - EPOCH_SLACK:
            self._birth_rounds += 1
            counts = as_counts(draw_documents(BIRTH_SAMPLE), self.n_words, name="documents")
            general = self.general_topics()
            lambda_ = self._require_fitted().astype(np.float64)
            rng = np.random.default_rng([self.seed, _STREAM_BIRTHS, self._birth_rounds])
            gamma = self._dirichlet_gamma(counts, tol=min(self.current_local_tol, SAMPLE_TOL))
            theta = gamma / gamma.sum(axis=1, keepdims=True)
            split = DocumentSplit(counts, theta, lambda_ / lambda_.sum(axis=1, keepdims=True), rng, self.kernel,
                                  self._workload())
            pending = np.array([topic for pair in self._pairs for topic in pair[1:]], dtype=np.intp)
            born = self._restructure(lambda excess, sticks: birth_round(excess, sticks, self.omega, self.births,
                                                                       general, split, pending), lambda_=lambda_)
            self._pairs.extend((self._birth_rounds, donor, child) for donor, child in born)

    def judge_births(self) -> list[tuple[int, int]]:
        """Judge every pending birth pair now, as :meth:`prepare_step` does four epochs after its birth.

        A run that stops before those four epochs have passed (fewer than 8 epochs, or
        stopped early) would otherwise keep halves that stayed alike: two cards of one
        topic.  Each pending pair whose word distributions are within 0.02 nats, or whose
        10 top words share 7, is merged back into its donor; no pair stays pending.
        :class:`engine.TrainingRun` calls this when a run finishes or is stopped;
        ``engine.SVI`` never does, so a loop of ``SVI.run`` calls trains as one long run.

        Returns
        -------
        list of (int, int)
            The (donor, new topic) pairs merged back, the new topic now holding no words.
        """
        if not self._pairs or self._topics is None:
            return []
        return self._judge(list(self._pairs))

    def _judge(self, due: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
        """Merge back the (round, donor, child) pairs ``due`` that stayed alike; all leave the pending list."""
        return self._restructure(lambda excess, sticks: undo_pairs(excess, sticks, [pair[1:] for pair in due]),
                                 undone=due)

    def _restructure(self, change, undone: list | None = None, lambda_: np.ndarray | None = None
                     ) -> list[tuple[int, int]]:
        """Apply ``change(excess, sticks) -> pairs`` to float64 copies of lambda - eta and N_k; kept if pairs are named.

        ``undone``: the pending pairs being judged, dropped from the pending list, whose
        merged-back topics are renamed in the pairs that stay.  ``lambda_``: lambda in
        float64 if the caller has it already, a copy this call may overwrite.
        """
        if lambda_ is None:
            lambda_ = self._require_fitted().astype(np.float64)
        excess = np.maximum(np.subtract(lambda_, self.eta, out=lambda_), 0.0, out=lambda_)  # lambda_ is ours
        sticks = _stick_counts(self._sticks.astype(np.float64), self.omega)
        pairs = change(excess, sticks)
        if undone is not None:
            self._pairs = rename_merged([pair for pair in self._pairs if pair not in undone], pairs)
        if pairs:
            self._replace_topics(np.add(excess, self.eta, out=excess))  # still trained topics: the update count stays
            self._sticks = _sticks_from_counts(sticks, self.omega).astype(self.dtype)
        return pairs

    def training_clock(self) -> dict:
        """The births' clock: epochs of documents blended in, birth rounds made, pairs not yet judged; and the
        updates since the random start (the step floor's t)."""
        return {"epochs_seen": self._epochs_seen, "birth_rounds": self._birth_rounds,
                "pairs": [list(pair) for pair in self._pairs], "updates_from_start": self._updates_from_start}

    def restore_training_clock(self, clock: dict) -> None:
        """Continue the births' clock of :meth:`training_clock`; ValueError if it is malformed.

        A model file written before births existed has no clock: its topics are never split
        when its training continues.
        """
        clock = self._restore_updates(clock)
        if not isinstance(clock, dict) or not clock:
            self._epochs_seen, self._birth_rounds, self._pairs = 0.0, BIRTH_ROUNDS, []
            return
        self._epochs_seen, self._birth_rounds, self._pairs = read_clock(clock, self.n_topics)

    def batch_update(self, stats: HDPStats) -> None:
        """Coordinate-ascent optimum: lambda = eta + sum zeta phi w, a = 1 + N, b = omega + sum_{l>k} N_l."""
        self._update(stats, scale=1.0, rho=1.0, reorder=False)

    def _proportions(self, counts) -> np.ndarray:
        """E[theta_d] of the documents (``transform`` checks them first), by the ``fold_in`` chosen.

        "dirichlet": :meth:`_dirichlet_proportions`.  "sticks": E[theta_dk] = sum_i
        E[sigma_i(pi_d)] zeta_di^k from the training local step, where E[sigma_i(pi_d)] =
        E[pi_di] prod_{j<i} (1 - E[pi_dj]) uses the Beta means gamma^(1) / (gamma^(1) +
        gamma^(2)); it is exact because the atoms' sticks and topic pointers are independent
        under q.  Documents are then fitted in chunks, so the T x K pointers of only one
        chunk are held at a time.  Returns ndarray of shape (n_docs, n_topics), rows summing
        to 1.
        """
        counts = as_counts(counts, self.n_words, name="documents")
        if self.fold_in == "dirichlet":
            return self._dirichlet_proportions(counts)
        chunk = max(1, _TRANSFORM_ELEMENTS // (self.doc_truncation * self.n_topics))
        parts = [self._fit_documents(counts[start:start + chunk]).doc_topic
                 for start in range(0, counts.shape[0], chunk)]
        return np.concatenate(parts, axis=0)

    def _dirichlet_proportions(self, counts: sp.csr_matrix) -> np.ndarray:
        """E[theta_d] under theta_d ~ Dirichlet(alpha E[sigma(V)]): LDA's local step on this model's topics.

        G_d ~ DP(alpha, G_0) with G_0 = sum_k sigma_k(V) delta_{beta_k} gives the weights
        (G_d(beta_1), ..., G_d(beta_K)) ~ Dirichlet(alpha sigma_1(V), ..., alpha sigma_K(V)),
        sigma(V) taken at its mean E[sigma(V)] (:meth:`topic_weights`).  gamma_d is fitted as
        the training local step's "lda" start is, by the zero-order (or, with
        ``local_update="mean_field"``, the mean-field) LDA update, but to a tolerance of at
        most 1e-3, and the document sticks are never fitted.
        """
        gamma = self._dirichlet_gamma(counts)
        return (gamma / gamma.sum(axis=1, keepdims=True)).astype(self.dtype)

    def _dirichlet_gamma(self, counts: sp.csr_matrix, tol: float | None = None) -> np.ndarray:
        """gamma_d of :meth:`_dirichlet_proportions` (float64, shape (n_docs, n_topics)), not normalised.

        ``tol`` replaces the fold-in's tolerance (the births fit their sample to 1e-2).
        """
        topics = self._require_topics()
        restricted, columns = restrict_columns(counts)
        prior = self.alpha * self.topic_weights()
        tol = min(self.current_local_tol, _FOLD_IN_TOL) if tol is None else tol
        job = LDALocalJob(topics, columns, columns, prior, tol, self.local_max_iter,
                          self.local_update != "mean_field", self.kernel, None, workload=self._workload())
        return np.asarray(job.fold_in(restricted), dtype=np.float64)

    def _merge_globals(self, keep: int, rest: np.ndarray) -> None:
        # N_keep += sum of the others' N_k, which become 0: a_k = 1 + N_k, b_k = omega + sum_{l>k} N_l again
        counts = _stick_counts(self._sticks.astype(np.float64), self.omega)
        counts[keep] += counts[rest].sum()
        counts[rest] = 0.0
        self._sticks = _sticks_from_counts(counts, self.omega).astype(self.dtype)

    # ------------------------------------------------------------ display
    def topic_weights(self) -> np.ndarray:
        """E[sigma_k(V)] = E[V_k] prod_{l<k} (1 - E[V_l]), length n_topics, summing to 1.

        The expected share of document atoms that point at topic k (a topic
        every document uses weighs more than one with many words in a few
        documents); unused atoms follow these weights, so they move slowly.
        """
        self._require_fitted()
        return stick_weights(self._sticks.astype(np.float64))

    # --------------------------------------------------------------- ELBO
    def elbo(self, X, stats: HDPStats | None = None) -> float:
        """Full mean-field evidence lower bound of the documents ``X``.

        Evaluated at the local parameters in ``stats`` (zeta, gamma and phi
        exactly as stored; a local step is run when it is None) and the
        current lambda and sticks:  E[log p(w | c, z, beta)] + E[log p(z | pi)]
        + E[log p(pi)] + E[log p(c | v)] + E[log p(v)] + E[log p(beta)] minus
        E[log q] of each factor.
        """
        counts = as_counts(X, self.n_words, name="documents")
        lambda_ = self._require_fitted().astype(np.float64)
        sticks = self._sticks.astype(np.float64)
        if stats is None:
            stats = self._fit_documents(counts)
        zeta = stats.atom_topic.astype(np.float64)
        phi = stats.word_atom.astype(np.float64)
        gamma = stats.doc_sticks.astype(np.float64)
        counts = counts.astype(np.float64)
        elog_beta = dirichlet_expectation(lambda_)
        # words: sum_dn c_dn sum_i phi_dn^i sum_k zeta_di^k E[log beta_k,w_dn]
        word_term = float(np.sum(topic_word_stats(counts, phi, zeta) * elog_beta))
        # atoms of words: E[log p(z | pi)] - E[log q(z)], token-weighted
        atom_term = float(np.sum(atom_counts(counts, phi) * stick_expectation(gamma)))
        atom_term -= float(counts.data @ xlogy(phi, phi).sum(axis=1))
        # topics of atoms: E[log p(c | v)] - E[log q(c)]
        pointer_term = float(np.sum(zeta * stick_expectation(sticks)) - np.sum(xlogy(zeta, zeta)))
        stick_term = _beta_terms(gamma, self.alpha) + _beta_terms(sticks, self.omega)
        topic_term = dirichlet_elbo_term(lambda_, self.eta, elog_beta)
        return float(word_term + atom_term + pointer_term + stick_term + topic_term)
