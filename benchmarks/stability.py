"""Do a model's topics come back when it is trained again with another seed?  (issue 13)

For each collection, number of topics and system, the model is trained once per seed as
``quality.py`` trains it (the engine at its defaults; tomotopy's collapsed Gibbs sampler on one
thread for the seconds the engine's LDA took with that seed).  Every pair of seeds is then
matched topic to topic by ``engine.match_topics`` (the assignment of least summed Hellinger
distance), and the script prints, over the pairs:

- the share of the topics that recur: they and their partners are each other's nearest topic
  (an HDP's topics in use, weight >= 0.01, matched among all its topics);
- how many of their 10 top words the recurring topics share with their partners, and how many
  the others share with theirs; the NPMI of the recurring topics and of the others (their top
  10 words in the training documents, as quality.py scores them);
- on the synthetic collection, the share of the 20 true topics each run recovers, by the same rule.

    NUMBA_NUM_THREADS=1 python benchmarks/stability.py --corpora sotu jargon --k 20 --seeds 0 1 2 3 4

``--systems`` takes ``engine-lda``, ``tomotopy-lda`` and ``engine-hdp``; ``--tomotopy-sweeps N``
runs the sampler for N sweeps instead of the engine's seconds; ``--engine-options`` gives the
engine's models other settings (tomotopy then runs for those runs' seconds).

``--consensus`` also splits the seeds into two halves and combines each half's runs with
``engine.consensus_topics`` (a topic found in more than half of the half's runs):

    NUMBA_NUM_THREADS=1 python benchmarks/stability.py --corpora sotu --seeds 0 1 2 3 4 5 6 7 8 9 --consensus

and prints, per system, the consensus topics of each half, the share of one half's found again
in the other's (both ways), against the same share for single runs of the two halves (every
pair across them), their NPMI and the held-out log likelihood of the consensus model
(``TopicConsensus.model()``) against the single runs', and the seconds combining took.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import engine
except ImportError:  # run from a checkout without installing it
    sys.path.insert(0, str(HERE.parent))
    import engine

import _report  # noqa: E402
import quality  # noqa: E402
from _quality_config import CACHE, IN_USE_WEIGHT, LIVE_SHARE, SHARED, SYNTHETIC  # noqa: E402
from _quality_panel import load_collection  # noqa: E402

SYSTEMS = ("engine-lda", "tomotopy-lda", "engine-hdp")


def considered(model, kind: str) -> np.ndarray:
    """The topics whose recurrence is asked: all of an LDA's, an HDP's topics in use."""
    if kind == "lda":
        return np.arange(model.n_topics)
    return np.flatnonzero(model.topic_weights() >= IN_USE_WEIGHT)


def pair_figures(models: list, kind: str, reference: engine.CoherenceReference) -> dict:
    """Recurrence over every pair of seeds (each pair once, from the lower seed's side), and the NPMI of
    the topics found again and of the others (each model's topics scored once)."""
    npmi = [reference.score_model(model) for model in models]
    shares, recurring_words, other_words, recurring_npmi, other_npmi = [], [], [], [], []
    for a, b in itertools.combinations(range(len(models)), 2):
        match = engine.match_topics(models[a], models[b])
        topics = considered(models[a], kind)
        recurring = match.recurring[topics]
        shares.append(match.n_recurring(topics) / max(1, topics.size))
        recurring_words += match.shared_words[topics][recurring].tolist()
        other_words += match.shared_words[topics][~recurring].tolist()
        recurring_npmi += npmi[a][topics][recurring].tolist()
        other_npmi += npmi[a][topics][~recurring].tolist()
    return {"recurring": np.array(shares), "recurring_words": np.array(recurring_words, dtype=float),
            "other_words": np.array(other_words, dtype=float), "recurring_npmi": np.array(recurring_npmi),
            "other_npmi": np.array(other_npmi)}


def live(model) -> np.ndarray:
    """The topics that take part in a consensus: those holding at least a quarter of an even share of the words."""
    return np.flatnonzero(model.word_shares() >= LIVE_SHARE / model.n_topics)


def consensus_figures(models: list, seconds: list[float], collection, reference: engine.CoherenceReference,
                      truth: np.ndarray | None) -> dict:
    """Two consensus models, one of each half of the runs, against the single runs of the two halves (their live
    topics, as ``engine.consensus_topics`` takes them)."""
    half = len(models) // 2
    halves = (models[:half], models[half:2 * half])
    made, took = [], []
    for runs in halves:
        start = time.perf_counter()
        consensus = engine.consensus_topics(runs)
        took.append(time.perf_counter() - start)
        made.append(consensus.model())
    across = [engine.match_topics(a, b) for a, b in ((made[0], made[1]), (made[1], made[0]))]
    singles = [engine.match_topics(a, b).recurring[live(a)].mean()
               for first, second in (halves, halves[::-1]) for a in first for b in second]
    topics = [live(model).size for model in models[:2 * half]]

    def loglik(model) -> float:
        return engine.predictive_log_likelihood(model, collection.observed, collection.heldout)

    return {"topics": [model.n_topics for model in made], "single_topics": np.array(topics, dtype=float),
            "recurring": np.array([match.recurring.mean() for match in across]),
            "single_recurring": np.array(singles),
            "npmi": np.array([reference.score_model(model).mean() for model in made]),
            "single_npmi": np.array([reference.score_model(model)[live(model)].mean()
                                     for model in models[:2 * half]]),
            "loglik": np.array([loglik(model) for model in made]),
            "single_loglik": np.array([loglik(model) for model in models[:2 * half]]),
            "truth": None if truth is None else truth_recovered(made, truth),
            "single_truth": None if truth is None else truth_recovered(models[:2 * half], truth),
            "combine_seconds": np.array(took), "train_seconds": float(np.sum(seconds[:half]))}


def truth_recovered(models: list, truth: np.ndarray) -> np.ndarray:
    """The share of the true topics each model recovers (matched from the truth's side)."""
    return np.array([engine.match_topics(truth, model).recurring.mean() for model in models])


def train_models(system: str, collection, K: int | None, seeds: list[int], cell, seconds: dict,
                 took: list | None = None) -> list:
    """The models of each seed; ``took`` (a list) gets each run's training seconds."""
    models = []
    for seed in seeds:
        if system == "tomotopy-lda" and cell.sweeps is None:
            cell.budget = seconds[(collection.name, K, seed)]
        trained = quality.train_system(system, collection, K, seed, cell)
        if system == "engine-lda":
            seconds[(collection.name, K, seed)] = trained.seconds
        models.append(trained.evaluator)
        if took is not None:
            took.append(trained.seconds)
        print(f"  {collection.name} {system} {'HDP' if K is None else f'K={K}'} seed {seed}: "
              f"{trained.seconds:.2f} s", file=sys.stderr, flush=True)
    return models


def spread(values: np.ndarray, digits: int = 2) -> str:
    if values.size == 0:
        return "-"
    return f"{values.mean():.{digits}f} ± {values.std(ddof=1) if values.size > 1 else 0.0:.{digits}f}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpora", nargs="+", default=["sotu", "jargon", "synthetic"])
    p.add_argument("--k", type=int, nargs="+", default=[20])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=SYSTEMS)
    p.add_argument("--engine-options", type=json.loads, default={},
                   help="JSON keyword arguments for engine.LDA / engine.HDP, e.g. '{\"topic_init\": \"clusters\"}'")
    p.add_argument("--tomotopy-sweeps", type=int, help="sweeps of tomotopy's sampler (default: the engine's seconds)")
    p.add_argument("--consensus", action="store_true",
                   help="also combine each half of the seeds' runs (engine.consensus_topics) and compare the halves")
    p.add_argument("--shared", type=Path, default=SHARED)
    p.add_argument("--cache", type=Path, default=CACHE)
    args = p.parse_args(argv)
    if len(args.seeds) < 2:
        p.error("--seeds needs at least two seeds to compare")
    if args.consensus and len(args.seeds) < 4:
        p.error("--consensus needs at least four seeds: two runs to combine in each half")
    if "tomotopy-lda" in args.systems and "engine-lda" not in args.systems and args.tomotopy_sweeps is None:
        p.error("tomotopy-lda trains for the engine's seconds: add engine-lda to --systems")
    print(_report.warm_up(["float32", "float64"], cold=False), flush=True)
    cell = quality.Cell(args.epochs, 1, args.engine_options, {}, sweeps=args.tomotopy_sweeps)
    seconds: dict = {}
    rows, combined = [], []
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        for name in args.corpora:
            collection, why = load_collection(name, args)
            if collection is None:
                print(why, file=sys.stderr)
                continue
            quality.warm_up(collection, cell, [s for s in args.systems if s.startswith("engine-")])
            truth = engine.make_synthetic_corpus(**SYNTHETIC).topics if name == "synthetic" else None
            cells = [(s, K) for K in args.k for s in args.systems if s != "engine-hdp"]
            cells += [("engine-hdp", None)] if "engine-hdp" in args.systems else []
            for system, K in cells:
                took: list[float] = []
                models = train_models(system, collection, K, args.seeds, cell, seconds, took)
                kind = "hdp" if system == "engine-hdp" else "lda"
                figures = pair_figures(models, kind, collection.prepared("coherence"))
                recovered = truth_recovered(models, truth) if truth is not None else None
                rows.append((name, "HDP" if K is None else K, system, figures, recovered))
                if args.consensus and system.startswith("engine-"):
                    combined.append((name, "HDP" if K is None else K, system,
                                     consensus_figures(models, took, collection, collection.prepared("coherence"),
                                                       truth)))
    print(f"\ncommand: python {' '.join([sys.argv[0], *(argv or sys.argv[1:])])}")
    print(f"{len(args.seeds)} seeds, {len(args.seeds) * (len(args.seeds) - 1) // 2} pairs of them; a topic "
          "recurs when it and its partner are each other's nearest topic (engine.match_topics); the ± of the "
          "shared words and of NPMI is the sd over the topics of all pairs\n")
    print("| collection | K | system | topics recurring (± sd over pairs) | top 10 words shared: recurring "
          "| the others | NPMI: recurring | the others | true topics recovered |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, K, system, figures, recovered in rows:
        truth = "" if recovered is None else spread(recovered)
        print(f"| {name} | {K} | {system} | {spread(figures['recurring'])} | {spread(figures['recurring_words'], 1)} "
              f"| {spread(figures['other_words'], 1)} | {spread(figures['recurring_npmi'], 3)} "
              f"| {spread(figures['other_npmi'], 3)} | {truth} |")
    if combined:
        half = len(args.seeds) // 2
        print(f"\nconsensus: the runs of seeds {args.seeds[:half]} and of {args.seeds[half:2 * half]} each combined "
              "by engine.consensus_topics (topics found in more than half of them); single runs: their live topics "
              "(share of the words >= 0.25 / K, as the consensus takes them), every pair across the halves, both "
              "ways; ± is the sd\n")
        print("| collection | K | system | consensus topics | single runs' live topics | found again in the other "
              "half: consensus | single runs | NPMI: consensus | single runs | held-out LL: consensus | single runs "
              "| true topics recovered: consensus | single runs | seconds: combining | training the half |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name, K, system, f in combined:
            truth = ("", "") if f["truth"] is None else (spread(f["truth"]), spread(f["single_truth"]))
            print(f"| {name} | {K} | {system} | {f['topics'][0]}, {f['topics'][1]} | {spread(f['single_topics'], 0)} "
                  f"| {spread(f['recurring'])} "
                  f"| {spread(f['single_recurring'])} | {spread(f['npmi'], 3)} | {spread(f['single_npmi'], 3)} "
                  f"| {spread(f['loglik'], 3)} | {spread(f['single_loglik'], 3)} | {truth[0]} | {truth[1]} "
                  f"| {f['combine_seconds'].mean():.2f} | {f['train_seconds']:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
