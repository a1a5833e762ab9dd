"""The compiled kernels: warm_up_kernels loads every one a step uses; without numba the models fall back to NumPy."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import engine

pytest.importorskip("numba")


_CHECK = """
import json
import engine
from engine.kernels.compiled import hdp, lda
from engine.kernels.compiled import lazy_topics as lazy

kernels = [lda._fit_all, lda._exp_elog_rows, lda._mean_rows, lda._word_topic_rows, hdp._fit_all, hdp._topic_word_t,
           lazy.blend_rows]

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
print("ok")
"""


def test_without_numba_auto_falls_back_and_compiled_says_how_to_get_it():
    done = subprocess.run([sys.executable, "-c", _WITHOUT_NUMBA], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")
