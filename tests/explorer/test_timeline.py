"""explorer/timeline.py and the topics-over-time chart: time columns, shares per period, the Documents page."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from explorer import charts, timeline
from explorer.state import Keys


def test_time_columns_are_years_or_dates_not_ids_or_names():
    columns = [("id", ("1", "2", "3")), ("who", ("Ann", "Bob", "Cy")), ("year", ("1950", "1951", "1951")),
               ("when", ("2001-02-03", "2005-06-07", "2009-01-01")), ("big", ("5000", "6000", "7000")),
               ("one", ("1999", "1999", "1999"))]
    assert timeline.time_columns(columns) == ["year", "when"]
    assert list(timeline.periods(("1950", "1951", "1951"))) == [1950, 1951, 1951]
    assert list(timeline.periods(("2001-02-03", "2005-06-07", "2009-01-01")).dt.year) == [2001, 2005, 2009]
    assert timeline.periods(("1950", "", "", "1951")) is None  # too many documents without a year


def test_shares_match_a_brute_force_sum():
    rng = np.random.default_rng(0)
    doc_topic = rng.dirichlet(np.ones(4), size=30)
    lengths = rng.integers(1, 50, size=30)
    years = pd.Series(rng.choice([1990.0, 1991.0, 1995.0, np.nan], size=30))
    shares = timeline.topic_shares(doc_topic, lengths, years, ["a", "b", "c", "d"])
    for row in shares.itertuples():
        docs = [d for d in range(30) if years[d] == row.period]
        expected = sum(lengths[d] * doc_topic[d, row.topic] for d in docs) / sum(lengths[d] for d in docs)
        assert row.share == pytest.approx(expected)
    assert sorted(set(shares["period"])) == [1990, 1991, 1995]
    assert shares.groupby("period")["share"].sum().to_numpy() == pytest.approx(1.0)
    overall = [sum(lengths[d] * doc_topic[d, k] for d in range(30)) for k in range(4)]
    assert timeline.top_topics(doc_topic, lengths, 2) == list(np.argsort(overall)[::-1][:2])


def test_duplicate_labels_are_made_unique():
    assert timeline.unique_labels(["War", "Tax", "War"]) == ["War (topic 0)", "Tax", "War (topic 2)"]


def test_topic_shares_chart_by_hand():
    # two documents in 2000 (10 words: 0.2 of "war"; 30 words: 0.7) and one in 2001 (0.25): shares by hand
    doc_topic = np.array([[0.2, 0.8], [0.7, 0.3], [0.25, 0.75]])
    shares = timeline.topic_shares(doc_topic, np.array([10, 30, 20]), pd.Series([2000.0, 2000.0, 2001.0]),
                                   ["war <b>", "peace"])
    # war in 2000: (10 x 0.2 + 30 x 0.7) / 40 = 23 / 40
    assert list(shares["share"]) == pytest.approx([23 / 40, 17 / 40, 0.25, 0.75])
    shares["color"] = shares["topic"].map(charts.topic_color)
    spec = charts.topic_shares_chart(shares).to_dict()
    lines, points = spec["layer"]
    assert lines["mark"]["type"] == "line" and points["mark"]["type"] == "point"
    encoding = lines["encoding"]
    assert (encoding["x"]["field"], encoding["x"]["type"]) == ("period", "quantitative")
    assert (encoding["y"]["field"], encoding["y"]["type"]) == ("share", "quantitative")
    assert encoding["color"]["scale"] == {"domain": ["war <b>", "peace"], "range": [charts.topic_color(0),
                                                                                     charts.topic_color(1)]}
    [param] = spec["params"]
    assert param["select"] == {"type": "point", "fields": ["label"]} and param["bind"] == "legend"
    assert encoding["opacity"]["condition"][0]["param"] == param["name"]
    data = spec["datasets"][spec["data"]["name"]]
    assert {(row["period"], row["label"]) for row in data} == {(2000, "war <b>"), (2000, "peace"),
                                                                (2001, "war <b>"), (2001, "peace")}
    dated = shares.assign(period=pd.to_datetime(shares["period"].astype(str) + "-01-01"))
    assert charts.topic_shares_chart(dated).to_dict()["layer"][0]["encoding"]["x"]["type"] == "temporal"


def _time_charts(at: AppTest) -> list[dict]:
    specs = [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]
    return [spec for spec in specs if spec.get("title") == "Topics over time"]


def _trained(app_path: str) -> AppTest:
    at = AppTest.from_file(app_path, default_timeout=90)
    at.run()
    assert not at.exception, at.exception
    at.switch_page("views/train.py")
    at.run()
    at.number_input(key=Keys.target_docs).set_value(1_000)
    at.button(key=Keys.train_start).click()
    at.run()
    assert not at.exception, at.exception
    record = at.session_state[Keys.runs].latest()
    deadline = time.monotonic() + 60
    while record.status != "finished":
        assert time.monotonic() < deadline, "training did not finish"
        time.sleep(0.2)
    at.switch_page("views/documents.py")
    at.run()
    assert not at.exception, at.exception
    return at


def test_documents_page_charts_topics_over_time_for_the_sotu_sample(app_path, monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_DEFAULT_SAMPLE", "sotu")
    at = _trained(app_path)
    assert at.selectbox(key=Keys.time_column).value == "year"
    assert at.number_input(key=Keys.time_top_n).value == 8  # of the sample's 10 topics
    [spec] = _time_charts(at)
    assert len(spec["layer"][0]["encoding"]["color"]["scale"]["domain"]) == 8
    assert spec["layer"][0]["encoding"]["x"]["field"] == "period"
    assert any("document's length" in c.value for c in at.caption)
    at.number_input(key=Keys.time_top_n).set_value(3).run()
    assert not at.exception, at.exception
    [spec] = _time_charts(at)
    assert len(spec["layer"][0]["encoding"]["color"]["scale"]["domain"]) == 3


def test_no_time_chart_without_a_time_column(app_path):
    at = _trained(app_path)  # the synthetic sample: id, title, true_topic
    assert not _time_charts(at)
    assert not [s for s in at.selectbox if s.key == Keys.time_column]
