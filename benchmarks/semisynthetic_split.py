"""Write a larger collection in the shared corpora's format, drawn from LDA fitted to a real one.

For ``compare_hdp.py --corpus`` and ``compare_lda.py --corpus`` at sizes the shared
corpora do not reach (RESULTS.md run 36: the HDP's speed line on 40,000 documents):

1. fits the engine's default LDA with ``--n-topics`` topics to the source's training
   split (``--epochs`` passes, seed ``--seed``);
2. draws ``--n-docs`` documents from those topics and topic weights with the source's
   document lengths (:class:`engine.data.semisynthetic.SemiSyntheticGenerator`), drops
   empty ones;
3. splits off ``--n-test`` test documents into observed and held-out words with
   disjoint word types (``engine.heldout_split``, as in the paper) and writes
   ``train.npz``, ``test_obs.npz``, ``test_ho.npz`` (int32 CSR) and the source's
   ``vocab.txt`` to OUTPUT.

Example (about 10 s)::

    python benchmarks/semisynthetic_split.py /tmp/semi --n-docs 42000 --n-test 2000
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
try:
    import engine
except ImportError:  # a plain checkout: the project root is the parent of this folder
    sys.path.insert(0, str(HERE.parent))
    import engine
from engine.data.semisynthetic import SemiSyntheticGenerator  # noqa: E402  (after the sys.path fallback)

AP = HERE.parent.parent / "shared" / "corpora" / "ap"  # ../shared/corpora/ap beside the project root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path, help="folder to write train.npz, test_obs.npz, test_ho.npz to")
    parser.add_argument("--source", type=Path, default=AP, help="a folder with train.npz and vocab.txt")
    parser.add_argument("--n-docs", type=int, default=42_000, help="documents drawn, before the test split")
    parser.add_argument("--n-test", type=int, default=2_000)
    parser.add_argument("--n-topics", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=10, help="SVI passes of the fit over the source")
    parser.add_argument("--seed", type=int, default=0, help="the fit's and the split's seed (the draw uses seed + 1)")
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args()
    if args.output.exists() and any(args.output.iterdir()) and not args.overwrite:
        sys.exit(f"{args.output} is not empty: pass --overwrite to replace its files")
    if not (args.source / "train.npz").is_file():
        sys.exit(f"no train.npz in {args.source}: pass --source DIR")

    source = sp.load_npz(args.source / "train.npz").tocsr()
    model = engine.LDA(args.n_topics, source.shape[1], seed=args.seed)
    engine.SVI(model, source, seed=args.seed).run(n_docs=args.epochs * source.shape[0])
    lengths = np.asarray(source.sum(axis=1)).ravel()
    drawn = SemiSyntheticGenerator.from_model(model, lengths).counts(args.n_docs, seed=args.seed + 1)
    drawn = drawn.astype(np.int32)
    drawn = drawn[np.diff(drawn.indptr) > 0]
    split = engine.heldout_split(drawn, n_test=args.n_test, seed=args.seed)
    args.output.mkdir(parents=True, exist_ok=True)
    for name, part in (("train", split.train), ("test_obs", split.observed), ("test_ho", split.heldout)):
        sp.save_npz(args.output / f"{name}.npz", sp.csr_matrix(part, dtype=np.int32))
    if (args.source / "vocab.txt").is_file():
        shutil.copyfile(args.source / "vocab.txt", args.output / "vocab.txt")
    print(f"wrote {args.output}: {split.train.shape[0]:,} training documents, {args.n_test:,} test documents, "
          f"V = {drawn.shape[1]:,}, {int(drawn.sum()):,} tokens")


if __name__ == "__main__":
    main()
