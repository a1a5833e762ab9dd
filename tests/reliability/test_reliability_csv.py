"""CSV/TSV quoting mistakes that would merge rows are refused with the line to fix; good quoting passes.

Before: a stray quote that a later quote happens to close (or a quoted field with
text after its closing quote) made pandas read the lines in between as one field,
so 1,000 rows came out as 999 documents (or 799) without a word.
"""

import pytest

import engine
from engine import CorpusFormatError, DiskCorpus, load_corpus, read_table

N = 1000


def rows(n=N):
    return [f"{i},text number {i} about cats and dogs,label{i % 3}" for i in range(1, n + 1)]


def table(lines, header="id,text,label"):
    return (header + "\n" + "\n".join(lines) + "\n").encode("utf-8")


def with_rows(changes):
    lines = rows()
    for row, line in changes.items():
        lines[row - 1] = line
    return table(lines)


def test_one_stray_quote_in_a_thousand_rows_names_the_line(tmp_path):
    # row 500's text opens a quote, row 501's text ends with one: a clean merge of two rows
    data = with_rows({500: '500,"text number 500 about cats,label2', 501: '501,text number 501 ends here",label0'})
    match = (r"line 501: a quoted field starts here and runs on over line 502, which looks like a row of its own "
             r"\('501,text number 501 ends here,label0'\); rows would be merged silently\. Close the quote")
    with pytest.raises(CorpusFormatError, match=match):
        read_table(data, "text", format="csv")
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    with pytest.raises(CorpusFormatError, match=r"'.*t\.csv' line 501: a quoted field"):
        load_corpus(path)
    with pytest.raises(CorpusFormatError, match="line 501: a quoted field starts here"):
        DiskCorpus.from_texts(path, tmp_path / "disk")
    assert not (tmp_path / "disk").exists()


@pytest.mark.parametrize(("changes", "match"), [
    ({500: '500,"text number 500 about cats,label2'},  # never closed: the rest of the file would be one field
     r"line 501: a quoted field starts here and is not closed properly \(the parser stopped at line 1001: "
     r"unexpected end of data\)"),
    ({500: '500,"text number 500,label2', 701: '701,"quoted" then more text,label0'},  # closed by a later quote
     r"line 501: a quoted field starts here and is not closed properly \(the parser stopped at line 702: "
     r"',' expected after '\"'\)"),
    ({10: '10,"a quote" followed by text,label1'},  # text after the closing quote
     r"line 11: a quoted field .*stopped at line 11"),
])
def test_broken_quoting_is_refused(changes, match):
    with pytest.raises(CorpusFormatError, match=match):
        read_table(with_rows(changes), "text", format="csv")


def test_tsv_quoting_is_checked_too():
    lines = [f"{i}\ttext {i}" for i in range(1, 11)]
    lines[3], lines[4] = '4\t"text 4 opens', '5\ttext 5 closes"'
    with pytest.raises(CorpusFormatError, match=r"line 5: a quoted field .* over line 6"):
        read_table(table(lines, "id\ttext"), "text", format="tsv")


def test_legitimate_quoting_keeps_every_row(tmp_path):
    texts = {
        100: "first line\nsecond line, with a comma\nthird, line, with, commas",
        200: 'she said ""hello"", then left',
        300: "windows line\r\nbreaks, kept",
        400: "2020, a year in a paragraph\n\nand a blank line",  # a year, out of the id range
        500: "ends with a line break\n",
    }
    lines = rows()
    for row, text in texts.items():
        lines[row - 1] = f'{row},"{text}",label{row % 3}'
    data = table(lines)
    documents = read_table(data, "text", format="csv")
    assert len(documents) == N
    expected = {row: text.replace('""', '"') for row, text in texts.items()}
    assert {row: documents[row - 1].text for row in texts} == expected
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    assert load_corpus(path).n_docs == N
    assert DiskCorpus.from_texts(path, tmp_path / "disk").n_docs == N


def test_a_table_of_free_text_only_is_not_second_guessed():
    # one text column: a line inside a multi-line text cannot be told from a row, so it is accepted
    data = b'text\n"a text\nover, two lines"\nanother text\n'
    assert [d.text for d in read_table(data, "text", format="csv")] == ["a text\nover, two lines", "another text"]


def test_the_error_is_an_engine_error():
    data = with_rows({500: '500,"text number 500 about cats,label2'})
    with pytest.raises(engine.EngineError):
        read_table(data, "text", format="csv")
