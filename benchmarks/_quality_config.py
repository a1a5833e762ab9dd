"""The quality benchmark's settings and the issue-13 targets, shared by its modules."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared"
CACHE = HERE / ".cache"
DEFAULT_OUT = HERE / "results" / "quality.jsonl"
SHARED_CORPORA = ("ap", "foldoc", "sotu", "jargon")
PANEL = (*SHARED_CORPORA, "bible", "synthetic")
# built at run time too; no default was chosen on them (--corpora ...)
CHECK_COLLECTIONS = ("fortunes", "manpages", "verses", "packages", "docstrings", "manpages-de", "manpages-fr",
                     "manpages-zh", "manpages-ja", "dictionary", "devil", "changelog-entries")
SYSTEMS = ("engine-lda", "engine-hdp", "tomotopy-lda", "tomotopy-hdp", "gensim-lda", "gensim-hdp", "sklearn-lda")
HDP_SYSTEMS = ("engine-hdp", "tomotopy-hdp", "gensim-hdp")
HDP_TRUNCATION, HDP_DOC_TRUNCATION = 150, 20  # engine.HDP(n_topics=150, doc_truncation=20), the defaults
N_TOP = 10  # top words per topic for NPMI
N_LARGEST = 5  # npmi_largest: the mean NPMI of this many topics of largest weight, whatever the number in use
LIVE_SHARE = 0.25  # an LDA topic is live when its share of the words is >= LIVE_SHARE / K
IN_USE_WEIGHT, COVERING_MASS = 0.01, 0.95  # HDP topics in use: weight >= 0.01; topics covering 95 %
# a topic within engine.GENERAL_DIVERGENCE (Jensen-Shannon, nats) of the overall word use repeats the collection's
# common words instead of a theme (model.general_topics(); the explorer flags it at the same line)
EVAL_TOL = 1e-3  # local_tol of every HDP's held-out fits, whatever it was trained with
EVAL_LOCAL_UPDATE = "zero_order"  # the fold-in that scores every LDA (the engine's default until run 46)
TEST_FRACTION, HELDOUT_FRACTION, SPLIT_SEED = 0.1, 0.2, 0  # the split of the built collections
SYNTHETIC = {"n_docs": 2000, "n_topics": 20, "seed": 0, "readable": False}  # V = 500, 60 words a document

# targets (issue 13)
LIVE_TARGET_K, LIVE_TARGET_FRACTION = (10, 20, 50), 0.9
VS_TOMOTOPY_K = (20, 50)
HDP_VS_LDA_K = (10, 20, 50, 100)
HDP_IN_USE_RANGE = (5, HDP_TRUNCATION // 2)  # between 5 and 0.5 x truncation
HDP_STABLE_CV = 0.2  # "stable across seeds": std of topics in use over seeds <= 20 % of their mean
