"""Combining several runs into the topics most of them find, as a new browse-only run.

Runs that differ only by their seed end with mostly the same topics and a few of their own
(benchmarks/RESULTS.md, run 72).  ``engine.consensus_topics`` keeps the first kind: topics
found again across the runs, grouped one per run, and found in at least as many runs as the
user asks (by default more than half).  The combined run is an LDA of those topics, each the
mean of the runs' versions; its cards say in how many runs each topic was found.  The
runs themselves stay as they were.  The combined run is saved with the workspace's
checkpoints (a model file without trainer state: there is no training to continue), and
its model file says which runs it combined and where each topic was found.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from explorer import formatting, icons, made_runs, quality, safe_text, session, ui
from explorer.engine_api import MAX_CONSENSUS_RUNS, LoadedModel, consensus_topics
from explorer.runs import RunRecord, RunSettings, load_record
from explorer.state import Keys

__all__ = ["CombineResult", "candidates", "combine_panel", "combine_runs", "default_choice"]

COMBINE_HELP = ("Makes a new run of the topics that most of the chosen runs find: each topic found again across "
                "the runs (each the other's closest topic) in at least as many runs as you ask, its words the "
                "average of the runs' versions. A topic that only one run has may owe its words to that run's random "
                "start; one that most runs find does not. The chosen runs stay as they are.")


@dataclasses.dataclass(frozen=True)
class CombineResult:
    """The new run, how many topics it holds, how they were chosen, and the mean coherence before and after."""

    record: RunRecord
    min_runs: int
    n_runs: int
    coherence: float | None
    run_coherence: tuple[float, ...]

    def message(self) -> str:
        """What the Topics page says after combining (Markdown, the name escaped)."""
        n_topics = len(self.record.found_in)
        everywhere = sum(1 for count in self.record.found_in if count == self.n_runs)
        text = (f"Made “{safe_text.markdown(self.record.name)}”: {formatting.count(n_topics)} topics found in at "
                f"least {self.min_runs} of the {self.n_runs} runs ({formatting.count(everywhere)} in all of them); "
                "the topics fewer runs found are left out. Each card says in how many runs its topic was found.")
        if self.coherence is not None and self.run_coherence:
            low, high = min(self.run_coherence), max(self.run_coherence)
            runs = f"{low:.3f}" if low == high else f"{low:.3f} to {high:.3f}"
            text += f" Mean coherence (NPMI): {self.coherence:.3f}, against {runs} for the runs."
        return text + " The runs are unchanged."


def candidates(record: RunRecord) -> list[RunRecord]:
    """The runs that may be combined with ``record`` (itself first): trained on its collection, not training now."""
    if record.collection is None:
        return []
    key = record.collection.key
    found = [r for r in session.runs() if r.collection is not None and r.collection.key == key
             and not r.combined_from and not r.active and r.model() is not None]
    return sorted(found, key=lambda r: r.run_id != record.run_id)


def default_choice(record: RunRecord, runs: list[RunRecord]) -> list[str]:
    """The ids of ``runs`` with ``record``'s settings but for the seed (the runs "Train again" made)."""
    def same(settings: RunSettings) -> RunSettings:
        return dataclasses.replace(settings, seed=0, target_docs=0)

    return [r.run_id for r in runs if same(r.settings) == same(record.settings)]


def combine_runs(sources: list[RunRecord], min_runs: int) -> CombineResult:
    """The topics found in at least ``min_runs`` of ``sources``, as a new browse-only run (not yet in the session).

    Raises ValueError when fewer than two runs are chosen, one is still training, or fewer
    than two topics are found in ``min_runs`` of them.
    """
    if len(sources) < 2:
        raise ValueError("choose at least two runs to combine")
    busy = next((r for r in sources if r.active), None)
    if busy is not None:
        raise ValueError(f"“{busy.name}” is still training: stop it or let it finish before combining it")
    first = sources[0]
    found = consensus_topics([r.model() for r in sources], min_runs=min_runs,
                             vocabularies=[r.vocabulary for r in sources])
    if found.n_topics < 2:
        raise ValueError(f"only {found.n_topics} topic{'' if found.n_topics == 1 else 's'} found in at least "
                         f"{min_runs} of the {len(sources)} runs; a run needs two: ask for fewer runs or combine "
                         "runs with more topics")
    model = found.model(seed=first.settings.seed)
    settings = RunSettings(model="LDA", n_topics=found.n_topics, eta=float(found.eta), n_test=first.settings.n_test,
                           seed=first.settings.seed, batch_size=first.settings.batch_size,
                           target_docs=first.settings.target_docs)
    name = _name(sources)
    extra = {"explorer": {"name": name, "settings": settings.to_dict(), "labels": {},
                          "combined_from": [r.name for r in sources], "found_in": found.support.tolist()}}
    loaded = LoadedModel(model=model, vocabulary=tuple(found.vocabulary) if found.vocabulary else first.vocabulary,
                         trainer_state=None, extra=extra)
    record = load_record(loaded, name, first.collection)  # its combined_from and found_in from extra
    collection = first.collection
    reference = None if collection is None else quality.coherence_reference(collection, settings.n_test, settings.seed)
    scores = [quality.topic_quality(r.model(), reference, r.settings.model == "HDP").mean_coherence for r in sources]
    return CombineResult(record, found.min_runs, len(sources),
                         quality.topic_quality(model, reference, hdp=False).mean_coherence,
                         tuple(score for score in scores if score is not None))


def _name(sources: list[RunRecord]) -> str:
    """"Topics shared by 3 runs (#1, #2, #4)": a run's "#N" when its name starts so, else its first 20 characters."""
    short = [r.name.split(" ", 1)[0] if r.name.startswith("#") else r.name[:20] for r in sources]
    name = f"Topics shared by {len(sources)} runs ({', '.join(short)})"
    return name if len(name) <= 80 else name[:77] + "..."


def combine_panel(record: RunRecord) -> None:
    """The Topics page's "Combine runs" expander: choose runs and how many must find a topic, make the run.

    Not shown for a run without its documents here, nor for a combined run itself.
    """
    if record.collection is None or record.combined_from:
        return
    runs = candidates(record)
    with st.expander("Combine runs: keep the topics most of them find", icon=icons.MERGE):
        if len(runs) < 2:
            st.caption("No other run of these documents has finished yet. Train this one again with another seed "
                       "(above), twice or more, and combine the runs here: the topics most of them find do not "
                       "depend on a random start.")
            return
        names = {r.run_id: r.name for r in runs}
        # a new widget whenever another run can be offered, so a run that just finished joins the default choice
        default = default_choice(record, runs)[:MAX_CONSENSUS_RUNS]
        chosen = st.multiselect("Runs to combine", list(names), default=default, format_func=names.get,
                                key=Keys.combine(f"runs.{record.run_id}", len(runs)),
                                max_selections=MAX_CONSENSUS_RUNS, help=COMBINE_HELP)
        n_chosen = max(2, len(chosen))
        at_least = st.number_input("Found in at least this many of them", 2, n_chosen, value=n_chosen // 2 + 1,
                                   step=1, key=Keys.combine("min", n_chosen),
                                   help="A topic must be found again in this many of the chosen runs to be kept. "
                                        "The default, more than half, keeps the topics most runs agree on.")
        if st.button("Make a run of the topics they share", key=Keys.combine_make, icon=icons.MERGE,
                     disabled=len(chosen) < 2, help=COMBINE_HELP):
            try:
                with st.spinner("Combining the runs' topics…"):
                    result = combine_runs([r for r in runs if r.run_id in chosen], min(int(at_least), len(chosen)))
            except ValueError as exc:
                ui.show_error(exc)
                return
            # the cards first say in how many runs each topic was found: no comparison chosen
            made_runs.add_made_run(result.record, result.message(), {Keys.match_run: None})
