"""Command line: ``svi-topics fit CORPUS``, ``topics MODEL``, ``export MODEL``, ``infer MODEL``, ``app``.

The same program runs as ``python -m engine``.
``fit`` trains LDA or the HDP by stochastic variational inference (Hoffman,
Blei, Wang & Paisley 2013) with a progress bar on stderr and the held-out log
likelihood printed at every evaluation, then saves the model (one ``.npz``
file).  ``topics`` prints the top words of each topic of a saved model (topics are numbered
from 0, as everywhere); ``export`` writes its full export (``engine.io.export_command``); ``infer`` prints the
topic proportions of new text (``engine.io.infer_command``); ``app`` starts the Streamlit explorer.
Errors the engine reports (bad files, bad options) end the program with one
line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import logging
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from engine import __version__
from engine.data.bow_formats import holds_text, load_corpus
from engine.data.copies import NEAR_COPY_SIMILARITY
from engine.data.corpus import AUTO_ACCENTS, AUTO_MARKUP
from engine.data.documents import is_document_file
from engine.data.language import AUTO_LANGUAGE
from engine.data.messages import messages_report
from engine.data.passages import PASSAGE_WORDS
from engine.data.text import skipped_by_reason
from engine.data.vectorizer import STOP_WORD_LANGUAGES, UNICODE_TOKEN_PATTERN, stop_word_list
from engine.data.word_forms import has_word_forms
from engine.errors import EngineError
from engine.inference.run import (
    DEFAULT_PASSES,
    MAX_DEFAULT_TARGET_DOCS,
    MIN_DEFAULT_TARGET_DOCS,
    TrainingRun,
    default_target_docs,
)
from engine.inference.schedule import DEFAULT_BATCH_SIZE, DEFAULT_KAPPA, DEFAULT_TAU, STEP_SIZES
from engine.io import topics_command
from engine.io.atomic import probe_writable
from engine.io.compare_command import add_compare
from engine.io.consensus_command import add_consensus
from engine.io.export_command import add_export
from engine.io.infer_command import add_infer
from engine.io.model_files import LoadedModel, load_model, save_model
from engine.io.records import EvalPoint
from engine.models.hdp import DEFAULT_DOC_TRUNCATION, DEFAULT_HDP_TOPICS
from engine.models.lda import DEFAULT_CVB0_WORDS
from engine.processes import python_command

__all__ = ["app_command", "build_parser", "main"]

_USER_ERRORS = (EngineError, ValueError, TypeError, KeyError, OSError)
_POLL_SECONDS = 0.1
SKIPPED_SHOWN = 10  # unreadable PDF, Word, OpenDocument, EPUB or presentation files named with their reasons
SKIPPED_GROUPS_SHOWN = 5  # the other skipped files: reasons shown, each with how many and ...
SKIPPED_EXAMPLES = 3  # ... this many of their names


class _UsageError(Exception):
    """A problem with the command line options found after parsing."""


# ---------------------------------------------------------------- option types
def _int_or_fraction(text: str) -> int | float:
    """min_df/max_df: an integer is a number of documents, a decimal a fraction of them."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or a fraction in [0, 1], got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a fraction must be in [0, 1], got {text!r}")
    return value


def _int_at_least(minimum: int):
    """An argparse type: an integer >= ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text!r}")
        return value

    return parse


_positive_int = _int_at_least(1)
_non_negative_int = _int_at_least(0)


def _stop_words(text: str) -> str:
    """--stop-words: a language the engine knows, 'auto' or 'none' (checked here, so a typo fails before the
    corpus is read)."""
    if text.strip().lower() in ("none", AUTO_LANGUAGE):
        return text.strip().lower()
    try:
        stop_word_list(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"unknown language {text!r}; choose one of "
                                         f"{', '.join(STOP_WORD_LANGUAGES)} (or its two-letter code; several "
                                         "joined by '+', as in english+french), 'auto' or 'none'") from None
    return text


def _dask_cluster(text: str) -> str:
    """--dask: 'local:N' (N >= 1) or a scheduler address (scheme://host:port or host:port)."""
    text = text.strip()
    if text.startswith("local:"):
        if text[len("local:"):].isdigit() and int(text[len("local:"):]) >= 1:
            return text
    elif text.rpartition(":")[2].isdigit() and text.rpartition(":")[0]:
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is neither 'local:N' (N >= 1 workers) nor a scheduler address "
                                     "such as tcp://host:8786")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


# ---------------------------------------------------------------------- parser
class _DeprecatedGamma(argparse.Action):
    """``--gamma``, the old name of ``--omega``: still accepted, with a note on stderr."""

    def __call__(self, parser, namespace, values, option_string=None):
        print("svi-topics: --gamma is deprecated, use --omega (the same corpus-level concentration)", file=sys.stderr)
        setattr(namespace, self.dest, values)




def build_parser(prog: str = "svi-topics") -> argparse.ArgumentParser:
    """The argument parser: subcommands fit, topics, export, infer, compare, consensus and app.

    ``prog`` names the program.
    """
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Train and inspect topic models (LDA, HDP) fitted by stochastic variational inference "
        "(Hoffman, Blei, Wang & Paisley, JMLR 2013), and start the explorer app.",
        epilog="examples:\n"
        f"  {prog} fit news.csv --topics 50 --epochs 3 --out news.npz\n"
        f"  {prog} topics news.npz --n 10\n"
        f"  {prog} export news.npz --corpus news.csv --out news-export\n"
        f"  {prog} infer news.npz --text \"Oil prices rose.\"\n"
        f"  {prog} compare news.npz news-seed2.npz\n"
        f"  {prog} consensus news.npz news-seed2.npz news-seed3.npz --out news-consensus.npz\n"
        f"  {prog} app --port 8502\n"
        f"Run '{prog} COMMAND --help' for the options of a command.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}",
                        help="print the installed version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                     help="fit: train and save a model; topics: show a saved model's topics; "
                                     "export: write a model's topics, labels and documents as CSV; "
                                     "infer: topic proportions of new text; "
                                     "compare: which topics of one model are found again in another; "
                                     "consensus: the topics most of several models find, as one model; "
                                     "app: start the explorer")
    _add_fit(commands)
    _add_topics(commands)
    add_export(commands)
    add_infer(commands)
    add_compare(commands)
    add_consensus(commands)
    _add_app(commands)
    return parser


def _add_fit(commands: Any) -> None:
    fit = commands.add_parser(
        "fit",
        help="train a topic model on a corpus and save it",
        description="Train LDA or the HDP on CORPUS by stochastic variational inference, print the held-out "
        "log likelihood at every evaluation, and save the model (with its vocabulary, trainer state and "
        "history) to one .npz file.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    fit.add_argument("corpus", metavar="CORPUS",
                     help="a folder of .txt, .md, .rst, .html, .eml, .pdf, .docx, .odt, .epub, .pptx or .odp files, a "
                     ".zip of them, a .csv/.tsv/.jsonl table, an .xlsx/.ods spreadsheet or an .mbox mailbox, a UCI "
                     "docword.txt (+vocab.txt), an LDA-C .dat (+vocab.txt), a .mtx file, or a saved corpus folder")
    fit.add_argument("--out", default="model.npz", help="model file to write")

    model = fit.add_argument_group("model")
    model.add_argument("--model", choices=("lda", "hdp"), default="lda", help="topic model")
    model.add_argument("--topics", type=_positive_int, default=None,
                       help="number of topics K (default 50); for the HDP the corpus-level truncation "
                       f"(default {DEFAULT_HDP_TOPICS})")
    model.add_argument("--alpha", type=_positive_float, default=None,
                       help="document-topic Dirichlet prior (LDA: default 5/K clipped to [0.1, 0.2]) or "
                       "document-level "
                       "concentration (HDP: the model's default)")
    model.add_argument("--eta", type=_positive_float, default=0.01, help="topic-word Dirichlet prior")
    model.add_argument("--topic-init", choices=("exponential", "gamma", "documents", "clusters"), default=None,
                       help="random start of the topics: the paper's exponential draws, Gamma(100, 1/100) "
                       "draws as in Hoffman's online LDA, those leaning towards the words of 3 random "
                       "documents per topic, or those plus the words of k-means clusters of the documents "
                       "(model default if omitted)")
    model.add_argument("--local-update", choices=("auto", "zero_order", "cvb0", "mean_field"), default=None,
                       help="LDA only: how the local step shares a document's words among topics: auto (the "
                       f"default) runs cvb0 on documents of fewer than {DEFAULT_CVB0_WORDS} words and the zero-order "
                       "step on longer ones; cvb0 leaves each word's own share out of its document's counts (much "
                       "better topics on very short documents such as titles, quotations or survey answers, about "
                       "twice the zero-order step's time on long ones, where it changes nothing); or the paper's "
                       "mean field")
    model.add_argument("--gamma-init", choices=("ones", "random"), default=None,
                       help="start of each document's gamma in the local step (model default if omitted)")
    model.add_argument("--dtype", choices=("float64", "float32"), default=None,
                       help="precision of the topics (model default if omitted)")
    model.add_argument("--doc-truncation", type=_positive_int, default=None,
                       help=f"HDP only: document-level truncation T (default {DEFAULT_DOC_TRUNCATION}, or --topics "
                       "if fewer)")
    model.add_argument("--omega", type=_positive_float, default=None,
                       help="HDP only: corpus-level concentration omega (the corpus sticks' Beta(1, omega) prior)")
    model.add_argument("--gamma", dest="omega", type=_positive_float, default=None, help=argparse.SUPPRESS,
                       action=_DeprecatedGamma)
    model.add_argument("--births", type=_non_negative_int, default=None,
                       help="HDP only: topics split in two after each of the first three passes (default 20, or "
                       "half of --topics if fewer; 0: none, faster, at some cost in held-out likelihood)")

    training = fit.add_argument_group("training")
    training.add_argument("--algorithm", choices=("svi", "batch"), default="svi",
                          help="stochastic variational inference, or classical batch coordinate ascent")
    training.add_argument("--kappa", type=float, default=None,
                          help="forgetting rate of the step size rho_t = (t + tau)^-kappa, in [0, 1]; "
                          f"(0.5, 1] guarantees convergence (default {DEFAULT_KAPPA}; SVI only)")
    training.add_argument("--tau", type=float, default=None,
                          help=f"delay of the step size, >= 0 (default {DEFAULT_TAU:g}; SVI only)")
    training.add_argument("--step-size", choices=STEP_SIZES, default=None,
                          help="how rho_t is chosen: the kappa/tau schedule (the default), or the adaptive "
                          "step size of Ranganath et al. 2013, which needs no kappa or tau (LDA and SVI only)")
    training.add_argument("--batch-size", type=_positive_int, default=None,
                          help=f"minibatch size S (default: {DEFAULT_BATCH_SIZE}, or the number of training "
                          "documents if fewer; SVI only); LDA's first pass takes at most 1/16 of the "
                          "training documents a step, so that it makes at least 16 steps")
    training.add_argument("--epochs", type=_positive_float, default=None,
                          help="passes over the training documents (counted from the start of training, "
                          f"also when resuming; default: {DEFAULT_PASSES}, and at least "
                          f"{MIN_DEFAULT_TARGET_DOCS:,} and at most {MAX_DEFAULT_TARGET_DOCS:,} documents unless "
                          "that is less than one pass, as in the app)")
    training.add_argument("--sampling", choices=("epoch", "replacement"), default=None,
                          help="minibatches without replacement within each epoch (the default), or with "
                          "replacement (SVI only)")
    training.add_argument("--seed", type=_non_negative_int, default=0,
                          help="seed of the test split, the initial topics and the minibatches")
    training.add_argument("--max-seconds", type=_positive_float, default=None,
                          help="stop after this much training time (seconds)")
    training.add_argument("--checkpoint", metavar="PATH", default=None,
                          help="write a checkpoint here regularly and at the end (resume with --resume)")
    training.add_argument("--checkpoint-every", type=_positive_float, default=60.0, metavar="SECONDS",
                          help="seconds between checkpoints")
    training.add_argument("--resume", metavar="CHECKPOINT", default=None,
                          help="continue training from a checkpoint written by --checkpoint (same CORPUS and "
                          "corpus options); model and schedule options are taken from the checkpoint")
    training.add_argument("--dask", type=_dask_cluster, default=None, metavar="CLUSTER",
                          help="run the local steps on a Dask cluster: 'local:N' starts N worker processes on "
                          "this machine, 'tcp://host:8786' joins a running scheduler (needs the distributed "
                          "extra; SVI only; a disk corpus must be at the same path on every worker)")

    evaluation = fit.add_argument_group("held-out evaluation")
    evaluation.add_argument("--test-docs", type=_non_negative_int, default=None, metavar="N",
                            help="documents held out for the predictive log likelihood (default: 10%% of the "
                            "documents, at most 500; 0 turns evaluation off)")
    evaluation.add_argument("--eval-every", type=_positive_int, default=None, metavar="DOCS",
                            help="evaluate after every DOCS training documents (default: once per epoch)")

    text = fit.add_argument_group("corpus (raw text only)")
    text.add_argument("--min-df", type=_int_or_fraction, default=None,
                      help="drop words in fewer documents than this (integer) or this fraction (decimal)")
    text.add_argument("--max-df", type=_int_or_fraction, default=None,
                      help="drop words in more documents than this (integer) or this fraction (decimal)")
    text.add_argument("--max-features", type=_positive_int, default=None,
                      help="keep only this many most frequent words")
    text.add_argument("--text-column", default=None, help="column of a .csv/.tsv/.jsonl table or an .xlsx/.ods "
                      "spreadsheet holding the text (default: 'text')")
    text.add_argument("--title-column", default=None, help="column of a table holding document titles")
    text.add_argument("--sheet", default=None, help="sheet of an .xlsx/.ods spreadsheet to read (default: the sheet "
                      "with the most rows)")
    text.add_argument("--encoding", default=None,
                      help="encoding of the text files (e.g. utf-8, windows-1252, latin-1); default: detected "
                      "per file, and the encodings assumed are printed")
    text.add_argument("--stop-words", type=_stop_words, default=None, metavar="LANGUAGE",
                      help="stop-word language: english, french, german, spanish... or its two-letter code, or "
                      "several joined by '+' (english+french) for texts in more than one; 'auto' (the default) "
                      "guesses them from the texts (English when none is recognised) and prints them; 'none' keeps "
                      "every word")
    text.add_argument("--keep-accents", action="store_true",
                      help="keep accented letters (by default they are kept only when the stop words are of a "
                      "language other than English; otherwise 'pêche' and 'péché' both become 'peche')")
    text.add_argument("--keep-markup", action="store_true",
                      help="count HTML or XML tags as words (by default they are left out when a tenth of the "
                      "documents or more hold markup, and the message says so)")
    text.add_argument("--keep-boilerplate", action="store_true",
                      help="keep repeated blocks of lines that many documents share word for word (page headers "
                      "and footers, licences, translators' credits, signatures); by default they are left out, "
                      "and the message says how much")
    text.add_argument("--keep-copies", action="store_true",
                      help="keep every document that repeats another word for word; by default each such text is "
                      "read once (the first copy) and the message says how many copies were left out")
    text.add_argument("--near-copies", nargs="?", type=float, const=NEAR_COPY_SIMILARITY, metavar="SHARE",
                      help="also leave out every document that nearly repeats one kept (a revised version, a page "
                      "with another date): at least SHARE of the runs of five words in either text in both "
                      f"(default {NEAR_COPY_SIMILARITY}); the message says how many")
    text.add_argument("--leave-out", action="append", metavar="ID", default=None,
                      help="leave out the document with this id before the words are counted (repeat for several; "
                      "with --passages, the id of the document before it is cut): a very long document among short "
                      "ones fills topics of its own, and fit names such documents with their ids")
    text.add_argument("--phrases", action="store_true",
                      help="read pairs of words that the texts write side by side far more often than chance as one "
                      "word ('united states', 'health care'), found in the texts; the message lists the most "
                      "frequent (by default every word is read alone)")
    text.add_argument("--keep-word-forms", action="store_true",
                      help="count every form of a word as written; by default the forms of a word ('tax' and "
                      "'taxes', 'say' and 'said') are counted as one word, shown as the form the texts write most, "
                      "where the stop-word language's forms are known (simplemma's dictionaries: not Chinese, "
                      "Japanese, Korean, Gujarati or Vietnamese), and the message names the most frequent")
    text.add_argument("--passages", type=int, metavar="WORDS", default=None,
                      help="cut each document into passages of about WORDS words at paragraph breaks, each read as a "
                      f"document: for a few long texts (a book, a report); {PASSAGE_WORDS} is a good start "
                      "(by default documents are read whole)")
    text.add_argument("--keep-headers", action="store_true",
                      help="read e-mail and newsgroup messages whole (by default, when a tenth of the documents or "
                      "more are messages, each is read as its subject and what its sender wrote: header lines, "
                      "quoted replies and signatures are left out, and the message says so)")

    fit.add_argument("--no-progress", action="store_true", help="do not draw the progress bar")
    fit.set_defaults(handler=_fit)
    fit.set_defaults(parser_defaults={action.dest: action.default for action in fit._actions})


def _add_topics(commands: Any) -> None:
    topics = commands.add_parser(
        "topics",
        help="print the top words of each topic of a saved model, with its share, coherence and warnings",
        description="Print the most probable words of each topic of a model file written by 'fit' "
        "(using the vocabulary stored in the file), with the topic's label in brackets when the file has one "
        "(labels edited in the app are saved in the model file it exports). Each topic shows its share of the "
        "words and, in files written by 'fit', its coherence (NPMI of its 10 top words in the training "
        "documents, -1 to 1, 0 being chance); an indented line says when a topic is hardly used, repeats the "
        "collection's overall word use, is the same as another topic, or has top words that rarely appear "
        "together.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    topics.add_argument("model", metavar="MODEL", help="model file (.npz) written by 'fit' or engine.save_model")
    topics.add_argument("--n", type=_positive_int, default=10, help="words per topic")
    topics.add_argument("--by-weight", action="store_true",
                        help="list topics from the largest to the smallest weight instead of by index")
    topics.set_defaults(handler=topics_command.run_topics)


def _add_app(commands: Any) -> None:
    app = commands.add_parser(
        "app",
        help="start the explorer (Streamlit) in the browser",
        description="Start the Streamlit explorer with the project's Streamlit settings. Any other option "
        "is passed to 'streamlit run' (for example --server.address 0.0.0.0); the exit code is Streamlit's.",
    )
    app.add_argument("--port", type=_positive_int, default=None, help="port to serve on (Streamlit's default 8501)")
    app.set_defaults(handler=lambda args: _run_app(args.port, args.streamlit_options))


# ----------------------------------------------------------------------- fit
STOP_WORDS_KEY = "stop_words"  # of a model file's "cli" record: the language its text was read with, or "none"
STRIP_ACCENTS_KEY = "strip_accents"  # ... and whether accents were stripped (missing: True, the older default)
STRIP_MARKUP_KEY = "strip_markup"  # ... and whether markup was left out (missing: False, as before it was)
STRIP_BOILERPLATE_KEY = "strip_boilerplate"  # ... and whether boilerplate was left out (missing: False)
STRIP_MESSAGES_KEY = "strip_messages"  # ... and whether messages were read without headers (missing: False)
PASSAGE_WORDS_KEY = "passage_words"  # ... and the passages' length (missing or None: documents read whole)
JOIN_PHRASES_KEY = "join_phrases"  # ... and whether phrases were joined (missing: False, as before they could be)
MERGE_WORD_FORMS_KEY = "merge_word_forms"  # ... and whether a word's forms were merged (missing: False, as before)
KEEP_COPIES_KEY = "keep_copies"  # ... and whether no copy was left out (missing: True, as before copies were)
LEAVE_OUT_KEY = "leave_out"  # ... and the ids --leave-out named (missing: none)
NEAR_COPIES_KEY = "near_copies"  # ... and --near-copies' share (missing or None: only copies word for word)
PHRASES_SHOWN = 8  # phrases the message names (and words with their forms)


def _word_forms_message(corpus: Any, vectorizer: Any) -> str:
    """The part of fit's corpus message that says which forms were counted as another word, the most frequent
    words first."""
    import numpy as np

    merged = vectorizer.other_forms()
    totals = np.asarray(corpus.counts.sum(axis=0)).ravel()
    named = sorted((w for w, word in enumerate(corpus.vocabulary) if word in merged), key=lambda w: -totals[w])
    shown = "; ".join(f"{corpus.vocabulary[w]}: {', '.join(merged[corpus.vocabulary[w]])}"
                      for w in named[:PHRASES_SHOWN])
    n = len(vectorizer.word_forms)
    if not n:
        return ("; no word is written in two forms" if has_word_forms(vectorizer.stop_words)
                else f"; the forms of {vectorizer.stop_words} words are not known: each is counted as written")
    return (f"; {n} form{'s' if n != 1 else ''} counted as another word"
            + (f" ({shown}{'; ...' if len(named) > PHRASES_SHOWN else ''})" if named else ""))


def _load_corpus(args: argparse.Namespace, resumed: dict | None = None) -> Any:
    """The corpus of ``fit``; ``resumed``: the resumed checkpoint's command-line record, whose stop words a text
    corpus is read with again unless --stop-words is given."""
    if not os.path.exists(args.corpus):  # a plain message before any reader runs
        raise _UsageError(f"no such file or folder: {args.corpus!r}; CORPUS must be a corpus file or folder")
    options = {name: getattr(args, name) for name in ("min_df", "max_df", "max_features")
               if getattr(args, name) is not None}
    if args.encoding is not None:
        options["encoding"] = args.encoding
    chosen, text = args.stop_words, holds_text(args.corpus)
    if chosen is None:  # a checkpoint made before the guess took the default, English
        chosen = AUTO_LANGUAGE if resumed is None else resumed.get(STOP_WORDS_KEY, "english")
    guessed = text and chosen == AUTO_LANGUAGE
    if args.stop_words is not None or text:  # given for counts (a bag of words, a saved corpus): its error says so
        options["stop_words"] = None if chosen == "none" else chosen
    if args.keep_accents:
        options["strip_accents"] = False
    elif text:  # as the app: accents kept for a language other than English; a resumed run reads as it did
        options["strip_accents"] = AUTO_ACCENTS if resumed is None else resumed.get(STRIP_ACCENTS_KEY, True)
    if args.keep_markup:
        options["strip_markup"] = False
    elif text:
        options["strip_markup"] = AUTO_MARKUP if resumed is None else resumed.get(STRIP_MARKUP_KEY, False)
    if args.keep_boilerplate:
        options["strip_boilerplate"] = False
    elif text:
        options["strip_boilerplate"] = True if resumed is None else resumed.get(STRIP_BOILERPLATE_KEY, False)
    if args.keep_copies:
        options["keep_copies"] = True
    elif text:  # a resumed run keeps the documents it trained on
        options["keep_copies"] = False if resumed is None else resumed.get(KEEP_COPIES_KEY, True)
    if args.near_copies is not None:
        if not 0 < args.near_copies <= 1:
            raise _UsageError(f"--near-copies must be a share in (0, 1] (0.8 leaves out a text repeated but for a "
                              f"sentence or a few words), got {args.near_copies}")
        if args.keep_copies:
            raise _UsageError("--near-copies leaves near-copies out with the copies; it cannot go with --keep-copies")
        options["near_copies"] = args.near_copies  # given for counts: the bag of words' error says so
    elif text and resumed is not None and resumed.get(NEAR_COPIES_KEY) is not None:
        options["near_copies"] = resumed[NEAR_COPIES_KEY]  # a resumed run leaves out what it left out
    if args.leave_out:
        options["leave_out"] = tuple(args.leave_out)  # given for counts: the bag of words' error says so
    elif text and resumed is not None and resumed.get(LEAVE_OUT_KEY):
        options["leave_out"] = tuple(resumed[LEAVE_OUT_KEY])  # a resumed run leaves out what it left out
    if args.passages is not None:
        if args.passages < 1:
            raise _UsageError(f"--passages must be a number of words, 1 or more (300 is a good start), got "
                              f"{args.passages}")
        options["passage_words"] = args.passages
    elif text and resumed is not None and resumed.get(PASSAGE_WORDS_KEY) is not None:
        options["passage_words"] = resumed[PASSAGE_WORDS_KEY]  # a resumed run reads the passages it trained on
    if args.phrases or (text and resumed is not None and resumed.get(JOIN_PHRASES_KEY, False)):
        options["join_phrases"] = True  # given for counts: the bag of words' error says so
    if args.keep_word_forms:
        options["merge_word_forms"] = False
    elif text:  # where the language has word forms; a resumed run as the run it continues
        options["merge_word_forms"] = AUTO_MARKUP if resumed is None else resumed.get(MERGE_WORD_FORMS_KEY, False)
    if args.keep_headers:
        options["strip_messages"] = False
    elif text:
        options["strip_messages"] = AUTO_MARKUP if resumed is None else resumed.get(STRIP_MESSAGES_KEY, False)
    try:
        corpus = load_corpus(args.corpus, text_column=args.text_column, title_column=args.title_column,
                             sheet=args.sheet, **options)
    except ValueError as exc:  # an id of no document: said with the flag's name
        if not str(exc).startswith("leave_out "):
            raise
        raise _UsageError(f"--leave-out{str(exc)[len('leave_out'):]}") from None
    message = f"corpus: {corpus.n_docs} documents, {corpus.n_words} words, {corpus.n_tokens} tokens"
    vectorizer = getattr(corpus, "vectorizer", None)  # None: counts without a record of how text was read
    used = getattr(vectorizer, "stop_words", None)
    if isinstance(used, str):  # read from text (a bag of words has no stop words to choose)
        message += f"; {used} stop words" + (" (guessed from the texts)" if guessed else "")
        message += "" if vectorizer.strip_accents else ", accents kept"
    if getattr(vectorizer, "strip_messages", False) and getattr(corpus, "texts", None) is not None:
        read = messages_report(corpus.texts)
        message += (f"; {read.messages} e-mail messages read without their headers, quoted replies and signatures "
                    f"({read.words_removed / max(read.words, 1):.1%} of the words)")
    if getattr(vectorizer, "strip_markup", False):
        message += "; HTML/XML markup left out"
    if getattr(vectorizer, "boilerplate", ()) and getattr(corpus, "texts", None) is not None:
        left_out = vectorizer.boilerplate_report(corpus.texts)
        if left_out.documents:
            message += (f"; boilerplate left out: {left_out.words_removed / max(left_out.words, 1):.1%} of the words, "
                        f"{left_out.documents} documents, {len(left_out.blocks)} distinct "
                        f"block{'s' if len(left_out.blocks) != 1 else ''} of repeated lines")
    if options.get("join_phrases") and vectorizer is not None:
        found = vectorizer.phrases
        message += (f"; {len(found)} phrase{'s' if len(found) != 1 else ''} read as one word"
                    + (f" ({', '.join(found[:PHRASES_SHOWN])}{', ...' if len(found) > PHRASES_SHOWN else ''})"
                       if found else " (none found)"))
    if options.get("merge_word_forms") and isinstance(used, str):
        message += _word_forms_message(corpus, vectorizer)
    if getattr(vectorizer, "token_pattern", None) == UNICODE_TOKEN_PATTERN:
        message += ("; read with UNICODE_TOKEN_PATTERN (combining marks kept in words, Chinese and Japanese as "
                    "pairs of characters)")
    encodings = collections.Counter(encoding for _, encoding in getattr(corpus, "encodings", ()))
    if encodings:
        message += "; decoded as " + ", ".join(
            f"{encoding}" + (f" ({n} files)" if len(encodings) > 1 else "") for encoding, n in encodings.most_common()
        )
    emptied, copies = len(corpus.emptied), len(corpus.copies)  # load_corpus gives a Corpus
    near = len(corpus.near_copies)
    message += f"; {emptied} document{'s' if emptied != 1 else ''} dropped (no words left)"
    if copies - near:
        message += (f"; {copies - near} cop{'ies' if copies - near != 1 else 'y'} of other documents left out (the "
                    "same words in the same order; --keep-copies keeps them)")
    if near:
        message += f"; {near} near-cop{'ies' if near != 1 else 'y'} left out (--near-copies)"
    left_out = len(getattr(corpus, "left_out", ()))
    if left_out:
        message += f"; {left_out} document{'s' if left_out != 1 else ''} left out (--leave-out)"
    skipped = tuple(getattr(corpus, "skipped", ()))
    if skipped:
        message += f"; {len(skipped)} file{'s' if len(skipped) != 1 else ''} skipped"
    print(message, file=sys.stderr)
    unreadable = [entry for entry in skipped if is_document_file(entry.name)]  # why says what to do
    for entry in unreadable[:SKIPPED_SHOWN]:
        print(_printable(f"skipped {entry.name}: {entry.reason}"), file=sys.stderr)
    if len(unreadable) > SKIPPED_SHOWN:
        print(f"... and {len(unreadable) - SKIPPED_SHOWN} more PDF, Word, OpenDocument, EPUB or presentation files "
              "that could not be read", file=sys.stderr)
    others = skipped_by_reason(entry for entry in skipped if not is_document_file(entry.name))
    for reason, names in others[:SKIPPED_GROUPS_SHOWN]:  # the rest grouped by why, with a few of their names
        examples = ", ".join(names[:SKIPPED_EXAMPLES]) + (", ..." if len(names) > SKIPPED_EXAMPLES else "")
        print(_printable(f"skipped {len(names)} file{'s' if len(names) != 1 else ''}: {reason} ({examples})"),
              file=sys.stderr)
    if len(others) > SKIPPED_GROUPS_SHOWN:
        rest = others[SKIPPED_GROUPS_SHOWN:]
        print(f"... and {sum(len(names) for _, names in rest)} more files skipped for {len(rest)} other reasons",
              file=sys.stderr)
    return corpus


def _split(counts: Any, test_docs: int | None, seed: int) -> tuple[Any, Any, Any, int, Any]:
    """Return (train, observed, heldout, n_test, the training rows); observed/heldout are None without evaluation."""
    n_docs = counts.shape[0]
    n_test = min(500, n_docs // 10) if test_docs is None else test_docs
    if n_test == 0:
        if test_docs is None:
            print("held-out evaluation off: the corpus is too small to hold out 10% of it", file=sys.stderr)
        return counts, None, None, 0, range(n_docs)
    from engine.inference.heldout import heldout_split

    split = heldout_split(counts, n_test, seed=seed)
    return split.train, split.observed, split.heldout, n_test, split.train_indices


def _build_model(args: argparse.Namespace, n_words: int) -> Any:
    given = {"alpha": args.alpha, "topic_init": args.topic_init, "gamma_init": args.gamma_init,
             "dtype": args.dtype}
    options = {name: value for name, value in given.items() if value is not None}
    options.update(eta=args.eta, seed=args.seed)
    if args.model == "lda":
        for flag, value in (("--doc-truncation", args.doc_truncation), ("--omega", args.omega),
                            ("--births", args.births)):
            if value is not None:
                raise _UsageError(f"{flag} applies to --model hdp only")
        from engine.models.lda import LDA

        if args.local_update is not None:
            options["local_update"] = args.local_update

        n_topics = 50 if args.topics is None else args.topics
        model_class, options = LDA, {"n_topics": n_topics, "n_words": n_words, **options}
    else:
        try:
            from engine.models.hdp import HDP
        except ImportError as exc:
            raise _UsageError(f"the HDP model is not available in this installation ({exc})") from None
        if args.local_update is not None:
            raise _UsageError("--local-update applies to --model lda only")
        extra = {name: value for name, value in (("doc_truncation", args.doc_truncation), ("omega", args.omega),
                                                 ("births", args.births)) if value is not None}
        n_topics = DEFAULT_HDP_TOPICS if args.topics is None else args.topics
        model_class, options = HDP, {"n_topics": n_topics, "n_words": n_words, **extra, **options}
    try:
        model = model_class(**options)
    except TypeError as exc:
        raise _UsageError(f"an option does not apply to --model {args.model} ({exc})") from None
    try:  # the models check their arguments when first used: here, before the corpus is split
        model.settings()
    except ValueError as exc:
        message = str(exc)
        for name, flag in _MODEL_FLAGS.items():  # "births must be ..." -> "--births must be ..."
            if message.startswith(name + " "):
                message = flag + message[len(name):]
                break
        raise _UsageError(message) from None
    return model


def _build_run(args: argparse.Namespace, train: Any, observed: Any, heldout: Any, vocabulary: Any,
               extra: dict, checkpoint: LoadedModel | None = None) -> TrainingRun:
    from engine.inference.svi import SVI, BatchVI

    n_train = train.shape[0]
    target_docs = default_target_docs(n_train) if args.epochs is None else max(1, math.ceil(args.epochs * n_train))
    options = {"vocabulary": vocabulary, "eval_every_docs": args.eval_every, "target_docs": target_docs,
               "checkpoint_path": args.checkpoint, "checkpoint_every_seconds": args.checkpoint_every,
               "max_seconds": args.max_seconds, "extra": extra}
    if checkpoint is not None:  # --resume, read once by _fit; checkpoints go on to the same file by default
        options["checkpoint_path"] = args.resume if args.checkpoint is None else args.checkpoint
        return TrainingRun.resume_from(checkpoint, train, observed, heldout, cluster=args.dask, **options)
    model = _build_model(args, train.shape[1])
    if args.algorithm == "batch":
        trainer = BatchVI(model, train)
    else:
        # --batch-size unset: SVI's own default, DEFAULT_BATCH_SIZE or the whole collection if smaller
        trainer = SVI(model, train, batch_size=args.batch_size, seed=args.seed, cluster=args.dask, **_schedule(args))
        if trainer.cluster is not None:
            print(f"local steps on {trainer.cluster.describe()}", file=sys.stderr)
    return TrainingRun(trainer, observed, heldout, **options)


def _schedule(args: argparse.Namespace) -> dict:
    """kappa, tau, the step-size rule and sampling for SVI: the options given, else the engine's defaults."""
    return {"kappa": DEFAULT_KAPPA if args.kappa is None else args.kappa,
            "tau": DEFAULT_TAU if args.tau is None else args.tau,
            "step_size": args.step_size or "schedule",
            "sampling": args.sampling or "epoch"}


def _print_point(point: EvalPoint) -> None:
    tqdm.write(
        f"step {point.step:>7}  docs {point.docs_seen:>9}  {point.seconds:8.1f} s  rho {point.rho:.4f}  "
        f"held-out log likelihood {point.heldout_loglik:.4f}",
        file=sys.stdout,
    )


class _NoteAboveBar(logging.Handler):
    """An engine note (the first run's kernel compile) as a line above the progress bar."""

    def emit(self, record: logging.LogRecord) -> None:
        tqdm.write(f"svi-topics: {record.getMessage()}", file=sys.stderr)


def _follow(run: TrainingRun, quiet: bool) -> bool:
    """Show progress until the run ends; returns False if interrupted (Ctrl-C)."""
    notes = logging.getLogger("engine.kernels.cache")  # says when the kernels must be compiled first
    note, level = _NoteAboveBar(), notes.level
    if not quiet:
        notes.addHandler(note)
        notes.setLevel(logging.INFO)
    try:
        return _show_progress(run, quiet)
    finally:
        notes.removeHandler(note)
        notes.setLevel(level)


def _show_progress(run: TrainingRun, quiet: bool) -> bool:
    snap = run.snapshot()
    printed = 0
    bar = tqdm(total=snap.target_docs, initial=snap.docs_seen, unit="doc", file=sys.stderr, disable=quiet,
               dynamic_ncols=True)
    interrupted = False
    try:
        run.start()
        while True:
            alive = run.is_alive
            snap = run.snapshot()
            for point in snap.history[printed:]:
                _print_point(point)
            printed = len(snap.history)
            postfix = {"epoch": f"{snap.epoch:.2f}", "rho": f"{snap.rho:.4f}"}
            if snap.heldout_loglik is not None:
                postfix["loglik"] = f"{snap.heldout_loglik:.4f}"
            bar.set_postfix(postfix, refresh=False)
            bar.update(snap.docs_seen - bar.n)
            if not alive:
                break
            time.sleep(_POLL_SECONDS)
    except KeyboardInterrupt:
        interrupted = True
        run.stop(timeout=None)
        snap = run.snapshot()
        for point in snap.history[printed:]:
            _print_point(point)
    finally:
        bar.close()
    return not interrupted


_SVI_OPTIONS = ("kappa", "tau", "batch_size", "sampling", "step_size")
_MODEL_OPTIONS = ("model", "topics", "alpha", "eta", "topic_init", "gamma_init", "dtype", "doc_truncation", "omega",
                  "births", "local_update")
# the models' argument names, as the flags that set them
_MODEL_FLAGS = {"n_topics": "--topics", "doc_truncation": "--doc-truncation", "births": "--births", "alpha": "--alpha",
                "eta": "--eta", "omega": "--omega"}


def _check_options(args: argparse.Namespace, parser_defaults: dict) -> None:
    """Refuse options that would be silently ignored: SVI's schedule with batch VI, model options on resume."""
    def given(name: str) -> bool:
        return getattr(args, name) != parser_defaults.get(name)

    def flags(names) -> str:
        return ", ".join("--" + name.replace("_", "-") for name in names)

    if args.resume is not None:
        ignored = [name for name in (*_MODEL_OPTIONS, *_SVI_OPTIONS, "algorithm") if given(name)]
        if ignored:
            raise _UsageError(f"{flags(ignored)} cannot change a resumed run (the checkpoint holds its model and "
                              "schedule); drop them, or start a new run without --resume")
    elif args.algorithm == "batch":
        ignored = [name for name in (*_SVI_OPTIONS, "dask") if given(name)]
        if ignored:
            raise _UsageError(f"{flags(ignored)} {'applies' if len(ignored) == 1 else 'apply'} to --algorithm svi "
                              "only: batch VI takes every document in each update and uses no step size")
    elif args.step_size == "adaptive":
        ignored = [name for name in ("kappa", "tau") if given(name)]
        if ignored:
            raise _UsageError(f"{flags(ignored)} set the schedule, which --step-size adaptive replaces; "
                              "drop them, or use --step-size schedule")
        if args.model == "hdp":
            raise _UsageError("--step-size adaptive is available for LDA only; use the kappa/tau schedule "
                              "with --model hdp")


def _check_writable(path: str, what: str) -> None:
    """Fail before training, not after it, if ``path`` cannot be written."""
    target = Path(path)
    if target.is_dir():
        raise _UsageError(f"{what} {path!r} is a folder; give a file name such as {str(target / 'model.npz')!r}")
    folder = target.parent
    if not folder.is_dir():
        raise _UsageError(f"the folder of {what} {path!r} does not exist; create it or choose another path")
    try:
        probe_writable(target)
    except OSError as exc:
        raise _UsageError(f"cannot write {what} {path!r} ({exc.strerror or exc}); choose a writable folder") from None


def _fit(args: argparse.Namespace) -> int:
    if args.resume is None and args.test_docs is not None and args.test_docs == 0 and args.eval_every:
        raise _UsageError("--eval-every needs held-out documents; drop --test-docs 0")
    _check_options(args, args.parser_defaults)
    _check_writable(args.out, "--out")
    if args.checkpoint is not None:
        _check_writable(args.checkpoint, "--checkpoint")
    checkpoint = None if args.resume is None else load_model(args.resume)
    cli_info = {} if checkpoint is None else checkpoint.extra.get("cli", {})
    corpus = _load_corpus(args, None if checkpoint is None else cli_info)
    test_docs, seed = args.test_docs, args.seed
    if checkpoint is not None:  # the same split as the checkpointed run, on the same words
        checkpoint.check_vocabulary(corpus.vocabulary)
        for flag, given, stored in (("--test-docs", args.test_docs, cli_info.get("test_docs")),
                                    ("--seed", args.seed if args.seed != 0 else None, cli_info.get("split_seed"))):
            if given is not None and stored is not None and given != stored:
                raise _UsageError(f"{flag} {given} differs from the checkpoint's {stored}; a resumed run keeps its "
                                  f"held-out split, so drop {flag}")
        test_docs, seed = cli_info.get("test_docs", test_docs), cli_info.get("split_seed", seed)
    train, observed, heldout, n_test, rows = _split(corpus.counts, test_docs, seed)
    record = {"test_docs": n_test, "split_seed": seed}
    used = getattr(getattr(corpus, "vectorizer", None), "stop_words", ())
    if used is None or isinstance(used, str):  # read from text: the stop words a resumed run reads it with again
        record[STOP_WORDS_KEY] = "none" if used is None else used
        record[STRIP_ACCENTS_KEY] = corpus.vectorizer.strip_accents
        record[STRIP_MARKUP_KEY] = corpus.vectorizer.strip_markup
        record[STRIP_BOILERPLATE_KEY] = bool(corpus.vectorizer.boilerplate)
        record[STRIP_MESSAGES_KEY] = corpus.vectorizer.strip_messages
        record[JOIN_PHRASES_KEY] = bool(args.phrases or cli_info.get(JOIN_PHRASES_KEY, False))
        record[MERGE_WORD_FORMS_KEY] = bool(corpus.vectorizer.word_forms)
        record[KEEP_COPIES_KEY] = not corpus.copies  # none left out: a resumed run keeps every document again
        record[PASSAGE_WORDS_KEY] = args.passages if args.passages is not None else cli_info.get(PASSAGE_WORDS_KEY)
        record[LEAVE_OUT_KEY] = [document.doc_id for document in corpus.left_out]
        record[NEAR_COPIES_KEY] = args.near_copies if args.near_copies is not None else cli_info.get(NEAR_COPIES_KEY)
    extra = {"corpus": str(args.corpus), "cli": record, "dropped_documents": len(getattr(corpus, "dropped", ()))}
    run = _build_run(args, train, observed, heldout, corpus.vocabulary, extra, checkpoint)
    if n_test:
        print(f"training on {train.shape[0]} documents, {n_test} held out for evaluation", file=sys.stderr)
    documents = topics_command.TrainingDocuments.of(corpus, rows, passages=bool(record.get(PASSAGE_WORDS_KEY)))
    for warning in (topics_command.hdp_small_collection_hint(run.model, train),
                    topics_command.long_documents_hint(run.model, train, documents)):
        if warning:
            print(warning, file=sys.stderr)
    completed = _follow(run, args.no_progress)
    if getattr(run.trainer, "cluster", None) is not None:
        run.trainer.cluster.close()  # the client made for --dask (and its LocalCluster)
    snap = run.snapshot()
    if snap.status == "failed":
        print(f"error: training failed: {snap.error}", file=sys.stderr)
        return 2 if isinstance(run.exception, EngineError) else 1
    quality, n_reference = topics_command.measure(run.model, train)  # each topic's coherence, stored with it
    extra = {**run.extra, topics_command.EXTRA_KEY: topics_command.stored(quality, run.model, n_reference)}
    path = save_model(args.out, run.model, corpus.vocabulary, trainer=run.trainer, history=snap,
                      extra=extra, vectorizer=getattr(corpus, "vectorizer", None))
    print(f"{snap.reason or snap.status}; {snap.t} updates, {snap.docs_seen} documents, "
          f"{snap.seconds:.1f} s of training; model saved to {path}", file=sys.stderr)
    # the documents some topics take most of their words from, when one is long enough to fill a topic
    quality = topics_command.with_main_documents(quality, run.model, train, documents)
    for line in topics_command.summary(quality, n_reference, documents):
        print(line, file=sys.stderr)
    hint = topics_command.short_documents_hint(run.model, train)
    if hint:
        print(hint, file=sys.stderr)
    return 0 if completed else 130


# ----------------------------------------------------------------------- app
# The engine never imports Streamlit or the explorer: it finds the installed explorer/app.py with
# importlib.util.find_spec and runs `python -m streamlit run` in a child process, passing the
# project's Streamlit settings as --section.option=value flags so they apply from any folder.
def _explorer_folder() -> Path:
    """The folder of the installed ``explorer`` package (not imported)."""
    spec = importlib.util.find_spec("explorer")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the explorer package is not installed; install svi-topics with pip")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def _streamlit_config() -> Path | None:
    """The Streamlit settings: bundled in a wheel, or ``.streamlit/config.toml`` of a checkout."""
    folder = _explorer_folder()
    for candidate in (folder / "_bundled" / "streamlit" / "config.toml", folder.parent / ".streamlit" / "config.toml"):
        if candidate.is_file():
            return candidate
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        import tomllib  # Python >= 3.11
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            return {}
    with path.open("rb") as file:
        return tomllib.load(file)


def _streamlit_flags(config: Path | None) -> list[str]:
    """``--section.option=value`` flags for every setting of a Streamlit config file."""
    if config is None:
        return []
    flags = []
    for section, options in _read_toml(config).items():
        if isinstance(options, dict):
            for option, value in options.items():
                text = str(value).lower() if isinstance(value, bool) else str(value)
                flags.append(f"--{section}.{option}={text}")
    return flags


def app_command(port: int | None, extra: Sequence[str]) -> list[str]:
    """The command of ``streamlit run`` on the installed explorer; options given by the user come last and win.

    Streamlit's own command line is run by :func:`engine.processes.python_command`, so the
    app imports this installation's ``engine`` and ``explorer`` whatever folders the working
    directory holds.
    """
    command = python_command("from streamlit.web.cli import main; main(prog_name='streamlit')", "run",
                             str(_explorer_folder() / "app.py"))
    command += _streamlit_flags(_streamlit_config())
    if port is not None:
        command.append(f"--server.port={port}")
    return command + list(extra)


def _run_app(port: int | None, extra: Sequence[str]) -> int:
    """Run the explorer until it ends; returns Streamlit's exit code.

    SIGTERM and Ctrl-C sent to this process are passed on to Streamlit, which shuts down, so no
    server is left running without its parent.
    """
    child = subprocess.Popen(app_command(port, extra))
    in_main_thread = threading.current_thread() is threading.main_thread()
    if in_main_thread:
        previous = signal.signal(signal.SIGTERM, lambda signum, frame: child.send_signal(signum))
    try:
        while True:
            try:
                return child.wait()
            except KeyboardInterrupt:
                child.send_signal(signal.SIGINT)
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


# ---------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None, prog: str = "svi-topics") -> int:
    """Run the command line; returns the exit code (0 ok, 2 bad input, 130 interrupted)."""
    parser = build_parser(prog)
    args, unknown = parser.parse_known_args(argv)
    if unknown and args.command != "app":  # only `app` passes options on (to streamlit run)
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    args.streamlit_options = unknown
    try:
        return args.handler(args)
    except BrokenPipeError:  # output piped into a reader that closed early (e.g. `| head`)
        sys.stderr.close()
        return 0
    except _UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except _USER_ERRORS as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _printable(text: str) -> str:
    """``text`` with each character a terminal would act on (a line break, an escape sequence) written escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _one_line(exc: BaseException) -> str:
    message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    message = _printable(" ".join(message.split())) or type(exc).__name__
    return message if isinstance(exc, EngineError) else f"{type(exc).__name__}: {message}"
