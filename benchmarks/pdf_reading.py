#!/usr/bin/env python
"""Collections uploaded as PDF files: what each way of reading them keeps of the writers' words, and the topics.

People's reports, papers and speeches often exist only as PDF.  A PDF holds glyphs placed on
pages, not paragraphs of words, and the page layout adds to the text: a word hyphenated across
a line end ("expecta-" / "tions"), the running header and page number on every page, spacing
that a reader may take for word breaks.  ``engine.read_documents`` reads a PDF with PDFium and
undoes the first two (:func:`engine.pdf_pages_text`).

The collections are two of the app's samples typeset as PDF by groff (``groff -k -ms -Tpdf``:
justified lines, hyphenation, a running header of the collection's name and the page number),
so the words behind every PDF are known:

- ``sotu``: the State of the Union sample's paragraphs grouped by address, one PDF per address
  (88 PDFs, each with the president and year in its running header);
- ``jargon``: the Jargon File sample's entries in archive order, 25 to a PDF (93 PDFs), each
  entry's headword a section heading;
- ``sotu-browser``: the same addresses printed by Chromium, as a browser's "Save as PDF" makes
  them (A4, justified, no hyphenation; the president and year as the page header and "Page n
  of m" as the footer, which Chromium writes after the page's text), through Playwright and
  Debian's ``/usr/bin/chromium``.

Each collection is read four ways:

- ``text``: the words behind the PDFs (what reading could at best give);
- ``engine``: ``engine.read_documents`` (PDFium, hyphenated words joined, running lines left out);
- ``pdfium``: the same PDFium text as a plain text dump gives it: the line-end hyphen kept (so a
  hyphenated word is two words), running headers kept;
- ``pypdf``: ``pypdf``'s ``extract_text`` (the pure-Python reader most Python code uses), when
  installed.

For each reading, with the app's preprocessing (``Corpus.from_texts``: stop words guessed, min_df
5, max_df 0.5, each PDF cut into passages of 300 words): per 1,000 of the text's words (tokens,
before the vocabulary's filters), how many the reading misses and how many it adds (document by
document, word by word); the vocabulary's words that the text never writes ("fragments": "expecta",
"tions", "te", "xt"); and the default LDA (``engine.LDA(n_topics=K, n_words=V, seed=s)`` trained by
``engine.SVI`` for ``--epochs`` passes, one thread) over ``--seeds``: the topics with at least one
fragment among their 10 top words, and NPMI over the reading's own passages (so NPMIs of two
readings are of different vocabularies); means and standard deviations over the seeds, then the
last seed's topics with most fragments.  Seconds to read all PDFs, best of ``--repeats``, as a
ratio to the engine's.

Needs groff with its PDF device (Debian: ``apt-get install groff``), and for ``sotu-browser``
Playwright (the test extra) and Debian's chromium.

    python benchmarks/pdf_reading.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import html
import io
import shutil
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import engine
except ImportError:  # a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))
    import engine

from _quality_panel import add_default_lda_arguments, marked_topics, mean_sd, most_marked  # noqa: E402

SAMPLES = HERE.parent / "sample_data"
PREPROCESSING = {"stop_words": "auto", "min_df": 5, "max_df": 0.5, "strip_accents": "auto", "passage_words": 300}
JARGON_PER_PDF = 25


def _roff_line(text: str) -> str:
    """``text`` as one line of roff input: backslashes escaped, a leading "." or "'" made literal."""
    text = text.replace("\\", "\\e")
    return "\\&" + text if text.startswith((".", "'")) else text


def typeset(title: str, sections: list[tuple[str | None, list[str]]]) -> bytes:
    """A PDF of ``sections`` (heading or None, paragraphs) typeset by groff -ms, with ``title`` heading each page."""
    lines = [f".ds LH {_roff_line(title)}", ".ds CH", ".ds RH - % -"]
    for heading, paragraphs in sections:
        if heading:
            lines += [".SH", _roff_line(heading)]
        for paragraph in paragraphs:
            lines += [".PP", _roff_line(" ".join(paragraph.split()))]
    result = subprocess.run(["groff", "-k", "-ms", "-Tpdf"], input="\n".join(lines).encode(), capture_output=True,
                            check=True)
    return result.stdout


def sotu_pdfs() -> tuple[list[bytes], list[str]]:
    """One PDF per State of the Union address of the app's sample, and the text behind each."""
    frame = pd.read_csv(SAMPLES / "sotu_paragraphs.csv", dtype=str, keep_default_na=False)
    addresses: dict[tuple[str, str], list[str]] = {}
    for (year, president), text in zip(zip(frame.year, frame.president, strict=True), frame.text, strict=True):
        addresses.setdefault((year, president), []).append(text)
    items = list(addresses.items())
    with ThreadPoolExecutor(2) as pool:
        pdfs = list(pool.map(lambda item: typeset(f"{item[0][1]}, {item[0][0]}", [(None, item[1])]), items))
    return pdfs, ["\n\n".join(paragraphs) for _, paragraphs in items]


def jargon_pdfs() -> tuple[list[bytes], list[str]]:
    """The Jargon File sample's entries, ``JARGON_PER_PDF`` to a PDF, and the text behind each."""
    entries = []
    for document in engine.read_zip(SAMPLES / "jargon_file.zip"):
        head, _, body = document.text.partition("\n")
        entries.append((head.strip(), [p for p in body.split("\n\n") if p.strip()]))
    groups = [entries[i:i + JARGON_PER_PDF] for i in range(0, len(entries), JARGON_PER_PDF)]
    with ThreadPoolExecutor(2) as pool:
        pdfs = list(pool.map(lambda group: typeset("The Jargon File", group), groups))
    texts = ["\n\n".join(f"{head}\n\n" + "\n\n".join(" ".join(p.split()) for p in body) for head, body in group)
             for group in groups]
    return pdfs, texts


def _browser_pdfs(documents: list[tuple[str, list[str]]]) -> list[bytes]:
    """Each (title, paragraphs) printed to PDF by Chromium ("Save as PDF": A4, justified, the title as the page
    header and "Page n of m" as its footer), through Playwright and Debian's /usr/bin/chromium."""
    from playwright.sync_api import sync_playwright

    style = "body { font-family: serif; font-size: 11pt; text-align: justify; }"
    pdfs = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page()
        for title, paragraphs in documents:
            body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
            page.set_content(f'<html lang="en"><head><style>{style}</style></head><body>{body}</body></html>')
            pdfs.append(page.pdf(format="A4", display_header_footer=True,
                                 margin={"top": "2cm", "bottom": "2cm", "left": "2cm", "right": "2cm"},
                                 header_template=f'<div style="font-size:9px;width:100%;text-align:center">'
                                                 f"{html.escape(title)}</div>",
                                 footer_template='<div style="font-size:9px;width:100%;text-align:center">Page '
                                                 '<span class="pageNumber"></span> of <span class="totalPages">'
                                                 "</span></div>"))
        browser.close()
    return pdfs


def sotu_browser_pdfs() -> tuple[list[bytes], list[str]]:
    """The State of the Union addresses as :func:`sotu_pdfs` groups them, printed by a browser instead of groff."""
    frame = pd.read_csv(SAMPLES / "sotu_paragraphs.csv", dtype=str, keep_default_na=False)
    addresses: dict[tuple[str, str], list[str]] = {}
    for year, president, text in zip(frame.year, frame.president, frame.text, strict=True):
        addresses.setdefault((year, president), []).append(" ".join(text.split()))
    items = [(f"{president}, {year}", paragraphs) for (year, president), paragraphs in addresses.items()]
    return _browser_pdfs(items), ["\n\n".join(paragraphs) for _, paragraphs in items]


COLLECTIONS = {"sotu": sotu_pdfs, "jargon": jargon_pdfs, "sotu-browser": sotu_browser_pdfs}


def read_engine(pdfs: list[bytes]) -> list[str]:
    texts = []
    for document in engine.read_documents((f"{i}.pdf", pdf) for i, pdf in enumerate(pdfs)):
        if document.text is None:
            raise RuntimeError(f"{document.name}: {document.problem}")
        texts.append(document.text)
    return texts


def read_pdfium_plain(pdfs: list[bytes]) -> list[str]:
    """PDFium's page text as a plain dump gives it: line ends as line breaks, the line-end hyphen kept."""
    import pypdfium2 as pdfium

    texts = []
    for pdf in pdfs:
        document = pdfium.PdfDocument(pdf)
        pages = [document[i].get_textpage().get_text_range() for i in range(len(document))]
        document.close()
        texts.append("\n\n".join(page.replace("\ufffe", "-\n") for page in pages))
    return texts


def read_pypdf(pdfs: list[bytes]) -> list[str] | None:
    try:
        import pypdf
    except ImportError:
        return None
    return ["\n\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages) for pdf in pdfs]


def token_differences(truth: list[str], read: list[str], analyze) -> tuple[float, float]:
    """Per 1,000 of the words of ``truth``: the words ``read`` misses and the words it adds, document by document."""
    total = missed = added = 0
    for true_text, read_text in zip(truth, read, strict=True):
        want, got = Counter(analyze(true_text)), Counter(analyze(read_text))
        total += sum(want.values())
        missed += sum((want - got).values())
        added += sum((got - want).values())
    return 1000 * missed / total, 1000 * added / total


def best_seconds(function, pdfs: list[bytes], repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        function(pdfs)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collections", nargs="+", default=list(COLLECTIONS), choices=list(COLLECTIONS))
    parser.add_argument("--repeats", type=int, default=3, help="timings of each reading, best kept")
    add_default_lda_arguments(parser)
    args = parser.parse_args(argv)
    if shutil.which("groff") is None or subprocess.run(["groff", "-Tpdf", "-v"], capture_output=True).returncode:
        print("needs groff with its PDF device: apt-get install groff", file=sys.stderr)
        return 2
    readers = {"engine": read_engine, "pdfium": read_pdfium_plain, "pypdf": read_pypdf}
    print("| collection | PDFs (pages) | reading | words missed /1000 | words added /1000 | fragments in the "
          "vocabulary | topics with a fragment | NPMI | read seconds / engine's |")
    print("|---|---|---|---|---|---|---|---|---|")
    examples = []
    with threadpool_limits(1):
        for name in args.collections:
            pdfs, truth = COLLECTIONS[name]()
            pages = sum(document.pages for document in engine.read_documents((f"{i}.pdf", p) for i, p in
                                                                                enumerate(pdfs)))
            readings = {"text": truth}
            seconds = {}
            for reading, function in readers.items():
                texts = function(pdfs)
                if texts is None:
                    print(f"{reading}: not installed, left out", file=sys.stderr)
                    continue
                readings[reading] = texts
                seconds[reading] = best_seconds(function, pdfs, args.repeats)
            true_corpus = engine.Corpus.from_texts(truth, **PREPROCESSING)
            analyze = true_corpus.vectorizer.count_vectorizer().build_analyzer()
            true_words = set().union(*(analyze(text) for text in truth))
            for reading, texts in readings.items():
                corpus = true_corpus if reading == "text" else engine.Corpus.from_texts(texts, **PREPROCESSING)
                missed, added = token_differences(truth, texts, analyze)
                fragments = {w for w in corpus.vocabulary if w not in true_words}
                topics, npmi, last = marked_topics(corpus, fragments, 1, args.k, args.seeds, args.epochs)
                ratio = f"{seconds[reading] / seconds['engine']:.2f}" if reading in seconds else "-"
                print(f"| {name} | {len(pdfs)} ({pages:,}) | {reading} | {missed:.1f} | {added:.1f} | "
                      f"{len(fragments)} of {corpus.n_words:,} | {mean_sd(topics, 1)} | {mean_sd(npmi, 3)} | "
                      f"{ratio} |", flush=True)
                if fragments and reading != "text":
                    shown = sorted(fragments, key=lambda w: -corpus.counts[:, corpus.vocabulary.index(w)].sum())
                    examples.append(f"{name}, {reading}: most frequent fragments {', '.join(shown[:12])}; "
                                    f"topics with most: {' | '.join(most_marked(corpus, last))}")
    print()
    for line in examples:
        print(f"- {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
