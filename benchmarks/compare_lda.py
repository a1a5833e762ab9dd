#!/usr/bin/env python
"""Compare this engine's SVI for LDA with scikit-learn's and gensim's online LDA.

All systems get the same settings (K, alpha = 1/K, eta, kappa, tau, S, at most
100 local iterations stopping at a mean absolute change of gamma below 1e-3) and
algorithm (the paper's mean-field local step, no topic revival), the
same minibatches in the same order (epoch e visits the training documents in the
order ``np.random.default_rng([seed, e]).permutation(D)``, e = 0, 1, ..., cut
into minibatches of S), one BLAS thread, and one held-out evaluator:
``engine.predictive_log_likelihood`` of an ``engine.LDA`` whose ``lambda_`` is
the system's topic Dirichlet parameters (the likelihood depends on lambda and
alpha only, so the scores differ only through what training learned).

Every minibatch is sliced from the training matrix and converted into what
each system consumes (the engine's CSR counts, float64 CSR for scikit-learn,
(id, count) lists for gensim) before the clock starts: the timing covers the
updates, not the slicing.  The systems take turns minibatch by minibatch (the
order rotates every minibatch), so a burst of load from another process on a
shared machine slows all of them alike; ``--repeats 2`` runs everything twice and keeps each epoch's
faster time (the runs are deterministic, and the script checks that the second
run learns the same topics).

    python benchmarks/compare_lda.py --k 50 --epochs 1                 # quick check
    python benchmarks/compare_lda.py --k 20 50 100 200 --epochs 2 --kappa 0.7 0.9 --tau 64 1 --json out.json

See benchmarks/README.md for every option and benchmarks/RESULTS.md for results.
"""

from __future__ import annotations

import argparse
import datetime
import inspect
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # _peers, _report
try:
    import engine
except ImportError:  # running from a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))
    import engine

# the benchmark's own helpers, found through the sys.path entry above
import _report  # noqa: E402
from _peers import EngineLDA, EngineLDADefaults, GensimLDA, Settings, SklearnLDA, gensim_bow, peer_available  # noqa: E402
from _quality_config import EVAL_LOCAL_UPDATE  # noqa: E402

DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpora" / "ap"
CORPUS_FILES = ("train.npz", "test_obs.npz", "test_ho.npz")


def missing_corpus_files(folder: Path) -> list[str]:
    """Which of :data:`CORPUS_FILES` ``folder`` lacks (all of them if it is no folder)."""
    return [name for name in CORPUS_FILES if not (folder / name).is_file()]


def load_split(folder: Path) -> tuple[sp.csr_matrix, sp.csr_matrix, sp.csr_matrix]:
    """train, observed and held-out halves of the test documents (scipy.sparse .npz files)."""
    if not folder.is_dir():
        sys.exit(
            f"corpus folder {folder} not found: pass --corpus DIR, a folder holding {', '.join(CORPUS_FILES)} "
            "(scipy.sparse CSR counts); the default is ../shared/corpora/ap beside the project root"
        )
    missing = missing_corpus_files(folder)
    if missing:
        sys.exit(
            f"corpus folder {folder} lacks {', '.join(missing)}: --corpus must name a folder holding "
            f"{', '.join(CORPUS_FILES)} (scipy.sparse CSR counts, as in ../shared/corpora/ap/, which sits "
            "beside the project root in the development setup)"
        )
    train, observed, heldout = (sp.load_npz(folder / name).tocsr() for name in CORPUS_FILES)
    if not (train.shape[1] == observed.shape[1] == heldout.shape[1]) or observed.shape != heldout.shape:
        sys.exit(
            f"corpus folder {folder}: train {train.shape}, test_obs {observed.shape} and test_ho "
            f"{heldout.shape} do not share one vocabulary / one set of test documents"
        )
    return train, observed, heldout


def engine_threads() -> int:
    """Threads the engine's compiled kernel runs on (NUMBA_NUM_THREADS; 1 without numba)."""
    try:
        import numba
    except ImportError:
        return 1
    return numba.get_num_threads()


def engine_defaults() -> tuple[str, str]:
    """gamma_init and topic_init that ``engine.LDA`` uses when not told (they may change)."""
    params = inspect.signature(engine.LDA).parameters
    return params["gamma_init"].default, params["topic_init"].default


# quality.py's fold-in (_quality_config.EVAL_LOCAL_UPDATE); builds from before local_update (the filing commit,
# timed by PYTHONPATH) have only their own
_EVAL_FOLD_IN = ({"local_update": EVAL_LOCAL_UPDATE} if "local_update" in inspect.signature(engine.LDA).parameters
                 else {})


def heldout_loglik(
    topic_word: np.ndarray, settings: Settings, observed, heldout, gamma_init: str, alpha=None
) -> float:
    """The one evaluator: an engine.LDA holding the system's lambda (and alpha, if its own), scored by
    predictive_log_likelihood."""
    evaluator = engine.LDA(
        n_topics=settings.n_topics,
        n_words=topic_word.shape[1],
        alpha=settings.alpha if alpha is None else alpha,
        eta=settings.eta,
        seed=0,
        local_tol=settings.local_tol,
        local_max_iter=settings.local_max_iter,
        gamma_init=gamma_init,
        **_EVAL_FOLD_IN,
    )
    evaluator.lambda_ = topic_word
    return engine.predictive_log_likelihood(evaluator, observed, heldout)


def factories(args, train, settings, bow):
    """(name, constructor) of every system in this run."""
    made = [
        (
            f"engine[{g},{t}]" + ("" if d == "float64" else f"[{d}]"),
            lambda g=g, t=t, d=d: EngineLDA(train, settings, g, t, args.threads, dtype=d),
        )
        for d in args.dtype
        for g in args.gamma_init
        for t in args.topic_init
    ]
    if args.engine_defaults:
        made.append(("engine[defaults]", lambda: EngineLDADefaults(train, settings, args.threads)))
    if "sklearn" in args.peers:
        made.append(("sklearn", lambda: SklearnLDA(train, settings)))
    if "gensim" in args.peers:
        made.append(("gensim", lambda: GensimLDA(train, settings, bow)))
    return made


def run_config(args, train, observed, heldout, bow, settings: Settings) -> list[dict]:
    """Train every system for args.epochs epochs (args.repeats times); one record per system and epoch."""
    D = train.shape[0]
    made = factories(args, train, settings, bow)
    names = [name for name, _ in made]
    seconds = {(name, e): [] for name in names for e in range(args.epochs)}
    loglik, iterations, checksums = {}, {}, {}
    for repeat in range(args.repeats):
        clock = dict.fromkeys(seconds, 0.0)
        with threadpool_limits(limits=args.threads):
            systems = {}
            for name, make in made:  # setup (random topics) counts towards the first epoch
                started = time.perf_counter()
                systems[name] = make()
                clock[name, 0] += time.perf_counter() - started
            step = 0
            for e in range(args.epochs):
                order = np.random.default_rng([settings.seed, e]).permutation(D)
                for start in range(0, D, settings.batch_size):
                    rows = order[start : start + settings.batch_size]
                    # sliced and converted into what each system consumes before the clock starts
                    batches = {name: systems[name].prepare(rows) for name in names}
                    turn = step % len(names)
                    for name in names[turn:] + names[:turn]:
                        started = time.perf_counter()
                        systems[name].fit_prepared(batches[name])
                        clock[name, e] += time.perf_counter() - started
                    step += 1
                for name in names:
                    lam = systems[name].topic_word()
                    if repeat == 0:
                        own_alpha = getattr(systems[name], "own_alpha", None)  # engine[defaults] keeps its alpha
                        loglik[name, e] = heldout_loglik(
                            lam, settings, observed, heldout, args.eval_gamma_init, own_alpha
                        )
                        checksums[name, e] = float(lam.sum())
                        its = getattr(systems[name], "local_iterations", None)  # the engine's, per step
                        steps = int(np.ceil(D / settings.batch_size))
                        iterations[name, e] = float(np.mean(its[-steps:])) if its else None
                    elif abs(float(lam.sum()) - checksums[name, e]) > 1e-6 * abs(checksums[name, e]):
                        print(
                            f"warning: {name} learned different topics in repeat {repeat + 1} (not deterministic)",
                            file=sys.stderr,
                        )
        for key, value in clock.items():
            seconds[key].append(value)
    records = []
    for e in range(args.epochs):
        docs_in_epoch = D
        for name in names:
            best = min(seconds[name, e])
            records.append(
                {
                    "k": settings.n_topics,
                    "batch_size": settings.batch_size,
                    "kappa": settings.kappa,
                    "tau": settings.tau,
                    "seed": settings.seed,
                    "epoch": e + 1,
                    "docs_seen": D * (e + 1),
                    "system": name,
                    "heldout_loglik": loglik[name, e],
                    "seconds": best,
                    "seconds_all_repeats": seconds[name, e],
                    "docs_per_second": docs_in_epoch / best,
                    "engine_local_iterations": iterations[name, e],
                }
            )
    return records


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help="folder with train.npz, test_obs.npz, test_ho.npz (default: ../shared/corpora/ap)",
    )
    p.add_argument("--k", type=int, nargs="+", default=[20, 50, 100, 200], help="numbers of topics K")
    p.add_argument("--batch-size", type=int, default=256, help="minibatch size S")
    p.add_argument(
        "--kappa",
        type=float,
        nargs="+",
        default=[0.7],
        help="forgetting rate(s); paired in order with --tau (a single value is paired with every tau)",
    )
    p.add_argument("--tau", type=float, nargs="+", default=[64.0], help="delay(s), paired with --kappa")
    p.add_argument("--eta", type=float, default=0.01, help="topic Dirichlet prior (alpha is always 1/K)")
    p.add_argument("--epochs", type=int, default=2, help="passes over the training documents")
    p.add_argument("--seeds", type=int, nargs="+", default=[0], help="seeds (minibatch order and random starts)")
    p.add_argument("--repeats", type=int, default=1, help="run everything this many times; keep each epoch's best time")
    p.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads for every system (n_jobs stays 1)")
    p.add_argument(
        "--gamma-init",
        nargs="+",
        default=["ones", "random"],
        choices=["ones", "random"],
        help="engine gamma_init values to compare",
    )
    p.add_argument(
        "--topic-init",
        nargs="+",
        default=["exponential", "gamma"],
        choices=["exponential", "gamma"],
        help="engine topic_init values to compare",
    )
    p.add_argument(
        "--peers",
        nargs="*",
        default=["sklearn", "gensim"],
        choices=["sklearn", "gensim"],
        help="peer systems (none: engine only)",
    )
    p.add_argument(
        "--shared-start",
        choices=["exponential", "gamma"],
        help="start the peers from the very topics engine[*,SHARED_START] starts from (same seed), "
        "so that only the algorithms differ, not the random draws of lambda",
    )
    p.add_argument(
        "--eval-gamma-init",
        default="ones",
        choices=["ones", "random"],
        help="gamma start of the shared held-out evaluator",
    )
    p.add_argument(
        "--dtype",
        nargs="+",
        default=["float64"],
        choices=["float64", "float32"],
        help="engine precisions to compare (float32 engines are named engine[...][float32])",
    )
    p.add_argument(
        "--cold", action="store_true",
        help="count numba's one-time start-up (0.3 - 0.7 s) in the engine's first epoch instead of loading "
        "the kernels before timing",
    )
    p.add_argument(
        "--engine-defaults", action="store_true",
        help="also run engine[defaults]: engine.LDA(n_topics=K, n_words=V, seed=s) with its own alpha, "
        "local step and limits (only the schedule and S are shared); the evaluator stays the same",
    )
    p.add_argument("--json", type=Path, help="also write every record and the run's settings to this file")
    args = p.parse_args(argv)
    if len(args.kappa) != len(args.tau) and 1 not in (len(args.kappa), len(args.tau)):
        p.error(f"--kappa has {len(args.kappa)} values and --tau {len(args.tau)}: give as many of each, or one")
    for name in ("epochs", "repeats", "threads", "batch_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    train, observed, heldout = load_split(args.corpus)
    for peer in list(args.peers):
        reason = peer_available(peer)
        if reason:
            print(f"skipping {reason}", file=sys.stderr)
            args.peers.remove(peer)
    n = max(len(args.kappa), len(args.tau))
    schedules = list(
        zip(
            args.kappa * n if len(args.kappa) == 1 else args.kappa,
            args.tau * n if len(args.tau) == 1 else args.tau,
            strict=True,
        )
    )
    default = engine_defaults()
    meta = {
        "command": "python " + " ".join(sys.argv) if argv is None else " ".join(argv),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "corpus": str(args.corpus),
        "train_docs": train.shape[0],
        "test_docs": observed.shape[0],
        "heldout_words": int(heldout.sum()),
        "n_words": train.shape[1],
        "engine_default": {"gamma_init": default[0], "topic_init": default[1]},
        "versions": _report.versions(),
        "source": _report.source_state(),
        "machine": f"{platform.machine()}, {_report.cores()} cores",
        "threads": args.threads,
        "engine_threads": engine_threads(),
        "repeats": args.repeats,
        "shared_start": args.shared_start,
    }
    print(_report.header(meta), flush=True)
    meta["kernels"] = _report.warm_up(args.dtype, args.cold)
    print(meta["kernels"] + "\n", flush=True)
    bow = gensim_bow(train) if "gensim" in args.peers else None
    records = []
    for kappa, tau in schedules:
        for k in args.k:
            for seed in args.seeds:
                settings = Settings(k, args.batch_size, kappa, tau, args.eta, seed)
                if args.shared_start:
                    start = engine.LDA(k, train.shape[1], eta=args.eta, seed=seed, topic_init=args.shared_start)
                    start.initialize(train.shape[0])
                    settings.initial_topics = start.lambda_
                got = run_config(args, train, observed, heldout, bow, settings)
                print(_report.progress(got), flush=True)
                records.extend(got)
    print(_report.summary(records, default, meta["engine_threads"]), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "records": records}, indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
