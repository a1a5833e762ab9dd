"""Probe (issue 13, runs 24 and 28): HDP births between epochs, undone when the halves stay copies.

After each of the first ``birth_epochs`` epochs, ``births`` times: a slot is freed, and the
largest topic (by expected word count) is split into it, word by word in shares drawn from
U[0.45, 0.55], its corpus stick count halved between the two.  How the slot is freed
(``mode``):

- ``"merge"`` (the default): the smallest topic is merged into the small topic (of the ten
  next smallest) closest to it in Jensen-Shannon divergence, so the thin tail keeps its mass
  (it smooths the held-out words of short documents, run 18);
- ``"merge_words"``: the same with its expected word counts only (its stick count dropped);
- ``"spread"``: its expected counts and stick count go to all other topics in proportion to
  their words;
- ``"replace"``: its mass is dropped, as the split revival of LDA does.

``undo_after`` epochs after its birth, a (donor, child) pair whose word distributions are
still within ``undo_js`` nats of each other is merged back: the split found no structure
(run 19); with ``undo_incoherent``, so is a pair whose top-10 words have a lower mean NPMI
than those of the two merged.  ``min_weight`` splits only topics of at least that corpus
weight.  ``skip_general`` keeps topics within ``engine.GENERAL_DIVERGENCE`` of the overall
word use from being split; with ``gate``, births wait until such topics hold less than
``gate`` of the words (at most ``birth_rounds`` rounds, none after epoch ``birth_epochs``).

The topics are not reordered during training (``reorder_topics=False``, within +-0.005 of
the default, run 23), so a pair keeps its two indices, and the engine's own births are off
(``births=0``); ``"model"`` (HDP arguments) overrides both, so ``{"model": {"reorder_topics":
true, "births": null}}`` is the engine's default HDP (run 29), and ``"constants"`` sets the
engine births' module constants (``{"BIRTH_ROUNDS": 5}``) for that run.  Everything else is
``engine.HDP(n_topics=150, doc_truncation=20)`` trained by ``engine.SVI`` at its defaults,
scored by ``quality.py``'s evaluator; ``copies`` counts the topics in use whose 10 top words
share 7 or more with those of a topic in use of lower index (by weight when the topics are
reordered).  One JSON line per run to ``--out``::

    cd benchmarks
    NUMBA_NUM_THREADS=1 python hdp_births.py --out /tmp/births.jsonl --configs \\
        '{"base": {}, "births": {"births": 5, "birth_epochs": 3, "undo_after": 4}}'
"""

from __future__ import annotations

import time

import _probe
import numpy as np
import quality
import scipy.sparse as sp
from _quality_config import HDP_DOC_TRUNCATION, HDP_TRUNCATION

import engine
import engine.models._hdp_births as births_module
import engine.models.hdp as hdp_module
from engine.kernels.reference.hdp import stick_weights
from engine.models.hdp import _stick_counts, _sticks_from_counts


def _normalised(row: np.ndarray) -> np.ndarray:
    return row / float(row.sum())


def _divergences(excess: np.ndarray, topic: int, others: np.ndarray) -> np.ndarray:
    """Jensen-Shannon divergence (nats, ``engine.jensen_shannon``) of ``topic``'s words to each of ``others``'.

    Every row named must hold some expected words.
    """
    rows = np.stack([_normalised(excess[k]) for k in (topic, *others)])
    return engine.jensen_shannon(rows)[0, 1:]


def _globals(model) -> tuple[np.ndarray, np.ndarray]:
    """(expected counts lambda - eta, corpus stick counts N_k) as float64 copies."""
    excess = np.maximum(model.lambda_.astype(np.float64) - model.eta, 0.0)
    return excess, _stick_counts(model.sticks_.astype(np.float64), model.omega)


def _set_globals(model, excess: np.ndarray, counts: np.ndarray) -> None:
    model.lambda_ = (excess + model.eta).astype(model.dtype)
    model.sticks_ = _sticks_from_counts(counts, model.omega)


class DocumentSplit:
    """Shares for splitting a topic by its documents rather than by its words at random (``"split": "documents"``).

    From a sample of training documents folded in once per round (``model.transform``), the
    documents using the donor k (theta_dk >= ``min_theta``) are represented by their words'
    responsibilities to k, c_dw = n_dw theta_dk E[beta_kw] / sum_j theta_dj E[beta_jw];
    spherical 2-means (cosine, ``iterations`` rounds, started from two of them drawn in
    proportion to their mass) parts them into A and B, and word w goes to the child in the
    share B_w / (A_w + B_w), smoothed towards one half by ``smoothing`` of the mean count.
    The stick count is parted as the two groups' mass.  Fewer than ``min_docs`` documents:
    None, and the caller splits at random.
    """

    def __init__(self, model, train, rng, n_docs: int = 2000, min_theta: float = 0.1, min_docs: int = 10,
                 iterations: int = 10, smoothing: float = 0.1):
        rows = np.sort(rng.permutation(train.shape[0])[:n_docs])
        self.counts = train[rows].tocsr().astype(np.float64)
        self.theta = np.asarray(model.transform(self.counts), dtype=np.float64)
        lam = model.lambda_.astype(np.float64)
        self.beta = lam / lam.sum(axis=1, keepdims=True)
        self.rng, self.min_theta, self.min_docs = rng, min_theta, min_docs
        self.iterations, self.smoothing = iterations, smoothing

    def _responsibilities(self, k: int, docs: np.ndarray):
        sub = self.counts[docs].tocoo()
        theta = self.theta[docs]
        values = np.empty(sub.nnz)
        for start in range(0, sub.nnz, 20000):
            part = slice(start, start + 20000)
            r, c = sub.row[part], sub.col[part]
            mixture = np.einsum("ij,ji->i", theta[r], self.beta[:, c])
            values[part] = sub.data[part] * theta[r, k] * self.beta[k, c] / np.maximum(mixture, 1e-300)
        return sp.csr_matrix((values, (sub.row, sub.col)), shape=sub.shape)

    def shares(self, k: int) -> tuple[np.ndarray, float] | None:
        docs = np.flatnonzero(self.theta[:, k] >= self.min_theta)
        if docs.size < self.min_docs:
            return None
        weighted = self._responsibilities(k, docs)
        mass = np.asarray(weighted.sum(axis=1)).ravel()
        norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
        unit = sp.diags(1.0 / np.maximum(norms, 1e-300)) @ weighted
        first, second = self.rng.choice(docs.size, size=2, replace=False, p=mass / mass.sum())
        centres = np.vstack([unit[first].toarray(), unit[second].toarray()])
        group = np.zeros(docs.size, dtype=bool)
        for _ in range(self.iterations):
            group = np.asarray(unit @ centres[1]).ravel() > np.asarray(unit @ centres[0]).ravel()
            if group.all() or not group.any():
                return None
            centres = np.vstack([np.asarray(weighted[~group].sum(axis=0)).ravel(),
                                 np.asarray(weighted[group].sum(axis=0)).ravel()])
            centres /= np.linalg.norm(centres, axis=1, keepdims=True)
        a = np.asarray(weighted[~group].sum(axis=0)).ravel()
        b = np.asarray(weighted[group].sum(axis=0)).ravel()
        prior = self.smoothing * float((a + b).mean())
        return (b + prior) / (a + b + 2.0 * prior), float(b.sum() / (a.sum() + b.sum()))


def births(model, rng, n_births: int, mode: str, skip_general: bool, min_weight: float = 0.0,
           splitter: DocumentSplit | None = None) -> list[tuple[int, int]]:
    """Split the largest topics into freed slots; the (donor, child) pairs made.

    With ``min_weight``, only a topic whose corpus weight is at least ``min_weight`` is split
    (none left: the round ends early).  With a ``splitter``, each topic is split at most once
    a round, by its documents where the splitter can.
    """
    general = set(model.general_topics(engine.GENERAL_DIVERGENCE).tolist()) if skip_general else set()
    excess, counts = _globals(model)
    pairs = []
    touched: set[int] = set()
    for _ in range(n_births):
        order = np.argsort(excess.sum(axis=1))
        slot = int(order[0])
        near = order[1:11]
        near = near[excess[near].sum(axis=1) > 0]  # topics emptied by an undo hold no words to merge into
        if mode in ("merge", "merge_words") and excess[slot].sum() > 0 and near.size:
            into = int(near[int(np.argmin(_divergences(excess, slot, near)))])
            excess[into] += excess[slot]
            if mode == "merge":
                counts[into] += counts[slot]
        elif mode == "spread":  # over every other topic in proportion to its expected words
            rest = np.delete(np.arange(excess.shape[0]), slot)
            words = excess[rest].sum(axis=1)
            weights = words / max(float(words.sum()), 1e-300)
            excess[rest] += weights[:, None] * excess[slot][None, :]
            counts[rest] += weights * counts[slot]
        excess[slot], counts[slot] = 0.0, 0.0
        totals = excess.sum(axis=1)
        totals[list(general)] = -1.0
        if min_weight > 0:
            totals[stick_weights(_sticks_from_counts(counts, model.omega)) < min_weight] = -1.0
        if splitter is not None:
            totals[list(touched)] = -1.0
        if totals.max() < 0:
            break
        donor = int(np.argmax(totals))
        found = splitter.shares(donor) if splitter is not None else None
        if found is None:
            share, child_mass = rng.uniform(0.45, 0.55, excess.shape[1]), 0.5
        else:
            child, child_mass = found
            share = 1.0 - child
        excess[slot], excess[donor] = excess[donor] * (1.0 - share), excess[donor] * share
        counts[slot], counts[donor] = counts[donor] * child_mass, counts[donor] * (1.0 - child_mass)
        touched.update((donor, slot))
        pairs.append((donor, slot))
    _set_globals(model, excess, counts)
    return pairs


def _less_coherent_apart(excess: np.ndarray, donor: int, child: int, reference) -> bool:
    """Whether the pair's top-10 words score a lower mean NPMI than the top words of the two merged."""
    top = np.argsort(-np.stack((excess[donor], excess[child], excess[donor] + excess[child])), axis=1)[:, :10]
    npmi = reference.score(top, measure="npmi")
    return float(npmi[:2].mean()) < float(npmi[2])


def _validation_score(model, validation) -> float:
    """Held-out LL per word of the validation documents (observed, held-out word counts) under ``model``."""
    return engine.predictive_log_likelihood(quality.engine_evaluator(model), *validation)


def _merged_predicts_as_well(model, excess, counts, donor: int, child: int, validation, apart: float) -> bool:
    """Whether merging the pair back scores the validation documents' held-out words at least ``apart`` (the
    model's own score) does."""
    merged_excess, merged_counts = excess.copy(), counts.copy()
    merged_excess[donor] += merged_excess[child]
    merged_counts[donor] += merged_counts[child]
    merged_excess[child], merged_counts[child] = 0.0, 0.0
    merged = model.copy()
    _set_globals(merged, merged_excess, merged_counts)
    return _validation_score(merged, validation) >= apart


def undo(model, pairs: list[tuple[int, int]], undo_js: float, reference=None,
         validation=None) -> list[tuple[int, int]]:
    """Merge each pair still within ``undo_js`` of each other back into its donor; the pairs merged.

    With a coherence ``reference``, also each pair less coherent apart than merged; with
    ``validation`` (observed, held-out word counts of documents not trained on), also each
    pair whose merge predicts their held-out words at least as well.
    """
    excess, counts = _globals(model)
    undone = []
    apart = _validation_score(model, validation) if validation is not None else None  # until a pair is merged
    for donor, child in pairs:
        if excess[donor].sum() > 0 and excess[child].sum() > 0 and (
                _divergences(excess, donor, np.array([child]))[0] < undo_js or (
                reference is not None and _less_coherent_apart(excess, donor, child, reference)) or (
                validation is not None and _merged_predicts_as_well(model, excess, counts, donor, child,
                                                                    validation, apart))):
            excess[donor] += excess[child]
            counts[donor] += counts[child]
            excess[child], counts[child] = 0.0, 0.0
            undone.append((donor, child))
            if validation is not None:  # the next pair is judged against the model as it now is
                _set_globals(model, excess, counts)
                apart = _validation_score(model, validation)
    if undone:
        _set_globals(model, excess, counts)
    return undone


def _tail_faded(model, config: dict) -> bool:
    """With ``gate``: whether the topics that copy the overall word use hold less than ``gate`` of the words."""
    if "gate" not in config:
        return True
    general = model.general_topics(engine.GENERAL_DIVERGENCE)
    return float(np.asarray(model.word_shares())[general].sum()) < config["gate"]


def train(collection, seed: int, epochs: int, config: dict) -> dict:
    """One run; ``"constants"`` sets constants of ``engine.models._hdp_births`` for this run only."""
    saved = {}
    for name, value in config.get("constants", {}).items():
        for module in (births_module, hdp_module):
            if hasattr(module, name):
                saved[(module, name)] = getattr(module, name)
                setattr(module, name, value)
    try:
        return _train(collection, seed, epochs, config)
    finally:
        for (module, name), value in saved.items():
            setattr(module, name, value)


def _train(collection, seed: int, epochs: int, config: dict) -> dict:
    train_docs, validation = collection.train, None
    if config.get("validation"):  # documents set aside from training to judge the undo
        split = engine.heldout_split(train_docs, config["validation"], seed=[seed, 5])
        train_docs, validation = split.train, (split.observed, split.heldout)
    D, V = train_docs.shape
    started = time.perf_counter()
    model = engine.HDP(n_topics=HDP_TRUNCATION, doc_truncation=HDP_DOC_TRUNCATION, n_words=V, seed=seed,
                       **{"reorder_topics": False, "births": 0, **config.get("model", {})})
    trainer = engine.SVI(model, corpus=train_docs, seed=seed)
    rng = np.random.default_rng([seed, 77])
    born: dict[int, list[tuple[int, int]]] = {}
    undone = rounds_done = 0
    for epoch in range(1, epochs + 1):
        trainer.run(n_docs=epoch * D - trainer.docs_seen)
        if config.get("births") and epoch <= config.get("birth_epochs", 3) and epoch < epochs \
                and len(born) + rounds_done < config.get("birth_rounds", epochs) and _tail_faded(model, config):
            splitter = (DocumentSplit(model, train_docs, rng, n_docs=config.get("split_docs", 2000))
                        if config.get("split") == "documents" else None)
            born[epoch] = births(model, rng, config["births"], config.get("mode", "merge"),
                                 config.get("skip_general", False), config.get("min_weight", 0.0), splitter)
        due = epoch - config.get("undo_after", epochs)
        if due in born:
            reference = collection.prepared("coherence") if config.get("undo_incoherent") else None
            merged = undo(model, born.pop(due), config.get("undo_js", 0.01), reference, validation)
            undone += len(merged)
            into = dict((child, donor) for donor, child in merged)
            for epoch_born, pairs in born.items():  # a later pair of an emptied child is now the donor's
                renamed = [(into.get(a, a), into.get(b, b)) for a, b in pairs]
                born[epoch_born] = [(a, b) for a, b in renamed if a != b]
            rounds_done += 1
    seconds = time.perf_counter() - started
    evaluator = quality.engine_evaluator(model)
    record = quality.score(evaluator, "hdp", collection)
    largest = np.argsort(-np.asarray(evaluator.topic_weights()))[:20]  # the same number of topics for every run
    top = np.asarray(evaluator.top_words(quality.N_TOP))[largest]
    npmi20 = float(collection.prepared("coherence").score(top, measure="npmi").mean())
    in_use = np.flatnonzero(np.asarray(evaluator.topic_weights()) >= 0.01)
    copies = _probe.repeated_topics(np.asarray(evaluator.top_words(quality.N_TOP))[in_use].tolist())
    return {"ll": record["heldout_loglik"], "npmi": record["npmi"], "npmi_top20": npmi20,
            "in_use": record["topics_in_use"], "general": record["general_topics"], "undone": undone,
            "copies": copies, "seconds": seconds}


if __name__ == "__main__":
    _probe.main(__doc__.splitlines()[0], train, "{births, birth_epochs, birth_rounds, mode, undo_after, undo_js, "
                "undo_incoherent, skip_general, min_weight, split, split_docs, validation, gate, model, constants}")
