"""The Documents page's New document box and the Data page's language and accent choices, by AppTest."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from streamlit.testing.v1 import AppTest

from explorer import runs
from explorer.engine_api import LDA, Corpus, LoadedModel, load_model
from explorer.state import Keys
from explorer.storage import Collection


def _documents_page(app_path: str) -> tuple[AppTest, object]:
    """The app on the Documents page with an LDA model fitted on the current collection."""
    at = AppTest.from_file(app_path, default_timeout=90)
    at.run()
    assert not at.exception, at.exception
    collection = at.session_state[Keys.collection]
    model = LDA(n_topics=4, seed=0, n_epochs=1).fit(collection.corpus)
    loaded = LoadedModel(model=model, vocabulary=collection.corpus.vocabulary, trainer_state=None)
    settings = runs.RunSettings(n_topics=4, n_test=30, seed=0)
    at.session_state[Keys.runs].add(runs.RunRecord("new-document", "#1 new document", settings, collection,
                                                   loaded=loaded, checkpointed=False))
    at.switch_page("views/documents.py")
    at.run()
    assert not at.exception, at.exception
    return at, collection


def _chart_rows(chart) -> dict[int, float]:
    """topic -> proportion drawn by a document's topic chart (Streamlit sends its rows as Arrow)."""
    frame = pa.ipc.open_stream(chart.proto.datasets[0].data.data).read_pandas()
    return dict(zip(frame["topic"].astype(int), frame["proportion"], strict=True))


def test_a_pasted_document_gets_its_topics_coloured_like_the_others(app_path):
    at, collection = _documents_page(app_path)
    assert "Paste a text above to see its topics" in [i.value for i in at.info][-1]
    corpus = collection.corpus
    row = at.selectbox(key=Keys.document).value
    at.text_area(key=Keys.new_document).input(corpus.texts[row] + " zyzzyva").run()
    assert not at.exception, at.exception
    model = at.session_state[Keys.runs].latest().model()
    document_chart, new_chart = at.get("vega_lite_chart")[:2]
    expected = model.transform(corpus.counts[[row]])[0]
    assert _chart_rows(new_chart) == {k: p for k, p in enumerate(expected) if p >= 0.01}
    assert _chart_rows(new_chart) == _chart_rows(document_chart)  # the training document, pasted: the same topics
    assert new_chart.proto.spec == document_chart.proto.spec  # same colours and labels
    known = int(corpus.counts[row].sum())
    assert "of the model's vocabulary counted; 1 other word left out." in " ".join(c.value for c in at.caption)
    assert any(c.value.startswith(f"{known:,} words") for c in at.caption)
    assert "zyzzyva" in at.get("html")[-1].proto.body  # the pasted text is shown, its words coloured
    assert not at.warning


def test_text_without_a_known_word_says_so(app_path):
    at, _ = _documents_page(app_path)
    at.text_area(key=Keys.new_document).input("Zyzzyva qwxz, and the of.").run()
    assert not at.exception, at.exception
    assert any("None of the words of this text is in the model's vocabulary" in w.value for w in at.warning)
    assert len(at.get("vega_lite_chart")) == 1  # only the selected document's chart
    at.text_area(key=Keys.new_document).input("   ").run()
    assert not at.warning and "Paste a text above" in at.info[-1].value


def test_data_page_chooses_the_stop_word_language_and_accents(app_path):
    at = AppTest.from_file(app_path, default_timeout=90)
    at.run()
    at.switch_page("views/data.py")
    at.run()
    assert not at.exception, at.exception
    language, accents = at.selectbox(key=Keys.language), at.checkbox(key=Keys.strip_accents)
    assert (language.value, accents.value) == ("english", True)
    assert "french" in language.options or "French" in language.options
    language.set_value("french")
    accents.uncheck()
    at.run()
    assert not at.exception, at.exception
    vectorizer = at.session_state[Keys.collection].corpus.vectorizer
    assert (vectorizer.stop_words, vectorizer.strip_accents) == ("french", False)
    assert np.all(at.session_state[Keys.collection].corpus.counts.sum(axis=1) > 0)


def test_a_run_saves_its_collection_preprocessing_in_its_model_file(tmp_path):
    texts = ["Le chat et la souris dans la grange.", "Une pêche et un péché au marché.",
             "Le marché du chat; la pêche du jour.", "La souris mange une pêche au marché."] * 5
    corpus = Corpus.from_texts(texts, ids=[str(i) for i in range(len(texts))], stop_words="french",
                               strip_accents=False)
    collection = Collection.of(corpus, "french test", "test")
    record = runs.create_run(collection, runs.RunSettings(n_topics=2, n_test=2, seed=0), "#1 french",
                             checkpoint=False, one_kernel=True)
    loaded = load_model(record.run.save(tmp_path / "run.npz"))
    assert loaded.model.vectorizer_ == corpus.vectorizer
    np.testing.assert_array_equal(loaded.model.count_texts(["une pêche"]).counts.toarray(),
                                  loaded.model.count_texts(["la pêche"]).counts.toarray())


def _documents_page_of(app_path: str, corpus: Corpus, name: str) -> AppTest:
    """The app on the Documents page with a run of 3 topics fitted on ``corpus``, the collection in use."""
    at = AppTest.from_file(app_path, default_timeout=90)
    at.run()
    collection = Collection.of(corpus, name)
    at.session_state[Keys.collection] = collection
    model = LDA(n_topics=3, seed=0, n_epochs=1).fit(corpus)
    loaded = LoadedModel(model=model, vocabulary=corpus.vocabulary, trainer_state=None)
    settings = runs.RunSettings(n_topics=3, n_test=5, seed=0)
    at.session_state[Keys.runs].add(runs.RunRecord(name, f"#1 {name}", settings, collection, loaded=loaded,
                                                   checkpointed=False))
    at.switch_page("views/documents.py")
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_documents_boilerplate_is_not_shown_and_the_page_says_so(app_path):
    from tests.explorer import uploads_data as data

    texts = [f"{text} Report number {i}.\n\n{data.FOOTER[0]}\n{data.FOOTER[1]}"
             for i, text in enumerate(data.TEXTS * 2)]
    corpus = Corpus.from_texts(texts)
    assert corpus.vectorizer.boilerplate == data.FOOTER
    at = _documents_page_of(app_path, corpus, "reports")
    shown = at.get("html")[-1].proto.body
    assert ">planet</span>" in shown and "Acme" not in shown and "Subscribers" not in shown
    assert ("Repeated lines left out as boilerplate are not shown. To keep them, untick “Leave out repeated "
            "boilerplate lines” on the Data page and train a new run.") in [c.value for c in at.caption]


def test_messages_are_shown_as_their_senders_wrote_them(app_path):
    """A collection of newsgroup posts: the coloured document shows the subject and the sender's lines, not the
    headers, the quote or the signature, and the page says so; a search finds no header word."""
    from tests.explorer import uploads_data as data

    corpus = Corpus.from_texts([data.message(i, text) for i, text in enumerate(data.TEXTS * 4)])
    assert corpus.vectorizer.strip_messages
    at = _documents_page_of(app_path, corpus, "posts")
    shown = at.get("html")[-1].proto.body
    assert ">planet</span>" in shown and ">note</span> 0" in shown  # the subject, then the text
    assert not any(word in shown for word in ("Message-ID", "example.edu", "writes", "earlier", "University"))
    assert ("E-mail headers, quoted replies and signatures are not shown: the words were read without them. To keep "
            "them, untick “Leave out e-mail headers and quotes” on the Data page and train a new run."
            in [c.value for c in at.caption])
    at.text_input(key=Keys.search).input("example.edu").run()
    assert any("No document contains" in w.value for w in at.warning)


def test_web_pages_are_shown_as_their_text(app_path):
    """A collection of web pages: the coloured document and the table of a topic's documents show the pages' text,
    not their tags."""
    from tests.explorer import uploads_data as data

    # each text numbered: a line the same in 5 of the 30 pages would be left out as boilerplate
    pages = [f"<html><head><title>Page {i}</title><style>td {{ color: red }}</style></head><body><table><tr>"
             f"<td class='cell'>{text} ({i})</td></tr></table></body></html>" for i, text in enumerate(data.TEXTS * 5)]
    corpus = Corpus.from_texts(pages, min_df=2)
    assert corpus.vectorizer.strip_markup and corpus.vectorizer.boilerplate == ()
    at = _documents_page_of(app_path, corpus, "pages")
    assert not any("boilerplate" in c.value for c in at.caption)  # none found: nothing said
    shown = at.get("html")[-1].proto.body
    assert ">Page</span> 0" in shown and ">planet</span>" in shown  # the title and the text, words coloured
    assert "&lt;" not in shown and "color: red" not in shown and "cell" not in shown
    assert "<br><br><br>" not in shown and not shown.split(">", 1)[1].startswith("<br>")  # no runs of blank lines
    beginnings = at.dataframe[-1].value["Beginning"].tolist()
    assert beginnings and all("<" not in text and "color" not in text for text in beginnings)
    assert any(text.startswith("Page ") for text in beginnings)
    at.text_input(key=Keys.search).input("cell").run()  # only in the pages' tags: found in none
    assert not at.exception, at.exception
    assert any("No document contains" in w.value for w in at.warning)
    at.text_input(key=Keys.search).input("oven").run()  # in the text of 5 of the 30 pages
    assert any(c.value.startswith("5 documents found") for c in at.caption)


def test_the_document_topic_and_clouds_chosen_survive_a_visit_to_another_page(app_path):
    """Streamlit drops the values of widgets a page does not draw: the Documents page's document and topic and the
    Topics page's word-cloud switch are kept while the user looks at another page."""
    at, _ = _documents_page(app_path)
    at.selectbox(key=Keys.document).set_value(3).run()
    at.selectbox(key=Keys.topic).set_value(2).run()
    assert not at.exception, at.exception
    at.switch_page("views/topics.py")
    at.run()
    at.toggle(key=Keys.show_clouds).set_value(False).run()
    assert not at.exception, at.exception
    at.switch_page("views/train.py")
    at.run()
    at.switch_page("views/documents.py")
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key=Keys.document).value == 3 and at.selectbox(key=Keys.topic).value == 2
    at.switch_page("views/topics.py")
    at.run()
    assert not at.exception, at.exception
    assert at.toggle(key=Keys.show_clouds).value is False
    assert not at.warning  # no "created with a default value but also set through Session State"
