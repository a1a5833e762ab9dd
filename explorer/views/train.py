"""Train: settings of a run, start/pause/resume/stop, and the live held-out curve of every run."""

from __future__ import annotations

import streamlit as st

from explorer import icons, safe_text, session, state, training, ui
from explorer.engine_api import DEFAULT_PASSES, MAX_DEFAULT_TARGET_DOCS, MIN_DEFAULT_TARGET_DOCS
from explorer.state import Keys

st.title("Train")
collection = ui.require_collection()
message = state.notice()
if message:
    st.info(message, icon=icons.INFO)
st.caption(f"Training on **{safe_text.markdown(collection.name)}**. Each step reads a small random batch of "
           "documents and nudges the topics; the curve shows how well the model predicts words of documents it never "
           "trained on (higher is better).")

settings_column, live_column = st.columns([1, 2], gap="large")
with settings_column:
    st.subheader("Settings")
    model = st.segmented_control("Model", ["LDA", "HDP"], key=Keys.model, required=True,
                                 help="LDA finds a fixed number of topics K; the HDP decides how many of up to K "
                                      "topics the documents need.")
    left, right = st.columns(2)
    if model == "HDP":
        left.number_input("Topics at most (K)", 2, 1000, step=5, key=Keys.hdp_topics,
                          help="The HDP uses as many of these topics as the documents need (150 is generous).")
        right.number_input("Topics per document at most (T)", 1, 100, step=1, key=Keys.doc_truncation,
                           help="How many topics one document can mix, at most K (the default, 20, is plenty).")
        if st.toggle("Split large topics", key=Keys.births,
                     help="Births: splitting its largest topics now and then, the HDP keeps more topics in use and "
                          "predicts held-out words better. Off, small collections train faster (four passes over "
                          "2,000 news articles take about a quarter less time), with fewer topics in use."):
            st.caption("After each of its first three passes the HDP splits its largest topics in two along the "
                       "documents that use them, and four passes later merges back any pair that stayed alike; the "
                       "curve marks each split and may step there. Pairs still waiting when the run ends are judged "
                       "then.")
        few = training.hdp_small_collection_note(collection)
        if few:
            st.caption(few)
    else:
        left.number_input("Number of topics (K)", 2, 500, step=1, key=Keys.n_topics,
                          help="How many topics to look for; try 5 to 50.")
    right.number_input("α (0 = automatic)", 0.0, 100.0, step=0.05, format="%.3f", key=Keys.alpha,
                       help="How many topics a document mixes: small α → few topics per document. "
                            "Automatic: the engine default (LDA: 0.2 up to 25 topics, 0.1 from 50; HDP: 1).")
    left.number_input("η", 0.0001, 10.0, step=0.005, format="%.4f", key=Keys.eta,
                      help="How many words a topic spreads over: small η → topics with fewer, sharper words.")
    if model == "HDP":
        right.number_input("ω", 0.01, 100.0, step=0.1, key=Keys.omega,
                           help="Corpus-level concentration of the HDP: larger ω → more topics in use.")
    training.schedule_controls(collection)
    left, right = st.columns(2)
    left.number_input("Held-out test documents", 1, max(1, collection.corpus.n_docs - 2), step=50, key=Keys.n_test,
                      help="Documents kept out of training to measure the curve; more gives a smoother curve "
                           "but each measurement takes longer.")
    right.number_input("Seed", 0, 2**31 - 1, step=1, key=Keys.seed,
                       help="Same seed and settings give the same run; change it to see another random start.")
    st.number_input("Documents to analyse", 1, 10**9, step=1000, key=Keys.target_docs,
                    help="The run stops after reading this many documents (counting repeats); the progress bar and "
                         f"the time estimate refer to it. It starts at {DEFAULT_PASSES} passes over the training "
                         f"documents, at least {MIN_DEFAULT_TARGET_DOCS:,} and at most {MAX_DEFAULT_TARGET_DOCS:,} "
                         "documents unless that is less than one pass, as the command line does.")
    with st.expander("Advanced: where to train"):
        training.where_control()
    start_box = st.container()
    left, right = start_box.columns([3, 2])
    if left.button("Start a new run", type="primary", key=Keys.train_start, icon=icons.PLAY, width="stretch",
                   help="Train with these settings; earlier runs are kept so their curves can be compared."):
        training.start_new_run(collection, start_box)
    if right.button("Reset", key=Keys.train_reset, icon=icons.RESET, width="stretch",
                    help="Stop and forget every run of this session and restore the default settings."):
        session.reset()
        st.rerun()

with live_column:
    training.live_panel(session.runs().any_active())
