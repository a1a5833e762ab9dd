"""Which topics of one model recur in another: topics matched one to one across two runs.

A topic that a second run (another seed, another schedule, batch VI against SVI, or
collapsed Gibbs) finds again is one a reader can trust; a topic with no counterpart may be
an accident of its run's random start.  The topics of the two models are paired one to one
so that the summed distance between partners is least (the assignment problem, solved
exactly by ``scipy.optimize.linear_sum_assignment``), and each pair is described in terms a
reader checks: how many of a topic's top words its partner shares.

The distance is the Hellinger distance between the topics' word distributions E[beta_k],
H(p, q) = sqrt(1 - sum_v sqrt(p_v q_v)), from 0 (the same distribution) to 1 (no word in
common); gensim's ``LdaModel.diff`` offers it for the same purpose.  It costs one matrix
product for all pairs.  Stability measured this way, a topic matched across runs by its
words, is Greene, O'Callaghan & Cunningham's ("How many topics? Stability analysis for
topic models", ECML PKDD 2014), with the whole distribution deciding the pairs.  A topic
*recurs* when it and its partner are each other's nearest topic: distances between the
dense topics of SVI and the sparse ones of a Gibbs sampler lie on different scales, and on
real collections the distances of partners and of unrelated topics overlap, so no fixed
line would do (benchmarks/RESULTS.md, run 72).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from engine.errors import LimitExceededError, VocabularyMismatchError
from engine.models.inspection import top_indices
from engine.validation import check_int

__all__ = ["MAX_MATCHED_TOPICS", "TopicMatch", "match_topics"]

# The assignment's time grows with the cube of the number of topics (benchmarks/RESULTS.md, run 72) and its
# distance matrix with their product: models with more topics than this are refused, not matched for minutes.
MAX_MATCHED_TOPICS = 5_000


@dataclass(frozen=True)
class TopicMatch:
    """The one-to-one pairing of a model's topics with another model's, from the first model's side.

    Attributes
    ----------
    partner : ndarray of int, shape (n_topics,)
        The other model's topic paired with each topic; -1 when the other model has fewer
        topics and this one was left without a partner.
    distance : ndarray of shape (n_topics,)
        Hellinger distance (0 to 1) from each topic to its partner; 1 without a partner.
    recurring : ndarray of bool, shape (n_topics,)
        The topic is found again in the other model: it and its partner are each other's
        nearest topic (no topic of the other model is closer to it, none of this model is
        closer to its partner).  A rule without a threshold, so it holds as well for the
        sparse topics of a Gibbs sampler as for SVI's.
    shared_words : ndarray of int, shape (n_topics,)
        How many of the topic's ``n_top`` most probable words are among its partner's
        ``n_top`` most probable words; 0 without a partner.
    n_top : int
        The number of top words compared.
    """

    partner: np.ndarray
    distance: np.ndarray
    recurring: np.ndarray
    shared_words: np.ndarray
    n_top: int

    @property
    def n_topics(self) -> int:
        return len(self.partner)

    def n_recurring(self, topics=None) -> int:
        """How many topics recur (of ``topics``, indices, when given: an HDP's topics in use, say)."""
        recurring = self.recurring if topics is None else self.recurring[np.asarray(topics, dtype=np.intp)]
        return int(np.count_nonzero(recurring))


def match_topics(model, other, *, n_top: int = 10, vocabulary: Sequence[str] | None = None,
                 other_vocabulary: Sequence[str] | None = None) -> TopicMatch:
    """Pair each topic of ``model`` with one topic of ``other``, the pairs' summed distance least.

    Parameters
    ----------
    model, other : fitted LDA or HDP, or array-like of shape (n_topics, n_words)
        The two sets of topics: fitted models (their ``expected_topics()``) or non-negative
        topic-word weights, each row normalised here (a tomotopy or gensim model's topics).
        They may have different numbers of topics (an HDP against an LDA): the smaller set is
        matched in full.
    n_top : int, default 10
        How many of each topic's most probable words ``shared_words`` compares.
    vocabulary, other_vocabulary : sequence of str, optional
        The word of each column.  By default each model's ``feature_names_in_`` (a model
        fitted on an :class:`~engine.Corpus` or loaded from a model file knows it).  When both
        are known and differ (runs on differently prepared texts), the topics are compared
        word by word, a word one vocabulary lacks having probability 0 there.  When either is
        unknown both must have the same number of words, taken to be the same words.

    Returns
    -------
    TopicMatch
        From ``model``'s side: each topic's partner in ``other``, its distance and the top
        words they share.  ``match_topics(other, model)`` gives the same pairs from the other
        side (when one pairing alone reaches the least sum, as it does unless topics tie).

    Raises
    ------
    ValueError
        A model has no topics yet, or weights are negative, not finite or a row is all zero.
    VocabularyMismatchError
        The vocabularies cannot be lined up (see ``vocabulary``).
    LimitExceededError
        A model has more than ``MAX_MATCHED_TOPICS`` topics.
    """
    n_top = check_int("n_top", n_top, 1)
    topics, words = _topics("model", model, vocabulary)
    other_topics, other_words = _topics("other", other, other_vocabulary)
    for name, read in (("model", topics), ("other", other_topics)):  # before the distance matrix and the assignment
        if read.shape[0] > MAX_MATCHED_TOPICS:
            raise LimitExceededError(f"{name} has {read.shape[0]:,} topics; topics are matched for models of at "
                                     f"most {MAX_MATCHED_TOPICS:,}")
    topics, other_topics = _aligned(topics, words, other_topics, other_words)
    partner, distance, recurring = paired_topics(np.sqrt(topics), np.sqrt(other_topics))
    n_top = min(n_top, topics.shape[1])
    top, other_top = top_indices(topics, n_top), top_indices(other_topics, n_top)
    shared = np.zeros(topics.shape[0], dtype=np.intp)
    for row in np.flatnonzero(partner >= 0):
        shared[row] = np.intersect1d(top[row], other_top[partner[row]]).size
    return TopicMatch(partner=partner, distance=distance, recurring=recurring, shared_words=shared, n_top=n_top)


def paired_topics(roots: np.ndarray, other_roots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairing and the found-again rule of :func:`match_topics`, on aligned topics' square roots.

    ``roots`` and ``other_roots`` are sqrt(p) of row-normalised topics over the same words
    (computed once by a caller that pairs one set with many).  Returns each row's partner
    (-1 without one), its Hellinger distance (1 without a partner) and whether it recurs.
    """
    # Hellinger: H^2 = 1 - BC with the Bhattacharyya coefficient BC(p, q) = sum_v sqrt(p_v q_v)
    distances = np.sqrt(np.clip(1.0 - roots @ other_roots.T, 0.0, 1.0))
    rows, columns = linear_sum_assignment(distances)
    partner = np.full(roots.shape[0], -1, dtype=np.intp)
    partner[rows] = columns
    distance = np.ones(roots.shape[0])
    distance[rows] = distances[rows, columns]
    # mutual nearest: the partner is the row's nearest column and the row is the partner's nearest row
    # (argmin takes the lowest index among equals, so of two identical topics only the first recurs)
    recurring = np.zeros(roots.shape[0], dtype=bool)
    recurring[rows] = (distances.argmin(axis=1)[rows] == columns) & (distances.argmin(axis=0)[columns] == rows)
    return partner, distance, recurring


def _topics(name: str, model, vocabulary) -> tuple[np.ndarray, list[str] | None]:
    """Row-normalised float64 topics and the words of their columns (None: not known)."""
    if hasattr(model, "expected_topics"):
        if getattr(model, "lambda_", None) is None:
            raise ValueError(f"{name} has no topics yet: fit it first")
        topics = np.asarray(model.expected_topics(), dtype=np.float64)
        known = model.__dict__.get("feature_names_in_")
        words = vocabulary if vocabulary is not None else known
    else:
        topics = np.array(model, dtype=np.float64)
        words = vocabulary
        if topics.ndim != 2 or 0 in topics.shape:
            raise ValueError(f"{name} must be a fitted model or a 2-d array of topic-word weights, "
                             f"got shape {topics.shape}")
        if not np.all(np.isfinite(topics)) or np.any(topics < 0):
            raise ValueError(f"{name}'s topic-word weights must be finite and non-negative")
        totals = topics.sum(axis=1, keepdims=True)
        if np.any(totals <= 0):
            raise ValueError(f"{name} has a topic whose weights are all zero (row {int(np.argmin(totals))})")
        topics /= totals
    if words is None:
        return topics, None
    words = [str(word) for word in words]
    if len(words) != topics.shape[1]:
        raise VocabularyMismatchError(f"the vocabulary of {name} has {len(words)} words but its topics have "
                                      f"{topics.shape[1]}")
    if len(set(words)) != len(words):
        raise VocabularyMismatchError(f"the vocabulary of {name} holds a word twice")
    return topics, words


def _aligned(topics: np.ndarray, words: list[str] | None, other: np.ndarray,
             other_words: list[str] | None) -> tuple[np.ndarray, np.ndarray]:
    """Both sets of topics over one list of words: the union of the vocabularies when they differ."""
    first, second = aligned_topics([(topics, words), (other, other_words)],
                                   "pass vocabulary= and other_vocabulary= to compare topics over different "
                                   "vocabularies word by word")[0]
    return first, second


def aligned_topics(sets: Sequence[tuple[np.ndarray, list[str] | None]], remedy: str
                   ) -> tuple[list[np.ndarray], list[str] | None]:
    """Sets of topics (rows over their own words, None: not known) over one list of words, and that list.

    When every vocabulary is known and they differ, the columns are the union of the words in
    the order they are first met, a word a set lacks having weight 0 there.  Otherwise every
    set must have the same number of columns (``VocabularyMismatchError`` ending with
    ``remedy`` if not); the words are then the first known vocabulary, or None.
    """
    known = [words for _, words in sets if words is not None]
    if len(known) < len(sets) or all(words == known[0] for words in known):
        widths = sorted({topics.shape[1] for topics, _ in sets})
        if len(widths) > 1:
            if len(sets) == 2:
                raise VocabularyMismatchError(f"the two models have {sets[0][0].shape[1]} and "
                                              f"{sets[1][0].shape[1]} words; {remedy}")
            raise VocabularyMismatchError(f"the models have {', '.join(map(str, widths))} words; {remedy}")
        return [topics for topics, _ in sets], (known[0] if known else None)
    index: dict[str, int] = {}
    for words in known:
        for word in words:
            index.setdefault(word, len(index))
    widened = []
    for topics, words in sets:
        columns = np.fromiter((index[word] for word in words), dtype=np.intp, count=len(words))
        wide = np.zeros((topics.shape[0], len(index)))
        wide[:, columns] = topics
        widened.append(wide)
    return widened, list(index)
