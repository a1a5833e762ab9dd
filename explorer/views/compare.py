"""Stochastic vs batch: SVI and batch VI on the same documents, held-out curves against time."""

from __future__ import annotations

import dataclasses

import streamlit as st

from explorer import cached, charts, comparison, formatting, icons, safe_text, session, tables, ui
from explorer.runs import CapReachedError
from explorer.state import Keys

st.title("Stochastic vs batch")
collection = ui.require_collection()
st.markdown(
    "**Batch** variational inference reads *every* document before it improves the topics once, then reads "
    "them all again. **Stochastic** variational inference reads a small random batch, improves the topics a "
    "little, and goes on with the next batch. On a large collection the stochastic version has improved the "
    "topics many times over before batch inference has finished its first pass — so for the same time, "
    "it predicts unseen documents better. Batch inference on a small *subset* is fast too, but it never sees "
    "most of the documents, so it stalls (Hoffman, Blei, Wang & Paisley 2013)."
)
n_legs = 3 if collection.corpus.n_docs > comparison.LARGE_COLLECTION else 2
left, middle, right, last = st.columns([2, 1, 1, 1])
seconds = left.slider("Training time per algorithm (seconds)", 2, 30, step=1, key=Keys.compare_seconds,
                      help="Each algorithm trains this long, one after the other, so they are timed fairly.")
kappa = middle.slider("κ for stochastic VI", 0.5, 1.0, step=0.05, key=Keys.compare_kappa,
                      help="Forgetting rate of the step sizes. 0.7 with τ = 64 suits collections of a few "
                           "thousand documents; the paper's large runs used κ between 0.5 and 0.9.")
tau = right.number_input("τ for stochastic VI", 0.0, 10_000.0, step=16.0, key=Keys.compare_tau,
                         help="Delay: a larger τ makes the first, noisy steps smaller.")
last.metric("Total time", formatting.duration(seconds * n_legs + 3 * n_legs),
            help="Training time plus the held-out measurements.")
# the κ and τ chosen here: stochastic VI runs on the schedule even when the Train page chose the adaptive rule
settings = dataclasses.replace(session.settings(), kappa=kappa, tau=tau, step_size="schedule")
st.caption(f"Model: {settings.label()} on **{safe_text.markdown(collection.name)}** "
           "(the other settings come from the Train page)"
           + (", with batch VI also on a 10% subset, as in the paper." if n_legs == 3 else "."))

session_runs = session.runs()
box = st.container()
if box.button("Run the comparison", type="primary", key=Keys.compare_start, icon=icons.COMPARE,
              disabled=session_runs.comparison is not None and session_runs.comparison.active,
              help="Trains stochastic VI, then batch VI, each for the chosen time, and draws their curves."):
    try:
        run = comparison.Comparison(comparison.plan(collection, settings), seconds, cached.limiter())
        run.start()
        session_runs.comparison = run
        st.rerun()
    except CapReachedError as exc:
        box.warning(str(exc), icon=icons.BUSY)
    except Exception as exc:
        ui.show_error(exc, box)


polling = session_runs.comparison is not None and session_runs.comparison.active


@st.fragment(run_every=1.0 if polling else None)
def results() -> None:
    with ui.guard():
        _results()


def _results() -> None:
    current = session.runs().comparison
    if current is None:
        st.info("Press **Run the comparison**: it takes well under a minute on the sample collections.",
                icon=icons.TIMER)
        return
    leg = current.current()
    text = f"Training: {leg.name}" if leg else ("Done" if current.finished else "Starting…")
    st.progress(current.progress(), text=text)
    if current.active and st.button("Stop the comparison", key=Keys.compare_stop, icon=icons.STOP,
                                    help="End the comparison now; the curves drawn so far stay."):
        current.stop()
        st.rerun()
    if current.error:
        st.error(f"The comparison stopped: {current.error}", icon=icons.ERROR)
    curves = tables.curves_frame(current.records)
    if not curves.empty:
        st.altair_chart(charts.heldout_chart(curves, x="seconds", color_title="Algorithm", steps=True), width="stretch",
                        key=Keys.compare_chart)
    if current.finished:
        st.markdown(comparison.summary(current))
        same = comparison.same_topics(current, cached.topic_match)
        if same:
            st.markdown(same)
        st.dataframe(tables.run_table(current.records, ui.status_text)[
            ["Run", "Documents analysed", "Training time", "Held-out log likelihood"]], hide_index=True)
    if polling and not current.active:
        st.rerun()  # finished: draw the page once more and stop polling


results()
