"""``svi-topics consensus``: the topics most of several model files find, printed and saved as one model."""

from __future__ import annotations

import numpy as np

import engine
from engine.cli import main
from engine.io.model_files import load_model, save_model


def _lda(topics: np.ndarray) -> engine.LDA:
    model = engine.LDA(n_topics=topics.shape[0], n_words=topics.shape[1], eta=0.01, seed=0)
    model.lambda_ = topics.astype(np.float64)
    return model


def _blocks() -> tuple[np.ndarray, list[str]]:
    """Four topics, each on its own block of four words, with a little of every word (songs with more of tax's)."""
    words = [f"{theme}{i}" for theme in ("tax", "war", "farm", "song") for i in range(4)]
    topics = np.full((4, 16), 0.5)
    for k in range(4):
        topics[k, 4 * k:4 * k + 4] = [40, 30, 20, 10]
    topics[3, :4] = 3.0  # no two distances tie, so no topic is another's nearest by the order of the rows
    return topics, words


def test_consensus_prints_each_topic_with_the_models_holding_it_and_saves_a_model(tmp_path, capsys):
    topics, words = _blocks()
    first = save_model(tmp_path / "a.npz", _lda(topics[:3]), vocabulary=words, labels={2: "farms\nand fields"})
    # the second: the same three themes in another order over the words reversed, the third: two of them and songs
    second = save_model(tmp_path / "b.npz", _lda(topics[[2, 0, 1], ::-1]), vocabulary=words[::-1])
    third = save_model(tmp_path / "c.npz", _lda(topics[[3, 0]] * 2), vocabulary=words)
    out_file = tmp_path / "consensus.npz"
    assert main(["consensus", str(first), str(second), str(third), "--n", "4", "--out", str(out_file)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# 3 topics found in at least 2 of the 3 models (LDA K=3, LDA K=3, LDA K=2)"
    # tax is found in all three, war and farm in two; the song topic of one model only is left out
    assert out[1].startswith("topic 0 (found in 3 of 3; share ") and out[1].endswith("spread 0.00): tax0 tax1 tax2 "
                                                                                     "tax3")
    assert out[2:5] == ["     model 1 topic 0: tax0 tax1 tax2 tax3", "     model 2 topic 1: tax0 tax1 tax2 tax3",
                        "     model 3 topic 1: tax0 tax1 tax2 tax3"]
    assert [line.split(":")[-1].strip() for line in out if line.startswith("topic ")] == [
        "tax0 tax1 tax2 tax3", "war0 war1 war2 war3", "farm0 farm1 farm2 farm3"]
    assert "     model 1 topic 2 [farms and fields]: farm0 farm1 farm2 farm3" in out  # a label on one line
    assert out[-1] == f"# wrote {out_file}: an LDA of the 3 consensus topics"
    saved = load_model(out_file)
    assert isinstance(saved.model, engine.LDA) and saved.model.n_topics == 3
    assert list(saved.vocabulary) == words  # the first model's order
    assert saved.model.top_words(4, saved.vocabulary)[1] == ["war0", "war1", "war2", "war3"]
    assert saved.extra["consensus"]["models"] == ["a.npz", "b.npz", "c.npz"]
    assert saved.extra["consensus"]["members"][0] == [0, 1, 1]
    assert saved.trainer_state is None
    # at --min-runs 3 only the topic all three find is left: too few for a model
    assert main(["consensus", str(first), str(second), str(third), "--min-runs", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("# 1 topic found in at least 3 of the 3 models")
    assert main(["consensus", str(first), str(second), str(third), "--min-runs", "3", "--out",
                 str(tmp_path / "one.npz")]) == 2
    assert ("1 topic found in at least 3 of the models; a model needs two: lower --min-runs or combine models "
            "with more topics; nothing was written") in capsys.readouterr().err
    assert not (tmp_path / "one.npz").exists()


def test_consensus_of_trained_runs_keeps_their_preprocessing_for_infer(tmp_path, capsys):
    texts = [f"tax budget deficit spending {i % 3} farm crops harvest" if i % 2 else
             f"war army navy troops battle {i % 5} song music band" for i in range(60)]
    corpus = engine.Corpus.from_texts(texts, min_df=1)
    paths = []
    for seed in range(3):
        model = engine.LDA(n_topics=2, n_words=corpus.n_words, seed=seed)
        engine.SVI(model, corpus=corpus.counts, batch_size=20, seed=seed).run(n_docs=600)
        paths.append(str(save_model(tmp_path / f"m{seed}.npz", model, vocabulary=corpus.vocabulary,
                                    vectorizer=corpus.vectorizer)))
    out_file = tmp_path / "c.npz"
    assert main(["consensus", *paths, "--out", str(out_file)]) == 0
    capsys.readouterr()
    assert main(["infer", str(out_file), "--text", "the army and the navy"]) == 0
    row = capsys.readouterr().out.splitlines()[1].split(",")
    assert row[1:3] == ["2", "0"]  # army and navy: read as the runs read their texts, the stop words left out
    assert np.isclose(sum(float(x) for x in row[3:]), 1.0, atol=1e-5)


def test_consensus_refuses_what_it_cannot_combine(tmp_path, capsys):
    topics, words = _blocks()
    first = save_model(tmp_path / "a.npz", _lda(topics))  # no vocabulary
    other = save_model(tmp_path / "b.npz", _lda(topics[:, :12]), vocabulary=words[:12])
    assert main(["consensus", str(first), str(other)]) == 2
    assert capsys.readouterr().err == (
        f"error: the model files have 12, 16 words, and {first} was saved without its vocabulary, so their words "
        "cannot be lined up; combine model files saved with their vocabulary ('fit' and the app save it)\n")
    assert main(["consensus", str(first)]) == 2
    assert "at least two model files" in capsys.readouterr().err
    assert main(["consensus", str(first), str(first), "--out", str(first)]) == 2
    assert "is one of the model files being combined" in capsys.readouterr().err
    assert main(["consensus", str(first), str(first), "--min-runs", "3"]) == 2
    assert "--min-runs must be from 2 to the number of model files (2), got 3" in capsys.readouterr().err
    assert main(["consensus", str(first), str(first), "--min-runs", "1"]) == 2
    assert "--min-runs must be from 2 to the number of model files (2), got 1" in capsys.readouterr().err
    assert main(["consensus", str(first), str(first), "--n", "0"]) == 2
    assert "--n must be at least 1" in capsys.readouterr().err
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a model")
    assert main(["consensus", str(junk), str(first)]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_consensus_refuses_more_runs_than_the_limit(tmp_path, capsys):
    topics, words = _blocks()
    path = save_model(tmp_path / "a.npz", _lda(topics), vocabulary=words)
    assert main(["consensus", *[str(path)] * (engine.MAX_CONSENSUS_RUNS + 1)]) == 2
    assert "at most 20 are combined" in capsys.readouterr().err
