"""Tidy DataFrames built from runs and models, for charts, tables and CSV downloads (no Streamlit)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from explorer import formatting, quality
from explorer.charts import topic_color
from explorer.engine_api import intertopic_coordinates, step_size, top_relevant_words, unique_labels
from explorer.runs import RunRecord, where_text

__all__ = [
    "alpha_frame",
    "changes_frame",
    "curves_frame",
    "intertopic_frame",
    "raised_steps",
    "run_table",
    "schedule_frame",
    "topic_words_frame",
    "topics_csv_frame",
]

SETTING_SYMBOLS = {"kappa": "κ", "tau": "τ", "batch_size": "S", "kernel": "kernels"}
KERNEL_NAMES = {"numpy": "NumPy", "compiled": "compiled"}
COHERENCE_COLUMN = "Coherence (NPMI)"
LIVE_COLUMN = "Live topics"
CURVE_COLUMNS = ["run", "step", "docs_seen", "seconds", "heldout_loglik", "rho"]


def curves_frame(records: Iterable[RunRecord]) -> pd.DataFrame:
    """One row per held-out evaluation of each run: run, step, docs_seen, seconds, heldout_loglik, rho."""
    rows = []
    for record in records:
        history, _ = record.curve()
        rows.extend((record.name, p.step, p.docs_seen, p.seconds, p.heldout_loglik, p.rho) for p in history)
    return pd.DataFrame(rows, columns=CURVE_COLUMNS)


def _value(name: str, value: float | str) -> str:
    if name == "kernel":  # the run switched from the NumPy reference to the compiled kernels
        return KERNEL_NAMES.get(str(value), str(value))
    return formatting.count(value) if name == "batch_size" else f"{value:g}"


def changes_frame(records: Iterable[RunRecord]) -> pd.DataFrame:
    """One row per mid-run setting change: run, step, docs_seen, seconds, change ("κ 0.9 → 0.5")."""
    rows = []
    for record in records:
        _, changes = record.curve()
        for c in changes:
            if c.name == "births":  # the HDP split topics: round -> how many
                text = f"{formatting.plural(int(c.new), 'topic')} split in two (births, round {int(c.old)})"
            elif c.name == "merges":  # the run ended: pending split pairs judged -> merged back
                text = (f"{formatting.plural(int(c.new), 'split pair')} of {formatting.count(int(c.old))} "
                        "merged back at the end (the halves stayed alike)")
            else:
                symbol = SETTING_SYMBOLS.get(c.name, c.name)
                text = f"{symbol} {_value(c.name, c.old)} → {_value(c.name, c.new)}"
            rows.append((record.name, c.step, c.docs_seen, c.seconds, text))
    return pd.DataFrame(rows, columns=["run", "step", "docs_seen", "seconds", "change"])


WHERE_COLUMN = "Trains on"  # this server, or the Dask scheduler of the run's local steps


def run_table(records: Sequence[RunRecord], status_text,
              topic_quality: Callable[[RunRecord], quality.TopicQuality | None] | None = None) -> pd.DataFrame:
    """The run list: one row per run with its settings and progress, formatted for people.

    With ``topic_quality`` (a run's :class:`~explorer.quality.TopicQuality`, e.g.
    ``cached.run_quality``), two more columns follow the held-out score: the mean NPMI
    coherence of the run's topics (an HDP's topics in use) and its live topics out of K.  The last column says
    where the run trains (this server or a Dask scheduler).
    """
    rows = []
    for record in records:
        snap = record.snapshot()
        history, _ = record.curve()
        s = record.settings
        scheduled = s.algorithm == "svi" and s.step_size == "schedule"  # batch VI and the adaptive rule use no κ, τ
        rows.append({
            "Run": record.name,
            "Status": status_text(record),
            "Model": s.model if s.model == "LDA" else f"HDP (T={s.doc_truncation}{'' if s.births else ', no splits'})",
            "K": s.n_topics,
            "κ": "—" if not scheduled else f"{(snap.kappa if snap and snap.kappa is not None else s.kappa):g}",
            "τ": "—" if not scheduled else f"{(snap.tau if snap and snap.tau is not None else s.tau):g}",
            "S": formatting.count(snap.batch_size if snap else s.batch_size),
            "Documents analysed": formatting.count(
                snap.docs_seen if snap else (history[-1].docs_seen if history else 0)),
            "Training time": formatting.duration(snap.seconds if snap else (history[-1].seconds if history else 0)),
            "Held-out log likelihood": formatting.number(history[-1].heldout_loglik) if history else "–",
        })
        if topic_quality is not None:
            measured = topic_quality(record)
            rows[-1][COHERENCE_COLUMN] = quality.coherence_text(None if measured is None else measured.mean_coherence)
            rows[-1][LIVE_COLUMN] = quality.live_text(measured)
        rows[-1][WHERE_COLUMN] = where_text(s)
    return pd.DataFrame(rows)


def _n_updates(batch_size: int, target_docs: int, first_pass: tuple[int, int] | None = None) -> int:
    """The SVI updates a run of ``target_docs`` documents makes, ``batch_size`` a step.

    ``first_pass``: (size, updates), the run's first ``updates`` steps taking ``size`` documents
    each (an LDA's first pass over a small collection, ``engine.LDA(first_pass_steps=...)``).
    """
    if first_pass is not None:
        size, updates = first_pass
        if target_docs > size * updates:
            return updates + int(np.ceil((target_docs - size * updates) / max(1, batch_size)))
        batch_size = size
    return max(1, int(np.ceil(target_docs / max(1, batch_size))))


def _docs_after(steps: np.ndarray, batch_size: int, first_pass: tuple[int, int] | None) -> np.ndarray:
    """The documents a run has read after each update t in ``steps`` (``first_pass`` as for :func:`_n_updates`)."""
    if first_pass is None:
        return steps * batch_size
    size, updates = first_pass
    early = np.minimum(steps, updates)
    return early * size + (steps - early) * batch_size


def schedule_frame(kappa: float, tau: float, batch_size: int, target_docs: int, points: int = 150,
                   planned: Callable[[int, float], float] | None = None,
                   first_pass: tuple[int, int] | None = None) -> pd.DataFrame:
    """rho_t = (t + tau)^-kappa over the updates a run of ``target_docs`` documents makes.

    ``planned``: the model's rule for update t from its random start given the schedule's
    rho_t (``model.planned_step_size``: at least 1/(t + 1) under the default step floor);
    unset: the schedule itself.  ``first_pass``: (size, updates) of smaller first steps, as
    for :func:`_n_updates`.
    """
    n_steps = _n_updates(batch_size, target_docs, first_pass)
    steps = np.unique(np.linspace(1, n_steps, min(points, n_steps)).round().astype(int))
    rho = step_size(steps, kappa, tau)
    if planned is not None:
        rho = np.array([planned(int(t), float(r)) for t, r in zip(steps, rho, strict=True)])
    return pd.DataFrame({"docs_seen": _docs_after(steps, batch_size, first_pass), "rho": rho})


def raised_steps(kappa: float, tau: float, batch_size: int, target_docs: int,
                 planned: Callable[[int, float], float], first_pass: tuple[int, int] | None = None) -> int:
    """How many of a run's first updates ``planned`` (as above) takes larger than the schedule's rho_t.

    The raised updates are the first ones (the schedule falls more slowly than the floor
    1/(t + 1) once tau >= 1), so a bisection finds the last in a few calls, however long the run.
    """
    n_steps = _n_updates(batch_size, target_docs, first_pass)

    def raised(t: int) -> bool:
        rho = float(step_size(t, kappa, tau))
        return planned(t, rho) > rho

    if not raised(1):
        return 0
    low, high = 1, n_steps  # raised(low) holds; find the last t <= n_steps where it does
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if raised(middle) else (low, middle - 1)
    return low


def topic_words_frame(model, vocabulary: Sequence[str], weight: float, n: int) -> list[pd.DataFrame]:
    """Per topic, its ``n`` most relevant words (LDAvis relevance with lambda = ``weight``)."""
    indices, probabilities = top_relevant_words(model, n=n, weight=weight)
    return [
        pd.DataFrame({"word": [vocabulary[i] for i in row], "probability": probs, "rank": np.arange(len(row))})
        for row, probs in zip(indices, probabilities, strict=True)
    ]


def topics_csv_frame(model, vocabulary: Sequence[str], labels: Sequence[str], n: int = 30) -> pd.DataFrame:
    """Download table: topic, label, word, weight (p(w | topic)) for each topic's ``n`` most probable words.

    Topics are numbered from 0, as everywhere; labels are made unique ("Economy (topic 3)").
    """
    indices, probabilities = top_relevant_words(model, n=n, weight=1.0)
    labels = unique_labels(labels)
    rows = [(k, labels[k], vocabulary[i], float(p))
            for k, (row, probs) in enumerate(zip(indices, probabilities, strict=True))
            for i, p in zip(row, probs, strict=True)]
    return pd.DataFrame(rows, columns=["topic", "label", "word", "weight"])


def alpha_frame(alpha, labels: Sequence[str], order: Sequence[int]) -> pd.DataFrame:
    """A learned (per-topic) alpha in card order: position, topic, label, alpha, color.

    ``alpha`` has one value per topic; ``order`` lists the topics as the cards show them.
    """
    values = np.asarray(alpha, dtype=np.float64)
    return pd.DataFrame({
        "position": np.arange(len(order)),
        "topic": [int(k) for k in order],
        "label": [labels[k] for k in order],
        "alpha": [float(values[k]) for k in order],
        "color": [topic_color(k) for k in order],
    })


def intertopic_frame(model, labels: Sequence[str], topics: Sequence[int]) -> pd.DataFrame:
    """The intertopic map's circles, largest first: topic, label, x, y, share, color.

    x and y place ``topics`` by the principal coordinates of their Jensen-Shannon
    divergences (the engine's :func:`~engine.intertopic_coordinates`, as LDAvis); ``share``
    is each topic's share of the words (``model.word_shares()``), the circle's area.
    """
    topics = [int(k) for k in topics]
    xy = intertopic_coordinates(model.expected_topics()[topics])
    shares = model.word_shares()
    frame = pd.DataFrame({
        "topic": topics,
        "label": [labels[k] for k in topics],
        "x": xy[:, 0],
        "y": xy[:, 1],
        "share": [float(shares[k]) for k in topics],
        "color": [topic_color(k) for k in topics],
    })
    return frame.sort_values("share", ascending=False, kind="stable").reset_index(drop=True)
