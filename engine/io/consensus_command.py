"""``svi-topics consensus MODEL MODEL ...``: the topics that most of several model files find, as one model.

The runs (typically one collection trained with several seeds) are combined by
:func:`engine.consensus_topics`: topics found again across pairs of runs are grouped, at most
one per run, and a group found in at least ``--min-runs`` runs (by default more than half)
becomes a consensus topic, the mean of its members.  The first line says how many; then each
consensus topic gets a line (in how many runs it was found, its share of the words, how much
the runs' versions differ, its top words) and, indented, the topic of each run it holds.
``--out`` saves the consensus topics as an LDA model file (with the runs' vocabulary, and
their preprocessing when they all share it), to browse in the app or to ``infer`` with.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engine.errors import VocabularyMismatchError
from engine.inference.consensus import MAX_CONSENSUS_RUNS, consensus_topics
from engine.io.compare_command import topic_label, unlined_file
from engine.io.model_files import load_model, save_model
from engine.models.inspection import top_indices

__all__: list[str] = []  # engine.cli adds the command with add_consensus; nothing here is engine API


def add_consensus(commands: Any) -> None:
    """Add the ``consensus`` subcommand to ``commands`` (argparse subparsers)."""
    consensus = commands.add_parser(
        "consensus",
        help="combine several model files into the topics most of them find",
        description="Match every pair of MODELs topic by topic (as 'compare' does) and group the topics found again "
        "across them, at most one topic per model, the closest pairs first. A group found in at least --min-runs "
        "of the models (by default more than half) is a consensus topic: the mean of its members' word "
        "probabilities. Each model takes part with its live topics (each holding at least a quarter of an even share "
        "of its words, 0.25/K; an HDP's too, whatever its corpus weight). Each consensus "
        "topic gets a line: in how many models it was found, its mean share of the words, the mean Hellinger "
        "distance (0 to 1) from its members to it, its top words and, indented, the topic of each model it holds. "
        "Train one collection with several seeds ('fit --seed') and combine them: the topics found in most runs "
        "do not depend on the random start.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    consensus.add_argument("models", metavar="MODEL", nargs="+",
                           help=f"model files (.npz) to combine, 2 to {MAX_CONSENSUS_RUNS}")
    consensus.add_argument("--min-runs", type=int, default=None,
                           help="in how many models a topic must be found (default: more than half of them)")
    consensus.add_argument("--n", type=int, default=10, help="top words shown per topic")
    consensus.add_argument("--out", default=None,
                           help="write the consensus topics to this model file (an LDA, with the models' vocabulary)")
    consensus.set_defaults(handler=run_consensus)


def run_consensus(args: argparse.Namespace) -> int:
    if args.n < 1:
        raise ValueError(f"--n must be at least 1, got {args.n}")
    if len(args.models) < 2:
        raise ValueError("consensus needs at least two model files to combine")
    if args.min_runs is not None and not 2 <= args.min_runs <= len(args.models):
        raise ValueError(f"--min-runs must be from 2 to the number of model files ({len(args.models)}), got "
                         f"{args.min_runs}")
    if args.out is not None and any(Path(args.out).resolve() == Path(path).resolve() for path in args.models):
        raise ValueError(f"--out {args.out} is one of the model files being combined: write the consensus to "
                         "another file")
    loaded = [load_model(path) for path in args.models]
    missing = unlined_file(args.models, loaded)
    if missing is not None:
        widths = {item.model.n_words for item in loaded}
        raise VocabularyMismatchError(
            f"the model files have {', '.join(str(w) for w in sorted(widths))} words, and {missing} was saved "
            "without its vocabulary, so their words cannot be lined up; combine model files saved with their "
            "vocabulary ('fit' and the app save it)")
    found = consensus_topics([item.model for item in loaded], min_runs=args.min_runs)
    topics = f"{found.n_topics} topic{'' if found.n_topics == 1 else 's'}"
    print(f"# {topics} found in at least {found.min_runs} of the {found.n_runs} models "
          f"({', '.join(_kind(item.model) for item in loaded)})")
    vocabulary = found.vocabulary
    tops = [item.model.top_words(args.n, vocabulary=item.vocabulary) for item in loaded]  # once per model
    width, run_width = len(str(max(found.n_topics - 1, 0))), len(str(found.n_runs))
    for c in range(found.n_topics):
        print(f"topic {c:>{width}} (found in {found.support[c]} of {found.n_runs}; share {found.share[c]:.3f}; "
              f"spread {found.spread[c]:.2f}): {_words(found.topics[c], vocabulary, args.n)}")
        for run, member in enumerate(found.members[c]):
            if member >= 0:
                label = topic_label(loaded[run].labels, member)
                print(f"  {' ' * width}  model {run + 1:>{run_width}} topic {member}{label}: "
                      f"{' '.join(str(word) for word in tops[run][member])}")
    if args.out is not None:
        if found.n_topics < 2:
            raise ValueError(f"{topics} found in at least {found.min_runs} of the models; a model "
                             "needs two: lower --min-runs or combine models with more topics; nothing was written")
        model = found.model()
        preprocessing = [item.model.__dict__.get("vectorizer_") for item in loaded]
        shared = preprocessing[0] if all(
            p is not None and p.to_dict() == preprocessing[0].to_dict() for p in preprocessing) else None
        save_model(args.out, model, vocabulary=vocabulary, vectorizer=shared,
                   extra={"consensus": {"models": [Path(path).name for path in args.models],
                                        "min_runs": found.min_runs, "members": found.members.tolist()}})
        print(f"# wrote {args.out}: an LDA of the {found.n_topics} consensus topics")
    return 0


def _kind(model) -> str:
    return f"{type(model).__name__} K={model.n_topics}"


def _words(topic, vocabulary, n: int) -> str:
    top = top_indices(topic[None, :], min(n, topic.size))[0]
    return " ".join(str(vocabulary[w]) if vocabulary is not None else str(w) for w in top)
