"""Export / import: download topics, proportions, curves and the model; load a model; resume checkpoints."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import cached, formatting, icons, porting, safe_text, session, state, tables, topic_cards, ui
from explorer.state import Keys

st.title("Export / import")
record = session.current_record()

st.subheader("Download")
if record is None or record.model() is None:
    st.info("Train a model (or load one below) to download its topics.", icon=icons.TRAIN)
else:
    model = record.model()
    labels = topic_cards.topic_labels(record, model)
    vocabulary = topic_cards.vocabulary_of(record, model.n_words)
    collection = session.collection_for(record)
    slug = porting.slug(record.name)
    measured = cached.run_quality(record)  # the coherence the Topics page shows, for topics.csv
    coherence = None if measured is None else measured.coherence
    st.caption(f"From **{safe_text.markdown(record.name)}** (step {formatting.count(record.model_step)}).")
    st.caption("Topics are numbered from 0, as in the Topics page and `svi-topics topics`; duplicate labels "
               "get their topic number (“Economy (topic 3)”).")
    cols = st.columns(5)
    topics_csv = tables.topics_csv_frame(model, vocabulary, labels).to_csv(index=False)
    cols[0].download_button("Topics (CSV)", topics_csv, f"{slug}-topics.csv", "text/csv", key=Keys.export_topics,
                            icon=icons.TOPICS,
                            help="Each topic's 30 most probable words: topic, label, word, weight (its share "
                                 "of the topic).")
    if collection is not None:
        cols[1].download_button("Document–topic proportions (CSV)",
                                porting.doc_topic_csv(model, collection, dict(record.labels), coherence),
                                f"{slug}-documents.csv", "text/csv", key=Keys.export_documents, icon=icons.DOCUMENTS,
                                help="One row per document: its id and the collection's other columns, then one "
                                     "column per topic with the share of the document each topic takes.")
    else:
        cols[1].caption("Document proportions need the collection the model was trained on.")
    curves = tables.curves_frame(session.runs())
    cols[2].download_button("Held-out curves (CSV)", curves.to_csv(index=False), "heldout-curves.csv", "text/csv",
                            key=Keys.export_curves, icon=icons.CHART, disabled=curves.empty,
                            help="Every held-out measurement of every run of this session (setting changes "
                                 "are in the model file's history).")
    cols[3].download_button("Model file (.npz)", porting.model_bytes(record), f"{slug}.npz",
                            "application/octet-stream", key=Keys.export_model, icon=icons.EXPORT,
                            help="The model with its training history and current labels, to open again here "
                                 "or continue training.")
    full = porting.full_export(model, vocabulary, dict(record.labels), collection, coherence)
    refusal = porting.full_export_refusal(model)
    cols[4].download_button("Full export (.zip)", full, f"{slug}-export.zip", "application/zip",
                            key=Keys.export_full, icon=icons.EXPORT, disabled=refusal is not None,
                            help=refusal or "Every word of every topic (topic_words.csv, and .parquet when pyarrow is "
                                 "installed), the labels with each topic's share, coherence and warnings "
                                 "(topics.csv), and with the collection the document–topic table, "
                                 "document lengths and term frequencies: what `svi-topics export` writes.")

st.subheader("Load a model file")
upload = st.file_uploader("Model file (.npz)", type=["npz"], key=Keys.model_upload,
                          help="A file downloaded above (or saved by the command line tool).")
if upload is not None and upload.file_id != state.get(Keys.model_upload_done):
    state.put(Keys.model_upload_done, upload.file_id)
    try:
        loaded_record = porting.import_model(upload.name, upload.getvalue())
        session.runs().add(loaded_record)
        state.select_run(loaded_record.run_id)
        state.notice(porting.import_message(loaded_record) + porting.keep_import(loaded_record), page="export")
        st.rerun()
    except Exception as exc:
        ui.show_error(exc)
message = state.notice(page="export")
if message:
    st.success(message, icon=icons.OPEN)

st.subheader("Checkpoints")
st.caption(f"Runs are saved every few seconds {porting.checkpoint_folder()}, with the model files loaded above "
           "and merged runs; after a crash or a restart, resume or open them here.")
checkpoints = porting.checkpoints()
if not checkpoints:
    st.caption("No checkpoint yet.")
else:
    live = {r.run_id for r in session.runs() if r.active}
    table = pd.DataFrame([{
        "Run": c.name + (" (training now)" if c.run_id in live else ""), "Collection": c.collection_name,
        "Started": c.started, "Last saved": f"{formatting.duration(c.age)} ago",
        "Size": formatting.file_size(c.size)} for c in checkpoints])
    st.dataframe(table, hide_index=True, width="stretch")
    by_id = {c.run_id: c for c in checkpoints}
    chosen = st.selectbox("Checkpoint", list(by_id), key=Keys.checkpoint,
                          help="A run saved in this workspace, newest first.",
                          format_func=lambda i: f"{by_id[i].name} — started {by_id[i].started}")
    browse_only = porting.browse_only_reason(by_id[chosen])
    left, middle, right = st.columns(3)
    action = None
    if left.button("Resume training", key=Keys.checkpoint_resume, icon=icons.PLAY, type="primary",
                   disabled=browse_only is not None,
                   help=browse_only or "Continue this run exactly where its checkpoint ends (as a new run)."):
        action = "resume"
    if middle.button("Open to browse", key=Keys.checkpoint_open, icon=icons.OPEN,
                     help="Look at its topics without training."):
        action = "open"
    if right.button("Delete", key=Keys.checkpoint_delete, icon=icons.DELETE,
                    help="Remove this checkpoint from the disk."):
        action = "delete"
    if action is not None:
        try:
            porting.checkpoint_action(action, by_id[chosen])
        except Exception as exc:
            ui.show_error(exc)
        else:
            if action == "resume":
                st.switch_page("views/train.py")
            st.rerun()
