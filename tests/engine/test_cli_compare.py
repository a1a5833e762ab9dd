"""``svi-topics compare``: which topics of one model file are found again in another."""

from __future__ import annotations

import numpy as np

import engine
from engine.cli import main
from engine.io.model_files import save_model


def _lda(topics: np.ndarray) -> engine.LDA:
    model = engine.LDA(n_topics=topics.shape[0], n_words=topics.shape[1], eta=0.01, seed=0)
    model.lambda_ = topics.astype(np.float64)
    return model


def _blocks() -> tuple[np.ndarray, list[str]]:
    """Three topics, each on its own block of four words, with a little of every word."""
    words = [f"{theme}{i}" for theme in ("tax", "war", "farm") for i in range(4)]
    topics = np.full((3, 12), 0.5)
    for k in range(3):
        topics[k, 4 * k:4 * k + 4] = [40, 30, 20, 10]
    return topics, words


def test_compare_names_each_topics_partner_word_by_word(tmp_path, capsys):
    topics, words = _blocks()
    first = save_model(tmp_path / "a.npz", _lda(topics), vocabulary=words, labels={1: "war\nand peace"})
    # the other file: two of the topics, in the other order, over the words in reverse order
    other = save_model(tmp_path / "b.npz", _lda(topics[[2, 0], ::-1]), vocabulary=words[::-1])
    assert main(["compare", str(first), str(other), "--n", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"# {first}: LDA, 3 topics, 12 words; {other}: LDA, 2 topics, 12 words"
    assert out[1] == (f"# 2 of the 3 topics are found again in {other} (each the closest topic of its partner, "
                      "both ways)")
    assert out[2].startswith("topic 0 (0.333) -> topic 1 (found again; 4 of 4 top words shared, distance 0.00): "
                             "tax0 tax1 tax2 tax3")
    assert out[3] == "     1: tax0 tax1 tax2 tax3"
    # a label from the file is shown on one line; the topic without a partner says so
    assert out[4] == "topic 1 (0.333) [war and peace] -> none (OTHER has fewer topics): war0 war1 war2 war3"
    assert out[5].startswith("topic 2 (0.333) -> topic 0 (found again; 4 of 4 top words shared")
    assert out[6] == "     0: farm0 farm1 farm2 farm3"


def test_compare_lists_an_hdps_topics_in_use_heaviest_first(tmp_path, capsys, planted_corpus):
    hdp = engine.HDP(n_topics=12, doc_truncation=4, n_words=planted_corpus.n_words, seed=0)
    engine.SVI(hdp, corpus=planted_corpus.counts, batch_size=50, seed=0).run(n_docs=2000)
    lda = engine.LDA(n_topics=5, n_words=planted_corpus.n_words, seed=0)
    engine.SVI(lda, corpus=planted_corpus.counts, batch_size=50, seed=0).run(n_docs=2000)
    first = save_model(tmp_path / "h.npz", hdp, vocabulary=planted_corpus.vocabulary)
    other = save_model(tmp_path / "l.npz", lda, vocabulary=planted_corpus.vocabulary)
    assert main(["compare", str(first), str(other)]) == 0
    out = capsys.readouterr().out.splitlines()
    in_use = np.flatnonzero(hdp.topic_weights() >= 0.01)
    assert out[1] == f"# 5 of the {in_use.size} topics in use are found again in {other} (each the closest topic " \
                     "of its partner, both ways)"
    listed = [int(line.split()[1]) for line in out[2:] if line.startswith("topic ")]
    assert sorted(listed) == sorted(in_use.tolist())
    assert listed == sorted(listed, key=lambda k: -hdp.topic_weights()[k])


def test_compare_refuses_files_it_cannot_line_up(tmp_path, capsys):
    topics, words = _blocks()
    first = save_model(tmp_path / "a.npz", _lda(topics))  # no vocabulary
    other = save_model(tmp_path / "b.npz", _lda(topics[:, :10]), vocabulary=words[:10])
    assert main(["compare", str(first), str(other)]) == 2
    assert capsys.readouterr().err == (
        f"error: {first} and {other} have 12 and 10 words, and {first} was saved without its vocabulary, so their "
        "words cannot be lined up; compare model files saved with their vocabulary ('fit' and the app save it)\n")
    assert main(["compare", str(first), str(first), "--n", "0"]) == 2
    assert "--n must be at least 1" in capsys.readouterr().err
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a model")
    assert main(["compare", str(junk), str(first)]) == 2
    assert capsys.readouterr().err.startswith("error: ")
