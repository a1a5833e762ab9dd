"""Write a shared corpus again with another test split: the same documents, other test documents.

A shared corpus's held-out score rests on its one test split; on a small collection (the
Jargon File: 230 test documents, 1,646 held-out words) a few long test documents can decide a
comparison (RESULTS.md run 30).  This script puts the training and test documents back
together in their original order (``split.json``'s indices) and splits them again by the same
rule with another seed (``engine.heldout_split``: as many test documents, each test document's
word types held out 20 % at random, disjoint from the observed ones), so a comparison can be
repeated on several test sets:

    python benchmarks/resplit.py ../shared/corpora/jargon /tmp/jargon-s1 --seed 1
    python benchmarks/quality.py --folder jargon-s1=/tmp/jargon-s1 --systems engine-hdp ...

It writes ``train.npz``, ``test.npz``, ``test_obs.npz``, ``test_ho.npz`` (CSR counts),
``vocab.txt`` and ``split.json`` into OUTPUT, which must not exist yet (the files are written
into a temporary folder beside it, then renamed into place).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
try:
    import engine
except ImportError:  # a plain checkout: the project root is the parent of this folder
    sys.path.insert(0, str(HERE.parent))
    import engine

HELDOUT_FRACTION = 0.2  # each test document's word types held out, as in the shared corpora's split.json


def documents(source: Path) -> tuple[sp.csr_matrix, int]:
    """The source's training and test documents together, in their original order, and how many it tests."""
    train, test = sp.load_npz(source / "train.npz").tocsr(), sp.load_npz(source / "test.npz").tocsr()
    split = json.loads((source / "split.json").read_text(encoding="utf-8"))
    train_idx, test_idx = np.asarray(split["train_idx"]), np.asarray(split["test_idx"])
    if (len(train_idx), len(test_idx)) != (train.shape[0], test.shape[0]):
        raise ValueError(f"{source}: split.json names {len(train_idx)} training and {len(test_idx)} test documents; "
                         f"train.npz and test.npz hold {train.shape[0]} and {test.shape[0]}")
    order = np.argsort(np.concatenate([train_idx, test_idx]), kind="stable")
    return sp.vstack([train, test], format="csr")[order], test.shape[0]


def resplit(source: Path, output: Path, seed: int) -> dict:
    """Write ``source``'s documents split again with ``seed`` into ``output``; the new split's sizes."""
    if output.exists():
        raise FileExistsError(f"{output} exists: name a new folder")
    counts, n_test = documents(source)
    split = engine.heldout_split(counts, n_test=n_test, seed=seed, heldout_fraction=HELDOUT_FRACTION)
    output.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output.name}-", dir=output.parent))
    try:
        sp.save_npz(work / "train.npz", split.train)
        sp.save_npz(work / "test.npz", counts[split.test_indices])
        sp.save_npz(work / "test_obs.npz", split.observed)
        sp.save_npz(work / "test_ho.npz", split.heldout)
        shutil.copyfile(source / "vocab.txt", work / "vocab.txt")
        (work / "split.json").write_text(json.dumps({
            "source": f"{source} split again by benchmarks/resplit.py; the indices count its training and test "
                      "documents together in their original order, not the entries of its source", "split_seed": seed,
            "heldout_fraction": HELDOUT_FRACTION, "train_idx": split.train_indices.tolist(),
            "test_idx": split.test_indices.tolist()}), encoding="utf-8")
        work.rename(output)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return {"train_docs": split.train.shape[0], "test_docs": split.observed.shape[0],
            "heldout_words": int(split.heldout.sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="a shared corpus folder (train.npz, test.npz, split.json, vocab.txt)")
    parser.add_argument("output", type=Path, help="the new folder to write")
    parser.add_argument("--seed", type=int, required=True, help="the new split's seed")
    args = parser.parse_args()
    try:
        sizes = resplit(args.source, args.output, args.seed)
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"resplit.py: {error}")
    print(f"{args.output}: {sizes['train_docs']} training and {sizes['test_docs']} test documents, "
          f"{sizes['heldout_words']} held-out words (seed {args.seed})")


if __name__ == "__main__":
    main()
