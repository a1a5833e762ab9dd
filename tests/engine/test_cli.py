"""Command line (engine/cli.py, python -m engine): fit and topics on real files, help, error exits."""

from __future__ import annotations

import csv
import importlib.util
import io
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import engine
import engine.cli
import engine.inference.run
from engine.cli import build_parser, main
from engine.io.model_files import load_model, save_model


def _engine(*args: str, cwd) -> subprocess.CompletedProcess:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def test_fit_without_epochs_trains_as_long_as_the_app(tmp_path, corpus_csv):
    # 200 documents, 20 held out: the app's rule gives max(5,000, 10 x 180) documents, in minibatches of 180
    path, _ = corpus_csv
    out = tmp_path / "default.npz"
    assert main(["fit", str(path), "--topics", "3", "--test-docs", "20", "--out", str(out), "--no-progress"]) == 0
    state = load_model(out).trainer_state
    assert state["batch_size"] == 180 and state["n_docs"] == 180
    assert state["docs_seen"] == 28 * 180  # the first multiple of 180 at or past 5,000
    assert engine.default_target_docs(180) == 5_000
    assert build_parser().parse_args(["fit", "x.csv"]).epochs is None  # unset: the rule, not one pass


def test_fit_then_topics(tmp_path, corpus_csv):
    path, words = corpus_csv
    out = tmp_path / "model.npz"
    fit = _engine("fit", str(path), "--topics", "5", "--batch-size", "20", "--epochs", "3",
                  "--test-docs", "20", "--eval-every", "180", "--kappa", "0.7", "--tau", "2", "--seed", "1",
                  "--title-column", "title", "--checkpoint", str(tmp_path / "ckpt.npz"), "--out", str(out),
                  cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    assert "Traceback" not in fit.stderr
    assert "201 documents" not in fit.stderr and "200 documents" in fit.stderr
    assert "1 document dropped" in fit.stderr
    evaluations = [line for line in fit.stdout.splitlines() if "held-out log likelihood" in line]
    assert len(evaluations) == 4  # t = 0, after each of the 3 epochs

    loaded = load_model(out)
    assert loaded.model.n_topics == 5 and loaded.trainer_state["docs_seen"] >= 3 * 180
    assert loaded.trainer_state["kappa"] == 0.7 and len(loaded.history) == 4
    assert sorted(loaded.vocabulary) == sorted(words.values())
    assert loaded.extra["dropped_documents"] == 1
    assert load_model(tmp_path / "ckpt.npz").trainer_state == loaded.trainer_state

    topics = _engine("topics", str(out), "--n", "4", cwd=tmp_path)
    assert topics.returncode == 0, topics.stderr
    lines = [line for line in topics.stdout.splitlines() if line.startswith("topic")]
    assert len(lines) == 5
    assert all(len(line.split(":", 1)[1].split()) == 4 for line in lines)

    labelled = tmp_path / "labelled.npz"
    save_model(labelled, loaded.model, loaded.vocabulary, labels={1: "Economy", 3: "Bad\x1b[31m\nlabel"})
    topics = _engine("topics", str(labelled), "--n", "4", cwd=tmp_path)
    lines = [line for line in topics.stdout.splitlines() if line.startswith("topic")]
    assert len(lines) == 5 and "[" not in lines[0]
    assert lines[1].split(":", 1)[0].endswith("[Economy]")
    assert "\x1b" not in topics.stdout and lines[3].split(":", 1)[0].endswith("[Bad [31m label]")
    assert all(word in words.values() for line in lines for word in line.split(":", 1)[1].split())


def test_bad_corpus_path_exits_2_with_one_line(tmp_path):
    result = _engine("fit", str(tmp_path / "missing.csv"), "--out", str(tmp_path / "m.npz"), cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().startswith("error:") and "missing.csv" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("args", [["--help"], ["fit", "--help"], ["topics", "--help"], ["export", "--help"]])
def test_help_documents_every_option(args, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    parser = build_parser()
    subparsers = parser._subparsers._group_actions[0].choices  # the fit and topics parsers
    documented = parser if args == ["--help"] else subparsers[args[0]]
    for action in documented._actions:
        assert action.help, f"{action.dest} has no help text"
        for flag in action.option_strings:
            assert flag in text
    if args == ["--help"]:
        assert "fit" in text and "topics" in text


def test_engine_errors_exit_2_without_traceback(tmp_path, corpus_csv, capsys):
    path, _ = corpus_csv
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a model")
    assert main(["topics", str(junk)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "not a model file" in err and "Traceback" not in err

    assert main(["fit", str(path), "--topics", "3", "--kappa", "2", "--out", str(tmp_path / "m.npz"),
                 "--no-progress"]) == 2
    assert "kappa must be in [0, 1]" in capsys.readouterr().err

    assert main(["fit", str(path), "--text-column", "body", "--no-progress"]) == 2
    assert "body" in capsys.readouterr().err

    assert main(["fit", str(path), "--omega", "2", "--no-progress"]) == 2
    assert "--omega applies to --model hdp only" in capsys.readouterr().err

    assert main(["fit", str(path), "--gamma", "2", "--no-progress"]) == 2  # the old name, deprecated
    err = capsys.readouterr().err
    assert "--gamma is deprecated, use --omega" in err and "--omega applies to --model hdp only" in err

    assert main(["fit", str(path), "--test-docs", "5000", "--no-progress"]) == 2
    assert "n_test" in capsys.readouterr().err


def test_hdp_births_and_truncation_from_the_command_line(tmp_path, corpus_csv, capsys):
    """--births sets the HDP's births a round (0: none); T defaults to at most --topics; misfits exit 2."""
    path, _ = corpus_csv
    out = tmp_path / "hdp.npz"
    assert main(["fit", str(path), "--model", "hdp", "--topics", "12", "--births", "0", "--epochs", "4",
                 "--out", str(out), "--no-progress"]) == 0
    model = load_model(out).model
    assert (model.n_topics, model.doc_truncation, model.births) == (12, 12, 0)
    assert model.training_clock()["birth_rounds"] == 0  # four passes, and no round was made
    capsys.readouterr()

    assert main(["fit", str(path), "--model", "hdp", "--topics", "12", "--births", "7", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--births must be in [0, 6], got 7" in err and "Traceback" not in err
    assert main(["fit", str(path), "--model", "hdp", "--topics", "12", "--doc-truncation", "13",
                 "--no-progress"]) == 2
    assert "--doc-truncation must be in [1, 12], got 13" in capsys.readouterr().err
    assert main(["fit", str(path), "--births", "3", "--no-progress"]) == 2
    assert "--births applies to --model hdp only" in capsys.readouterr().err


def test_fit_in_process_with_batch_vi_and_resume(tmp_path, corpus_csv, capsys, monkeypatch):
    path, _ = corpus_csv
    out = tmp_path / "batch.npz"
    assert main(["fit", str(path), "--algorithm", "batch", "--topics", "4", "--epochs", "2",
                 "--test-docs", "0", "--out", str(out), "--no-progress"]) == 0
    loaded = load_model(out)
    assert loaded.trainer_state == {"algorithm": "batch", "t": 2, "docs_seen": 400, "n_docs": 200}
    assert loaded.history == ()

    ckpt = tmp_path / "ckpt.npz"
    assert main(["fit", str(path), "--topics", "4", "--epochs", "1", "--batch-size", "30", "--test-docs", "20",
                 "--checkpoint", str(ckpt), "--out", str(tmp_path / "one.npz"), "--no-progress"]) == 0
    one = load_model(ckpt)
    reads = []
    def counted(source, **options):
        reads.append(str(source))
        return load_model(source, **options)

    monkeypatch.setattr(engine.cli, "load_model", counted)
    monkeypatch.setattr(engine.inference.run, "load_model", counted)
    assert main(["fit", str(path), "--resume", str(ckpt), "--epochs", "2", "--test-docs", "20",
                 "--out", str(tmp_path / "two.npz"), "--no-progress"]) == 0
    assert reads == [str(ckpt)]  # the checkpoint is read once, and the run continues from that reading
    assert ckpt.stat().st_mtime_ns >= (tmp_path / "one.npz").stat().st_mtime_ns  # still written on resume
    two = load_model(tmp_path / "two.npz")
    assert two.trainer_state["t"] > one.trainer_state["t"] and two.trainer_state["batch_size"] == 30
    assert two.history[: len(one.history)] == one.history
    assert np.all(np.isfinite(two.model.lambda_))
    capsys.readouterr()


def test_version_comes_from_the_package_metadata(capsys):
    import importlib.metadata

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"svi-topics {importlib.metadata.version('svi-topics')}"
    assert engine.__version__ == importlib.metadata.version("svi-topics")


def test_help_names_the_program_as_invoked(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert capsys.readouterr().out.startswith("usage: svi-topics ")
    assert _engine("--help", cwd=tmp_path).stdout.startswith("usage: python -m engine ")


def test_app_runs_the_installed_explorer_with_the_project_settings():
    from engine.cli import _explorer_folder, app_command

    command = app_command(8765, ["--theme.base=dark"])
    assert command[1] == "-c" and command[2].endswith("from streamlit.web.cli import main; main(prog_name='streamlit')")
    assert command[3:5] == ["run", str(_explorer_folder() / "app.py")]
    assert "--server.fileWatcherType=none" in command  # from .streamlit/config.toml
    assert command[-2:] == ["--server.port=8765", "--theme.base=dark"]  # the user's options come last and win


def test_app_passes_streamlit_options_and_exit_code_through(capsys):
    assert main(["app", "--no-such-streamlit-option"]) == 2  # streamlit's own usage error
    with pytest.raises(SystemExit):
        main(["topics", "model.npz", "--no-such-option"])  # other commands still reject unknown options
    assert "unrecognized arguments" in capsys.readouterr().err


def test_fit_with_the_adaptive_step_size_saves_and_resumes_it(tmp_path, corpus_csv, capsys):
    path, _ = corpus_csv
    ckpt = tmp_path / "adaptive.npz"
    assert main(["fit", str(path), "--topics", "4", "--epochs", "1", "--batch-size", "40", "--test-docs", "20",
                 "--step-size", "adaptive", "--checkpoint", str(ckpt), "--out", str(tmp_path / "one.npz"),
                 "--no-progress"]) == 0
    one = load_model(ckpt).trainer_state
    assert one["step_size"] == "adaptive" and one["adaptive"] is not None
    assert main(["fit", str(path), "--resume", str(ckpt), "--epochs", "2", "--test-docs", "20",
                 "--out", str(tmp_path / "two.npz"), "--no-progress"]) == 0
    two = load_model(tmp_path / "two.npz")
    assert two.trainer_state["step_size"] == "adaptive" and two.trainer_state["t"] > one["t"]
    assert all(0 < point.rho <= 1 for point in two.history)
    capsys.readouterr()

    assert main(["fit", str(path), "--step-size", "adaptive", "--kappa", "0.7", "--no-progress"]) == 2
    assert "--kappa set the schedule, which --step-size adaptive replaces" in capsys.readouterr().err
    assert main(["fit", str(path), "--model", "hdp", "--step-size", "adaptive", "--no-progress"]) == 2
    assert "LDA only" in capsys.readouterr().err
    assert main(["fit", str(path), "--algorithm", "batch", "--step-size", "adaptive", "--no-progress"]) == 2
    assert "--step-size applies to --algorithm svi only" in capsys.readouterr().err


def test_export_writes_the_full_export_of_a_model_file(tmp_path, planted_corpus, capsys):
    """fit on a table with id, year and president columns, label two topics alike, export, read back."""
    letters = "bcdfghjklmnpqrstvwxz"
    words = {old: "q" + letters[i // 20] + letters[i % 20] + "zy" for i, old in enumerate(planted_corpus.vocabulary)}
    table = tmp_path / "speeches.csv"
    with table.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["id", "title", "text", "year", "president"])
        for d, text in enumerate(planted_corpus.texts):
            writer.writerow([f"s{d:03d}", f"speech {d}", " ".join(words[w] for w in text.split()),
                             1950 + d % 40, ["Truman", "Kennedy"][d % 2]])
    model_path = tmp_path / "model.npz"
    assert main(["fit", str(table), "--topics", "5", "--epochs", "1", "--no-progress", "--out", str(model_path)]) == 0
    loaded = load_model(model_path)
    save_model(model_path, loaded.model, loaded.vocabulary, trainer=loaded.trainer_state,
               history=[*loaded.history, *loaded.changes], extra=loaded.extra, labels={1: "Economy", 3: "Economy"})
    capsys.readouterr()

    out = tmp_path / "export"
    result = _engine("export", str(model_path), "--corpus", str(table), "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    expected = {"topic_words.csv", "topics.csv", "documents.csv", "document_lengths.csv", "term_frequencies.csv"}
    assert expected <= {p.name for p in out.iterdir()}
    with_parquet = importlib.util.find_spec("pyarrow") is not None
    assert ("topic_words.parquet" in {p.name for p in out.iterdir()}) == with_parquet

    topic_words = pd.read_csv(out / "topic_words.csv", keep_default_na=False)
    assert list(topic_words.columns) == ["topic", "label", "word", "weight"]
    assert len(topic_words) == 5 * loaded.model.n_words and sorted(set(topic_words["topic"])) == [0, 1, 2, 3, 4]
    assert np.allclose(topic_words.groupby("topic")["weight"].sum(), 1.0)
    assert set(topic_words.loc[topic_words["topic"] == 1, "label"]) == {"Economy (topic 1)"}
    top = loaded.model.top_words(3, loaded.vocabulary)
    labels = pd.read_csv(out / "topics.csv")
    default = [f"Topic {k}: {', '.join(top[k])}" for k in range(5)]
    assert list(labels["label"]) == [default[0], "Economy (topic 1)", default[2], "Economy (topic 3)", default[4]]

    documents = pd.read_csv(out / "documents.csv")
    assert list(documents.columns) == ["id", "title", "year", "president", *labels["label"]]
    assert list(documents["id"][:2]) == ["s000", "s001"] and list(documents["year"][:2]) == [1950, 1951]
    assert list(documents["president"][:2]) == ["Truman", "Kennedy"] and len(documents) == planted_corpus.n_docs
    assert np.allclose(documents[list(labels["label"])].sum(axis=1), 1.0)
    lengths = pd.read_csv(out / "document_lengths.csv")
    assert list(lengths["id"][:1]) == ["s000"] and lengths["length"].sum() == planted_corpus.counts.sum()
    frequencies = pd.read_csv(out / "term_frequencies.csv", keep_default_na=False)
    assert frequencies["frequency"].sum() == planted_corpus.counts.sum()
    assert list(frequencies["word"]) == list(loaded.vocabulary)

    alone = _engine("export", str(model_path), "--out", str(tmp_path / "alone"), cwd=tmp_path)  # no corpus
    assert alone.returncode == 0, alone.stderr
    assert {p.name for p in (tmp_path / "alone").iterdir()} >= {"topic_words.csv", "topics.csv"}
    assert not (tmp_path / "alone" / "documents.csv").exists()


def test_export_reads_a_table_with_its_own_index_column(tmp_path, planted_corpus, capsys):
    """A column named ``index`` is the user's data, not the row positions."""
    letters = "bcdfghjklmnpqrstvwxz"
    words = {old: "q" + letters[i // 20] + letters[i % 20] + "zy" for i, old in enumerate(planted_corpus.vocabulary)}
    table = tmp_path / "docs.csv"
    with table.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["index", "id", "text"])
        for d, text in enumerate(planted_corpus.texts):
            writer.writerow([100 + d, f"d{d:03d}", " ".join(words[w] for w in text.split())])
    model_path = tmp_path / "model.npz"
    assert main(["fit", str(table), "--topics", "3", "--epochs", "1", "--no-progress", "--out", str(model_path)]) == 0
    out = tmp_path / "export"
    assert main(["export", str(model_path), "--corpus", str(table), "--out", str(out)]) == 0
    capsys.readouterr()
    documents = pd.read_csv(out / "documents.csv")
    assert list(documents["id"][:2]) == ["d000", "d001"] and list(documents["index"][:2]) == [100, 101]


def test_export_again_without_a_corpus_leaves_no_document_tables_of_the_first(tmp_path, planted_corpus, capsys):
    """Two exports into one folder never mix: the export's own stale files go, other files stay."""
    from engine.io import exports

    model = engine.LDA(n_topics=3, n_epochs=1).fit(planted_corpus.counts)
    vocabulary = planted_corpus.vocabulary
    out = tmp_path / "out"
    exports.write_export(out, exports.export_tables(model, vocabulary, counts=planted_corpus.counts), parquet=True)
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    assert (out / "documents.csv").exists() and (out / "topic_words.parquet").exists()
    exports.write_export(out, exports.export_tables(model, vocabulary), parquet=False)
    assert {p.name for p in out.iterdir()} == {"topic_words.csv", "topics.csv", "notes.txt"}


def test_export_streams_the_topic_words_in_blocks_and_refuses_a_table_above_the_limit(
        tmp_path, planted_corpus, monkeypatch):
    from engine.io import exports

    model = engine.LDA(n_topics=4, n_epochs=1).fit(planted_corpus.counts)
    tables = exports.export_tables(model, planted_corpus.vocabulary, {1: "Economy"})
    whole = pd.read_csv(io.BytesIO(exports.export_files(tables, parquet=False)["topic_words.csv"]),
                        keep_default_na=False)
    monkeypatch.setattr(exports, "_CHUNK_ROWS", 1)  # one topic per block
    files = exports.export_files(tables, parquet=importlib.util.find_spec("pyarrow") is not None)
    blocks = pd.read_csv(io.BytesIO(files["topic_words.csv"]), keep_default_na=False)
    pd.testing.assert_frame_equal(whole, blocks)
    assert len(blocks) == 4 * model.n_words and np.allclose(blocks.groupby("topic")["weight"].sum(), 1.0)
    if "topic_words.parquet" in files:
        pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(files["topic_words.parquet"])), whole)

    monkeypatch.setenv("SVI_TOPICS_MAX_EXPORT_CELLS", str(4 * model.n_words - 1))
    with pytest.raises(engine.LimitExceededError, match="SVI_TOPICS_MAX_EXPORT_CELLS"):
        exports.zip_files(tables)
    with pytest.raises(engine.LimitExceededError, match="max_export_cells"):
        exports.write_export(tmp_path / "refused", tables)
    assert not (tmp_path / "refused").exists()


def test_fit_with_the_clusters_start_keeps_it_in_the_model_file(tmp_path, corpus_csv):
    path, _ = corpus_csv
    out = tmp_path / "clusters.npz"
    assert main(["fit", str(path), "--topics", "4", "--epochs", "1", "--topic-init", "clusters", "--test-docs", "20",
                 "--out", str(out), "--no-progress"]) == 0
    model = load_model(out).model
    assert model.topic_init == "clusters" and np.all(np.isfinite(model.lambda_))


def test_fit_lists_the_other_skipped_files_grouped_by_why(tmp_path, capsys):
    site = tmp_path / "site"
    themes = ["rivers dams floods water", "wheat farms harvest grain", "stars planets orbits comets"]
    files = {f"page{i}.html": f"<p>{themes[i % 3]} {themes[i % 3].split()[i % 4]} page {i}</p>" for i in range(30)}
    files |= {f"_sources/page{i}.rst.txt": themes[i % 3] for i in range(4)}  # 4 copied sources, the largest group
    files |= {"objects.inv": "# Sphinx inventory", "_static/a.css": "p {}", "_static/b.js": "",  # 3 not text
              "genindex.html": "<p>i</p>", "py-modindex.html": "<p>m</p>", "search.html": "<p>s</p>",
              "404.html": "<p>n</p>", "_modules/index.html": "<p>l</p>", "_modules/pkg/core.html": "<pre>x</pre>"}
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    assert main(["fit", str(site), "--topics", "3", "--epochs", "1", "--test-docs", "3", "--out",
                 str(tmp_path / "m.npz"), "--no-progress"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert "; 13 files skipped" in lines[0]
    assert lines[1:7] == [
        "skipped 4 files: Sphinx's copy of a page's source; the page is read (_sources/page0.rst.txt, "
        "_sources/page1.rst.txt, _sources/page2.rst.txt, ...)",
        "skipped 3 files: not a .txt, .md, .rst, .html, .eml, .pdf, .docx, .odt, .epub, .pptx or .odp file "
        "(_static/a.css, _static/b.js, objects.inv)",
        "skipped 1 file: the page a site Sphinx built shows for an address it does not have (404.html)",
        "skipped 1 file: Sphinx's list of the Python modules whose code the site shows (sphinx.ext.viewcode) "
        "(_modules/index.html)",
        "skipped 1 file: Sphinx's highlighted copy of a Python module's code (sphinx.ext.viewcode), not "
        "documentation (_modules/pkg/core.html)",
        "... and 3 more files skipped for 3 other reasons"]


def test_fit_reads_a_folder_of_pdf_and_word_files_and_names_those_it_cannot_read(tmp_path, capsys):
    from tests.engine._documents import make_docx, make_pdf, word_paragraph

    folder = tmp_path / "reports"
    folder.mkdir()
    themes = ["rivers dams floods water", "wheat farms harvest grain", "stars planets orbits comets"]
    for i in range(30):
        words = f"{themes[i % 3]} {themes[i % 3].split()[i % 4]} report {i}"  # numbered: no two are copies
        (folder / f"{i}.{'pdf' if i % 2 else 'docx'}").write_bytes(
            make_pdf([[words]]) if i % 2 else make_docx(word_paragraph(words)))
    (folder / "scan.pdf").write_bytes(make_pdf([[]]))
    (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff")
    out = tmp_path / "m.npz"
    assert main(["fit", str(folder), "--topics", "3", "--epochs", "1", "--test-docs", "3", "--out", str(out),
                 "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "corpus: 30 documents" in err and "; 2 files skipped" in err
    assert "skipped scan.pdf: this PDF holds no text on its 1 page" in err
    assert "skipped 1 file: not a .txt, .md, .rst, .html, .eml, .pdf, .docx, .odt, .epub, .pptx or .odp file " \
           "(photo.jpg)" in err  # not a document: grouped by why
    assert load_model(out).model.n_topics == 3
