"""A trained model as pyLDAvis' input (Sievert & Shirley 2014's LDAvis, ported to Python).

:func:`ldavis_inputs` computes the five arrays ``pyLDAvis.prepare`` takes (it needs no
pyLDAvis, so the explorer uses it too); :func:`to_pyldavis` hands them to pyLDAvis, an
optional dependency imported only there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from engine.errors import VocabularyMismatchError
from engine.models.hdp import HDP
from engine.validation import as_counts, check_topic_indices

__all__ = ["LDAvisInputs", "ldavis_inputs", "ldavis_topics", "to_pyldavis"]

IN_USE_MASS = 0.95  # the HDP's topics in use explain this share of the words (as the explorer's "Topics in use")


class LDAvisInputs(NamedTuple):
    """The arrays of ``pyLDAvis.prepare`` for a model and a corpus, plus the model's topic of each row.

    Attributes
    ----------
    topic_term_dists : ndarray of shape (n_shown, n_words)
        p(w | k) of each shown topic, float64 rows summing to 1.
    doc_topic_dists : ndarray of shape (n_docs, n_shown)
        Each document's proportions of the shown topics, float64 rows summing to 1.
    doc_lengths : ndarray of shape (n_docs,)
        Number of words of each document (the corpus's row sums).
    vocab : list of str
        The word of each column.
    term_frequency : ndarray of shape (n_words,)
        Occurrences of each word in the corpus (its column sums).
    topics : ndarray of shape (n_shown,)
        The model's (0-based) topic number of each row of ``topic_term_dists``.
    """

    topic_term_dists: np.ndarray
    doc_topic_dists: np.ndarray
    doc_lengths: np.ndarray
    vocab: list[str]
    term_frequency: np.ndarray
    topics: np.ndarray

    def prepare_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``pyLDAvis.prepare`` (everything but ``topics``)."""
        arguments = self._asdict()
        del arguments["topics"]
        return arguments


def ldavis_topics(model: Any, topics: Sequence[int] | None = None) -> np.ndarray:
    """The topics a map of ``model`` shows: ``topics`` checked, or by default every LDA topic and the HDP's in use.

    The HDP's topics in use are the fewest, by share of the words, that explain 95% of
    them (at least two when the model has two), in topic-number order (not by share).
    """
    n_topics = model.n_topics
    if topics is not None:  # in the order given: the map's order
        return check_topic_indices(topics, n_topics, distinct=True)
    if not isinstance(model, HDP):
        return np.arange(n_topics)
    shares = model.word_shares()
    n_shown = max(min(2, n_topics), model.topics_covering(IN_USE_MASS, by="words"))
    return np.sort(np.argsort(-shares, kind="stable")[:n_shown])


def _normalised_rows(matrix: np.ndarray) -> np.ndarray:
    rows = np.asarray(matrix, dtype=np.float64)
    sums = rows.sum(axis=1, keepdims=True)
    # a document whose proportions all lie in hidden topics (never seen in practice: every
    # proportion is positive) is spread evenly rather than divided by zero
    return np.where(sums > 0, rows / np.where(sums > 0, sums, 1.0), 1.0 / rows.shape[1])


def ldavis_inputs(model: Any, corpus: Any, topics: Sequence[int] | None = None) -> LDAvisInputs:
    """The numbers pyLDAvis (and the explorer's intertopic map) need, from a trained model and a corpus.

    Topic-word distributions are E[beta_k] (``model.expected_topics()``); document-topic
    distributions are ``model.transform(corpus)`` restricted to the shown topics and
    renormalised; document lengths and term frequencies are the corpus's row and column sums.

    Parameters
    ----------
    model : LDA or HDP
        A model with topics (fitted or trained by :class:`engine.SVI`).
    corpus : Corpus
        Documents over the model's vocabulary, usually those it was trained on
        (``engine.Corpus.from_texts(...)``); its ``vocabulary`` names the words.
    topics : sequence of int, optional
        The model's topics to show, in this order.  Unset: every topic of an LDA; for an
        HDP, the topics in use (the fewest explaining 95% of the words, at least two),
        in topic-number order.

    Returns
    -------
    LDAvisInputs
        ``pyLDAvis.prepare(**inputs.prepare_arguments())`` accepts it.

    Raises
    ------
    NotFittedError
        The model has no topics yet.
    VocabularyMismatchError
        The corpus has another number of words than the model, or other words than it was fitted on.
    TypeError
        ``corpus`` is not a Corpus (it has no vocabulary).
    """
    vocabulary = getattr(corpus, "vocabulary", None)
    if vocabulary is None:
        raise TypeError(f"corpus must be an engine.Corpus (counts with a vocabulary), got {type(corpus).__name__}; "
                        "build one with engine.Corpus.from_texts(texts) or engine.Corpus.from_counts(...)")
    topic_word = model.expected_topics()  # raises NotFittedError without topics
    counts = as_counts(corpus, model.n_words, name="corpus")
    vocab = [str(word) for word in vocabulary]
    fitted = getattr(model, "feature_names_in_", None)
    if fitted is not None and [str(word) for word in fitted] != vocab:
        raise VocabularyMismatchError("the corpus's vocabulary differs from the words the model was fitted on; "
                                      "pass the corpus the model was trained on")
    chosen = ldavis_topics(model, topics)
    return LDAvisInputs(
        topic_term_dists=_normalised_rows(topic_word[chosen]),
        doc_topic_dists=_normalised_rows(model.transform(counts)[:, chosen]),
        doc_lengths=np.asarray(counts.sum(axis=1), dtype=np.int64).ravel(),
        vocab=vocab,
        term_frequency=np.asarray(counts.sum(axis=0), dtype=np.int64).ravel(),
        topics=chosen,
    )


def to_pyldavis(model: Any, corpus: Any, **prepare_options: Any) -> Any:
    """pyLDAvis' prepared data of a trained LDA or HDP, for ``pyLDAvis.prepared_data_to_html`` or ``display``.

    The inputs are :func:`ldavis_inputs` (an HDP shows its topics in use).  pyLDAvis numbers
    the topics 0, 1, ... in the order of ``ldavis_inputs(...).topics``: for an LDA its topic
    k is the model's topic k ("Topic k" in the explorer, which numbers topics from 0 too);
    for an HDP its topic j is the model's topic ``ldavis_inputs(model, corpus).topics[j]``.

    Parameters
    ----------
    model : LDA or HDP
        A model with topics.
    corpus : Corpus
        Documents over the model's vocabulary (usually its training documents).
    **prepare_options
        Passed on to ``pyLDAvis.prepare`` (``R``, ``lambda_step``, ``mds``, ``plot_opts``...).
        Defaults here: ``n_jobs=1`` (pyLDAvis' -1 takes every core), ``sort_topics=False`` and
        ``start_index=0`` (keep the model's topic order and numbers rather than renumber by size from 1).

    Returns
    -------
    pyLDAvis.PreparedData

    Raises
    ------
    ImportError
        pyLDAvis is not installed.

    Examples
    --------
    >>> import pyLDAvis  # doctest: +SKIP
    >>> corpus = engine.Corpus.from_texts(texts)  # doctest: +SKIP
    >>> model = engine.LDA(n_topics=10, seed=0).fit(corpus)  # doctest: +SKIP
    >>> html = pyLDAvis.prepared_data_to_html(engine.to_pyldavis(model, corpus))  # doctest: +SKIP
    """
    try:
        import pyLDAvis
    except ImportError as exc:
        raise ImportError(f"to_pyldavis needs pyLDAvis: pip install pyLDAvis ({exc})") from None
    inputs = ldavis_inputs(model, corpus)
    options = {"n_jobs": 1, "sort_topics": False, "start_index": 0, **prepare_options}
    return pyLDAvis.prepare(**inputs.prepare_arguments(), **options)
