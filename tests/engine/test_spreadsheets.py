"""Spreadsheets (.xlsx, .ods) read as tables: values as strings, sheets, damage and bounds (engine.read_sheet)."""

from __future__ import annotations

import datetime
import io
import random
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest

import engine
from engine.data import spreadsheets
from engine.errors import CorpusFormatError, EmptyCorpusError
from tests.engine._documents import damaged, make_ods, make_xlsx


def _cell(ref: str, value: str, kind: str | None = None, style: int | None = None) -> str:
    attributes = f' r="{ref}"' + (f' t="{kind}"' if kind else "") + (f' s="{style}"' if style is not None else "")
    if kind == "inlineStr":
        return f"<c{attributes}><is><t>{value}</t></is></c>"
    return f"<c{attributes}><v>{value}</v></c>"


def _frame(sheet: engine.Sheet) -> list[dict[str, str]]:
    return sheet.frame.to_dict("records")


# --- values, through the files other programs write ---------------------------------------------------------

_VALUES = pd.DataFrame({
    "title": ["First", "Second", "Third"],
    "text": ["Line one\nline two", "café, naïve — «quoted»", "   spaced   "],
    "count": [3, 0.1 + 0.2, -1234.5],
    "when": [datetime.datetime(2024, 3, 5), datetime.datetime(2024, 3, 5, 14, 30, 15), datetime.datetime(1900, 1, 1)],
    "day": [datetime.date(2024, 1, 2), datetime.date(1999, 12, 31), datetime.date(2000, 2, 29)],
    "flag": [True, False, True],
    "at": [datetime.time(14, 30), datetime.time(0, 0, 1), datetime.time(23, 59, 59)],
})
_SHOWN = [
    {"title": "First", "text": "Line one\nline two", "count": "3", "when": "2024-03-05 00:00:00", "day": "2024-01-02",
     "flag": "TRUE", "at": "14:30:00"},
    {"title": "Second", "text": "café, naïve — «quoted»", "count": "0.3", "when": "2024-03-05 14:30:15",
     "day": "1999-12-31", "flag": "FALSE", "at": "00:00:01"},
    {"title": "Third", "text": "   spaced   ", "count": "-1234.5", "when": "1900-01-01 00:00:00", "day": "2000-02-29",
     "flag": "TRUE", "at": "23:59:59"},
]


@pytest.mark.parametrize(("suffix", "writer"), [(".xlsx", "openpyxl"), (".ods", "odf")])
def test_the_files_spreadsheet_programs_write_read_as_the_sheet_shows_them(suffix, writer):
    out = io.BytesIO()
    with pd.ExcelWriter(out, engine=writer) as book:
        _VALUES.to_excel(book, sheet_name="Answers", index=False)
        pd.DataFrame({"other": ["x"]}).to_excel(book, sheet_name="Notes", index=False)
    sheet = engine.read_sheet(out.getvalue(), name="survey" + suffix)
    assert (sheet.name, sheet.sheets) == ("Answers", ("Answers", "Notes"))
    assert _frame(sheet) == _SHOWN
    assert _frame(engine.read_sheet(out.getvalue(), "Notes", name="survey" + suffix)) == [{"other": "x"}]


def test_text_cells_match_an_independent_reader_on_random_text():
    rng = random.Random(3)
    alphabet = "abc xyz ÉéßØ中文\tÆ-,;\"'<>&\n"
    texts = [["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(4)] for _ in range(60)]
    frame = pd.DataFrame(texts, columns=["a", "b", "c", "d"])
    out = io.BytesIO()
    frame.to_excel(out, index=False, engine="openpyxl")
    ours = engine.read_sheet(out.getvalue(), name="random.xlsx").frame
    theirs = pd.read_excel(io.BytesIO(out.getvalue()), engine="openpyxl", dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(ours, theirs, check_dtype=False)


# --- Excel's own parts, written by hand -----------------------------------------------------------------------

def test_shared_strings_join_rich_runs_leave_out_phonetic_guides_and_decode_escapes():
    strings_xml = ("<si><r><t>Bold</t></r><r><t xml:space=\"preserve\"> and plain</t></r></si>"
                   "<si><t>東京</t><rPh sb=\"0\" eb=\"2\"><t>トウキョウ</t></rPh></si>"
                   "<si><t>line_x000D_\nbreak, literal _x005F_x000D_</t></si>")
    rows = f'<row r="1">{_cell("A1", "0", "s")}</row><row r="2">{_cell("A2", "1", "s")}</row>' \
           f'<row r="3">{_cell("A3", "2", "s")}</row>'
    sheet = engine.read_sheet(make_xlsx({"S": rows}, strings_xml=strings_xml), name="s.xlsx")
    assert sheet.frame.columns.tolist() == ["Bold and plain"]
    assert sheet.frame["Bold and plain"].tolist() == ["東京", "line\r\nbreak, literal _x000D_"]


def test_cells_are_placed_by_reference_and_blank_rows_are_skipped():
    rows = (f'<row r="2">{_cell("B2", "id", "inlineStr")}{_cell("D2", "text", "inlineStr")}</row>'
            f'<row r="4">{_cell("B4", "7")}{_cell("D4", "gamma ray", "inlineStr")}</row>'
            '<row r="5"></row>'
            f'<row r="9">{_cell("C9", "stray", "inlineStr")}</row>'
            '<row><c t="inlineStr"><is><t>no reference</t></is></c><c><v>2</v></c></row>')
    frame = engine.read_sheet(make_xlsx({"S": rows}), name="s.xlsx").frame
    # an empty header cell is named by its column letter; the leading empty column A is kept, as a CSV would
    assert frame.columns.tolist() == ["A", "id", "C", "text"]
    assert frame.values.tolist() == [["", "7", "", "gamma ray"], ["", "", "stray", ""], ["no reference", "2", "", ""]]


def test_dates_follow_the_cell_style_and_the_workbook_date_system():
    styles = ('<numFmts><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/><numFmt numFmtId="165" formatCode="[h]:mm"/>'
              '<numFmt numFmtId="166" formatCode="&quot;days&quot; 0.00"/><numFmt numFmtId="167" formatCode="mmm"/>'
              '</numFmts><cellXfs><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/>'
              '<xf numFmtId="14"/><xf numFmtId="22"/><xf numFmtId="167"/></cellXfs>')
    header = "".join(_cell(f"{c}1", c.lower(), "inlineStr") for c in "ABCDEFG")
    values = [("45356", 0), ("45356", 1), ("1.5", 2), ("45356", 3), ("59", 4), ("61.25", 5), ("45356", 6)]
    row = "".join(_cell(f"{c}2", v, style=s) for c, (v, s) in zip("ABCDEFG", values, strict=True))
    data = make_xlsx({"S": f'<row r="1">{header}</row><row r="2">{row}</row>'}, styles_xml=styles)
    assert engine.read_sheet(data, name="d.xlsx").frame.values.tolist() == [
        ["45356", "2024-03-05", "36:00:00", "45356", "1900-02-28", "1900-03-01 06:00:00", "2024-03-05"]]
    data1904 = make_xlsx({"S": f'<row r="1">{header}</row><row r="2">{row}</row>'}, styles_xml=styles, date1904=True)
    assert engine.read_sheet(data1904, name="d.xlsx").frame["b"].tolist() == ["2028-03-06"]


def test_booleans_errors_formula_text_and_iso_dates_read_as_shown():
    row = (_cell("A2", "1", "b") + _cell("B2", "#N/A", "e") + '<c r="C2" t="str"><f>A1&amp;"x"</f><v>joined</v></c>'
           + _cell("D2", "2024-03-05T10:00:00", "d") + '<c r="E2"><f>1/0</f></c>')
    header = "".join(_cell(f"{c}1", c, "inlineStr") for c in "ABCDE")
    frame = engine.read_sheet(make_xlsx({"S": f'<row r="1">{header}</row><row r="2">{row}</row>'}), name="b.xlsx").frame
    assert frame.values.tolist() == [["TRUE", "#N/A", "joined", "2024-03-05 10:00:00", ""]]


def test_the_default_sheet_is_the_visible_one_with_most_rows_and_any_can_be_chosen():
    one = f'<row r="1">{_cell("A1", "text", "inlineStr")}</row><row r="2">{_cell("A2", "hidden", "inlineStr")}</row>'
    two = f'<row r="1">{_cell("A1", "text", "inlineStr")}</row><row r="2">{_cell("A2", "shown", "inlineStr")}</row>'
    notes = f'<row r="1">{_cell("A1", "note", "inlineStr")}</row>'
    data = make_xlsx({"Hidden": one + "<row r='3'><c r='A3' t='inlineStr'><is><t>more</t></is></c></row>",
                      "Notes": notes, "Empty": "", "Data": two}, hidden=("Hidden",))
    sheet = engine.read_sheet(data, name="w.xlsx")
    assert (sheet.name, sheet.sheets, sheet.frame["text"].tolist()) == ("Data", ("Hidden", "Notes", "Empty", "Data"),
                                                                        ["shown"])
    assert engine.read_sheet(data, "Hidden", name="w.xlsx").frame["text"].tolist() == ["hidden", "more"]
    with pytest.raises(CorpusFormatError, match=r"has no sheet 'Sheet9'; its sheets: 'Hidden', 'Notes', 'Empty'"):
        engine.read_sheet(data, "Sheet9", name="w.xlsx")
    with pytest.raises(EmptyCorpusError, match="its sheet 'Empty' holds a cell"):
        engine.read_sheet(data, "Empty", name="w.xlsx")
    only_hidden = make_xlsx({"Empty": "", "Hidden": one}, hidden=("Hidden",))  # no visible sheet holds a cell
    assert engine.read_sheet(only_hidden, name="w.xlsx").name == "Hidden"


def test_headers_that_repeat_get_suffixes_as_pandas_gives_them():
    header = "".join(_cell(f"{c}1", "name", "inlineStr") for c in "ABC")
    data = make_xlsx({"S": f'<row r="1">{header}</row><row r="2">{_cell("A2", "1")}</row>'})
    assert engine.read_sheet(data, name="h.xlsx").frame.columns.tolist() == ["name", "name.1", "name.2"]


def test_a_strict_open_xml_workbook_reads_as_a_transitional_one():
    rows = f'<row r="1">{_cell("A1", "0", "s")}</row><row r="2">{_cell("A2", "1", "s")}</row>'
    data = make_xlsx({"S": rows}, strings=["text", "strict"], main="http://purl.oclc.org/ooxml/spreadsheetml/main")
    assert _frame(engine.read_sheet(data, name="strict.xlsx")) == [{"text": "strict"}]


# --- OpenDocument, written by hand ---------------------------------------------------------------------------

def _ods_cell(text: str = "", repeat: int = 1, attributes: str = "") -> str:
    repeated = f' table:number-columns-repeated="{repeat}"' if repeat > 1 else ""
    inner = f"<text:p>{text}</text:p>" if text else ""
    return f"<table:table-cell{repeated}{attributes}>{inner}</table:table-cell>"


def _ods_row(*cells: str, repeat: int = 1) -> str:
    repeated = f' table:number-rows-repeated="{repeat}"' if repeat > 1 else ""
    return f"<table:table-row{repeated}>{''.join(cells)}</table:table-row>"


def test_an_ods_sheet_expands_repeats_keeps_spaces_and_leaves_out_comments():
    rows = (_ods_row(_ods_cell("id"), _ods_cell("text"), _ods_cell(repeat=1000))
            + _ods_row(_ods_cell("1"), _ods_cell('two<text:s text:c="3"/>spaces<text:tab/>and a tab'
                                                 "<office:annotation><text:p>a comment</text:p></office:annotation>"))
            + _ods_row(_ods_cell("same", repeat=2), repeat=2)
            + _ods_row(_ods_cell(repeat=1024), repeat=1_048_000)  # what LibreOffice writes after the data
            + _ods_row(_ods_cell('<text:span>styled</text:span> words</text:p><text:p>second paragraph'),
                       _ods_cell("3.50", attributes=' office:value-type="float" office:value="3.5"')))
    sheet = engine.read_sheet(make_ods({"Sheet1": rows, "Sheet2": _ods_row(_ods_cell("x"))}), name="o.ods")
    assert (sheet.name, sheet.sheets) == ("Sheet1", ("Sheet1", "Sheet2"))
    assert sheet.frame.values.tolist() == [["1", "two   spaces\tand a tab"], ["same", "same"], ["same", "same"],
                                           ["styled words\nsecond paragraph", "3.5"]]
    notes_first = make_ods({"Notes": _ods_row(_ods_cell("read me")), "Data": rows})
    assert engine.read_sheet(notes_first, name="o.ods").name == "Data"  # the sheet with most rows


def test_ods_typed_values_read_as_the_excel_reader_gives_them():
    typed = [' office:value-type="date" office:date-value="2024-03-05"',
             ' office:value-type="date" office:date-value="2024-03-05T14:30:15.25"',
             ' office:value-type="time" office:time-value="PT36H00M00S"',
             ' office:value-type="boolean" office:boolean-value="false"',
             ' office:value-type="percentage" office:value="0.25"',
             ' office:value-type="currency" office:value="12" office:currency="EUR"']
    rows = _ods_row(*(_ods_cell(f"c{i}") for i in range(6))) + _ods_row(*(_ods_cell("shown", 1, a) for a in typed))
    frame = engine.read_sheet(make_ods({"S": rows}), name="t.ods").frame
    assert frame.values.tolist() == [["2024-03-05", "2024-03-05 14:30:15", "36:00:00", "FALSE", "0.25", "12"]]


# --- damage, protection and bounds -----------------------------------------------------------------------------

def test_a_password_protected_or_old_binary_workbook_says_what_to_do():
    with pytest.raises(CorpusFormatError, match=r"'old.xlsx' is protected by a password, or is an older binary Excel "
                                                r"workbook; open it, save it as .xlsx without a password"):
        engine.read_sheet(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), name="old.xlsx")
    with pytest.raises(CorpusFormatError, match=r"'locked.ods' is protected by a password"):
        engine.read_sheet(make_ods({"S": _ods_row(_ods_cell("x"))}, encrypted=True), name="locked.ods")


def test_damaged_spreadsheets_say_so():
    with pytest.raises(CorpusFormatError, match=r"'cut.xlsx' is damaged or not an Excel workbook"):
        engine.read_sheet(b"PK\x03\x04 not really", name="cut.xlsx")
    bad_string = make_xlsx({"S": f'<row r="1">{_cell("A1", "5", "s")}</row>'}, strings=["only one"])
    with pytest.raises(CorpusFormatError, match="names shared string '5', which it does not hold"):
        engine.read_sheet(bad_string, name="s.xlsx")
    bad_repeat = make_ods({"S": _ods_row(_ods_cell("x"), repeat=2**30)})
    with pytest.raises(CorpusFormatError, match="is damaged: a number-rows-repeated of '1073741824'"):
        engine.read_sheet(bad_repeat, name="r.ods")
    no_workbook = io.BytesIO()
    with zipfile.ZipFile(no_workbook, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
    with pytest.raises(CorpusFormatError, match="has no workbook part"):
        engine.read_sheet(no_workbook.getvalue(), name="n.xlsx")


def test_xml_entities_are_refused():
    laughs = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
              '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>&lol2;</t></si></sst>')
    data = make_xlsx({"S": f'<row r="1">{_cell("A1", "0", "s")}</row>'}, strings_xml="")
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as archive:
        for info in source.infolist():
            archive.writestr(info, laughs if info.filename == "xl/sharedStrings.xml" else source.read(info))
    with pytest.raises(CorpusFormatError, match="declares a document type or entities"):
        engine.read_sheet(out.getvalue(), name="laughs.xlsx")
    external = laughs.replace('<!ENTITY lol "lol">', '<!ENTITY lol SYSTEM "file:///etc/passwd">')
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as source, zipfile.ZipFile(second := io.BytesIO(), "w") as archive:
        for info in source.infolist():
            archive.writestr(info, external if info.filename == "xl/sharedStrings.xml" else source.read(info))
    with pytest.raises(CorpusFormatError, match="declares a document type or entities"):
        engine.read_sheet(second.getvalue(), name="external.xlsx")


def test_a_sheet_beyond_the_cell_bound_is_refused_with_what_to_do(monkeypatch):
    monkeypatch.setattr(spreadsheets, "SHEET_CELLS", 1000)
    many = make_ods({"S": _ods_row(_ods_cell("x", repeat=10), repeat=101)})
    with pytest.raises(CorpusFormatError, match="has more than 1,000 cells; keep the rows and columns you need"):
        engine.read_sheet(many, name="many.ods")
    # few cells, far apart: the table they span is what is bounded
    sparse = make_xlsx({"S": f'<row r="1">{_cell("XFD1", "far", "inlineStr")}</row>'
                             f'<row r="2">{_cell("A2", "x", "inlineStr")}</row>'})
    with pytest.raises(CorpusFormatError, match="has more than 1,000 cells"):
        engine.read_sheet(sparse, name="sparse.xlsx")


def test_parts_past_the_expansion_limit_are_refused():
    rows = "".join(f'<row r="{r}">{_cell(f"A{r}", "word " * 20, "inlineStr")}</row>' for r in range(1, 200))
    with pytest.raises(CorpusFormatError, match="SVI_TOPICS_MAX_EXPANDED_MB"):
        engine.read_sheet(make_xlsx({"S": rows}), name="big.xlsx", limits=engine.Limits(max_expanded_mb=0.01))


def _read_or_refuse(data: bytes, name: str) -> tuple[engine.Sheet | None, str | None]:
    try:
        return engine.read_sheet(data, name=name), None
    except (CorpusFormatError, EmptyCorpusError) as exc:
        return None, str(exc)


def test_damaged_spreadsheets_are_refused_never_raise_anything_else():
    """Bytes changed, cut out or put in at random (a fixed seed): each file is read or refused as damaged."""
    rng = random.Random(1)
    header = _cell("A1", "0", "s") + _cell("B1", "n", "inlineStr")
    seeds = {"a.xlsx": make_xlsx({"S": f'<row r="1">{header}</row><row r="2">{_cell("A2", "1", "s")}'
                                       f'{_cell("B2", "45356", style=1)}</row>'}, strings=["text", "words here"],
                                 styles_xml='<cellXfs><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs>'),
             "b.ods": make_ods({"S": _ods_row(_ods_cell("text"), _ods_cell("n"))
                                + _ods_row(_ods_cell("words here"), _ods_cell("x", 3), repeat=2)})}
    outcomes = set()
    for _ in range(600):
        name, data = rng.choice(sorted(seeds.items()))
        sheet, problem = _read_or_refuse(damaged(data, rng, 10), name)
        assert problem is None or problem.startswith(repr(name))
        assert sheet is None or all(isinstance(v, str) for v in sheet.frame.to_numpy().ravel())
        outcomes.add((name, sheet is not None))
    assert outcomes == {("a.xlsx", True), ("a.xlsx", False), ("b.ods", True), ("b.ods", False)}


# --- the readers of collections --------------------------------------------------------------------------------

def _survey(tmp_path, suffix=".xlsx"):
    frame = pd.DataFrame({"respondent": ["r1", "r2", "r3", "r4"],
                          "answer": ["the bus was late again", "more buses at night please", "",
                                     "late buses and crowded trains"],
                          "date": [datetime.date(2024, 5, d) for d in (1, 2, 3, 4)]})
    path = tmp_path / f"survey{suffix}"
    with pd.ExcelWriter(path, engine="openpyxl" if suffix == ".xlsx" else "odf") as book:
        pd.DataFrame({"about": ["this workbook holds a survey"]}).to_excel(book, sheet_name="About", index=False)
        frame.to_excel(book, sheet_name="Responses", index=False)
    return path


@pytest.mark.parametrize("suffix", [".xlsx", ".ods"])
def test_read_table_and_load_corpus_read_a_chosen_sheet(tmp_path, suffix):
    path = _survey(tmp_path, suffix)
    documents = engine.read_table(path, "answer", "respondent", sheet="Responses")
    assert [(d.doc_id, d.title, d.text) for d in documents] == [
        ("1", "r1", "the bus was late again"), ("2", "r2", "more buses at night please"), ("3", "r3", ""),
        ("4", "r4", "late buses and crowded trains")]
    assert documents.encodings == {}
    assert engine.read_table(path.read_bytes(), "about", format=suffix[1:], sheet="About")[0].text == \
        "this workbook holds a survey"
    corpus = engine.load_corpus(path, text_column="answer", id_column="respondent", sheet="Responses")
    assert corpus.doc_ids == ("r1", "r2", "r4") and [d.doc_id for d in corpus.dropped] == ["r3"]
    assert engine.load_corpus(path, text_column="answer").doc_ids == ("1", "2", "4")  # the sheet with most rows
    with pytest.raises(engine.MissingColumnError, match="available columns: 'about'"):
        engine.load_corpus(path, text_column="answer", sheet="About")
    with pytest.raises(ValueError, match=r"sheet applies to \.xlsx and \.ods spreadsheets"):
        engine.read_table(b"text\nx\n", "text", format="csv", sheet="Responses")


def test_a_disk_corpus_of_a_sheet_equals_the_corpus_in_memory(tmp_path):
    path = _survey(tmp_path)
    memory = engine.load_corpus(path, text_column="answer", sheet="Responses")
    disk = engine.DiskCorpus.from_texts(path, tmp_path / "disk", text_column="answer", sheet="Responses",
                                        chunk_size=2)
    assert disk.vocabulary == memory.vocabulary and tuple(disk.doc_ids) == memory.doc_ids
    np.testing.assert_array_equal(disk.subset_to_memory(slice(None)).counts.toarray(), memory.counts.toarray())
    assert [d.doc_id for d in disk.dropped] == [d.doc_id for d in memory.dropped] == ["3"]
    with pytest.raises(ValueError, match=r"sheet applies to \.xlsx and \.ods"):
        engine.DiskCorpus.from_texts(tmp_path / "x.csv", tmp_path / "d2", sheet="S")


def test_fit_and_export_read_a_sheet_from_the_command_line(tmp_path):
    path = _survey(tmp_path)
    model = tmp_path / "m.npz"
    run = [sys.executable, "-m", "engine"]
    fit = subprocess.run([*run, "fit", str(path), "--sheet", "Responses", "--text-column", "answer", "--topics", "2",
                          "--epochs", "1", "--out", str(model)], capture_output=True, text=True)
    assert fit.returncode == 0, fit.stderr
    assert "corpus: 3 documents" in fit.stderr + fit.stdout
    export = subprocess.run([*run, "export", str(model), "--corpus", str(path), "--sheet", "Responses",
                             "--text-column", "answer", "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert export.returncode == 0, export.stderr
    documents = pd.read_csv(tmp_path / "out" / "documents.csv", dtype=str)
    assert documents["date"].tolist() == ["2024-05-01", "2024-05-02", "2024-05-04"]
    wrong = subprocess.run([*run, "fit", str(path), "--sheet", "Nope", "--out", str(model)], capture_output=True,
                           text=True)
    assert wrong.returncode != 0 and "has no sheet 'Nope'; its sheets: 'About', 'Responses'" in wrong.stderr


def _rows(*widths_and_values: list[str]) -> str:
    """A sheet's rows, each a list of cell texts from column A (an empty text leaves its cell out)."""
    return "".join(f'<row r="{r}">' + "".join(_cell(f"{chr(65 + c)}{r}", value, "inlineStr")
                                              for c, value in enumerate(cells) if value) + "</row>"
                   for r, cells in enumerate(widths_and_values, start=1))


def test_rows_of_one_cell_above_the_header_are_the_sheets_title():
    rows = _rows(["Residents' survey, May 2024"], ["Answers are anonymous"], ["id", "answer", "district"],
                 ["1", "late buses", "North"], ["2", "more trains", "South"], ["3", "", "Centre"])
    sheet = engine.read_sheet(make_xlsx({"S": rows}), name="survey.xlsx")
    assert sheet.title == ("Residents' survey, May 2024", "Answers are anonymous")
    assert sheet.frame.columns.tolist() == ["id", "answer", "district"] and len(sheet.frame) == 3
    # a table of one column, with a note in column B on one row: no title, every row is the table's
    single = _rows(["text"], ["late buses"], ["more trains"], ["crowded", "see the photo"], ["dirty"], ["slow"])
    sheet = engine.read_sheet(make_xlsx({"S": single}), name="notes.xlsx")
    assert sheet.title == () and sheet.frame.columns.tolist() == ["text", "B"]
    assert sheet.frame["text"].tolist() == ["late buses", "more trains", "crowded", "dirty", "slow"]
    # more rows of one cell than a title has: the table's too
    many = _rows(*[[f"line {i}"] for i in range(6)], ["a", "b"], ["1", "2"])
    assert engine.read_sheet(make_xlsx({"S": many}), name="m.xlsx").title == ()
