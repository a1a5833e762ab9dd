"""Topic births of the HDP: split a topic along the documents that use it; merge back halves that stay copies.

A birth move in the spirit of memoized online VI (Hughes & Sudderth, NIPS 2013): between
epochs the largest topics are each split in two, not word by word at random, but by the
documents that use them, so the halves are two themes a document chooses between; a
pair whose word distributions are still nearly the same some epochs later found no
structure and is merged back.  :meth:`engine.HDP.prepare_step` runs the schedule;
everything here works on float64 copies of the globals:

- ``excess`` (K, V): the topics' expected word counts lambda - eta;
- ``sticks`` (K,): the corpus stick counts N_k of a_k = 1 + N_k, b_k = omega + sum_{l>k} N_l.

Measurements behind every constant: benchmarks/RESULTS.md, runs 28 and 29.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from engine.kernels import cached_call, entry_mixtures
from engine.kernels.reference.hdp import stick_weights
from engine.models._sticks import sticks_from_counts
from engine.models.inspection import top_indices
from engine.models.intertopic import jensen_shannon

BIRTH_ROUNDS = 3  # one round after each of the first three epochs
BIRTH_SAMPLE = 2000  # training documents folded in per round (a minibatch of 256 measured too few)
BIRTH_MIN_WEIGHT = 0.01  # only topics of at least this corpus weight are split
SAMPLE_TOL = 1e-2  # the sample's fold-in stops at min(this, the model's local_tol): 0.1 lost 0.02 on SOTU
UNDO_AFTER = 4  # epochs after its birth a pair is judged
UNDO_DIVERGENCE = 0.02  # nats (Jensen-Shannon): closer halves are merged back
UNDO_SHARED_TOP = 7  # ... and so are halves whose 10 top words share at least this many
_MIN_THETA = 0.1  # a document "uses" the topic when it gives it this share
_MIN_DOCS = 10  # fewer such documents: the topic is not split
_ITERATIONS = 10  # rounds of spherical 2-means
_SMOOTHING = 0.1  # each word's share leans towards 1/2 by this fraction of the mean count
_SPREAD_CELLS = 1 << 16  # cells of excess that take their share of an emptied slot at once (in cache)


class DocumentSplit:
    """Splits of topics by the sample ``counts`` (CSR, n_docs x V) of training documents.

    ``theta`` (n_docs, K) holds the documents' topic proportions and ``topics`` (K, V)
    the topics' expected word distributions E[beta], both from the model as it is when
    the round starts.  ``kernel``: the model's, which runs the per-entry topic mixtures
    (:func:`engine.kernels.entry_mixtures`); ``workload``: the model's warm-up workload,
    which loads them from numba's cache (:func:`engine.kernels.cached_call`), or None.
    """

    def __init__(self, counts: sp.csr_matrix, theta: np.ndarray, topics: np.ndarray, rng: np.random.Generator,
                 kernel: str = "numpy", workload: str | None = None):
        self.counts = sp.csr_matrix(counts, dtype=np.float64, copy=True)
        self.counts.sort_indices()  # in place, on the copy
        self.theta = np.asarray(theta, dtype=np.float64)
        self.topics = np.asarray(topics, dtype=np.float64)
        self.rng = rng
        # per stored entry: n_dw / sum_j theta_dj beta_jw, shared by every topic's split; the mixtures in
        # float32, which halves the rows read (they only rank documents for 2-means)
        by_word = np.ascontiguousarray(self.topics.T, dtype=np.float32)  # (V, K): one word's row is contiguous
        theta32 = self.theta.astype(np.float32)

        def mixtures() -> np.ndarray:
            return entry_mixtures(kernel)(self.counts.indptr, self.counts.indices, theta32, by_word)

        mixture = mixtures() if workload is None else cached_call(kernel, workload, mixtures)
        self._scaled = self.counts.data / np.maximum(mixture, 1e-300)

    def responsibilities(self, topic: int, docs: np.ndarray) -> sp.csr_matrix:
        """c_dw = n_dw theta_dk beta_kw / sum_j theta_dj beta_jw of ``topic`` k in the documents ``docs`` (ascending).

        Computed on those documents' stored entries only, in their order.
        """
        starts, lengths = self.counts.indptr[docs], np.diff(self.counts.indptr)[docs]
        indptr = np.zeros(docs.size + 1, dtype=self.counts.indptr.dtype)
        np.cumsum(lengths, out=indptr[1:])
        entries = np.repeat(starts - indptr[:-1], lengths) + np.arange(indptr[-1])  # their positions in counts
        words = self.counts.indices[entries]
        values = self._scaled[entries] * np.repeat(self.theta[docs, topic], lengths) * self.topics[topic][words]
        return sp.csr_matrix((values, words, indptr), shape=(docs.size, self.counts.shape[1]))

    def shares(self, topic: int) -> tuple[np.ndarray, float] | None:
        """(each word's share that goes to the new topic, the new topic's share of the documents' mass), or None.

        The documents using ``topic`` (theta_dk >= 0.1), each represented by its words'
        responsibilities to it, are parted into A and B by spherical 2-means (cosine
        similarity to the two centres, started from two documents drawn in proportion to
        their mass): word w goes to the new topic in the share (B_w + s) / (A_w + B_w + 2s),
        s being 0.1 of the mean word count.  None when fewer than 10 documents use the
        topic or the documents do not part in two.
        """
        docs = np.flatnonzero(self.theta[:, topic] >= _MIN_THETA)
        if docs.size < _MIN_DOCS:
            return None
        weighted = self.responsibilities(topic, docs)
        lengths = np.diff(weighted.indptr)
        mass = np.asarray(weighted.sum(axis=1)).ravel()
        norms = np.sqrt(np.bincount(np.repeat(np.arange(docs.size), lengths), weighted.data * weighted.data,
                                    minlength=docs.size))
        if np.count_nonzero(mass > 0) < 2:
            return None
        unit = sp.csr_matrix((weighted.data * np.repeat(1.0 / np.maximum(norms, 1e-300), lengths),
                              weighted.indices, weighted.indptr), shape=weighted.shape)
        centres = np.zeros((2, weighted.shape[1]))
        drawn = self.rng.choice(docs.size, size=2, replace=False, p=mass / mass.sum())
        for centre, row in zip(centres, drawn, strict=True):
            part = slice(unit.indptr[row], unit.indptr[row + 1])
            centre[unit.indices[part]] = unit.data[part]
        by_word = weighted.T  # (V, docs), CSC: a group's word sums are one product with its 0/1 indicator
        group = None
        for _ in range(_ITERATIONS):
            previous, group = group, unit @ centres[1] > unit @ centres[0]
            if group.all() or not group.any():
                return None
            if previous is not None and np.array_equal(group, previous):
                break  # the same groups give the same centres: every later round would repeat this one
            centres = np.vstack([by_word @ (~group).astype(np.float64), by_word @ group.astype(np.float64)])
            centres /= np.linalg.norm(centres, axis=1, keepdims=True)
        kept = by_word @ (~group).astype(np.float64)
        moved = by_word @ group.astype(np.float64)
        prior = _SMOOTHING * float((kept + moved).mean())
        return (moved + prior) / (kept + moved + 2.0 * prior), float(moved.sum() / (kept.sum() + moved.sum()))


def birth_round(excess: np.ndarray, sticks: np.ndarray, omega: float, n_births: int, general: np.ndarray,
                split: DocumentSplit, pending: np.ndarray | None = None) -> list[tuple[int, int]]:
    """Split up to ``n_births`` of the largest topics into freed slots, in place; the (donor, new topic) pairs.

    In turn, the topic holding the most expected words is split, skipping the ``general``
    topics (copies of the overall word use), topics of corpus weight under 0.01, topics
    already split or made this round, and topics ``split`` cannot part.  Its slot is the
    topic holding the fewest words (on a truncation of 150, an unused one) among those not
    made or split this round and not in a ``pending`` pair (of an earlier round, not yet
    judged); with none left the round ends.  The slot's words and stick count are first
    spread over all other topics in proportion to their words, so nothing is dropped.  The
    donor keeps each word's counts but the new topic's share; its stick count is parted as
    the two groups of documents' mass.
    """
    reserved = np.zeros(excess.shape[0], dtype=bool)
    if pending is not None:
        reserved[np.asarray(pending, dtype=np.intp)] = True
    touched = np.zeros(excess.shape[0], dtype=bool)  # split or made this round: neither donor nor slot again
    general_ = np.zeros(excess.shape[0], dtype=bool)
    general_[np.asarray(general, dtype=np.intp)] = True
    pairs: list[tuple[int, int]] = []
    rows = _SpreadRows(excess)
    while len(pairs) < n_births:
        open_ = ~touched & ~general_ & (stick_weights(sticks_from_counts(sticks, omega)) >= BIRTH_MIN_WEIGHT)
        if not open_.any():
            break
        donor = int(np.flatnonzero(open_)[np.argmax(rows.totals[open_])])
        touched[donor] = True
        found = split.shares(donor)
        if found is None:
            continue
        candidates = np.flatnonzero(~touched & ~reserved)
        if candidates.size == 0:
            break
        slot = int(candidates[np.argmin(rows.totals[candidates])])
        rows.spread(slot, sticks)
        moved, share = found
        whole = rows.row(donor)
        rows.set(slot, whole * moved)
        rows.set(donor, whole * (1.0 - moved))
        sticks[slot], sticks[donor] = sticks[donor] * share, sticks[donor] * (1.0 - share)
        touched[slot] = True
        pairs.append((donor, slot))
    rows.apply()
    return pairs


class _SpreadRows:
    """The rows of ``excess`` (K, V) with the round's spreads held back: excess + W E until :meth:`apply`.

    Emptying a slot into every other topic touches the whole store; a round empties up to
    ``births`` slots.  Each spread is kept as a column of weights w_j (K,) and the emptied
    row e_j (V,); a row is read as excess_k + sum_j w_jk e_j, and :meth:`apply` adds W E
    to the store once, a block of rows at a time.  ``totals`` holds the rows' sums
    throughout, each spread adding w_jk sum(e_j).
    """

    def __init__(self, excess: np.ndarray):
        self.excess = excess
        self.totals = excess.sum(axis=1)
        self._weights: list[np.ndarray] = []
        self._emptied: list[np.ndarray] = []

    def row(self, k: int) -> np.ndarray:
        """Row ``k`` as the spreads so far leave it (a new array)."""
        values = self.excess[k].copy()
        for weights, emptied in zip(self._weights, self._emptied, strict=True):
            if weights[k]:
                values += weights[k] * emptied
        return values

    def set(self, k: int, values: np.ndarray) -> None:
        """Make row ``k`` ``values``: earlier spreads no longer add to it."""
        self.excess[k] = values
        self.totals[k] = values.sum()
        for weights in self._weights:
            weights[k] = 0.0

    def spread(self, slot: int, sticks: np.ndarray) -> None:
        """Empty topic ``slot``'s words and stick count into all the others, in proportion to their words.

        Nothing is dropped: row k gains w_k e with w_k = totals_k / sum_{l != slot} totals_l,
        and stick count k gains w_k times the slot's.
        """
        emptied = self.row(slot)
        weights = self.totals / max(float(np.delete(self.totals, slot).sum()), 1e-300)
        weights[slot] = 0.0
        sticks += weights * sticks[slot]
        sticks[slot] = 0.0
        self.totals += weights * emptied.sum()
        self.set(slot, np.zeros_like(emptied))
        self._weights.append(weights)
        self._emptied.append(emptied)

    def apply(self) -> None:
        """Add the held-back spreads to ``excess`` (W E, a block of rows at a time: no second (K, V) array)."""
        if not self._weights:
            return
        weights, emptied = np.column_stack(self._weights), np.vstack(self._emptied)
        block = max(1, _SPREAD_CELLS // max(1, self.excess.shape[1]))
        for start in range(0, self.excess.shape[0], block):
            self.excess[start:start + block] += weights[start:start + block] @ emptied
        self._weights, self._emptied = [], []


def undo_pairs(excess: np.ndarray, sticks: np.ndarray, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merge each pair that stayed alike back into its donor, in place; those merged.

    Alike: word distributions within 0.02 nats (Jensen-Shannon), or 10 top words sharing 7
    or more (what a reader sees as one topic twice).

    The donor takes the new topic's expected words and stick count, and the new topic is
    emptied.  A pair of which one topic holds no words (emptied by an earlier merge) is
    left alone.
    """
    merged = []
    for donor, child in pairs:
        a, b = excess[donor].sum(), excess[child].sum()
        if a <= 0 or b <= 0:
            continue
        rows = np.stack((excess[donor] / a, excess[child] / b))
        if (jensen_shannon(rows)[0, 1] < UNDO_DIVERGENCE
                or np.intersect1d(*top_indices(rows, 10)).size >= UNDO_SHARED_TOP):
            excess[donor] += excess[child]
            sticks[donor] += sticks[child]
            excess[child], sticks[child] = 0.0, 0.0
            merged.append((donor, child))
    return merged


def rename_merged(pending: list[tuple[int, int, int]], merged: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """The pending (round, donor, child) pairs with each merged-back topic renamed to the topic it went into.

    A pair that becomes one topic twice is dropped.
    """
    into = {child: donor for donor, child in merged}
    renamed = [(when, into.get(a, a), into.get(b, b)) for when, a, b in pending]
    return [(when, a, b) for when, a, b in renamed if a != b]


def read_clock(clock: dict, n_topics: int) -> tuple[float, int, list[tuple[int, int, int]]]:
    """(epochs seen, birth rounds, pending pairs) of an HDP training clock read from a file; ValueError if malformed."""
    if set(clock) != {"epochs_seen", "birth_rounds", "pairs"}:
        raise ValueError(f"an HDP training clock holds epochs_seen, birth_rounds and pairs, got {sorted(clock)}")
    epochs, rounds, pairs = clock["epochs_seen"], clock["birth_rounds"], clock["pairs"]
    if isinstance(epochs, bool) or not isinstance(epochs, (int, float)) or not 0 <= epochs < float("inf"):
        raise ValueError(f"the training clock's epochs_seen must be a finite number >= 0, got {epochs!r}")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 0 <= rounds <= BIRTH_ROUNDS:
        raise ValueError(f"the training clock's birth_rounds must be a whole number in [0, {BIRTH_ROUNDS}], "
                         f"got {rounds!r}")
    if not isinstance(pairs, list) or len(pairs) > BIRTH_ROUNDS * n_topics:
        raise ValueError("the training clock's pairs must be a list of [round, topic, topic]")
    checked = []
    for pair in pairs:
        if (not isinstance(pair, list) or len(pair) != 3
                or any(isinstance(x, bool) or not isinstance(x, int) for x in pair)
                or not 1 <= pair[0] <= rounds or not all(0 <= x < n_topics for x in pair[1:])
                or pair[1] == pair[2]):
            raise ValueError(f"the training clock's pairs must be [round in 1..{rounds}, topic, other topic] "
                             f"with topics in [0, {n_topics}), got {pair!r}")
        checked.append((pair[0], pair[1], pair[2]))
    return float(epochs), rounds, checked
