"""A trained LDA as a gensim ``LdaModel``, for gensim's tools (coherence, similarity, pyLDAvis' gensim adapter).

gensim keeps the topics as ``state.sstats`` with lambda = eta + sstats (its
``LdaState.get_lambda``), the same Dirichlet parameters as the engine's ``lambda_``
(Hoffman, Blei & Bach 2010 is the algorithm of both), so the export copies lambda - eta
and the priors.  gensim is an optional dependency, imported only here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.data.gensim_corpus import vocabulary_of
from engine.errors import VocabularyMismatchError
from engine.models.lda import LDA

__all__ = ["to_gensim"]


def to_gensim(model: Any, id2word: Any = None) -> Any:
    """A ``gensim.models.LdaModel`` holding the topics and priors of a trained :class:`engine.LDA`.

    ``get_topics()`` of the result equals ``model.expected_topics()`` (up to gensim's
    float precision, which follows the model's ``dtype``), and gensim's inference
    (``get_document_topics``, ``model[bow]``) runs on the same lambda, alpha and eta.
    gensim's own training settings (passes, chunksize...) are its defaults.

    Parameters
    ----------
    model : LDA
        A model with topics (fitted or trained by :class:`engine.SVI`).
    id2word : gensim Dictionary, mapping or sequence of str, optional
        The word of each column.  Unset: the model's ``feature_names_in_`` when it was
        fitted on a Corpus or a data frame, else the column numbers as strings.

    Returns
    -------
    gensim.models.LdaModel

    Raises
    ------
    ImportError
        gensim is not installed.
    TypeError
        ``model`` is not an LDA model (the HDP's topics have no LdaModel counterpart).
    VocabularyMismatchError
        ``id2word`` does not have one word per column of the model.
    """
    try:
        from gensim.models import LdaModel
    except ImportError as exc:
        raise ImportError(f"to_gensim needs gensim (pip install gensim): {exc}") from None
    if not isinstance(model, LDA):
        raise TypeError(f"to_gensim exports engine.LDA models, got {type(model).__name__}")
    lambda_ = model.components_  # raises NotFittedError without topics
    n_topics, n_words = lambda_.shape
    if id2word is None:
        words = getattr(model, "feature_names_in_", None)
        words = [str(w) for w in range(n_words)] if words is None else [str(w) for w in words]
        id2word = dict(enumerate(words))
    elif not hasattr(id2word, "keys"):  # a list of words
        id2word = dict(enumerate(vocabulary_of(id2word)))
    if len(id2word) != n_words:
        raise VocabularyMismatchError(f"id2word has {len(id2word)} words but the model has {n_words} (n_words); "
                                      "pass the vocabulary the model was trained on")
    dtype = np.dtype(model.dtype).type
    alpha = np.broadcast_to(np.asarray(model.alpha, dtype=dtype), (n_topics,)).copy()
    eta = dtype(model.eta)
    exported = LdaModel(num_topics=n_topics, id2word=id2word, alpha=alpha, eta=eta, random_state=model.seed,
                        dtype=dtype)
    exported.state.sstats[...] = lambda_ - eta  # gensim's lambda is eta + sstats
    exported.sync_state()
    return exported
