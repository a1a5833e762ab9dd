"""The quality benchmark's panel (the shared corpora, the KJV Bible built at run time, a synthetic corpus) and the
check collections (quotations, man pages in English, German, French, Chinese and Japanese, Bible verses, package
titles, the Python standard library's docstrings, a dictionary of 1913, the Devil's Dictionary, Debian changelog
entries), built at run time, on which no default was tuned."""

from __future__ import annotations

import ast
import gzip
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import compare_lda
import numpy as np
import scipy.sparse as sp
from _peers import gensim_bow
from _quality_config import HELDOUT_FRACTION, SHARED_CORPORA, SPLIT_SEED, SYNTHETIC, TEST_FRACTION

import engine


@dataclass
class Collection:
    """One panel collection: training documents and the two halves of the test documents."""

    name: str
    train: sp.csr_matrix
    observed: sp.csr_matrix
    heldout: sp.csr_matrix
    source: str
    _prepared: dict = field(default_factory=dict, repr=False)

    def stats(self) -> dict:
        return {
            "train_docs": self.train.shape[0],
            "test_docs": self.observed.shape[0],
            "n_words": self.train.shape[1],
            "train_tokens": int(self.train.sum()),
            "heldout_tokens": int(self.heldout.sum()),
            "source": self.source,
        }

    def subsample(self, n_train: int, seed: int = SPLIT_SEED) -> Collection:
        """The same test documents and vocabulary with ``n_train`` of the training documents (drawn once
        with ``seed``), named ``"<name>:<n_train>"``: the regime of a user's small collection."""
        if not 1 <= n_train < self.train.shape[0]:
            raise ValueError(f"{self.name} has {self.train.shape[0]} training documents; cannot keep {n_train}")
        rows = np.sort(np.random.default_rng(seed).choice(self.train.shape[0], n_train, replace=False))
        return Collection(f"{self.name}:{n_train}", self.train[rows], self.observed, self.heldout,
                          f"{self.source}; {n_train} of its training documents (rng seed {seed})")

    def prepared(self, what: str):
        """Inputs built once per collection, before any clock starts: gensim's bag of words,
        tomotopy's Corpus, the coherence reference."""
        if what not in self._prepared:
            self._prepared[what] = {
                "gensim": lambda: gensim_bow(self.train),
                "tomotopy": lambda: tomotopy_corpus(self.train),
                "coherence": lambda: coherence_reference(self.train),
            }[what]()
        return self._prepared[what]


def word_totals(counts: sp.spmatrix, vocabulary) -> dict[str, int]:
    """Each word of ``vocabulary`` -> its count over the documents (``counts``' column sums)."""
    return dict(zip(vocabulary, np.asarray(counts.sum(axis=0)).ravel().tolist(), strict=True))


def mostly_gone(before: dict[str, int], after: dict[str, int]) -> set[str]:
    """The words of ``before`` whose count in ``after`` (0 if absent) is under a tenth of their count in ``before``:
    words found almost only in what a reading leaves out (markup, boilerplate)."""
    return {word for word, n in before.items() if after.get(word, 0) < 0.1 * n}


def coherence_reference(train: sp.csr_matrix) -> engine.CoherenceReference:
    return engine.CoherenceReference(train, train.shape[1])


def add_default_lda_arguments(parser) -> None:
    """The options of :func:`default_lda_top_words`: --k, --seeds, --epochs."""
    parser.add_argument("--k", type=int, default=20, help="LDA topics")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--epochs", type=int, default=10, help="passes over the documents")


def default_lda_top_words(corpus: engine.Corpus, k: int, seeds: list[int], epochs: int,
                          n_top: int = 10) -> tuple[list[np.ndarray], np.ndarray]:
    """The default LDA (``engine.LDA(n_topics=k, n_words=V, seed=s)`` trained by ``engine.SVI`` for ``epochs``
    passes) on ``corpus``, once per seed: each run's (k, n_top) top words, most probable first, and their mean
    NPMI over ``corpus``' documents, one per seed."""
    reference = coherence_reference(corpus.counts)
    tops, npmi = [], []
    for seed in seeds:
        model = engine.LDA(n_topics=k, n_words=corpus.n_words, seed=seed)
        engine.SVI(model, corpus=corpus, seed=seed).run(n_docs=epochs * corpus.n_docs)
        tops.append(np.argsort(-model.lambda_, axis=1)[:, :n_top])
        npmi.append(float(np.mean(reference.score(tops[-1]))))
    return tops, np.array(npmi)


def marked_topics(corpus: engine.Corpus, words: set[str], at_least: int, k: int, seeds: list[int],
                  epochs: int) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The default LDA's runs on ``corpus`` (:func:`default_lda_top_words`): in each, how many topics hold at least
    ``at_least`` of ``words`` among their 10 top words; each run's NPMI; and the last run's top words with how many
    of ``words`` each topic holds (:func:`most_marked` shows them)."""
    tops, npmi = default_lda_top_words(corpus, k, seeds, epochs)
    hits = [np.array([[corpus.vocabulary[w] in words for w in row] for row in top]).sum(axis=1) for top in tops]
    return np.array([(h >= at_least).sum() for h in hits]), npmi, (tops[-1], hits[-1])


def most_marked(corpus: engine.Corpus, last: tuple[np.ndarray, np.ndarray], n: int = 2) -> list[str]:
    """The top words of the ``n`` topics of :func:`marked_topics`' last run that hold most of its words."""
    top, hits = last
    return [" ".join(corpus.vocabulary[w] for w in top[t]) for t in np.argsort(-hits, kind="stable")[:n]]


def min_max(values) -> str:
    """"min-max" of one count over the seeds."""
    values = list(values)
    return f"{min(values)}-{max(values)}"


def mean_sd(values: np.ndarray, digits: int) -> str:
    """"mean ± sd" of one figure over the seeds (sd 0 for one seed)."""
    return f"{values.mean():.{digits}f} ± {values.std(ddof=1) if values.size > 1 else 0:.{digits}f}"


def words_left_out(texts: list[str], corpus: engine.Corpus, **whole: Any) -> float:
    """Per 1,000 of the words ``texts`` hold as read with ``corpus``' settings changed by ``whole`` (``boilerplate=
    ()``, ``strip_messages=False``: what a reading leaves out, kept), those ``corpus``' own reading leaves out
    (before the vocabulary's filters)."""
    analyze = corpus.vectorizer.count_vectorizer().build_analyzer()
    full = engine.Vectorizer(**{**corpus.vectorizer.to_dict(), **whole}).count_vectorizer().build_analyzer()
    total = sum(len(full(text)) for text in texts)
    return 1000 * (total - sum(len(analyze(text)) for text in texts)) / max(total, 1)


def built_texts(name: str) -> list[str] | None:
    """The texts of the built collection ``name``, or None after saying on stderr why not and how to get them."""
    try:
        return BUILT[name].read_texts()[0]
    except (FileNotFoundError, OSError) as error:
        print(f"skipping {name}: {error}. {BUILT[name].install}", file=sys.stderr)
        return None


def load_split(folder: Path, name: str, source: str) -> Collection:
    return Collection(name, *compare_lda.load_split(folder), source)


def shared_collection(name: str, shared: Path) -> tuple[Collection | None, str]:
    folder = shared / "corpora" / name
    if compare_lda.missing_corpus_files(folder):
        return None, (
            f"skipping {name}: {folder} has no train.npz / test_obs.npz / test_ho.npz (the shared corpora sit in "
            "../shared/corpora beside the project root; --shared DIR names another folder)"
        )
    return load_split(folder, name, f"{folder}"), ""


APP_SAMPLES = ("sotu", "jargon")  # the app's bundled samples of raw text


def app_sample_texts(name: str) -> list[str]:
    """The texts of one of the app's bundled samples (``APP_SAMPLES``), read as the app reads them."""
    root = Path(__file__).resolve().parents[1] / "sample_data"
    if name == "sotu":
        return [document.text for document in engine.read_table(root / "sotu_paragraphs.csv", "text")]
    if name == "jargon":
        return [document.text for document in engine.read_zip(root / "jargon_file.zip")]
    raise ValueError(f"no app sample {name!r}; one of {APP_SAMPLES}")


# collections of raw text in one language each: the app's samples and the check collections
RAW_COLLECTIONS = ("sotu", "jargon", "fortunes", "manpages", "verses", "packages", "docstrings", "manpages-de",
                   "manpages-fr", "manpages-zh", "manpages-ja")


def raw_texts(name: str) -> list[str] | None:
    """The texts of an app sample or a built collection (``RAW_COLLECTIONS``); None, said on stderr, if absent."""
    return app_sample_texts(name) if name in APP_SAMPLES else built_texts(name)


def bible_chapters() -> tuple[list[str], str]:
    """The King James Bible, one text per chapter (1,189), from the ``bible`` program of Debian's bible-kjv.

    The text lives in bible-kjv-text's compressed ``/usr/lib/bible.data``;
    ``bible -f gen1:1-rev22:21`` prints it one verse per line as ``Ge1:1 In the beginning ...``.
    """
    chapters: dict[tuple[str, str], list[str]] = {}
    verses, program = _bible_verses()
    for book, chapter, text in verses:
        chapters.setdefault((book, chapter), []).append(text)
    return [" ".join(texts) for texts in chapters.values()], program


def bible_verses() -> tuple[list[str], str]:
    """The King James Bible, one text per verse (31,102): short documents of one style."""
    verses, program = _bible_verses()
    return [text for _, _, text in verses], program


def _bible_verses() -> tuple[list[tuple[str, str, str]], str]:
    """(book, chapter, text) of every verse, in order, as ``bible -f gen1:1-rev22:21`` prints them."""
    program = shutil.which("bible")
    if program is None:
        raise FileNotFoundError("the `bible` program is not installed")
    done = subprocess.run(
        [program, "-f", "gen1:1-rev22:21"], stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False
    )
    verse = re.compile(r"^(\d?[A-Za-z]+)(\d+):(\d+) (.*)$")
    verses = [(match[1], match[2], match[4]) for match in map(verse.match, done.stdout.splitlines()) if match]
    if done.returncode != 0 or len(verses) < 30_000:
        raise FileNotFoundError(f"`bible` printed {len(verses)} verses (exit {done.returncode}): {done.stderr[:200]}")
    return verses, program


def package_descriptions() -> tuple[list[str], str]:
    """The one-line descriptions of the Debian packages apt knows (``apt-cache dumpavail``), each once:
    titles of a few words ("Real-time strategy game of ancient warfare")."""
    try:
        done = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True, timeout=300, check=False)
    except FileNotFoundError:
        raise FileNotFoundError("apt-cache is not available") from None
    texts = list(dict.fromkeys(line[len("Description: "):].strip() for line in done.stdout.splitlines()
                               if line.startswith("Description: ")))
    if done.returncode != 0 or len(texts) < 10_000:
        raise FileNotFoundError(f"apt-cache dumpavail gave {len(texts)} descriptions (exit {done.returncode})")
    return texts, "apt-cache dumpavail"


FORTUNES = Path("/usr/share/games/fortunes")
_NOT_PROSE = ("art", "ascii-art")  # pictures drawn in characters, not text


def fortunes_texts() -> tuple[list[str], str]:
    """Every quotation of Debian's fortunes packages, one text each (the files' entries end at a line "%")."""
    files = sorted(p for p in FORTUNES.glob("*") if p.is_file() and not p.suffix and p.name not in _NOT_PROSE)
    if not files:
        raise FileNotFoundError(f"no fortune files in {FORTUNES}")
    texts = []
    for path in files:
        entries = re.split(r"^%$", path.read_text(encoding="latin-1"), flags=re.MULTILINE)
        texts.extend(entry.strip() for entry in entries if entry.strip())
    return texts, f"{len(files)} files of {FORTUNES}"


CHANGELOGS = "/usr/share/doc/*/changelog.Debian.gz"
DICTIONARY_SAMPLE = 20_000  # GCIDE's entries drawn for "dictionary": a collection of FOLDOC's size
# an entry starts at a line "package (version) distribution; urgency=..." at the start of a line
_CHANGELOG_ENTRY = re.compile(r"\n(?=\S+ \([^)]*\) [^;\n]*; urgency=)")


def changelog_entries(pattern: str = CHANGELOGS) -> tuple[list[str], str]:
    """The entries of the Debian changelogs of the packages installed here (the gzipped files ``pattern``, an
    absolute path with wildcards, matches), one text each, as the files hold them: packages built from one source
    ship the same changelog, and an entry can recur with another date."""
    paths = sorted(Path("/").glob(pattern.lstrip("/")))
    if not paths:
        raise FileNotFoundError(f"no file matches {pattern}")
    texts = []
    for path in paths:
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as file:
            texts.extend(entry.strip() for entry in _CHANGELOG_ENTRY.split("\n" + file.read()) if entry.strip())
    return texts, f"{len(paths)} files {pattern}"


def distinct_changelog_entries(pattern: str = CHANGELOGS) -> tuple[list[str], str]:
    """The entries of :func:`changelog_entries`, each distinct one once (``engine.find_text_copies``: the same words in
    the same order), as the app and the command line read a collection by default."""
    texts, where = changelog_entries(pattern)
    first = engine.find_text_copies(texts)
    return [text for d, text in enumerate(texts) if first[d] == d], f"{where}, {len(texts)} entries"


DICTD = Path("/usr/share/dictd")
_DICTD_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"  # dictd's base-64, big-endian
_SOURCE_TAG = re.compile(r"^[ \t]*\[[^\]\n]*\][ \t]*$", re.MULTILINE)  # "[1913 Webster]", "[WordNet 1.5]"


def _dictd_number(digits: str) -> int:
    value = 0
    for digit in digits:
        value = value * 64 + _DICTD_DIGITS.index(digit)
    return value


def dictd_entries(name: str, folder: Path = DICTD, sample: int | None = None) -> tuple[list[str], str]:
    """The entries of the dictd dictionary ``name`` (``folder/name.index`` and ``folder/name.dict.dz``), one text
    each in the index's order, every entry once (several headwords can point at one entry) and the database's own
    entries ("00-database-info", "00-gcide-short") left out; the lines that only name an entry's source
    ("[1913 Webster]") are dropped.
    An entry not in UTF-8 is read as Windows-1252 (a few of GCIDE's are).  ``sample``: that many entries drawn
    without replacement with seed 0, kept in the index's order."""
    index, data = folder / f"{name}.index", folder / f"{name}.dict.dz"
    if not index.is_file() or not data.is_file():
        raise FileNotFoundError(f"{index} or {data} is missing")
    with gzip.open(data, "rb") as file:  # dictzip is gzip with an index of its own
        contents = file.read()
    seen: set[tuple[int, int]] = set()
    texts = []
    for line in index.read_text(encoding="utf-8", errors="replace").splitlines():
        headword, offset, length = [*line.split("\t"), "", ""][:3]
        if headword.startswith(("00-", "00database")) or not length:  # the database's own entries
            continue
        where = (_dictd_number(offset), _dictd_number(length))
        if where in seen:
            continue
        seen.add(where)
        entry = contents[where[0]:where[0] + where[1]]
        try:
            text = entry.decode("utf-8")
        except UnicodeDecodeError:
            text = entry.decode("cp1252", errors="replace")
        texts.append(_SOURCE_TAG.sub("", text).strip())
    if sample is not None and sample < len(texts):
        keep = np.sort(np.random.default_rng(0).choice(len(texts), size=sample, replace=False))
        texts = [texts[i] for i in keep]
    return texts, f"{index} and {data.name}" + (f", {sample} entries drawn with seed 0" if sample else "")


MANPAGE_PACKAGES = ("manpages", "manpages-dev")  # the Linux man-pages project: sections 2-5 and 7
# a page of a man section, in English (/usr/share/man/man2/open.2.gz) or a language's folder (.../man/de/man1/ls.1.gz)
_MANPAGE_PATH = re.compile(r"/man/(?:[a-z]{2,3}(?:_[A-Z]{2})?(?:\.[\w-]+)?/)?man\d/[^/]+\.gz$")
_ROFF_COMMENT = re.compile(r"^['.]\\\"")
_ROFF_ESCAPE = re.compile(r"\\(?:[fF*n](?:\[[^\]]*\]|\(..|.)|\(..|\[[^\]]*\]|[sS][-+]?\d|.)")


def roff_text(source: str) -> str:
    """The words of a man page's roff source: comments dropped, each request's name dropped (its arguments
    kept), escapes such as \\fB and \\(em replaced by spaces.  Good enough for a bag of words, not for reading."""
    lines = []
    for line in source.splitlines():
        if _ROFF_COMMENT.match(line):
            continue
        if line[:1] in ".'":
            line = line[1:].strip().partition(" ")[2].replace('"', " ")
        lines.append(_ROFF_ESCAPE.sub(" ", line))
    return "\n".join(lines)


def manpage_texts(packages: tuple[str, ...] = MANPAGE_PACKAGES, folder: str | None = None) -> tuple[list[str], str]:
    """Every page of the Debian ``packages`` (by default manpages and manpages-dev), one text each; pages that only
    include another (a single ``.so`` request) are left out.  A translation package (manpages-de) installs its
    pages under the language's folder, which counts as a page as well; ``folder`` keeps only the pages under
    that language folder (manpages-zh installs the same pages in zh_CN and zh_TW)."""
    paths = []
    for package in packages:
        try:
            done = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, timeout=60)
        except FileNotFoundError:
            raise FileNotFoundError("dpkg is not available to list the man pages") from None
        if done.returncode != 0:
            raise FileNotFoundError(f"the Debian package {package} is not installed")
        paths += [Path(line) for line in done.stdout.splitlines() if _MANPAGE_PATH.search(line)
                  and (folder is None or f"/man/{folder}/" in line)]
    texts = []
    for path in sorted(set(paths)):
        if path.is_symlink() or not path.is_file():
            continue
        source = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
        if re.fullmatch(r"\s*\.so\s+\S+\s*", source):
            continue
        texts.append(roff_text(source))
    if not texts:
        raise FileNotFoundError(f"no man pages found in the packages {', '.join(packages)}")
    where = f" ({folder})" if folder else ""
    return texts, f"{len(texts)} pages of Debian's {' and '.join(packages)}{where}"


_NOT_LIBRARY = {"site-packages", "dist-packages", "test", "tests", "idle_test", "lib2to3"}  # tests, installed packages


def docstring_texts(root: Path | None = None, minimum: int = 1_000) -> tuple[list[str], str]:
    """The docstrings of the modules, classes and functions of this Python's standard library (or of the sources
    under ``root``), each distinct text once: reference entries from one line to many paragraphs.  Read from the
    sources by ``ast``, nothing imported; the tests, ``lib2to3`` and installed packages are left out, and so are
    files that do not parse.  Fewer than ``minimum`` texts: FileNotFoundError (no standard library here)."""
    root = Path(sysconfig.get_paths()["stdlib"]) if root is None else root
    texts, n_files = [], 0
    for path in sorted(root.rglob("*.py")):
        if _NOT_LIBRARY & set(path.relative_to(root).parts[:-1]):
            continue
        try:
            with warnings.catch_warnings():  # invalid escape sequences in old sources
                warnings.simplefilter("ignore")
                tree = ast.parse(path.read_bytes(), filename=str(path))
        except (SyntaxError, ValueError):  # a template or a file of another Python version
            continue
        n_files += 1
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                text = ast.get_docstring(node)
                if text:
                    texts.append(text)
    texts = list(dict.fromkeys(texts))
    if len(texts) < minimum:
        raise FileNotFoundError(f"the standard library in {root} gave only {len(texts)} docstrings")
    return texts, f"{n_files} modules of {root} (Python {sysconfig.get_python_version()})"


class BuiltCollection(NamedTuple):
    """A collection built at run time from texts on this machine: what ``cached_collection`` needs besides its name."""

    read_texts: Callable[[], tuple[list[str], str]]
    install: str  # how to get the texts, said when they are missing
    provenance: str  # PROVENANCE.md's first sentence ({program}, {n_docs} filled in)
    source: str  # the collection's short description in reports
    language: str = "english"  # its stop words: scikit-learn's English list, or engine.stop_word_list(language)


BUILT = {
    # built once and cached: chapters, vectorised like the shared corpora, split by engine.heldout_split
    "bible": BuiltCollection(
        bible_chapters,
        "`sudo apt-get install bible-kjv-text` installs the King James Bible (public domain, Debian's "
        "bible-kjv-text) and the `bible` program that reads it",
        "King James Bible (public domain), Debian bible-kjv-text, printed by `{program} -f gen1:1-rev22:21`; "
        "one document per chapter ({n_docs})",
        "King James Bible by chapter (Debian bible-kjv-text)",
    ),
    # check collections the defaults were never tuned on: short quotations of every kind (fortune-mod) ...
    "fortunes": BuiltCollection(
        fortunes_texts,
        "`sudo apt-get install fortunes` installs the quotations (Debian's fortunes and fortunes-min; BSD and "
        "various free licences, see /usr/share/doc/fortunes/copyright)",
        "Quotations of Debian's fortunes and fortunes-min packages ({program}, without art and ascii-art); "
        "one document per quotation ({n_docs})",
        "fortune-mod quotations (Debian fortunes, fortunes-min)",
    ),
    # ... one style in very short documents (the panel's Bible, verse by verse) ...
    "verses": BuiltCollection(
        bible_verses,
        "`sudo apt-get install bible-kjv-text` installs the King James Bible (public domain, Debian's "
        "bible-kjv-text) and the `bible` program that reads it",
        "King James Bible (public domain), Debian bible-kjv-text, printed by `{program} -f gen1:1-rev22:21`; "
        "one document per verse ({n_docs})",
        "King James Bible by verse (Debian bible-kjv-text)",
    ),
    # ... titles of a few words ...
    "packages": BuiltCollection(
        package_descriptions,
        "the Debian package lists (`sudo apt-get update`) hold the descriptions",
        "The one-line descriptions of the Debian packages in this machine's apt lists ({program}), each "
        "distinct description once; one document per description ({n_docs})",
        "Debian package descriptions (apt-cache dumpavail)",
    ),
    # ... and technical reference pages, short to very long
    "manpages": BuiltCollection(
        manpage_texts,
        "`sudo apt-get install manpages manpages-dev` installs the Linux man-pages project's pages (GPL, BSD "
        "and other free licences, see /usr/share/doc/manpages/copyright)",
        "The Linux man-pages project's pages in Debian's manpages and manpages-dev ({program}), roff requests "
        "and escapes stripped; one document per page ({n_docs})",
        "Linux man pages (Debian manpages, manpages-dev)",
    ),
    # ... the same kind of pages translated (manpages-l10n), in two languages with their own stop words ...
    "manpages-de": BuiltCollection(
        lambda: manpage_texts(("manpages-de",)),
        "`sudo apt-get install manpages-de` installs the German translations of the manpages-l10n project (GPL 3 "
        "or later, see /usr/share/doc/manpages-de/copyright)",
        "The German man pages of Debian's manpages-de (manpages-l10n; {program}), roff requests and escapes "
        "stripped; one document per page ({n_docs})",
        "German man pages (Debian manpages-de)",
        "german",
    ),
    "manpages-fr": BuiltCollection(
        lambda: manpage_texts(("manpages-fr",)),
        "`sudo apt-get install manpages-fr` installs the French translations of the manpages-l10n project (GPL 3 "
        "or later, see /usr/share/doc/manpages-fr/copyright)",
        "The French man pages of Debian's manpages-fr (manpages-l10n; {program}), roff requests and escapes "
        "stripped; one document per page ({n_docs})",
        "French man pages (Debian manpages-fr)",
        "french",
    ),
    # ... and in two languages written without spaces between words, read as pairs of characters
    "manpages-zh": BuiltCollection(
        lambda: manpage_texts(("manpages-zh",), "zh_CN"),
        "`sudo apt-get install manpages-zh` installs the Chinese translations of the man pages (GFDL 1.2 or later, "
        "see /usr/share/doc/manpages-zh/copyright)",
        "The simplified Chinese man pages of Debian's manpages-zh ({program}), roff requests and escapes "
        "stripped; one document per page ({n_docs})",
        "Chinese man pages (Debian manpages-zh, zh_CN)",
        "chinese",
    ),
    "manpages-ja": BuiltCollection(
        lambda: manpage_texts(("manpages-ja",)),
        "`sudo apt-get install manpages-ja` installs the Japanese translations of the JM project (various free "
        "licences, see /usr/share/doc/manpages-ja/copyright)",
        "The Japanese man pages of Debian's manpages-ja (the JM project; {program}), roff requests and escapes "
        "stripped; one document per page ({n_docs})",
        "Japanese man pages (Debian manpages-ja)",
        "japanese",
    ),
    # ... and the technical reference entries of the Python standard library's docstrings, mostly short
    "docstrings": BuiltCollection(
        docstring_texts,
        "the Python standard library's sources (part of every CPython install; the PSF licence)",
        "The docstrings of the Python standard library's modules, classes and functions ({program}), read by ast, "
        "each distinct docstring once; one document per docstring ({n_docs})",
        "Python standard library docstrings",
    ),
    # ... the definitions of a dictionary of 1913, short entries over a large vocabulary (a sample of GCIDE's) ...
    "dictionary": BuiltCollection(
        lambda: dictd_entries("gcide", sample=DICTIONARY_SAMPLE),
        "`sudo apt-get install dict-gcide` installs GCIDE, the GNU Collaborative International Dictionary of "
        "English (Webster's 1913 with additions; GPL 3 or later, see /usr/share/doc/dict-gcide/copyright)",
        "Entries of GCIDE (Webster's Revised Unabridged Dictionary of 1913 with additions), Debian's dict-gcide "
        "({program}), the lines naming an entry's source dropped; one document per entry ({n_docs})",
        "GCIDE dictionary entries, a sample (Debian dict-gcide)",
    ),
    # ... a small collection: the Devil's Dictionary's 999 satirical definitions ...
    "devil": BuiltCollection(
        lambda: dictd_entries("devil"),
        "`sudo apt-get install dict-devil` installs Ambrose Bierce's The Devil's Dictionary (public domain, "
        "Debian's dict-devil)",
        "Ambrose Bierce's The Devil's Dictionary (1881-1906, public domain), Debian's dict-devil ({program}); "
        "one document per entry ({n_docs})",
        "The Devil's Dictionary (Debian dict-devil)",
    ),
    # ... the changelog entries below, each distinct one once, as the app reads a collection ...
    "changelog-entries": BuiltCollection(
        distinct_changelog_entries,
        "Debian packages install their changelogs in /usr/share/doc/<package>/changelog.Debian.gz (each under "
        "its package's licence, see the copyright file beside it)",
        "The distinct entries of this machine's Debian changelogs ({program}); one document per entry ({n_docs})",
        "Debian changelog entries of the installed packages, each distinct one once",
    ),
    # ... and the entries of the changelogs of the packages installed on the machine, many repeated (not a
    # fixed collection: it changes with what is installed)
    "changelogs": BuiltCollection(
        changelog_entries,
        "Debian packages install their changelogs in /usr/share/doc/<package>/changelog.Debian.gz (each under "
        "its package's licence, see the copyright file beside it)",
        "The entries of this machine's Debian changelogs ({program}), as the files hold them; one document per "
        "entry ({n_docs})",
        "Debian changelog entries of the installed packages",
    ),
}


def cached_collection(cache: Path, name: str, read_texts, install: str, provenance: str,
                      source: str, language: str = "english") -> tuple[Collection | None, str]:
    """The texts of ``read_texts() -> (texts, where)``, vectorised like the shared corpora (with ``language``'s
    stop words) and split by engine.heldout_split, built once into ``cache / name`` (complete or absent) and
    loaded from there."""
    folder = cache / name
    if not (folder / "test_ho.npz").is_file():
        try:
            texts, program = read_texts()
        except (FileNotFoundError, OSError) as error:
            return None, f"skipping {name}: {error}. {install}"
        vectorizer = collection_vectorizer(language)
        counts = sp.csr_matrix(vectorizer.fit_transform(texts), dtype=np.int64)
        split = engine.heldout_split(
            counts, n_test=round(TEST_FRACTION * counts.shape[0]), seed=SPLIT_SEED, heldout_fraction=HELDOUT_FRACTION
        )
        cache.mkdir(parents=True, exist_ok=True)
        # this process's own staging folder: two runs building the same collection at once do not collide
        staging = Path(tempfile.mkdtemp(prefix=f"{name}.partial.", dir=cache))
        try:
            for part, matrix in zip(("train", "test_obs", "test_ho"), split, strict=True):
                sp.save_npz(staging / f"{part}.npz", matrix)
            (staging / "vocab.txt").write_text("\n".join(vectorizer.get_feature_names_out()) + "\n", encoding="utf-8")
            (staging / "PROVENANCE.md").write_text(
                provenance.format(program=program, n_docs=counts.shape[0])
                + (f"; CountVectorizer(stop_words={language!r}, words of 2+ letters" if language not in CJK_LANGUAGES
                   else "; CountVectorizer(stop_words='english', engine.UNICODE_TOKEN_PATTERN: pairs of Han "
                        "characters, katakana words, words of 2+ letters")
                + ", min_df=5, max_df=0.5, accents "
                "stripped); engine.heldout_split(n_test=10 %, seed=0, heldout_fraction=0.2). Built by "
                "benchmarks/quality.py.\n",
                encoding="utf-8",
            )
        except BaseException:  # a run stopped half-way leaves no staging folder behind
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if (folder / "test_ho.npz").is_file():  # another run finished the same build first
            shutil.rmtree(staging, ignore_errors=True)
        else:
            shutil.rmtree(folder, ignore_errors=True)  # an incomplete folder, from before the staging
            try:
                staging.rename(folder)  # the cache is complete or absent
            except OSError:  # another run renamed its build there in between
                shutil.rmtree(staging, ignore_errors=True)
    return load_split(folder, name, f"{source}, cached in {folder}"), ""


CJK_LANGUAGES = ("chinese", "japanese")  # read by engine.UNICODE_TOKEN_PATTERN, as engine.Corpus.from_texts reads them


def collection_vectorizer(language: str = "english"):
    """The shared corpora's vectoriser (their PROVENANCE.md): stop words, words of 2+ letters, min_df 5, max_df 0.5,
    accents stripped.  English keeps scikit-learn's list, as the shared corpora were built; another language takes
    ``engine.Vectorizer``'s, its stop words read as the text is (accents stripped, split into the same tokens), so
    that "für" stops "fur" and "par-devant" stops "par" and "devant"."""
    if language in CJK_LANGUAGES:  # pairs of characters; the English words in them take English stop words
        return engine.Vectorizer(token_pattern=engine.UNICODE_TOKEN_PATTERN).count_vectorizer(min_df=5, max_df=0.5)
    if language != "english":
        return engine.Vectorizer(stop_words=language).count_vectorizer(min_df=5, max_df=0.5)
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(stop_words="english", token_pattern=engine.TOKEN_PATTERN, min_df=5, max_df=0.5,
                           strip_accents="unicode")


def synthetic_collection() -> Collection:
    corpus = engine.make_synthetic_corpus(**SYNTHETIC)
    train, observed, heldout = engine.heldout_split(
        corpus.counts, n_test=round(TEST_FRACTION * corpus.n_docs), seed=SPLIT_SEED, heldout_fraction=HELDOUT_FRACTION
    )
    source = "engine.make_synthetic_corpus(" + ", ".join(f"{k}={v!r}" for k, v in SYNTHETIC.items()) + ")"
    return Collection("synthetic", train, observed, heldout, source)


def load_collection(name: str, args) -> tuple[Collection | None, str]:
    if name in SHARED_CORPORA:
        return shared_collection(name, args.shared)
    if name in BUILT:
        return cached_collection(args.cache, name, *BUILT[name])
    return synthetic_collection(), ""


def tomotopy_corpus(train: sp.csr_matrix):
    """The training documents as a tomotopy Corpus, word w written as the string ``str(w)``."""
    import tomotopy as tp

    corpus = tp.utils.Corpus()
    for a, b in zip(train.indptr[:-1], train.indptr[1:], strict=True):
        corpus.add_doc(words=np.repeat(train.indices[a:b], train.data[a:b]).astype(str).tolist())
    return corpus
