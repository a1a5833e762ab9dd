"""Tampered explorer settings in a model file (issue 15, case 11): refused at import with one clear sentence.

The app used to accept them and fail later on a page ("Sorry, this part of the page
failed: Unknown format code 'g'").  Every value the explorer reads from a file's
``extra["explorer"]`` is now checked at import; the message names the bad field.
Resuming a checkpoint on a collection checks that its words are the model's, word for word.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

import engine
from engine.data.corpus import Corpus
from explorer import model_extra, porting, storage
from explorer.storage import Collection
from explorer.workspace import Workspace
from tests.reliability import _explorer_app as app

WORDS = ["harbour", "ship", "cargo", "crane", "orchard", "apple"]
GOOD = {"model": "LDA", "n_topics": 3, "kappa": 0.9, "tau": 1.0, "batch_size": 10, "n_test": 4, "seed": 0,
        "target_docs": 100, "eta": 0.01, "omega": 1.0, "alpha": None, "doc_truncation": 2, "algorithm": "svi"}
TAMPERED = [  # (what the file says, what the message must say)
    ({"settings": {**GOOD, "kappa": "0.9"}}, "settings.kappa must be a finite number in [0, 1], got '0.9'"),
    ({"settings": {**GOOD, "kappa": 1.5}}, "settings.kappa must be a finite number in [0, 1], got 1.5"),
    ({"settings": {**GOOD, "tau": -1.0}}, "settings.tau must be a finite number in [0, 1e+09], got -1.0"),
    ({"settings": {**GOOD, "eta": 0}}, "settings.eta must be a finite number in (0, 1e+06], got 0"),
    ({"settings": {**GOOD, "alpha": "auto"}}, "settings.alpha must be a finite number in (0, 1e+06], got 'auto'"),
    ({"settings": {**GOOD, "batch_size": 2.5}}, "settings.batch_size must be a whole number from 1 to"),
    ({"settings": {**GOOD, "batch_size": True}}, "settings.batch_size must be a whole number from 1 to"),
    ({"settings": {**GOOD, "seed": -3}}, "settings.seed must be a whole number from 0 to"),
    ({"settings": {**GOOD, "target_docs": [1]}}, "settings.target_docs must be a whole number from 1 to"),
    ({"settings": {**GOOD, "model": "GPT"}}, "settings.model must be 'LDA' or 'HDP', got 'GPT'"),
    ({"settings": {**GOOD, "model": "HDP"}}, "settings.model must be the file's model, 'LDA', got 'HDP'"),
    ({"settings": {**GOOD, "n_topics": 50}}, "settings.n_topics must be the file's number of topics, 3, got 50"),
    ({"settings": {**GOOD, "algorithm": 1}}, "settings.algorithm must be 'svi' or 'batch', got 1"),
    ({"settings": {**GOOD, "births": "yes"}}, "settings.births must be true or false, got 'yes'"),
    ({"settings": {**GOOD, "births": 1}}, "settings.births must be true or false, got 1"),
    ({"settings": "fast"}, "settings must be a table of settings, got 'fast'"),
    ({"labels": {"0": 7}}, "labels[0] must be a text of at most 200 characters, got 7"),
    ({"labels": {"0": "x" * 201}}, "labels[0] must be a text of at most 200 characters"),
    ({"labels": {"3": "four"}}, "labels (a topic number) must be a topic number from 0 to 2, got '3'"),
    ({"labels": {"-1": "x"}}, "labels (a topic number) must be a topic number from 0 to 2, got '-1'"),
    ({"labels": {str(i): "x" for i in range(4)}}, "labels must be at most one label for each of the 3 topics"),
    ({"labels": ["a", "b"]}, "labels must be a table of topic labels, got ['a', 'b']"),
    ({"name": {"x": 1}}, "name must be a text of at most 200 characters, got {'x': 1}"),
    ({"collection_name": 3}, "collection_name must be a text of at most 200 characters, got 3"),
    # a merged run's record of which topics it emptied (explorer.merging)
    ({"merged_from": 5}, "merged_from must be a text of at most 200 characters, got 5"),
    ({"merged_from": "r", "merged_into": [1]}, "merged_into must be a table of at most 2 emptied topics, each "
     "with the topic holding its words, got [1]"),
    ({"merged_from": "r", "merged_into": {"0": 1, "1": 2, "2": 0}}, "merged_into must be a table of at most 2 "
     "emptied topics, each with the topic holding its words, got '3 entries'"),
    ({"merged_from": "r", "merged_into": {"5": 1}},
     "merged_into (a topic number) must be a topic number from 0 to 2, got '5'"),
    ({"merged_from": "r", "merged_into": {"0": 0}}, "merged_into[0] must be the number of another topic, from 0 to 2, "
     "got 0"),
    ({"merged_from": "r", "merged_into": {"0": 3}}, "merged_into[0] must be the number of another topic, from 0 to 2, "
     "got 3"),
    ({"merged_from": "r", "merged_into": {"0": True}}, "merged_into[0] must be the number of another topic, from 0 to "
     "2, got True"),
    ({"merged_from": "r", "merged_into": {"0": 1, "1": 2}}, "merged_into must be a table whose topics holding others' "
     "words are not emptied themselves, got 'topic 1 in both roles'"),
    # a combined run's record of the runs it combined and where each topic was found (explorer.combining)
    ({"combined_from": "run1"}, "combined_from must be a list of 2 to 20 run names, got 'run1'"),
    ({"combined_from": ["a"], "found_in": [1, 1, 1]}, "combined_from must be a list of 2 to 20 run names, got "
     "'1 entries'"),
    ({"combined_from": ["a"] * 21, "found_in": [2, 2, 2]}, "combined_from must be a list of 2 to 20 run names, got "
     "'21 entries'"),
    ({"combined_from": ["a", 7], "found_in": [2, 2, 2]}, "combined_from[1] must be a text of at most 200 characters, "
     "got 7"),
    ({"combined_from": ["a", "b"]}, "found_in must be a list of 3 counts of runs, one per topic, got None"),
    ({"combined_from": ["a", "b"], "found_in": [2, 2]}, "found_in must be a list of 3 counts of runs, one per topic, "
     "got '2 entries'"),
    ({"combined_from": ["a", "b"], "found_in": [2, 2, 3]}, "found_in[2] must be a whole number from 2 to 2, got 3"),
    ({"combined_from": ["a", "b"], "found_in": [2, 1, 2]}, "found_in[1] must be a whole number from 2 to 2, got 1"),
    ({"combined_from": ["a", "b"], "found_in": [2, True, 2]}, "found_in[1] must be a whole number from 2 to 2, got "
     "True"),
]


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    yield from app.private_home(tmp_path, monkeypatch)


def _file(tmp_path, explorer) -> bytes:
    return app.model_file(tmp_path / "tampered.npz", WORDS, explorer=explorer)


@pytest.mark.parametrize(("explorer", "message"), TAMPERED)
def test_each_tampered_field_is_named(tmp_path, explorer, message):
    with pytest.raises(model_extra.ExplorerSettingsError) as caught:
        porting.import_model("tampered.npz", _file(tmp_path, explorer))
    text = str(caught.value)
    assert text.startswith("this model file's explorer settings are damaged: ")
    assert message in text and text.endswith("; the file was not loaded")


def test_a_well_formed_file_still_loads(tmp_path):
    record = porting.import_model("good.npz", _file(tmp_path, {"settings": GOOD, "labels": {"1": "ships"}}))
    assert record.settings.kappa == 0.9 and record.label(1) == "ships"
    assert porting.import_model("bare.npz", _file(tmp_path, None)).settings.n_topics == 3  # no explorer part


def _hdp_file(path, births: int, explorer: dict | None) -> bytes:
    counts = sp.csr_matrix(np.random.default_rng(0).poisson(1.0, size=(40, len(WORDS))) + 1.0)
    model = engine.HDP(n_topics=4, doc_truncation=2, n_words=len(WORDS), seed=0, births=births)
    trainer = engine.SVI(model, counts, batch_size=10, seed=0)
    trainer.run(n_steps=2)
    engine.save_model(path, model, WORDS, trainer=trainer, extra={} if explorer is None else {"explorer": explorer})
    return path.read_bytes()


@pytest.mark.parametrize("births", [0, 2])
def test_whether_an_hdp_splits_topics_is_the_files_model(tmp_path, births):
    hdp = {**GOOD, "model": "HDP", "n_topics": 4}
    hdp.pop("births", None)
    # left out (a file of an older app, or of the command line): the model's
    bare = porting.import_model("hdp.npz", _hdp_file(tmp_path / "a.npz", births, {"settings": hdp}))
    assert bare.settings.births is (births > 0)
    assert ("no splits" in bare.settings.label()) is (births == 0)
    plain = porting.import_model("plain.npz", _hdp_file(tmp_path / "b.npz", births, None)).settings  # no explorer part
    assert (plain.births, plain.doc_truncation) == (births > 0, 2)  # the label says the model's T, not the default's
    # saying the other: refused, with the field and the model's value named
    wrong = _hdp_file(tmp_path / "c.npz", births, {"settings": {**hdp, "births": births == 0}})
    with pytest.raises(model_extra.ExplorerSettingsError) as caught:
        porting.import_model("wrong.npz", wrong)
    assert (f"settings.births must be {'true' if births else 'false'}, as the file's model makes {births} births a "
            f"round, got {births == 0}") in str(caught.value)


def test_a_merged_run_read_back_says_where_its_emptied_topics_went(tmp_path):
    explorer = {"settings": GOOD, "merged_from": "run1", "merged_into": {"0": 2}, "labels": {"1": "ships"}}
    record = porting.import_model("merged.npz", _file(tmp_path, explorer))
    assert record.status == "merged" and record.merged_from == "run1" and record.merged_into == {0: 2}
    assert record.label(0) == "Topic 0 (merged into topic 2)" and record.label(1) == "ships"
    assert record.explorer_extra()["explorer"]["merged_into"] == {"0": 2}  # and so into its next file


def test_a_combined_run_read_back_says_in_how_many_runs_each_topic_was_found(tmp_path):
    explorer = {"settings": GOOD, "combined_from": ["#1 LDA", "#2 LDA", "#3 LDA"], "found_in": [3, 2, 3]}
    record = porting.import_model("shared.npz", _file(tmp_path, explorer))
    assert record.status == "combined" and record.combined_from == ["#1 LDA", "#2 LDA", "#3 LDA"]
    assert record.found_in == [3, 2, 3]
    extra = record.explorer_extra()["explorer"]  # and so into its next file
    assert (extra["combined_from"], extra["found_in"]) == (["#1 LDA", "#2 LDA", "#3 LDA"], [3, 2, 3])


@pytest.mark.parametrize(("explorer", "message"), [
    ({"name": "merged", "settings": GOOD, "merged_from": "run1", "merged_into": {"0": 2}},
     "“merged” was made by merging topics after training, so it cannot be resumed; open it to browse its topics "
     "instead"),
    ({"name": "bare", "settings": GOOD}, "“bare” holds a model without its training state, so it cannot be resumed"),
    ({"name": "shared", "settings": GOOD, "combined_from": ["#1", "#2"], "found_in": [2, 2, 2]},
     "“shared” was made by combining the topics of several runs, so it cannot be resumed"),
])
def test_a_checkpoint_without_training_state_is_not_resumed(tmp_path, home, explorer, message):
    workspace = Workspace.shared_at(home)
    path = tmp_path / "model.npz"
    app.model_file(path, WORDS, explorer=explorer)
    loaded = engine.load_model(path)
    engine.save_model(storage.checkpoint_path("run3", workspace), loaded.model, WORDS, extra=loaded.extra)  # no trainer
    storage.write_record("run3", {**explorer, "collection_key": None}, workspace)
    [info] = storage.list_checkpoints(workspace)
    with pytest.raises(ValueError, match=message):
        porting.checkpoint_action("resume", info)
    assert [c.run_id for c in storage.list_checkpoints(workspace)] == ["run3"]  # nothing new, nothing lost


def test_the_export_page_shows_the_one_clear_message_and_no_page_fails(tmp_path):
    at = app.app()
    before = len(app.runs(at))
    app.upload_model(at, "tampered.npz", _file(tmp_path, {"settings": {**GOOD, "kappa": "0.9"}}))
    assert [e.value for e in at.error] == [  # Markdown: "\[" shows as "["
        "This model file's explorer settings are damaged: settings.kappa must be a finite number in \\[0, 1\\], "
        "got '0.9'; the file was not loaded."]
    assert len(app.runs(at)) == before
    for name in ("train", "topics", "documents", "export"):
        app.page(at, name)
        assert not any("Sorry, this part of the page failed" in e.value for e in at.error)


def test_a_tampered_checkpoint_record_is_refused_on_resume(tmp_path, home):
    workspace = Workspace.shared_at(home)
    folder = storage.checkpoint_dir(workspace)
    (folder / "run1.npz").write_bytes(_file(tmp_path, None))
    storage.write_record("run1", {"name": "run1", "settings": {**GOOD, "tau": float("1e400")}}, workspace)
    [info] = storage.list_checkpoints(workspace)
    with pytest.raises(model_extra.ExplorerSettingsError, match=r"settings\.tau must be a finite number"):
        porting.checkpoint_action("resume", info)
    record = json.loads((folder / "run1.json").read_text())
    assert record["settings"]["tau"] == float("inf")  # what Python's json made of 1e400


def test_resuming_on_a_collection_with_other_words_is_refused(tmp_path, home):
    workspace = Workspace.shared_at(home)
    other = Collection.of(Corpus.from_texts([" ".join(["alpha", "beta", "gamma", "delta", "epsilon", "zeta"])] * 3),
                          "other words", "test")
    assert other.corpus.n_words == len(WORDS)  # the same size: only the words differ
    storage.save_collection(other, workspace)
    (storage.checkpoint_dir(workspace) / "run2.npz").write_bytes(_file(tmp_path, None))
    storage.write_record("run2", {"name": "run2", "collection_key": other.key, "settings": GOOD}, workspace)
    [info] = storage.list_checkpoints(workspace)
    with pytest.raises(ValueError, match="the collection's words differ from the model's in 6 of 6 columns"):
        porting.checkpoint_action("resume", info)
