"""The Topics page's intertopic map (LDAvis' view in Altair), driven by Streamlit's AppTest."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

import engine
from explorer import charts, runs, tables
from explorer.engine_api import HDP, LDA, LoadedModel
from explorer.state import Keys


def _record(collection, model_name: str) -> runs.RunRecord:
    """A run holding a model fitted on the app's collection (no training thread)."""
    corpus = collection.corpus
    if model_name == "LDA":
        model = LDA(n_topics=5, seed=0, n_epochs=3).fit(corpus.counts)
        settings = runs.RunSettings(n_topics=5, n_test=30, seed=0)
    else:
        model = HDP(n_topics=15, doc_truncation=5, seed=0, n_epochs=3).fit(corpus.counts)
        settings = runs.RunSettings(model="HDP", n_topics=15, doc_truncation=5, n_test=30, seed=0)
    loaded = LoadedModel(model=model, vocabulary=corpus.vocabulary, trainer_state=None)
    return runs.RunRecord(f"map-{model_name}", f"#1 map {model_name}", settings, collection, loaded=loaded,
                          checkpointed=False)


def _chart(at: AppTest, key: str):
    [chart] = [c.proto for c in at.get("vega_lite_chart") if c.proto.id.endswith(key)]
    return chart


def _rows(chart) -> pd.DataFrame:
    return pa.ipc.open_stream(chart.datasets[0].data.data).read_pandas()


def _words(at: AppTest) -> list[str]:
    """The word list beside the map: the chart in the column of the topic select box."""
    blocks = [at.main]
    while blocks:
        block = blocks.pop()
        if any(box.key == Keys.intertopic_topic for box in block.selectbox) and not any(
                hasattr(child, "children") and any(box.key == Keys.intertopic_topic for box in child.selectbox)
                for child in block.children.values()):
            [chart] = block.get("vega_lite_chart")
            return list(_rows(chart.proto).sort_values("rank")["word"])
        blocks.extend(child for child in block.children.values() if hasattr(child, "children"))
    raise AssertionError("no word list beside the intertopic map")


def _topics_page(app_path: str, model_name: str) -> tuple[AppTest, runs.RunRecord]:
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    assert not at.exception
    record = at.session_state[Keys.runs].add(_record(at.session_state[Keys.collection], model_name))
    at.switch_page("views/topics.py")
    at.run()
    assert not at.exception, at.exception
    return at, record


def test_the_map_places_every_lda_topic_and_lists_the_chosen_topics_words(app_path):
    at, record = _topics_page(app_path, "LDA")
    model = record.model()
    chart = _chart(at, Keys.intertopic_chart)
    spec = json.loads(chart.spec)
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["circle", "text"]
    assert "topic" in chart.selection_mode  # clicking a circle reports the topic
    points = _rows(chart)
    assert sorted(points["topic"]) == list(range(5))
    expected = engine.intertopic_coordinates(model.expected_topics()[list(points["topic"])])
    np.testing.assert_allclose(points[["x", "y"]].to_numpy(), expected)
    np.testing.assert_allclose(points["share"], model.word_shares()[list(points["topic"])])

    # the select box lists the topics largest first; the words are those of the chosen topic
    box = at.selectbox(key=Keys.intertopic_topic)
    assert box.value == int(points["topic"][0]) and box.options[0] == box.format_func(box.value)
    other = int(points["topic"][1])
    box.set_value(other).run()
    assert not at.exception, at.exception
    n_words = int(at.number_input(key=Keys.n_words).value)
    relevance = float(at.slider(key=Keys.relevance).value)
    [frame] = [tables.topic_words_frame(model, record.vocabulary, relevance, n_words)[other]]
    assert _words(at) == list(frame["word"])
    assert bool(_rows(_chart(at, Keys.intertopic_chart)).set_index("topic").loc[other, "chosen"])  # outlined

    # the relevance slider re-ranks the list (λ = 1: most probable words; λ = 0: the most specific)
    at.slider(key=Keys.relevance).set_value(1.0).run()
    by_probability = _words(at)
    at.slider(key=Keys.relevance).set_value(0.0).run()
    assert not at.exception, at.exception
    by_lift = _words(at)
    assert by_probability != by_lift
    assert by_probability == [record.vocabulary[i] for i in np.argsort(-model.expected_topics()[other],
                                                                       kind="stable")[:n_words]]


def test_the_map_of_an_hdp_shows_its_topics_in_use(app_path):
    at, record = _topics_page(app_path, "HDP")
    model = record.model()
    points = _rows(_chart(at, Keys.intertopic_chart))
    assert sorted(points["topic"]) == engine.ldavis_topics(model).tolist()
    assert 2 <= len(points) < model.n_topics
    assert list(points["share"]) == sorted(points["share"], reverse=True)
    assert _words(at)


def test_intertopic_chart_spec():
    points = pd.DataFrame({"topic": [2, 0, 1], "label": ["c", "a", "b"], "x": [0.1, -0.2, 0.1],
                           "y": [0.0, 0.1, -0.1], "share": [0.5, 0.3, 0.2], "color": ["#1", "#2", "#3"]})
    spec = charts.intertopic_chart(points, selected=0).to_dict()
    circles, numbers = spec["layer"]
    assert circles["mark"]["type"] == "circle" and numbers["mark"]["type"] == "text"
    assert circles["encoding"]["size"]["field"] == "share"
    assert circles["encoding"]["size"]["scale"]["domain"] == [0, 0.5]  # area proportional to the share
    [param] = [p for p in circles.get("params", spec.get("params", [])) if p["name"] == "topic"]
    assert param["select"]["fields"] == ["topic"]
    data = next(iter(spec["datasets"].values()))
    assert [row["chosen"] for row in data] == [False, True, False]


@pytest.mark.parametrize("selected", [None, 7])
def test_intertopic_chart_without_a_shown_selection(selected):
    points = pd.DataFrame({"topic": [0], "label": ["a"], "x": [0.0], "y": [0.0], "share": [1.0], "color": ["#1"]})
    data = next(iter(charts.intertopic_chart(points, selected).to_dict()["datasets"].values()))
    assert data[0]["chosen"] is False


def test_clicking_a_circle_chooses_its_topic(monkeypatch):
    from explorer import intertopic

    chosen = {}
    monkeypatch.setattr(intertopic.state, "put", chosen.__setitem__)
    for event, expected in [({"selection": {"topic": [{"topic": 3}]}}, {Keys.intertopic_topic: 3}),
                            ({"selection": {"topic": []}}, {}), (None, {})]:
        chosen.clear()
        monkeypatch.setattr(intertopic.state, "get", lambda key, default=None, event=event: event)
        intertopic._picked()
        assert chosen == expected
