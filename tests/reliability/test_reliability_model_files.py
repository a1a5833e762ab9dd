"""Hostile model files (issue 15): declared sizes, expansion bombs, tampered metadata, a foreign vocabulary.

Every case asserts the specific error and that the check happens before the big
allocation (the crafted files are tiny; the limits make the would-be sizes explicit).
"""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

import engine
from engine.errors import LimitExceededError, ModelFileError, VocabularyMismatchError
from engine.io.model_files import load_model, metadata_text, save_model
from engine.limits import Limits


@pytest.fixture
def saved(tmp_path, planted_corpus):
    model = engine.LDA(n_topics=4, n_words=planted_corpus.n_words, seed=0)
    trainer = engine.SVI(model, planted_corpus.counts, batch_size=50, seed=0)
    trainer.run(n_steps=3)
    path = save_model(tmp_path / "model.npz", model, planted_corpus.vocabulary, trainer=trainer,
                      history=[engine.EvalPoint(3, 150, 0.5, -7.5, 0.4),
                               engine.SettingChange(2, 100, 0.3, "kappa", 0.9, 0.7)])
    return path, model, planted_corpus


def _arrays(path):
    with np.load(path, allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


def _rewrite(path, target, edit_meta=None, compress=False, **replace):
    arrays = _arrays(path) | replace
    if edit_meta is not None:
        meta = json.loads(metadata_text(arrays["metadata"]))
        edit_meta(meta)
        arrays["metadata"] = np.array(json.dumps(meta))
    with open(target, "wb") as file:
        (np.savez_compressed if compress else np.savez)(file, **arrays)
    return target


def test_declared_sizes_beyond_the_limits_fail_before_reading(saved, tmp_path):
    path, _, _ = saved

    def huge(meta):
        meta["params"]["n_topics"] = 100_000
        meta["params"]["n_words"] = 100_000  # lambda would be 10^10 cells, 80 GB

    crafted = _rewrite(path, tmp_path / "huge.npz", huge)
    with pytest.raises(LimitExceededError, match=r"array 'lambda'.*10,000,000,000.*SVI_TOPICS_MAX_DENSE_CELLS"):
        load_model(crafted)
    with pytest.raises(LimitExceededError, match="SVI_TOPICS_MAX_VOCABULARY"):
        load_model(crafted, limits=Limits(max_vocabulary=50_000))


def test_an_archive_that_expands_beyond_the_limit_is_refused(tmp_path, planted_corpus):
    model = engine.LDA(n_topics=50, n_words=40_000, seed=0)
    model.lambda_ = np.ones((50, 40_000))  # 16 MB of ones, a few KB compressed
    path = save_model(tmp_path / "plain.npz", model)
    bomb = _rewrite(path, tmp_path / "bomb.npz", compress=True)
    assert bomb.stat().st_size < 200_000
    with pytest.raises(LimitExceededError, match=r"expand to.*max_expanded_mb = 10.*SVI_TOPICS_MAX_EXPANDED_MB"):
        load_model(bomb, limits=Limits(max_expanded_mb=10))
    assert load_model(bomb).model.lambda_.shape == (50, 40_000)  # within the default limits it is a model


def test_a_zip_entry_whose_size_disagrees_with_its_header_is_refused(saved, tmp_path):
    path, model, _ = saved
    crafted = tmp_path / "short.npz"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(crafted, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "lambda.npy":
                data = data[: len(data) - 8 * model.n_words]  # one row of lambda missing
            target.writestr(info.filename, data)
    with pytest.raises(ModelFileError, match=r"array 'lambda' declares .* bytes but its header describes"):
        load_model(crafted)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m["history"][0].update(heldout_loglik=float("nan")), "holds NaN"),
        (lambda m: m["history"][0].update(seconds=float("inf")), "holds Infinity"),
        (lambda m: m["history"][0].update(rho=5.0), r"history entry 0 is invalid \(rho must be in \(0, 1\]"),
        (lambda m: m["history"][0].update(step=-1), "step and docs_seen must be whole numbers"),
        (lambda m: m["history"][0].update(heldout_loglik="high"), "heldout_loglik must be a finite number"),
        (lambda m: m["changes"][0].update(name="learning_rate"), "unknown setting 'learning_rate'"),
        (lambda m: m["changes"][0].update(new="fast"), "a kappa change must go between finite numbers"),
        (lambda m: m["vocabulary"].__setitem__(1, m["vocabulary"][0]), "lists a word twice"),
    ],
)
def test_tampered_metadata_is_refused_with_one_clear_message(saved, tmp_path, edit, message):
    path, _, _ = saved
    crafted = _rewrite(path, tmp_path / "tampered.npz", edit)
    with pytest.raises(ModelFileError, match=message):
        load_model(crafted)


def test_the_untampered_file_loads(saved):
    path, model, corpus = saved
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.model.lambda_, model.lambda_)
    assert loaded.history[0].heldout_loglik == -7.5 and loaded.changes[0].new == 0.7
    loaded.check_vocabulary(corpus.vocabulary)  # the same words: no error


def test_resuming_on_a_collection_with_other_words_of_the_same_number_is_refused(saved):
    path, _, corpus = saved
    loaded = load_model(path)
    other = list(corpus.vocabulary)
    other[3], other[7] = other[7], other[3]  # same words, two columns swapped
    with pytest.raises(VocabularyMismatchError, match=r"differ from the model's in 2 of .* columns \(column 3"):
        loaded.check_vocabulary(other)
    with pytest.raises(VocabularyMismatchError, match="has 5 words but the model was trained on"):
        loaded.check_vocabulary(corpus.vocabulary[:5])


_CATASTROPHIC = r"(x+x+)+y"  # backtracks for hours on "x" * 40


def _with_pattern(pattern):
    def edit(meta):
        meta["preprocessing"] = engine.Vectorizer(token_pattern=engine.TOKEN_PATTERN).to_dict()
        meta["preprocessing"]["token_pattern"] = pattern
    return edit


def test_a_token_pattern_read_from_a_model_file_must_be_one_the_project_writes(saved, tmp_path):
    path, _, _ = saved
    crafted = _rewrite(path, tmp_path / "redos.npz", _with_pattern(_CATASTROPHIC))
    with pytest.raises(ModelFileError, match=r"token_pattern '\(x\+x\+\)\+y' is not one this project writes.*"
                                             r"must be one of"):
        load_model(crafted)
    plain = _rewrite(path, tmp_path / "plain.npz", _with_pattern(engine.TOKEN_PATTERN))
    assert load_model(plain).model.vectorizer_.token_pattern == engine.TOKEN_PATTERN
    # given in Python, any pattern is the user's own choice, and their own file loads when they say so
    assert engine.Vectorizer(token_pattern=r"\S+").token_pattern == r"\S+"
    own = _rewrite(path, tmp_path / "own.npz", _with_pattern(r"\S+"))
    with pytest.raises(ModelFileError, match="trust_token_pattern=True"):
        load_model(own)
    assert load_model(own, trust_token_pattern=True).model.vectorizer_.token_pattern == r"\S+"


def test_a_token_pattern_read_from_a_saved_corpus_must_be_one_the_project_writes(tmp_path):
    folder = tmp_path / "corpus"
    engine.Corpus.from_texts(["apples and pears", "pears and plums"]).save(folder)
    meta = json.loads((folder / "corpus.json").read_text(encoding="utf-8"))
    meta["vectorizer"]["token_pattern"] = _CATASTROPHIC
    (folder / "corpus.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(engine.CorpusFormatError, match="is not one this project writes"):
        engine.Corpus.load(folder)
    own = engine.Corpus.from_texts(["apples and pears", "pears and plums"], token_pattern=r"\S+")
    own.save(tmp_path / "own")
    assert engine.Corpus.load(tmp_path / "own", trust_token_pattern=True).vectorizer.token_pattern == r"\S+"


@pytest.mark.parametrize(("declared", "dtype"), [((70_000_000,), "|u1"), ((), "<U17000000")])
def test_a_metadata_entry_above_64_mib_is_refused_before_it_is_expanded(saved, tmp_path, declared, dtype):
    import io

    path, _, _ = saved
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": dtype, "fortran_order": False, "shape": declared})
    crafted = tmp_path / "big_meta.npz"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(crafted, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(info.filename, header.getvalue() + b"{}" if info.filename == "metadata.npy"
                            else source.read(info))
    with pytest.raises(ModelFileError, match=r"metadata entry holds (70,000,000|68,000,000) bytes, above the "
                                             r"67,108,864 a model file may hold"):
        load_model(crafted)


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"9" * 5000: "taxes"}, r"the labels name topic '9{20}\.\.\. \(5,000 characters\)'"),
        ({"03": "taxes"}, "the labels name topic '03'"),
        ({"4": "taxes"}, "the labels name topic '4'; the model has topics 0 to 3"),
        ({"1": "x" * 500}, "the label of topic 1 must be a text of at most 200 characters"),
    ],
)
def test_label_keys_and_lengths_from_a_file_are_checked_before_use(saved, tmp_path, labels, message):
    path, _, _ = saved
    crafted = _rewrite(path, tmp_path / "labels.npz", lambda meta: meta.update(labels=labels))
    with pytest.raises(ModelFileError, match=message):
        load_model(crafted)


def test_the_engine_and_the_explorer_hold_labels_to_one_limit(saved, tmp_path):
    from engine.io.export_command import _labels
    from engine.io.model_files import MAX_LABEL_CHARS
    from explorer import model_extra

    path, model, _ = saved
    assert model_extra.MAX_LABEL_CHARS == MAX_LABEL_CHARS == 200
    with pytest.raises(ValueError, match="at most 200"):
        save_model(tmp_path / "long.npz", model, labels={0: "x" * 201})
    kept = load_model(save_model(tmp_path / "ok.npz", model, labels={0: "x" * 200}))
    assert model_extra.checked_labels({str(k): v for k, v in kept.labels.items()}, model.n_topics) == kept.labels
    with pytest.raises(model_extra.ExplorerSettingsError, match="a topic number from 0 to 3"):
        model_extra.checked_labels({"9" * 5000: "taxes"}, model.n_topics)
    # the export command reads the explorer's labels of older files: a bad key is left out, not a crash
    crafted = _rewrite(path, tmp_path / "extra.npz",
                       lambda meta: meta["extra"].update(explorer={"labels": {"9" * 5000: "a", "2": "b"}}))
    assert _labels(load_model(crafted)) == {2: "b"}
