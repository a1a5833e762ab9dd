#!/usr/bin/env python
"""Compare this engine's SVI for the HDP with gensim's HdpModel and with the engine's LDA at several K.

Every system sees the same minibatches in the same order (epoch e visits the
training documents in the order ``np.random.default_rng([seed, e]).permutation(D)``,
cut into minibatches of S), with one BLAS thread, taking turns minibatch by
minibatch (the order rotates every minibatch) so that load from other processes
falls on all of them alike.  The HDPs share K (corpus truncation), T (document
truncation), alpha, gamma, eta, kappa, tau and S; the LDAs use alpha = 1/K and
the same eta, kappa, tau and S.  After each epoch every system is scored by
``engine.predictive_log_likelihood`` on the test documents (gensim's HDP through
an ``engine.HDP`` holding its lambda and corpus sticks).  For the two HDPs the
script also reports gensim's own test-time inference (``hdp_to_lda`` then
``lda_e_step`` per document), applied to both.

    python benchmarks/compare_hdp.py --epochs 1 --lda-k 50               # quick check
    python benchmarks/compare_hdp.py --epochs 2 --seeds 0 1 --json out.json

See benchmarks/README.md for the options and benchmarks/RESULTS.md for results.
"""

from __future__ import annotations

import argparse
import datetime
import inspect
import json
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # _peers, _report, compare_lda
try:
    import engine
except ImportError:  # running from a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))
    import engine

# the benchmark's own helpers, found through the sys.path entry above
import _report  # noqa: E402
from _peers import EngineHDP, EngineLDA, GensimHDP, HDPSettings, Settings, gensim_bow, peer_available  # noqa: E402
from compare_lda import DEFAULT_CORPUS, load_split  # noqa: E402

ENGINE_HDP, GENSIM_HDP, GENSIM_OWN = "engine HDP", "gensim HDP", "gensim HDP, own inference"
SETTINGS = (
    "k", "t", "lda_k", "batch_size", "kappa", "tau", "epochs", "seeds", "alpha", "gamma", "eta", "dtype", "kernel",
    "eval_tol",
)


class _LDAView:
    """gensim's test-time inference on an HDP's globals, with the face predictive_log_likelihood reads.

    ``hdp_to_lda``: an LDA with prior alpha * E[sigma_k(V)] (the corpus stick
    weights) and topics E[beta_k]; each document's gamma from gensim's
    ``lda_e_step``; E[theta_d] = gamma_d / sum gamma_d.
    """

    def __init__(self, model: engine.HDP):
        self.n_words = model.n_words
        self.alpha = model.alpha * model.topic_weights()
        self.topics = np.asarray(model.expected_topics(), dtype=np.float64)

    def transform(self, counts) -> np.ndarray:
        from gensim.models.hdpmodel import lda_e_step

        theta = np.empty((counts.shape[0], self.alpha.size))
        for d in range(counts.shape[0]):
            row = counts[d]
            _, gamma = lda_e_step(row.indices, row.data, self.alpha, self.topics)
            theta[d] = gamma / gamma.sum()
        return theta

    def expected_topics(self) -> np.ndarray:
        return self.topics


SPEED_TARGET = 10.0  # the performance issue's target: documents/second at least 10x gensim's HdpModel


def _with_kernel(system, args):
    """The engine system with its model's local-step implementation set to ``--kernel`` (read at every step)."""
    system.model.kernel = args.kernel
    return system


def systems_for_seed(args, train, bow, seed: int) -> list[tuple[str, str, int, object]]:
    """(name, kind, K, constructor) of every system in this run."""
    hdp = HDPSettings(args.k, args.t, args.batch_size, args.kappa, args.tau, args.alpha, args.gamma, args.eta, seed)
    suffix = "" if args.dtype is None else f" [{args.dtype}]"
    suffix += "" if args.kernel == "auto" else f" [{args.kernel}]"

    def engine_hdp():
        system = _with_kernel(EngineHDP(train, hdp, args.threads, args.dtype), args)
        if args.hdp_local_tol is not None:
            system.model.local_tol = args.hdp_local_tol
        if args.hdp_births is not None:
            system.model.births = args.hdp_births
        return system

    births = "" if args.hdp_births is None else f" [births {args.hdp_births}]"
    made = [(ENGINE_HDP + suffix + births, "hdp", args.k, engine_hdp)]
    if bow is not None:
        made.append((GENSIM_HDP, "hdp", args.k, lambda: GensimHDP(train, hdp, bow)))
    defaults = inspect.signature(engine.LDA).parameters
    for k in args.lda_k:
        settings = Settings(k, args.batch_size, args.kappa, args.tau, args.eta, seed)
        made.append(
            (
                f"engine LDA K={k}{suffix}",
                "lda",
                k,
                lambda s=settings: _with_kernel(
                    EngineLDA(
                        train, s, defaults["gamma_init"].default, defaults["topic_init"].default, args.threads,
                        args.dtype, paper_box=False,
                    ),
                    args,
                ),
            )
        )
    return made


def _scored_at(model: engine.HDP, tol: float) -> engine.HDP:
    """A copy of ``model`` whose local fits (the held-out documents' observed words) stop at ``tol``.

    Every HDP is scored with the same tolerance, whatever it was trained with,
    so that a looser training tolerance cannot move the yardstick.
    """
    scored = model.copy()
    scored.local_tol = scored.initial_local_tol = tol
    return scored


def run_seed(args, train, observed, heldout, bow, seed: int) -> list[dict]:
    """Train every system for args.epochs epochs on the same minibatches; one record per system and epoch."""
    D = train.shape[0]
    made = systems_for_seed(args, train, bow, seed)
    names = [name for name, *_ in made]
    records = []
    with threadpool_limits(limits=args.threads):
        systems, clock = {}, dict.fromkeys(names, 0.0)
        for name, _, _, make in made:  # setup (random topics) counts towards the first epoch
            started = time.perf_counter()
            systems[name] = make()
            clock[name] += time.perf_counter() - started
        step = 0
        for e in range(args.epochs):
            order = np.random.default_rng([seed, e]).permutation(D)
            for start in range(0, D, args.batch_size):
                rows = order[start : start + args.batch_size]
                turn = step % len(names)
                for name in names[turn:] + names[:turn]:
                    started = time.perf_counter()
                    systems[name].partial_fit(rows)
                    clock[name] += time.perf_counter() - started
                step += 1
            for name, kind, k, _ in made:
                system = systems[name]
                started = time.perf_counter()
                if hasattr(system, "finish_epoch"):  # gensim brings its lazily decayed topics up to date
                    system.finish_epoch()
                clock[name] += time.perf_counter() - started
                model = _scored_at(system.model_for_evaluation(), args.eval_tol) if kind == "hdp" else system.model
                its = system.local_iterations[-int(np.ceil(D / args.batch_size)) :] if name != GENSIM_HDP else None
                record = {
                    "seed": seed,
                    "epoch": e + 1,
                    "docs_seen": D * (e + 1),
                    "system": name,
                    "kind": kind,
                    "k": k,
                    "heldout_loglik": engine.predictive_log_likelihood(model, observed, heldout),
                    "seconds": clock[name],  # cumulative training seconds up to this epoch
                    "docs_per_second": D * (e + 1) / clock[name],
                    "local_iterations": float(np.mean(its)) if its else None,
                }
                if kind == "hdp":
                    record["topics_in_use"] = model.topics_in_use(0.01)
                    record["topics_covering"] = model.topics_covering(0.95)
                    view = _LDAView(model) if bow is not None else None  # needs gensim's lda_e_step
                    record["lda_view_loglik"] = view and engine.predictive_log_likelihood(view, observed, heldout)
                records.append(record)
    return records


# ----------------------------------------------------------------- tables
def _row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _table(head, rows) -> list[str]:
    return [_row(head), "|" + "---|" * len(head), *(_row(r) for r in rows)]


def seed_table(records: list[dict]) -> str:
    """Per-epoch table of one seed."""
    head = [
        "epoch",
        "docs seen",
        "system",
        "LL/word",
        "- gensim HDP",
        "docs/s so far",
        "/ gensim HDP",
        "topics >= 1%",
        "topics for 95%",
        "LL, hdp_to_lda inference",
        "local it.",
    ]
    by_epoch = defaultdict(dict)
    for r in records:
        by_epoch[r["epoch"]][r["system"]] = r
    rows = []
    for epoch, systems in by_epoch.items():
        ref = systems.get(GENSIM_HDP)
        for name, r in systems.items():
            vs = ref is not None and name != GENSIM_HDP
            rows.append(
                [
                    epoch,
                    r["docs_seen"],
                    name,
                    f"{r['heldout_loglik']:.4f}",
                    f"{r['heldout_loglik'] - ref['heldout_loglik']:+.4f}" if vs else "",
                    f"{r['docs_per_second']:.0f}",
                    f"{r['docs_per_second'] / ref['docs_per_second']:.2f}x" if vs else "",
                    r.get("topics_in_use", ""),
                    r.get("topics_covering", ""),
                    "" if r.get("lda_view_loglik") is None else f"{r['lda_view_loglik']:.4f}",
                    "" if r["local_iterations"] is None else f"{r['local_iterations']:.1f}",
                ]
            )
    return f"\n## seed {records[0]['seed']}\n\n" + "\n".join(_table(head, rows))


def _spread(values: list[float]) -> str:
    return f"{np.mean(values):+.4f}" + (f" [{min(values):+.4f}, {max(values):+.4f}]" if len(values) > 1 else "")


def time_to_reach(records: list[dict], system: str, seed: int, loglik: float) -> tuple[int, float] | None:
    """(epoch, cumulative seconds) of the first epoch at which ``system`` scores at least ``loglik`` in ``seed``.

    None if no epoch does.  The records are scored once an epoch, so the time is
    an upper bound on when that quality was first reached.
    """
    mine = sorted((r for r in records if r["system"] == system and r["seed"] == seed), key=lambda r: r["epoch"])
    for r in mine:
        if r["heldout_loglik"] >= loglik:
            return r["epoch"], r["seconds"]
    return None


def summary(records: list[dict]) -> str:
    """Means over seeds: LL per epoch, speed, HDP topics in use, and the verdicts."""
    seeds = sorted({r["seed"] for r in records})
    epochs = sorted({r["epoch"] for r in records})
    names = list(dict.fromkeys(r["system"] for r in records))
    hdps = [n for n in names if any(r["kind"] == "hdp" for r in records if r["system"] == n)]
    ldas = [n for n in names if n not in hdps]
    engine_hdp = hdps[0]
    gensim = GENSIM_HDP if GENSIM_HDP in names else None
    at = {(r["system"], r["epoch"], r["seed"]): r for r in records}

    def mean(system, epoch, field="heldout_loglik"):
        return float(np.mean([at[system, epoch, s][field] for s in seeds]))

    def best_lda(epoch, seed):
        return max(ldas, key=lambda n: at[n, epoch, seed]["heldout_loglik"])

    note = f"mean over {len(seeds)} seeds ({', '.join(map(str, seeds))})" if len(seeds) > 1 else f"seed {seeds[0]}"
    out = [
        f"\n# Summary ({note}; LL = held-out log likelihood per word, higher is better)\n",
        "## Held-out LL/word after each epoch\n",
    ]
    cols = hdps + ([GENSIM_OWN] if gensim else []) + ldas
    head = ["epoch", "docs seen", *cols] + ([f"{h} - best LDA" for h in hdps] if ldas else [])
    rows = []
    for e in epochs:
        row = [e, at[engine_hdp, e, seeds[0]]["docs_seen"]]
        row += [f"{mean(gensim, e, 'lda_view_loglik'):.4f}" if c == GENSIM_OWN else f"{mean(c, e):.4f}" for c in cols]
        for h in hdps if ldas else []:
            diffs = [at[h, e, s]["heldout_loglik"] - at[best_lda(e, s), e, s]["heldout_loglik"] for s in seeds]
            row.append(_spread(diffs))
        rows.append(row)
    out += _table(head, rows)
    out.append(
        f"\n{GENSIM_OWN}: gensim's hdp_to_lda() + lda_e_step on gensim's globals (not the shared evaluator). "
        "Best LDA: the K with the highest LL in each seed. [min, max] over seeds."
    )

    out.append("\n## Training speed, docs/second over all epochs and seeds\n")
    speed = _report.hdp_speeds(records)
    rows = [[n, f"{speed[n]:.0f}", f"{speed[n] / speed[gensim]:.2f}x" if gensim else ""] for n in names]
    out += _table(["system", "docs/s", "/ gensim HDP"], rows)

    if gensim:
        out.append("\n## Seconds to gensim HDP's quality\n")
        rows = []
        final = [at[gensim, epochs[-1], s] for s in seeds]  # gensim's last epoch, per seed
        for h in (h for h in hdps if h != gensim):
            reached = [time_to_reach(records, h, s, g["heldout_loglik"]) for s, g in zip(seeds, final, strict=True)]
            per_seed = ["not reached" if hit is None else f"epoch {hit[0]}, {g['seconds'] / hit[1]:.2f}x"
                        for g, hit in zip(final, reached, strict=True)]
            ratio = (f"{sum(g['seconds'] for g in final) / sum(hit[1] for hit in reached):.2f}x"
                     if all(reached) else "")
            rows.append([h, "; ".join(per_seed), ratio])
        out += _table(["system", "first epoch at gensim's final LL; gensim's seconds / these (per seed)",
                       "all seeds"], rows)
        out.append(
            f"\ngensim's final LL: its held-out LL after epoch {epochs[-1]} in the same seed.  Scored once an epoch, "
            "so the engine's seconds are an upper bound and the ratio a lower bound."
        )

    out.append("\n## HDP topics after each epoch (per seed: " + " / ".join(map(str, seeds)) + ")\n")
    rows = []
    for e in epochs:
        for h in hdps:
            rows.append(
                [
                    e,
                    h,
                    " / ".join(str(at[h, e, s]["topics_in_use"]) for s in seeds),
                    " / ".join(str(at[h, e, s]["topics_covering"]) for s in seeds),
                    "" if gensim is None else f"{mean(h, e, 'lda_view_loglik'):.4f}",
                ]
            )
    out += _table(
        ["epoch", "system", "topics_in_use(0.01)", "topics_covering(0.95)", "LL, hdp_to_lda inference (mean)"], rows
    )

    if ldas:
        out.append("\n## HDP minus LDA at each K, nats/word (mean [min, max] over seeds; seeds where HDP is ahead)\n")
        rows = []
        for h in hdps:
            for e in epochs:
                row = [e, h]
                for n in ldas:
                    diffs = [at[h, e, s]["heldout_loglik"] - at[n, e, s]["heldout_loglik"] for s in seeds]
                    row.append(f"{_spread(diffs)} ({sum(d > 0 for d in diffs)}/{len(seeds)})")
                rows.append(row)
        out += _table(["epoch", "HDP", *(n.removeprefix("engine ") for n in ldas)], rows)

    out.append("\n## Verdicts\n")
    if not ldas and not gensim:
        out.append("- nothing to compare: no --lda-k and no gensim")
    for h in hdps if ldas else []:
        for e in epochs:
            diffs = [at[h, e, s]["heldout_loglik"] - at[best_lda(e, s), e, s]["heldout_loglik"] for s in seeds]
            wins = sum(d > 0 for d in diffs)
            verdict = "HOLDS" if wins == len(seeds) else ("FAILS" if wins == 0 else "MIXED")
            best = ", ".join(best_lda(e, s).removeprefix("engine LDA ") for s in seeds)
            out.append(
                f"- 'HDP beats LDA for every K' ({h}, epoch {e}): HDP - best LDA = {_spread(diffs)} "
                f"(best LDA per seed: {best}); HDP ahead in {wins}/{len(seeds)} seeds: {verdict}"
            )
    if gensim:
        for e in epochs:
            diffs = [at[engine_hdp, e, s]["heldout_loglik"] - at[gensim, e, s]["heldout_loglik"] for s in seeds]
            ok = sum(d >= 0 for d in diffs)
            out.append(
                f"- target LL >= gensim HDP (epoch {e}, {at[engine_hdp, e, seeds[0]]['docs_seen']} docs): "
                f"{_spread(diffs)} nats/word, >= 0 in {ok}/{len(seeds)} seeds: "
                f"{'PASS' if np.mean(diffs) >= 0 else 'FAIL'} (on the mean)"
            )
        ratios = [
            at[engine_hdp, epochs[-1], s]["docs_per_second"] / at[gensim, epochs[-1], s]["docs_per_second"]
            for s in seeds
        ]
        ratio = speed[engine_hdp] / speed[gensim]
        out.append(
            f"- target docs/s >= {SPEED_TARGET:g}x gensim HDP: {ratio:.2f}x over all epochs and seeds "
            f"(per seed {', '.join(f'{x:.2f}x' for x in ratios)}): {'PASS' if ratio >= SPEED_TARGET else 'FAIL'}"
        )
    return "\n".join(out)


def _numba_threads() -> str:
    try:
        import numba
    except ImportError:
        return "numba not installed"
    return str(numba.get_num_threads())


# ------------------------------------------------------------------ main
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
    p.add_argument("--k", type=int, default=150, help="HDP corpus-level truncation K (gensim's T)")
    p.add_argument("--t", type=int, default=20, help="HDP document-level truncation T (gensim's K)")
    p.add_argument(
        "--lda-k",
        type=int,
        nargs="*",
        default=[20, 50, 100, 200],
        help="numbers of topics of the LDA runs (none: no LDA)",
    )
    p.add_argument("--batch-size", type=int, default=256, help="minibatch size S")
    p.add_argument("--kappa", type=float, default=0.7, help="forgetting rate")
    p.add_argument("--tau", type=float, default=64.0, help="delay")
    p.add_argument("--epochs", type=int, default=2, help="passes over the training documents")
    p.add_argument("--seeds", type=int, nargs="+", default=[0], help="seeds (minibatch order and random starts)")
    p.add_argument("--alpha", type=float, default=1.0, help="HDP document-level concentration (LDA: alpha = 1/K)")
    p.add_argument("--gamma", type=float, default=1.0, help="HDP corpus-level concentration")
    p.add_argument("--eta", type=float, default=0.01, help="topic Dirichlet prior (HDP and LDA)")
    p.add_argument(
        "--dtype",
        default=None,
        choices=["float64", "float32"],
        help="precision of the engine's HDP and LDA (default: each model's own, float32 for the HDP and float64 "
        "for LDA; gensim is float64)",
    )
    p.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads for every system")
    p.add_argument(
        "--kernel",
        default="auto",
        choices=["auto", "compiled", "numpy"],
        help="the engine's local-step implementation (HDP and LDA); the compiled one uses numba's threads "
        "(NUMBA_NUM_THREADS), not --threads",
    )
    p.add_argument(
        "--hdp-local-tol", type=float, default=None,
        help="the engine HDP's local_tol (default: engine.HDP's own default)",
    )
    p.add_argument(
        "--hdp-births", type=int, default=None,
        help="the engine HDP's births per round (default: engine.HDP's own default; 0: no topic births)",
    )
    p.add_argument(
        "--eval-tol", type=float, default=1e-3,
        help="local_tol of the held-out fits, the same for every HDP (default 1e-3, engine.HDP's default until "
        "2026-11-25; the held-out score moves by up to 0.003 nats/word between 1e-3 and 1e-2)",
    )
    p.add_argument("--no-gensim", action="store_true", help="leave gensim's HdpModel out")
    p.add_argument(
        "--cold", action="store_true",
        help="count numba's one-time start-up (0.3 - 0.7 s) in the engine's first epoch instead of loading "
        "the kernels before timing",
    )
    p.add_argument("--json", type=Path, help="also write every record and the run's settings to this file")
    args = p.parse_args(argv)
    for name in ("epochs", "threads", "batch_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.k < 2 or not 1 <= args.t <= args.k:
        p.error(f"need --k >= 2 and 1 <= --t <= --k, got --k {args.k} --t {args.t}")
    if any(k < 2 for k in args.lda_k):
        p.error(f"every --lda-k must be >= 2, got {args.lda_k}")
    for name in ("alpha", "gamma", "eta", "hdp_local_tol", "eval_tol"):
        if getattr(args, name) is not None and getattr(args, name) <= 0:
            p.error(f"--{name} must be > 0, got {getattr(args, name)}")
    if args.hdp_births is not None and not 0 <= args.hdp_births <= args.k // 2:
        p.error(f"--hdp-births must be in [0, --k // 2 = {args.k // 2}], got {args.hdp_births}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    train, observed, heldout = load_split(args.corpus)
    if not args.no_gensim and (reason := peer_available("gensim")):
        print(f"skipping {reason}", file=sys.stderr)
        args.no_gensim = True
    hdp_defaults = {
        n: p.default
        for n, p in inspect.signature(engine.HDP).parameters.items()
        if n in ("topic_init", "local_init", "stick_init", "warmup_iter", "reorder_topics", "local_tol",
                 "initial_local_tol")
    }
    if args.hdp_local_tol is not None:
        hdp_defaults["local_tol"] = args.hdp_local_tol
    if args.hdp_births is not None:
        hdp_defaults["births"] = args.hdp_births
    lda_defaults = {
        n: p.default
        for n, p in inspect.signature(engine.LDA).parameters.items()
        if n in ("gamma_init", "topic_init", "local_tol")
    }
    meta = {
        "command": "python " + " ".join(sys.argv) if argv is None else " ".join(argv),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "corpus": str(args.corpus),
        "train_docs": train.shape[0],
        "n_words": train.shape[1],
        "test_docs": observed.shape[0],
        "heldout_words": int(heldout.sum()),
        "machine": f"{platform.machine()}, {_report.cores()} cores",
        "threads": args.threads,
        "versions": _report.versions(),
        "source": _report.source_state(),
        "settings": {n: getattr(args, n) for n in SETTINGS},
        "engine_hdp_defaults": hdp_defaults,
        "engine_lda_defaults": lda_defaults,
    }
    s = meta["settings"]
    print(
        f"# compare_hdp {meta['date']}\ncommand: {meta['command']}\n"
        f"corpus: {meta['corpus']} (D = {meta['train_docs']} training documents, V = {meta['n_words']}, "
        f"{meta['test_docs']} test documents, {meta['heldout_words']} held-out words)\n"
        f"machine: {meta['machine']}; {args.threads} BLAS thread(s)\n"
        f"versions: {', '.join(f'{k} {v}' for k, v in meta['versions'].items() if v)}\nsource: {meta['source']}\n"
        f"HDP: K = {s['k']} (gensim T), T = {s['t']} (gensim K), alpha = {s['alpha']:g}, gamma = {s['gamma']:g}, "
        f"eta = {s['eta']:g}; LDA: K in {s['lda_k']}, alpha = 1/K, eta = {s['eta']:g}; "
        f"S = {s['batch_size']}, kappa = {s['kappa']:g}, tau = {s['tau']:g}, rho_t = (tau + t)^-kappa; "
        f"{s['dtype'] or 'each model its default precision (HDP float32, LDA float64)'}; "
        f"engine kernel {s['kernel']} (numba threads: {_numba_threads()})\n"
        f"engine.HDP options: {hdp_defaults}\nengine.LDA defaults: {lda_defaults}\n"
        f"held-out fits of every HDP: local_tol = {s['eval_tol']:g}",
        flush=True,
    )
    meta["kernels"] = _report.warm_up(None if args.dtype is None else [args.dtype], args.cold)
    print(meta["kernels"], flush=True)
    bow = None if args.no_gensim else gensim_bow(train)
    records = []
    for seed in args.seeds:
        got = run_seed(args, train, observed, heldout, bow, seed)
        print(seed_table(got), flush=True)
        records.extend(got)
    print(summary(records), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "records": records}, indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
