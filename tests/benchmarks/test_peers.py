"""The LDA benchmark's engine adapter: at "equal settings" it runs the peers' algorithm (the paper's box)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

import engine

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "_peers.py"
_SPEC = importlib.util.spec_from_file_location("peers_benchmark", _PATH)
peers = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = peers
_SPEC.loader.exec_module(peers)


def _steps(system, train, n_steps: int = 4) -> np.ndarray:
    for t in range(n_steps):
        system.fit_prepared(system.prepare(np.arange(t * 25, (t + 1) * 25) % train.shape[0]))
    return np.asarray(system.model.lambda_, dtype=np.float64)


def test_equal_settings_train_exactly_as_the_paper_preset(planted_corpus):
    """The column compared with scikit-learn and gensim is the mean-field step without revival, step for step."""
    train = planted_corpus.counts
    settings = peers.Settings(n_topics=4, batch_size=25, kappa=0.9, tau=1.0, eta=0.01, seed=3)
    box = peers.EngineLDA(train, settings, "ones", "gamma")
    assert (box.model.local_update, box.model.revive_topics, box.model.alpha) == ("mean_field", False, 0.25)

    paper = engine.LDA(n_topics=4, n_words=train.shape[1], alpha=0.25, eta=0.01, seed=3, local_tol=1e-3,
                       local_max_iter=100, gamma_init="ones", topic_init="gamma", preset="paper")
    reference = peers._EngineSystem(paper, train, settings, threads=1)
    reference.name = "paper preset"
    trained = _steps(box, train)
    np.testing.assert_array_equal(trained, _steps(reference, train))
    # and not what the engine's default step makes of the same minibatches
    own = peers.EngineLDA(train, settings, "ones", "gamma", paper_box=False)
    assert np.abs(_steps(own, train) - trained).max() > 1e-3


def test_the_hdp_benchmark_keeps_the_engines_own_lda_step(planted_corpus):
    """``paper_box=False`` (compare_hdp.py's LDA beside the HDP): the engine's default step and revival."""
    train = planted_corpus.counts
    settings = peers.Settings(n_topics=4, batch_size=25, kappa=0.9, tau=1.0, eta=0.01, seed=3)
    own = peers.EngineLDA(train, settings, "ones", "gamma", paper_box=False)
    defaults = engine.LDA(n_topics=4, n_words=train.shape[1], alpha=0.25, seed=3)
    defaults.initialize(train.shape[0])
    assert (own.model.local_update, own.model.revive_topics) == (defaults.local_update, defaults.revive_topics)
    assert own.model.local_update != "mean_field"


def test_the_hdp_benchmark_trains_without_births_when_asked(planted_corpus):
    """``compare_hdp.py --hdp-births 0``: its engine HDP makes no births, and its rows say so."""
    sys.path.insert(0, str(_PATH.parent))
    import compare_hdp

    train = planted_corpus.counts
    args = compare_hdp.parse_args(["--k", "20", "--t", "5", "--lda-k", "--no-gensim", "--hdp-births", "0"])
    (name, kind, k, make), = compare_hdp.systems_for_seed(args, train, None, seed=0)
    system = make()
    assert (name, kind, k, system.model.births) == ("engine HDP [births 0]", "hdp", 20, 0)
    steps = 3 * train.shape[0] // 25  # three epochs: birth rounds would fall after the first two
    for t in range(steps):
        system.fit_prepared(system.prepare(np.arange(t * 25, (t + 1) * 25) % train.shape[0]))
    assert system.model.training_clock()["birth_rounds"] == 0
    default = compare_hdp.systems_for_seed(compare_hdp.parse_args(["--k", "20", "--t", "5", "--lda-k", "--no-gensim"]),
                                           train, None, seed=0)[0][3]()
    assert default.model.births == 10  # engine.HDP's own: 20, or n_topics // 2 if fewer
    for t in range(steps):
        default.fit_prepared(default.prepare(np.arange(t * 25, (t + 1) * 25) % train.shape[0]))
    assert default.model.training_clock()["birth_rounds"] == 2


def test_the_hdp_benchmark_times_the_engine_to_gensims_final_quality():
    """The summary's "seconds to gensim HDP's quality": the first epoch at gensim's last score, and the ratio."""
    sys.path.insert(0, str(_PATH.parent))
    import compare_hdp

    def record(system, seed, epoch, loglik, seconds):
        return {"system": system, "kind": "hdp", "k": 150, "seed": seed, "epoch": epoch, "docs_seen": 100 * epoch,
                "heldout_loglik": loglik, "seconds": seconds, "docs_per_second": 100 * epoch / seconds,
                "local_iterations": None, "topics_in_use": 5, "topics_covering": 9, "lda_view_loglik": loglik}

    engine_hdp, slow, gensim = compare_hdp.ENGINE_HDP, compare_hdp.ENGINE_HDP + " [births 0]", compare_hdp.GENSIM_HDP
    records = []
    for seed in (0, 1):
        records += [record(gensim, seed, 1, -8.0, 4.0), record(gensim, seed, 2, -7.9, 8.0)]
        # the engine passes gensim's final -7.9 after its first epoch in seed 0, its second in seed 1
        records += [record(engine_hdp, seed, 1, -7.8 if seed == 0 else -7.95, 1.0),
                    record(engine_hdp, seed, 2, -7.7, 2.0)]
        records += [record(slow, seed, 1, -8.5, 0.5), record(slow, seed, 2, -8.1, 1.0)]
    assert compare_hdp.time_to_reach(records, engine_hdp, 0, -7.9) == (1, 1.0)
    assert compare_hdp.time_to_reach(records, engine_hdp, 1, -7.9) == (2, 2.0)
    assert compare_hdp.time_to_reach(records, slow, 0, -7.9) is None
    text = compare_hdp.summary(records)
    section = text.split("## Seconds to gensim HDP's quality")[1].split("\n## ")[0]
    rows = {line.split(" | ")[0].lstrip("| "): line for line in section.splitlines() if line.startswith("| engine")}
    # seed 0: 8 s / 1 s; seed 1: 8 s / 2 s; together 16 s / 3 s
    assert rows[engine_hdp] == f"| {engine_hdp} | epoch 1, 8.00x; epoch 2, 4.00x | 5.33x |"
    assert rows[slow] == f"| {slow} | not reached; not reached |  |"


def test_the_hdp_benchmark_raises_the_first_step_as_svi_does(planted_corpus):
    """compare_hdp.py's engine HDP makes SVI.step's steps: its first step at tau = 64 is first_step_min's 0.5."""
    train = planted_corpus.counts
    hdp = peers.HDPSettings(20, 5, 25, 0.7, 64.0, 1.0, 1.0, 0.01, 0)
    system = peers.EngineHDP(train, hdp, threads=1, dtype=None)
    system.model.births = 0
    model = engine.HDP(n_topics=20, doc_truncation=5, n_words=train.shape[1], alpha=1.0, omega=1.0, eta=0.01,
                       seed=0, births=0)
    trainer = engine.SVI(model, train, batch_size=25, kappa=0.7, tau=64.0, seed=0)
    rows = np.arange(25)
    assert trainer.step(doc_ids=rows).rho == 0.5
    system.fit_prepared(system.prepare(rows))
    # the same first step (only the local starts' random streams differ, and the default "lda" start draws none)
    np.testing.assert_allclose(np.asarray(system.model.lambda_, dtype=np.float64),
                               np.asarray(model.lambda_, dtype=np.float64), rtol=1e-5)
