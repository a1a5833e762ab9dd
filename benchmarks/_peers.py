"""One small adapter per LDA system, so the benchmark drives them all alike.

Every adapter trains online LDA by stochastic variational inference with the same
settings (K topics, alpha, eta, kappa, tau, minibatch size S, D training
documents) and exposes the same things:

- ``prepare(rows)``: the training documents ``rows`` sliced and converted into
  what the system consumes (a CSR matrix of the engine's counts, a float64 CSR
  matrix for scikit-learn, a list of (id, count) lists for gensim), done before
  the clock starts, and ``fit_prepared(batch)``: one global update on such a
  prepared minibatch, the only part the benchmark times (the benchmark feeds
  every system the same minibatches in the same order);
- ``partial_fit(rows)``: both in one call (slicing included);
- ``topic_word()``: the topics' Dirichlet parameters lambda, shape (K, V),
  which the benchmark scores with the engine's own held-out evaluator;
- ``name``: how the system appears in the tables.

The step size of every system is rho_t = (tau + t) ** -kappa with t = 1, 2, ...
(the engine's ``step_size``), except the engine HDP's first step from its random
start, which its default raises to at least 0.5 (``first_step_min``, as in
``engine.SVI``), and every global step treats the minibatch as the corpus repeated
D / S times.  scikit-learn does both natively.  gensim counts its
updates from 0 and scales its statistics to the number of documents it has seen
so far rather than to D; the gensim adapter pins both (see :class:`GensimLDA`).

The HDP adapters (:class:`EngineHDP`, :class:`GensimHDP`, settings in
:class:`HDPSettings`) have the same ``prepare``, ``fit_prepared``, ``partial_fit``
and ``name``, plus
``finish_epoch()`` (work a system does once per pass, timed with training) and
``model_for_evaluation()``: an ``engine.HDP`` holding the system's topics and
corpus sticks, which the benchmark scores with ``engine.predictive_log_likelihood``.
"""

from __future__ import annotations

import inspect
import logging
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import engine

if (Path(engine.__file__).parent / "inference").is_dir():
    from engine.inference.svi import scheduled_rho
else:  # a build from before engine/inference/ (the filing commit, timed through PYTHONPATH): its bare schedule
    from engine.schedule import step_size

    def scheduled_rho(model, t: int, kappa: float, tau: float) -> float:
        return float(step_size(t, kappa, tau))

__all__ = [
    "EngineHDP",
    "EngineLDA",
    "GensimHDP",
    "GensimLDA",
    "HDPSettings",
    "Settings",
    "SklearnLDA",
    "gensim_bow",
    "peer_available",
]


class Settings:
    """The settings every system shares (the paper's symbols)."""

    def __init__(
        self,
        n_topics: int,
        batch_size: int,
        kappa: float,
        tau: float,
        eta: float,
        seed: int,
        local_max_iter: int = 100,
        local_tol: float = 1e-3,
        initial_topics: np.ndarray | None = None,
    ):
        self.n_topics = n_topics
        self.alpha = 1.0 / n_topics
        self.eta = eta
        self.batch_size = batch_size
        self.kappa = kappa
        self.tau = tau
        self.seed = seed
        self.local_max_iter = local_max_iter
        self.local_tol = local_tol
        # shared start: the peers begin from this lambda (K, V) instead of their own random draw
        self.initial_topics = initial_topics


def peer_available(name: str) -> str | None:
    """None if the peer library imports, else a one-line reason."""
    module = {"sklearn": "sklearn.decomposition", "gensim": "gensim.models", "tomotopy": "tomotopy"}[name]
    try:
        __import__(module)
    except ImportError as error:  # the benchmark skips that peer and says why
        return f"{name} is not installed ({error}); pip install {'scikit-learn' if name == 'sklearn' else name}"
    return None


class _EngineSystem:
    """An engine model trained by SVI, one update per prepared minibatch.

    ``fit_prepared`` makes the calls of ``engine.SVI.step`` on a minibatch already sliced
    from the training matrix: the model's ``prepare_step`` if it has one (the HDP's births,
    which read a sample of the training documents inside the timed step, as in SVI,
    drawn from SVI's stream), then, inside its ``updating()`` if it has one (the HDP's
    warm-up), its ``local_step`` (random
    local starts, if any, from ``default_rng([seed, t])``, not SVI's stream, so a
    ``gamma_init="random"`` run draws other starts than ``SVI.step``), the same check for
    non-finite statistics, and its ``global_step`` with rho_t = (tau + t) ** -kappa
    (``engine.inference.svi.scheduled_rho``, as in SVI: the model raises update t from its
    random start to at least 1/(t + 1), ``step_floor``) and scale D / S.  ``SVI.step(doc_ids=rows)`` slices the
    rows itself, inside the step; here that slicing is done by ``prepare``, before
    the clock starts, as it is for the peers.  BLAS threads are left to the
    benchmark's ``threadpool_limits``.
    """

    def __init__(self, model, train: sp.csr_matrix, settings, threads: int | None):
        self.model = model
        self.local_iterations: list[float] = []  # mean local iterations per document, one per step
        self.train = train
        self.n_docs = train.shape[0]
        self.kappa, self.tau, self.seed = settings.kappa, settings.tau, settings.seed
        self.threads = threads  # the benchmark holds BLAS at this many threads around training
        self.t = 0
        model.initialize(self.n_docs)

    def prepare(self, rows: np.ndarray) -> sp.csr_matrix:
        return self.train[rows]

    def fit_prepared(self, batch: sp.csr_matrix) -> None:
        prepare = getattr(self.model, "prepare_step", None)  # the HDP's births, as SVI.step runs them
        if prepare is not None:
            prepare(self._draw_documents)
        self.t += 1
        rho = scheduled_rho(self.model, self.t, self.kappa, self.tau)  # SVI.step's, the step floor included
        updating = getattr(self.model, "updating", None)  # the HDP's warm-up, as minibatch_update enters it
        with nullcontext() if updating is None else updating():
            stats = self.model.local_step(batch, rng=np.random.default_rng([self.seed, self.t]))
            if not np.isfinite(stats.topic_word.sum()):  # what SVI.step checks before the update
                raise engine.DivergedError(f"{self.name}: non-finite statistics at step {self.t}")
            self.model.global_step(stats, scale=self.n_docs / batch.shape[0], rho=rho)
        self.local_iterations.append(float(np.mean(stats.n_iter)))

    def partial_fit(self, rows: np.ndarray) -> None:
        self.fit_prepared(self.prepare(rows))

    def _draw_documents(self, n: int) -> sp.csr_matrix:
        """``engine.SVI``'s sample of ``n`` training documents for the HDP's births, before the next update."""
        from engine.inference.svi import sample_documents  # here: only engines with births have it

        return sample_documents(self.train, n, self.seed, self.t + 1)


def _algorithm_box() -> dict:
    """The settings that make ``engine.LDA`` run the paper's algorithm box, as scikit-learn and gensim do.

    The mean-field local step and no topic revival: since issue 13 the engine's default
    is the zero-order step with split revival, which the peers do not have, so the
    "equal settings" column sets both.  Empty for an engine version that predates them
    (its only local step was the box's), so older checkouts can be timed too.
    """
    params = inspect.signature(engine.LDA).parameters
    box = {"local_update": "mean_field", "revive_topics": False}
    return {name: value for name, value in box.items() if name in params}


class EngineLDA(_EngineSystem):
    """The engine at the peers' settings and algorithm: ``engine.LDA`` running the paper's box by SVI steps.

    alpha, eta, the local step's limits and the algorithm (:func:`_algorithm_box`) are the
    peers'; only the starts (``gamma_init``, ``topic_init``) and ``dtype`` are the engine's.
    ``paper_box=False`` keeps the engine's own local step and revival instead (the
    LDA that ``compare_hdp.py`` sets beside the HDP).
    """

    def __init__(
        self,
        train: sp.csr_matrix,
        settings: Settings,
        gamma_init: str,
        topic_init: str,
        threads: int | None = 1,
        dtype: str | None = None,
        paper_box: bool = True,
    ):
        model = engine.LDA(
            n_topics=settings.n_topics,
            n_words=train.shape[1],
            alpha=settings.alpha,
            eta=settings.eta,
            seed=settings.seed,
            local_tol=settings.local_tol,
            local_max_iter=settings.local_max_iter,
            gamma_init=gamma_init,
            topic_init=topic_init,
            dtype=dtype,
            **(_algorithm_box() if paper_box else {}),
        )
        self.name = f"engine[{gamma_init},{topic_init}]" + ("" if model.dtype == "float64" else f"[{model.dtype}]")
        super().__init__(model, train, settings, threads)

    def topic_word(self) -> np.ndarray:
        return np.asarray(self.model.lambda_, dtype=np.float64)


class EngineLDADefaults(EngineLDA):
    """The engine as users get it: ``engine.LDA(n_topics=K, n_words=V, seed=s)`` and nothing else.

    Only the schedule and S come from ``settings`` (they belong to SVI, not the
    model); alpha, eta and the local step's limits are the model's own defaults.
    """

    def __init__(self, train: sp.csr_matrix, settings: Settings, threads: int | None = 1):
        self.name = "engine[defaults]"
        model = engine.LDA(n_topics=settings.n_topics, n_words=train.shape[1], seed=settings.seed)
        _EngineSystem.__init__(self, model, train, settings, threads)

    @property
    def own_alpha(self):
        """The model's alpha, which the evaluator folds held-out documents in with (not the shared 1/K)."""
        return self.model.alpha


class SklearnLDA:
    """scikit-learn's ``LatentDirichletAllocation(learning_method="online")``, one ``partial_fit`` per minibatch."""

    def __init__(self, train: sp.csr_matrix, settings: Settings):
        from sklearn.decomposition import LatentDirichletAllocation

        self.name = "sklearn"
        self.train = train  # sliced and converted to float64, the dtype it works in, by prepare()
        self.model = LatentDirichletAllocation(
            n_components=settings.n_topics,
            doc_topic_prior=settings.alpha,
            topic_word_prior=settings.eta,
            learning_method="online",
            learning_decay=settings.kappa,
            learning_offset=settings.tau,  # its first update is n_batch_iter_ = 1: rho_1 = (tau + 1) ** -kappa
            batch_size=settings.batch_size,
            total_samples=train.shape[0],
            max_doc_update_iter=settings.local_max_iter,
            mean_change_tol=settings.local_tol,
            evaluate_every=-1,
            n_jobs=1,
            random_state=settings.seed,
        )
        if settings.initial_topics is not None:
            from sklearn.decomposition._online_lda_fast import _dirichlet_expectation_2d

            # what partial_fit does on its first call, then its lambda replaced by the shared start
            self.model._init_latent_vars(train.shape[1], dtype=np.float64)
            self.model.n_features_in_ = train.shape[1]
            self.model.components_ = np.array(settings.initial_topics, dtype=np.float64)
            self.model.exp_dirichlet_component_ = np.exp(_dirichlet_expectation_2d(self.model.components_))

    def prepare(self, rows: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix(self.train[rows], dtype=np.float64)

    def fit_prepared(self, batch: sp.csr_matrix) -> None:
        self.model.partial_fit(batch)

    def partial_fit(self, rows: np.ndarray) -> None:
        self.fit_prepared(self.prepare(rows))

    def topic_word(self) -> np.ndarray:
        return np.asarray(self.model.components_, dtype=np.float64)


class GensimLDA:
    """gensim's ``LdaModel`` (online: update_every=1), one ``update`` call per minibatch.

    gensim's own schedule differs from the paper's in two ways, both pinned here
    before each call so that it runs the same algorithm as the others:

    - its step size is (offset + n_updates) ** -decay with n_updates counted from
      0 (``num_updates / chunksize``), so offset = tau + 1 gives (tau + t) ** -kappa;
    - it scales a minibatch's statistics to ``state.numdocs``, the documents it
      has been given so far (2D in the second epoch, ...), not to the corpus size
      D; setting ``state.numdocs = D - len(rows)`` before ``update`` (which adds
      len(rows)) makes the scale D / S, as in SVI.

    Documents go in in gensim's own bag-of-words format (lists of (id, count)),
    converted once beforehand, not during timing.  float64 like the others.
    """

    def __init__(self, train: sp.csr_matrix, settings: Settings, bow: list[list[tuple[int, int]]]):
        from gensim.models import LdaModel

        logging.getLogger("gensim").setLevel(logging.ERROR)
        self.name = "gensim"
        self.settings = settings
        self.n_docs = train.shape[0]
        self.bow = bow
        self.updates = 0
        self.model = LdaModel(
            corpus=None,
            num_topics=settings.n_topics,
            id2word={i: str(i) for i in range(train.shape[1])},
            chunksize=settings.batch_size,
            passes=1,
            update_every=1,
            alpha=settings.alpha,
            eta=settings.eta,
            decay=settings.kappa,
            offset=settings.tau + 1.0,
            eval_every=None,
            iterations=settings.local_max_iter,
            gamma_threshold=settings.local_tol,
            random_state=settings.seed,
            dtype=np.float64,
        )
        if settings.initial_topics is not None:
            # gensim's lambda is eta + sstats
            self.model.state.sstats[...] = settings.initial_topics - settings.eta
            self.model.sync_state()

    def prepare(self, rows: np.ndarray) -> list[list[tuple[int, int]]]:
        return [self.bow[i] for i in rows]

    def partial_fit(self, rows: np.ndarray) -> None:
        self.fit_prepared(self.prepare(rows))

    def fit_prepared(self, chunk: list[list[tuple[int, int]]]) -> None:
        s = self.settings
        self.model.state.numdocs = self.n_docs - len(chunk)
        self.model.num_updates = self.updates * s.batch_size  # rho = (tau + 1 + updates) ** -kappa
        self.model.update(
            chunk,
            chunksize=s.batch_size,
            decay=s.kappa,
            offset=s.tau + 1.0,
            passes=1,
            update_every=1,
            eval_every=None,
            iterations=s.local_max_iter,
            gamma_threshold=s.local_tol,
        )
        self.updates += 1

    def topic_word(self) -> np.ndarray:
        return np.asarray(self.model.state.get_lambda(), dtype=np.float64)


def gensim_bow(train: sp.csr_matrix) -> list[list[tuple[int, int]]]:
    """The training documents in gensim's format: per document, a list of (word id, count)."""
    train = sp.csr_matrix(train)
    return [
        list(zip(train.indices[a:b].tolist(), train.data[a:b].tolist(), strict=True))
        for a, b in zip(train.indptr[:-1], train.indptr[1:], strict=True)
    ]


class HDPSettings:
    """The HDP settings every system shares (the paper's names; K and T as in ``engine.HDP``).

    ``n_topics`` is the corpus-level truncation K and ``doc_truncation`` the
    document-level truncation T.  gensim's ``HdpModel`` names them the other way
    round (its ``T`` is the corpus level, its ``K`` the document level).
    """

    def __init__(
        self,
        n_topics: int,
        doc_truncation: int,
        batch_size: int,
        kappa: float,
        tau: float,
        alpha: float,
        gamma: float,
        eta: float,
        seed: int,
    ):
        self.n_topics = n_topics
        self.doc_truncation = doc_truncation
        self.batch_size = batch_size
        self.kappa = kappa
        self.tau = tau
        self.alpha = alpha
        self.gamma = gamma
        self.eta = eta
        self.seed = seed


def hdp_from_globals(settings: HDPSettings, topics: np.ndarray, sticks: np.ndarray) -> engine.HDP:
    """An ``engine.HDP`` (float64, default local inference) holding the given lambda (K, V) and sticks (K - 1, 2)."""
    model = engine.HDP(
        n_topics=settings.n_topics,
        n_words=topics.shape[1],
        doc_truncation=settings.doc_truncation,
        alpha=settings.alpha,
        omega=settings.gamma,  # gensim and the paper call it gamma and omega
        eta=settings.eta,
        seed=settings.seed,
    )
    model.lambda_ = topics
    model.sticks_ = sticks
    return model


class EngineHDP(_EngineSystem):
    """This project's ``engine.HDP`` (its defaults), one SVI step per prepared minibatch (see ``_EngineSystem``)."""

    def __init__(self, train: sp.csr_matrix, settings: HDPSettings, threads: int | None = 1,
                 dtype: str | None = None):
        """``dtype`` unset: the HDP's default (float32)."""
        model = engine.HDP(
            n_topics=settings.n_topics,
            doc_truncation=settings.doc_truncation,
            n_words=train.shape[1],
            alpha=settings.alpha,
            omega=settings.gamma,
            eta=settings.eta,
            seed=settings.seed,
            dtype=dtype,
        )
        self.name = "engine HDP" + ("" if dtype is None else f" [{model.dtype}]")
        super().__init__(model, train, settings, threads)

    def finish_epoch(self) -> None:
        """Nothing to do: the engine's topics are always current."""

    def model_for_evaluation(self) -> engine.HDP:
        return self.model


class GensimHDP:
    """gensim's ``HdpModel`` (Wang, Paisley & Blei's online HDP), one ``update_chunk`` per minibatch.

    Settings map as K (corpus level) -> gensim ``T``, T (document level) ->
    gensim ``K``; chunksize = S, kappa, tau, alpha, gamma, eta as given.  Its
    step size is ``(m_tau + m_updatect) ** -kappa`` with ``m_tau = tau + 1`` and
    ``m_updatect`` counted from 0, i.e. rho_t = (tau + t) ** -kappa with t = 1,
    2, ... already, and it scales a chunk's statistics by ``m_D / len(chunk)``,
    i.e. D / S: no schedule adjustment is needed (unlike ``LdaModel``).

    Two things differ from calling ``HdpModel(corpus, ...)`` and are set here:

    - built without a corpus, gensim takes D = 0 and its random start
      ``Gamma(1, 1) * D * 100 / (T V) - eta`` collapses to lambda + eta = 0;
      the adapter sets ``m_D = D`` and redraws that start from a fresh
      ``RandomState(seed)``, exactly what the constructor would have drawn
      given the D training documents;
    - each minibatch goes to ``update_chunk`` (plus the ``m_num_docs_processed``
      count), the body of ``update()``'s loop.  ``update()`` itself cannot take
      one minibatch at a time: without ``max_chunks`` it cycles over the given
      documents until D have been processed in total, and with
      ``max_chunks=1`` it ends every call with ``update_expectations()`` (a
      Python loop over all V words, about 0.1 s on AP against about 0.3 s for
      the chunk), ``hdp_to_lda()`` and ``print_topics()``, which ``update(corpus)``
      does once per pass.  ``finish_epoch()`` does that once-per-pass work
      (``update_expectations``, ``hdp_to_lda``; not the printing), timed as
      training.  Fed one epoch's minibatches in order, this reproduces
      ``HdpModel(corpus_in_that_order, ...)``'s topics.

    gensim's own local step is kept as it is: all T atoms start uniform, the
    first 3 iterations leave out the stick terms, and a document stops at a
    relative ELBO change of ``var_converge`` (1e-4) or 100 iterations; it
    reorders topics by their word mass (``optimal_ordering``) after every step.
    """

    def __init__(self, train: sp.csr_matrix, settings: HDPSettings, bow: list[list[tuple[int, int]]]):
        from gensim import utils
        from gensim.matutils import dirichlet_expectation
        from gensim.models import HdpModel

        logging.getLogger("gensim").setLevel(logging.ERROR)
        self.name = "gensim HDP"
        self.settings = settings
        self.bow = bow
        n_docs, n_words = train.shape
        model = HdpModel(
            corpus=None,
            id2word={i: str(i) for i in range(n_words)},
            chunksize=settings.batch_size,
            kappa=settings.kappa,
            tau=settings.tau,
            K=settings.doc_truncation,  # gensim's K: document-level truncation
            T=settings.n_topics,  # gensim's T: corpus-level truncation
            alpha=settings.alpha,
            gamma=settings.gamma,
            eta=settings.eta,
            random_state=settings.seed,
        )
        # the start HdpModel(corpus) draws: lambda + eta ~ Exponential(mean D * 100 / (T V)), gensim's T = our K
        model.m_D = n_docs
        model.random_state = utils.get_random_state(settings.seed)
        shape = (settings.n_topics, n_words)
        model.m_lambda = model.random_state.gamma(1.0, 1.0, shape) * n_docs * 100 / (shape[0] * n_words) - model.m_eta
        model.m_Elogbeta = dirichlet_expectation(model.m_eta + model.m_lambda)
        model.m_lambda_sum = np.sum(model.m_lambda, axis=1)
        self.model = model

    def prepare(self, rows: np.ndarray) -> list[list[tuple[int, int]]]:
        return [self.bow[i] for i in rows]

    def partial_fit(self, rows: np.ndarray) -> None:
        self.fit_prepared(self.prepare(rows))

    def fit_prepared(self, chunk: list[list[tuple[int, int]]]) -> None:
        self.model.update_chunk(chunk)
        self.model.m_num_docs_processed += len(chunk)

    def finish_epoch(self) -> None:
        """What ``update(corpus)`` does at the end of a pass: bring every lambda column up to date."""
        self.model.update_expectations()
        self.model.lda_alpha, self.model.lda_beta = self.model.hdp_to_lda()

    def model_for_evaluation(self) -> engine.HDP:
        """gensim keeps lambda - eta (``m_lambda``) and sticks as a (2, K - 1) array."""
        if not self.model.m_status_up_to_date:
            self.model.update_expectations()
        return hdp_from_globals(self.settings, self.model.m_lambda + self.model.m_eta, self.model.m_var_sticks.T)
