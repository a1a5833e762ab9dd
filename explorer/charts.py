"""Altair charts: each function takes a tidy DataFrame and returns an ``alt.Chart``.

No Streamlit here; pages call ``st.altair_chart(chart, width="stretch")``.  Tests build
the charts and inspect ``chart.to_dict()``.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

__all__ = [
    "DEFAULT_X_AXIS",
    "TOPIC_PALETTE",
    "alpha_chart",
    "doc_topics_chart",
    "heldout_chart",
    "intertopic_chart",
    "step_size_chart",
    "stick_weights_chart",
    "topic_color",
    "topic_shares_chart",
    "topic_words_chart",
    "word_counts_chart",
]

# Tableau 20, then a darker repeat: one colour per topic, the same on every page
TOPIC_PALETTE: tuple[str, ...] = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)

X_FIELDS = {
    "docs_seen": ("docs_seen:Q", "Documents analysed", alt.Scale(zero=True)),
    "seconds": ("seconds:Q", "Training time (seconds, square-root axis)", alt.Scale(type="sqrt")),
}


def topic_color(topic: int) -> str:
    """The colour of topic ``topic`` (0-based), cycling through :data:`TOPIC_PALETTE`."""
    return TOPIC_PALETTE[int(topic) % len(TOPIC_PALETTE)]


def word_counts_chart(words: pd.DataFrame, title: str = "Most frequent words") -> alt.Chart:
    """Horizontal bars of word counts; columns ``word``, ``count``."""
    data = words.assign(count_text=words["count"].map(lambda c: f"{int(c):,}"))
    return (
        alt.Chart(data, title=title)
        .mark_bar(color=TOPIC_PALETTE[0])
        .encode(
            x=alt.X("count:Q", title="Occurrences in the collection"),
            y=alt.Y("word:N", sort="-x", title=None, axis=alt.Axis(labelOverlap=False)),
            tooltip=[alt.Tooltip("word:N", title="Word"), alt.Tooltip("count_text:N", title="Occurrences")],
        )
        .properties(height=alt.Step(18))
    )


def step_size_chart(schedule: pd.DataFrame) -> alt.Chart:
    """The step size rho against documents analysed; columns ``docs_seen``, ``rho``.

    An optional ``setting`` column draws one line per setting.
    """
    color = alt.Color("setting:N", title=None) if "setting" in schedule.columns else alt.value(TOPIC_PALETTE[1])
    return (
        alt.Chart(schedule, title="Step size ρ over the run")
        .mark_line()
        .encode(
            x=alt.X("docs_seen:Q", title="Documents analysed"),
            y=alt.Y("rho:Q", title="ρ", scale=alt.Scale(domain=[0, 1])),
            color=color,
            tooltip=[alt.Tooltip("docs_seen:Q", title="Documents", format=",.0f"),
                     alt.Tooltip("rho:Q", title="ρ", format=".3g")],
        )
        .properties(height=140)
    )


DEFAULT_X_AXIS = "docs_seen"  # the held-out chart's horizontal axis until the user picks "seconds"


def heldout_chart(curves: pd.DataFrame, changes: pd.DataFrame | None = None, x: str = DEFAULT_X_AXIS,
                  color_title: str = "Run", steps: bool = False) -> alt.LayerChart:
    """Held-out per-word log likelihood curves, one line per run, with setting changes marked.

    Parameters
    ----------
    curves : DataFrame
        Columns ``run`` (legend text), ``docs_seen``, ``seconds``, ``heldout_loglik``.
    changes : DataFrame, optional
        Columns ``run``, ``docs_seen``, ``seconds``, ``change`` (e.g. "κ 0.9 → 0.5");
        each becomes a dashed vertical rule with its text, right of the rule, or left of
        it and a line lower for a change at the end of the curves (an HDP run's merges
        when it ends).
    x : {"docs_seen", "seconds"}
        Horizontal axis: documents analysed, or training seconds on a square-root
        axis as in Hoffman et al. (2013).
    steps : bool
        Draw each curve as a staircase (a model only changes at a measurement): batch VI
        stays flat until its first pass ends instead of seeming to improve gradually.
    """
    if x not in X_FIELDS:
        raise ValueError(f"x must be one of {sorted(X_FIELDS)}, got {x!r}")
    field, axis_title, scale = X_FIELDS[x]
    highlight = alt.selection_point(fields=["run"], bind="legend")
    base = alt.Chart(curves).encode(
        x=alt.X(field, title=axis_title, scale=scale),
        y=alt.Y("heldout_loglik:Q", title="Held-out log likelihood", scale=alt.Scale(zero=False)),
        color=alt.Color("run:N", title=color_title, legend=alt.Legend(orient="bottom", columns=1, labelLimit=600)),
        opacity=alt.when(highlight).then(alt.value(1.0)).otherwise(alt.value(0.15)),
        tooltip=[
            alt.Tooltip("run:N", title=color_title),
            alt.Tooltip("docs_seen:Q", title="Documents analysed", format=",.0f"),
            alt.Tooltip("seconds:Q", title="Training seconds", format=",.3g"),
            alt.Tooltip("heldout_loglik:Q", title="Held-out log likelihood", format=".3g"),
        ],
    )
    line = base.mark_line(interpolate="step-after") if steps else base.mark_line()
    layers = [line.add_params(highlight), base.mark_point(filled=True, size=30)]
    if changes is not None and not changes.empty:
        rules = alt.Chart(changes).encode(
            x=alt.X(field),
            color=alt.Color("run:N"),
            tooltip=[alt.Tooltip("run:N", title=color_title), alt.Tooltip("change:N", title="Setting changed")],
        )
        layers.append(rules.mark_rule(strokeDash=[4, 3]))
        at_end = changes[x] >= curves[x].max() if not curves.empty else pd.Series(False, index=changes.index)
        # a label at the right edge is drawn inside the plot, not past it, on a line of its own
        for rows, align, dx, top in ((changes[~at_end], "left", 3, 2), (changes[at_end], "right", -3, 16)):
            if not rows.empty:
                layers.append(rules.properties(data=rows)
                              .mark_text(align=align, baseline="top", dx=dx, angle=0, fontSize=11)
                              .encode(text="change:N", y=alt.value(top)))
    return alt.layer(*layers).properties(height=340)


def topic_words_chart(words: pd.DataFrame, color: str = TOPIC_PALETTE[0]) -> alt.Chart:
    """Bars of a topic's words in relevance order; columns ``word``, ``probability``, ``rank``.

    The bar length is p(w | topic); the order (``rank``, 0 first) is the relevance ranking.
    """
    data = words.assign(percent=words["probability"].map(lambda p: f"{100 * p:.3g}%"))
    return (
        alt.Chart(data)
        .mark_bar(color=color)
        .encode(
            x=alt.X("probability:Q", title="Share of the topic", axis=alt.Axis(format="%")),
            y=alt.Y("word:N", sort=alt.EncodingSortField(field="rank", order="ascending"), title=None,
                    axis=alt.Axis(labelOverlap=False)),
            tooltip=[alt.Tooltip("word:N", title="Word"), alt.Tooltip("percent:N", title="Share of the topic")],
        )
        .properties(height=alt.Step(19))
    )


def stick_weights_chart(weights: pd.DataFrame) -> alt.Chart:
    """Bars of corpus-level topic weights (HDP sticks); columns ``rank``, ``label``, ``weight``, ``in_use``."""
    data = weights.assign(percent=weights["weight"].map(lambda w: f"{100 * w:.3g}%"),
                          status=weights["in_use"].map({True: "in use", False: "unused"}))
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("rank:O", title="Topics, heaviest first", axis=alt.Axis(labels=len(data) <= 40)),
            y=alt.Y("weight:Q", title="Share of the words", axis=alt.Axis(format="%")),
            color=alt.Color("status:N", title=None,
                            scale=alt.Scale(domain=["in use", "unused"], range=[TOPIC_PALETTE[0], "#cccccc"])),
            tooltip=[alt.Tooltip("label:N", title="Topic"), alt.Tooltip("percent:N", title="Weight")],
        )
        .properties(height=180)
    )


def doc_topics_chart(proportions: pd.DataFrame) -> alt.Chart:
    """Bars of a document's topic proportions; columns ``label``, ``proportion``, ``color``."""
    data = proportions.assign(percent=proportions["proportion"].map(lambda p: f"{100 * p:.3g}%"))
    return (
        alt.Chart(data, title="Topic proportions of this document")
        .mark_bar()
        .encode(
            x=alt.X("proportion:Q", title="Share of the document", axis=alt.Axis(format="%")),
            y=alt.Y("label:N", sort="-x", title=None, axis=alt.Axis(labelOverlap=False, labelLimit=260)),
            color=alt.Color("color:N", scale=None, legend=None),
            tooltip=[alt.Tooltip("label:N", title="Topic"), alt.Tooltip("percent:N", title="Share")],
        )
        .properties(height=alt.Step(22))
    )


def alpha_chart(alpha: pd.DataFrame) -> alt.Chart:
    """Bars of a learned, per-topic alpha in card order; columns ``position``, ``label``, ``alpha``, ``color``.

    One bar per topic, labelled with the topic's label and drawn in its colour.
    """
    data = alpha.assign(alpha_text=alpha["alpha"].map(lambda a: f"{a:.3g}"))
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("alpha:Q", title="α of the topic"),
            y=alt.Y("label:N", sort=alt.EncodingSortField(field="position", order="ascending"), title=None,
                    axis=alt.Axis(labelOverlap=False, labelLimit=260)),
            color=alt.Color("color:N", scale=None, legend=None),
            tooltip=[alt.Tooltip("label:N", title="Topic"), alt.Tooltip("alpha_text:N", title="α")],
        )
        .properties(height=alt.Step(18))
    )


def topic_shares_chart(shares: pd.DataFrame) -> alt.Chart:
    """Lines of each topic's share of the words per period; columns ``period``, ``label``, ``share``, ``color``.

    ``period`` holds integer years (a quantitative axis) or dates (a temporal one); labels
    must be unique.  Clicking a label in the legend highlights its line.
    """
    temporal = pd.api.types.is_datetime64_any_dtype(shares["period"])
    x = (alt.X("period:T", title="Date") if temporal
         else alt.X("period:Q", title="Year", axis=alt.Axis(format="d"), scale=alt.Scale(zero=False, nice=False)))
    colors = shares.drop_duplicates("label")
    highlight = alt.selection_point(fields=["label"], bind="legend")
    base = alt.Chart(shares).encode(
        x=x,
        y=alt.Y("share:Q", title="Share of the words", axis=alt.Axis(format="%")),
        color=alt.Color("label:N", title="Topic", scale=alt.Scale(domain=list(colors["label"]),
                                                                   range=list(colors["color"])),
                        legend=alt.Legend(labelLimit=280)),
        opacity=alt.when(highlight).then(alt.value(1.0)).otherwise(alt.value(0.15)),
        tooltip=[alt.Tooltip("label:N", title="Topic"),
                 alt.Tooltip("period:T", title="Date", format="%Y-%m") if temporal
                 else alt.Tooltip("period:Q", title="Year", format="d"),
                 alt.Tooltip("share:Q", title="Share", format=".1%")],
    )
    lines = base.mark_line().add_params(highlight)
    points = base.mark_point(filled=True, size=18)
    return (lines + points).properties(title="Topics over time", height=360)


def intertopic_chart(points: pd.DataFrame, selected: int | None = None) -> alt.LayerChart:
    """LDAvis' intertopic distance map: one circle per topic, its area the topic's share of the words.

    ``points`` has columns ``topic``, ``label``, ``x``, ``y``, ``share``, ``color``
    (:func:`explorer.tables.intertopic_frame`); topics with similar words lie close together.
    Clicking a circle selects its topic in the selection parameter ``topic`` (field
    ``topic``), which ``st.altair_chart(..., on_select=...)`` reports; the ``selected``
    topic is outlined.
    """
    pick = alt.selection_point(name="topic", fields=["topic"], on="click")
    data = points.assign(percent=points["share"].map(lambda s: f"{100 * s:.3g}%"), chosen=points["topic"] == selected)
    extent = 1.2 * float(max(points["x"].abs().max(), points["y"].abs().max(), 1e-9))
    axis = alt.Axis(labels=False, ticks=False, grid=False)
    scale = alt.Scale(domain=[-extent, extent], nice=False, zero=False)
    base = alt.Chart(data).encode(
        x=alt.X("x:Q", title="PC1", scale=scale, axis=axis),
        y=alt.Y("y:Q", title="PC2", scale=scale, axis=axis),
        tooltip=[alt.Tooltip("label:N", title="Topic"), alt.Tooltip("percent:N", title="Share of the words")],
    )
    circles = base.mark_circle(opacity=0.55, stroke="#222222").encode(
        size=alt.Size("share:Q", legend=None,
                      scale=alt.Scale(domain=[0, float(points["share"].max() or 1.0)], range=[0, 4000])),
        color=alt.Color("color:N", scale=None, legend=None),
        strokeWidth=alt.when(alt.datum.chosen).then(alt.value(3)).otherwise(alt.value(0.5)),
    ).add_params(pick)
    numbers = base.mark_text(fontSize=11, fontWeight="bold", color="#222222").encode(text=alt.Text("topic:N"))
    return (circles + numbers).properties(height=420)  # the page titles it (with its help)
