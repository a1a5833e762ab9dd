"""Every process runs the compiled kernels from numba's cache (engine/kernels/cache.py), so a seed gives one result.

A process that compiles a kernel runs machine code that differs in the last bits from the
code later processes load from the cache; the first process after an install must
therefore have the kernels compiled elsewhere and load them too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import engine
from engine.inference.warmup import Workload, _step
from engine.io.model_files import load_model
from engine.kernels import cache, cached_call, compiled

pytest.importorskip("numba")

_FIT = """
import json, sys
from numba.core import event
from engine.kernels import cache

# listeners hear an event in the order they were registered: the engine's guard first, so a
# compile it stops before it starts never reaches the counter
assert cache.guard_available()
compiles = []

class Count(event.Listener):
    def on_start(self, _event):
        compiles.append(1)

    def on_end(self, _event):
        pass

event.register("numba:compile", Count())
from engine.cli import main

code = main(sys.argv[1:])
print(json.dumps({"code": code, "compiled_here": len(compiles)}))
"""


def test_the_first_process_after_an_install_compiles_elsewhere_says_so_once_and_runs_the_cached_code(tmp_path):
    """With an empty cache the first command-line run compiles nothing itself and computes what the next one does.

    A first-time user of the command line learns why the progress bar waits, and only the
    first time; both runs count every compile numba starts in their own process.
    """
    texts = engine.make_synthetic_corpus(n_docs=120, n_topics=4, seed=1).texts()
    table = tmp_path / "texts.csv"
    table.write_text("text\n" + "\n".join(texts) + "\n", encoding="utf-8")
    cache_dir = tmp_path / "cache"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "NUMBA_NUM_THREADS": "1"}
    notes, reports = [], []
    for run in range(2):
        done = subprocess.run([sys.executable, "-c", _FIT, "fit", str(table), "--topics", "3", "--epochs", "1",
                               "--test-docs", "20", "--seed", "0", "--out", str(tmp_path / f"model{run}.npz")],
                              capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        reports.append(json.loads(done.stdout.strip().splitlines()[-1]))
        notes.append([line for line in done.stderr.splitlines() if "compiling the engine's numba kernels" in line])
        if run == 0:
            assert list(cache_dir.rglob("*.nbc")), "the worker process compiled nothing into the cache"
    assert reports == [{"code": 0, "compiled_here": 0}] * 2, reports
    assert len(notes[0]) == 1, notes
    assert notes[0][0].startswith("svi-topics: compiling the engine's numba kernels for LDA:")
    assert "once after an install" in notes[0][0]
    assert notes[1] == []
    first, second = (load_model(tmp_path / f"model{run}.npz") for run in range(2))
    np.testing.assert_array_equal(first.model.lambda_, second.model.lambda_)  # bit for bit
    # the held-out scores fold the test documents in: the same to the last bit too
    assert [point.heldout_loglik for point in first.history] == [point.heldout_loglik for point in second.history]
    assert first.history


def _reports(worker: subprocess.Popen) -> list[str]:
    with worker.stdin, worker.stdout:  # open input: the worker ends early when it closes
        reports = [line.split(maxsplit=1)[1].strip() for line in worker.stdout if line.startswith(cache.REPORT_MARK)]
    assert worker.wait(timeout=60) == 0  # it ends by itself after its last workload
    return reports


def test_two_processes_compile_a_workload_once_between_them(tmp_path, monkeypatch):
    """Two app servers started together on an empty cache: the second's worker waits, then only loads."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    # either may take the lock first: one compiles, the other waits for it
    workers = [cache.start_compile_worker(("LDA:zero_order:float64",)) for _ in range(2)]
    with ThreadPoolExecutor(2) as pool:
        reports = [only for only, in pool.map(_reports, workers)]
    fields = [dict(word.split("=") for word in report.split()[2:]) for report in reports]
    assert [report.split()[:2] for report in reports] == [["compiled", "LDA:zero_order:float64"]] * 2, reports
    compiled = sorted(int(field["kernels"]) for field in fields)
    assert compiled[0] == 0 and compiled[1] > 10, reports  # one compiled them all, the other loaded them all
    waiter = next(field for field in fields if field["kernels"] == "0")
    assert float(waiter["waited"]) > 1.0, reports
    assert list(tmp_path.rglob(".compile-LDA-zero_order-float64.lock"))


def test_the_compile_lock_admits_one_holder_per_workload(tmp_path):
    with cache.compile_lock("LDA:zero_order:float64", folder=tmp_path) as waited:
        assert waited < 1.0
        started = time.monotonic()
        with cache.compile_lock("LDA:zero_order:float64", timeout=0.5, folder=tmp_path) as waited_again:
            assert waited_again >= 0.5  # held: it waited its time, then ran anyway
        assert time.monotonic() - started >= 0.5
        with cache.compile_lock("HDP:zero_order:float32", timeout=5.0, folder=tmp_path) as other:
            assert other < 1.0  # another workload compiles alongside
    with cache.compile_lock("LDA:zero_order:float64", timeout=5.0, folder=tmp_path) as after:
        assert after < 1.0  # released
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        ".compile-HDP-zero_order-float32.lock", ".compile-LDA-zero_order-float64.lock"]
    assert all(path.stat().st_size == 0 for path in tmp_path.iterdir())


def test_the_compile_lock_is_released_when_its_holder_dies(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time\nfrom engine.kernels import cache\n"
         f"with cache.compile_lock('LDA:zero_order:float64', folder=__import__('pathlib').Path({str(tmp_path)!r})):\n"
         "    print('held', flush=True)\n    time.sleep(600)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with cache.compile_lock("LDA:zero_order:float64", timeout=0.3, folder=tmp_path) as waited:
            assert waited >= 0.3  # held by the other process
        holder.kill()
        holder.wait(timeout=30)
        with cache.compile_lock("LDA:zero_order:float64", timeout=10.0, folder=tmp_path) as waited:
            assert waited < 5.0
    finally:
        holder.kill()
        holder.stdout.close()


def test_the_compile_lock_lives_beside_numbas_cache_of_the_kernels():
    _step(Workload.parse("LDA:zero_order:float64"))  # cached by now, if no earlier test put it there
    folder = compiled.cache_folder()
    assert folder is not None and list(folder.glob("lda._fit_all-*.nbi")), folder


# ------------------------------------------------------------ cache_first's hand-over
@pytest.fixture
def fresh(monkeypatch):
    """A process state in which no workload is loaded yet, and a stand-in for the compile process."""
    monkeypatch.setattr(cache, "_ready", set())
    workers = []

    def compile_in_worker(workloads):
        workers.append(workloads)
        return set(workloads)

    monkeypatch.setattr(cache, "compile_in_worker", compile_in_worker)
    return workers


def test_a_missing_kernel_is_compiled_elsewhere_and_the_call_made_again(fresh):
    calls = []

    def call():  # as numba's guard does when the cache lacks a kernel: stop before anything ran
        calls.append(cache._mode.value)
        if len(calls) == 1:
            raise cache.CompileNeededError
        return "fitted"

    assert cache.cache_first(("LDA:zero_order:float64",), call) == "fitted"
    assert fresh == [("LDA:zero_order:float64",)]
    assert calls == ["loading", "compiling"]  # the retry compiles here what the worker could not deliver
    assert cache.cache_first(("LDA:zero_order:float64",), lambda: "again") == "again"  # loaded: a plain call
    assert fresh == [("LDA:zero_order:float64",)] and getattr(cache._mode, "value", None) is None


def test_two_threads_that_miss_at_once_start_one_process(monkeypatch):
    """Two training runs of one server starting together: one compile process, both then load."""
    monkeypatch.setattr(cache, "_ready", set())
    in_cache, workers = threading.Event(), []

    def compile_in_worker(workloads):
        workers.append(workloads)
        time.sleep(0.2)  # the other thread arrives meanwhile
        in_cache.set()
        return set(workloads)

    def call():
        if not in_cache.is_set():
            raise cache.CompileNeededError
        return getattr(cache._mode, "value", None)

    monkeypatch.setattr(cache, "compile_in_worker", compile_in_worker)
    with ThreadPoolExecutor(2) as pool:
        modes = list(pool.map(lambda _: cache.cache_first(("HDP:zero_order:float32",), call), range(2)))
    assert workers == [("HDP:zero_order:float32",)]
    # the first thread's retry loads what the process compiled; the second waited, then made a plain call
    assert sorted(map(str, modes)) == ["None", "compiling"]


def test_a_workload_found_in_the_cache_needs_no_process(fresh):
    assert cache.cache_first(("HDP:zero_order:float32",), lambda: 7) == 7
    assert fresh == [] and ("HDP:zero_order:float32",) in cache._ready


def test_a_failing_call_is_not_taken_for_a_loaded_workload(fresh):
    def fail():
        raise ValueError("bad documents")

    with pytest.raises(ValueError, match="bad documents"):
        cache.cache_first(("LDA:zero_order:float64",), fail)
    assert cache._ready == set() and fresh == []


def test_inside_loading_only_a_missing_kernel_stops_the_caller(fresh):
    """load_cached (the explorer's warm-up) asks to load and must hear of a miss, not wait for a compile."""

    def call():
        raise cache.CompileNeededError

    with cache.loading_only(), pytest.raises(cache.CompileNeededError):
        cache.cache_first(("LDA:zero_order:float64",), call)
    assert fresh == [] and cache._ready == set()
    with cache.compiling_here():  # the compile worker's own mode: a plain call
        assert cache.cache_first(("LDA:zero_order:float64",), lambda: 1) == 1
    assert fresh == [] and cache._ready == set()


def test_the_numpy_kernel_skips_the_cache(fresh):
    def call():
        raise cache.CompileNeededError  # would send a compiled call to the worker

    with pytest.raises(cache.CompileNeededError):
        cached_call("numpy", "LDA:zero_order:float64", call)
    assert fresh == []


def test_the_worker_reports_what_it_compiled():
    """The real process (the kernels are in this machine's cache by now, so it only loads them)."""
    _step(Workload.parse("LDA:zero_order:float64"))  # in the cache, if no earlier test put it there
    assert cache.compile_in_worker(("LDA:zero_order:float64", "LDA:sideways:float64")) == {"LDA:zero_order:float64"}


def test_models_trained_after_loading_match_the_reference_within_rounding(planted_corpus):
    """The compiled path with the cache hand-over still computes the NumPy reference's numbers."""
    X = planted_corpus.counts[:60]
    fitted = []
    for kernel in ("compiled", "numpy"):
        model = engine.LDA(n_topics=4, n_words=planted_corpus.n_words, seed=0, kernel=kernel)
        engine.SVI(model, X, batch_size=20, seed=0).run(n_steps=3)
        fitted.append(model.lambda_)
    np.testing.assert_allclose(fitted[0], fitted[1], rtol=1e-6)
