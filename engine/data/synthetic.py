"""Synthetic corpora drawn from the generative process of latent Dirichlet allocation.

A synthetic corpus has known topics, so it shows what a topic model can and cannot
recover: train on it, then compare the learned topics with the true ones.  The process
is the one of Blei, Ng & Jordan (2003) that Hoffman, Blei, Wang & Paisley (2013)
fit by stochastic variational inference:

1. for each topic k, draw word proportions beta_k ~ Dirichlet(eta);
2. for each document d, draw topic proportions theta_d ~ Dirichlet(alpha) and a
   length N_d ~ Poisson(doc_length), conditioned on N_d >= 1 so no document is empty;
3. for each word of document d, draw a topic z ~ Categorical(theta_d) and then a
   word w ~ Categorical(beta_z).

Step 3 is drawn in its marginal form, counts_d ~ Multinomial(N_d, theta_d @ beta),
which has the same distribution over bags of words and needs no loop over words.

With ``readable=True`` the topics are recognisable themes ("space": planet, orbit,
rocket...): topic k is drawn from an asymmetric Dirichlet whose concentration is
``eta + 2`` on the words of its theme and ``eta`` elsewhere, so most of its mass lies on
the theme while a little noise is spread over the other words.  A few words belong to
two themes ("pitch" is music and sports, "bank" is finance and the outdoors) so that
topics overlap the way real ones do.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["SyntheticCorpus", "make_synthetic_corpus", "synthetic_themes"]

# Each theme is a recognisable topic.  The words are lower-case, at least two letters
# long and absent from scikit-learn's English stop-word list, so they pass unchanged
# through ``Corpus.from_texts``.  Words shared by two themes are deliberate.
_THEME_WORDS = {
    "space": (
        "planet orbit rocket astronaut galaxy telescope moon comet asteroid launch satellite "
        "gravity nebula star solar cosmic lunar mars shuttle spacecraft"
    ),
    "cooking": (
        "recipe oven flour butter garlic onion simmer bake sauce pepper salt kitchen chef dough "
        "roast boil spice pan tomato cheese"
    ),
    "sports": (
        "match goal team coach player league stadium score referee tournament season football "
        "tennis court pitch championship athlete ball trophy fans"
    ),
    "finance": (
        "market stock bond investor profit dividend credit debt inflation currency bank loan "
        "shares trading portfolio budget revenue tax fund capital"
    ),
    "music": (
        "guitar melody rhythm concert piano drum chord song band orchestra violin tempo lyrics "
        "album singer jazz harmony pitch note choir"
    ),
    "medicine": (
        "doctor patient hospital nurse vaccine surgery diagnosis symptom disease clinic therapy "
        "infection medicine dose pharmacy fever prescription treatment ward virus"
    ),
    "computing": (
        "software computer code program algorithm database server network keyboard laptop internet "
        "compiler bug debug memory processor cloud website password data"
    ),
    "weather": (
        "rain storm cloud snow wind thunder forecast temperature humidity sunny frost hurricane "
        "drizzle fog breeze climate lightning hail tornado umbrella"
    ),
    "law": (
        "judge lawyer jury trial verdict lawsuit attorney evidence witness statute appeal sentence "
        "prosecutor defendant contract justice crime police prison court"
    ),
    "outdoors": (
        "forest river mountain lake valley meadow bank waterfall hiking trail pine tree wildlife "
        "canyon glacier island waves coast cliff camping"
    ),
    "farming": (
        "tractor harvest wheat barn cattle crop soil farmer seed plough orchard dairy sheep "
        "pasture irrigation fertilizer hay corn barley goat"
    ),
    "travel": (
        "airport passport hotel luggage flight ticket tourist journey beach museum suitcase visa "
        "cruise resort guide holiday booking destination sightseeing map"
    ),
    "politics": (
        "election vote senate parliament campaign candidate president policy minister ballot "
        "democracy congress governor party debate reform legislation mayor treaty diplomat"
    ),
    "art": (
        "painting canvas sculpture gallery museum artist portrait brush exhibition palette "
        "watercolor drawing statue mural sketch easel pottery colour abstract studio"
    ),
    "biology": (
        "gene protein cell dna enzyme organism evolution species membrane molecule bacteria tissue "
        "chromosome mutation neuron genome fossil ecology microscope virus"
    ),
    "school": (
        "teacher student classroom homework exam lesson school pencil textbook library university "
        "lecture grade essay curriculum professor semester tuition campus diploma"
    ),
}
_THEMES: dict[str, tuple[str, ...]] = {name: tuple(words.split()) for name, words in _THEME_WORDS.items()}

# Dirichlet concentration added on a readable topic's own theme words.
_THEME_CONCENTRATION = 2.0
# Default vocabulary size when ``readable=False``.
_DEFAULT_N_WORDS = 500
# Upper bound on the number of probabilities held at once while drawing the counts.
_CHUNK_CELLS = 2_000_000


def synthetic_themes() -> dict[str, tuple[str, ...]]:
    """The built-in themes of readable synthetic corpora: name -> words.

    ``make_synthetic_corpus(..., readable=True)`` uses the first ``n_topics`` themes in
    this order, so ``len(synthetic_themes())`` is the largest readable ``n_topics``.
    """
    return dict(_THEMES)


@dataclass(frozen=True, eq=False)
class SyntheticCorpus:
    """A corpus drawn from the LDA generative process, with its true parameters.

    The process is that of latent Dirichlet allocation (Blei, Ng & Jordan, JMLR 2003), the
    model Hoffman, Blei, Wang & Paisley (JMLR 2013) fit by stochastic variational inference.

    Attributes
    ----------
    counts : scipy.sparse.csr_matrix of shape (n_docs, n_words)
        Integer word counts; every row has at least one word.  Some columns may be
        empty (a word that was never drawn).
    vocabulary : tuple of str
        ``vocabulary[i]`` is the word of column ``i``.
    topics : ndarray of shape (n_topics, n_words)
        The true topics beta_k; rows sum to 1.
    doc_topic : ndarray of shape (n_docs, n_topics)
        The true topic proportions theta_d; rows sum to 1.
    topic_names : tuple of str
        Theme names for readable corpora, ``"topic 1"``, ``"topic 2"``... otherwise.
    seed : int
        The seed the corpus was drawn with; :meth:`texts` reuses it.
    """

    counts: sp.csr_matrix
    vocabulary: tuple[str, ...]
    topics: np.ndarray
    doc_topic: np.ndarray
    topic_names: tuple[str, ...]
    seed: int

    @property
    def n_docs(self) -> int:
        """Number of documents."""
        return self.counts.shape[0]

    @property
    def n_words(self) -> int:
        """Vocabulary size."""
        return self.counts.shape[1]

    @property
    def n_topics(self) -> int:
        """Number of true topics."""
        return self.topics.shape[0]

    @property
    def doc_ids(self) -> tuple[str, ...]:
        """Identifiers ``"synthetic-0001"``, ``"synthetic-0002"``...; one per document."""
        width = max(4, len(str(self.n_docs)))
        return tuple(f"synthetic-{i:0{width}d}" for i in range(1, self.n_docs + 1))

    def top_words(self, n: int = 10) -> list[list[str]]:
        """The ``n`` most probable words of each true topic, most probable first."""
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        order = np.argsort(-self.topics, axis=1, kind="stable")[:, :n]
        return [[self.vocabulary[i] for i in row] for row in order]

    def dominant_topics(self) -> tuple[str, ...]:
        """Name of the topic with the largest true proportion in each document."""
        return tuple(self.topic_names[k] for k in np.argmax(self.doc_topic, axis=1))

    def texts(self) -> tuple[str, ...]:
        """Each document as a string of space-separated words, in random order.

        The word counts of ``texts()[d]`` are exactly row ``d`` of :attr:`counts`, so the
        texts can go through the text pipeline (``engine.Corpus.from_texts``).  The word
        order is drawn from ``np.random.default_rng([seed, 1])``: the same corpus always
        renders the same texts.
        """
        counts = self.counts
        row_lengths = np.diff(counts.indptr)
        tokens = np.repeat(counts.indices, counts.data)
        doc_of_token = np.repeat(np.repeat(np.arange(self.n_docs), row_lengths), counts.data)
        rng = np.random.default_rng([self.seed, 1])
        # shuffle the words inside each document: sort by document, then by a random key
        order = np.lexsort((rng.random(tokens.size), doc_of_token))
        words = np.asarray(self.vocabulary, dtype=object)[tokens[order]]
        ends = np.cumsum(np.asarray(counts.sum(axis=1)).ravel())
        return tuple(" ".join(doc) for doc in np.split(words, ends[:-1]))


def make_synthetic_corpus(
    n_docs: int,
    n_topics: int,
    n_words: int | None = None,
    doc_length: float = 60.0,
    alpha: float | Sequence[float] | np.ndarray | None = None,
    eta: float = 0.01,
    seed: int = 0,
    readable: bool = True,
) -> SyntheticCorpus:
    """Draw a corpus from the LDA generative process with known topics.

    Parameters
    ----------
    n_docs : int
        Number of documents, >= 1.
    n_topics : int
        Number of true topics, >= 1; at most ``len(synthetic_themes())`` (16) when
        ``readable`` is true.
    n_words : int, optional
        Vocabulary size.  Readable corpora default to the words of the chosen themes;
        a larger value (up to the size of all themes together) adds the words of unused
        themes, which then appear only as noise.  Otherwise the default is 500 and the
        words are ``"w001"``, ``"w002"``...
    doc_length : float
        Mean document length in words (Poisson mean before excluding empty documents).
    alpha : float or array-like of shape (n_topics,), optional
        Dirichlet concentration of the topic proportions theta_d; default ``1 / n_topics``
        (the default of ``engine.LDA``).  Small values give documents about few topics.
    eta : float
        Dirichlet concentration of the topics beta_k; small values give sparse topics.
        For readable topics it is the concentration outside the topic's theme.
    seed : int
        Seed of ``np.random.default_rng``; the same arguments give the same corpus.
    readable : bool
        Build topics over themed word lists (true) or over anonymous words from a
        symmetric Dirichlet(eta) (false).

    Returns
    -------
    SyntheticCorpus

    Examples
    --------
    >>> corpus = make_synthetic_corpus(n_docs=100, n_topics=3, seed=1)
    >>> corpus.counts.shape[0], corpus.topic_names
    (100, ('space', 'cooking', 'sports'))
    """
    n_docs = _positive_int("n_docs", n_docs)
    n_topics = _positive_int("n_topics", n_topics)
    if n_words is not None:
        n_words = _positive_int("n_words", n_words)
    doc_length = _positive_float("doc_length", doc_length)
    eta = _positive_float("eta", eta)
    alpha_vector = _alpha_vector(alpha, n_topics)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(readable, bool | np.bool_):
        raise ValueError(f"readable must be True or False, got {readable!r}")

    rng = np.random.default_rng(int(seed))
    if readable:
        vocabulary, topic_names, topic_concentration = _readable_prior(n_topics, n_words, eta)
    else:
        n_words = _DEFAULT_N_WORDS if n_words is None else n_words
        width = len(str(n_words))
        vocabulary = tuple(f"w{i:0{width}d}" for i in range(1, n_words + 1))
        topic_names = tuple(f"topic {k}" for k in range(1, n_topics + 1))
        topic_concentration = np.full((n_topics, n_words), eta)

    topics = _dirichlet_rows(rng, topic_concentration)  # beta_k, one row per topic
    doc_topic = rng.dirichlet(alpha_vector, size=n_docs)  # theta_d, one row per document
    doc_topic /= doc_topic.sum(axis=1, keepdims=True)
    lengths = _zero_truncated_poisson(rng, doc_length, n_docs)
    counts = _draw_counts(rng, doc_topic, topics, lengths)
    return SyntheticCorpus(
        counts=counts,
        vocabulary=vocabulary,
        topics=topics,
        doc_topic=doc_topic,
        topic_names=topic_names,
        seed=int(seed),
    )


def _readable_prior(
    n_topics: int, n_words: int | None, eta: float
) -> tuple[tuple[str, ...], tuple[str, ...], np.ndarray]:
    """Vocabulary, topic names and the (K, V) Dirichlet concentrations of themed topics."""
    names = tuple(_THEMES)
    if n_topics > len(names):
        raise ValueError(
            f"n_topics must be at most {len(names)} when readable=True (one topic per "
            f"built-in theme), got {n_topics}; use readable=False for more topics"
        )
    chosen = names[:n_topics]
    vocabulary = list(dict.fromkeys(w for name in chosen for w in _THEMES[name]))
    pool = list(dict.fromkeys(w for name in names for w in _THEMES[name]))
    if n_words is not None:
        if not len(vocabulary) <= n_words <= len(pool):
            raise ValueError(
                f"n_words must be between {len(vocabulary)} (the words of {n_topics} themes) "
                f"and {len(pool)} (all theme words) when readable=True, got {n_words}; "
                "leave it as None for the themes' own words"
            )
        extra = [w for w in pool if w not in set(vocabulary)]
        vocabulary += extra[: n_words - len(vocabulary)]
    column = {word: i for i, word in enumerate(vocabulary)}
    concentration = np.full((n_topics, len(vocabulary)), eta)
    for k, name in enumerate(chosen):
        concentration[k, [column[w] for w in _THEMES[name]]] += _THEME_CONCENTRATION
    return tuple(vocabulary), chosen, concentration


def _dirichlet_rows(rng: np.random.Generator, concentration: np.ndarray) -> np.ndarray:
    """One Dirichlet draw per row of ``concentration`` (rows may differ)."""
    rows = np.stack([rng.dirichlet(row) for row in concentration])
    return rows / rows.sum(axis=1, keepdims=True)


def _zero_truncated_poisson(rng: np.random.Generator, mean: float, size: int) -> np.ndarray:
    """Poisson(mean) draws conditioned on being >= 1, by redrawing the zeros."""
    lengths = rng.poisson(mean, size=size)
    zeros = np.flatnonzero(lengths == 0)
    while zeros.size:
        lengths[zeros] = rng.poisson(mean, size=zeros.size)
        zeros = zeros[lengths[zeros] == 0]
    return lengths


def _draw_counts(
    rng: np.random.Generator, doc_topic: np.ndarray, topics: np.ndarray, lengths: np.ndarray
) -> sp.csr_matrix:
    """counts_d ~ Multinomial(N_d, theta_d @ beta), in chunks of documents."""
    n_docs, n_words = doc_topic.shape[0], topics.shape[1]
    chunk = max(1, _CHUNK_CELLS // n_words)
    blocks = []
    for start in range(0, n_docs, chunk):
        # p(w | d) = sum_k theta_dk beta_kw: the marginal of drawing z, then w
        word_probs = doc_topic[start : start + chunk] @ topics
        word_probs /= word_probs.sum(axis=1, keepdims=True)
        drawn = rng.multinomial(lengths[start : start + chunk], word_probs)
        blocks.append(sp.csr_matrix(drawn.astype(np.int64)))
    counts = sp.csr_matrix(sp.vstack(blocks, format="csr"), dtype=np.int64)
    counts.sort_indices()
    return counts


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _positive_float(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def _alpha_vector(alpha: object, n_topics: int) -> np.ndarray:
    if alpha is None:
        return np.full(n_topics, 1.0 / n_topics)
    try:
        vector = np.asarray(alpha, dtype=float)
    except (TypeError, ValueError):
        vector = np.empty(0)
    if vector.ndim == 0 and not isinstance(alpha, bool):
        vector = np.full(n_topics, vector)
    if vector.shape != (n_topics,) or not np.all(np.isfinite(vector)) or np.any(vector <= 0):
        raise ValueError(
            f"alpha must be a positive number or {n_topics} positive numbers (one per topic), got {alpha!r}"
        )
    return vector
