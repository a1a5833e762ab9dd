"""The scikit-learn face of LDA and the HDP: arguments kept as given, ``fit``, ``partial_fit``, ``score``.

scikit-learn asks three things of an estimator's constructor arguments: ``__init__``
stores each one as given and does nothing else; ``get_params`` returns those very
objects (``sklearn.base.clone`` checks identity); and ``fit`` never changes them.  The
engine's models also promise that reading an argument gives the value in use
(``LDA().alpha`` is 0.2, the preset's choice, not None; with ``learn_alpha`` it is the
learned prior).  :class:`Param` reconciles the two: the instance keeps each argument
as given in its ``__dict__``, which ``get_params`` reads, and reading the attribute
gives the validated value with the preset filled in.  Validation happens when a value
is first used (``fit``, ``engine.SVI``, any read), so ``set_params`` and ``__init__``
never raise, as scikit-learn requires.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from engine.errors import NotFittedError
from engine.inference.evaluation import predictive_log_likelihood
from engine.inference.heldout import split_words
from engine.inference.schedule import DEFAULT_KAPPA, DEFAULT_TAU
from engine.inference.svi import SVI, minibatch_update, scheduled_rho
from engine.models._inputs import as_documents, check_same_words


class Param:
    """A constructor argument: stored as given, read back as the value in use.

    Assigning (in ``__init__``, by ``set_params`` or directly: ``model.kernel = "numpy"``)
    stores the object itself in the instance's ``__dict__`` and drops the values
    resolved from the previous arguments; reading returns ``model._setting(name)``.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, model: Any, owner: type | None = None) -> Any:
        if model is None:
            return self
        return model._setting(self.name)

    def __set__(self, model: Any, value: Any) -> None:
        model.__dict__[self.name] = value
        model._argument_changed(self.name)


class TopicEstimator(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """scikit-learn's estimator contract for the topic models (base of :class:`engine.models._base.TopicModel`).

    Subclasses declare every constructor argument as a :class:`Param`, resolve them in
    ``_resolve_arguments`` (validation, presets), and define ``initialize``,
    ``local_step``, ``global_step``, ``_reset_state`` and ``_proportions``.
    """

    n_topics: int
    n_words: int | None
    seed: int
    n_epochs: int
    total_samples: int
    _topics: Any

    # ------------------------------------------------------------ arguments
    @classmethod
    def _get_param_names(cls) -> list[str]:
        """The arguments: the class's :class:`Param` attributes (a deprecated alias is not one), sorted."""
        return sorted(name for klass in cls.__mro__ for name, value in vars(klass).items() if isinstance(value, Param))

    def get_params(self, deep: bool = True) -> dict:
        """The constructor arguments exactly as given, as scikit-learn's ``get_params``.

        ``sklearn.base.clone``, ``set_params`` and grid searches rely on this.  ``deep``
        is accepted for scikit-learn; the models hold no nested estimators.
        :meth:`settings` gives the values in use.
        """
        return {name: self.__dict__[name] for name in self._get_param_names()}

    def settings(self) -> dict:
        """The values in use, JSON-able: every argument validated, the preset filled in.

        ``n_words`` is the vocabulary size (taken from the data when the argument is
        unset); a learned prior (``learn_alpha``, ``learn_eta``) is its current value.
        Model files store these, so a model loads with the settings it was trained
        with even if a default changes later.
        """
        values = {name: getattr(self, name) for name in self._get_param_names()}
        return {name: value.tolist() if isinstance(value, np.ndarray) else value for name, value in values.items()}

    def _resolve_arguments(self) -> dict:  # pragma: no cover - each model defines its own
        raise NotImplementedError

    def _settings(self) -> dict:
        """The arguments validated and resolved, computed once per set of arguments."""
        resolved = self.__dict__.get("_resolved")
        if resolved is None:
            resolved = self._resolve_arguments()
            self._resolved = resolved
        return resolved

    def _setting(self, name: str) -> Any:
        learned = self.__dict__.get("_learned", {})
        if name in learned:  # a prior the model learns (LDA's learn_alpha / learn_eta, the HDP's concentrations)
            return learned[name]
        value = self._settings()[name]
        if name == "n_words" and value is None and self._topics is not None:
            return self._topics.shape[1]  # taken from the training data
        return value

    def _argument_changed(self, name: str) -> None:
        self.__dict__.pop("_resolved", None)
        self.__dict__.get("_learned", {}).pop(name, None)  # assigning a prior replaces what was learned of it

    def _reset_state(self) -> None:
        """Forget everything learned: fit starts over from a random start."""
        for name in ("n_batch_iter_", "n_iter_", "feature_names_in_", "vectorizer_"):
            self.__dict__.pop(name, None)
        self._learned: dict = {}  # the priors learned so far, by argument name; empty when none is learned

    # ---------------------------------------------------------- scikit-learn
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True  # word counts
        try:
            dtype = self.dtype
        except ValueError:  # invalid arguments: fit will say which
            dtype = None
        # the output has the model's precision, whatever the input's
        tags.transformer_tags.preserves_dtype = [] if dtype is None else [dtype]
        return tags

    def __sklearn_is_fitted__(self) -> bool:
        return self._topics is not None

    @property
    def n_features_in_(self) -> int:
        """Number of words (columns) of the documents the model was trained on."""
        if self._topics is None:
            raise NotFittedError(f"this {type(self).__name__} has no topics yet; fit it first")
        return self.n_words

    @property
    def _n_features_out(self) -> int:  # names of transform's columns: lda0, lda1, ... (get_feature_names_out)
        if self._topics is None:
            raise NotFittedError(f"this {type(self).__name__} has no topics yet; fit it first")
        return self.n_topics

    @property
    def components_(self) -> np.ndarray:
        """The topics as scikit-learn names them: lambda, pseudo-counts of shape (n_topics, n_words).

        The same array as ``lambda_``; each row normalised is E[beta_k] (:meth:`expected_topics`).
        """
        if self._topics is None:
            raise NotFittedError(f"this {type(self).__name__} has no topics yet; fit it first")
        return self.lambda_

    def fit(self, X: Any, y: Any = None) -> TopicEstimator:
        """Train from a random start on the documents ``X``: ``n_epochs`` passes of SVI.

        The trainer is :class:`engine.SVI` with the engine's defaults (kappa =
        ``engine.DEFAULT_KAPPA``, tau = ``engine.DEFAULT_TAU``, minibatches of
        ``engine.DEFAULT_BATCH_SIZE`` documents or the whole corpus if smaller, an LDA's first
        pass in smaller ones (``first_pass_steps``), epoch-wise shuffling seeded by ``seed``);
        it stops after the minibatch that completes
        ``n_epochs`` passes.  Anything learned before is forgotten.

        Parameters
        ----------
        X : sparse matrix or array-like of shape (n_docs, n_words), Corpus, or gensim corpus
            Word counts: a CSR (or any sparse) matrix, a dense array, an
            :class:`engine.Corpus` or :class:`engine.DiskCorpus`, or a gensim
            bag-of-words corpus (lists of ``(word_id, count)`` pairs).  A corpus's
            vocabulary, or a data frame's column names, become ``feature_names_in_``.
        y : ignored
            Accepted for scikit-learn pipelines.

        Returns
        -------
        self
        """
        self._fit_counts(self._start_fit(X))
        return self

    def _start_fit(self, X: Any) -> Any:
        self._settings()  # invalid arguments are reported before the data
        self._reset_state()
        return self._documents(X, reset=True, method="fit")

    def _fit_counts(self, counts: Any) -> None:
        n_docs = counts.shape[0]
        trainer = SVI(self, counts, seed=self.seed)  # S: DEFAULT_BATCH_SIZE, or every document if fewer
        trainer.run(n_docs=self.n_epochs * n_docs)
        self.n_batch_iter_ = trainer.t  # SVI updates made
        self.n_iter_ = self.n_epochs  # passes over X

    def partial_fit(self, X: Any, y: Any = None) -> TopicEstimator:
        """One SVI update on the minibatch ``X``, as scikit-learn's online LDA.

        Update t (``n_batch_iter_``, counting those of :meth:`fit`) uses rho_t = (t +
        ``engine.DEFAULT_TAU``) ** -``engine.DEFAULT_KAPPA`` and scales the minibatch's
        statistics by ``total_samples`` / S, as if the corpus were the minibatch
        repeated: the same update as ``engine.SVI(...).step()`` on a corpus of
        ``total_samples`` documents.  The first call (on a model without topics)
        starts from a random start; a model trained by :class:`engine.SVI` counts from
        t = 1.

        Parameters
        ----------
        X : sparse matrix, array-like, Corpus or gensim corpus
            The minibatch's word counts (see :meth:`fit`), at most ``total_samples``
            documents.
        y : ignored

        Returns
        -------
        self
        """
        first = self._topics is None
        if first:
            self._settings()
            self._reset_state()
        counts = self._documents(X, reset=first, method="partial_fit")
        total = self.total_samples
        if counts.shape[0] > total:
            raise ValueError(f"total_samples must be at least the number of documents of a minibatch "
                             f"({counts.shape[0]}), got {total!r}")
        if first:
            self.initialize(total, n_words=counts.shape[1], documents=counts)
        t = self.__dict__.get("n_batch_iter_", 0) + 1
        minibatch_update(self, counts, t, total, scheduled_rho(self, t, DEFAULT_KAPPA, DEFAULT_TAU), self.seed)
        self.n_batch_iter_ = t
        return self

    def transform(self, X: Any) -> np.ndarray:
        """Document-topic proportions E[theta_d] of any documents, rows summing to 1.

        Each document's local parameters are fitted against the current topics (the
        model is not changed); documents are independent of each other.

        Parameters
        ----------
        X : sparse matrix, array-like, Corpus or gensim corpus
            Word counts over the model's vocabulary (see :meth:`fit`).

        Returns
        -------
        ndarray of shape (n_docs, n_topics)
            In the model's ``dtype``; an empty document gets proportions from the prior alone.
        """
        self._require_topics()
        return self._proportions(self._documents(X, reset=False, method="transform"))

    def fit_transform(self, X: Any, y: Any = None) -> np.ndarray:
        """:meth:`fit` on ``X``, then its :meth:`transform` (``X`` is read once, so a stream works)."""
        counts = self._start_fit(X)
        self._fit_counts(counts)
        return self._proportions(counts)

    def score(self, X: Any, y: Any = None) -> float:
        """Per-word held-out log likelihood of the documents ``X`` (higher is better).

        The paper's measure (Hoffman et al. 2013, "document completion"): each
        document's distinct words are split at random (seeded by ``seed``) into 80%
        observed and 20% held out; its topic proportions are fitted on the observed
        words and each held-out word is scored by log sum_k E[theta_dk] E[beta_kw], as
        :func:`engine.predictive_log_likelihood`.  Chosen over the ELBO because it is
        comparable between LDA and the HDP and across numbers of topics, measures
        prediction of unseen words, and does not depend on how tight the local bound
        is: the default zero-order local step does not maximise the ELBO.  Documents
        with fewer than two distinct words are skipped.

        Parameters
        ----------
        X : sparse matrix, array-like, Corpus or gensim corpus
            Word counts over the model's vocabulary, preferably documents not trained on.
        y : ignored

        Returns
        -------
        float
            Mean log probability per held-out word (natural log).
        """
        self._require_topics()
        observed, heldout = split_words(self._documents(X, reset=False, method="score"), seed=self.seed)
        return predictive_log_likelihood(self, observed, heldout)

    # ------------------------------------------------------------- input
    def _documents(self, X: Any, *, reset: bool, method: str) -> Any:
        """``X`` as CSR counts (an on-disk corpus as it is, for fit), checked as scikit-learn checks input.

        With ``reset`` (fit, the first partial_fit) the vocabulary's names are kept
        in ``feature_names_in_``; otherwise ``X`` must have the model's number of words
        and, if it names them, the same words.
        """
        expected = self._settings()["n_words"] if reset else self.n_words
        counts, words = as_documents(X, n_words=expected, estimator=self, method=method)
        if reset:
            self.__dict__.pop("feature_names_in_", None)
            self.__dict__.pop("vectorizer_", None)
            if words is not None:
                self.feature_names_in_ = np.asarray(words, dtype=object)
            if getattr(X, "vectorizer", None) is not None:  # a corpus built from text: for transform_texts
                self.vectorizer_ = X.vectorizer
        elif words is not None and "feature_names_in_" in self.__dict__:
            check_same_words(words, list(self.feature_names_in_), type(self).__name__)
        return counts
