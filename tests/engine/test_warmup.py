"""The compiled kernels: warm_up_kernels loads every one a step uses; without numba the models fall back to NumPy."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import engine
from engine.inference import warmup
from engine.inference.warmup import KernelWarmUp, Workload, _step, load_cached
from engine.kernels import cache

pytest.importorskip("numba")


_CHECK = """
import json
import engine
from engine.kernels.compiled import hdp, hdp_rows, lda
from engine.kernels.compiled import lazy_topics as lazy

kernels = [lda._fit_all, lda._exp_elog_rows, lda._mean_rows, lda._word_topic_rows, hdp._fit_all, hdp._topic_word_t,
           hdp_rows._entry_mixtures, lazy.blend_rows]

def loaded(dispatcher):
    return sorted({str(a.dtype) for s in dispatcher.signatures for a in s if str(getattr(a, "dtype", "")) in
                   ("float64", "float32")})

before = {k.py_func.__name__ + k.py_func.__module__: loaded(k) for k in kernels}
seconds = engine.warm_up_kernels(("float32",))
after = {k.py_func.__name__ + k.py_func.__module__: loaded(k) for k in kernels}
print(json.dumps({"seconds": seconds, "before": before, "after": after}))
"""


def test_warm_up_loads_every_step_kernel_for_the_dtypes_asked():
    """In a fresh process no step kernel is loaded; after the warm-up each has its float32 version."""
    done = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["seconds"] >= 0.0
    assert all(dtypes == [] for dtypes in report["before"].values()), report["before"]
    assert all("float32" in dtypes for dtypes in report["after"].values()), report["after"]


def test_warm_up_changes_no_result():
    """A model trained after a warm-up equals one trained without: the warm-up shares no state."""
    rng = np.random.default_rng(3)
    X = rng.poisson(1.0, size=(30, 12)).astype(float)
    X[:, 0] += 1  # no empty document

    def trained():
        model = engine.HDP(n_topics=6, doc_truncation=3, n_words=12, seed=1)
        engine.SVI(model, X, batch_size=10, seed=2).run(n_steps=3)
        return model.lambda_, model.sticks_

    before = trained()
    engine.warm_up_kernels()
    after = trained()
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])


_WITHOUT_NUMBA = """
import sys
sys.modules["numba"] = None  # as if numba were not installed
import numpy as np
import engine
from engine import kernels
from engine.kernels.reference import hdp, lda

assert kernels.lda_local_step("auto") is lda.local_step
assert kernels.hdp_local_step("auto") is hdp.local_kernel
for choose in (kernels.lda_local_step, kernels.hdp_local_step):
    try:
        choose("compiled")
    except ImportError as exc:
        assert "pip install numba" in str(exc)
    else:
        raise AssertionError("compiled kernel chosen without numba")
X = np.array([[2, 1, 0, 3], [0, 1, 4, 0], [1, 0, 0, 2]])
for model in (engine.LDA(n_topics=2, n_words=4), engine.HDP(n_topics=3, doc_truncation=2, n_words=4)):
    engine.SVI(model, X, batch_size=2, seed=0).run(n_steps=2)
    assert np.all(np.isfinite(model.lambda_))

# nothing to wait for: a run that would wait for compiled kernels steps with "auto" (the reference) throughout
from engine.inference.warmup import Workload, start_warm_up
warm_up = start_warm_up([Workload()])
assert warm_up.wait(timeout=30) and warm_up.status(Workload()) == "unavailable"
assert kernels.effective_kernel("auto") == "numpy"
run = engine.TrainingRun(engine.SVI(engine.LDA(n_topics=2, n_words=4), X, batch_size=2), target_docs=6,
                         compile_in_background=True)
run.start()
assert run.wait(30)
assert run.snapshot().status == "finished" and run.snapshot().changes == () and run.snapshot().kernel == "numpy"
print("ok")
"""


def test_without_numba_auto_falls_back_and_compiled_says_how_to_get_it():
    done = subprocess.run([sys.executable, "-c", _WITHOUT_NUMBA], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")


# ------------------------------------------------------------------ workloads
def test_workload_of_a_model_names_what_its_steps_compile():
    assert Workload.of(engine.LDA(n_topics=3, n_words=5)) == Workload("LDA", "auto", "float64")
    hdp = engine.HDP(n_topics=4, doc_truncation=2, n_words=5, dtype="float32", local_update="mean_field")
    assert Workload.of(hdp) == Workload("HDP", "mean_field", "float32")
    assert Workload.parse(str(Workload.of(hdp))) == Workload.of(hdp)
    with pytest.raises(ValueError, match="model must be one of 'LDA', 'HDP', got 'NMF'"):
        Workload("NMF")
    with pytest.raises(ValueError, match="dtype must be one of"):
        Workload.parse("LDA:zero_order:float16")
    with pytest.raises(ValueError, match="model:local_update:dtype"):
        Workload.parse("LDA")
    with pytest.raises(TypeError, match="compiled kernels exist for LDA and HDP models, got object"):
        Workload.of(object())
    squarem = Workload.of(engine.LDA(n_topics=3, n_words=5, local_acceleration="squarem"))
    assert squarem == Workload("LDA", "auto", "float64", "squarem")
    assert str(squarem) == "LDA:auto:float64:squarem" and Workload.parse(str(squarem)) == squarem
    with pytest.raises(ValueError, match="exists for LDA's zero_order and auto updates only, got HDP's 'zero_order'"):
        Workload("HDP", "zero_order", "float32", "squarem")


def test_the_default_warm_up_covers_the_default_models():
    """warm_up_kernels() with no dtypes loads what LDA(), LDA(preset="paper") and HDP() step with."""
    from engine.inference.warmup import _default_workloads

    defaults = _default_workloads(None)
    assert Workload("HDP", "zero_order", "float32") in defaults  # the HDP's default precision
    assert {Workload.of(engine.LDA()), Workload.of(engine.LDA(preset="paper")), Workload.of(engine.HDP())} == set(
        defaults)
    assert Workload("HDP", "zero_order", "float64") in _default_workloads(["float64"])


def _compiled_signatures() -> dict[str, int]:
    from engine.kernels.compiled import hdp, hdp_rows, lazy_topics, lda, numerics

    return {f"{module.__name__}.{name}": len(value.signatures)
            for module in (hdp, hdp_rows, lda, lazy_topics, numerics) for name, value in vars(module).items()
            if hasattr(value, "signatures") and getattr(value, "__module__", "").startswith("engine.")}


def test_a_warmed_up_workload_covers_every_kernel_its_real_steps_call(planted_corpus):
    """After the tiny warm-up step, default LDA and HDP training and transform compile nothing more."""
    models = (engine.LDA(n_topics=5, n_words=planted_corpus.n_words, seed=0),
              engine.HDP(n_topics=12, doc_truncation=4, n_words=planted_corpus.n_words, seed=0))
    for model in models:
        _step(Workload.of(model))  # LDA:zero_order:float64, HDP:zero_order:float32
    before = _compiled_signatures()
    train, test = planted_corpus.counts[:150], planted_corpus.counts[150:]
    for model in models:
        engine.SVI(model, train, batch_size=32, seed=0).run(n_steps=6)
        model.transform(test)
    after = _compiled_signatures()
    assert {name: (count, after[name]) for name, count in before.items() if after[name] != count} == {}


# ---------------------------------------------------------- the background warm-up
_EMPTY_CACHE = """
import json, time
from engine.inference.warmup import Workload, load_cached
from engine.kernels.compiled import lda, lazy_topics

started = time.perf_counter()
loaded = load_cached(Workload())
kernels = (lda._fit_all, lda._mean_rows, lda._word_topic_rows, lazy_topics.blend_rows)
print(json.dumps({"loaded": loaded, "seconds": time.perf_counter() - started,
                  "compiled": sum(len(kernel.signatures) for kernel in kernels)}))
"""


def test_loading_from_an_empty_cache_stops_before_compiling(tmp_path):
    """numba honours NUMBA_CACHE_DIR for these kernels; with nothing there, loading gives up instead of compiling."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", _EMPTY_CACHE], capture_output=True, text=True, env=env, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["loaded"] is False and report["compiled"] == 0, report
    assert report["seconds"] < 10  # a compile of the LDA step alone takes longer
    assert not list(tmp_path.rglob("*.nbc")), "something was compiled into the empty cache"


_FROM_THE_CACHE = """
import json
from engine.inference.warmup import Workload, start_warm_up

warm_up = start_warm_up([Workload("LDA"), Workload("HDP")])
assert warm_up.wait(timeout=120)
print(json.dumps({"statuses": sorted(warm_up.statuses().values()), "processes": warm_up.compiler_processes}))
"""


def test_start_warm_up_loads_cached_kernels_without_a_compile_process():
    # the first process makes sure the cache holds them (it compiles only after an edit of a kernel)
    subprocess.run([sys.executable, "-c", "from engine.inference.warmup import Workload, _step\n"
                    "_step(Workload('LDA')); _step(Workload('HDP'))"], check=True)
    done = subprocess.run([sys.executable, "-c", _FROM_THE_CACHE], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"statuses": ["ready", "ready"], "processes": 0}


def test_kernels_missing_from_the_cache_come_from_a_compile_process(monkeypatch):
    """The whole hand-over: a miss here, the worker process, its report, the load here (with a warm cache)."""
    first_tries = []

    def miss_once(workload):  # as if the cache were empty on the first try
        if workload not in first_tries:
            first_tries.append(workload)
            return False
        return load_cached(workload)

    monkeypatch.setattr(warmup, "load_cached", miss_once)
    warm_up = KernelWarmUp()
    warm_up.request([Workload("LDA")])
    assert warm_up.wait(timeout=120)
    assert warm_up.status(Workload("LDA")) == "ready" and warm_up.compiler_processes == 1
    assert first_tries == [Workload("LDA")] and warm_up.seconds(Workload("LDA")) > 0


def test_without_a_compile_process_the_kernels_are_compiled_here(monkeypatch):
    def no_process(*args, **kwargs):
        raise OSError("no processes here")

    monkeypatch.setattr(warmup, "load_cached", lambda workload: False)
    monkeypatch.setattr(cache.subprocess, "Popen", no_process)
    warm_up = KernelWarmUp()
    warm_up.request([Workload("LDA")])
    assert warm_up.wait(timeout=120)
    assert warm_up.status(Workload("LDA")) == "ready" and warm_up.compiler_processes == 0


def test_the_compile_worker_reports_each_workload():
    worker = subprocess.Popen([sys.executable, "-m", "engine.inference._compile_worker", "LDA:zero_order:float64",
                               "LDA:sideways:float64"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    with worker.stdin, worker.stdout:  # open input: the worker ends early when it closes
        reports = [line.strip() for line in worker.stdout if line.startswith("engine-warm-up:")]
    assert worker.wait(timeout=30) == 0
    assert reports[0].startswith("engine-warm-up: compiled LDA:zero_order:float64 kernels=")
    assert reports[1].startswith("engine-warm-up: failed LDA:sideways:float64 ValueError: local_update must be")


def test_the_compile_worker_imports_this_engine_whatever_the_working_directory(tmp_path, monkeypatch):
    # a folder named engine in the working directory (another checkout, a user's own package) must not be
    # what the worker compiles: this process would then compile its kernels itself
    decoy = tmp_path / "engine"
    (decoy / "inference").mkdir(parents=True)
    (decoy / "__init__.py").write_text("")
    (decoy / "inference" / "__init__.py").write_text("")
    (decoy / "inference" / "_compile_worker.py").write_text("print('engine-warm-up: failed decoy imported')\n")
    monkeypatch.chdir(tmp_path)
    worker = cache.start_compile_worker(("LDA:zero_order:float64",))
    assert worker is not None
    assert cache.read_reports(worker, ("LDA:zero_order:float64",)) == {"LDA:zero_order:float64"}
