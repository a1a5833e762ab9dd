"""explorer/charts.py: every chart builds from a tidy DataFrame, without Streamlit."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from explorer import charts


def _curves() -> pd.DataFrame:
    return pd.DataFrame({"run": ["a"] * 3 + ["b"] * 3, "docs_seen": [0, 256, 512] * 2,
                         "seconds": [0.0, 0.2, 0.4] * 2, "heldout_loglik": [-8, -7.5, -7.2, -8.1, -7.9, -7.7]})


def test_heldout_chart_overlays_runs_and_marks_changes():
    changes = pd.DataFrame({"run": ["a"], "docs_seen": [256], "seconds": [0.2], "change": ["κ 0.9 → 0.5"]})
    spec = charts.heldout_chart(_curves(), changes, x="docs_seen").to_dict()
    assert len(spec["layer"]) == 4  # lines, points, change rules, change texts
    line = spec["layer"][0]
    assert line["mark"]["type"] == "line"
    assert line["encoding"]["color"]["field"] == "run"
    assert line["encoding"]["y"]["field"] == "heldout_loglik"
    assert spec["params"][0]["bind"] == "legend"  # click the legend to highlight a run
    assert spec["layer"][3]["encoding"]["text"]["field"] == "change"


def test_a_change_at_the_end_of_the_curves_is_labelled_inside_the_plot():
    changes = pd.DataFrame({"run": ["a", "a"], "docs_seen": [256, 512], "seconds": [0.2, 0.4],
                            "change": ["6 topics split in two (births, round 1)",
                                       "3 split pairs of 9 merged back at the end (the halves stayed alike)"]})
    spec = charts.heldout_chart(_curves(), changes, x="docs_seen").to_dict()
    assert len(spec["layer"]) == 5  # lines, points, rules, and one text layer on each side
    texts = [layer for layer in spec["layer"] if layer["mark"]["type"] == "text"]
    placed = {layer["mark"]["align"]: spec["datasets"][layer["data"]["name"]] for layer in texts}
    assert [row["docs_seen"] for row in placed["left"]] == [256]
    assert [row["docs_seen"] for row in placed["right"]] == [512]  # the last x: its label ends at the rule


def test_heldout_chart_time_axis_is_square_root():
    spec = charts.heldout_chart(_curves(), None, x="seconds").to_dict()
    assert spec["layer"][0]["encoding"]["x"]["field"] == "seconds"
    assert spec["layer"][0]["encoding"]["x"]["scale"]["type"] == "sqrt"
    assert len(spec["layer"]) == 2
    with pytest.raises(ValueError, match="x must be one of"):
        charts.heldout_chart(_curves(), x="steps")


def test_bar_charts():
    words = charts.word_counts_chart(pd.DataFrame({"word": ["tax", "war"], "count": [30, 20]})).to_dict()
    assert words["mark"]["type"] == "bar" and words["encoding"]["x"]["field"] == "count"
    topic = charts.topic_words_chart(pd.DataFrame({"word": ["tax", "war"], "probability": [0.3, 0.2],
                                                   "rank": [0, 1]}), "#123456").to_dict()
    assert topic["mark"]["color"] == "#123456"
    assert topic["encoding"]["y"]["sort"] == {"field": "rank", "order": "ascending"}
    sticks = charts.stick_weights_chart(pd.DataFrame({"rank": [1, 2], "label": ["a", "b"], "weight": [0.7, 0.3],
                                                      "in_use": [True, False]})).to_dict()
    assert sticks["encoding"]["color"]["field"] == "status"
    doc = charts.doc_topics_chart(pd.DataFrame({"label": ["a"], "proportion": [1.0], "color": ["#000000"]})).to_dict()
    assert doc["encoding"]["color"]["scale"] is None
    rho = charts.step_size_chart(pd.DataFrame({"docs_seen": [256, 512], "rho": [0.5, 0.4]})).to_dict()
    assert rho["encoding"]["y"]["scale"]["domain"] == [0, 1]


def test_topic_colors_cycle_and_no_streamlit_needed():
    assert charts.topic_color(0) == charts.topic_color(len(charts.TOPIC_PALETTE))
    assert all(c.startswith("#") and len(c) == 7 for c in charts.TOPIC_PALETTE)
    assert "import streamlit" not in Path(charts.__file__).read_text(encoding="utf-8")


def test_alpha_chart_draws_one_bar_per_topic_in_card_order():
    frame = pd.DataFrame({"position": [0, 1], "topic": [2, 1], "label": ["Topic 2: war", "Topic 1: tax"],
                          "alpha": [0.5, 0.05], "color": ["#f28e2b", "#4e79a7"]})
    spec = charts.alpha_chart(frame).to_dict()
    assert spec["mark"]["type"] == "bar"
    assert spec["encoding"]["x"] == {"field": "alpha", "title": spec["encoding"]["x"]["title"], "type": "quantitative"}
    assert spec["encoding"]["y"]["field"] == "label"
    assert spec["encoding"]["y"]["sort"] == {"field": "position", "order": "ascending"}
    assert spec["encoding"]["color"] == {"field": "color", "legend": None, "scale": None, "type": "nominal"}
    [rows] = spec["datasets"].values()
    assert [(r["label"], r["alpha_text"]) for r in rows] == [("Topic 2: war", "0.5"), ("Topic 1: tax", "0.05")]
