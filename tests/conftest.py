"""Fixtures shared by the engine and explorer tests.

``planted_corpus``: a small, seeded corpus whose topics are disjoint blocks of words, so a
test can check that a model's top words recover the blocks.  ``shared_dir``: the optional
``../shared`` folder of development material beside the project root.

BLAS runs on one thread during the tests: the test machines are small and shared, and
one thread makes timings steadier.  The environment variables reach subprocesses (the
app started by browser tests); ``threadpoolctl`` covers libraries already loaded here.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

from collections.abc import Callable, Iterator  # noqa: E402  (thread limits come first)
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

PROJECT_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True, eq=False)
class PlantedCorpus:
    """A corpus drawn from LDA with topics on disjoint blocks of words.

    Topic k puts equal probability on the ``words_per_topic`` columns of ``blocks[k]``
    and none elsewhere; the words of topic k are named ``t{k}w{j}`` so a printed top-word
    list shows at a glance which block it came from.
    """

    counts: sp.csr_matrix  # (n_docs, n_words) integer counts, no empty rows
    topics: np.ndarray  # (n_topics, n_words) true beta, rows sum to 1
    doc_topic: np.ndarray  # (n_docs, n_topics) true theta, rows sum to 1
    vocabulary: tuple[str, ...]
    blocks: tuple[tuple[int, ...], ...]  # column indices of each topic's words
    texts: tuple[str, ...]  # each document as words, for the text pipeline

    @property
    def n_docs(self) -> int:
        return self.counts.shape[0]

    @property
    def n_words(self) -> int:
        return self.counts.shape[1]

    @property
    def n_topics(self) -> int:
        return self.topics.shape[0]


def make_planted_corpus(
    n_docs: int = 200,
    n_topics: int = 5,
    words_per_topic: int = 10,
    doc_length: int = 50,
    alpha: float = 0.2,
    seed: int = 0,
) -> PlantedCorpus:
    """Draw a planted corpus; kept beside the fixture so tests can ask for other sizes."""
    rng = np.random.default_rng(seed)
    n_words = n_topics * words_per_topic
    blocks = tuple(tuple(range(k * words_per_topic, (k + 1) * words_per_topic)) for k in range(n_topics))
    topics = np.zeros((n_topics, n_words))
    for k, block in enumerate(blocks):
        topics[k, list(block)] = 1.0 / words_per_topic
    doc_topic = rng.dirichlet(np.full(n_topics, alpha), size=n_docs)
    lengths = np.maximum(1, rng.poisson(doc_length, size=n_docs))
    word_probs = doc_topic @ topics
    word_probs /= word_probs.sum(axis=1, keepdims=True)
    counts = sp.csr_matrix(rng.multinomial(lengths, word_probs).astype(np.int64))
    vocabulary = tuple(f"t{k}w{j}" for k in range(n_topics) for j in range(words_per_topic))
    words = np.asarray(vocabulary, dtype=object)
    texts = tuple(
        " ".join(np.repeat(words[counts.indices[start:end]], counts.data[start:end]))
        for start, end in zip(counts.indptr[:-1], counts.indptr[1:], strict=True)
    )
    return PlantedCorpus(counts, topics, doc_topic, vocabulary, blocks, texts)


@pytest.fixture
def planted_corpus() -> PlantedCorpus:
    """200 documents, 5 topics on disjoint blocks of 10 words (50 words), seed 0.

    A fresh corpus per test, so a test that modifies it cannot affect another.
    """
    return make_planted_corpus()


@pytest.fixture
def make_planted() -> Callable[..., PlantedCorpus]:
    """``make_planted(n_docs=..., n_topics=..., words_per_topic=..., doc_length=...,
    alpha=..., seed=...)`` for tests that need another planted corpus."""
    return make_planted_corpus


@pytest.fixture
def shared_dir() -> Path:
    """The ``shared`` folder beside the project root; the test is skipped without it."""
    path = PROJECT_ROOT.parent / "shared"
    if not path.is_dir():
        pytest.skip(f"development material not found at {path}")
    return path


@pytest.fixture(scope="session")
def project_root() -> Path:
    """The folder holding pyproject.toml, README.md and sample_data/."""
    return PROJECT_ROOT


@pytest.fixture(autouse=True, scope="session")
def _one_blas_thread() -> Iterator[None]:
    with threadpool_limits(limits=1):
        yield


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a full run, run ``tests/benchmarks`` last (otherwise in pytest's order).

    Its first tests step an HDP and the paper preset's LDA, whose kernels a fresh checkout
    has not compiled yet: run first, they waited about two minutes for the background
    compile of :mod:`tests._kernel_cache`; run last, they load what it compiled meanwhile.
    """
    if len(items) < _BACKGROUND_COMPILE_MIN_TESTS:
        return
    benchmarks = PROJECT_ROOT / "tests" / "benchmarks"
    late = [item for item in items if benchmarks in item.path.parents]
    if late:
        items[:] = [item for item in items if benchmarks not in item.path.parents] + late


def _parallel_full_run(config: pytest.Config) -> int:
    """The test processes of a pytest-xdist run of the whole suite (the README's command), seen from its main
    process; 0 for any other run and inside the test processes."""
    workers = getattr(config.option, "numprocesses", None)
    if os.environ.get("PYTEST_XDIST_WORKER") or not workers or config.option.collectonly:
        return 0
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS:  # some tests named: compile as they go
        return 0
    return (os.cpu_count() or 1) if workers in ("auto", "logical") else int(workers)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Before a parallel full run starts its test processes, compile every kernel it needs, one process per core."""
    processes = _parallel_full_run(session.config)
    if processes:
        from tests import _kernel_cache

        print(f"\n{_kernel_cache.compile_before(processes)}", flush=True)


def pytest_collection_finish(session: pytest.Session) -> None:
    """On a run of many tests in one process, compile the kernels the later tests need in a second process
    meanwhile (a parallel run compiled them before it began: pytest_sessionstart)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if len(session.items) >= _BACKGROUND_COMPILE_MIN_TESTS and not session.config.option.collectonly:
        from tests import _kernel_cache

        _kernel_cache.start()


def pytest_sessionfinish(session: pytest.Session) -> None:
    from tests import _kernel_cache

    _kernel_cache.stop()


_BACKGROUND_COMPILE_MIN_TESTS = 200  # a full run (about 1,300 tests), not a module or a single test
