"""Regenerate sample_data/synthetic/ from engine.data.synthetic.

    python sample_data/make_synthetic.py            # writes sample_data/synthetic/
    python sample_data/make_synthetic.py OUT_DIR    # writes elsewhere

Files written (UTF-8, "\\n" line ends):

- documents.csv   id,title,text,true_topic  (true_topic = the topic with the largest
                  true proportion in the document; the text is what a user loads)
- doc_topics.csv  id, then one column per topic: the true proportions theta_d
- topics.json     the generator's parameters, the vocabulary, the true topics beta
                  (one row per topic, over the vocabulary) and their top words

The same parameters and the same NumPy version give byte-identical files
(topics.json records the NumPy version used).
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np

from engine.data.synthetic import make_synthetic_corpus

PARAMETERS = {
    "n_docs": 1000,
    "n_topics": 8,
    "n_words": None,
    "doc_length": 60.0,
    "alpha": 0.125,
    "eta": 0.01,
    "seed": 0,
    "readable": True,
}

DEFAULT_OUT = Path(__file__).resolve().parent / "synthetic"


def build(out_dir: Path) -> None:
    """Draw the sample corpus and write its three files into ``out_dir``."""
    corpus = make_synthetic_corpus(**PARAMETERS)
    out_dir.mkdir(parents=True, exist_ok=True)
    ids = corpus.doc_ids

    with open(out_dir / "documents.csv", "w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["id", "title", "text", "true_topic"])
        for i, (doc_id, text, topic) in enumerate(
            zip(ids, corpus.texts(), corpus.dominant_topics(), strict=True), start=1
        ):
            writer.writerow([doc_id, f"Synthetic document {i}", text, topic])

    with open(out_dir / "doc_topics.csv", "w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["id", *corpus.topic_names])
        for doc_id, row in zip(ids, corpus.doc_topic, strict=True):
            writer.writerow([doc_id, *(f"{p:.6f}" for p in row)])

    description = {
        "generator": "engine.make_synthetic_corpus",
        "parameters": PARAMETERS,
        "numpy_version": np.__version__,
        "n_docs": corpus.n_docs,
        "n_words": corpus.n_words,
        "n_tokens": int(corpus.counts.sum()),
        "topic_names": list(corpus.topic_names),
        "top_words": dict(zip(corpus.topic_names, corpus.top_words(10), strict=True)),
        "vocabulary": list(corpus.vocabulary),
        "topics": [[float(f"{p:.6g}") for p in row] for row in corpus.topics],
    }
    with open(out_dir / "topics.json", "w", encoding="utf-8", newline="\n") as file:
        json.dump(description, file, indent=1)
        file.write("\n")


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)
