"""The command line refuses what it would otherwise ignore or discover too late (issue 15, cases 7, 9 and 10)."""

from __future__ import annotations

import os

import pytest

from engine.cli import main
from engine.io.model_files import load_model

WORDS = ("apple banana cherry", "dog eagle fox", "grape hazel iris", "jaguar koala lemur")


@pytest.fixture
def folder(tmp_path):
    """A folder of 60 short .txt documents on four themes."""
    texts = tmp_path / "texts"
    texts.mkdir()
    for d in range(60):
        theme = WORDS[d % 4].split()
        (texts / f"doc{d:02d}.txt").write_text(" ".join(theme[(d + i) % 3] for i in range(12)), encoding="utf-8")
    return texts


def _fit(folder, tmp_path, *extra):
    topics = () if "--resume" in extra else ("--topics", "4")
    return main(["fit", str(folder), *topics, "--epochs", "1", "--test-docs", "0", "--no-progress",
                 "--out", str(tmp_path / "model.npz"), *extra])


def test_batch_vi_refuses_the_step_size_options(folder, tmp_path, capsys):
    assert _fit(folder, tmp_path, "--algorithm", "batch", "--kappa", "2") == 2
    err = capsys.readouterr().err
    assert "--kappa applies to --algorithm svi only" in err and "Traceback" not in err
    assert _fit(folder, tmp_path, "--algorithm", "batch", "--tau", "3", "--batch-size", "10") == 2
    assert "--tau, --batch-size apply to --algorithm svi only" in capsys.readouterr().err
    assert not (tmp_path / "model.npz").exists()  # refused before training
    assert _fit(folder, tmp_path, "--algorithm", "batch") == 0


def test_a_resumed_run_refuses_new_model_or_schedule_options(folder, tmp_path, capsys):
    checkpoint = tmp_path / "ckpt.npz"
    assert _fit(folder, tmp_path, "--checkpoint", str(checkpoint)) == 0
    capsys.readouterr()
    assert _fit(folder, tmp_path, "--resume", str(checkpoint), "--topics", "9", "--kappa", "0.5") == 2
    assert "--topics, --kappa cannot change a resumed run" in capsys.readouterr().err


def test_unwritable_outputs_fail_before_training(folder, tmp_path, capsys):
    assert _fit(folder, tmp_path, "--out", str(tmp_path)) == 2  # a folder, not a file
    assert "is a folder; give a file name" in capsys.readouterr().err
    assert _fit(folder, tmp_path, "--out", str(tmp_path / "missing" / "m.npz")) == 2
    assert "does not exist; create it" in capsys.readouterr().err
    assert _fit(folder, tmp_path, "--checkpoint", "/proc/ckpt.npz") == 2  # unwritable even for root
    err = capsys.readouterr().err
    assert "cannot write --checkpoint '/proc/ckpt.npz'" in err and "corpus:" not in err  # before loading


def test_resuming_on_other_words_of_the_same_number_is_refused(folder, tmp_path, capsys):
    checkpoint = tmp_path / "ckpt.npz"
    assert _fit(folder, tmp_path, "--checkpoint", str(checkpoint)) == 0
    renamed = tmp_path / "renamed"
    renamed.mkdir()
    for path in sorted(folder.iterdir()):  # every word replaced by another word: same size, other words
        text = path.read_text(encoding="utf-8").replace("apple", "zebra")
        (renamed / path.name).write_text(text, encoding="utf-8")
    capsys.readouterr()
    before = load_model(checkpoint)
    assert _fit(renamed, tmp_path, "--resume", str(checkpoint)) == 2
    err = capsys.readouterr().err
    assert "the collection's words differ from the model's" in err and "resume it on the collection" in err
    after = load_model(checkpoint)  # the checkpoint is untouched
    assert after.trainer_state == before.trainer_state


def test_an_explicit_encoding_is_used_and_the_detected_one_is_reported(tmp_path, capsys):
    texts = tmp_path / "french"
    texts.mkdir()
    for d in range(40):
        body = " ".join(["crème brûlée déjà vu à côté", "garçon naïve fête été"][d % 2] for _ in range(5))
        (texts / f"d{d:02d}.txt").write_bytes(body.encode("cp1252"))
    assert main(["fit", str(texts), "--topics", "2", "--test-docs", "0", "--no-progress",
                 "--out", str(tmp_path / "m.npz")]) == 0
    err = capsys.readouterr().err
    assert "decoded as windows-1252" in err or "decoded as cp1252" in err or "decoded as latin" in err.lower()
    words = set(load_model(tmp_path / "m.npz").vocabulary)  # French stop words guessed, so accents kept
    assert {"crème", "brûlée", "garçon", "déjà"} <= words  # not "crčme" (è read as Windows-1257's č)
    assert main(["fit", str(texts), "--topics", "2", "--test-docs", "0", "--no-progress", "--encoding", "utf-8",
                 "--out", str(tmp_path / "m2.npz")]) == 2
    err = capsys.readouterr().err
    assert "utf-8" in err.lower() and "Traceback" not in err
    assert not os.path.exists(tmp_path / "m2.npz")
