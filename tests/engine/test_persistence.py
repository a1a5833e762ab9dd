"""Model files and checkpoints (engine/io/model_files.py): round trips, atomic writes, rejection of bad files."""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from engine.errors import ModelFileError
from engine.inference.svi import SVI
from engine.io.model_files import FORMAT_TAG, FORMAT_VERSION, load_model, metadata_text, save_model
from engine.io.records import EvalPoint, SettingChange
from engine.models.lda import LDA


def _trained(corpus, steps: int = 3, **model_options) -> tuple[LDA, SVI]:
    model = LDA(n_topics=corpus.n_topics, n_words=corpus.n_words, **model_options)
    trainer = SVI(model, corpus.counts, batch_size=20, kappa=0.7, tau=2.0, seed=3)
    trainer.run(n_steps=steps)
    return model, trainer


@pytest.fixture
def saved(tmp_path, planted_corpus):
    """A model file with vocabulary, trainer state, history and extra values."""
    model, trainer = _trained(planted_corpus)
    history = [EvalPoint(0, 0, 0.0, -4.5, 0.6), SettingChange(2, 40, 0.01, "kappa", 0.9, 0.7),
               EvalPoint(3, 60, 0.02, -4.0, 0.3)]
    path = save_model(tmp_path / "model.npz", model, planted_corpus.vocabulary, trainer, history,
                      {"corpus": "planted", "numbers": [1, 2]})
    return path, model, trainer, history


def _write_npz(path, **arrays) -> None:
    with open(path, "wb") as file:
        np.savez(file, **arrays)


def _meta(model: LDA, **overrides) -> np.ndarray:
    meta = {"format": FORMAT_TAG, "version": FORMAT_VERSION, "model_class": "LDA",
            "params": model.get_params(), "vocabulary": None, "trainer": None, "history": [],
            "changes": [], "extra": {}}
    meta.update(overrides)
    return np.array(json.dumps(meta))


# ------------------------------------------------------------------ round trip
def test_round_trip_restores_everything_bit_for_bit(saved, planted_corpus):
    path, model, trainer, history = saved
    loaded = load_model(path)
    assert type(loaded.model) is LDA
    assert np.array_equal(loaded.model.lambda_, model.lambda_)
    assert loaded.model.lambda_.dtype == model.lambda_.dtype
    assert loaded.model.get_params() == model.get_params()
    assert loaded.vocabulary == planted_corpus.vocabulary
    assert loaded.trainer_state == trainer.state_dict()
    assert loaded.history == (history[0], history[2])
    assert loaded.changes == (history[1],)
    assert loaded.extra == {"corpus": "planted", "numbers": [1, 2]}


def test_float32_model_and_minimal_file_round_trip(tmp_path, planted_corpus):
    model, _ = _trained(planted_corpus, steps=1, dtype="float32", alpha=0.3, gamma_init="random")
    loaded = load_model(save_model(tmp_path / "m.npz", model))
    assert loaded.model.lambda_.dtype == np.float32
    assert np.array_equal(loaded.model.lambda_, model.lambda_)
    assert loaded.model.alpha == 0.3 and loaded.model.gamma_init == "random"
    assert (loaded.vocabulary, loaded.trainer_state, loaded.history, loaded.changes, loaded.extra) == (
        None, None, (), (), {})


def test_load_accepts_bytes_and_file_objects(saved):
    path, model, _, _ = saved
    data = path.read_bytes()
    for source in (data, io.BytesIO(data), str(path)):
        assert np.array_equal(load_model(source).model.lambda_, model.lambda_)


def test_saving_checks_its_inputs(tmp_path, planted_corpus):
    model, _ = _trained(planted_corpus, steps=1)
    with pytest.raises(ValueError, match="vocabulary has 3 words"):
        save_model(tmp_path / "m.npz", model, vocabulary=["a", "b", "c"])
    with pytest.raises(ValueError, match="no lambda_ yet"):
        save_model(tmp_path / "m.npz", LDA(n_topics=2, n_words=5))
    with pytest.raises(ValueError, match="metadata"):
        save_model(tmp_path / "m.npz", model, extra={"bad": object()})
    with pytest.raises(TypeError, match="cannot save a dict model"):
        save_model(tmp_path / "m.npz", {"lambda_": 1})
    assert list(tmp_path.iterdir()) == []


def test_hdp_round_trip(tmp_path, planted_corpus):
    hdp = pytest.importorskip("engine.models.hdp")
    model = hdp.HDP(n_topics=6, doc_truncation=3, n_words=planted_corpus.n_words, seed=1)
    trainer = SVI(model, planted_corpus.counts, batch_size=20)
    trainer.run(n_steps=2)
    loaded = load_model(save_model(tmp_path / "hdp.npz", model, trainer=trainer))
    assert type(loaded.model) is hdp.HDP
    assert np.array_equal(loaded.model.lambda_, model.lambda_)
    assert np.array_equal(loaded.model.sticks_, model.sticks_)
    assert loaded.model.get_params() == model.get_params()


# --------------------------------------------------------------- atomic writes
def test_failed_write_keeps_the_old_file_and_leaves_no_temporary(saved, monkeypatch, planted_corpus):
    path, _, _, _ = saved
    before = path.read_bytes()
    real_savez = np.savez_compressed

    def savez_then_fail(file, *args, **kwargs):
        real_savez(file, *args, **kwargs)  # a complete archive in the temporary file...
        file.write(b"half")
        raise OSError("disk full")  # ...then the write fails

    monkeypatch.setattr(np, "savez_compressed", savez_then_fail)
    other, _ = _trained(planted_corpus, steps=5)
    with pytest.raises(OSError, match="disk full"):
        save_model(path, other, planted_corpus.vocabulary)
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_overwrite_replaces_the_file(saved, planted_corpus):
    path, model, _, _ = saved
    other, _ = _trained(planted_corpus, steps=6)
    save_model(path, other)
    assert np.array_equal(load_model(path).model.lambda_, other.lambda_)
    assert not np.array_equal(other.lambda_, model.lambda_)
    assert [p.name for p in path.parent.iterdir()] == [path.name]


# ----------------------------------------------------------------- bad files
def test_foreign_and_damaged_files_are_rejected(tmp_path, saved):
    path, model, _, _ = saved
    cases = {
        "text.npz": (b"topic,word\n0,apple\n", "not an .npz archive"),
        "empty.npz": (b"", "not an .npz archive"),
        "truncated.npz": (path.read_bytes()[: path.stat().st_size // 2], r"not an \.npz archive|damaged"),
        "pickle.npz": (pickle.dumps({"lambda": model.lambda_}), "not an .npz archive"),
    }
    for name, (data, message) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ModelFileError, match=message):
            load_model(tmp_path / name)
    npy = tmp_path / "plain.npy"
    np.save(npy, model.lambda_)
    with pytest.raises(ModelFileError, match=r"not an \.npz archive"):
        load_model(npy)


def test_corrupt_member_is_rejected(tmp_path, saved):
    path, _, _, _ = saved
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("lambda.npy")
    start = info.header_offset + 30 + len(info.filename) + 200  # inside lambda's data
    data[start:start + 8] = b"\xff" * 8
    with pytest.raises(ModelFileError, match="damaged"):
        load_model(bytes(data))


def test_pickled_objects_are_never_loaded(tmp_path, planted_corpus):
    model, _ = _trained(planted_corpus, steps=1)
    path = tmp_path / "objects.npz"
    _write_npz(path, metadata=_meta(model), **{"lambda": np.array([model.lambda_, None], dtype=object)})
    with pytest.raises(ModelFileError, match="Python objects"):
        load_model(path)
    _write_npz(path, metadata=np.array([{"format": FORMAT_TAG}], dtype=object), **{"lambda": model.lambda_})
    with pytest.raises(ModelFileError, match="Python objects"):
        load_model(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"drop_metadata": True}, "no metadata"),
        ({"metadata": np.array("{not json")}, "not valid JSON"),
        ({"metadata": np.arange(3)}, "not a JSON string"),
        ({"meta": {"format": "something-else"}}, "not an svi-topics model file"),
        ({"meta": {"version": FORMAT_VERSION + 1}}, "newer version"),
        ({"meta": {"version": "1"}}, "invalid format version"),
        ({"meta": {"model_class": "NMF"}}, "unknown model class 'NMF'"),
        ({"meta": {"params": {"n_topics": 1, "n_words": 50}}}, "invalid LDA parameters"),
        ({"meta": {"vocabulary": ["a", "b"]}}, "vocabulary has 2 words"),
        ({"meta": {"history": [{"step": 1}]}}, "malformed history"),
        ({"meta": {"trainer": [1, 2]}}, "trainer state"),
        ({"lambda": np.ones((3, 3))}, "shape"),
        ({"lambda": np.full((5, 50), np.nan)}, "non-finite"),
        ({"lambda": -np.ones((5, 50))}, "non-positive"),
        ({"lambda": np.ones((5, 50), dtype=np.int64)}, "dtype"),
        ({"drop_lambda": True}, "missing array"),
        ({"surplus": np.ones(2)}, "unexpected array"),
    ],
)
def test_malformed_model_files_are_rejected(tmp_path, planted_corpus, change, message):
    model, _ = _trained(planted_corpus, steps=1)
    arrays = {"lambda": change.get("lambda", model.lambda_),
              "metadata": change.get("metadata", _meta(model, **change.get("meta", {})))}
    if "surplus" in change:
        arrays["surplus"] = change["surplus"]
    if change.get("drop_metadata"):
        del arrays["metadata"]
    if change.get("drop_lambda"):
        del arrays["lambda"]
    path = tmp_path / "bad.npz"
    _write_npz(path, **arrays)
    with pytest.raises(ModelFileError, match=message):
        load_model(path)


def test_missing_paths_and_folders(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such model file"):
        load_model(tmp_path / "absent.npz")
    with pytest.raises(ModelFileError, match="is a folder"):
        load_model(tmp_path)
    with pytest.raises(TypeError, match="path, bytes or a binary file"):
        load_model(42)


# --------------------------------------------------------- checkpoint resume
@pytest.mark.parametrize("sampling", ["epoch", "replacement"])
def test_resuming_from_a_checkpoint_is_exact(tmp_path, planted_corpus, sampling):
    counts, n_steps, k = planted_corpus.counts, 23, 9  # crosses epoch boundaries (200 docs, S = 30)

    def fresh() -> tuple[LDA, SVI]:
        model = LDA(n_topics=5, n_words=planted_corpus.n_words, seed=4)
        return model, SVI(model, counts, batch_size=30, kappa=0.8, tau=4.0, seed=5, sampling=sampling)

    straight_model, straight = fresh()
    straight.run(n_steps=k)
    straight.set_schedule(kappa=0.6, batch_size=17)
    straight.run(n_steps=n_steps - k)

    first_model, first = fresh()
    first.run(n_steps=k)
    first.set_schedule(kappa=0.6, batch_size=17)
    save_model(tmp_path / "ckpt.npz", first_model, trainer=first)

    loaded = load_model(tmp_path / "ckpt.npz")
    resumed = SVI(loaded.model, counts, batch_size=10, seed=0)  # overwritten by the state
    resumed.load_state_dict(loaded.trainer_state)
    resumed.run(n_steps=n_steps - k)

    assert (resumed.t, resumed.docs_seen, resumed.kappa, resumed.batch_size) == (
        straight.t, straight.docs_seen, 0.6, 17)
    # t, schedule, sampling and history continue exactly; lambda to rounding, because the file
    # holds lambda with the decay applied while the straight run keeps it pending per column
    np.testing.assert_allclose(loaded.model.lambda_, straight_model.lambda_, rtol=1e-12)


# float32, the HDP's default: the file's rounding of lambda (below) is float32's, 6e-8 relative, and
# 5 more steps carry it to about 1e-6 (measured)
@pytest.mark.parametrize(("dtype", "rtol"), [("float64", 1e-12), ("float32", 1e-4)])
def test_resuming_an_hdp_checkpoint_is_exact(tmp_path, planted_corpus, dtype, rtol):
    hdp = pytest.importorskip("engine.models.hdp")

    def fresh():
        model = hdp.HDP(n_topics=8, doc_truncation=4, n_words=planted_corpus.n_words, seed=2, dtype=dtype)
        return model, SVI(model, planted_corpus.counts, batch_size=40, kappa=0.8, tau=2.0, seed=1)

    straight_model, straight = fresh()
    straight.run(n_steps=8)
    first_model, first = fresh()
    first.run(n_steps=3)
    loaded = load_model(save_model(tmp_path / "hdp.npz", first_model, trainer=first))
    resumed = SVI(loaded.model, planted_corpus.counts, batch_size=10)
    resumed.load_state_dict(loaded.trainer_state)
    resumed.run(n_steps=5)
    # t, schedule, sampling and history continue exactly; lambda to rounding, because the file
    # holds lambda with the decay applied while the straight run keeps it pending per column
    assert loaded.model.lambda_.dtype == np.dtype(dtype)
    np.testing.assert_allclose(loaded.model.lambda_, straight_model.lambda_, rtol=rtol)
    np.testing.assert_allclose(loaded.model.sticks_, straight_model.sticks_, rtol=rtol)


def test_files_without_local_update_load_with_the_mean_field_update(tmp_path, planted_corpus):
    """Model files written before the zero-order default keep the update they were trained with."""
    X = planted_corpus.counts if hasattr(planted_corpus, "counts") else planted_corpus
    model = LDA(n_topics=3, n_words=X.shape[1], seed=0, learn_alpha=True)
    SVI(model, X, batch_size=20, seed=0).run(n_steps=3)
    path = save_model(tmp_path / "new.npz", model)
    loaded = load_model(path).model
    assert loaded.local_update == "auto" and loaded.learn_alpha
    np.testing.assert_array_equal(loaded.alpha, model.alpha)  # the learned prior travels with the model
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(metadata_text(arrays.pop("metadata")))
    for key in ("local_update", "learn_alpha", "learn_eta", "revive_topics", "preset"):
        del meta["params"][key]
    old = tmp_path / "old.npz"
    np.savez(old, allow_pickle=False, **arrays, metadata=np.array(json.dumps(meta)))
    old_model = load_model(old).model
    assert (old_model.local_update, old_model.revive_topics) == ("mean_field", False)
    # a file saved while the zero-order step was the default (before "auto") keeps it
    meta = json.loads(metadata_text(np.load(path, allow_pickle=False)["metadata"]))
    meta["params"]["local_update"] = "zero_order"
    del meta["params"]["cvb0_words"]
    np.savez(tmp_path / "zero.npz", allow_pickle=False, **arrays, metadata=np.array(json.dumps(meta)))
    zero = load_model(tmp_path / "zero.npz").model
    assert zero.local_update == "zero_order"
    explicit = LDA(n_topics=3, n_words=X.shape[1], seed=0, local_update="zero_order", alpha=model.alpha)
    explicit.lambda_ = zero.lambda_
    np.testing.assert_allclose(zero.transform(X[:5]), explicit.transform(X[:5]), rtol=1e-12)


def test_an_hdp_file_saved_with_gamma_loads_as_omega(tmp_path, planted_corpus):
    """Files written before HDP's gamma took the paper's name omega still load, without a warning."""
    hdp = pytest.importorskip("engine.models.hdp")
    model = hdp.HDP(n_topics=6, doc_truncation=3, n_words=planted_corpus.n_words, omega=2.5, seed=1)
    SVI(model, planted_corpus.counts, batch_size=20).run(n_steps=1)
    path = save_model(tmp_path / "hdp.npz", model)
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(metadata_text(arrays["metadata"]))
    meta["params"]["gamma"] = meta["params"].pop("omega")
    arrays["metadata"] = np.array(json.dumps(meta))
    old = tmp_path / "old.npz"  # what the format-1 save_model wrote: uncompressed, the metadata in UTF-32
    with open(old, "wb") as file:
        np.savez(file, **arrays)
    loaded = load_model(old).model
    assert loaded.omega == 2.5
    np.testing.assert_array_equal(loaded.sticks_, model.sticks_)


def test_an_hdp_file_from_before_stick_atoms_keeps_counting_all_atoms(tmp_path, planted_corpus):
    """Files from before the used-atoms default (the first step's floor, the warm-up) keep the settings they had."""
    hdp = pytest.importorskip("engine.models.hdp")
    model = hdp.HDP(n_topics=6, doc_truncation=3, n_words=planted_corpus.n_words, seed=1)
    SVI(model, planted_corpus.counts, batch_size=20).run(n_steps=1)
    path = save_model(tmp_path / "hdp.npz", model)
    loaded = load_model(path).model
    assert (loaded.stick_atoms, loaded.first_step_min, loaded.warmup_epochs) == ("used", 0.5, 3.0)
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(metadata_text(arrays.pop("metadata")))
    del meta["params"]["stick_atoms"], meta["params"]["first_step_min"], meta["params"]["warmup_epochs"]
    old = tmp_path / "old.npz"
    np.savez(old, allow_pickle=False, **arrays, metadata=np.array(json.dumps(meta)))
    loaded = load_model(old).model
    assert (loaded.stick_atoms, loaded.first_step_min, loaded.warmup_epochs) == ("all", 0.0, 0.0)


# ------------------------------------------------------------ format version 2
OLD_FORMAT_FILE = Path(__file__).parent / "data" / "model_format1.npz"  # written by the format-1 save_model


def test_metadata_is_utf8_bytes_in_a_compressed_archive(saved):
    path, _, _, _ = saved
    with zipfile.ZipFile(path) as archive:
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_DEFLATED}
    with np.load(path, allow_pickle=False) as npz:
        entry = npz["metadata"]
    assert entry.dtype == np.uint8 and entry.ndim == 1
    meta = json.loads(entry.tobytes().decode("utf-8"))
    assert meta["format"] == FORMAT_TAG and meta["version"] == FORMAT_VERSION == 2


def test_a_format_1_file_still_loads():
    with np.load(OLD_FORMAT_FILE, allow_pickle=False) as npz:
        assert npz["metadata"].dtype.kind == "U" and npz["metadata"].shape == ()  # the old UTF-32 0-d array
        assert json.loads(metadata_text(npz["metadata"]))["version"] == 1
    loaded = load_model(OLD_FORMAT_FILE)
    assert type(loaded.model) is LDA and loaded.model.lambda_.shape == (5, 50)
    assert loaded.vocabulary == tuple(f"w{i}" for i in range(50))
    assert loaded.extra == {"corpus": "planted"} and loaded.labels == {}
    assert loaded.history[0].heldout_loglik == -4.0
    assert loaded.trainer_state["t"] == 3


def test_a_realistic_model_file_is_much_smaller_than_in_format_1(tmp_path):
    rng = np.random.default_rng(0)
    n_topics, n_words = 50, 20_000
    model = LDA(n_topics=n_topics, n_words=n_words)
    model.lambda_ = 0.01 + rng.gamma(0.05, 50.0, size=(n_topics, n_words))  # sparse-ish topics, as after training
    vocabulary = [f"word{w}" for w in range(n_words)]
    new = save_model(tmp_path / "new.npz", model, vocabulary)
    meta = json.loads(metadata_text(np.load(new, allow_pickle=False)["metadata"]))
    meta["version"] = 1
    old = tmp_path / "old.npz"  # what the format-1 save_model wrote: uncompressed, the metadata in UTF-32
    with open(old, "wb") as file:
        np.savez(file, allow_pickle=False, **{"lambda": model.lambda_}, metadata=np.array(json.dumps(meta)))
    assert new.stat().st_size < 0.8 * old.stat().st_size
    assert np.array_equal(load_model(old).model.lambda_, load_model(new).model.lambda_)


def test_labels_round_trip_and_are_checked(tmp_path, planted_corpus):
    model, _ = _trained(planted_corpus)
    path = save_model(tmp_path / "m.npz", model, labels={0: "Economy", 3: "Economy", 4: "  "})
    assert load_model(path).labels == {0: "Economy", 3: "Economy"}  # blank labels are not stored
    path = save_model(tmp_path / "m.npz", model, labels=["a", "b", "", "d", "e"])
    assert load_model(path).labels == {0: "a", 1: "b", 3: "d", 4: "e"}
    with pytest.raises(ValueError, match="topic indices 0 to 4"):
        save_model(tmp_path / "m.npz", model, labels={5: "x"})
    with np.load(path, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    meta = json.loads(metadata_text(arrays["metadata"]))
    meta["labels"] = {"9": "beyond"}
    arrays["metadata"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    _write_npz(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ModelFileError, match="labels name topic '9'"):
        load_model(tmp_path / "bad.npz")


def _adaptive(corpus, steps: int = 3) -> SVI:
    model = LDA(n_topics=corpus.n_topics, n_words=corpus.n_words, seed=0)
    trainer = SVI(model, corpus.counts, batch_size=20, seed=3, step_size="adaptive")
    trainer.run(n_steps=steps)
    return trainer


def _rewrite_meta(path, target, edit) -> Path:
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(metadata_text(arrays["metadata"]))
    edit(meta, arrays)
    arrays["metadata"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    _write_npz(target, **arrays)
    return target


def test_the_adaptive_average_gradient_is_an_array_entry_not_json(tmp_path, planted_corpus):
    trainer = _adaptive(planted_corpus)
    path = save_model(tmp_path / "adaptive.npz", trainer.model, trainer=trainer)
    with np.load(path, allow_pickle=False) as archive:
        meta = json.loads(metadata_text(archive["metadata"]))
        np.testing.assert_array_equal(archive["adaptive_g_bar"], trainer.adaptive_state.g_bar)
    assert "g_bar" not in meta["trainer"]["adaptive"]  # the metadata no longer grows with n_topics x n_words
    loaded = load_model(path)
    resumed = SVI(loaded.model, planted_corpus.counts, batch_size=20)
    resumed.load_state_dict(loaded.trainer_state)
    np.testing.assert_array_equal(resumed.adaptive_state.g_bar, trainer.adaptive_state.g_bar)
    # a loaded state saved again (the explorer's re-download) keeps it
    again = save_model(tmp_path / "again.npz", loaded.model, trainer=loaded.trainer_state)
    np.testing.assert_array_equal(load_model(again).trainer_state["adaptive"]["g_bar"], trainer.adaptive_state.g_bar)


def test_a_file_with_the_adaptive_gradient_as_base64_still_loads(tmp_path, planted_corpus):
    trainer = _adaptive(planted_corpus)
    path = save_model(tmp_path / "adaptive.npz", trainer.model, trainer=trainer)

    def as_before(meta, arrays):  # the form written earlier: base64 in the trainer state, no array entry
        meta["trainer"] = trainer.state_dict()
        del arrays["adaptive_g_bar"]

    old = _rewrite_meta(path, tmp_path / "old.npz", as_before)
    resumed = SVI(load_model(old).model, planted_corpus.counts, batch_size=20)
    resumed.load_state_dict(load_model(old).trainer_state)
    np.testing.assert_array_equal(resumed.adaptive_state.g_bar, trainer.adaptive_state.g_bar)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda meta, arrays: arrays.update(adaptive_g_bar=arrays["adaptive_g_bar"][:, :-1]), "has shape"),
        (lambda meta, arrays: arrays["adaptive_g_bar"].__setitem__((0, 0), np.nan), "non-finite"),
        (lambda meta, arrays: arrays.pop("adaptive_g_bar"), "has no g_bar"),
        (lambda meta, arrays: meta["trainer"].update(adaptive=None), "belongs to no adaptive trainer state"),
    ],
)
def test_a_damaged_adaptive_gradient_entry_is_refused(tmp_path, planted_corpus, edit, message):
    trainer = _adaptive(planted_corpus)
    path = save_model(tmp_path / "adaptive.npz", trainer.model, trainer=trainer)
    crafted = _rewrite_meta(path, tmp_path / "crafted.npz", edit)
    with pytest.raises(ModelFileError, match=message):
        load_model(crafted)


def test_metadata_that_load_model_would_refuse_is_never_written(tmp_path, planted_corpus, monkeypatch):
    import engine.io.model_files as model_files

    model, trainer = _trained(planted_corpus)
    monkeypatch.setattr(model_files, "_MAX_METADATA_BYTES", 2_000)
    path = tmp_path / "big.npz"
    with pytest.raises(ValueError, match=r"metadata .* takes [\d,]+ bytes, above the 2,000 a model file may hold"):
        save_model(path, model, planted_corpus.vocabulary, trainer, extra={"notes": "x" * 5_000})
    assert not path.exists()
