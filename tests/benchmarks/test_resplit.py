"""A shared corpus split again (benchmarks/resplit.py), on a small corpus written in the shared format."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "resplit.py"
_SPEC = importlib.util.spec_from_file_location("resplit_benchmark", _PATH)
resplit = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = resplit
_SPEC.loader.exec_module(resplit)


@pytest.fixture
def shared(tmp_path) -> tuple[Path, sp.csr_matrix]:
    """A corpus of 40 documents (row d holds word d % 7 d + 1 times, and three others) in the shared corpora's
    format: entries 5 and 17 of the source dropped (as empty ones are), every 8th of the rest a test document."""
    rng = np.random.default_rng(3)
    rows = []
    for d in range(40):
        row = np.zeros(12, dtype=np.int64)
        row[d % 7] = d + 1
        row[rng.choice(np.arange(7, 12), 3, replace=False)] += rng.integers(1, 4, 3)
        rows.append(row)
    counts = sp.csr_matrix(np.array(rows))
    entries = np.array([e for e in range(42) if e not in (5, 17)])  # the source's entry of each document
    test = np.arange(40) % 8 == 3
    folder = tmp_path / "corpus"
    folder.mkdir()
    sp.save_npz(folder / "train.npz", counts[~test])
    sp.save_npz(folder / "test.npz", counts[test])
    (folder / "vocab.txt").write_text("\n".join(f"w{i}" for i in range(12)) + "\n", encoding="utf-8")
    (folder / "split.json").write_text(json.dumps({"train_idx": entries[~test].tolist(),
                                                   "test_idx": entries[test].tolist()}), encoding="utf-8")
    return folder, counts


def _rows(matrix) -> list[tuple]:
    return sorted(tuple(row) for row in matrix.toarray().tolist())


def test_the_documents_come_back_in_their_original_order(shared):
    folder, counts = shared
    documents, n_test = resplit.documents(folder)
    assert (documents != counts).nnz == 0
    assert n_test == 5


def test_a_new_split_keeps_every_document_and_holds_out_disjoint_word_types(shared, tmp_path):
    folder, counts = shared
    sizes = resplit.resplit(folder, tmp_path / "s1", seed=1)
    out = tmp_path / "s1"
    train, test = sp.load_npz(out / "train.npz"), sp.load_npz(out / "test.npz")
    observed, heldout = sp.load_npz(out / "test_obs.npz"), sp.load_npz(out / "test_ho.npz")
    assert (train.shape[0], test.shape[0]) == (35, 5)  # as many test documents as the source's split
    assert _rows(sp.vstack([train, test])) == _rows(counts)  # every document once, none changed
    assert (observed + heldout != test).nnz == 0
    assert observed.multiply(heldout).nnz == 0  # no word type both observed and held out
    assert all(heldout[i].nnz >= 1 and observed[i].nnz >= 1 for i in range(5))
    assert sizes == {"train_docs": 35, "test_docs": 5, "heldout_words": int(heldout.sum())}
    split = json.loads((out / "split.json").read_text(encoding="utf-8"))
    assert split["split_seed"] == 1
    assert (counts[split["test_idx"]] != test).nnz == 0
    assert (out / "vocab.txt").read_text(encoding="utf-8") == (folder / "vocab.txt").read_text(encoding="utf-8")
    # another seed draws other test documents; the same seed the same ones
    resplit.resplit(folder, tmp_path / "s2", seed=2)
    resplit.resplit(folder, tmp_path / "s1-again", seed=1)
    test_of = {name: json.loads((tmp_path / name / "split.json").read_text(encoding="utf-8"))["test_idx"]
               for name in ("s1", "s2", "s1-again")}
    assert test_of["s1"] == test_of["s1-again"] != test_of["s2"]


def test_an_existing_folder_or_a_mismatched_split_is_refused_and_nothing_is_left_behind(shared, tmp_path):
    folder, _ = shared
    (tmp_path / "taken").mkdir()
    with pytest.raises(FileExistsError, match="exists"):
        resplit.resplit(folder, tmp_path / "taken", seed=1)
    split = json.loads((folder / "split.json").read_text(encoding="utf-8"))
    (folder / "split.json").write_text(json.dumps({**split, "test_idx": split["test_idx"][:-1]}), encoding="utf-8")
    with pytest.raises(ValueError, match="names 35 training and 4 test documents"):
        resplit.resplit(folder, tmp_path / "new", seed=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus", "taken"]
    done = subprocess.run([sys.executable, str(_PATH), str(folder), str(tmp_path / "new"), "--seed", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "names 35 training and 4 test documents" in done.stderr
