"""Screen the HDP's levers (issue 13) on the panel corpora against zero-order LDA.

Each run trains one model by SVI (kappa 0.9, tau 1, S 256) for ``--epochs``
passes over a panel corpus and appends one JSON line to ``--out``: held-out
log likelihood per word, topics in use (weight >= 0.01), the mean NPMI of the
top-10 words of the topics in use (document co-occurrence on the training
documents) and the training seconds.  Runs already in the file are skipped,
so the script can be stopped and restarted.

    NUMBA_NUM_THREADS=1 python benchmarks/hdp_levers.py --configs old zo --seeds 0 1 2
    python benchmarks/hdp_levers.py --summary
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from compare_lda import load_split  # the benchmarks' corpus loader (run from benchmarks/)

import engine

CORPORA = Path("/work/shared/corpora")
PANEL = ("ap", "foldoc", "sotu", "jargon")


class _PartialZeroOrder(engine.HDP):
    """The HDP with log E[x] for only some of its terms (screening only)."""

    terms = (True, True, True)

    def _zero_order_terms(self):
        return self.terms


def _partial(terms):
    return type("PartialZeroOrderHDP", (_PartialZeroOrder,), {"terms": terms})


OLD = {"local_update": "mean_field", "stick_init": "prior", "local_init": "lda"}  # the paper's updates
HDP_CONFIGS = {
    "old": OLD,
    "old_uniform": {**OLD, "stick_init": "uniform"},
    "zo": {"local_update": "zero_order", "stick_init": "prior"},
    "zo_uniform": {"local_update": "zero_order", "stick_init": "uniform"},
    "zo_paper_init": {"local_update": "zero_order", "local_init": "paper"},
    "zo_beta": {"cls": _partial((True, False, False))},
    "zo_beta_sticks": {"cls": _partial((True, True, False))},
    "zo_beta_local": {"cls": _partial((True, False, True))},
    "zo_uniform_g5": {"local_update": "zero_order", "stick_init": "uniform", "omega": 5.0},
    "zo_uniform_a01": {"local_update": "zero_order", "stick_init": "uniform", "alpha": 0.1},
    "zo_uniform_t10": {"local_update": "zero_order", "stick_init": "uniform", "doc_truncation": 10},
    "zo_uniform_tau64": {"local_update": "zero_order", "stick_init": "uniform", "svi": {"tau": 64.0, "kappa": 0.7}},
    "zo_uniform_noreorder": {"local_update": "zero_order", "stick_init": "uniform", "reorder_topics": False},
    "zo_bl_uniform": {"cls": _partial((True, False, True)), "stick_init": "uniform"},
    "zo_beta_uniform": {"cls": _partial((True, False, False)), "stick_init": "uniform"},
    "new_a05": {"alpha": 0.5},
    "new_a03": {"alpha": 0.3},
    "new_a01": {"alpha": 0.1},
    "new_g3": {"omega": 3.0},
    "new_paper_init": {"local_init": "paper"},
    "new_g10": {"omega": 10.0},
    "zo_bs_uniform": {"cls": _partial((True, True, False)), "stick_init": "uniform"},
    "new_tol3": {"local_tol": 1e-3},
    "new_expinit": {"topic_init": "exponential"},
    "new_t10": {"doc_truncation": 10},
    "new_tol30": {"local_tol": 3e-2},
    "new_tol100": {"local_tol": 1e-1},
    "new_tol100_score1e-2": {"local_tol": 1e-1, "score": {"local_tol": 1e-2}},
    "new_score1e-1": {"score": {"local_tol": 1e-1}},
    "new_iter3": {"local_max_iter": 3},
    "new_tol300": {"local_tol": 3e-1},
    "default": {},  # whatever the HDP's defaults are at this commit
}
LDA_K = (10, 20, 50, 100)


def npmi(model, used: np.ndarray, train: sp.csr_matrix, top: int = 10) -> float:
    """Mean over the topics in use of their top words' NPMI, documents as windows (engine.CoherenceReference)."""
    if not used.any():
        return float("nan")
    return float(np.mean(engine.CoherenceReference(train).score_model(model, n_top=top)[used]))


def make_model(config: str, n_words: int, seed: int, n_topics: int, doc_truncation: int):
    """(model, SVI options) of a config name."""
    if config.startswith("lda"):  # "lda50": alpha 1/K; "lda50_a0.1": alpha 0.1
        n_lda, _, alpha = config[3:].partition("_a")
        alpha = float(alpha) if alpha else 1.0 / int(n_lda)
        return engine.LDA(n_topics=int(n_lda), n_words=n_words, seed=seed, local_update="zero_order", alpha=alpha), {}
    options = {"doc_truncation": doc_truncation, **HDP_CONFIGS[config]}
    cls = options.pop("cls", engine.HDP)
    svi = options.pop("svi", {})
    score = options.pop("score", {})
    model = cls(n_topics=n_topics, n_words=n_words, seed=seed, **options)
    model._score_settings = score  # attributes set on the trained model before it is scored
    return model, svi


def run_one(corpus: str, config: str, seed: int, epochs: int, n_topics: int, doc_truncation: int, data) -> dict:
    train, observed, heldout = data
    model, svi = make_model(config, train.shape[1], seed, n_topics, doc_truncation)
    start = time.perf_counter()
    engine.SVI(model, corpus=train, seed=seed, **svi).run(n_docs=epochs * train.shape[0])
    seconds = time.perf_counter() - start
    for name, value in getattr(model, "_score_settings", {}).items():
        setattr(model, name, value)
    loglik = engine.predictive_log_likelihood(model, observed, heldout)
    weights = model.topic_weights()
    used = weights >= 0.01
    return {
        "corpus": corpus, "config": config, "seed": seed, "epochs": epochs, "n_topics": n_topics,
        "doc_truncation": doc_truncation, "loglik": loglik, "topics_in_use": int(used.sum()),
        "npmi": npmi(model, used, train), "seconds": seconds,
    }


def summary(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["corpus"], r["epochs"], r["n_topics"], r["doc_truncation"], r["config"]), []).append(r)
    print(f"{'corpus':8} {'ep':>3} {'config':16} {'n':>2} {'loglik':>16} {'in use':>12} {'npmi':>14} {'sec':>7}")
    for key in sorted(groups):
        g = groups[key]
        ll = np.array([r["loglik"] for r in g])
        use = np.array([r["topics_in_use"] for r in g])
        co = np.array([r["npmi"] for r in g])
        sec = np.array([r["seconds"] for r in g])
        print(f"{key[0]:8} {key[1]:>3} {key[4]:16} {len(g):>2} {ll.mean():8.3f} ± {ll.std():5.3f} "
              f"{use.mean():5.1f} ± {use.std():4.1f} {co.mean():6.3f} ± {co.std():5.3f} {sec.mean():7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", nargs="+", default=list(PANEL))
    parser.add_argument("--configs", nargs="+", default=["old", "zo"],
                        help=f"HDP configs {sorted(HDP_CONFIGS)}, ldaK (zero-order LDA, K topics, alpha 1/K) "
                             "or ldaK_aA (alpha A)")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--n-topics", type=int, default=150)
    parser.add_argument("--doc-truncation", type=int, default=20)
    parser.add_argument("--out", type=Path, default=Path("/tmp/hdp_exp/levers.jsonl"))
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args()
    if args.summary:
        summary(args.out)
        return
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["corpus"], r["config"], r["seed"], r["epochs"], r["n_topics"], r["doc_truncation"]))
    for corpus in args.corpora:
        data = load_split(CORPORA / corpus)
        for config in args.configs:
            for seed in args.seeds:
                if (corpus, config, seed, args.epochs, args.n_topics, args.doc_truncation) in done:
                    continue
                result = run_one(corpus, config, seed, args.epochs, args.n_topics, args.doc_truncation, data)
                with args.out.open("a") as f:
                    f.write(json.dumps(result) + "\n")
                print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
