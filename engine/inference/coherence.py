"""Topic coherence of top-word lists against a reference corpus: NPMI and UMass.

Both measures count documents: a word "occurs" in a document when its count there
is positive, and two words "co-occur" when both do.  The reference corpus is turned
into a word-by-document incidence matrix once (:class:`CoherenceReference`); scoring
a set of topics then costs one sparse product over the columns of their top words.

The arithmetic follows gensim's ``CoherenceModel`` (``gensim.topic_coherence``), so
the numbers can be compared with it: ``"npmi"`` is its ``c_npmi`` with a window as
long as the longest document (each document is one window) and ``"umass"`` is its
``u_mass``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from engine.errors import VocabularyMismatchError
from engine.validation import as_counts, check_choice, check_int

__all__ = ["CoherenceReference", "topic_coherence"]

# gensim's epsilon inside the logarithms (gensim.topic_coherence.direct_confirmation_measure.EPSILON,
# the value Röder et al. 2015 suggest): it keeps log P(wi, wj) finite for pairs that never co-occur.
_EPSILON = 1e-12

# At most this many distinct words go into one co-occurrence product, so the dense
# block of pair counts stays small (2048 x 2048 int32 = 16 MB); more topics are scored in chunks.
_MAX_WORDS_PER_PRODUCT = 2048


class CoherenceReference:
    """Document co-occurrence statistics of a reference corpus, for scoring topics' top words.

    Implements two topic-coherence measures: NPMI averaged over word pairs (Bouma 2009,
    "Normalized (pointwise) mutual information in collocation extraction"; as a coherence
    measure Aletras & Stevenson 2013 and Lau, Newman & Baldwin 2014) and UMass (Mimno,
    Wallach, Talley, Leenders & McCallum 2011, "Optimizing semantic coherence in topic
    models"), with the conventions of gensim's ``CoherenceModel`` (Röder, Both &
    Hinneburg 2015, "Exploring the space of topic coherence measures").

    The corpus is read once into a boolean word-by-document incidence matrix (CSR, one
    row per word) with the document frequencies beside it; :meth:`score` then gathers
    the rows of the topics' top words and counts every pair's shared documents in a
    single sparse product.

    Parameters
    ----------
    X : Corpus or sparse matrix of shape (n_docs, n_words)
        Reference corpus of word counts; only whether a count is positive matters.
        Typically the training corpus or a larger corpus of the same vocabulary.
    n_words : int, optional
        Expected vocabulary size; a corpus with another number of columns raises
        :class:`~engine.VocabularyMismatchError`.

    Attributes
    ----------
    n_docs : int
        Number of reference documents (empty documents included: they count in the
        denominators of the probabilities, as in gensim).
    n_words : int
        Vocabulary size.
    document_frequency : ndarray of shape (n_words,)
        Number of reference documents containing each word (read-only).
    measures : tuple of str
        The accepted values of ``measure``: ``("npmi", "umass")``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> reference = CoherenceReference(sp.csr_matrix([[1, 2, 0], [1, 0, 1], [0, 3, 0]]))
    >>> reference.score([[0, 1], [1, 2]]).round(3)
    array([-0.262, -0.946])
    >>> reference.score([[0, 1], [1, 2]], measure="umass").round(3)
    array([ -0.693, -27.226])
    """

    measures = ("npmi", "umass")

    def __init__(self, X, n_words: int | None = None) -> None:
        counts = as_counts(X, n_words, name="X")
        # row w lists the documents that contain word w; ones in int32 because a product
        # of boolean sparse matrices would give logical or, not counts
        word_docs = sp.csr_matrix(counts.T > 0, dtype=np.int32)
        word_docs.sort_indices()
        self._word_docs = word_docs
        self.n_docs, self.n_words = (int(size) for size in counts.shape)
        self.document_frequency = np.diff(word_docs.indptr).astype(np.int64)
        self.document_frequency.flags.writeable = False

    def score(self, top_words, measure: str = "npmi") -> np.ndarray:
        """Coherence of each topic's top words.

        ``"npmi"``: the mean over the n(n-1)/2 unordered pairs of top words of

            NPMI(wi, wj) = log((P(wi, wj) + eps) / (P(wi) P(wj))) / -log(P(wi, wj) + eps),

        with P(w) and P(wi, wj) the fractions of reference documents that contain w,
        and both words, and eps = 1e-12 as in gensim: a pair that never co-occurs
        scores just above -1, a pair whose words always occur together scores 1
        (to within about eps).  Two cases where that formula breaks down are defined
        here, where gensim gives non-finite or misleading values: a pair with a word
        found in no reference document scores -1 (gensim divides by zero), and a
        pair of words that are both in every reference document scores 1 (the
        formula gives 0 / 0 without eps and about -1 with it).

        ``"umass"``: for word wi ranked below wj (i > j, most probable word first,
        gensim's ``s_one_pre`` segmentation), the mean over the n(n-1)/2 pairs of

            log((D(wi, wj) / n_docs + eps) / (D(wj) / n_docs)),

        with D the document counts: gensim's ``u_mass`` exactly, which smooths with
        eps rather than the +1 of Mimno et al.'s log((D(wi, wj) + 1) / D(wj)), so
        a pair that never co-occurs scores about log(eps) = -27.6 rather than
        log(1 / D(wj)).  A pair whose higher-ranked word wj is in no reference document
        scores 0, as in gensim.

        Parameters
        ----------
        top_words : array-like of int, of shape (n_topics, n)
            Word indices of each topic's n >= 2 top words, most probable first (the
            order matters for ``"umass"`` only), as returned by a model's
            ``top_words(n)``.  A word may appear once per topic.
        measure : {"npmi", "umass"}
            Coherence measure; higher is more coherent for both.

        Returns
        -------
        ndarray of shape (n_topics,)
            Coherence of each topic, in the order of ``top_words``; always finite.
        """
        check_choice("measure", measure, self.measures)
        words = _check_top_words(top_words, self.n_words)
        n_topics, n_top = words.shape
        # gensim's pair order: (i, j) for i = 1 .. n-1, j = 0 .. i-1; wi is W', wj is W*
        later, earlier = np.tril_indices(n_top, -1)
        coherence = np.empty(n_topics, dtype=np.float64)
        chunk = max(1, _MAX_WORDS_PER_PRODUCT // n_top)
        for start in range(0, n_topics, chunk):
            block = words[start : start + chunk]
            distinct, position = np.unique(block, return_inverse=True)
            position = position.reshape(block.shape)
            rows = self._word_docs[distinct]
            # co_docs[a, b] = number of reference documents holding both distinct[a] and distinct[b]
            co_docs = (rows @ rows.T).toarray()
            prime, star = position[:, later], position[:, earlier]
            pair_docs = co_docs[prime, star]
            frequency = self.document_frequency[distinct]
            if measure == "npmi":
                values = _npmi(pair_docs, frequency[prime], frequency[star], self.n_docs)
            else:
                values = _umass(pair_docs, frequency[star], self.n_docs)
            coherence[start : start + chunk] = values.mean(axis=1)
        return coherence

    def score_model(self, model, n_top: int = 10, measure: str = "npmi") -> np.ndarray:
        """Coherence of each topic of a trained model, from its ``n_top`` most probable words.

        Parameters
        ----------
        model : LDA or HDP
            A trained model over the reference corpus's vocabulary (any object with
            ``n_words`` and ``top_words(n)``).
        n_top : int
            Number of top words per topic, >= 2 (at most the vocabulary size is used).
        measure : {"npmi", "umass"}
            Coherence measure, see :meth:`score`.

        Returns
        -------
        ndarray of shape (n_topics,)
            Coherence of each topic, in the model's topic order.
        """
        n_top = check_int("n_top", n_top, 2)
        check_choice("measure", measure, self.measures)
        if model.n_words != self.n_words:
            raise VocabularyMismatchError(
                f"the model has n_words={model.n_words} but the reference corpus has {self.n_words} words "
                "(columns); score a model with the reference corpus's vocabulary"
            )
        return self.score(model.top_words(n_top), measure=measure)


def topic_coherence(model, X, n_top: int = 10, measure: str = "npmi") -> np.ndarray:
    """Coherence of each topic of a trained model against a reference corpus.

    A one-off shortcut for ``CoherenceReference(X, model.n_words).score_model(model, ...)``;
    to score repeatedly (say, while training), build the :class:`CoherenceReference` once.

    Parameters
    ----------
    model : LDA or HDP
        A trained model (any object with ``n_words`` and ``top_words(n)``).
    X : Corpus or sparse matrix of shape (n_docs, n_words)
        Reference corpus of word counts over the model's vocabulary.
    n_top : int
        Number of top words per topic, >= 2.
    measure : {"npmi", "umass"}
        Coherence measure, see :meth:`CoherenceReference.score`.

    Returns
    -------
    ndarray of shape (n_topics,)
        Coherence of each topic, in the model's topic order.
    """
    n_top = check_int("n_top", n_top, 2)
    check_choice("measure", measure, CoherenceReference.measures)
    return CoherenceReference(X, model.n_words).score_model(model, n_top=n_top, measure=measure)


def _check_top_words(top_words, n_words: int) -> np.ndarray:
    """Return ``top_words`` as an int64 (n_topics, n) array after checking shape, indices and repeats."""
    try:
        words = np.asarray(top_words)
    except ValueError as error:  # ragged nested lists
        raise ValueError(f"top_words must be an (n_topics, n) array of word indices: {error}") from None
    if words.ndim != 2:
        raise ValueError(f"top_words must be a 2-D (n_topics, n) array of word indices, got shape {words.shape}")
    if words.dtype == np.bool_ or not np.issubdtype(words.dtype, np.integer):
        raise ValueError(f"top_words must hold integer word indices, got dtype {words.dtype}")
    if words.shape[1] < 2:
        raise ValueError(
            f"top_words must give n >= 2 words per topic (coherence scores word pairs), got n={words.shape[1]}"
        )
    outside = (words < 0) | (words >= n_words)
    if outside.any():
        raise ValueError(f"top_words must hold word indices in [0, {n_words - 1}], got {int(words[outside][0])}")
    words = words.astype(np.int64, copy=False)
    ordered = np.sort(words, axis=1)
    repeated = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
    if repeated.size:
        raise ValueError(f"top_words must not repeat a word within a topic; topic {repeated[0]} does")
    return words


def _npmi(pair_docs: np.ndarray, prime_docs: np.ndarray, star_docs: np.ndarray, n_docs: int) -> np.ndarray:
    """NPMI of word pairs from document counts, in gensim's arithmetic (log_ratio_measure, normalize=True)."""
    measurable = (prime_docs > 0) & (star_docs > 0) & (pair_docs < n_docs)
    p_pair = pair_docs / float(n_docs)
    # P(wi) P(wj); 1 where a word is missing so the division below stays finite (those pairs are replaced)
    p_product = np.where(measurable, (prime_docs / float(n_docs)) * (star_docs / float(n_docs)), 1.0)
    # PMI = log((P(wi, wj) + eps) / (P(wi) P(wj))), normalised by -log(P(wi, wj) + eps), which is > 0
    # whenever some document lacks one of the two words
    npmi = np.log((p_pair + _EPSILON) / p_product) / -np.log(p_pair + _EPSILON)
    # a missing word never co-occurs (NPMI's lower bound, -1); two words in every document
    # always do (the upper bound, 1)
    return np.where(measurable, npmi, np.where(pair_docs >= n_docs, 1.0, -1.0))


def _umass(pair_docs: np.ndarray, star_docs: np.ndarray, n_docs: int) -> np.ndarray:
    """UMass term of word pairs (W' ranked below W*) in gensim's arithmetic (log_conditional_probability)."""
    present = star_docs > 0
    p_star = np.where(present, star_docs / float(n_docs), 1.0)
    # log P(W' | W*) = log((P(W', W*) + eps) / P(W*)); gensim scores 0 when W* is in no document
    return np.where(present, np.log((pair_docs / float(n_docs) + _EPSILON) / p_star), 0.0)
