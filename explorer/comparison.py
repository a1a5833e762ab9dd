"""Stochastic vs batch: SVI and batch VI trained one after the other on the same collection.

No Streamlit here.  A :class:`Comparison` owns a small coordinating thread that starts
each engine run in turn (through the :class:`~explorer.runs.ThreadLimiter`, so it uses
one training thread at a time), lets it train for the same budget of training seconds,
and moves on.  As in Hoffman et al. (2013), a large collection also gets batch VI on a
random subset.  The page only reads snapshots.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from explorer import formatting
from explorer.engine_api import TopicMatch
from explorer.runs import CapReachedError, RunRecord, RunSettings, ThreadLimiter, create_run
from explorer.storage import Collection

__all__ = ["LARGE_COLLECTION", "Comparison", "plan", "same_topics", "summary"]

LARGE_COLLECTION = 2_000  # documents; above this batch VI also runs on a subset
SUBSET_SHARE = 0.1


@dataclass(frozen=True)
class Leg:
    """One algorithm of the comparison."""

    label: str
    collection: Collection
    settings: RunSettings


def plan(collection: Collection, settings: RunSettings, seed: int = 0) -> list[Leg]:
    """SVI, batch VI on everything and, for a large collection, batch VI on a subset."""
    n_docs = collection.corpus.n_docs
    svi = replace(settings, algorithm="svi", target_docs=10**9)
    batch = replace(settings, algorithm="batch")
    legs = [
        Leg(f"Stochastic VI (minibatches of {formatting.count(svi.batch_size)})", collection, svi),
        Leg(f"Batch VI on all {formatting.count(n_docs)} documents", collection, batch),
    ]
    if n_docs > LARGE_COLLECTION:
        size = max(settings.n_test + 50, int(SUBSET_SHARE * n_docs))
        rows = np.sort(np.random.default_rng(seed).choice(n_docs, size=size, replace=False))
        subset = Collection.of(collection.corpus.subset(rows), f"{collection.name} (subset)", collection.origin)
        legs.append(Leg(f"Batch VI on a subset of {formatting.count(size)} documents", subset, batch))
    return legs


class Comparison:
    """Runs the legs one after the other, each for ``seconds`` of training time."""

    def __init__(self, legs: list[Leg], seconds: float, limiter: ThreadLimiter):
        self.legs = legs
        self.seconds = float(seconds)
        self.limiter = limiter
        self.records: list[RunRecord] = [
            # one kernel for every leg, so that their speeds compare
            create_run(leg.collection, leg.settings, leg.label, max_seconds=self.seconds, checkpoint=False,
                       one_kernel=True)
            for leg in legs
        ]
        self.error: str | None = None
        self.started = time.time()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._work, name="comparison", daemon=True)

    def start(self) -> None:
        if not self.limiter.has_room():
            raise CapReachedError(self.limiter.message())
        self._thread.start()

    def _work(self) -> None:
        for record in self.records:
            while not self._stop.is_set():
                try:
                    self.limiter.start(record.run)
                    break
                except CapReachedError:
                    self._stop.wait(0.5)
            if self._stop.is_set():
                record.run.stop()
                continue
            while not record.run.wait(0.2):
                if self._stop.is_set():
                    record.run.stop()
            snap = record.run.snapshot()
            if snap.error:
                self.error = f"{record.name}: {snap.error}"

    @property
    def active(self) -> bool:
        return self._thread.is_alive()

    @property
    def finished(self) -> bool:
        return self._thread.ident is not None and not self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        for record in self.records:
            if record.run.is_alive:
                record.run.stop()

    def progress(self) -> float:
        """Share of the total training budget used so far, in [0, 1]."""
        used = 0.0
        for record in self.records:
            if record.status in ("stopped", "finished", "failed"):
                used += self.seconds
            elif record.status != "ready":
                used += min(self.seconds, record.run.snapshot().seconds)
        return min(1.0, used / (self.seconds * len(self.records)))

    def current(self) -> RunRecord | None:
        return next((r for r in self.records if r.active), None)


def summary(comparison: Comparison) -> str:
    """What the finished comparison shows, in plain words with its numbers."""
    finals = []
    for record in comparison.records:
        history, _ = record.curve()
        if history:
            snap = record.snapshot()
            finals.append((record.name, history[-1].heldout_loglik, snap.epoch, snap.t))
    if len(finals) < 2:
        return "Not enough measurements to compare; try a longer training time."
    lines = [f"After about {formatting.duration(comparison.seconds)} of training each:"]
    for name, loglik, epochs, steps in finals:
        lines.append(f"- **{name}**: held-out log likelihood **{formatting.number(loglik)}** after "
                     f"{formatting.plural(steps, 'update')} ({formatting.number(epochs)} passes over its documents)")
    best = max(finals, key=lambda f: f[1])
    lines.append("")
    if best[0] == finals[0][0]:
        lines.append("Stochastic VI comes out ahead: it updated the topics after every small batch instead of "
                     "waiting for a full pass, so in the same time it made many more (noisier, but useful) "
                     "improvements. Higher (closer to 0) is better.")
    else:
        lines.append(f"Here **{best[0]}** came out ahead. On a small collection one batch pass is quick, so "
                     "batch inference can keep up; the advantage of the stochastic version grows with the size "
                     "of the collection. Higher (closer to 0) is better.")
    return "\n".join(lines)


def same_topics(comparison: Comparison, match: Callable[[RunRecord, RunRecord], TopicMatch]) -> str | None:
    """Whether batch VI found stochastic VI's topics: how many of them each batch leg finds again.

    ``match(record, other)`` pairs two runs' topics (``engine.match_topics``, cached by the
    page); None while a leg has no model.
    """
    svi, *batches = comparison.records
    if svi.model() is None or any(batch.model() is None for batch in batches):
        return None
    parts = []
    for batch in batches:
        found = match(svi, batch)
        parts.append(f"**{formatting.count(found.n_recurring())} of the {formatting.count(found.n_topics)}** in "
                     f"{batch.name[0].lower()}{batch.name[1:]}")
    return ("Do they find the same topics? Of stochastic VI's topics, " + " and ".join(parts) + " are found again: "
            "each and its partner there are each other's closest topic (`engine.match_topics`). Topics that both "
            "algorithms find are the collection's clearest themes.")
