"""SVI's local step on a Dask cluster: the same lambda as in-process, faults, workers joining.

One LocalCluster of two single-threaded worker processes serves the whole module (starting
one takes seconds).
"""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
import scipy.sparse as sp

import engine
from engine.inference.distributed import canonical_address, chunk_bounds, connect, local_cluster
from tests.conftest import make_planted_corpus

distributed = pytest.importorskip("distributed")

N_STEPS = 20


@pytest.fixture(scope="module")
def client():
    with (
        local_cluster(2) as cluster,  # as "local:2" starts
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def corpus():
    return make_planted_corpus(n_docs=300, n_topics=6, seed=3).counts


def _models():
    return {
        "LDA": lambda: engine.LDA(n_topics=6, seed=0),
        "LDA-random-start": lambda: engine.LDA(n_topics=6, seed=0, gamma_init="random", learn_alpha=True),
        "HDP": lambda: engine.HDP(n_topics=12, doc_truncation=4, seed=0, dtype="float64"),
        "HDP-float32": lambda: engine.HDP(n_topics=12, doc_truncation=4, seed=0),  # the default precision
    }


# the statistics are summed in another order on the cluster: float64 rounding stays below 1e-10 relative
# after 20 steps, float32's (the HDP's default) below 2e-3 (measured: 7e-6 without the HDP's warm-up,
# 6.8e-4 with it: in the warm-up every topic enters every pointer's update, and the steps amplify the
# two orders' rounding; the float64 case shows the updates themselves are the same)
_RTOL = {"float64": 1e-10, "float32": 2e-3}


def _run(make, corpus, n_steps=N_STEPS, **options):
    model = make()
    trainer = engine.SVI(model, corpus, batch_size=64, seed=0, **options)
    for _ in range(n_steps):
        trainer.step()
    return model, trainer


@pytest.mark.parametrize("name", list(_models()))
def test_lambda_after_20_steps_equals_the_single_process_run(client, corpus, name):
    alone, _ = _run(_models()[name], corpus)
    spread, trainer = _run(_models()[name], corpus, cluster=client)
    rtol = _RTOL[str(alone.lambda_.dtype)]
    np.testing.assert_allclose(spread.lambda_, alone.lambda_, rtol=rtol, atol=0)
    if name.startswith("HDP"):
        np.testing.assert_allclose(spread.sticks_, alone.sticks_, rtol=rtol, atol=0)
    assert trainer.cluster.last_workers == 2


def test_a_disk_corpus_is_read_by_the_workers_and_only_ids_travel(client, corpus, tmp_path):
    disk = engine.DiskCorpus.from_counts(corpus, tmp_path / "corpus")
    alone, _ = _run(_models()["LDA"], corpus, n_steps=5)
    spread, trainer = _run(_models()["LDA"], disk, n_steps=5, cluster=client)
    np.testing.assert_allclose(spread.lambda_, alone.lambda_, rtol=1e-10, atol=0)
    sent, received = trainer.cluster.last_bytes
    assert sent > 64 * 8 and received > 0  # the ids and lambda's columns out, statistics back


def test_doc_ids_steps_work_on_the_cluster(client, corpus):
    alone = _models()["LDA"]()
    engine.SVI(alone, corpus, batch_size=64, seed=0).step(doc_ids=[5, 1, 7, 200])
    spread = _models()["LDA"]()
    engine.SVI(spread, corpus, batch_size=64, seed=0, cluster=client).step(doc_ids=[5, 1, 7, 200])
    np.testing.assert_allclose(spread.lambda_, alone.lambda_, rtol=1e-10, atol=0)


def test_a_step_that_fails_on_the_cluster_leaves_the_model_as_it_was(client, corpus):
    model, trainer = _run(_models()["LDA"], corpus, n_steps=2, cluster=client)
    before = model.lambda_.copy()
    trainer.cluster.timeout = 1e-6  # no step finishes in a microsecond
    with pytest.raises(engine.ClusterError, match="the model was not updated"):
        trainer.step()
    assert trainer.t == 2
    np.testing.assert_array_equal(model.lambda_, before)


def test_a_worker_killed_mid_step_is_retried_and_the_checkpoint_resumes(client, corpus, tmp_path, monkeypatch):
    original_wait = distributed.wait
    killed = []

    def wait_after_killing_a_worker(futures, **options):
        if len(killed) == 0 and trainer.t == 3:  # the chunks of step 4 are submitted: kill one worker
            pid = next(iter(client.run(os.getpid).values()))
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        return original_wait(futures, **options)

    monkeypatch.setattr(distributed, "wait", wait_after_killing_a_worker)
    def make():  # S a step, as the test counts steps (the first pass's smaller ones: test_first_pass.py)
        return engine.LDA(n_topics=6, seed=0, first_pass_steps=0)

    model = make()
    trainer = engine.SVI(model, corpus, batch_size=64, seed=0, cluster=client)
    path = tmp_path / "run.svit"
    run = engine.TrainingRun(trainer, target_docs=6 * 64, checkpoint_path=path)
    run.start()
    assert run.wait(timeout=120)
    snapshot = run.snapshot()
    assert killed and snapshot.error is None and trainer.t == 6
    alone, _ = _run(make, corpus, n_steps=6)
    np.testing.assert_allclose(model.lambda_, alone.lambda_, rtol=1e-10, atol=0)  # no step half-applied

    client.wait_for_workers(2, timeout=60)  # the nanny restarts the killed worker
    resumed = engine.TrainingRun.resume_from(path, corpus, cluster=client, target_docs=8 * 64)
    resumed.start()
    assert resumed.wait(timeout=120) and resumed.snapshot().error is None
    assert resumed.trainer.t == 8
    alone, _ = _run(make, corpus, n_steps=8)
    np.testing.assert_allclose(resumed.model.lambda_, alone.lambda_, rtol=1e-10, atol=0)


def test_a_corpus_lost_with_a_killed_worker_is_sent_again(client, corpus):
    """A step whose corpus was on a worker that died (a CI run lost it mid-step) scatters it again and goes on."""
    client.wait_for_workers(2, timeout=60)
    make = _models()["LDA"]
    model = make()
    trainer = engine.SVI(model, corpus, batch_size=64, seed=0, cluster=client)
    address, pid = next(iter(client.run(os.getpid).items()))
    step = trainer.cluster
    step.release()  # the corpus now lives only on the worker killed next
    step._corpus = client.scatter(corpus, workers=[address], hash=False)
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while address in client.nthreads():  # the scheduler notices the loss
        assert time.monotonic() < deadline, "the scheduler never noticed the killed worker"
        time.sleep(0.1)
    for _ in range(3):
        trainer.step()
    assert trainer.t == 3
    alone, _ = _run(make, corpus, n_steps=3)
    np.testing.assert_allclose(model.lambda_, alone.lambda_, rtol=1e-10, atol=0)
    client.wait_for_workers(2, timeout=60)  # the nanny restarts the killed worker


def test_a_worker_that_joins_is_used_from_the_next_step(client, corpus):
    model, trainer = _run(_models()["HDP"], corpus, n_steps=1, cluster=client)
    assert trainer.cluster.last_workers == 2
    client.cluster.scale(3)
    try:
        client.wait_for_workers(3, timeout=60)
        trainer.step()
        assert trainer.cluster.last_workers == 3
    finally:
        client.cluster.scale(2)
    alone, _ = _run(_models()["HDP"], corpus, n_steps=2)
    np.testing.assert_allclose(model.lambda_, alone.lambda_, rtol=1e-10, atol=0)


def test_an_unknown_cluster_is_refused_with_what_is_allowed(corpus):
    with pytest.raises(ValueError, match="local:N"):
        engine.SVI(engine.LDA(n_topics=3), corpus, cluster="local:zero")


def test_local_n_has_one_spelling_and_at_most_the_cpus():
    assert canonical_address(" local:001 ") == canonical_address("local:1") == "local:1"
    assert canonical_address(" tcp://host:8786 ") == "tcp://host:8786"
    with pytest.raises(ValueError, match=rf"N in \[1, {os.cpu_count()}\]"):
        connect(f"local:{(os.cpu_count() or 1) + 1}")  # refused before any process starts
    with pytest.raises(ValueError, match="local:N"):
        connect("local:100000")


def test_an_unreachable_scheduler_is_a_cluster_error():
    with pytest.raises(engine.ClusterError, match="could not reach the Dask scheduler"):
        connect("tcp://127.0.0.1:9", timeout=1.0)


def test_chunks_follow_the_entries_and_keep_a_document_each():
    counts = sp.csr_matrix(np.ones((10, 4)))
    assert chunk_bounds(counts, [1, 1]).tolist() == [0, 5, 10]
    assert chunk_bounds(counts, [1, 3]).tolist() == [0, 3, 10]  # 2.5 rounded up to whole documents
    assert chunk_bounds(counts[:2], [1, 1, 1]).tolist() == [0, 1, 2]
    long_first = sp.csr_matrix(np.vstack([np.full((1, 4), 1.0), np.eye(4)[[0] * 12]]))  # 4 entries, then 12 x 1
    assert chunk_bounds(long_first, [1, 1]).tolist() == [0, 5, 13]


# --------------------------------------------------------------------- the CLI (engine/cli.py)
def _corpus_file(tmp_path, counts):
    vocabulary = [f"word{i}" for i in range(counts.shape[1])]
    return engine.write_uci(engine.Corpus.from_counts(counts, vocabulary), tmp_path / "docword.planted.txt",
                            tmp_path / "vocab.planted.txt")


def test_cli_fit_trains_on_the_scheduler_it_is_given(client, corpus, tmp_path, capsys):
    from engine.cli import main

    path = _corpus_file(tmp_path, corpus)
    common = ["fit", str(path), "--topics", "4", "--batch-size", "50", "--test-docs", "20", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "alone.npz")]) == 0
    assert main([*common, "--out", str(tmp_path / "spread.npz"), "--dask", client.scheduler.address]) == 0
    assert f"local steps on Dask {client.scheduler.address}" in capsys.readouterr().err
    assert main([*common, "--out", str(tmp_path / "local.npz"), "--dask", "local:1"]) == 0  # a LocalCluster
    assert "local steps on Dask" in capsys.readouterr().err
    for name in ("spread.npz", "local.npz"):
        alone, spread = engine.load_model(tmp_path / "alone.npz"), engine.load_model(tmp_path / name)
        np.testing.assert_allclose(spread.model.lambda_, alone.model.lambda_, rtol=1e-10, atol=0)


@pytest.mark.parametrize("value", ["local:0", "local:", "nowhere", "tcp://host"])
def test_cli_refuses_a_cluster_it_cannot_read(value, corpus, tmp_path, capsys):
    from engine.cli import main

    with pytest.raises(SystemExit):
        main(["fit", str(_corpus_file(tmp_path, corpus)), "--dask", value])
    assert "local:N" in capsys.readouterr().err


def test_cli_refuses_dask_with_batch_vi(corpus, tmp_path, capsys):
    from engine.cli import main

    assert main(["fit", str(_corpus_file(tmp_path, corpus)), "--algorithm", "batch", "--dask", "local:2",
                 "--no-progress"]) == 2
    assert "--dask applies to --algorithm svi only" in capsys.readouterr().err


def test_an_ended_run_leaves_no_corpus_on_the_workers_and_a_later_step_sends_it_again(client, corpus):
    """The cluster is shared: a finished run's corpus is dropped from the workers' memory."""
    import time

    model = _models()["LDA"]()
    trainer = engine.SVI(model, corpus, batch_size=64, seed=0, cluster=client)
    key = trainer.cluster._corpus.key

    def held() -> bool:
        return any(key in keys for keys in client.has_what().values())

    assert held()
    run = engine.TrainingRun(trainer, target_docs=2 * 64)
    run.start()
    assert run.wait(timeout=120) and run.snapshot().error is None
    deadline = time.monotonic() + 10
    while held() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not held()
    steps = trainer.t
    trainer.step()  # stepped again by hand: the corpus goes out again
    assert trainer.t == steps + 1 and np.all(np.isfinite(model.lambda_))
