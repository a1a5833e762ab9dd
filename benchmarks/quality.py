#!/usr/bin/env python
"""Topic quality over a panel of collections: the engine's LDA and HDP at their defaults against peers.

The tool the engine's defaults are chosen with (issue 13).  Every cell (system,
collection, K, seed) trains one model and scores it with one evaluator:

- held-out log likelihood per word, ``engine.predictive_log_likelihood`` on the
  collection's observed / held-out halves of its test documents, always through
  an engine model with the engine's default local inference (see "Scoring" in
  benchmarks/README.md for how each peer's topics become that model);
- coherence: the mean NPMI of each topic's 10 most probable words, from their
  co-occurrence in the training documents (``engine.CoherenceReference``),
  over all K topics for an LDA and over the topics in use (weight >= 0.01) for an HDP;
- live topics: an LDA topic is live when its share of the corpus's words is
  >= 0.25 / K; for an HDP the topics of weight >= 0.01 and the number covering 95 %;
- training seconds (training only: inputs are prepared before the clock starts)
  and documents per second.

One JSON line per cell goes to ``--out``, so a long run can stop and resume
(``--resume``); ``summarize`` prints Markdown tables and the issue's targets.

    python benchmarks/quality.py --corpora synthetic --k 10 --seeds 0 --epochs 1 \\
        --systems engine-lda tomotopy-lda --out /tmp/q.jsonl          # quick check, ~5 s
    python benchmarks/quality.py summarize /tmp/q.jsonl
    python benchmarks/quality.py --resume                               # the full panel, hours

See benchmarks/README.md for the systems, the scoring and the targets.
"""

from __future__ import annotations

import argparse
import datetime
import inspect
import json
import os
import platform
import re
import shlex
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # _peers, _report
try:
    import engine
except ImportError:  # running from a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))
    import engine

# the benchmark's own helpers, found through the sys.path entry above
import _report  # noqa: E402
import compare_lda  # noqa: E402
from _peers import (  # noqa: E402
    GensimHDP,
    GensimLDA,
    HDPSettings,
    Settings,
    SklearnLDA,
    hdp_from_globals,
    peer_available,
)
from _quality_config import (  # noqa: E402
    CACHE,
    CHECK_COLLECTIONS,
    COVERING_MASS,
    DEFAULT_OUT,
    EVAL_LOCAL_UPDATE,
    EVAL_TOL,
    HDP_DOC_TRUNCATION,
    HDP_SYSTEMS,
    HDP_TRUNCATION,
    IN_USE_WEIGHT,
    LIVE_SHARE,
    N_LARGEST,
    N_TOP,
    PANEL,
    SHARED,
    SYSTEMS,
)
from _quality_panel import Collection, load_collection, load_split  # noqa: E402
from _quality_summary import summary, sweeps_name, system_name  # noqa: E402
from _quality_summary import targets as targets  # noqa: E402  (re-exported: tests/benchmarks use quality.targets)

GENERAL_DIVERGENCE = engine.GENERAL_DIVERGENCE  # the explorer flags topics at the same line


# ---------------------------------------------------------------- evaluation models
def lda_evaluator(topic_word: np.ndarray, alpha, eta: float) -> engine.LDA:
    """An engine.LDA with the zero-order local inference holding a system's lambda (K x V), alpha and eta.

    Every run since the first scored with this fold-in (the engine's default until run 46 made it
    "auto"), so scores stay comparable across runs; it is the same for every system.
    """
    model = engine.LDA(n_topics=topic_word.shape[0], n_words=topic_word.shape[1], alpha=alpha, eta=eta, seed=0,
                       local_update=EVAL_LOCAL_UPDATE)
    model.lambda_ = topic_word
    return model


def hdp_evaluator(settings: HDPSettings, topic_word: np.ndarray, sticks: np.ndarray) -> engine.HDP:
    """An engine.HDP with the engine's default local inference holding an HDP's lambda and corpus sticks.

    Its held-out fits stop at EVAL_TOL, the same for every HDP whatever it was trained with.
    """
    model = hdp_from_globals(settings, np.asarray(topic_word, dtype=np.float64), np.asarray(sticks, dtype=np.float64))
    model.local_tol = model.initial_local_tol = EVAL_TOL
    return model


def engine_evaluator(model) -> engine.LDA | engine.HDP:
    """The evaluation model of a trained engine.LDA or engine.HDP: its globals and priors, the shared fold-in."""
    if isinstance(model, engine.LDA):
        return lda_evaluator(model.lambda_, model.alpha, model.eta)
    settings = HDPSettings(  # the evaluator reads the priors and sizes, not the schedule
        n_topics=model.n_topics,
        doc_truncation=model.doc_truncation,
        batch_size=0,
        kappa=0.0,
        tau=0.0,
        alpha=model.alpha,
        gamma=model.omega,
        eta=model.eta,
        seed=0,
    )
    return hdp_evaluator(settings, model.lambda_, model.sticks_)


def score(evaluator, kind: str, collection: Collection) -> dict:
    """Held-out LL, NPMI and live topics of an evaluation model (LDA: all topics; HDP: those in use)."""
    weights = np.asarray(evaluator.topic_weights(), dtype=np.float64)
    K = weights.size
    record = {"heldout_loglik": engine.predictive_log_likelihood(evaluator, collection.observed, collection.heldout)}
    record["evaluator"] = {"local_update": evaluator.local_update, "local_tol": evaluator.local_tol}
    if isinstance(evaluator, engine.HDP):
        record["evaluator"]["fold_in"] = evaluator.fold_in
    if evaluator.local_update != "mean_field":  # the same topics folded in by the paper's mean-field step
        paper = evaluator.copy()
        paper.local_update = "mean_field"
        record["heldout_loglik_mean_field"] = engine.predictive_log_likelihood(
            paper, collection.observed, collection.heldout
        )
    if isinstance(evaluator, engine.HDP) and evaluator.fold_in != "sticks":  # the training step's fold-in too
        sticks = evaluator.copy()
        sticks.fold_in = "sticks"
        record["heldout_loglik_sticks"] = engine.predictive_log_likelihood(
            sticks, collection.observed, collection.heldout
        )
    if kind == "lda":
        live = int(np.sum(weights >= LIVE_SHARE / K))
        record.update(live_topics=live, live_fraction=live / K, min_share=float(weights.min()),
                      distinct_topics=int(np.unique(evaluator.duplicate_of()).size))  # tied copies count once
        scored = np.arange(K)
    else:
        scored = np.flatnonzero(weights >= IN_USE_WEIGHT)
        record.update(
            topics_in_use=evaluator.topics_in_use(IN_USE_WEIGHT),
            topics_covering=evaluator.topics_covering(COVERING_MASS),
            truncation=evaluator.n_topics if isinstance(evaluator, engine.HDP) else None,  # None: tomotopy's LDA
        )
    general = evaluator.general_topics(GENERAL_DIVERGENCE)
    record.update(general_topics=int(general.size),
                  general_share=float(np.asarray(evaluator.word_shares(), dtype=np.float64)[general].sum()))
    top = np.asarray(evaluator.top_words(N_TOP))
    reference = collection.prepared("coherence")
    npmi = reference.score(top[scored], measure="npmi") if scored.size else np.empty(0)
    record.update(npmi=float(npmi.mean()) if npmi.size else None, npmi_topics=int(scored.size))
    # the same number of topics for every variant: the mean over an HDP's topics in use moves with how many small
    # ones are in use (run 54)
    largest = np.argsort(-weights, kind="stable")[:N_LARGEST]
    record["npmi_largest"] = float(reference.score(top[largest], measure="npmi").mean())
    alpha = np.asarray(evaluator.alpha, dtype=np.float64)
    record["eval_alpha"] = {"mean": float(alpha.mean()), "min": float(alpha.min()), "max": float(alpha.max())}
    return record


# ------------------------------------------------------------------------- systems
@dataclass
class Trained:
    """What a system hands to the scorer: its evaluation model, training seconds and documents processed."""

    evaluator: object
    seconds: float
    docs: int
    extra: dict = field(default_factory=dict)


def engine_defaults(K: int = 10) -> dict:
    """The settings engine.SVI, engine.LDA (K topics) and engine.HDP use when not told; the online peers use them."""
    svi = inspect.signature(engine.SVI).parameters
    lda = engine.LDA(n_topics=K, n_words=1)
    hdp = engine.HDP(n_topics=HDP_TRUNCATION, doc_truncation=HDP_DOC_TRUNCATION, n_words=1)
    return {
        "batch_size": engine.DEFAULT_BATCH_SIZE,  # engine.SVI's when unset (the whole collection if smaller)
        "kappa": svi["kappa"].default,
        "tau": svi["tau"].default,
        "alpha": lda.alpha.tolist() if isinstance(lda.alpha, np.ndarray) else lda.alpha,
        "eta": lda.eta,
        "local_update": lda.local_update,
        "hdp_alpha": hdp.alpha,
        "hdp_gamma": hdp.omega,
        "hdp_eta": hdp.eta,
        "hdp_local_update": hdp.local_update,
    }


def train_engine(kind: str, collection: Collection, K: int, seed: int, cell) -> Trained:
    """engine.LDA / engine.HDP at its defaults (plus --engine-options) by engine.SVI (plus --svi-options)."""
    train = collection.train
    D, V = train.shape
    if kind == "lda":
        make = lambda: engine.LDA(**{"n_topics": K, "n_words": V, "seed": seed, **cell.engine_options})  # noqa: E731
    else:
        make = lambda: engine.HDP(  # noqa: E731
            **{
                "n_topics": HDP_TRUNCATION,
                "doc_truncation": HDP_DOC_TRUNCATION,
                "n_words": V,
                "seed": seed,
                **cell.engine_options,
            }
        )
    iterations: list[float] = []
    started = time.perf_counter()
    model = make()
    trainer = engine.SVI(model, corpus=train, seed=seed, **cell.svi_options)
    trainer.run(n_docs=cell.epochs * D, callback=lambda report: iterations.append(report.local_iterations))
    merged = 0
    if cell.merge_general:  # the trained model's copies of the overall word use, merged into one topic
        general = model.general_topics(GENERAL_DIVERGENCE)
        if general.size >= 2:
            model, merged = model.merge_topics(general), int(general.size)
    seconds = time.perf_counter() - started
    evaluator = engine_evaluator(model)
    extra = {"steps": trainer.t, "local_iterations": float(np.mean(iterations))}
    if cell.merge_general:
        extra["merged_topics"] = merged
    if kind == "hdp":  # the concentrations in use at the end (learned ones included)
        extra.update(alpha=float(model.alpha), omega=float(model.omega))
    return Trained(evaluator, seconds, trainer.docs_seen, extra)


def train_online_peer(system: str, collection: Collection, K: int, seed: int, cell) -> Trained:
    """scikit-learn / gensim through the _peers adapters, with the engine's default settings and our minibatches.

    Epoch e visits the training documents in the order
    ``default_rng([seed, e]).permutation(D)`` cut into minibatches of S; each
    minibatch is sliced and converted by the adapter's ``prepare`` before the
    clock starts; the clock covers the adapter's construction (random start),
    ``fit_prepared`` and (gensim's HDP) ``finish_epoch``.
    """
    d = engine_defaults(K or 10)
    train = collection.train
    D = train.shape[0]
    d["batch_size"] = min(d["batch_size"], D)  # as engine.SVI's unset batch_size
    if system == "gensim-hdp":
        settings = HDPSettings(
            HDP_TRUNCATION,
            HDP_DOC_TRUNCATION,
            d["batch_size"],
            d["kappa"],
            d["tau"],
            d["hdp_alpha"],
            d["hdp_gamma"],
            d["hdp_eta"],
            seed,
        )
        make = lambda: GensimHDP(train, settings, collection.prepared("gensim"))  # noqa: E731
    else:
        settings = Settings(K, d["batch_size"], d["kappa"], d["tau"], d["eta"], seed)
        settings.alpha = d["alpha"]  # the engine's default prior, not the adapters' 1/K
        if system == "gensim-lda":
            make = lambda: GensimLDA(train, settings, collection.prepared("gensim"))  # noqa: E731
        else:
            make = lambda: SklearnLDA(train, settings)  # noqa: E731
    started = time.perf_counter()
    adapter = make()
    seconds = time.perf_counter() - started
    for e in range(cell.epochs):
        order = np.random.default_rng([seed, e]).permutation(D)
        for start in range(0, D, settings.batch_size):
            batch = adapter.prepare(order[start : start + settings.batch_size])
            started = time.perf_counter()
            adapter.fit_prepared(batch)
            seconds += time.perf_counter() - started
        if hasattr(adapter, "finish_epoch"):
            started = time.perf_counter()
            adapter.finish_epoch()
            seconds += time.perf_counter() - started
    if system == "gensim-hdp":
        held = adapter.model_for_evaluation()  # gensim's lambda + eta and sticks in an engine.HDP
        evaluator = hdp_evaluator(settings, held.lambda_, held.sticks_)
    else:
        evaluator = lda_evaluator(adapter.topic_word(), settings.alpha, settings.eta)
    extra = {"settings": {k: getattr(settings, k) for k in ("batch_size", "kappa", "tau", "alpha", "eta")}}
    return Trained(evaluator, seconds, cell.epochs * D, extra)


def sweep_until(model, budget: float, workers: int) -> tuple[float, int]:
    """tomotopy's training clock: ``train(0)`` (the random start), then sweeps until ``budget`` seconds are used.

    After each chunk of ``train(n)`` the time per sweep so far gives the number
    of whole sweeps that fits in the time left (rounded to the nearest, at most
    as many as done so far, so the estimate is refreshed); training stops when
    that is 0, i.e. within about half a sweep of the budget.  At least one
    sweep.  Chunks do not change the sampler: ``train(1); train(10)`` gives
    exactly what ``train(11)`` gives (hyperparameter steps follow the global count).
    """
    started = time.perf_counter()
    model.train(0, workers=workers)
    start_seconds = time.perf_counter() - started
    sweeps, chunk = 0, 1
    while chunk > 0:
        model.train(chunk, workers=workers)
        sweeps += chunk
        elapsed = time.perf_counter() - started
        per_sweep = max(elapsed - start_seconds, 1e-9) / sweeps
        chunk = min(int(np.floor((budget - elapsed) / per_sweep + 0.5)), sweeps)
    return time.perf_counter() - started, sweeps


def train_sweeps(model, sweeps: int, workers: int) -> float:
    """tomotopy trained for exactly ``sweeps`` sweeps after ``train(0)`` (the random start); returns its seconds."""
    started = time.perf_counter()
    model.train(0, workers=workers)
    model.train(sweeps, workers=workers)
    return time.perf_counter() - started


def tomotopy_topics(model, n_words: int) -> np.ndarray:
    """lambda (K x V) of a tomotopy model: its topic-word counts + eta (words it never saw: eta)."""
    columns = np.array([int(w) for w in model.used_vocabs])
    topic_word = np.full((model.k, n_words), float(model.eta))
    for k in range(model.k):
        topic_word[k, columns] = model.get_topic_word_dist(k, normalize=False)  # n_kw + eta
    return topic_word


def train_tomotopy(system: str, collection: Collection, K: int, seed: int, cell) -> Trained:
    """tomotopy's LDAModel / HDPModel at its defaults, its sweeps filling the engine's training seconds
    (``cell.sweeps``: that many sweeps instead)."""
    import tomotopy as tp

    corpus = collection.prepared("tomotopy")
    V = collection.train.shape[1]
    # built from the prepared Corpus outside the clock: adding documents maps word strings to ids,
    # the counterpart of the CSR matrix the others are handed
    model = (
        tp.LDAModel(k=K, seed=seed, corpus=corpus)
        if system == "tomotopy-lda"
        else tp.HDPModel(seed=seed, corpus=corpus)
    )
    if cell.sweeps is None:
        seconds, sweeps = sweep_until(model, cell.budget, cell.threads)
    else:
        seconds, sweeps = train_sweeps(model, cell.sweeps, cell.threads), cell.sweeps
    extra = {"sweeps": sweeps, "budget_seconds": cell.budget if cell.sweeps is None else None}
    if system == "tomotopy-lda":
        evaluator = lda_evaluator(
            tomotopy_topics(model, V), np.asarray(model.alpha, dtype=np.float64), float(model.eta)
        )
    else:
        # tomotopy's own HDP -> LDA conversion: its live topics (by word count) with an asymmetric alpha
        # fitted (Minka's fixed point) to the documents' topic counts of the HDP's last sample
        lda, _ = model.convert_to_lda()
        topic_word = tomotopy_topics(lda, V)
        alpha = np.asarray(lda.alpha, dtype=np.float64)
        if topic_word.shape[0] < 2:  # engine.LDA needs 2 topics: add an empty one with a small prior
            topic_word = np.vstack([topic_word, np.full((1, V), float(lda.eta))])
            alpha = np.append(alpha, alpha.min())
        evaluator = lda_evaluator(topic_word, alpha, float(lda.eta))
        extra.update(live_k=model.live_k, alpha=float(model.alpha), gamma=float(model.gamma))
    return Trained(evaluator, seconds, sweeps * collection.train.shape[0], extra)


def warm_up(collection: Collection, cell, variants: list[str]) -> None:
    """One SVI step of each engine model on a few of the collection's documents, before any clock starts.

    Loads the compiled kernels for this collection's count dtype (``warm_up_kernels``
    loads them for float64 counts): the default LDA and HDP (a tomotopy cell may
    need the default engine's seconds), and the ``variants`` with the run's options.
    """
    few = collection.train[:8]
    svi = {k: v for k, v in cell.svi_options.items() if k != "batch_size"}
    runs = [(system, {}, {}) for system in ("engine-lda", "engine-hdp")]
    if cell.engine_options or svi:
        runs += [(system, cell.engine_options, svi) for system in variants]
    for system, options, svi_options in runs:
        if system == "engine-lda":
            model = engine.LDA(**{"n_topics": 2, "n_words": few.shape[1], **options})
        else:
            # the benchmark's own truncations, so that any option valid in training (births, a doc_truncation) is here
            model = engine.HDP(**{"n_topics": HDP_TRUNCATION, "doc_truncation": HDP_DOC_TRUNCATION,
                                  "n_words": few.shape[1], **options})
        engine.SVI(model, corpus=few, batch_size=4, **svi_options).step()


def train_system(system: str, collection: Collection, K: int, seed: int, cell) -> Trained:
    if system.startswith("engine-"):
        return train_engine("lda" if system == "engine-lda" else "hdp", collection, K, seed, cell)
    if system.startswith("tomotopy-"):
        return train_tomotopy(system, collection, K, seed, cell)
    return train_online_peer(system, collection, K, seed, cell)


# ---------------------------------------------------------------------- the grid
@dataclass
class Cell:
    """The settings of one run of one system (what varies by cell is passed beside it)."""

    epochs: int
    threads: int
    engine_options: dict
    svi_options: dict
    budget: float | None = None
    merge_general: bool = False
    sweeps: int | None = None  # tomotopy: this many sweeps instead of the default engine's seconds

    def options(self) -> dict:
        """The engine variant's options as records keep them."""
        found = {"engine": self.engine_options, "svi": self.svi_options}
        return {**found, "merge_general": True} if self.merge_general else found




def cell_key(record: dict) -> tuple:
    return (record["system"], record["corpus"], record["k"], record["seed"], record["epochs"])


def read_records(paths) -> list[dict]:
    """Every record of the JSON-lines files, later lines replacing earlier ones for the same cell."""
    found: dict[tuple, dict] = {}
    for path in paths:
        path = Path(path)
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:  # a line cut short by an interrupted run
                print(f"warning: {path}:{number} is not a JSON record; ignored", file=sys.stderr)
                continue
            found[cell_key(record)] = record
    return list(found.values())


def append_record(path: Path, record: dict) -> None:
    """One line, one write() to a file opened for appending, flushed to disk: a record is whole or absent."""
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")
        out.flush()
        os.fsync(out.fileno())


def versions() -> dict:
    found = _report.versions()
    try:
        found["tomotopy"] = metadata.version("tomotopy")
    except metadata.PackageNotFoundError:
        found["tomotopy"] = None
    return found


def run_cell(system: str, name: str, collection: Collection, K: int | None, seed: int, cell: Cell, meta: dict) -> dict:
    kind = "hdp" if system in HDP_SYSTEMS else "lda"
    trained = train_system(system, collection, K, seed, cell)
    record = {
        "system": name,
        "base": system,
        "label": name.partition(":")[2] or None,
        "kind": kind,
        "corpus": collection.name,
        "k": K,
        "seed": seed,
        "epochs": cell.epochs,
        "options": cell.options() if system.startswith("engine-") else {},
        **score(trained.evaluator, kind, collection),
        "seconds": trained.seconds,
        "docs_per_second": trained.docs / trained.seconds,
        **trained.extra,
        "collection": collection.stats(),
        **meta,
    }
    return record


def progress_line(r: dict) -> str:
    topics = (
        f"live {r['live_topics']}/{r['k']}"
        if r["kind"] == "lda"
        else f"in use {r['topics_in_use']}, 95 % in {r['topics_covering']}"
    )
    if r.get("general_topics"):
        topics += f", {r['general_topics']} general ({r['general_share']:.0%} of the words)"
    npmi = "-" if r["npmi"] is None else f"{r['npmi']:.4f}"
    sweeps = ""
    if "sweeps" in r:
        budget = r.get("budget_seconds")
        sweeps = f", {r['sweeps']} sweeps" + ("" if budget is None else f" for {budget:.2f} s")
    k = f"K={r['k']}" if r["k"] is not None else "HDP"
    return (
        f"{r['corpus']} {k} seed {r['seed']} {r['system']}: LL {r['heldout_loglik']:.4f}, NPMI {npmi}, {topics}, "
        f"{r['seconds']:.2f} s ({r['docs_per_second']:.0f} docs/s{sweeps})"
    )


def run(args) -> int:
    for system in list(args.systems):
        library = system.split("-")[0]
        reason = None if library == "engine" else peer_available(library)
        if reason:
            print(f"skipping {system}: {reason}", file=sys.stderr)
            args.systems.remove(system)
    try:
        import numba

        numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    except ImportError:
        pass
    from threadpoolctl import threadpool_limits

    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = {cell_key(r): r for r in read_records([args.out])}
    label = args.label
    cell = Cell(args.epochs, args.threads, args.engine_options, args.svi_options, merge_general=args.merge_general,
                sweeps=args.sweeps)
    for r in done.values():
        if label and r["label"] == label and r["options"] != cell.options():
            sys.exit(
                f"{args.out} holds cells labelled {label!r} run with options {r['options']}; this run's are "
                f"{cell.options()}: choose another --label"
            )
    meta = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "command": "python " + shlex.join([sys.argv[0], *args.argv]),
        "source": _report.source_state(),
        "versions": versions(),
        "machine": f"{platform.machine()}, {_report.cores()} cores",
        "threads": args.threads,
        "engine_defaults": engine_defaults(),
    }
    print(
        f"# quality run {meta['date']}\ncommand: {meta['command']}\nsource: {meta['source']}\n"
        f"versions: {', '.join(f'{k} {v}' for k, v in meta['versions'].items() if v)}\n"
        f"machine: {meta['machine']}; {args.threads} thread(s) for every system",
        flush=True,
    )
    print(_report.warm_up(["float32", "float64"], cold=False), flush=True)  # LDA's default, the HDP's, or asked
    lda_systems = [s for s in args.systems if s not in HDP_SYSTEMS]
    hdp_systems = [s for s in args.systems if s in HDP_SYSTEMS]

    def ensure(system: str, collection: Collection, K: int | None, seed: int) -> None:
        """Run one cell and append its record (with --resume: unless the results hold it already)."""
        name = system_name(system, label)
        if system.startswith("tomotopy-") and args.sweeps is not None:
            name = sweeps_name(system, args.sweeps)
        key = (name, collection.name, K, seed, cell.epochs)
        if args.resume and key in done:
            return
        if system.startswith("tomotopy-") and args.sweeps is None:  # budget: the default engine's seconds here
            engine_system = "engine-lda" if system == "tomotopy-lda" else "engine-hdp"
            budget_key = (engine_system, collection.name, K, seed, cell.epochs)
            if budget_key not in done:
                print(f"{system} needs {engine_system}'s seconds on this cell: running it first", flush=True)
                defaults = Cell(cell.epochs, cell.threads, {}, {})
                record = run_cell(engine_system, engine_system, collection, K, seed, defaults, meta)
                append_record(args.out, record)
                done[budget_key] = record
                print(progress_line(record), flush=True)
            cell.budget = done[budget_key]["seconds"]
        record = run_cell(system, name, collection, K, seed, cell, meta)
        append_record(args.out, record)
        done[key] = record
        print(progress_line(record), flush=True)

    with threadpool_limits(limits=args.threads):
        for name in [*args.corpora, *args.folders]:
            if name in args.folders:
                collection, why = load_split(args.folders[name], name, str(args.folders[name])), ""
            else:
                collection, why = load_collection(name, args)
            if collection is None:
                print(why, file=sys.stderr, flush=True)
                continue
            if args.train_docs is not None:
                if args.train_docs >= collection.train.shape[0]:
                    print(f"skipping {name}: it has only {collection.train.shape[0]} training documents",
                          file=sys.stderr, flush=True)
                    continue
                collection = collection.subsample(args.train_docs)
            s = collection.stats()
            print(
                f"\n## {name}: {s['train_docs']} training documents, {s['test_docs']} test documents, V = "
                f"{s['n_words']}, {s['train_tokens']} training tokens, {s['heldout_tokens']} held-out tokens "
                f"({s['source']})",
                flush=True,
            )
            warm_up(collection, cell, [s for s in args.systems if s.startswith("engine-")])
            for K in args.k if lda_systems else []:
                for seed in args.seeds:
                    for system in lda_systems:
                        ensure(system, collection, K, seed)
            for seed in args.seeds:
                for system in hdp_systems:
                    ensure(system, collection, None, seed)
    print(summary(read_records([args.out]), f"python {sys.argv[0]} summarize {args.out}"), flush=True)
    return 0



# ------------------------------------------------------------------------ CLI
def _json_options(text: str) -> dict:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not JSON ({error}): {text!r}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object of keyword arguments, got {text!r}")
    return value


def parse_run_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="`python benchmarks/quality.py summarize FILE...` prints the tables of a results file.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--corpora", nargs="+", default=None, choices=PANEL + CHECK_COLLECTIONS, metavar="NAME",
        help=f"any of {' '.join(PANEL)} (the panel, the default unless --folder is given) or the check collections "
        f"{' '.join(CHECK_COLLECTIONS)}"
    )
    p.add_argument(
        "--folder", action="append", default=[], metavar="NAME=DIR",
        help="also a collection in the shared corpora's format (train.npz, test_obs.npz, test_ho.npz in DIR, e.g. "
        "from semisynthetic_split.py), named NAME in the results; may be repeated"
    )
    p.add_argument(
        "--systems",
        nargs="+",
        default=list(SYSTEMS),
        choices=SYSTEMS,
        metavar="NAME",
        help=f"any of {' '.join(SYSTEMS)}",
    )
    p.add_argument("--k", type=int, nargs="+", default=[10, 20, 50, 100], help="numbers of LDA topics")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4], help="seeds")
    p.add_argument("--epochs", type=int, default=10, help="passes over the training documents of the SVI systems")
    p.add_argument(
        "--train-docs",
        type=int,
        default=None,
        metavar="N",
        help="keep N training documents of each collection, drawn once (the test documents stay): a small "
        "collection, recorded as NAME:N",
    )
    p.add_argument(
        "--engine-options",
        type=_json_options,
        default={},
        help="JSON keyword arguments for engine.LDA / engine.HDP, e.g. "
        '\'{"local_update": "zero_order"}\' (needs --label)',
    )
    p.add_argument(
        "--svi-options",
        type=_json_options,
        default={},
        help='JSON keyword arguments for engine.SVI, e.g. \'{"kappa": 0.7, "tau": 64}\' (needs --label)',
    )
    p.add_argument(
        "--merge-general",
        action="store_true",
        help="after training, merge each engine model's topics that repeat the overall word use "
        "(model.general_topics()) into one with model.merge_topics (needs --label)",
    )
    p.add_argument(
        "--label", help="name of the engine variant: its systems appear as engine-lda:LABEL, engine-hdp:LABEL"
    )
    p.add_argument(
        "--sweeps", type=int, default=None, metavar="N",
        help="tomotopy's systems train exactly N sweeps instead of the default engine's seconds (collapsed Gibbs "
        "run towards convergence); they appear as tomotopy-lda:N-sweeps, tomotopy-hdp:N-sweeps, apart from the "
        "targets"
    )
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results file, one JSON line per cell (appended)")
    p.add_argument("--resume", action="store_true", help="skip the cells --out already holds")
    p.add_argument(
        "--threads", type=int, default=1, help="threads of every system: numba, BLAS/OpenMP, tomotopy workers"
    )
    p.add_argument("--shared", type=Path, default=SHARED, help="the shared folder holding corpora/ (default ../shared)")
    p.add_argument("--cache", type=Path, default=CACHE, help="where built collections are cached")
    args = p.parse_args(argv)
    args.argv = list(argv)
    folders = {}
    for given in args.folder:
        name, _, folder = given.partition("=")
        if not re.fullmatch(r"[\w.+-]+", name) or not folder:
            p.error(f"--folder takes NAME=DIR, NAME letters, digits and . + - _ only, got {given!r}")
        if name in PANEL + CHECK_COLLECTIONS or name in folders:
            p.error(f"--folder name {name!r} is taken: choose another")
        missing = compare_lda.missing_corpus_files(Path(folder))
        if missing:
            p.error(f"--folder {name}: {folder} has no {', '.join(missing)}")
        folders[name] = Path(folder)
    args.folders = folders
    if args.corpora is None:
        args.corpora = [] if folders else list(PANEL)
    if (args.engine_options or args.svi_options or args.merge_general) and not args.label:
        p.error("--engine-options / --svi-options / --merge-general make a variant: name it with --label")
    if args.label and not re.fullmatch(r"[\w.=,+-]+", args.label):
        p.error(f"--label must be letters, digits and . = , + - _ only, got {args.label!r}")
    for key in ("n_words", "seed"):
        if key in args.engine_options:
            p.error(f"--engine-options cannot set {key}: the benchmark sets it")
    engines = {"engine-lda": engine.LDA, "engine-hdp": engine.HDP}
    for system, cls in engines.items():
        if system in args.systems and args.engine_options:
            if system == "engine-lda" and "n_topics" in args.engine_options:
                p.error("--engine-options cannot set the LDA's n_topics: use --k")
            try:
                inspect.signature(cls).bind_partial(**args.engine_options)
            except TypeError as error:
                p.error(f"--engine-options for {cls.__name__}: {error} (run the LDA and HDP variants separately)")
    if args.svi_options:
        try:
            inspect.signature(engine.SVI).bind_partial(model=None, corpus=None, **args.svi_options)
        except TypeError as error:
            p.error(f"--svi-options: {error}")
        if "seed" in args.svi_options:
            p.error("--svi-options cannot set seed: use --seeds")
    if args.epochs < 1 or args.threads < 1 or any(k < 2 for k in args.k):
        p.error("need --epochs >= 1, --threads >= 1 and every --k >= 2")
    if args.sweeps is not None and args.sweeps < 1:
        p.error("need --sweeps >= 1")
    if args.train_docs is not None and args.train_docs < 1:
        p.error("need --train-docs >= 1")
    return args


def summarize_main(argv) -> int:
    p = argparse.ArgumentParser(prog="quality.py summarize", description="Print the quality tables and targets.")
    p.add_argument("files", nargs="*", type=Path, default=[DEFAULT_OUT], help="results files (JSON lines), merged")
    p.add_argument("--epochs", type=int, help="summarise the runs of this many epochs (default: the largest)")
    p.add_argument("--write", type=Path, help="also write the summary to this file (atomically)")
    args = p.parse_args(argv)
    missing = [str(f) for f in args.files if not f.is_file()]
    if missing:
        sys.exit(f"no results file {', '.join(missing)}: run `python benchmarks/quality.py --out FILE` first")
    text = summary(read_records(args.files), "python " + shlex.join([sys.argv[0], "summarize", *argv]), args.epochs)
    print(text)
    if args.write:
        with engine.atomic_file(args.write, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["summarize"]:
        return summarize_main(argv[1:])
    return run(parse_run_args(argv))


if __name__ == "__main__":
    sys.exit(main())
