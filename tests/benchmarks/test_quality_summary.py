"""The quality benchmark's summary and target logic, on hand-made results (no training, no peers)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import engine

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "quality.py"
_SPEC = importlib.util.spec_from_file_location("quality_benchmark", _PATH)
quality = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = quality  # dataclasses look their module up there
_SPEC.loader.exec_module(quality)

SEEDS = (0, 1, 2)
COLLECTION = {"train_docs": 90, "test_docs": 10, "n_words": 50, "train_tokens": 900, "heldout_tokens": 40}


def cell(system, corpus, k, seed, label=None, **fields):
    base = system
    kind = "hdp" if base in quality.HDP_SYSTEMS else "lda"
    record = {
        "system": quality.system_name(system, label),
        "base": base,
        "label": label if base.startswith("engine-") else None,
        "kind": kind,
        "corpus": corpus,
        "k": k,
        "seed": seed,
        "epochs": 10,
        "options": {},
        "heldout_loglik": -8.0,
        "npmi": 0.1,
        "seconds": 1.0,
        "docs_per_second": 900.0,
        "collection": COLLECTION,
        "command": "python benchmarks/quality.py --epochs 10",
        "source": "commit abc1234",
        "versions": {"numpy": "2.0"},
    }
    if kind == "lda":
        record.update(live_topics=k, live_fraction=1.0, min_share=0.5 / k)
    else:
        record.update(topics_in_use=20, topics_covering=25, truncation=150)
    record.update(fields)
    return record


def passing_panel(corpora=quality.PANEL) -> list[dict]:
    """Every target met: all topics live, the engine ahead of every peer, the HDP ahead of every LDA."""
    records = []
    for corpus in corpora:
        for seed in SEEDS:
            for k in (10, 20, 50, 100):
                records.append(cell("engine-lda", corpus, k, seed, heldout_loglik=-8.0 - k / 1000, npmi=0.12))
                records.append(cell("tomotopy-lda", corpus, k, seed, heldout_loglik=-8.2, npmi=0.10, sweeps=40))
            records.append(cell("engine-hdp", corpus, None, seed, heldout_loglik=-7.9, topics_in_use=20 + seed))
            records.append(cell("gensim-hdp", corpus, None, seed, heldout_loglik=-8.1))
            records.append(cell("tomotopy-hdp", corpus, None, seed, heldout_loglik=-8.05, truncation=None))
    return records


def verdicts(lines: list[str]) -> list[str]:
    """The overall verdict of targets 1, 2 and 3 (the numbered lines), in order."""
    return [line.rsplit(": ", 1)[1] for line in lines if line[:2] in ("1.", "2.", "3.")]


def replace(records, match, **fields):
    return [{**r, **fields} if all(r[k] == v for k, v in match.items()) else r for r in records]


def test_every_target_passes_on_a_passing_panel():
    assert verdicts(quality.targets(passing_panel())) == ["PASS", "PASS", "PASS"]


def test_a_missing_collection_makes_every_target_incomplete():
    lines = quality.targets(passing_panel(quality.PANEL[:-1]))
    assert verdicts(lines) == ["INCOMPLETE"] * 3
    assert any("no results for synthetic" in line for line in lines)


def test_one_seed_below_90_percent_live_fails_target_1_only():
    records = replace(
        passing_panel(),
        {"system": "engine-lda", "corpus": "ap", "k": 20, "seed": 1},
        live_topics=17,
        live_fraction=0.85,
    )
    lines = quality.targets(records)
    assert verdicts(lines) == ["FAIL", "PASS", "PASS"]
    assert any("ap: " in line and "K=20 min 17/20" in line and line.endswith("FAIL") for line in lines)


def test_live_topics_at_k_100_do_not_count_for_target_1():
    records = replace(passing_panel(), {"system": "engine-lda", "k": 100}, live_topics=50, live_fraction=0.5)
    assert verdicts(quality.targets(records))[0] == "PASS"


def test_target_2_compares_means_over_the_seeds_both_systems_ran():
    # tomotopy ahead in one seed but behind on the mean: passes; lower mean NPMI: fails
    records = replace(
        passing_panel(), {"system": "tomotopy-lda", "corpus": "sotu", "k": 50, "seed": 0}, heldout_loglik=-7.9
    )
    assert verdicts(quality.targets(records))[1] == "PASS"
    records = replace(records, {"system": "tomotopy-lda", "corpus": "sotu", "k": 50}, npmi=0.13)
    lines = quality.targets(records)
    assert verdicts(lines)[1] == "FAIL"
    assert any(line.startswith("  - sotu K=50") and line.endswith("FAIL") for line in lines)
    # an extra tomotopy seed the engine lacks is left out of the means
    extra = cell("tomotopy-lda", "sotu", 50, 7, heldout_loglik=0.0, npmi=-1.0)
    assert verdicts(quality.targets([*passing_panel(), extra]))[1] == "PASS"


def test_target_3_needs_the_hdp_above_the_best_lda_over_k():
    records = replace(passing_panel(), {"system": "engine-lda", "corpus": "bible", "k": 50}, heldout_loglik=-7.8)
    lines = quality.targets(records)
    assert verdicts(lines)[2] == "FAIL"
    assert any("bible" in line and "vs best LDA (K=50)" in line for line in lines)


def test_target_3_is_incomplete_without_every_k_unless_it_already_fails():
    records = [r for r in passing_panel() if not (r["system"] == "engine-lda" and r["k"] == 100)]
    assert verdicts(quality.targets(records))[2] == "INCOMPLETE"
    records = replace(records, {"system": "gensim-hdp", "corpus": "ap"}, heldout_loglik=-7.0)
    assert verdicts(quality.targets(records))[2] == "FAIL"


@pytest.mark.parametrize(
    ("in_use", "verdict"),
    [((4, 20, 20), "FAIL"), ((20, 76, 20), "FAIL"), ((10, 20, 30), "FAIL"), ((19, 20, 22), "PASS")],
)
def test_target_3_topics_in_use_within_5_and_75_and_stable(in_use, verdict):
    records = passing_panel()
    for seed, n in zip(SEEDS, in_use, strict=True):
        records = replace(records, {"system": "engine-hdp", "corpus": "jargon", "seed": seed}, topics_in_use=n)
    assert verdicts(quality.targets(records))[2] == verdict


def test_an_engine_variant_gets_its_own_targets():
    variant = [
        {**r, "system": r["base"] + ":zo", "label": "zo", "live_topics": 1, "live_fraction": 0.1}
        for r in passing_panel()
        if r["base"] == "engine-lda"
    ]
    lines = quality.targets(passing_panel() + variant)
    assert "### engine-lda and engine-hdp" in lines
    assert "### engine-lda:zo and engine-hdp" in lines  # an LDA-only variant: the default HDP beside it
    assert verdicts(lines)[:3] == ["PASS", "PASS", "PASS"]
    assert verdicts(lines)[3] == "FAIL"


def test_summary_starts_with_the_commands_and_shows_each_system(tmp_path):
    records = passing_panel(("jargon",))
    text = quality.summary(records, "python benchmarks/quality.py summarize out.jsonl")
    head = text.splitlines()[:4]
    assert head[2] == "command: python benchmarks/quality.py summarize out.jsonl"
    assert head[3] == "run: python benchmarks/quality.py --epochs 10"
    assert "| engine-lda | 3 | -8.0200 ± 0.0000 | 0.1200 ± 0.0000 | 20.0 ± 0.0 (min 20) |" in text
    assert "| engine-hdp | 3 | -7.9000 ± 0.0000 |" in text and "| 20 / 21 / 22 |" in text


def test_read_records_keeps_the_last_record_of_a_cell_and_skips_a_torn_line(tmp_path, capsys):
    path = tmp_path / "q.jsonl"
    first, again = cell("engine-lda", "ap", 10, 0), cell("engine-lda", "ap", 10, 0, heldout_loglik=-7.5)
    other = cell("engine-lda", "ap", 20, 0)
    path.write_text("\n".join(json.dumps(r) for r in (first, other, again)) + '\n{"system": "engine-l')
    records = quality.read_records([path])
    assert sorted((r["k"], r["heldout_loglik"]) for r in records) == [(10, -7.5), (20, -8.0)]
    assert "is not a JSON record" in capsys.readouterr().err


def test_a_subsampled_collection_keeps_the_test_documents_and_is_judged_apart():
    """--train-docs N: N of the training rows, the same test halves and vocabulary, a name of its own."""
    import numpy as np
    import scipy.sparse as sp
    from _quality_panel import Collection

    train = sp.csr_matrix(np.arange(1, 61, dtype=float).reshape(20, 3))
    observed, heldout = sp.csr_matrix(np.ones((4, 3))), sp.csr_matrix(np.full((4, 3), 2.0))
    small = Collection("sotu", train, observed, heldout, "shared").subsample(7)
    assert small.name == "sotu:7" and small.train.shape == (7, 3)
    rows = {tuple(row) for row in train.toarray()}
    assert len({tuple(row) for row in small.train.toarray()} & rows) == 7  # distinct rows of the original
    assert small.observed is observed and small.heldout is heldout
    assert Collection("sotu", train, observed, heldout, "shared").subsample(7).train.toarray().tolist() == \
        small.train.toarray().tolist()  # drawn once: the same rows every run
    with pytest.raises(ValueError, match="cannot keep 20"):
        Collection("sotu", train, observed, heldout, "shared").subsample(20)
    records = passing_panel(("jargon",)) + [cell("engine-hdp", "sotu:7", None, s, topics_in_use=1) for s in SEEDS]
    assert quality.targets(records) == quality.targets(passing_panel(("jargon",)))  # not a panel collection


def _hdp_column(engine_fields: dict, heading: str) -> dict[str, str]:
    """The HDP table's ``heading`` column, per system: the engine's HDP with ``engine_fields`` over the seeds
    (each a function of the seed), and gensim's recorded before any of these columns existed."""
    records = [cell("engine-hdp", "ap", None, seed, **{k: f(seed) for k, f in engine_fields.items()})
               for seed in SEEDS]
    records += [cell("gensim-hdp", "ap", None, seed) for seed in SEEDS]
    text = quality.summary(records, "python benchmarks/quality.py summarize out.jsonl")
    [header] = [line for line in text.splitlines() if heading in line]
    column = header.split("|").index(f" {heading} ")
    return {line.split("|")[1].strip(): line.split("|")[column].strip()
            for line in text.splitlines() if line.startswith("| engine-hdp") or line.startswith("| gensim-hdp")}


def test_the_hdp_table_shows_each_seeds_share_of_words_in_general_topics():
    fields = {"general_topics": lambda seed: 3 * seed, "general_share": lambda seed: 0.25 * seed}
    assert _hdp_column(fields, "words in general topics") == {"engine-hdp": "0% / 25% / 50%", "gensim-hdp": "-"}


def test_the_hdp_table_shows_the_npmi_of_the_largest_topics_where_recorded():
    fields = {"npmi_largest": lambda seed: 0.1 + 0.1 * seed}
    assert _hdp_column(fields, "NPMI (5 largest)") == {"engine-hdp": "0.2000 ± 0.1000", "gensim-hdp": "-"}


def test_the_benchmark_and_the_explorer_draw_the_same_lines():
    from engine.inference import quality as engine_quality
    from explorer import quality as explorer_quality

    assert quality.GENERAL_DIVERGENCE is engine.GENERAL_DIVERGENCE
    # the explorer reads the engine's TopicQuality: general below the benchmark's line, live as it counts them
    line = quality.GENERAL_DIVERGENCE
    measured = engine.TopicQuality(np.array([0.5, 0.3, 0.2]), np.ones(3, bool), None, hdp=True,
                                   divergence=np.array([line * 0.99, line, line * 1.01]))
    assert measured.general.tolist() == [True, False, False]
    assert [bool(explorer_quality.flags(measured, k)) for k in range(3)] == [True, False, False]
    assert (quality.LIVE_SHARE, quality.IN_USE_WEIGHT) == (engine_quality.LIVE_SHARE, engine_quality.IN_USE_WEIGHT)
    assert quality.N_TOP == engine.COHERENCE_TOP_WORDS == explorer_quality.N_TOP


def test_merge_general_is_a_labelled_variant_recorded_in_its_options():
    with pytest.raises(SystemExit):
        quality.parse_run_args(["--merge-general"])  # a variant needs a --label
    args = quality.parse_run_args(["--merge-general", "--label", "merged", "--systems", "engine-hdp"])
    cell = quality.Cell(args.epochs, args.threads, args.engine_options, args.svi_options,
                        merge_general=args.merge_general)
    assert cell.options() == {"engine": {}, "svi": {}, "merge_general": True}
    plain = quality.Cell(10, 1, {}, {})
    assert plain.options() == {"engine": {}, "svi": {}}  # what the records before --merge-general hold


def test_score_records_the_hdp_through_both_fold_ins_and_lda_through_its_own():
    """heldout_loglik is the model's default fold-in; for an HDP the document sticks' score is kept beside it."""
    from _quality_panel import Collection

    corpus = engine.make_synthetic_corpus(n_docs=120, n_topics=4, n_words=40, seed=3, readable=False)
    train, observed, heldout = engine.heldout_split(corpus.counts, n_test=20, seed=0)
    collection = Collection("tiny", train, observed, heldout, "synthetic")
    hdp = engine.HDP(n_topics=8, doc_truncation=3, n_words=40, seed=0)
    engine.SVI(hdp, corpus=train, seed=0, batch_size=30).run(n_steps=8)
    record = quality.score(quality.engine_evaluator(hdp), "hdp", collection)
    evaluator = quality.engine_evaluator(hdp)
    assert evaluator.fold_in == "dirichlet" and record["evaluator"]["fold_in"] == "dirichlet"
    assert record["heldout_loglik"] == engine.predictive_log_likelihood(evaluator, observed, heldout)
    evaluator.fold_in = "sticks"
    assert record["heldout_loglik_sticks"] == engine.predictive_log_likelihood(evaluator, observed, heldout)
    assert record["heldout_loglik_sticks"] != record["heldout_loglik"]
    lda = engine.LDA(n_topics=4, n_words=40, seed=0)
    engine.SVI(lda, corpus=train, seed=0, batch_size=30).run(n_steps=8)
    assert "heldout_loglik_sticks" not in quality.score(quality.engine_evaluator(lda), "lda", collection)


def test_npmi_largest_is_the_mean_over_the_five_topics_of_largest_weight():
    """For LDA and the HDP alike: the 5 heaviest topics, picked here by a sort of our own, scored one by one."""
    from _quality_panel import Collection

    corpus = engine.make_synthetic_corpus(n_docs=150, n_topics=6, n_words=60, seed=4, readable=False)
    train, observed, heldout = engine.heldout_split(corpus.counts, n_test=20, seed=0)
    collection = Collection("tiny", train, observed, heldout, "synthetic")
    for model, kind in ((engine.LDA(n_topics=8, n_words=60, seed=1), "lda"),
                        (engine.HDP(n_topics=12, doc_truncation=4, n_words=60, seed=1), "hdp")):
        engine.SVI(model, corpus=train, seed=0, batch_size=30).run(n_steps=12)
        evaluator = quality.engine_evaluator(model)
        weights = [float(w) for w in evaluator.topic_weights()]
        heaviest = sorted(range(len(weights)), key=lambda k: -weights[k])[:5]
        each = engine.topic_coherence(evaluator, train, n_top=quality.N_TOP)
        record = quality.score(evaluator, kind, collection)
        assert record["npmi_largest"] == pytest.approx(sum(each[k] for k in heaviest) / 5, abs=1e-12)
        lightest = sorted(range(len(weights)), key=lambda k: weights[k])[:5]
        assert record["npmi_largest"] != pytest.approx(sum(each[k] for k in lightest) / 5, abs=1e-12)


def test_a_folder_in_the_shared_format_is_scored_under_its_own_name(tmp_path):
    """``--folder NAME=DIR`` adds a collection (e.g. from semisynthetic_split.py); without --corpora it runs alone."""
    import scipy.sparse as sp

    counts = engine.make_synthetic_corpus(n_docs=80, n_topics=3, seed=0).counts
    split = engine.heldout_split(counts, n_test=16, seed=0)
    folder = tmp_path / "small"
    folder.mkdir()
    for name, part in (("train", split.train), ("test_obs", split.observed), ("test_ho", split.heldout)):
        sp.save_npz(folder / f"{name}.npz", sp.csr_matrix(part))
    out = tmp_path / "results.jsonl"
    assert quality.main(["--folder", f"small={folder}", "--systems", "engine-lda", "--k", "3", "--seeds", "0",
                         "--epochs", "1", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["corpus"], r["k"]) for r in records] == [("small", 3)]
    assert records[0]["collection"]["train_docs"] == 64 and np.isfinite(records[0]["heldout_loglik"])
    with pytest.raises(SystemExit):
        quality.parse_run_args(["--folder", f"ap={folder}"])  # a panel name is taken


def test_tomotopy_run_for_fixed_sweeps_is_shown_apart_from_the_targets():
    args = quality.parse_run_args(["--systems", "tomotopy-lda", "--sweeps", "1000"])
    assert args.sweeps == 1000
    with pytest.raises(SystemExit):
        quality.parse_run_args(["--sweeps", "0"])
    # a converged tomotopy far ahead of the engine changes no verdict: the targets compare at equal seconds
    converged = [
        {**r, "system": quality.sweeps_name("tomotopy-lda", 1000), "label": "1000-sweeps", "heldout_loglik": -7.0,
         "npmi": 0.5, "sweeps": 1000, "budget_seconds": None}
        for r in passing_panel()
        if r["system"] == "tomotopy-lda"
    ]
    assert verdicts(quality.targets(passing_panel() + converged)) == ["PASS", "PASS", "PASS"]
    jargon = [r for r in converged if r["corpus"] == "jargon" and r["k"] == 20]
    text = quality.summary(passing_panel(("jargon",)) + jargon, "python benchmarks/quality.py summarize q")
    assert "| tomotopy-lda:1000-sweeps | 3 | -7.0000 ± 0.0000 | 0.5000 ± 0.0000 |" in text
    line = quality.progress_line({**converged[0], "seconds": 2.0, "docs_per_second": 45.0})
    assert line.endswith("2.00 s (45 docs/s, 1000 sweeps)")


def test_train_sweeps_starts_the_sampler_then_runs_exactly_that_many_sweeps():
    class Sampler:
        def __init__(self):
            self.calls = []

        def train(self, n, workers):
            self.calls.append((n, workers))

    sampler = Sampler()
    seconds = quality.train_sweeps(sampler, 250, workers=1)
    assert sampler.calls == [(0, 1), (250, 1)]
    assert seconds >= 0.0
