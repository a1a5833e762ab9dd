"""Data: choose a sample or upload documents, set the preprocessing, and preview the counts."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import cached, charts, formatting, icons, safe_text, samples, session, state, ui, uploads
from explorer.engine_api import (
    NEAR_COPY_SIMILARITY,
    PASSAGE_WORDS,
    EmptyCorpusError,
    EmptyVocabularyError,
    MissingColumnError,
    boilerplate,
    hdp_rule_topics,
    phrases,
    top_corpus_words,
)
from explorer.state import Keys

BOILERPLATE_SHOWN = 200  # blocks listed at most
SKIPPED_LISTED = 5  # skipped files, or groups of them by why, listed in full; more go to a table

st.title("Data")
st.caption("Pick the documents to find topics in. Runs you already started keep the collection they began with.")
message = state.notice(page="data")
if message:
    st.success(message, icon=icons.DONE)

available = samples.available_samples()
by_key = {s.key: s for s in available}
kind = st.radio("Where do the documents come from?", ["sample", "upload"], key=Keys.source_kind, horizontal=True,
                format_func={"sample": "A sample collection", "upload": "My own files"}.get,
                on_change=state.put, args=(Keys.left_out, []),  # documents left out name the other collection's
                help="Start with a bundled collection, or upload your own documents.")
source_box = st.container()
columns_box = st.container()

source_id = name = origin = None
source = None
text_column = title_column = None
with source_box:
    if kind == "sample":
        if not available:
            st.warning("No sample collection is installed (sample_data/ is missing); upload your own files.")
            st.stop()
        if state.get(Keys.sample) not in by_key:
            state.put(Keys.sample, available[0].key)
        key = st.selectbox("Sample collection", list(by_key), key=Keys.sample, format_func=lambda k: by_key[k].title,
                           on_change=lambda: session.use_sample_preprocessing(state.get(Keys.sample)),
                           help="Collections that come with the app; the first opens automatically.")
        sample = by_key[key]
        st.caption(sample.description)
        try:
            source = cached.sample_source(key)
        except Exception as exc:
            ui.show_error(exc)
            st.stop()
        source_id, name, origin = f"sample:{key}", sample.title, f"sample:{key}"
        text_column, title_column = sample.text_column, sample.title_column
    else:
        limits = uploads.UploadLimits.from_env()
        files = st.file_uploader(
            "Upload documents", accept_multiple_files=True, key=Keys.uploader,
            max_upload_size=max(1, limits.max_total_bytes // 1_000_000),
            help="Several .txt, Markdown (.md) or reStructuredText (.rst), PDF, Word (.docx), OpenDocument (.odt), "
                 "EPUB or slide (.pptx, .odp) files, web pages (.html) or e-mails (.eml), one document each; a .zip "
                 "of them; a .csv, .tsv or .jsonl table or an Excel or OpenDocument spreadsheet (.xlsx, .ods), one "
                 "document per row; a mailbox (.mbox, one document per message); or a bag of words: UCI "
                 "docword.*.txt + vocab.*.txt, or LDA-C .dat + vocab.txt.")
        if files:
            named = tuple((f.file_id, f.name, f.size) for f in files)
            chosen, sheet = state.get(Keys.encoding) or "", state.get(Keys.sheet) or ""
            last = state.upload_signature()
            same_files = last is not None and last[0] == named
            if not same_files and (chosen or sheet):  # new files: detect their encoding, read the default sheet
                chosen = sheet = ""
                state.set_widgets({Keys.encoding: None, Keys.sheet: None})
            if (named, chosen, sheet) != last:
                state.set_upload_signature((named, chosen, sheet))
                try:
                    with st.spinner(f"Reading {formatting.plural(len(files), 'file')}…"):  # PDF files take a while
                        uploaded = uploads.read_upload([(f.name, f.getvalue()) for f in files], limits,
                                                       encoding=chosen or None, sheet=sheet or None)
                    if getattr(uploaded, "sheet", None) is not None:  # the sheet read by default: no second read
                        state.set_widgets({Keys.sheet: uploaded.sheet})
                        state.set_upload_signature((named, chosen, uploaded.sheet))
                    session.use_source(uploaded, keep_choices=same_files and sheet == (last[2] if last else ""))
                    st.rerun()
                except Exception as exc:
                    state.set_upload_error(ui.error_text(exc))
            if state.upload_error():
                st.error(state.upload_error() + " The collection in use has not changed.", icon=icons.WARNING)
        current = state.source()
        if current is None:
            st.info("Upload files to see them here. Until then the collection in use stays as it is.")
            st.stop()
        source_id, source = current
        name, origin = source.name, f"upload:{source.name}"
        shown = safe_text.markdown(source.name)
        if source.kind == "table" and len(source.sheets) > 1:
            st.caption(f"Uploaded: **{shown}**, a workbook of {len(source.sheets)} sheets. Each row of the sheet "
                       "chosen here is a document (at first the sheet with the most rows); its first rows are below.")
            st.columns([1, 2])[0].selectbox("Sheet", source.sheets, key=Keys.sheet,
                                            help="The sheet whose rows are the documents.")
        elif source.kind == "table":
            st.caption(f"Uploaded: **{shown}**, a table with one document per row (its first rows below).")
        else:
            st.caption(f"Uploaded: **{shown}** — {formatting.plural(source.n_rows, 'document')}")
            read = uploads.documents_note(source)
            if read is not None:
                st.caption(read)
        title = uploads.title_note(source)  # a sheet's rows above its header, quoted: the user's text
        if title is not None:
            st.caption(safe_text.markdown(title))
        note = uploads.encoding_note(source)
        if note is not None:
            left, _ = st.columns([1, 2])
            left.selectbox("Text encoding", ["", *uploads.ENCODINGS], key=Keys.encoding,
                           format_func=lambda e: e or "detect for each file",
                           help="How the files' bytes become letters. It is detected for each file; if accented "
                                "letters look wrong (“crÃ¨me”, “cr?me”), choose the files' encoding to read "
                                "them again.")
            st.caption(safe_text.markdown(note))
        if source.kind == "table":
            with columns_box:
                st.dataframe(source.preview.head(5), hide_index=True, height=210)
                left, right = st.columns(2)
                if state.get(Keys.text_column) not in source.text_columns:
                    state.put(Keys.text_column, source.text_columns[0])
                if state.get(Keys.title_column) not in ("", *source.columns):
                    state.put(Keys.title_column, "")
                text_column = left.selectbox("Column with the text", source.text_columns, key=Keys.text_column,
                                             on_change=session.use_guessed_language,
                                             help="Each row's text in this column becomes one document.")
                title_column = right.selectbox("Column with a title (optional)", ["", *source.columns],
                                               key=Keys.title_column, format_func=lambda c: c or "(none: row numbers)",
                                               help="Shown to name documents on the Documents page.") or None

bag_of_words = isinstance(source, uploads.BagOfWordsSource)
st.subheader("Preprocessing")
prep_box = st.container()
with prep_box:
    if bag_of_words:
        st.caption("This collection is a bag of words already: its counts are used as they are (documents can still "
                   "be left out below).")
    left, middle, right = st.columns(3)
    guess = cached.language_guess(source_id, text_column, source)
    left.selectbox("Language of the stop words", uploads.language_options(guess, state.get(Keys.language)),
                   key=Keys.language, disabled=bag_of_words, format_func=uploads.language_label,
                   help="Stop words are the common words of a language (the, and, of… or le, et, de…) that say "
                        "nothing about topics; they are left out. The language is guessed from the documents "
                        "when they are uploaded; in a collection in two languages (English + French) each "
                        "paragraph loses the stop words of its own language.")
    language = session.preprocessing().language
    note = uploads.language_note(guess, language)
    if note is not None and note.level == "info":
        left.caption(safe_text.markdown(note.text))
    left.text_area("Extra stop words", key=Keys.stop_words, height=68, disabled=bag_of_words,
                   placeholder="e.g. congress, government",
                   help="Words to ignore besides the language's usual stop words; separate them with commas. When a "
                        "word's forms are counted as one word, any of its forms leaves out the word and all its "
                        "forms.")
    middle.number_input("Ignore words in fewer than … documents", min_value=1, step=1, key=Keys.min_df,
                        disabled=bag_of_words, help="Rare words (typos, names) make topics noisy; 5 is a good start.")
    middle.slider("Ignore words in more than this share of documents", 0.05, 1.0, step=0.05, key=Keys.max_df,
                  disabled=bag_of_words, help="Words in almost every document say little about topics; 0.5 ignores "
                  "words found in more than half of them.")
    right.number_input("Keep at most … words (0 = no cap)", min_value=0, step=500, key=Keys.max_features,
                       disabled=bag_of_words,
                       help="A smaller vocabulary trains faster; the most frequent words are kept.")
    right.checkbox("Ignore accents", key=Keys.strip_accents, disabled=bag_of_words,
                   help="Count “pêche” and “péché” as one word (“peche”). Untick it to keep accented words apart "
                        "and show them as written; it is unticked when the documents are in another language "
                        "than English.")
    right.checkbox("Leave out HTML/XML tags", key=Keys.strip_markup, disabled=bag_of_words,
                   help="Read web pages and exported markup as their text: tags, comments, scripts and styles are "
                        "left out and “&amp;” is read as “&”, so that “td”, “div” or “href” do not become words. "
                        "It is ticked when the documents hold such tags.")
    right.checkbox("Leave out e-mail headers and quotes", key=Keys.strip_messages,
                   disabled=bag_of_words,
                   help="For mailbox exports, mailing-list archives and newsgroup posts: each message is read as its "
                        "subject and what its sender wrote. Header lines (addresses, dates, message ids, servers), "
                        "quoted lines (“> …”) with the line that introduces them (“… wrote:”) and the signature "
                        "after a “-- ” line are left out, so that “com”, “edu” or “writes” do not become topics. "
                        "Other documents are read whole. It is ticked when a tenth of the documents or more are "
                        "e-mail messages.")
    right.checkbox("Cut long documents into passages", key=Keys.split_passages, disabled=bag_of_words,
                   help="Topics are learned from how words occur together across many documents; a few long ones "
                        f"(a book, a report, a transcript) give little to learn from. Each document is cut into "
                        f"passages of about {PASSAGE_WORDS} words at paragraph breaks, and each passage is a "
                        f"document. It is ticked when there are fewer than {uploads.FEW_DOCUMENTS} documents of "
                        f"{2 * PASSAGE_WORDS} words or more on average.")
    right.checkbox("Leave out repeated boilerplate lines", key=Keys.strip_boilerplate, disabled=bag_of_words,
                   help="Blocks of lines that many documents share word for word (page headers and footers, "
                        "licences, translators' credits, signatures) otherwise become topics of their own. A line "
                        f"counts when at least {formatting.percent(boilerplate.MIN_SHARE, 2)} of the documents (and "
                        f"{boilerplate.MIN_DOCUMENTS} or more) hold it, in runs of {boilerplate.MIN_WORDS} words or "
                        "more.")
    right.checkbox("Leave out copies of a document", key=Keys.drop_copies, disabled=bag_of_words,
                   help="A document that holds the same words in the same order as an earlier one (a reposted "
                        "article, a forwarded e-mail, a licence shipped with every package) is read once: the "
                        "first is kept and the copies are listed under the preview. Copies of one text otherwise "
                        "take topics of their own, and a copy of a held-out test document among the training "
                        "documents makes the held-out score too good. Letter case, punctuation, spacing and markup "
                        "do not tell copies apart; any word or number does.")
    right.checkbox("Leave out near-copies too", key=Keys.near_copies,
                   disabled=bag_of_words or not state.get(Keys.drop_copies, True),
                   help="A document that repeats an earlier one but for a sentence or a few words (a revised "
                        "version, a page with another date, an article reposted with a new first line) is read "
                        "once as well: at least "
                        f"{formatting.percent(NEAR_COPY_SIMILARITY, 2)} of the runs of five words in either "
                        "document are in both. Many near-copies of a text take topics of their own, as copies do. "
                        "The collections we measured held few, and leaving those few out changed the topics "
                        "little, so it is not ticked by default. Finding them takes about as long again as reading "
                        "the documents.")
    right.checkbox("Read frequent word pairs as one word", key=Keys.join_phrases, disabled=bag_of_words,
                   help="Pairs of words that the documents write side by side far more often than chance, such as "
                        "“united states” or “health care”, are read as one word, so that a topic's top words show "
                        "the phrase rather than its two halves. A pair counts when it stands side by side (nothing "
                        f"but spaces, hyphens or a line break between) at least {phrases.MIN_COUNT} times, in "
                        f"{phrases.MIN_DOCUMENTS} documents or more, and its words go together far more than "
                        "chance would have them (normalized PMI of at least "
                        f"{phrases.MIN_NPMI}). Reading the documents takes about three times as long.")
    right.checkbox("Count a word's forms as one word", key=Keys.merge_word_forms, disabled=bag_of_words,
                   help="“tax” and “taxes”, “child” and “children”, “say”, “says” and “said” are counted as one "
                        "word, shown as the form the documents write most, so that a topic's top words do not spend "
                        "two places on one word. The forms come from a dictionary of each word's forms (simplemma), "
                        "looked up without the sentence, so a form that is also another word joins the word the "
                        "dictionary gives first (“goods” counts with “good”, “rights” with “right”); a form that "
                        "does not start with the same two letters as its word stays apart (“better”, “went”). "
                        "Known for most languages with stop words here, not for Chinese, Japanese, Korean, "
                        "Gujarati or Vietnamese. Reading the documents takes about twice as long.")
    if guess is not None and guess.messages:
        right.caption("These documents are e-mail or newsgroup messages"
                      + ("; each is read without its headers, quoted replies and signature."
                         if state.get(Keys.strip_messages)
                         else ": tick the box above to leave their headers, quotes and signatures out of the words."))
    if guess is not None and guess.markup:
        right.caption("These documents hold HTML or XML markup"
                      + ("; its tags are left out." if state.get(Keys.strip_markup)
                         else ": tick the box above to leave its tags out of the words."))

try:
    collection = cached.source_collection(source_id, name, origin, session.preprocessing(), text_column,
                                          title_column, source)
except Exception as exc:
    text = str(exc)
    if source.kind == "table" and isinstance(exc, (MissingColumnError, EmptyCorpusError)):
        ui.show_error(exc, columns_box)
    elif isinstance(exc, EmptyVocabularyError) or any(w in text for w in ("min_df", "max_df", "max_features")):
        ui.show_error(exc, prep_box)
    else:
        ui.show_error(exc, source_box)
    st.caption("The collection in use has not changed.")
    if state.get(Keys.left_out):  # e.g. every document left out: the list below is not drawn until it builds
        st.button("Put back the documents left out", key=Keys.put_back, on_click=state.put, args=(Keys.left_out, []))
    st.stop()

if session.use_collection(collection, sample.n_topics if kind == "sample" else None):
    state.notice(f"New runs will train on “{safe_text.markdown(collection.name)}”.", page="data")
    st.rerun()  # the sidebar and the other pages follow the new collection
corpus = collection.corpus
if state.get(Keys.split_passages) and source.kind != "bow":
    with prep_box:
        st.caption(uploads.passages_note(corpus))
if state.get(Keys.join_phrases) and source.kind != "bow":
    found = uploads.phrases_found(corpus)
    with prep_box:
        st.caption(safe_text.markdown(uploads.phrases_note(corpus, found)))
        if not found.empty:
            with st.expander("Phrases read as one word"):
                st.dataframe(found, hide_index=True, width="stretch")
if state.get(Keys.merge_word_forms) and source.kind != "bow":
    merged = uploads.word_forms_found(corpus)
    with prep_box:
        st.caption(safe_text.markdown(uploads.word_forms_note(corpus, merged, session.preprocessing().language)))
        if not merged.empty:
            with st.expander("Words counted with their other forms"):
                st.dataframe(merged, hide_index=True, width="stretch")
read_as_messages = cached.messages_left_out(collection)
if read_as_messages is not None and read_as_messages.messages:
    with prep_box:
        st.caption(f"Read as e-mail messages: {formatting.count(read_as_messages.messages)} of "
                   f"{formatting.count(len(corpus.texts))} documents. Their headers, quoted replies and signatures "
                   f"held {formatting.percent(read_as_messages.words_removed / max(read_as_messages.words, 1), 2)} of "
                   "the words, which are left out.")
left_out = cached.boilerplate_report(collection)
if left_out is not None and left_out.documents:
    with prep_box:
        st.caption(f"Left out as boilerplate: {formatting.percent(left_out.words_removed / left_out.words, 2)} of the "
                   f"words, in {formatting.count(left_out.documents)} of {formatting.count(len(corpus.texts))} "
                   f"documents: {formatting.plural(len(left_out.blocks), 'block')} of lines that many documents "
                   "share word for word.")
        with st.expander("Blocks left out as boilerplate"):
            if len(left_out.blocks) > BOILERPLATE_SHOWN:
                st.caption(f"The {formatting.count(BOILERPLATE_SHOWN)} blocks in most documents, of "
                           f"{formatting.count(len(left_out.blocks))}.")
            shown = left_out.blocks[:BOILERPLATE_SHOWN]
            st.dataframe(pd.DataFrame({"Block": [" / ".join(block.lines) for block in shown],
                                       "Documents": [block.documents for block in shown],
                                       "Words": [block.words for block in shown]}),
                         hide_index=True, width="stretch")
if corpus.copies:
    near = len(corpus.near_copies)
    with prep_box:
        exact, nearly = len(corpus.copies) - near, (f"nearly (at least {formatting.percent(NEAR_COPY_SIMILARITY, 2)} "
                                                    "of their runs of five words the same)")
        how = (" word for word (the same words in the same order)" if not near else f" {nearly}" if not exact else
               f", {formatting.count(exact)} word for word and {formatting.count(near)} {nearly}")
        st.caption(f"Left out as copies: {formatting.plural(len(corpus.copies), 'document')} of "
                   f"{formatting.count(corpus.n_docs + len(corpus.dropped))} repeat an earlier document{how}; the "
                   "first of each is kept. They are listed under the preview.")
left_out_ids = list(state.get(Keys.left_out) or [])
offered = cached.longest_documents(collection.key, collection)
offered_titles = {d.doc_id: d.title for d in corpus.left_out} | {d.doc_id: d.title for d in offered}
with prep_box:
    st.multiselect(
        "Leave out documents", [*left_out_ids, *(d for d in offered_titles if d not in left_out_ids)],
        key=Keys.left_out, format_func=lambda doc_id: offered_titles.get(doc_id, doc_id),
        placeholder=f"Choose among the {uploads.LEAVE_OUT_OFFERED} longest documents",
        help="Documents to leave out of training, for example a very long one among short ones, whose words would "
             "fill topics of their own (text is left out before its words are counted, with its copies). The "
             "longest documents are offered, longest first; those left out are listed under the preview.")
if note is not None and note.level == "warning":  # named by the words the chosen list leaves in the vocabulary
    note = uploads.language_note(guess, language, corpus)
    with prep_box:
        st.warning(safe_text.markdown(note.text), icon=icons.WARNING)
        st.button(f"Use {uploads.language_label(note.suggestion)} stop words", key=Keys.use_language,
                  on_click=state.put, args=(Keys.language, note.suggestion))
st.subheader("Preview")
cols = st.columns(4)
cols[0].metric("Documents", formatting.count(corpus.n_docs))
cols[1].metric("Distinct words (vocabulary)", formatting.count(corpus.n_words))
cols[2].metric("Words in all (tokens)", formatting.count(corpus.n_tokens))
cols[3].metric("Documents that became empty", formatting.count(len(corpus.emptied)),
               help="Documents with no word left after preprocessing are left out of training; they are listed below.")
hdp = state.get(Keys.model) == "HDP"  # it finds its number of topics: the rule reads one for every 10 documents
n_train = max(1, corpus.n_docs - int(state.get(Keys.n_test) or 0))  # ... it trains on, as fit's rule does
n_topics = hdp_rule_topics(n_train) if hdp else int(state.get(Keys.n_topics) or 10)
long = cached.long_documents(collection.key, n_topics, collection)
if long:
    st.warning(uploads.long_documents_note(long, n_topics, hdp=hdp), icon=icons.WARNING)
    st.button("Leave out this document" if len(long) == 1 else f"Leave out these {len(long)} documents",
              key=Keys.leave_long_out, on_click=state.put,
              args=(Keys.left_out, [*left_out_ids, *(d.doc_id for d in long)]))
left, right = st.columns([3, 2])
words = pd.DataFrame(top_corpus_words(corpus.counts, corpus.vocabulary, 25), columns=["word", "count"])
left.altair_chart(charts.word_counts_chart(words), width="stretch")
with right:
    if corpus.emptied:
        st.markdown(f"**{formatting.plural(len(corpus.emptied), 'document')} became empty**")
        st.dataframe(pd.DataFrame([(d.title, d.reason) for d in corpus.emptied], columns=["Document", "Why"]),
                     hide_index=True, height=240)
    else:
        st.success("No document became empty.", icon=icons.DONE)
    if corpus.copies:
        st.markdown(f"**{formatting.plural(len(corpus.copies), 'copy', 'copies')} left out**")
        titles = dict(zip(corpus.doc_ids, corpus.titles, strict=True)) | {d.doc_id: d.title for d in corpus.dropped}
        st.dataframe(pd.DataFrame([(d.title, titles.get(d.copy_of, d.copy_of),
                                    "word for word" if d.similarity is None else
                                    f"{formatting.whole_percent(d.similarity)} the same")
                                   for d in corpus.copies], columns=["Document", "Repeats", "How"]),
                     hide_index=True, height=240)
    if corpus.left_out:
        st.markdown(f"**{formatting.plural(len(corpus.left_out), 'document')} left out**")
        st.dataframe(pd.DataFrame({"Document": [d.title for d in corpus.left_out]}), hide_index=True,
                     height=min(240, 35 * (len(corpus.left_out) + 1) + 3))  # no blank rows under a short list
    if corpus.skipped:
        st.markdown(f"**{formatting.plural(len(corpus.skipped), 'file')} skipped**")
        if len(corpus.skipped) <= SKIPPED_LISTED:  # a few reasons in full: each says what to do
            st.markdown("\n".join(f"- {safe_text.markdown(s.name)}: {safe_text.markdown(s.reason)}"
                                   for s in corpus.skipped))
        else:  # grouped by why, a site's hundreds of style sheets and scripts in one line; every file below
            groups = uploads.skipped_groups(corpus.skipped)
            if len(groups) <= SKIPPED_LISTED:  # a few reasons, in full: how many files, why, a few of their names
                st.markdown("\n".join(f"- {formatting.plural(int(n), 'file')}: {safe_text.markdown(why)} "
                                       f"({safe_text.markdown(names)})" for n, why, names in groups.to_numpy()))
            else:
                st.dataframe(groups, hide_index=True, height=min(240, 35 * (len(groups) + 1) + 3),
                             column_config={"Files": st.column_config.NumberColumn(width="small")})
            with st.expander(f"Every skipped file ({formatting.count(len(corpus.skipped))})"):
                st.dataframe(pd.DataFrame([(s.name, s.reason) for s in corpus.skipped], columns=["File", "Why"]),
                             hide_index=True, height=240)
st.page_link("views/train.py", label="Train a topic model on this collection", icon=icons.TRAIN)
