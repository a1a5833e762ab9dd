"""Background training runs (engine/inference/run.py): thread lifecycle, snapshots, evaluation, budgets, checkpoints."""

from __future__ import annotations

import dataclasses
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

import engine.inference.run as run_module
from engine.inference.run import EvalPoint, Snapshot, TrainingRun, default_target_docs
from engine.inference.svi import SVI, BatchVI
from engine.inference.warmup import Workload
from engine.io.model_files import load_model
from engine.models.lda import LDA
from tests.engine._fake_warm_up import FakeWarmUp
from tests.engine._fake_warm_up import install as install_fake_warm_up

TIMEOUT = 10.0


def _test_split(counts: sp.csr_matrix, n_test: int = 20):
    """Last n_test documents; every other stored word type of each goes to the held-out half."""
    train, test = counts[:-n_test], counts[-n_test:].tocoo()
    order = np.lexsort((test.col, test.row))
    held = np.zeros(test.nnz, dtype=bool)
    held[order[1::2]] = True
    part = lambda mask: sp.csr_matrix((test.data[mask], (test.row[mask], test.col[mask])), shape=test.shape)  # noqa: E731
    return train.tocsr(), part(~held), part(held)


@pytest.fixture
def runs():
    """Build runs through this fixture; all are stopped at teardown."""
    made: list[TrainingRun] = []

    def make(corpus, *, batch_size=20, evaluate=True, trainer="svi", **options) -> TrainingRun:
        train, observed, heldout = _test_split(corpus.counts)
        model = LDA(n_topics=corpus.n_topics, n_words=corpus.n_words, seed=0, first_pass_steps=0)  # S a step
        if trainer == "svi":
            trainer = SVI(model, train, batch_size=batch_size, kappa=0.9, tau=1.0)
        else:
            trainer = BatchVI(model, train)
        split = (observed, heldout) if evaluate else (None, None)
        run = TrainingRun(trainer, *split, vocabulary=corpus.vocabulary, **options)
        made.append(run)
        return run

    yield make
    for run in made:
        run.stop(timeout=TIMEOUT)
        assert not run.is_alive


def _wait_for(predicate, run: TrainingRun, timeout: float = TIMEOUT) -> Snapshot:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snap = run.snapshot()
        if predicate(snap):
            return snap
        time.sleep(0.005)
    raise AssertionError(f"condition not reached within {timeout} s; last snapshot: {run.snapshot()}")


@pytest.mark.parametrize(
    ("n_train", "expected"),
    [(1, 5_000), (499, 5_000), (500, 5_000), (501, 5_010), (2_000, 20_000), (100_000, 1_000_000),
     (100_001, 1_000_000), (1_000_000, 1_000_000), (1_000_001, 1_000_001), (10**8, 10**8)],
)
def test_default_run_length_is_ten_passes_between_the_bounds_and_at_least_one(n_train, expected):
    assert default_target_docs(n_train) == expected
    assert run_module.DEFAULT_PASSES == 10


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "100"])
def test_default_run_length_refuses_what_is_not_a_document_count(bad):
    with pytest.raises((ValueError, TypeError)):
        default_target_docs(bad)


def test_lifecycle_start_pause_resume_schedule_stop(runs, planted_corpus):
    run = runs(planted_corpus)
    assert run.snapshot().status == "ready"
    run.start()
    _wait_for(lambda s: s.status == "running" and s.t >= 3, run)

    run.pause()
    paused = _wait_for(lambda s: s.status == "paused", run)
    time.sleep(0.1)
    assert run.snapshot().t == paused.t == run.trainer.t

    run.set_schedule(kappa=0.7, tau=3.0, batch_size=10)
    changed = _wait_for(lambda s: len(s.changes) == 3, run)
    assert [(c.name, c.old, c.new) for c in changed.changes] == [
        ("kappa", 0.9, 0.7), ("tau", 1.0, 3.0), ("batch_size", 20, 10)]
    assert all(c.step == paused.t for c in changed.changes)
    assert (changed.kappa, changed.tau, changed.batch_size, changed.status) == (0.7, 3.0, 10, "paused")

    run.resume()
    resumed = _wait_for(lambda s: s.t >= paused.t + 3, run)
    assert resumed.status == "running"
    assert (run.trainer.kappa, run.trainer.tau, run.trainer.batch_size) == (0.7, 3.0, 10)
    assert resumed.rho == pytest.approx((resumed.t + 3.0) ** -0.7)

    assert run.stop(timeout=TIMEOUT)
    assert not run.is_alive
    snap = run.snapshot()
    assert snap.status == "stopped"
    assert snap.t == run.trainer.t and np.all(np.isfinite(run.model.lambda_))
    assert snap.history[-1].step == snap.t  # evaluated at the end
    with pytest.raises(RuntimeError, match="cannot be started again"):
        run.start()
    with pytest.raises(RuntimeError, match="has stopped"):
        run.set_schedule(kappa=0.8)


def test_snapshot_is_immutable_and_complete(runs, planted_corpus):
    run = runs(planted_corpus, target_docs=200, eval_every_docs=100)
    run.start()
    assert run.wait(TIMEOUT)
    snap = run.snapshot()
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.t = 0
    assert isinstance(snap.history, tuple) and isinstance(snap.changes, tuple)
    assert isinstance(snap.top_words, tuple) and all(isinstance(row, tuple) for row in snap.top_words)
    assert len(snap.top_words) == 5 and all(len(row) == 10 for row in snap.top_words)
    assert all(word in planted_corpus.vocabulary for row in snap.top_words for word in row)
    assert isinstance(snap.topic_weights, tuple) and sum(snap.topic_weights) == pytest.approx(1.0)
    assert snap.docs_per_second > 0 and snap.epoch == pytest.approx(200 / 180)
    assert snap.progress == 1.0 and snap.heldout_loglik == snap.history[-1].heldout_loglik
    # top words agree with the model's own ranking
    assert [set(row) for row in snap.top_words] == [set(r) for r in run.model.top_words(10, planted_corpus.vocabulary)]


def test_evaluations_every_eval_every_docs_and_target_finishes(runs, planted_corpus):
    run = runs(planted_corpus, batch_size=20, eval_every_docs=40, target_docs=200)
    run.start()
    assert run.wait(TIMEOUT)
    snap = run.snapshot()
    assert snap.status == "finished" and "target" in snap.reason
    assert snap.docs_seen == 200 and snap.t == 10
    assert [p.docs_seen for p in snap.history] == [0, 40, 80, 120, 160, 200]
    assert [p.step for p in snap.history] == [0, 2, 4, 6, 8, 10]
    assert all(isinstance(p, EvalPoint) and np.isfinite(p.heldout_loglik) for p in snap.history)
    assert snap.history[-1].heldout_loglik > snap.history[0].heldout_loglik
    assert [p.seconds for p in snap.history] == sorted(p.seconds for p in snap.history)


def test_training_seconds_exclude_evaluation(runs, planted_corpus, monkeypatch):
    def slow_evaluation(model, observed, heldout):
        time.sleep(0.1)
        return -1.0

    monkeypatch.setattr(run_module, "predictive_log_likelihood", slow_evaluation)
    run = runs(planted_corpus, batch_size=20, eval_every_docs=20, target_docs=100)
    started = time.perf_counter()
    run.start()
    assert run.wait(TIMEOUT)
    wall = time.perf_counter() - started
    snap = run.snapshot()
    assert len(snap.history) == 6
    assert 0 < snap.seconds <= wall - 0.6  # the six 0.1 s evaluations are not training time
    assert snap.seconds == pytest.approx(snap.history[-1].seconds)


def test_failure_in_the_worker_is_reported(runs, planted_corpus):
    run = runs(planted_corpus, evaluate=False)
    calls = []

    def broken_local_step(X, rng=None, warm_start=None):
        calls.append(1)
        if len(calls) > 2:
            raise RuntimeError("local step exploded")
        return LDA.local_step(run.model, X, rng=rng, warm_start=warm_start)

    run.model.local_step = broken_local_step
    run.start()
    assert run.wait(TIMEOUT)
    snap = run.snapshot()
    assert snap.status == "failed"
    assert snap.error == "RuntimeError: local step exploded"
    assert isinstance(run.exception, RuntimeError)
    assert snap.t == 2 and run.trainer.t == 2  # the failed step did not count
    with pytest.raises(RuntimeError, match="has failed"):
        run.resume()


def test_heartbeat_timeout_stops_or_pauses(runs, planted_corpus):
    stopped = runs(planted_corpus, evaluate=False, heartbeat_timeout=0.2)
    kept = runs(planted_corpus, evaluate=False, heartbeat_timeout=0.5)
    paused = runs(planted_corpus, evaluate=False, heartbeat_timeout=0.2, on_heartbeat_timeout="pause")
    for run in (stopped, kept, paused):
        run.start()
    deadline = time.monotonic() + 1.2  # well past kept's timeout, with a heartbeat every 20 ms
    while time.monotonic() < deadline:
        kept.heartbeat()
        time.sleep(0.02)
    assert stopped.wait(TIMEOUT)
    assert stopped.snapshot().status == "stopped" and "heartbeat" in stopped.snapshot().reason
    assert kept.snapshot().status == "running"
    snap = _wait_for(lambda s: s.status == "paused", paused)
    assert "heartbeat" in snap.reason and paused.is_alive
    paused.resume()
    _wait_for(lambda s: s.status == "running" and s.t > snap.t, paused)


def test_training_time_budget(runs, planted_corpus):
    run = runs(planted_corpus, evaluate=False, max_seconds=0.05)
    run.start()
    assert run.wait(TIMEOUT)
    snap = run.snapshot()
    assert snap.status == "stopped" and "budget" in snap.reason
    assert 0.05 <= snap.seconds < 1.0


def test_model_copy_and_save_while_training(runs, planted_corpus, tmp_path):
    run = runs(planted_corpus, evaluate=False)
    run.start()
    _wait_for(lambda s: s.t >= 2, run)
    copy = run.model_copy()
    frozen = copy.lambda_.copy()
    _wait_for(lambda s: s.t >= 6, run)
    assert copy is not run.model and np.array_equal(copy.lambda_, frozen)
    assert np.all(np.isfinite(copy.lambda_))
    saved = load_model(run.save(tmp_path / "while-training.npz"))  # taken between two steps too
    assert saved.trainer_state["t"] >= 6 and saved.vocabulary == planted_corpus.vocabulary
    assert saved.history == () and saved.extra["run"]["seconds"] > 0


def test_copies_while_training_are_consistent(runs, planted_corpus):
    run = runs(planted_corpus, evaluate=False)
    errors = []

    def browse():
        for _ in range(20):
            try:
                run.model_copy().top_words(5)
                run.snapshot()
            except Exception as exc:  # collected for the assertion below
                errors.append(exc)

    run.start()
    readers = [threading.Thread(target=browse) for _ in range(2)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(TIMEOUT)
    assert errors == []
    assert run.stop(TIMEOUT)


def test_stop_before_start_and_invalid_requests(runs, planted_corpus):
    run = runs(planted_corpus)
    with pytest.raises(ValueError, match="kappa must be in"):
        run.set_schedule(kappa=1.5)
    with pytest.raises(ValueError, match="tau must be"):
        run.set_schedule(tau=-1)
    with pytest.raises(ValueError, match="batch_size must be in"):
        run.set_schedule(batch_size=10_000)
    assert run.stop()
    assert run.snapshot().status == "stopped" and not run.is_alive
    with pytest.raises(ValueError, match="give both observed and heldout"):
        TrainingRun(run.trainer, observed=sp.csr_matrix((2, planted_corpus.n_words)))
    with pytest.raises(ValueError, match="vocabulary has 2 words"):
        TrainingRun(run.trainer, vocabulary=["a", "b"])
    with pytest.raises(ValueError, match="on_heartbeat_timeout"):
        TrainingRun(run.trainer, on_heartbeat_timeout="explode")


def test_batch_vi_run(runs, planted_corpus):
    run = runs(planted_corpus, trainer="batch", target_docs=3 * 180)
    with pytest.raises(TypeError, match="no step-size schedule"):
        run.set_schedule(kappa=0.8)
    run.start()
    assert run.wait(TIMEOUT)
    snap = run.snapshot()
    assert snap.status == "finished" and snap.t == 3 and snap.kappa is None and snap.batch_size == 180
    assert [p.step for p in snap.history] == [0, 1, 2, 3]


def test_kappa_outside_the_convergent_range_is_applied_without_failing(runs, planted_corpus):
    run = runs(planted_corpus, evaluate=False)
    run.set_schedule(kappa=0.3)
    run.start()
    snap = _wait_for(lambda s: s.t >= 2, run)
    assert snap.kappa == 0.3 and snap.changes[0].step == 0 and snap.error is None


def test_checkpoints_and_resume_continue_exactly(runs, planted_corpus, tmp_path):
    path = tmp_path / "run.npz"
    run = runs(planted_corpus, eval_every_docs=40, target_docs=100, checkpoint_path=path,
               checkpoint_every_seconds=0.01, name="first")
    run.set_schedule(kappa=0.8)
    run.start()
    assert run.wait(TIMEOUT)
    first = run.snapshot()
    loaded = load_model(path)
    assert loaded.trainer_state["t"] == first.t == 5
    assert loaded.history == first.history and loaded.changes == first.changes
    assert np.array_equal(loaded.model.lambda_, run.model.lambda_)

    train, observed, heldout = _test_split(planted_corpus.counts)
    resumed = TrainingRun.resume_from(path, train, observed, heldout, target_docs=200)
    assert resumed.snapshot().t == 5 and resumed.snapshot().history == first.history
    assert resumed.name == "first" and resumed.checkpoint_path == path
    resumed.start()
    assert resumed.wait(TIMEOUT)
    second = resumed.snapshot()

    straight = runs(planted_corpus, eval_every_docs=40, target_docs=200)
    straight.set_schedule(kappa=0.8)
    straight.start()
    assert straight.wait(TIMEOUT)
    assert second.t == straight.snapshot().t == 10
    # lambda to rounding: the checkpoint holds it with the lazily pending decay applied
    np.testing.assert_allclose(resumed.model.lambda_, straight.model.lambda_, rtol=1e-12)
    assert [p.docs_seen for p in second.history] == [0, 40, 80, 100, 120, 160, 200]
    assert second.seconds >= first.seconds
    assert load_model(path).trainer_state["t"] == 10


def test_the_training_thread_evaluates_and_checkpoints_only_under_the_model_lock(runs, planted_corpus, tmp_path,
                                                                                   monkeypatch):
    """Reading the model may fill its lazily resolved settings: a model_copy() deep-copying it meanwhile saw its
    attributes change ("dictionary changed size during iteration", a CI run's Documents page).  The snapshot's
    display is refreshed by the starting thread too (before start), so only the run thread's reads are counted."""
    run = runs(planted_corpus, eval_every_docs=40, target_docs=100, checkpoint_path=tmp_path / "run.npz",
               checkpoint_every_seconds=0.01)
    held = []
    real_score, real_save, real_weights = run_module.predictive_log_likelihood, run_module.save_model, LDA.topic_weights

    def score(*args, **options):
        held.append(("evaluate", run._model_lock.locked()))
        return real_score(*args, **options)

    def save(*args, **options):
        held.append(("checkpoint", run._model_lock.locked()))
        return real_save(*args, **options)

    def weights(model):  # what the snapshot's display reads (the UI's own copies are not in this run's thread)
        if threading.current_thread() is run._thread:
            held.append(("display", run._model_lock.locked()))
        return real_weights(model)

    monkeypatch.setattr(run_module, "predictive_log_likelihood", score)
    monkeypatch.setattr(run_module, "save_model", save)
    monkeypatch.setattr(LDA, "topic_weights", weights)
    run.start()
    assert run.wait(TIMEOUT) and run.snapshot().error is None
    assert {kind for kind, _ in held} == {"evaluate", "checkpoint", "display"}
    assert all(locked for _, locked in held), held


# ------------------------------------------------------------- compile_in_background
def test_compile_in_background_switches_between_steps_and_records_it(runs, planted_corpus, tmp_path, monkeypatch):
    """The reference while the kernels compile, the model's own kernel after: the same run as one switched by hand."""
    fake = install_fake_warm_up(monkeypatch, FakeWarmUp("compiling"))
    path = tmp_path / "checkpoint.npz"
    # no target: the run goes on until stopped, so no timing can end it before the kernels are ready
    run = runs(planted_corpus, eval_every_docs=60, compile_in_background=True,
               checkpoint_path=path, checkpoint_every_seconds=0.01)
    assert run.snapshot().kernel == "compiled" and fake.requested == []  # nothing asked before start()
    run.start()
    waiting = _wait_for(lambda s: s.t >= 3 and path.exists(), run)  # fast steps may come before the first write
    assert fake.requested == [Workload("LDA", "auto", "float64")]
    assert (waiting.kernel, waiting.kernel_wait, waiting.changes) == ("numpy", "compiling", ())
    assert run.model_copy().kernel == "numpy"  # a copy computes as the steps do
    # files keep the model's own setting
    assert load_model(run.save(tmp_path / "saved.npz")).model.kernel == "auto"
    assert load_model(path).model.kernel == "auto"

    fake.set("ready")
    _wait_for(lambda s: s.changes, run)
    assert run.stop(TIMEOUT)
    final = run.snapshot()
    assert (final.status, final.kernel, final.kernel_wait) == ("stopped", "compiled", None)
    (switch,) = final.changes
    assert (switch.name, switch.old, switch.new) == ("kernel", "numpy", "compiled")
    assert 3 <= switch.step < final.t and switch.docs_seen == 20 * switch.step
    assert run.model.kernel == "auto" and load_model(path).changes == final.changes

    # the switch changed nothing but the kernel: the same steps by hand give the same topics
    train, _, _ = _test_split(planted_corpus.counts)
    model = LDA(n_topics=planted_corpus.n_topics, n_words=planted_corpus.n_words, seed=0, kernel="numpy",
                first_pass_steps=0)  # as the runs fixture's
    svi = SVI(model, train, batch_size=20, kappa=0.9, tau=1.0)
    svi.run(n_steps=switch.step)
    model.kernel = "auto"
    svi.run(n_steps=final.t - switch.step)
    np.testing.assert_array_equal(model.lambda_, run.model.lambda_)


def test_compile_in_background_waits_for_kernels_that_load_from_the_cache(runs, planted_corpus, monkeypatch):
    fake = install_fake_warm_up(monkeypatch, FakeWarmUp("loading"))
    run = runs(planted_corpus, target_docs=100, compile_in_background=True)
    threading.Timer(0.2, fake.set, args=("ready",)).start()
    run.start()
    assert run.wait(TIMEOUT)
    snap = run.snapshot()
    assert (snap.kernel, snap.changes, run.model.kernel) == ("compiled", (), "auto")  # never the reference


@pytest.mark.parametrize("status", ["compiling", "failed"])
def test_a_run_that_ends_before_its_kernels_gives_the_model_its_kernel_back(runs, planted_corpus, monkeypatch,
                                                                            tmp_path, status):
    install_fake_warm_up(monkeypatch, FakeWarmUp(status))
    path = tmp_path / "checkpoint.npz"
    run = runs(planted_corpus, target_docs=100, compile_in_background=True, checkpoint_path=path)
    run.start()
    assert _wait_for(lambda s: s.t >= 1, run).kernel_wait in (status, None)
    assert run.wait(TIMEOUT)
    snap = run.snapshot()
    assert (snap.status, snap.changes, snap.kernel_wait) == ("finished", (), None)
    assert run.model.kernel == "auto" and load_model(path).model.kernel == "auto"


def test_compile_in_background_leaves_numpy_models_alone(runs, planted_corpus, monkeypatch):
    fake = install_fake_warm_up(monkeypatch, FakeWarmUp("compiling"))
    built = runs(planted_corpus)
    built.model.kernel = "numpy"
    run = TrainingRun(built.trainer, target_docs=60, compile_in_background=True)
    run.start()
    assert run.wait(TIMEOUT)
    assert fake.requested == [] and run.snapshot().kernel == "numpy" and run.snapshot().kernel_wait is None


def test_progress_goes_to_the_engine_logger(runs, planted_corpus, caplog):
    import logging

    assert any(isinstance(h, logging.NullHandler) for h in logging.getLogger("engine").handlers)  # silent by default
    caplog.set_level(logging.INFO, logger="engine")
    run = runs(planted_corpus, batch_size=20, eval_every_docs=40, target_docs=80)
    run.start()
    assert run.wait(TIMEOUT)
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("engine")]
    assert sum("held-out log likelihood" in m for m in messages) == 3, messages
    assert any("finished" in m and "80 documents" in m for m in messages), messages


def _finished_hdp_run(corpus):
    """A 5-epoch HDP run on ``corpus`` with births, waited for: (model, run, snapshot, train, observed, heldout).

    Its pairs born after epochs 2 and 3 are not due until epochs 6 and 7.
    """
    from engine.models.hdp import HDP

    train, observed, heldout = _test_split(corpus.counts)
    model = HDP(n_topics=20, doc_truncation=5, n_words=corpus.n_words, seed=0)
    run = TrainingRun(SVI(model, train, batch_size=30, seed=0), observed, heldout, target_docs=5 * train.shape[0])
    run.start()
    try:
        snap = _wait_for(lambda s: s.status == "finished", run)
    finally:
        run.stop(timeout=TIMEOUT)
    return model, run, snap, train, observed, heldout


def test_an_hdp_run_marks_its_topic_births_and_keeps_them_in_its_file(planted_corpus, tmp_path):
    model, run, snap, train, _, _ = _finished_hdp_run(planted_corpus)
    births = [c for c in snap.changes if c.name == "births"]
    # one mark per round that split topics, in the step that follows epoch 1, 2 or 3
    rounds = [c.old for c in births]
    assert births and rounds == sorted(set(rounds)) and set(rounds) <= {1, 2, 3}
    assert all(c.old < c.docs_seen / train.shape[0] <= c.old + 0.2 for c in births)
    assert all(0 < c.new <= model.births for c in births)
    assert model.training_clock()["birth_rounds"] == 3
    run.save(tmp_path / "hdp.npz")
    assert [c for c in load_model(tmp_path / "hdp.npz").changes if c.name == "births"] == births


def test_an_hdp_run_judges_its_pending_births_when_it_ends_and_scores_the_merged_model(planted_corpus, tmp_path):
    from engine.inference.evaluation import predictive_log_likelihood

    model, run, snap, _, observed, heldout = _finished_hdp_run(planted_corpus)
    born = sum(c.new for c in snap.changes if c.name == "births")
    merges = [c for c in snap.changes if c.name == "merges"]
    assert model.training_clock()["pairs"] == []  # nothing left pending
    # planted topics: most halves are chance splits of one topic, merged back at the end
    assert len(merges) == 1 and 0 < merges[0].new <= merges[0].old <= born
    assert (merges[0].step, merges[0].docs_seen) == (snap.history[-1].step, snap.history[-1].docs_seen)
    # the curve's last point scores the merged model, the one before it the model as training left it
    assert snap.history[-2].step == snap.history[-1].step
    assert snap.history[-1].heldout_loglik == pytest.approx(predictive_log_likelihood(model, observed, heldout))
    assert snap.history[-1].heldout_loglik != snap.history[-2].heldout_loglik
    run.save(tmp_path / "hdp.npz")
    assert [c for c in load_model(tmp_path / "hdp.npz").changes if c.name == "merges"] == merges


def test_an_lda_run_marks_no_births(runs, planted_corpus):
    run = runs(planted_corpus, target_docs=3 * 180)
    run.start()
    snap = _wait_for(lambda s: s.status == "finished", run)
    assert not [c for c in snap.changes if c.name in ("births", "merges")]
