"""explorer/runs.py, storage.py, comparison.py, tables.py, highlight.py: runs without Streamlit."""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import itertools
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import engine
from explorer import comparison, highlight, porting, runs, storage, tables, training
from explorer.engine_api import Workload, text_segments
from explorer.storage import Collection
from tests.engine._fake_warm_up import FakeWarmUp
from tests.engine._fake_warm_up import install as install_fake_warm_up
from tests.explorer._waiting import wait_until


def _settings(**changes) -> runs.RunSettings:
    base = runs.RunSettings(n_topics=4, batch_size=32, n_test=30, target_docs=2_000)
    return dataclasses.replace(base, **changes)


def test_run_trains_checkpoints_and_resumes(collection, explorer_env):
    limiter = runs.ThreadLimiter(cap=2)
    record = runs.create_run(collection, _settings(), "#1 test")
    limiter.start(record.run)
    wait_until(lambda: record.status == "finished")
    history, _ = record.curve()
    assert len(history) >= 3 and history[-1].heldout_loglik > history[0].heldout_loglik
    assert storage.checkpoint_path(record.run_id).exists()
    record.labels[0] = "space"
    record.save_record()
    [info] = storage.list_checkpoints()
    assert info.name == "#1 test" and info.record["labels"] == {"0": "space"}
    assert storage.load_collection(collection.key).corpus.n_docs == collection.corpus.n_docs
    # resume the checkpoint as a new run (what the Export page does after a restart)
    more = dataclasses.replace(record.settings, target_docs=3_000)
    resumed = runs.resume_checkpoint(storage.checkpoint_path(record.run_id), collection, more, "#2 resumed",
                                     labels=record.labels)
    limiter.start(resumed.run)
    wait_until(lambda: resumed.status == "finished")
    assert resumed.snapshot().docs_seen >= 3_000
    assert resumed.curve()[0][0].docs_seen == 0  # the history goes on from the first run's
    assert resumed.label(0) == "space"


def test_thread_cap(collection):
    limiter = runs.ThreadLimiter(cap=1)
    first = runs.create_run(collection, _settings(target_docs=10**7), "a", checkpoint=False)
    second = runs.create_run(collection, _settings(target_docs=10**7), "b", checkpoint=False)
    limiter.start(first.run)
    with pytest.raises(runs.CapReachedError, match="limit"):
        limiter.start(second.run)
    first.stop()
    limiter.start(second.run)
    assert limiter.active() == 1
    second.stop()
    assert limiter.active() == 0


def test_cap_from_environment(monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_MAX_TRAINING_THREADS", "5")
    assert runs.ThreadLimiter().cap == 5


def test_session_runs_stop_when_the_tab_is_gone(collection):
    session = runs.SessionRuns()
    record = session.add(runs.create_run(collection, _settings(target_docs=10**7), "a", checkpoint=False))
    record.run.start()
    session.orphaned(grace_seconds=0.2)
    session.reconnected()  # came back in time: nothing happens
    time.sleep(0.4)
    assert record.active
    session.orphaned(grace_seconds=0.1)
    wait_until(lambda: not record.run.is_alive)
    assert record.status == "stopped"


def test_schedule_change_is_recorded(collection):
    record = runs.create_run(collection, _settings(target_docs=10**7), "a", checkpoint=False)
    record.run.start()
    record.run.set_schedule(kappa=0.5, batch_size=64)
    wait_until(lambda: len(record.curve()[1]) == 2)
    record.stop()
    frame = tables.changes_frame([record])
    assert set(frame["change"]) == {"κ 0.9 → 0.5", "S 32 → 64"}


def test_an_hdp_run_without_splits_makes_no_births_and_says_so(collection):
    split = runs.create_run(collection, _settings(model="HDP", n_topics=20, doc_truncation=5), "s", checkpoint=False)
    plain = runs.create_run(collection, _settings(model="HDP", n_topics=20, doc_truncation=5, target_docs=4_000,
                                                  births=False), "p", checkpoint=False)
    # the switch chooses between the engine's own number of births and none
    assert split.model().births == engine.HDP(n_topics=20, doc_truncation=5).births > 0
    assert plain.model().births == 0
    plain.run.start()
    wait_until(lambda: plain.status == "finished")
    assert not [t for t in tables.changes_frame([plain])["change"] if "(births" in t]
    assert plain.model().training_clock()["pairs"] == []
    table = tables.run_table([split, plain], lambda record: record.status)
    assert list(table["Model"]) == ["HDP (T=5)", "HDP (T=5, no splits)"]
    assert "no splits" in plain.settings.label() and "no splits" not in split.settings.label()
    # LDA has no births: the setting is not part of its label
    assert "no splits" not in _settings(births=False).label()


def test_an_hdp_run_shows_its_topic_births_on_the_curve(collection):
    record = runs.create_run(collection, _settings(model="HDP", n_topics=20, doc_truncation=5, target_docs=4_000),
                             "h", checkpoint=False)
    record.run.start()
    wait_until(lambda: record.status == "finished")
    frame = tables.changes_frame([record])
    texts = [t for t in frame["change"] if "(births" in t]  # e.g. "6 topics split in two (births, round 1)"
    rounds = [t.split("round ")[-1] for t in texts]
    assert texts and rounds == sorted(set(rounds)) and set(rounds) <= {"1)", "2)", "3)"}
    assert all(" split in two (births, round " in t and t.split(" topic")[0].isdigit() for t in texts)
    # the rest: at most one line for the split pairs judged when the run ended
    merges = [c for c in record.curve()[1] if c.name == "merges"]
    assert list(frame["change"][~frame["change"].isin(texts)]) == [
        f"{c.new} split pair{'s' if c.new != 1 else ''} of {c.old} merged back at the end (the halves stayed alike)"
        for c in merges]


def test_the_pairs_merged_back_at_the_end_of_a_run_read_as_a_sentence():
    from engine.io.records import SettingChange

    class Ended:
        name = "h"

        def curve(self):
            return (), (SettingChange(18, 540, 0.1, "births", 1, 7), SettingChange(30, 900, 0.2, "merges", 13, 11),
                        SettingChange(31, 930, 0.3, "merges", 4, 1))

    assert list(tables.changes_frame([Ended()])["change"]) == [
        "7 topics split in two (births, round 1)",
        "11 split pairs of 13 merged back at the end (the halves stayed alike)",
        "1 split pair of 4 merged back at the end (the halves stayed alike)",
    ]


def test_runs_use_the_reference_until_their_kernels_are_ready(collection, monkeypatch):
    fake = install_fake_warm_up(monkeypatch, FakeWarmUp("compiling"))
    record = runs.create_run(collection, _settings(target_docs=10**7), "a", checkpoint=False)
    record.run.start()
    wait_until(lambda: record.snapshot().t >= 2)
    assert record.snapshot().kernel == "numpy" and record.model().kernel == "numpy"
    fake.set("ready")
    wait_until(lambda: record.curve()[1])
    assert record.model().kernel == "auto"  # the copy is made again once the kernels are ready
    record.stop()
    assert list(tables.changes_frame([record])["change"]) == ["kernels NumPy → compiled"]
    # runs whose speeds are compared keep one kernel: the one ready when they are made
    assert runs.create_run(collection, _settings(), "c", checkpoint=False, one_kernel=True).run.model.kernel == "auto"
    fake.set("compiling")
    steady = runs.create_run(collection, _settings(target_docs=640), "d", checkpoint=False, one_kernel=True)
    steady.run.start()
    fake.set("ready")
    wait_until(lambda: steady.status == "finished")
    assert steady.run.model.kernel == "numpy" and steady.curve()[1] == ()
    # the workloads warmed up at start-up: the automatic first run's (an LDA) first
    first = runs.create_run(collection, runs.default_settings(collection.corpus.n_docs), "b", checkpoint=False)
    assert runs.warm_up_workloads()[0] == Workload.of(first.run.model)
    assert [w.model for w in runs.warm_up_workloads()] == ["LDA", "HDP"]


def test_app_starts_from_the_engines_defaults():
    """The Train page, the CLI and engine.SVI / engine.HDP share one set of defaults."""
    import inspect

    import engine
    from engine.cli import _schedule, build_parser

    settings = runs.RunSettings()
    svi = inspect.signature(engine.SVI).parameters
    assert (settings.kappa, settings.tau) == (svi["kappa"].default, svi["tau"].default)
    # unset, engine.SVI's S is DEFAULT_BATCH_SIZE or the whole corpus if smaller, as the app's (runs.default_settings)
    assert settings.batch_size == engine.DEFAULT_BATCH_SIZE and svi["batch_size"].default is None
    fit = build_parser().parse_args(["fit", "corpus.txt"])
    assert (_schedule(fit)["kappa"], _schedule(fit)["tau"]) == (settings.kappa, settings.tau)
    assert settings.step_size == svi["step_size"].default == _schedule(fit)["step_size"] == "schedule"
    assert settings.alpha is None and fit.alpha is None  # both leave alpha to the engine
    assert settings.doc_truncation == engine.DEFAULT_DOC_TRUNCATION
    hdp = build_parser().parse_args(["fit", "corpus.txt", "--model", "hdp"])
    from engine.cli import _build_model

    model = _build_model(hdp, n_words=30)
    assert (model.n_topics, model.doc_truncation) == (engine.DEFAULT_HDP_TOPICS, settings.doc_truncation)


def test_comparison_runs_svi_and_batch_one_after_the_other(collection):
    legs = comparison.plan(collection, _settings())
    assert [leg.settings.algorithm for leg in legs] == ["svi", "batch"]
    compare = comparison.Comparison(legs, seconds=0.5, limiter=runs.ThreadLimiter(cap=1))
    compare.start()
    wait_until(lambda: compare.finished, timeout=30)
    assert compare.progress() == 1.0
    curves = tables.curves_frame(compare.records)
    assert set(curves["run"]) == {leg.label for leg in legs}
    assert "held-out log likelihood" in comparison.summary(compare)


def test_large_collection_adds_batch_on_a_subset(collection, monkeypatch):
    monkeypatch.setattr(comparison, "LARGE_COLLECTION", 100)
    legs = comparison.plan(collection, _settings())
    assert len(legs) == 3 and legs[2].collection.corpus.n_docs < collection.corpus.n_docs


def test_tables_and_downloads(collection, explorer_env):
    record = runs.create_run(collection, _settings(), "a")
    record.run.start()
    wait_until(lambda: record.status == "finished")
    model = record.model()
    labels = [record.label(k) for k in range(model.n_topics)]
    topics = tables.topics_csv_frame(model, collection.corpus.vocabulary, labels, n=5)
    assert list(topics.columns) == ["topic", "label", "word", "weight"] and len(topics) == 20
    documents = pd.read_csv(io.BytesIO(porting.doc_topic_csv(model, collection, record.labels)()))
    top = model.top_words(3, collection.corpus.vocabulary)
    assert list(documents.columns) == ["id", "title", *(record.label(k, top[k]) for k in range(model.n_topics))]
    assert len(documents) == collection.corpus.n_docs
    model_file = porting.model_bytes(record)()
    loaded = porting.import_model("m.npz", model_file)
    assert loaded.loaded.model.n_topics == 4 and loaded.collection is not None
    schedule = tables.schedule_frame(0.9, 1.0, 256, 10_000)
    assert schedule["rho"].iloc[0] == pytest.approx(2 ** -0.9) and schedule["rho"].is_monotonic_decreasing
    # the default models' steps from the random start: at least 1/(t + 1), then the schedule
    hdp_plan, lda_plan = engine.HDP().planned_step_size, engine.LDA().planned_step_size
    raised = tables.schedule_frame(0.7, 64.0, 256, 10_000, planned=hdp_plan)
    plain = tables.schedule_frame(0.7, 64.0, 256, 10_000)
    assert (raised["rho"].iloc[0], plain["rho"].iloc[0]) == (0.5, pytest.approx(65 ** -0.7))
    assert tables.raised_steps(0.7, 64.0, 256, 10_000, hdp_plan) == 21  # (t + 64)^-0.7 < 1/(t + 1) up to t = 21
    assert tables.raised_steps(0.7, 64.0, 256, 10_000, lda_plan) == 21
    assert tables.raised_steps(0.9, 1.0, 256, 10_000, hdp_plan) == 0
    assert tables.raised_steps(1.0, 4.0, 256, 2_560, lda_plan) == 10  # kappa 1, tau > 1: the whole run
    assert tables.raised_steps(1.0, 4.0, 1, 10**9, lda_plan) == 10**9  # a bisection: quick for any run length
    for kappa, tau in ((0.9, 64.0), (0.7, 256.0), (0.55, 5000.0)):  # against a plain count of the raised steps
        rho = [(t + tau) ** -kappa for t in range(1, 3001)]
        count = sum(1 for _ in itertools.takewhile(lambda tr: lda_plan(*tr) > tr[1], enumerate(rho, start=1)))
        assert tables.raised_steps(kappa, tau, 1, 3000, lda_plan) == count
    assert tables.raised_steps(0.7, 64.0, 256, 10_000, engine.LDA(preset="paper").planned_step_size) == 0
    assert tables.schedule_frame(0.9, 1.0, 256, 10_000, planned=hdp_plan).equals(schedule)
    table = tables.run_table([record], lambda r: r.status)
    assert table.loc[0, "Status"] == "finished"


def test_the_schedules_plan_is_the_steps_a_run_takes():
    """The Train page's chart draws, step by step, the sizes engine.SVI then uses (the step floor included)."""
    corpus = engine.make_synthetic_corpus(n_docs=60, n_topics=3, seed=0).counts
    for model in (engine.HDP(n_topics=10, doc_truncation=3, n_words=corpus.shape[1], births=0),
                  engine.LDA(n_topics=3, n_words=corpus.shape[1])):
        trainer = engine.SVI(model, corpus, batch_size=20, kappa=0.7, tau=64.0, seed=0)
        reports = [trainer.step() for _ in range(18)]
        taken = [report.rho for report in reports]
        first_pass = training._first_pass(model, 60, 20) if isinstance(model, engine.LDA) else None
        plan = tables.schedule_frame(0.7, 64.0, 20, sum(r.batch_size for r in reports), planned=model.planned_step_size,
                                     first_pass=first_pass)
        assert plan["docs_seen"].tolist() == [report.docs_seen for report in reports]
        np.testing.assert_allclose(plan["rho"], taken, rtol=1e-12)
        assert taken[:4] == pytest.approx([1 / 2, 1 / 3, 1 / 4, 1 / 5])  # the floor, above (t + 64)^-0.7
    # the LDA's first pass: 15 steps of ceil(60 / 16) = 4 documents, then S = 20
    assert first_pass == (4, 15) and plan["docs_seen"].tolist() == [4 * t for t in range(1, 16)] + [80, 100, 120]
    assert tables.raised_steps(0.7, 64.0, 20, 120, model.planned_step_size, first_pass) == 18


def test_an_adaptive_run_shows_no_schedule_and_its_model_file_keeps_the_rule(collection, explorer_env):
    record = runs.create_run(collection, dataclasses.replace(_settings(), step_size="adaptive"), "adaptive")
    record.run.start()
    wait_until(lambda: record.status == "finished")
    assert record.run.trainer.step_size == "adaptive" and 0 < record.snapshot().rho <= 1
    row = tables.run_table([record], lambda r: r.status).loc[0]
    assert (row["κ"], row["τ"]) == ("—", "—")
    loaded = porting.import_model("m.npz", porting.model_bytes(record)())
    assert loaded.settings.step_size == "adaptive" and loaded.loaded.trainer_state["step_size"] == "adaptive"


def test_highlight_keeps_the_text_and_escapes_html():
    vocabulary = ("planet", "oven")
    text = "A <planet> and an oven!"
    segments = text_segments(text, vocabulary)
    assert "".join(s for s, _ in segments) == text
    html = highlight.coloured_text(segments, {0: 1, 1: 0}, lambda k: "#000000", lambda k: f"T{k}")
    assert "&lt;" in html and "title='T1'" in html and "oven" in html
    legend = highlight.legend([0, 1], lambda k: "#000000", lambda k: f"Topic <{k}>")
    assert "Topic &lt;1&gt;" in legend


def test_storage_prunes_old_checkpoints(collection, explorer_env):
    for i in range(4):
        runs.create_run(collection, _settings(), f"#{i}")
        time.sleep(0.01)
    assert len(storage.list_checkpoints()) == 0  # no model file yet: runs never started
    Path(storage.checkpoint_dir(), "x.npz").write_bytes(b"")
    storage.write_record("x", {"name": "x"})
    storage.prune_checkpoints(0)
    assert storage.list_checkpoints() == []


def test_full_export_reads_back_with_ids_columns_and_unique_labels(collection, explorer_env):
    """The SOTU-like case: a table's own id, year and president columns; two topics labelled alike."""
    n_docs = collection.corpus.n_docs
    table = Collection.of(collection.corpus, "speeches", "test", columns={
        "id": [f"speech-{i:03d}" for i in range(n_docs)], "title": [f"Speech {i}" for i in range(n_docs)],
        "year": [str(1950 + i % 50) for i in range(n_docs)], "president": ["Truman", "Kennedy"] * (n_docs // 2)})
    record = runs.create_run(table, _settings(), "a")
    record.run.start()
    wait_until(lambda: record.status == "finished")
    model = record.model()
    record.labels.update({0: "Economy", 2: "Economy"})
    archive = zipfile.ZipFile(io.BytesIO(porting.full_export(model, table.corpus.vocabulary, record.labels, table)()))
    names = set(archive.namelist())
    assert {"topic_words.csv", "topics.csv", "documents.csv", "document_lengths.csv", "term_frequencies.csv"} <= names
    documents = pd.read_csv(archive.open("documents.csv"))
    assert list(documents.columns[:4]) == ["id", "title", "year", "president"]
    top = model.top_words(3, table.corpus.vocabulary)
    assert list(documents.columns[4:]) == ["Economy (topic 0)", f"Topic 1: {', '.join(top[1])}",
                                           "Economy (topic 2)", f"Topic 3: {', '.join(top[3])}"]
    assert documents["id"].iloc[0] == "speech-000" and documents["year"].iloc[1] == 1951
    assert np.allclose(documents.iloc[:, 4:].sum(axis=1), 1.0)
    words = pd.read_csv(archive.open("topic_words.csv"), keep_default_na=False)
    assert len(words) == model.n_topics * model.n_words and sorted(set(words["topic"])) == [0, 1, 2, 3]
    assert np.allclose(words.groupby("topic")["weight"].sum(), 1.0)
    lengths = pd.read_csv(archive.open("document_lengths.csv"))
    assert lengths["length"].sum() == table.corpus.n_tokens and lengths["id"].iloc[0] == "speech-000"
    assert ("topic_words.parquet" in names) == (importlib.util.find_spec("pyarrow") is not None)



def test_full_export_is_refused_above_the_export_cell_limit(monkeypatch):
    """A model whose topic-word table is above SVI_TOPICS_MAX_EXPORT_CELLS gets a reason, and no zip."""
    model = engine.LDA(n_topics=3, n_words=5)
    model.lambda_ = np.ones((3, 5))
    assert porting.full_export_refusal(model) is None
    monkeypatch.setenv("SVI_TOPICS_MAX_EXPORT_CELLS", "14")
    assert "SVI_TOPICS_MAX_EXPORT_CELLS" in porting.full_export_refusal(model)
    with pytest.raises(engine.LimitExceededError, match="max_export_cells"):
        porting.full_export(model, [f"w{i}" for i in range(5)], {}, None)()

def test_the_model_file_holds_the_labels_edited_after_the_run_started(collection, explorer_env):
    record = runs.create_run(collection, _settings(), "a")
    record.run.start()
    wait_until(lambda: record.status == "finished")
    record.labels[1] = "Economy"  # edited on the Topics page after the run was created
    loaded = engine.load_model(porting.model_bytes(record)())
    assert loaded.labels == {1: "Economy"} and loaded.extra["explorer"]["labels"] == {"1": "Economy"}
    reopened = porting.import_model("m.npz", porting.model_bytes(record)())
    assert reopened.label(1) == "Economy"
    reopened.labels[2] = "War"  # a loaded file, relabelled and downloaded again
    again = engine.load_model(porting.model_bytes(reopened)())
    assert again.labels == {1: "Economy", 2: "War"}
    # the preprocessing (how text became words) survives both downloads, so infer counts text alike
    preprocessing = loaded.model.vectorizer_.to_dict()
    assert preprocessing == collection.corpus.vectorizer.to_dict() == again.model.vectorizer_.to_dict()


def test_importing_explorer_tables_leaves_streamlit_out():
    code = "import sys, explorer.tables; print(sorted(m for m in sys.modules if m.split('.')[0] == 'streamlit'))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def _kept(explorer_env, data: bytes, name: str = "m.npz") -> tuple[runs.RunRecord, str, storage.CheckpointInfo]:
    """Load a model file as the Export page does and keep it; what it says and the checkpoint it lists."""
    record = porting.import_model(name, data)
    said = porting.keep_import(record)
    [info] = [c for c in storage.list_checkpoints() if c.run_id == record.run_id]
    return record, said, info


def test_a_loaded_model_file_is_kept_with_the_checkpoints_and_resumable_after_a_restart(collection, explorer_env,
                                                                                        monkeypatch):
    monkeypatch.setattr(porting.state, "collection", lambda: collection)  # the collection in use, not yet stored
    record = runs.create_run(collection, _settings(), "a", checkpoint=False)
    record.run.start()
    wait_until(lambda: record.status == "finished")
    record.labels[1] = "Economy"
    data = porting.model_bytes(record)()
    loaded, said, info = _kept(explorer_env, data)
    assert said == " It is kept with this workspace's checkpoints below, to open again after a reload."
    assert info.name == "m.npz (loaded)" and info.record["labels"] == {"1": "Economy"}
    assert info.record["resumable"] is True and porting.browse_only_reason(info) is None
    kept = engine.load_model(storage.checkpoint_path(loaded.run_id))
    original = engine.load_model(data)
    assert kept.trainer_state.keys() == original.trainer_state.keys()
    assert kept.trainer_state["docs_seen"] == original.trainer_state["docs_seen"] >= 2_000
    assert len(kept.history) == len(original.history) > 0 and kept.labels == {1: "Economy"}
    assert np.array_equal(kept.model.lambda_, original.model.lambda_)
    # after a restart the documents are in the workspace too, so the checkpoint resumes (what "Resume" does)
    assert storage.load_collection(info.collection_key).corpus.n_docs == collection.corpus.n_docs
    more = dataclasses.replace(loaded.settings, target_docs=kept.trainer_state["docs_seen"] + 500)
    resumed = runs.resume_checkpoint(storage.checkpoint_path(info.run_id), collection, more, "resumed")
    resumed.run.start()
    wait_until(lambda: resumed.status == "finished")
    assert resumed.snapshot().docs_seen >= more.target_docs


def test_a_loaded_file_without_training_state_is_kept_to_browse_only(collection, explorer_env, tmp_path):
    model = engine.LDA(n_topics=3, n_words=collection.corpus.n_words, seed=0)
    model.lambda_ = np.random.default_rng(0).gamma(1.0, 1.0, (3, collection.corpus.n_words)) + 0.01
    path = tmp_path / "bare.npz"
    engine.save_model(path, model, collection.corpus.vocabulary, labels={0: "first"})  # no trainer state
    loaded, _, info = _kept(explorer_env, path.read_bytes(), "bare.npz")
    assert info.record["resumable"] is False
    assert "saved without its training state" in porting.browse_only_reason(info)
    with pytest.raises(ValueError, match=r"“bare\.npz \(loaded\)” holds a model without its training state"):
        porting.checkpoint_action("resume", info)
    assert engine.load_model(storage.checkpoint_path(loaded.run_id)).labels == {0: "first"}


def test_a_loaded_file_without_its_documents_is_kept_to_browse_only(collection, explorer_env):
    record = runs.create_run(collection, _settings(target_docs=300), "a", checkpoint=False)
    record.run.start()
    wait_until(lambda: record.status == "finished")
    loaded, _, info = _kept(explorer_env, porting.model_bytes(record)())  # no collection in use, none stored
    assert loaded.collection is None and info.record["resumable"] is True and info.collection_key == ""
    assert porting.browse_only_reason(info).startswith("Its documents are not stored in this workspace")
    with pytest.raises(FileNotFoundError, match=r"the documents of “m\.npz \(loaded\)” are no longer stored"):
        porting.checkpoint_action("resume", info)


def test_a_loaded_file_the_disk_refuses_stays_loaded_and_leaves_nothing_behind(collection, explorer_env,
                                                                                monkeypatch):
    record = runs.create_run(collection, _settings(target_docs=300), "a", checkpoint=False)
    record.run.start()
    wait_until(lambda: record.status == "finished")
    data = porting.model_bytes(record)()

    def full_disk(path, *args, **kwargs):
        Path(path).write_bytes(b"half")  # as if the disk filled up part way
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runs, "save_model", full_disk)
    loaded = porting.import_model("m.npz", data)
    said = porting.keep_import(loaded)
    assert said == (" It could not be kept on the server (\\[Errno 28\\] No space left on device), so after a "
                    "reload load the file again.")
    assert storage.list_checkpoints() == [] and list(storage.checkpoint_dir().iterdir()) == []
    assert loaded.model() is not None and not loaded.checkpointed


def test_a_cvb0_run_keeps_its_local_step_through_a_model_file(collection):
    from explorer import model_extra

    record = runs.create_run(collection, _settings(local_update="cvb0"), "c", checkpoint=False)
    model = record.model()
    assert model.local_update == "cvb0" and "CVB0" in record.settings.label()
    default = runs.create_run(collection, _settings(), "z", checkpoint=False).model()
    assert default.local_update == "auto" == engine.LDA().local_update  # the app trains with the engine's default
    assert model_extra.checked_settings({}, default).local_update == "auto"
    labels = {update: _settings(local_update=update).label() for update in ("auto", "cvb0", "zero_order")}
    assert "CVB0" not in labels["auto"] and "zero-order" not in labels["auto"]  # the default goes unsaid
    assert "CVB0" in labels["cvb0"] and "zero-order" in labels["zero_order"]  # files' runs from before it say theirs
    old = engine.LDA(n_topics=model.n_topics, n_words=model.n_words, local_update="zero_order")
    old.lambda_ = model.lambda_
    old_file = engine.LoadedModel(model=old, vocabulary=collection.corpus.vocabulary, trainer_state=None)
    assert runs.load_record(old_file, "an old file", None).settings.local_update == "zero_order"
    # a file's settings: the step defaults to its model's and must agree with it
    assert model_extra.checked_settings({}, model).local_update == "cvb0"
    with pytest.raises(ValueError, match="local_update"):
        model_extra.checked_settings({"local_update": "zero_order"}, model)
    with pytest.raises(ValueError, match="local_update"):
        model_extra.checked_settings({"local_update": "mean_field"}, model)
    loaded = engine.LoadedModel(model=model, vocabulary=collection.corpus.vocabulary, trainer_state=None)
    assert runs.load_record(loaded, "from a file", None).settings.local_update == "cvb0"
