"""The topics that several runs agree on: each found again in most of them, averaged into one topic.

Runs of one model with different seeds end in different optima (benchmarks/RESULTS.md, run
72): most topics come back in every run, some only in a few.  Combining the runs keeps the
first kind.  Every pair of runs is matched by :func:`engine.match_topics`; a topic found again
in the other run (it and its partner each other's nearest topic) links the two.  The links are
then taken from the closest to the farthest, and two groups join unless that would put two
topics of one run in one group (agglomerative clustering with single linkage, each group
holding at most one topic per run).  A group found in at least ``min_runs`` runs becomes a
consensus topic: the mean of its members' word distributions.  Combining topics found across
runs is the idea of ensemble LDA (Brigl, "Extracting Reliable Topics using Ensemble Latent
Dirichlet Allocation", 2019; gensim's ``EnsembleLda``), which clusters them by density
instead; the rule here has no threshold to tune, like ``match_topics``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import LimitExceededError
from engine.inference.matching import MAX_MATCHED_TOPICS, _topics, aligned_topics, paired_topics
from engine.inference.quality import LIVE_SHARE
from engine.limits import current_limits
from engine.models.hdp import HDP
from engine.models.lda import LDA
from engine.validation import check_int

__all__ = ["MAX_CONSENSUS_RUNS", "TopicConsensus", "consensus_topics"]

MAX_CONSENSUS_RUNS = 20  # the runs are matched in pairs: 190 matches at this many


@dataclass(frozen=True)
class TopicConsensus:
    """The topics found again in at least ``min_runs`` of ``n_runs`` runs, the most widely found first.

    Attributes
    ----------
    topics : ndarray of shape (n_topics, n_words)
        Each consensus topic's word distribution: the mean of its members' E[beta_k].
    vocabulary : list of str or None
        The word of each column (the union of the runs' vocabularies when they differ), or
        None when the runs' words are not known.
    members : ndarray of int, shape (n_topics, n_runs)
        The topic of each run that the consensus topic holds; -1 where that run has none.
    support : ndarray of int, shape (n_topics,)
        In how many runs each consensus topic was found (its members).
    spread : ndarray of shape (n_topics,)
        The mean Hellinger distance (0 to 1) from the members to the consensus topic: how
        much the runs' versions of it differ.
    share : ndarray of shape (n_topics,)
        The members' mean share of their run's words (each model's ``word_shares()``; 1/K for
        a run given as an array).
    mass : ndarray of shape (n_topics,) or None
        The members' mean expected word count, sum_v (lambda_kv - eta); None when a run was
        given as an array.
    alpha : ndarray of shape (n_topics,) or None
        The members' mean document-topic prior: an LDA's alpha_k, an HDP's alpha E[sigma_k]
        (its document DP's Dirichlet marginal, with which it folds documents in); None when a
        run was given as an array.
    eta : float or None
        The runs' mean topic-word prior; None when a run was given as an array.
    n_runs, min_runs : int
        How many runs were combined, and in how many a topic had to be found.
    """

    topics: np.ndarray
    vocabulary: list[str] | None
    members: np.ndarray
    support: np.ndarray
    spread: np.ndarray
    share: np.ndarray
    mass: np.ndarray | None
    alpha: np.ndarray | None
    eta: float | None
    n_runs: int
    min_runs: int

    @property
    def n_topics(self) -> int:
        return self.topics.shape[0]

    def model(self, seed: int = 0) -> LDA:
        """An :class:`engine.LDA` whose topics are the consensus topics, to fold documents into and save.

        lambda_k = eta + m_k p_k for the consensus word distribution p_k and the members' mean
        expected word count m_k, so the model is as certain of each topic as its runs were on
        average; alpha_k is the members' mean prior (``alpha``: one number when they all had
        the same), so it reads a document as they did: an HDP's runs give an asymmetric prior,
        which on short documents predicts held-out words better than LDA's default for this
        many topics (benchmarks/RESULTS.md, run 73).  It knows its words
        (``feature_names_in_``) when the runs did.

        Raises
        ------
        ValueError
            The runs were given as arrays (there are no word counts to scale by), or fewer
            than two topics were found in ``min_runs`` runs.
        """
        if self.mass is None or self.eta is None or self.alpha is None:
            raise ValueError("the consensus was made from topic-word arrays, which hold no word counts: combine "
                             "fitted models to make a model of it")
        if self.n_topics < 2:
            raise ValueError(f"only {self.n_topics} topic{'' if self.n_topics == 1 else 's'} found in at least "
                             f"{self.min_runs} of the {self.n_runs} runs; a model needs two: lower min_runs or "
                             "combine runs with more topics")
        alpha = float(self.alpha[0]) if np.all(self.alpha == self.alpha[0]) else self.alpha.copy()
        model = LDA(n_topics=self.n_topics, n_words=self.topics.shape[1], alpha=alpha, eta=self.eta, seed=seed)
        model.lambda_ = self.eta + self.mass[:, None] * self.topics
        if self.vocabulary is not None:
            model.feature_names_in_ = np.asarray(self.vocabulary, dtype=object)
        return model


def consensus_topics(models: Sequence, *, min_runs: int | None = None,
                     vocabularies: Sequence[Sequence[str] | None] | None = None) -> TopicConsensus:
    """The topics that at least ``min_runs`` of the runs ``models`` find.

    Parameters
    ----------
    models : sequence of fitted LDA or HDP, or array-like of shape (n_topics, n_words)
        Two to ``MAX_CONSENSUS_RUNS`` runs, typically one model trained with several seeds.
        A fitted model takes part with its live topics, those holding at least a quarter of
        an even share of its words (``word_shares() >= 0.25 / n_topics``; an HDP's topics
        of small corpus weight hold most of its words on some collections, RESULTS run 73);
        an array with every topic.
    min_runs : int, optional
        In how many runs a topic must be found (2 to ``len(models)``); by default more than
        half of them.
    vocabularies : sequence of (sequence of str or None), optional
        The words of each run's columns; by default each model's ``feature_names_in_``.  When
        every run's words are known and they differ, topics are compared word by word over
        the union of the vocabularies (see :func:`engine.match_topics`).

    Returns
    -------
    TopicConsensus
        The consensus topics, ordered by how many runs found them, then by their share of
        the words.

    Raises
    ------
    ValueError
        Fewer than two runs, ``min_runs`` out of range, or a run that ``match_topics``
        refuses (not fitted, bad weights).
    VocabularyMismatchError
        The runs' words cannot be lined up.
    LimitExceededError
        More than ``MAX_CONSENSUS_RUNS`` runs, more than ``MAX_MATCHED_TOPICS`` topics
        taking part in all, or more cells in their topic-word arrays together than the
        ``max_dense_cells`` limit (``SVI_TOPICS_MAX_DENSE_CELLS``).
    """
    models = list(models)
    if not 2 <= len(models) <= MAX_CONSENSUS_RUNS:
        if len(models) > MAX_CONSENSUS_RUNS:
            raise LimitExceededError(f"{len(models)} runs given; at most {MAX_CONSENSUS_RUNS} are combined")
        raise ValueError(f"a consensus needs at least two runs, got {len(models)}")
    n_runs = len(models)
    min_runs = n_runs // 2 + 1 if min_runs is None else check_int("min_runs", min_runs, 2)
    if min_runs > n_runs:
        raise ValueError(f"min_runs must be at most the number of runs ({n_runs}), got {min_runs}")
    if vocabularies is None:
        vocabularies = [None] * n_runs
    elif len(vocabularies) != n_runs:
        raise ValueError(f"vocabularies must give one entry per run ({n_runs}), got {len(vocabularies)}")
    runs = [_Run.read(f"run {i}", model, words) for i, (model, words) in enumerate(zip(models, vocabularies,
                                                                                             strict=True))]
    total = sum(run.indices.size for run in runs)
    if total > MAX_MATCHED_TOPICS:
        raise LimitExceededError(f"the runs have {total:,} topics taking part in all; a consensus is made of at "
                                 f"most {MAX_MATCHED_TOPICS:,}")
    known = [run.words for run in runs if run.words is not None]
    width = len(set().union(*known)) if len(known) == n_runs else max(run.topics.shape[1] for run in runs)
    current_limits().check("max_dense_cells", total * width,
                           f"the runs' topics over their words together (topics x words = {total:,} x {width:,})")
    topics, vocabulary = aligned_topics([(run.topics, run.words) for run in runs],
                                        "pass vocabularies= to combine topics over different vocabularies word by "
                                        "word")
    groups = _groups(topics, min_runs)
    members = np.full((len(groups), n_runs), -1, dtype=np.intp)
    consensus = np.zeros((len(groups), topics[0].shape[1]))
    spread, share = np.zeros(len(groups)), np.zeros(len(groups))
    mass = None if any(run.mass is None for run in runs) else np.zeros(len(groups))
    alpha = None if mass is None else np.zeros(len(groups))
    for c, group in enumerate(groups):
        rows = [topics[run][row] for run, row in group.items()]
        consensus[c] = np.mean(rows, axis=0)
        # Hellinger distance of each member to the mean: sqrt(1 - sum_v sqrt(p_v q_v))
        overlap = np.sqrt(np.array(rows)) @ np.sqrt(consensus[c])
        spread[c] = np.mean(np.sqrt(np.clip(1.0 - overlap, 0.0, 1.0)))
        share[c] = np.mean([runs[run].share[row] for run, row in group.items()])
        if mass is not None:
            mass[c] = np.mean([runs[run].mass[row] for run, row in group.items()])
            priors = [runs[run].alpha[row] for run, row in group.items()]
            alpha[c] = priors[0] if all(prior == priors[0] for prior in priors) else np.mean(priors)  # LDA's stay exact
        for run, row in group.items():
            members[c, run] = runs[run].indices[row]
    support = np.count_nonzero(members >= 0, axis=1)
    order = np.lexsort((-share, -support))  # the most widely found first, then the heaviest
    eta = None if any(run.eta is None for run in runs) else float(np.mean([run.eta for run in runs]))
    return TopicConsensus(topics=consensus[order], vocabulary=vocabulary, members=members[order],
                          support=support[order], spread=spread[order], share=share[order],
                          mass=None if mass is None else mass[order], alpha=None if alpha is None else alpha[order],
                          eta=eta, n_runs=n_runs, min_runs=min_runs)


@dataclass(frozen=True)
class _Run:
    """One run's topics taking part: rows over its own words, their indices in the run, shares, masses, priors."""

    topics: np.ndarray
    words: list[str] | None
    indices: np.ndarray
    share: np.ndarray
    mass: np.ndarray | None
    alpha: np.ndarray | None
    eta: float | None

    @classmethod
    def read(cls, name: str, model, vocabulary) -> _Run:
        topics, words = _topics(name, model, vocabulary)
        if not hasattr(model, "expected_topics"):
            return cls(topics, words, np.arange(topics.shape[0]), np.full(topics.shape[0], 1.0 / topics.shape[0]),
                       None, None, None)
        shares = np.asarray(model.word_shares(), dtype=np.float64)
        indices = np.flatnonzero(shares >= LIVE_SHARE / model.n_topics)  # its live topics
        excess = np.maximum(np.asarray(model.lambda_, dtype=np.float64) - model.eta, 0.0).sum(axis=1)
        if isinstance(model, HDP):  # the document DP's Dirichlet marginal: alpha E[sigma_k]
            prior = model.alpha * np.asarray(model.topic_weights(), dtype=np.float64)
        else:
            prior = np.broadcast_to(np.asarray(model.alpha, dtype=np.float64), (model.n_topics,))
        return cls(topics[indices], words, indices, shares[indices], excess[indices], prior[indices],
                   float(model.eta))


def _groups(topics: list[np.ndarray], min_runs: int) -> list[dict[int, int]]:
    """Groups of topics, at most one per run, joined by the links of topics found again; those of >= min_runs runs.

    Each group maps a run to its row in ``topics[run]``.  Links are taken by increasing
    distance (ties in run and row order), and a link is skipped when its two groups share a run.
    """
    links = []
    roots = [np.sqrt(rows) for rows in topics]  # once per run, not once per pair
    for a, b in itertools.combinations(range(len(topics)), 2):
        if topics[a].shape[0] == 0 or topics[b].shape[0] == 0:
            continue
        partner, distance, recurring = paired_topics(roots[a], roots[b])  # match_topics' rule
        for row in np.flatnonzero(recurring):
            links.append((float(distance[row]), a, int(row), b, int(partner[row])))
    links.sort()
    parent = {(run, row): (run, row) for run, rows in enumerate(topics) for row in range(rows.shape[0])}
    group = {node: {node[0]: node[1]} for node in parent}

    def root(node):
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for _, a, row, b, partner in links:
        first, second = root((a, row)), root((b, partner))
        if first == second or group[first].keys() & group[second].keys():
            continue
        parent[second] = first
        group[first].update(group.pop(second))
    return [members for node, members in group.items() if len(members) >= min_runs]
