#!/usr/bin/env python
"""Collections kept in spreadsheets: what each reader gives of the cells, and how long it takes.

Survey answers, lists of articles and interview notes are often kept in Excel or LibreOffice.
``engine.read_sheet`` reads a sheet of an ``.xlsx`` or ``.ods`` file as a table of strings (text as
written, numbers in general form, dates as ISO text); this script checks it against the
spreadsheet readers people use through pandas, on sheets whose cells are known.

The sheets, each written by the libraries that write such files in Python:

- ``sotu``: the State of the Union sample (6,067 paragraphs; columns id, title, text, year,
  president), one row per paragraph;
- ``jargon``: the Jargon File sample (2,307 entries; columns entry, text), one row per entry,
  the text with its line breaks;
- ``survey``: 5,000 made-up survey rows of every kind of cell: an answer of several lines with
  accents, quotes and "&", a number of stars, a score with decimals, a date, a date and time, a
  yes/no, and empty answers (every tenth), as a collection from a form looks.

Writers: ``openpyxl`` and ``xlsxwriter`` (``.xlsx``; XlsxWriter stores text as Excel does, in a
shared-strings part) and ``odfpy`` through pandas (``.ods``).  Readers: ``engine`` (``engine.read_sheet``)
and ``pandas.read_excel`` with ``openpyxl``, ``calamine`` (python-calamine, a Rust reader) and
``odf`` (odfpy), each with ``dtype=str``.  For each sheet and reader: the share of text cells
equal to what was written, of the other cells equal to their expected string (the number "3",
not "3.0"; the date "2024-05-01", not "2024-05-01 00:00:00"), and the seconds to read the
file, best of ``--repeats``, as a ratio to the engine's.

    python benchmarks/spreadsheet_reading.py --repeats 5
"""

from __future__ import annotations

import argparse
import datetime
import io
import random
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
try:
    import engine
except ImportError:  # a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))
    import engine

SAMPLES = HERE.parent / "sample_data"
SURVEY_ROWS = 5000


def sotu() -> tuple[pd.DataFrame, pd.DataFrame]:
    table = pd.read_csv(SAMPLES / "sotu_paragraphs.csv", dtype=str, keep_default_na=False)
    values = table.assign(year=table["year"].astype(int))
    return values, table


def jargon() -> tuple[pd.DataFrame, pd.DataFrame]:
    with zipfile.ZipFile(SAMPLES / "jargon_file.zip") as archive:
        rows = [(Path(name).stem, archive.read(name).decode("utf-8")) for name in sorted(archive.namelist())
                if name.endswith(".txt")]
    table = pd.DataFrame(rows, columns=["entry", "text"])
    return table, table


def survey(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = random.Random(seed)
    words = ("bus late again", "more buses at night", "the café & the station", "crowded trains",
             '"too expensive"', "Straße naïve déjà vu", "clean platforms", "friendly drivers")
    rows, shown = [], []
    for i in range(SURVEY_ROWS):
        answer = "" if i % 10 == 9 else "\n".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
        stars, score = rng.randint(1, 5), round(rng.uniform(0, 10), 2)
        day = datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randrange(366))
        moment = datetime.datetime(2024, 1, 1, 8) + datetime.timedelta(minutes=rng.randrange(525_600))
        agreed = rng.random() < 0.5
        rows.append({"respondent": f"r{i:05d}", "answer": answer, "stars": stars, "score": score, "day": day,
                     "moment": moment, "agreed": agreed})
        shown.append({"respondent": f"r{i:05d}", "answer": answer, "stars": str(stars), "score": format(score, ".15g"),
                      "day": day.isoformat(), "moment": moment.isoformat(sep=" "), "agreed": str(agreed).upper()})
    return pd.DataFrame(rows), pd.DataFrame(shown)


COLLECTIONS = {"sotu": (sotu, "text"), "jargon": (jargon, "text"), "survey": (survey, "answer")}


def write(values: pd.DataFrame, writer: str) -> bytes:
    out = io.BytesIO()
    if writer == "xlsxwriter":
        with pd.ExcelWriter(out, engine="xlsxwriter", datetime_format="yyyy-mm-dd hh:mm:ss",
                            date_format="yyyy-mm-dd") as book:
            values.to_excel(book, sheet_name="Sheet1", index=False)
    else:
        with pd.ExcelWriter(out, engine="openpyxl" if writer == "openpyxl" else "odf") as book:
            values.to_excel(book, sheet_name="Sheet1", index=False)
    return out.getvalue()


def read(data: bytes, reader: str, suffix: str) -> pd.DataFrame:
    if reader == "engine":
        return engine.read_sheet(data, name="sheet" + suffix).frame
    return pd.read_excel(io.BytesIO(data), engine=reader, dtype=str, keep_default_na=False)


def agreement(got: pd.DataFrame, expected: pd.DataFrame, text_column: str) -> tuple[float, float, str]:
    """Shares of the text cells, and of the other cells, equal to what was written; the first other cell that is
    not, per column, as "column: expected -> read"."""
    if list(got.columns) != list(expected.columns) or len(got) != len(expected):
        return float("nan"), float("nan"), f"columns {list(got.columns)}, {len(got)} rows"
    same = got.astype(str).to_numpy() == expected.astype(str).to_numpy()
    text = list(expected.columns).index(text_column)
    others = [c for c in range(same.shape[1]) if c != text]
    differ = [f"{expected.columns[c]}: {expected.iat[r, c]!r} -> {got.iat[r, c]!r}"
              for c in range(same.shape[1]) for r in np.flatnonzero(~same[:, c])[:1]]
    return same[:, text].mean(), (same[:, others].mean() if others else float("nan")), "; ".join(differ)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5, help="reads of each file; the best is reported")
    parser.add_argument("--collections", nargs="*", default=list(COLLECTIONS), choices=list(COLLECTIONS))
    args = parser.parse_args()
    writers = {"openpyxl": ".xlsx", "xlsxwriter": ".xlsx", "odf": ".ods"}
    print(f"engine {engine.__version__}, pandas {pd.__version__}; best of {args.repeats} reads")
    print(f"{'sheet':<8} {'written by':<11} {'rows':>6} {'MB':>6} {'reader':<9} {'text cells':>11} "
          f"{'other cells':>12} {'seconds':>8} {'x engine':>9}")
    for name in args.collections:
        make, text_column = COLLECTIONS[name]
        values, expected = make()
        for writer, suffix in writers.items():
            data = write(values, writer)
            readers = ["engine", "openpyxl", "calamine"] if suffix == ".xlsx" else ["engine", "odf", "calamine"]
            seconds = {}
            for reader in readers:
                best, frame = float("inf"), None
                for _ in range(args.repeats if reader != "odf" else 1):  # odfpy takes minutes per read
                    start = time.perf_counter()
                    frame = read(data, reader, suffix)
                    best = min(best, time.perf_counter() - start)
                seconds[reader] = best
                text, other, differ = agreement(frame, expected, text_column)
                print(f"{name:<8} {writer:<11} {len(expected):>6,} {len(data) / 1e6:>6.1f} {reader:<9} "
                      f"{text:>11.4f} {other:>12.4f} {best:>8.2f} {best / seconds['engine']:>9.2f}"
                      + (f"   {differ}" if differ else ""))


if __name__ == "__main__":
    main()
