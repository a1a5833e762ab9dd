"""The Train page's parts: the step-size controls and the live panel (a fragment)."""

from __future__ import annotations

import dataclasses
import itertools

import pandas as pd
import streamlit as st

from explorer import cached, charts, clusters, formatting, icons, quality, safe_text, session, state, tables, ui
from explorer.engine_api import (
    HDP,
    LDA,
    Workload,
    first_pass_batch_size,
    recurring_words,
    splittable_documents,
)
from explorer.runs import CapReachedError, RunRecord, RunSettings, create_run, resume_checkpoint
from explorer.state import Keys
from explorer.storage import Collection, checkpoint_path

__all__ = ["hdp_small_collection_note", "live_panel", "n_training_documents", "n_training_words", "schedule_controls",
           "start_new_run", "where_control"]

SCHEDULE_KEYS = {Keys.kappa: "kappa", Keys.tau: "tau", Keys.batch_size: "batch_size"}
STEP_SIZE_CHOICES = {"schedule": "The paper's schedule κ/τ", "adaptive": "Adaptive (Ranganath et al. 2013)"}


def _apply_to_current(key: str) -> None:
    """on_change of κ, τ, S: a training run takes the new value on the fly (marked on its curve)."""
    record = session.current_record()
    if record is None or not record.active or record.settings.algorithm != "svi":
        return
    value = state.get(key)
    if key != Keys.batch_size and record.settings.step_size == "adaptive":
        st.toast(f"{safe_text.markdown(record.name)} uses the adaptive step size: κ and τ apply to the next run",
                 icon=icons.INFO)
        return
    try:
        record.run.set_schedule(**{SCHEDULE_KEYS[key]: value})
        symbol = tables.SETTING_SYMBOLS[SCHEDULE_KEYS[key]]
        st.toast(f"{safe_text.markdown(record.name)}: {symbol} set to {value:g}", icon=icons.TUNE)
    except (ValueError, RuntimeError, TypeError) as exc:
        st.toast(ui.error_text(exc), icon=icons.WARNING)


def n_training_documents(collection: Collection) -> int:
    """The training documents the Train page's held-out count leaves (at least 1)."""
    return max(1, collection.corpus.n_docs - int(state.get(Keys.n_test, 1)))


def hdp_small_collection_note(collection: Collection) -> str | None:
    """The Train page's caution before an HDP run on the collection's training documents, if they are few or share
    few words (``quality.hdp_small_collection_note``); their words are counted only when the documents are enough."""
    n_train = n_training_documents(collection)
    counted = n_train >= quality.HDP_FEW_DOCUMENTS  # fewer documents are the reason whatever their words
    return quality.hdp_small_collection_note(n_train, n_training_words(collection) if counted else None)


def n_training_words(collection: Collection) -> int:
    """The words (tokens) of the training documents the Train page's held-out count and seed leave whose word is
    in two or more of them (``engine.recurring_words``); those of all the documents while that count cannot be split
    off (starting a run then says why)."""
    try:
        return cached.recurring_training_words(collection.key, int(state.get(Keys.n_test, 1)),
                                               int(state.get(Keys.seed, 0)), collection)
    except ValueError:
        return recurring_words(collection.corpus.counts)


def _first_pass(model, n_train: int, batch_size: int) -> tuple[int, int] | None:
    """(size, steps) of an LDA run's smaller first-pass steps over ``n_train`` documents; None if they take S."""
    size = first_pass_batch_size(n_train, batch_size, model.first_pass_steps)
    return (size, -(-n_train // size)) if size < batch_size else None


def schedule_controls(collection: Collection) -> None:
    """The step-size rule; κ, τ with a small chart of the step sizes ρ_t they give (the schedule), and S."""
    with st.container(border=True):
        lda = state.get(Keys.model, "LDA") == "LDA"
        rule = st.radio("**Step size** ρₜ", list(STEP_SIZE_CHOICES), key=Keys.step_size,
                        format_func=STEP_SIZE_CHOICES.get, disabled=not lda,
                        help="How big each step is. The schedule shrinks it as (t + τ)^−κ; the adaptive rule "
                             "chooses it at every step from how noisy the recent minibatches' directions are, so "
                             "there is no κ or τ to tune. The adaptive rule is for LDA only. The choice applies to "
                             "the next run.")
        adaptive = lda and rule == "adaptive"
        st.caption("The schedule is the default: at K = 50 the adaptive step size lost held-out likelihood on 6 "
                   "of 11 test collections and gained on 3 (benchmarks/RESULTS.md, run 50)."
                   if lda else "The HDP trains with the paper's schedule.")
        n_train = n_training_documents(collection)
        if state.get(Keys.batch_size, 1) > n_train:
            state.put(Keys.batch_size, n_train)
        if adaptive:
            st.number_input("S (batch size)", 1, n_train, step=16, key=Keys.batch_size, on_change=_apply_to_current,
                            args=(Keys.batch_size,), help="Documents read per step: larger batches give steadier "
                            "but slower steps.")
            st.caption("ρ starts from a few extra minibatches and is shown beside the curve while a run trains; "
                       "changing S changes a training run on the fly.")
            return
        st.markdown("ρₜ = (t + τ)^−κ")
        st.slider("κ (forgetting rate)", 0.0, 1.0, step=0.05, key=Keys.kappa, on_change=_apply_to_current,
                  args=(Keys.kappa,), help="How fast the steps shrink: near 1 they shrink fast (steady topics), near "
                  "0.5 slowly (old documents are forgotten sooner). Convergence needs κ in (0.5, 1].")
        if state.get(Keys.kappa) <= 0.5:
            st.warning("With κ at or below 0.5 the step sizes shrink too slowly for the topics to settle: "
                       "convergence is not guaranteed (a good way to show why the paper asks for κ > 0.5).",
                       icon=icons.WARNING)
        left, right = st.columns(2)
        left.number_input("τ (delay)", 0.0, 10_000.0, step=1.0, key=Keys.tau, on_change=_apply_to_current,
                          args=(Keys.tau,), help="Slows down the first steps so early, noisy batches count less.")
        right.number_input("S (batch size)", 1, n_train, step=16, key=Keys.batch_size, on_change=_apply_to_current,
                           args=(Keys.batch_size,), help="Documents read per step: larger batches give steadier "
                           "but slower steps.")
        model = LDA() if lda else HDP()
        planned = model.planned_step_size  # the default model's steps from its random start
        plan = (state.get(Keys.kappa), state.get(Keys.tau), state.get(Keys.batch_size), state.get(Keys.target_docs))
        first_pass = _first_pass(model, n_train, int(state.get(Keys.batch_size))) if lda else None
        schedule = tables.schedule_frame(*plan, planned=planned, first_pass=first_pass)
        st.altair_chart(charts.step_size_chart(schedule), width="stretch", height=170, key=Keys.schedule_chart)
        if first_pass is not None:
            st.caption(f"LDA's first pass takes {first_pass[1]:,} steps of {formatting.count(first_pass[0])} "
                       "documents: on a small collection, more and smaller first steps give better topics.")
        raised = tables.raised_steps(*plan, planned=planned, first_pass=first_pass)
        if raised:
            steps = "The first step is" if raised == 1 else f"The first {raised:,} steps are"
            st.caption(f"{steps} larger than the schedule's: step t is at least 1/(t + 1), so the random "
                       "topics the run starts from never count more than one batch. Smaller steps leave them in "
                       "place, and they end as copies of the collection's overall word use.")
        st.caption("While a run trains, changing κ, τ or S changes it on the fly; the change is marked on its curve.")


def where_control() -> None:
    """Where the next run trains: any Dask scheduler in desktop mode, else a choice among the server's."""
    choices = clusters.allowed()
    if choices is None:
        st.text_input("Dask scheduler", key=Keys.scheduler, placeholder="this server",
                      help="Fit each step's documents on the workers of a Dask cluster: a scheduler address such "
                           "as tcp://host:8786, or local:2 for two worker processes on this computer; empty trains "
                           "here. Same results either way. Applies to the next run; the default is "
                           "SVI_TOPICS_DASK_SCHEDULER.")
        return
    if state.get(Keys.scheduler, "") not in choices:  # kept from another mode, or the default changed
        state.put(Keys.scheduler, choices[-1])
    st.selectbox("Train on", choices, key=Keys.scheduler,
                 format_func=lambda address: f"Dask {address}" if address else "this server",
                 help="Fit each step's documents here or on the workers of the Dask scheduler this server's "
                      "operator set (SVI_TOPICS_DASK_SCHEDULER). Same results either way. Applies to the next run.")


def start_new_run(collection: Collection, where) -> None:
    settings = session.settings()
    if settings.model == "HDP" and settings.doc_truncation > settings.n_topics:  # the engine would refuse it
        where.error(f"Topics per document at most (T) is {settings.doc_truncation}, more than Topics at most (K), "
                    f"{settings.n_topics}: set T to {settings.n_topics} or less, or raise K.", icon=icons.WARNING)
        return
    usable = splittable_documents(collection.corpus.counts)
    if usable < 2:  # the held-out split would refuse it, in its own words
        where.error(f"This collection has {formatting.plural(usable, 'document')} with two or more different words; "
                    "a run needs at least 2: one to learn from and one held out to score the model. Upload more "
                    "documents, or tick “Cut long documents into passages” on the Data page to read a long one "
                    "as many.", icon=icons.WARNING)
        return
    if _start(collection, settings, where) is not None:
        st.rerun()


def _start(collection: Collection, settings: RunSettings, where) -> RunRecord | None:
    """Make a run, start it and select it; None, with the reason shown in ``where``, when it cannot start."""
    try:
        record = create_run(collection, settings, session.runs().next_name(settings))
        session.start_run(record)
    except CapReachedError as exc:
        where.warning(str(exc), icon=icons.BUSY)
        return None
    except Exception as exc:
        ui.show_error(exc, where)
        return None
    return record


def train_again(record: RunRecord, where) -> None:
    """A new run with ``record``'s settings and the next seed no run of the session has, compared with it.

    ``record`` stays the run shown; the Topics page finds its topics in the new run as it trains.
    """
    used = {run.settings.seed for run in session.runs()}
    seed = next(s for s in itertools.count(record.settings.seed + 1) if s not in used)
    new = _start(record.collection, dataclasses.replace(record.settings, seed=seed), where)
    if new is not None:
        state.set_widgets({Keys.current_run: record.run_id, Keys.match_run: new.run_id})
        st.rerun()


def _continue(record: RunRecord) -> None:
    """Train a stopped (or loaded) run further, as a new run starting where it ended."""
    snap = record.snapshot()
    seen = snap.docs_seen if snap is not None else int(record.loaded.trainer_state.get("docs_seen", 0))
    more = int(state.get(Keys.target_docs, record.settings.target_docs))
    settings = dataclasses.replace(record.settings, target_docs=seen + more)
    source = checkpoint_path(record.run_id) if record.run is not None else record.file_bytes
    new = resume_checkpoint(source, record.collection, settings, session.runs().next_name(settings),
                            labels=record.labels)
    session.start_run(new)


def _controls(record: RunRecord) -> None:
    status = record.status
    buttons = st.columns(4)
    action = None
    if status == "running":
        action = "pause" if buttons[0].button("Pause", key=Keys.train_pause, icon=icons.PAUSE, width="stretch",
                                              help="Hold the run after the current step.") else None
    elif status == "paused":
        action = "resume" if buttons[0].button("Resume", key=Keys.train_resume, icon=icons.PLAY, width="stretch",
                                               help="Go on training from where the run paused.") else None
    if record.active and buttons[1].button("Stop", key=Keys.train_stop, icon=icons.STOP, width="stretch",
                                         help="End the run; its model is kept and checkpointed."):
        action = "stop"
    if record.can_continue and buttons[0].button("Continue", key=Keys.train_continue, icon=icons.CONTINUE,
                                                 width="stretch",
                                                 help="Train this run further (as a new run that starts where "
                                                      "it ended), for the number of documents set on the left."):
        action = "continue"
    if action is None:
        return
    try:
        if action == "pause":
            record.run.pause()
        elif action == "resume":
            record.run.resume()
        elif action == "stop":
            record.run.stop(timeout=5.0)
        else:
            _continue(record)
    except CapReachedError as exc:
        st.warning(str(exc), icon=icons.BUSY)
        return
    except Exception as exc:
        ui.show_error(exc)
        return
    st.rerun()


def _metrics(record: RunRecord) -> None:
    snap = record.snapshot()
    cols = st.columns(5)
    cols[0].metric("Documents", formatting.count(snap.docs_seen), help="Documents analysed so far (with repeats).")
    cols[1].metric("Passes", formatting.number(snap.epoch), help="Passes over the training documents (epochs).")
    cols[2].metric("Steps / s", formatting.number(snap.t / snap.seconds) if snap.seconds > 0 else "–",
                   help="Updates of the topics per second of training.")
    if record.settings.step_size == "adaptive":
        cols[3].metric("Adaptive ρ", formatting.number(snap.rho),
                       help="The step size the adaptive rule chose for the latest update.")
    else:
        cols[3].metric("Step size ρ", formatting.number(snap.rho), help="The step size of the latest update.")
    cols[4].metric("Held-out fit", formatting.number(snap.heldout_loglik),
                   help="Held-out log likelihood per word: the average log probability the model gives to each "
                        "word of the test documents. Closer to 0 is better.")
    if snap.progress is not None:
        remaining = (snap.target_docs - snap.docs_seen) / snap.docs_per_second if snap.docs_per_second else None
        left = f" — about {formatting.duration(remaining)} left" if snap.active and remaining is not None else ""
        st.progress(snap.progress, text=f"{formatting.count(snap.docs_seen)} of {formatting.count(snap.target_docs)} "
                    f"documents{left}")


def _kernel_note(record: RunRecord) -> None:
    """Says so while a run trains with the NumPy reference because the compiled kernels are not ready yet."""
    snap = record.snapshot()
    if not snap.active or snap.kernel_wait is None:
        return
    if snap.kernel_wait == "failed":
        error = cached.kernel_warm_up().error(Workload.of(record.run.model))
        st.warning("The fast (compiled) kernels could not be built on this server, so this run trains with the "
                   "NumPy reference: the same equations, only slower." + (f" ({error})" if error else ""),
                   icon=icons.WARNING)
        return
    st.info("Compiling the fast kernels (once after installing, about a minute); training with the NumPy "
            "reference meanwhile: the same equations, only slower. The run switches to the compiled kernels by "
            "itself, and the curve marks where.", icon=icons.TIMER)


def _forming_topics(record: RunRecord) -> None:
    snap = record.snapshot()
    if not snap.top_words:
        return
    shown = list(range(min(len(snap.top_words), 12)))
    rows = [{"Topic": record.label(k, snap.top_words[k]).split(":")[0],
             "Share": formatting.percent(snap.topic_weights[k]),
             "Top words": ", ".join(snap.top_words[k][:8])} for k in shown]
    st.markdown("**Topics forming**" + (" (first 12; all on the Topics page)" if len(snap.top_words) > 12 else ""))
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def live_panel(active: bool) -> None:
    @st.fragment(run_every=1.0 if active else None)
    def panel() -> None:
        with ui.guard():
            _panel(active)
    panel()


def _panel(active: bool) -> None:
    session_runs = session.runs()
    record = session.current_record()
    if record is None:
        st.info("Press **Start a new run** to train a topic model on this collection.", icon=icons.PLAY)
        return
    snap = record.snapshot()
    if snap is None:
        st.info(f"**{safe_text.markdown(record.name)}** was loaded from a file; the Topics and Documents pages "
                "show it.",
                icon=icons.OPEN)
        _controls(record)
    else:
        line = f"{ui.status_text(record)} — **{safe_text.markdown(record.name)}**"
        if snap.reason and not snap.active:
            line += f" ({safe_text.markdown(snap.reason)})"
        st.markdown(line)
        if snap.error:
            st.error(f"Training stopped with an error: {safe_text.markdown(snap.error)}", icon=icons.ERROR)
        if snap.checkpoint_error:
            st.warning(safe_text.markdown(snap.checkpoint_error), icon=icons.WARNING)
        _controls(record)
        _kernel_note(record)
        _metrics(record)
    records = list(session_runs)
    names = {r.run_id: r.name for r in records}
    if state.get(Keys.overlay) is None:
        state.put(Keys.overlay, [r.run_id for r in records[-4:]])
    state.put(Keys.overlay, [i for i in state.get(Keys.overlay) if i in names])
    left, right = st.columns([3, 2])
    chosen = left.multiselect("Runs on the chart", list(names), key=Keys.overlay, format_func=names.get,
                              help="Overlay runs to compare settings, e.g. κ = 0.5 against 0.9.")
    x_axis = right.segmented_control("Horizontal axis", ["docs_seen", "seconds"], key=Keys.x_axis, required=True,
                                     format_func={"docs_seen": "Documents", "seconds": "Seconds"}.get,
                                     help="Documents analysed, or training time on a square-root axis.")
    if x_axis is None:  # Streamlit emptied the widget (st.rerun inside this fragment does): its default again
        x_axis = charts.DEFAULT_X_AXIS
        state.set_widgets({Keys.x_axis: x_axis})
    overlay = [session_runs.get(i) for i in chosen] or [record]
    curves = tables.curves_frame(overlay)
    if curves.empty:
        st.caption("The curve appears after the first measurement.")
    else:
        st.altair_chart(charts.heldout_chart(curves, tables.changes_frame(overlay), x=x_axis), width="stretch",
                        key=Keys.heldout_chart)
    history, changes = record.curve()
    if history:
        switch = next((c for c in changes if c.name == "kernel"), None)
        st.caption(f"Held-out measurements of {safe_text.markdown(record.name)}: {len(history)} (latest "
                   f"{formatting.number(history[-1].heldout_loglik)}; higher is better). Click a run in the "
                   "legend to highlight it." + ("" if switch is None else
                   f" Trained with the NumPy reference for its first {formatting.count(switch.docs_seen)} "
                   "documents, while the compiled kernels were being built."))
    if snap is not None:
        _forming_topics(record)
    with st.expander(f"All runs of this session ({len(records)})", expanded=len(records) > 1):
        st.dataframe(tables.run_table(records, ui.status_text, cached.run_quality), hide_index=True, width="stretch",
                     column_config={
                         tables.COHERENCE_COLUMN: st.column_config.TextColumn(
                             help="The mean over an LDA run's topics, or an HDP run's topics in use. "
                                  + quality.COHERENCE_HELP),
                         tables.LIVE_COLUMN: st.column_config.TextColumn(help=quality.LIVE_HELP)})
    if active and not session_runs.any_active():
        st.rerun()  # training ended: stop polling
