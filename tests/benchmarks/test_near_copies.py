"""benchmarks/near_copies.py: the near-copies it plants, the share of a topic's words from the marked texts, and
the changelog entries it reads (benchmarks/_quality_panel.py)."""

from __future__ import annotations

import gzip
import importlib.util
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import engine

_BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
_SPEC = importlib.util.spec_from_file_location("near_copies_benchmark", _BENCHMARKS / "near_copies.py")
near_copies = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(near_copies)
sys.path.insert(0, str(_BENCHMARKS))
import _quality_panel  # noqa: E402


def test_a_planted_near_copy_replaces_one_run_of_words_with_as_many_of_another_text():
    text = " ".join(f"w{i}" for i in range(200))
    other = " ".join(f"x{i}" for i in range(50))
    for seed in range(5):
        copy = near_copies.near_copy(text, other, 0.05, np.random.default_rng(seed)).split()
        assert len(copy) == 200
        changed = [i for i, word in enumerate(copy) if word != f"w{i}"]
        assert len(changed) == 10 and changed == list(range(changed[0], changed[0] + 10))  # one run of 10
        assert all(word.startswith("x") for word in (copy[i] for i in changed))
        # 10 words in one run change 14 of the 196 runs of five words: 182 shared of 210
        found = engine.find_near_copies([text, " ".join(copy)], 0.8)
        assert found.first.tolist() == [0, 0] and found.similarity[1] == 182 / 210
    # a donor shorter than the run gives what it has
    assert near_copies.near_copy("a b c d e f g h i j", "z", 0.3, np.random.default_rng(0)).split().count("z") == 1


def test_the_largest_share_of_a_topics_words_from_the_marked_rows():
    class Fixed:  # a model whose proportions are given
        def transform(self, counts):
            return np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])

    counts = sp.csr_matrix(np.array([[2, 0], [1, 1], [0, 4]]))
    # topic 0: 2 words (doc 0) + 1 (doc 1); topic 1: 1 (doc 1) + 4 (doc 2); marked: docs 1 and 2
    assert near_copies.largest_share(Fixed(), counts, np.array([1, 2])) == 1.0
    assert near_copies.largest_share(Fixed(), counts, np.array([1])) == 1 / 3


def test_changelog_entries_are_read_one_text_each_as_the_files_hold_them(tmp_path):
    entry = ("{pkg} ({version}) unstable; urgency=medium\n\n  * {change}\n\n"
             " -- A Maintainer <a@example.org>  Mon, 01 Jan 2024 10:00:00 +0000\n")
    for pkg, versions in (("alpha", ("1.1-1", "1.0-1")), ("beta", ("2.0-1",))):
        (tmp_path / pkg).mkdir()
        with gzip.open(tmp_path / pkg / "changelog.Debian.gz", "wt", encoding="utf-8") as file:
            file.write("\n".join(entry.format(pkg=pkg, version=v, change=f"Release {v}; see (#1)") for v in versions))
    texts, where = _quality_panel.changelog_entries(str(tmp_path / "*" / "changelog.Debian.gz"))
    assert [text.split("\n")[0] for text in texts] == ["alpha (1.1-1) unstable; urgency=medium",
                                                        "alpha (1.0-1) unstable; urgency=medium",
                                                        "beta (2.0-1) unstable; urgency=medium"]
    assert all(text.endswith("+0000") and "* Release" in text for text in texts)
    assert where.startswith("2 files ")
