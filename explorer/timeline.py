"""Topics over time: find a collection's time column and each topic's share of the words per period.

No Streamlit here.  A time column is one of a table's other columns (see
:attr:`explorer.storage.Collection.columns`) whose values are integer years in a
plausible range or parseable dates; documents without a value are left out.  The share
of topic k in period p is

    sum over the documents d of p of (length of d x proportion of k in d) / words in p,

so each period's shares add up to 1 and long documents weigh as much as their words.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = [
    "MAX_YEAR", "MIN_YEAR", "SHARE_CAPTION", "periods", "time_columns", "top_topics", "topic_shares", "unique_labels",
]

MIN_YEAR, MAX_YEAR = 1000, 2200
_MIN_FILLED = 0.9  # a time column has a value for at least this share of the documents
SHARE_CAPTION = ("A topic's share of a period is the sum, over that period's documents, of each document's length "
                 "(in words) times the topic's proportion in it, divided by all the words of the period.")


def _years(values: pd.Series) -> pd.Series | None:
    """Integer years (NaN where empty), or None if the values are not years."""
    filled = values[values.str.strip() != ""].str.strip()
    if filled.empty or not filled.str.fullmatch(r"[+-]?\d{1,4}").all():
        return None
    years = pd.to_numeric(values.str.strip().replace("", np.nan), errors="coerce")
    if not years.dropna().between(MIN_YEAR, MAX_YEAR).all():
        return None
    return years


def _dates(values: pd.Series) -> pd.Series | None:
    """Parsed dates (NaT where empty or unreadable), or None if the values are not dates."""
    text = values.str.strip()
    if text.str.fullmatch(r"[+-]?[\d.]*").all():  # numbers (ids, counts) are not dates
        return None
    dates = pd.to_datetime(text.replace("", None), errors="coerce", format="mixed")
    return dates if dates.notna().any() else None


def periods(values: Sequence[str]) -> pd.Series | None:
    """The period of each document: an integer year (float, NaN if missing) or a date (NaT if missing).

    Returns None when ``values`` are neither years nor dates for at least 90 % of the documents
    or take a single value.
    """
    series = pd.Series(list(values), dtype=str)
    parsed = _years(series)
    if parsed is None:
        parsed = _dates(series)
    if parsed is None or parsed.notna().mean() < _MIN_FILLED or parsed.nunique() < 2:
        return None
    if not np.issubdtype(parsed.dtype, np.number):
        span = parsed.max() - parsed.min()
        # several years of dates: one point a year; a shorter span: one a month
        freq = "Y" if span > pd.Timedelta(days=3 * 365) else "M"
        parsed = parsed.dt.to_period(freq).dt.to_timestamp()
    return parsed


def time_columns(columns: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    """The names of the columns that hold years or dates (columns named like "year" or "date" first)."""
    found = [name for name, values in columns if periods(values) is not None]
    return sorted(found, key=lambda name: not any(w in name.lower() for w in ("year", "date", "time")))


def topic_shares(doc_topic: np.ndarray, lengths: np.ndarray, when: pd.Series,
                 labels: Sequence[str]) -> pd.DataFrame:
    """Each topic's share of the words of each period, long: ``period``, ``topic``, ``label``, ``share``.

    Parameters
    ----------
    doc_topic : ndarray of shape (n_docs, n_topics)
        Topic proportions of each document (rows sum to 1).
    lengths : ndarray of shape (n_docs,)
        Words in each document.
    when : Series of length n_docs
        Each document's period (from :func:`periods`); documents without one are left out.
    labels : sequence of str
        One label per topic.
    """
    keep = np.asarray(when.notna())
    codes, uniques = pd.factorize(when[keep], sort=True)
    lengths = np.asarray(lengths, dtype=float)[keep]
    weighted = np.asarray(doc_topic, dtype=float)[keep] * lengths[:, None]
    words = np.zeros((len(uniques), weighted.shape[1]))
    np.add.at(words, codes, weighted)
    totals = np.bincount(codes, weights=lengths, minlength=len(uniques))
    share = words / np.where(totals > 0, totals, 1.0)[:, None]
    n_periods, n_topics = share.shape
    period = uniques.astype(int) if np.issubdtype(uniques.dtype, np.number) else uniques
    return pd.DataFrame({
        "period": np.repeat(np.asarray(period), n_topics),
        "topic": np.tile(np.arange(n_topics), n_periods),
        "label": np.tile(np.asarray(list(labels), dtype=object), n_periods),
        "share": share.ravel(),
    })


def top_topics(doc_topic: np.ndarray, lengths: np.ndarray, n: int) -> list[int]:
    """The ``n`` topics with the largest share of all the words, largest first."""
    overall = np.asarray(lengths, dtype=float) @ np.asarray(doc_topic, dtype=float)
    return [int(k) for k in np.argsort(-overall, kind="stable")[:n]]


def unique_labels(labels: Sequence[str]) -> list[str]:
    """The labels, with " (topic k)" added to any that another topic shares (a chart's legend needs unique names)."""
    seen = pd.Series(list(labels)).duplicated(keep=False)
    return [f"{label} (topic {k})" if repeated else label
            for k, (label, repeated) in enumerate(zip(labels, seen, strict=True))]
